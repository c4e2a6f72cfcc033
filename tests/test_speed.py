"""Speed referee and simulator (RULES.md SP-1..SP-10, G-1, G-2, TM-2, TM-3; seed 003, five-card hand)."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest
from helpers import anomalies, card, run, verdicts
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.cards import STANDARD_DECK
from engine.events import Event, parse_event, parse_header
from engine.games import new_referee
from engine.games.speed import SpeedReferee
from engine.referee import GameSetupError, Referee
from engine.replay import replay_to_end
from engine.sim import simulate

H: dict[str, Any] = {"game": "speed", "players": ["Alice", "Bob"]}


def hdr(**variants: Any) -> dict[str, Any]:
    return {**H, "variants": variants}


def start(left: str = "7H", right: str = "QS", t: float = 0.5, **kw: Any) -> list[dict[str, Any]]:
    """SP-10: both starters turned (``source: side`` unless told otherwise)."""
    kw = kw or {"source": "side"}
    return [card(t, "left", left, **kw), card(t, "right", right, **kw)]


def stuck(t: float, player: str) -> dict[str, Any]:
    return {"t": t, "type": "stuck", "player": player}


def remove(t: float, zone: str, c: str, player: str | None = None) -> dict[str, Any]:
    d = {"t": t, "type": "remove", "zone": zone, "card": c}
    if player is not None:
        d["player"] = player
    return d


def rulings(out: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """(kind, rule, player, card) of every verdict: what a test compares exactly."""
    return [(v["kind"], v["rule"], v.get("player"), v.get("card")) for v in verdicts(out)]


def referee(variants: dict[str, Any] | None = None, held: dict[str, int] | None = None,
            lines: tuple[dict[str, Any], ...] = ()) -> tuple[SpeedReferee, list[dict[str, Any]]]:
    """A live referee (optionally with hand+stock counts set, as if mid-game) after ``lines``."""
    ref = new_referee(parse_header({"type": "game", **hdr(**(variants or {}))}))
    assert isinstance(ref, SpeedReferee)
    if held:
        diff = sum(ref.held.values()) - sum(held.values())
        ref.held.update(held)
        ref.side["left"] += diff  # keep the deck at 52: the rest sits in the side stacks
    return ref, push(ref, *lines)


def push(ref: Referee, *lines: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for i, obj in enumerate(lines):
        out.extend(o.to_dict() for o in ref.push(parse_event(obj, i + 2)))
    return out


def done(ref: Referee) -> list[dict[str, Any]]:
    return [o.to_dict() for o in ref.finish()]


def unchanged_anomaly(ref: Referee, line: dict[str, Any], rule: str | None) -> dict[str, Any]:
    """Push an impossible line: exactly one anomaly with ``rule``, and the state exactly as before."""
    assert line["t"] <= ref.t, "use a time that does not close races, so only the line itself acts"
    before = ref.copy()
    out = push(ref, line)
    assert [o["type"] for o in out] == ["anomaly"], out
    assert out[0].get("rule") == rule, out
    assert ref == before
    return out[0]


# ---------------------------------------------------------------------------------------- seed examples
@pytest.mark.parametrize("wraps", [True, False])
def test_seed_example_conditions_change_between_two_plays(wraps: bool) -> None:
    """Seed 003 "自編示例": left 7, right Q, hand 6,8,J,3,3. 6 on the left is legal; then 8 on that 6 is
    not; the opponent's K on the right is legal; J on K is not; A on K only with ace_wraps (SP-2, SP-8)."""
    out = run(hdr(ace_wraps=wraps), *start("7H", "QS"),
              card(1.0, "left", "6H", "Alice"),
              card(2.0, "left", "8D", "Alice"), remove(2.6, "left", "8D", "Alice"),
              card(3.0, "right", "KC", "Bob"),
              card(4.0, "right", "JC", "Alice"), remove(4.6, "right", "JC", "Alice"),
              card(5.0, "right", "AS", "Alice"))
    assert anomalies(out) == []
    assert rulings(out) == [
        ("legal_play", "SP-2", "Alice", "6H"),
        ("illegal_play", "SP-2", "Alice", "8D"),
        ("legal_play", "SP-2", "Bob", "KC"),
        ("illegal_play", "SP-2", "Alice", "JC"),
        ("legal_play" if wraps else "illegal_play", "SP-2", "Alice", "AS"),
    ]
    assert verdicts(out, "illegal_play")[0]["say"] == "Illegal: eight on six. Alice, take it back"
    assert verdicts(out, "illegal_play")[1]["say"] == "Illegal: jack on king. Alice, take it back"


def test_seed_example_equal_rank_and_skipping_are_illegal() -> None:
    """Seed 003 / SP-2: on a 7 only a 6 or an 8; suits and colours do not matter; a 7 (equal rank) and a 9
    (skipping the 8) are illegal."""
    out = run(H, *start("7H", "QS"),
              card(1.0, "left", "7D", "Alice"), remove(1.5, "left", "7D"),
              card(2.0, "left", "9C", "Bob"), remove(2.5, "left", "9C"),
              card(3.0, "left", "8H", "Alice"),  # same suit as the 7H: fine
              card(4.0, "left", "7S", "Bob"))  # back down: fine
    assert rulings(out) == [
        ("illegal_play", "SP-2", "Alice", "7D"),
        ("illegal_play", "SP-2", "Bob", "9C"),
        ("legal_play", "SP-2", "Alice", "8H"),
        ("legal_play", "SP-2", "Bob", "7S"),
    ]
    assert verdicts(out)[1]["say"].startswith("Illegal: nine on seven")


@pytest.mark.parametrize("wraps", [True, False])
def test_seed_example_q_k_a_2_in_a_row(wraps: bool) -> None:
    """Seed 003: with the wrap convention Q, K, A, 2 can follow one another (SP-2 ace_wraps); without it
    the A cannot go on the K."""
    out = run(hdr(ace_wraps=wraps), *start("7H", "QS"),
              card(1.0, "right", "KD", "Alice"), card(2.0, "right", "AC", "Bob"))
    kinds = [v["kind"] for v in verdicts(out)]
    assert kinds == ["legal_play", "legal_play" if wraps else "illegal_play"]
    if wraps:
        out = run(H, *start("7H", "QS"), card(1.0, "right", "KD", "Alice"),
                  card(2.0, "right", "AC", "Bob"), card(3.0, "right", "2C", "Alice"))
        assert [v["kind"] for v in verdicts(out)] == ["legal_play"] * 3


def test_seed_example_one_card_at_a_time_each_judged_on_its_own_top() -> None:
    """Seed 003 FAQ: two adjacent cards are two single plays; each is re-checked on the top it lands on
    (SP-2, SP-3: the top at the moment the card lands)."""
    out = run(H, *start("7H", "QS"), card(1.0, "left", "6H", "Alice"), card(1.3, "left", "5H", "Alice"),
              card(1.6, "left", "5D", "Alice"))
    assert rulings(out) == [("legal_play", "SP-2", "Alice", "6H"), ("legal_play", "SP-2", "Alice", "5H"),
                            ("illegal_play", "SP-2", "Alice", "5D")]


@pytest.mark.parametrize("deal, per, side", [("playspit", 20, 5), ("pagat", 15, 10)])
def test_seed_example_deal_adds_up_to_52(deal: str, per: int, side: int) -> None:
    """Seed 003 / SP-1: 5 hand + 15 stock each, 2 starters, 5+5 side (40+2+10=52); Pagat: 15 each,
    10+10 side. Hand and stock are known as counts only."""
    ref, _ = referee({"deal": deal})
    assert ref.held == {"Alice": per, "Bob": per}
    assert ref.hand_count("Alice") == 5 and ref.stock_count("Alice") == per - 5
    assert ref.side == {"left": side, "right": side} and ref.starters == 2
    assert ref.observable_total() == 52
    push(ref, *start())
    assert ref.starters == 0 and ref.side == {"left": side, "right": side}
    assert ref.observable_total() == 52


def test_seed_example_two_cards_left_must_both_be_played_legally() -> None:
    """Seed 003: you hold 2 cards with the stock empty, the opponent 5 + 4 in stock: you win only once you
    have legally played both (SP-7, SP-4)."""
    ref, out = referee(held={"Alice": 2, "Bob": 9}, lines=tuple(start("7H", "QS")))
    assert (ref.hand_count("Alice"), ref.stock_count("Alice")) == (2, 0)
    assert (ref.hand_count("Bob"), ref.stock_count("Bob")) == (5, 4)
    out = push(ref, card(1.0, "left", "8C", "Alice"), card(2.0, "left", "9C", "Bob"))
    assert [v["kind"] for v in verdicts(out)] == ["legal_play"]
    assert ref.outcome is None
    out = push(ref, card(3.0, "right", "KH", "Alice")) + done(ref)
    assert rulings(out) == [("legal_play", "SP-2", "Bob", "9C"), ("legal_play", "SP-2", "Alice", "KH"),
                            ("win", "SP-7", "Alice", None)]
    assert ref.outcome is not None and ref.outcome.winner == "Alice"


def test_seed_example_empty_hand_with_stock_left_is_not_a_win() -> None:
    """Seed 003: an empty hand with cards still in the stock is not finished (SP-4 refill, SP-7)."""
    ref, _ = referee(held={"Alice": 6}, lines=tuple(start("7H", "QS")))
    plays = [card(1.0 + i, "left", c, "Alice") for i, c in enumerate(["6H", "5H", "4H", "3H", "2H"])]
    out = push(ref, *plays) + done(ref)
    assert [v["kind"] for v in verdicts(out)] == ["legal_play"] * 5
    assert ref.outcome is None and ref.held["Alice"] == 1 and ref.hand_count("Alice") == 1


def test_seed_example_one_player_stuck_never_stops_the_other() -> None:
    """Seed 003 / SP-5: "只有自己卡住,不能要求對手停下來": Alice's stuck changes nothing for Bob."""
    out = run(H, *start("7H", "QS"), stuck(1.0, "Alice"), card(1.5, "right", "JD", "Bob"),
              card(2.0, "right", "10D", "Bob"))
    assert rulings(out) == [("legal_play", "SP-2", "Bob", "JD"), ("legal_play", "SP-2", "Bob", "10D")]


# ---------------------------------------------------------------------------------------- SP-1
@pytest.mark.parametrize("line", [
    card(0.5, "right", "7H", "Bob"),  # the left starter, seen again on the other pile
    card(0.5, "left", "RJ", "Bob"),  # no jokers
])
def test_sp_1_cards_outside_one_52_card_deck_are_anomalies(line: dict[str, Any]) -> None:
    """SP-1: one 52-card deck: a card seen twice (on another pile) or a joker is an anomaly, state kept."""
    ref, _ = referee(lines=tuple(start("7H", "QS", t=0.5)))
    unchanged_anomaly(ref, line, "SP-1")


def test_sp_1_three_players_or_bad_variant_refused() -> None:
    """SP-1: Speed is dealt to exactly two; unknown variant values are refused with the valid ones."""
    with pytest.raises(GameSetupError, match="exactly two"):
        new_referee(parse_header({"type": "game", "game": "speed", "players": ["A", "B", "C"]}))
    with pytest.raises(GameSetupError, match="playspit"):
        referee({"deal": "bicycle"})


# ---------------------------------------------------------------------------------------- SP-2
def test_sp_2_plus_or_minus_one_any_suit() -> None:
    """SP-2: exactly one rank up or down, suit and colour ignored; A touches 2 (and K only with the wrap)."""
    out = run(H, *start("2S", "KS"), card(1.0, "left", "AH", "Alice"), card(2.0, "left", "2D", "Bob"),
              card(3.0, "left", "3C", "Alice"), card(4.0, "right", "QH", "Bob"))
    assert [v["kind"] for v in verdicts(out)] == ["legal_play"] * 4
    assert all(v["rule"] == "SP-2" for v in verdicts(out))


def test_sp_2_no_play_before_the_starters() -> None:
    """SP-2/SP-10: the game starts with both starters turned; the first card on each pile is the starter."""
    out = run(H, card(0.4, "left", "6H", "Alice"), card(0.4, "right", "9S"), card(1.0, "left", "5C", "Bob"))
    assert rulings(out) == [("legal_play", "SP-2", "Bob", "5C")]


# ---------------------------------------------------------------------------------------- SP-3
def test_sp_3_second_card_rechecked_against_the_new_top() -> None:
    """SP-3: both aim at the 7; Alice's 6 lands first, Bob's 8 lands 50 ms later on the 6: illegal."""
    out = run(H, *start("7H", "QS"), card(1.000, "left", "6H", "Alice"), card(1.050, "left", "8C", "Bob"))
    assert rulings(out) == [("legal_play", "SP-2", "Alice", "6H"), ("illegal_play", "SP-3", "Bob", "8C")]
    assert verdicts(out)[1]["say"] == "Illegal: eight on six, the six was first. Bob, take it back"


def test_sp_3_second_card_can_be_legal_on_the_new_top() -> None:
    """SP-3: a racing card that fits the new top counts (5 on the 6 that landed 40 ms earlier)."""
    out = run(H, *start("7H", "QS"), card(1.000, "left", "6H", "Alice"), card(1.040, "left", "5C", "Bob"))
    assert rulings(out) == [("legal_play", "SP-2", "Alice", "6H"), ("legal_play", "SP-3", "Bob", "5C")]


def test_sp_3_order_of_landing_not_order_of_logging() -> None:
    """SP-3/TM-3: the log has Bob's card first, but Alice's landed 50 ms earlier: hers is judged first."""
    out = run(H, *start("7H", "QS"), card(1.050, "left", "8C", "Bob"), card(1.000, "left", "6H", "Alice"))
    assert rulings(out) == [("legal_play", "SP-2", "Alice", "6H"), ("illegal_play", "SP-3", "Bob", "8C")]


@pytest.mark.parametrize("antic_ms, rule", [(100, "SP-3"), (30, "SP-2")])
def test_tm_2_bound_decides_whether_a_card_was_racing(antic_ms: int, rule: str) -> None:
    """TM-2: a top younger than anticipation_ms cannot have been seen, so a card on it was aimed at the old
    top (SP-3); an older top was seen (SP-2)."""
    out = run(hdr(anticipation_ms=antic_ms), *start("7H", "QS"), card(1.000, "left", "6H", "Alice"),
              card(1.050, "left", "8C", "Bob"))
    assert rulings(out)[1] == ("illegal_play", rule, "Bob", "8C")


def test_sp_3_own_cards_are_not_a_race() -> None:
    """SP-3 is about the other player's card: Alice's own quick second card is plain SP-2."""
    out = run(H, *start("7H", "QS"), card(1.000, "left", "6H", "Alice"), card(1.050, "left", "5C", "Alice"))
    assert rulings(out)[1] == ("legal_play", "SP-2", "Alice", "5C")


# ---------------------------------------------------------------------------------------- SP-4
def test_sp_4_no_cards_left_is_an_anomaly() -> None:
    """SP-4: with hand and stock empty nothing more can be played (the last card here was illegal and
    still lies on the pile, so it is owed back, not played out)."""
    ref, _ = referee(held={"Alice": 1}, lines=(*start("7H", "QS"), card(1.0, "left", "9C", "Alice")))
    push(ref, card(1.5, "right", "2D", "Bob"))  # closes the race: the 9 is illegal
    assert ref.held["Alice"] == 0 and ref.pending == {"9C": ("left", "Alice")} and ref.outcome is None
    unchanged_anomaly(ref, card(1.5, "right", "JD", "Alice"), "SP-4")
    out = push(ref, remove(2.0, "left", "9C", "Alice"), card(3.0, "left", "8S", "Alice")) + done(ref)
    assert [(v["kind"], v.get("player")) for v in verdicts(out)][-2:] == [("legal_play", "Alice"),
                                                                          ("win", "Alice")]


def test_sp_4_counts_follow_the_refill() -> None:
    """SP-4: after three plays from 20 cards: 17 left, 5 in hand (refilled), 12 in the stock."""
    ref, _ = referee(lines=(*start("7H", "QS"), card(1.0, "left", "6H", "Alice"),
                            card(2.0, "left", "5H", "Alice"), card(3.0, "left", "4H", "Alice")))
    done(ref)
    assert ref.held["Alice"] == 17 and ref.hand_count("Alice") == 5 and ref.stock_count("Alice") == 12
    assert ref.observable_total() == 52


# ---------------------------------------------------------------------------------------- SP-5
def test_sp_5_both_stuck_then_both_flip() -> None:
    """SP-5: a claim is stale once the other changes a top; only two standing claims make both flip; the
    flips are not judged and the next play is judged against them."""
    out = run(H, *start("7H", "QS"), stuck(1.0, "Alice"), card(2.0, "right", "JD", "Bob"),
              stuck(3.0, "Bob"),  # Alice's claim lapsed with the jack: no both_stuck yet
              stuck(4.0, "Alice"),
              card(5.0, "left", "3C", source="side"), card(5.02, "right", "9H", source="side"),
              card(6.0, "left", "4D", "Alice"))
    assert rulings(out) == [("legal_play", "SP-2", "Bob", "JD"), ("both_stuck", "SP-5", None, None),
                            ("legal_play", "SP-2", "Alice", "4D")]
    assert verdicts(out, "both_stuck")[0]["say"] == "Both stuck: flip!"
    assert verdicts(out, "both_stuck")[0]["t"] == 4.0


def test_sp_5_side_flip_without_both_stuck_is_an_anomaly() -> None:
    """SP-5: side cards are turned only when both are stuck."""
    ref, _ = referee(lines=tuple(start("7H", "QS")))
    unchanged_anomaly(ref, card(0.5, "left", "3C", source="side"), "SP-5")


def test_sp_5_both_stuck_waits_for_the_pending_ruling() -> None:
    """SP-5/G-2: Bob's illegal card is ruled first; it does not change the top, so Alice's claim stands
    and both are stuck after it."""
    out = run(H, *start("7H", "QS"), stuck(1.0, "Alice"), card(2.0, "left", "9C", "Bob"),
              stuck(2.005, "Bob"), remove(2.5, "left", "9C", "Bob"))
    assert rulings(out) == [("illegal_play", "SP-2", "Bob", "9C"), ("both_stuck", "SP-5", None, None)]


def test_sp_5_claims_while_flips_are_due_are_ignored() -> None:
    """SP-5: after both_stuck, repeated claims before the flips change nothing."""
    out = run(H, *start("7H", "QS"), stuck(1.0, "Alice"), stuck(1.1, "Bob"), stuck(1.2, "Bob"),
              stuck(1.3, "Alice"), card(2.0, "left", "3C", source="side"),
              card(2.0, "right", "9H", source="side"))
    assert rulings(out) == [("both_stuck", "SP-5", None, None)]
    assert anomalies(out) == []


# ---------------------------------------------------------------------------------------- SP-6
def _stuck_round(t: float, left: str, right: str, **kw: Any) -> list[dict[str, Any]]:
    kw = kw or {"source": "side"}
    return [stuck(t, "Alice"), stuck(t + 0.1, "Bob"), card(t + 0.5, "left", left, **kw),
            card(t + 0.5, "right", right, **kw)]


@pytest.mark.parametrize("deal", ["playspit", "pagat"])
def test_sp_6_side_stacks_exhausted_rebuilt_from_under_the_tops(deal: str) -> None:
    """SP-6: after five both-stuck flips (5-card side stacks) the sixth finds them empty: the ten cards
    under the two tops become new side stacks (5 + 5). With Pagat's 10-card stacks there is no rebuild."""
    flips = [("2C", "2D"), ("3C", "3D"), ("4C", "4D"), ("5C", "5D"), ("6C", "6D"), ("8C", "8D")]
    lines = list(start("7H", "QS"))
    for i, (a, b) in enumerate(flips[:5]):
        lines += _stuck_round(1.0 + i, a, b)
    ref, out = referee({"deal": deal}, lines=tuple(lines))
    assert ref.side == ({"left": 0, "right": 0} if deal == "playspit" else {"left": 5, "right": 5})
    out = push(ref, *(_stuck_round(10.0, "7H", "QS") if deal == "playspit" else _stuck_round(10.0, "8C", "8D")))
    if deal == "playspit":
        assert rulings(out) == [("both_stuck", "SP-5", None, None), ("effect", "SP-6", None, None)]
        eff = verdicts(out, "effect")[0]
        assert (eff["cards"], eff["left"], eff["right"]) == (10, 5, 5)
        assert anomalies(out) == []  # 7H and QS went under and back into a side stack: seeing them is fine
        assert ref.piles == {"left": ["6C", "7H"], "right": ["6D", "QS"]}
        assert ref.side == {"left": 4, "right": 4}
    else:
        assert rulings(out) == [("both_stuck", "SP-5", None, None)]
        assert ref.side == {"left": 4, "right": 4}
    assert ref.observable_total() == 52


def test_sp_6_odd_count_left_stack_takes_the_extra_card() -> None:
    """SP-6: eleven cards under the tops: the left side stack gets 6, the right 5."""
    lines = [*start("7H", "QS"), card(0.9, "left", "8S", "Alice")]
    for i, (a, b) in enumerate([("2C", "2D"), ("3C", "3D"), ("4C", "4D"), ("5C", "5D"), ("6C", "6D")]):
        lines += _stuck_round(1.0 + i, a, b)
    out = run(H, *lines, stuck(10.0, "Alice"), stuck(10.1, "Bob"))
    eff = verdicts(out, "effect")[0]
    assert (eff["rule"], eff["cards"], eff["left"], eff["right"]) == ("SP-6", 11, 6, 5)


# ---------------------------------------------------------------------------------------- SP-7
def test_sp_7_legal_last_card_wins_after_the_play_g_2() -> None:
    """SP-7/G-2: the last card's legal_play comes first, then the win; nothing can follow."""
    ref, _ = referee(held={"Alice": 1}, lines=tuple(start("7H", "QS")))
    out = push(ref, card(1.0, "left", "6H", "Alice"), card(2.0, "right", "JH", "Bob"))
    assert [(v["kind"], v["rule"], v.get("player")) for v in verdicts(out)] == [
        ("legal_play", "SP-2", "Alice"), ("win", "SP-7", "Alice")]
    assert verdicts(out, "win")[0]["say"] == "Alice is out of cards: Alice wins!"
    assert [a["reason"] for a in anomalies(out)] == ["the game is over; nothing more can happen"]


def test_sp_7_illegal_last_card_does_not_win() -> None:
    """SP-7: the last card must be played legally; an illegal one is taken back and played again."""
    ref, _ = referee(held={"Alice": 1}, lines=tuple(start("7H", "QS")))
    out = push(ref, card(1.0, "left", "9H", "Alice"), remove(1.5, "left", "9H", "Alice"),
               card(2.0, "right", "KH", "Alice")) + done(ref)
    assert [v["kind"] for v in verdicts(out)] == ["illegal_play", "legal_play", "win"]


def test_tm_3_last_cards_inside_the_window_draw() -> None:
    """SP-7/TM-3: both play their last card legally 10 ms apart on different piles: nobody was first."""
    ref, _ = referee(held={"Alice": 1, "Bob": 1}, lines=tuple(start("7H", "QS")))
    out = push(ref, card(1.000, "left", "6H", "Alice"), card(1.010, "right", "KH", "Bob")) + done(ref)
    assert [(v["kind"], v["rule"]) for v in verdicts(out)] == [
        ("legal_play", "SP-2"), ("legal_play", "SP-2"), ("draw", "TM-3")]
    assert verdicts(out, "draw")[0]["players"] == ["Alice", "Bob"]
    assert ref.outcome is not None and ref.outcome.winner is None


def test_tm_3_last_cards_outside_the_window_first_wins() -> None:
    """SP-7/TM-3: 30 ms apart is an order: Bob was first."""
    ref, _ = referee(held={"Alice": 1, "Bob": 1}, lines=tuple(start("7H", "QS")))
    out = push(ref, card(1.000, "right", "KH", "Bob"), card(1.030, "left", "6H", "Alice")) + done(ref)
    assert [(v["kind"], v.get("player")) for v in verdicts(out)] == [
        ("legal_play", "Bob"), ("win", "Bob")]
    assert anomalies(out)[0]["reason"] == "the game is over; nothing more can happen"


def test_sp_7_tied_last_card_does_not_win() -> None:
    """SP-7/SP-9: a last card inside an unresolved tie was never judged legal: no win until it is taken
    back and played again."""
    ref, _ = referee(held={"Alice": 1}, lines=tuple(start("7H", "QS")))
    out = push(ref, card(1.000, "left", "6H", "Alice"), card(1.010, "left", "8C", "Bob"),
               card(2.0, "right", "KD", "Bob"))
    assert [v["kind"] for v in verdicts(out)] == ["unresolved_tie"]
    assert ref.outcome is None
    out = push(ref, remove(3.0, "left", "6H", "Alice"), card(4.0, "left", "9D", "Alice")) + done(ref)
    assert [(v["kind"], v.get("player")) for v in verdicts(out)] == [
        ("legal_play", "Bob"), ("legal_play", "Alice"), ("win", "Alice")]


# ---------------------------------------------------------------------------------------- SP-8
def test_sp_8_later_plays_judged_against_the_last_legal_top() -> None:
    """SP-8: Alice's illegal 9 lies on the 7; Bob's 6 is judged against the 7 (the last legal top)."""
    out = run(H, *start("7H", "QS"), card(1.0, "left", "9C", "Alice"), card(1.5, "left", "6D", "Bob"),
              remove(2.0, "left", "9C", "Alice"), card(3.0, "left", "5D", "Alice"))
    assert rulings(out) == [("illegal_play", "SP-2", "Alice", "9C"), ("legal_play", "SP-8", "Bob", "6D"),
                            ("legal_play", "SP-2", "Alice", "5D")]
    assert anomalies(out) == []


@pytest.mark.parametrize("announce, voiced", [("errors", False), ("all", True)])
def test_sp_8_legal_plays_are_a_sound_unless_announce_all(announce: str, voiced: bool) -> None:
    """SP-8: every play gets a ruling; legal ones are spoken only with announce=all; illegal ones always."""
    out = run(hdr(announce=announce), *start("7H", "QS"), card(1.0, "left", "6H", "Alice"),
              card(2.0, "left", "JH", "Bob"))
    legal, illegal = verdicts(out)
    assert legal["kind"] == "legal_play" and legal["say"] == "Alice: six on seven"
    assert ("voice" not in legal) is voiced
    assert illegal["kind"] == "illegal_play" and "voice" not in illegal


@pytest.mark.parametrize("line, rule", [
    (remove(1.0, "left", "6H", "Alice"), "SP-8"),  # a legal card stays
    (remove(1.0, "left", "9C", "Bob"), "SP-8"),  # not Bob's card
    (remove(1.0, "right", "9C", "Alice"), "SP-8"),  # not on that pile
    (remove(1.0, "left", "2C", "Alice"), "SP-8"),  # not on the table at all
    (card(1.0, "right", "9C", "Bob"), "SP-1"),  # the illegal card is still face up on the left
])
def test_sp_8_take_backs_that_cannot_happen(line: dict[str, Any], rule: str) -> None:
    """SP-8: only an illegal card goes back, into its own player's hand, from the pile it lies on."""
    ref, _ = referee(lines=(*start("7H", "QS"), card(0.8, "left", "6H", "Alice"),
                            card(0.9, "left", "9C", "Alice"), card(1.0, "right", "KC", "Bob")))
    unchanged_anomaly(ref, line, rule)


def test_sp_8_taken_back_card_belongs_to_that_hand() -> None:
    """SP-8: once back in Alice's hand, the 9 cannot be played by Bob (but Alice may play it again)."""
    ref, _ = referee(lines=(*start("7H", "QS"), card(0.8, "left", "9C", "Alice"),
                            remove(1.0, "left", "9C", "Alice")))
    unchanged_anomaly(ref, card(1.0, "right", "9C", "Bob"), "SP-8")
    out = push(ref, card(2.0, "left", "8C", "Bob"), card(3.0, "left", "9C", "Alice")) + done(ref)
    assert [v["kind"] for v in verdicts(out)] == ["legal_play", "legal_play"]


def test_sp_8_unruled_card_cannot_be_taken_back_yet() -> None:
    """SP-8: a take-back inside the card's own tie window comes before any ruling: an anomaly."""
    ref, _ = referee(lines=(*start("7H", "QS"), card(1.0, "left", "9C", "Alice")))
    unchanged_anomaly(ref, remove(1.0, "left", "9C", "Alice"), "SP-8")


def test_sp_8_a_play_must_name_its_player() -> None:
    """SP-8: every play gets a ruling for a player; a card line without one (outside a flip) is an
    anomaly."""
    ref, _ = referee(lines=tuple(start("7H", "QS")))
    unchanged_anomaly(ref, card(0.5, "left", "6H"), "SP-8")


def test_sp_8_top_seen_again_is_no_event() -> None:
    """SP-8: after a take-back the camera may log the old top again; that is not a play."""
    out = run(H, *start("7H", "QS"), card(1.0, "left", "9C", "Alice"), remove(1.5, "left", "9C"),
              card(1.6, "left", "7H"), card(1.7, "left", "7H", "Bob"))
    assert rulings(out) == [("illegal_play", "SP-2", "Alice", "9C")]
    assert anomalies(out) == []


# ---------------------------------------------------------------------------------------- SP-9
def test_sp_9_tie_inside_the_window_is_unresolved_and_top_stands() -> None:
    """SP-9/TM-3: 10 ms apart on one pile: unresolved_tie; neither is judged; the 8 seen on top stands."""
    out = run(H, *start("7H", "QS"), card(1.000, "left", "6H", "Alice"), card(1.010, "left", "8C", "Bob"),
              card(2.0, "left", "9D", "Alice"))
    assert rulings(out) == [("unresolved_tie", "SP-9", None, None), ("legal_play", "SP-2", "Alice", "9D")]
    tie = verdicts(out, "unresolved_tie")[0]
    assert tie["zone"] == "left" and tie["played"] == ["6H", "8C"] and tie["players"] == ["Alice", "Bob"]
    assert tie["say"] == "Too close to call on the left pile: the eight on top stands"


def test_sp_9_tied_card_may_be_taken_back_until_the_next_play() -> None:
    """SP-9: Bob takes his tied 8 back: the 6 under it is the top again. After the next card lands, the
    tied cards stand for good."""
    ref, out = referee(lines=(*start("7H", "QS"), card(1.000, "left", "6H", "Alice"),
                              card(1.010, "left", "8C", "Bob"), remove(1.5, "left", "8C", "Bob"),
                              card(2.0, "left", "5D", "Alice")))
    out += done(ref)
    assert rulings(out) == [("unresolved_tie", "SP-9", None, None), ("legal_play", "SP-2", "Alice", "5D")]
    assert ref.held == {"Alice": 18, "Bob": 20}
    unchanged_anomaly(ref, remove(2.0, "left", "6H", "Alice"), "SP-8")


@pytest.mark.parametrize("window_ms, t_err, tied", [(20, 0.0, False), (20, 0.02, True), (40, 0.0, True)])
def test_tm_3_window_and_t_err_decide_a_tie(window_ms: int, t_err: float, tied: bool) -> None:
    """TM-3: 30 ms apart is an order with the default window; not with t_err 20 ms each (sum 40) or a
    40 ms window."""
    out = run(hdr(tie_window_ms=window_ms), *start("7H", "QS"),
              card(1.000, "left", "6H", "Alice", t_err=t_err), card(1.030, "left", "8C", "Bob", t_err=t_err))
    kinds = [v["kind"] for v in verdicts(out)]
    assert kinds == (["unresolved_tie"] if tied else ["legal_play", "illegal_play"])


# ---------------------------------------------------------------------------------------- SP-10
def test_sp_10_flips_without_source_at_start_and_after_both_stuck() -> None:
    """SP-10: without a ``source`` the first card on each pile at the start and after both are stuck is the
    flip (even if a player is named); it is never judged."""
    out = run(H, card(0.5, "left", "7H"), card(0.5, "right", "QS"), stuck(1.0, "Alice"), stuck(1.1, "Bob"),
              card(2.0, "left", "2C", "Alice"), card(2.0, "right", "5D"), card(3.0, "left", "3C", "Bob"))
    assert rulings(out) == [("both_stuck", "SP-5", None, None), ("legal_play", "SP-2", "Bob", "3C")]


def test_sp_10_spit_cards_do_not_exist_in_speed() -> None:
    """SP-10: ``source: spit`` belongs to Spit."""
    ref, _ = referee(lines=tuple(start("7H", "QS")))
    unchanged_anomaly(ref, card(0.5, "left", "6H", source="spit"), "SP-10")


def test_sp_10_second_flip_on_a_pile_is_an_anomaly() -> None:
    """SP-10/SP-5: one flip per pile per both-stuck."""
    ref, _ = referee(lines=(*start("7H", "QS"), stuck(1.0, "Alice"), stuck(1.1, "Bob"),
                            card(2.0, "left", "2C", source="side")))
    unchanged_anomaly(ref, card(2.0, "left", "3C", source="side"), "SP-5")


# ---------------------------------------------------------------------------------------- G-1, generic
def test_g_1_speed_has_no_turns() -> None:
    """G-1: the referee never polices turn order; in Speed there is none: the same player may play many
    cards in a row, and a ``turn`` line has no meaning (anomaly)."""
    out = run(H, *start("7H", "QS"), card(1.0, "left", "6H", "Bob"), card(1.5, "left", "5H", "Bob"),
              card(2.0, "right", "KH", "Bob"), {"t": 3.0, "type": "turn", "player": "Alice"})
    assert [v["player"] for v in verdicts(out)] == ["Bob", "Bob", "Bob"]
    assert [a["reason"] for a in anomalies(out)] == ["a 'turn' line has no meaning in speed"]


def test_copy_is_independent() -> None:
    """copy() (used by step) shares nothing mutable with the original."""
    ref, _ = referee(lines=(*start("7H", "QS"), card(1.0, "left", "6H", "Alice"),
                            card(1.005, "left", "8H", "Bob")))
    snap = ref.copy()
    assert snap == ref
    push(ref, card(2.0, "right", "KH", "Bob"), stuck(3.0, "Alice"))
    done(ref)
    assert snap != ref and snap.races["left"].entries and snap.held["Bob"] == 19


# ---------------------------------------------------------------------------------------- robustness
_ZONES = ["left", "right", "center", "pile:Alice"]
_PLAYERS = ["Alice", "Bob", None, "Zed"]


@st.composite
def _messy_line(draw: Any) -> Event:
    typ = draw(st.sampled_from(["card", "card", "card", "stuck", "remove", "turn", "slap"]))
    return Event(t=draw(st.floats(0, 20, allow_nan=False)), type=typ, zone=draw(st.sampled_from(_ZONES)),
                 card=draw(st.sampled_from([*STANDARD_DECK[:20], "RJ"])), player=draw(st.sampled_from(_PLAYERS)),
                 source=draw(st.sampled_from([None, None, "side", "spit", "deal"])),
                 t_err=draw(st.sampled_from([0.0, 0.0, 0.01, 0.05])))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lines=st.lists(_messy_line(), max_size=60), variants=st.fixed_dictionaries(
    {"ace_wraps": st.booleans(), "deal": st.sampled_from(["playspit", "pagat"])}))
def test_random_logs_never_raise_and_fast_push_matches_base(lines: list[Event], variants: dict[str, Any]) -> None:
    """No input makes push raise; cards stay 52; the inlined push equals ``Referee.push`` line for line."""
    header = parse_header({"type": "game", **hdr(**variants)})
    fast, base = new_referee(header), new_referee(header)
    for ev in lines:
        a = [o.to_dict() for o in fast.push(ev)]
        b = [o.to_dict() for o in Referee.push(base, ev)]
        assert a == b
        assert fast == base
        assert fast.observable_total() == 52
    assert [o.to_dict() for o in fast.finish()] == [o.to_dict() for o in base.finish()]


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_shuffled_simulated_logs_never_raise(seed: int) -> None:
    """A real log in a scrambled order (and with lines dropped) gives anomalies, never an exception."""
    header, events = simulate("speed", 2, seed)
    fast, base = new_referee(header), new_referee(header)
    for ev in events:  # the inlined push agrees with the base class on a real game (races, ties, the end)
        assert [o.to_dict() for o in fast.push(ev)] == [o.to_dict() for o in Referee.push(base, ev)]
    assert [o.to_dict() for o in fast.finish()] == [o.to_dict() for o in base.finish()] and fast == base
    rng = random.Random(seed)
    events = [e for e in events if rng.random() < 0.9]
    rng.shuffle(events)
    ref = new_referee(header)
    for ev in events:
        ref.push(ev)
        assert ref.observable_total() == 52
    ref.finish()


# ---------------------------------------------------------------------------------------- simulator
def _all_rulings(n: int, variants: dict[str, Any] | None = None) -> tuple[Counter[tuple[str, str]], int]:
    seen: Counter[tuple[str, str]] = Counter()
    bad = 0
    for seed in range(n):
        header, events = simulate("speed", 2, seed, variants)
        assert [e.t for e in events] == sorted(e.t for e in events), seed
        assert {e.type for e in events} <= {"card", "stuck", "remove"}
        _, out = replay_to_end(header, events)
        for o in out:
            d = o.to_dict()
            if d["type"] == "anomaly":
                bad += 1
            else:
                seen[(d["kind"], d["rule"])] += 1
        assert [getattr(o, "kind", None) for o in out][-1] in ("win", "draw")
    return seen, bad


def test_sim_produces_every_ruling_of_speed() -> None:
    """Over many games the simulator makes every verdict kind and rule of Speed occur, cleanly (SP-2, SP-3,
    SP-5, SP-6, SP-7, SP-8, SP-9, TM-3)."""
    seen, bad = _all_rulings(400)
    assert bad == 0
    for key in [("legal_play", "SP-2"), ("legal_play", "SP-8"), ("illegal_play", "SP-2"),
                ("illegal_play", "SP-3"), ("unresolved_tie", "SP-9"), ("both_stuck", "SP-5"),
                ("effect", "SP-6"), ("win", "SP-7"), ("draw", "TM-3")]:
        assert seen[key] > 0, key


@pytest.mark.parametrize("variants", [{"deal": "pagat"}, {"ace_wraps": False}, {"announce": "all"},
                                      {"tie_window_ms": 40}])
def test_sim_variants_play_clean_games(variants: dict[str, Any]) -> None:
    """Every variant value plays whole games the referee finds nothing wrong with (SP-1, SP-2, SP-8)."""
    seen, bad = _all_rulings(60, variants)
    assert bad == 0 and seen[("win", "SP-7")] + seen[("draw", "TM-3")] == 60


def test_sim_is_deterministic_and_shows_only_what_a_camera_sees() -> None:
    """Same seed, same log. Only face-up facts: every card line without a player is a due flip (SP-10),
    every play, claim and take-back names its player, and no card is face up twice at once."""
    _h1, e1 = simulate("speed", 2, 7)
    _h2, e2 = simulate("speed", 2, 7)
    assert [e.to_dict() for e in e1] == [e.to_dict() for e in e2]
    for seed in range(50):
        header, events = simulate("speed", 2, seed)
        ref = new_referee(header)
        assert isinstance(ref, SpeedReferee)
        for ev in events:
            if ev.type == "card" and (ev.player is None or ev.source == "side"):
                assert ev.player is None and ev.zone in ref.flips_due
            else:
                assert ev.player is not None
            assert not any(o.to_dict()["type"] == "anomaly" for o in ref.push(ev))


def test_sp_9_a_tied_card_goes_back_to_the_tied_player_who_takes_it() -> None:
    """SP-9: two cards 5 ms apart were logged with their players swapped (no camera tells whose hand laid which);
    Bob takes the 8 back: it is Bob's from then on, and he may play it again. A player who was not in the tie
    still cannot take it."""
    ref, out = referee(lines=(*start("7H", "QS"), card(1.000, "left", "6H", "Bob"),
                              card(1.005, "left", "8C", "Alice"), remove(1.5, "left", "8C", "Bob")))
    assert rulings(out) == [("unresolved_tie", "SP-9", None, None)] and not anomalies(out)
    assert ref.held == {"Alice": 19, "Bob": 20}
    out = push(ref, card(2.0, "right", "8C", "Bob"))
    assert not anomalies(out) and ref.held == {"Alice": 19, "Bob": 19}
    other, _ = referee(lines=(*start("7H", "QS"), card(1.000, "left", "6H", "Bob"), card(1.005, "left", "8C", "Bob")))
    assert [v.kind for v in other.advance(1.5)] == ["unresolved_tie"]
    unchanged_anomaly(other, remove(1.005, "left", "8C", "Alice"), "SP-8")


# ---------------------------------------------------------------------------------------- SP-10: seen flips
def test_sp_10_a_card_seen_where_a_flip_is_due_is_logged_as_that_flip() -> None:
    """SP-10: the camera sees a card land and the hand that laid it; where only a flip can land (the starters,
    the turn after both_stuck) the log keeps it as the flip, ``source: side`` and nobody's, and a play as it is.
    ``as_flip`` does not change the referee."""
    ref, _ = referee()
    before = ref.copy()
    seen = ref.as_flip(parse_event(card(0.5, "left", "7H", "Alice"), 2))
    assert (seen.source, seen.player, seen.card) == ("side", None, "7H")
    assert ref == before
    push(ref, *start("7H", "QS"))
    play = parse_event(card(1.0, "left", "8C", "Alice"), 4)
    assert ref.as_flip(play) == play
    out = push(ref, play.to_dict(), stuck(1.5, "Alice"), card(2.0, "left", "KC", "Bob"), stuck(2.005, "Bob"))
    assert rulings(out) == [("legal_play", "SP-2", "Alice", "8C")]  # the king's ruling is pending: no flip yet
    assert ref.flips_due == []
    seen = ref.as_flip(parse_event(card(3.0, "right", "4D", "Alice"), 9))  # time closes the race: both stuck
    assert (seen.source, seen.player) == ("side", None)
    assert ref.flips_due == []


def test_sp_10_a_play_is_never_taken_for_a_flip_in_other_games() -> None:
    """SP-10 concerns Speed's flips only: in Slapjack a seen card keeps its player and has no source."""
    ref = new_referee(parse_header({"type": "game", "game": "slapjack", "players": ["Alice", "Bob"]}))
    ev = parse_event(card(0.5, "center", "7H", "Alice"), 2)
    assert ref.as_flip(ev) == ev


def test_a_dead_deal_is_dealt_again_and_the_game_logged_ends() -> None:
    """SP-5/SP-6/SP-7: a deal where no flip can ever give either full hand a play (seed 371301: hands of 8s to jacks,
    every card the side stacks cycle through far from them, the stocks never drawn) has no end by the rules; the
    simulator deals again rather than flip forever, and the log it gives is one whole game: no anomaly, one winner."""
    from engine.sim import simulate
    from engine.sim.speed import DEAD_FLIPS

    header, events = simulate("speed", 2, 371301)
    assert len(events) < 40 * DEAD_FLIPS  # (one game, not the dead deal's flips)
    ref = new_referee(header)
    out = [o for ev in events for o in ref.push(ev)] + list(ref.finish())
    assert [o.to_dict() for o in out if o.to_dict()["type"] == "anomaly"] == []
    assert [o.kind for o in out if getattr(o, "kind", None) in ("win", "draw")] == ["win"]
