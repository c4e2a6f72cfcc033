"""Speed played by two random players, as a perfect camera would log it (RULES.md SP-1..SP-10).

Players act on their own clocks (a card every 0.4-1.5 s) and see a top only about 0.15 s after it lands, so
now and then one lands a card meant for a top the other has just covered: a lost race, judged against the
new top (SP-3). They also misplay at a low rate (SP-8), sometimes hit a pile inside the tie window (SP-9),
say "stuck" when they cannot play (SP-5) and, near the end, can go out together (a draw). Events are made in
time order from a heap of scheduled actions; two cards on one pile are either inside the tie window on
purpose or at least the window + 10 ms apart, so the referee's ruling never depends on float noise.
"""

from __future__ import annotations

import heapq
import random
from typing import Any

from engine.cards import RANK_VALUE, deck
from engine.events import Event, GameHeader
from engine.games.speed import DEALS, HAND_SIZE, ZONES, SpeedReferee
from engine.referee import resolve_variants

PERCEIVE_S = 0.15  # a top younger than this is not seen yet (the player still aims at the old one)
SPACING_MARGIN_S = 0.010  # two cards on one pile, unless a deliberate tie, are the window + this apart
TIE_SHARE = 0.6  # a deliberate tie lands within this share of the tie window
ERROR_RATE = 0.03  # a deliberate illegal play
TIE_RATE = 0.03  # a legal play that the other player ties with
TIE_TAKEBACK = 0.3  # after a tie, the player whose card is on top takes it back
DRAW_RATE = 0.5  # both on their last card: the other goes out inside the window
SOURCE_RATE = 0.7  # flips logged with source "side" (else bare, SP-10)
MAX_EVENTS = 100_000  # safety net only; games end long before
#: both players stuck this many times in a row, with no card played between, is a dead deal: every card the flips
#: can bring (the side stacks are rebuilt from the same cards, SP-6) is far from every card in both full hands, and
#: the stocks are never drawn. The rules have no way out; players would shuffle and deal again, and so does the
#: simulator (seed 371301: hands of 8s to jacks, flips of aces to fives and kings, stuck 1000 times)
DEAD_FLIPS = 60  # a full round of every card of the deck through the centre, and more


def _r(t: float) -> float:
    return round(t, 4)


class _Game:
    """Full-knowledge state of one game: hands, stocks, side stacks, piles, the action heap."""

    def __init__(self, header: GameHeader, rng: random.Random) -> None:
        v = resolve_variants("speed", SpeedReferee.VARIANTS, header.variants)
        self.rng = rng
        self.wraps: bool = v["ace_wraps"]
        window = float(v["tie_window_ms"]) / 1000.0
        self.spacing = window + SPACING_MARGIN_S
        self.tie_max = window * TIE_SHARE
        self.players: tuple[str, ...] = tuple(header.players)
        per, side_n = DEALS[v["deal"]]
        cards = deck()
        rng.shuffle(cards)
        self.hand: dict[str, list[str]] = {}
        self.stock: dict[str, list[str]] = {}
        for i, p in enumerate(self.players):
            mine = cards[i * per:(i + 1) * per]
            self.hand[p] = mine[:HAND_SIZE]
            self.stock[p] = mine[HAND_SIZE:]
        rest = cards[2 * per:]
        self.starters = rest[:2]
        self.side = {"left": rest[2:2 + side_n], "right": rest[2 + side_n:]}
        assert len(self.side["right"]) == side_n
        self.pile: dict[str, list[str]] = {z: [] for z in ZONES}
        self.prev_top: dict[str, str | None] = {z: None for z in ZONES}
        self.changed: dict[str, float] = {z: -1.0 for z in ZONES}
        self.landed: dict[str, float] = {z: -1.0 for z in ZONES}
        self.claims: dict[str, float] = {}
        self.busy: set[str] = set()  # waiting to take an illegal or tied card back
        self.gen: dict[str, int] = {p: 0 for p in self.players}
        self.heap: list[tuple[float, int, str, Any]] = []
        self.n = 0
        self.events: list[Event] = []
        self.over = False
        self.flips_since_play = 0  # both-stuck flips since a card was last played (DEAD_FLIPS)

    # ------------------------------------------------------------------ plumbing
    def push(self, t: float, kind: str, data: Any) -> None:
        self.n += 1
        heapq.heappush(self.heap, (_r(t), self.n, kind, data))

    def act_at(self, p: str, t: float) -> None:
        """(Re)schedule ``p``'s next action; any earlier scheduled one is dropped."""
        self.gen[p] += 1
        self.push(t, "act", (p, self.gen[p]))

    def emit(self, t: float, typ: str, **kw: Any) -> None:
        self.events.append(Event(t=_r(t), type=typ, **kw))

    def adj(self, a: str, b: str) -> bool:
        d = abs(RANK_VALUE[a[:-1]] - RANK_VALUE[b[:-1]])
        return d == 1 or (self.wraps and d == 12)

    def top(self, z: str) -> str:
        return self.pile[z][-1]

    def other(self, p: str) -> str:
        return self.players[1] if p == self.players[0] else self.players[0]

    def refill(self, p: str) -> None:
        """SP-4: back to five from the stock (done when the player next looks at the hand)."""
        hand, stock = self.hand[p], self.stock[p]
        while len(hand) < HAND_SIZE and stock:
            hand.append(stock.pop())

    def moves(self, p: str, tops: dict[str, str]) -> list[tuple[str, str]]:
        return [(c, z) for c in self.hand[p] for z in ZONES if self.adj(c, tops[z])]

    def held(self, p: str) -> int:
        return len(self.hand[p]) + len(self.stock[p])

    # ------------------------------------------------------------------ game
    def run(self) -> list[Event]:
        self.flip_both(self.rng.uniform(0.3, 0.8), starters=True)
        while self.heap and not self.over:
            t, _n, kind, data = heapq.heappop(self.heap)
            if kind == "act":
                p, g = data
                if g == self.gen[p]:
                    self.act(p, t)
            elif kind == "remove":
                self.take_back(t, *data)
            elif kind == "flip":
                self.flip(t, *data)
            elif kind == "tie":
                self.tie_lands(t, *data)
            if len(self.events) > MAX_EVENTS:
                raise RuntimeError("speed simulation did not converge")
        return self.events

    def flip_both(self, t: float, starters: bool) -> None:
        """SP-5/SP-10: both turn a card at once (the starters, or one from each side stack)."""
        order = list(ZONES)
        self.rng.shuffle(order)
        t1 = t + self.rng.uniform(0.0, 0.04)
        for z, tz in zip(order, (t, t1), strict=True):
            c = self.starters.pop() if starters else self.side[z].pop()
            self.push(tz, "flip", (z, c))
        for p in self.players:
            self.act_at(p, t1 + self.rng.uniform(0.15, 0.7))

    def flip(self, t: float, z: str, c: str) -> None:
        kw: dict[str, Any] = {"source": "side"} if self.rng.random() < SOURCE_RATE else {}
        self.emit(t, "card", zone=z, card=c, **kw)
        self.set_top(z, c, t)

    def set_top(self, z: str, c: str, t: float) -> None:
        self.prev_top[z] = self.pile[z][-1] if self.pile[z] else None
        self.pile[z].append(c)
        self.changed[z] = t
        self.landed[z] = t

    def perceived(self, t: float) -> dict[str, str]:
        return {z: (self.prev_top[z] or self.top(z)) if t - self.changed[z] < PERCEIVE_S else self.top(z)
                for z in ZONES}

    def act(self, p: str, t: float) -> None:
        rng = self.rng
        self.refill(p)
        actual = {z: self.top(z) for z in ZONES}
        seen = self.perceived(t)
        moves = self.moves(p, seen)
        if not moves:
            if self.moves(p, actual):
                self.act_at(p, max(self.changed.values()) + PERCEIVE_S + rng.uniform(0.01, 0.2))
            else:
                self.claim(p, t)
            return
        c, z = rng.choice(moves)
        if rng.random() < ERROR_RATE:
            wrong = [(c2, z2) for c2 in self.hand[p] for z2 in ZONES if not self.adj(c2, actual[z2])]
            if wrong:
                c, z = rng.choice(wrong)
        if t - self.landed[z] < self.spacing:
            self.act_at(p, self.landed[z] + self.spacing + rng.uniform(0.005, 0.03))
            return
        self.play(p, c, z, t)

    def play(self, p: str, c: str, z: str, t: float) -> None:
        rng = self.rng
        self.flips_since_play = 0
        old = self.top(z)
        self.hand[p].remove(c)
        self.emit(t, "card", zone=z, card=c, player=p)
        self.landed[z] = t
        if not self.adj(c, old):  # SP-2/SP-3 illegal: it comes back (SP-8)
            self.busy.add(p)
            self.gen[p] += 1
            self.push(t + rng.uniform(0.3, 0.9), "remove", (p, c, z))
            return
        self.set_top(z, c, t)
        self.stale(t)
        q = self.other(p)
        if self.held(p) == 0:
            self.go_out(p, q, z, t)
            return
        if (q not in self.busy and q not in self.claims and self.held(q) >= 2 and rng.random() < TIE_RATE):
            self.refill(q)
            mine = [c2 for c2 in self.hand[q] if self.adj(c2, old)]
            if mine:
                self.tie(p, q, rng.choice(mine), z, t)
                return
        self.act_at(p, t + rng.uniform(0.4, 1.5))

    def tie(self, p: str, q: str, c2: str, z: str, t: float) -> None:
        """SP-9: ``q`` will land ``c2`` inside the tie window; both cards stand, ``c2`` on top."""
        self.gen[q] += 1  # q's hand is committed until the card lands
        self.landed[z] = t + self.tie_max  # nobody else lands on ``z`` in between
        self.push(t + self.rng.uniform(0.0, self.tie_max), "tie", (p, q, c2, z, t))
        self.act_at(p, t + self.rng.uniform(0.4, 1.5))

    def tie_lands(self, t2: float, p: str, q: str, c2: str, z: str, t: float) -> None:
        rng = self.rng
        self.hand[q].remove(c2)
        self.emit(t2, "card", zone=z, card=c2, player=q)
        self.pile[z].append(c2)
        self.changed[z] = t2
        self.landed[z] = t2
        if rng.random() < TIE_TAKEBACK:
            tb = t2 + rng.uniform(0.3, 0.8)
            self.busy.add(q)
            self.push(tb, "remove", (q, c2, z))
            self.act_at(p, tb + rng.uniform(0.15, 0.6))  # both pause while the tie is sorted out
        else:
            self.prev_top[z] = self.pile[z][-2]
            self.act_at(q, t2 + rng.uniform(0.4, 1.5))

    def go_out(self, p: str, q: str, z: str, t: float) -> None:
        """SP-7: ``p`` played the last card legally; ``q`` may go out inside the window too (a draw)."""
        self.over = True
        if q in self.busy or q in self.claims or self.held(q) != 1:
            return
        self.refill(q)
        z2 = ZONES[1] if z == ZONES[0] else ZONES[0]
        c2 = self.hand[q][0]
        if (self.adj(c2, self.top(z2)) and t - self.landed[z2] >= self.spacing
                and self.rng.random() < DRAW_RATE):
            self.emit(t + self.rng.uniform(0.0, self.tie_max), "card", zone=z2, card=c2, player=q)

    def take_back(self, t: float, p: str, c: str, z: str) -> None:
        """SP-8 (or SP-9 after a tie): the card leaves the pile into the hand; the player plays on."""
        self.emit(t, "remove", zone=z, card=c, player=p)
        self.busy.discard(p)
        self.hand[p].append(c)
        pile = self.pile[z]
        if c in pile:  # a tied card: the one under it is the top again
            pile.remove(c)
            self.prev_top[z] = None
            self.changed[z] = -1.0
        self.act_at(p, t + self.rng.uniform(0.15, 0.5))

    def stale(self, t: float) -> None:
        """A top changed: earlier stuck claims lapse and those players look again (SP-5)."""
        for q in [q for q, tq in self.claims.items() if tq < t]:
            del self.claims[q]
            self.act_at(q, t + self.rng.uniform(0.15, 0.7))

    def claim(self, p: str, t: float) -> None:
        """SP-5: ``p`` cannot play; when both say so, rebuild the side stacks if needed (SP-6) and flip."""
        self.emit(t, "stuck", player=p)
        self.claims[p] = t
        self.gen[p] += 1  # wait for a change of top
        if len(self.claims) < len(self.players):
            return
        self.claims.clear()
        self.flips_since_play += 1
        if self.flips_since_play > DEAD_FLIPS:
            raise _DeadDeal
        if not self.side["left"] or not self.side["right"]:
            under = self.side["left"] + self.side["right"]
            for z in ZONES:
                under += self.pile[z][:-1]
                self.pile[z] = self.pile[z][-1:]
            self.rng.shuffle(under)
            k = (len(under) + 1) // 2
            self.side = {"left": under[:k], "right": under[k:]}
        self.flip_both(t + self.rng.uniform(0.3, 0.8), starters=False)


class _DeadDeal(Exception):
    """No card can be played however the centre is flipped (:data:`DEAD_FLIPS`)."""


def simulate(header: GameHeader, rng: random.Random) -> list[Event]:
    """One whole game of Speed; the events a perfect camera logs, in time order. A dead deal
    (:data:`DEAD_FLIPS`) is shuffled and dealt again, from the same random stream, and only the game played is
    logged."""
    while True:
        try:
            return _Game(header, rng).run()
        except _DeadDeal:
            continue
