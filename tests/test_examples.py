"""The example logs in ``examples/logs`` are golden playthroughs (OpenSpiel style).

Each example is exactly what ``tablecam simulate`` makes for the seed in its first line, and replaying it
gives exactly the verdicts stored beside it. A change in a simulator or a referee shows up here as a diff
to look at, and the files are regenerated with ``make examples`` once the change is meant.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.events import GAMES
from engine.replay import replay_to_end
from engine.sim import simulate
from tablecam.gamelog import open_log, read_lines

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "logs"


def _objs(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.mark.parametrize("game", GAMES)
def test_example_log_is_the_simulators_game(game: str) -> None:
    lines = _objs(EXAMPLES / f"{game}.jsonl")
    head = lines[0]
    header, events = simulate(game, head["players"], head["seed"], head["variants"], head["dealer"])
    assert lines[1:] == [e.to_dict() for e in events]


@pytest.mark.parametrize("game", GAMES)
def test_example_log_replays_to_its_golden_verdicts(game: str) -> None:
    with open_log(EXAMPLES / f"{game}.jsonl") as f:
        items = list(read_lines(f))
    assert all(i.error is None for i in items)
    header, events = items[0].item, [i.item for i in items[1:] if i.item is not None]
    ref, outputs = replay_to_end(header, events)
    got = [o.to_dict() for o in outputs]
    assert got == _objs(EXAMPLES / f"{game}.verdicts.jsonl")
    assert got[-1]["kind"] in ("win", "draw") and ref.outcome is not None
    assert not any(o["type"] == "anomaly" for o in got)
