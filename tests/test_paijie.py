"""Pai Jie (牌接 Ver 1.1) referee and simulator: RULES.md PJ-1..PJ-17, G-1, G-2 and every worked
example of seed 001 (its 起點/接點 cases, the K pair and 6 pair, the FAQ's 6H, four Ks, 10-J-Q-K, the
hand limit and the four-K-blocks draw)."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest
from helpers import anomalies, card, run, verdicts

from engine.events import parse_event, parse_header
from engine.games import new_referee, variants_of
from engine.games.paijie import BIT, FULL_ROW, PaiJieReferee, classify, gap, redeal_counts
from engine.referee import GameSetupError, step
from engine.replay import replay_to_end
from engine.sim import make_header, simulate
from engine.sim.paijie import simulate as sim_game

JOKER = ("RJ", "BJ")


def hdr(n: int = 2, **kw: Any) -> dict[str, Any]:
    """A game line for ``n`` players A, B, C ... with the last one dealing, so A is on the dealer's left."""
    names = list("ABCDEFGH"[:n])
    return {"game": "paijie", "players": names, "dealer": names[-1], **kw}


def c(t: float, cd: str, player: str | None = None, **kw: Any) -> dict[str, Any]:
    """A card line on its own row (jokers in the center)."""
    return card(t, "center" if cd in JOKER else "row:" + cd[-1], cd, player, **kw)


def draw(t: float, player: str, count: int, **kw: Any) -> dict[str, Any]:
    return {"t": t, "type": "draw", "player": player, "count": count, **kw}


def remove(t: float, cd: str, player: str | None = None) -> dict[str, Any]:
    d: dict[str, Any] = {"t": t, "type": "remove", "zone": "center" if cd in JOKER else "row:" + cd[-1],
                         "card": cd}
    if player is not None:
        d["player"] = player
    return d


def stuck(t: float, player: str) -> dict[str, Any]:
    return {"t": t, "type": "stuck", "player": player}


def turn(t: float, player: str) -> dict[str, Any]:
    return {"t": t, "type": "turn", "player": player}


def referee(header: dict[str, Any], *lines: dict[str, Any]) -> PaiJieReferee:
    """The referee after ``lines`` (no ``finish``): a pending play stays pending."""
    ref = new_referee(parse_header({"type": "game", **header}))
    for i, obj in enumerate(lines):
        ref.push(parse_event(obj, i + 2))
    assert isinstance(ref, PaiJieReferee)
    return ref


def rulings(out: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """(kind, rule, player, cards) of every verdict except the opening's start-rank announcement."""
    return [(v["kind"], v["rule"], v.get("player"), v.get("cards")) for v in verdicts(out) if v["rule"] != "PJ-2"]


def assert_impossible(ref: PaiJieReferee, line: dict[str, Any], rule: str | None) -> dict[str, Any]:
    """The line is an anomaly with ``rule`` and leaves the state exactly as it was (its time is the
    referee's current time, so not even the clock moves)."""
    before = ref.copy()
    out = [o.to_dict() for o in ref.push(parse_event(line, 99))]
    assert [o["type"] for o in out] == ["anomaly"], out
    assert out[0].get("rule") == rule, out
    assert ref == before
    return out[0]


#: 14 touching plays, then C's joker pair re-deals all 40 unseen cards: the stock is empty, D to play
FOUR_K_DEAL = [
    c(1, "7S", "A"), c(2, "8S", "B"), c(3, "9S", "C"), c(4, "10S", "D"), c(5, "6S", "A"), c(6, "5S", "B"),
    c(7, "4S", "C"), c(8, "3S", "D"), c(9, "7H", "A"), c(10, "8H", "B"), c(11, "9H", "C"), c(12, "10H", "D"),
    c(13, "6H", "A"), c(14, "5H", "B"),
    c(15, "RJ", "C"), c(15.1, "BJ", "C"),  # joker pair: 40 cards to deal, 11 + 11 + 10 + 10 asked
    draw(16, "C", 10, card="RJ"), draw(17, "D", 10, card="BJ"), draw(18, "A", 10, card="KD"),
    draw(19, "B", 10, card="KC")]

# ----------------------------------------------------------------- PJ-1 deal, setup, variants


def test_pj_1_six_cards_each_rest_is_stock() -> None:
    """PJ-1: 6 cards each from 52 + 2 jokers; the rest is the stock; counts add up to 54."""
    for n in (2, 4, 8, 9):
        ref = referee(hdr(n) if n <= 8 else {"game": "paijie", "players": [f"P{i}" for i in range(n)]})
        assert set(ref.hands.values()) == {6}
        assert ref.stock == 54 - 6 * n
        assert ref.observable_total() == ref.DECK_SIZE == 54


def test_pj_1_too_many_players_is_refused() -> None:
    """PJ-1: ten players would need 60 cards."""
    with pytest.raises(GameSetupError, match="at most 9"):
        new_referee(parse_header({"type": "game", "game": "paijie", "players": [f"P{i}" for i in range(10)]}))


def test_no_variants_and_unknown_ones_refused() -> None:
    """RULES.md names no Pai Jie variants; a typo is refused with the valid settings listed."""
    assert variants_of("paijie") == {}
    with pytest.raises(GameSetupError, match="unknown variant"):
        new_referee(parse_header({"type": "game", **hdr(2, variants={"start_rank": 7})}))
    assert anomalies(run(hdr(2, variants={"tie_window_ms": 30}), c(1, "7S", "A"))) == []

# ----------------------------------------------------------------- PJ-2 opening and start rank


def test_pj_2_first_card_sets_start_rank_and_is_announced() -> None:
    """PJ-2: the first card's rank is the start rank for the whole game."""
    out = run(hdr(2), c(1, "8H", "A"))
    assert [(v["kind"], v["rule"], v["player"]) for v in verdicts(out)] == [("effect", "PJ-2", "A")]
    assert "eights are the start rank" in verdicts(out)[0]["say"]
    assert referee(hdr(2), c(1, "8H", "A")).start == 8


def test_pj_2_start_rank_card_is_always_free() -> None:
    """PJ-2: any start-rank card is played without drawing, on any row."""
    out = run(hdr(2), c(1, "7S", "A"), c(2, "7C", "B"), c(3, "7D", "A"), c(4, "7H", "B"))
    assert rulings(out) == []


def test_pj_2_opening_joker_and_wrong_leader_are_anomalies() -> None:
    """PJ-2: the game opens with a suited card; a ``turn`` line before it fixes the leader."""
    ref = referee(hdr(3))
    assert_impossible(ref, c(0, "RJ", "A"), "PJ-2")
    assert_impossible(ref, draw(0, "A", 1), "PJ-2")
    ref = referee(hdr(3), turn(1, "B"))
    assert_impossible(ref, c(1, "7S", "A"), "G-1")
    assert anomalies(run(hdr(3), turn(1, "B"), c(2, "7S", "B"), c(3, "8S", "C"))) == []

# ----------------------------------------------------------------- PJ-3 penalties: the seed's examples


@pytest.mark.parametrize(("played", "drawn"), [("6S", 0), ("8S", 0), ("5S", 1), ("KS", 5)])
def test_seed_situation_1_start_7_seven_of_spades_down(played: str, drawn: int) -> None:
    """PJ-3 seed 情況(1): start 7, 7S on the table: 6S and 8S draw nothing, 5S draws 1, KS draws 5."""
    out = run(hdr(2), c(1, "7S", "A"), c(2, played, "B"))
    pen = verdicts(out, "draw_penalty")
    assert [(v["rule"], v["player"], v["cards"]) for v in pen] == ([("PJ-3", "B", drawn)] if drawn else [])
    assert referee(hdr(2), c(1, "7S", "A"), c(2, played, "B"), turn(3, "A")).hands["B"] == 5 + drawn


@pytest.mark.parametrize(("played", "drawn"), [("7H", 0), ("9H", 0), ("7S", 1), ("AS", 7)])
def test_seed_situation_2_start_8_eight_of_hearts_down(played: str, drawn: int) -> None:
    """PJ-3 seed 情況(2): start 8, 8H down: 7H, 9H free; 7S draws 1 (8S missing); AS draws 7."""
    out = run(hdr(2), c(1, "8H", "A"), c(2, played, "B"))
    assert [(v["rule"], v["player"], v["cards"]) for v in verdicts(out, "draw_penalty")] == (
        [("PJ-3", "B", drawn)] if drawn else [])


def test_seed_anchor_case_1_ten_with_seven_and_queen_down() -> None:
    """PJ-3 seed 接點 (1): 7 and Q of a suit down, the 10 draws 1 (Q is nearer than 7)."""
    out = run(hdr(2), c(1, "7S", "A"), c(2, "QS", "B"), c(3, "10S", "A"))
    assert [(v["player"], v["cards"]) for v in verdicts(out, "draw_penalty")] == [("B", 4), ("A", 1)]


@pytest.mark.parametrize(("played", "drawn"), [("5S", 1), ("2S", 0)])
def test_seed_anchor_cases_2_3_with_seven_and_ace_down(played: str, drawn: int) -> None:
    """PJ-3 seed 接點 (2)(3): 7 and A down: 5 draws 1 (7 nearer than A), 2 touches the A: 0."""
    out = run(hdr(2), c(1, "7S", "A"), c(2, "AS", "B"), c(3, played, "A"))
    assert [(v["player"], v["cards"]) for v in verdicts(out, "draw_penalty")] == (
        [("B", 5)] + ([("A", drawn)] if drawn else []))


def test_seed_faq_six_of_hearts_uses_the_start_rank_not_the_ten() -> None:
    """PJ-3 seed FAQ: start 7 with 7S 8S 9S 10S and 10H down, 6H draws 1 (start 7), not 3 (from 10H)."""
    out = run(hdr(2), c(1, "7S", "A"), c(2, "8S", "B"), c(3, "9S", "A"), c(4, "10S", "B"), c(5, "10H", "A"),
              c(6, "6H", "B"))
    assert [(v["player"], v["cards"]) for v in verdicts(out, "draw_penalty")] == [("A", 3), ("B", 1)]


def test_pj_3_gap_function_no_wrap() -> None:
    """PJ-3: A=1 ... K=13 without wrapping; the start-rank anchor counts only while that card is away."""
    assert gap(0, 7, "AS") == 6 and gap(0, 7, "KS") == 6 and gap(0, 7, "7S") == 0
    assert gap(BIT["7S"], 7, "AS") == 5 and gap(BIT["7S"], 7, "KS") == 5
    assert gap(BIT["7S"], 7, "KH") == 6  # other suits do not count
    assert gap(BIT["KS"], 7, "AS") == 6  # K and A do not touch
    table = BIT["AS"] | BIT["QS"]
    assert gap(table, 7, "2S") == 0 and gap(table, 7, "10S") == 1 and gap(table, 7, "5S") == 2

# ----------------------------------------------------------------- PJ-4 complete suit


def _complete_spades() -> list[dict[str, Any]]:
    """Spades A-K down: 7S, a straight 8-Q, a straight A-6 (each touching), then KS."""
    return [c(1, "7S", "A"),
            c(2, "8S", "B"), c(2.1, "9S", "B"), c(2.2, "10S", "B"), c(2.3, "JS", "B"), c(2.4, "QS", "B"),
            draw(3, "A", 4), draw(3.5, "B", 1),
            c(4, "6S", "A"), c(4.1, "5S", "A"), c(4.2, "4S", "A"), c(4.3, "3S", "A"), c(4.4, "2S", "A"),
            c(4.5, "AS", "A"), draw(5, "B", 5),
            c(6, "KS", "B")]


def test_pj_4_complete_suit_is_announced_and_its_king_blocks_nothing() -> None:
    """PJ-4: 13 spades down make the suit complete; the completing K sets no block."""
    lines = _complete_spades()
    out = run(hdr(2), *lines)
    assert anomalies(out) == []
    last = [v for v in verdicts(out) if v["t"] == 6]
    assert [(v["kind"], v["rule"]) for v in last] == [("effect", "PJ-4")]
    assert last[0]["say"] == "Spades are complete."
    ref = referee(hdr(2), *lines, turn(7, "A"))
    assert ref.row("S") == FULL_ROW and ref.complete == {"S"} and ref.blocks == {}


def test_pj_4_complete_suit_is_no_longer_affected_by_an_ace() -> None:
    """PJ-4: an A effect may take any table card except from a complete suit."""
    ref = referee(hdr(2), *_complete_spades(), c(7, "AH", "A"), c(8, "2H", "B"))
    assert ref.a_pending == 0  # the A effect lapsed when B began a play
    ref = referee(hdr(2), *_complete_spades(), c(7, "AH", "A"), turn(8, "B"))
    assert ref.a_pending == 1
    assert_impossible(ref, remove(8, "5S", "B"), "PJ-4")
    assert ref.push(parse_event(remove(8, "AH", "B"))) == [] and ref.hands["B"] == 7

# ----------------------------------------------------------------- PJ-5 multiples


def test_seed_pair_of_kings_with_a_gap_of_three() -> None:
    """PJ-5 seed 接點情況(1): a K pair while spades run to 9 draws 3 (10 J Q missing), the nearest card."""
    out = run(hdr(2), c(1, "7S", "A"), c(2, "8S", "B"), c(3, "9S", "A"), c(4, "KS", "B"), c(4.2, "KH", "B"))
    assert rulings(out) == [("draw_penalty", "PJ-5", "B", 3), ("effect", "PJ-5", "B", 1),
                            ("effect", "PJ-7", "B", None)]
    assert verdicts(out)[-1]["suits"] == ["S", "H"]


def test_seed_pair_of_sixes_touching_draws_nothing() -> None:
    """PJ-5 seed 接點情況(2): a pair of sixes with 7S down draws nothing; the pair swaps 1 card."""
    out = run(hdr(2), c(1, "7S", "A"), c(2, "6S", "B"), c(2.2, "6H", "B"))
    assert rulings(out) == [("effect", "PJ-5", "B", 1)]
    assert "swaps 1 card" in verdicts(out)[-1]["say"]


def test_pj_5_three_and_four_of_a_kind_swap_two_and_three() -> None:
    """PJ-5: three of a kind swaps 2, four swap 3; the counts do not change (the swap is an exchange)."""
    out = run(hdr(2), c(1, "7S", "A"), c(2, "6S", "B"), c(2.1, "6H", "B"), c(2.2, "6D", "B"))
    assert rulings(out) == [("effect", "PJ-5", "B", 2)]
    # B first draws 2 for 5H, so 3 cards are left to swap after the four sixes
    lines = [c(1, "7S", "A"), c(2, "5H", "B"), c(3, "8S", "A"),
             c(4, "6S", "B"), c(4.1, "6H", "B"), c(4.2, "6D", "B"), c(4.3, "6C", "B")]
    assert rulings(run(hdr(2), *lines))[-1] == ("effect", "PJ-5", "B", 3)
    ref = referee(hdr(2), *lines, turn(5, "A"))
    assert ref.hands["B"] == 3 and ref.stock == 40


def test_pj_5_swap_is_limited_to_the_cards_left() -> None:
    """PJ-5: a four of a kind leaving 2 cards in hand can only put 2 into the stock (decision)."""
    out = run(hdr(2), c(1, "7S", "A"), c(2, "6S", "B"), c(2.1, "6H", "B"), c(2.2, "6D", "B"), c(2.3, "6C", "B"))
    assert rulings(out) == [("effect", "PJ-5", "B", 2)]
    assert verdicts(out)[-1]["say"] == "Four sixes: B swaps 2 cards with the stock."


def test_pj_5_multiple_with_start_rank_is_illegal() -> None:
    """PJ-5 (seed FAQ): start-rank cards go alone, never in a pair; the cards go back, B plays again."""
    out = run(hdr(2), c(1, "7S", "A"), c(2, "7H", "B"), c(2.2, "7D", "B"), remove(3, "7H", "B"),
              remove(3.2, "7D", "B"), c(4, "7H", "B"), c(5, "8S", "A"))
    assert anomalies(out) == []
    assert rulings(out) == [("illegal_play", "PJ-5", "B", 2)]
    assert verdicts(out, "illegal_play")[0]["played"] == ["7H", "7D"]


def test_pj_5_penalty_is_the_smallest_of_its_cards() -> None:
    """PJ-5: the multiple draws the smallest penalty among its cards (5S 1, 5H 2 with 7S down)."""
    out = run(hdr(2), c(1, "7S", "A"), c(2, "5S", "B"), c(2.2, "5H", "B"))
    assert rulings(out)[0] == ("draw_penalty", "PJ-5", "B", 1)

# ----------------------------------------------------------------- PJ-6 straights


def test_pj_6_straight_next_player_draws_length_minus_one() -> None:
    """PJ-6: a straight of 4 makes the next player draw 3; its own penalty is the nearer end's."""
    out = run(hdr(3), c(1, "7S", "A"), c(2, "2S", "B"), c(2.1, "3S", "B"), c(2.2, "4S", "B"), c(2.3, "5S", "B"))
    assert rulings(out) == [("draw_penalty", "PJ-6", "B", 1), ("draw_penalty", "PJ-6", "C", 3)]
    assert verdicts(out)[-1]["say"] == "Straight of 4: C draws 3."


def test_pj_6_king_and_ace_are_not_consecutive_and_start_rank_is_excluded() -> None:
    """PJ-6: Q-K-A is no straight; 6-7-8 contains the start rank; mixed suits are no straight."""
    for cards in (("QS", "KS", "AS"), ("6S", "7S", "8S"), ("8H", "9S")):
        out = run(hdr(2), c(1, "7H", "A"), *[c(2 + i / 10, x, "B") for i, x in enumerate(cards)])
        assert rulings(out) == [("illegal_play", "PJ-6", "B", len(cards))], cards
    assert classify(("QS", "KS", "AS"), 7) == ("illegal", "PJ-6")
    assert classify(("JS", "QS", "KS"), 7) == ("straight", None)


def test_pj_6_penalty_is_the_smaller_end() -> None:
    """PJ-6: 9S-10S with 7S down: the 9 end is 1 away, the 10 end 2: draw 1."""
    out = run(hdr(2), c(1, "7S", "A"), c(2, "10S", "B"), c(2.1, "9S", "B"))
    assert rulings(out) == [("draw_penalty", "PJ-6", "B", 1), ("draw_penalty", "PJ-6", "A", 1)]

# ----------------------------------------------------------------- PJ-7 K block


def test_pj_7_king_blocks_suit_until_its_player_plays_it_again() -> None:
    """PJ-7: after B's KS nobody else may play spades: A's 8S is an illegal play, taken back."""
    lines = [c(1, "7S", "A"), c(2, "KS", "B"), draw(2.5, "B", 5), c(3, "8S", "A")]
    out = run(hdr(2), *lines, remove(4, "8S", "A"))
    assert rulings(out) == [("draw_penalty", "PJ-3", "B", 5), ("effect", "PJ-7", "B", None),
                            ("illegal_play", "PJ-7", "A", 1)]
    assert verdicts(out)[-2]["say"] == "King: spades are blocked until B plays that suit again."
    assert verdicts(out)[-1]["say"] == "Illegal: spades are blocked by B's king. A, take it back."
    ref = referee(hdr(2), *lines, remove(4, "8S", "A"))
    assert ref.cur == "A" and ref.hands["A"] == 5 and ref.takeback == {} and ref.blocks == {"S": ("B", "KS")}


def test_pj_7_block_lifted_then_suit_playable() -> None:
    """PJ-7: once the K player plays the suit again, the suit is open to everyone."""
    ref = referee(hdr(2), c(1, "7S", "A"), c(2, "KS", "B"), c(3, "7H", "A"), c(4, "QS", "B"), turn(5, "A"))
    assert ref.blocks == {}
    out = run(hdr(2), c(1, "7S", "A"), c(2, "KS", "B"), c(3, "7H", "A"), c(4, "QS", "B"), c(5, "8S", "A"))
    assert [v["say"] for v in verdicts(out) if v["t"] == 5] == [
        "Spades are open again.", "Queen: B takes the top card of the stock, then puts one back on top."]
    assert verdicts(out, "illegal_play") == []


def test_pj_7_the_king_player_may_play_the_blocked_suit() -> None:
    """PJ-7: the block binds everybody but the K's player."""
    out = run(hdr(2), c(1, "7S", "A"), c(2, "KS", "B"), c(3, "7H", "A"), c(4, "8S", "B"), c(5, "9S", "A"))
    assert verdicts(out, "illegal_play") == []


def test_seed_king_stuck_player_draws_to_the_kings_hand() -> None:
    """PJ-7: a player who holds only the blocked suit says so and draws up to the K player's hand."""
    lines = [c(1, "7S", "A"), c(2, "KS", "B"), stuck(3, "A")]
    out = run(hdr(2), *lines)
    # B: 6 - 1 + 5 = 10 cards; A: 5 cards -> draws 5
    assert rulings(out)[-1] == ("draw_penalty", "PJ-7", "A", 5)
    assert verdicts(out)[-1]["say"] == "A cannot play: draw 5 to match B's 10 cards."
    assert referee(hdr(2), *lines).cur == "B"


def test_seed_king_stuck_player_draws_at_least_one() -> None:
    """PJ-7 seed: the K player holds fewer cards than the stuck player: the stuck player still draws 1."""
    lines = [c(1, "7S", "A"), c(2, "8S", "B"), c(2.1, "9S", "B"), c(2.2, "10S", "B"), draw(3, "A", 2),
             c(4, "JS", "A"), draw(4.5, "A", 1), c(5, "QS", "B"), c(6, "7H", "A"), c(7, "KS", "B")]
    ref = referee(hdr(2), *lines, turn(8, "A"))
    assert (ref.hands["A"], ref.hands["B"]) == (6, 1)
    out = run(hdr(2), *lines, stuck(8, "A"))
    assert anomalies(out) == []
    assert rulings(out)[-1] == ("draw_penalty", "PJ-7", "A", 1)


def test_pj_7_stuck_without_a_block_is_an_anomaly() -> None:
    """PJ-7: with no suit blocked for the player, any card can be played: ``stuck`` cannot happen."""
    ref = referee(hdr(2), c(1, "7S", "A"), c(2, "8S", "B"), turn(3, "A"))
    assert_impossible(ref, stuck(3, "A"), "PJ-7")
    ref = referee(hdr(2), c(1, "7S", "A"), c(2, "KS", "B"), draw(3, "B", 5), c(4, "7H", "A"), turn(5, "B"))
    assert_impossible(ref, stuck(5, "B"), "PJ-7")  # B's own block does not bind B


def test_pj_7_block_ends_when_the_king_player_is_eliminated() -> None:
    """PJ-7: the block ends if the K player is eliminated (PJ-13)."""
    out = run(hdr(3), c(1, "7S", "A"), c(2, "KS", "B"), c(3, "8H", "C"), c(4, "7H", "A"), c(5, "4H", "B"),
              c(6, "8S", "C"))
    # B: 6 - 1 + 5 = 10, then 4H (7H down: 2 away) -> 9 + 2 = 11: eliminated, spades open
    assert rulings(out)[-3:] == [("draw_penalty", "PJ-3", "B", 2), ("eliminated", "PJ-13", "B", 11),
                                 ("effect", "PJ-7", "B", None)]
    assert verdicts(out)[-1]["say"] == "B's king is gone: spades are open again."
    assert verdicts(out, "illegal_play") == []


def test_pj_7_block_ends_when_an_ace_takes_the_king_away() -> None:
    """PJ-7 (seed FAQ): an A effect that takes the blocking K off the table lifts the block."""
    lines = [c(1, "7S", "A"), c(2, "8S", "B"), c(3, "9S", "C"), c(4, "10S", "A"), c(5, "JS", "B"),
             c(6, "QS", "C"), c(7, "KS", "A"), c(8, "AH", "B"), remove(9, "KS", "C")]
    out = run(hdr(3), *lines, c(10, "2S", "C"))
    assert anomalies(out) == []
    assert [v["say"] for v in verdicts(out) if v["t"] == 9] == [
        "B draws 6 for the ace of hearts.", "Ace: B picks a card on the table and who takes it.",
        "The king is gone: spades are open again."]
    assert verdicts(out, "illegal_play") == []
    ref = referee(hdr(3), *lines)
    assert ref.blocks == {} and ref.hands["C"] == 6 - 2 + 1

# ----------------------------------------------------------------- PJ-8, PJ-9, PJ-10 Q, J, A


def test_pj_8_queen_exchanges_with_the_stock_top() -> None:
    """PJ-8: a Q takes the stock's top card and puts one back: announced, counts unchanged."""
    out = run(hdr(2), c(1, "7S", "A"), c(2, "8S", "B"), c(3, "9S", "A"), c(4, "10S", "B"), c(5, "JS", "A"),
              draw(6, "A", 1), c(7, "QS", "B"))
    assert rulings(out)[-1] == ("effect", "PJ-8", "B", 1)
    ref = referee(hdr(2), c(1, "7S", "A"), c(2, "8S", "B"), c(3, "QH", "A"), turn(4, "B"))
    assert ref.hands["A"] == 4 + 5 and ref.stock == 42 - 5


def test_pj_8_and_pj_9_with_an_empty_stock_do_nothing() -> None:
    """PJ-8/PJ-9: with the stock empty a Q exchanges nothing, a J takes nothing, a penalty draws 0."""
    ref = referee(hdr(4), *FOUR_K_DEAL)
    assert ref.stock == 0 and ref.cur == "D"
    out = run(hdr(4), *FOUR_K_DEAL, c(20, "JH", "D"), c(21, "QD", "A"), turn(22, "B"))
    assert anomalies(out) == []
    assert [(k, r, p, n) for k, r, p, n in rulings(out) if r != "PJ-12"] == [
        ("effect", "PJ-9", "D", 0), ("draw_penalty", "PJ-3", "A", 0), ("effect", "PJ-8", "A", 0)]
    said = [v["say"] for v in verdicts(out) if v["t"] >= 21]
    assert said == ["Jack: D takes any card from the stock, then shuffles it, but the stock is empty.",
                    "A draws 5 for the queen of diamonds, but the stock is empty.",
                    "Queen: the stock is empty, nothing to exchange."]


def test_pj_9_jack_takes_one_from_the_stock() -> None:
    """PJ-9: a J adds a card to the hand (an ordered draw, confirmed by a ``draw`` line)."""
    lines = [c(1, "7S", "A"), c(2, "8S", "B"), c(3, "9S", "A"), c(4, "10S", "B"), c(5, "JS", "A")]
    out = run(hdr(2), *lines, draw(6, "A", 1), c(7, "8H", "B"))
    assert rulings(out)[0] == ("effect", "PJ-9", "A", 1)
    assert anomalies(out) == []
    assert referee(hdr(2), *lines, draw(6, "A", 1)).hands["A"] == 4


def test_pj_10_ace_gives_a_table_card_to_a_chosen_player() -> None:
    """PJ-10: A picks a table card and a player; the ``remove`` line moves it into that hand."""
    lines = [c(1, "7S", "A"), c(2, "6S", "B"), c(3, "5S", "A"), c(4, "4S", "B"), c(5, "3S", "A"),
             c(6, "2S", "B"), c(7, "AS", "A")]
    out = run(hdr(2), *lines, remove(8, "7S", "B"))
    assert rulings(out) == [("effect", "PJ-10", "A", 1)] and anomalies(out) == []
    ref = referee(hdr(2), *lines, remove(8, "7S", "B"))
    assert ref.hands["B"] == 4 and ref.hands["A"] == 2 and not ref.table & BIT["7S"]
    assert_impossible(ref, remove(8, "6S", "B"), "PJ-10")  # one A, one card
    assert ref.push(parse_event(c(9, "8H", "B"))) == []  # 7S is away: 8H counts from the start rank
    out = [o.to_dict() for o in ref.push(parse_event(c(10, "7S", "A")))]
    assert rulings(out) == [("draw_penalty", "PJ-3", "B", 1)]


def test_pj_10_ace_effect_anomalies() -> None:
    """PJ-10: no A pending, a card not on the table, no receiver named: anomalies, nothing changes."""
    ref = referee(hdr(2), c(1, "7S", "A"), c(2, "8S", "B"), turn(3, "A"))
    assert_impossible(ref, remove(3, "7S", "A"), "PJ-10")
    lines = [c(1, "7S", "A"), c(2, "6S", "B"), c(3, "5S", "A"), c(4, "4S", "B"), c(5, "3S", "A"),
             c(6, "2S", "B"), c(7, "AS", "A"), turn(8, "B")]
    ref = referee(hdr(2), *lines)
    assert_impossible(ref, remove(8, "9S", "B"), "PJ-10")
    assert_impossible(ref, remove(8, "7S"), "PJ-10")
    assert_impossible(ref, remove(8, "7S", "A") | {"zone": "row:H"}, "PJ-3")

# ----------------------------------------------------------------- PJ-11 effect order


def test_seed_ten_jack_queen_king_straight_effect_order() -> None:
    """PJ-11 seed: 10-J-Q-K: the next player draws 3, then the K block, then Q, then J."""
    out = run(hdr(2), c(1, "7S", "A"), c(2, "10S", "B"), c(2.1, "JS", "B"), c(2.2, "QS", "B"), c(2.3, "KS", "B"))
    assert rulings(out) == [("draw_penalty", "PJ-6", "B", 2), ("draw_penalty", "PJ-6", "A", 3),
                            ("effect", "PJ-7", "B", None), ("effect", "PJ-8", "B", 1),
                            ("effect", "PJ-9", "B", 1)]


def test_seed_four_kings_swap_three_and_block_everyone_else() -> None:
    """PJ-11 seed 四條K: swap 3 (the pattern first), then every other player is blocked in all suits."""
    lines = [c(1, "7S", "A"), c(2, "KS", "B"), c(2.1, "KH", "B"), c(2.2, "KD", "B"), c(2.3, "KC", "B")]
    out = run(hdr(2), *lines)
    assert rulings(out) == [("draw_penalty", "PJ-5", "B", 5), ("effect", "PJ-5", "B", 3),
                            ("effect", "PJ-7", "B", None)]
    assert verdicts(out)[-1]["suits"] == ["S", "H", "D", "C"]
    for cd in ("8S", "7H", "5D", "AC"):
        assert rulings(run(hdr(2), *lines, c(3, cd, "A")))[-1] == ("illegal_play", "PJ-7", "A", 1)
    assert rulings(run(hdr(2), *lines, c(3, "RJ", "A")))[-1] == ("effect", "PJ-12", "A", None)
    assert rulings(run(hdr(2), *lines, stuck(3, "A")))[-1] == ("draw_penalty", "PJ-7", "A", 2)


def test_pj_11_pattern_of_special_cards_applies_each_card() -> None:
    """PJ-11: a pair of aces swaps 1, then lets its player send 2 table cards; three queens exchange 3."""
    out = run(hdr(2), c(1, "7S", "A"), c(2, "AS", "B"), c(2.1, "AH", "B"))
    assert rulings(out)[1:] == [("effect", "PJ-5", "B", 1), ("effect", "PJ-10", "B", 2)]
    ref = referee(hdr(2), c(1, "7S", "A"), c(2, "AS", "B"), c(2.1, "AH", "B"), turn(3, "A"))
    assert ref.a_pending == 2
    out = run(hdr(2), c(1, "7S", "A"), c(2, "QS", "B"), c(2.1, "QH", "B"), c(2.2, "QD", "B"))
    assert rulings(out)[1:] == [("effect", "PJ-5", "B", 2), ("effect", "PJ-8", "B", 3)]

# ----------------------------------------------------------------- PJ-12 jokers


def test_pj_12_black_and_red_joker_redeal_keeps_counts_and_leave_the_game() -> None:
    """PJ-12: BJ/RJ re-deal with the same counts, then leave the game for good."""
    lines = [c(1, "7S", "A"), c(2, "BJ", "B"), c(3, "RJ", "C")]
    out = run(hdr(3), *lines)
    assert rulings(out) == [("effect", "PJ-12", "B", None), ("effect", "PJ-12", "C", None)]
    assert verdicts(out)[1]["say"].startswith("Black joker") and verdicts(out)[2]["say"].startswith("Red joker")
    ref = referee(hdr(3), *lines, turn(4, "A"))
    assert ref.hands == {"A": 5, "B": 5, "C": 5} and ref.stock == 36 and ref.gone == {"RJ", "BJ"}
    assert_impossible(ref, c(4, "BJ", "A"), "PJ-12")


def test_pj_12_joker_pair_redeals_from_the_draw_lines() -> None:
    """PJ-12: the pair gathers hands, stock and both jokers; each turns a card and draws to its value."""
    lines = [c(1, "7S", "A"), c(2, "RJ", "B"), c(2.1, "BJ", "B")]
    out = run(hdr(3), *lines)
    assert rulings(out) == [("effect", "PJ-12", "B", None)]
    ref = referee(hdr(3), *lines, draw(3, "B", 10, card="KH"))
    assert ref.stock == 53 - 10 and ref.hands["B"] == 10 and ref.redeal == ("C", "A")
    assert_impossible(ref, draw(3, "A", 5, card="5H"), "PJ-12")  # C turns next
    assert_impossible(ref, draw(3, "C", 6, card="5H"), "PJ-12")  # a 5 deals 5
    assert_impossible(ref, c(3, "8S", "C"), "PJ-12")  # no play before the deal is done
    assert_impossible(ref, draw(3, "C", 5, card="7S"), "PJ-12")  # 7S is on the table
    more = [draw(4, "C", 5, card="5H"), draw(5, "A", 11, card="RJ")]
    ref = referee(hdr(3), *lines, draw(3, "B", 10, card="KH"), *more)
    assert ref.hands == {"A": 11, "B": 10, "C": 5} and ref.stock == 53 - 26 and ref.cur == "C"
    assert ref.gone == set() and ref.observable_total() == 54
    out = run(hdr(3), *lines, draw(3, "B", 10, card="KH"), *more, c(6, "8S", "C"), c(7, "9S", "A"))
    assert anomalies(out) == []


def test_pj_12_joker_pair_as_the_last_two_cards_still_works() -> None:
    """PJ-12 seed: the joker pair works even as a player's last two cards (no win: a new hand comes)."""
    lines = [c(1, "7S", "A"), c(2, "6S", "B"), c(2.1, "5S", "B"), c(2.2, "4S", "B"), c(2.3, "3S", "B"),
             draw(3, "A", 3), c(4, "8S", "A"), c(5, "RJ", "B"), c(5.1, "BJ", "B")]
    out = run(hdr(2), *lines, draw(6, "B", 2, card="2H"), draw(7, "A", 9, card="9H"))
    assert verdicts(out, "win") == [] and anomalies(out) == []
    assert rulings(out)[-1] == ("effect", "PJ-12", "B", None)


def test_pj_12_joker_pair_deal_stops_when_the_stock_runs_out() -> None:
    """PJ-12: turned cards first, then one at a time in turn; a short stock stops the deal."""
    assert redeal_counts(40, [11, 11, 10, 10]) == [10, 10, 10, 10]
    assert redeal_counts(7, [3, 10, 10]) == [3, 2, 2]
    assert redeal_counts(2, [5, 5, 5]) == [1, 1, 0]
    assert redeal_counts(30, [2, 11]) == [2, 11]


def test_pj_12_only_a_joker_at_turn_start_eliminates() -> None:
    """PJ-12: a player whose turn comes with a joker as their only card is out (seen when shown)."""
    lines = [c(1, "7S", "A"), c(2, "2S", "B"), c(2.1, "3S", "B"), c(2.2, "4S", "B"), c(2.3, "5S", "B"),
             c(2.4, "6S", "B"), draw(3, "A", 4), c(4, "8S", "A"), c(5, "RJ", "B")]
    three = [*lines[:6], draw(3, "C", 4), c(4, "8S", "C"), c(5, "9S", "A"), c(6, "RJ", "B")]
    out = run(hdr(3), *three)
    assert anomalies(out) == []
    assert rulings(out)[-1] == ("eliminated", "PJ-12", "B", 1)
    ref = referee(hdr(3), *three)
    assert ref.active == ("A", "C") and ref.cur == "C" and ref.gone == {"RJ"} and ref.hands["B"] == 0
    assert verdicts(out)[-1]["say"] == "B holds only the red joker: eliminated."
    out = run(hdr(2), *lines)
    assert rulings(out)[-2:] == [("eliminated", "PJ-12", "B", 1), ("win", "PJ-14", "A", None)]


def test_pj_12_joker_with_other_cards_is_illegal() -> None:
    """PJ-12: a joker is played alone or as the pair; mixed with a suited card it is no play."""
    out = run(hdr(2), c(1, "7S", "A"), c(2, "RJ", "B"), c(2.1, "8S", "B"), remove(3, "RJ", "B"),
              remove(3.1, "8S", "B"), c(4, "8S", "B"))
    assert rulings(out) == [("illegal_play", "PJ-12", "B", 2)] and anomalies(out) == []

# ----------------------------------------------------------------- PJ-13 hand limit


def test_seed_hand_of_exactly_ten_is_allowed() -> None:
    """PJ-13 seed Ver1.1: exactly 10 cards at the end of a turn is allowed."""
    out = run(hdr(2), c(1, "7S", "A"), c(2, "QH", "B"), c(3, "8S", "A"))
    assert verdicts(out, "eliminated") == []
    assert referee(hdr(2), c(1, "7S", "A"), c(2, "QH", "B"), c(3, "8S", "A")).hands["B"] == 10


def test_seed_hand_of_eleven_eliminates_and_is_laid_down() -> None:
    """PJ-13: 11 cards at the end of the turn eliminates; the hand goes onto the rows, not as plays."""
    lines = [c(1, "8H", "A"), c(2, "2S", "B")]  # start 8: the 2 of spades is 6 away: 5 + 6 = 11
    out = run(hdr(3), *lines, c(3, "8S", "C"))
    assert rulings(out) == [("draw_penalty", "PJ-3", "B", 6), ("eliminated", "PJ-13", "B", 11)]
    assert verdicts(out)[-1]["say"] == "B has 11 cards: eliminated. Lay your hand on the table."
    laid = ["3S", "4S", "5S", "AH", "2H", "3H", "4H", "AD", "2D", "KD", "BJ"]
    lay = [c(3 + i / 10, x, "B", source="deal") for i, x in enumerate(laid)]
    out = run(hdr(3), *lines, *lay, c(5, "8S", "C"), c(6, "8D", "A"))
    assert anomalies(out) == [] and rulings(out)[-1][0] == "eliminated"  # laid cards are no plays
    ref = referee(hdr(3), *lines, *lay)
    assert ref.laydown == {} and ref.active == ("A", "C") and ref.gone == {"BJ"} and ref.cur == "C"
    assert ref.blocks == {} and ref.observable_total() == 54
    assert_impossible(ref, c(4, "9D", "B", source="deal"), "PJ-13")
    assert_impossible(ref, c(4, "9D", "B"), "PJ-13")
    # without ``source`` the laid cards are known once the elimination has been ruled
    out = run(hdr(3), *lines, turn(2.5, "C"), *[c(3 + i / 10, x, "B") for i, x in enumerate(laid)])
    assert anomalies(out) == []


def test_pj_13_is_checked_at_the_players_own_turn_end() -> None:
    """PJ-13 seed FAQ: cards received in someone else's turn (a straight) count at one's own turn end."""
    # A: 5 cards, then C's straight of 6 gives A 5 -> 10; B's straight of 2 gives C ... A plays to stay <= 10
    lines = [c(1, "7S", "A"), c(2, "8H", "B"), c(3, "6S", "C"), c(3.1, "5S", "C"), c(3.2, "4S", "C"),
             c(3.3, "3S", "C"), c(3.4, "2S", "C"), c(3.5, "AS", "C")]
    ref = referee(hdr(3), *lines, turn(4, "A"))
    assert ref.hands["A"] == 10 and ref.active == ("A", "B", "C")  # no one is out mid-turn
    out = run(hdr(3), *lines, c(4, "9H", "A"))
    assert verdicts(out, "eliminated") == []

# ----------------------------------------------------------------- PJ-14 end of the game


def test_pj_14_first_to_empty_their_hand_wins() -> None:
    """PJ-14: the player who empties their hand with no draw owed wins."""
    lines = [c(1, "7S", "A"), c(2, "6S", "B"), c(2.1, "5S", "B"), c(2.2, "4S", "B"), c(2.3, "3S", "B"),
             c(2.4, "2S", "B"), draw(3, "A", 4), c(4, "8S", "A"), c(5, "9S", "B")]
    out = run(hdr(2), *lines)
    assert rulings(out)[-1] == ("win", "PJ-14", "B", None)
    ref, _ = replay_to_end(parse_header({"type": "game", **hdr(2)}), [parse_event(x) for x in lines])
    assert ref.outcome is not None and ref.outcome.winner == "B" and ref.outcome.rule == "PJ-14"
    assert_impossible(ref, c(5, "10S", "A"), None)


def test_pj_14_last_card_with_a_penalty_does_not_win() -> None:
    """PJ-14: a last card that draws a penalty leaves cards in hand: no win."""
    lines = [c(1, "7S", "A"), c(2, "6S", "B"), c(2.1, "5S", "B"), c(2.2, "4S", "B"), c(2.3, "3S", "B"),
             c(2.4, "2S", "B"), draw(3, "A", 4), c(4, "8S", "A"), c(5, "JH", "B")]
    out = run(hdr(2), *lines)
    assert verdicts(out, "win") == []
    assert rulings(out)[-2:] == [("draw_penalty", "PJ-3", "B", 4), ("effect", "PJ-9", "B", 1)]


def test_seed_four_king_blocks_draw() -> None:
    """PJ-14 seed 和局: stock empty, both jokers gone, each player has put a K down and holds only the
    other players' suits: a full round of ``stuck`` with nothing to draw is a draw."""
    lines = [*FOUR_K_DEAL,
             c(20, "BJ", "D"), c(21, "KD", "A"), c(22, "KC", "B"), c(23, "RJ", "C"),
             c(24, "KH", "D"), stuck(25, "A"), stuck(26, "B"), c(27, "KS", "C"),
             stuck(28, "D"), stuck(29, "A"), stuck(30, "B")]
    ref = referee(hdr(4), *lines)
    assert ref.stock == 0 and ref.gone == {"RJ", "BJ"} and set(ref.blocks) == {"S", "H", "D", "C"}
    assert ref.outcome is None and ref.stuck_run == 3
    out = run(hdr(4), *lines, stuck(31, "C"))
    assert anomalies(out) == []
    assert rulings(out)[-2:] == [("draw_penalty", "PJ-7", "C", 0), ("draw", "PJ-14", None, None)]
    assert verdicts(out)[-1]["say"] == "No one can play: the game is a draw."
    assert verdicts(out)[-2]["say"] == "C cannot play: draw 1 to match A's 9 cards, but the stock is empty."


def test_pj_14_last_player_left_wins() -> None:
    """PJ-14: when every other player is eliminated, the one left wins."""
    out = run(hdr(2), c(1, "8H", "A"), c(2, "2S", "B"), c(3, "9H", "A"))
    assert rulings(out) == [("draw_penalty", "PJ-3", "B", 6), ("eliminated", "PJ-13", "B", 11),
                            ("win", "PJ-14", "A", None)]
    assert verdicts(out)[-1]["say"] == "A is the last player left and wins!"
    assert [o["type"] for o in out][-1] == "anomaly"  # A's card came after the game was over

# ----------------------------------------------------------------- PJ-15 what one play is


def test_pj_15_verdicts_wait_until_the_play_is_complete() -> None:
    """PJ-15: consecutive cards by one player are one play, ruled when someone else acts."""
    ref = referee(hdr(3), c(1, "7S", "A"), c(2, "5S", "B"))
    assert ref.play == ("5S",)
    assert [o.kind for o in ref.push(parse_event(c(2.5, "4S", "B")))] == []  # still B's play: a straight
    out = [o.to_dict() for o in ref.push(parse_event(c(3, "8H", "C")))]
    assert rulings(out) == [("draw_penalty", "PJ-6", "B", 1), ("draw_penalty", "PJ-6", "C", 1)]
    assert all(v["t"] == 3 for v in out)


def test_pj_15_turn_line_and_end_of_log_complete_a_play() -> None:
    """PJ-15: a ``turn`` line marks the next turn; the end of the log completes the last play."""
    out = run(hdr(2), c(1, "7S", "A"), c(2, "5S", "B"), turn(3, "A"))
    assert rulings(out) == [("draw_penalty", "PJ-3", "B", 1)] and verdicts(out)[-1]["t"] == 3
    out = run(hdr(2), c(1, "7S", "A"), c(2, "5S", "B"))
    assert rulings(out) == [("draw_penalty", "PJ-3", "B", 1)]


def test_pj_15_take_back_is_optional_and_the_player_plays_again() -> None:
    """PJ-15: after an illegal play its cards are back in the hand; the same player plays again."""
    out = run(hdr(2), c(1, "7S", "A"), c(2, "KS", "B"), turn(3, "A"), c(4, "8S", "A"), turn(5, "A"),
              c(6, "7H", "A"), c(7, "8S", "B"))
    assert anomalies(out) == [] and ("illegal_play", "PJ-7", "A", 1) in rulings(out)
    assert [v["t"] for v in verdicts(out, "illegal_play")] == [5]  # ruled at the turn line
    ref = referee(hdr(2), c(1, "7S", "A"), c(2, "KS", "B"), turn(3, "A"), c(4, "8S", "A"), turn(5, "A"))
    assert ref.hands["A"] == 5 and ref.cur == "A" and not ref.table & BIT["8S"]
    assert_impossible(ref, remove(5, "8S", "B"), "PJ-15")  # it goes back to A
    assert ref.push(parse_event(remove(5, "8S", "A"))) == []

# ----------------------------------------------------------------- PJ-16 counts and draw lines


def test_pj_16_draw_lines_confirm_what_was_ordered() -> None:
    """PJ-16: a draw line equal to what was ordered passes; any other count is an anomaly."""
    ref = referee(hdr(2), c(1, "7S", "A"), c(2, "5S", "B"), turn(3, "A"))
    assert ref.hands["B"] == 6 and ref.stock == 41 and ref.owed == {"B": (1,)}
    assert_impossible(ref, draw(3, "B", 2), "PJ-16")
    assert_impossible(ref, draw(3, "A", 1), "PJ-16")
    assert ref.push(parse_event(draw(3, "B", 1))) == [] and ref.owed == {}


def test_pj_16_several_orders_confirmed_together_or_one_by_one() -> None:
    """PJ-16: a penalty then a J: one draw of both, or two draws in order."""
    lines = [c(1, "7S", "A"), c(2, "8S", "B"), c(3, "9S", "A"), c(4, "JS", "B")]  # JS: 1 away, then J: 1
    assert anomalies(run(hdr(2), *lines, draw(5, "B", 2))) == []
    assert anomalies(run(hdr(2), *lines, draw(5, "B", 1), draw(6, "B", 1))) == []
    out = run(hdr(2), *lines, draw(5, "B", 3))
    assert [a.get("rule") for a in anomalies(out)] == ["PJ-16"]


def test_pj_16_impossible_cards() -> None:
    """PJ-16 and one deck: a card seen twice, on the wrong row, or more cards than the hand holds."""
    ref = referee(hdr(2), c(1, "7S", "A"), turn(2, "B"))
    assert_impossible(ref, c(2, "7S", "B"), None)
    assert_impossible(ref, card(2, "row:H", "8S", "B"), "PJ-3")
    assert_impossible(ref, card(2, "row:H", "RJ", "B"), "PJ-12")
    ref = referee(hdr(2), c(1, "7S", "A"), *[c(2 + i / 10, x, "B") for i, x in enumerate(
        ["2H", "3H", "4H", "5H", "6H", "8H"])])
    assert_impossible(ref, c(2.5, "9H", "B"), "PJ-16")


def test_pj_16_counts_are_conserved_over_simulated_games() -> None:
    """PJ-16: hands + stock + rows + departed jokers + hands still to be laid down = 54, always."""
    for seed in range(40):
        header, events = simulate("paijie", 2 + seed % 5, seed)
        ref = new_referee(header)
        for ev in events:
            ref.push(ev)
            assert ref.observable_total() == 54

# ----------------------------------------------------------------- PJ-17 verdict kinds


def test_pj_17_verdict_kinds_per_case() -> None:
    """PJ-17: draws are ``draw_penalty`` (the drawer in ``player``), a K an ``effect``, a blocked play
    ``illegal_play``, other effects ``effect``; the game ends with ``win`` or ``draw``."""
    seen: Counter[tuple[str, str]] = Counter()
    for seed in range(300):
        header, events = simulate("paijie", 2 + seed % 5, seed)
        _, out = replay_to_end(header, events)
        seen.update((o.kind, o.rule) for o in out if o.to_dict()["type"] == "verdict")
    kinds = {k for k, _ in seen}
    assert kinds == {"draw_penalty", "effect", "illegal_play", "eliminated", "win", "draw"}
    assert {r for k, r in seen if k == "draw_penalty"} == {"PJ-3", "PJ-5", "PJ-6", "PJ-7"}
    assert {r for k, r in seen if k == "effect"} >= {"PJ-2", "PJ-4", "PJ-5", "PJ-7", "PJ-8", "PJ-9", "PJ-10",
                                                      "PJ-12"}
    assert {r for k, r in seen if k == "illegal_play"} >= {"PJ-6", "PJ-7", "PJ-12"}
    assert {r for k, r in seen if k == "eliminated"} == {"PJ-12", "PJ-13"}

# ----------------------------------------------------------------- G-1, G-2


def test_g_1_out_of_turn_card_is_an_anomaly_that_changes_nothing() -> None:
    """G-1: the referee does not police turn order out loud: an out-of-turn card is an anomaly."""
    ref = referee(hdr(3), c(1, "7S", "A"), turn(2, "B"))
    out = assert_impossible(ref, c(2, "8S", "C"), "G-1")
    assert "B's turn" in out["reason"]
    ref = referee(hdr(3), c(1, "7S", "A"), c(2, "5S", "B"))  # B's play is pending
    assert_impossible(ref, c(2, "8S", "A"), "G-1")  # C is next, not A
    assert ref.play == ("5S",)
    assert_impossible(ref, stuck(2, "A"), "G-1")


def test_g_2_verdicts_in_causal_order() -> None:
    """G-2: the penalty that moves cards first, then its consequence (eliminated), then the win."""
    out = run(hdr(2), c(1, "8H", "A"), c(2, "2S", "B"))
    assert [v["kind"] for v in verdicts(out)] == ["effect", "draw_penalty", "eliminated", "win"]
    out = run(hdr(2), c(1, "7S", "A"), c(2, "KH", "B"))  # the K's block, then its end with its player
    assert [v["kind"] for v in verdicts(out)] == ["effect", "draw_penalty", "effect", "eliminated", "effect",
                                                 "win"]

# ----------------------------------------------------------------- purity, speed of the pieces


def test_step_is_pure_and_copy_is_independent() -> None:
    """``step`` leaves its input unchanged; the explicit copy shares no mutable state."""
    header, events = simulate("paijie", 3, 5)
    state = new_referee(header)
    for ev in events:
        before = state.copy()
        new, _ = step(state, ev)
        assert state == before
        state = new
    a = state.copy()
    a.hands[header.players[0]] += 1
    a.table ^= BIT["AS"]
    assert a != state

# ----------------------------------------------------------------- the simulator


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6, 7, 8])
def test_simulator_games_are_clean_and_end_once(players: int) -> None:
    """Every simulated game referees without anomalies and ends with exactly one win or draw (PJ-14)."""
    for seed in range(25):
        header, events = simulate("paijie", players, seed)
        _, out = replay_to_end(header, events)
        dicts = [o.to_dict() for o in out]
        assert anomalies(dicts) == [], (players, seed, anomalies(dicts)[:2])
        ends = [v for v in verdicts(dicts) if v["kind"] in ("win", "draw")]
        assert len(ends) == 1 and verdicts(dicts)[-1] is ends[0]


def test_simulator_is_deterministic_and_shows_only_face_up_cards() -> None:
    """The same seed gives the same log; draw lines name a card only for the joker-pair turned card."""
    header = make_header("paijie", 4)
    a = sim_game(header, random.Random(3))
    assert [e.to_dict() for e in a] == [e.to_dict() for e in sim_game(header, random.Random(3))]
    for seed in range(100):
        _, events = simulate("paijie", 3, seed)
        times = [e.t for e in events]
        assert times == sorted(times)
        joker_pair_due = 0
        for i, e in enumerate(events):
            if e.type == "card" and e.card == "BJ" and i and events[i - 1].card == "RJ":
                joker_pair_due = 3
            if e.type == "draw" and e.card is not None:
                assert joker_pair_due, (seed, e)
                joker_pair_due -= 1
