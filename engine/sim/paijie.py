"""Pai Jie simulator: whole games by random players who know their hands, logged as a camera sees them.

The players hold real cards and a real stock; the log shows only what is face up (the rows, jokers, the
joker-pair turned cards) plus the counts that ``draw`` lines confirm. Rule arithmetic (gaps, what a play
is, the joker-pair deal) comes from :mod:`engine.games.paijie` so that both sides share one definition;
the flow (who draws what, when a turn ends) is played here on the physical cards, so the property test
cross-checks the referee's bookkeeping against it.

The players prefer plays that shed cards cheaply, so games converge: the rows fill, the stock runs out,
and hands over 10 are eliminated. After ``CALM_TURNS`` turns they stop making mistakes and joker pairs
(the only play that refills hands), which ends any game; ``MAX_TURNS`` is only a safety net.
"""

from __future__ import annotations

import random
from itertools import combinations
from typing import Any

from engine.cards import DECK_WITH_JOKERS, JOKERS, SUITS
from engine.events import Event, GameHeader
from engine.games.paijie import (
    BIT,
    FULL_ROW,
    HAND_LIMIT,
    HAND_SIZE,
    OPENING_ORDER,
    SUIT_OF,
    TURN_VALUE,
    VALUE_OF,
    classify,
    free_cards,
    play_gap,
    row,
)

P_TURN_LINE = 0.2  # explicit ``turn`` markers (PJ-15)
P_BLOCKED_MISTAKE = 0.06  # a card into a suit blocked by someone else's K (PJ-7)
P_PATTERN_MISTAKE = 0.015  # two cards that are no pattern (PJ-5, PJ-6, PJ-12)
P_SPLIT_DRAW = 0.5  # a penalty and a J draw confirmed by two lines instead of one
CALM_TURNS = 400
MAX_TURNS = 5000
LAY_ORDER = {s: i for i, s in enumerate(SUITS)}


class _Game:
    """One game on the physical cards (stock top = end of the list)."""

    def __init__(self, header: GameHeader, rng: random.Random) -> None:
        self.rng = rng
        self.players = header.players
        n = len(self.players)
        deck = list(DECK_WITH_JOKERS)
        rng.shuffle(deck)
        first = header.first_player_index
        self.hands: dict[str, list[str]] = {p: [] for p in self.players}
        for k in range(HAND_SIZE * n):  # PJ-1, one at a time from the dealer's left
            self.hands[self.players[(first + k) % n]].append(deck.pop())
        self.stock = deck
        self.active = list(self.players)
        self.table = 0  # the rows, as the referee's int (engine.games.paijie.SHIFT)
        self.start = 0
        self.blocks: dict[str, str] = {}  # suit -> K player
        self.complete: set[str] = set()
        self.stuck_run = 0
        self.pairs = 0
        self.turns = 0
        self.over = False
        self.t = 0.0
        self.events: list[Event] = []
        self.cur = ""

    # ----------------------------------------------------------------- logging
    def log(self, dt: float, type_: str, **fields: Any) -> None:
        self.t += dt
        self.events.append(Event(t=round(self.t, 3), type=type_, **fields))

    def gap_s(self) -> float:
        """Time before a turn's first line (0.4-1.5 s)."""
        return self.rng.uniform(0.4, 1.5)

    def put(self, dt: float, p: str, c: str, **fields: Any) -> None:
        zone = "center" if c in JOKERS else "row:" + SUIT_OF[c]
        self.log(dt, "card", zone=zone, card=c, player=p, **fields)

    # ----------------------------------------------------------------- helpers
    def next_active(self, p: str) -> str:
        i = self.players.index(p)
        n = len(self.players)
        for k in range(1, n + 1):
            q = self.players[(i + k) % n]
            if q in self.active:
                return q
        return p

    def take(self, p: str, n: int) -> int:
        """``p`` draws up to ``n`` from the stock top; returns how many."""
        got = min(n, len(self.stock))
        for _ in range(got):
            self.hands[p].append(self.stock.pop())
        return got

    def blocked_for(self, p: str) -> set[str]:
        return {s for s, k in self.blocks.items() if k != p}

    def options(self, p: str) -> list[tuple[str, ...]]:
        """Every legal play: singles, multiples, straights of unblocked suits, jokers."""
        blocked = self.blocked_for(p)
        ok = [c for c in self.hands[p] if c in JOKERS or SUIT_OF[c] not in blocked]
        opts: list[tuple[str, ...]] = [(c,) for c in ok]
        suited = [c for c in ok if c not in JOKERS and VALUE_OF[c] != self.start]
        by_rank: dict[int, list[str]] = {}
        by_suit: dict[str, list[str]] = {}
        for c in suited:
            by_rank.setdefault(VALUE_OF[c], []).append(c)
            by_suit.setdefault(SUIT_OF[c], []).append(c)
        for group in by_rank.values():
            for k in range(2, len(group) + 1):
                opts.extend(combinations(group, k))
        for group in by_suit.values():
            group.sort(key=VALUE_OF.__getitem__)
            for i in range(len(group)):
                for j in range(i + 1, len(group)):
                    if VALUE_OF[group[j]] - VALUE_OF[group[i]] != j - i:
                        break
                    opts.append(tuple(group[i:j + 1]))
        if "RJ" in ok and "BJ" in ok:
            opts.append(("RJ", "BJ"))
        return opts

    def score(self, p: str, play: tuple[str, ...]) -> float:
        """How much a player likes a play: shed cards, avoid penalties, never keep a lone joker."""
        kind = classify(play, self.start)[0]
        pen = play_gap(self.table, self.start, kind, play)
        hand = self.hands[p]
        rest = len(hand) - len(play)
        s = len(play) - 0.8 * pen + self.rng.random()
        if kind == "jokers":
            s = -2.0 if self.pairs or self.turns > CALM_TURNS else 0.5 + (len(hand) > 8) * 4
        elif kind == "joker":
            s = 0.2 + (len(hand) > 9) * 3
        if rest == 0 and pen == 0 and not any(c[0] == "J" for c in play):
            s += 20
        if rest + pen > HAND_LIMIT:
            s -= 5
        if rest == 1 and pen == 0 and any(c in JOKERS for c in hand) and not any(c in JOKERS for c in play):
            s -= 8  # would leave only a joker (PJ-12)
        if kind in ("single", "multiple", "straight") and any(c[0] == "K" for c in play):
            s += 0.5
        return s

    # ----------------------------------------------------------------- the game
    def run(self) -> list[Event]:
        held = {c: p for p, h in self.hands.items() for c in h}
        lead = next(c for c in OPENING_ORDER if c in held)  # PJ-2
        p = held[lead]
        self.start = VALUE_OF[lead]
        self.cur = p
        if self.rng.random() < P_TURN_LINE:
            self.log(0.5, "turn", player=p)
        self.play(p, (lead,), self.gap_s())
        while not self.over:
            self.turns += 1
            if self.turns > MAX_TURNS:
                raise RuntimeError("Pai Jie simulation did not converge")
            self.turn(self.cur)
        return self.events

    def turn(self, p: str) -> None:
        hand = self.hands[p]
        dt = self.gap_s()
        if self.rng.random() < P_TURN_LINE:
            self.log(dt, "turn", player=p)
            dt = self.rng.uniform(0.1, 0.4)
        if len(hand) == 1 and hand[0] in JOKERS:  # PJ-12: shown, and out
            self.put(dt, p, hand[0])
            hand.clear()
            nxt = self.next_active(p)
            self.eliminate(p)
            self.cur = nxt
            return
        opts = self.options(p)
        if not opts:
            self.stuck(p, dt)
            return
        calm = self.turns > CALM_TURNS
        bad = None if calm else self.mistake(p)
        if bad:
            for i, c in enumerate(bad):
                self.put(dt if i == 0 else self.rng.uniform(0.15, 0.4), p, c)
            for c in bad:  # taken back after the referee's "illegal"
                zone = "center" if c in JOKERS else "row:" + SUIT_OF[c]
                self.log(self.rng.uniform(0.8, 1.6), "remove", zone=zone, card=c, player=p)
            dt = self.rng.uniform(0.4, 1.0)
        if self.rng.random() < (0.85 if calm else 0.7):
            choice = max(opts, key=lambda o: self.score(p, o))
        else:
            choice = self.rng.choice(opts)
        self.play(p, choice, dt)

    def mistake(self, p: str) -> tuple[str, ...] | None:
        """A human error the referee must catch: a blocked suit, or cards that are no pattern."""
        hand = self.hands[p]
        blocked = self.blocked_for(p)
        if blocked and self.rng.random() < P_BLOCKED_MISTAKE:
            wrong = [c for c in hand if c not in JOKERS and SUIT_OF[c] in blocked]
            if wrong:
                return (self.rng.choice(wrong),)
        if len(hand) >= 2 and self.rng.random() < P_PATTERN_MISTAKE:
            starts = [c for c in hand if VALUE_OF.get(c) == self.start]
            pair = tuple(starts[:2]) if len(starts) >= 2 else tuple(self.rng.sample(hand, 2))
            if classify(pair, self.start)[0] == "illegal":
                return pair
        return None

    def stuck(self, p: str, dt: float) -> None:
        """PJ-7: every card is blocked; draw up to the largest blocking K player's hand, at least 1."""
        blockers = {k for k in self.blocks.values() if k != p}
        target = max(len(self.hands[k]) for k in blockers)
        got = self.take(p, max(1, target - len(self.hands[p])))
        self.log(dt, "stuck", player=p)
        # an elimination that ends the game is ruled on the stuck line: the log stops there (PJ-13, PJ-14)
        ends_game = len(self.hands[p]) > HAND_LIMIT and len(self.active) == 2
        if got and not ends_game:
            self.log(self.rng.uniform(0.3, 0.9), "draw", player=p, count=got)
        self.stuck_run = 0 if got else self.stuck_run + 1
        nxt = self.next_active(p)
        if len(self.hands[p]) > HAND_LIMIT:  # PJ-13
            self.eliminate(p)
            if not self.over:
                self.lay_down(p)
        if not self.over and self.stuck_run >= len(self.active):  # PJ-14 draw
            self.over = True
        self.cur = nxt

    def play(self, p: str, cards: tuple[str, ...], dt: float) -> None:
        """Put ``cards`` down and carry out everything the referee will order, in PJ-11 order."""
        for i, c in enumerate(cards):
            self.put(dt if i == 0 else self.rng.uniform(0.15, 0.4), p, c)
        hand = self.hands[p]
        for c in cards:
            hand.remove(c)
        kind = classify(cards, self.start)[0]
        pen = play_gap(self.table, self.start, kind, cards)
        suits = sorted({SUIT_OF[c] for c in cards if c not in JOKERS})
        for c in cards:
            if c not in JOKERS:
                self.table |= BIT[c]
        self.stuck_run = 0
        mine: list[int] = []  # draw orders for p, confirmed after the play
        if pen:
            got = self.take(p, pen)
            if got:
                mine.append(got)
        for s in suits:
            if self.blocks.get(s) == p:  # the K player plays the suit again
                del self.blocks[s]
        self.check_complete(suits)
        theirs: tuple[str, int] | None = None
        redeal: list[tuple[str, int, str | None]] = []
        removes = 0
        if kind == "multiple":
            swap = min(len(cards) - 1, len(hand))
            back = self.rng.sample(hand, swap)
            for c in back:
                hand.remove(c)
            self.stock.extend(back)
            self.rng.shuffle(self.stock)
            self.take(p, swap)
        elif kind == "straight":
            nxt = self.next_active(p)
            got = self.take(nxt, len(cards) - 1)
            if got:
                theirs = (nxt, got)
        elif kind == "joker":
            self.joker(cards[0])
        elif kind == "jokers":
            redeal = self.joker_pair(p)
        if kind in ("single", "multiple", "straight"):
            for c in cards:
                if c[0] == "K" and SUIT_OF[c] not in self.complete:
                    self.blocks[SUIT_OF[c]] = p
            for c in cards:
                if c[0] == "Q" and self.stock:  # PJ-8
                    hand.append(self.stock.pop())
                    self.stock.append(hand.pop(self.rng.randrange(len(hand))))
            js = 0
            for c in cards:
                if c[0] == "J" and self.stock:  # PJ-9: any card, then shuffle
                    hand.append(self.stock.pop(self.rng.randrange(len(self.stock))))
                    self.rng.shuffle(self.stock)
                    js += 1
            if js:
                mine.append(js)
            aces = sum(c[0] == "A" for c in cards)
            if aces:
                free = free_cards(self.table, self.complete)
                removes = min(aces, free)
        # end of p's turn (PJ-13, PJ-14): decided now, before anything the log shows next
        hand = self.hands[p]  # a joker re-deal gave p new cards
        nxt = self.next_active(p)
        out = False
        if not redeal:
            if not hand:
                self.over = True
                return
            if len(hand) > HAND_LIMIT:
                out = True
                self.eliminate(p)
                if self.over:
                    return
        if mine:
            if len(mine) == 2 and self.rng.random() < P_SPLIT_DRAW:
                for n in mine:
                    self.log(self.rng.uniform(0.3, 0.9), "draw", player=p, count=n)
            else:
                self.log(self.rng.uniform(0.3, 0.9), "draw", player=p, count=sum(mine))
        if theirs:
            self.log(self.rng.uniform(0.3, 0.9), "draw", player=theirs[0], count=theirs[1])
        for _ in range(removes):
            self.ace(p)
        for q, n, turned in redeal:
            self.log(self.rng.uniform(0.4, 1.0), "draw", player=q, count=n, card=turned)
        if any(not n for _q, n, _turned in redeal):  # emptied by the deal: wins (PJ-14)
            self.over = True
            return
        if out:
            self.lay_down(p)
        self.cur = nxt

    def ace(self, p: str) -> None:
        """PJ-10: a table card to a player: a K blocking ``p`` if there is one, else any; to an opponent."""
        free = [c for c in BIT if SUIT_OF[c] not in self.complete and self.table & BIT[c]]
        kings = [c for c in free if c[0] == "K" and self.blocks.get(SUIT_OF[c], p) != p]
        c = kings[0] if kings else self.rng.choice(free)
        others = [q for q in self.active if q != p] or self.active
        to = self.rng.choice(others)
        s = SUIT_OF[c]
        self.table &= ~BIT[c]
        self.hands[to].append(c)
        if c[0] == "K" and s in self.blocks:
            del self.blocks[s]
        self.log(self.rng.uniform(0.6, 1.5), "remove", zone="row:" + s, card=c, player=to)

    def joker(self, c: str) -> None:
        """PJ-12 single joker: BJ re-deals the hands, RJ the hands and the stock, same counts."""
        counts = {q: len(self.hands[q]) for q in self.active}
        pool = [x for q in self.active for x in self.hands[q]]
        if c == "RJ":
            pool += self.stock
        self.rng.shuffle(pool)
        for q in self.active:
            self.hands[q] = [pool.pop() for _ in range(counts[q])]
        if c == "RJ":
            self.stock = pool

    def joker_pair(self, p: str) -> list[tuple[str, int, str | None]]:
        """PJ-12 joker pair: all into the stock; from ``p``, each turns a card and draws up to its value."""
        self.pairs += 1
        pool = self.stock + [x for q in self.active for x in self.hands[q]] + ["RJ", "BJ"]
        self.rng.shuffle(pool)
        self.stock = pool
        i = self.players.index(p)
        order = [q for k in range(len(self.players)) if (q := self.players[(i + k) % len(self.players)])
                 in self.active]
        turned: dict[str, str] = {}
        targets = []
        for q in order:
            self.hands[q] = []
            if self.stock:
                turned[q] = self.stock.pop()
                self.hands[q].append(turned[q])
            targets.append(TURN_VALUE[turned[q]] if q in turned else 0)
        more = True
        while self.stock and more:
            more = False
            for q, target in zip(order, targets, strict=True):
                if self.stock and len(self.hands[q]) < target:
                    self.hands[q].append(self.stock.pop())
                    more = True
        return [(q, len(self.hands[q]), turned.get(q)) for q in order]

    def check_complete(self, suits: list[str]) -> None:
        """PJ-4: a complete suit is no longer affected: its block goes."""
        for s in suits:
            if row(self.table, s) == FULL_ROW:
                self.complete.add(s)
                self.blocks.pop(s, None)

    def eliminate(self, p: str) -> None:
        self.active.remove(p)
        for s in [s for s, k in self.blocks.items() if k == p]:
            del self.blocks[s]
        self.stuck_run = 0
        if len(self.active) == 1:
            self.over = True

    def lay_down(self, p: str) -> None:
        """PJ-13: the eliminated hand goes onto the rows in suit order; jokers to the center."""
        hand = sorted(self.hands[p], key=lambda c: (c in JOKERS, LAY_ORDER.get(SUIT_OF.get(c, ""), 9),
                                                    VALUE_OF.get(c, 0)))
        self.hands[p] = []
        for c in hand:
            self.put(self.rng.uniform(0.15, 0.35), p, c, source="deal")
            if c not in JOKERS:
                self.table |= BIT[c]
                self.check_complete([SUIT_OF[c]])


def simulate(header: GameHeader, rng: random.Random) -> list[Event]:
    """One whole legal game of Pai Jie as a perfect camera logs it."""
    return _Game(header, rng).run()
