"""Whole legal games played by random players, as the log a perfect camera would write.

Simulators are pure like the referee (a seeded ``random.Random``, no clock): the same seed gives the same
log. They know everything (hands, face-down stacks) because they play the game; the log they write holds
only what a camera could see. They are the source of logs for tests, benchmarks, the demo and the
rendered videos.
"""

from __future__ import annotations

import importlib
import random
from typing import Any

from engine.events import GAMES, Event, GameHeader
from engine.referee import GameSetupError, resolve_variants

#: players a game can seat (RULES.md): Speed and Spit are for two
PLAYER_RANGE: dict[str, tuple[int, int]] = {
    "snap": (2, 8), "slapjack": (2, 8), "speed": (2, 2), "spit": (2, 2), "cheat": (2, 8), "paijie": (2, 8),
}

DEFAULT_NAMES: tuple[str, ...] = ("A", "B", "C", "D", "E", "F", "G", "H")


def make_header(game: str, players: int | list[str], variants: dict[str, Any] | None = None,
                dealer: str | None = None) -> GameHeader:
    """Build and check a ``game`` line (player count, variants) for a simulation."""
    if game not in GAMES:
        raise GameSetupError(f"unknown game {game!r}; valid games: {', '.join(GAMES)}")
    names = list(DEFAULT_NAMES[:players]) if isinstance(players, int) else list(players)
    lo, hi = PLAYER_RANGE[game]
    if not lo <= len(names) <= hi:
        raise GameSetupError(f"{game} is for {lo}-{hi} players, not {len(names)}")
    from engine.games import referee_class

    spec = referee_class(game).VARIANTS
    resolve_variants(game, spec, variants or {})  # refuse bad variants before playing
    return GameHeader(game=game, players=tuple(names), dealer=dealer or names[-1], variants=dict(variants or {}))


def simulate(game: str, players: int | list[str] = 2, seed: int = 0, variants: dict[str, Any] | None = None,
             dealer: str | None = None) -> tuple[GameHeader, list[Event]]:
    """Play one whole game of ``game``; returns the header and the observation events in log order."""
    header = make_header(game, players, variants, dealer)
    module = importlib.import_module(f"engine.sim.{game}")
    events = module.simulate(header, random.Random(seed))
    return header, events
