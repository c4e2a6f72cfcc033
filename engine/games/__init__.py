"""One referee per game; looked up by the ``game`` field of the log's first line."""

from __future__ import annotations

import importlib
from typing import Any

from engine.events import GAMES, GameHeader
from engine.referee import GameSetupError, Referee


def referee_class(game: str) -> type[Referee]:
    """The referee class for ``game``; unknown games are refused with the list of valid ones."""
    if game not in GAMES:
        raise GameSetupError(f"unknown game {game!r}; valid games: {', '.join(GAMES)}")
    module = importlib.import_module(f"engine.games.{game}")
    return module.REFEREE


def new_referee(header: GameHeader) -> Referee:
    """A referee at the start of the game the header describes (variants checked here)."""
    return referee_class(header.game)(header)


def variants_of(game: str) -> dict[str, tuple[Any, ...]]:
    """The named variants of ``game`` with their allowed values (default first)."""
    return dict(referee_class(game).VARIANTS)
