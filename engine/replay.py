"""Referee a whole log: pure, collecting problems instead of stopping at the first one."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from engine.events import Event, GameHeader
from engine.games import new_referee
from engine.referee import Referee
from engine.verdicts import Output


def replay(header: GameHeader, events: Iterable[Event]) -> Iterator[Output]:
    """Every verdict and anomaly of the game, in log order, ending with what the end of the log closes."""
    referee = new_referee(header)
    for ev in events:
        yield from referee.push(ev)
    yield from referee.finish()


def replay_to_end(header: GameHeader, events: Iterable[Event]) -> tuple[Referee, list[Output]]:
    """The final state and all outputs (tests and benchmarks)."""
    referee = new_referee(header)
    out: list[Output] = []
    for ev in events:
        out.extend(referee.push(ev))
    out.extend(referee.finish())
    return referee, out
