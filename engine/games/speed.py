"""Speed, five-card-hand version (RULES.md SP-1..SP-10): two players race cards onto two centre piles.

The referee keeps counts only: a player's hand and stock are one number (refills to five are invisible, SP-4),
side stacks and starters are counts, and the centre piles hold the face-up cards the camera has seen.

Decisions where the spec is silent:

- A play is ruled when its pile's race closes (TM-3 window after it lands), so that a second card inside the
  window makes an ``unresolved_tie`` (SP-9) instead of two rulings.
- A card judged against a top that the *other* player laid less than ``anticipation_ms`` earlier (nobody
  reacts that fast, TM-2) was racing for the old top: its ruling carries rule SP-3. A card judged against the
  last legal top while an illegal card still lies on that pile carries SP-8. Otherwise SP-2.
- An illegal card stays its player's: it comes back with a ``remove`` line (SP-8). A legal card cannot be
  taken back (anomaly). A card line naming the pile's current top again (seen again after a take-back) is
  not an event.
- Unresolved tie: neither card is judged; both stay and the visible top (the last one logged) stands. Either
  tied card may be taken back (``remove``) until the next card lands on that pile. A tied card is not a
  legal last card (SP-7): its player takes it back and plays it again, or plays on without winning. Cards that
  land that close together cannot be told apart by whose hand laid which: a ``remove`` naming the other tied
  player takes the card back into that player's hand (the two cards' owners are swapped).
- A play must name its player (counts would be lost otherwise); a line without one is an anomaly.
- ``stuck``: a claim stands until the claimant plays or a legal card lands after it; both claims give
  ``both_stuck`` (SP-5), ruled once no play is pending. Claims while flips are due are ignored.
- Flips: the flip onto ``left`` comes from the left side stack. At ``both_stuck``, if either side stack is
  empty, the rest of both side stacks and the cards under both tops are shuffled into new side stacks, the
  left one taking the odd card (SP-6, an ``effect`` verdict).
- The win is a race too: the first legal last card wins; two last cards inside the tie window give a
  ``draw`` (TM-3).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, ClassVar, Self

from engine.cards import RANK_NAMES, RANK_VALUE, STANDARD_DECK
from engine.events import Event
from engine.race import _EPS, Entry, Race
from engine.referee import GameSetupError, Referee
from engine.verdicts import Anomaly, Impossible, Output, Verdict

ZONES: tuple[str, str] = ("left", "right")
#: deal variant -> (cards per player: hand + stock, cards per side stack) (SP-1)
DEALS: dict[str, tuple[int, int]] = {"playspit": (20, 5), "pagat": (15, 10)}
HAND_SIZE = 5

_VALUE: dict[str, int] = {c: RANK_VALUE[c[:-1]] for c in STANDARD_DECK}
_NAME: dict[str, str] = {c: RANK_NAMES[c[:-1]] for c in STANDARD_DECK}
_INF = math.inf


@dataclass
class SpeedReferee(Referee):
    """Two players, two centre piles (``left``, ``right``), two side stacks; every play is ruled."""

    game: ClassVar[str] = "speed"
    VARIANTS: ClassVar[dict[str, tuple[Any, ...]]] = {
        "deal": ("playspit", "pagat"),
        "ace_wraps": (True, False),
        "announce": ("errors", "all"),
    }
    EVENT_TYPES: ClassVar[frozenset[str]] = frozenset({"card", "stuck", "remove"})
    ZONE_KINDS: ClassVar[frozenset[str]] = frozenset(ZONES)
    #: a card found under the top as the top is taken back landed before it: ruled there (SP-3), not on the top
    LATE_KEEP_S: ClassVar[float] = 3.0

    #: cards in each player's hand + stock (on the table: not counted here)
    held: dict[str, int] = field(default_factory=dict)
    #: cards each player has on a pile whose race is still open
    inflight: dict[str, int] = field(default_factory=dict)
    side: dict[str, int] = field(default_factory=dict)
    starters: int = 2
    #: face-up cards on each centre pile, bottom first; the last is the standing (legal) top
    piles: dict[str, list[str]] = field(default_factory=dict)
    #: every face-up card on the table (piles, open races, illegal cards) -> its zone
    where: dict[str, str] = field(default_factory=dict)
    #: illegal card -> (zone, player) until it is taken back (SP-8)
    pending: dict[str, tuple[str, str]] = field(default_factory=dict)
    #: card of an unresolved tie -> (zone, player) until the next card lands on that zone (SP-9)
    disputed: dict[str, tuple[str, str]] = field(default_factory=dict)
    #: card taken back -> the hand it went into (nobody else can play it)
    back: dict[str, str] = field(default_factory=dict)
    flips_due: list[str] = field(default_factory=list)
    #: player -> time of their standing "stuck" claim
    claims: dict[str, float] = field(default_factory=dict)
    races: dict[str, Race] = field(default_factory=dict)
    due: dict[str, float] = field(default_factory=dict)
    top_by: dict[str, str | None] = field(default_factory=dict)
    top_t: dict[str, float] = field(default_factory=dict)
    #: legal last cards racing for the win (SP-7, TM-3)
    finishers: Race | None = None
    finish_close: float = _INF
    next_due: float = _INF
    wraps: bool = True
    voice_legal: bool = False
    win_s: float = 0.02
    antic_s: float = 0.1

    # ------------------------------------------------------------------ setup
    def setup(self) -> None:
        """SP-1: counts after the deal; the starters are still face down."""
        if len(self.players) != 2:
            raise GameSetupError(f"speed is for exactly two players, not {len(self.players)}")
        per, side = DEALS[self.variants["deal"]]
        self.held = {p: per for p in self.players}
        self.inflight = {p: 0 for p in self.players}
        self.side = {z: side for z in ZONES}
        self.starters = 2
        self.piles = {z: [] for z in ZONES}
        self.top_by = {z: None for z in ZONES}
        self.top_t = {z: self.t for z in ZONES}
        self.flips_due = list(ZONES)
        self.wraps = self.variants["ace_wraps"]
        self.voice_legal = self.variants["announce"] == "all"
        self.win_s = self.window_s
        self.antic_s = self.anticipation_s

    def copy(self) -> Self:
        """Explicit copy: every mutable field copied one level deep (Races get their own entry lists)."""
        new = object.__new__(type(self))
        d = dict(self.__dict__)
        for name in ("held", "inflight", "side", "where", "pending", "disputed", "back", "claims", "due",
                     "top_by", "top_t"):
            d[name] = dict(d[name])
        d["piles"] = {z: list(p) for z, p in self.piles.items()}
        d["flips_due"] = list(self.flips_due)
        d["races"] = {z: Race(r.key, list(r.entries)) for z, r in self.races.items()}
        if self.finishers is not None:
            d["finishers"] = Race(self.finishers.key, list(self.finishers.entries))
        new.__dict__.update(d)
        return new

    def observable_total(self) -> int | None:
        """Every card is accounted for: hands+stocks, face-up cards on the table, side stacks, starters."""
        return sum(self.held.values()) + len(self.where) + self.side["left"] + self.side["right"] + self.starters

    def hand_count(self, player: str) -> int:
        """Cards in ``player``'s hand, assuming the refill of SP-4 (at most five while the stock lasts)."""
        return min(HAND_SIZE, self.held[player])

    def stock_count(self, player: str) -> int:
        return self.held[player] - self.hand_count(player)

    # ------------------------------------------------------------------ observations
    def push(self, ev: Event) -> list[Output]:
        """``Referee.push`` with its generic checks inlined: the replay hot path. Same contract and outputs
        (a test pushes random logs through both); anything unusual takes the base class's path."""
        typ = ev.type
        p = ev.player
        z = ev.zone
        if (self.outcome is not None or typ not in self.EVENT_TYPES or (p is not None and p not in self.held)
                or (z is not None and z not in self.ZONE_KINDS) or ev.misread is not None):
            return Referee.push(self, ev)
        t = ev.t
        out: list[Output]
        if t > self.t:
            out = self.advance(t) if t > self.next_due else []
            self.t = t
            if self.outcome is not None:  # a race closed by the passing of time ended the game
                out.append(Anomaly(t, "the game is over; nothing more can happen", ev.to_dict(), None, ev.line))
                return out
        else:
            out = []
        try:
            if typ == "card":
                res = self._card(ev)
            elif typ == "stuck":
                res = self._stuck(ev)
            else:
                res = self._remove(ev)
        except Impossible as e:
            out.append(Anomaly(t, e.reason, ev.to_dict(), e.rule, ev.line))
            return out
        self.seq += 1
        if res:
            out.extend(res)
        return out

    def apply(self, ev: Event) -> list[Output]:
        if ev.zone is not None and ev.zone not in self.ZONE_KINDS:
            raise Impossible(f"zone {ev.zone!r} does not exist in speed")
        typ = ev.type
        if typ == "card":
            return self._card(ev)
        if typ == "stuck":
            return self._stuck(ev)
        return self._remove(ev)

    def _card(self, ev: Event) -> list[Output]:
        c = ev.card
        z = ev.zone
        if c not in _VALUE or z is None:
            raise Impossible(f"{c} is not in Speed's 52-card deck", "SP-1")
        if ev.source is not None or z in self.flips_due:
            return self._flip(ev, c, z)
        seen = self.where.get(c)
        if seen is not None:
            pile = self.piles[z]
            if seen == z and ((pile and pile[-1] == c) or c in self.pending):
                return []  # the same card seen again (a hand moved away, a card on it was taken back)
            raise Impossible(f"{c} is already face up on the {seen} pile", "SP-1")
        p = ev.player
        if p is None:
            raise Impossible("a play must name the player who made it", "SP-8")
        owner = self.back.get(c)
        if owner is not None and owner != p:
            raise Impossible(f"{c} went back into {owner}'s hand; {p} cannot play it", "SP-8")
        if self.held[p] <= 0:
            raise Impossible(f"{p} has no cards left in hand or stock", "SP-4")
        # --- the card lands: it joins the race for this pile
        self.held[p] -= 1
        self.inflight[p] += 1
        self.where[c] = z
        if owner is not None:
            del self.back[c]
        if p in self.claims:
            del self.claims[p]
        if self.disputed:
            self._settle(z)
        entry = Entry(ev.t, ev.t_err, p, self.seq, c)
        race = self.races.get(z)
        if race is None:  # the common case: Race.closes_at for one entry, inlined
            self.races[z] = Race(z, [entry])
            w = self.win_s
            te = entry.t_err + entry.t_err
            close = entry.t + (w if w >= te else te) + _EPS
        else:
            race.entries.append(entry)
            close = race.closes_at(self.win_s)
        self.due[z] = close
        if close < self.next_due:
            self.next_due = close
        return []

    def _flip(self, ev: Event, c: str, z: str) -> list[Output]:
        """SP-10: a starter or side-stack card turned onto a centre pile; never judged."""
        if ev.source == "spit":
            raise Impossible("spit cards belong to Spit, not Speed", "SP-10")
        if z not in self.flips_due:
            if self.piles[z] and self.piles[z][-1] == c:
                return []  # the top seen again
            raise Impossible(f"no flip is due on the {z} pile: side cards are turned only when both "
                             "players are stuck", "SP-5")
        if c in self.where:
            raise Impossible(f"{c} is already face up on the {self.where[c]} pile", "SP-1")
        if c in self.back:
            raise Impossible(f"{c} went back into {self.back[c]}'s hand", "SP-10")
        if self.starters > 0:
            self.starters -= 1
        elif self.side[z] > 0:
            self.side[z] -= 1
        else:
            raise Impossible(f"the {z} side stack is empty", "SP-6")
        self.piles[z].append(c)
        self.where[c] = z
        self.flips_due.remove(z)
        self.top_by[z] = None
        self.top_t[z] = ev.t
        if self.disputed:
            self._settle(z)
        return []

    def flip_source(self, zone: str | None, t: float) -> str | None:
        """SP-10: a card landing on a centre pile whose flip is due (at the start, after ``both_stuck``) is that
        flip. ``both_stuck`` may still wait on a race that time ``t`` closes: a copy is advanced to see."""
        if zone not in ZONES or self.outcome is not None:
            return None
        if zone in self.flips_due:
            return "side"
        if t > self.t and self.races and len(self.claims) == len(self.players):  # _check_stuck's own test
            trial = self.copy()
            trial.advance(t)
            return "side" if zone in trial.flips_due else None
        return None

    def _stuck(self, ev: Event) -> list[Output]:
        """SP-5: one claim changes nothing for the other player; two make both flip."""
        p = ev.player
        if p is None:
            raise Impossible("a stuck line must say who is stuck", "SP-5")
        if self.flips_due or p in self.claims:
            return []
        self.claims[p] = ev.t
        return self._check_stuck(self.t)

    def _remove(self, ev: Event) -> list[Output]:
        """SP-8 / SP-9: an illegal card (or a card of an unresolved tie) goes back into its player's hand."""
        c = ev.card
        z = ev.zone
        info = self.pending.get(c) if c is not None else None
        tied = False
        if info is None and c is not None:
            info = self.disputed.get(c)
            tied = info is not None
        if info is None:
            seen = self.where.get(c) if c is not None else None
            if seen is not None and any(e.data == c for r in self.races.values() for e in r.entries):
                raise Impossible(f"{c} has not been ruled yet", "SP-8")
            if seen is not None:
                raise Impossible(f"{c} was a legal play: it stays on the {seen} pile", "SP-8")
            raise Impossible(f"{c} is not lying on the table", "SP-8")
        zone, owner = info
        if zone != z:
            raise Impossible(f"{c} lies on the {zone} pile, not the {z} pile", "SP-8")
        if ev.player is not None and ev.player != owner:
            swap = [d for d, (dz, dp) in self.disputed.items() if dz == zone and dp == ev.player] if tied else []
            if not swap:
                raise Impossible(f"{c} is {owner}'s card; {ev.player} cannot take it back", "SP-8")
            # which hand laid which of the tied cards was too close to call: the hand that takes one back says
            self.disputed[swap[0]] = (zone, owner)
            owner = ev.player
        assert c is not None
        self.held[owner] += 1
        del self.where[c]
        self.back[c] = owner
        if tied:
            del self.disputed[c]
            pile = self.piles[zone]
            pile.remove(c)
            self.top_by[zone] = None
        else:
            del self.pending[c]
        return []

    def _settle(self, z: str) -> None:
        """A card landed on ``z``: the tied cards under it stand for good (SP-9)."""
        for c in [c for c, (zone, _p) in self.disputed.items() if zone == z]:
            del self.disputed[c]

    # ------------------------------------------------------------------ time
    def advance(self, t: float) -> list[Output]:
        """Rule every race whose tie window has passed, earliest first (TM-3), then the win and SP-5."""
        if t <= self.next_due:
            return []
        out: list[Output] = []
        last = self.t
        due = self.due
        while self.outcome is None:
            zone = None
            close = _INF
            for z, zc in due.items():
                if zc < close:
                    zone, close = z, zc
            if self.finishers is not None and self.finish_close <= close and t > self.finish_close:
                fc = self.finish_close
                if not any(r.first_t <= fc for r in self.races.values()):
                    out.extend(self._rule_finish(fc))
                    last = fc
                    continue
            if zone is None or t <= close:
                break
            out.extend(self._rule_race(zone, close))
            last = close
        if self.claims and self.outcome is None:
            out.extend(self._check_stuck(last))
        nd = self.finish_close if self.finishers is not None else _INF
        for zc in due.values():
            if zc < nd:
                nd = zc
        self.next_due = nd
        return out

    def _rule_race(self, z: str, tv: float) -> list[Output]:
        race = self.races.pop(z)
        del self.due[z]
        entries = race.entries
        if len(entries) == 1:
            return self._judge(entries[0], z, tv)
        res = race.result(self.win_s)
        out: list[Output] = []
        rest = res.ranked
        if len(res.tied) > 1:
            out.append(self._tie(z, res.tied, tv))
            tied = {e.seq for e in res.tied}
            rest = [e for e in rest if e.seq not in tied]
        for e in rest:
            out.extend(self._judge(e, z, tv))
        if rest and self.disputed:
            self._settle(z)
        return out

    def _judge(self, e: Entry, z: str, tv: float) -> list[Output]:
        """SP-2/SP-3/SP-8: one card against the top at the moment it landed."""
        c: str = e.data
        p = e.player
        pile = self.piles[z]
        top = pile[-1]
        self.inflight[p] -= 1
        d = _VALUE[c] - _VALUE[top]
        legal = d == 1 or d == -1 or (self.wraps and (d == 12 or d == -12))
        by = self.top_by[z]
        if by is not None and by != p and e.t - self.top_t[z] < self.antic_s:
            rule = "SP-3"
        elif self.pending and any(zone == z for zone, _ in self.pending.values()):
            rule = "SP-8"
        else:
            rule = "SP-2"
        if not legal:
            self.pending[c] = (z, p)
            say = f"Illegal: {_NAME[c]} on {_NAME[top]}"
            if rule == "SP-3":
                say += f", the {_NAME[top]} was first"
            return [Verdict(tv, "illegal_play", rule, say + f". {p}, take it back", player=p,
                            extra={"zone": z, "card": c, "on": top})]
        pile.append(c)
        self.top_by[z] = p
        self.top_t[z] = e.t
        if self.claims:
            self._stale(e.t)
        v = Verdict(tv, "legal_play", rule, f"{p}: {_NAME[c]} on {_NAME[top]}", player=p,
                    voice=self.voice_legal, extra={"zone": z, "card": c, "on": top})
        if self.held[p] == 0 and self.inflight[p] == 0 and not any(q == p for _z, q in self.pending.values()):
            if self.finishers is None:
                self.finishers = Race("out")
            self.finishers.add(Entry(e.t, e.t_err, p, e.seq, z))
            self.finish_close = self.finishers.closes_at(self.win_s)
        return [v]

    def _tie(self, z: str, tied: list[Entry], tv: float) -> Verdict:
        """SP-9: cards closer than the tie window; nobody is judged, the visible top stands."""
        pile = self.piles[z]
        logged = sorted(tied, key=lambda e: e.seq)
        for e in logged:
            pile.append(e.data)
            self.inflight[e.player] -= 1
            self.disputed[e.data] = (z, e.player)
        self.top_by[z] = logged[-1].player
        self.top_t[z] = logged[-1].t
        if self.claims:
            self._stale(min(e.t for e in tied))
        names = sorted({e.player for e in tied}, key=self.players.index)
        return self.verdict("unresolved_tie", "SP-9",
                            f"Too close to call on the {z} pile: the {_NAME[pile[-1]]} on top stands",
                            t=tv, zone=z, played=[e.data for e in logged], players=names)

    def _stale(self, tc: float) -> None:
        """A top changed at ``tc``: stuck claims made before it no longer hold."""
        for q in [q for q, tq in self.claims.items() if tq < tc]:
            del self.claims[q]

    def _check_stuck(self, tv: float) -> list[Output]:
        if (self.races or self.finishers is not None or self.flips_due or self.outcome is not None
                or len(self.claims) < len(self.players)):
            return []
        return self._both_stuck(tv)

    def _both_stuck(self, tv: float) -> list[Output]:
        """SP-5: both flip a side card; SP-6: rebuild the side stacks first when one is empty."""
        out: list[Output] = [self.verdict("both_stuck", "SP-5", "Both stuck: flip!", t=tv)]
        self.claims.clear()
        self.disputed.clear()
        self.flips_due = list(ZONES)
        if self.side["left"] == 0 or self.side["right"] == 0:
            n = self.side["left"] + self.side["right"]
            for z in ZONES:
                pile = self.piles[z]
                for c in pile[:-1]:
                    del self.where[c]
                n += max(len(pile) - 1, 0)
                self.piles[z] = pile[-1:]
            self.side = {"left": (n + 1) // 2, "right": n // 2}
            out.append(self.verdict(
                "effect", "SP-6",
                f"Side stacks are empty: keep the tops, shuffle the {n} cards under them into new side stacks",
                t=tv, cards=n, effect="new_side_stacks", left=self.side["left"], right=self.side["right"]))
        return out

    def _rule_finish(self, tv: float) -> list[Output]:
        """SP-7: the first legal last card wins; two inside the tie window draw (TM-3)."""
        assert self.finishers is not None
        res = self.finishers.result(self.win_s)
        self.finishers = None
        self.finish_close = _INF
        out: list[Output]
        if res.winner is None:
            names = [e.player for e in res.tied]
            say = f"{' and '.join(names)} went out together: a draw"
            out = [self.verdict("draw", "TM-3", say, t=tv, players=names)]
            self.end(None, say, "TM-3", tv)
        else:
            p = res.winner.player
            out = [self.verdict("win", "SP-7", f"{p} is out of cards: {p} wins!", t=tv, player=p)]
            self.end(p, f"{p} played their last card legally", "SP-7", tv)
        self.races.clear()
        self.due.clear()
        self.next_due = _INF
        return out


REFEREE = SpeedReferee
