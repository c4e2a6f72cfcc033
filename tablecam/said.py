"""What is said at the table: the observations no camera sees (EVENTS.md ``call``, ``claim``, ``stuck``, ``draw``,
``turn``), from a log file or typed by a scorer while the game runs.

A typed line is a JSON object (its ``t`` may be left out: the moment it was typed) or a short form::

    stuck Ann            doubt Bob          snap Cy            snap pot Cy
    claim Ann 3 K        draw Cy 2          turn Bob

Words, then the player, then the numbers; the player must be one of the game's. A line that is neither is
refused with the reason, and the game goes on.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO

from engine.events import HEARD_TYPES, Event, GameHeader, LogFormatError, json_object, parse_event
from tablecam.gamelog import open_log, read_lines


class SaidError(ValueError):
    """A said log or a typed line that cannot be used; the message says where and why."""


def read_said(path: str | Path, game: str, players: Sequence[str]) -> list[Event]:
    """A log of what was said (header: the same game and players), in time order."""
    path = Path(path)
    try:
        stream = open_log(path)
    except OSError as e:
        raise SaidError(f"said={path}: {e.strerror or e}") from None
    out: list[Event] = []
    with stream:
        for ln in read_lines(stream):
            if ln.error:
                raise SaidError(f"{path}:{ln.number}: {ln.error}")
            item = ln.item
            if isinstance(item, GameHeader):
                if item.game != game or list(item.players) != list(players):
                    raise SaidError(f"{path}:{ln.number}: said log is for {item.game} with "
                                    f"{','.join(item.players)}, not {game} with {','.join(players)}")
            elif isinstance(item, Event):
                if item.type not in HEARD_TYPES:
                    raise SaidError(f"{path}:{ln.number}: a {item.type!r} line is the camera's to see; said= "
                                    f"takes only {', '.join(HEARD_TYPES)}")
                out.append(item)
    return sorted(out, key=lambda e: e.t)


USAGE = "stuck P | doubt P | snap P | snap pot P | claim P COUNT RANK | draw P COUNT | turn P | a JSON line"


def parse_typed(text: str, t: float, players: Sequence[str]) -> Event | None:
    """One typed line at time ``t``; None for a blank line. Raises :class:`SaidError`."""
    text = text.strip()
    if not text:
        return None
    if text.startswith("{"):
        try:
            obj = json_object(text)
            obj.setdefault("t", round(t, 4))
            if obj.get("type") not in HEARD_TYPES:
                raise SaidError(f"only {', '.join(HEARD_TYPES)} can be typed; the camera sees the rest")
            return parse_event(obj)
        except LogFormatError as e:
            raise SaidError(str(e)) from None
    words = text.split()
    head = words[0].lower()
    if head == "snap" and len(words) > 1 and words[1].lower() == "pot":
        head, words = "snap pot", ["snap pot", *words[2:]]
    if len(words) < 2:
        raise SaidError(f"{text!r}: who? ({USAGE})")
    who = words[1]
    if who not in players:
        raise SaidError(f"{text!r}: {who!r} is not playing ({', '.join(players)})")
    rest = words[2:]
    t = round(t, 4)
    try:
        if head == "stuck" and not rest:
            return Event(t=t, type="stuck", player=who)
        if head == "turn" and not rest:
            return Event(t=t, type="turn", player=who)
        if head in ("doubt", "snap", "snap pot") and not rest:
            return Event(t=t, type="call", player=who, word=head)
        if head == "claim" and len(rest) == 2:
            return parse_event({"t": t, "type": "claim", "player": who, "count": int(rest[0]),
                                "rank": rest[1].upper()})
        if head == "draw" and len(rest) == 1:
            return parse_event({"t": t, "type": "draw", "player": who, "count": int(rest[0])})
    except (ValueError, LogFormatError) as e:
        raise SaidError(f"{text!r}: {e}") from None
    raise SaidError(f"{text!r}: not a call ({USAGE})")


class TypedCalls:
    """Reads typed lines from ``stream`` on a thread; :meth:`take` gives the events typed so far. ``clock()``
    is the live loop's time; ``say`` reports a line that could not be used."""

    def __init__(self, stream: IO[str], players: Sequence[str], clock: Callable[[], float],
                 say: Callable[[str], None]) -> None:
        self.stream, self.players, self.clock, self.say = stream, list(players), clock, say
        self._got: deque[Event] = deque()
        self._thread = threading.Thread(target=self._run, daemon=True, name="typed calls")

    def start(self) -> TypedCalls:
        self._thread.start()
        return self

    def _run(self) -> None:
        for line in self.stream:
            try:
                ev = parse_typed(line, self.clock(), self.players)
            except SaidError as e:
                self.say(f"typed: {e}")
                continue
            if ev is not None:
                self._got.append(ev)

    def take(self) -> list[Event]:
        out = []
        while self._got:
            out.append(self._got.popleft())
        return out
