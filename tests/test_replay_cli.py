"""``tablecam replay`` / ``tablecam simulate`` and the log files they read and write (issue 2)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from engine.replay import replay_to_end
from engine.sim import simulate
from tablecam.cli import main
from tablecam.gamelog import LogWriter, open_log, read_lines

HEADER = {"t": 0, "type": "game", "game": "slapjack", "players": ["A", "B"], "dealer": "B", "variants": {}}


def _write(path: Path, *objs: object, tail: str = "") -> Path:
    path.write_text("".join((o if isinstance(o, str) else json.dumps(o)) + "\n" for o in objs) + tail,
                    encoding="utf-8")
    return path


def _jsonl(text: str) -> list[dict]:
    return [json.loads(x) for x in text.splitlines() if x.strip()]


def test_simulate_then_replay_equals_the_engine(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "g.jsonl"
    assert main(["simulate", "game=slapjack", "players=3", "seed=4", f"out={log}"]) == 0
    assert main(["replay", str(log)]) == 0
    printed = _jsonl(capsys.readouterr().out)
    header, events = simulate("slapjack", 3, 4)
    _, expected = replay_to_end(header, events)
    assert printed == [o.to_dict() for o in expected]
    assert printed[-1]["kind"] == "win"


def test_replay_say_prints_only_spoken_sentences(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "g.jsonl"
    main(["simulate", "game=slapjack", "players=2", "seed=1", f"out={log}"])
    capsys.readouterr()
    assert main(["replay", str(log), "--say"]) == 0
    lines = capsys.readouterr().out.splitlines()
    header, events = simulate("slapjack", 2, 1)
    _, outs = replay_to_end(header, events)
    assert lines == [o.say for o in outs if getattr(o, "voice", False) and o.say]
    assert lines and not any(line.startswith("{") for line in lines)


def test_replay_reads_stdin(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    text = json.dumps(HEADER) + "\n" + json.dumps({"t": 1, "type": "card", "zone": "center", "card": "JS",
                                                   "player": "A"}) + "\n" + json.dumps(
        {"t": 1.4, "type": "slap", "zone": "center", "player": "B"}) + "\n"
    monkeypatch.setattr("sys.stdin", io.StringIO(text))
    assert main(["replay", "-"]) == 0
    out = _jsonl(capsys.readouterr().out)
    assert [(o["kind"], o["player"], o["cards"]) for o in out] == [("slap_won", "B", 1)]


def test_malformed_line_is_reported_with_file_and_line_and_replay_goes_on(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = _write(tmp_path / "bad.jsonl", HEADER,
                 {"t": 1, "type": "card", "zone": "center", "card": "9H", "player": "A"},
                 '{"t": 2, "type": "card", "zone": "center", "card": "1H"}',
                 "this is not json",
                 {"t": 3, "type": "card", "zone": "center", "card": "JD", "player": "B"},
                 {"t": 3.5, "type": "slap", "zone": "center", "player": "A"})
    assert main(["replay", str(log)]) == 1
    cap = capsys.readouterr()
    assert f"{log}:3: not a card: '1H'" in cap.err
    assert f"{log}:4: not JSON" in cap.err
    assert [o["kind"] for o in _jsonl(cap.out)] == ["slap_won"]


def test_torn_last_line_is_reported_and_earlier_lines_stay_usable(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "crash.jsonl"
    with LogWriter(log) as w:
        w.write(HEADER)
        w.write({"t": 1, "type": "card", "zone": "center", "card": "JS", "player": "A"})
        w.write({"t": 1.3, "type": "slap", "zone": "center", "player": "B"})
    with open(log, "a", encoding="utf-8") as f:
        f.write('{"t": 2.0, "type": "card", "zo')  # the crash
    assert main(["replay", str(log)]) == 1
    cap = capsys.readouterr()
    assert f"{log}:4: torn last line" in cap.err
    assert [o["kind"] for o in _jsonl(cap.out)] == ["slap_won"]
    # appending after the crash starts a fresh line: the torn one stays alone, the new one is valid
    with LogWriter(log) as w:
        w.write({"t": 3, "type": "card", "zone": "center", "card": "2S", "player": "A"})
    with open_log(log) as f:
        items = list(read_lines(f))
    assert [x.error is None for x in items] == [True, True, True, False, True]
    assert items[3].torn is False  # no longer the last line: now an ordinary malformed line


@pytest.mark.parametrize("header, message", [
    ({**HEADER, "game": "poker"}, "valid games: snap, slapjack, speed, spit, cheat, paijie"),
    ({**HEADER, "variants": {"false_slap_penalty": "shout"}}, "choose one of give_to_turner, burn_to_pile"),
    ({**HEADER, "variants": {"slap_penalty": "burn_to_pile"}}, "valid variants for slapjack"),
])
def test_unknown_game_or_variant_is_refused_with_the_valid_ones(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], header: dict, message: str) -> None:
    log = _write(tmp_path / "g.jsonl", header)
    assert main(["replay", str(log)]) == 2
    assert message in capsys.readouterr().err


def test_missing_file_and_empty_log(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(tmp_path / "nope.jsonl")]) == 2
    assert "cannot read" in capsys.readouterr().err
    empty = _write(tmp_path / "empty.jsonl")
    assert main(["replay", str(empty)]) == 2
    assert "no 'game' line" in capsys.readouterr().err


def test_unknown_keys_and_modes_get_a_suggestion(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "gmae=snap"]) == 2
    assert "did you mean 'game'" in capsys.readouterr().err
    assert main(["replya", "x"]) == 2
    assert "did you mean 'replay'" in capsys.readouterr().err
    assert main(["simulate", "game=speed", "players=3"]) == 2
    assert "speed is for 2-2 players" in capsys.readouterr().err


def test_audit_and_live_say_first_what_was_typed_wrong(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A mistyped game is named before the layout is looked for, and a missing video before its layout (whose
    name comes from the video's): the layout was never the problem."""
    video = tmp_path / "game.mp4"
    video.write_bytes(b"")
    assert main(["audit", str(video), "game=snapp"]) == 2
    assert "unknown game 'snapp'; did you mean 'snap'?" in capsys.readouterr().err
    assert main(["live", "game=spitt"]) == 2
    assert "unknown game 'spitt'; did you mean 'spit'?" in capsys.readouterr().err
    assert main(["audit", str(tmp_path / "nope.mp4")]) == 2
    assert f"no video at {tmp_path / 'nope.mp4'}" in capsys.readouterr().err
    assert main(["audit", str(video)]) == 2  # (there is a video: its layout is what is missing)
    assert "no layout at" in capsys.readouterr().err


def test_simulate_with_verdicts_writes_a_log_that_replays_identically(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The log the live system writes (observations and verdicts) re-referees to the same verdicts."""
    log = tmp_path / "live.jsonl"
    assert main(["simulate", "game=slapjack", "players=Ann,Bob,Cy", "seed=9", "verdicts=true", f"out={log}"]) == 0
    written = [o for o in _jsonl(log.read_text()) if o["type"] in ("verdict", "anomaly")]
    assert main(["replay", str(log)]) == 0
    assert _jsonl(capsys.readouterr().out) == written
    assert json.loads(log.read_text().splitlines()[0])["players"] == ["Ann", "Bob", "Cy"]
