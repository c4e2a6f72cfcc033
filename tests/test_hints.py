"""Hints for Speed and Spit (``tablecam live hints=true``): a legal play visible on the table, said when it is quiet.

Rules checked: ST-2 and ST-7 (a Spit hint names a column top the referee would rule legal on that pile, the ace
wrap included), ST-4 (no fitting top: no hint; being stuck is the referee's ruling), ST-5 (no hint while the
piles are being chosen), SP-2 (a Speed hint names exactly the ranks legal on each top, with and without
``ace_wraps``), SP-5 / SP-10 (no hint while flips are due), SP-7 (none once the game is won), TM-3 (none while a
card is inside its tie window). States are built by pushing real log lines, as tests/test_speed.py and
tests/test_spit.py do.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from helpers import card, verdicts
from test_speed import referee as speed_referee
from test_speed import start
from test_spit import LOW_ANN, LOW_BOB, feed, new, opened, opening, round_one_cleared_by_ann

from engine.cards import RANKS, rank
from engine.events import Event, parse_event, parse_line
from engine.hints import Hint, fitting_ranks, visible_hint, visible_hints
from engine.sim import simulate
from engine.verdicts import URGENT_KINDS
from tablecam import live as live_mod
from tablecam.audio_out import Player
from tablecam.cli import main
from tablecam.hints import HintTimer, speak_hint
from vision.frames import Frame

ANN, BOB = "Ann", "Bob"


# ----------------------------------------------------------------------------------------------------- Spit
def test_spit_hint_names_a_fitting_column_top_and_says_it() -> None:
    """ST-2: Ann's 6S and 8S fit the left 7C, her JS and Bob's KH the right QC, Bob's 8H the left 7C."""
    ref = opened()
    assert visible_hint(ref) == Hint(ANN, "6S", "left", "ST-2", "Hint: Ann, six of spades on the seven, left pile",
                                     "提示：Ann，黑桃六放在左边的七上")
    assert [(h.player, h.card, h.zone) for h in visible_hints(ref)] == [
        (ANN, "6S", "left"), (ANN, "8S", "left"), (ANN, "JS", "right"), (BOB, "KH", "right"), (BOB, "8H", "left")]


def test_spit_hint_sentence_for_bob() -> None:
    """ST-2: only Bob's 7C fits (the left 8D): the sentence of the brief."""
    ref = new()
    feed(ref, *opening(LOW_ANN, ["2H", "3H", "4H", "2C", "7C"], "8D", "JC"))
    h = visible_hint(ref)
    assert h is not None and h.say == "Hint: Bob, seven of clubs on the eight, left pile"
    assert (h.player, h.card, h.zone, h.rule) == (BOB, "7C", "left", "ST-2")
    assert h.say_zh == "提示：Bob，梅花七放在左边的八上"
    assert h.text("zh") == h.say_zh and h.text("en") == h.say


def test_spit_every_hint_is_ruled_legal_by_the_referee() -> None:
    """ST-2: the hinted card, played, is a ``legal_play`` of the referee itself (the hint reuses its judgement)."""
    base = opened()
    hints = visible_hints(base)
    assert hints
    for h in hints:
        ref = base.copy()
        out = feed(ref, card(2.0, h.zone, h.card, h.player)) + [o.to_dict() for o in ref.finish()]
        assert [(v["kind"], v["card"]) for v in verdicts(out)] == [("legal_play", h.card)], h


@pytest.mark.parametrize("wraps", [True, False])
def test_spit_ace_wrap_hint_follows_the_variant(wraps: bool) -> None:
    """ST-7: an ace on a king is hinted only with ``ace_wraps`` (then under ST-7); the ace on the two always."""
    ref = new(ace_wraps=wraps)
    feed(ref, *opening(["AS", "5S", "5D", "5C", "5H"], ["9H", "9S", "9D", "9C", "JH"], "KC", "7C"))
    got = [(h.card, h.zone, h.rule) for h in visible_hints(ref)]
    assert got == ([("AS", "left", "ST-7")] if wraps else [])
    ref = new(ace_wraps=wraps)
    feed(ref, *opening(["AS", "5S", "5D", "5C", "5H"], ["9H", "9S", "9D", "9C", "JH"], "2C", "7C"))
    assert [(h.card, h.zone, h.rule) for h in visible_hints(ref)] == [("AS", "left", "ST-2")]


def test_spit_nothing_fits_gives_no_hint() -> None:
    """ST-4: low tops on an 8 and a jack: no hint, and the referee agrees nobody has a top that fits."""
    ref = new()
    feed(ref, *opening(LOW_ANN, LOW_BOB, "8C", "JC"))
    assert visible_hint(ref) is None
    assert all("goes on" not in (ref.a_move(p) or "") for p in (ANN, BOB))
    ref = new()
    feed(ref, *opening(LOW_ANN, LOW_BOB, "5C", "JC"))  # the same tops on a five: the fours fit
    assert [h.card for h in visible_hints(ref)] == ["4S", "4H"]


def test_spit_no_hint_before_the_piles_or_while_a_card_is_in_flight() -> None:
    """ST-2 / SP-10 / TM-3: none before both spit cards are down; none while a play is inside its tie window."""
    ref = new()
    lines = opening()
    feed(ref, *lines[:-1])  # Ann's spit card is down, Bob's is still owed
    assert ref.owed == [BOB] and visible_hint(ref) is None
    feed(ref, lines[-1])
    assert visible_hint(ref) is not None
    feed(ref, card(2.0, "left", "8H", BOB))  # lands; its race is still open
    assert ref.flying and visible_hint(ref) is None
    ref.advance(2.5)  # ruled legal: the left top is now the 8H, which none of the tops fits
    assert ref.top["left"] == "8H"
    assert [(h.card, h.zone) for h in visible_hints(ref)] == [("JS", "right"), ("KH", "right")]


def test_spit_no_hint_while_the_piles_are_chosen() -> None:
    """ST-5: Ann's layout is clear; Bob's 8D and 10D would fit the 9D, but the round is over."""
    ref, t, _ = round_one_cleared_by_ann()
    ref.advance(t + 1)
    assert ref.phase == "choose" and visible_hint(ref) is None
    ref.phase = "play"  # the same table in play would have a hint: the phase alone makes it None
    assert visible_hint(ref) is not None


# ---------------------------------------------------------------------------------------------------- Speed
@pytest.mark.parametrize(("left", "right", "wraps", "say"), [
    ("7H", "QS", True, "Hint: left takes a six or an eight; right takes a jack or a king"),
    ("AH", "KS", True, "Hint: left takes a king or a two; right takes a queen or an ace"),
    ("AH", "KS", False, "Hint: left takes a two; right takes a queen"),
    ("7H", "KS", False, "Hint: left takes a six or an eight; right takes a queen"),
])
def test_speed_hint_names_the_ranks_each_top_takes(left: str, right: str, wraps: bool, say: str) -> None:
    """SP-2: hands are hidden, so the hint names the ranks legal on each top; the ace wrap follows the variant."""
    ref, out = speed_referee({"ace_wraps": wraps}, lines=tuple(start(left, right)))
    assert out == []
    h = visible_hint(ref)
    assert h is not None and (h.player, h.card, h.zone, h.rule) == (None, None, None, "SP-2")
    assert h.say == say


def test_speed_hint_in_mandarin() -> None:
    ref, _ = speed_referee(lines=tuple(start("AH", "KS")))
    assert visible_hint(ref).say_zh == "提示：左边可以出K或二；右边可以出Q或A"  # type: ignore[union-attr]


@pytest.mark.parametrize("wraps", [True, False])
@pytest.mark.parametrize("top", ["AH", "7H", "KH"])
def test_speed_named_ranks_are_exactly_the_ones_the_referee_rules_legal(wraps: bool, top: str) -> None:
    """SP-2: every rank played on the top is ruled by the referee; legal exactly when the hint names it."""
    named = fitting_ranks(top, wraps)
    for r in RANKS:
        c = r + ("S" if rank(top) != r else "C")
        ref, _ = speed_referee({"ace_wraps": wraps}, lines=(*start(top, "5D"), card(1.0, "left", c, "Alice")))
        got = [v["kind"] for v in verdicts([o.to_dict() for o in ref.finish()])]
        assert got == (["legal_play"] if r in named else ["illegal_play"]), (r, named)


def test_speed_a_rank_whose_four_cards_are_face_up_is_not_hinted() -> None:
    """SP-2: all four sixes lie on the piles, so the left 7 takes only an eight."""
    plays = [("left", "6C", "Alice"), ("right", "6D", "Bob"), ("left", "7C", "Alice"), ("left", "6S", "Bob"),
             ("right", "5D", "Alice"), ("right", "6H", "Bob"), ("left", "7D", "Alice")]
    lines = [card(1.0 + i, z, c, p) for i, (z, c, p) in enumerate(plays)]
    ref, out = speed_referee(lines=(*start("5H", "7S"), *lines))
    out += [o.to_dict() for o in ref.advance(20.0)]
    assert [v["kind"] for v in verdicts(out)] == ["legal_play"] * 7 and ref.piles["left"][-1] == "7D"
    assert sorted(c for c in ref.where if c.startswith("6")) == ["6C", "6D", "6H", "6S"]
    assert visible_hint(ref).say == "Hint: left takes an eight; right takes a five or a seven"  # type: ignore[union-attr]


def test_speed_no_hint_while_flips_are_due_a_race_is_open_or_the_game_is_won() -> None:
    """SP-5 / SP-10: before the starters and after both are stuck; TM-3: a card in its window; SP-7: game won."""
    ref, _ = speed_referee()
    assert ref.flips_due and visible_hint(ref) is None
    ref, _ = speed_referee(lines=(*start(), card(1.0, "left", "8C", "Alice")))
    assert ref.races and visible_hint(ref) is None
    ref.advance(2.0)
    assert visible_hint(ref).say.startswith("Hint: left takes a seven or a nine")  # type: ignore[union-attr]
    ref, out = speed_referee(lines=(*start(), {"t": 2.0, "type": "stuck", "player": "Alice"},
                                    {"t": 2.1, "type": "stuck", "player": "Bob"}))
    assert [v["kind"] for v in verdicts(out)] == ["both_stuck"] and visible_hint(ref) is None
    ref, _ = speed_referee(held={"Alice": 1, "Bob": 20}, lines=(*start(), card(1.0, "left", "8C", "Alice")))
    ref.finish()
    assert ref.outcome is not None and ref.outcome.winner == "Alice" and visible_hint(ref) is None


def test_other_games_get_no_hint() -> None:
    from engine.events import parse_header
    from engine.games import new_referee

    ref = new_referee(parse_header({"type": "game", "game": "slapjack", "players": ["A", "B"]}))
    ref.push(Event(1.0, "card", zone="center", card="7H", player="A"))
    assert visible_hints(ref) == []


# ---------------------------------------------------------------------------------------------------- timer
def test_timer_waits_for_quiet_and_the_first_observation() -> None:
    ref = opened()
    timer = HintTimer(quiet_s=4.0, repeat_s=8.0)
    assert timer.due(100.0, ref) is None  # nothing observed yet: the game has not started
    timer.saw(1.0)
    assert timer.due(4.9, ref) is None  # 3.9 s quiet
    h = timer.due(5.0, ref)
    assert h is not None and h.card == "6S"


def test_timer_repeats_no_sooner_than_repeat_s_and_never_the_same_hint_twice() -> None:
    """While the table stays as it is, each repeat names the next fitting play; a table with one play goes quiet."""
    ref = opened()
    timer = HintTimer(quiet_s=4.0, repeat_s=8.0)
    timer.saw(1.0)
    said = [(t / 2, h.card) for t in range(10, 100) if (h := timer.due(t / 2, ref)) is not None]
    assert said == [(5.0, "6S"), (13.0, "8S"), (21.0, "JS"), (29.0, "KH"), (37.0, "8H"), (45.0, "6S")]
    ref, _ = speed_referee(lines=tuple(start()))  # Speed has one hint per table
    timer = HintTimer(quiet_s=4.0, repeat_s=8.0)
    timer.saw(0.5)
    assert timer.due(4.5, ref) is not None
    assert [t for t in range(5, 40) if timer.due(float(t), ref) is not None] == []


def test_timer_an_observation_restarts_the_quiet() -> None:
    ref, _ = speed_referee(lines=tuple(start()))
    timer = HintTimer(quiet_s=4.0, repeat_s=8.0)
    timer.saw(0.5)
    assert timer.due(4.5, ref) is not None
    ref2, _ = speed_referee(lines=(*start(), card(10.0, "left", "8C", "Alice")))
    ref2.advance(11.0)
    timer.saw(10.0)
    assert timer.due(13.9, ref2) is None  # quiet only 3.9 s
    h = timer.due(14.0, ref2)
    assert h is not None and h.say.startswith("Hint: left takes a seven or a nine")
    timer.saw(3.0)  # an older time does not move the quiet back
    assert timer.last_seen == 10.0


# ----------------------------------------------------------------------------------------- log and callouts
@pytest.mark.parametrize(("game", "seed"), [("spit", 3), ("speed", 5)])
def test_a_log_with_hint_lines_replays_the_same_verdicts(game: str, seed: int, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    """Hint lines (``type: hint``) are skipped by replay: the same verdicts, and no malformed line."""
    from engine.games import new_referee

    header, events = simulate(game, ["Ann", "Bob"], seed=seed)
    ref = new_referee(header)
    plain = [json.dumps(header.to_dict())]
    hinted = list(plain)
    n = 0
    for ev in events:
        line = json.dumps(ev.to_dict())
        plain.append(line)
        hinted.append(line)
        ref.push(ev)
        h = visible_hint(ref)
        if h is not None:
            hinted.append(json.dumps(h.to_dict(ev.t), ensure_ascii=False))
            n += 1
    assert n > 10
    outs = []
    for name, lines in (("plain", plain), ("hinted", hinted)):
        path = tmp_path / f"{name}.jsonl"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        assert main(["replay", str(path)]) == 0
        captured = capsys.readouterr()
        assert captured.err == ""
        outs.append([{k: v for k, v in json.loads(x).items() if k != "line"} for x in captured.out.splitlines()])
    assert outs[0] == outs[1] and verdicts(outs[0])


def test_hint_line_shape_and_parse() -> None:
    h = Hint(BOB, "7C", "left", "ST-2", "Hint: Bob, seven of clubs on the eight, left pile", "提示")
    d = h.to_dict(12.5)
    assert d == {"t": 12.5, "type": "hint", "player": BOB, "card": "7C", "zone": "left", "rule": "ST-2",
                 "say": "Hint: Bob, seven of clubs on the eight, left pile"}
    assert parse_line(json.dumps(d)) is None  # an output line: replay derives nothing from it


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_speak_hint_logs_it_and_queues_an_ordinary_callout(lang: str) -> None:
    ref = opened()
    h = visible_hint(ref)
    assert h is not None
    player = Player.from_settings(mute=True, lang=lang, warn=lambda m: None)
    written: list[dict[str, Any]] = []
    c = speak_hint(h, 6.0, player, written.append)
    assert written == [h.to_dict(6.0)]
    assert c is not None and c.kind == "hint" and not c.urgent and "hint" not in URGENT_KINDS
    assert c.text == (h.say_zh if lang == "zh" else h.say) and c.voice == ("cmn" if lang == "zh" else "en")
    assert 1.0 <= c.deadline - c.submitted <= 3.0  # dropped unsaid when it cannot start within a couple of seconds


# ------------------------------------------------------------------------------------------- the live loop
class _Watcher:
    """A TableWatcher stand-in releasing scripted observations at their times."""

    def __init__(self, script: list[Event]) -> None:
        self.script = list(script)
        self.boxes: list[Any] = []
        self.onsets: list[Any] = []
        self.detections = 0

    def glance(self, image: np.ndarray) -> None:
        return None  # (nothing to make ahead: the script says what is seen)

    def feed(self, index: int, t: float, image: np.ndarray, small: np.ndarray | None = None,
             glanced: list | None = None) -> list[Event]:
        out = [e for e in self.script if e.t <= t]
        self.script = self.script[len(out):]
        return out

    def finish(self) -> list[Event]:
        out, self.script = self.script, []
        return out

    def ruled(self, line: Any) -> None:
        pass


class _Overlay:
    def __init__(self, lay: Any) -> None:
        self.said: list[tuple[float, str]] = []

    def verdict(self, t: float, text: str) -> None:
        self.said.append((t, text))


def _run_speed_live(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, hints: bool) -> tuple[list[dict], Player]:
    """``run_live`` on a 12 s Speed 'recording' (10 frames a second) whose vision is scripted: the starters at
    0.5 s, Alice's 8C on the left 7H at 1.0 s, then nothing. LIVE_GAMES is widened for this test only."""
    script = [parse_event(d) for d in (*start(), card(1.0, "left", "8C", "Alice"))]
    lay = SimpleNamespace(players=["Alice", "Bob"], game="speed", source="fake", latency={},
                          check_frame=lambda w, h: None)
    monkeypatch.setattr(live_mod, "LIVE_GAMES", (*live_mod.LIVE_GAMES, "speed"))
    monkeypatch.setattr(live_mod, "Layout", SimpleNamespace(load=lambda path: lay))
    monkeypatch.setattr(live_mod, "probe", lambda path: SimpleNamespace(width=64, height=48, fps=10.0,
                                                                        has_audio=False))
    monkeypatch.setattr(live_mod, "VideoReader", lambda path, **k: (Frame(i, i / 10, np.zeros((48, 64, 3), np.uint8))
                                                                     for i in range(121)))
    monkeypatch.setattr(live_mod, "TableWatcher", lambda *a, **k: _Watcher(script))
    monkeypatch.setattr(live_mod, "Overlay", _Overlay)
    player = Player.from_settings(mute=True, device="no-such-output-device", warn=lambda m: None)
    log = tmp_path / "live.jsonl"
    live_mod.run_live(video="game.mp4", game="speed", players=["Alice", "Bob"], layout="fake.yaml", model="none",
                      log_path=log, player=player, realtime=False, detector=object(), hints=hints)
    return [json.loads(x) for x in log.read_text(encoding="utf-8").splitlines()], player


def test_live_loop_says_and_logs_a_hint_after_four_quiet_seconds(monkeypatch: pytest.MonkeyPatch,
                                                                 tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """SP-2 live: one hint at 5.0 s (4 s after the last play), none again (the same hint is never repeated);
    the log with its hint line replays the same verdicts as the log without it."""
    items, player = _run_speed_live(monkeypatch, tmp_path, hints=True)
    hints = [d for d in items if d["type"] == "hint"]
    assert hints == [{"t": 5.0, "type": "hint", "player": None, "card": None, "zone": None, "rule": "SP-2",
                      "say": "Hint: left takes a seven or a nine; right takes a jack or a king"}]
    calls = [c for c in player.history if c.kind == "hint"]
    assert [(c.text, c.urgent, c.status) for c in calls] == [(hints[0]["say"], False, "muted")]
    log = tmp_path / "live.jsonl"
    assert main(["replay", str(log)]) == 0
    with_hint = capsys.readouterr()
    log.write_text("".join(json.dumps(d) + "\n" for d in items if d["type"] != "hint"), encoding="utf-8")
    assert main(["replay", str(log)]) == 0
    assert capsys.readouterr().out == with_hint.out and with_hint.err == ""
    assert [d["kind"] for d in items if d["type"] == "verdict"] == ["legal_play"]


def test_live_loop_without_hints_says_none(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    items, player = _run_speed_live(monkeypatch, tmp_path, hints=False)
    assert [d for d in items if d["type"] == "hint"] == [] and not [c for c in player.history if c.kind == "hint"]


def test_cli_passes_hints_to_the_live_loop(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    """``tablecam live hints=true``; the default (cfg/default.yaml) is off."""
    import tablecam.cli as cli

    got: list[dict[str, Any]] = []

    def fake_run_live(**kw: Any) -> live_mod.LiveStats:
        got.append(kw)
        return live_mod.LiveStats()

    monkeypatch.setattr(cli, "_table", lambda cfg, video: ("fake.yaml", None, "speed", ["Alice", "Bob"]))
    monkeypatch.setattr(live_mod, "run_live", fake_run_live)
    base = ["live", "video=game.mp4", "mute=true", f"log={tmp_path / 'l.jsonl'}"]
    assert main(base) == 0 and main([*base, "hints=true"]) == 0
    capsys.readouterr()
    assert [kw["hints"] for kw in got] == [False, True]
