"""``tablecam live``: the assistant beside a game. Frames in, verdicts spoken within a blink, the log written as
it happens.

Threads: one captures (a camera, or a recording paced to the wall clock with ``realtime``) into a one-frame
mailbox, so the referee always works on the newest frame and a slow frame costs a dropped frame, never a
growing delay; the main thread runs the vision (``vision.watcher``), the referee and the callouts
(``tablecam.audio_out.Player``, its own audio thread).

Clock: a recording's frames keep their video time (the log's ``t``) and are mapped to the monotonic clock by the
wall time of frame 0; a camera's frames are monotonic seconds since the start. Latency, measured by
``bench/latency.py``, is from the wall time a frame was due to the first sample of its callout.

Faults: a missing model or layout stops before anything starts; no camera is a clear error; a camera that stops
delivering mid-game is retried every second (said on stderr) while the log, complete to that moment, stays
valid; no sound card gives a warning and the callouts go on silently (and into ``audio_out``); Ctrl-C ends
cleanly: the referee's last rulings are written and spoken.
"""

from __future__ import annotations

import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from calibration.layout import Layout, LayoutError
from engine.cards import game_cards, rank
from engine.events import GameHeader
from engine.games import new_referee
from engine.timeline import Timeline
from engine.verdicts import Verdict
from models.reader import attach_deck, load_card_model
from tablecam.audio_out import Player
from tablecam.config import did_you_mean
from tablecam.cores import one_blas_thread
from tablecam.gamelog import LogWriter
from tablecam.hints import HINT_GAMES, HintTimer, speak_hint
from tablecam.overlay import Overlay, Window
from tablecam.said import USAGE, SaidError, TypedCalls, read_said
from tablecam.speech import warmup_phrases
from vision.audio import impact_onsets, read_audio
from vision.frames import CameraError, Frame, VideoError, VideoReader, open_camera, probe
from vision.microphone import Microphone, MicrophoneError
from vision.slaps import SlapDetector
from vision.watcher import AUDIO_TIMED_CARDS, TableWatcher, detector_input

LIVE_GAMES = ("slapjack", "snap", "speed", "spit", "cheat", "paijie")
SLAP_HOLD_S = 0.2  # a slap waits this long for its impact sound and for a card its hand may have laid
RACE_HOLD_S = 0.15  # Speed, Spit: a card is sure two or three looks after it landed; races wait for it
#: a changed pile is looked at at most every this many frames: every frame in the slap games ("Jack!" the moment it
#: shows), every other frame elsewhere, as the audit does. Looked at every frame, a Spit card partly covered by the
#: next was read as its twin twice running and confirmed ("Illegal: jack on jack", rendered held-out s7 3.3 s, and the
#: game's verdicts after it); on the 12 rendered Speed and Spit games (tablecam live, realtime=false) the truth's
#: verdicts said alike 221 -> 232 of 303, said by live alone 65 -> 52, 10-30 % less time a frame; Cheat and Pai Jie
#: (6 games) the same verdicts, a third less time a frame in Pai Jie
LOOK_EVERY = {"slapjack": 1, "snap": 1}


class LiveError(ValueError):
    """Live cannot start: the message says what is missing and where."""


@dataclass
class LiveStats:
    frames: int = 0  # processed
    dropped: int = 0  # captured but replaced by a newer one before the loop got to it
    captured: int = 0
    detections: int = 0
    busy_s: float = 0.0  # time spent processing frames
    reconnects: int = 0
    start_wall: float = 0.0  # monotonic time of video time 0 (a recording) or of the start (a camera)

    @property
    def drop_rate(self) -> float:
        return self.dropped / self.captured if self.captured else 0.0


class _Mailbox:
    """The newest frame, and how many were overwritten unread."""

    def __init__(self) -> None:
        self._cv = threading.Condition()
        self._item: Frame | None = None
        self.done = False
        self.dropped = 0
        self.captured = 0
        self.error: str | None = None

    def put(self, frame: Frame) -> None:
        with self._cv:
            if self._item is not None:
                self.dropped += 1
            self._item = frame
            self.captured += 1
            self._cv.notify()

    def get(self, timeout: float = 0.5) -> Frame | None:
        with self._cv:
            if self._item is None and not self.done:
                self._cv.wait(timeout)
            item, self._item = self._item, None
            return item

    def close(self, error: str | None = None) -> None:
        with self._cv:
            self.done, self.error = True, error
            self._cv.notify()


def _capture_file(path: str, box: _Mailbox, start_wall: float, realtime: bool, stop: threading.Event,
                  glance: Callable[[Any], Any] | None = None) -> None:
    try:
        for fr in VideoReader(path, shrink=SlapDetector.shrink, glance=glance):
            if stop.is_set():
                break
            due = start_wall + fr.t
            if realtime:
                wait = due - time.monotonic()
                if wait > 0:
                    time.sleep(wait)
            else:
                while not stop.is_set() and box._item is not None:  # as fast as the loop goes, dropping nothing
                    time.sleep(0.001)
            box.put(fr)  # (shrunk and glanced at here, beside the loop: see vision.frames.Frame.small)
        box.close()
    except VideoError as e:
        box.close(str(e))


def _capture_camera(index: int, box: _Mailbox, stop: threading.Event, stats: LiveStats,
                    say: Callable[[str], None], t0: float, glance: Callable[[Any], Any] | None = None) -> None:
    n = 0
    while not stop.is_set():
        try:
            cam = open_camera(index)
        except CameraError as e:
            if n == 0:
                box.close(str(e))
                return
            say(f"{e}; retrying in 1 s, the log is kept")
            time.sleep(1.0)
            continue
        with cam:
            for fr in cam:
                if stop.is_set():
                    break
                box.put(Frame(n, fr.t - t0, fr.image, SlapDetector.shrink(fr.image),
                              glance(fr.image) if glance is not None else None))
                n += 1
            if cam.damage is not None and not stop.is_set():
                stats.reconnects += 1
                say(f"camera {index} stopped delivering frames at {n} frames; retrying, the log is kept")
                time.sleep(1.0)
    box.close()


def trigger_say(game: str, card: str) -> str | None:
    """What to call the moment a card that makes slapping right shows (Slapjack: a jack)."""
    if game == "slapjack" and rank(card) == "J":
        return "Jack!"
    return None


@one_blas_thread
def run_live(*, video: str | None = None, camera: int | None = None, game: str, players: list[str],
             layout: str | Path, model: str | Path, log_path: str | Path, player: Player,
             realtime: bool = True, seconds: float | None = None, use_audio: bool = True,
             call_triggers: bool = True, say: Callable[[str], None] | None = None, idle_stop_s: float | None = None,
             on_frame: Callable[[Frame, TableWatcher, list[Any]], None] | None = None,
             detector: Any = None, reader: str | Path | None = "auto", window: bool = False,
             mic_device: Any = None, hints: bool = False, said: str | None = None,
             typed: Any = None, imgsz: int | None = None, deck: str | Path | None = None) -> LiveStats:
    """The live loop (see the module doc). Returns its statistics when the source ends, ``seconds`` pass,
    no frame came for ``idle_stop_s`` (None: wait for the camera as long as it takes) or Ctrl-C is pressed.
    ``imgsz``: the detector's input for the zone crops (None: ``vision.watcher.detector_input``).
    ``hints``: in Speed and Spit, say a visible legal play when the table has gone quiet (tablecam.hints).
    ``deck``: a folder with a picture of each card of the deck played: faces are read against them
    (``models.deckmatch``; 15-25 ms for each card not seen lying there before).
    ``said``: what is said at the table (``tablecam.said``): ``-`` typed at the terminal as it happens (or lines
    from ``typed``, a text stream), or a said log on the recording's clock (with ``video``)."""
    say = say or (lambda m: print(m, file=sys.stderr, flush=True))
    if game not in LIVE_GAMES:
        raise LiveError(f"live knows {', '.join(LIVE_GAMES)} for now, not {game!r}{did_you_mean(game, LIVE_GAMES)}")
    if detector is None and not Path(model).is_file():
        raise LiveError(f"no detector model at {model}; train one (tablecam train) or pass model=PATH")
    try:
        lay = Layout.load(layout)
    except (OSError, LayoutError) as e:
        raise LiveError(str(e)) from None
    if list(lay.players) != list(players) or lay.game != game:
        raise LiveError(f"{lay.source}: the layout is for {lay.game} with {', '.join(lay.players)}; "
                        f"calibrate for {game} with {', '.join(players)}")
    fps = 30.0
    onsets_all: list = []
    if video is not None:
        info = probe(video)  # a bad file fails here, before anything starts
        try:
            lay.check_frame(info.width, info.height)
        except LayoutError as e:
            raise LiveError(str(e)) from None
        fps = info.fps or 30.0
        if use_audio and info.has_audio:
            samples, rate, t0 = read_audio(video)
            onsets_all = impact_onsets(samples, rate, t0, delay_s=lay.latency.get("audio_s", 0.0))
    said_log: deque = deque()
    if said not in (None, "-"):
        try:
            said_log.extend(read_said(said, game, players))
        except SaidError as e:
            raise LiveError(str(e)) from None
    calls = deque(said_log)  # the same calls, told to the watcher as they are said
    try:
        detector = detector if detector is not None else \
            load_card_model(model, reader, turns=1, imgsz=imgsz or detector_input(model, game))
        if deck is not None:
            attach_deck(detector, deck, lay.homography, str(lay.source), game_cards(game))
    except (FileNotFoundError, ValueError) as e:
        raise LiveError(str(e)) from None
    watcher = TableWatcher(lay, game, detector, fps, slap_hold_s=SLAP_HOLD_S, every=LOOK_EVERY.get(game, 2))
    header = GameHeader(game=game, players=tuple(players), dealer=players[-1],
                        variants={"snap_by_slap": True} if game == "snap" else {})
    # Speed and Spit: a card found under the top as the top is taken back landed before it, and is ruled in its
    # place (engine.timeline), not against the top; elsewhere every line is ruled as it comes
    timeline = Timeline(new_referee(header))
    stats = LiveStats()
    overlay, view = Overlay(lay), None
    if window:
        try:
            view = Window()
        except RuntimeError as e:
            say(f"no window: {e}; running headless (headless=true hides this warning)")
    box = _Mailbox()
    stop = threading.Event()
    player.start()
    start_wall = time.monotonic() + 0.05
    stats.start_wall = start_wall
    if video is not None:
        cap = threading.Thread(target=_capture_file, args=(video, box, start_wall, realtime, stop, watcher.glance),
                               daemon=True)
    else:
        cap = threading.Thread(target=_capture_camera, args=(camera or 0, box, stop, stats, say, start_wall,
                                                             watcher.glance),
                               daemon=True)
    heard: deque = deque()  # the microphone's onsets, appended from its audio thread
    mic = None
    if video is None and use_audio:
        try:
            mic = Microphone(heard.append, start_wall, delay_s=lay.latency.get("audio_s", 0.0),
                             device=mic_device).open()
        except MicrophoneError as e:
            say(f"{e}; slaps are timed from the video alone")
    warm = [text for text in ("Jack!",) if game == "slapjack" and call_triggers]
    if player.speech is not None and not player.policy.mute:  # the game's sentences, made while it starts
        threading.Thread(target=lambda: player.prepare(warmup_phrases(game, players, player.policy.lang, extra=warm)),
                         daemon=True, name="speech warm-up").start()
    typed_calls = None
    if said == "-" or typed is not None:
        typed_calls = TypedCalls(typed if typed is not None else sys.stdin, players,
                                 lambda: time.monotonic() - start_wall, say).start()
        say(f"type what is said at the table, a line each: {USAGE}")
    cap.start()
    next_onset = 0
    hint_timer = HintTimer() if hints and game in HINT_GAMES else None
    try:
        with LogWriter(log_path, fresh=True) as log:
            log.write(header)

            def rule(outputs: list) -> None:
                for o in outputs:
                    log.write(o.to_dict())
                    watcher.ruled(o.to_dict())
                    if isinstance(o, Verdict):
                        overlay.verdict(o.t, o.say or o.kind)
                        if o.voice:
                            player.submit(o)

            shown_boxes: list = []
            shown_until = -1.0
            try:
                last_frame = time.monotonic()
                while True:
                    fr = box.get()
                    if fr is None:
                        if box.done:
                            break
                        if idle_stop_s is not None and time.monotonic() - last_frame > idle_stop_s:
                            say(f"no frame for {idle_stop_s:g} s: stopping")
                            break
                        continue
                    last_frame = time.monotonic()
                    t_busy = time.perf_counter()
                    while next_onset < len(onsets_all) and onsets_all[next_onset].t <= fr.t:  # heard by now
                        watcher.onsets.append(onsets_all[next_onset])
                        next_onset += 1
                    while heard:  # the microphone's, from its own thread
                        watcher.onsets.append(heard.popleft())
                    while calls and calls[0].t <= fr.t:  # what has been said by now (a claim names a batch's rank)
                        watcher.heard(calls.popleft())
                    events = watcher.feed(fr.index, fr.t, fr.image, small=fr.small, glanced=fr.glanced)
                    if typed_calls is not None:
                        typed_now = typed_calls.take()
                        said_log.extend(typed_now)
                        calls.extend(typed_now)
                    for ev in events:
                        while said_log and said_log[0].t <= ev.t:  # what was said before this was seen
                            heard_ev = said_log.popleft()
                            log.write(heard_ev)
                            rule(timeline.push(heard_ev))
                        ev = timeline.referee.as_flip(ev)
                        log.write(ev)
                        if hint_timer is not None:
                            hint_timer.saw(ev.t)
                        if call_triggers and ev.type == "card" and ev.card:
                            text = trigger_say(game, ev.card)
                            if text:
                                player.submit(Verdict(ev.t, "trigger", "SJ-2", text))
                                overlay.verdict(ev.t, text)
                        rule(timeline.push(ev))
                    while said_log and said_log[0].t <= fr.t - SLAP_HOLD_S:  # nothing seen can come before it
                        heard_ev = said_log.popleft()
                        log.write(heard_ev)
                        rule(timeline.push(heard_ev))
                    # a race is ruled once no card that may have landed inside its window can still be confirmed
                    rule(timeline.advance(fr.t - (RACE_HOLD_S if game in AUDIO_TIMED_CARDS else 0.0)))
                    if hint_timer is not None and (hint := hint_timer.due(fr.t, timeline.referee)) is not None:
                        speak_hint(hint, fr.t, player, log.write)
                        overlay.verdict(fr.t, hint.say)
                    stats.frames += 1
                    stats.busy_s += time.perf_counter() - t_busy
                    if on_frame is not None:
                        on_frame(fr, watcher, events)
                    if watcher.boxes:
                        shown_boxes, shown_until = list(watcher.boxes), fr.t + 0.5
                    if view is not None:
                        lag_ms = (time.monotonic() - (start_wall + fr.t)) * 1000
                        img = overlay.draw(fr.image, fr.t, shown_boxes if fr.t <= shown_until else [], lag_ms,
                                           box.dropped / max(1, box.captured))
                        if not view.show(img):
                            say("window closed: finishing the log")
                            break
                    if seconds is not None and fr.t >= seconds:
                        break
            except KeyboardInterrupt:
                say("stopped (Ctrl-C); finishing the log")
            if typed_calls is not None:
                said_log.extend(typed_calls.take())
            rest = sorted([*watcher.finish(), *said_log], key=lambda e: e.t)
            for ev in rest:
                ev = timeline.referee.as_flip(ev)
                log.write(ev)
                rule(timeline.push(ev))
            rule(timeline.finish())
    finally:
        stop.set()
        if view is not None:
            view.close()
        if mic is not None:
            mic.close()
        cap.join(timeout=2.0)
        player.stop(wait=1.0)
    stats.dropped, stats.captured = box.dropped, box.captured
    stats.detections = watcher.detections
    if box.error and stats.frames == 0:
        raise LiveError(box.error)
    return stats
