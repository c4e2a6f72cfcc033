"""Whole random Spit games as a perfect camera logs them (the encoding is in :mod:`engine.games.spit`).

Two players act on their own clocks (an action every 0.4-1.0 s for the quicker one, 0.55-1.5 s for the other):
turn up a face-down column top, play a fitting column top, move a top into an empty column to uncover a card,
or say ``stuck``. Mistakes at a low rate make every verdict kind occur: an illegal card (taken back with a
``remove``), a card racing a faster one to the same pile (SP-3, illegal), two cards within the tie window
(SP-9, ``unresolved_tie``), a stuck claim with a move left (``not_stuck``), spit flips without ``source``
(SP-10), slaps tied on one pile (TM-3). The quicker player clears more layouts and slaps the smaller pile
first, so they shed cards from round to round and the game converges; the other tires a little each round
(slower actions) so that even an unlucky game ends.

The simulator mirrors the referee's rulings (same ``adjacent``, same race ordering) so its log has no anomaly.
"""

from __future__ import annotations

import random

from engine.cards import adjacent, deck
from engine.events import Event, GameHeader
from engine.games.spit import PILES, SpitReferee, layout_shape
from engine.race import Entry, order
from engine.referee import resolve_variants

_INF = float("inf")
P_ILLEGAL = 0.025  # a card that does not fit the pile it is put on
P_TIE = 0.06  # the other player slams a fitting card on the same pile within the tie window
P_LATE = 0.05  # the other player's card lands just after, against the old top (SP-3)
P_FALSE_STUCK = 0.01  # "stuck!" with a move left
P_NO_SOURCE = 0.1  # a spit flip logged without ``source`` (SP-10)
P_NO_PLAYER = 0.2  # a line logged without ``player``
P_SLAP_TIE = 0.08  # both hands on one pile within the tie window
P_RANDOM_PILE = 0.15  # a slap on a pile chosen without counting
FATIGUE = 0.06  # the slower player's pace grows this much per round
MAX_ROUNDS = 500  # safety net only: the tiring player makes games end long before


class _Game:
    """The whole table (every card's place) and the log written so far."""

    def __init__(self, header: GameHeader, rng: random.Random) -> None:
        self.rng = rng
        self.players: tuple[str, ...] = tuple(header.players)
        a, b = self.players
        self.other = {a: b, b: a}
        v = resolve_variants("spit", SpitReferee.VARIANTS, header.variants)
        self.wraps = bool(v["ace_wraps"])
        self.window = float(v["tie_window_ms"]) / 1000.0
        self.gap = self.window + 0.012  # a card after another on one pile: clearly ordered (TM-3)
        self.events: list[Event] = []
        self.t = header.t + rng.uniform(0.5, 1.5)
        cards = deck()
        rng.shuffle(cards)
        self.hand: dict[str, list[str]] = {a: cards[:26], b: cards[26:]}  # cards between rounds
        quick = self.players[rng.randrange(2)]
        self.quick = quick
        self.pace = {quick: (0.4, 1.0), self.other[quick]: (0.55, 1.5)}
        self.round = 0
        self.winner: str | None = None
        # per round
        self.cols: dict[str, list[tuple[list[str], list[str]]]] = {}  # player -> 5 x (face down, face up)
        self.spit: dict[str, list[str]] = {}
        self.pile: dict[str, list[str]] = {"left": [], "right": []}
        self.last: dict[str, float] = {}  # when the last card landed on each pile
        self.loose: dict[str, tuple[str, str, int] | None] = {}  # illegal card waiting for its take-back
        self.stuck: dict[str, bool] = {}
        self.starter: str | None = None

    # ----------------------------------------------------------------- log
    def emit(self, t: float, typ: str, **kw: object) -> None:
        t = round(t, 4)
        assert not self.events or t >= self.events[-1].t, (t, self.events[-1])
        self.events.append(Event(t=t, type=typ, **kw))  # type: ignore[arg-type]

    def delay(self, p: str) -> float:
        lo, hi = self.pace[p]
        if p != self.quick:
            k = 1.0 + FATIGUE * self.round
            lo, hi = lo * k, hi * k
        return self.rng.uniform(lo, hi)

    def who(self, p: str) -> str | None:
        return None if self.rng.random() < P_NO_PLAYER else p

    # ----------------------------------------------------------------- table facts
    def top(self, z: str) -> str | None:
        pile = self.pile[z]
        return pile[-1] if pile else None

    def layout_count(self, p: str) -> int:
        return sum(len(h) + len(u) for h, u in self.cols[p])

    def has_move(self, p: str) -> bool:
        """Exactly the referee's ``has_move``: what the camera shows ``p`` can still do."""
        tops = [c for c in (self.top("left"), self.top("right")) if c is not None]
        empty = movable = False
        for h, u in self.cols[p]:
            if not u:
                if h:
                    return True
                empty = True
                continue
            if any(adjacent(u[-1], t, self.wraps) for t in tops):
                return True
            if h or len(u) > 1:
                movable = True
        return empty and movable

    # ----------------------------------------------------------------- a round
    def deal(self) -> list[str]:
        """ST-1 / ST-5: lay out the columns, tops face up; the rest are spit cards."""
        rng = self.rng
        for p in self.players:
            cards = self.hand[p]
            rng.shuffle(cards)
            cols: list[tuple[list[str], list[str]]] = []
            i = 0
            for h in layout_shape(len(cards)):
                cols.append((cards[i:i + h], []))
                i += h
            self.spit[p] = cards[i:]
            self.cols[p] = cols
            for k, (h, u) in enumerate(cols):
                if h:
                    self.t += rng.uniform(0.05, 0.15)
                    u.append(h.pop())
                    self.emit(self.t, "card", zone=f"col:{p}:{k + 1}", card=u[-1], player=self.who(p), source="deal")
        self.pile = {"left": [], "right": []}
        self.last = {"left": -_INF, "right": -_INF}
        self.loose = {p: None for p in self.players}
        self.stuck = {p: False for p in self.players}
        flippers = [p for p in self.players if self.spit[p]]
        self.starter = flippers[0] if len(flippers) == 1 else None
        return flippers

    def flip(self, flippers: list[str], t: float) -> float:
        """ST-2 / ST-4: spit cards onto the centre, together; returns when the last one landed."""
        rng = self.rng
        started = [z for z in PILES if self.pile[z]]
        if len(flippers) == 2:
            pairs = list(zip(flippers, PILES, strict=True))
        elif len(started) == 1:
            pairs = [(flippers[0], started[0])]
        else:
            pairs = [(flippers[0], rng.choice(PILES))]
        for p, z in pairs:
            card = self.spit[p].pop()
            source = None if rng.random() < P_NO_SOURCE else "spit"
            default = len(pairs) == 1 or z == PILES[self.players.index(p)]
            player = self.who(p) if default else p
            self.emit(t, "card", zone=z, card=card, player=player, source=source)
            self.pile[z].append(card)
            self.last[z] = t
            t += rng.uniform(0.0, 0.04)
        self.stuck = {p: False for p in self.players}
        return t

    def play_round(self) -> None:
        rng = self.rng
        flippers = self.deal()
        self.t += rng.uniform(0.5, 1.0)
        t = self.flip(flippers, self.t)
        nt = {p: t + self.delay(p) for p in self.players}
        while True:
            p = min(self.players, key=lambda x: nt[x])
            t = nt[p]
            assert t < _INF, "both players wait: the simulator lost track of a move"
            end = self.act(p, t, nt)
            if end is not None:
                self.t = end[1]
                self.round_end(end[0], end[1])
                return

    def act(self, p: str, t: float, nt: dict[str, float]) -> tuple[str | None, float] | None:
        """One action of ``p`` at ``t``; returns (clearer, time) when the round is over."""
        rng = self.rng
        q = self.other[p]
        cols = self.cols[p]
        wraps = self.wraps
        loose = self.loose[p]
        if loose is not None:  # SP-8: take the illegal card back first
            card, z, k = loose
            self.loose[p] = None
            self.emit(t, "remove", zone=z, card=card, player=self.who(p))
            cols[k][1].append(card)
            self.stuck[p] = False
            nt[p] = t + self.delay(p)
            return None
        for k, (h, u) in enumerate(cols):  # ST-3: turn up an uncovered face-down card
            if not u and h:
                u.append(h.pop())
                self.emit(t, "card", zone=f"col:{p}:{k + 1}", card=u[-1], player=self.who(p))
                self.stuck[p] = False
                nt[p] = t + self.delay(p) * 0.6
                return None
        tops = [(k, u[-1]) for k, (h, u) in enumerate(cols) if u]
        piles = [z for z in PILES if self.pile[z]]
        legal = [(k, c, z) for k, c in tops for z in piles if adjacent(c, self.pile[z][-1], wraps)]
        if tops and piles and rng.random() < P_ILLEGAL:
            bad = [(k, c, z) for k, c in tops for z in piles if not adjacent(c, self.pile[z][-1], wraps)]
            if bad:
                k, c, z = rng.choice(bad)
                if t < self.last[z] + self.gap:
                    nt[p] = self.last[z] + self.gap
                    return None
                cols[k][1].pop()
                self.emit(t, "card", zone=z, card=c, player=self.who(p))
                self.last[z] = t
                self.loose[p] = (c, z, k)
                self.stuck[p] = False
                nt[p] = t + rng.uniform(0.3, 0.8)
                return None
        if rng.random() < P_FALSE_STUCK and self.has_move(p):
            self.emit(t, "stuck", player=p)  # ST-4: not_stuck
            self.stuck[p] = False
            nt[p] = t + self.delay(p)
            return None
        if legal:
            k, c, z = rng.choice(legal)
            if t < self.last[z] + self.gap:
                nt[p] = self.last[z] + self.gap
                return None
            return self.play(p, k, c, z, t, nt)
        empty = [k for k, (h, u) in enumerate(cols) if not h and not u]
        movable = [k for k, (h, u) in enumerate(cols) if u and h]
        if empty and movable:  # ST-3: a top into an empty column uncovers a card
            ke, km = empty[0], rng.choice(movable)
            c = cols[km][1].pop()
            cols[ke][1].append(c)
            self.emit(t, "card", zone=f"col:{p}:{ke + 1}", card=c, player=self.who(p))
            self.stuck[p] = False
            nt[p] = t + self.delay(p)
            return None
        nt[p] = _INF
        if self.stuck[p]:
            return None
        self.emit(t, "stuck", player=p)
        self.stuck[p] = True
        if not self.stuck[q]:
            return None
        if self.has_move(q):
            self.stuck[q] = False
            return None
        self.stuck = {x: False for x in self.players}  # both_stuck
        flippers = [x for x in self.players if self.spit[x]]
        if not flippers:
            return (None, t)  # ST-5: no spit cards left
        last = self.flip(flippers, t + rng.uniform(0.4, 0.9))
        for x in self.players:
            nt[x] = last + self.delay(x)
        return None

    def play(self, p: str, k: int, c: str, z: str, t: float, nt: dict[str, float]) -> tuple[str, float] | None:
        """A fitting card onto pile ``z``; sometimes the other player races it (SP-9 tie, SP-3 late card)."""
        rng = self.rng
        q = self.other[p]
        old = self.pile[z][-1]
        last_card = self.layout_count(p) == 1
        if last_card and len([x for x in PILES if self.pile[x]]) == 1 and self.loose[q] is not None:
            nt[p] = nt[q] + 0.05  # let the take-back come before the round ends
            return None
        qcols = self.cols[q]
        racing = not last_card and self.loose[q] is None and self.layout_count(q) > 1
        if racing and self.window >= 0.005 and rng.random() < P_TIE:
            opts = [kq for kq, (h, u) in enumerate(qcols) if u and adjacent(u[-1], old, self.wraps)]
            if opts:  # SP-9: both land within the window; both stand, the later one on top
                kq = rng.choice(opts)
                cq = qcols[kq][1].pop()
                self.cols[p][k][1].pop()
                tq = t + rng.uniform(0.001, 0.75 * self.window)
                self.emit(t, "card", zone=z, card=c, player=self.who(p))
                self.emit(tq, "card", zone=z, card=cq, player=self.who(q))
                self.pile[z] += [c, cq]
                self.last[z] = tq
                self.stuck[p] = self.stuck[q] = False
                nt[p] = tq + self.delay(p)
                nt[q] = tq + self.delay(q)
                return None
        self.cols[p][k][1].pop()
        self.emit(t, "card", zone=z, card=c, player=self.who(p))
        self.pile[z].append(c)
        self.last[z] = t
        self.stuck[p] = False
        if last_card:
            return (p, t)
        nt[p] = t + self.delay(p)
        if nt[q] == _INF:
            nt[q] = t + rng.uniform(0.3, 0.9)  # the waiting player sees the new top
        if racing and rng.random() < P_LATE:
            opts = [kq for kq, (h, u) in enumerate(qcols)
                    if u and adjacent(u[-1], old, self.wraps) and not adjacent(u[-1], c, self.wraps)]
            if opts:  # SP-3: aimed at the old top, lands after ``c``: illegal
                kq = rng.choice(opts)
                cq = qcols[kq][1].pop()
                tq = t + rng.uniform(self.gap, self.gap + 0.1)
                self.emit(tq, "card", zone=z, card=cq, player=self.who(q))
                self.last[z] = tq
                self.loose[q] = (cq, z, kq)
                self.stuck[q] = False
                nt[q] = tq + rng.uniform(0.3, 0.8)
                nt[p] = max(nt[p], tq + 0.05)
        return None

    # ----------------------------------------------------------------- round end
    def round_end(self, clearer: str | None, t: float) -> None:
        """ST-5 / ST-6: take-backs, the pile choice, the gathering; a player without cards wins."""
        rng = self.rng
        for p in self.players:  # SP-8: illegal cards go back before the piles are chosen
            loose = self.loose[p]
            if loose is not None:
                card, z, k = loose
                t += rng.uniform(0.1, 0.3)
                self.emit(t, "remove", zone=z, card=card, player=self.who(p))
                self.cols[p][k][1].append(card)
                self.loose[p] = None
        started = [z for z in PILES if self.pile[z]]
        takes: dict[str, str | None]
        if len(started) == 2:
            takes, t = self.slaps(t)
        elif clearer is not None:
            takes = {clearer: None, self.other[clearer]: started[0]}
        else:
            a, b = self.players
            na, nb = self.layout_count(a), self.layout_count(b)
            taker = (a if na > nb else b) if na != nb else (self.starter or a)
            takes = {taker: started[0], self.other[taker]: None}
        for p in self.players:
            cards = [c for h, u in self.cols[p] for c in h + u] + self.spit[p]
            z = takes[p]
            if z is not None:
                cards += self.pile[z]
            self.hand[p] = cards
        empty = [p for p in self.players if not self.hand[p]]
        if empty:
            self.winner = empty[0]
        self.t = t + rng.uniform(1.0, 2.0)

    def slaps(self, t: float) -> tuple[dict[str, str | None], float]:
        """ST-5: each hand goes for the smaller pile; the first to touch it takes it (TM-1, TM-3)."""
        rng = self.rng
        sizes = {z: len(self.pile[z]) for z in PILES}
        while True:
            picks = {}
            times = {}
            for p in self.players:
                if sizes["left"] == sizes["right"] or rng.random() < P_RANDOM_PILE:
                    picks[p] = rng.choice(PILES)
                else:
                    picks[p] = min(PILES, key=lambda z: sizes[z])
                react = rng.uniform(0.04, 0.1) if rng.random() < 0.05 else rng.uniform(0.15, 0.7)
                if p != self.quick:
                    react += rng.uniform(0.0, 0.15)
                times[p] = t + react
            a, b = self.players
            if self.window >= 0.005 and rng.random() < P_SLAP_TIE:
                picks[b] = picks[a]
                times[b] = times[a] + rng.uniform(0.0, 0.75 * self.window)
            times = {p: round(x, 4) for p, x in times.items()}  # as logged: the referee orders these
            ordered = sorted(self.players, key=lambda x: times[x])
            entries = []
            for i, p in enumerate(ordered):
                self.emit(times[p], "slap", zone=picks[p], player=p)
                entries.append(Entry(times[p], 0.0, p, i, picks[p]))
            first = entries[0]
            res = order([e for e in entries if e.data == first.data], self.window)
            if len({e.player for e in res.tied}) > 1:
                t = times[ordered[-1]] + rng.uniform(0.5, 1.0)  # unresolved_tie: slap again
                continue
            w = first.player
            z = first.data
            return {w: z, self.other[w]: PILES[1 - PILES.index(z)]}, times[ordered[-1]]


def simulate(header: GameHeader, rng: random.Random) -> list[Event]:
    """One whole legal game of Spit as a perfect camera logs it; it ends when a player has no cards (ST-6)."""
    g = _Game(header, rng)
    while g.winner is None:
        g.round += 1
        if g.round > MAX_ROUNDS:
            raise RuntimeError("spit simulation did not converge")
        g.play_round()
    return g.events
