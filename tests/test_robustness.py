"""Random, truncated and shuffled logs never make the referee or ``tablecam replay`` raise (issue 2).

The referee reports what cannot happen as anomalies and changes nothing; replay reports malformed lines
with file and line number and carries on.
"""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.cards import DECK_WITH_JOKERS, RANKS
from engine.events import REQUIRED_FIELDS, Event, GameHeader
from engine.games import new_referee
from engine.sim import PLAYER_RANGE, simulate
from engine.verdicts import Anomaly
from tablecam.cli import main

GAMES = ["snap", "slapjack", "speed", "spit", "cheat", "paijie"]
PLAYERS = ["A", "B", "C"]
ZONES = ["center", "pot", "left", "right", "pile:A", "pile:B", "pile:Z", "col:A:1", "col:B:5", "row:S", "row:H",
         "row:D", "row:C"]


@st.composite
def random_event(draw: st.DrawFn, t: float) -> Event:
    kind = draw(st.sampled_from(sorted(REQUIRED_FIELDS)))
    ev = Event(t=t, type=kind)
    ev.zone = draw(st.sampled_from(ZONES))
    ev.player = draw(st.sampled_from(PLAYERS + ["Z"]))
    ev.card = draw(st.sampled_from(DECK_WITH_JOKERS))
    ev.count = draw(st.integers(0, 6))
    ev.cards = tuple(draw(st.lists(st.sampled_from(DECK_WITH_JOKERS), min_size=1, max_size=5)))
    ev.word = draw(st.sampled_from(["snap", "snap pot", "doubt"]))
    ev.rank = draw(st.sampled_from(RANKS))
    ev.source = draw(st.sampled_from([None, "side", "spit", "deal"]))
    ev.t_err = draw(st.sampled_from([0.0, 0.0, 0.01, 0.05]))
    return ev


@pytest.mark.parametrize("game", GAMES)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_events_never_raise_and_anomalies_change_nothing(game: str, data: st.DataObject) -> None:
    n = PLAYER_RANGE[game][0] if game in ("speed", "spit") else 3
    ref = new_referee(GameHeader(game=game, players=tuple(PLAYERS[:n]), dealer=PLAYERS[n - 1]))
    times = sorted(data.draw(st.lists(st.floats(0, 60, allow_nan=False), min_size=1, max_size=40)))
    for t in times:
        ev = data.draw(random_event(t))
        ref.advance(t) if t > ref.t else None  # close races first so "unchanged" compares like with like
        ref.t = max(ref.t, t)
        before = ref.copy()
        out = ref.push(ev)
        if out and all(isinstance(o, Anomaly) for o in out):
            assert ref == before, (game, ev)
        for o in out:
            json.dumps(o.to_dict())
    ref.finish()


@pytest.mark.parametrize("game", GAMES)
@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**31), cut=st.floats(0, 1), mode=st.sampled_from(["shuffle", "drop", "swap"]))
def test_mangled_simulated_logs_never_raise(game: str, seed: int, cut: float, mode: str) -> None:
    header, events = simulate(game, PLAYER_RANGE[game][0], seed % 1000)
    rng = random.Random(seed)
    events = list(events)
    if mode == "shuffle":
        rng.shuffle(events)
    elif mode == "drop":
        events = [e for e in events if rng.random() > 0.2]
    else:
        for _ in range(10):
            i, j = rng.randrange(len(events)), rng.randrange(len(events))
            events[i], events[j] = events[j], events[i]
    events = events[: int(len(events) * cut)]
    ref = new_referee(header)
    for ev in events:
        for o in ref.push(ev):
            json.dumps(o.to_dict())
    ref.finish()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**31), game=st.sampled_from(GAMES))
def test_replay_cli_survives_garbage_and_torn_lines(tmp_path_factory: pytest.TempPathFactory, seed: int,
                                                    game: str) -> None:
    """Garbage lines get ``FILE:LINE`` messages, replay goes on, the exit status is 1."""
    tmp = tmp_path_factory.mktemp("fuzz")
    header, events = simulate(game, PLAYER_RANGE[game][0], seed % 500)
    rng = random.Random(seed)
    lines = [json.dumps(header.to_dict())] + [json.dumps(e.to_dict()) for e in events]
    garbage = ['{"t":', "not json", "[1,2]", '{"t":1,"type":"card"}', '{"t":1e999,"type":"slap"}', "\x00\x01",
               '{"t":3,"type":"card","zone":"center","card":"ZZ"}', '{"t":2,"type":"game","game":"snap"}']
    is_garbage = [False] * len(lines)
    for g in rng.sample(garbage, 3):
        i = rng.randrange(1, len(lines) + 1)
        lines.insert(i, g)
        is_garbage.insert(i, True)
    text = "\n".join(lines)
    last = max(i for i, bad in enumerate(is_garbage) if bad)
    garbage_end = sum(len(line) + 1 for line in lines[: last + 1])  # through the newline after it
    text = text[: rng.randrange(min(garbage_end, len(text)), len(text) + 1)]  # garbage kept; maybe a torn end
    path = tmp / "log.jsonl"
    path.write_text(text, encoding="utf-8")
    assert main(["replay", str(path)]) == 1
