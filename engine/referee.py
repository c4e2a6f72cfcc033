"""The referee interface every game implements, python-chess ``Board`` style.

A referee *is* the game state. ``push(event)`` applies one observation in place and returns what it
rules; the module functions :func:`step`, :func:`advance` and :func:`finish` are the pure OpenSpiel-style
form ``step(state, event) -> (state, outputs)`` that never touches its input. Legality is separate from
application: a game's ``apply`` raises :class:`~engine.verdicts.Impossible` *before* changing anything,
so an event that cannot happen leaves the state exactly as it was and yields an ``anomaly``.

Time comes only from the events (no clock): races are closed by :meth:`Referee.advance` when an event
(or the caller, live) says the tie window has passed, and by :meth:`Referee.finish` at the end of a log.
"""

from __future__ import annotations

import copy
import difflib
import math
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, Self

from engine.events import Event, GameHeader
from engine.verdicts import Anomaly, Impossible, Outcome, Output, Verdict


class GameSetupError(ValueError):
    """The ``game`` line asks for something this referee cannot do (unknown variant or value)."""


#: settings every game has (RULES.md TM-2, TM-3): name -> (default, minimum, maximum)
COMMON_SETTINGS: dict[str, tuple[float, float, float]] = {
    "tie_window_ms": (20.0, 0.0, 1000.0),
    "anticipation_ms": (100.0, 0.0, 1000.0),
}

#: after the game is decided, slaps and calls this soon after it are the losers' hands landing (G-3), not anomalies
LATE_HANDS_S = 2.0
#: lines that trail the deciding event at a real table: losing hands, late calls, the claim of the batch that
#: sealed a Cheat win, the winner picking up
LATE_TYPES = frozenset({"slap", "call", "claim", "take"})

_BOOL_WORDS = {"true": True, "false": False, "yes": True, "no": False, "1": True, "0": False}


def _coerce(value: Any, allowed: tuple[Any, ...]) -> Any:
    """Accept ``"true"`` for True where the allowed values are booleans (values typed on a command line)."""
    if isinstance(value, str) and all(isinstance(a, bool) for a in allowed):
        return _BOOL_WORDS.get(value.strip().lower(), value)
    return value


def describe_variants(game: str, variants: dict[str, tuple[Any, ...]]) -> str:
    """``name (a|b)`` list used in every refusal so the user sees what is valid."""
    parts = [f"{k} ({'|'.join(_fmt(v) for v in vals)}; default {_fmt(vals[0])})" for k, vals in variants.items()]
    parts += [f"{k} (number {lo:g}-{hi:g}; default {d:g})" for k, (d, lo, hi) in COMMON_SETTINGS.items()]
    return f"valid variants for {game}: " + ", ".join(parts)


def _fmt(v: Any) -> str:
    return str(v).lower() if isinstance(v, bool) else str(v)


def resolve_variants(game: str, spec: dict[str, tuple[Any, ...]], given: dict[str, Any]) -> dict[str, Any]:
    """Defaults overlaid with ``given``; unknown names and values are refused with the valid ones."""
    out: dict[str, Any] = {k: vals[0] for k, vals in spec.items()}
    out.update({k: d for k, (d, _lo, _hi) in COMMON_SETTINGS.items()})
    for name, raw in given.items():
        if name in spec:
            value = _coerce(raw, spec[name])
            if value not in spec[name] or type(value) is not type(spec[name][0]):
                raise GameSetupError(
                    f"variant {name}={_fmt(raw)} is not valid for {game}; "
                    f"choose one of {', '.join(_fmt(v) for v in spec[name])}")
            out[name] = value
        elif name in COMMON_SETTINGS:
            _d, lo, hi = COMMON_SETTINGS[name]
            try:
                num = float(raw)
            except (TypeError, ValueError):
                num = math.nan
            if isinstance(raw, bool) or not lo <= num <= hi:
                raise GameSetupError(f"setting {name}={raw!r} must be a number from {lo:g} to {hi:g}")
            out[name] = num
        else:
            known = list(spec) + list(COMMON_SETTINGS)
            close = difflib.get_close_matches(name, known, n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            raise GameSetupError(f"unknown variant {name!r} for {game}{hint}; {describe_variants(game, spec)}")
    return out


#: valid zone names per referee class and seating (a replay or a test suite builds many referees)
_ZONES_CACHE: dict[tuple[type, tuple[str, ...]], frozenset[str]] = {}


@dataclass
class Referee:
    """Base of every game's referee; subclasses are dataclasses adding their own state fields.

    Subclasses set ``game``, ``VARIANTS`` (name -> allowed values, default first), ``EVENT_TYPES`` and
    ``ZONE_KINDS`` (the zone prefixes the game uses), implement :meth:`setup` and :meth:`apply`, and may
    override :meth:`advance`, :meth:`finish`, :meth:`observable_total`.
    """

    header: GameHeader
    players: tuple[str, ...] = ()
    variants: dict[str, Any] = field(default_factory=dict)
    t: float = 0.0
    seq: int = 0
    outcome: Outcome | None = None
    #: every zone name valid in this game with these players (precomputed: checked on every event)
    zones: frozenset[str] = field(default=frozenset(), compare=False, repr=False)

    game: ClassVar[str] = ""
    VARIANTS: ClassVar[dict[str, tuple[Any, ...]]] = {}
    EVENT_TYPES: ClassVar[frozenset[str]] = frozenset()
    ZONE_KINDS: ClassVar[frozenset[str]] = frozenset()
    DECK_SIZE: ClassVar[int] = 52
    #: zone kinds whose visible top a ``card`` line with ``misread`` may correct (where nothing can land on a face-up
    #: card, so a card read there anew is that card read again: Spit's columns)
    MISREAD_ZONES: ClassVar[frozenset[str]] = frozenset()
    #: a line that comes after later ones, up to this long after the latest, is ruled in its place by time
    #: (:mod:`engine.timeline`, where replay and the live loop feed the referee); 0: every line as it comes
    LATE_KEEP_S: ClassVar[float] = 0.0

    def __post_init__(self) -> None:
        if self.header.game != self.game:
            raise GameSetupError(f"a {self.game} referee cannot referee a {self.header.game} log")
        self.players = tuple(self.header.players)
        self.variants = resolve_variants(self.game, self.VARIANTS, self.header.variants)
        self.t = self.header.t
        key = (type(self), self.players)
        zones = _ZONES_CACHE.get(key)
        if zones is None:
            zones = frozenset(z for z in self._zone_names() if z.split(":")[0] in self.ZONE_KINDS)
            if len(_ZONES_CACHE) < 256:
                _ZONES_CACHE[key] = zones
        self.zones = zones
        self.setup()

    def _zone_names(self) -> list[str]:
        names = ["center", "pot", "left", "right"] + [f"row:{s}" for s in "SHDC"]
        for p in self.players:
            names.append(f"pile:{p}")
            names += [f"col:{p}:{i}" for i in range(1, 6)]
        return names

    # ----------------------------------------------------------------- for subclasses
    def setup(self) -> None:
        """Deal: fill in what the referee knows at the start (counts, not hidden identities)."""

    def apply(self, ev: Event) -> list[Output]:
        """Rule on one event, changing the state; raise :class:`Impossible` *before* changing anything."""
        raise NotImplementedError

    def advance(self, t: float) -> list[Output]:
        """Time has reached ``t``: close the races whose tie window has passed. Default: none pending."""
        return []

    def finish(self) -> list[Output]:
        """The log has ended: close everything still open."""
        return self.advance(math.inf)

    def flip_source(self, zone: str | None, t: float) -> str | None:
        """The ``source`` (SP-10) a card seen landing on ``zone`` at ``t`` must have by the rules, or None when it
        may be a play. Default: none (only games with flips override it)."""
        return None

    def as_flip(self, ev: Event) -> Event:
        """``ev`` as the log should keep it: a ``card`` with no ``source`` landing where only a flip can land is
        that flip, ``source`` set and ``player`` dropped (a flip is nobody's play, SP-10). Why here: the camera
        sees a card land, the rules say what it was; the log then reads the way a person would have written it.
        Does not change the state."""
        if ev.type != "card" or ev.source is not None:
            return ev
        src = self.flip_source(ev.zone, ev.t)
        return ev if src is None else replace(ev, source=src, player=None)

    def observable_total(self) -> int | None:
        """Cards the referee can account for (stacks, piles, hands by count); None while some are unknown.
        When not None it must equal ``DECK_SIZE`` (cards are conserved)."""
        return None

    # ----------------------------------------------------------------- shared machinery
    @property
    def window_s(self) -> float:
        """TM-3 tie window in seconds."""
        return float(self.variants["tie_window_ms"]) / 1000.0

    @property
    def anticipation_s(self) -> float:
        """TM-2 bound under which a reaction is flagged ``anticipated``."""
        return float(self.variants["anticipation_ms"]) / 1000.0

    @property
    def first_player(self) -> str:
        """The player on the dealer's left (SN-2, SJ-1, CH-1)."""
        return self.players[self.header.first_player_index]

    def next_player(self, player: str, step: int = 1) -> str:
        """The player ``step`` seats clockwise (to the left) of ``player``."""
        i = self.players.index(player)
        return self.players[(i + step) % len(self.players)]

    def end(self, winner: str | None, reason: str, rule: str, t: float) -> None:
        self.outcome = Outcome(winner=winner, reason=reason, rule=rule, t=t)

    def generic_check(self, ev: Event) -> str | None:
        """Checks every game shares: the game is still on, the event type, zone and players are known."""
        if self.outcome is not None:
            who = f"{self.outcome.winner} won" if self.outcome.winner else "it was drawn"
            return f"the game is over ({who}); nothing more can happen"
        if ev.type not in self.EVENT_TYPES:
            return f"a '{ev.type}' line has no meaning in {self.game}"
        if ev.player is not None and ev.player not in self.players:
            return f"unknown player {ev.player!r}; players are {', '.join(self.players)}"
        if ev.zone is not None and ev.zone not in self.zones:
            parts = ev.zone.split(":")
            if parts[0] not in self.ZONE_KINDS:
                return f"zone {ev.zone!r} does not exist in {self.game}"
            if len(parts) > 1 and parts[0] in ("pile", "col") and parts[1] not in self.players:
                return f"zone {ev.zone!r} names an unknown player"
            return f"zone {ev.zone!r} is not valid in {self.game}"
        if ev.misread is not None and (ev.zone or "").split(":")[0] not in self.MISREAD_ZONES:
            if not self.MISREAD_ZONES:
                return f"a card line with 'misread' has no meaning in {self.game}: no top is corrected"
            kinds = "/".join(f"{k}:..." for k in sorted(self.MISREAD_ZONES))
            return f"in {self.game} only the top of a {kinds} zone is corrected as misread, not {ev.zone}'s"
        return None

    def push(self, ev: Event) -> list[Output]:
        """Apply one observation in place; returns verdicts and anomalies in causal order (G-2).

        The hot path of replay and of the live loop: the shared checks are inlined and the message of an
        anomaly is only built when there is one.
        """
        if self.outcome is not None:
            if ev.type in LATE_TYPES and ev.t <= self.outcome.t + LATE_HANDS_S:
                return []  # G-3: hands, calls and claims just after the deciding event get no verdict
            return [Anomaly(ev.t, self.generic_check(ev) or "the game is over", ev.to_dict(), None, ev.line)]
        if (ev.type not in self.EVENT_TYPES or (ev.player is not None and ev.player not in self.players)
                or (ev.zone is not None and ev.zone not in self.zones)
                or (ev.misread is not None and (ev.zone or "").split(":")[0] not in self.MISREAD_ZONES)):
            return [Anomaly(ev.t, self.generic_check(ev) or "not valid here", ev.to_dict(), None, ev.line)]
        early: list[Output] | None = None
        if ev.t > self.t:
            early = self.advance(ev.t)
            self.t = ev.t
            if self.outcome is not None:  # a race closed by the passing of time ended the game
                if ev.type in LATE_TYPES and ev.t <= self.outcome.t + LATE_HANDS_S:
                    return list(early)  # G-3: the late hand that closed the deciding race gets no verdict
                return [*early, Anomaly(ev.t, "the game is over; nothing more can happen", ev.to_dict(), None,
                                        ev.line)]
        try:
            ruled = self.apply(ev)
        except Impossible as e:
            return [*(early or ()), Anomaly(ev.t, e.reason, ev.to_dict(), e.rule, ev.line)]
        self.seq += 1
        # a game's apply returns a list of its own making: it is handed on, not copied
        return [*early, *ruled] if early else ruled

    def check(self, ev: Event) -> str | None:
        """Why ``ev`` cannot happen now, or None if it can. Does not change the state."""
        reason = self.generic_check(ev)
        if reason is not None:
            return reason
        trial = self.copy()
        if ev.t > trial.t:
            trial.advance(ev.t)
            trial.t = ev.t
        try:
            trial.apply(ev)
        except Impossible as e:
            return e.reason
        return None

    def copy(self) -> Self:
        """An independent copy (``step`` works on one so that its input never changes)."""
        return copy.deepcopy(self)

    def verdict(self, kind: str, rule: str, say: str, *, player: str | None = None, to: str | None = None,
                cards: int | None = None, reaction_ms: float | None = None, voice: bool = True,
                t: float | None = None, **extra: Any) -> Verdict:
        """Build a verdict at the referee's current time (or ``t``); other keyword fields go to ``extra``."""
        return Verdict(self.t if t is None else t, kind, rule, say, player, to, cards, reaction_ms, voice, extra)


def step(state: Referee, ev: Event) -> tuple[Referee, list[Output]]:
    """Pure: the state after ``ev`` and what was ruled; ``state`` itself is never changed."""
    new = state.copy()
    return new, new.push(ev)


def advance(state: Referee, t: float) -> tuple[Referee, list[Output]]:
    """Pure: let time pass to ``t`` (live mode calls this between frames so races close promptly)."""
    new = state.copy()
    out = new.advance(t) if t > new.t else []
    new.t = max(new.t, t)
    return new, out


def finish(state: Referee) -> tuple[Referee, list[Output]]:
    """Pure: the end of the log; every open race and pending play is ruled."""
    new = state.copy()
    return new, new.finish()
