"""Snap referee (RULES.md SN-1..SN-7, G-1..G-3, TM-1..TM-3).

The camera sees every face-up pile and the pot in full; face-down stacks are counts. A card the camera has
seen go face down (a captured pile, a turned-over pile) is remembered as being in that player's stack, but
the order inside a stack is never assumed. Calls (or, with ``snap_by_slap``, slaps) on one snap race under
TM-3 until the tie window after the first one has passed.

Decisions where the spec is silent:
- One call takes every snap on the table when the race is ruled (two ranks snapped at once is rare).
  ``reaction_ms`` counts from the newest matching card.
- A card already face up, or known to lie in another player's stack, is an SN-1 anomaly (one deck); after
  an SN-7 turnover the next card must come from the pile just turned over.
- A card turned, or a pile turned over, while a race is still open closes the race first: the calls came
  before it.
- "Snap" when only the pot matches, or "Snap Pot" when only piles match, is a false call (SN-4).
- A false call just after the card that covered a snap is ruled under SN-5, any other under SN-6.
- After a pile or the pot is won, calls with nothing new to claim get no verdict until the next card (G-3);
  so do calls on a pot whose race was an ``unresolved_tie`` (the pot stays, TM-3), and calls or slaps by
  players who are already out.
- ``missed_snap`` (a snap covered without any call, SN-5) is logged but not spoken: it changes nothing and
  would talk over play.
- A Snap Pot made while a pot exists goes on top of it.
- ``give_top_card``: one face-down card to each other player still in, clockwise from the caller's left,
  as long as the caller has face-down cards; the face-up pile is never given.
- The last player with cards wins and takes any pot; nobody left (a pot of everyone's last cards) is a draw.
- A late call, slap or take whose arrival closes the deciding race is a G-3 late hand, not an anomaly
  (:meth:`SnapReferee.push`).
- ``take`` confirms a pile the referee already gave that player (anyone may carry piles to the pot); a take
  of one's own pile with an empty face-down stack is the SN-7 turnover, which is otherwise inferred from the
  next card.
- ``snap_by_slap``: a slap on a pile in a snap claims the snap, a slap on the pot (or on a pile that matches
  only the pot) claims the pot; the same player's second slap on one snap is one claim. A call under
  ``snap_by_slap``, or a slap without it, is an anomaly.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, ClassVar, Self

from engine.cards import RANK_PLURALS, RANK_VALUE, RANKS, STANDARD_DECK, count_cards, deal_counts
from engine.events import Event
from engine.race import Entry, Race, order
from engine.referee import Referee
from engine.verdicts import Impossible, Output

_RANK: dict[str, str] = {c: c[:-1] for c in STANDARD_DECK}
#: ``pending`` value for piles carried to the Snap Pot: any player may be seen moving them
ANYONE = "*"


def _names(players: list[str]) -> str:
    """``"A"``, ``"A and B"``, ``"A, B and C"`` for spoken sentences."""
    return players[0] if len(players) == 1 else ", ".join(players[:-1]) + " and " + players[-1]


def _ranks_said(ranks: list[str]) -> str:
    return " and ".join(RANK_PLURALS[r] for r in sorted(set(ranks), key=RANK_VALUE.__getitem__))


@dataclass
class SnapReferee(Referee):
    """Snap state: face-down counts, face-up piles, the pot, and the open call races."""

    down: dict[str, int] = field(default_factory=dict)
    #: face-down cards of each player whose identity the referee has not pinned (dealt, or lost track of)
    free: dict[str, int] = field(default_factory=dict)
    #: card -> player whose face-down stack is known to hold it
    owner: dict[str, str] = field(default_factory=dict)
    up: set[str] = field(default_factory=set)
    piles: dict[str, list[str]] = field(default_factory=dict)
    top_rank: dict[str, str | None] = field(default_factory=dict)
    top_t: dict[str, float] = field(default_factory=dict)
    #: rank -> number of visible pile tops of that rank (a snap is a count >= 2)
    rc: dict[str, int] = field(default_factory=dict)
    pot: list[str] = field(default_factory=list)
    pot_rank: str | None = None
    pot_t: float = 0.0
    active: set[str] = field(default_factory=set)
    last_turner: str | None = None
    nxt: str | None = None
    races: dict[str, Race] = field(default_factory=dict)
    #: no open race is due before this time (TM-3); inf when none is open
    due_t: float = math.inf
    win_s: float = field(default=0.02, compare=False, repr=False)
    #: player -> the next player still in, clockwise (G-1); replaced, never changed in place
    succ: dict[str, str | None] = field(default_factory=dict)
    after_win: bool = False
    pot_void: bool = False
    pot_called: bool = False
    covered: str | None = None
    pot_covered: bool = False
    #: zone -> who may be seen picking it up (a ``take`` line), after a verdict moved it
    pending: dict[str, str] = field(default_factory=dict)
    seat: dict[str, int] = field(default_factory=dict, compare=False, repr=False)

    game: ClassVar[str] = "snap"
    VARIANTS: ClassVar[dict[str, tuple[Any, ...]]] = {
        "snap_by_slap": (False, True),
        "false_call_penalty": ("none", "give_top_card"),
    }
    EVENT_TYPES: ClassVar[frozenset[str]] = frozenset({"card", "call", "slap", "take", "turn"})
    ZONE_KINDS: ClassVar[frozenset[str]] = frozenset({"pile", "pot"})

    # ------------------------------------------------------------------ setup and bookkeeping
    def setup(self) -> None:
        """SN-1: all 52 dealt face down one at a time from the dealer's left; only counts are known."""
        players = list(self.players)
        self.down = deal_counts(52, players, self.header.first_player_index)
        self.free = dict(self.down)
        self.piles = {p: [] for p in players}
        self.top_rank = {p: None for p in players}
        self.top_t = {p: 0.0 for p in players}
        self.rc = {r: 0 for r in RANKS}
        self.active = set(players)
        self.seat = {p: i for i, p in enumerate(players)}
        self.win_s = self.window_s
        self.succ = {p: self._next_active(p) for p in players}
        self.nxt = self.first_player

    def copy(self) -> Self:
        """Explicit copy of the mutable fields (deepcopy is an order of magnitude slower)."""
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        new.down = dict(self.down)
        new.free = dict(self.free)
        new.owner = dict(self.owner)
        new.up = set(self.up)
        new.piles = {p: list(v) for p, v in self.piles.items()}
        new.top_rank = dict(self.top_rank)
        new.top_t = dict(self.top_t)
        new.rc = dict(self.rc)
        new.pot = list(self.pot)
        new.active = set(self.active)
        new.races = {k: Race(r.key, list(r.entries)) for k, r in self.races.items()}
        new.pending = dict(self.pending)
        return new

    def observable_total(self) -> int | None:
        """Every card is counted: face-down stacks by count, piles and pot by sight."""
        return sum(self.down.values()) + sum(len(v) for v in self.piles.values()) + len(self.pot)

    def _next_active(self, p: str | None) -> str | None:
        """The first player still in, clockwise after ``p`` (G-1); the dealer's left before any card."""
        players = self.players
        n = len(players)
        i = self.header.first_player_index - 1 if p is None else self.seat[p]
        active = self.active
        for k in range(1, n + 1):
            q = players[(i + k) % n]
            if q in active:
                return q
        return None

    def _snap_exists(self) -> bool:
        return max(self.rc.values()) >= 2

    def _pot_match(self) -> bool:
        return self.pot_rank is not None and self.rc[self.pot_rank] > 0

    def _retop(self, p: str, ro: str | None, r: str | None) -> list[Output]:
        """Pile ``p``'s visible top went from rank ``ro`` to ``r``: keep the counts, note covered snaps."""
        if ro == r:
            return []
        rc = self.rc
        if r is not None:
            k = rc[r] + 1
            rc[r] = k
            if k == 1 and r == self.pot_rank:
                self.pot_called = False  # a new pot match, nobody has claimed it yet
        if ro is None:
            return []
        k = rc[ro] - 1
        rc[ro] = k
        if k == 1 or (k == 0 and ro == self.pot_rank):
            return self._covered(p, ro, k)
        return []

    def _covered(self, p: str, ro: str, left: int) -> list[Output]:
        """SN-5: covering ``p``'s ``ro`` ended a snap (``left`` = 1 top of that rank remains) or the pot match
        (none remains); uncalled, it was missed."""
        if left == 1:
            self.covered = ro
            return [self.verdict("missed_snap", "SN-5", f"Missed snap on {RANK_PLURALS[ro]}", player=p,
                                 voice=False, rank=ro)]
        self.pot_covered = True
        if self.pot_called:
            return []
        return [self.verdict("missed_snap", "SN-5", f"Missed Snap Pot on {RANK_PLURALS[ro]}", player=p,
                             voice=False, rank=ro, zone="pot")]

    def _turnover(self, p: str) -> list[Output]:
        """SN-7: face-down stack empty, the face-up pile is turned over and becomes the stack."""
        pile = self.piles[p]
        self.up.difference_update(pile)
        self.owner.update(dict.fromkeys(pile, p))
        self.down[p] = len(pile)
        self.piles[p] = []
        ro = self.top_rank[p]
        self.top_rank[p] = None
        return self._retop(p, ro, None)

    # ------------------------------------------------------------------ events
    def apply(self, ev: Event) -> list[Output]:
        kind = ev.type
        if kind == "card":
            return self._card(ev)
        if kind == "turn":
            return self._turn(ev)
        if kind == "call":
            return self._call(ev)
        if kind == "slap":
            return self._slap(ev)
        return self._take(ev)

    def _card(self, ev: Event) -> list[Output]:
        """SN-2: the player whose turn it is turns the top of their stack onto their own pile."""
        zone = ev.zone
        if zone is None or zone[:5] != "pile:":
            raise Impossible("cards are turned onto the turner's own pile; the pot grows only from a Snap Pot",
                             "SN-2")
        p = zone[5:]
        down = self.down
        if p not in down:
            raise Impossible(f"no player {p!r} at this table", "SN-2")
        if ev.player is not None and ev.player != p:
            raise Impossible(f"{ev.player} turns onto their own pile, not onto {p}'s", "SN-2")
        c = ev.card
        r = _RANK.get(c) if c is not None else None
        if r is None or c is None:
            raise Impossible(f"{c} is not a card of Snap's one 52-card deck", "SN-1")
        if ev.source is not None:
            raise Impossible(f"Snap has no '{ev.source}' cards: every card is turned from a stack", "SN-2")
        out: list[Output] = []
        if self.races:  # a card within the window: the calls before it are ruled first
            trial = self.copy()
            trial._close_races(self.t, force=True)
            trial._check_card(p, c)
            out = self._close_races(self.t, force=True)
        else:
            self._check_card(p, c)
        self.after_win = self.pot_void = self.pot_covered = False
        self.covered = None
        if down[p] == 0:
            out = out + self._turnover(p)
        if self.owner.pop(c, None) is None:
            self.free[p] -= 1
        down[p] -= 1
        self.piles[p].append(c)
        self.up.add(c)
        top_rank = self.top_rank
        ro = top_rank[p]
        top_rank[p] = r
        self.top_t[p] = ev.t
        if ro != r:
            rc = self.rc
            k = rc[r] + 1
            rc[r] = k
            if k == 1 and r == self.pot_rank:
                self.pot_called = False  # a new pot match, nobody has claimed it yet
            if ro is not None:
                k = rc[ro] - 1
                rc[ro] = k
                if k == 1 or (k == 0 and ro == self.pot_rank):
                    out = out + self._covered(p, ro, k)
        if self.pending:
            self.pending.pop(zone, None)
        self.last_turner = p
        self.nxt = self.succ[p]
        return out

    def _check_card(self, p: str, c: str) -> None:
        """Raise :class:`Impossible` when ``p`` cannot turn ``c`` now (nothing is changed)."""
        if self.outcome is not None:
            raise Impossible("the game is over; nothing more can happen", "SN-7")
        if p != self.nxt:
            if p not in self.active:
                raise Impossible(f"{p} has no cards and is out of the game", "SN-7")
            raise Impossible(f"out of turn: it is {self.nxt}'s turn, not {p}'s", "G-1")
        if self.down[p] == 0:
            if c not in self.piles[p]:
                raise Impossible(f"{p} has turned their pile over (SN-7) and {c} is not in it", "SN-7")
            return
        if c in self.up:
            raise Impossible(f"{c} is already face up: one deck holds it once", "SN-1")
        o = self.owner.get(c)
        if o is None:
            if self.free[p] == 0:
                raise Impossible(f"{c} cannot be in {p}'s face-down stack: every card there is known", "SN-1")
        elif o != p:
            raise Impossible(f"{c} is in {o}'s face-down stack, not {p}'s", "SN-1")

    def _call(self, ev: Event) -> list[Output]:
        """SN-3/SN-4: a spoken "Snap" claims the matching piles, "Snap Pot" the pot."""
        if self.variants["snap_by_slap"]:
            raise Impossible("with snap_by_slap players slap the matching piles; a call claims nothing", "SN-3")
        p, word = ev.player, ev.word
        if word not in ("snap", "snap pot") or p is None:
            raise Impossible(f"'{word}' is not a Snap call", "SN-3")
        if p not in self.active:
            return []  # an out player's call counts for nothing
        if word == "snap":
            if self._snap_exists():
                return self._claim("snap", ev, p)
            if self.after_win:
                return []  # G-3
            if self._pot_match() and not self.pot_void:
                return self._false(p, "SN-4", f"No snap, {p}: call Snap Pot for the pot.")
            return self._false_plain(p)
        return self._pot_claim(ev, p, spoken=True)

    def _pot_claim(self, ev: Event, p: str, spoken: bool) -> list[Output]:
        """SN-4: a "Snap Pot" call, or a slap on the pot, by an active player: the pot, or a false claim."""
        if self.pot_void:
            return []
        if self._pot_match():
            return self._claim("pot", ev, p)
        if self.after_win:
            return []  # G-3
        if self.pot_covered:
            return self._false(p, "SN-5", f"No Snap Pot, {p}: that card is covered.")
        if spoken and self._snap_exists():
            return self._false(p, "SN-4", f"No Snap Pot, {p}: those piles match each other, not the pot.")
        return self._false(p, "SN-6", f"No Snap Pot, {p}.")

    def _slap(self, ev: Event) -> list[Output]:
        """Variant ``snap_by_slap``: a hand on a matching pile (or the pot) claims it; TM-1 contact time."""
        if not self.variants["snap_by_slap"]:
            raise Impossible("snaps are called, not slapped (set snap_by_slap for slapping)", "SN-3")
        p, zone = ev.player, ev.zone
        if p is None or zone is None:
            raise Impossible("a slap needs a player and a pile", "SN-3")
        if zone == "pot":
            if not self.pot:
                if "pot" in self.pending:
                    return []  # G-3: the pot was just won and is still on the table
                raise Impossible("a slap on the pot, but there is no pot", "SN-4")
            if p not in self.active:
                return []
            return self._pot_claim(ev, p, spoken=False)
        x = zone[5:]
        pile = self.piles.get(x)
        if pile is None:
            raise Impossible(f"no pile {zone!r}", "SN-3")
        if not pile:
            if zone in self.pending:
                return []  # G-3: that pile was just won or moved to the pot
            raise Impossible(f"a slap on {x}'s pile, which is empty", "SN-3")
        if p not in self.active:
            return []
        r = self.top_rank[x]
        if r is not None and self.rc[r] >= 2:
            return self._claim("snap", ev, p)
        if r == self.pot_rank:
            return [] if self.pot_void else self._claim("pot", ev, p)
        if self.after_win:
            return []  # G-3
        return self._false_plain(p)

    def _false_plain(self, p: str) -> list[Output]:
        """A claim with no snap on the table: SN-5 if the last card covered one, else SN-6."""
        if self.covered is not None:
            return self._false(p, "SN-5", f"No snap, {p}: the {RANK_PLURALS[self.covered]} are covered.")
        return self._false(p, "SN-6", f"No snap, {p}.")

    def _take(self, ev: Event) -> list[Output]:
        """A physical pick-up: confirms a pile the referee gave away, or is the SN-7 turnover."""
        zone, p = ev.zone, ev.player
        if zone is None or p is None:
            raise Impossible("a take needs a pile and a player", "SN-3")
        out: list[Output] = []
        if self._take_kind(zone, p) != "pending" and self.races:  # a turnover rules open races first
            trial = self.copy()
            trial._close_races(self.t, force=True)
            if trial._take_kind(zone, p) is None:
                raise Impossible(f"{p} picks up {zone}, but no verdict gave it to them", "SN-3")
            out = self._close_races(self.t, force=True)
        kind = self._take_kind(zone, p)
        if kind is None:
            raise Impossible(f"{p} picks up {zone}, but no verdict gave it to them", "SN-3")
        if kind == "pending":
            del self.pending[zone]
            return out
        return out + self._turnover(p)

    def _take_kind(self, zone: str, p: str) -> str | None:
        who = self.pending.get(zone)
        if who is not None and who in (p, ANYONE):
            return "pending"
        if (self.outcome is None and zone == "pile:" + p and p in self.active and self.down[p] == 0
                and self.piles[p]):
            return "turnover"
        return None

    def _turn(self, ev: Event) -> list[Output]:
        """An explicit turn marker: only the next player still in may start a turn (G-1)."""
        if ev.player != self.nxt:
            raise Impossible(f"out of turn: it is {self.nxt}'s turn, not {ev.player}'s", "G-1")
        return []

    # ------------------------------------------------------------------ races and verdicts
    def _claim(self, key: str, ev: Event, p: str) -> list[Output]:
        """Join the race for ``key`` (TM-3); one claim per player."""
        race = self.races.get(key)
        if race is None:
            race = self.races[key] = Race(key)
        else:
            for e in race.entries:
                if e.player == p:
                    return []
        race.add(Entry(ev.t, ev.t_err, p, self.seq))
        bound = ev.t + self.win_s  # no race can close before its first claim + the window
        if bound < self.due_t:
            self.due_t = bound
        if key == "pot":
            self.pot_called = True
        return []

    def advance(self, t: float) -> list[Output]:
        """TM-3: rule every race whose tie window has passed by ``t``."""
        if t <= self.due_t:
            return []
        return self._close_races(t, force=False)

    def finish(self) -> list[Output]:
        return self._close_races(math.inf, force=True)

    def _close_races(self, now: float, force: bool) -> list[Output]:
        """Rule the due races (all with ``force``) in the order they were opened."""
        w = self.win_s
        due = []
        for race in self.races.values():
            closes = race.closes_at(w)
            if force or now > closes:
                due.append((closes, min(e.seq for e in race.entries), race))
        if not due:
            return []
        due.sort(key=lambda d: d[:2])
        out: list[Output] = []
        for closes, _seq, race in due:
            del self.races[race.key]
            if self.outcome is None:
                out.extend(self._resolve(race, min(max(self.t, closes), now)))  # when the window passed
        if self.outcome is not None:
            self.races.clear()
        self.due_t = min((r.closes_at(w) for r in self.races.values()), default=math.inf)
        return out

    def _resolve(self, race: Race, t: float) -> list[Output]:
        entries = [e for e in race.entries if e.player in self.active]
        if not entries:
            return []
        res = order(entries, self.win_s)
        if race.key == "snap":
            return self._resolve_snap(res.ranked, res.tied, t)
        return self._resolve_pot(res.ranked, res.tied, t)

    def _anticipated(self, entries: list[Entry], trigger: float, t: float) -> list[Output]:
        """TM-2: reactions under the bound are marked for the audit (not spoken)."""
        out: list[Output] = []
        bound = self.anticipation_s
        for e in entries:
            if e.t - trigger < bound:
                ms = (e.t - trigger) * 1000.0
                out.append(self.verdict("anticipated", "TM-2", f"{e.player} reacted in {ms:.0f} ms: anticipated",
                                        player=e.player, reaction_ms=ms, voice=False, t=t))
        return out

    def _resolve_snap(self, ranked: list[Entry], tied: list[Entry], t: float) -> list[Output]:
        """SN-3 (one first caller takes every matching pile) or SN-4 (tied callers make the Snap Pot)."""
        rc, top_rank, piles = self.rc, self.top_rank, self.piles
        prize = [q for q in self.players if (r := top_rank[q]) is not None and rc[r] >= 2]
        if not prize:
            return []
        ranks = [top_rank[q] or "" for q in prize]
        trigger = max(self.top_t[q] for q in prize)
        n = sum(len(piles[q]) for q in prize)
        said = _ranks_said(ranks)
        self.after_win = True
        out: list[Output] = []
        if len(tied) == 1:
            win = ranked[0]
            p = win.player
            owner, up = self.owner, self.up
            for q in prize:
                up.difference_update(piles[q])
                owner.update(dict.fromkeys(piles[q], p))
                piles[q] = []
                rc[top_rank[q] or ""] -= 1
                top_rank[q] = None
                self.pending["pile:" + q] = p
            self.down[p] += n
            out.append(self.verdict("snap", "SN-3", f"Snap, {said}! {p} takes {count_cards(n)}", player=p, cards=n,
                                    reaction_ms=(win.t - trigger) * 1000.0, piles=prize, t=t))
            out.extend(self._anticipated([win], trigger, t))
        else:
            callers = [e.player for e in tied]
            for q in prize:
                self.pot.extend(piles[q])
                piles[q] = []
                rc[top_rank[q] or ""] -= 1
                top_rank[q] = None
                self.pending["pile:" + q] = ANYONE
            self.pending.pop("pot", None)
            self.pot_rank = _RANK[self.pot[-1]]
            self.pot_t = t
            self.pot_called = False
            self.pot_void = False
            out.append(self.verdict("snap_pot", "SN-4",
                                    f"Snap Pot! {_names(callers)} called together: {count_cards(n)} to the middle",
                                    cards=n, players=callers, piles=prize,
                                    reaction_ms=(tied[0].t - trigger) * 1000.0, t=t))
            out.extend(self._anticipated(tied, trigger, t))
        out.extend(self._settle(t))
        return out

    def _resolve_pot(self, ranked: list[Entry], tied: list[Entry], t: float) -> list[Output]:
        """SN-4: the first "Snap Pot" takes the pot; a tie leaves it (TM-3, ``unresolved_tie``)."""
        if not self.pot:
            return []
        n = len(self.pot)
        trigger = max([self.pot_t] + [self.top_t[q] for q in self.players if self.top_rank[q] == self.pot_rank])
        out: list[Output] = []
        if len(tied) == 1:
            win = ranked[0]
            p = win.player
            owner, up = self.owner, self.up
            up.difference_update(self.pot)
            owner.update(dict.fromkeys(self.pot, p))
            self.pot = []
            self.pot_rank = None
            self.down[p] += n
            self.pending["pot"] = p
            self.after_win = True
            out.append(self.verdict("pot_won", "SN-4", f"Snap Pot! {p} takes the pot, {count_cards(n)}", player=p,
                                    cards=n, reaction_ms=(win.t - trigger) * 1000.0, zone="pot", t=t))
            out.extend(self._anticipated([win], trigger, t))
            out.extend(self._settle(t))
        else:
            callers = [e.player for e in tied]
            self.pot_void = True
            self.pot_called = True
            out.append(self.verdict("unresolved_tie", "TM-3",
                                    f"{_names(callers)} called Snap Pot together: the pot stays",
                                    players=callers, zone="pot", reaction_ms=(tied[0].t - trigger) * 1000.0,
                                    t=t))
        return out

    def _false(self, p: str, rule: str, say: str) -> list[Output]:
        """SN-6: a false call; with ``give_top_card`` the caller pays each other player one face-down card."""
        if self.variants["false_call_penalty"] == "none":
            return [self.verdict("false_snap", rule, say, player=p, cards=0)]
        to: list[str] = []
        i, n = self.seat[p], len(self.players)
        for k in range(1, n):
            q = self.players[(i + k) % n]
            if q in self.active and len(to) < self.down[p]:
                to.append(q)
        if to:
            if self.free[p] != self.down[p]:  # which card is on top is unknown: forget where p's known cards are
                self.owner = {c: o for c, o in self.owner.items() if o != p}
                self.free[p] = self.down[p]
            for q in to:
                self.down[p] -= 1
                self.free[p] -= 1
                self.down[q] += 1
                self.free[q] += 1
        if not to:
            say += f" {p} has no face-down card to give."
        elif len(to) == 1:
            say += f" {p} gives {to[0]} a card."
        else:
            say += f" {p} gives a card to each of {_names(to)}."
        fields: dict[str, Any] = {"to": to[0]} if len(to) == 1 else {"recipients": to} if to else {}
        out: list[Output] = [self.verdict("false_snap", rule, say, player=p, cards=len(to), **fields)]
        out.extend(self._settle(self.t))
        return out

    def _settle(self, t: float) -> list[Output]:
        """SN-7 consequences (G-2: after the verdict that moved the cards): who is out, who has won."""
        out: list[Output] = []
        for q in self.players:
            if q in self.active and self.down[q] == 0 and not self.piles[q]:
                self.active.discard(q)
                out.append(self.verdict("eliminated", "SN-7", f"{q} is out of cards", player=q, t=t))
        if not out:
            return out
        if len(self.active) == 1:
            (w,) = self.active
            if self.pot:
                self.up.difference_update(self.pot)
                self.owner.update(dict.fromkeys(self.pot, w))
                self.down[w] += len(self.pot)
                self.pot = []
                self.pot_rank = None
            out.append(self.verdict("win", "SN-7", f"{w} wins with all 52 cards!", player=w, cards=52, t=t))
            self.end(w, "holds all 52 cards", "SN-7", t)
            self.nxt = None
        elif not self.active:
            out.append(self.verdict("draw", "SN-7", "Nobody has cards left: the game is a draw", t=t))
            self.end(None, "every card is in the Snap Pot", "SN-7", t)
            self.nxt = None
        else:
            self.succ = {q: self._next_active(q) for q in self.players}
            self.nxt = self._next_active(self.last_turner)
        return out


REFEREE = SnapReferee
