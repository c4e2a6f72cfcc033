"""``tablecam audit``: a recorded game in, the referee's verdicts and the evidence out.

One pass over the video (frames are never all in memory): every frame goes to the slap detector (arms over
piles, ``vision.slaps``); a pile's crop goes to the card detector when it changed (``vision.tracking``); the
audio track's impact onsets time the slaps. Observations wait in a short reorder buffer (a card is confirmed
a few frames after it appeared and dated back), then go, in time order, into the game log and the referee,
whose verdicts follow them in the log. Out come ``game.jsonl``, ``slaps.csv`` (Speed and Spit: ``races.csv`` too),
``report.html`` (with the frames around every disputed contact) and ``annotated.mp4``.

A damaged video is audited up to the damage; the log written so far stays valid and the report says where
the audit stopped. A layout that does not fit the video is refused before anything is written.
"""

from __future__ import annotations

import math
import queue
import threading
import time
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

import av
import cv2
import numpy as np

from calibration.layout import Layout, LayoutError, draw_zones
from engine.cards import game_cards
from engine.events import Event, GameHeader
from engine.games import new_referee
from models.progress import Progress
from models.reader import attach_deck, load_card_model
from tablecam.config import did_you_mean
from tablecam.cores import one_blas_thread
from tablecam.gamelog import LogWriter
from tablecam.report import (
    PILE_RACE_GAMES,
    AuditSummary,
    SlapRecord,
    pile_races,
    write_races_csv,
    write_report,
    write_slaps_csv,
)
from tablecam.said import SaidError
from tablecam.said import read_said as said_log
from vision.audio import impact_onsets, read_audio
from vision.frames import Frame, VideoError, VideoReader, probe
from vision.slaps import SlapDetector, SlapSeen
from vision.tracking import CardSeen, zone_crop
from vision.watcher import TableWatcher, detector_input

AUDIT_GAMES = ("slapjack", "snap", "speed", "spit", "cheat", "paijie")
REORDER_S = 1.6  # an observation is final this long after it happened (confirmation plus tracing back)
ANNOTATE_DELAY_S = 2.0  # the annotated video runs this far behind, so verdicts can be captioned on time
CAPTION_S = 2.5
SAME_TIME_S = 2 / 30  # rulings closer than two frames apart: their order is not what a verdict check compares


#: a box drawn on the annotated video stays until a later look at its place (a crop holding its middle), or
#: BOX_KEPT_S passes: a pile is looked at every other frame or less often, and every look's boxes kept for a second
#: drew a dozen jittering boxes on one card, and a trail behind a moving hand
BOX_KEPT_S = 1.0

#: quarter turns of each face crop the audit's card reader averages (``models.reader.CardReader``)
AUDIT_TURNS = 2
#: frames decoded ahead, in a thread beside the detector: decoding runs on the core the rest leaves idle
FRAMES_AHEAD = 4


def latest_boxes(boxes: list[tuple[float, tuple, str]], looks: list[tuple[float, tuple]], t: float
                 ) -> list[tuple[tuple, str]]:
    """The boxes to draw at ``t`` from ``boxes`` (look time, frame pixels x0 y0 x1 y1, label): those of the last
    :data:`BOX_KEPT_S` whose place no later look (``looks``: time, crop x0 y0 x1 y1; up to ``t``) saw again."""
    shown = [(tb, b, lab) for tb, b, lab in boxes if t - BOX_KEPT_S <= tb <= t]
    later = [(tl, c) for tl, c in looks if tl <= t]
    if not shown or not later:
        return [(b, lab) for _, b, lab in shown]
    when = np.array([tl for tl, _ in later])[None, :]
    crops = np.array([c for _, c in later], np.float64).reshape(1, -1, 4)
    xyxy = np.array([b for _, b, _ in shown], np.float64).reshape(-1, 4)
    mx, my = ((xyxy[:, 0] + xyxy[:, 2]) / 2)[:, None], ((xyxy[:, 1] + xyxy[:, 3]) / 2)[:, None]
    tb = np.array([t for t, _, _ in shown])[:, None]
    again = (when > tb) & (crops[..., 0] <= mx) & (mx < crops[..., 2]) & (crops[..., 1] <= my) & (my < crops[..., 3])
    return [(b, lab) for (_, b, lab), seen in zip(shown, again.any(1), strict=True) if not seen]


class AuditError(ValueError):
    """The audit cannot start: bad game, players, layout or model; the message says which and why."""


def default_model() -> Path:
    """The shipped detector (``models/weights/tablecam-cards.onnx``)."""
    return Path(__file__).resolve().parent.parent / "models" / "weights" / "tablecam-cards.onnx"


@dataclass
class AuditResult:
    out: Path
    log: Path
    summary: AuditSummary
    cards: list[CardSeen]
    slaps: list[SlapSeen]
    outputs: list[dict[str, Any]]
    frames: int
    seconds: float
    stopped: str | None = None


@dataclass
class _Annotator:
    """Writes ``annotated.mp4`` at half size, ``ANNOTATE_DELAY_S`` behind the audit so that a verdict ruled a
    moment after its slap is captioned from its own time; also keeps the frames around each slap contact."""

    path: Path
    size: tuple[int, int]
    fps: float
    layout: Layout
    frames_dir: Path
    buffer: deque = field(default_factory=deque)
    captions: list[tuple[float, str]] = field(default_factory=list)
    contacts: list[tuple[float, str, str]] = field(default_factory=list)  # (t, zone, player) of every arrival
    saved: dict[float, list[tuple[str, float]]] = field(default_factory=dict)
    boxes: list[tuple[float, tuple, str]] = field(default_factory=list)
    looks: list[tuple[float, tuple]] = field(default_factory=list)  # (time, crop) of the looks behind the boxes
    _container: Any = None
    _stream: Any = None
    _n: int = 0
    _queue: Any = None
    _worker: threading.Thread | None = None
    _failed: Exception | None = None

    def open(self) -> None:
        W, H = self.size
        self._container = av.open(str(self.path), "w")
        self._stream = self._container.add_stream("libx264", rate=Fraction(round(self.fps * 1000), 1000))
        self._stream.width, self._stream.height = W // 2 // 2 * 2, H // 2 // 2 * 2
        self._stream.pix_fmt = "yuv420p"
        self._stream.options = {"preset": "ultrafast", "crf": "26"}
        self.frames_dir.mkdir(parents=True, exist_ok=True)

    def push(self, index: int, t: float, frame: np.ndarray, now_boxes: list[tuple[tuple, str]],
             looked: list[tuple] = ()) -> None:
        for b, label in now_boxes:
            self.boxes.append((t, b, label))
        self.looks += [(t, c) for c in looked]
        self.buffer.append((index, t, frame))
        while self.buffer and self.buffer[0][1] < t - ANNOTATE_DELAY_S:
            self._write(*self.buffer.popleft())

    def _write(self, index: int, t: float, frame: np.ndarray) -> None:
        """Hand one frame, with what is drawn on it, to the drawing thread: drawing and encoding (cv2 and FFmpeg let
        go of the interpreter) run beside the audit instead of after it."""
        if self._failed is not None:
            raise self._failed
        if self._worker is None:
            self._queue = queue.Queue(maxsize=8)
            self._worker = threading.Thread(target=self._draw_all, name="annotate", daemon=True)
            self._worker.start()
        self.boxes = [(tb, b, lab) for tb, b, lab in self.boxes if tb >= t - BOX_KEPT_S]
        self.looks = [(tl, c) for tl, c in self.looks if tl >= t - BOX_KEPT_S]
        boxes = latest_boxes(self.boxes, self.looks, t)
        contacts = list(self.contacts)
        captions = [s for tc, s in self.captions if tc <= t < tc + CAPTION_S]
        self._queue.put((index, t, frame, boxes, contacts, captions))

    def _draw_all(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            if self._failed is None:
                try:
                    self._draw(*item)
                except Exception as e:  # noqa: BLE001 - raised in the audit's thread at the next frame or close
                    self._failed = e

    def _draw(self, index: int, t: float, frame: np.ndarray, boxes: list[tuple[tuple, str]],
              contacts: list[tuple[float, str, str]], live: list[str]) -> None:
        dt = 1.0 / self.fps
        for tc, label, _ in contacts:  # the frames around a contact, for the report
            if tc - 2.5 * dt <= t <= tc + 2.5 * dt:
                name = f"slap_{tc:09.4f}_{index:06d}.jpg"
                x0, y0, x1, y1 = self._around(tc, label)
                cv2.imwrite(str(self.frames_dir / name), frame[y0:y1, x0:x1], [cv2.IMWRITE_JPEG_QUALITY, 85])
                self.saved.setdefault(tc, []).append((f"{self.frames_dir.name}/{name}", t))
        small = cv2.resize(frame, (self._stream.width, self._stream.height), interpolation=cv2.INTER_AREA)
        draw_zones(small, self.layout, 0.5)
        for b, lab in boxes:
            p0 = (int(b[0] / 2), int(b[1] / 2))
            cv2.rectangle(small, p0, (int(b[2] / 2), int(b[3] / 2)), (0, 220, 255), 1)
            cv2.putText(small, lab, (p0[0], max(10, p0[1] - 3)), cv2.FONT_HERSHEY_SIMPLEX, 0.4, (0, 220, 255), 1)
        for k, (tc, zname, who) in enumerate(c for c in contacts if c[0] <= t < c[0] + 0.6):
            zone = self.layout.zones.get(zname)
            if zone is not None:  # who slapped, and when, over the pile
                x = int(zone.polygon[:, 0].max() / 2) + 4
                y = int(zone.polygon[:, 1].min() / 2) + 14 + 16 * k
                cv2.putText(small, f"slap {who} {tc:.3f}", (x, y), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (0, 0, 0), 3,
                            cv2.LINE_AA)
                cv2.putText(small, f"slap {who} {tc:.3f}", (x, y), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (60, 200, 255), 1,
                            cv2.LINE_AA)
        for k, s in enumerate(live[-3:]):
            y = small.shape[0] - 14 - 22 * (len(live[-3:]) - 1 - k)
            cv2.putText(small, s, (10, y), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (0, 0, 0), 4, cv2.LINE_AA)
            cv2.putText(small, s, (10, y), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (255, 255, 255), 1, cv2.LINE_AA)
        cv2.putText(small, f"{t:7.2f} s", (small.shape[1] - 90, 18), cv2.FONT_HERSHEY_SIMPLEX, 0.5,
                    (255, 255, 255), 1, cv2.LINE_AA)
        vf = av.VideoFrame.from_ndarray(small, format="bgr24")
        vf.pts = self._n
        vf.time_base = Fraction(1000, round(self.fps * 1000))
        self._n += 1
        for p in self._stream.encode(vf):
            self._container.mux(p)

    def _around(self, tc: float, label: str) -> tuple[int, int, int, int]:
        zone = self.layout.zones.get(label)
        W, H = self.size
        if zone is None:
            return 0, 0, W, H
        x0, y0, x1, y1 = zone_crop(zone, self.size, min_side=int(min(W, H) * 0.6), margin=1.0)
        return x0, y0, x1, y1

    def close(self) -> None:
        while self.buffer:
            self._write(*self.buffer.popleft())
        if self._worker is not None:
            self._queue.put(None)
            self._worker.join()
            self._worker = None
        if self._failed is not None:
            raise self._failed
        if self._container is not None:
            for p in self._stream.encode():
                self._container.mux(p)
            self._container.close()


def _real_time(t_video: float, t_start: float) -> str:
    """How fast the audit goes against the video's own clock, as the progress line says it."""
    elapsed = time.perf_counter() - t_start
    return f" ({t_video / elapsed if elapsed > 0 else 0.0:4.2f}x real time)"


def read_said(path: str | Path, game: str, players: list[str]) -> list[Event]:
    """What was said at the table (or typed by a scorer): the calls no camera sees (:mod:`tablecam.said`)."""
    try:
        return said_log(path, game, players)
    except SaidError as e:
        raise AuditError(str(e)) from None


def _with_upcoming(frames: Iterable[Frame], n: int) -> Iterator[tuple[Frame, dict[int, Frame]]]:
    """Each of ``frames`` with the ``n`` after it, by index (fewer at the end): the watcher finds the boxes of a later
    frame while it reads this one's (``TableWatcher.feed``'s ``upcoming``)."""
    held: deque[Frame] = deque()
    for fr in frames:
        held.append(fr)
        if len(held) > n:
            now = held.popleft()
            yield now, {f.index: f for f in held}
    while held:
        now = held.popleft()
        yield now, {f.index: f for f in held}


@one_blas_thread
def audit(video: str | Path, game: str, players: list[str], layout: str | Path, out: str | Path,
          model: str | Path | None = None, dealer: str | None = None, variants: dict | None = None,
          use_audio: bool = True, annotate: bool = True, progress: bool = True, conf: float = 0.3,
          threads: int | None = None, detector: Any = None, reader: str | Path | None = "auto",
          said: str | Path | None = None, imgsz: int | None = None, deck: str | Path | None = None) -> AuditResult:
    """Audit ``video``; see the module doc. ``said``: a log of what was said at the table (:func:`read_said`).
    ``deck``: a folder with a picture of each card of the deck played (``10C.png``): faces are read by comparing
    them with it (:mod:`models.deckmatch`); it needs the layout's table homography and the card reader.
    ``imgsz``: the detector's input for the zone crops (None: ``vision.watcher.detector_input``).
    Raises :class:`AuditError` before writing anything when the inputs do not fit together, and
    ``vision.frames.VideoError`` when the file is not a video at all."""
    video = Path(video)
    if game not in AUDIT_GAMES:
        raise AuditError(f"audit knows {', '.join(AUDIT_GAMES)} for now, not {game!r}{did_you_mean(game, AUDIT_GAMES)}")
    info = probe(video)
    try:
        lay = Layout.load(layout)
    except (OSError, LayoutError) as e:
        raise AuditError(str(e)) from None
    try:
        lay.check_frame(info.width, info.height)
    except LayoutError as e:
        raise AuditError(str(e)) from None
    if lay.game != game:
        raise AuditError(f"{lay.source}: the layout is for {lay.game}, not {game}; calibrate for {game}")
    if list(lay.players) != list(players):
        raise AuditError(f"{lay.source}: the layout seats {', '.join(lay.players)}, but players={','.join(players)}; "
                         f"give the same names in the same (clockwise) order")
    heard = deque(read_said(said, game, players)) if said else deque()
    model_path = Path(model) if model else default_model()
    if detector is None:  # another card reader may be given (a callable on a BGR crop returning Detections)
        if not model_path.is_file():
            raise AuditError(f"no detector model at {model_path}; train one (tablecam train) or pass model=PATH")
        try:
            # two quarter turns per crop: on rendered games four read no better (61 vs 64 of 100 top cards) at
            # twice the cost, and a game with many zones needs the time
            detector = load_card_model(model_path, reader, conf=conf, threads=threads, turns=AUDIT_TURNS,
                                       imgsz=imgsz or detector_input(model_path, game))
        except (FileNotFoundError, ValueError) as e:
            raise AuditError(str(e)) from None
    if deck is not None:
        try:
            attach_deck(detector, deck, lay.homography, str(lay.source), game_cards(game))
        except ValueError as e:
            raise AuditError(str(e)) from None
    variants = dict(variants or {})
    if game == "snap":
        variants.setdefault("snap_by_slap", True)  # a spoken snap is not in the video; a slap is
    header = GameHeader(game=game, players=tuple(players), dealer=dealer or players[-1], variants=variants)
    referee = new_referee(header)

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    log_path = out / "game.jsonl"
    fps = info.fps or 30.0
    onsets = []
    if use_audio:
        try:
            samples, rate, t0a = read_audio(video)
            onsets = impact_onsets(samples, rate, t0a, delay_s=lay.latency.get("audio_s", 0.0))
        except VideoError:
            onsets = []  # no audio track: the video alone times the slaps
    annot = _Annotator(out / "annotated.mp4", (info.width, info.height), fps, lay, out / "frames") if annotate \
        else None
    if annot:
        annot.open()

    watcher = TableWatcher(lay, game, detector, fps, onsets=onsets, hold_s=REORDER_S)
    calls = deque(heard)  # the said lines again, told to the watcher as they are said
    outputs: list[dict[str, Any]] = []
    observed: list[dict[str, Any]] = []  # the observation lines, for the report
    t_start = time.perf_counter()
    bar = Progress(info.frame_count, "audit", "frames", enabled=progress)
    frames = 0
    stopped: str | None = None
    last_t = 0.0
    with LogWriter(log_path, fresh=True) as log:
        log.write(header)

        def push(events: list[Event], until: float | None = None) -> None:
            for ev in events:
                said_before(ev.t)
                ev = referee.as_flip(ev)
                log.write(ev)
                observed.append(ev.to_dict())
                for o in referee.push(ev):
                    keep(o.to_dict())
            if until is not None:
                said_before(until)

        def said_before(t: float) -> None:
            while heard and heard[0].t <= t:
                ev = heard.popleft()
                log.write(ev)
                observed.append(ev.to_dict())
                for o in referee.push(ev):
                    keep(o.to_dict())

        def keep(d: dict[str, Any]) -> None:
            log.write(d)
            outputs.append(d)
            watcher.ruled(d)
            if annot and d.get("type") == "verdict" and d.get("say"):
                annot.captions.append((float(d["t"]), str(d["say"])))

        reader = VideoReader(video, ahead=FRAMES_AHEAD, shrink=SlapDetector.shrink, glance=watcher.glance)
        try:
            for fr, upcoming in _with_upcoming(reader, watcher.every):
                frames += 1
                last_t = fr.t
                n_slaps = len(watcher.slapper_found)
                while calls and calls[0].t <= fr.t:  # what has been said by now (a claim names the batch's rank)
                    watcher.heard(calls.popleft())
                push(watcher.feed(fr.index, fr.t, fr.image, fr.small, upcoming, fr.glanced), until=fr.t - REORDER_S)
                if annot:
                    for s in watcher.slapper_found[n_slaps:]:
                        annot.contacts.append((s.t, s.zone, s.player))
                    annot.push(fr.index, fr.t, fr.image, watcher.boxes, watcher.looked)
                if progress and frames % 15 == 0:
                    bar.set(fr.index + 1, _real_time(fr.t, t_start))
        except KeyboardInterrupt:
            stopped = f"stopped by the user at {last_t:.2f} s"
        if reader.damage is not None:
            stopped = f"the video is damaged: {reader.damage}; audited up to {last_t:.2f} s"
        push(watcher.finish(), until=float("inf") if stopped is None else last_t)
        for o in referee.finish():
            keep(o.to_dict())
    cards, slaps = watcher.cards, watcher.slaps
    bar.close(_real_time(last_t, t_start), done=frames)
    if annot:
        annot.close()
    seconds = time.perf_counter() - t_start
    verdicts = [d for d in outputs if d.get("type") == "verdict"]
    records = slap_records(slaps, cards, verdicts)
    if annot:
        for r in records:
            got = annot.saved.get(r.t, [])
            r.frames = [p for p, _ in got]
            r.frame_times = [tt for _, tt in got]
    write_slaps_csv(out / "slaps.csv", records)
    if game in PILE_RACE_GAMES:
        write_races_csv(out / "races.csv", pile_races(observed, verdicts))
    summary = AuditSummary(video=str(video), game=game, players=list(players), width=info.width,
                           height=info.height, fps=fps, frames=frames, duration=last_t,
                           cards=[(c.t, c.zone, c.card) for c in cards], verdicts=verdicts, slaps=records,
                           stopped=stopped, model=str(model_path), seconds=seconds,
                           annotated="annotated.mp4" if annot else None, observations=observed)
    write_report(out, summary)
    return AuditResult(out, log_path, summary, cards, slaps, outputs, frames, seconds, stopped)


SLAP_KINDS = ("slap_won", "false_slap", "unresolved_tie", "anticipated", "snap", "snap_pot", "false_snap")


def slap_records(slaps: list[SlapSeen], cards: list[CardSeen], verdicts: list[dict[str, Any]]) -> list[SlapRecord]:
    """One row per slap: the card it answered (the pile's top when it landed), the reaction time, and the
    verdict that ruled it (a valid slap beaten by a faster hand 'lost_race'; one ruled by nobody 'late')."""
    out: list[SlapRecord] = []
    for s in sorted(slaps, key=lambda x: x.t):
        on_pile = [c for c in cards if c.zone == s.zone and c.t <= s.t]
        trig = on_pile[-1] if on_pile else None
        ruled = [v for v in verdicts if s.t - 0.001 <= float(v["t"]) <= s.t + 3.0 and v.get("kind") in SLAP_KINDS]
        mine = [v for v in ruled if v.get("player") == s.player]
        anticipated = any(v.get("kind") == "anticipated" for v in mine) or \
            any(bool(v.get("anticipated")) for v in mine)
        if mine:
            main = [v for v in mine if v.get("kind") != "anticipated"]
            kind = str((main or mine)[0]["kind"])
        elif any(v.get("kind") == "unresolved_tie" for v in ruled):
            kind = "unresolved_tie"
        elif any(v.get("kind") in ("slap_won", "snap") for v in ruled):
            kind = "lost_race"
        else:
            kind = "late"
        out.append(SlapRecord(t=s.t, player=s.player, zone=s.zone, trigger_card=trig.card if trig else None,
                              trigger_t=trig.t if trig else None,
                              reaction_ms=(s.t - trig.t) * 1000 if trig else None, verdict=kind,
                              anticipated=anticipated, t_err=s.t_err, source=s.source))
    return out


def compare_verdicts(a: list[dict[str, Any]], b: list[dict[str, Any]], same_s: float = SAME_TIME_S) -> list[str]:
    """Differences between two verdict lists by what was ruled (kind, rule, player, to, cards), not by when.

    Rulings closer together in time than ``same_s`` (two frames: what a camera can tell apart) are compared in
    any order: A's play on the left pile 3 ms before B's on the right is the same game as B's first."""
    def key(v: dict[str, Any]) -> tuple:
        return (v.get("kind"), v.get("rule"), v.get("player"), v.get("to"), v.get("cards"))

    def canonical(vs: list[dict[str, Any]]) -> list[tuple]:
        out: list[tuple] = []
        group: list[tuple] = []
        last = -math.inf
        for v in sorted(vs, key=lambda v: float(v.get("t", 0.0))):  # stable: causal order kept at equal times
            t = float(v.get("t", 0.0))
            if group and t - last >= same_s:
                out += sorted(group, key=str)
                group = []
            group.append(key(v))
            last = t
        return out + sorted(group, key=str)

    ka, kb = canonical(a), canonical(b)
    if ka == kb:
        return []
    import difflib

    return [line for line in difflib.unified_diff([str(k) for k in ka], [str(k) for k in kb], "audit", "truth",
                                                  lineterm="", n=1)]
