"""Lines that arrive late: a referee fed observations out of time order, ruled as if they had come in order.

Live, the camera confirms a card a few frames after it landed and dates it back, and now and then it finds a card
only when the card above it is taken back (Speed: B's five covered by A's three as it landed, seen when the three
goes back to A). That card landed before the top the referee has already ruled on. Pushed as it comes, it is judged
against that top ("Illegal: five on three") and the take-back of a legal card is refused, so every later play on the
pile is judged against a card that is no longer there.

:class:`Timeline` keeps the lines of the last few seconds, with a copy of the state every few lines. A line older
than the latest goes back to the copy before the lines from :data:`REWIND_S` before it (so that it still ties with a
card it raced) and the lines from there are ruled again in time order. What comes out and was not said before is
new (a play judged again against the card it really landed on); what was said before is not said twice. What was
said and is not ruled so any more cannot be unsaid: it stays in the log, and the state goes on from the lines in
order.

Pure, as the rest of the engine: no clock, no I/O.
"""

from __future__ import annotations

import bisect
import json
from collections import deque
from dataclasses import dataclass, field

from engine.events import Event
from engine.referee import Referee
from engine.verdicts import Output

#: a late line is ruled again with the lines from this long before it (a race it may tie into: TM-3 windows are
#: tens of milliseconds; a card is confirmed up to a few tenths of a second after it landed)
REWIND_S = 0.5
#: an output ruled again is the one said before when its words are the same and its time within this
SAME_S = 1.0


def _key(out: Output) -> str:
    """What an output says, without its time (ruled again, a verdict may be stamped at a later race close)."""
    d = out.to_dict()
    d.pop("t", None)
    return json.dumps(d, sort_keys=True, default=str)


#: a copy of the state is kept before every this many lines, and a late line is ruled again from the copy before its
#: place, up to this many lines more (a copy before every line: a third of the referee's speed through replay; every
#: 16th, three quarters)
SNAPSHOT_EVERY = 16


@dataclass(slots=True, eq=False)  # (one line is itself only: found by identity, not by comparing states)
class _Pushed:
    ev: Event
    before: Referee | None  # the state before the line was ruled (kept for one line in SNAPSHOT_EVERY)


@dataclass(slots=True)
class _Said:
    t: float
    out: Output
    key: str | None = None  # (worked out when a late line asks)

    def same(self, key: str, t: float) -> bool:
        if self.key is None:
            self.key = _key(self.out)
        return self.key == key and abs(self.t - t) <= SAME_S


@dataclass
class Timeline:
    """``referee`` fed through :meth:`push`, :meth:`advance` and :meth:`finish`, which return only what is new.

    ``keep_s``: how far back (from the latest line) a late line can still be put in its place; 0: never, every
    line is ruled as it comes (a plain referee). Default: the game's (``Referee.LATE_KEEP_S``)."""

    referee: Referee
    keep_s: float | None = None
    rewinds: int = 0  # how many late lines were put in their place
    _pushed: list[_Pushed] = field(default_factory=list)  # in time order, the first with a copy of the state
    _times: list[float] = field(default_factory=list)  # their times (for bisect)
    _said: deque[_Said] = field(default_factory=deque)  # the outputs given, about oldest first
    _advanced: float = float("-inf")  # the latest time advance() was told
    _keep: float = 0.0  # keep_s, or the game's
    _since_copy: int = 0  # lines pushed since the last copy of the state
    _copies: deque[_Pushed] = field(default_factory=deque)  # the lines kept with a copy of the state before them

    def __post_init__(self) -> None:
        self._keep = type(self.referee).LATE_KEEP_S if self.keep_s is None else self.keep_s

    def push(self, ev: Event) -> list[Output]:
        """Rule ``ev``; a line older than the latest one kept is put in its place (see the module doc)."""
        if self._keep <= 0:
            return self.referee.push(ev)
        if not self._pushed or ev.t >= self._times[-1]:
            self._append(ev, self.referee)
            out = self.referee.push(ev)
            if len(self._copies) > 1 and self._copies[1].ev.t < ev.t - self._keep:
                self._forget()
            self._said.extend(_Said(o.t, o) for o in out)
            return out
        self.rewinds += 1
        at = bisect.bisect_right(self._times, ev.t)  # (after the lines of its very time)
        start = min(bisect.bisect_left(self._times, ev.t - REWIND_S), at)
        while self._pushed[start].before is None:  # (back to the last copy of the state)
            start -= 1
        lines = [p.ev for p in self._pushed[start:]]
        lines.insert(at - start, ev)
        state = self._pushed[start].before
        assert state is not None
        state = state.copy()
        gone = set(self._pushed[start:])
        while self._copies and self._copies[-1] in gone:
            self._copies.pop()
        del self._pushed[start:], self._times[start:]
        self._since_copy = SNAPSHOT_EVERY
        out: list[Output] = []
        for line in lines:
            self._append(line, state)
            out.extend(state.push(line))
        if self._advanced > state.t:
            out.extend(state.advance(self._advanced))
        self.referee = state
        return self._again(out)

    def advance(self, t: float) -> list[Output]:
        """Time has reached ``t`` (the live loop's clock, less the time a card takes to be confirmed)."""
        self._advanced = max(self._advanced, t)
        out = self.referee.advance(t)
        if self._keep > 0:
            self._said.extend(_Said(o.t, o) for o in out)
        return out

    def finish(self) -> list[Output]:
        return self.referee.finish()

    def _append(self, ev: Event, state: Referee) -> None:
        """Keep ``ev``, with a copy of ``state`` (before it) where one is due."""
        copy = None
        if self._since_copy >= SNAPSHOT_EVERY or not self._pushed:
            copy, self._since_copy = state.copy(), 0
        self._since_copy += 1
        line = _Pushed(ev, copy)
        self._pushed.append(line)
        self._times.append(ev.t)
        if copy is not None:
            self._copies.append(line)

    def _again(self, out: list[Output]) -> list[Output]:
        """What the lines ruled again say, less what was said before (the same words within :data:`SAME_S`, each
        said output standing for one); the rest is remembered as said."""
        new = []
        used: set[int] = set()
        for o in out:
            k = _key(o)
            i = next((i for i, s in enumerate(self._said) if i not in used and s.same(k, o.t)), None)
            if i is not None:
                used.add(i)
                continue
            new.append(o)
            self._said.append(_Said(o.t, o, k))
            used.add(len(self._said) - 1)
        return new

    def _forget(self) -> None:
        """Lines (and outputs) older than ``keep_s`` before the latest line can no longer be ruled again: those before
        the last copy of the state older than that go (the first line kept has a copy of the state before it)."""
        horizon = self._times[-1] - self._keep
        while len(self._copies) > 1 and self._copies[1].ev.t < horizon:
            self._copies.popleft()
        drop = self._pushed.index(self._copies[0])
        if drop:
            del self._pushed[:drop], self._times[:drop]
        while self._said and self._said[0].t < horizon - SAME_S:
            self._said.popleft()
