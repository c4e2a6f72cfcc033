"""Lines that arrive late (``engine.timeline``): ruled in their place by time (SP-3: legality is judged against the
top at the moment the card lands; SP-8: an illegal card is taken back), what was said not said twice."""

from __future__ import annotations

import random
from typing import Any

import pytest

from engine.events import Event, parse_event, parse_header
from engine.games import new_referee
from engine.referee import Referee
from engine.replay import replay_to_end
from engine.sim import simulate
from engine.timeline import Timeline

H = {"type": "game", "game": "speed", "players": ["Alice", "Bob"]}


def line(d: dict[str, Any]) -> Event:
    return parse_event(d, 2)


def card(t: float, zone: str, c: str, player: str | None = None, **kw: Any) -> Event:
    return line({"t": t, "type": "card", "zone": zone, "card": c, **({"player": player} if player else {}), **kw})


def speed() -> Referee:
    ref = new_referee(parse_header(H))
    for ev in (card(0.5, "left", "4C", source="side"), card(0.5, "right", "QS", source="side")):
        ref.push(ev)
    return ref


def said(outs: list) -> list[tuple[str, str | None, str | None]]:
    return [(o.kind, o.extra.get("card"), o.extra.get("on")) for o in outs if hasattr(o, "kind")]


def anomalies(outs: list) -> list[str]:
    return [o.reason for o in outs if not hasattr(o, "kind")]


# live, as the camera confirms them: Alice's three is seen first; Bob's five, laid 0.1 s before it and covered as it
# landed, shows when Alice takes the three back
THREE = card(8.512, "left", "3D", "Alice")
FIVE = card(8.405, "left", "5D", "Bob")
TAKEN = line({"t": 9.0, "type": "remove", "zone": "left", "card": "3D", "player": "Alice"})
SIX = card(10.0, "left", "6S", "Alice")


def test_a_card_found_under_the_top_is_ruled_where_it_landed_and_the_top_against_it() -> None:
    """SP-3, SP-8: the five landed on the four (legal) and the three on the five (illegal: taken back, no anomaly);
    the six that follows is judged against the five. The three's first ruling was said and stays said."""
    tl = Timeline(speed())
    first = tl.push(THREE) + tl.advance(8.7)
    assert said(first) == [("legal_play", "3D", "4C")]
    late = tl.push(FIVE) + tl.advance(8.8)
    assert said(late) == [("legal_play", "5D", "4C"), ("illegal_play", "3D", "5D")]
    assert tl.rewinds == 1
    rest = tl.push(TAKEN) + tl.push(SIX) + tl.advance(10.2)
    assert anomalies(rest) == []
    assert said(rest) == [("legal_play", "6S", "5D")]
    assert tl.referee.piles["left"][-1] == "6S"


def test_without_the_timeline_the_late_card_is_judged_against_the_top_and_the_pile_goes_wrong() -> None:
    """What the live loop said before: the five "on the three", the take-back of a legal card refused, and every
    later play judged against a three that is back in Alice's hand."""
    ref = speed()
    out = ref.push(THREE) + ref.advance(8.7) + ref.push(FIVE) + ref.advance(8.8) + ref.push(TAKEN) + ref.push(SIX)
    out += ref.advance(10.2)
    assert ("illegal_play", "5D", "3D") in said(out)
    assert any("was a legal play" in a for a in anomalies(out))
    assert ("illegal_play", "6S", "3D") in said(out)
    assert ("legal_play", "6S", "5D") not in said(out)


def test_keep_zero_rules_every_line_as_it_comes() -> None:
    tl = Timeline(speed(), keep_s=0.0)
    out = tl.push(THREE) + tl.advance(8.7) + tl.push(FIVE) + tl.advance(8.8)
    assert ("illegal_play", "5D", "3D") in said(out) and tl.rewinds == 0


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_lines_in_time_order_are_ruled_as_a_plain_referee_rules_them(seed: int) -> None:
    """G-2: with nothing late, the timeline is the referee (the same outputs, in the same order)."""
    header, events = simulate("speed", 2, seed)
    _, plain = replay_to_end(header, events)
    tl = Timeline(new_referee(header))
    out = [o for ev in events for o in tl.push(ev)] + tl.finish()
    assert [o.to_dict() for o in out] == [o.to_dict() for o in plain]
    assert tl.rewinds == 0


#: what a game's state is, to compare (the fields its ``copy`` copies: the rest is fixed or derived)
STATE = {"speed": ("piles", "held", "side", "where", "outcome"), "spit": ("down", "up", "tops", "spit", "held", "top",
                                                                          "size", "outcome"),
         "cheat": ("hands", "pile", "turn", "rank_i", "batch_player", "batch_count", "batch_claimed", "outcome")}


@pytest.mark.parametrize(("game", "seed"), [("speed", 4), ("speed", 5), ("speed", 8), ("spit", 4), ("spit", 5),
                                           ("cheat", 4), ("cheat", 5)])
def test_lines_confirmed_late_end_in_the_state_of_the_lines_in_time_order(game: str, seed: int) -> None:
    """SP-3, ST-7, CH-2: card lines handed over up to 0.3 s after later ones (as the camera confirms them), and a
    Cheat batch's ``facedown`` line up to a second late (after its claim), leave the game as the log in time order
    does."""
    header, events = simulate(game, 2, seed)
    rng = random.Random(seed)
    late = {"card": 0.3, "facedown": 1.0}
    arrival = sorted(range(len(events)), key=lambda i: events[i].t + (rng.uniform(0, late[events[i].type])
                                                                        if events[i].type in late else 0.0))
    assert arrival != sorted(arrival)  # (some lines do come late)
    plain, _ = replay_to_end(header, events)
    tl = Timeline(new_referee(header))
    for i in arrival:
        tl.push(events[i])
    tl.finish()
    assert tl.rewinds > 0
    assert [getattr(tl.referee, f) for f in STATE[game]] == [getattr(plain, f) for f in STATE[game]]


def test_replay_rules_a_log_with_a_late_card_as_the_live_loop_did() -> None:
    """SP-3, SP-8: a live log holds the five after the three it lay under (the order the camera found them);
    ``replay`` rules it in its place, so the take-back is no anomaly and the six lies on the five."""
    start = [card(0.5, "left", "4C", source="side"), card(0.5, "right", "QS", source="side")]
    _, out = replay_to_end(parse_header(H), [*start, THREE, FIVE, TAKEN, SIX])
    assert anomalies(out) == []
    assert ("illegal_play", "3D", "5D") in said(out) and ("legal_play", "6S", "5D") in said(out)
    assert ("legal_play", "5D", "4C") in said(out)
