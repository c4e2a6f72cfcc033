"""牌接 Pai Jie Ver 1.1 (RULES.md PJ-1..PJ-17, seed 001): a Sevens variant with draw penalties.

The referee sees the rows and the lines; hands and the stock are counts (PJ-16), never identities.

Log lines and zones: suited cards go on ``row:<suit>``; jokers on ``center`` (a single joker then leaves
the game; the joker pair goes back into the stock). ``card`` (a card put down), ``draw`` (confirms a draw
the referee ordered), ``remove`` (a card leaves a row into a hand: the A effect, or a take-back),
``stuck`` (the player to move says every card they hold is blocked, PJ-7) and ``turn`` (optional marker).

Decisions where the spec is silent:
- Opening (PJ-2): who holds 7S cannot be seen, so whoever puts down the first card leads (a ``turn`` line
  before it fixes the leader). The opening is one card, ruled at once; it announces the start rank. A
  ``turn`` line must name the player to move (G-1).
- A play (PJ-15) ends at the first line that is not a ``card`` by the same player; the player's turn ends
  with it (the PJ-13 count is taken then, after penalty and J draws; an A card given later counts at the
  receiver's own turn end, as does a straight's draw for the next player).
- Penalties are computed against the table before the play; a straight's K block starts after the play,
  so cards of one play never lift their own block. The block also ends when its K leaves the table (the
  A effect: seed FAQ) or its suit is complete. Start-rank cards of a blocked suit are blocked too.
- A play that is neither a single, a multiple nor a straight (PJ-5, PJ-6; a joker with other cards,
  PJ-12) is an ``illegal_play``, like a play into a blocked suit (PJ-7): its cards go back to the hand
  (``remove`` lines for them are optional) and the same player plays again.
- Stuck (PJ-7): a ``stuck`` line is accepted only while some suit is blocked by another player. Blocked by
  several K players, the player draws up to the largest of their hands (at least 1). A full round of
  ``stuck`` lines with nothing drawn (the stock empty) is the draw of PJ-14.
- Draws: what the referee orders is applied to the counts at once, capped by the stock. A ``draw`` line
  must equal the sum of the oldest unconfirmed orders (penalty, then J, ...); a player's unconfirmed orders
  lapse when they start a play. Exchanges (PJ-5 swaps, PJ-8 Q) change no count and have no ``draw`` line;
  a swap puts back at most the cards left in hand. Q with an empty stock exchanges nothing; J takes what
  the stock has. A effects not carried out (no ``remove`` line) by the next play lapse.
- Joker pair (PJ-12): hands, stock and both jokers become the stock; then each active player, in seating
  order from the pair's player, sends one ``draw`` line whose ``count`` is their new hand size and whose
  optional ``card`` is the turned card (2-10 as printed, A/J/Q/K 10, joker 11). No play until all arrive.
  A player left with no card by it has emptied their hand and wins (PJ-14).
- PJ-12 elimination is observable when the first card a player with one card puts down is a joker.
- Eliminated (PJ-13): the hand is laid down as that player's ``card`` lines (``source: deal``; without
  it they are recognised once the elimination is ruled); they are not plays. Their K blocks end. The
  last player left wins (PJ-14).
- Impossible lines: a line that would complete a pending play is judged against the state after that
  completion; if it cannot happen, nothing changes (the play stays pending), except when the completion
  ends the game, which stands (as a race closed by time does in ``Referee.push``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar, Self

from engine.cards import (
    JOKERS,
    RANK_VALUE,
    STANDARD_DECK,
    SUIT_NAMES,
    SUITS,
    VALUE_RANK,
    card_name,
    count_cards,
    rank_name,
)
from engine.events import Event
from engine.referee import GameSetupError, Referee
from engine.verdicts import Anomaly, Impossible, Output, Verdict

HAND_SIZE = 6  # PJ-1
HAND_LIMIT = 10  # PJ-13

#: the table is one int: suit s holds bits SHIFT[s] + 1 (A) .. SHIFT[s] + 13 (K)
SHIFT: dict[str, int] = {s: 16 * i for i, s in enumerate(SUITS)}
ROW_BITS = 0xFFFF
FULL_ROW = sum(1 << v for v in range(1, 14))  # PJ-4: a complete suit's row

SUIT_OF: dict[str, str] = {c: c[-1] for c in STANDARD_DECK}
VALUE_OF: dict[str, int] = {c: RANK_VALUE[c[:-1]] for c in STANDARD_DECK}
BIT: dict[str, int] = {c: 1 << (SHIFT[c[-1]] + VALUE_OF[c]) for c in STANDARD_DECK}
#: card -> (its row's shift, its value, the bits below it): what ``gap`` needs in one lookup
GAP_INFO: dict[str, tuple[int, int, int]] = {c: (SHIFT[c[-1]], VALUE_OF[c], (1 << VALUE_OF[c]) - 1)
                                             for c in STANDARD_DECK}
ROW_OF: dict[str, str] = {c: "row:" + c[-1] for c in STANDARD_DECK}
JOKER_SET = frozenset(JOKERS)
FACES = frozenset("KQJA")  # first letters of the special cards (PJ-7..PJ-10)
PENALTY_RULE = {"single": "PJ-3", "multiple": "PJ-5", "straight": "PJ-6"}
THE_CARD: dict[str, str] = {c: "the " + card_name(c) for c in STANDARD_DECK + JOKERS}
#: PJ-12 joker pair: the turned card's value (2-10 as printed, A/J/Q/K = 10, joker = 11)
TURN_VALUE: dict[str, int] = {c: (v if 2 <= v <= 10 else 10) for c, v in VALUE_OF.items()}
TURN_VALUE.update({j: 11 for j in JOKERS})
#: PJ-2 opening order: 7S 7H 7D 7C, then 8, 6, 9, 5, 10, 4, J, 3, Q, 2, K, A
OPENING_ORDER: tuple[str, ...] = tuple(
    r + s for r in ("7", "8", "6", "9", "5", "10", "4", "J", "3", "Q", "2", "K", "A") for s in SUITS)


def row(table: int, s: str) -> int:
    """The ranks of suit ``s`` on the table, as bits 1 (A) .. 13 (K)."""
    return (table >> SHIFT[s]) & ROW_BITS


def gap(table: int, start: int, c: str) -> int:
    """PJ-3 penalty of one suited card: the smallest gap to a card of its suit on the table, or to the
    start rank while that suit's start-rank card is not on the table. Bit masks keep this loop-free."""
    shift, v, below = GAP_INFO[c]
    m = (table >> shift) & ROW_BITS
    best = 99 if (m >> start) & 1 else (v - start if v > start else start - v)
    low = m & below
    if low:
        g = v - low.bit_length()  # the nearest card below is at bit_length - 1
        if g < best:
            best = g
    high = m >> (v + 1)
    if high:
        g = (high & -high).bit_length() - 1  # lowest set bit above v
        if g < best:
            best = g
    return best


def classify(cards: tuple[str, ...], start: int) -> tuple[str, str | None]:
    """What a play is: ``single``, ``multiple`` (PJ-5), ``straight`` (PJ-6), ``joker``, ``jokers`` (the
    pair, PJ-12), or ``illegal`` with the rule it breaks."""
    n = len(cards)
    if "RJ" in cards or "BJ" in cards:
        if n == 1:
            return "joker", None
        return ("jokers", None) if n == 2 and "RJ" in cards and "BJ" in cards else ("illegal", "PJ-12")
    if n == 1:
        return "single", None
    values = [VALUE_OF[c] for c in cards]
    lo = min(values)
    hi = max(values)
    if lo == hi:
        return ("illegal", "PJ-5") if lo == start else ("multiple", None)
    s = cards[0][-1]
    if hi - lo == n - 1 and all(c[-1] == s for c in cards):  # one suit, so the values are distinct
        return ("illegal", "PJ-6") if lo <= start <= hi else ("straight", None)
    return "illegal", "PJ-6"


def play_gap(table: int, start: int, kind: str, cards: tuple[str, ...]) -> int:
    """Penalty of a legal play: a single's gap, a multiple's smallest gap, a straight's smaller end gap."""
    if kind == "straight":
        lo = hi = cards[0]
        for c in cards:
            if VALUE_OF[c] < VALUE_OF[lo]:
                lo = c
            elif VALUE_OF[c] > VALUE_OF[hi]:
                hi = c
        cards = (lo, hi)
    elif kind not in ("single", "multiple"):
        return 0
    best = 99
    for c in cards:
        g = gap(table, start, c)
        if g < best:
            best = g
    return best


def free_cards(table: int, complete: frozenset[str] | set[str]) -> int:
    """Table cards an A effect may take (PJ-10): all but those of complete suits (PJ-4)."""
    for s in complete:
        table &= ~(ROW_BITS << SHIFT[s])
    return table.bit_count()


def redeal_counts(stock: int, targets: list[int]) -> list[int]:
    """PJ-12 joker pair: each turns one card (their first), then all draw one at a time in turn up to
    their target; the stock running out stops it. ``targets`` 0 = no card was left to turn."""
    counts = [0] * len(targets)
    for i, target in enumerate(targets):
        if stock and target:
            counts[i] = 1
            stock -= 1
    more = True
    while stock and more:
        more = False
        for i, target in enumerate(targets):
            if stock and counts[i] < target:
                counts[i] += 1
                stock -= 1
                more = True
    return counts


def _suits(suits: list[str]) -> str:
    names = [SUIT_NAMES[s] for s in suits]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _pattern_name(kind: str, cards: tuple[str, ...]) -> str:
    if kind == "single":
        return THE_CARD[cards[0]]
    if kind == "multiple":
        word = {2: "a pair of", 3: "three", 4: "four"}[len(cards)]
        return f"{word} {rank_name(cards[0][:-1], plural=True)}"
    return f"the straight of {len(cards)}"


@dataclass
class PaiJieReferee(Referee):
    """Pai Jie state: counts of hands and stock, the rows as bits of one int, K blocks and what is owed."""

    start: int = 0  # PJ-2 start rank value; 0 before the opening
    cur: str | None = None  # whose turn it is (the leader once a turn line names one)
    active: tuple[str, ...] = ()
    nexts: dict[str, str] = field(default_factory=dict)  # next active player clockwise; replaced, never edited
    hands: dict[str, int] = field(default_factory=dict)
    stock: int = 0
    table: int = 0  # the rows (see SHIFT)
    gone: frozenset[str] = frozenset()  # jokers that left the game
    complete: frozenset[str] = frozenset()  # PJ-4
    blocks: dict[str, tuple[str, str]] = field(default_factory=dict)  # suit -> (K player, K card)
    owed: dict[str, tuple[int, ...]] = field(default_factory=dict)  # unconfirmed draw orders (PJ-16)
    play: tuple[str, ...] = ()  # the cards of the play in progress (PJ-15), still counted in the hand
    a_pending: int = 0  # PJ-10 removes still to come
    takeback: dict[str, str] = field(default_factory=dict)  # illegal play's card -> its player
    laydown: dict[str, int] = field(default_factory=dict)  # eliminated player -> cards still to lay
    redeal: tuple[str, ...] = ()  # PJ-12 joker pair: players whose draw line is still due
    redeal_stock: int = 0
    redeal_got: tuple[tuple[str, int, int | None], ...] = ()  # (player, count, target) per line so far
    stuck_run: int = 0  # consecutive stuck turns with nothing drawn (PJ-14 draw)

    game: ClassVar[str] = "paijie"
    VARIANTS: ClassVar[dict[str, tuple[object, ...]]] = {}  # RULES.md names no Pai Jie variants
    EVENT_TYPES: ClassVar[frozenset[str]] = frozenset({"card", "draw", "remove", "stuck", "turn"})
    ZONE_KINDS: ClassVar[frozenset[str]] = frozenset({"row", "center"})
    DECK_SIZE: ClassVar[int] = 54

    # ----------------------------------------------------------------- interface
    def setup(self) -> None:
        """PJ-1: six cards each, the rest is the stock."""
        n = len(self.players)
        if HAND_SIZE * n > self.DECK_SIZE:
            raise GameSetupError(f"Pai Jie deals {HAND_SIZE} cards each: at most 9 players, not {n}")
        self._seat(self.players)
        self.hands = {p: HAND_SIZE for p in self.players}
        self.stock = self.DECK_SIZE - HAND_SIZE * n

    def copy(self) -> Self:
        """Dicts copied, immutable values shared: ``step`` and the play-completion trial use it."""
        new = object.__new__(type(self))
        d = self.__dict__.copy()
        d["hands"] = self.hands.copy()
        d["blocks"] = self.blocks.copy()
        d["owed"] = self.owed.copy()
        d["takeback"] = self.takeback.copy()
        d["laydown"] = self.laydown.copy()
        new.__dict__ = d
        return new

    def observable_total(self) -> int | None:
        """Hands, hands still to be laid down, stock, rows and departed jokers: always 54 (PJ-16)."""
        return (sum(self.hands.values()) + sum(self.laydown.values()) + self.stock + len(self.gone)
                + self.table.bit_count())

    def row(self, s: str) -> int:
        """Suit ``s``'s ranks on the table (bit v for rank v)."""
        return row(self.table, s)

    def apply(self, ev: Event) -> list[Output]:
        """Rule on one line. A line that completes a pending play (PJ-15) is judged on a trial copy, except
        the usual ones (the next player's card or turn line, a single card's draw), checked beforehand."""
        kind = ev.type
        if kind == "card":
            p = ev.player or self.cur
            if p is None:
                raise Impossible("no player put this card down and no turn has begun", "PJ-2")
            c: str = ev.card  # type: ignore[assignment]  # a card line always has one
            play = self.play
            # the usual card: suited, on its row, not down yet, no re-deal due
            if (ROW_OF.get(c) == ev.zone and ev.source is None and not self.table & BIT[c] and c not in play
                    and self.start and not self.redeal):
                if p == self.cur:
                    return self._add(p, c)  # a new play, or PJ-15: more of the same play
                if play:
                    # the next player's first card after a legal play: the card is possible, and nothing
                    # in the completion can make it impossible
                    judged, rule = self._judge()
                    if rule is None and judged != "jokers" and p == self.nexts.get(self.cur) and self.hands[p]:
                        out = self._complete(judged, rule)
                        if self.outcome is not None:
                            out.append(self._over(ev))
                            return out
                        out += self._add(p, c)
                        return out
            if not play or (p == self.cur and ev.source is None):
                self._card_check(ev)
                return self._card_move(ev, p)
        elif not self.play:
            return self._handle(ev)
        elif kind == "draw" and ev.player == self.cur and len(self.play) == 1 and self.play[0] in SUIT_OF:
            # the usual draw: a single card's player draws its penalty (and a J's card); when the count is
            # what the completion will order, nothing can make the line impossible
            judged, rule = self._judge()
            if rule is None:
                c = self.play[0]
                pen = gap(self.table, self.start, c)
                got = pen if pen <= self.stock else self.stock
                jack = 1 if c[0] == "J" and self.stock > got else 0
                if ev.count == got + jack or (ev.count == got and got):
                    out = self._complete(judged, rule, pen)
                    if self.outcome is not None:
                        out.append(self._over(ev))
                        return out
                    out += self._draw_line(ev)
                    return out
        elif kind == "turn":
            judged, rule = self._judge()
            if rule is None and judged != "jokers" and ev.player == self.nexts.get(self.cur):
                out = self._complete(judged, rule)  # then the turn line itself is exactly what is due
                if self.outcome is not None:
                    out.append(self._over(ev))
                return out
        # PJ-15: anyone else acting completes the play; judge the line against the state after it
        trial = self.copy()
        out = trial._complete(*trial._judge())
        if trial.outcome is not None:
            self.__dict__ = trial.__dict__
            out.append(self._over(ev))
            return out
        out += trial._handle(ev)  # raises Impossible with self untouched
        self.__dict__ = trial.__dict__
        return out

    def finish(self) -> list[Output]:
        """PJ-15: the end of the log completes the play in progress."""
        if self.play and self.outcome is None:
            return self._complete(*self._judge())
        return []

    # ----------------------------------------------------------------- lines
    def _handle(self, ev: Event) -> list[Output]:
        kind = ev.type
        if kind == "card":
            p = ev.player or self.cur
            if p is None:
                raise Impossible("no player put this card down and no turn has begun", "PJ-2")
            self._card_check(ev)
            return self._card_move(ev, p)
        if not self.start and kind != "turn":
            raise Impossible("no card has been played yet: the game opens with a card (PJ-2)", "PJ-2")
        if kind == "draw":
            return self._draw_line(ev)
        if kind == "remove":
            return self._remove(ev)
        if kind == "stuck":
            return self._stuck(ev)
        return self._turn(ev)

    def _card_check(self, ev: Event) -> None:
        """What makes a card impossible whatever the turn: wrong zone, already down, gone (one deck)."""
        c = ev.card
        assert c is not None
        if c in JOKER_SET:
            if ev.zone != "center":
                raise Impossible(f"a joker is put in the center, not on {ev.zone}", "PJ-12")
            if c in self.gone:
                raise Impossible(f"the {card_name(c)} has already left the game", "PJ-12")
        else:
            if ev.zone != ROW_OF[c]:
                raise Impossible(f"the {card_name(c)} belongs on {ROW_OF[c]}, not {ev.zone}", "PJ-3")
            if self.table & BIT[c]:
                raise Impossible(f"the {card_name(c)} is already on the table")
        if c in self.play:
            raise Impossible(f"the {card_name(c)} was already put down in this play")

    def _card_move(self, ev: Event, p: str) -> list[Output]:
        """A possible card by ``p``: a lay-down (PJ-13), the opening (PJ-2) or part of ``p``'s play."""
        c = ev.card
        assert c is not None
        if ev.source is not None and (ev.source != "deal" or p not in self.laydown):
            raise Impossible(f"a '{ev.source}' card here would be an eliminated player laying down their "
                             "hand, and none is due", "PJ-13")
        if p in self.laydown:
            return self._lay(p, c)
        if p not in self.nexts:
            raise Impossible(f"{p} is out of the game", "PJ-13")
        if self.redeal:
            raise Impossible(f"the joker-pair re-deal is not finished: {self.redeal[0]} draws next", "PJ-12")
        if not self.start:
            return self._open(p, c)
        if p != self.cur:
            raise Impossible(f"out of turn: it is {self.cur}'s turn", "G-1")
        return self._add(p, c)

    def _add(self, p: str, c: str) -> list[Output]:
        """``p``, the player to move, puts ``c`` down: the start of a play or more of it (PJ-15)."""
        play = self.play
        if len(play) >= self.hands[p]:
            raise Impossible(f"{p} has only {count_cards(self.hands[p])}", "PJ-16")
        if c in self.takeback:
            del self.takeback[c]
        if play:
            self.play = play + (c,)
            return []
        if c in JOKER_SET and self.hands[p] == 1:
            return self._joker_only(p, c)
        self.a_pending = 0  # effects of the last play not carried out by now lapse
        if p in self.owed:
            del self.owed[p]
        self.play = (c,)
        return []

    def _open(self, p: str, c: str) -> list[Output]:
        """PJ-2: the first card sets the start rank; it is a whole play by itself."""
        if c in JOKER_SET:
            raise Impossible("the game opens with a suited card, never a joker", "PJ-2")
        if self.cur is not None and p != self.cur:
            raise Impossible(f"out of turn: {self.cur} leads", "G-1")
        self.start = VALUE_OF[c]
        self.cur = p
        self.play = (c,)
        out: list[Output] = [self._v(
            "effect", "PJ-2", f"{p} opens with the {card_name(c)}: {rank_name(c[:-1], plural=True)} are "
            "the start rank.", p, None, {"card": c})]
        out += self._complete(*self._judge())
        return out

    def _lay(self, p: str, c: str) -> list[Output]:
        """PJ-13: an eliminated player's hand goes onto the table; not a play, no penalty, no effect."""
        left = self.laydown[p] - 1
        if left:
            self.laydown[p] = left
        else:
            del self.laydown[p]
        if c in JOKER_SET:
            self.gone |= {c}
            return []
        self.table |= BIT[c]
        return self._completed((SUIT_OF[c],))

    def _draw_line(self, ev: Event) -> list[Output]:
        """PJ-16: a draw confirms the oldest orders; anything else differs from what was owed."""
        p: str = ev.player  # type: ignore[assignment]  # a draw line always has both
        n: int = ev.count  # type: ignore[assignment]
        if self.redeal:
            return self._redeal_line(p, n, ev.card)
        chunks = self.owed.get(p, ())
        if n == 0 and not chunks:
            return []
        acc = 0
        for i, x in enumerate(chunks):
            acc += x
            if acc == n:
                if i + 1 < len(chunks):
                    self.owed[p] = chunks[i + 1:]
                else:
                    del self.owed[p]
                return []
        raise Impossible(f"{p} draws {n} but was told to draw {sum(chunks)}", "PJ-16")

    def _redeal_line(self, p: str, n: int, turned: str | None) -> list[Output]:
        """PJ-12 joker pair: each player's new hand size, in seating order from the pair's player."""
        due = self.redeal[0]
        if p != due:
            raise Impossible(f"the joker-pair re-deal goes in turn: {due} draws next", "PJ-12")
        if n > 11:
            raise Impossible("no hand is dealt more than 11 cards by the joker pair", "PJ-12")
        if n > self.stock:
            raise Impossible(f"the stock has only {count_cards(self.stock)}", "PJ-12")
        target: int | None = None
        if turned is not None:
            if turned in self.gone or self.table & BIT.get(turned, 0):
                raise Impossible(f"the {card_name(turned)} is not in the stock", "PJ-12")
            target = TURN_VALUE[turned]
            if not 1 <= n <= target:
                raise Impossible(f"turning the {card_name(turned)}, {p} draws up to {target}, not {n}",
                                 "PJ-12")
        got = self.redeal_got + ((p, n, target),)
        if len(self.redeal) == 1:
            if all(t is not None or c == 0 for _q, c, t in got):
                if [c for _q, c, _t in got] != redeal_counts(self.redeal_stock, [t or 0 for _q, _c, t in got]):
                    raise Impossible("these counts do not follow the joker-pair deal", "PJ-12")
            elif self.stock > n and any(t is not None and c < t for _q, c, t in got):
                raise Impossible("a hand is short of its turned value while the stock has cards", "PJ-12")
        self.stock -= n
        self.hands[p] = n
        self.redeal = self.redeal[1:]
        self.redeal_got = got
        if self.redeal:
            return []
        for q, c, _t in got:  # seating order from the pair's player
            if not c:
                return self._win(q, f"{q} has no cards after the deal and wins!")
        return []

    def _remove(self, ev: Event) -> list[Output]:
        """A card leaves a row: a take-back of an illegal play, or the A effect (PJ-10)."""
        c = ev.card
        assert c is not None
        r = ev.player
        if ev.zone != ROW_OF.get(c, "center"):
            raise Impossible(f"the {card_name(c)} cannot be on {ev.zone}", "PJ-3")
        if c in self.takeback:
            if r is not None and r != self.takeback[c]:
                raise Impossible(f"the {card_name(c)} goes back to {self.takeback[c]}, not {r}", "PJ-15")
            del self.takeback[c]
            return []
        if c in JOKER_SET:
            raise Impossible(f"the {card_name(c)} is not on the table", "PJ-12")
        if not self.a_pending:
            raise Impossible(f"no ace effect lets the {card_name(c)} leave the table", "PJ-10")
        if not self.table & BIT[c]:
            raise Impossible(f"the {card_name(c)} is not on the table", "PJ-10")
        s = SUIT_OF[c]
        if s in self.complete:
            raise Impossible(f"{SUIT_NAMES[s]} are complete and no longer affected", "PJ-4")
        if r is None or r not in self.nexts:
            raise Impossible("the ace effect gives the card to a player in the game; name who", "PJ-10")
        self.table &= ~BIT[c]
        self.hands[r] += 1
        self.a_pending -= 1
        b = self.blocks.get(s)
        if b is not None and b[1] == c:
            del self.blocks[s]
            return [self._v("effect", "PJ-7", f"The king is gone: {SUIT_NAMES[s]} are open again.", b[0], None,
                            {"suits": [s]})]
        return []

    def _stuck(self, ev: Event) -> list[Output]:
        """PJ-7: a player whose cards are all blocked draws up to the K player's hand, at least 1."""
        p: str = ev.player  # type: ignore[assignment]  # a stuck line always names one
        if self.redeal:
            raise Impossible(f"the joker-pair re-deal is not finished: {self.redeal[0]} draws next", "PJ-12")
        if p != self.cur:
            raise Impossible(f"out of turn: it is {self.cur}'s turn", "G-1")
        hands = self.hands
        k = ""  # the blocking K player with the most cards (a tie only changes whose name is said)
        for b, _card in self.blocks.values():
            if b != p and (not k or hands[b] > hands[k] or (hands[b] == hands[k] and b < k)):
                k = b
        if not k:
            raise Impossible(f"nothing is blocked for {p}: any card can be played (PJ-3)", "PJ-7")
        need = max(1, hands[k] - hands[p])
        ordered = self._order_draw(
            p, need, "PJ-7", f"{p} cannot play: draw {need} to match {k}'s {count_cards(self.hands[k])}.")
        out: list[Output] = [ordered]
        self.stuck_run = 0 if ordered.cards else self.stuck_run + 1
        out += self._end_turn(p)
        if self.outcome is None and self.stuck_run >= len(self.active):
            out.append(self._v("draw", "PJ-14", "No one can play: the game is a draw."))
            self.end(None, "no player can play", "PJ-14", self.t)
        return out

    def _turn(self, ev: Event) -> list[Output]:
        p = ev.player
        assert p is not None
        if not self.start:
            if self.cur is not None and p != self.cur:
                raise Impossible(f"{self.cur} leads", "PJ-2")
            self.cur = p
            return []
        if self.redeal:
            raise Impossible(f"the joker-pair re-deal is not finished: {self.redeal[0]} draws next", "PJ-12")
        if p != self.cur:
            raise Impossible(f"out of turn: it is {self.cur}'s turn", "G-1")
        return []

    # ----------------------------------------------------------------- ruling a play
    def _judge(self) -> tuple[str, str | None]:
        """The play in progress: its kind, and the rule it breaks (None when legal)."""
        cards = self.play
        if len(cards) == 1 and cards[0] in SUIT_OF:
            kind, rule = "single", None
        else:
            kind, rule = classify(cards, self.start)
        if rule is None and self.blocks:
            p = self.cur
            for c in cards:
                b = self.blocks.get(SUIT_OF.get(c, ""))
                if b is not None and b[0] != p:
                    return kind, "PJ-7"
        return kind, rule

    def _complete(self, kind: str, rule: str | None, pen: int = -1) -> list[Output]:
        """PJ-15: rule the play in progress: penalty, effects in PJ-11 order, end of turn. ``pen``: a
        single card's penalty when the caller has it already."""
        p = self.cur
        cards = self.play
        self.play = ()
        if rule is not None:
            return [self._illegal(p, cards, rule)]
        self.stuck_run = 0
        if self.takeback:
            self.takeback = {}
        if kind == "single":
            c = cards[0]
            self.hands[p] -= 1
            if pen < 0:
                pen = gap(self.table, self.start, c)
            self.table |= BIT[c]
            out: list[Output] = []
            if pen:
                out.append(self._order_draw(p, pen, "PJ-3", f"{p} draws {pen} for {THE_CARD[c]}."))
            s = c[-1]
            if self.blocks and s in self.blocks:
                out += self._lift(p, (s,))
            if (self.table >> SHIFT[s]) & ROW_BITS == FULL_ROW:
                out += self._completed((s,))
            if c[0] in FACES:
                out += self._specials(p, cards)
        else:
            out = self._complete_more(p, kind, cards)
        if 0 < self.hands[p] <= HAND_LIMIT and not self.redeal:  # the usual end of a turn
            self.cur = self.nexts[p]
            return out
        out += self._end_turn(p)
        return out

    def _complete_more(self, p: str, kind: str, cards: tuple[str, ...]) -> list[Output]:
        """The plays of more than one card, and jokers (PJ-5, PJ-6, PJ-12)."""
        n = len(cards)
        self.hands[p] -= n
        out: list[Output] = []
        if kind == "joker":
            c = cards[0]
            self.gone |= {c}
            say = ("Black joker: all hands are shuffled together and dealt back." if c == "BJ" else
                   "Red joker: all hands and the stock are shuffled together and dealt back.")
            out.append(self._v("effect", "PJ-12", say, p, None, {"card": c}))
            return out
        if kind == "jokers":
            self.stock += sum(self.hands[q] for q in self.active) + 2
            i = self.players.index(p)
            order = [self.players[(i + k) % len(self.players)] for k in range(len(self.players))]
            self.redeal = tuple(q for q in order if q in self.nexts)
            for q in self.redeal:
                self.hands[q] = 0
            self.owed = {}
            self.redeal_stock = self.stock
            self.redeal_got = ()
            out.append(self._v("effect", "PJ-12", "Joker pair! Everything goes into the stock; from "
                               f"{p}, each turns a card and draws up to its value.", p))
            return out
        pen = play_gap(self.table, self.start, kind, cards)
        table = self.table
        for c in cards:
            table |= BIT[c]
        self.table = table
        name = _pattern_name(kind, cards)
        if pen:
            out.append(self._order_draw(p, pen, PENALTY_RULE[kind], f"{p} draws {pen} for {name}."))
        suits = (cards[0][-1],) if kind == "straight" else tuple(c[-1] for c in cards)
        if self.blocks:
            out += self._lift(p, suits)
        for s in suits:
            if (table >> SHIFT[s]) & ROW_BITS == FULL_ROW:
                out += self._completed((s,))
        if kind == "multiple":
            swap = min(n - 1, self.hands[p])
            out.append(self._v("effect", "PJ-5", f"{name.capitalize()}: {p} swaps {count_cards(swap)} with the stock.",
                               p, swap))
        else:
            nxt = self.nexts[p]
            out.append(self._order_draw(nxt, n - 1, "PJ-6", f"Straight of {n}: {nxt} draws {n - 1}."))
        out += self._specials(p, cards)
        return out

    def _lift(self, p: str, suits: tuple[str, ...]) -> list[Output]:
        """PJ-7: the K player played the suit again: the block ends."""
        lifted = [s for s in suits if self.blocks.get(s, ("",))[0] == p]
        if not lifted:
            return []
        for s in lifted:
            del self.blocks[s]
        return [self._v("effect", "PJ-7", f"{_suits(lifted).capitalize()} are open again.", p, None,
                        {"suits": lifted})]

    def _illegal(self, p: str, cards: tuple[str, ...], rule: str) -> Verdict:
        """PJ-7 blocked suit, PJ-5/PJ-6 no pattern, PJ-12 joker mixed in: the cards go back to the hand."""
        for c in cards:
            self.takeback[c] = p
        back = f"{p}, take {'it' if len(cards) == 1 else 'them'} back."
        if rule == "PJ-7":
            s, b = next((SUIT_OF[c], self.blocks[SUIT_OF[c]]) for c in cards
                        if c in SUIT_OF and self.blocks.get(SUIT_OF[c], (p,))[0] != p)
            say = f"Illegal: {SUIT_NAMES[s]} are blocked by {b[0]}'s king. {back}"
        elif rule == "PJ-12":
            say = f"Illegal: a joker is played alone or as the joker pair. {back}"
        elif any(VALUE_OF.get(c) == self.start for c in cards):
            say = f"Illegal: {rank_name(VALUE_RANK[self.start], plural=True)} are the start rank and go alone. {back}"
        else:
            say = f"Illegal: that is not a single, a set of one rank or a straight of one suit. {back}"
        return self._v("illegal_play", rule, say, p, len(cards), {"played": list(cards)})

    def _specials(self, p: str, cards: tuple[str, ...]) -> list[Output]:
        """PJ-11: card effects after the pattern's, K then Q then J then A, once per card."""
        out: list[Output] = []
        ks: list[str] = []
        q = j = a = 0
        for c in cards:
            f = c[0]
            if f == "K":
                if c[-1] not in self.complete:
                    ks.append(c[-1])
            elif f == "Q":
                q += 1
            elif f == "J":
                j += 1
            elif f == "A":
                a += 1
        if ks:
            for s in ks:
                self.blocks[s] = (p, "K" + s)
            out.append(self._v("effect", "PJ-7", f"King: {_suits(ks)} are blocked until {p} plays "
                               f"{'that suit' if len(ks) == 1 else 'those suits'} again.", p, None, {"suits": ks}))
        if q:
            if not self.stock:
                say = "Queen: the stock is empty, nothing to exchange."
            elif q == 1:
                say = f"Queen: {p} takes the top card of the stock, then puts one back on top."
            else:
                say = f"Queens: {p} takes the top card of the stock and puts one back, {q} times."
            out.append(self._v("effect", "PJ-8", say, p, q if self.stock else 0))
        if j:
            out.append(self._order_draw(p, j, "PJ-9", (f"Jack: {p} takes any card from the stock, then "
                                        "shuffles it." if j == 1 else f"Jacks: {p} takes any {j} cards from "
                                        "the stock, then shuffles it."), "effect"))
        if a:
            free = free_cards(self.table, self.complete)
            self.a_pending = min(a, free)
            if not free:
                say = "Ace: no card on the table can be taken."
            elif a == 1:
                say = f"Ace: {p} picks a card on the table and who takes it."
            else:
                say = f"Aces: {p} picks {a} cards on the table and who takes each."
            out.append(self._v("effect", "PJ-10", say, p, self.a_pending))
        return out

    def _completed(self, suits: tuple[str, ...]) -> list[Output]:
        """PJ-4: a suit with all 13 cards down is complete; its block, if any, is gone."""
        out: list[Output] = []
        for s in suits:
            if (self.table >> SHIFT[s]) & ROW_BITS == FULL_ROW and s not in self.complete:
                self.complete |= {s}
                self.blocks.pop(s, None)
                out.append(self._v("effect", "PJ-4", f"{SUIT_NAMES[s].capitalize()} are complete.", None, None,
                                   {"suits": [s]}))
        return out

    def _order_draw(self, p: str, n: int, rule: str, say: str, kind: str = "draw_penalty") -> Verdict:
        """Order ``p`` to draw ``n`` (PJ-16; ``say`` names n): the count moves at once, capped by the stock."""
        stock = self.stock
        got = n if n <= stock else stock
        if got:
            self.stock = stock - got
            self.hands[p] += got
            owed = self.owed
            owed[p] = owed[p] + (got,) if p in owed else (got,)
            if got == n:
                return Verdict(self.t, kind, rule, say, p, None, got, None, True, {})
        # the stock ran out: say what was owed and what there is
        say = say[:-1] + (", but the stock is empty." if not got else f", but the stock has only {count_cards(got)}.")
        return Verdict(self.t, kind, rule, say, p, None, got, None, True, {"owed": n})

    def _end_turn(self, p: str) -> list[Output]:
        """End of ``p``'s turn: PJ-14 empty hand wins, PJ-13 more than 10 eliminates; then the next player."""
        nxt = self.nexts[p]
        if not self.redeal:
            n = self.hands[p]
            if not n:
                return self._win(p, f"{p} has no cards left and wins!")
            if n > HAND_LIMIT:
                out = self._eliminate(p, "PJ-13", f"{p} has {n} cards: eliminated. Lay your hand on the table.", n)
                if self.outcome is None:
                    self.cur = nxt
                return out
        self.cur = nxt
        return []

    def _joker_only(self, p: str, c: str) -> list[Output]:
        """PJ-12: a player whose turn comes with only a joker is eliminated; the joker leaves the game."""
        self.hands[p] = 0
        self.gone |= {c}
        nxt = self.nexts[p]
        out = self._eliminate(p, "PJ-12", f"{p} holds only the {card_name(c)}: eliminated.", 1)
        if self.outcome is None:
            self.cur = nxt
        return out

    def _eliminate(self, p: str, rule: str, say: str, n: int) -> list[Output]:
        """Out of the game: the hand is laid on the table (PJ-13), the K blocks end (PJ-7)."""
        if self.hands[p]:
            self.laydown[p] = self.hands[p]
            self.hands[p] = 0
        self._seat(tuple(q for q in self.active if q != p))
        self.stuck_run = 0
        out: list[Output] = [self._v("eliminated", rule, say, p, n)]
        lifted = [s for s, b in self.blocks.items() if b[0] == p]
        if lifted:
            for s in lifted:
                del self.blocks[s]
            out.append(self._v("effect", "PJ-7", f"{p}'s king is gone: {_suits(lifted)} are open again.", p, None,
                               {"suits": lifted}))
        if len(self.active) == 1:
            w = self.active[0]
            out += self._win(w, f"{w} is the last player left and wins!")
        return out

    def _win(self, p: str, say: str) -> list[Output]:
        self.end(p, say, "PJ-14", self.t)
        return [self._v("win", "PJ-14", say, p)]

    def _seat(self, active: tuple[str, ...]) -> None:
        """Who is still in (seating order) and who plays after whom."""
        self.active = active
        n = len(active)
        self.nexts = {p: active[(i + 1) % n] for i, p in enumerate(active)}

    def _over(self, ev: Event) -> Anomaly:
        return Anomaly(ev.t, "the game is over; nothing more can happen", ev.to_dict(), None, ev.line)

    def _v(self, kind: str, rule: str, say: str, player: str | None = None, cards: int | None = None,
           extra: dict[str, object] | None = None) -> Verdict:
        """A spoken verdict at the current time (``Referee.verdict`` without the keyword sorting)."""
        return Verdict(self.t, kind, rule, say, player, None, cards, None, True, extra if extra is not None else {})


REFEREE = PaiJieReferee
