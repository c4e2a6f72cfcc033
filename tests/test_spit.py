"""Spit (RULES.md ST-1..ST-7 with SP-8, SP-9, SP-10; seed 003, second half): one test or more per rule, and
every worked example of the seed document (named ``seed`` below).

Logs are typed as a perfect camera would write them (the encoding is in ``engine/games/spit.py``). Every test
checks card conservation after every line; impossible lines must leave the referee exactly as it was.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from helpers import anomalies, card, run, slap, verdicts

from engine.events import Event, LogFormatError, parse_event, parse_header
from engine.games import new_referee
from engine.games.spit import SpitReferee, layout_shape
from engine.referee import GameSetupError
from engine.replay import replay_to_end
from engine.sim import simulate

ANN, BOB = "Ann", "Bob"
HEADER: dict[str, Any] = {"game": "spit", "players": [ANN, BOB]}
#: the seed's Speed example, laid out as Spit column tops: 6, 8, J, 3, 3 (left top 7, right top Q)
ANN_TOPS = ["6S", "8S", "JS", "3S", "3D"]
BOB_TOPS = ["KH", "2H", "5H", "8H", "AH"]
#: tops that fit nothing below 6 or above 5: with flips of rank 6 to K (no 5) nobody can ever play
LOW_ANN = ["2S", "3S", "4S", "2D", "3D"]
LOW_BOB = ["2H", "3H", "4H", "2C", "3C"]
HIGH = [r + s for r in ("6", "7", "8", "9", "10", "J", "Q", "K") for s in "SHDC"]  # 32 flip cards


# ----------------------------------------------------------------------------- helpers
def new(**variants: Any) -> SpitReferee:
    ref = new_referee(parse_header({"type": "game", **HEADER, "variants": variants}))
    assert isinstance(ref, SpitReferee)
    return ref


def feed(ref: SpitReferee, *lines: dict[str, Any]) -> list[dict[str, Any]]:
    """Push log lines; cards are conserved after each one (the referee can always count them all)."""
    out: list[dict[str, Any]] = []
    for obj in lines:
        out += [o.to_dict() for o in ref.push(parse_event(obj))]
        assert ref.observable_total() == 52, obj
    return out


def finish(ref: SpitReferee) -> list[dict[str, Any]]:
    return [o.to_dict() for o in ref.finish()]


def kinds(out: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(o["kind"], o["rule"]) for o in out if o["type"] == "verdict"]


def deal_lines(t: float, ann: list[str | None], bob: list[str | None]) -> list[dict[str, Any]]:
    """The visible tops of a fresh layout, column 1 to 5 (``None``: an empty column)."""
    lines = []
    for p, tops in ((ANN, ann), (BOB, bob)):
        for k, c in enumerate(tops, 1):
            if c is not None:
                lines.append(card(t, f"col:{p}:{k}", c, source="deal"))
                t += 0.05
    return lines


def opening(ann: list[str | None] = ANN_TOPS, bob: list[str | None] = BOB_TOPS, left: str = "7C",
            right: str = "QC") -> list[dict[str, Any]]:
    """Deal, then both spit: Ann's card starts the left pile, Bob's the right one (ST-2)."""
    return [*deal_lines(0.0, ann, bob), card(1.0, "left", left, ANN, source="spit"),
            card(1.01, "right", right, BOB, source="spit")]


def opened(**variants: Any) -> SpitReferee:
    ref = new(**variants)
    assert feed(ref, *opening()) == []
    return ref


def remove(t: float, zone: str, c: str, player: str | None = None) -> dict[str, Any]:
    d: dict[str, Any] = {"t": t, "type": "remove", "zone": zone, "card": c}
    if player is not None:
        d["player"] = player
    return d


def stuck(t: float, player: str) -> dict[str, Any]:
    return {"t": t, "type": "stuck", "player": player}


def assert_impossible(ref: SpitReferee, obj: dict[str, Any], rule: str) -> dict[str, Any]:
    """``obj`` becomes one anomaly with ``rule`` and changes nothing (races due before it are closed first)."""
    t = obj["t"]
    if t > ref.t:
        ref.advance(t)
        ref.t = t
    before = ref.copy()
    out = feed(ref, obj)
    assert [o["type"] for o in out] == ["anomaly"], out
    assert out[0]["rule"] == rule, out
    assert ref == before
    return out[0]


def chain_lines(p: str, zone: str, chain: list[str], shape: list[int], t: float) -> tuple[list[str | None],
                                                                                           list[dict[str, Any]], float]:
    """A layout that ``p`` clears by playing ``chain`` in order onto ``zone``: column 5 first, each column's
    cards revealed one by one. Returns the dealt tops, the play and turn-up lines, and the time after them."""
    tops: list[str | None] = [None] * 5
    lines: list[dict[str, Any]] = []
    i = 0
    for k in (5, 4, 3, 2, 1):
        seg = chain[i:i + shape[k - 1]]
        i += shape[k - 1]
        if not seg:
            continue
        tops[k - 1] = seg[0]
        for j, c in enumerate(seg):
            if j:
                lines.append(card(t, f"col:{p}:{k}", c, p))  # ST-3: the uncovered card is turned up
                t += 0.3
            lines.append(card(t, zone, c, p))
            t += 0.5
    assert i == len(chain) == sum(shape)
    return tops, lines, t


#: Ann clears her 15 layout cards onto the left pile (2D): 3 up to K, A (ST-7 wrap), 2, 3, 4
ANN_CHAIN = ["3S", "4S", "5S", "6S", "7S", "8S", "9S", "10S", "JS", "QS", "KS", "AS", "2S", "3H", "4H"]


def round_one_cleared_by_ann() -> tuple[SpitReferee, float, list[dict[str, Any]]]:
    """Round 1: Bob starts the left pile with 2D, Ann the right with 9D; Ann clears her whole layout."""
    ref = new()
    tops, plays, t = chain_lines(ANN, "left", ANN_CHAIN, [1, 2, 3, 4, 5], 2.0)
    lines = [*deal_lines(0.0, tops, ["5D", "6D", "7D", "8D", "10D"]),
             card(1.0, "right", "9D", ANN, source="spit"), card(1.01, "left", "2D", BOB, source="spit"), *plays]
    out = feed(ref, *lines)
    return ref, t, out


# ----------------------------------------------------------------------------- ST-1: the layout
def test_st_1_seed_layout_1_2_3_4_5_and_11_spit_cards_26_each() -> None:
    """ST-1 (seed: 每人 26 張, 五列 1、2、3、4、5, 其餘 11 張): columns of 1-5, only the tops face up."""
    ref = new()
    for p in (ANN, BOB):
        assert [ref.down[f"col:{p}:{k}"] for k in range(1, 6)] == [1, 2, 3, 4, 5]
        assert ref.spit[p] == 11 and ref.held[p] == 15
    assert ref.observable_total() == 52 and ref.n_piles == 2
    assert feed(ref, *deal_lines(0.0, ANN_TOPS, BOB_TOPS)) == []
    assert [ref.down[f"col:{ANN}:{k}"] for k in range(1, 6)] == [0, 1, 2, 3, 4]
    assert ref.tops["JS"] == "col:Ann:3" and ref.up["col:Bob:5"] == ["AH"]
    assert layout_shape(26) == [1, 2, 3, 4, 5]


def test_st_1_short_layouts_are_dealt_in_rows() -> None:
    """ST-1 / ST-5 (decision 1): fewer than 15 cards are dealt row by row, as many columns as possible."""
    assert layout_shape(15) == [1, 2, 3, 4, 5]
    assert layout_shape(12) == [1, 2, 3, 3, 3]
    assert layout_shape(11) == [1, 2, 3, 3, 2]
    assert layout_shape(3) == [1, 1, 1, 0, 0]


def test_st_1_a_second_deal_card_on_a_column_is_an_anomaly() -> None:
    """ST-1: a column shows one dealt top; a second one cannot appear on it."""
    ref = opened()
    a = assert_impossible(ref, card(2.0, "col:Ann:3", "9C", source="deal"), "ST-1")
    assert "already shows JS" in a["reason"]
    assert_impossible(ref, card(2.1, "left", "2C", source="deal"), "SP-10")


def test_st_1_jokers_are_not_in_the_deck() -> None:
    """ST-1: one 52-card deck."""
    assert_impossible(opened(), card(2.0, "left", "RJ", ANN), "ST-1")


def test_spit_is_for_two_players() -> None:
    """ST-1: 26 cards each, two players."""
    with pytest.raises(GameSetupError, match="exactly two"):
        new_referee(parse_header({"type": "game", "game": "spit", "players": ["A", "B", "C"]}))


# ----------------------------------------------------------------------------- ST-2: plays
def test_st_2_seed_each_card_is_judged_against_the_top_when_it_lands() -> None:
    """ST-2 (seed 自編示例 as Spit tops 6, 8, J, 3, 3; left 7, right Q): 6 on 7 is legal; then 8 on the 6 is
    not; the opponent's K on Q is legal; J on that K is not. Suits do not matter."""
    out = run(HEADER, *opening(), card(2.0, "left", "6S", ANN), card(3.0, "left", "8S", ANN),
              card(3.5, "right", "KH", BOB), card(4.0, "right", "JS", ANN))
    assert anomalies(out) == []
    v = verdicts(out)
    assert [(o["kind"], o["rule"], o["player"], o["card"], o["on"]) for o in v] == [
        ("legal_play", "ST-2", ANN, "6S", "7C"), ("illegal_play", "ST-2", ANN, "8S", "6S"),
        ("legal_play", "ST-2", BOB, "KH", "QC"), ("illegal_play", "ST-2", ANN, "JS", "KH")]
    assert v[0]["say"] == "Ann: six on seven" and v[0]["voice"] is False
    assert v[1]["say"] == "Illegal: eight on six. Ann, take it back" and "voice" not in v[1]
    assert v[0]["t"] == pytest.approx(2.02)  # ruled once the tie window has passed (TM-3)


def test_st_2_equal_rank_and_skipping_a_rank_are_illegal() -> None:
    """ST-2 (seed: 同點數不能直接疊上去, 想接 9 也不能跳過 8): only exactly one rank up or down."""
    out = run(HEADER, *opening(), card(2.0, "left", "8S", ANN), card(2.5, "col:Ann:2", "8D", ANN),
              card(3.0, "left", "8D", ANN), card(3.5, "left", "6S", ANN))
    assert [(o["kind"], o["card"], o["on"]) for o in verdicts(out)] == [
        ("legal_play", "8S", "7C"), ("illegal_play", "8D", "8S"), ("illegal_play", "6S", "8S")]


def test_st_2_only_a_visible_top_of_the_players_own_layout_can_be_played() -> None:
    """ST-2: plays come from column tops; a hidden card or the other player's card cannot be played."""
    ref = opened()
    assert "not a visible top" in assert_impossible(ref, card(2.0, "left", "9C"), "ST-2")["reason"]
    assert "Ann's layout" in assert_impossible(ref, card(2.1, "left", "6S", BOB), "ST-2")["reason"]
    assert feed(ref, card(2.2, "left", "6S")) == []  # without ``player``: the card names its owner
    assert [(o["kind"], o["player"]) for o in finish(ref)] == [("legal_play", ANN)]


def test_st_2_piles_start_with_the_spit_cards() -> None:
    """ST-2: both flip a spit card to start the two centre piles; no play before that, one card per pile."""
    ref = new()
    feed(ref, *deal_lines(0.0, ANN_TOPS, BOB_TOPS))
    assert_impossible(ref, card(0.9, "left", "6S", ANN), "ST-2")
    feed(ref, card(1.0, "left", "7C", ANN, source="spit"))
    assert_impossible(ref, card(1.01, "left", "QC", BOB, source="spit"), "ST-2")  # starts the other pile
    assert feed(ref, card(1.02, "right", "QC", BOB, source="spit"), card(2.0, "left", "6S", ANN)) == []


def test_st_2_a_legal_card_counts_once_it_lands_and_cannot_be_taken_back() -> None:
    """ST-2: a legal card cannot be taken back (only an illegal one, SP-8)."""
    ref = opened()
    feed(ref, card(2.0, "left", "6S", ANN))
    a = assert_impossible(ref, remove(3.0, "left", "6S", ANN), "SP-8")
    assert "cannot be taken back" in a["reason"]
    assert ref.top["left"] == "6S" and ref.size["left"] == 2 and ref.held[ANN] == 14


def test_st_2_a_card_racing_a_faster_one_is_checked_against_the_new_top() -> None:
    """ST-2 (a card counts once it touches; seed 兩人同時搶同一堆: 確認哪張先落到牌堆): 30 ms apart is an
    order (TM-3); the second card is judged against the first."""
    out = run(HEADER, *opening(), card(2.0, "left", "6S", ANN), card(2.03, "left", "8H", BOB))
    assert [(o["kind"], o["player"], o["card"], o["on"]) for o in verdicts(out)] == [
        ("legal_play", ANN, "6S", "7C"), ("illegal_play", BOB, "8H", "6S")]


# ----------------------------------------------------------------------------- ST-3: columns
def test_st_3_seed_a_revealed_face_down_card_may_be_turned_up() -> None:
    """ST-3 (seed: 搬走後露出的蓋牌可以翻正): the card under a played top is turned up, never judged."""
    ref = opened()
    assert feed(ref, card(2.0, "left", "8S", ANN), card(2.5, "col:Ann:2", "KD", ANN)) == [
        {"t": 2.02, "type": "verdict", "kind": "legal_play", "rule": "ST-2", "player": ANN, "zone": "left",
         "card": "8S", "on": "7C", "say": "Ann: eight on seven", "voice": False}]
    assert ref.down["col:Ann:2"] == 0 and ref.up["col:Ann:2"] == ["KD"] and ref.tops["KD"] == "col:Ann:2"
    assert "already shows KD" in assert_impossible(ref, card(3.0, "col:Ann:2", "9C", ANN), "ST-3")["reason"]
    assert_impossible(ref, card(3.1, "col:Ann:3", "5C", ANN), "ST-3")  # JS is still on top there
    assert_impossible(ref, card(3.2, "col:Ann:4", "KD", ANN), "ST-3")  # a card seen twice


def test_st_3_a_column_top_read_wrong_is_corrected_and_then_played() -> None:
    """ST-3 with decision 8: nothing lands on a face-up column card, so a ``card`` line with ``misread`` renames the
    top (a look-alike read again); the card is then a visible top and its play is legal (ST-2). Without the
    correction the play is refused: the camera's 3C read 3S at the deal, read 3C on the pile."""
    plays = [card(2.0, "left", "6S", ANN), card(3.0, "left", "3C", ANN)]  # (3 on 6: illegal, as the card it is)
    plain = new()
    feed(plain, *opening(ann=["6S", "8S", "JS", "3C", "3D"]))
    ref = new()
    feed(ref, *opening(ann=["6S", "8S", "JS", "3S", "3D"]))  # 3C logged 3S at the deal
    assert "not a visible top" in assert_impossible(ref.copy(), plays[1], "ST-2")["reason"]
    assert feed(ref, {**card(1.5, "col:Ann:4", "3C", ANN), "misread": "3S"}) == []
    assert ref.up["col:Ann:4"] == ["3C"] and ref.tops["3C"] == "col:Ann:4" and "3S" not in ref.tops
    assert "3S" not in ref.seen and "3C" in ref.seen
    ruled = [kinds(feed(r, *plays) + finish(r)) for r in (ref, plain)]
    assert ruled[0] == ruled[1] == [("legal_play", "ST-2"), ("illegal_play", "ST-2")]


@pytest.mark.parametrize("fix, why", [
    ({"card": "3C", "misread": "3D"}, "shows 3S, not 3D"),  # not what the column shows
    ({"card": "8S", "misread": "3S"}, "already on the table"),  # one deck: 8S is another column's top
    ({"card": "3C", "misread": "3S", "zone": "col:Ann:5"}, "not 3S"),  # another column
])
def test_st_3_a_correction_that_names_no_such_top_is_an_anomaly(fix: dict[str, Any], why: str) -> None:
    """Decision 8: a correction must name the column's face-up top and a card not yet on the table."""
    ref = new()
    feed(ref, *opening(ann=["6S", "8S", "JS", "3S", "3D"]))
    line = {**card(2.0, "col:Ann:4", "3C", ANN), **fix}
    assert why in assert_impossible(ref, line, "ST-3" if "not" in why else "ST-1")["reason"]


def test_a_centre_card_ruled_and_read_wrong_is_corrected_when_it_shows_up_on_a_column() -> None:
    """Decision 8 on a centre pile: a card laid and ruled there (a spit card, a legal play) may be named by a
    ``misread`` line (the camera took 7C for 7S, and the 7S is turned up on a column later): the pile's top is
    renamed, what was ruled stands, and the 7S may come up on a column (ST-3). Not a card still in its tie window,
    nor one on the table elsewhere (one deck); Speed corrects nothing."""
    ref = opened()  # (Ann's spit card 7C started the left pile)
    assert feed(ref, {**card(2.0, "left", "7S", ANN), "misread": "7C"}) == []
    assert ref.top["left"] == "7S" and "7C" not in ref.seen and "7S" in ref.seen
    feed(ref, card(2.5, "left", "6S", ANN))  # (a play on it: flying till its tie window has passed)
    assert "no card laid and ruled" in assert_impossible(ref, {**card(2.51, "left", "6C", ANN), "misread": "6S"},
                                                         "ST-2")["reason"]
    assert "already on the table" in assert_impossible(ref, {**card(3.0, "left", "8S", ANN), "misread": "6S"},
                                                       "ST-1")["reason"]  # (8S: a column's top)
    out = run({"game": "speed", "players": [ANN, BOB]}, {**card(1.0, "left", "7S", ANN), "misread": "7C"})
    assert [o["type"] for o in out] == ["anomaly"] and "no meaning in speed" in out[0]["reason"]


def test_a_misread_field_is_checked_when_the_line_is_read() -> None:
    """EVENTS.md extension: ``misread`` names a card other than the line's, on a ``card`` line only."""
    ev = parse_event({**card(1.0, "col:Ann:1", "3C", ANN), "misread": "3S"})
    assert ev.misread == "3S" and ev.to_dict()["misread"] == "3S"
    for bad in ({**card(1.0, "col:Ann:1", "3C"), "misread": "3C"}, {**card(1.0, "col:Ann:1", "3C"), "misread": "3X"},
                {**remove(1.0, "left", "3C"), "misread": "3S"}):
        with pytest.raises(LogFormatError, match="misread"):
            parse_event(bad)


def test_st_3_seed_an_empty_column_takes_the_top_of_another_column() -> None:
    """ST-3 (seed: 空列可以移入另一列的明牌頂張, 藉此露出下面的牌): the move uncovers a card to turn up."""
    ref = opened()
    feed(ref, card(2.0, "left", "6S", ANN))  # column 1 held only the 6
    assert ref.down["col:Ann:1"] == 0 and ref.up["col:Ann:1"] == []
    assert "can only take the top card" in assert_impossible(ref, card(3.0, "col:Ann:1", "9C", ANN),
                                                             "ST-3")["reason"]
    assert_impossible(ref, card(3.1, "col:Ann:1", "KH", BOB), "ST-3")  # Bob's card, Ann's column
    assert_impossible(ref, card(3.2, "col:Ann:1", "KH"), "ST-3")
    assert feed(ref, card(3.5, "col:Ann:1", "3S", ANN), card(4.0, "col:Ann:4", "9H", ANN)) == []
    assert ref.up["col:Ann:1"] == ["3S"] and ref.tops["3S"] == "col:Ann:1"
    assert ref.up["col:Ann:4"] == ["9H"] and ref.down["col:Ann:4"] == 2
    assert ref.held[ANN] == 14


def test_st_3_seed_never_more_than_five_columns() -> None:
    """ST-3 (seed: 最多仍只有五列): there is no sixth column, in the log format or in the referee."""
    with pytest.raises(LogFormatError, match="unknown zone"):
        parse_event(card(2.0, "col:Ann:6", "6S", ANN))
    ref = opened()
    ref.advance(2.0)
    ref.t = 2.0
    before = ref.copy()
    out = ref.push(Event(t=2.0, type="card", zone="col:Ann:6", card="6S", player=ANN))
    assert [(o.to_dict()["type"], "col:Ann:6" in o.to_dict()["reason"]) for o in out] == [("anomaly", True)]
    assert ref == before


# ----------------------------------------------------------------------------- ST-4: stuck
def test_st_4_both_stuck_both_flip_a_spit_card() -> None:
    """ST-4: only when both are stuck does each turn their next spit card onto the centre."""
    ref = new()
    feed(ref, *opening(LOW_ANN, LOW_BOB, "8C", "JC"))
    assert_impossible(ref, card(1.5, "left", "9H", ANN, source="spit"), "ST-4")  # nobody is stuck yet
    assert feed(ref, stuck(2.0, ANN)) == []
    out = feed(ref, stuck(2.4, BOB))
    assert [(o["kind"], o["rule"], o["say"], o["spitters"]) for o in verdicts(out)] == [
        ("both_stuck", "ST-4", "No plays: spit!", [ANN, BOB])]
    assert feed(ref, card(3.0, "left", "9H", ANN, source="spit"), card(3.02, "right", "QH", BOB, source="spit")) == []
    assert ref.spit == {ANN: 9, BOB: 9} and ref.top == {"left": "9H", "right": "QH"}
    assert_impossible(ref, card(3.1, "left", "KH", ANN, source="spit"), "ST-4")


def test_st_4_a_stuck_claim_with_a_visible_move_is_refused() -> None:
    """ST-4 (seed: 自己沒有合適手牌時, 對手仍可繼續; 若牌庫還有牌先補牌): a claim while a move shows."""
    ref = opened()
    out = feed(ref, stuck(2.0, ANN))
    assert [(o["kind"], o["rule"], o["player"], o["say"]) for o in verdicts(out)] == [
        ("not_stuck", "ST-4", ANN, "Not stuck, Ann: the six goes on the seven")]
    ref = new()
    feed(ref, *opening(["2S", "4S", "4D", "2D", "9S"], LOW_BOB, "8C", "JC"), card(2.0, "left", "9S", ANN))
    out = feed(ref, stuck(3.0, ANN))  # nothing fits the 9 or the J, but column 5 has a card to turn up
    assert [o["say"] for o in verdicts(out, "not_stuck")] == ["Not stuck, Ann: turn up the card in column 5"]


def test_st_4_one_players_stuck_never_stops_the_other() -> None:
    """ST-4: a claim stands until the claimer acts; the other keeps playing; a new card can free the first."""
    ref = new()
    feed(ref, *opening(LOW_ANN, ["2H", "3H", "4H", "2C", "7H"], "8C", "JC"))
    assert feed(ref, stuck(2.0, ANN), card(2.5, "left", "7H", BOB)) == []
    assert ref.stuck == [ANN]
    out = feed(ref, card(3.0, "col:Bob:5", "6H", BOB), stuck(3.5, BOB))
    assert kinds(out) == [("legal_play", "ST-2"), ("not_stuck", "ST-4")]  # the 6 goes on the 7


def test_st_4_seed_one_player_out_of_spit_cards_the_other_flips_alone() -> None:
    """ST-4 (seed: 一方用完時由另一方繼續翻): Ann has no spit card left, Bob spits alone, on either pile."""
    ref = new()
    ref.deal({ANN: 16, BOB: 36})  # a later round: Ann 15 + 1 spit card, Bob 15 + 21
    assert ref.spit == {ANN: 1, BOB: 21} and ref.n_piles == 2
    feed(ref, *opening(LOW_ANN, LOW_BOB, "8C", "JC"), stuck(2.0, BOB))
    out = feed(ref, stuck(2.5, ANN))
    assert [(o["kind"], o["rule"], o["say"], o["spitters"]) for o in verdicts(out)] == [
        ("both_stuck", "ST-4", "No plays: spit! Bob spits alone", [BOB])]
    assert "no spit cards left" in assert_impossible(ref, card(3.0, "right", "9H", ANN, source="spit"),
                                                     "ST-4")["reason"]
    assert feed(ref, card(3.1, "left", "9H", source="spit")) == []  # Bob's: the only one who owes a flip
    assert ref.spit == {ANN: 0, BOB: 19} and ref.top["left"] == "9H"


# ----------------------------------------------------------------------------- ST-5: round end
def test_st_5_a_cleared_layout_ends_the_round() -> None:
    """ST-5: Ann clears her five columns; the round is over and each chooses a pile."""
    ref, t, out = round_one_cleared_by_ann()
    assert anomalies(out) == []
    assert Counter(o["kind"] for o in verdicts(out)) == {"legal_play": 14}  # the last one is still in its window
    out = finish(ref)
    assert kinds(out) == [("legal_play", "ST-2"), ("round_end", "ST-5")]
    assert out[1]["say"] == "Ann's layout is clear: round over. Slap a pile!" and out[1]["player"] == ANN
    assert ref.phase == "choose" and ref.size == {"left": 16, "right": 1} and ref.held == {ANN: 0, BOB: 15}
    assert_impossible(ref, card(t + 1, "col:Bob:2", "9C", BOB), "ST-5")  # no more turning up
    assert_impossible(ref, stuck(t + 1, BOB), "ST-5")


def test_st_5_a_card_played_after_the_round_end_is_taken_back() -> None:
    """ST-5 (with SP-8): once the round is over, a card on a pile is illegal and goes back."""
    ref, t, _ = round_one_cleared_by_ann()
    finish(ref)
    out = feed(ref, card(t + 0.2, "left", "5D", BOB))
    assert [(o["kind"], o["rule"], o["player"]) for o in verdicts(out)] == [("illegal_play", "ST-5", BOB)]
    assert feed(ref, remove(t + 0.6, "left", "5D", BOB)) == []
    assert ref.up["col:Bob:1"] == ["5D"] and ref.size["left"] == 16


def test_st_5_seed_same_pile_chosen_first_to_touch_gets_it() -> None:
    """ST-5 (seed: 同選一堆由先碰到者取得, 另一人拿另一堆): both go for the right pile; Ann touches first."""
    ref, t, _ = round_one_cleared_by_ann()
    out = feed(ref, slap(t + 0.4, "right", ANN), slap(t + 0.6, "right", BOB), card(t + 2, "col:Ann:1", "9H"))
    v = verdicts(out)
    assert kinds(out) == [("legal_play", "ST-2"), ("round_end", "ST-5"), ("effect", "ST-5")]
    e = v[2]
    assert e["player"] == ANN and e["cards"] == 1 and e["piles"] == {ANN: "right", BOB: "left"}
    assert e["say"] == "Ann takes the right pile, 1 card; Bob takes the left pile, 16 cards"
    # TM-2: the reaction runs from the moment the last card cleared the layout (0.5 s before ``t``)
    assert e["totals"] == {ANN: 11, BOB: 41} and e["reaction_ms"] == pytest.approx(900, abs=1)
    assert ref.round_no == 2 and ref.spit == {ANN: 0, BOB: 26}


def test_st_5_each_takes_the_pile_they_chose() -> None:
    """ST-5: different choices: each takes theirs; the first slap decides at once (its window has passed)."""
    ref, t, _ = round_one_cleared_by_ann()
    out = feed(ref, slap(t + 0.3, "left", BOB), slap(t + 0.5, "right", ANN))
    assert [o["piles"] for o in verdicts(out, "effect")] == [{BOB: "left", ANN: "right"}]
    assert verdicts(out, "effect")[0]["player"] == BOB


def test_st_5_seed_fewer_than_15_cards_no_spit_cards_one_pile_started_by_the_other() -> None:
    """ST-5 (seed: 牌少於 15 張者盡量排出五列, 不另留啟動牌, 中央只由另一人建立一堆): round 2 deals Ann's 11
    cards into 1,2,3,3,2 columns and no spit card; Bob alone starts the one centre pile."""
    ref, t, _ = round_one_cleared_by_ann()
    feed(ref, slap(t + 0.4, "right", ANN), slap(t + 0.6, "right", BOB))
    assert [ref.down[f"col:Ann:{k}"] for k in range(1, 6)] == [1, 2, 3, 3, 2]
    assert ref.spit == {ANN: 0, BOB: 26} and ref.n_piles == 1 and ref.starter == BOB
    t += 2
    feed(ref, *deal_lines(t, ["6H", "8H", "JH", "5H", "7H"], ["2C", "3C", "4C", "5C", "6C"]))
    assert_impossible(ref, card(t + 1, "left", "9C", ANN, source="spit"), "ST-4")
    assert feed(ref, card(t + 1.1, "right", "9C", BOB, source="spit")) == []
    assert_impossible(ref, card(t + 1.5, "left", "KC", BOB, source="spit"), "ST-4")
    a = assert_impossible(ref, card(t + 2, "left", "8H", ANN), "ST-5")
    assert "only one centre pile" in a["reason"]
    assert kinds(feed(ref, card(t + 2.5, "right", "8H", ANN))) == []
    assert kinds(finish(ref)) == [("legal_play", "ST-2")]


def test_st_5_both_stuck_without_spit_cards_ends_the_round() -> None:
    """ST-5 (seed: 雙方啟動牌都用完仍卡住, 就進入選中央牌堆): 11 spits each, stuck again: choose piles."""
    ref = new()
    flips = iter(HIGH)
    lines = opening(LOW_ANN, LOW_BOB, next(flips), next(flips))
    t = 2.0
    for _ in range(10):
        lines += [stuck(t, ANN), stuck(t + 0.2, BOB), card(t + 0.6, "left", next(flips), ANN, source="spit"),
                  card(t + 0.61, "right", next(flips), BOB, source="spit")]
        t += 1
    out = feed(ref, *lines)
    assert Counter(kinds(out)) == {("both_stuck", "ST-4"): 10} and ref.spit == {ANN: 0, BOB: 0}
    out = feed(ref, stuck(t, BOB), stuck(t + 0.3, ANN))
    assert [(o["kind"], o["rule"], o["say"]) for o in verdicts(out)] == [
        ("both_stuck", "ST-5", "No plays and no spit cards: round over. Slap a pile!")]
    out = feed(ref, slap(t + 0.5, "left", BOB), slap(t + 0.9, "left", ANN))
    e = verdicts(out, "effect")[0]
    assert e["piles"] == {BOB: "left", ANN: "right"} and e["totals"] == {ANN: 26, BOB: 26}
    assert e["reaction_ms"] == pytest.approx(200, abs=1)


# ----------------------------------------------------------------------------- ST-6: one pile; the win
def test_st_6_seed_clearing_the_layout_with_no_spit_cards_wins() -> None:
    """ST-6 (seed: 沒有啟動牌的人又先清空牌陣, 才真正清掉自己全部的牌而獲勝) and G-2: the pile goes to
    Bob first (the clearer takes no centre cards), then Ann's win."""
    ref, t, _ = round_one_cleared_by_ann()
    feed(ref, slap(t + 0.4, "right", ANN), slap(t + 0.6, "right", BOB))
    t += 2
    chain = ["6H", "7H", "8H", "9H", "10H", "JH", "QH", "KH", "AH", "2H", "3H"]
    tops, plays, t_end = chain_lines(ANN, "right", chain, [1, 2, 3, 3, 2], t + 2)
    feed(ref, *deal_lines(t, tops, ["2C", "3C", "4C", "4D", "4S"]), card(t + 1, "right", "5C", BOB, source="spit"))
    out = feed(ref, *plays) + finish(ref)
    assert anomalies(out) == []
    v = verdicts(out)
    assert [(o["kind"], o["rule"]) for o in v[-3:]] == [("legal_play", "ST-2"), ("effect", "ST-6"), ("win", "ST-6")]
    assert v[-2]["say"] == "Ann's layout is clear: Bob takes the right pile, 12 cards"
    assert v[-2]["piles"] == {BOB: "right", ANN: None} and v[-2]["totals"] == {ANN: 0, BOB: 52}
    assert v[-1]["player"] == ANN and v[-1]["say"] == "Ann has no cards left: Ann wins!"
    assert ref.outcome is not None and ref.outcome.winner == ANN and ref.outcome.rule == "ST-6"
    assert anomalies(feed(ref, card(t_end + 1, "right", "2C", BOB)))  # the game is over


def test_st_6_one_pile_the_first_to_clear_takes_no_centre_cards() -> None:
    """ST-6: with one centre pile, the first to clear takes none of it. Ann started the pile and still has
    spit cards: no win, Bob takes the pile, and a new round is dealt."""
    ref = new()
    ref.deal({ANN: 37, BOB: 15})  # Bob has exactly 15: no spit card (decision 1), Ann starts the one pile
    assert ref.n_piles == 1 and ref.spit == {ANN: 22, BOB: 0}
    tops, plays, t = chain_lines(ANN, "left", ANN_CHAIN, [1, 2, 3, 4, 5], 2.0)
    feed(ref, *deal_lines(0.0, tops, ["5D", "6D", "7D", "8D", "10D"]), card(1.0, "left", "2D", ANN, source="spit"))
    out = feed(ref, *plays) + finish(ref)
    e = verdicts(out, "effect")
    assert [(o["rule"], o["player"], o["piles"], o["totals"], o["say"]) for o in e] == [
        ("ST-6", BOB, {BOB: "left", ANN: None}, {ANN: 21, BOB: 31},
         "Ann's layout is clear: Bob takes the left pile, 16 cards")]
    assert verdicts(out, "win") == [] and ref.round_no == 2 and ref.spit == {ANN: 6, BOB: 16}


def test_st_6_one_pile_both_stuck_the_player_further_from_clearing_takes_it() -> None:
    """ST-6 (decision 7): one pile, both stuck, no spit cards: the player with more layout cards takes it."""
    ref = new()
    ref.deal({ANN: 12, BOB: 40})
    flips = iter(HIGH)
    lines = [*deal_lines(0.0, LOW_ANN, LOW_BOB), card(1.0, "left", next(flips), BOB, source="spit")]
    t = 2.0
    for _ in range(24):
        lines += [stuck(t, ANN), stuck(t + 0.2, BOB), card(t + 0.6, "left", next(flips), source="spit")]
        t += 1
    out = feed(ref, *lines)
    assert Counter(kinds(out)) == {("both_stuck", "ST-4"): 24}
    assert verdicts(out)[0]["say"] == "No plays: spit! Bob spits alone"
    out = feed(ref, stuck(t, ANN), stuck(t + 0.2, BOB))
    assert kinds(out) == [("both_stuck", "ST-5"), ("effect", "ST-6")]
    e = out[1]
    assert e["say"] == "Bob has more cards left: Bob takes the left pile, 25 cards"
    assert e["totals"] == {ANN: 12, BOB: 40} and ref.round_no == 2


# ----------------------------------------------------------------------------- ST-7 / SP-8 / SP-9 / SP-10
@pytest.mark.parametrize("wraps", [True, False])
def test_st_7_ace_wraps_variant(wraps: bool) -> None:
    """ST-7 (seed: A 同時鄰接 2 和 K, 開局先約定): K-A hangs on ``ace_wraps``; A-2 is always adjacent."""
    ref = new(ace_wraps=wraps)
    feed(ref, *opening(["AS", "2S", "JS", "3S", "3D"], BOB_TOPS, "KC", "3C"))
    out = feed(ref, card(2.0, "left", "AS", ANN), card(2.5, "right", "2H", BOB)) + finish(ref)
    assert [(o["kind"], o["rule"], o["card"]) for o in verdicts(out)] == [
        ("legal_play" if wraps else "illegal_play", "ST-7", "AS"), ("legal_play", "ST-2", "2H")]
    out = feed(ref, card(3.0, "right", "AH", BOB)) + finish(ref)
    assert [(o["kind"], o["rule"]) for o in verdicts(out)] == [("legal_play", "ST-2")]


def test_sp_8_an_illegal_card_is_taken_back_and_later_plays_meet_the_last_legal_top() -> None:
    """SP-8 (ST-7): the illegal 3 waits on the pile until taken back; the next card is judged on the 7."""
    ref = opened()
    out = feed(ref, card(2.0, "left", "3S", ANN), card(2.5, "left", "8H", BOB), remove(3.0, "left", "3S", BOB))
    assert [(o["type"], o.get("card"), o.get("on")) for o in out] == [
        ("verdict", "3S", "7C"), ("verdict", "8H", "7C"), ("anomaly", None, None)]  # Bob cannot take Ann's 3
    assert [o["kind"] for o in verdicts(out)] == ["illegal_play", "legal_play"]
    assert ref.loose == {"3S": (ANN, "left", "col:Ann:4")} and ref.held[ANN] == 15 and "3S" not in ref.tops
    assert_impossible(ref, remove(3.1, "right", "3S", ANN), "SP-8")
    assert_impossible(ref, card(3.2, "right", "3S", ANN), "SP-8")  # still on the pile: take it back first
    assert_impossible(ref, card(3.2, "col:Ann:4", "3S", ANN), "SP-8")  # it comes back with a remove
    assert feed(ref, remove(3.5, "left", "3S", ANN)) == []
    assert ref.tops["3S"] == "col:Ann:4" and ref.loose == {}
    out = feed(ref, card(4.0, "left", "3S", ANN)) + finish(ref)
    assert [o["card"] for o in verdicts(out, "illegal_play")] == ["3S"]


@pytest.mark.parametrize("announce, voice", [("errors", False), ("all", True)])
def test_sp_8_legal_plays_are_a_sound_unless_announce_all(announce: str, voice: bool) -> None:
    """SP-8: ``legal_play`` is silent (a short sound) by default, spoken with ``announce=all``; errors always."""
    ref = opened(announce=announce)
    out = feed(ref, card(2.0, "left", "6S", ANN), card(2.5, "right", "3S", ANN)) + finish(ref)
    legal, illegal = verdicts(out)
    assert (legal["kind"], legal.get("voice", True)) == ("legal_play", voice)
    assert (illegal["kind"], illegal.get("voice", True)) == ("illegal_play", True)


def test_sp_9_two_cards_within_the_tie_window_are_unresolved_and_the_top_seen_stands() -> None:
    """SP-9 (ST-7; seed: 實體遊玩若無法辨識先後 … 不靠拍打力氣決定): 6 and 8 on the 7, 10 ms apart: either
    order makes a different card legal, so neither is judged; both stay; the card logged last is the top."""
    ref = opened()
    out = feed(ref, card(2.0, "left", "6S", ANN), card(2.01, "left", "8H", BOB)) + finish(ref)
    assert [(o["kind"], o["rule"], o["tied"], o["players"], o["say"]) for o in verdicts(out)] == [
        ("unresolved_tie", "SP-9", ["6S", "8H"], [ANN, BOB],
         "Too close to call on the left pile: the eight on top stands")]
    assert ref.top["left"] == "8H" and ref.size["left"] == 3 and ref.held == {ANN: 14, BOB: 14}
    out = feed(ref, card(3.0, "left", "8S", ANN)) + finish(ref)
    assert [(o["kind"], o["on"]) for o in verdicts(out)] == [("illegal_play", "8H")]


def test_sp_9_log_order_decides_which_tied_card_is_seen_on_top() -> None:
    """SP-9: the camera logged Bob's 8 first and Ann's 6 last (times within the window): the 6 stands."""
    ref = opened()
    feed(ref, card(2.01, "left", "8H", BOB), card(2.0, "left", "6S", ANN))
    assert kinds(finish(ref)) == [("unresolved_tie", "SP-9")] and ref.top["left"] == "6S"


def test_sp_9_a_tie_every_order_agrees_on_is_ruled() -> None:
    """SP-9 with TM-3: the 2 fits neither the 7 nor the 6, so the order does not matter: no tie to report."""
    out = run(HEADER, *opening(), card(2.0, "left", "6S", ANN), card(2.01, "left", "2H", BOB))
    assert [(o["kind"], o["card"]) for o in verdicts(out)] == [("legal_play", "6S"), ("illegal_play", "2H")]


def test_sp_9_a_partly_decided_tie() -> None:
    """SP-9: the 6 is legal in every order; the 5 only if it came second: 6 legal, the 5 stands unjudged."""
    out = run(HEADER, *opening(), card(2.0, "left", "6S", ANN), card(2.01, "left", "5H", BOB))
    v = verdicts(out)
    assert [(o["kind"], o.get("card")) for o in v] == [("legal_play", "6S"), ("unresolved_tie", None)]
    assert v[1]["tied"] == ["5H"] and v[1]["cards"] == 1


def test_sp_10_flips_without_source_are_the_first_cards_and_never_judged() -> None:
    """SP-10: without ``source``, the first card on each pile at the start is the flip (left: the first
    player's); a card without ``source`` that is no column top, with no flip owed, is impossible."""
    ref = new()
    assert feed(ref, *deal_lines(0.0, ANN_TOPS, BOB_TOPS), card(1.0, "left", "7C"), card(1.01, "right", "QC")) == []
    assert ref.spit == {ANN: 10, BOB: 10} and ref.top == {"left": "7C", "right": "QC"}
    assert_impossible(ref, card(1.5, "left", "9D"), "ST-2")
    assert_impossible(ref, card(1.6, "left", "9D", source="side"), "SP-10")
    assert_impossible(ref, card(1.7, "left", "6S", source="spit"), "SP-10")  # a column top is no spit card


# ----------------------------------------------------------------------------- TM / G rules
def test_tm_1_the_contact_time_decides_not_the_log_order() -> None:
    """TM-1: Bob's slap is logged first but Ann's hand touched the right pile 50 ms earlier."""
    ref, t, _ = round_one_cleared_by_ann()
    out = feed(ref, slap(t + 0.45, "right", BOB), slap(t + 0.40, "right", ANN)) + finish(ref)
    assert [o["piles"] for o in verdicts(out, "effect")] == [{ANN: "right", BOB: "left"}]


def test_tm_2_a_slap_sooner_than_100_ms_after_the_round_ended_is_marked_anticipated() -> None:
    """TM-2: Ann's last card landed at ``t - 0.5``; her hand hits 60 ms later: she still takes the pile, and the
    audit gets a silent ``anticipated`` mark."""
    ref, t, _ = round_one_cleared_by_ann()
    out = feed(ref, slap(t - 0.44, "right", ANN), slap(t + 0.3, "right", BOB))
    e = verdicts(out, "effect")[0]
    assert e["piles"] == {ANN: "right", BOB: "left"} and e["anticipated"] is True
    mark = verdicts(out, "anticipated")
    assert [(o["rule"], o["player"], o["voice"]) for o in mark] == [("TM-2", ANN, False)]
    assert mark[0]["reaction_ms"] == pytest.approx(60, abs=0.5)


def test_tm_3_slaps_within_the_tie_window_are_unresolved_and_slapped_again() -> None:
    """TM-3: two hands on one pile 10 ms apart cannot be ordered: ``unresolved_tie``, then they slap again."""
    ref, t, _ = round_one_cleared_by_ann()
    out = feed(ref, slap(t + 0.40, "right", ANN), slap(t + 0.41, "right", BOB), slap(t + 1.2, "right", BOB),
               slap(t + 1.3, "right", ANN)) + finish(ref)
    assert kinds(out)[-2:] == [("unresolved_tie", "TM-3"), ("effect", "ST-5")]
    assert verdicts(out, "unresolved_tie")[0]["players"] == [ANN, BOB]
    assert verdicts(out, "effect")[0]["piles"] == {BOB: "right", ANN: "left"}


@pytest.mark.parametrize("window_ms, t_err, tied", [(20, 0.0, False), (50, 0.0, True), (20, 0.02, True)])
def test_tm_3_the_tie_window_and_t_err(window_ms: int, t_err: float, tied: bool) -> None:
    """TM-3: 30 ms apart is an order with the default window; not with a 50 ms window or 20 ms ``t_err``."""
    ref = opened(tie_window_ms=window_ms)
    out = feed(ref, card(2.0, "left", "6S", ANN, t_err=t_err), card(2.03, "left", "8H", BOB, t_err=t_err))
    got = [o["kind"] for o in verdicts(out + finish(ref))]
    assert got == (["unresolved_tie"] if tied else ["legal_play", "illegal_play"])


def test_g_2_verdicts_at_one_instant_come_in_causal_order() -> None:
    """G-2: a stuck line closes the open race first: the play's verdict comes before the ruling on the claim."""
    ref = new()
    feed(ref, *opening(LOW_ANN, ["2H", "3H", "4H", "2C", "9H"], "8C", "JC"), stuck(1.5, ANN))
    out = feed(ref, card(2.0, "left", "9H", BOB), stuck(2.01, BOB))
    assert kinds(out) == [("legal_play", "ST-2"), ("not_stuck", "ST-4")]


def test_g_3_a_late_slap_after_the_piles_are_taken_gets_no_verdict() -> None:
    """G-3: Bob's hand arrives after Ann already won the right pile: neither a verdict nor an anomaly."""
    ref, t, _ = round_one_cleared_by_ann()
    out = feed(ref, slap(t + 0.4, "right", ANN), slap(t + 0.9, "right", BOB), slap(t + 1.0, "left", BOB))
    assert anomalies(out) == [] and [o["kind"] for o in verdicts(out)][-1] == "effect"
    assert anomalies(feed(ref, card(t + 2, "col:Ann:1", "9H"), slap(t + 3, "left", BOB)))  # a new round: no


# ----------------------------------------------------------------------------- impossible lines
@pytest.mark.parametrize("line, rule", [
    (card(2.0, "col:Bob:1", "9C", ANN), "ST-3"),  # Ann's card on Bob's column
    (card(2.0, "col:Ann:5", "9C", source="spit"), "SP-10"),
    (card(2.0, "right", "7C", BOB), "ST-1"),  # a card seen twice
    (slap(2.0, "left", ANN), "ST-5"),  # no round has ended
    (slap(2.0, "col:Ann:1", ANN), "ST-5"),
    (remove(2.0, "left", "6S"), "SP-8"),
    (card(2.0, "col:Ann:2", "9C", BOB), "ST-3"),
])
def test_impossible_lines_are_anomalies_and_change_nothing(line: dict[str, Any], rule: str) -> None:
    """ST-1..ST-5, SP-8, SP-10: lines that cannot happen are kept as anomalies, never spoken, and the state
    is exactly as before (``ref.copy()`` compared with ``==``)."""
    assert_impossible(opened(), line, rule)


# ----------------------------------------------------------------------------- the simulator
def test_simulated_games_show_every_verdict_kind() -> None:
    """The random players make every verdict kind of the game occur (ST-2..ST-6, SP-8, SP-9, TM-3)."""
    seen: Counter[tuple[str, str]] = Counter()
    for seed in range(40):
        header, events = simulate("spit", 2, seed)
        _, out = replay_to_end(header, events)
        assert not [o for o in out if o.to_dict()["type"] == "anomaly"], seed
        seen.update((o.to_dict()["kind"], o.to_dict()["rule"]) for o in out)
    assert {("legal_play", "ST-2"), ("legal_play", "ST-7"), ("illegal_play", "ST-2"), ("unresolved_tie", "SP-9"),
            ("unresolved_tie", "TM-3"), ("both_stuck", "ST-4"), ("not_stuck", "ST-4"), ("round_end", "ST-5"),
            ("effect", "ST-5"), ("effect", "ST-6"), ("win", "ST-6")} <= set(seen)
    assert seen[("win", "ST-6")] == 40


@pytest.mark.parametrize("variants", [{"ace_wraps": False}, {"announce": "all"}, {"tie_window_ms": 50},
                                      {"tie_window_ms": 0}])
def test_simulated_games_with_variants_referee_cleanly(variants: dict[str, Any]) -> None:
    """ST-7 / SP-8 / TM-3 variants: the simulator follows them and its logs referee without anomalies."""
    for seed in range(8):
        header, events = simulate("spit", 2, seed, variants)
        ref, out = replay_to_end(header, events)
        assert [o.to_dict() for o in out if o.to_dict()["type"] == "anomaly"] == [], (variants, seed)
        assert ref.outcome is not None and [o.to_dict()["kind"] for o in out].count("win") == 1
        if variants.get("announce") == "all":
            assert all(o.voice for o in out if getattr(o, "kind", "") == "legal_play")
