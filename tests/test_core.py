"""The core pieces every game shares: card notation, log lines, variants, races (TM-3)."""

from __future__ import annotations

import pytest

from engine.cards import adjacent, card_name, deal_counts, deck, is_card, rank, suit, value
from engine.events import GameHeader, LogFormatError, parse_event, parse_header, parse_line
from engine.race import Entry, Race, order
from engine.referee import GameSetupError, resolve_variants


def test_card_notation() -> None:
    assert all(is_card(c) for c in ("10H", "JS", "AD", "RJ", "BJ"))
    assert not any(is_card(c) for c in ("1H", "10h", "T H", "JJ", "", None, 10))
    assert (rank("10H"), suit("10H"), value("10H")) == ("10", "H", 10)
    assert (rank("RJ"), suit("RJ"), value("RJ")) == (None, None, None)
    assert card_name("QS") == "queen of spades"
    assert len(deck()) == 52 and len(set(deck(jokers=True))) == 54


def test_adjacency_with_and_without_ace_wrap() -> None:
    """SP-2: one rank up or down; A touches K only with ace_wraps."""
    assert adjacent("7H", "8S") and adjacent("7H", "6C")
    assert not adjacent("7H", "7S") and not adjacent("7H", "9S")
    assert adjacent("AS", "KD") and not adjacent("AS", "KD", ace_wraps=False)
    assert adjacent("AS", "2D", ace_wraps=False)


def test_deal_counts_uneven_from_dealers_left() -> None:
    """SN-1 / CH-1: 52 dealt one at a time; three players get 18, 17, 17 from the dealer's left."""
    assert deal_counts(52, ["A", "B", "C"], 0) == {"A": 18, "B": 17, "C": 17}
    assert deal_counts(52, ["A", "B", "C"], 2) == {"C": 18, "A": 17, "B": 17}


def test_header_first_player_is_dealers_left() -> None:
    h = parse_header({"type": "game", "game": "slapjack", "players": ["A", "B", "C"], "dealer": "C"})
    assert isinstance(h, GameHeader) and h.first_player_index == 0
    h2 = parse_header({"type": "game", "game": "slapjack", "players": ["A", "B", "C"], "dealer": "A"})
    assert h2.first_player_index == 1


@pytest.mark.parametrize("obj, message", [
    ({"type": "game", "game": "poker", "players": ["A", "B"]}, "valid games: snap, slapjack"),
    ({"type": "game", "game": "snap", "players": ["A"]}, "at least two"),
    ({"type": "game", "game": "snap", "players": ["A", "A"]}, "repeats"),
    ({"type": "game", "game": "snap", "players": ["A", "B"], "dealer": "Z"}, "dealer"),
])
def test_bad_headers_are_refused_with_the_reason(obj: dict, message: str) -> None:
    with pytest.raises(LogFormatError, match=message):
        parse_header(obj)


@pytest.mark.parametrize("obj, message", [
    ({"t": 1, "type": "card", "zone": "center"}, "needs field 'card'"),
    ({"t": 1, "type": "card", "zone": "center", "card": "1H"}, "not a card"),
    ({"t": 1, "type": "card", "zone": "middle", "card": "AH"}, "unknown zone"),
    ({"t": "x", "type": "slap", "zone": "center", "player": "A"}, "field 't'"),
    ({"t": float("nan"), "type": "slap", "zone": "center", "player": "A"}, "field 't'"),
    ({"t": 1, "type": "facedown", "zone": "center", "count": -2}, "count"),
    ({"t": 1, "type": "call", "player": "A", "word": "bingo"}, "call word"),
    ({"t": 1, "type": "wave", "player": "A"}, "unknown line type"),
    ({"t": 1, "type": "slap", "zone": "center", "player": "A", "t_err": -1}, "t_err"),
])
def test_malformed_events_say_what_is_wrong(obj: dict, message: str) -> None:
    with pytest.raises(LogFormatError, match=message):
        parse_event(obj)


def test_event_round_trip_keeps_unknown_fields() -> None:
    obj = {"t": 2.5, "type": "slap", "zone": "center", "player": "B", "t_err": 0.004, "evidence": {"frame": 75},
           "camera": "left"}
    ev = parse_event(obj)
    assert ev.to_dict() == obj


def test_parse_line_skips_blank_and_output_lines() -> None:
    assert parse_line("   ") is None
    assert parse_line('{"t":1,"type":"verdict","kind":"win","rule":"SJ-7","say":"x"}') is None
    with pytest.raises(LogFormatError, match="not JSON"):
        parse_line('{"t":1,"type":')


def test_variants_defaults_values_and_refusals() -> None:
    spec = {"false_slap_penalty": ("give_to_turner", "burn_to_pile"), "ace_wraps": (True, False)}
    v = resolve_variants("g", spec, {"ace_wraps": "false", "tie_window_ms": 30})
    assert v["false_slap_penalty"] == "give_to_turner" and v["ace_wraps"] is False and v["tie_window_ms"] == 30
    with pytest.raises(GameSetupError, match="did you mean false_slap_penalty"):
        resolve_variants("g", spec, {"false_slap_penalti": "x"})
    with pytest.raises(GameSetupError, match="choose one of give_to_turner, burn_to_pile"):
        resolve_variants("g", spec, {"false_slap_penalty": "shout"})
    with pytest.raises(GameSetupError, match="tie_window_ms"):
        resolve_variants("g", spec, {"tie_window_ms": -5})


def test_tm_3_ordering_window_and_t_err() -> None:
    """TM-3: ordered only when apart by more than max(window, sum of t_err); exactly 20 ms is a tie."""
    a, b = Entry(10.000, 0.0, "A", 0), Entry(10.020, 0.0, "B", 1)
    assert order([b, a], 0.020).winner is None
    assert [e.player for e in order([b, a], 0.020).tied] == ["A", "B"]
    c = Entry(10.021, 0.0, "C", 2)
    assert order([c, a], 0.020).winner == a
    # 30 ms apart, but each time is uncertain by 20 ms: no order
    d, e = Entry(10.000, 0.020, "D", 0), Entry(10.030, 0.020, "E", 1)
    assert order([e, d], 0.020).winner is None
    # log order breaks an exact equality only for ranking, never for winning
    assert order([Entry(1.0, 0, "X", 5), Entry(1.0, 0, "Y", 3)], 0.02).ranked[0].player == "Y"


def test_tm_3_race_closes_after_window() -> None:
    race = Race("center", [Entry(5.0, 0.0, "A", 0)])
    assert not race.is_due(5.015, 0.020)
    assert race.is_due(5.021, 0.020)
    race.add(Entry(5.01, 0.05, "B", 1))
    assert not race.is_due(5.021, 0.020)  # B's uncertainty keeps it open
    assert race.is_due(5.051, 0.020)


@pytest.mark.parametrize("field, value", [
    ("zone", ["center"]), ("card", ["AS"]), ("card", {"r": 1}), ("player", 3), ("count", True), ("count", 1.5),
    ("cards", ["AS", ["KD"]]), ("word", 5), ("rank", ["A"]), ("source", {}), ("t_err", "0.1"), ("conf", True),
])
def test_wrong_json_types_are_format_errors_not_crashes(field: str, value: object) -> None:
    """A log typed by hand can hold any JSON value in any field: each is reported, none raises otherwise."""
    base = {"t": 1, "type": "claim", "player": "A", "count": 1, "rank": "A", "zone": "center", "card": "AS"}
    with pytest.raises(LogFormatError):
        parse_event({**base, field: value})


def test_check_says_why_without_changing_the_state() -> None:
    """Legality apart from application (python-chess style): ``check`` answers, ``push`` applies."""
    from engine.games import new_referee

    ref = new_referee(parse_header({"type": "game", "game": "slapjack", "players": ["A", "B"], "dealer": "B"}))
    before = ref.copy()
    ok = parse_event({"t": 1.0, "type": "card", "zone": "center", "card": "5H", "player": "A"})
    empty_slap = parse_event({"t": 1.0, "type": "slap", "zone": "center", "player": "B"})
    assert ref.check(ok) is None
    assert ref.check(empty_slap) is not None
    assert ref.check(parse_event({"t": 1.0, "type": "card", "zone": "pot", "card": "5H"})) is not None
    assert ref == before
    ref.push(ok)
    assert ref.check(ok) is not None  # the same card cannot be turned twice
