"""Slapjack referee (RULES.md SJ-1..SJ-7, G-1..G-3, TM-1..TM-3; seed 000).

The referee keeps what a camera can know: every player's face-down stack as a count (from the deal and
its own verdicts), the centre pile's count and the identities of its face-up cards. Slaps on one jack are
one race (``engine.race``), ruled when its tie window has passed, when a card covers the jack or the pile
is picked up, or at the end of the log.

Decisions where the spec is silent:

- Log order decides which card a slap touched; ``reaction_ms`` is contact minus the appearance of that
  card (TM-2) and may be negative for a camera that logs late: that is flagged ``anticipated`` too.
- ``slap_won`` has rule SJ-2 when one hand was in the race, SJ-3 when several hands landed inside the
  tie window and the first was separable (a hand after the window closed arrives too late to contend).
- A jack is decided once: after ``slap_won`` or ``unresolved_tie`` later slaps on it get no verdict (G-3).
  A tied jack's pile stays and goes to whoever wins the next jack (SJ-6). One hand slapping twice in one
  race counts once.
- False slap (SJ-4) by a player with no cards: announced with ``cards: 0`` and no ``to``, nothing
  moves (they are already on their one SJ-5 chance). A false slap on one's own card burns the card under
  the centre pile (giving it to oneself would cost nothing). A false slap on the card right on top of an
  unwon jack is ruled under SJ-6. ``burn_to_pile`` false slaps have no ``to`` but ``zone: center``.
- SJ-5: the chance is the next jack that somebody *wins* (a jack covered unslapped, or tied, decides
  nothing); a player whose last card was that jack gets it as their chance. A waiting player who receives
  a false-slap card has cards again and is back in. The chance comes each time a player runs out.
- Nobody holds a card and no open jack is on top: nobody can ever hold all 52, so the game is a ``draw``
  (rule SJ-7).
- A ``card`` line without ``player`` is taken to be the expected turner's. ``take`` must name the winner of
  the last pile before the next card; ``turn`` must name the expected turner (G-1); neither changes counts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar, Self

from engine.cards import STANDARD_DECK, count_cards, deal_counts
from engine.events import Event
from engine.race import Entry, Race
from engine.referee import Referee
from engine.verdicts import Impossible, Output, Verdict

_DECK: frozenset[str] = frozenset(STANDARD_DECK)
_JACKS: frozenset[str] = frozenset(c for c in STANDARD_DECK if c[:-1] == "J")

# state of the top card as a slap target
_NO_JACK, _OPEN_JACK, _DECIDED_JACK = 0, 1, 2


def _names(players: list[str]) -> str:
    return players[0] if len(players) == 1 else ", ".join(players[:-1]) + " and " + players[-1]


@dataclass
class SlapjackReferee(Referee):
    """Referees one Slapjack game from the camera's log."""

    game: ClassVar[str] = "slapjack"
    VARIANTS: ClassVar[dict[str, tuple[str, ...]]] = {
        "false_slap_penalty": ("give_to_turner", "burn_to_pile"),
    }
    EVENT_TYPES: ClassVar[frozenset[str]] = frozenset({"card", "slap", "take", "turn"})
    ZONE_KINDS: ClassVar[frozenset[str]] = frozenset({"center"})

    stacks: dict[str, int] = field(default_factory=dict)  # face-down cards per player (counts only)
    eliminated: set[str] = field(default_factory=set)
    pile: set[str] = field(default_factory=set)  # face-up cards in the centre (a card seen twice)
    pile_n: int = 0  # cards in the centre pile, burned face-down ones included
    top: str | None = None
    top_by: str | None = None  # who turned the top card (SJ-4's receiver)
    top_t: float = 0.0  # when the top card became visible (TM-2)
    jack: int = _NO_JACK  # is the top an open jack, a decided one, or no jack
    over_jack: bool = False  # the top card covers an undecided jack (SJ-6)
    race: Race | None = None
    last_turner: str | None = None
    winner: str | None = None  # who won the last pile, until the next card (G-3, take)
    taken: bool = False
    _left: dict[str, str] = field(default_factory=dict, compare=False, repr=False)

    # ----------------------------------------------------------------- setup and copying
    def setup(self) -> None:
        """SJ-1: all 52 dealt one at a time from the dealer's left; only the counts are known."""
        self.stacks = deal_counts(self.DECK_SIZE, list(self.players), self.header.first_player_index)
        n = len(self.players)
        self._left = {p: self.players[(i + 1) % n] for i, p in enumerate(self.players)}

    def copy(self) -> Self:
        """Explicit shallow copy of the mutable parts: ``step`` copies on every event."""
        new = object.__new__(type(self))
        d = self.__dict__.copy()
        d["stacks"] = self.stacks.copy()
        d["eliminated"] = self.eliminated.copy()
        d["pile"] = self.pile.copy()
        if self.race is not None:
            d["race"] = Race(self.race.key, list(self.race.entries))
        new.__dict__.update(d)
        return new

    def observable_total(self) -> int | None:
        """Stacks and the centre pile are always known by count."""
        return sum(self.stacks.values()) + self.pile_n

    # ----------------------------------------------------------------- events
    def apply(self, ev: Event) -> list[Output]:
        typ = ev.type
        if self.race is not None and typ != "slap":
            return self._after_race(ev)
        if typ == "card":
            return self._card(ev)
        if typ == "slap":
            return self._slap(ev)
        if typ == "take":
            return self._take(ev)
        return self._turn(ev)

    def advance(self, t: float) -> list[Output]:
        """TM-3: a slap race is ruled once no later contact can tie with the first one (``finish`` passes
        infinity, which rules an open race at the end of the log)."""
        race = self.race
        if race is None or not race.is_due(t, self.window_s):
            return []
        return self._rule_race(race.closes_at(self.window_s))

    def _after_race(self, ev: Event) -> list[Output]:
        """A card covering the jack, a take or a turn ends the race early; it is ruled first (G-2).
        Done on a copy so that an impossible event leaves this state untouched."""
        trial = self.copy()
        assert trial.race is not None
        out = trial._rule_race(min(ev.t, trial.race.closes_at(self.window_s)))
        if trial.outcome is not None:
            raise Impossible("the game ended with the slap before this line", "SJ-7")
        out += trial.apply(ev)
        self.__dict__.update(trial.__dict__)
        return out

    def _expected_turner(self) -> str | None:
        """G-1: the next player clockwise after the last turner who still holds a card."""
        p = self.last_turner
        stacks = self.stacks
        if p is None:
            p = self.first_player
            if stacks[p] > 0:
                return p
        left = self._left
        for _ in range(len(left)):
            p = left[p]
            if stacks[p] > 0:
                return p
        return None

    def _card(self, ev: Event) -> list[Output]:
        c = ev.card
        assert c is not None
        if c in self.pile:
            raise Impossible(f"{c} is already in the centre pile (one deck)", "SJ-1")
        if c not in _DECK:
            raise Impossible(f"{c} is not in a 52-card deck", "SJ-1")
        if ev.source is not None:
            raise Impossible(f"a '{ev.source}' card has no meaning in slapjack", "SJ-1")
        turner = self._expected_turner()
        if turner is None:
            raise Impossible("nobody has a card left to turn", "SJ-5")
        p = ev.player
        if p is None:
            p = turner
        elif p != turner:
            if p in self.eliminated:
                raise Impossible(f"{p} is out of the game", "SJ-5")
            if self.stacks[p] == 0:
                raise Impossible(f"{p} has no cards to turn", "SJ-5")
            raise Impossible(f"out of turn: it is {turner}'s turn, not {p}'s", "G-1")
        stacks = self.stacks
        stacks[p] -= 1
        self.pile.add(c)
        self.pile_n += 1
        self.over_jack = self.jack != _NO_JACK
        self.top = c
        self.top_by = p
        self.top_t = ev.t
        self.last_turner = p
        self.winner = None
        self.taken = False
        if c in _JACKS:
            self.jack = _OPEN_JACK
            return []
        self.jack = _NO_JACK
        if stacks[p] == 0 and not any(stacks.values()):
            return self._draw(ev.t)
        return []

    def _slap(self, ev: Event) -> list[Output]:
        p = ev.player
        assert p is not None
        if self.pile_n == 0:
            if self.winner is not None:
                return []  # G-3: the jack was won and picked up; a late hand gets no verdict
            raise Impossible("slap on an empty centre", "SJ-4")
        jack = self.jack
        if jack == _DECIDED_JACK:
            return []  # G-3, also for the hand of a player this jack has just put out
        if p in self.eliminated:
            raise Impossible(f"{p} is out of the game", "SJ-5")
        if jack == _OPEN_JACK:
            race = self.race
            if race is None:
                race = self.race = Race(self.top or "")
            elif any(e.player == p for e in race.entries):
                return []  # the same hand again: it already counts once
            race.add(Entry(ev.t, ev.t_err, p, self.seq))
            return []
        return self._false_slap(p, ev.t)

    def _take(self, ev: Event) -> list[Output]:
        w = self.winner
        if w is None:
            if self.jack == _DECIDED_JACK:
                raise Impossible("the tied jack's pile stays in the centre", "SJ-3")
            raise Impossible("no pile has been won to take", "SJ-2")
        if ev.player != w:
            raise Impossible(f"{w} won the pile, not {ev.player}", "SJ-2")
        if self.taken:
            raise Impossible(f"{w} already took the pile", "SJ-2")
        self.taken = True
        return []

    def _turn(self, ev: Event) -> list[Output]:
        turner = self._expected_turner()
        if ev.player != turner:
            raise Impossible(f"out of turn: it is {turner}'s turn, not {ev.player}'s", "G-1")
        return []

    # ----------------------------------------------------------------- rulings
    def _marks(self, entries: list[Entry], t: float) -> tuple[list[Output], bool]:
        """TM-2: one silent ``anticipated`` verdict per contact under the bound."""
        bound = self.anticipation_s
        out: list[Output] = []
        for e in entries:
            r = e.t - self.top_t
            if r < bound:
                out.append(self.verdict(
                    "anticipated", "TM-2", f"{e.player} hit {round(r * 1000)} ms after the card appeared",
                    t=t, player=e.player, reaction_ms=r * 1000, voice=False))
        return out, bool(out)

    def _rule_race(self, t: float) -> list[Output]:
        """SJ-2/SJ-3 with TM-3: the first separable contact wins the whole pile; else nobody does."""
        race = self.race
        assert race is not None
        self.race = None
        res = race.result(self.window_s)
        first = res.ranked[0]
        reaction_ms = (first.t - self.top_t) * 1000
        self.jack = _DECIDED_JACK
        if res.winner is None:
            tied = [e.player for e in res.tied]
            marks, antic = self._marks(res.tied, t)
            out: list[Output] = [self.verdict(
                "unresolved_tie", "SJ-3", f"Too close to call between {_names(tied)}: the pile stays",
                t=t, reaction_ms=reaction_ms, anticipated=antic, players=tied)]
            out += marks
            if not any(self.stacks.values()):
                out += self._draw(t)
            return out
        w = first.player
        n = self.pile_n
        stacks = self.stacks
        back_in = stacks[w] == 0
        stacks[w] += n
        self.pile.clear()
        self.pile_n = 0
        self.top = self.top_by = None
        self.jack = _NO_JACK
        self.over_jack = False
        self.winner = w
        self.taken = False
        marks, antic = self._marks([first], t)
        rule = "SJ-3" if len({e.player for e in race.entries}) > 1 else "SJ-2"
        say = f"Slapjack! {w} takes {count_cards(n)}" + (" and is back in" if back_in else "")
        extra = {"back_in": True} if back_in else {}
        out = [self.verdict("slap_won", rule, say, t=t, player=w, cards=n, reaction_ms=reaction_ms,
                            anticipated=antic, **extra)]
        out += marks
        for p in self.players:  # SJ-5: whoever waited on this jack and lost it is out
            if p != w and stacks[p] == 0 and p not in self.eliminated:
                self.eliminated.add(p)
                out.append(self.verdict("eliminated", "SJ-5", f"{p} is out", t=t, player=p))
        if stacks[w] == self.DECK_SIZE:
            out.append(self.verdict("win", "SJ-7", f"{w} has all {self.DECK_SIZE} cards and wins!",
                                    t=t, player=w, cards=self.DECK_SIZE))
            self.end(w, f"{w} holds all {self.DECK_SIZE} cards", "SJ-7", t)
        return out

    def _false_slap(self, p: str, t: float) -> list[Output]:
        """SJ-4 (SJ-6 when the card covers a jack): the slapper pays one card, face down."""
        turner = self.top_by
        assert turner is not None
        stacks = self.stacks
        rule = "SJ-6" if self.over_jack else "SJ-4"
        lead = "Too late, the jack is covered. " if self.over_jack else ""
        reaction_ms = (t - self.top_t) * 1000
        marks, antic = self._marks([Entry(t, 0.0, p, self.seq)], t)
        v: Verdict
        if stacks[p] == 0:
            v = self.verdict("false_slap", rule, f"{lead}False slap by {p}, who has no card to give",
                             t=t, player=p, cards=0, reaction_ms=reaction_ms, anticipated=antic)
        elif turner == p or self.variants["false_slap_penalty"] == "burn_to_pile":
            stacks[p] -= 1
            self.pile_n += 1
            v = self.verdict("false_slap", rule, f"{lead}False slap: {p} puts a card under the pile",
                             t=t, player=p, cards=1, reaction_ms=reaction_ms, anticipated=antic,
                             zone="center")
        else:
            stacks[p] -= 1
            stacks[turner] += 1
            v = self.verdict("false_slap", rule, f"{lead}False slap: {p} gives {turner} a card",
                             t=t, player=p, to=turner, cards=1, reaction_ms=reaction_ms, anticipated=antic)
        out: list[Output] = [v, *marks]
        if stacks[p] == 0 and not any(stacks.values()):
            out += self._draw(t)
        return out

    def _draw(self, t: float) -> list[Output]:
        """Nobody holds a card and no jack is open: nobody can come to hold all 52."""
        self.end(None, "no card left to turn and no jack to slap", "SJ-7", t)
        say = "Nobody has a card left and there is no jack to slap: it's a draw"
        return [self.verdict("draw", "SJ-7", say, t=t, cards=self.pile_n)]


REFEREE = SlapjackReferee
