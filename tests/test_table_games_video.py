"""Rendered Speed, Spit, Cheat and Pai Jie games audited end to end (issue 6): with right card reads (the stand-in
reader sees what a camera sees: every card that shows, and the hands), the audit's observations and verdicts are
those of the ground truth. What is said at the table comes from the game's ``.said.jsonl``, as a scorer would type
it. Seeds and lengths are chosen to hold the situations each game is about (a race on one pile, a card taken back,
doubts and reveals, plays along the suit rows)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from models.gamevideo import RenderedGame, TruthReader, render_game
from tablecam.audit import AuditResult, audit
from tablecam.cli import truth_agreement

CASES = {  # game -> (players, seed, seconds)
    "speed": (2, 1, 20.0),  # two races on one pile (9 ms and 42 ms apart), two cards taken back, side flips
    "spit": (2, 2, 20.0),  # the deal over face-down columns, cards turned up and moved, an illegal card taken back
    "cheat": (3, 2, 20.0),  # 16 batches of 1-2 cards, doubts, two reveals
    "paijie": (3, 2, 20.0),  # plays along the rows by three players, a joker on the centre and taken back
}


@pytest.fixture(scope="module", params=sorted(CASES))
def audited(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
            ) -> tuple[str, RenderedGame, AuditResult]:
    game = request.param
    players, seed, seconds = CASES[game]
    root = tmp_path_factory.mktemp(game)
    g = render_game(root / "game.mp4", game, players, seed, seconds=seconds)
    said = root / "game.said.jsonl"
    res = audit(g.video, game, list(g.script.header.players), g.layout, root / "audit", progress=False,
                annotate=False, detector=TruthReader(g.script, imgsz=224), said=said if said.is_file() else None)
    return game, g, res


def logged(res: AuditResult, *types: str) -> list[dict]:
    with open(res.log, encoding="utf-8") as f:
        return [d for d in (json.loads(x) for x in f if x.strip()) if d.get("type") in types]


def test_every_card_on_the_table_is_seen_once_on_its_zone(audited: tuple[str, RenderedGame, AuditResult]) -> None:
    """EVENTS.md ``card``: the right card, on the right zone, at the time it landed: the frame that first showed
    it (it landed within the frame before), or, in the race games, its tap (TM-3: to the millisecond), or without
    a tap the middle of that frame, within the ``t_err`` it carries."""
    game, g, res = audited
    truth = sorted(((e.zone, e.card, e.t) for e in g.script.events if e.type == "card" and e.zone in g.script.piles),
                   key=lambda x: x[2])
    seen = [(d["zone"], d["card"], d["t"], d.get("t_err", 0.0)) for d in logged(res, "card")]
    assert sorted((z, c) for z, c, _, _ in seen) == sorted((z, c) for z, c, _ in truth)
    # a hand reaching across may hide a card for a frame or two as it lands (the Spit deal, 0.1 s a card; Pai Jie's
    # rows): there the order of the cards, not their milliseconds, is what the rules judge
    for (z, c, t_seen, t_err), (_, _, t_true) in zip(sorted(seen, key=lambda x: (x[0], x[1], x[2])),
                                                     sorted(truth, key=lambda x: (x[0], x[1], x[2])), strict=True):
        late = 0.1 if game == "paijie" or z.startswith("col:") else 0.0
        lo = t_seen - (t_err or 1 / 30) - 0.003 - late
        assert lo <= t_true <= t_seen + t_err + 0.003, (game, z, c, t_seen, t_err, t_true)


def test_who_laid_each_card_is_the_arm_that_laid_it(audited: tuple[str, RenderedGame, AuditResult]) -> None:
    """SP-8 (a Speed play names its player), PJ-15 (a Pai Jie play is one player's): the seat the arm comes from."""
    game, g, res = audited
    if game in ("cheat", "spit"):
        pytest.skip("Cheat's batches are whoever's turn it is (CH-1); a Spit card names its owner (its column)")
    truth = {e.card: e.player for e in g.script.events if e.type == "card" and e.player}
    seen = {d["card"]: d.get("player") for d in logged(res, "card")}
    assert {c: seen.get(c) for c in truth} == truth


def test_batches_are_counted_and_reveals_read(audited: tuple[str, RenderedGame, AuditResult]) -> None:
    """CH-2: every face-down batch with its count; CH-4: every batch turned up, with its cards."""
    game, g, res = audited
    if game != "cheat":
        pytest.skip("Cheat only")
    truth = [(e.type, e.count, tuple(sorted(e.cards or ()))) for e in g.script.events
             if e.type in ("facedown", "reveal")]
    seen = [(d["type"], d.get("count") if d["type"] == "facedown" else None, tuple(sorted(d.get("cards", []))))
            for d in logged(res, "facedown", "reveal")]
    assert seen == [(t, c if t == "facedown" else None, cs) for t, c, cs in truth]


def test_the_audits_verdicts_equal_the_ground_truths(audited: tuple[str, RenderedGame, AuditResult]) -> None:
    game, g, res = audited
    line = truth_agreement(g.truth, res.log)
    assert "equal" in line, line
    assert logged(res, "anomaly") == []


def test_races_csv_holds_the_races_for_a_pile_of_the_ground_truth(audited: tuple[str, RenderedGame, AuditResult]
                                                                  ) -> None:
    """SP-3, SP-9, TM-2: ``races.csv`` lists every race for a pile the ground truth holds (two players' cards on one
    pile under 100 ms apart, refereed): the same cards in the same order, as far apart within their ``t_err``, ruled
    alike. The Speed game holds two (9 and 42 ms apart)."""
    import csv

    from engine.events import Event, GameHeader, parse_line
    from engine.replay import replay
    from engine.verdicts import Verdict
    from tablecam.report import pile_races

    game, g, res = audited
    if game not in ("speed", "spit"):
        assert not (res.out / "races.csv").exists()
        return
    parsed = [parse_line(x, k + 1) for k, x in enumerate(g.truth.read_text().splitlines())]
    header = next(x for x in parsed if isinstance(x, GameHeader))
    events = [x for x in parsed if isinstance(x, Event)]
    truth = pile_races([e.to_dict() for e in events],
                       [o.to_dict() for o in replay(header, events) if isinstance(o, Verdict)])
    with open(res.out / "races.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert [(r["pile"], r["first_card"], r["second_card"]) for r in rows] == \
        [(x.first.zone, x.first.card, x.second.card) for x in truth]
    for r, x in zip(rows, truth, strict=True):
        assert abs(float(r["apart_ms"]) - x.apart_ms) <= float(r["err_ms"]) + 1.0
        assert (r["tie"] != "") == (x.tie is not None)
    if game == "speed":
        assert [round(x.apart_ms) for x in truth] == [9, 42]


@pytest.mark.parametrize("audited", ["speed"], indirect=True)
def test_live_referees_the_recording_with_what_was_said(audited: tuple[str, RenderedGame, AuditResult],
                                                       tmp_path: Path) -> None:
    """``tablecam live video=... said=FILE``: the live loop (cards released as soon as they are sure) with the
    said log gives the same verdicts as the audit and the ground truth."""
    from tablecam.audio_out import Player
    from tablecam.live import run_live

    game, g, _ = audited
    log = tmp_path / "live.jsonl"
    stats = run_live(video=str(g.video), game=game, players=list(g.script.header.players), layout=str(g.layout),
                     model="unused.onnx", log_path=str(log), player=Player.from_settings(mute=True),
                     realtime=False, detector=TruthReader(g.script, imgsz=224), call_triggers=False,
                     said=str(g.video.with_name(g.video.stem + ".said.jsonl")), say=lambda m: None)
    assert stats.dropped == 0
    line = truth_agreement(g.truth, log)
    assert "equal" in line, line
