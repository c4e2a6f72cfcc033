"""``tablecam audit`` end to end on a rendered Slapjack game (SJ-1..SJ-4, TM-1..TM-3).

The rendered game's ground truth is exact. With right card reads, the audit must date every card to the frame
it showed, find the slaps and reach the verdicts of refereeing the ground-truth log; the shipped detector's own
accuracy on these games is measured by ``bench/audit.py`` (and its model card), not asserted here. Also: a layout that
does not fit the video is refused before anything is written; a truncated video is audited up to the damage,
with a valid log and a report that says where it stopped.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from helpers import perfect_reader

from calibration.layout import Layout
from models.gamevideo import FPS, RenderedGame, render_game
from models.reader import load_card_model
from tablecam.audit import (
    AUDIT_TURNS,
    BOX_KEPT_S,
    REORDER_S,
    AuditError,
    _with_upcoming,
    audit,
    compare_verdicts,
    default_model,
    latest_boxes,
)
from tablecam.cli import main, truth_agreement
from tablecam.gamelog import open_log, read_lines
from vision.frames import Frame, VideoReader
from vision.slaps import SlapDetector
from vision.watcher import TableWatcher, detector_input

needs_model = pytest.mark.skipif(not default_model().is_file(), reason="no shipped detector model")


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> RenderedGame:
    return render_game(tmp_path_factory.mktemp("audit") / "game.mp4", "slapjack", ["Ann", "Bob", "Cy"], seed=238,
                       seconds=16)


@pytest.fixture(scope="module")
def audited(game: RenderedGame, tmp_path_factory: pytest.TempPathFactory):
    return audit(game.video, "slapjack", ["Ann", "Bob", "Cy"], game.layout, tmp_path_factory.mktemp("out"),
                 progress=False)


@needs_model
def test_outputs_are_written_and_valid(audited) -> None:
    out = audited.out
    lines = list(read_lines(open_log(out / "game.jsonl")))
    assert all(ln.error is None for ln in lines)
    assert (out / "report.html").stat().st_size > 2000
    csv = (out / "slaps.csv").read_text().splitlines()
    assert csv[0].startswith("t,player,zone,trigger_card") and len(csv) == 1 + len(audited.slaps)
    assert (out / "annotated.mp4").stat().st_size > 10000
    assert audited.summary.stopped is None
    disputed = [r for r in audited.summary.slaps if r.frames]
    assert disputed and all((out / f).is_file() for r in disputed for f in r.frames)


def test_a_game_the_audit_does_not_know_is_refused_with_the_nearest_name(game: RenderedGame, tmp_path: Path) -> None:
    with pytest.raises(AuditError, match="not 'slapjak'; did you mean 'slapjack'"):
        audit(game.video, "slapjak", ["Ann", "Bob", "Cy"], game.layout, tmp_path / "out", progress=False)
    with pytest.raises(AuditError, match="not 'poker'$"):
        audit(game.video, "poker", ["Ann", "Bob", "Cy"], game.layout, tmp_path / "out", progress=False)
    assert not (tmp_path / "out").exists()  # nothing written


def test_layout_for_another_frame_size_is_refused(game: RenderedGame, tmp_path: Path) -> None:
    bad = tmp_path / "small.layout.yaml"
    text = game.layout.read_text().replace("width: 1280", "width: 640").replace("height: 720", "height: 480")
    bad.write_text(text)
    with pytest.raises(AuditError, match="small.layout.yaml: .*640x480 frame"):
        audit(game.video, "slapjack", ["Ann", "Bob", "Cy"], bad, tmp_path / "out", progress=False)
    assert not (tmp_path / "out").exists()  # nothing written


def test_wrong_players_and_missing_model_are_clear(game: RenderedGame, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["audit", str(game.video), f"layout={game.layout}", "players=Ann,Bob", f"out={tmp_path / 'o'}"])
    assert code == 2 and "players=Ann,Bob" in capsys.readouterr().err
    code = main(["audit", str(game.video), f"layout={game.layout}", f"model={tmp_path / 'none.onnx'}",
                 f"out={tmp_path / 'o'}"])
    assert code == 2 and "no detector model at" in capsys.readouterr().err
    code = main(["audit", str(game.video), f"layout={game.layout}", "imgsz=big", f"out={tmp_path / 'o'}"])
    assert code == 2 and "imgsz" in capsys.readouterr().err and not (tmp_path / "o").exists()


@needs_model
def test_the_shipped_detector_runs_zone_crops_at_the_zone_size_and_whole_photos_at_its_own() -> None:
    """Slapjack's and Spit's pile crops go through the detector at 160 px (as many faces found, in two thirds of
    the time); Pai Jie's rows, which lose cards there, and whole photos keep the model's 224."""
    from models.detector import ZONE_IMGSZ, Detector, zone_imgsz
    from vision.watcher import detector_input

    assert zone_imgsz(default_model()) == ZONE_IMGSZ < Detector(default_model()).imgsz
    assert detector_input(default_model(), "slapjack") == detector_input(default_model(), "spit") == ZONE_IMGSZ
    assert detector_input(default_model(), "paijie") is None


@needs_model
def test_truncated_video_is_audited_up_to_the_damage(game: RenderedGame, tmp_path: Path) -> None:
    """Bad input loses nothing: the log up to the damage is valid and replayable; the report says where."""
    cut = tmp_path / "cut.mp4"
    data = game.video.read_bytes()
    cut.write_bytes(data[: int(len(data) * 0.6)])
    shutil.copy(game.layout, tmp_path / "cut.layout.yaml")
    res = audit(cut, "slapjack", ["Ann", "Bob", "Cy"], tmp_path / "cut.layout.yaml", tmp_path / "out",
                progress=False)
    assert res.stopped and "damaged" in res.stopped
    assert 0 < res.frames < game.script.duration * FPS
    html = (tmp_path / "out" / "report.html").read_text()
    assert "damaged" in html
    lines = (tmp_path / "out" / "game.jsonl").read_text().splitlines()
    assert all(json.loads(x) for x in lines)  # every line whole
    proc = subprocess.run([sys.executable, "-m", "tablecam.cli", "replay", str(tmp_path / "out" / "game.jsonl")],
                          capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr


def test_compare_verdicts_ignores_time_not_substance() -> None:
    a = [{"t": 1.0, "kind": "slap_won", "rule": "SJ-2", "player": "B", "cards": 3}]
    b = [{"t": 1.2, "kind": "slap_won", "rule": "SJ-2", "player": "B", "cards": 3}]
    assert compare_verdicts(a, b) == []
    c = [{"t": 1.0, "kind": "slap_won", "rule": "SJ-2", "player": "C", "cards": 3}]
    assert compare_verdicts(a, c)


def test_with_perfect_card_reads_the_verdicts_equal_the_ground_truth(game: RenderedGame, tmp_path: Path) -> None:
    """SJ-2/SJ-3/SJ-4, TM-1..TM-3: given right card reads, the audit's slaps, their timing and players give the
    referee's verdicts on the true log; every card is dated to the first frame that showed it."""
    reader = perfect_reader(game)
    res = audit(game.video, "slapjack", ["Ann", "Bob", "Cy"], game.layout, tmp_path / "out", progress=False,
                annotate=False, detector=reader)
    truth = [(e.t, e.card) for e in game.script.events if e.type == "card"]
    got = [(c.t, c.card) for c in res.cards]
    assert [c for _, c in got] == [c for _, c in truth]
    late = [(round(tt, 4), round(tg - tt, 4)) for (tg, _), (tt, _) in zip(got, truth, strict=True)]
    assert all(-1e-6 <= d <= 1 / FPS + 1e-6 for _, d in late), late
    line = truth_agreement(game.truth, res.log)
    assert "equal" in line, line


def test_compare_verdicts_takes_rulings_two_frames_apart_in_any_order() -> None:
    """SP-2/ST-2: plays on two piles 3 ms apart (the truth) and 22 ms apart the other way (the audit, one timed to
    a frame) are the same game; the same two a second apart in the other order are not."""
    a_left = {"t": 5.128, "kind": "legal_play", "rule": "ST-2", "player": "A"}
    b_right = {"t": 5.131, "kind": "legal_play", "rule": "ST-2", "player": "B"}
    assert compare_verdicts([{**b_right, "t": 5.128}, {**a_left, "t": 5.15}], [a_left, b_right]) == []
    apart = [{**a_left, "t": 4.0}, {**b_right, "t": 5.0}]
    assert compare_verdicts([{**b_right, "t": 4.0}, {**a_left, "t": 5.0}], apart)
    # and never a different ruling, however close
    assert compare_verdicts([{**a_left, "player": "B"}, b_right], [a_left, b_right])


def test_the_annotated_video_draws_the_latest_look_s_boxes() -> None:
    """A pile is looked at every other frame or less often: a box stays drawn until a later look at its place (a
    crop holding its middle) or for ``BOX_KEPT_S``; a look elsewhere leaves it; a later look's box is not drawn
    early. A card the later look did not box again (a hand took it) is not drawn either."""
    card, card_again = (100.0, 100.0, 160.0, 190.0), (103.0, 98.0, 162.0, 192.0)
    hand, old = (400.0, 300.0, 520.0, 420.0), (700.0, 100.0, 760.0, 190.0)
    pile, table = (50, 50, 300, 300), (300, 250, 700, 500)
    boxes = [(1.0, card, "7S"), (1.0, hand, "hand"), (1.066, card_again, "7S"),
             (1.0 - BOX_KEPT_S - 0.1, old, "QH")]
    looks = [(1.0, pile), (1.0, table), (1.066, pile), (1.2, pile)]
    assert latest_boxes(boxes, looks, 1.1) == [(hand, "hand"), (card_again, "7S")]
    assert latest_boxes(boxes, looks, 1.0) == [(card, "7S"), (hand, "hand")]
    assert latest_boxes(boxes, looks, 1.2) == [(hand, "hand")]  # the pile looked at again, the card gone
    assert latest_boxes(boxes, looks[:3], 2.05) == [(card_again, "7S")]  # (the hand's box older than BOX_KEPT_S)
    assert latest_boxes([], looks, 3.0) == []


def test_each_frame_comes_with_the_pictures_of_the_next_ones() -> None:
    frames = [Frame(i, i / 30, np.full((2, 2, 3), i, np.uint8)) for i in range(5)]
    got = [(fr.index, sorted(up)) for fr, up in _with_upcoming(iter(frames), 2)]
    assert got == [(0, [1, 2]), (1, [2, 3]), (2, [3, 4]), (3, [4]), (4, [])]
    fr, up = next(_with_upcoming(iter(frames), 2))
    assert up[2] is frames[2]


@needs_model
def test_boxes_found_ahead_of_time_change_nothing(tmp_path: Path) -> None:
    """The audit finds a later frame's boxes on the other core while it reads this frame's cards
    (``TableWatcher.feed``'s ``upcoming``), and the trackers' grey crops are made on the thread that decodes ahead
    (``glanced``): the looks, their boxes and the observations are those of doing both when each frame is looked
    at. A Speed game: two piles, each looked at on its own."""
    g = render_game(tmp_path / "speed.mp4", "speed", 2, seed=1, seconds=8)
    lay = Layout.load(g.layout)

    def watch(ahead: bool) -> tuple[TableWatcher, list, list[dict]]:
        detector = load_card_model(default_model(), conf=0.3, turns=AUDIT_TURNS,
                                   imgsz=detector_input(default_model(), "speed"))
        watcher = TableWatcher(lay, "speed", detector, FPS, hold_s=REORDER_S)
        looks, events = [], []
        frames = VideoReader(g.video, ahead=2 if ahead else 0, shrink=SlapDetector.shrink,
                             glance=watcher.glance if ahead else None)
        for fr, upcoming in _with_upcoming(frames, watcher.every):
            assert (fr.glanced is not None) == ahead
            events += watcher.feed(fr.index, fr.t, fr.image, fr.small, upcoming if ahead else None, fr.glanced)
            looks.append((fr.index, list(watcher.looked), list(watcher.boxes)))
        events += watcher.finish()
        return watcher, looks, [e.to_dict() for e in events]

    now, ahead = watch(False), watch(True)
    assert now[0].detected_ahead == 0 and ahead[0].detected_ahead > 0.5 * ahead[0].detections
    assert ahead[1] == now[1]
    assert ahead[2] == now[2] and any(e["type"] == "card" for e in now[2])
