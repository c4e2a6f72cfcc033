"""Races: two slaps on one pile, two calls on one snap, two cards on one centre pile.

RULES.md TM-3: contenders are ordered by time; two are ordered only when they differ by more than the
larger of the tie window and the sum of their ``t_err``. A contender that cannot be separated from the
first makes the race unresolved; the referee never guesses.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

_EPS = 1e-9  # float noise: 10.02 - 10.00 must count as exactly 20 ms


class Entry(NamedTuple):
    """One contender: when it touched (or was heard), how uncertain that time is, who, and its event.
    (A NamedTuple: races are on the hot path of replay and these are built per slap.)"""

    t: float
    t_err: float
    player: str
    seq: int
    data: Any = None


def separated(a: Entry, b: Entry, window_s: float) -> bool:
    """True when ``a`` and ``b`` can be put in order (TM-3)."""
    return abs(b.t - a.t) > max(window_s, a.t_err + b.t_err) + _EPS


@dataclass(slots=True)
class RaceResult:
    ranked: list[Entry]
    tied: list[Entry]

    @property
    def winner(self) -> Entry | None:
        """The first contender, or None when it cannot be separated from the next one."""
        return self.ranked[0] if len(self.tied) == 1 else None


@dataclass(slots=True)
class Race:
    """Contenders for one prize, collected until the window after the first one has passed."""

    key: str
    entries: list[Entry] = field(default_factory=list)

    def add(self, entry: Entry) -> None:
        self.entries.append(entry)

    @property
    def first_t(self) -> float:
        return min(e.t for e in self.entries)

    def closes_at(self, window_s: float) -> float:
        """Time after which no later contender can tie with the first one any more.

        A later contender could tie if it is within max(window, t_err sum); its own t_err is unknown, so
        the largest t_err seen so far stands in for it.
        """
        first = min(self.entries, key=lambda e: (e.t, e.seq))
        worst = max(e.t_err for e in self.entries)
        return first.t + max(window_s, first.t_err + worst) + _EPS

    def is_due(self, now: float, window_s: float) -> bool:
        return now > self.closes_at(window_s)

    def result(self, window_s: float) -> RaceResult:
        return order(self.entries, window_s)


def order(entries: list[Entry], window_s: float) -> RaceResult:
    """Rank contenders by time (log order breaks exact equality) and find who ties with the first."""
    ranked = sorted(entries, key=lambda e: (e.t, e.seq))
    first = ranked[0]
    tied = [first] + [e for e in ranked[1:] if not separated(first, e, window_s)]
    return RaceResult(ranked=ranked, tied=tied)
