"""The game log's lines (``EVENTS.md``) as typed objects, and their strict parsing.

Parsing is pure (text in, objects out): the file reading and the append-only writing live in the app layer
(:mod:`tablecam.gamelog`). One :class:`Event` type carries every observation kind so that vision, referee,
replay and audit pass the same object around.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from typing import Any

from engine.cards import ALL_CARDS, RANK_VALUE

GAMES: tuple[str, ...] = ("snap", "slapjack", "speed", "spit", "cheat", "paijie")

#: observation type -> fields it must carry (EVENTS.md "Observations")
REQUIRED_FIELDS: dict[str, tuple[str, ...]] = {
    "card": ("zone", "card"),
    "facedown": ("zone", "count"),
    "reveal": ("zone", "cards"),
    "slap": ("zone", "player"),
    "call": ("player", "word"),
    "claim": ("player", "count", "rank"),
    "take": ("zone", "player"),
    "draw": ("player", "count"),
    "stuck": ("player",),
    "remove": ("zone", "card"),
    "turn": ("player",),
}
OBSERVATION_TYPES: frozenset[str] = frozenset(REQUIRED_FIELDS)
#: lines the referee and the assistant write (``hint``: tablecam live's hints); replay skips them, deriving its own
OUTPUT_TYPES: frozenset[str] = frozenset({"verdict", "anomaly", "hint"})

CALL_WORDS: frozenset[str] = frozenset({"snap", "snap pot", "doubt"})
CARD_SOURCES: frozenset[str] = frozenset({"side", "spit", "deal"})

_ZONE_RE = re.compile(r"^(center|pot|left|right|pile:[^:\s]+|col:[^:\s]+:[1-5]|row:[SHDC])$")

_ZONE_CACHE: set[str] = set()  # zone names already checked (a handful per game)

_KNOWN_FIELDS = frozenset(
    {"t", "type", "zone", "card", "player", "count", "cards", "word", "rank", "source", "t_err", "conf",
     "evidence", "misread"}
)


#: observation types no camera sees: said aloud at the table (or typed by a scorer)
HEARD_TYPES: tuple[str, ...] = ("call", "claim", "stuck", "draw", "turn")


class LogFormatError(ValueError):
    """A line that is not a valid EVENTS.md line; the message says which field and why."""


def is_zone(text: object) -> bool:
    """True for the EVENTS.md zone names (``center``, ``pile:B``, ``col:A:3``, ``row:H`` ...)."""
    return isinstance(text, str) and _ZONE_RE.match(text) is not None


@dataclass(slots=True)
class GameHeader:
    """The first line: which game, who sits where (clockwise), who dealt, which variants."""

    game: str
    players: tuple[str, ...]
    dealer: str | None = None
    variants: dict[str, Any] = field(default_factory=dict)
    t: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"t": self.t, "type": "game", "game": self.game, "players": list(self.players)}
        if self.dealer is not None:
            d["dealer"] = self.dealer
        d["variants"] = dict(self.variants)
        d.update(self.extra)
        return d

    @property
    def first_player_index(self) -> int:
        """Index of the player on the dealer's left (next clockwise); the first listed without a dealer."""
        if self.dealer is None or self.dealer not in self.players:
            return 0
        return (self.players.index(self.dealer) + 1) % len(self.players)


@dataclass(slots=True)
class Event:
    """One observation line. Fields a type does not use stay None; unknown fields are kept in ``extra``."""

    t: float
    type: str
    zone: str | None = None
    card: str | None = None
    player: str | None = None
    count: int | None = None
    cards: tuple[str, ...] | None = None
    word: str | None = None
    rank: str | None = None
    source: str | None = None
    t_err: float = 0.0
    conf: float | None = None
    evidence: Any = None
    extra: dict[str, Any] | None = None
    line: int | None = None
    #: on a ``card`` line: the card this zone's visible top was logged as before; the line says which card it is
    #: (a look-alike read wrong) and is no play (an extension of EVENTS.md: a camera reads again, more surely)
    misread: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The EVENTS.md object (no ``None`` fields), ready for ``json.dumps``."""
        d: dict[str, Any] = {"t": self.t, "type": self.type}
        for name in ("zone", "card", "player", "count", "word", "rank", "source", "conf", "evidence", "misread"):
            v = getattr(self, name)
            if v is not None:
                d[name] = v
        if self.cards is not None:
            d["cards"] = list(self.cards)
        if self.t_err:
            d["t_err"] = self.t_err
        if self.extra:
            d.update(self.extra)
        return d


def _time(obj: dict[str, Any]) -> float:
    t = obj.get("t")
    if isinstance(t, bool) or not isinstance(t, int | float) or not math.isfinite(t):
        raise LogFormatError(f"field 't' must be a finite number of seconds, got {t!r}")
    return float(t)


def parse_header(obj: dict[str, Any]) -> GameHeader:
    """Check and build the ``game`` line. Unknown games are refused here with the list of valid ones."""
    t = _time(obj) if "t" in obj else 0.0
    game = obj.get("game")
    if game not in GAMES:
        raise LogFormatError(f"unknown game {game!r}; valid games: {', '.join(GAMES)}")
    players = obj.get("players")
    if (not isinstance(players, list) or len(players) < 2
            or not all(isinstance(p, str) and p and not re.search(r"[\s:]", p) for p in players)):
        raise LogFormatError("field 'players' must list at least two names (no spaces or ':'), clockwise")
    if len(set(players)) != len(players):
        raise LogFormatError(f"field 'players' repeats a name: {players}")
    dealer = obj.get("dealer")
    if dealer is not None and dealer not in players:
        raise LogFormatError(f"dealer {dealer!r} is not one of the players {players}")
    variants = obj.get("variants") or {}
    if not isinstance(variants, dict):
        raise LogFormatError("field 'variants' must be an object of variant names to values")
    extra = {k: v for k, v in obj.items() if k not in ("t", "type", "game", "players", "dealer", "variants")}
    return GameHeader(game=game, players=tuple(players), dealer=dealer, variants=dict(variants), t=t,
                      extra=extra)


def _number(value: Any) -> bool:
    """int or float, not bool (``True`` is an int in Python but never a time or a count in a log)."""
    tp = type(value)
    return tp is float or tp is int


def parse_event(obj: dict[str, Any], line: int | None = None) -> Event:
    """Check one observation object against EVENTS.md and build an :class:`Event`.

    Only the *form* is checked here (types, card notation, zone names). Whether the event can happen in
    the game (a known player, a card not already seen) is the referee's business and becomes an anomaly.
    Written with plain ``dict.get`` and set lookups: ``tablecam replay`` parses every line through here.
    """
    get = obj.get
    kind = get("type")
    required = REQUIRED_FIELDS.get(kind) if isinstance(kind, str) else None
    if required is None:
        raise LogFormatError(f"unknown line type {kind!r}")
    t = get("t")
    if not _number(t) or not math.isfinite(t):
        raise LogFormatError(f"field 't' must be a finite number of seconds, got {t!r}")
    for name in required:
        if get(name) is None:
            raise LogFormatError(f"{kind} line needs field '{name}'")
    zone = get("zone")
    if zone is not None and (type(zone) is not str or zone not in _ZONE_CACHE):
        if not is_zone(zone):
            raise LogFormatError(f"unknown zone {zone!r}")
        if len(_ZONE_CACHE) < 4096:
            _ZONE_CACHE.add(zone)
    card = get("card")
    if card is not None and (type(card) is not str or card not in ALL_CARDS):
        raise LogFormatError(f"not a card: {card!r}")
    player = get("player")
    if player is not None and (type(player) is not str or not player):
        raise LogFormatError(f"field 'player' must be a name, got {player!r}")
    count = get("count")
    if count is not None and (type(count) is not int or count < 0):
        raise LogFormatError(f"field 'count' must be a whole number >= 0, got {count!r}")
    cards = get("cards")
    if cards is not None:
        if type(cards) is not list or not cards or not all(type(c) is str and c in ALL_CARDS for c in cards):
            raise LogFormatError(f"field 'cards' must be a non-empty list of cards, got {cards!r}")
        cards = tuple(cards)
    word = get("word")
    if word is not None:
        w = word.strip().lower() if type(word) is str else None
        if w not in CALL_WORDS:
            raise LogFormatError(f"unknown call word {word!r}; known: {', '.join(sorted(CALL_WORDS))}")
        word = w
    rank = get("rank")
    if rank is not None and (type(rank) is not str or rank not in RANK_VALUE):
        raise LogFormatError(f"not a rank: {rank!r} (A 2-10 J Q K)")
    source = get("source")
    if source is not None and (type(source) is not str or source not in CARD_SOURCES):
        raise LogFormatError(f"unknown card source {source!r}; known: side, spit, deal")
    t_err = get("t_err")
    if t_err is None:
        t_err = 0.0
    elif not _number(t_err) or not math.isfinite(t_err) or t_err < 0:
        raise LogFormatError(f"field 't_err' must be seconds >= 0, got {t_err!r}")
    conf = get("conf")
    if conf is not None and (not _number(conf) or not 0 <= conf <= 1):
        raise LogFormatError(f"field 'conf' must be between 0 and 1, got {conf!r}")
    misread = get("misread")
    if misread is not None:
        if kind != "card":
            raise LogFormatError(f"field 'misread' belongs on a card line, not a {kind} line")
        if type(misread) is not str or misread not in ALL_CARDS or misread == card:
            raise LogFormatError(f"field 'misread' must be the card the top was logged as (not {card}), "
                                 f"got {misread!r}")
    extra = None
    if len(obj) > 2 + len(required) and not obj.keys() <= _KNOWN_FIELDS:
        extra = {k: v for k, v in obj.items() if k not in _KNOWN_FIELDS}
    return Event(float(t), kind, zone, card, player, count, cards, word, rank, source, float(t_err),
                 None if conf is None else float(conf), get("evidence"), extra, line, misread)


def json_object(text: str) -> dict[str, Any]:
    """One line's JSON object. Raises :class:`LogFormatError` saying why it is not one."""
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as e:
        raise LogFormatError(f"not JSON ({e.msg} at column {e.colno})") from None
    if not isinstance(obj, dict):
        raise LogFormatError("a log line must be a JSON object")
    return obj


def parse_line(text: str, line: int | None = None) -> GameHeader | Event | None:
    """Parse one log line. Returns None for blank lines and for the referee's own output lines
    (``verdict``, ``anomaly``), which replay derives afresh. Raises :class:`LogFormatError`."""
    if not text.strip():
        return None
    obj = json_object(text)
    kind = obj.get("type")
    if kind == "game":
        return parse_header(obj)
    if kind in OUTPUT_TYPES:
        return None
    return parse_event(obj, line)


def dumps(obj: dict[str, Any]) -> str:
    """One compact JSON line (no newline), non-ASCII kept readable."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
