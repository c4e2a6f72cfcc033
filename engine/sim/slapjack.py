"""Slapjack played by random players, logged as a perfect camera would see it (RULES.md SJ-1..SJ-7).

The simulator knows every face-down card; the log holds only turned cards, slaps (contact times, some
with ``t_err``) and some ``take`` lines. Races are closed exactly as the referee closes them
(``engine.race``), so the winner a log implies is the winner the simulator plays on with.

Players have a personal reaction speed (150-700 ms, the odd anticipation under 100 ms, some near-ties
inside the tie window), sometimes miss a jack (it gets covered, SJ-6), and slap wrongly at a low rate:
mostly on a card that just covered a jack, or on a pair (SJ-4). Faster players win more jacks, so a game
converges; after ``_ENDGAME_TURNS`` turns only the leader still slaps and nobody slaps wrongly, which ends
any game quickly (a safety net, rarely reached).
"""

from __future__ import annotations

import random

from engine.cards import STANDARD_DECK
from engine.events import Event, GameHeader
from engine.race import Entry, Race
from engine.referee import resolve_variants

_JACKS = frozenset(c for c in STANDARD_DECK if c[:-1] == "J")
_ENDGAME_TURNS = 4000

P_MISS = 0.12  # a player with cards does not slap a jack at all
P_MISS_WAITING = 0.03  # a player on their one SJ-5 chance rarely misses it
P_ANTICIPATE = 0.02  # contact under 100 ms
P_NEAR_TIE = 0.04  # the second hand lands within 18 ms of the first
P_T_ERR = 0.1  # a contact time with a stated uncertainty
P_FALSE = 0.012  # a wrong slap on an ordinary card
P_FALSE_PAIR = 0.2  # ... on a card of the same rank as the one below (Snap habit)
P_FALSE_COVERED = 0.25  # ... on the card that just covered a jack (too late, SJ-6)
P_TAKE = 0.5  # the pickup of a won pile is logged


def _next_turner(players: list[str], stacks: dict[str, list[str]], last: str | None,
                 first: str) -> str | None:
    """G-1: clockwise from the last turner, skipping players without cards."""
    n = len(players)
    if last is None:
        i = players.index(first)
        if stacks[first]:
            return first
    else:
        i = players.index(last)
    for k in range(1, n + 1):
        p = players[(i + k) % n]
        if stacks[p]:
            return p
    return None


def _reaction(rng: random.Random, mean: float) -> float:
    """Seconds from a card's appearance to a hand's contact: now and then an anticipation under 100 ms,
    else a human reaction around ``mean``."""
    if rng.random() < P_ANTICIPATE:
        return rng.uniform(0.04, 0.099)
    return _human(rng, mean)


def _human(rng: random.Random, mean: float) -> float:
    """A reaction time around ``mean``, inside 150-700 ms (resampled, never clamped: clamping would
    pile fast players onto exactly 150 ms and make ties out of nothing)."""
    while True:
        rt = rng.gauss(mean, 0.09)
        if 0.15 <= rt <= 0.7:
            return rt


def simulate(header: GameHeader, rng: random.Random) -> list[Event]:
    """One whole Slapjack game; the observation events in log order."""
    from engine.games.slapjack import REFEREE

    variants = resolve_variants("slapjack", REFEREE.VARIANTS, header.variants)
    window = float(variants["tie_window_ms"]) / 1000.0
    burn = variants["false_slap_penalty"] == "burn_to_pile"
    players = list(header.players)
    n = len(players)
    first = players[header.first_player_index]

    deck = list(STANDARD_DECK)
    rng.shuffle(deck)
    stacks: dict[str, list[str]] = {p: [] for p in players}  # top of a stack = end of its list
    for i, c in enumerate(deck):  # SJ-1: one at a time from the dealer's left
        stacks[players[(header.first_player_index + i) % n]].append(c)
    skill = {p: rng.uniform(0.2, 0.45) for p in players}  # mean reaction time, seconds
    out: set[str] = set()
    pile: list[str] = []  # the centre pile, bottom first (burned cards included)
    events: list[Event] = []
    last: str | None = None
    jack_open = False  # the top card is a jack nobody has won or tied on
    t = round(rng.uniform(0.5, 2.0), 4)
    turns = 0

    while True:
        turner = _next_turner(players, stacks, last, first)
        if turner is None:
            break  # nobody holds a card (the referee has ruled the draw)
        turns += 1
        endgame = turns > _ENDGAME_TURNS
        below = pile[-1] if pile else None
        covers_jack = jack_open
        card = stacks[turner].pop()
        pile.append(card)
        last = turner
        card_t = t
        events.append(Event(t=card_t, type="card", zone="center", card=card, player=turner))
        last_t = card_t

        if card in _JACKS:
            jack_open = True
            leader = max(players, key=lambda p: len(stacks[p]))
            hands: list[list] = []
            for p in players:
                if p in out or (endgame and p != leader):
                    continue
                if rng.random() < (P_MISS if stacks[p] else P_MISS_WAITING):
                    continue
                hands.append([_reaction(rng, skill[p]), p])
            if not hands and not any(stacks.values()):
                # the last jack of a table without cards: somebody always goes for it
                hands.append([_human(rng, 0.3), rng.choice(
                    [p for p in players if p not in out])])
            hands.sort()
            if len(hands) >= 2 and rng.random() < P_NEAR_TIE:
                hands[1][0] = hands[0][0] + rng.uniform(0.0, 0.018)
                hands.sort()
            slaps: list[Event] = []
            for rt, p in hands:
                t_err = round(rng.uniform(0.002, 0.012), 4) if rng.random() < P_T_ERR else 0.0
                slaps.append(Event(t=round(card_t + rt, 4), type="slap", zone="center", player=p,
                                   t_err=t_err))
            slaps.sort(key=lambda e: e.t)
            # close the race exactly as the referee does: at the first contact after its window
            race: Race | None = None
            k = len(slaps)  # index of the first late slap
            for i, s in enumerate(slaps):
                if race is not None and race.is_due(s.t, window):
                    k = i
                    break
                if race is None:
                    race = Race(card)
                race.add(Entry(s.t, s.t_err, s.player or "", i))
            in_race, late = slaps[:k], slaps[k:]
            events.extend(in_race)
            if race is not None:
                jack_open = False
                res = race.result(window)
                game_over = False
                if res.winner is not None:  # SJ-2/SJ-3: the pile goes under and is shuffled in
                    w = res.winner.player
                    won = pile + stacks[w]
                    rng.shuffle(won)
                    stacks[w] = won
                    pile = []
                    for p in players:  # SJ-5
                        if p != w and not stacks[p]:
                            out.add(p)
                    game_over = len(stacks[w]) == len(STANDARD_DECK)  # SJ-7
                else:
                    game_over = not any(stacks.values())  # a tie nobody can follow: draw
                if game_over:
                    break  # the referee rules at the next line: the log ends here
                events.extend(late)  # G-3: later hands on a decided jack
                if late:
                    last_t = late[-1].t
                elif in_race:
                    last_t = in_race[-1].t
                if res.winner is not None and rng.random() < P_TAKE:
                    last_t = round(last_t + rng.uniform(0.25, 0.6), 4)
                    events.append(Event(t=last_t, type="take", zone="center", player=res.winner.player))
        else:
            jack_open = False
            if not any(stacks.values()):
                break  # nobody can turn and no jack to slap: the referee rules a draw at this card
            if not endgame:
                p_false = P_FALSE
                if covers_jack:
                    p_false = P_FALSE_COVERED
                elif below is not None and below[:-1] == card[:-1]:
                    p_false = P_FALSE_PAIR
                if rng.random() < p_false:
                    who = rng.choice([p for p in players if p not in out])
                    last_t = round(card_t + _reaction(rng, skill[who]), 4)
                    events.append(Event(t=last_t, type="slap", zone="center", player=who))
                    if stacks[who]:  # SJ-4
                        given = stacks[who].pop()
                        if burn or who == turner:
                            pile.insert(0, given)
                        else:
                            stacks[turner].insert(0, given)
                        if not any(stacks.values()):
                            break  # the burned card was the last one held: draw
        t = round(max(card_t + rng.uniform(0.4, 1.5), last_t + rng.uniform(0.2, 0.5)), 4)
    return events
