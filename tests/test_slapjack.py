"""Slapjack referee and simulator: RULES.md SJ-1..SJ-7, G-1..G-3, TM-1..TM-3 and the seed 000 examples."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest
from helpers import anomalies, card, run, slap, verdicts
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.cards import STANDARD_DECK
from engine.events import Event, parse_event, parse_header
from engine.games import new_referee, variants_of
from engine.games.slapjack import SlapjackReferee
from engine.referee import GameSetupError
from engine.replay import replay_to_end
from engine.sim import simulate

C = "center"
THREE = {"game": "slapjack", "players": ["A", "B", "C"], "dealer": "C"}  # A 18, B 17, C 17; A turns first
TWO = {"game": "slapjack", "players": ["A", "B"], "dealer": "B"}  # A 26, B 26; A turns first


def game(header: dict[str, Any], *lines: dict[str, Any],
         **variants: Any) -> tuple[SlapjackReferee, list[dict]]:
    """Referee ``lines``; the final state (before ``finish``) and every output line, ``finish`` included."""
    h = parse_header({"type": "game", **header, "variants": variants})
    ref = new_referee(h)
    assert isinstance(ref, SlapjackReferee)
    out = []
    for i, obj in enumerate(lines):
        out += ref.push(parse_event(obj, i + 2))
    out += ref.finish()
    return ref, [o.to_dict() for o in out]


def unchanged(before: SlapjackReferee, after: SlapjackReferee) -> bool:
    """The game state is as it was; only the clock moved (``push`` lets time pass before ruling)."""
    b = before.copy()
    b.t = after.t
    return b == after


def kinds(out: list[dict]) -> list[tuple[str, str]]:
    return [(v["kind"], v["rule"]) for v in verdicts(out)]


def take(t: float, player: str) -> dict[str, Any]:
    return {"t": t, "type": "take", "zone": C, "player": player}


def turn(t: float, player: str) -> dict[str, Any]:
    return {"t": t, "type": "turn", "player": player}


# ------------------------------------------------------------------ the seed document's examples
def test_seed_six_cards_in_centre_then_a_jack_winner_takes_seven() -> None:
    """Seed 000: six cards in the centre, the next player turns a J: the winner takes 7, not just the J
    (SJ-2: the jack and everything under it)."""
    lines = [card(1.0, C, "2H", "A"), card(2.0, C, "3H", "B"), card(3.0, C, "4H", "C"),
             card(4.0, C, "5H", "A"), card(5.0, C, "6H", "B"), card(6.0, C, "7H", "C"),
             card(7.0, C, "JS", "A"), slap(7.3, C, "B")]
    ref, out = game(THREE, *lines)
    assert anomalies(out) == []
    [v] = verdicts(out)
    assert (v["kind"], v["rule"], v["player"], v["cards"]) == ("slap_won", "SJ-2", "B", 7)
    assert v["reaction_ms"] == 300.0 and v["anticipated"] is False
    assert "7 cards" in v["say"] and "B" in v["say"]
    assert ref.stacks == {"A": 18 - 3, "B": 17 - 2 + 7, "C": 17 - 2}
    assert ref.pile_n == 0 and ref.observable_total() == 52


def test_seed_yi_turns_queen_jia_slaps_gives_yi_a_card() -> None:
    """Seed 000: 乙 turns a Q, 甲 slaps: 甲 gives 乙 one card face down (SJ-4), not to the centre."""
    jia, yi = "A", "B"
    ref, out = game(TWO, card(1.0, C, "2C", jia), card(2.0, C, "QD", yi), slap(2.4, C, jia))
    [v] = verdicts(out)
    assert (v["kind"], v["rule"], v["player"], v["to"], v["cards"]) == ("false_slap", "SJ-4", jia, yi, 1)
    assert v["say"] == "False slap: A gives B a card"
    assert ref.stacks == {jia: 26 - 1 - 1, yi: 26 - 1 + 1}
    assert ref.pile_n == 2


def test_seed_four_on_a_four_is_not_slappable() -> None:
    """Seed 000: a 4 on a 4 is no trigger in Slapjack (only a jack is): the slap is false (SJ-4)."""
    ref, out = game(THREE, card(1.0, C, "4H", "A"), card(2.0, C, "4S", "B"), slap(2.3, C, "C"))
    [v] = verdicts(out)
    assert (v["kind"], v["rule"], v["player"], v["to"], v["cards"]) == ("false_slap", "SJ-4", "C", "B", 1)
    assert ref.stacks == {"A": 17, "B": 17, "C": 16}


def _drain_a(header: dict[str, Any], n_slaps: int) -> list[dict[str, Any]]:
    """A turns 2H, B turns 3H, then A false-slaps the 3H ``n_slaps`` times, giving B a card each time."""
    lines = [card(1.0, C, "2H", "A"), card(2.0, C, "3H", "B")]
    lines += [slap(2.5 + i * 0.01, C, "A") for i in range(n_slaps)]
    return lines


def test_seed_player_without_cards_gets_exactly_one_chance() -> None:
    """Seed 000 / SJ-5: a player with no cards is not out at once; they wait for the next jack, and if
    somebody else wins it they are out: one chance, not slapping until they succeed."""
    lines = _drain_a(THREE, 17)  # A: 18 - 1 - 17 = 0
    ref, out = game(THREE, *lines)
    assert ref.stacks == {"A": 0, "B": 33, "C": 17} and ref.eliminated == set()
    lines += [card(4.0, C, "JH", "C"), slap(4.3, C, "B"), slap(4.4, C, "A")]
    ref, out = game(THREE, *lines)
    assert kinds(out)[-2:] == [("slap_won", "SJ-2"), ("eliminated", "SJ-5")]
    assert verdicts(out)[-1]["player"] == "A" and verdicts(out)[-1]["say"] == "A is out"
    assert ref.eliminated == {"A"} and ref.stacks == {"A": 0, "B": 36, "C": 16}
    # the chance is spent: A can neither slap nor turn any more
    more = [card(5.0, C, "9S", "B"), slap(5.3, C, "A"), card(6.0, C, "9D", "A")]
    ref2, out2 = game(THREE, *lines, *more)
    assert [a["reason"] for a in anomalies(out2)] == ["A is out of the game", "A is out of the game"]
    assert ref2.stacks == {"A": 0, "B": 35, "C": 16}


def test_sj_5_player_without_cards_who_wins_the_jack_is_back_in() -> None:
    """SJ-5: a waiting player who wins the next jack is back in, with the pile as their stack."""
    lines = _drain_a(THREE, 17) + [card(4.0, C, "JH", "C"), slap(4.2, C, "A"), slap(4.5, C, "B")]
    ref, out = game(THREE, *lines)
    [won] = verdicts(out, "slap_won")
    assert (won["player"], won["cards"], won["back_in"]) == ("A", 3, True)
    assert won["say"] == "Slapjack! A takes 3 cards and is back in"
    assert verdicts(out, "eliminated") == [] and ref.eliminated == set()
    # G-1: play goes on left of the last turner (C): A, who has cards again
    ref2, out2 = game(THREE, *lines, card(5.0, C, "5D", "A"))
    assert anomalies(out2) == [] and ref2.stacks["A"] == 2


def test_sj_5_waiting_player_cannot_turn_and_is_skipped() -> None:
    """SJ-5 / G-1: a player with no cards turns nothing (an anomaly); the turn passes to the next one."""
    lines = _drain_a(THREE, 17) + [card(4.0, C, "5C", "C")]
    ref, out = game(THREE, *lines, card(5.0, C, "6C", "A"))
    [a] = anomalies(out)
    assert (a["reason"], a["rule"]) == ("A has no cards to turn", "SJ-5")
    ref, out = game(THREE, *lines, card(5.0, C, "6C", "B"))
    assert anomalies(out) == []


def test_sj_5_the_chance_is_the_next_jack_somebody_wins() -> None:
    """SJ-5: a jack covered unslapped, or tied, decides nothing; the next jack that is won does."""
    lines = _drain_a(THREE, 17) + [card(4.0, C, "JH", "C"), card(5.0, C, "6C", "B"),  # covered, unslapped
                                   card(6.0, C, "JD", "C"), slap(6.3, C, "B"), slap(6.31, C, "C")]  # tie
    ref, out = game(THREE, *lines)
    assert [v["kind"] for v in verdicts(out)][-1] == "unresolved_tie" and ref.eliminated == set()
    lines += [card(7.0, C, "7C", "B"), card(8.0, C, "JC", "C"), slap(8.3, C, "C")]
    ref, out = game(THREE, *lines)
    assert kinds(out)[-2:] == [("slap_won", "SJ-2"), ("eliminated", "SJ-5")]
    assert ref.eliminated == {"A"} and verdicts(out, "slap_won")[0]["cards"] == 7
    assert ref.stacks == {"A": 0, "B": 31, "C": 21}


def test_sj_5_waiting_player_who_receives_a_false_slap_card_is_back_in() -> None:
    """SJ-5 with SJ-4: a player without cards who false-slaps gives nothing; one who turned a falsely
    slapped card receives the penalty card and turns again."""
    lines = [card(1.0, C, "2H", "A")] + [slap(1.5 + i * 0.01, C, "B") for i in range(16)]  # B 17 -> 1
    lines += [card(3.0, C, "3H", "B"), slap(3.2, C, "B")]  # B turns the last card, then slaps it: nothing
    ref, out = game(THREE, *lines)
    assert ref.stacks == {"A": 33, "B": 0, "C": 17}
    last = verdicts(out)[-1]
    assert (last["kind"], last["rule"], last["cards"], "to" in last) == ("false_slap", "SJ-4", 0, False)
    assert last["say"] == "False slap by B, who has no card to give"
    lines += [slap(3.4, C, "C"), card(4.0, C, "4C", "C"), card(5.0, C, "5C", "A"), card(6.0, C, "6C", "B")]
    ref, out = game(THREE, *lines)
    assert anomalies(out) == [] and verdicts(out, "eliminated") == []
    assert ref.stacks == {"A": 32, "B": 0, "C": 15}


# ------------------------------------------------------------------ SJ-1 deal and turning
def test_sj_1_deal_counts_from_dealers_left() -> None:
    """SJ-1: 52 dealt one at a time from the dealer's left; uneven counts; all known as counts."""
    ref, _ = game(THREE)
    assert ref.stacks == {"A": 18, "B": 17, "C": 17} and ref.observable_total() == 52
    ref, _ = game({**THREE, "dealer": "A"})
    assert ref.stacks == {"B": 18, "C": 17, "A": 17}
    ref, _ = game({"game": "slapjack", "players": list("ABCDEFGH"), "dealer": "H"})
    assert list(ref.stacks.values()) == [7, 7, 7, 7, 6, 6, 6, 6]


def test_sj_1_a_card_seen_twice_is_an_anomaly_and_changes_nothing() -> None:
    """SJ-1 (one deck): a card already in the centre pile cannot be turned again."""
    ref, _ = game(THREE, card(1.0, C, "2H", "A"))
    before = ref.copy()
    out = [o.to_dict() for o in ref.push(parse_event(card(2.0, C, "2H", "B")))]
    assert [(a["type"], a["rule"]) for a in out] == [("anomaly", "SJ-1")]
    assert unchanged(before, ref)


def test_sj_1_a_won_card_can_come_round_again() -> None:
    """SJ-1/SJ-2: a won pile is shuffled into the winner's stack, so its cards may be turned again."""
    ref, out = game(TWO, card(1.0, C, "2H", "A"), card(2.0, C, "JH", "B"), slap(2.3, C, "A"),
                    card(3.5, C, "2H", "A"))
    assert anomalies(out) == [] and ref.pile == {"2H"}


@pytest.mark.parametrize("line", [card(1.0, C, "RJ", "A"), card(1.0, C, "5H", "A", source="deal"),
                                  card(1.0, "pile:A", "5H", "A"), card(1.0, C, "5H", "Z")])
def test_sj_1_cards_outside_the_game_are_anomalies(line: dict[str, Any]) -> None:
    """SJ-1: one 52-card deck, one central pile, known players."""
    ref, out = game(THREE, line)
    assert len(anomalies(out)) == 1 and verdicts(out) == []
    assert ref.stacks == {"A": 18, "B": 17, "C": 17} and ref.pile_n == 0


# ------------------------------------------------------------------ G-1 turn order
def test_g_1_out_of_turn_card_is_an_anomaly_never_spoken() -> None:
    """G-1: the dealer's left turns first; a card by anyone else is an anomaly and changes nothing."""
    ref, _ = game(THREE)
    before = ref.copy()
    out = [o.to_dict() for o in ref.push(parse_event(card(1.0, C, "5H", "B")))]
    assert [(o["type"], o["rule"], o["reason"]) for o in out] == [
        ("anomaly", "G-1", "out of turn: it is A's turn, not B's")]
    assert unchanged(before, ref)


def test_g_1_card_without_player_is_the_expected_turners() -> None:
    """G-1: the camera may not see whose hand turned the card; the referee knows whose turn it is."""
    ref, out = game(THREE, card(1.0, C, "5H"), card(2.0, C, "6H"), card(3.0, C, "7H", "C"))
    assert anomalies(out) == [] and ref.stacks == {"A": 17, "B": 16, "C": 16} and ref.top_by == "C"


def test_g_1_play_continues_left_of_the_last_turner_after_a_pile_is_won() -> None:
    """G-1: B turned the jack and A won it: C (left of B) turns next, not the winner."""
    lines = [card(1.0, C, "5H", "A"), card(2.0, C, "JH", "B"), slap(2.3, C, "A")]
    _, out = game(THREE, *lines, card(3.5, C, "6H", "A"))
    assert [a["rule"] for a in anomalies(out)] == ["G-1"]
    ref, out = game(THREE, *lines, card(3.5, C, "6H"))
    assert anomalies(out) == [] and ref.top_by == "C"


def test_g_1_turn_lines_are_checked_but_change_nothing() -> None:
    """G-1: an optional ``turn`` line must name the player whose turn it is."""
    ref, out = game(THREE, turn(0.5, "A"), card(1.0, C, "5H", "A"), turn(1.5, "B"))
    assert anomalies(out) == [] and verdicts(out) == []
    before = ref.copy()
    bad = [o.to_dict() for o in ref.push(parse_event(turn(1.6, "C")))]
    assert [(o["type"], o["rule"]) for o in bad] == [("anomaly", "G-1")]
    assert unchanged(before, ref)


# ------------------------------------------------------------------ SJ-2 / SJ-3 / TM-1 / TM-3 races
def test_sj_2_first_slap_takes_whole_pile_under_own_stack() -> None:
    """SJ-2: the jack and everything under it go to the first hand; the centre is empty afterwards."""
    ref, out = game(THREE, card(1.0, C, "5H", "A"), card(2.0, C, "JC", "B"), slap(2.25, C, "A"))
    [v] = verdicts(out)
    assert (v["kind"], v["rule"], v["player"], v["cards"], v["reaction_ms"]) == ("slap_won", "SJ-2", "A", 2,
                                                                                 250.0)
    assert v["say"] == "Slapjack! A takes 2 cards"
    assert ref.stacks == {"A": 19, "B": 16, "C": 17} and ref.pile == set() and ref.top is None


def test_sj_3_tm_1_first_contact_wins_not_first_logged() -> None:
    """SJ-3 / TM-1: several hands: the one that touched first (contact time) wins, whatever the log order."""
    ref, out = game(THREE, card(1.0, C, "JC", "A"), slap(1.30, C, "B"), slap(1.25, C, "C"),
                    slap(1.40, C, "A"))
    [v] = verdicts(out)
    assert (v["kind"], v["rule"], v["player"], v["reaction_ms"]) == ("slap_won", "SJ-3", "C", 250.0)
    assert ref.stacks["C"] == 18


def test_sj_3_unresolved_tie_pile_stays() -> None:
    """SJ-3 / TM-3: two contacts 15 ms apart cannot be ordered: ``unresolved_tie``, the pile stays, nobody
    takes it, and the referee does not guess."""
    ref, out = game(THREE, card(1.0, C, "5H", "A"), card(2.0, C, "JC", "B"), slap(2.30, C, "A"),
                    slap(2.315, C, "C"))
    [v] = verdicts(out)
    assert (v["kind"], v["rule"], v["players"]) == ("unresolved_tie", "SJ-3", ["A", "C"])
    assert "player" not in v and "cards" not in v
    assert ref.pile_n == 2 and ref.stacks == {"A": 17, "B": 16, "C": 17}
    before = ref.copy()
    bad = [o.to_dict() for o in ref.push(parse_event(take(3.0, "A")))]
    assert [(o["type"], o["rule"]) for o in bad] == [("anomaly", "SJ-3")] and unchanged(before, ref)
    assert ref.push(parse_event(slap(3.1, C, "B"))) == []  # the jack is decided: no verdict


@pytest.mark.parametrize("gap, tied", [(0.020, True), (0.021, False), (0.0, True)])
def test_tm_3_tie_window_boundary(gap: float, tied: bool) -> None:
    """TM-3: contacts are ordered only when they differ by MORE than the 20 ms window (a hand 21 ms later
    arrives after the race has closed: the first hand alone wins it, SJ-2)."""
    _, out = game(TWO, card(1.0, C, "JC", "A"), slap(1.3, C, "B"), slap(1.3 + gap, C, "A"))
    [v] = verdicts(out)
    if tied:
        assert (v["kind"], v["rule"], v["players"]) == ("unresolved_tie", "SJ-3", ["B", "A"])
    else:
        assert (v["kind"], v["player"], v["rule"]) == ("slap_won", "B", "SJ-2")


def test_tm_3_t_err_widens_the_window() -> None:
    """TM-3: 30 ms apart is an order, unless the stated t_err (25 + 10 ms) is larger; the race stays open
    for as long as the first contact's uncertainty allows."""
    lines = [card(1.0, C, "JC", "A"), slap(1.30, C, "B")]
    _, out = game(TWO, *lines, slap(1.33, C, "A"))
    assert [v["kind"] for v in verdicts(out)] == ["slap_won"]
    uncertain = [card(1.0, C, "JC", "A"), slap(1.30, C, "B", t_err=0.025)]
    _, out = game(TWO, *uncertain, slap(1.33, C, "A", t_err=0.01))
    assert [v["kind"] for v in verdicts(out)] == ["unresolved_tie"]
    _, out = game(TWO, *uncertain, slap(1.36, C, "A", t_err=0.01))
    assert [(v["kind"], v["player"]) for v in verdicts(out)] == [("slap_won", "B")]


@pytest.mark.parametrize("window_ms, kind", [(5, "slap_won"), (20, "unresolved_tie")])
def test_tm_3_tie_window_setting(window_ms: int, kind: str) -> None:
    """TM-3: ``tie_window_ms`` is a setting: 10 ms apart is an order under a 5 ms window."""
    _, out = game(TWO, card(1.0, C, "JC", "A"), slap(1.30, C, "B"), slap(1.31, C, "A"),
                  tie_window_ms=window_ms)
    assert [v["kind"] for v in verdicts(out)] == [kind]


def test_tm_3_race_is_ruled_when_the_window_has_passed() -> None:
    """TM-3: the slap is ruled as soon as a later line shows the window passed, before that line's own
    effect; its time is the window's close, not the later line's."""
    ref = new_referee(parse_header({"type": "game", **TWO}))
    for obj in (card(1.0, C, "JC", "A"), slap(1.3, C, "B")):
        assert ref.push(parse_event(obj)) == []
    assert ref.race is not None
    out = [o.to_dict() for o in ref.push(parse_event(slap(1.315, C, "A")))]
    assert out == []  # still inside the window: joins the race
    out = [o.to_dict() for o in ref.push(parse_event(slap(1.6, C, "A")))]
    assert [(o["kind"], o["t"]) for o in out] == [("unresolved_tie", 1.32)]


def test_sj_3_same_hand_twice_counts_once() -> None:
    """SJ-3: a hand bouncing on the jack is one contender, not a tie with itself."""
    _, out = game(TWO, card(1.0, C, "JC", "A"), slap(1.30, C, "B"), slap(1.305, C, "B"), slap(1.4, C, "A"))
    [v] = verdicts(out)
    assert (v["kind"], v["player"], v["rule"]) == ("slap_won", "B", "SJ-2")


def test_tm_3_card_covering_the_jack_closes_the_race_first() -> None:
    """TM-3 / G-2: a card landing inside the window still ends the race; the ruling comes first."""
    ref, out = game(TWO, card(1.0, C, "JC", "A"), slap(1.30, C, "B"), card(1.31, C, "5D", "B"))
    assert [o.get("kind", o["type"]) for o in out] == ["slap_won"]
    assert ref.stacks == {"A": 25, "B": 26 + 1 - 1} and ref.pile == {"5D"}
    # a card that cannot happen leaves the open race untouched, to be ruled later
    ref, out = game(TWO, card(1.0, C, "JC", "A"), slap(1.30, C, "B"), card(1.31, C, "5D", "A"))
    assert [o.get("kind", o["type"]) for o in out] == ["anomaly", "slap_won"]
    assert out[0]["rule"] == "G-1"


# ------------------------------------------------------------------ TM-2 anticipation
def test_tm_2_anticipated_slap_still_wins_and_is_marked() -> None:
    """TM-2: 80 ms after the jack appeared is under the 100 ms bound: the win stands, a silent
    ``anticipated`` verdict marks it for the audit."""
    _, out = game(TWO, card(1.0, C, "JC", "A"), slap(1.08, C, "B"))
    won, mark = verdicts(out)
    assert (won["kind"], won["player"], won["anticipated"]) == ("slap_won", "B", True)
    assert won["reaction_ms"] == 80.0
    assert (mark["kind"], mark["rule"], mark["player"], mark["voice"]) == ("anticipated", "TM-2", "B", False)
    assert mark["reaction_ms"] == 80.0


@pytest.mark.parametrize("bound, marked", [(100, False), (200, True)])
def test_tm_2_bound_is_a_setting(bound: int, marked: bool) -> None:
    """TM-2: 150 ms is a reaction under the default bound, anticipated under a 200 ms one."""
    _, out = game(TWO, card(1.0, C, "JC", "A"), slap(1.15, C, "B"), anticipation_ms=bound)
    assert verdicts(out)[0]["anticipated"] is marked
    assert [v["kind"] for v in verdicts(out)] == ["slap_won"] + (["anticipated"] if marked else [])


def test_tm_2_anticipated_false_slap_is_marked_too() -> None:
    """TM-2 with SJ-4: a hand already on its way before a non-jack appeared."""
    _, out = game(TWO, card(1.0, C, "5C", "A"), slap(1.05, C, "B"))
    fs, mark = verdicts(out)
    assert (fs["kind"], fs["anticipated"]) == ("false_slap", True)
    assert (mark["kind"], mark["player"]) == ("anticipated", "B")


# ------------------------------------------------------------------ SJ-4 false slaps, both variants
@pytest.mark.parametrize("penalty", ["give_to_turner", "burn_to_pile"])
def test_sj_4_false_slap_penalty_variant(penalty: str) -> None:
    """SJ-4: ``give_to_turner`` (default) hands the card to the turner; ``burn_to_pile`` puts it under
    the centre pile, where the next jack's winner collects it."""
    ref, out = game(THREE, card(1.0, C, "5H", "A"), card(2.0, C, "8D", "B"), slap(2.3, C, "C"),
                    false_slap_penalty=penalty)
    [v] = verdicts(out)
    assert (v["kind"], v["rule"], v["player"], v["cards"]) == ("false_slap", "SJ-4", "C", 1)
    if penalty == "give_to_turner":
        assert v["to"] == "B" and ref.stacks == {"A": 17, "B": 17, "C": 16} and ref.pile_n == 2
    else:
        assert "to" not in v and v["zone"] == C and v["say"] == "False slap: C puts a card under the pile"
        assert ref.stacks == {"A": 17, "B": 16, "C": 16} and ref.pile_n == 3
        ref, out = game(THREE, card(1.0, C, "5H", "A"), card(2.0, C, "8D", "B"), slap(2.3, C, "C"),
                        card(3.0, C, "JD", "C"), slap(3.3, C, "A"), false_slap_penalty=penalty)
        assert verdicts(out, "slap_won")[0]["cards"] == 4 and ref.stacks["A"] == 21
    assert ref.observable_total() == 52


def test_sj_4_false_slap_on_own_card_burns_it() -> None:
    """SJ-4: giving a card to oneself would cost nothing, so it goes under the centre pile."""
    ref, out = game(TWO, card(1.0, C, "5H", "A"), slap(1.3, C, "A"))
    [v] = verdicts(out)
    assert (v["kind"], v["player"], v["cards"]) == ("false_slap", "A", 1) and "to" not in v
    assert ref.stacks == {"A": 24, "B": 26} and ref.pile_n == 2


def test_sj_4_slap_on_empty_centre_is_an_anomaly() -> None:
    """SJ-4: nothing to slap at the start: an anomaly, not a false slap."""
    ref, out = game(TWO, slap(0.5, C, "A"))
    assert [(o["type"], o["rule"]) for o in out] == [("anomaly", "SJ-4")] and ref.stacks["A"] == 26


def test_variants_listed_with_default_first_and_bad_ones_refused() -> None:
    """SJ-4 variant ``false_slap_penalty``: default first; unknown names and values are refused."""
    assert variants_of("slapjack") == {"false_slap_penalty": ("give_to_turner", "burn_to_pile")}
    with pytest.raises(GameSetupError):
        game(TWO, false_slap_penalty="to_everyone")
    with pytest.raises(GameSetupError):
        game(TWO, false_slap="burn_to_pile")


# ------------------------------------------------------------------ SJ-6 covered jacks, G-3 late slaps
def test_sj_6_covered_jack_cannot_be_slapped_and_goes_to_next_jacks_winner() -> None:
    """SJ-6: once a later card covers the jack, a slap is false; its cards go to the next jack's winner."""
    lines = [card(1.0, C, "JH", "A"), card(2.0, C, "5C", "B"), slap(2.4, C, "A")]
    ref, out = game(TWO, *lines)
    [v] = verdicts(out)
    assert (v["kind"], v["rule"], v["player"], v["to"]) == ("false_slap", "SJ-6", "A", "B")
    assert v["say"].startswith("Too late")
    ref, out = game(TWO, *lines, card(3.0, C, "6C", "A"), slap(3.3, C, "B"), card(4.0, C, "JS", "B"),
                    slap(4.3, C, "B"))
    fs = verdicts(out, "false_slap")
    assert [f["rule"] for f in fs] == ["SJ-6", "SJ-4"]  # only the card right on the jack says SJ-6
    [won] = verdicts(out, "slap_won")
    assert (won["player"], won["cards"]) == ("B", 4) and ref.stacks == {"A": 24, "B": 28}


def test_g_3_late_slap_on_a_won_jack_gets_no_verdict() -> None:
    """G-3: hands landing after the jack was won are neither a win nor a false slap, also after the take."""
    lines = [card(1.0, C, "JH", "A"), slap(1.3, C, "B"), slap(1.6, C, "A"), take(2.0, "B"), slap(2.1, C, "A")]
    ref, out = game(TWO, *lines)
    assert anomalies(out) == [] and kinds(out) == [("slap_won", "SJ-2")]
    assert ref.stacks == {"A": 25, "B": 27}


def test_take_must_be_the_winner_once() -> None:
    """SJ-2: a ``take`` confirms the winner's pickup; anyone else's, a second one, or one with nothing won
    is an anomaly that changes nothing."""
    lines = [card(1.0, C, "JH", "A"), slap(1.3, C, "B")]
    _, out = game(TWO, take(0.5, "A"))
    assert [a["rule"] for a in anomalies(out)] == ["SJ-2"]
    _, out = game(TWO, *lines, take(2.0, "A"))
    assert [a["reason"] for a in anomalies(out)] == ["B won the pile, not A"]
    _, out = game(TWO, *lines, take(2.0, "B"), take(2.1, "B"))
    assert [a["reason"] for a in anomalies(out)] == ["B already took the pile"]
    _, out = game(TWO, *lines, card(2.0, C, "4C", "B"), take(2.5, "B"))
    assert [a["rule"] for a in anomalies(out)] == ["SJ-2"]


# ------------------------------------------------------------------ SJ-7 end of the game, G-2 order
def _all_cards_turned(last_is_jack: bool) -> list[dict[str, Any]]:
    """Both players turn all 52 cards, jacks covered and never slapped."""
    order = [c for c in STANDARD_DECK if c[0] != "J"] + ["JS", "JH", "JD", "JC"]
    order = order[:40] + ["JS", "JH", "JD"] + order[40:48] + ["JC"]  # jacks inside, JC last
    if not last_is_jack:
        order[-1], order[-2] = order[-2], order[-1]
    return [card(1.0 + i, C, c, "AB"[i % 2]) for i, c in enumerate(order)]


def test_sj_7_one_player_holding_all_52_wins_after_the_eliminations() -> None:
    """SJ-7 / G-2: the last jack with everyone else out of cards: slap_won, then eliminated, then win."""
    lines = _all_cards_turned(last_is_jack=True) + [slap(52.3, C, "A")]
    ref, out = game(TWO, *lines)
    assert anomalies(out) == []
    assert kinds(out) == [("slap_won", "SJ-2"), ("eliminated", "SJ-5"), ("win", "SJ-7")]
    won, elim, win = verdicts(out)
    assert (won["cards"], elim["player"], win["player"], win["cards"]) == (52, "B", "A", 52)
    assert ref.outcome is not None and ref.outcome.winner == "A" and ref.outcome.rule == "SJ-7"


def test_sj_7_nobody_can_hold_all_52_is_a_draw() -> None:
    """SJ-7: every card in the centre and no jack on top: nobody can turn or win: a ``draw``."""
    ref, out = game(TWO, *_all_cards_turned(last_is_jack=False))
    assert kinds(out) == [("draw", "SJ-7")] and verdicts(out)[0]["cards"] == 52
    assert ref.outcome is not None and ref.outcome.winner is None
    after = new_referee(parse_header({"type": "game", **TWO}))
    for i, obj in enumerate(_all_cards_turned(last_is_jack=False)):
        after.push(parse_event(obj, i))
    assert [o.to_dict()["type"] for o in after.push(parse_event(slap(60.0, C, "A")))] == ["anomaly"]


def test_sj_7_tie_on_the_last_jack_nobody_can_follow_is_a_draw() -> None:
    """SJ-7 with SJ-3: the only jack left is tied and nobody holds a card: a draw after the tie."""
    _, out = game(TWO, *_all_cards_turned(last_is_jack=True), slap(52.3, C, "A"), slap(52.31, C, "B"))
    assert kinds(out) == [("unresolved_tie", "SJ-3"), ("draw", "SJ-7")]


# ------------------------------------------------------------------ robustness
_PLAYERS = ["A", "B", "C"]
_line = st.one_of(
    st.builds(lambda t, c, p: card(t, C, c, p), st.floats(0, 30), st.sampled_from(STANDARD_DECK[:20]),
              st.sampled_from(_PLAYERS + [None])),
    st.builds(lambda t, p, e: slap(t, C, p, t_err=e), st.floats(0, 30), st.sampled_from(_PLAYERS),
              st.sampled_from([0.0, 0.005, 0.05])),
    st.builds(lambda t, p: take(t, p), st.floats(0, 30), st.sampled_from(_PLAYERS)),
    st.builds(lambda t, p: turn(t, p), st.floats(0, 30), st.sampled_from(_PLAYERS)),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lines=st.lists(_line, max_size=60), penalty=st.sampled_from(["give_to_turner", "burn_to_pile"]))
def test_random_lines_never_raise_and_conserve_cards(lines: list[dict[str, Any]], penalty: str) -> None:
    """No input may make ``push`` raise (G-1..G-3 anomalies instead); the 52 cards are always accounted
    for, and an anomaly leaves the state exactly as it was."""
    ref = new_referee(parse_header({"type": "game", **THREE, "variants": {"false_slap_penalty": penalty}}))
    for obj in lines:
        ev = parse_event(obj)
        before = ref.copy()
        out = ref.push(ev)
        assert ref.observable_total() == 52
        if out and out[-1].to_dict()["type"] == "anomaly" and len(out) == 1 and ev.t <= before.t:
            assert unchanged(before, ref)
    ref.finish()


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_shuffled_simulated_logs_never_raise(seed: int) -> None:
    """A real log with lines swapped and dropped: anomalies and odd verdicts, never an exception."""
    header, events = simulate("slapjack", 3, seed)
    rng = random.Random(seed)
    events = [e for e in events if rng.random() > 0.1]
    for _ in range(len(events) // 10):
        i, j = rng.randrange(len(events)), rng.randrange(len(events))
        events[i], events[j] = events[j], events[i]
    ref, _out = replay_to_end(header, events)
    assert ref.observable_total() == 52


# ------------------------------------------------------------------ the simulator
@pytest.mark.parametrize("penalty", ["give_to_turner", "burn_to_pile"])
def test_simulated_games_show_every_verdict_kind(penalty: str) -> None:
    """Over many seeds the random players produce every Slapjack ruling (SJ-2..SJ-7, TM-2, TM-3), with
    no anomaly and exactly one end per game."""
    seen: Counter[tuple[str, str]] = Counter()
    for seed in range(300):
        header, events = simulate("slapjack", 2 + seed % 5, seed, {"false_slap_penalty": penalty})
        ref, out = replay_to_end(header, events)
        dicts = [o.to_dict() for o in out]
        assert anomalies(dicts) == [], (seed, anomalies(dicts)[:2])
        assert [v["kind"] for v in verdicts(dicts)][-1] in ("win", "draw")
        seen.update(kinds(dicts))
    for kr in [("slap_won", "SJ-2"), ("unresolved_tie", "SJ-3"), ("false_slap", "SJ-4"),
               ("false_slap", "SJ-6"), ("eliminated", "SJ-5"), ("win", "SJ-7"), ("anticipated", "TM-2")]:
        assert seen[kr] > 0, kr
    assert seen[("draw", "SJ-7")] + seen[("win", "SJ-7")] == 300


def test_simulator_is_deterministic_and_logs_only_what_a_camera_sees() -> None:
    """Same seed, same log; only observation lines, in time order, no face-down identity."""
    h1, e1 = simulate("slapjack", 4, 7)
    h2, e2 = simulate("slapjack", 4, 7)
    assert [e.to_dict() for e in e1] == [e.to_dict() for e in e2]
    assert all(isinstance(e, Event) and e.type in ("card", "slap", "take") for e in e1)
    assert all(a.t <= b.t for a, b in zip(e1, e1[1:], strict=False))
    assert {e.zone for e in e1} == {C}


@pytest.mark.parametrize("n", [2, 5, 8])
def test_simulator_seats_two_to_eight(n: int) -> None:
    """SJ-1: 2-8 players; games always end (SJ-7)."""
    for seed in range(20):
        header, events = simulate("slapjack", n, seed)
        ref, out = replay_to_end(header, events)
        assert ref.outcome is not None and not [o for o in out if o.to_dict()["type"] == "anomaly"]


def test_helpers_run_gives_the_same_lines() -> None:
    """The shared ``run`` helper and this file's ``game`` agree (SJ-2)."""
    lines = [card(1.0, C, "JH", "A"), slap(1.3, C, "B")]
    assert run(THREE, *lines) == game(THREE, *lines)[1]


def test_simulator_safety_net_ends_games(monkeypatch: pytest.MonkeyPatch) -> None:
    """SJ-7: past the turn cap only the leader slaps and nobody errs, so every game still ends cleanly."""
    import engine.sim.slapjack as sim

    monkeypatch.setattr(sim, "_ENDGAME_TURNS", 0)
    for seed in range(30):
        header, events = simulate("slapjack", 2 + seed % 5, seed)
        ref, out = replay_to_end(header, events)
        assert ref.outcome is not None and not [o for o in out if o.to_dict()["type"] == "anomaly"]
        assert not [o for o in out if getattr(o, "kind", None) == "false_slap"]
