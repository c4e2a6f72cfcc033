"""Snap played by random players, logged as a perfect camera would see it (RULES.md SN-1..SN-7).

The simulator knows every face-down card; the log holds only turned cards, calls (or slaps), and now and
then the optional ``turn`` and ``take`` lines. Who wins a call race is decided the way the table would:
TM-3 on the logged times (:mod:`engine.race`), so the log replays without anomalies.

Convergence: players differ in speed (the faster ones drift towards all 52), and Snap's only hidden freedom,
the order in which won piles go under the winner's stack, is chosen so that play from there still reaches
a snap (unshuffled stacks can otherwise cycle forever with no two tops alike). Reactions are drawn again
when their outcome would leave a game that cannot end (a pot holding every card of its rank, a player whose
ranks nobody else holds); when no draw helps, play resumes from an earlier checkpoint. The turn cap is
only a safety net.
"""

from __future__ import annotations

import itertools
import random
from collections import deque

from engine.cards import STANDARD_DECK
from engine.events import Event, GameHeader
from engine.race import Entry, Race, order
from engine.referee import resolve_variants

_RANK: dict[str, str] = {c: c[:-1] for c in STANDARD_DECK}
MAX_TURNS = 20_000
LOOKAHEAD = 1_500


class _Table:
    """The physical game: stacks (deque, right end = top), face-up piles, the pot, and the referee's flags."""

    def __init__(self, header: GameHeader, rng: random.Random) -> None:
        from engine.games.snap import SnapReferee

        v = resolve_variants("snap", SnapReferee.VARIANTS, header.variants)
        self.window = float(v["tie_window_ms"]) / 1000.0
        self.slap_mode: bool = v["snap_by_slap"]
        self.penalty: bool = v["false_call_penalty"] == "give_top_card"
        self.rng = rng
        self.players = list(header.players)
        self.n = len(self.players)
        self.seat = {p: i for i, p in enumerate(self.players)}
        self.first = header.first_player_index
        self.speed = {p: rng.uniform(0.22, 0.45) for p in self.players}
        self.log_turns = rng.random() < 0.2
        self.log_takes = rng.random() < 0.3
        self.events: list[Event] = []
        self.t = 0.0
        self.piles: dict[str, list[str]] = {p: [] for p in self.players}
        self.pot: list[str] = []
        self.active = set(self.players)
        self.last: str | None = None
        self.after_win = False
        self.pot_void = False
        self.pending: dict[str, str | None] = {}
        self.over = False
        self.stacks = self._deal()

    # ------------------------------------------------------------------ the deal and the cycle check
    def _deal(self) -> dict[str, deque[str]]:
        """SN-1: one at a time from the dealer's left; a deal that could never snap is dealt again."""
        for _ in range(100):
            deck = list(STANDARD_DECK)
            self.rng.shuffle(deck)
            stacks: dict[str, deque[str]] = {p: deque() for p in self.players}
            for i, c in enumerate(deck):
                stacks[self.players[(self.first + i) % self.n]].append(c)
            self.stacks = stacks
            if self._future_snap():
                break
        return stacks

    def pot_rank(self) -> str | None:
        return _RANK[self.pot[-1]] if self.pot else None

    def _future_snap(self) -> bool:
        """Does play with nobody calling reach a snap (or a pot match) within ``LOOKAHEAD`` turns?"""
        tops = {q: _RANK[pile[-1]] for q, pile in self.piles.items() if pile}
        pr = self.pot_rank()
        vals = list(tops.values())
        if len(set(vals)) < len(vals) or pr in tops.values():
            return True
        turn = self._order()
        if not turn:
            return True
        st = {q: list(self.stacks[q]) for q in turn}
        pl = {q: list(self.piles[q]) for q in turn}
        k = len(turn)
        for step in range(LOOKAHEAD):
            q = turn[step % k]
            s = st[q]
            if not s:
                s = st[q] = pl[q][::-1]
                pl[q] = []
                tops.pop(q, None)
            c = s.pop()
            pl[q].append(c)
            r = _RANK[c]
            if r == pr:
                return True
            for q2, r2 in tops.items():
                if r2 == r and q2 != q:
                    return True
            tops[q] = r
        return False

    def healthy(self) -> bool:
        """Can play still go somewhere? Not when no snap is ever reached again, when the pot holds every
        card of its top's rank, or when a player holds only ranks nobody else has (their cards could
        never leave them)."""
        ranks = {q: {_RANK[c] for c in itertools.chain(self.stacks[q], self.piles[q])} for q in self.active
                 if self.stacks[q] or self.piles[q]}
        pr = self.pot_rank()
        if pr is not None and not any(pr in rs for rs in ranks.values()):
            return False
        if len(ranks) > 1:
            for q, rs in ranks.items():
                if not any(rs & other for q2, other in ranks.items() if q2 != q):
                    return False
        return self._future_snap()

    def _order(self) -> list[str]:
        """Players with cards, in turn order starting with the next turner."""
        i = self.first - 1 if self.last is None else self.seat[self.last]
        turn = [self.players[(i + k) % self.n] for k in range(1, self.n + 1)]
        return [q for q in turn if q in self.active and (self.stacks[q] or self.piles[q])]

    def next_player(self, p: str | None) -> str | None:
        """G-1: the next player still in, clockwise after ``p`` (the dealer's left to start)."""
        i = self.first - 1 if p is None else self.seat[p]
        for k in range(1, self.n + 1):
            q = self.players[(i + k) % self.n]
            if q in self.active:
                return q
        return None

    def _place_under(self, p: str, blocks: list[list[str]]) -> None:
        """Won piles go face down under ``p``'s stack; the order of the blocks is the winner's free choice,
        made so that play can still reach a snap."""
        stack = self.stacks[p]
        saved = deque(stack)
        orders = list(itertools.permutations(range(len(blocks))))
        self.rng.shuffle(orders)
        for perm in orders[:6]:
            for i in perm:
                stack.extendleft(blocks[i])  # a face-up pile flipped: its bottom card ends on top
            if self.healthy():
                return
            stack.clear()
            stack.extend(saved)
        for i in orders[0]:
            stack.extendleft(blocks[i])

    # ------------------------------------------------------------------ events
    def emit(self, t: float, kind: str, **kw: object) -> None:
        self.events.append(Event(t=t, type=kind, **kw))  # type: ignore[arg-type]

    def react(self, p: str) -> float:
        """Reaction time: mostly 150-700 ms by the player's speed, now and then an anticipation."""
        if self.rng.random() < 0.02:
            return self.rng.uniform(0.04, 0.099)
        return min(0.7, max(0.15, self.rng.gauss(self.speed[p], 0.09)))

    def snap_ranks(self) -> set[str]:
        seen: set[str] = set()
        snap: set[str] = set()
        for pile in self.piles.values():
            if pile:
                r = _RANK[pile[-1]]
                if r in seen:
                    snap.add(r)
                seen.add(r)
        return snap

    def pot_match(self) -> bool:
        pr = self.pot_rank()
        return pr is not None and any(pile and _RANK[pile[-1]] == pr for pile in self.piles.values())

    def play(self) -> list[Event]:
        """Turns until someone wins. When every draw of reactions leads somewhere play could never end,
        the game goes back to an earlier moment (further back each time) and is played on from there."""
        checkpoints: list[tuple[_Table, int]] = [(self.clone(), 0)]
        turns = failures = 0
        while not self.over and turns < MAX_TURNS:
            turns += 1
            if self.turn():
                if turns % 16 == 0:
                    checkpoints.append((self.clone(), len(self.events)))
                continue
            failures += 1
            back = min(len(checkpoints), 2 ** min(failures, 8))
            del checkpoints[len(checkpoints) - back + 1:]
            saved, n = checkpoints[-1]
            events = self.events[:n]
            self.__dict__.update(saved.clone().__dict__)
            self.events = events
        return self.events

    def turn(self) -> bool:
        """One turn (SN-2, SN-7 turnover), then everybody's reactions to what it shows; False when no
        draw of reactions leaves a game that can still end."""
        rng = self.rng
        p = self.next_player(self.last)
        if p is None:
            self.over = True
            return True
        tc = round(self.t + rng.uniform(0.4, 1.5), 3)
        if self.log_turns and rng.random() < 0.5:
            self.emit(round(tc - 0.2, 3), "turn", player=p)
        before = self.snap_ranks()
        pot_before = self.pot_match()
        if not self.stacks[p]:  # SN-7: turn the face-up pile over, unshuffled
            if self.log_takes and rng.random() < 0.5:
                self.emit(round(tc - 0.1, 3), "take", zone=f"pile:{p}", player=p)
            self.stacks[p] = deque(reversed(self.piles[p]))
            self.piles[p] = []
        c = self.stacks[p].pop()
        self.piles[p].append(c)
        self.pending.pop(f"pile:{p}", None)
        self.emit(tc, "card", zone=f"pile:{p}", card=c, player=p)
        self.last = p
        self.after_win = self.pot_void = False
        self.t = tc
        r = _RANK[c]
        snaps = self.snap_ranks()
        pot = self.pot_match()
        covered = bool(before - snaps) or (pot_before and not pot)
        return self.react_and_rule(tc, r, snaps, pot, covered)

    def reactions(self, tc: float, r: str, snaps: set[str], pot: bool,
                  covered: bool) -> list[tuple[float, str, str, str]]:
        """Calls (or slaps) after a card: (time, player, ``call`` or ``slap``, word or zone)."""
        rng = self.rng
        claims: list[tuple[float, str, str, str]] = []  # (t, player, type, word or zone)
        players = [q for q in self.players if q in self.active]
        if snaps:
            fresh = r in snaps
            prize = [q for q in self.players if self.piles[q] and _RANK[self.piles[q][-1]] in snaps]
            for q in players:
                if rng.random() < (0.92 if fresh else 0.3):
                    t = tc + self.react(q)
                    if self.slap_mode:
                        zones = rng.sample(prize, len(prize))
                        claims.append((t, q, "slap", f"pile:{zones[0]}"))
                        if len(zones) > 1 and rng.random() < 0.3:
                            claims.append((t + rng.uniform(0.03, 0.12), q, "slap", f"pile:{zones[1]}"))
                    else:
                        claims.append((t, q, "call", "snap"))
        if pot:
            fresh = r == self.pot_rank()
            matching = [q for q in self.players if self.piles[q] and _RANK[self.piles[q][-1]] == self.pot_rank()]
            for q in players:
                if rng.random() < (0.85 if fresh else 0.3):
                    t = tc + self.react(q) + 0.05
                    if not self.slap_mode:
                        claims.append((t, q, "call", "snap pot"))
                    elif not snaps and rng.random() < 0.3:
                        claims.append((t, q, "slap", f"pile:{rng.choice(matching)}"))
                    else:
                        claims.append((t, q, "slap", "pot"))
            if not snaps and not self.slap_mode and rng.random() < 0.03:
                q = rng.choice(players)
                claims.append((tc + self.react(q), q, "call", "snap"))  # the wrong word (SN-4)
        if not snaps and not pot:
            if covered:  # SN-5: too late, the snap is covered
                for q in players:
                    if rng.random() < 0.1:
                        claims.append((tc + rng.uniform(0.15, 0.6), q, *self._false_claim()))
            elif rng.random() < 0.015:  # SN-6: a false call
                q = rng.choice(players)
                claims.append((tc + self.react(q), q, *self._false_claim()))
        if len(claims) >= 2 and rng.random() < 0.06:  # TM-3: two claims closer than the tie window
            claims.sort()
            t0, q, kind, what = claims[1]
            claims[1] = (claims[0][0] + rng.uniform(0.0, min(0.015, self.window * 0.7)), q, kind, what)
        return claims

    def clone(self) -> _Table:
        new = object.__new__(_Table)
        new.__dict__.update(self.__dict__)
        new.stacks = {p: deque(s) for p, s in self.stacks.items()}
        new.piles = {p: list(v) for p, v in self.piles.items()}
        new.pot = list(self.pot)
        new.active = set(self.active)
        new.pending = dict(self.pending)
        new.events = []
        return new

    def react_and_rule(self, tc: float, r: str, snaps: set[str], pot: bool, covered: bool) -> bool:
        """Draw everybody's reactions and rule them; a draw of reactions after which play could never
        end is drawn again: timing is the players' free choice, the rules are not. False when all
        draws fail."""
        for _attempt in range(8):
            claims = self.reactions(tc, r, snaps, pot, covered)
            if not claims:
                return True
            trial = self.clone()
            trial.rule(sorted((round(t, 3), i, q, kind, what) for i, (t, q, kind, what) in enumerate(claims)))
            if trial.over or trial.healthy():
                events = self.events
                events.extend(trial.events)
                self.__dict__.update(trial.__dict__)
                self.events = events
                return True
        return False

    def _false_claim(self) -> tuple[str, str]:
        if not self.slap_mode:
            return "call", ("snap pot" if self.pot and self.rng.random() < 0.2 else "snap")
        zones = [f"pile:{q}" for q in self.players if self.piles[q]]
        if self.pot and self.rng.random() < 0.2:
            zones = ["pot"]
        return "slap", self.rng.choice(zones)

    # ------------------------------------------------------------------ the referee's rulings, mirrored
    def rule(self, claims: list[tuple[float, int, str, str, str]]) -> None:
        races: dict[str, Race] = {}
        last_t = self.t
        for seq, (t, _i, q, kind, what) in enumerate(claims, start=1):
            self.close(races, t, force=False)
            if self.over:
                return
            if kind == "call":
                self.emit(t, "call", player=q, word=what)
            else:
                self.emit(t, "slap", zone=what, player=q)
            last_t = t
            key = self.judge(q, kind, what)
            if key in ("snap", "pot"):
                race = races.setdefault(key, Race(key))
                if all(e.player != q for e in race.entries):
                    race.add(Entry(t, 0.0, q, seq))
            elif key == "false":
                self.false_call(q)
                if self.over:
                    return
        end = max([last_t] + [r.closes_at(self.window) for r in races.values()])
        self.close(races, float("inf"), force=True)
        self.t = end
        if self.over:
            return
        if self.log_takes:
            for zone, who in list(self.pending.items()):
                if self.rng.random() < 0.7:
                    self.t = round(self.t + self.rng.uniform(0.2, 0.6), 3)
                    self.emit(self.t, "take", zone=zone, player=who or self.rng.choice(self.players))
                    del self.pending[zone]

    def judge(self, q: str, kind: str, what: str) -> str:
        """What the referee makes of a claim: join the ``snap`` or ``pot`` race, ``false``, or ``none``."""
        if q not in self.active:
            return "none"
        snaps = self.snap_ranks()
        pot = self.pot_match()
        if kind == "call":
            if what == "snap":
                if snaps:
                    return "snap"
                return "none" if self.after_win else "false"
            if self.pot_void:
                return "none"
            if pot:
                return "pot"
            return "none" if self.after_win else "false"
        if what == "pot":
            if not self.pot:
                return "none"
            if self.pot_void:
                return "none"
            if pot:
                return "pot"
            return "none" if self.after_win else "false"
        pile = self.piles[what[5:]]
        if not pile:
            return "none"
        r = _RANK[pile[-1]]
        if r in snaps:
            return "snap"
        if r == self.pot_rank():
            return "none" if self.pot_void else "pot"
        return "none" if self.after_win else "false"

    def close(self, races: dict[str, Race], now: float, force: bool) -> None:
        due = [r for r in races.values() if force or r.is_due(now, self.window)]
        due.sort(key=lambda r: (r.closes_at(self.window), min(e.seq for e in r.entries)))
        for race in due:
            del races[race.key]
            if self.over:
                continue
            entries = [e for e in race.entries if e.player in self.active]
            if not entries:
                continue
            res = order(entries, self.window)
            if race.key == "snap":
                self.win_snap(res.ranked[0].player if len(res.tied) == 1 else None)
            else:
                self.win_pot(res.ranked[0].player if len(res.tied) == 1 else None)

    def win_snap(self, p: str | None) -> None:
        """SN-3: the first caller takes every matching pile; SN-4: tied callers make the Snap Pot."""
        snaps = self.snap_ranks()
        prize = [q for q in self.players if self.piles[q] and _RANK[self.piles[q][-1]] in snaps]
        if not prize:
            return
        self.after_win = True
        blocks = [self.piles[q] for q in prize]
        for q in prize:
            self.piles[q] = []
            self.pending[f"pile:{q}"] = p
        if p is not None:
            self._place_under(p, blocks)
        else:
            for b in blocks:
                self.pot.extend(b)
            self.pending.pop("pot", None)
            self.pot_void = False
        self.settle()

    def win_pot(self, p: str | None) -> None:
        """SN-4: the first "Snap Pot" takes the pot; a tie leaves it where it is."""
        if not self.pot:
            return
        if p is None:
            self.pot_void = True
            return
        pot, self.pot = self.pot, []
        self.pending["pot"] = p
        self.after_win = True
        self._place_under(p, [pot])
        self.settle()

    def false_call(self, p: str) -> None:
        """SN-6 ``give_top_card``: one face-down card to each other player still in, from the left."""
        if not self.penalty:
            return
        stack = self.stacks[p]
        i = self.seat[p]
        for k in range(1, self.n):
            q = self.players[(i + k) % self.n]
            if q in self.active and stack:
                c = stack.pop()
                self.stacks[q].appendleft(c)
                if not self.healthy():
                    self.stacks[q].popleft()
                    self.stacks[q].append(c)
        self.settle()

    def settle(self) -> None:
        """SN-7: players without cards are out; one left wins (and takes any pot), none left is a draw."""
        for q in self.players:
            if q in self.active and not self.stacks[q] and not self.piles[q]:
                self.active.discard(q)
        if len(self.active) <= 1:
            self.over = True


def simulate(header: GameHeader, rng: random.Random) -> list[Event]:
    """One whole game of Snap; the observation events in log order."""
    return _Table(header, rng).play()
