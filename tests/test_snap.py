"""Snap: RULES.md SN-1..SN-7 with G-1..G-3 and TM-1..TM-3, the seed 000 examples, both variants, the simulator."""

from __future__ import annotations

from typing import Any

import pytest
from helpers import anomalies, call, card, run, slap, verdicts
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.cards import STANDARD_DECK
from engine.events import Event, parse_event, parse_header
from engine.games import new_referee
from engine.games.snap import SnapReferee
from engine.referee import GameSetupError, step
from engine.replay import replay_to_end
from engine.sim import simulate
from engine.verdicts import VERDICT_KINDS


def hdr(*players: str, **variants: Any) -> dict[str, Any]:
    """A ``game`` line; the last player deals, so the first listed starts (SN-2)."""
    players = players or ("A", "B", "C")
    return {"game": "snap", "players": list(players), "dealer": players[-1], "variants": variants}


def referee(header: dict[str, Any], *lines: dict[str, Any],
            done: bool = True) -> tuple[SnapReferee, list[dict[str, Any]]]:
    """The referee after ``lines`` (and the end of the log, unless ``done`` is False: then open races stay
    open) and its outputs."""
    ref = new_referee(parse_header({"type": "game", **header}))
    assert isinstance(ref, SnapReferee)
    out = []
    for i, obj in enumerate(lines):
        out.extend(o.to_dict() for o in ref.push(parse_event(obj, i + 2)))
    if done:
        out.extend(o.to_dict() for o in ref.finish())
    return ref, out


def kinds(out: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(v["kind"], v["rule"]) for v in verdicts(out)]


def seven_snap() -> list[dict[str, Any]]:
    """甲 (A) shows 7H, 乙 (B) turns 7C: a snap between two different players' piles."""
    return [card(1.0, "pile:A", "7H", "A"), card(2.0, "pile:B", "7C", "B")]


LOWS = [r + s for r in ("A", "2", "3", "4", "5", "6") for s in "SHDC"]
HIGHS = [r + s for r in ("8", "9", "10", "J", "Q", "K") for s in "SHDC"]


def two_player_cards(final_snap: bool) -> list[dict[str, Any]]:
    """All 52 cards turned by A and B in turn. A holds A-6 and two sevens, B 8-K and two sevens, placed so
    that no two tops ever match, except (``final_snap``) B's last card on A's last 7."""
    a = LOWS[:2] + ["7S"] + LOWS[2:] + ["7H"]
    b = ["7D"] + HIGHS + ["7C"] if final_snap else ["7D"] + HIGHS[:12] + ["7C"] + HIGHS[12:]
    lines = []
    for i in range(26):
        lines.append(card(1.0 + 2 * i, "pile:A", a[i], "A"))
        lines.append(card(2.0 + 2 * i, "pile:B", b[i], "B"))
    return lines


# ---------------------------------------------------------------------------------------- seed 000 examples
def test_example_third_player_calls_first_takes_both_piles() -> None:
    """Seed: 甲 top 7H, 乙 turns 7C, 丙 calls Snap first: 丙 takes both piles though he owns neither (SN-3)."""
    ref, out = referee(hdr(), *seven_snap(), call(2.3, "C"), call(2.6, "A"), card(4.0, "pile:C", "2D"))
    assert kinds(out) == [("snap", "SN-3")]
    v = verdicts(out)[0]
    assert (v["player"], v["cards"], v["piles"], v["reaction_ms"]) == ("C", 2, ["A", "B"], 300.0)
    assert v["say"] == "Snap, sevens! C takes 2 cards"
    assert ref.piles == {"A": [], "B": [], "C": ["2D"]}
    assert ref.down == {"A": 17, "B": 16, "C": 18}  # C: 17 dealt + 2 won - 1 turned
    assert ref.owner == {"7H": "C", "7C": "C"}


def test_example_eight_of_clubs_is_no_snap() -> None:
    """Seed: if 乙 turns 8C instead, there is no snap; a call is false (SN-6), nothing moves."""
    ref, out = referee(hdr(), card(1.0, "pile:A", "7H"), card(2.0, "pile:B", "8C"), call(2.3, "C"))
    assert kinds(out) == [("false_snap", "SN-6")]
    assert verdicts(out)[0]["player"] == "C"
    assert ref.piles == {"A": ["7H"], "B": ["8C"], "C": []}


def test_example_two_players_call_together_make_snap_pot() -> None:
    """Seed: two calls at the same time: the two piles go face up to the middle as the Snap Pot (SN-4), and
    play resumes left of the last turner (G-1)."""
    ref, out = referee(hdr(), *seven_snap(), call(2.300, "C"), call(2.310, "A"), card(4.0, "pile:C", "2D"))
    assert kinds(out) == [("snap_pot", "SN-4")]
    v = verdicts(out)[0]
    assert (v["players"], v["cards"], v["piles"]) == (["C", "A"], 2, ["A", "B"])
    assert ref.pot == ["7H", "7C"] and ref.pot_rank == "7"
    assert ref.piles == {"A": [], "B": [], "C": ["2D"]}
    assert ref.observable_total() == 52


def test_example_pot_top_nine_snap_pot_call_takes_pot() -> None:
    """Seed: the pot's top is a 9; someone turns another 9: the first "Snap Pot" call takes the pot (SN-4)."""
    ref, out = referee(hdr(), card(1.0, "pile:A", "9S"), card(2.0, "pile:B", "9H"), call(2.3, "A"),
                       call(2.31, "B"), card(4.0, "pile:C", "9D"), call(4.4, "B", "snap pot"),
                       call(4.5, "A", "snap pot"))
    assert kinds(out) == [("snap_pot", "SN-4"), ("pot_won", "SN-4")]
    v = verdicts(out)[1]
    assert (v["player"], v["cards"], v["reaction_ms"]) == ("B", 2, 400.0)
    assert ref.pot == [] and ref.down["B"] == 18 and ref.piles["C"] == ["9D"]


def test_example_lone_jack_is_not_a_snap() -> None:
    """Seed: a single J on top is not a snap in Snap (it would be in Slapjack): the call is false (SN-6)."""
    _, out = referee(hdr(), card(1.0, "pile:A", "JH"), call(1.3, "B"))
    assert kinds(out) == [("false_snap", "SN-6")]


def test_example_tops_of_different_players_not_consecutive_cards() -> None:
    """Seed: the test is the visible tops of different players' piles (SN-3), not "this card equals the last
    card": 7H, 5C, then 7D snaps with A's 7H; a 7 on one's own 7 is no snap."""
    _, out = referee(hdr(), card(1.0, "pile:A", "7H"), card(2.0, "pile:B", "5C"), card(3.0, "pile:C", "7D"),
                     call(3.3, "B"))
    assert kinds(out) == [("snap", "SN-3")] and verdicts(out)[0]["piles"] == ["A", "C"]
    _, out = referee(hdr(), card(1.0, "pile:A", "7H"), card(2.0, "pile:B", "5C"), card(3.0, "pile:C", "2D"),
                     card(4.0, "pile:A", "7S"), call(4.3, "B"))
    assert kinds(out) == [("false_snap", "SN-6")]


def test_example_empty_stack_turns_pile_over_and_goes_on() -> None:
    """Seed: a player whose face-down pile is empty turns the face-up pile over and plays on (SN-7); the
    referee infers the turnover from the next card."""
    lines = two_player_cards(final_snap=False)
    ref, out = referee(hdr("A", "B"), *lines, card(60.0, "pile:A", "2S"), card(61.0, "pile:B", "7D"))
    assert anomalies(out) == [] and verdicts(out) == []
    assert ref.down == {"A": 25, "B": 25} and ref.piles == {"A": ["2S"], "B": ["7D"]}
    assert ref.observable_total() == 52
    # a turned-over pile is known: a card that was not in it cannot come next
    ref, out = referee(hdr("A", "B"), *lines, card(60.0, "pile:A", "KS"))
    assert [a["rule"] for a in anomalies(out)] == ["SN-7"]
    assert ref.down == {"A": 0, "B": 0} and len(ref.piles["A"]) == 26


def test_sn_7_turnover_seen_as_take_of_own_pile() -> None:
    """SN-7: the turnover may also be logged as the player picking up their own pile (a ``take``)."""
    lines = two_player_cards(final_snap=False)
    ref, out = referee(hdr("A", "B"), *lines, {"t": 59.5, "type": "take", "zone": "pile:A", "player": "A"})
    assert anomalies(out) == [] and ref.down["A"] == 26 and ref.piles["A"] == []
    ref, out = referee(hdr("A", "B"), *lines[:-2], {"t": 59.5, "type": "take", "zone": "pile:A", "player": "A"})
    assert [a["rule"] for a in anomalies(out)] == ["SN-3"]  # A still has a face-down card


# ---------------------------------------------------------------------------------------- SN-1 .. SN-7
def test_sn_1_deal_counts_from_dealers_left_uneven_fine() -> None:
    """SN-1: 52 dealt one at a time from the dealer's left; uneven counts are fine (the seed: no cards are
    removed to even them out)."""
    ref, _ = referee({"game": "snap", "players": ["A", "B", "C", "D", "E"], "dealer": "B", "variants": {}})
    assert ref.down == {"C": 11, "D": 11, "E": 10, "A": 10, "B": 10}
    assert ref.free == ref.down and ref.observable_total() == 52
    assert ref.nxt == "C"


def test_sn_1_card_seen_twice_is_anomaly() -> None:
    """SN-1: one deck: a card already face up cannot be turned again; a joker is not in the deck."""
    _, out = referee(hdr(), card(1.0, "pile:A", "7H"), card(2.0, "pile:B", "7H"))
    assert [a["rule"] for a in anomalies(out)] == ["SN-1"]
    _, out = referee(hdr(), {"t": 1.0, "type": "card", "zone": "pile:A", "card": "RJ"})
    assert [a["rule"] for a in anomalies(out)] == ["SN-1"]


def test_sn_1_won_cards_are_known_to_be_in_the_winners_stack() -> None:
    """SN-1/SN-3: cards the camera saw go under C's stack cannot be turned by anyone else."""
    _, out = referee(hdr(), *seven_snap(), call(2.3, "C"), card(4.0, "pile:C", "2D"), card(5.0, "pile:A", "7H"))
    assert kinds(out) == [("snap", "SN-3")]
    assert [(a["rule"], a["reason"]) for a in anomalies(out)] == [("SN-1", "7H is in C's face-down stack, not A's")]
    _, out = referee(hdr(), *seven_snap(), call(2.3, "C"), card(4.0, "pile:C", "7H"))
    assert anomalies(out) == []


def test_sn_2_each_player_turns_onto_own_pile() -> None:
    """SN-2: a card goes on the turner's own pile: not on another player's, not on the pot."""
    _, out = referee(hdr(), card(1.0, "pile:B", "7H", "A"))
    assert [a["rule"] for a in anomalies(out)] == ["SN-2"]
    _, out = referee(hdr(), card(1.0, "pot", "7H", "A"))
    assert [a["rule"] for a in anomalies(out)] == ["SN-2"]
    _, out = referee(hdr(), card(1.0, "pile:A", "7H", "A", source="side"))
    assert [a["rule"] for a in anomalies(out)] == ["SN-2"]


def test_sn_2_dealers_left_starts_and_turns_go_clockwise() -> None:
    """SN-2 with G-1: the dealer's left turns first, then clockwise; out of turn is an anomaly, not spoken."""
    _, out = referee(hdr(), card(1.0, "pile:B", "7H"))
    assert [(a["rule"], a["reason"]) for a in anomalies(out)] == [("G-1", "out of turn: it is A's turn, not B's")]
    _, out = referee(hdr(), card(1.0, "pile:A", "7H"), card(2.0, "pile:B", "8H"), card(3.0, "pile:C", "9H"),
                     card(4.0, "pile:A", "10H"))
    assert out == []


def test_sn_3_new_card_matching_several_tops_caller_takes_every_pile() -> None:
    """SN-3: a card matching two tops: the caller takes all three matching piles."""
    _, out = referee(hdr(), *seven_snap(), card(3.0, "pile:C", "7D"), call(3.25, "A"), call(4.0, "B"))
    v = verdicts(out)[0]
    assert (v["kind"], v["rule"], v["player"], v["cards"], v["piles"]) == ("snap", "SN-3", "A", 3, ["A", "B", "C"])
    assert v["reaction_ms"] == 250.0  # measured from the newest matching card (TM-2)


def test_sn_3_standing_snap_lasts_while_both_tops_visible() -> None:
    """SN-3/SN-5: a snap nobody called still stands while both tops are visible (C's card covers neither)."""
    _, out = referee(hdr(), *seven_snap(), card(3.0, "pile:C", "2D"), call(3.5, "C"), call(4.0, "A"))
    assert kinds(out) == [("snap", "SN-3")] and verdicts(out)[0]["player"] == "C"


def test_sn_4_pot_tie_is_unresolved_and_pot_stays() -> None:
    """SN-4 with TM-3: two "Snap Pot" calls inside the window: ``unresolved_tie``, the pot stays, and later
    calls on that card get nothing; the next card that matches can win it."""
    lines = [card(1.0, "pile:A", "9S"), card(2.0, "pile:B", "9H"), call(2.3, "A"), call(2.31, "B"),
             card(4.0, "pile:C", "9D"), call(4.4, "B", "snap pot"), call(4.41, "A", "snap pot"),
             call(4.9, "C", "snap pot")]
    ref, out = referee(hdr(), *lines)
    assert kinds(out) == [("snap_pot", "SN-4"), ("unresolved_tie", "TM-3")]
    assert verdicts(out)[1]["players"] == ["B", "A"] and len(ref.pot) == 2
    ref, out = referee(hdr(), *lines, card(6.0, "pile:A", "2C"), call(6.3, "C", "snap pot"))
    assert kinds(out)[-1] == ("pot_won", "SN-4") and ref.down["C"] == 17 + 2 - 1 + 0


def test_sn_4_pot_needs_the_words_snap_pot() -> None:
    """SN-4: "Snap" when only the pot matches, or "Snap Pot" when only piles match, is a false call."""
    pot = [card(1.0, "pile:A", "9S"), card(2.0, "pile:B", "9H"), call(2.3, "A"), call(2.31, "B")]
    _, out = referee(hdr(), *pot, card(4.0, "pile:C", "9D"), call(4.4, "B", "snap"))
    assert kinds(out) == [("snap_pot", "SN-4"), ("false_snap", "SN-4")]
    _, out = referee(hdr(), *seven_snap(), call(2.4, "B", "snap pot"))
    assert kinds(out) == [("false_snap", "SN-4")]


def test_sn_4_play_resumes_left_of_last_turner_after_snap_pot() -> None:
    """SN-4 with G-1: after the Snap Pot the player left of the last turner (B) goes on: C, not A."""
    _, out = referee(hdr(), *seven_snap(), call(2.3, "A"), call(2.31, "B"), card(4.0, "pile:A", "2C"))
    assert [a["rule"] for a in anomalies(out)] == ["G-1"]


def test_sn_5_covered_snap_is_missed_and_a_late_call_is_false() -> None:
    """SN-5: once A covers the 7, the snap is gone: ``missed_snap`` (logged, not spoken), a call is false."""
    ref, out = referee(hdr("A", "B"), *seven_snap(), card(3.0, "pile:A", "3S"), call(3.3, "B"))
    assert kinds(out) == [("missed_snap", "SN-5"), ("false_snap", "SN-5")]
    missed, false = verdicts(out)
    assert missed["voice"] is False and missed["rank"] == "7"
    assert false["say"] == "No snap, B: the sevens are covered."
    assert ref.piles == {"A": ["7H", "3S"], "B": ["7C"]}


def test_sn_5_covered_pot_match_is_missed() -> None:
    """SN-5 for the pot: a matching card covered before anyone called "Snap Pot"."""
    _, out = referee(hdr(), card(1.0, "pile:A", "9S"), card(2.0, "pile:B", "9H"), call(2.3, "A"), call(2.31, "B"),
                     card(4.0, "pile:C", "9D"), card(5.0, "pile:A", "2C"), card(6.0, "pile:B", "3C"),
                     card(7.0, "pile:C", "4C"), call(7.2, "A", "snap pot"))
    assert kinds(out) == [("snap_pot", "SN-4"), ("missed_snap", "SN-5"), ("false_snap", "SN-5")]
    assert verdicts(out)[1]["zone"] == "pot"


def test_sn_6_false_call_default_no_penalty() -> None:
    """SN-6: by default a false call is announced as "no snap" and nothing moves."""
    ref, out = referee(hdr(), card(1.0, "pile:A", "7H"), call(1.4, "B"))
    v = verdicts(out)[0]
    assert (v["kind"], v["rule"], v["player"], v["cards"], v["say"]) == ("false_snap", "SN-6", "B", 0, "No snap, B.")
    assert ref.down == {"A": 17, "B": 17, "C": 17}


def test_sn_6_give_top_card_to_each_other_player() -> None:
    """SN-6 variant ``give_top_card``: the caller gives each other player their top face-down card."""
    ref, out = referee(hdr(false_call_penalty="give_top_card"), card(1.0, "pile:A", "7H"), call(1.4, "B"))
    v = verdicts(out)[0]
    assert (v["kind"], v["rule"], v["player"], v["cards"], v["recipients"]) == ("false_snap", "SN-6", "B", 2,
                                                                              ["C", "A"])
    assert ref.down == {"A": 18, "B": 15, "C": 18} and ref.observable_total() == 52
    ref, out = referee(hdr("A", "B", false_call_penalty="give_top_card"), card(1.0, "pile:A", "7H"),
                       call(1.4, "A"))
    v = verdicts(out)[0]
    assert (v["to"], v["cards"], v["say"]) == ("B", 1, "No snap, A. A gives B a card.")
    assert ref.down == {"A": 24, "B": 27}


def test_sn_6_penalty_forgets_which_known_cards_left() -> None:
    """SN-6: after giving an unknown top card, the won cards may be anywhere: no false anomaly later."""
    ref, out = referee(hdr("A", "B", false_call_penalty="give_top_card"), *seven_snap(), call(2.3, "B"),
                       card(4.0, "pile:A", "2C"), call(4.3, "B"), card(5.0, "pile:B", "3C"))
    assert kinds(out) == [("snap", "SN-3"), ("false_snap", "SN-6")]
    assert anomalies(out) == [] and ref.owner == {} and ref.free == ref.down


def test_sn_7_elimination_and_win_in_causal_order() -> None:
    """SN-7 with G-2: A wins the last snap holding all 52; B, without cards, is out; then A wins."""
    out = run(hdr("A", "B"), *two_player_cards(final_snap=True), call(52.4, "A"))
    assert kinds(out) == [("snap", "SN-3"), ("eliminated", "SN-7"), ("win", "SN-7")]
    snap_v, out_v, win_v = verdicts(out)
    assert (snap_v["cards"], out_v["player"], win_v["player"], win_v["cards"]) == (52, "B", "A", 52)
    assert snap_v["t"] == out_v["t"] == win_v["t"]


def test_sn_7_nobody_left_is_a_draw() -> None:
    """SN-7: a Snap Pot of both players' last cards leaves nobody with cards: a draw."""
    ref, out = replay_to_end(parse_header({"type": "game", **hdr("A", "B")}),
                             [parse_event(o) for o in two_player_cards(final_snap=True) + [call(52.3, "A"),
                                                                                            call(52.31, "B")]])
    assert [(v.kind, v.rule) for v in out] == [("snap_pot", "SN-4"), ("eliminated", "SN-7"),
                                               ("eliminated", "SN-7"), ("draw", "SN-7")]
    assert ref.outcome is not None and ref.outcome.winner is None


def test_sn_7_last_player_with_cards_wins_and_takes_the_pot() -> None:
    """SN-7: when the others are out, the last player with cards wins and the pot is theirs (all 52)."""
    a = LOWS + ["7S"]
    b = ["8" + s for s in "SHDC"] + [r + s for r in ("10", "J", "Q", "K") for s in "SHDC"] + ["9D", "9C",
                                                                                           "7D", "7C", "7H"]
    lines = [card(1.0, "pile:A", "9S"), card(2.0, "pile:B", "9H"), call(2.3, "A"), call(2.31, "B")]
    for i in range(25):
        lines += [card(3.0 + 2 * i, "pile:A", a[i]), card(4.0 + 2 * i, "pile:B", b[i])]
    lines.append(call(52.4, "A"))
    ref, out = replay_to_end(parse_header({"type": "game", **hdr("A", "B")}), [parse_event(o) for o in lines])
    assert [(v.kind, v.rule) for v in out if v.kind != "missed_snap"] == [
        ("snap_pot", "SN-4"), ("snap", "SN-3"), ("eliminated", "SN-7"), ("win", "SN-7")]
    assert ref.down == {"A": 52, "B": 0} and ref.pot == [] and ref.outcome and ref.outcome.winner == "A"


def test_sn_7_player_out_is_skipped_and_cannot_play() -> None:
    """SN-7: E gives away all 6 cards (``give_top_card``) and is out; after D comes F (G-1)."""
    players = ("A", "B", "C", "D", "E", "F", "G", "H")
    ref, out = referee(hdr(*players, false_call_penalty="give_top_card"), card(1.0, "pile:A", "7H"),
                       call(1.5, "E"), card(2.0, "pile:B", "2C"), card(3.0, "pile:C", "3C"),
                       card(4.0, "pile:D", "4C"), card(5.0, "pile:E", "5C"))
    assert kinds(out) == [("false_snap", "SN-6"), ("eliminated", "SN-7")]
    assert verdicts(out)[0]["recipients"] == ["F", "G", "H", "A", "B", "C"]
    assert [a["rule"] for a in anomalies(out)] == ["SN-7"]
    assert ref.nxt == "F" and "E" not in ref.active
    assert ref.push(Event(t=5.0, type="card", zone="pile:F", card="6C")) == []
    # an out player's call or slap counts for nothing
    assert ref.push(Event(t=5.5, type="call", player="E", word="snap")) == []


# ---------------------------------------------------------------------------------------- G and TM rules
def test_g_1_out_of_turn_card_is_silent_anomaly() -> None:
    """G-1: the next player is left of the last turner (also after a pile is won); out of turn: anomaly."""
    _, out = referee(hdr(), *seven_snap(), call(2.3, "A"), card(4.0, "pile:A", "2D"))
    assert kinds(out) == [("snap", "SN-3")]
    assert [(a["type"], a["rule"]) for a in anomalies(out)] == [("anomaly", "G-1")]
    _, out = referee(hdr(), *seven_snap(), call(2.3, "A"), card(4.0, "pile:C", "2D"))
    assert anomalies(out) == []


def test_g_1_turn_lines_are_checked() -> None:
    """G-1: an optional ``turn`` line must name the player whose turn it is."""
    _, out = referee(hdr(), {"t": 0.5, "type": "turn", "player": "A"}, card(1.0, "pile:A", "7H"),
                     {"t": 1.5, "type": "turn", "player": "C"})
    assert [a["rule"] for a in anomalies(out)] == ["G-1"]


def test_g_2_verdicts_in_causal_order() -> None:
    """G-2: the verdict that moves cards comes first, then its consequences (out, then win)."""
    out = run(hdr("A", "B", false_call_penalty="give_top_card"),
              *[call(1.0 + i, "B") for i in range(26)])
    assert [v["kind"] for v in verdicts(out)] == ["false_snap"] * 26 + ["eliminated", "win"]
    assert verdicts(out)[-1]["player"] == "A"


def test_g_3_later_call_on_won_snap_gets_no_verdict() -> None:
    """G-3: a call after the snap was won is neither a win nor false; after the next card it is judged."""
    out = run(hdr(), *seven_snap(), call(2.3, "C"), call(2.5, "A"), call(2.9, "B"), card(4.0, "pile:C", "2D"),
              call(4.5, "A"))
    assert kinds(out) == [("snap", "SN-3"), ("false_snap", "SN-6")]
    assert anomalies(out) == []


def test_g_3_late_slap_on_won_pile_gets_nothing() -> None:
    """G-3 (``snap_by_slap``): a late slap on a pile just won is no verdict and no anomaly."""
    out = run(hdr(snap_by_slap=True), *seven_snap(), slap(2.3, "pile:A", "C"), slap(2.6, "pile:B", "A"),
              slap(2.7, "pile:A", "B"))
    assert kinds(out) == [("snap", "SN-3")] and anomalies(out) == []


def test_tm_1_slap_contact_time_decides_not_log_order() -> None:
    """TM-1: the slap that touched first wins, even if its line comes later in the log."""
    out = run(hdr(snap_by_slap=True), *seven_snap(), slap(2.40, "pile:B", "B"), slap(2.35, "pile:A", "A"))
    assert kinds(out) == [("snap", "SN-3")] and verdicts(out)[0]["player"] == "A"


def test_tm_2_anticipated_reaction_is_marked_not_spoken() -> None:
    """TM-2: a call 60 ms after the card still wins, and is marked ``anticipated`` for the audit."""
    out = run(hdr(), *seven_snap(), call(2.06, "C"))
    assert kinds(out) == [("snap", "SN-3"), ("anticipated", "TM-2")]
    mark = verdicts(out)[1]
    assert (mark["player"], mark["voice"], mark["reaction_ms"]) == ("C", False, 60.0)
    out = run(hdr(anticipation_ms=50), *seven_snap(), call(2.06, "C"))
    assert kinds(out) == [("snap", "SN-3")]


@pytest.mark.parametrize(("dt", "t_err", "window", "kind"), [
    (0.025, 0.0, None, "snap"),        # 25 ms apart: ordered
    (0.020, 0.0, None, "snap_pot"),    # exactly the window: a tie
    (0.030, 0.02, None, "snap_pot"),   # t_err 20+20 ms > 30 ms
    (0.030, 0.0, 50, "snap_pot"),      # tie_window_ms 50
    (0.060, 0.0, 50, "snap"),
])
def test_tm_3_tie_window_and_t_err(dt: float, t_err: float, window: int | None, kind: str) -> None:
    """TM-3: calls closer than max(window, summed t_err) are simultaneous: the Snap Pot (SN-4)."""
    h = hdr() if window is None else hdr(tie_window_ms=window)
    out = run(h, *seven_snap(), call(2.3, "C", t_err=t_err), call(2.3 + dt, "A", t_err=t_err))
    assert [v["kind"] for v in verdicts(out)] == [kind]


def test_tm_3_card_inside_the_window_closes_the_race_first() -> None:
    """TM-3: a card turned 10 ms after a call: the call came first and is ruled before the card."""
    ref, out = referee(hdr(), *seven_snap(), call(2.30, "C"), card(2.31, "pile:C", "7D"))
    assert kinds(out) == [("snap", "SN-3")] and anomalies(out) == []
    assert verdicts(out)[0]["t"] == 2.31 and ref.piles["C"] == ["7D"] and not ref.races


# ---------------------------------------------------------------------------------------- variants
def test_variant_snap_by_slap_both_values() -> None:
    """Variant ``snap_by_slap``: False (default) calls, slaps are anomalies; True slaps, calls are anomalies."""
    out = run(hdr(), *seven_snap(), slap(2.3, "pile:A", "C"))
    assert verdicts(out) == [] and [a["rule"] for a in anomalies(out)] == ["SN-3"]
    out = run(hdr(snap_by_slap=True), *seven_snap(), call(2.3, "C"))
    assert verdicts(out) == [] and [a["rule"] for a in anomalies(out)] == ["SN-3"]
    out = run(hdr(snap_by_slap=True), *seven_snap(), slap(2.3, "pile:B", "C"), slap(2.35, "pile:A", "C"))
    assert kinds(out) == [("snap", "SN-3")] and verdicts(out)[0]["player"] == "C"


def test_variant_snap_by_slap_false_slap_pot_and_empty_pile() -> None:
    """``snap_by_slap``: a slap on a non-matching pile is false (SN-6); on an empty pile, impossible; a slap
    on the pot (or a pile matching only the pot) claims the pot (SN-4); tied slaps make the Snap Pot."""
    h = hdr(snap_by_slap=True)
    out = run(h, card(1.0, "pile:A", "7H"), card(2.0, "pile:B", "8C"), slap(2.3, "pile:B", "C"))
    assert kinds(out) == [("false_snap", "SN-6")]
    out = run(h, card(1.0, "pile:A", "7H"), slap(1.3, "pile:C", "B"))
    assert verdicts(out) == [] and [a["rule"] for a in anomalies(out)] == ["SN-3"]
    pot = [card(1.0, "pile:A", "9S"), card(2.0, "pile:B", "9H"), slap(2.3, "pile:A", "A"),
           slap(2.31, "pile:B", "B"), card(4.0, "pile:C", "9D")]
    out = run(h, *pot, slap(4.3, "pot", "A"))
    assert kinds(out) == [("snap_pot", "SN-4"), ("pot_won", "SN-4")] and verdicts(out)[1]["player"] == "A"
    out = run(h, *pot, slap(4.3, "pile:C", "B"))
    assert kinds(out) == [("snap_pot", "SN-4"), ("pot_won", "SN-4")] and verdicts(out)[1]["player"] == "B"
    out = run(h, slap(0.5, "pot", "A"))
    assert [a["rule"] for a in anomalies(out)] == ["SN-4"]


def test_variant_false_call_penalty_both_values_and_refusal() -> None:
    """Variant ``false_call_penalty``: none (default) moves nothing, give_top_card pays; others refused."""
    for value, moved in (("none", 0), ("give_top_card", 2)):
        out = run(hdr(false_call_penalty=value), card(1.0, "pile:A", "7H"), call(1.4, "B"))
        assert kinds(out) == [("false_snap", "SN-6")] and verdicts(out)[0]["cards"] == moved
    with pytest.raises(GameSetupError):
        new_referee(parse_header({"type": "game", **hdr(false_call_penalty="burn")}))
    assert SnapReferee.VARIANTS == {"snap_by_slap": (False, True), "false_call_penalty": ("none", "give_top_card")}


# ---------------------------------------------------------------------------------------- takes, impossibles
def test_take_confirms_only_what_a_verdict_gave() -> None:
    """SN-3: a ``take`` confirms a pile the referee gave that player; anyone may carry piles to the pot."""
    take = {"type": "take"}
    out = run(hdr(), *seven_snap(), call(2.3, "C"), {**take, "t": 3.0, "zone": "pile:A", "player": "C"},
              {**take, "t": 3.1, "zone": "pile:B", "player": "A"})
    assert kinds(out) == [("snap", "SN-3")] and [a["rule"] for a in anomalies(out)] == ["SN-3"]
    out = run(hdr(), *seven_snap(), call(2.3, "C"), call(2.31, "A"),
              {**take, "t": 3.0, "zone": "pile:A", "player": "B"})
    assert anomalies(out) == []


IMPOSSIBLE = [
    (card(2.0, "pile:C", "7C"), "SN-1"),             # 7C is face up on B's pile
    (card(2.0, "pile:A", "2D"), "G-1"),              # C's turn
    (card(2.0, "pile:A", "2D", "C"), "SN-2"),        # onto someone else's pile
    (card(2.0, "pot", "2D", "C"), "SN-2"),
    ({"t": 2.0, "type": "card", "zone": "pile:C", "card": "BJ"}, "SN-1"),
    (slap(2.0, "pile:A", "C"), "SN-3"),              # slapping without snap_by_slap
    (call(2.0, "C", "doubt"), "SN-3"),
    ({"t": 2.0, "type": "take", "zone": "pile:A", "player": "C"}, "SN-3"),
    ({"t": 2.0, "type": "turn", "player": "A"}, "G-1"),
]


@pytest.mark.parametrize(("line", "rule"), IMPOSSIBLE)
def test_impossible_event_is_anomaly_and_changes_nothing(line: dict[str, Any], rule: str) -> None:
    """An impossible event yields a silent anomaly with its rule and leaves the state exactly as it was."""
    ref, _ = referee(hdr(), *seven_snap())
    before = ref.copy()
    out = [o.to_dict() for o in ref.push(parse_event(line))]
    assert [(o["type"], o.get("rule")) for o in out] == [("anomaly", rule)]
    assert ref == before


def test_generic_anomalies_unknown_player_and_game_over() -> None:
    """Lines naming unknown players, or a card after the end, are anomalies; a losing call just after the
    deciding snap gets nothing (G-3)."""
    out = run(hdr(), call(1.0, "Z"), card(1.0, "pile:Z", "7H"))
    assert len(anomalies(out)) == 2 and verdicts(out) == []
    out = run(hdr("A", "B"), *two_player_cards(final_snap=True), call(52.4, "A"), call(53.0, "B"),
              card(54.0, "pile:A", "7S"))
    assert kinds(out)[-1] == ("win", "SN-7") and len(anomalies(out)) == 1


def test_copy_is_independent_and_step_is_pure() -> None:
    """``copy`` shares no mutable state; ``step`` leaves its input unchanged."""
    ref, _ = referee(hdr(), *seven_snap(), call(2.3, "C"), done=False)
    twin = ref.copy()
    assert twin == ref
    twin.piles["A"].append("KS")
    twin.races["snap"].entries.clear()
    assert ref.piles["A"] == ["7H"] and ref.races["snap"].entries
    before = ref.copy()
    new, out = step(ref, parse_event(call(2.31, "A")))
    assert ref == before and new != ref and out == []


# ---------------------------------------------------------------------------------------- robustness
_ZONES = ["pile:A", "pile:B", "pile:C", "pot", "pile:Z", "center"]
_event = st.builds(
    lambda kind, t, zone, c, p, word, err: Event(t=t, type=kind, zone=zone, card=c, player=p, word=word, t_err=err),
    st.sampled_from(["card", "card", "card", "call", "slap", "take", "turn", "facedown"]),
    st.floats(0, 30, allow_nan=False), st.sampled_from(_ZONES + [None]),
    st.sampled_from(list(STANDARD_DECK[:20]) + ["RJ", None]), st.sampled_from(["A", "B", "C", "Z", None]),
    st.sampled_from(["snap", "snap pot", "doubt", None]), st.sampled_from([0.0, 0.01, 0.05]))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(events=st.lists(_event, max_size=60), slapping=st.booleans(), penalty=st.booleans(),
       sort=st.booleans())
def test_no_input_makes_push_raise(events: list[Event], slapping: bool, penalty: bool, sort: bool) -> None:
    """Any event sequence (shuffled, out of order, malformed) gives verdicts or anomalies, never an
    exception; cards stay conserved (SN-1) and verdict kinds are EVENTS.md kinds."""
    variants: dict[str, Any] = {"snap_by_slap": slapping,
                                "false_call_penalty": "give_top_card" if penalty else "none"}
    ref = new_referee(parse_header({"type": "game", **hdr(**variants)}))
    if sort:
        events = sorted(events, key=lambda e: e.t)
    outs = []
    for ev in events:
        outs.extend(ref.push(ev))
        assert ref.observable_total() == 52
    outs.extend(ref.finish())
    assert all(o.kind in VERDICT_KINDS for o in outs if hasattr(o, "kind"))


# ---------------------------------------------------------------------------------------- the simulator
def _play(seed: int, players: int, variants: dict[str, Any]) -> tuple[list[Event], list[dict[str, Any]]]:
    header, events = simulate("snap", players, seed, variants)
    _, out = replay_to_end(header, events)
    return events, [o.to_dict() for o in out]


def test_sim_games_referee_cleanly_and_every_verdict_kind_occurs() -> None:
    """Simulated games (2-6 players, all variants) replay without anomalies, end in one win or draw, and
    between them produce every Snap verdict kind (SN-3..SN-7, TM-2, TM-3)."""
    seen: set[tuple[str, str]] = set()
    variant_sets = [{}, {"snap_by_slap": True}, {"false_call_penalty": "give_top_card"},
                    {"snap_by_slap": True, "false_call_penalty": "give_top_card"}]
    for seed in range(120):
        events, out = _play(seed, 2 + seed % 5, variant_sets[seed % 4])
        assert anomalies(out) == [], (seed, anomalies(out)[:2])
        ends = [v for v in verdicts(out) if v["kind"] in ("win", "draw")]
        assert len(ends) == 1 and verdicts(out)[-1] == ends[0], seed
        seen |= {(v["kind"], v["rule"]) for v in verdicts(out)}
    want = {("snap", "SN-3"), ("snap_pot", "SN-4"), ("pot_won", "SN-4"), ("false_snap", "SN-6"),
            ("missed_snap", "SN-5"), ("eliminated", "SN-7"), ("win", "SN-7"), ("anticipated", "TM-2"),
            ("unresolved_tie", "TM-3")}
    assert want <= seen, want - seen


def test_sim_logs_only_what_a_camera_sees() -> None:
    """Only turned cards carry identities; slaps only with ``snap_by_slap``; times move forward with turns
    0.4-1.5 s apart and first reactions 40-750 ms after the card."""
    for seed, variants in ((1, {}), (2, {"snap_by_slap": True})):
        events, _ = _play(seed, 4, variants)
        for e in events:
            assert (e.card is not None) == (e.type == "card")
            assert e.type in ("card", "call", "slap", "take", "turn")
            assert (e.type == "slap") <= bool(variants) and (e.type == "call") <= (not variants)
        assert all(a.t <= b.t for a, b in zip(events, events[1:], strict=False))
        cards = [e for e in events if e.type == "card"]
        assert all(b.t - a.t >= 0.4 for a, b in zip(cards, cards[1:], strict=False))


def test_sim_is_deterministic_and_varies_with_seed() -> None:
    """The same seed gives the same log; another seed another game."""
    a = [e.to_dict() for e in simulate("snap", 3, 7)[1]]
    b = [e.to_dict() for e in simulate("snap", 3, 7)[1]]
    c = [e.to_dict() for e in simulate("snap", 3, 8)[1]]
    assert a == b and a != c
