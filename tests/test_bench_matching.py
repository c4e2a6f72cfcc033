"""The audit bench compares the slaps it found with the rendered game's in time order (``bench/audit.py``)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

from audit import match_in_order  # noqa: E402


def test_two_hands_ms_apart_are_compared_in_their_order() -> None:
    # A hit at 9.472, C at 9.475; the audit timed A at 9.467 and C at 9.472. Nearest in time pairs the truth's
    # A with the audit's C; in order, A with A and C with C (TM-3: who was first is what is asked).
    truth = [(9.472, "center"), (9.475, "center")]
    found = [(9.467, "center"), (9.472, "center")]
    assert match_in_order(truth, found) == [(0, 0), (1, 1)]


def test_zones_gate_and_misses() -> None:
    truth = [(1.0, "center"), (2.0, "center"), (1.0, "pile:A")]
    found = [(2.01, "center"), (1.2, "pile:A"), (1.02, "pile:B")]
    # 1.0 on the centre was missed; the pile:A slap is 0.2 s off (past the gate); pile:B has no truth
    assert match_in_order(truth, found) == [(1, 0)]


def test_the_most_pairs_then_the_least_error() -> None:
    truth = [(1.0, "c"), (1.03, "c")]
    found = [(0.99, "c"), (1.0, "c"), (1.5, "c")]
    assert match_in_order(truth, found) == [(0, 0), (1, 1)]
    assert match_in_order([(1.0, "c")], [(0.9, "c"), (0.99, "c")]) == [(0, 1)]


def test_players_of_slaps_the_audit_leaves_unordered_are_compared_as_a_group() -> None:
    # Slapjack seed 11: C hit at 3.6232 and A at 3.6252; one sound, given to C (3.6231 +- 0.5 ms), and A timed by
    # the video alone (3.600 +- 33 ms). In time order the pairs are crosswise, yet both hands were named.
    from audit import players_right_unordered

    matched = [("C", "center", 3.600, 0.0333, "A"), ("A", "center", 3.6231, 0.0005, "C")]
    assert players_right_unordered(matched) == 2
    # the same two, each timed by its own sound 23 ms apart: ordered, and both wrong
    timed = [("C", "center", 3.600, 0.0005, "A"), ("A", "center", 3.6231, 0.0005, "C")]
    assert players_right_unordered(timed) == 0
    # a group is compared by who is in it, not just by its size: B twice is one right of A and B
    assert players_right_unordered([("A", "c", 1.0, 0.03, "B"), ("B", "c", 1.01, 0.03, "B")]) == 1
    # other zones and later slaps are groups of their own
    assert players_right_unordered([("A", "c", 1.0, 0.03, "A"), ("B", "d", 1.0, 0.03, "A"),
                                    ("B", "c", 2.0, 0.03, "B")]) == 2


def test_verdicts_said_alike_are_the_same_words_near_in_time_each_counted_once() -> None:
    """Where an audit's verdicts are not all equal to the truth's, the bench says how many of the truth's it also said:
    the same kind and words within ``ALIKE_S``; one audit verdict stands for one of the truth's only."""
    from audit import ALIKE_S, said_alike

    snap = {"kind": "snap", "say": "Snap, sevens!"}
    want = [{"t": 1.0, **snap}, {"t": 1.1, **snap}, {"t": 5.0, "kind": "false_slap", "say": "False slap, Bob"}]
    got = [{"t": 1.0 + ALIKE_S / 2, **snap}, {"t": 5.0, "kind": "false_slap", "say": "False slap, Carol"},
           {"t": 9.0, **snap}]
    assert said_alike(want, got) == 1
    assert said_alike(want, want) == 3 and said_alike(want, []) == 0
