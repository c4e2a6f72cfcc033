"""Random whole games of Cheat / I Doubt It (RULES.md CH-1..CH-7) as a perfect camera would log them.

The players know everything (the simulator deals and holds the hands) but the log holds only what a camera
sees and hears: backs counted, claims heard, doubts heard, the doubted batch turned up, the pile taken.

Players tell the truth when they hold the rank, bluff one or two cards when they do not, and dump a short
hand when they can. Doubts are rare, likelier against a player going out or a claim the doubter knows is
impossible. Human slips at a low rate: a miscounted claim, a wrong rank (a reset to A after a challenge),
five cards at once, a doubt after the next batch has landed. After ``QUIET_AFTER`` turns nobody doubts any
more, so every batch sheds cards and the game ends within 52 more turns: the simulation always terminates.
"""

from __future__ import annotations

import random

from engine.cards import RANKS, deck, rank
from engine.events import Event, GameHeader
from engine.race import Entry, order
from engine.referee import resolve_variants

QUIET_AFTER = 1200  # turns; a safety net, typical games end long before
#: seconds the cards turned up after a doubt lie there before the pile is gathered (without logged takes)
REVEAL_LOOK_S = 0.8


def simulate(header: GameHeader, rng: random.Random) -> list[Event]:
    """One whole legal game; the observation events in log order, times in seconds."""
    from engine.games.cheat import REFEREE

    window = resolve_variants("cheat", REFEREE.VARIANTS, header.variants)["tie_window_ms"] / 1000.0
    players = list(header.players)
    n = len(players)
    cur = header.first_player_index
    cards = deck()
    rng.shuffle(cards)
    hands: list[list[str]] = [[] for _ in players]
    for i, c in enumerate(cards):  # CH-1: one at a time from the dealer's left
        hands[(cur + i) % n].append(c)

    # how this table is logged and how suspicious it is
    log_claims = rng.random() < 0.85
    log_turns = rng.random() < 0.3
    log_takes = rng.random() < 0.7
    doubt_rate = rng.uniform(0.25, 0.6) if rng.random() < 0.1 else rng.uniform(0.04, 0.15)

    events: list[Event] = []
    now = rng.uniform(0.5, 1.5)
    pile: list[str] = []
    prev_open = False  # the last batch stood undoubted: a late doubt on it is possible
    after_challenge = False
    k = 0
    while True:
        p = players[cur]
        hand = hands[cur]
        due = RANKS[k % 13]
        if log_turns:
            events.append(Event(t=round(now, 3), type="turn", player=p))
            now += rng.uniform(0.05, 0.2)
        batch = _choose_batch(hand, due, rng)
        for c in batch:
            hand.remove(c)
        pile.extend(batch)
        t_down = now
        events.append(Event(t=round(t_down, 3), type="facedown", zone="center", count=len(batch), player=p))
        t_claim = t_down + rng.uniform(0.08, 0.3)

        if prev_open and rng.random() < 0.025:  # a doubt after the next batch landed (CH-3)
            late = [q for q in players if q != players[cur - 1]] if log_claims else [p]
            t_late = t_down + rng.uniform(0.01, 0.06)
            events.append(Event(t=round(t_late, 3), type="call", player=rng.choice(late), word="doubt"))

        claimed_rank, claimed_n = due, len(batch)
        if after_challenge and rng.random() < 0.05:
            claimed_rank = "A" if due != "A" else "K"  # CH-5 slip: a reset after the challenge
        elif rng.random() < 0.01:
            claimed_rank = RANKS[(k + rng.randint(1, 12)) % 13]
        if rng.random() < 0.02:
            claimed_n = max(1, min(4, claimed_n + rng.choice((-1, 1))))
        heard = t_down
        if log_claims:
            events.append(Event(t=round(t_claim, 3), type="claim", player=p, count=claimed_n,
                                rank=claimed_rank))
            heard = t_claim

        doubters = [] if k >= QUIET_AFTER else _doubters(players, hands, cur, due, len(batch), doubt_rate, rng)
        if not doubters:
            prev_open, after_challenge = True, False
            if not hand:  # CH-6: out of cards and undoubted
                if rng.random() < 0.8:  # the next batch lands and confirms the win
                    cur = (cur + 1) % n
                    now = heard + rng.uniform(0.4, 1.5)
                    if log_turns:
                        events.append(Event(t=round(now, 3), type="turn", player=players[cur]))
                        now += rng.uniform(0.05, 0.2)
                    count = rng.randint(1, min(4, len(hands[cur])))
                    events.append(Event(t=round(now, 3), type="facedown", zone="center", count=count,
                                        player=players[cur]))
                return events  # otherwise the log simply ends here
            cur = (cur + 1) % n
            k += 1
            now = heard + rng.uniform(0.4, 1.5)
            continue

        # doubts race (CH-7); reaction times with the odd anticipation and the odd tie (TM-3)
        first_t = heard + (rng.uniform(0.03, 0.1) if rng.random() < 0.03 else rng.uniform(0.15, 0.7))
        calls = [(round(first_t, 3), doubters[0])]
        for q in doubters[1:]:
            gap = rng.uniform(0.0, 0.75 * window) if rng.random() < 0.5 else window + rng.uniform(0.01, 0.4)
            calls.append((round(first_t + gap, 3), q))
        calls.sort()
        for t_call, q in calls:
            events.append(Event(t=t_call, type="call", player=q, word="doubt"))
        challenger = _challenger(calls, players, cur, window)
        now = calls[-1][0] + rng.uniform(0.3, 0.8)
        events.append(Event(t=round(now, 3), type="reveal", zone="center", cards=tuple(batch)))
        true = all(rank(c) == due for c in batch)
        loser = players.index(challenger) if true else cur
        hands[loser].extend(pile)
        pile = []
        if true and not hand:  # CH-6: the last cards were true
            return events
        if log_takes:
            now += rng.uniform(0.3, 0.8)
            events.append(Event(t=round(now, 3), type="take", zone="center", player=players[loser]))
        prev_open, after_challenge = False, True
        cur = (cur + 1) % n  # CH-5: the next player after the challenged one, next rank
        k += 1
        # everyone looks at the cards turned up and the loser gathers the pile before the next batch comes
        now += rng.uniform(0.4, 1.5) + (0.0 if log_takes else REVEAL_LOOK_S)


def _choose_batch(hand: list[str], due: str, rng: random.Random) -> list[str]:
    """The cards a player puts down: the truth when they can, a small bluff when they cannot."""
    if len(hand) <= 4 and rng.random() < 0.5:
        return list(hand)  # go out, true or not
    if len(hand) >= 6 and rng.random() < 0.004:
        return rng.sample(hand, 5)  # a slip: five at once (CH-2)
    matching = [c for c in hand if rank(c) == due]
    if matching and rng.random() < 0.9:
        batch = matching[:4]
        others = [c for c in hand if rank(c) != due]
        if len(batch) < 4 and others and rng.random() < 0.1:
            batch.append(rng.choice(others))  # slip one extra card in
        return batch
    size = min(len(hand), 1 if rng.random() < 0.7 else rng.randint(2, 3))
    return rng.sample(hand, size)


def _doubters(players: list[str], hands: list[list[str]], cur: int, due: str, count: int, rate: float,
              rng: random.Random) -> list[str]:
    """Who says "doubt", in the order they decided to (the first one first)."""
    going_out = not hands[cur]
    out = []
    for i, q in enumerate(players):
        if i == cur:
            continue
        p = rate / max(1, len(players) - 1) * 2
        if going_out:
            p = 0.5
        if sum(1 for c in hands[i] if rank(c) == due) + count > 4:
            p = max(p, 0.6)  # they know it cannot be true
        if rng.random() < p:
            out.append(q)
    rng.shuffle(out)
    return out


def _challenger(calls: list[tuple[float, str]], players: list[str], claimer: int, window: float) -> str:
    """CH-7 as the referee rules it: first by time; inside the tie window the nearest the claimer's left."""
    tied = order([Entry(t, 0.0, q, i) for i, (t, q) in enumerate(calls)], window).tied
    n = len(players)
    return min(tied, key=lambda e: (players.index(e.player) - claimer) % n).player
