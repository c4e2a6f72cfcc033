"""Referee a whole log: pure, collecting problems instead of stopping at the first one."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from engine.events import Event, GameHeader
from engine.games import new_referee
from engine.referee import Referee
from engine.timeline import Timeline
from engine.verdicts import Output


def replay(header: GameHeader, events: Iterable[Event]) -> Iterator[Output]:
    """Every verdict and anomaly of the game, in log order, ending with what the end of the log closes. A line
    that comes after later ones is ruled in its place where the game says so (:mod:`engine.timeline`), as the
    live loop that wrote the log ruled it."""
    timeline = Timeline(new_referee(header))
    for ev in events:
        yield from timeline.push(ev)
    yield from timeline.finish()


def replay_to_end(header: GameHeader, events: Iterable[Event]) -> tuple[Referee, list[Output]]:
    """The final state and all outputs (tests and benchmarks)."""
    timeline = Timeline(new_referee(header))
    out: list[Output] = []
    for ev in events:
        out.extend(timeline.push(ev))
    out.extend(timeline.finish())
    return timeline.referee, out
