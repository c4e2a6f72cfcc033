"""Cheat / I Doubt It (RULES.md CH-1..CH-7; seed 004): batches face down, claims, doubts, reveals.

The camera sees only backs until a doubt turns the last batch up, so the referee keeps counts (hands from
the deal, the centre pile) and judges what the log shows. Every count is always known, so
``observable_total`` is always 52.

Decisions where the spec is silent:
- A ``facedown`` without ``player`` is taken to be the player whose turn it is (the camera may not see
  whose hand it was). More than 4 backs is announced as ``illegal_play`` (CH-2) and the batch stands;
  0 backs, or more than the player holds, is an anomaly.
- A claimed rank off the A..K sequence is announced as ``illegal_play`` (CH-2; CH-5 right after a
  challenge, where the usual slip is a reset to A). A doubted batch is judged against the rank the
  sequence fixes, not the misspoken one. A claim whose count differs from the backs is ``count_mismatch``
  (CH-2); the backs are what was placed.
- A ``facedown`` line whose ``conf`` is under :data:`COUNT_SURE` is a count the camera is unsure of (a batch laid
  nearly squared shows its lower cards as slivers): a claim that differs from it is taken at its word, silently
  (nobody is accused of what the camera did not see: CH-2's infraction needs the backs counted), and a reveal's
  cards are what the batch was. Without ``conf``, or from :data:`COUNT_SURE` on, the backs stand as above.
- A claim by the player due to place the next batch, made when the last batch was claimed already (or before any
  batch), is of a batch nobody logged (the camera missed it: laid while the last hand was still over the pile): it
  was laid, as many cards as claimed, and is claimed (its landing may end the game first, CH-6). Where the last
  batch is unclaimed, a claim by anyone else is still an anomaly (G-1), as is one before any batch by a player not
  due to lay it. A camera's unsure count of more than four (CH-2's illegal play) waits for the claim instead.
- Which batch a ``doubt`` aims at: the current batch, unless (a) the caller placed it themselves, or
  (b) the log carries claims and the current batch's claim has not been heard yet (nobody doubts a claim
  before it is made). Then it aims at the previous batch and is a ``late_challenge`` (CH-3), or gets no
  verdict if that batch was challenged already (G-3). A doubt of one's own batch with nothing before it
  is an anomaly.
- Doubts on one batch race (engine.race): the race closes one tie window after the first; the first by
  time is the challenger, and among calls inside the window the one nearest the claimer's left (CH-7).
  The verdict's rule is CH-7 when more than one player raced, else CH-4. Later doubts get nothing (G-3).
- A ``reveal`` needs a doubt before it; it decides the challenge. A challenge never turned up lapses
  silently when the next batch lands (the batch stood); at the end of the log it is an anomaly.
- ``take`` lines confirm the pick-up the verdict already counted: only the loser of the last challenge,
  once. ``turn`` lines must name the player due to place the next batch (G-1).
- CH-6: a player out of cards wins when the next batch lands with theirs undoubted, or when the log ends
  so; a true doubted last batch wins right after the ``challenge_true`` verdict (G-2).
- Card identities: a revealed card is known to sit in the hand that picked it up until that hand places a
  batch that is never turned up. Turning up a card known to be in another hand (or a joker, or one card
  twice) is an anomaly.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any, ClassVar, Self

from engine.cards import RANKS, count_cards, deal_counts, rank, rank_name
from engine.events import Event
from engine.race import Entry, Race, order
from engine.referee import Referee
from engine.verdicts import Anomaly, Impossible, Output

OPEN, CHALLENGED, REVEALED = 0, 1, 2  # the last batch: undoubted, doubted (awaiting reveal), turned up
#: a ``facedown`` count whose ``conf`` is under this is one the camera is unsure of: the claim's count, or the reveal's
#: cards, stand for it (see the module's decisions)
COUNT_SURE = 0.5


def count_sure(conf: float | None) -> bool:
    """Whether a ``facedown`` count given with ``conf`` stands against a claim (CH-2): none given (a line typed by
    hand), or from :data:`COUNT_SURE` on."""
    return conf is None or conf >= COUNT_SURE
_NUM = ("no", "one", "two", "three", "four")


def _num(n: int) -> str:
    return _NUM[n] if n < len(_NUM) else str(n)


def _claim_words(n: int, rank_text: str) -> str:
    """``"two fives"``, ``"one ace"``: what the player said (or had to say)."""
    return f"{_num(n)} {rank_name(rank_text, plural=n != 1)}"


@dataclass
class CheatReferee(Referee):
    """Counts and the state of the last batch; a doubt race per batch (CH-7)."""

    game: ClassVar[str] = "cheat"
    VARIANTS: ClassVar[dict[str, tuple[Any, ...]]] = {}
    EVENT_TYPES: ClassVar[frozenset[str]] = frozenset({"facedown", "claim", "call", "reveal", "take", "turn"})
    ZONE_KINDS: ClassVar[frozenset[str]] = frozenset({"center"})
    #: live, a batch's ``facedown`` line comes when its backs lie still, often after its claim was said (rendered 3p
    #: s21: 5 of 18): in its place by time (``engine.timeline``), the claim is of that batch, not of one nobody logged
    LATE_KEEP_S: ClassVar[float] = 3.0

    seat: dict[str, int] = field(default_factory=dict)
    hands: dict[str, int] = field(default_factory=dict)
    pile: int = 0
    turn: int = 0  # seat of the player who places the next batch
    rank_i: int = 0  # index in RANKS of the rank the next batch must claim (CH-2, CH-5)
    # the last batch placed
    batch_player: str | None = None
    batch_count: int = 0
    batch_sure: bool = True  # the batch's count was given surely (not a camera's unsure count: COUNT_SURE)
    batch_rank: int = 0
    batch_state: int = OPEN
    batch_claimed: bool = False
    after_challenge: bool = False  # the batch before it was doubted and turned up (CH-5)
    # the doubt race on the last batch
    race: Race | None = None
    race_closes: float = math.inf
    challenger: str | None = None
    challenge_rule: str = "CH-4"
    # the batch before the last one, for late doubts (CH-3)
    prev_player: str | None = None
    prev_open: bool = False
    claims_logged: bool = False
    to_take: str | None = None
    known: dict[str, set[str]] = field(default_factory=dict)

    def setup(self) -> None:
        """CH-1: all 52 dealt one at a time from the dealer's left, who starts."""
        first = self.header.first_player_index
        self.seat = {p: i for i, p in enumerate(self.players)}
        self.hands = deal_counts(self.DECK_SIZE, list(self.players), first)
        self.turn = first
        self.known = {p: set() for p in self.players}

    def copy(self) -> Self:
        """Explicit copy: only the hands, the known cards and the race are mutable."""
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        new.hands = dict(self.hands)
        new.known = {p: set(s) for p, s in self.known.items()}
        if self.race is not None:
            new.race = Race(self.race.key, list(self.race.entries))
        return new

    def observable_total(self) -> int | None:
        return sum(self.hands.values()) + self.pile

    # ----------------------------------------------------------------- events
    def apply(self, ev: Event) -> list[Output]:
        kind = ev.type
        if kind == "facedown":
            return self._facedown(ev)
        if kind == "claim":
            return self._claim(ev)
        if kind == "call":
            return self._call(ev)
        if kind == "reveal":
            return self._reveal(ev)
        if kind == "take":
            return self._take(ev)
        return self._turn(ev)

    def _facedown(self, ev: Event) -> list[Output]:
        """CH-2: a batch lands; it closes the doubt window of the one before (CH-3) and may end the game
        (CH-6)."""
        expected = self.players[self.turn]
        p = ev.player or expected
        n = ev.count or 0
        if p != expected:
            raise Impossible(f"{p} placed cards out of turn; it is {expected}'s turn",
                             "CH-1" if self.batch_player is None else "G-1")
        if n == 0:
            raise Impossible("a batch of no cards", "CH-2")
        if n > self.hands[p]:
            raise Impossible(f"{p} holds {self.hands[p]} cards and cannot place {n}", "CH-1")
        out: list[Output] = []
        winner = None
        prev = self.batch_player
        if prev is not None:
            stood = self.batch_state != REVEALED
            if stood:
                if self.known[prev]:
                    self.known[prev] = set()  # some of them may be in the pile now
                if self.hands[prev] == 0:
                    winner = prev
            self.prev_open = stood
            self.after_challenge = not stood
            if self.race is not None:
                self.race = None
                self.race_closes = math.inf
                self.challenger = None
        self.prev_player = prev
        self.hands[p] -= n
        self.pile += n
        self.batch_player = p
        self.batch_count = n
        self.batch_sure = count_sure(ev.conf)
        self.batch_rank = self.rank_i
        self.batch_state = OPEN
        self.batch_claimed = False
        self.rank_i = (self.rank_i + 1) % 13
        self.turn = (self.turn + 1) % len(self.players)
        self.to_take = None
        if winner is not None:
            out.append(self.verdict("win", "CH-6", f"Nobody doubted: {winner} is out of cards and wins!",
                                    player=winner))
            self.end(winner, "out of cards, last batch not doubted", "CH-6", ev.t)
        elif n > 4 and self.batch_sure:  # (an unsure count of more: the claim will say how many)
            out.append(self.verdict("illegal_play", "CH-2", f"Illegal: {p} placed {n} cards; at most four",
                                    player=p, cards=n))
        return out

    def _claim(self, ev: Event) -> list[Output]:
        """CH-2: the claim must name the sequence's rank and the number of backs placed."""
        p = self.batch_player
        if ev.player != p and self._unseen_batch(ev):
            # the claim of a batch the camera did not see: it was laid (CH-2), as many cards as claimed
            out = self._facedown(dataclasses.replace(ev, type="facedown", zone="center", conf=None))
            return out if self.outcome is not None else out + self._claim(ev)  # (it may end the game: CH-6)
        if p is None:
            raise Impossible("a claim with no batch placed before it", "CH-3")
        if ev.player != p:
            raise Impossible(f"{ev.player} claims, but the last batch is {p}'s", "G-1")
        if self.batch_claimed:
            raise Impossible(f"{p}'s batch was already claimed", "CH-3")
        if self.batch_state == REVEALED:
            raise Impossible(f"{p}'s batch is already turned up", "CH-3")
        self.batch_claimed = True
        self.claims_logged = True
        out: list[Output] = []
        due = RANKS[self.batch_rank]
        if ev.rank != due:
            rule = "CH-5" if self.after_challenge else "CH-2"
            out.append(self.verdict("illegal_play", rule,
                                    f"Wrong rank: {p} must claim {rank_name(due, plural=True)}",
                                    player=p, claimed=ev.rank, rank=due))
        claimed = ev.count or 0
        if claimed != self.batch_count and self._recountable(claimed):
            self._recount(claimed)  # (the camera was unsure of its count: the claim is taken at its word)
        elif claimed != self.batch_count:
            out.append(self.verdict(
                "count_mismatch", "CH-2",
                f"Count mismatch: {p} claimed {_num(claimed)} but placed {_num(self.batch_count)}",
                player=p, cards=self.batch_count, claimed=claimed))
        return out

    def _unseen_batch(self, ev: Event) -> bool:
        """Whether the claim ``ev`` is of a batch nobody logged: its player is the one due to place the next batch,
        and the last batch was claimed already, or none was laid yet (a camera missed a batch laid while a hand was
        still over the pile, or a scorer typed the claims alone)."""
        return (ev.player == self.players[self.turn] and (self.batch_claimed or self.batch_player is None)
                and self._could_place(ev.player, ev.count or 0))

    def _recountable(self, n: int) -> bool:
        """Whether the last batch's count may be taken as ``n`` instead: the camera was unsure of it
        (:data:`COUNT_SURE`) and its player could have placed ``n`` (1-4 cards, no more than they held)."""
        p = self.batch_player
        return p is not None and not self.batch_sure and self._could_place(p, n, self.batch_count)

    def _could_place(self, p: str, n: int, back: int = 0) -> bool:
        """Whether ``p`` could have placed a batch of ``n``: 1-4 cards (CH-2), no more than they held (with the
        ``back`` cards of their last batch in hand again)."""
        return 0 < n <= min(4, self.hands[p] + back)

    def _recount(self, n: int) -> None:
        """The last batch held ``n`` cards, not the unsure count: the hand and the pile say so, and it stands."""
        p = self.batch_player
        assert p is not None
        self.hands[p] += self.batch_count - n
        self.pile += n - self.batch_count
        self.batch_count, self.batch_sure = n, True

    def _call(self, ev: Event) -> list[Output]:
        """CH-3 / CH-7: a doubt joins the race on the last batch, or is late for the one before."""
        if ev.word != "doubt":
            raise Impossible(f"'{ev.word}' is not a call in cheat; the call is 'doubt'", "CH-3")
        bp = self.batch_player
        if bp is None:
            raise Impossible("nothing has been played to doubt", "CH-3")
        c = ev.player
        prev = self.prev_player
        if c == bp or (self.claims_logged and not self.batch_claimed and prev is not None and c != prev):
            if prev is None:
                raise Impossible(f"{c} cannot doubt their own batch", "CH-3")
            if not self.prev_open:
                return []  # G-3: that batch was already challenged
            return [self.verdict("late_challenge", "CH-3", f"Too late, {c}: {prev}'s cards are covered",
                                 player=c, claimer=prev)]
        if self.batch_state == REVEALED or self.challenger is not None:
            return []  # G-3: the challenge on this batch is already decided
        assert c is not None
        entry = Entry(ev.t, ev.t_err, c, self.seq)
        if self.race is None:
            self.race = Race("center", [entry])
        else:
            self.race.add(entry)
        self.race_closes = self.race.closes_at(self.window_s)
        self.batch_state = CHALLENGED
        return []

    def _close_race(self) -> None:
        """CH-7: first by time; inside the tie window (TM-3) the one nearest the claimer's left."""
        assert self.race is not None and self.batch_player is not None
        entries = self.race.entries
        first = entries[0].player
        if all(e.player == first for e in entries):  # one challenger (the usual case)
            self.challenger, self.challenge_rule = first, "CH-4"
            return
        tied = order(entries, self.window_s).tied
        if len(tied) == 1:
            self.challenger = tied[0].player
        else:
            n, b, seat = len(self.players), self.seat[self.batch_player], self.seat
            self.challenger = min(tied, key=lambda e: (seat[e.player] - b) % n).player
        self.challenge_rule = "CH-7"

    def advance(self, t: float) -> list[Output]:
        if self.challenger is None and t > self.race_closes:
            self._close_race()
        return []

    def _reveal(self, ev: Event) -> list[Output]:
        """CH-3 / CH-4 / CH-6: the doubted batch turned up decides who picks up the whole pile."""
        bp = self.batch_player
        if bp is None:
            raise Impossible("nothing on the pile to turn up", "CH-3")
        if self.batch_state == REVEALED:
            raise Impossible(f"{bp}'s batch is already turned up", "CH-3")
        if self.batch_state == OPEN:
            raise Impossible(f"nobody doubted {bp}'s batch; it stays face down", "CH-3")
        cards = ev.cards or ()
        if len(cards) != self.batch_count and not self._recountable(len(cards)):
            raise Impossible(f"{len(cards)} cards turned up, but {bp}'s batch has {self.batch_count}", "CH-3")
        shown = set(cards)
        if len(shown) != len(cards):
            raise Impossible("the same card twice in one batch of a one-deck game", "CH-3")
        due = RANKS[self.batch_rank]
        ranks = [rank(c) for c in cards]
        if None in ranks:
            raise Impossible("a joker turned up: there are no jokers in cheat", "CH-1")
        true = ranks.count(due) == len(ranks)
        for q, held in self.known.items():
            if q != bp and held and not held.isdisjoint(shown):
                raise Impossible(f"{', '.join(sorted(held & shown))} picked up by {q}, not placed by {bp}",
                                 "CH-3")
        mine = self.known[bp]
        if mine and len(mine - shown) > self.hands[bp] + self.batch_count - len(cards):
            raise Impossible(f"{bp} placed cards known to stay in their hand", "CH-3")
        # --- the event can happen: change the state
        if len(cards) != self.batch_count:
            self._recount(len(cards))  # (an unsure count: the cards turned up are the batch)
        if self.challenger is None:
            self._close_race()
        ch = self.challenger
        assert ch is not None
        loser = ch if true else bp
        taken = self.pile
        self.hands[loser] += taken
        self.pile = 0
        if mine:
            self.known[bp] = mine - shown
        self.known[loser] = self.known[loser] | shown
        self.batch_state = REVEALED
        self.to_take = loser
        said = _claim_words(self.batch_count, due)
        out: list[Output] = []
        if true:
            out.append(self.verdict("challenge_true", self.challenge_rule,
                                    f"True, {said}! {ch} picks up {count_cards(taken)}",
                                    player=ch, cards=taken, challenger=ch, claimer=bp, rank=due))
            if self.hands[bp] == 0:
                out.append(self.verdict("win", "CH-6", f"{bp}'s last cards were true: {bp} wins!", player=bp))
                self.end(bp, "last cards doubted and true", "CH-6", ev.t)
        else:
            tail = "; play goes on" if self.hands[bp] == taken else ""
            out.append(self.verdict("challenge_false", self.challenge_rule,
                                    f"Cheat! Not {said}. {bp} picks up {count_cards(taken)}{tail}",
                                    player=bp, cards=taken, challenger=ch, claimer=bp, rank=due))
        return out

    def _take(self, ev: Event) -> list[Output]:
        """CH-4: the pick-up the challenge verdict already counted."""
        if self.to_take is None:
            raise Impossible("nothing to pick up: no challenge has just been decided", "CH-4")
        if ev.player != self.to_take:
            raise Impossible(f"the pile goes to {self.to_take}, not {ev.player}", "CH-4")
        self.to_take = None
        return []

    def _turn(self, ev: Event) -> list[Output]:
        """G-1: a ``turn`` line must name the player due to place the next batch."""
        expected = self.players[self.turn]
        if ev.player != expected:
            raise Impossible(f"it is {expected}'s turn, not {ev.player}'s", "G-1")
        return []

    def finish(self) -> list[Output]:
        """The log ends: an undoubted last batch of a player out of cards wins (CH-6)."""
        bp = self.batch_player
        if self.outcome is not None or bp is None:
            return []
        if self.batch_state == CHALLENGED:
            return [Anomaly(self.t, f"the log ended before {bp}'s doubted batch was turned up", None, "CH-3")]
        if self.batch_state == OPEN and self.hands[bp] == 0:
            self.end(bp, "out of cards, last batch not doubted", "CH-6", self.t)
            return [self.verdict("win", "CH-6", f"Nobody doubted: {bp} is out of cards and wins!", player=bp)]
        return []


REFEREE = CheatReferee
