"""Spit referee (RULES.md ST-1..ST-7 with SP-8, SP-9, SP-10 and ``ace_wraps``; seed 003, second half).

How a perfect camera logs Spit (EVENTS.md kinds only; the referee infers the rest from card identities):

- The deal: the visible top of each column appears, ``card`` on ``col:<p>:<k>`` with ``source: deal``. The
  column heights are not logged: the referee knows them from the card counts (decision 1 below).
- A face-down column card turned up: ``card`` on that column (no source, or ``deal``). Never judged.
- A column top moved into an empty column (ST-3): ``card`` on the empty column. The card says where it came
  from: it must be a visible top of another of that player's columns.
- A play: ``card`` on ``left`` / ``right``; ``player`` is optional (the card names its owner). It must be a
  visible column top.
- A spit card: ``card`` on ``left`` / ``right`` with ``source: spit`` (SP-10). Without ``source``, a card that is
  no column top while a spit card is owed is the flip; without ``player`` it is the only owing player's, else
  ``left`` is the first listed player's and ``right`` the second's.
- ``stuck``: a player says they cannot play. ``remove`` on a pile: an illegal card taken back (SP-8).
- Round end (ST-5): ``slap`` on ``left`` / ``right``, the pile each chooses; ``t`` is the contact time (TM-1).

Verdicts: ``legal_play`` (silent unless ``announce=all``), ``illegal_play``, ``unresolved_tie``, ``both_stuck``,
``effect`` (who takes which pile; fields ``piles``, ``totals``), ``win``, ``anticipated`` (TM-2, silent), and two
kinds of this game: ``round_end`` (a layout is clear: "slap a pile") and ``not_stuck`` (ST-4, decision 4).

Decisions where the spec is silent:

1. Layout heights: 15+ cards give 1,2,3,4,5 (ST-1) and the rest are spit cards; fewer are dealt in rows as a
   table deals (row r covers columns r..5), so 12 cards give 1,2,3,3,3. Exactly 15 leaves no spit card either.
   A round has as many centre piles as players holding spit cards at the deal (2, or 1 for ST-5's short deal).
2. A play is ruled once its tie window has passed (verdict time = landing + window). A tie (SP-9) is ruled
   anyway where every landing order gives the same rulings (e.g. one card fits neither); otherwise cards that
   some order would rule differently are not judged and stay on the pile, the last one in log order being the
   top ("the next top that is seen stands"), and ``unresolved_tie`` is spoken. A flip, ``stuck``, ``slap`` or
   ``remove`` closes the open races first (those cards landed before it).
3. An illegal card (SP-8) waits on the pile until its ``remove``, then goes back on top of the column it came
   from; until then it cannot be played again. Cards still in flight when a round ends are judged as usual;
   a card played after the round end is ``illegal_play`` under ST-5 and taken back.
4. ``stuck`` is checked against what the camera sees: a player with a visible top that fits a pile, a
   face-down column top to turn, or an empty column and a top whose move uncovers a card is not stuck
   (``not_stuck``). A claim stays until that player's next action; ``both_stuck`` when the second claim comes
   and the first still holds. Claims while a spit card is owed are moot (no verdict).
5. Flips: at the deal each player with spit cards flips once, starting the piles (two piles: the second flip
   starts the other pile); after ``both_stuck`` each player with spit cards flips once, onto either pile.
6. ST-5 slaps: the first slap by time (TM-3) decides: its player takes that pile, the other player the other
   one. Players tied on one pile: ``unresolved_tie`` (TM-3) and they slap again. After the piles are taken,
   later slaps get no verdict (G-3) until the next card is seen. A deciding slap sooner than 100 ms after the
   round ended (the last card landing, or the second stuck claim) gets a silent ``anticipated`` mark (TM-2).
7. One centre pile (ST-6): the first to clear takes none of it, the other takes it. Both stuck with no spit
   cards: the player with more cards left in the layout takes it (the one further from clearing; equal: the
   player who started it). Whoever has no cards at all after the piles are taken wins (ST-6).
8. A ``card`` line on a column with ``misread`` (an extension of EVENTS.md) says the column's face-up top, logged as
   that card, is this one (a look-alike read wrong, read again): the top is renamed; no play, no verdict. Nothing
   lands on a face-up column card (ST-3), so only a column's top is ever corrected so, and only to a card not yet
   on the table (one deck). On a centre pile, such a line says a card laid there and ruled (a legal play or a spit
   card, not one in its tie window, nor an illegal one to take back) was this one: the card the pile was logged
   with is off the table again (it shows up later, turned up on a column), this one on it; the pile's top is
   renamed if it is that card. What was ruled stands.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any, ClassVar, Self

from engine.cards import RANK_NAMES, RANK_VALUE, STANDARD_DECK, adjacent
from engine.events import Event
from engine.race import Entry, Race, order
from engine.referee import GameSetupError, Referee
from engine.verdicts import Impossible, Output, Verdict

PILES: tuple[str, str] = ("left", "right")
_DECK: frozenset[str] = frozenset(STANDARD_DECK)
_NAME: dict[str, str] = {c: RANK_NAMES[c[:-1]] for c in STANDARD_DECK}
_VALUE: dict[str, int] = {c: RANK_VALUE[c[:-1]] for c in STANDARD_DECK}
_INF = float("inf")
_EPS = 1e-9  # as engine.race: 10.02 - 10.00 is exactly 20 ms
#: a card in flight: landing time, t_err, player, log sequence, card, the column it came from
Landing = tuple[float, float, str, int, str, str]
#: largest tie whose landing orders are all tried (5! = 120); larger ties are left unjudged
MAX_PERMUTED = 5


def layout_shape(n: int) -> list[int]:
    """Column heights for ``n`` cards (ST-1; decision 1): rows dealt left to right, row r on columns r..5."""
    heights = [0, 0, 0, 0, 0]
    left = min(n, 15)
    for r in range(5):
        for c in range(r, 5):
            if left == 0:
                return heights
            heights[c] += 1
            left -= 1
    return heights


@dataclass
class SpitReferee(Referee):
    """Referees one Spit game (two players, rounds until someone has no cards) from the camera's log."""

    game: ClassVar[str] = "spit"
    VARIANTS: ClassVar[dict[str, tuple[Any, ...]]] = {
        "ace_wraps": (True, False),
        "announce": ("errors", "all"),
    }
    EVENT_TYPES: ClassVar[frozenset[str]] = frozenset({"card", "slap", "stuck", "remove"})
    ZONE_KINDS: ClassVar[frozenset[str]] = frozenset({"left", "right", "col"})
    MISREAD_ZONES: ClassVar[frozenset[str]] = frozenset({"col", "left", "right"})
    LATE_KEEP_S: ClassVar[float] = 3.0  # (as Speed's: ST-7)

    col_owner: dict[str, str] = field(default_factory=dict)  # column zone -> player (fixed)
    cols_of: dict[str, tuple[str, ...]] = field(default_factory=dict)  # player -> its five zones (fixed)
    other: dict[str, str] = field(default_factory=dict)  # player -> opponent (fixed)
    down: dict[str, int] = field(default_factory=dict)  # face-down cards per column
    up: dict[str, list[str]] = field(default_factory=dict)  # face-up cards per column, top last
    tops: dict[str, str] = field(default_factory=dict)  # visible column top -> its column
    spit: dict[str, int] = field(default_factory=dict)  # spit cards per player
    held: dict[str, int] = field(default_factory=dict)  # layout + illegal cards to take back + cards in flight
    top: dict[str, str | None] = field(default_factory=dict)  # judged top of each pile; None: no pile
    size: dict[str, int] = field(default_factory=dict)  # cards in each pile (judged or standing)
    n_piles: int = 2
    flying: dict[str, list[Landing]] = field(default_factory=dict)  # pile -> cards within their tie window
    slaps: Race | None = None  # ST-5 pile choice
    due: float = _INF  # no race can be due at or before this time
    loose: dict[str, tuple[str, str, str]] = field(default_factory=dict)  # illegal card -> player, pile, column
    seen: set[str] = field(default_factory=set)  # cards face up or played this round (one deck)
    owed: list[str] = field(default_factory=list)  # players who must flip a spit card now
    stuck: list[str] = field(default_factory=list)  # players whose stuck claim stands
    phase: str = "play"  # "play", "choose" (ST-5 slaps) or "over"
    round_no: int = 1
    cleared: str | None = None  # first player to clear their layout this round
    round_end_t: float = 0.0  # when the round ended (reaction time of the slaps)
    starter: str | None = None  # who started the single pile (one-pile round)
    quiet: bool = False  # piles just taken: late slaps get no verdict (G-3)
    wraps: bool = True
    loud: bool = False
    window: float = 0.02  # TM-3 tie window, seconds

    # ----------------------------------------------------------------- setup and copying
    def setup(self) -> None:
        """ST-1: 26 cards each, columns of 1-5 with the tops face up, 11 spit cards."""
        if len(self.players) != 2:
            raise GameSetupError(f"spit is for exactly two players, not {len(self.players)}")
        a, b = self.players
        self.other = {a: b, b: a}
        for p in self.players:
            zones = tuple(f"col:{p}:{k}" for k in range(1, 6))
            self.cols_of[p] = zones
            for z in zones:
                self.col_owner[z] = p
        self.wraps = bool(self.variants["ace_wraps"])
        self.loud = self.variants["announce"] == "all"
        self.window = self.window_s
        half = self.DECK_SIZE // 2
        self.deal({a: half, b: self.DECK_SIZE - half})

    def deal(self, totals: dict[str, int]) -> None:
        """Lay out every player's cards for a new round (ST-1, ST-5); only counts are known. Called at the start
        and after each round; tests call it to start from a later round's counts (they must add up to 52)."""
        for p in self.players:
            n = totals[p]
            shape = layout_shape(n)
            for z, h in zip(self.cols_of[p], shape, strict=True):
                self.down[z] = h
                self.up[z] = []
            self.held[p] = sum(shape)
            self.spit[p] = n - sum(shape)
        self.tops = {}
        self.loose = {}
        self.seen = set()
        self.top = {"left": None, "right": None}
        self.size = {"left": 0, "right": 0}
        self.owed = [p for p in self.players if self.spit[p] > 0]
        self.n_piles = max(1, len(self.owed))
        self.starter = self.owed[0] if len(self.owed) == 1 else None
        self.stuck = []
        self.phase = "play"
        self.flying = {}
        self.slaps = None
        self.due = _INF
        self.cleared = None

    def copy(self) -> Self:
        """Explicit copy of the mutable parts: ``step`` copies on every event."""
        new = object.__new__(type(self))
        d = self.__dict__.copy()
        d["down"] = self.down.copy()
        d["up"] = {z: u.copy() for z, u in self.up.items()}
        d["tops"] = self.tops.copy()
        d["spit"] = self.spit.copy()
        d["held"] = self.held.copy()
        d["top"] = self.top.copy()
        d["size"] = self.size.copy()
        d["flying"] = {k: v.copy() for k, v in self.flying.items()}
        if self.slaps is not None:
            d["slaps"] = Race(self.slaps.key, list(self.slaps.entries))
        d["loose"] = self.loose.copy()
        d["seen"] = self.seen.copy()
        d["owed"] = self.owed.copy()
        d["stuck"] = self.stuck.copy()
        new.__dict__.update(d)
        return new

    def observable_total(self) -> int | None:
        """Every card is counted: columns, spit stacks, piles, cards in flight and cards to take back."""
        return (sum(self.down.values()) + sum(len(u) for u in self.up.values()) + sum(self.spit.values())
                + sum(self.size.values()) + sum(len(v) for v in self.flying.values()) + len(self.loose))

    # ----------------------------------------------------------------- events
    def apply(self, ev: Event) -> list[Output]:
        card = ev.card
        typ = ev.type
        if typ == "card":
            if card not in _DECK:
                raise Impossible(f"{card} is not in a 52-card deck", "ST-1")
            owner = self.col_owner.get(ev.zone)  # type: ignore[arg-type]
            if owner is not None:
                return self._column_card(ev, card, owner)
            if ev.zone not in PILES:
                raise Impossible(f"there is no column {ev.zone}: never more than five columns", "ST-3")
            if ev.misread is not None:
                return self._pile_misread(ev.zone, card, ev.misread)
            if ev.source is None and card in self.tops:
                return self._play(ev, card)
            return self._closing_races(ev, SpitReferee._flip)
        if typ == "stuck":
            return self._closing_races(ev, SpitReferee._stuck)
        if ev.zone not in PILES:
            raise Impossible(f"a {typ} on {ev.zone} means nothing in spit", "ST-5" if typ == "slap" else "SP-8")
        if typ == "slap":
            return self._closing_races(ev, SpitReferee._slap)
        return self._closing_races(ev, SpitReferee._remove)

    def _closing_races(self, ev: Event, handler: Any) -> list[Output]:
        """Cards still in their tie window landed before ``ev``: rule them first (G-2). Done on a copy so that
        an impossible ``ev`` leaves this state untouched."""
        if not self.flying:
            return handler(self, ev)
        trial = self.copy()
        out = trial._close(trial.t, flush_piles=True)
        if trial.outcome is not None:
            raise Impossible("the game ended before this line", "ST-6")
        out += handler(trial, ev)
        self.__dict__.update(trial.__dict__)
        return out

    def _column_card(self, ev: Event, card: str, owner: str) -> list[Output]:
        """A turned-up face-down card, a dealt top, or a top moved into an empty column (ST-1, ST-3)."""
        zone: str = ev.zone  # type: ignore[assignment]
        rule = "ST-1" if ev.source == "deal" else "ST-3"
        if ev.player is not None and ev.player != owner:
            raise Impossible(f"{zone} is {owner}'s column, not {ev.player}'s", rule)
        if ev.source not in (None, "deal"):
            raise Impossible(f"a {ev.source} card cannot land on a column", "SP-10")
        if self.phase != "play":
            raise Impossible("the round is over: the piles are being chosen", "ST-5")
        u = self.up[zone]
        if ev.misread is not None:
            return self._misread(zone, card, ev.misread)
        if u:
            raise Impossible(f"{zone} already shows {u[-1]}: a column takes a card only when empty", rule)
        tops = self.tops
        if card in self.loose:
            raise Impossible(f"{card} still lies on {self.loose[card][1]}: an illegal card comes back with a remove",
                             "SP-8")
        if self.down[zone]:
            if card in self.seen:
                raise Impossible(f"{card} is already on the table; the card turned up on {zone} must be new", rule)
            self.down[zone] -= 1
            self.seen.add(card)
        else:
            src = tops.get(card)
            if src is None or self.col_owner[src] != owner:
                if card in self.seen:
                    raise Impossible(f"{card} is not a visible top of {owner}'s columns", "ST-3")
                raise Impossible(f"{zone} is empty: it can only take the top card of another of {owner}'s columns",
                                 "ST-3")
            su = self.up[src]
            su.pop()
            if su:
                tops[su[-1]] = src
        u.append(card)
        tops[card] = zone
        if owner in self.stuck:
            self.stuck.remove(owner)
        self.quiet = False
        return []

    def _misread(self, zone: str, card: str, was: str) -> list[Output]:
        """Decision 8: ``zone``'s face-up top, logged as ``was``, is ``card``."""
        u = self.up[zone]
        if not u or u[-1] != was:
            shows = f"shows {u[-1]}" if u else "shows no face-up card"
            raise Impossible(f"{zone} {shows}, not {was}: there is no such top to correct", "ST-3")
        if card in self.seen or card in self.loose:
            raise Impossible(f"{card} is already on the table (one deck): {zone}'s {was} cannot be it", "ST-1")
        u[-1] = card
        del self.tops[was]
        self.tops[card] = zone
        self.seen.discard(was)
        self.seen.add(card)
        return []

    def _pile_misread(self, zone: str, card: str, was: str) -> list[Output]:
        """Decision 8: ``was``, laid on the centre pile ``zone`` and ruled, was ``card``."""
        if was not in self.seen or was in self.tops or was in self.loose \
                or any(e[4] == was for e in self.flying.get(zone, ())):
            raise Impossible(f"{was} is no card laid and ruled on the centre piles: there is no such card to correct",
                             "ST-2")
        if card in self.seen or card in self.loose:
            raise Impossible(f"{card} is already on the table (one deck): the {was} on {zone} cannot be it", "ST-1")
        self.seen.discard(was)
        self.seen.add(card)
        if self.top[zone] == was:
            self.top[zone] = card
        return []

    def _play(self, ev: Event, card: str) -> list[Output]:
        """A column top lands on a centre pile; it is ruled when its tie window has passed (ST-2, SP-9)."""
        zone: str = ev.zone  # type: ignore[assignment]
        src = self.tops[card]
        owner = self.col_owner[src]
        if ev.player is not None and ev.player != owner:
            raise Impossible(f"{card} lies in {owner}'s layout, not {ev.player}'s", "ST-2")
        if self.top[zone] is None:
            if self.n_piles == 1 and any(self.top.values()):
                raise Impossible(f"there is only one centre pile this round, not {zone}", "ST-5")
            raise Impossible(f"there is no {zone} pile yet: spit cards start the piles", "ST-2")
        su = self.up[src]
        su.pop()
        del self.tops[card]
        if su:
            self.tops[su[-1]] = src
        if owner in self.stuck:
            self.stuck.remove(owner)
        self.quiet = False
        if self.phase != "play":
            self.loose[card] = (owner, zone, src)
            top = self.top[zone]
            return [self.verdict("illegal_play", "ST-5", f"Too late, the round is over: {owner}, take it back",
                                 player=owner, zone=zone, card=card, on=top)]
        landing = (ev.t, ev.t_err, owner, self.seq, card, src)  # a plain tuple: Entry costs 2 us, too slow
        flying = self.flying.get(zone)
        if flying is None:
            self.flying[zone] = [landing]
            te2 = ev.t_err * 2
            closes = ev.t + (self.window if self.window >= te2 else te2) + _EPS
        else:
            flying.append(landing)
            closes = self._closes(flying)
        if closes < self.due:
            self.due = closes
        return []

    def _flip(self, ev: Event) -> list[Output]:
        """A spit card turned onto the centre (ST-2, ST-4; SP-10): never judged."""
        card: str = ev.card  # type: ignore[assignment]
        zone: str = ev.zone  # type: ignore[assignment]
        if ev.source not in (None, "spit"):
            raise Impossible(f"a {ev.source} card has no place on a spit pile", "SP-10")
        if self.phase != "play":
            raise Impossible("the round is over: the piles are being chosen", "ST-5")
        if card in self.tops:
            raise Impossible(f"{card} is a column top, not a spit card", "SP-10")
        if card in self.loose:
            raise Impossible(f"{card} still lies on {self.loose[card][1]} as an illegal card: take it back first",
                             "SP-8")
        if card in self.seen:
            raise Impossible(f"{card} is already on the table (one deck)", "ST-1")
        owed = self.owed
        if not owed:
            if ev.source is None:
                raise Impossible(f"{card} is not a visible top of any column", "ST-2")
            raise Impossible("no spit card now: both players must be stuck first", "ST-4")
        p = ev.player
        if p is None:
            p = owed[0] if len(owed) == 1 else self.players[PILES.index(zone)]
        if p not in owed:
            if self.spit[p] == 0:
                raise Impossible(f"{p} has no spit cards left", "ST-4")
            raise Impossible(f"{p} has already turned a spit card", "ST-4")
        started = (self.top["left"] is not None) + (self.top["right"] is not None)
        if self.top[zone] is None:
            if started >= self.n_piles:
                raise Impossible(f"only one centre pile this round, not {zone}", "ST-5")
        elif started < self.n_piles:
            raise Impossible(f"{zone} is already started: this spit card starts the other pile", "ST-2")
        self.spit[p] -= 1
        owed.remove(p)
        self.top[zone] = card
        self.size[zone] += 1
        self.seen.add(card)
        self.stuck.clear()
        self.quiet = False
        return []

    def _stuck(self, ev: Event) -> list[Output]:
        """ST-4: both stuck -> both flip (one alone when the other has none); none left -> round end (ST-5)."""
        p = ev.player
        if p is None:
            raise Impossible("a stuck line needs the player", "ST-4")
        if self.phase != "play":
            raise Impossible("the round is over: the piles are being chosen", "ST-5")
        if self.owed:
            return []  # spit cards are still to be turned: the claim is moot
        stuck = self.stuck
        move = self.a_move(p)
        if move is not None:
            if p in stuck:
                stuck.remove(p)
            return [self.verdict("not_stuck", "ST-4", f"Not stuck, {p}: {move}", player=p)]
        if p not in stuck:
            stuck.append(p)
        q = self.other[p]
        if q not in stuck:
            return []
        if self.has_move(q):
            stuck.remove(q)
            return []
        stuck.clear()
        flippers = [x for x in self.players if self.spit[x] > 0]
        if flippers:
            self.owed = flippers
            say = "No plays: spit!" if len(flippers) == 2 else f"No plays: spit! {flippers[0]} spits alone"
            return [self.verdict("both_stuck", "ST-4", say, cards=len(flippers), spitters=list(flippers))]
        return self._stuck_end(ev.t)

    def _stuck_end(self, t: float) -> list[Output]:
        """ST-5: both stuck and no spit cards left: the round is over."""
        self.round_end_t = t
        started = [z for z in PILES if self.top[z] is not None]
        if len(started) == 2:
            self.phase = "choose"
            return [self.verdict("both_stuck", "ST-5", "No plays and no spit cards: round over. Slap a pile!")]
        out: list[Output] = [self.verdict("both_stuck", "ST-5", "No plays and no spit cards: round over")]
        a, b = self.players
        held = self.held
        taker = self.starter or a  # equal: the one who started the pile
        if held[a] != held[b]:
            taker = a if held[a] > held[b] else b
        zone = started[0] if started else None
        out += self._assign({taker: zone, self.other[taker]: None}, "ST-6", t, taker,
                            lead=f"{taker} has more cards left: ")
        return out

    def _slap(self, ev: Event) -> list[Output]:
        """ST-5: a hand on the pile its player chooses; ruled when the tie window has passed."""
        zone: str = ev.zone  # type: ignore[assignment]
        if self.quiet:
            return []  # G-3: the piles were just taken
        if self.phase != "choose":
            raise Impossible("no round has ended: there is no pile to choose", "ST-5")
        if self.top[zone] is None:
            raise Impossible(f"there is no {zone} pile to choose", "ST-5")
        entry = Entry(ev.t, ev.t_err, ev.player, self.seq, zone)  # type: ignore[arg-type]
        if self.slaps is None:
            self.slaps = Race("piles", [entry])
        else:
            self.slaps.entries.append(entry)
        closes = self.slaps.closes_at(self.window)
        if closes < self.due:
            self.due = closes
        return []

    def _remove(self, ev: Event) -> list[Output]:
        """SP-8: an illegal card goes back on top of the column it came from."""
        card: str = ev.card  # type: ignore[assignment]
        info = self.loose.get(card)
        if info is None or info[1] != ev.zone:
            raise Impossible(f"{card} is no illegal card on {ev.zone}: a legal card cannot be taken back", "SP-8")
        owner, _pile, src = info
        if ev.player is not None and ev.player != owner:
            raise Impossible(f"{card} is {owner}'s card to take back, not {ev.player}'s", "SP-8")
        del self.loose[card]
        u = self.up[src]
        if u:
            del self.tops[u[-1]]
        u.append(card)
        self.tops[card] = src
        if owner in self.stuck:
            self.stuck.remove(owner)
        return []

    def has_move(self, p: str) -> bool:
        """``p`` is not stuck (decision 4)."""
        return self.a_move(p) is not None

    def a_move(self, p: str) -> str | None:
        """A move the camera shows ``p`` still has, in words (decision 4): a top that fits a pile, a face-down
        column top to turn, or an empty column and a move that uncovers a card. None: ``p`` is stuck."""
        piles = [(_VALUE[c], c) for c in self.top.values() if c is not None]
        wraps = self.wraps
        up, down = self.up, self.down
        empty: str | None = None
        movable = False
        for z in self.cols_of[p]:
            u = up[z]
            if not u:
                if down[z]:
                    return f"turn up the card in column {z[-1]}"
                empty = z
                continue
            c = u[-1]
            v = _VALUE[c]
            for pv, t in piles:  # ``adjacent`` inlined: every stuck claim runs this
                d = v - pv
                if d == 1 or d == -1 or (wraps and (d == 12 or d == -12)):
                    return f"the {_NAME[c]} goes on the {_NAME[t]}"
            if down[z] or len(u) > 1:
                movable = True
        if empty is not None and movable:
            return f"column {empty[-1]} is empty"
        return None

    # ----------------------------------------------------------------- races
    def advance(self, t: float) -> list[Output]:
        """TM-3: races whose tie window has passed by ``t`` are ruled, oldest first."""
        if t <= self.due or self.outcome is not None:
            return []
        flying = self.flying
        if len(flying) == 1 and self.slaps is None:  # the usual case: one card on one pile
            zone = next(iter(flying))
            one = flying[zone]
            if len(one) == 1:
                closes = self._closes(one)
                if t > closes:
                    del flying[zone]
                    self.due = _INF
                    return self._rule_pile(zone, one, closes)
        return self._close(t, flush_piles=False)

    def _closes(self, flying: list[Landing]) -> float:
        """``Race.closes_at`` for cards in flight: after this no later card can tie with the first one."""
        w = self.window
        if len(flying) == 1:
            te2 = flying[0][1] * 2
            return flying[0][0] + (w if w >= te2 else te2) + _EPS
        first = min(flying, key=lambda e: (e[0], e[3]))
        return first[0] + max(w, first[1] + max(e[1] for e in flying)) + _EPS

    def _close(self, t: float, flush_piles: bool) -> list[Output]:
        """Rule every race that is due at ``t`` (every pile race with ``flush_piles``), oldest first."""
        out: list[Output] = []
        w = self.window
        while self.outcome is None:
            best: str | None = None
            best_t = _INF
            for zone, flying in self.flying.items():
                first_t = min(e[0] for e in flying) if len(flying) > 1 else flying[0][0]
                if first_t < best_t and (flush_piles or t > self._closes(flying)):
                    best, best_t = zone, first_t
            slaps = self.slaps
            if slaps is not None and slaps.first_t < best_t and slaps.is_due(t, w):
                self.slaps = None
                out += self._rule_slaps(slaps, min(t, slaps.closes_at(w)))
            elif best is not None:
                flying = self.flying.pop(best)
                out += self._rule_pile(best, flying, min(t, self._closes(flying)))
            else:
                break
        due = _INF
        for flying in self.flying.values():
            due = min(due, self._closes(flying))
        if self.slaps is not None:
            due = min(due, self.slaps.closes_at(w))
        self.due = due
        return out

    def _rule_pile(self, zone: str, flying: list[Landing], t: float) -> list[Output]:
        """ST-2 / SP-3: each card is judged against the top when it lands; SP-9 for ties."""
        if len(flying) == 1:
            out = [self._judge(zone, flying[0], t)]
        else:
            entries = [Entry(e[0], e[1], e[2], e[3], e) for e in flying]
            res = order(entries, self.window)
            out = []
            rest = res.ranked
            if len(res.tied) > 1:
                out += self._rule_tie(zone, [e.data for e in res.tied], t)
                tied = {e.seq for e in res.tied}
                rest = [e for e in res.ranked if e.seq not in tied]
            for e in rest:
                out.append(self._judge(zone, e.data, t))
        if self.cleared is not None and self.phase == "play":
            out += self._layout_clear(t)
        return out

    def _judge(self, zone: str, e: Landing, t: float) -> Output:
        """One card against the pile's top (ST-2; ST-7 when it hangs on the ace wrap). Hot path: ``adjacent`` is
        inlined (the rule depends on whether the wrap decided it) and the verdict is built directly."""
        card = e[4]
        p = e[2]
        top: str = self.top[zone]  # type: ignore[assignment]
        d = _VALUE[card] - _VALUE[top]
        wrap = d == 12 or d == -12
        rule = "ST-7" if wrap else "ST-2"
        if d == 1 or d == -1 or (wrap and self.wraps):
            self._lands(zone, card, p, e[0])
            return Verdict(t, "legal_play", rule, f"{p}: {_NAME[card]} on {_NAME[top]}", p, None, None, None,
                           self.loud, {"zone": zone, "card": card, "on": top})
        self.loose[card] = (p, zone, e[5])
        return Verdict(t, "illegal_play", rule, f"Illegal: {_NAME[card]} on {_NAME[top]}. {p}, take it back", p,
                       None, None, None, True, {"zone": zone, "card": card, "on": top})

    def _lands(self, zone: str, card: str, p: str, t: float) -> None:
        """A card counts once it touches the pile (ST-2); the first to empty the layout is noted (ST-5)."""
        self.top[zone] = card
        self.size[zone] += 1
        held = self.held
        held[p] -= 1
        if held[p] == 0 and self.cleared is None and self.phase == "play":
            self.cleared = p
            self.round_end_t = t

    def _rule_tie(self, zone: str, tied: list[Landing], t: float) -> list[Output]:
        """SP-9: cards that cannot be put in order. Rulings every order agrees on are given; the rest stand."""
        cards = [e[4] for e in tied]
        top0: str = self.top[zone]  # type: ignore[assignment]
        n = len(cards)
        wraps = self.wraps
        fixed: list[bool | None] = [None] * n
        if n <= MAX_PERMUTED:
            seen_rulings: list[list[bool]] = []
            finals = set()
            for perm in itertools.permutations(range(n)):
                top = top0
                ruling = [False] * n
                for i in perm:
                    if adjacent(cards[i], top, wraps):
                        ruling[i] = True
                        top = cards[i]
                seen_rulings.append(ruling)
                finals.add(top)
            if len(finals) == 1 and all(r == seen_rulings[0] for r in seen_rulings):
                return [self._judge(zone, e, t) for e in tied]  # every order agrees: no tie to report
            for i in range(n):
                vals = {r[i] for r in seen_rulings}
                if len(vals) == 1:
                    fixed[i] = vals.pop()
        out: list[Output] = []
        standing = []
        for i in sorted(range(n), key=lambda k: tied[k][3]):  # log order: the last standing card is on top
            e = tied[i]
            card, src, p = e[4], e[5], e[2]
            if fixed[i] is False:
                self.loose[card] = (p, zone, src)
                out.append(self.verdict("illegal_play", "ST-2", f"Illegal: {_NAME[card]} fits neither card. {p}, "
                                        "take it back", t=t, player=p, zone=zone, card=card, on=top0))
                continue
            self._lands(zone, card, p, e[0])
            if fixed[i]:
                out.append(self.verdict("legal_play", "ST-2", f"{p}: {_NAME[card]} counts", t=t, player=p,
                                        voice=self.loud, zone=zone, card=card, on=top0))
            else:
                standing.append(card)
        top = self.top[zone]
        out.append(self.verdict(
            "unresolved_tie", "SP-9", f"Too close to call on the {zone} pile: the {_NAME[top]} on top stands",  # type: ignore[index]
            t=t, cards=len(standing), zone=zone, tied=standing, players=sorted({e[2] for e in tied})))
        return out

    def _layout_clear(self, t: float) -> list[Output]:
        """ST-5 / ST-6: someone's layout is empty; two piles -> slaps, one pile -> the other player takes it."""
        p: str = self.cleared  # type: ignore[assignment]
        started = [z for z in PILES if self.top[z] is not None]
        self.owed = []
        self.stuck = []
        if len(started) == 2:
            self.phase = "choose"
            return [self.verdict("round_end", "ST-5", f"{p}'s layout is clear: round over. Slap a pile!",
                                 t=t, player=p)]
        q = self.other[p]
        return self._assign({q: started[0] if started else None, p: None}, "ST-6", t, q,
                            lead=f"{p}'s layout is clear: ")

    def _rule_slaps(self, race: Race, t: float) -> list[Output]:
        """ST-5 with TM-1/TM-3: the first hand on a pile takes it; the other player takes the other pile.
        TM-2: a deciding hand sooner than the anticipation bound after the round ended is marked (silent)."""
        first = min(race.entries, key=lambda e: (e.t, e.seq))
        zone: str = first.data
        res = order([e for e in race.entries if e.data == zone], self.window)
        hands = sorted({e.player for e in res.tied})
        reaction_ms = (first.t - self.round_end_t) * 1000
        marks: list[Output] = [
            self.verdict("anticipated", "TM-2", f"{e.player} hit {round((e.t - self.round_end_t) * 1000)} ms after "
                         "the round ended", t=t, player=e.player, reaction_ms=(e.t - self.round_end_t) * 1000,
                         voice=False)
            for e in res.tied if e.t - self.round_end_t < self.anticipation_s]
        if len(hands) > 1:
            return [self.verdict("unresolved_tie", "TM-3", f"Too close to call on the {zone} pile: slap again!",
                                 t=t, zone=zone, players=hands, reaction_ms=reaction_ms, anticipated=bool(marks)),
                    *marks]
        w = first.player
        other_zone = PILES[1 - PILES.index(zone)]
        out = self._assign({w: zone, self.other[w]: other_zone if self.top[other_zone] else None}, "ST-5", t, w,
                           reaction_ms=reaction_ms, anticipated=bool(marks))
        return out + marks

    def _assign(self, takes: dict[str, str | None], rule: str, t: float, who: str,
                reaction_ms: float | None = None, lead: str = "", anticipated: bool = False) -> list[Output]:
        """Each player takes their pile and their unplayed cards; nobody without cards -> a new deal (ST-5),
        else that player wins (ST-6, G-2: the pile moves first, then the win)."""
        totals: dict[str, int] = {}
        parts = []
        for p in self.players:
            z = takes[p]
            got = self.size[z] if z is not None else 0
            totals[p] = self.held[p] + self.spit[p] + got
            if z is not None:
                parts.append(f"{p} takes the {z} pile, {got} card{'' if got == 1 else 's'}")
        if not parts:
            parts.append("nobody takes a pile")
        extra: dict[str, Any] = {}
        if reaction_ms is not None:
            extra["reaction_ms"] = reaction_ms
            extra["anticipated"] = anticipated
        out: list[Output] = [self.verdict("effect", rule, lead + "; ".join(parts), t=t, player=who,
                                          cards=self.size[takes[who]] if takes[who] else 0,  # type: ignore[index]
                                          piles=dict(takes), totals=totals, **extra)]
        winners = [p for p in self.players if totals[p] == 0]
        if winners:
            w = winners[0]
            out.append(self.verdict("win", "ST-6", f"{w} has no cards left: {w} wins!", t=t, player=w))
            self.end(w, f"{w} cleared the layout with no spit cards left", "ST-6", t)
            self.phase = "over"
            return out
        self.deal(totals)
        self.round_no += 1
        self.quiet = True
        return out


REFEREE = SpitReferee
