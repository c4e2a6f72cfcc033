"""Cards as the log writes them: ``10H``, ``JS``, ``AD``, ``RJ``, ``BJ``.

Cards stay plain strings everywhere (log, referee, vision) so that a log typed by hand and one made by the
camera are the same thing; the lookup tables below make rank and suit queries a dict access, which keeps
replay fast.
"""

from __future__ import annotations

RANKS: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS: tuple[str, ...] = ("S", "H", "D", "C")
JOKERS: tuple[str, ...] = ("RJ", "BJ")

#: rank string -> value, A=1 ... K=13 (RULES.md PJ-3: no wrap in values; wrapping is a per-game rule)
RANK_VALUE: dict[str, int] = {r: i + 1 for i, r in enumerate(RANKS)}
VALUE_RANK: dict[int, str] = {v: r for r, v in RANK_VALUE.items()}

RANK_NAMES: dict[str, str] = {
    "A": "ace", "2": "two", "3": "three", "4": "four", "5": "five", "6": "six", "7": "seven",
    "8": "eight", "9": "nine", "10": "ten", "J": "jack", "Q": "queen", "K": "king",
}
RANK_PLURALS: dict[str, str] = {r: (n + "es" if n == "six" else n + "s") for r, n in RANK_NAMES.items()}
SUIT_NAMES: dict[str, str] = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}

STANDARD_DECK: tuple[str, ...] = tuple(r + s for s in SUITS for r in RANKS)
DECK_WITH_JOKERS: tuple[str, ...] = STANDARD_DECK + JOKERS
ALL_CARDS: frozenset[str] = frozenset(DECK_WITH_JOKERS)

_RANK_OF: dict[str, str] = {c: c[:-1] for c in STANDARD_DECK}
_SUIT_OF: dict[str, str] = {c: c[-1] for c in STANDARD_DECK}
_VALUE_OF: dict[str, int] = {c: RANK_VALUE[c[:-1]] for c in STANDARD_DECK}


class CardError(ValueError):
    """A string that is not a card in RULES.md notation."""


def is_card(text: object) -> bool:
    """True for ``10H``, ``AS``, ``RJ`` ...; False for anything else (``1H``, ``T H``, ``10h``)."""
    return isinstance(text, str) and text in ALL_CARDS


def check_card(text: object) -> str:
    """Return ``text`` if it is a card, else raise :class:`CardError` saying why."""
    if not is_card(text):
        raise CardError(f"not a card: {text!r} (use rank A 2-10 J Q K + suit S H D C, or RJ/BJ)")
    return text  # type: ignore[return-value]


def is_joker(card: str) -> bool:
    return card in ("RJ", "BJ")


def rank(card: str) -> str | None:
    """Rank string (``"10"``, ``"J"``) or None for a joker."""
    return _RANK_OF.get(card)


def suit(card: str) -> str | None:
    """Suit letter or None for a joker."""
    return _SUIT_OF.get(card)


def value(card: str) -> int | None:
    """A=1 ... K=13, None for a joker."""
    return _VALUE_OF.get(card)


def adjacent(a: str, b: str, ace_wraps: bool = True) -> bool:
    """Ranks exactly one apart (Speed/Spit SP-2); with ``ace_wraps`` A touches both 2 and K."""
    va, vb = _VALUE_OF.get(a), _VALUE_OF.get(b)
    if va is None or vb is None:
        return False
    d = abs(va - vb)
    return d == 1 or (ace_wraps and d == 12)


def card_name(card: str) -> str:
    """Spoken name: ``"seven of hearts"``, ``"red joker"``."""
    if card == "RJ":
        return "red joker"
    if card == "BJ":
        return "black joker"
    return f"{RANK_NAMES[_RANK_OF[card]]} of {SUIT_NAMES[_SUIT_OF[card]]}"


def rank_name(rank_text: str, plural: bool = False) -> str:
    """Spoken rank: ``"seven"`` or ``"sevens"``."""
    return RANK_PLURALS[rank_text] if plural else RANK_NAMES[rank_text]


def count_cards(n: int) -> str:
    """``"1 card"`` / ``"7 cards"`` for spoken sentences."""
    return "1 card" if n == 1 else f"{n} cards"


#: the games played with the jokers too (PJ-1); every other game is played with the 52 cards
JOKER_GAMES: frozenset[str] = frozenset({"paijie"})


def game_cards(game: str) -> tuple[str, ...]:
    """The cards ``game`` is played with."""
    return DECK_WITH_JOKERS if game in JOKER_GAMES else STANDARD_DECK


def deck(jokers: bool = False) -> list[str]:
    """A fresh ordered deck (shuffle it with a seeded ``random.Random``; the engine has no clock)."""
    return list(DECK_WITH_JOKERS if jokers else STANDARD_DECK)


def deal_counts(n_cards: int, players: list[str], first: int) -> dict[str, int]:
    """Cards each player gets when ``n_cards`` are dealt one at a time starting with ``players[first]``
    (SN-1, SJ-1, CH-1: uneven counts are fine; the first players in dealing order get the extra card)."""
    n = len(players)
    base, extra = divmod(n_cards, n)
    counts = {}
    for i in range(n):
        p = players[(first + i) % n]
        counts[p] = base + (1 if i < extra else 0)
    return counts
