"""``tablecam live``: a rendered Slapjack game run through the live loop (SJ-2, TM-1), and its faults: no model,
no camera, a camera unplugged mid-game (retried, the log kept)."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from helpers import perfect_reader

from models.gamevideo import RenderedGame, render_game
from models.reader import SHIPPED_READER
from tablecam import live as live_mod
from tablecam.audio_out import Player
from tablecam.audit import default_model
from tablecam.cli import main
from tablecam.gamelog import open_log, read_lines
from tablecam.live import LiveError, run_live
from vision.frames import Camera, CameraError

needs_model = pytest.mark.skipif(not default_model().is_file(), reason="no shipped detector model")


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> RenderedGame:
    return render_game(tmp_path_factory.mktemp("live") / "game.mp4", "slapjack", ["Ann", "Bob", "Cy"], seed=238,
                       seconds=10)


def muted(wav: Path) -> Player:
    return Player.from_settings(mute=True, audio_out=wav, device="no-such-output-device", warn=lambda m: None)


def test_recording_run_live_writes_a_valid_log_and_calls_the_jack(game: RenderedGame, tmp_path: Path) -> None:
    """The live loop on a recording, with right card reads (the detector's accuracy is measured elsewhere)."""
    reader = perfect_reader(game)
    log, wav = tmp_path / "live.jsonl", tmp_path / "calls.wav"
    stats = run_live(video=str(game.video), game="slapjack", players=["Ann", "Bob", "Cy"], layout=game.layout,
                     model=default_model(), log_path=log, player=muted(wav), realtime=False, detector=reader)
    assert stats.frames == stats.captured and stats.dropped == 0  # not paced: every frame looked at
    lines = list(read_lines(open_log(log)))
    assert all(ln.error is None for ln in lines)
    items = [json.loads(x) for x in log.read_text().splitlines()]
    assert items[0]["type"] == "game"
    times = [d["t"] for d in items if d["type"] in ("card", "slap")]
    assert times == sorted(times)  # released in time order, as the referee needs them
    jacks = [d for d in items if d["type"] == "card" and d["card"].startswith("J")]
    calls = [json.loads(x) for x in Path(f"{wav}.jsonl").read_text().splitlines()]
    assert jacks and [c["text"] for c in calls if c["kind"] == "trigger"] == ["Jack!"] * len(jacks)
    assert any(c["kind"] == "slap_won" for c in calls)  # the ruling is called too


def test_missing_model_is_refused_before_anything_starts(game: RenderedGame, tmp_path: Path) -> None:
    with pytest.raises(LiveError, match="no detector model at"):
        run_live(video=str(game.video), game="slapjack", players=["Ann", "Bob", "Cy"], layout=game.layout,
                 model=tmp_path / "none.onnx", log_path=tmp_path / "l.jsonl", player=muted(tmp_path / "w.wav"))
    assert not (tmp_path / "l.jsonl").exists()


@needs_model
def test_no_camera_is_a_clear_error(game: RenderedGame, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["live", "camera=9", f"layout={game.layout}", f"log={tmp_path / 'l.jsonl'}", "mute=true"])
    assert code == 2 and "camera 9" in capsys.readouterr().err


class _Unplugged:
    """A cv2.VideoCapture stand-in delivering ``n`` table frames, then unplugged."""

    def __init__(self, frames: list[np.ndarray]) -> None:
        self.frames = list(frames)

    def isOpened(self) -> bool:  # noqa: N802 (cv2's name)
        return True

    def grab(self) -> bool:
        time.sleep(1 / 30)
        return bool(self.frames)

    def retrieve(self) -> tuple[bool, np.ndarray]:
        return True, self.frames.pop(0)

    def release(self) -> None:
        pass


@needs_model
def test_camera_unplugged_mid_game_is_retried_and_the_log_kept(game: RenderedGame, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    from vision.frames import read_video

    frames = [f.image for f in read_video(game.video, end=2.0)]
    opened: list[int] = []

    def fake_open(index: int = 0, *a: object, **k: object) -> Camera:
        opened.append(index)
        if len(opened) in (2,) or len(opened) >= 4:  # unplugged: no camera there
            raise CameraError(f"camera {index}", "no camera: /dev/video0 does not exist (is one plugged in?)")
        return Camera(_Unplugged(frames[:30] if len(opened) == 1 else frames[30:]), index)

    monkeypatch.setattr(live_mod, "open_camera", fake_open)
    said: list[str] = []
    log = tmp_path / "cam.jsonl"
    stats = run_live(camera=0, game="slapjack", players=["Ann", "Bob", "Cy"], layout=game.layout,
                     model=default_model(), log_path=log, player=muted(tmp_path / "w.wav"), seconds=30,
                     say=said.append, idle_stop_s=3.0)
    assert len(opened) >= 3 and stats.frames >= 40
    assert any("stopped delivering" in m for m in said) and any("retrying" in m for m in said)
    assert all(ln.error is None for ln in read_lines(open_log(log)))


def test_mailbox_keeps_only_the_newest_frame() -> None:
    from vision.frames import Frame

    box = live_mod._Mailbox()
    for i in range(5):
        box.put(Frame(i, i / 30, np.zeros((2, 2, 3), np.uint8)))
    got = box.get()
    assert got is not None and got.index == 4 and box.dropped == 4 and box.captured == 5
    t = threading.Timer(0.05, box.close)
    t.start()
    assert box.get(timeout=1.0) is None and box.done


def test_the_capture_thread_shrinks_each_frame_for_the_slap_detector(game: RenderedGame) -> None:
    """The live loop's frames come with the slap detector's shrunk frame made on the capture thread
    (``vision.frames.Frame.small``), as the audit's reader makes it: the loop's own thread is spared it."""
    from vision.slaps import SlapDetector

    box, stop = live_mod._Mailbox(), threading.Event()
    worker = threading.Thread(target=live_mod._capture_file, args=(str(game.video), box, time.monotonic(), False, stop))
    worker.start()
    got = []
    while (fr := box.get(timeout=5.0)) is not None and len(got) < 5:
        got.append(fr)
    stop.set()
    worker.join(timeout=5)
    assert len(got) == 5 and all(np.array_equal(f.small, SlapDetector.shrink(f.image)) for f in got)


def test_overlay_draws_zones_boxes_verdicts_and_status(game: RenderedGame) -> None:
    from calibration.layout import Layout
    from tablecam.overlay import Overlay
    from vision.frames import read_video

    frame = next(iter(read_video(game.video, end=0.1))).image
    lay = Layout.load(game.layout)
    ov = Overlay(lay, width=640)
    ov.verdict(1.0, "Slap! Bob wins the pile")
    ov.verdict(9.0, "not yet")
    plain = ov.draw(frame, 2.0, [], now=0.0)
    img = ov.draw(frame, 2.0, [((600, 300, 680, 420), "JH")], lag_ms=42, dropped=0.01, now=0.1)
    assert img.shape == (360, 640, 3)  # shrunk to the window's width
    assert (img[:24] == 0).mean() > 0.5  # the status bar
    box_ring = img[150:151, 300:340]
    assert np.abs(box_ring.astype(int) - plain[150:151, 300:340]).sum() > 0  # the box's top edge
    bottom = img[-40:, :300].astype(int)
    assert (bottom.max(2) > 240).mean() > 0.01  # white caption text
    gone = ov.draw(frame, 6.0, [], now=0.2)  # 5 s later the first verdict is no longer shown
    assert (gone[-40:, :300].max(2) > 240).mean() < (bottom.max(2) > 240).mean()


def test_window_without_a_display_warns_and_referees_headless(game: RenderedGame, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        monkeypatch.delenv(var, raising=False)
    said: list[str] = []
    stats = run_live(video=str(game.video), game="slapjack", players=["Ann", "Bob", "Cy"], layout=game.layout,
                     model=default_model(), log_path=tmp_path / "l.jsonl", player=muted(tmp_path / "w.wav"),
                     realtime=False, detector=perfect_reader(game), seconds=2.0, say=said.append, window=True)
    assert any(m.startswith("no window:") for m in said) and stats.frames >= 60


WINDOW_CHILD = """
import json, sys, cv2
sys.path[:0] = [sys.argv[1], sys.argv[1] + "/tests"]
from helpers import perfect_reader
from models.gamevideo import RenderedGame, make_script
from tablecam.audio_out import Player
from tablecam.live import run_live
from pathlib import Path
v, lay, log = Path(sys.argv[2]), Path(sys.argv[3]), sys.argv[4]
game = RenderedGame(v, v, lay, make_script("slapjack", ["Ann", "Bob", "Cy"], 238, 10))
said = []
def close_after(fr, watcher, events):  # the user closes the window after 45 frames
    if fr.index == 45:
        cv2.destroyWindow("tablecam live")
p = Player.from_settings(mute=True, audio_out=log + ".wav", device="no-such-output-device", warn=lambda m: None)
st = run_live(video=str(v), game="slapjack", players=["Ann", "Bob", "Cy"], layout=lay, model="unused.onnx",
              log_path=log, player=p, realtime=False, detector=perfect_reader(game), say=said.append, window=True,
              on_frame=close_after)
print(json.dumps({"frames": st.frames, "said": said}))
"""


def test_live_window_opens_and_closing_it_ends_the_game_cleanly(game: RenderedGame, tmp_path: Path) -> None:
    """A real OpenCV window on a virtual display (Xvfb): closing it ends the loop with the log complete."""
    import shutil
    import subprocess
    import sys

    from calibration.clicks import gui_available

    if shutil.which("xvfb-run") is None:
        pytest.skip("xvfb-run is not installed (tools/system-packages.sh installs it)")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("DISPLAY", ":99")  # only to ask whether this OpenCV has a GUI at all
        if gui_available():
            pytest.skip(f"no window possible: {gui_available()}")
    log = tmp_path / "win.jsonl"
    repo = str(Path(__file__).resolve().parent.parent)
    out = subprocess.run(["xvfb-run", "-a", sys.executable, "-c", WINDOW_CHILD, repo, str(game.video),
                          str(game.layout), str(log)], capture_output=True, text=True, timeout=240)
    assert out.returncode == 0, out.stderr[-2000:]
    res = json.loads(out.stdout.strip().splitlines()[-1])
    assert not any(m.startswith("no window") for m in res["said"])
    assert "window closed: finishing the log" in res["said"] and 45 <= res["frames"] <= 47
    assert all(ln.error is None for ln in read_lines(open_log(log)))


@needs_model
@pytest.mark.skipif(not SHIPPED_READER.is_file(), reason="no shipped card reader")
def test_live_reads_faces_against_the_deck_beside_a_recording(game: RenderedGame, tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    """TM-1: ``deck=`` as in the audit: the live loop on a recording finds the pictures of the deck beside it and
    reads the cards laid against them (the first four seconds of the game: every card right); with
    ``reader=none`` the deck is refused before anything starts."""
    with pytest.raises(LiveError, match="reader=none"):
        run_live(video=str(game.video), game="slapjack", players=["Ann", "Bob", "Cy"], layout=game.layout,
                 model=default_model(), log_path=tmp_path / "no.jsonl", player=muted(tmp_path / "no.wav"),
                 reader="none", deck=game.video.with_name("game.deck"))
    assert not (tmp_path / "no.jsonl").exists()
    log = tmp_path / "live.jsonl"
    code = main(["live", f"video={game.video}", "realtime=false", "seconds=4", "mute=true", "headless=true",
                 f"log={log}", f"audio_out={tmp_path / 'calls.wav'}"])
    assert code == 0 and "pictures of the deck in" in capsys.readouterr().out
    seen = [(d["card"], d["t"]) for d in map(json.loads, log.read_text().splitlines()) if d["type"] == "card"]
    truth = [(e.card, e.t) for e in game.script.events if e.type == "card" and e.t < 3.9]
    assert [c for c, _ in seen] == [c for c, _ in truth]
    assert all(abs(a - b) <= 1 / 30 + 1e-6 for (_, a), (_, b) in zip(seen, truth, strict=True))
