"""The audit bench compares the slaps it found with the rendered game's in time order, and audits again the games an
earlier run filmed only when they are the same games (``bench/audit.py``)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

from audit import kept_render, match_in_order  # noqa: E402


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


def test_a_kept_game_is_reused_only_when_it_is_the_same_game_filmed_whole(tmp_path: Path) -> None:
    """``--reuse``: the game filmed by an earlier run is audited again when its truth holds this script and its video
    runs to the end; another length or seed, a missing deck, or a video cut short is filmed again."""
    from models.gamevideo import render_game

    video = tmp_path / "slapjack-3p-s238.mp4"
    filmed = render_game(video, "slapjack", 3, 238, seconds=2.0)
    kept = kept_render(video, "slapjack", 3, 238, 2.0)
    assert kept is not None and kept.video == video and kept.script.events == filmed.script.events
    assert kept_render(video, "slapjack", 3, 238, 3.0) is None  # another length: another script
    assert kept_render(video, "slapjack", 3, 11, 2.0) is None
    cut = tmp_path / "cut.mp4"
    for suffix in (".truth.jsonl", ".layout.yaml"):
        (tmp_path / f"cut{suffix}").write_bytes(video.with_name(video.stem + suffix).read_bytes())
    (tmp_path / "cut.deck").mkdir()
    render_game(tmp_path / "short.mp4", "slapjack", 3, 238, seconds=1.0)
    cut.write_bytes((tmp_path / "short.mp4").read_bytes())  # (this script's truth beside a video half as long)
    assert kept_render(cut, "slapjack", 3, 238, 2.0) is None
    (tmp_path / "cut.mp4").write_bytes(video.read_bytes())
    assert kept_render(cut, "slapjack", 3, 238, 2.0) is not None
    (tmp_path / "cut.deck").rmdir()
    assert kept_render(cut, "slapjack", 3, 238, 2.0) is None


def test_card_events_pair_a_card_with_its_own_line_before_any_other() -> None:
    # Rendered Speed s238: 5S laid at 9.082 and covered unseen, 4H at 9.331 and 3C at 9.561 seen 0.23 s after each
    # other. Nearest in time, 5S took 4H's line ("read as 4H") and 4H took 3C's; as the audit bench counts, 4H and
    # 3C are right and 5S missed.
    from card_events import pair_cards

    truth = [(9.082, "left", "5S", {}), (9.331, "left", "4H", {}), (9.561, "left", "3C", {})]
    seen = [(9.316, "left", "4H", {}), (9.562, "left", "3C", {})]
    assert pair_cards(truth, seen, 0.5) == {1: 0, 2: 1}
    # a card seen as another is paired with what is left near it
    assert pair_cards(truth[:1], [(9.1, "left", "5C", {})], 0.5) == {0: 0}
    assert pair_cards(truth[:1], [(9.1, "right", "5S", {})], 0.5) == {}


def test_a_card_dated_a_frame_late_is_off_time() -> None:
    """A card is dated by the first frame it shows in: on time from the frame before that frame's time to a few ms
    after; a race card's tap within its ``t_err``."""
    from audit import FPS, card_on_time

    frame = 1 / FPS
    assert card_on_time(13.917, {"t": 13.9333})  # (the frame after it landed)
    assert not card_on_time(13.917, {"t": 13.9667})  # (rendered Slapjack 2p s11's 2D, a frame late)
    assert not card_on_time(13.917, {"t": 13.917 - 0.01})  # (before it landed)
    assert card_on_time(5.128, {"t": 5.131, "t_err": 0.004}) and not card_on_time(5.128, {"t": 5.14, "t_err": 0.004})
    assert card_on_time(1.0, {"t": 1.0 + frame})
