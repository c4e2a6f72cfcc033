"""Properties over thousands of simulated games of every type (issue 2, "Must show").

For every game: the referee finds nothing impossible in a perfect camera's log, the game ends with exactly
one ``win`` or ``draw``, cards are conserved wherever the referee can count them, replay is deterministic,
and the pure ``step`` never changes its input.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.games import new_referee
from engine.referee import step
from engine.replay import replay_to_end
from engine.sim import PLAYER_RANGE, simulate

GAMES = ["snap", "slapjack", "speed", "spit", "cheat", "paijie"]
#: games per game type; CI runs the full count, TABLECAM_FAST=1 trims it for quick local loops
EXAMPLES = 200 if os.environ.get("TABLECAM_FAST") else 2000


def _players(game: str, k: int) -> int:
    lo, hi = PLAYER_RANGE[game]
    return lo + k % (min(hi, 6) - lo + 1)


@pytest.mark.parametrize("game", GAMES)
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(0, 10))
def test_simulated_games_referee_cleanly_and_end(game: str, seed: int, k: int) -> None:
    """A perfect camera's log of a legal game: no anomalies, cards conserved, exactly one end (SN-7, SJ-7,
    SP-7, ST-6, CH-6, PJ-14)."""
    header, events = simulate(game, _players(game, k), seed)
    ref = new_referee(header)
    outputs = []
    for ev in events:
        outputs.extend(ref.push(ev))
        total = ref.observable_total()
        assert total is None or total == ref.DECK_SIZE, (game, seed, ev, total)
    outputs.extend(ref.finish())
    anomalies = [o.to_dict() for o in outputs if o.to_dict()["type"] == "anomaly"]
    assert anomalies == [], (game, seed, anomalies[:3])
    ends = [o for o in outputs if getattr(o, "kind", None) in ("win", "draw")]
    assert len(ends) == 1, (game, seed, [e.to_dict() for e in ends])
    assert ref.outcome is not None


@pytest.mark.parametrize("game", GAMES)
@settings(max_examples=max(EXAMPLES // 5, 50), deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_replay_is_deterministic(game: str, seed: int) -> None:
    """The same log replayed twice gives identical verdicts, line for line."""
    header, events = simulate(game, PLAYER_RANGE[game][0], seed)
    _, a = replay_to_end(header, events)
    _, b = replay_to_end(header, events)
    assert [o.to_dict() for o in a] == [o.to_dict() for o in b]
    header2, events2 = simulate(game, PLAYER_RANGE[game][0], seed)
    assert [e.to_dict() for e in events2] == [e.to_dict() for e in events]


@pytest.mark.parametrize("game", GAMES)
@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_step_is_pure(game: str, seed: int) -> None:
    """``step(state, event)`` returns a new state and leaves its input exactly as it was."""
    header, events = simulate(game, PLAYER_RANGE[game][0], seed)
    state = new_referee(header)
    pushed = new_referee(header)
    for ev in events[:200]:
        before = state.copy()
        new, out = step(state, ev)
        assert state == before
        assert [o.to_dict() for o in out] == [o.to_dict() for o in pushed.push(ev)]
        assert new == pushed
        state = new
