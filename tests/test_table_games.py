"""Speed, Spit, Cheat and Pai Jie at the table (issue 6): what the renderer puts on the table for each log line,
and what the vision makes of it: races on one pile, cards taken back (SP-8), face-down batches counted from
their backs and the batch turned up (CH-2, CH-4), and what was said, merged into the audit's log."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from calibration.layout import Zone
from engine.events import Event, GameHeader
from models.classes import FACES
from models.detector import Detections
from models.gamevideo import FILMABLE, TruthReader, make_script, script_from_events
from tablecam.audit import AuditError, read_said
from vision.audio import Onset
from vision.batches import BatchWatcher
from vision.tracking import STILL_FRAMES, CardSeen, PileTracker, RemoveSeen
from vision.watcher import COLUMN_RETRY, UNBOXED_MOST, TableWatcher

ZONE = Zone("left", np.array([[100.0, 100.0], [300.0, 100.0], [300.0, 300.0], [100.0, 300.0]]))
CROP = (60, 60, 380, 380)


def dets(*items: tuple[str, tuple[float, float, float, float]]) -> Detections:
    if not items:
        return Detections()
    names, boxes = zip(*items, strict=True)
    n = len(items)
    return Detections(np.array(boxes, np.float32), np.full(n, 0.9, np.float32), np.zeros(n, np.int64),
                      np.array(names))


def grey(value: int) -> np.ndarray:
    return np.full((480, 640, 3), value, np.uint8)


def test_every_game_can_be_filmed() -> None:
    assert set(FILMABLE) == {"slapjack", "snap", "speed", "spit", "cheat", "paijie"}


@pytest.mark.parametrize(("game", "players"), [("speed", 2), ("spit", 2), ("paijie", 3)])
def test_every_card_line_lands_its_card_on_its_zone_when_it_is_logged(game: str, players: int) -> None:
    """EVENTS.md ``card``: the card becomes the visible top of its zone at ``t``; ``remove`` takes it off."""
    sc = make_script(game, players, 3, 15.0)
    reader = TruthReader(sc)
    cards = [e for e in sc.events if e.type == "card" and e.zone in sc.piles]
    assert cards
    for e in cards:
        on = reader.table(e.t + 1e-6)[e.zone]
        assert on and on[-1].code == e.card, (e, [c.code for c in on])
    for e in (e for e in sc.events if e.type == "remove" and e.zone in sc.piles):
        assert e.card not in [c.code for c in reader.table(e.t + 1e-6)[e.zone]], e


def test_spit_columns_hold_their_face_down_cards_under_the_dealt_top() -> None:
    """ST-1: column k is dealt k cards, the top one face up; the rest show as backs when the top is played."""
    sc = make_script("spit", 2, 1, 3.0)
    reader = TruthReader(sc)
    deal = {e.zone: e.card for e in sc.events if e.type == "card" and e.source == "deal"}
    table = reader.table(2.0)
    heights = [len(table[f"col:A:{k}"]) for k in range(1, 6)]
    assert heights == [1, 2, 3, 4, 5]
    assert all(table[z][-1].code == c and all(x.code == "back" for x in table[z][:-1]) for z, c in deal.items())


def test_cheat_batches_land_as_backs_and_a_reveal_turns_them_up() -> None:
    """CH-2: a batch of ``count`` cards face down; CH-4: the doubted batch turned face up where it lay."""
    header = GameHeader(game="cheat", players=("A", "B", "C"), dealer="C")
    events = [Event(t=1.0, type="facedown", zone="center", player="A", count=3),
              Event(t=1.1, type="claim", player="A", count=3, rank="A"),
              Event(t=2.5, type="facedown", zone="center", player="B", count=2),
              Event(t=2.6, type="claim", player="B", count=2, rank="2"),
              Event(t=3.0, type="call", player="C", word="doubt"),
              Event(t=3.5, type="reveal", zone="center", cards=("2H", "9C"))]
    sc = script_from_events(header, events, 5)
    reader = TruthReader(sc)
    seen = [c.code for c in reader.visible(1.5)]
    assert seen == ["back"] * 3
    assert sorted(c.code for c in reader.visible(3.7)) == ["2H", "9C"]


def test_a_card_under_another_does_not_show_and_a_row_shows_every_index() -> None:
    """The stand-in reader sees what a camera would: a pile's buried cards are hidden; a Pai Jie suit row's cards
    overlap but each shows its index (PJ-3 rows)."""
    sc = make_script("paijie", 3, 1, 20.0)
    reader = TruthReader(sc)
    t = sc.duration - 1.0
    table = reader.table(t)
    visible = {c.code for c in reader.visible(t)}
    rows = [c.code for z, cs in table.items() if z.startswith("row:") for c in cs]
    assert rows and set(rows) <= visible


def test_two_cards_slammed_on_one_pile_are_two_cards_in_the_order_they_showed() -> None:
    """SP-9 / SP-3: a race puts two cards on a pile within a frame or two; both are cards, dated apart."""
    tr = PileTracker(ZONE, CROP, confirm=2, every=1, races=True)
    a, b = ("5C", (150, 150, 230, 260)), ("7C", (158, 146, 238, 256))
    out = []
    for i, (frame, d) in enumerate([(grey(40), dets()), (grey(120), dets(a)), (grey(200), dets(a, b)),
                                    (grey(200), dets(a, b)), (grey(200), dets(a, b))]):
        tr.remember(i, i / 30, frame)
        got = tr.update(i, i / 30, d)
        out += [*tr.also, *([got] if got else [])]
        tr.also.clear()
    assert [c.card for c in out] == ["5C", "7C"]
    assert out[0].t < out[1].t


def test_without_races_a_second_reading_at_the_same_time_is_a_misread() -> None:
    """Slapjack and Snap keep one card per look: two codes on one card is a reader's mistake, not two cards."""
    tr = PileTracker(ZONE, CROP, confirm=2, every=1)
    a, b = ("5H", (150, 150, 230, 260)), ("5D", (151, 150, 231, 260))
    out = []
    for i, d in enumerate([dets(), dets(a), dets(a, b), dets(a, b), dets(b), dets(b)]):
        tr.remember(i, i / 30, grey(60 + (i > 0) * 60))
        got = tr.update(i, i / 30, d)
        out += [got.card] if got else []
    assert out == ["5H"]


def test_a_card_taken_back_is_a_remove_and_may_be_played_again() -> None:
    """SP-8: an illegal card goes back into the hand: the card under it shows again."""
    tr = PileTracker(ZONE, CROP, confirm=2, every=1, removals=True)
    under, top = ("9S", (150, 150, 230, 260)), ("4H", (160, 150, 240, 260))
    seq = [dets(under)] * 3 + [dets(under, top)] * 3 + [dets(under)] * 4
    for i, d in enumerate(seq):
        tr.remember(i, i / 30, grey(40 + 60 * (i // 3)))
        tr.update(i, i / 30, d)
    assert [(r.card, r.zone) for r in tr.removed] == [("4H", "left")]
    assert tr.removed[0].t == pytest.approx(6 / 30)
    assert tr.top == "9S" and "4H" not in tr.history


def _looks(tr: PileTracker, seq: list[Detections], shades: list[int]) -> None:
    for i, (d, shade) in enumerate(zip(seq, shades, strict=True)):
        tr.remember(i, i / 30, grey(shade))
        tr.update(i, i / 30, d)


def test_a_top_hidden_by_the_hand_laying_the_next_card_was_not_taken_back() -> None:
    """SP-8: the hand laying the next card hides the top for a few frames before that card lands (rendered Spit 2p s5
    6.83 s: 7H's hand over 6C for 0.4 s; s11 6.17 s: 10S's over 8D): the top was taken for taken back, and the
    referee told of a remove that never was. A top went before a card landed only where a card under it showed since
    it was last seen; else the new card lies on it."""
    tr = PileTracker(ZONE, CROP, confirm=2, every=1, removals=True, races=True)
    under, top, new = ("9S", (150, 150, 230, 260)), ("4H", (160, 150, 240, 260)), ("5C", (170, 160, 250, 270))
    hand = ("hand", (100, 100, 300, 300))
    _looks(tr, [dets(under)] * 3 + [dets(under, top)] * 3 + [dets(hand)] * 8 + [dets(new)] * 4,
           [40] * 3 + [100] * 3 + [160] * 8 + [220] * 4)
    assert tr.removed == [] and tr.stack == ["9S", "4H", "5C"]
    # (the card under it showed: the top was taken back first, by the hand that then laid the new card)
    tr = PileTracker(ZONE, CROP, confirm=2, every=1, removals=True, races=True)
    _looks(tr, [dets(under)] * 3 + [dets(under, top)] * 3 + [dets(hand)] * 3 + [dets(hand, under)] + [dets(hand)] * 4
           + [dets(new)] * 4, [40] * 3 + [100] * 3 + [160] * 8 + [220] * 4)
    assert [r.card for r in tr.removed] == ["4H"] and tr.stack == ["9S", "5C"]


def test_a_top_taken_back_under_a_hand_boxed_as_a_card_back_went_when_a_look_first_missed_it() -> None:
    """SP-8 with EVENTS.md ``remove`` (when the card left): a hand taking the top back may be boxed as a card back over
    the pile (rendered Spit s11 7.07 s: 10S), which otherwise says a card is on its way there and the top is only
    hidden; once the card under it shows alone, the top went at the first look that missed it, not later."""
    tr = PileTracker(ZONE, CROP, confirm=2, every=1, removals=True)
    under, top, back = ("9S", (150, 150, 230, 260)), ("4H", (160, 150, 240, 260)), ("back", (140, 140, 260, 280))
    _looks(tr, [dets(under)] * 3 + [dets(under, top)] * 3 + [dets(back)] * 2 + [dets(under)] * 5,
           [40] * 3 + [100] * 3 + [160] * 2 + [40] * 5)
    assert [r.card for r in tr.removed] == ["4H"]
    assert tr.removed[0].t == pytest.approx(6 / 30)


def _table(*cards: tuple[tuple[int, int, int, int], list[tuple[int, int]]]) -> np.ndarray:
    """A green cloth with white cards (box, black pips at frame pixels), each over the ones before."""
    img = np.full((480, 640, 3), (40, 110, 60), np.uint8)
    for (x0, y0, x1, y1), pips in cards:
        img[y0:y1, x0:x1] = 235
        for x, y in pips:
            cv2.circle(img, (x, y), 6, (20, 20, 20), -1)
    return img


def test_a_card_under_the_top_laid_anew_over_it_was_taken_back_unseen_and_played_again() -> None:
    """SP-8 (a card taken back may be played again): rendered Speed s12 took 9S back at 9.14 s under the hand that
    laid 8S, and played it again at 9.85 s; read where 8S was not, 9S was taken for the card under 8S uncovered, and
    8S for taken back. A card under the top that shows no longer as it lay (its middle's pips elsewhere by more than a
    pixel or two) was laid anew: it left the pile when last seen there, and is a new card on the top. The same card
    uncovered, as it lay, means the top was taken back."""
    nine = ((150, 150, 230, 260), [(170, 175), (210, 175), (190, 205), (170, 235), (210, 235)])
    eight = ((165, 160, 245, 270), [(185, 185), (225, 185), (185, 245), (225, 245)])
    again = ((156, 157, 236, 267), [(x + 6, y + 7) for x, y in nine[1]])
    read = {"9S": ("9S", nine[0]), "8S": ("8S", eight[0]), "9S again": ("9S", again[0])}

    def play(last: tuple, seen: str) -> PileTracker:
        tr = PileTracker(ZONE, CROP, confirm=2, every=1, removals=True, races=True)
        frames = [(_table(nine), dets(read["9S"]))] * 4 + [(_table(nine, eight), dets(read["8S"]))] * 4 \
            + [(_table(*last), dets(read[seen]))] * 5
        for i, (img, d) in enumerate(frames):
            tr.remember(i, i / 30, img)
            tr.update(i, i / 30, d)
        return tr

    tr = play((nine, eight, again), "9S again")
    assert [(r.card, r.t) for r in tr.removed] == [("9S", pytest.approx(3 / 30))]
    assert tr.stack == ["8S", "9S"]
    tr = play((nine,), "9S")
    assert [r.card for r in tr.removed] == ["8S"] and tr.stack == ["9S"]


def test_face_down_batches_are_counted_from_their_new_backs_and_a_reveal_names_its_cards() -> None:
    """CH-2: the count is the backs that were not there before; CH-4: the faces turned up are the reveal."""
    w = BatchWatcher(Zone("center", ZONE.polygon), CROP, confirm=2, every=1)
    first = [("back", (150 + 25 * k, 150, 220 + 25 * k, 250)) for k in range(3)]
    second = [("back", (140 + 25 * k, 225, 210 + 25 * k, 325)) for k in range(2)]
    turned = [("KD", (140, 160, 210, 260)), ("3S", (165, 160, 235, 260))]
    seq = ([dets()] * 2 + [dets(*first)] * 6 + [dets(("hand", (100, 100, 300, 300)))] +
           [dets(*first, *second)] * 6 + [dets(*first, *turned)] * 6)
    assert _batches(w, seq) == [("facedown", 3, ()), ("facedown", 2, ()), ("reveal", 2, ("3S", "KD"))]


def _batches(w: BatchWatcher, seq: list[Detections], moving: set[int] = frozenset(), row: int = 280
             ) -> list[tuple]:
    """Feeds ``w`` frames painted from ``seq`` (each card where its box is, in a shade of its own; later cards on
    top; in the frames of ``moving`` a stripe at ``row`` that shifts, as a hand's fingers do) and returns what it
    saw."""
    got = []
    for i, d in enumerate(seq):
        frame = grey(60)
        for k, (b, n) in enumerate(zip(d.xyxy.astype(int), d.class_name, strict=True)):
            frame[b[1]:b[3], b[0]:b[2]] = 100 + (sum(map(ord, n)) * 7 + int(b[0]) * 3 + int(b[1]) + 40 * k) % 150
        if i in moving:
            frame[row:row + 15, 100 + 6 * i:130 + 6 * i] = 230
        w.remember(i, i / 30, frame)
        seen = w.look(i, i / 30, d)
        if seen:
            got.append((seen.kind, seen.count, seen.cards))
    return got


def test_a_batch_still_being_laid_is_not_counted_before_the_pile_is_still() -> None:
    """CH-2: the detector may see the first back of a batch while the fingers that lay it (too little of a hand
    to be boxed) still move over it; that look is no batch of one: the batch is counted once it lies still."""
    w = BatchWatcher(Zone("center", ZONE.polygon), CROP, confirm=2, every=1)
    one = [("back", (150, 140, 220, 240))]
    two = [*one, ("back", (175, 140, 245, 240))]
    seq = [dets()] * 6 + [dets(*one)] * 6 + [dets(*two)] * 6
    assert _batches(w, seq, moving=set(range(6, 12)), row=225) == [("facedown", 2, ())]  # (over the back's foot)


def test_a_hand_coming_in_at_the_zones_edge_does_not_keep_the_last_batch_from_settling() -> None:
    """CH-2: the next player's hand coming in at the zone's far edge, clear of the backs lying on it, leaves them
    still: the batch is counted before the next covers it (rendered Cheat 2p s238: four cards laid 0.5 s before
    the next batch, never counted while the zone moved)."""
    w = BatchWatcher(Zone("center", ZONE.polygon), CROP, confirm=2, every=1)
    seq = [dets()] * 6 + [dets(("back", (150, 150, 220, 250)), ("back", (175, 150, 245, 250)))] * 8
    assert _batches(w, seq, moving=set(range(6, len(seq))), row=285) == [("facedown", 2, ())]


def test_arms_passing_beside_the_pile_do_not_keep_a_batch_from_settling() -> None:
    """CH-2: the crop around the pile is wider than the pile; an arm moving in its margin (to a player's own cards,
    across the table) is not a hand over the batch, and the batch is counted while it moves."""
    w = BatchWatcher(Zone("center", ZONE.polygon), CROP, confirm=2, every=1)
    seq = [dets()] * 6 + [dets(("back", (150, 150, 220, 250)))] * 8
    assert _batches(w, seq, moving=set(range(len(seq))), row=330) == [("facedown", 1, ())]


def _with_hand(d: Detections, conf: float) -> Detections:
    """``d`` and a hand box over the crop's left half at ``conf``."""
    hand = Detections(np.array([[60, 60, 200, 380]], np.float32), np.array([conf], np.float32), np.zeros(1, np.int64),
                      np.array(["hand"]))
    return Detections(np.concatenate([d.xyxy, hand.xyxy]), np.concatenate([d.confidence, hand.confidence]),
                      np.concatenate([d.class_id, hand.class_id]), np.concatenate([d.class_name, hand.class_name]))


@pytest.mark.parametrize(("conf", "moving", "want"), [
    (0.32, False, [("facedown", 1, ())]),  # the detector unsure, nothing moves under it: the cloth, not a hand
    (0.32, True, []),  # unsure, but something moves under it: a hand coming or going
    (0.9, False, []),  # sure: a hand, moving or not
])
def test_a_hand_the_detector_is_unsure_of_over_a_still_pile_does_not_hide_a_batch(conf: float, moving: bool,
                                                                                   want: list) -> None:
    """CH-2: a striped cloth beside a still pile is boxed as a hand at 0.31-0.33 for seconds (rendered Cheat s12), and
    two batches laid there went unseen; a hand the detector is unsure of is one only while something moves under it."""
    w = BatchWatcher(Zone("center", ZONE.polygon), CROP, confirm=2, every=1)
    back = ("back", (150, 150, 220, 250))
    seq = [dets()] * 6 + [_with_hand(dets(back), conf)] * 10
    assert _batches(w, seq, moving=set(range(6, 16)) if moving else set(), row=330) == want


def test_a_batch_turned_up_and_picked_up_at_once_is_still_a_reveal() -> None:
    """CH-4: the doubted batch may lie still for one look only before the loser's hand comes for the pile (rendered
    Cheat 2p s2: 0.33 s from the reveal to the take); the same faces seen in the look before settle the reveal."""
    w = BatchWatcher(Zone("center", ZONE.polygon), CROP, confirm=2, every=1)
    back, face = ("back", (150, 150, 220, 250)), ("KD", (150, 150, 220, 250))
    seq = [dets()] * 6 + [dets(back)] * 8 + [dets(face)] * 7 + [dets(("hand", (100, 100, 300, 300)))] * 4
    turning, taking = set(range(14, 17)), set(range(21, 25))  # the flip; then (frame 20 still) the hand comes
    assert _batches(w, seq, moving=turning | taking) == [("facedown", 1, ()), ("reveal", 1, ("KD",))]


def test_said_logs_take_only_what_no_camera_sees(tmp_path: Path) -> None:
    good = tmp_path / "said.jsonl"
    good.write_text('{"t":0,"type":"game","game":"cheat","players":["A","B","C"],"dealer":"C"}\n'
                    '{"t":1.2,"type":"claim","player":"A","count":2,"rank":"A"}\n'
                    '{"t":0.9,"type":"call","player":"B","word":"doubt"}\n')
    assert [e.type for e in read_said(good, "cheat", ["A", "B", "C"])] == ["call", "claim"]
    with pytest.raises(AuditError, match="not speed"):
        read_said(good, "speed", ["A", "B"])
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"t":0,"type":"game","game":"cheat","players":["A","B","C"],"dealer":"C"}\n'
                   '{"t":1.0,"type":"facedown","zone":"center","count":2}\n')
    with pytest.raises(AuditError, match=r"bad.jsonl:2: a 'facedown' line is the camera's"):
        read_said(bad, "cheat", ["A", "B", "C"])


def test_typed_calls_are_events_at_the_moment_they_are_typed() -> None:
    """What a scorer types while the game runs: the short forms and JSON lines; a bad line says why."""
    import io
    import time

    from tablecam.said import SaidError, TypedCalls, parse_typed

    players = ["Ann", "Bob", "Cy"]
    assert parse_typed("stuck Ann", 3.2, players).to_dict() == {"t": 3.2, "type": "stuck", "player": "Ann"}
    assert parse_typed("snap pot Cy", 1.0, players).word == "snap pot"
    claim = parse_typed("claim Bob 3 k", 2.0, players)
    assert (claim.type, claim.count, claim.rank) == ("claim", 3, "K")
    assert parse_typed('{"type":"draw","player":"Cy","count":2}', 5.0, players).t == 5.0
    assert parse_typed("   ", 1.0, players) is None
    for bad, why in [("stuck Dee", "not playing"), ("claim Ann three K", "claim Ann three K"),
                     ("dance Ann", "not a call"), ('{"type":"card","zone":"center","card":"5H"}', "camera"),
                     ("stuck", "who?")]:
        with pytest.raises(SaidError, match=why):
            parse_typed(bad, 1.0, players)
    said: list[str] = []
    calls = TypedCalls(io.StringIO("doubt Bob\nnonsense\nturn Cy\n"), players, lambda: 7.5, said.append).start()
    calls._thread.join(5)
    got = calls.take()
    assert [(e.type, e.player, e.t) for e in got] == [("call", "Bob", 7.5), ("turn", "Cy", 7.5)]
    assert len(said) == 1 and "nonsense" in said[0]
    assert calls.take() == [] and time.monotonic() > 0


def _speed_watcher(onsets: list) -> TableWatcher:
    sc = make_script("speed", 2, 3, 5.0)
    return TableWatcher(sc.layout, "speed", lambda crop: Detections(), 30.0, onsets=onsets)


def test_a_tap_after_a_card_showed_is_left_to_the_card_that_landed_then() -> None:
    """SP-9 / TM-3: 7H showed in the look at 16.133 (its own tap was too faint to find); 9C, read on the pile
    at 16.2 and not yet confirmed, was not there at 16.133: the tap at 16.164 is 9C's landing, not 7H's."""
    w = _speed_watcher([Onset(16.1639, 20.0, 0.0005)])
    left = next(tr for tr in w.trackers if tr.zone.name == "left")
    seen = CardSeen(16.1333, "left", "7H", 0.9, 484, (548.0, 301.0, 620.0, 397.0), 16.2)
    left._first_read = {"9C": 16.2}
    assert w._card_times([seen]) == [pytest.approx((16.1333 - 1 / 60, 1 / 60, None))]
    left._first_read = {}  # with no other card about, a card carried face up over the pile takes the tap after
    assert w._card_times([seen]) == [(16.1639, 0.0005, "audio+video")]


def test_a_card_a_hand_hid_after_a_first_read_at_its_place_takes_the_tap_before_not_the_next_cards() -> None:
    """ST-2 / TM-3 (rendered Spit 2p s5 15.31 s): B's QH landed on the right pile at 15.312 s, was read there at
    15.333 s (its box's centre on the card's middle), then a hand hid it; it showed for sure from 15.467 s. Its tap is
    the one at 15.312, not A's 3D landing on the other pile at 15.508. A card read nowhere before it showed takes the
    tap after, as before; a read more than half a second before says nothing of when it landed."""
    from vision.watcher import READ_BEFORE_S

    taps = [Onset(15.3118, 30.0, 0.0005), Onset(15.5079, 30.0, 0.0005)]
    box = (672.0, 316.0, 737.0, 396.0)
    for t_read, want in ((15.3333, 15.3118), (None, 15.5079), (15.4667 - READ_BEFORE_S - 0.05, 15.5079)):
        w = _speed_watcher(taps)
        seen = CardSeen(15.4667, "right", "QH", 0.9, 464, box, 15.5333, t_read=t_read)
        assert w._card_times([seen])[0][0] == want, t_read


def test_a_covered_card_leaves_the_tap_of_the_card_laid_on_it_to_that_card() -> None:
    """SP-2 / TM-3 (rendered Speed 2p s7 8.13 s): 7S landed (its tap taken by a card on the other pile a few ms
    apart), was covered by 6S at 8.50 s, and both were confirmed together, 7S as covered. 7S landed before 6S
    showed: the tap of 6S's landing is 6S's, not 7S's."""
    w = _speed_watcher([Onset(8.4973, 30.0, 0.0005)])
    left = next(tr for tr in w.trackers if tr.zone.name == "left")
    box = (525.0, 302.0, 613.0, 383.0)
    under = CardSeen(8.1333, "left", "7S", 0.9, 258, box, 8.6, covered=True)
    w._landed(left, [under, CardSeen(8.5, "left", "6S", 0.9, 258, box, 8.6)])
    got = {ev.card: ev.t for _, _, ev, _ in w._pending}
    assert got == {"7S": pytest.approx(8.1333 - 1 / 60, abs=1e-4), "6S": 8.4973}


def test_a_hand_that_laid_a_spit_card_leaves_its_tap_to_the_card() -> None:
    """ST-5 / ST-2: in Spit a hand coming down on a centre pile while the layouts hold cards laid a card there (the
    piles are slapped only when a layout is clear): the tap the slap detector timed it by is that card's landing,
    left for the card (rendered Spit 2p s5 15.31 s)."""
    from vision.slaps import SlapSeen

    sc = make_script("spit", 2, 3, 5.0)
    taps = [Onset(15.3118, 30.0, 0.0005)]
    w = TableWatcher(sc.layout, "spit", lambda crop: Detections(), 30.0, onsets=taps)
    for tr in w.trackers:
        if tr.zone.name.startswith("col:"):
            tr.top = "KS"  # (each layout still shows cards)
    assert not w._a_layout_is_clear()
    w._used_onsets.add(0)  # (as :func:`vision.slaps.fuse_audio` leaves it)
    w._arrivals([SlapSeen(15.3118, "right", "B", 0.0005, 459, 15.3, "audio+video", 30.0)], fuse=False)
    assert w.dealing and not w._used_onsets


def test_a_tracker_keeps_when_a_card_was_first_read_where_it_came_to_lie() -> None:
    """ST-2: the looks that read a card before it was confirmed, in flight elsewhere or at its place under a hand,
    give its first read at its place (``CardSeen.t_read``); the read in flight, boxed off the card's middle, not."""
    tr = PileTracker(ZONE, CROP, carried=0.06, races=True, removals=True)
    # in flight over the pile; just landed, boxed on part of it; a hand over it; boxed whole: the box moved, so the
    # tracker dates it from the whole box's first look
    flying, settling, landed = (250.0, 240.0, 330.0, 330.0), (170.0, 165.0, 235.0, 245.0), (160.0, 150.0, 240.0, 250.0)
    out = None
    for t, looks in ((1.0, [("QH", flying)]), (1.067, [("QH", settling)]), (1.133, [("hand", landed)]),
                     (1.2, [("QH", landed)]), (1.267, [("QH", landed)]), (1.333, [("QH", landed)])):
        out = tr.update(int(t * 30), t, dets(*looks)) or out
    assert out is not None and out.card == "QH"
    assert out.t == 1.2 and out.t_read == 1.067


def test_a_card_that_raced_another_is_taken_back_by_the_hand_on_its_side() -> None:
    """SP-9: the remove of a card that landed with another names the player whose hand took it back (the engine
    gives it to that player); a remove of any other card names nobody (the card's owner is known)."""
    w = _speed_watcher([])
    w._raced.add(("right", "KC"))
    w.slapper.arm_on = lambda zone, t0, t1, **kw: "B"
    w._removed(RemoveSeen(3.8333, "right", "KC", 115))
    w._removed(RemoveSeen(5.0, "right", "4S", 150))
    lines = sorted(w._pending)
    assert [(e.card, e.player) for _, _, e, _ in lines] == [("KC", "B"), ("4S", None)]


class _Model:
    """A detector of the shipped model's input size that sees nothing."""

    imgsz = 224

    def __call__(self, crop: np.ndarray) -> Detections:
        return Detections()


def test_the_cards_of_a_row_a_card_was_just_laid_on_are_not_yet_the_arm_finders_background() -> None:
    """PJ-3, TM-1 (who laid a card): the arm finder's background learns a card only after it lay still a while, so
    the cards laid lately are left out of each seat's strip; a card laid on a row lies over the end of its neighbour,
    whose look changes too, so the cards of that row are left out as well (rendered Pai Jie 2p s238 15.2 s: 3D under
    the end of the 2D laid 0.8 s before covered A's strip, and A was given B's 2S). Older cards elsewhere stay."""
    sc = make_script("paijie", 2, 238, 5.0)
    w = TableWatcher(sc.layout, "paijie", _Model(), 30.0)

    def laid(t: float, zone: str, code: str, x: float) -> CardSeen:
        return CardSeen(t, zone, code, 0.9, int(t * 30), (x, 360.0, x + 72.0, 465.0), t + 0.1)

    d3, d2 = laid(12.93, "row:D", "3D", 413.0), laid(14.43, "row:D", "2D", 352.0)
    h2, c7 = laid(14.87, "row:H", "2H", 362.0), laid(9.0, "row:C", "7C", 600.0)
    s2 = laid(15.23, "row:S", "2S", 360.0)
    w.cards = [c7, d3, d2, h2, s2]
    boxes = w._not_yet_background(s2, 15.23, 2.0)
    assert sorted(boxes) == sorted([d3.box, d2.box, h2.box])  # 2D and 2H laid lately, 3D on 2D's row; not 7C
    assert w._not_yet_background(s2, 18.0, 2.0) == []  # (all of them background by then)


@pytest.mark.parametrize("game, players", [("spit", 2), ("paijie", 3)])
def test_close_zones_share_looks_and_racing_piles_keep_their_own(game: str, players: int) -> None:
    """Spit's ten columns and Pai Jie's four rows lie close together: one detector run covers several zones (a
    crop at most twice the model's input a side, or no larger than a member's own), each zone in one look; the
    centre piles, whose cards race (SP-9), are looked at alone."""
    sc = make_script(game, players, 3, 5.0)
    w = TableWatcher(sc.layout, game, _Model(), 30.0)
    names = [[tr.zone.name for tr in m] for _, m in w.looks]
    assert sorted(n for g in names for n in g) == sorted(tr.zone.name for tr in w.trackers)
    assert len(w.looks) < len(w.trackers)
    for crop, members in w.looks:
        x0, y0, x1, y1 = crop
        for tr in members:  # (a row wider than the frame is tall is cut a little at its ends, as its own crop is)
            (zx0, zy0), (zx1, zy1) = tr.zone.polygon.min(0), tr.zone.polygon.max(0)
            inside = (min(x1, zx1) - max(x0, zx0)) * (min(y1, zy1) - max(y0, zy0))
            assert inside >= 0.98 * (zx1 - zx0) * (zy1 - zy0)
        if len(members) > 1:
            assert x1 - x0 <= max(448, *(tr.crop[2] - tr.crop[0] for tr in members))
    if game == "spit":
        assert ["left"] in names and ["right"] in names and len(w.looks) <= 6
    else:
        assert len(w.looks) == 1



def test_a_still_spit_column_is_looked_at_less_often_than_a_centre_pile() -> None:
    """On a still table a look is retried now and then (the last one may have missed); a Spit column's cards change
    only under a hand, whose change calls for a look, so its retries come every ``COLUMN_RETRY`` frames."""
    crops: list[tuple[int, ...]] = []

    class Counting(_Model):
        def look_at(self, crop: tuple[int, int, int, int]) -> None:
            crops.append(tuple(crop))

    sc = make_script("spit", 2, 3, 5.0)
    w = TableWatcher(sc.layout, "spit", Counting(), 30.0)
    still = np.random.default_rng(2).integers(0, 255, (720, 1280, 3), dtype=np.uint8)
    frames = 3 * COLUMN_RETRY
    for i in range(frames):
        w.feed(i, i / 30, still)
    centre = [crops.count(tuple(c)) for c, m in w.looks if [tr.zone.name for tr in m] in (["left"], ["right"])]
    columns = [crops.count(tuple(c)) for c, m in w.looks if m[0].zone.name.startswith("col:")]
    assert len(centre) == 2 and min(centre) >= frames // PileTracker.retry
    assert columns and all(1 <= n <= frames // COLUMN_RETRY + 1 for n in columns)
    assert max(columns) * 2 <= min(centre)

def test_the_reader_is_told_which_places_are_watched() -> None:
    """Only faces on a watched zone are worth the deck's search (``ReadingDetector.watched``): the middle of a box
    on a column or a centre pile is watched, one on the bare table between the seats is not."""

    class Watching(_Model):
        watched = None

    sc = make_script("spit", 2, 3, 5.0)
    w = TableWatcher(sc.layout, "spit", Watching(), 30.0)
    assert w.detector.watched is not None
    for tr in w.trackers:
        (x0, y0), (x1, y1) = tr.zone.polygon.min(0), tr.zone.polygon.max(0)
        mx, my = (x0 + x1) / 2, (y0 + y1) / 2
        assert w.detector.watched((mx - 20, my - 30, mx + 20, my + 30)), tr.zone.name
    assert not w.detector.watched((2.0, 2.0, 40.0, 60.0))


def test_a_shared_look_feeds_every_zone_in_it() -> None:
    """Each zone of a shared look gets the look's detections (a card on the second column is that column's)."""
    sc = make_script("spit", 2, 3, 5.0)
    w = TableWatcher(sc.layout, "spit", _Model(), 30.0)
    crop, members = next((c, m) for c, m in w.looks if len(m) > 1)
    target = members[-1]
    (zx0, zy0), (zx1, zy1) = target.zone.polygon.min(0), target.zone.polygon.max(0)
    box = (zx0 + 2 - crop[0], zy0 + 2 - crop[1], zx1 - 2 - crop[0], zy1 - 2 - crop[1])

    def detector(image: np.ndarray) -> Detections:
        return dets(("9D", box)) if image.shape[:2] == (crop[3] - crop[1], crop[2] - crop[0]) else Detections()

    w.detector = detector
    rng = np.random.default_rng(1)
    for i in range(12):
        w.feed(i, i / 30, rng.integers(0, 255, (720, 1280, 3), dtype=np.uint8))
    assert [(c.zone, c.card) for c in w.cards] == [(target.zone.name, "9D")]


def _middle_box(zone: Zone) -> tuple[float, float, float, float]:
    (x0, y0), (x1, y1) = zone.polygon.min(0), zone.polygon.max(0)
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    return (cx - 30.0, cy - 40.0, cx + 30.0, cy + 40.0)


def test_a_spit_turn_up_read_once_under_a_hand_is_logged_when_the_card_lands_on_a_centre_pile() -> None:
    """ST-3: a column's face-down card turned up and played at once may be read there only once (a hand over it
    all along). When it lands on a centre pile, its ``card`` line on that column comes first, dated from that read;
    else the referee keeps a face-down card too many there. A card carried over another column later, or confirmed
    on a column already, adds no turn-up; nor does a read too long before."""
    sc = make_script("spit", 2, 3, 5.0)
    w = TableWatcher(sc.layout, "spit", lambda crop: Detections(), 30.0)
    cols = {tr.zone.name: tr for tr in w.trackers if tr.zone.name.startswith("col:")}
    own, crossed = cols["col:B:2"], cols["col:B:3"]
    own.update(130, 4.3333, dets(("7D", _middle_box(own.zone))))
    crossed.update(136, 4.5333, dets(("7D", _middle_box(crossed.zone))))
    assert own.top != "7D" and own.unconfirmed_read("7D") is not None  # one read never confirms
    landed = CardSeen(4.75, "left", "7D", 0.9, 142, (600.0, 300.0, 660.0, 380.0), 4.8)
    w._turned_up_unseen([landed])
    lines = [e for _, _, e, _ in sorted(w._pending)]
    assert [(e.t, e.zone, e.card) for e in lines] == [(4.3333, "col:B:2", "7D")]
    assert lines[0].evidence["seen_again"] == "left"
    assert own.top == "7D" and "7D" in own.history and crossed.top != "7D"
    w._turned_up_unseen([landed])  # the card is on the column now: no second line
    assert len(w._pending) == 1
    cols["col:A:1"].update(140, 4.6667, dets(("9S", _middle_box(cols["col:A:1"].zone))))
    w._turned_up_unseen([CardSeen(5.8, "right", "9S", 0.9, 174, (600.0, 300.0, 660.0, 380.0), 5.85)])
    assert len(w._pending) == 1  # read 1.13 s before it landed: no turn-up of it


def test_a_spit_column_top_played_and_covered_unseen_goes_under_the_card_that_covered_it() -> None:
    """ST-2/ST-3: A's 2D is played from column 5 onto 3H and B's 3C lands on it 32 ms later, before any look saw
    the 2D there (rendered Spit s12 3.62 s). When the column shows its next card (JD), the 2D, seen landing
    nowhere, goes on the one centre pile where it fits between two cards that landed after it was last seen on its
    column, a frame before the upper one (held back still), in A's name: else 3C on 3H is ruled illegal and the JD
    refused on a column that still holds the 2D. A card seen landing, or one that fits on both piles, adds none."""
    import heapq

    def watcher() -> tuple[TableWatcher, PileTracker]:
        sc = make_script("spit", 2, 3, 5.0)
        w = TableWatcher(sc.layout, "spit", lambda crop: Detections(), 30.0)
        return w, next(tr for tr in w.trackers if tr.zone.name == "col:A:5")

    def landed(w: TableWatcher, t: float, zone: str, card: str) -> None:
        seen = CardSeen(t, zone, card, 0.9, int(t * 30), (600.0, 300.0, 660.0, 380.0), t + 0.1)
        w.cards.append(seen)
        heapq.heappush(w._pending, (t, next(w._seq), Event(t=t, type="card", zone=zone, card=card), seen))

    def turn_up(col: PileTracker) -> CardSeen:
        box = _middle_box(col.zone)
        for i, t in enumerate((1.5, 1.6, 1.7, 2.7)):
            col.update(46 + 3 * i, t, dets(("2D", box)))
        turned = [col.update(126 + 2 * i, 4.2 + i / 15, dets(("JD", box))) for i in range(3)]
        assert col.top == "JD"
        return next(c for c in turned if c is not None)

    w, col = watcher()
    landed(w, 2.867, "left", "3H")
    landed(w, 2.9, "right", "8D")
    landed(w, 3.653, "left", "3C")
    w._played_unseen(col, "2D", (jd := turn_up(col)).t, jd)
    lines = [e for _, _, e, _ in sorted(w._pending)]
    assert [(e.zone, e.card, e.player) for e in lines] == [
        ("left", "3H", None), ("right", "8D", None), ("left", "2D", "A"), ("left", "3C", None)]
    assert lines[2].t == pytest.approx(3.653 - 1 / 30, abs=1e-3)  # (the upper line's t_err: none given)

    w, col = watcher()  # seen landing on the right pile: nothing to add
    landed(w, 2.867, "left", "3H")
    landed(w, 3.2, "right", "2D")
    landed(w, 3.653, "left", "3C")
    w._played_unseen(col, "2D", (jd := turn_up(col)).t, jd)
    assert [e.card for _, _, e, _ in sorted(w._pending)] == ["3H", "2D", "3C"]

    w, col = watcher()  # fits under a card on either pile: which is not known
    for t, zone, card in ((2.867, "left", "3H"), (2.9, "right", "AS"), (3.653, "left", "3C"), (3.7, "right", "AC")):
        landed(w, t, zone, card)
    w._played_unseen(col, "2D", (jd := turn_up(col)).t, jd)
    assert len(w._pending) == 4


def test_a_spit_columns_last_card_played_and_covered_unseen_goes_under_the_card_that_covered_it() -> None:
    """ST-2: A's 6S, the last card of column 3, is played on 7S and B's 5H covers it within a look (rendered Spit s12
    15.64 s): no look saw it land, and the column turns up nothing (it is empty), so the turn-up rule never asks.
    When the column is seen bare, the 6S, seen landing nowhere since it showed there, goes between the 7S and the
    5H: else "Illegal: five on seven", and A's next play is ruled on the wrong card."""
    import heapq

    sc = make_script("spit", 2, 3, 5.0)
    w = TableWatcher(sc.layout, "spit", lambda crop: Detections(), 30.0)
    col = next(tr for tr in w.trackers if tr.zone.name == "col:A:3")
    for t, zone, card in ((14.784, "right", "7S"), (15.704, "right", "5H")):
        seen = CardSeen(t, zone, card, 0.9, int(t * 30), (656.0, 329.0, 750.0, 441.0), t + 0.1)
        w.cards.append(seen)
        heapq.heappush(w._pending, (t, next(w._seq), Event(t=t, type="card", zone=zone, card=card), seen))
    box = _middle_box(col.zone)
    hand = ("hand", (box[0] - 20, box[1] - 20, box[2] + 20, box[3] + 20))
    looks = [(11.0, [("6S", box)]), (11.067, [("6S", box)]), (15.0, [("6S", box)]), (15.2, [hand]),
             (15.967, []), (16.033, [])]
    for i, (t, items) in enumerate(looks):
        w._look(col, 330 + i, t, dets(*items))
    lines = [(e.zone, e.card, e.player) for _, _, e, _ in sorted(w._pending)]
    assert lines == [("col:A:3", "6S", None), ("right", "7S", None), ("right", "6S", "A"), ("right", "5H", None)]
    assert col.top is None


def test_a_spit_column_card_read_as_its_look_alike_is_renamed_by_a_surer_read_where_it_lands() -> None:
    """ST-2/ST-3 with TM-1: B's KC turned up on column 3 was read KS at 0.78 (rendered Spit s12 10.4 s: at that size
    the deck's KS, KC and QC score alike) and played on the right pile at 11.1 s, read KC at 0.9 there: the referee
    refused it (no column showed KC) and kept a KS on the column. While the column's line is still held back, a
    surer read of its look-alike landing on a centre pile, which no column holds, names it: the line and the
    column's card are renamed (Spit's plays are ruled on ranks, which look-alikes share: refused, the play is lost;
    renamed, it is ruled). Not when the column's read was surer, nor when two columns hold look-alikes."""
    import heapq

    def watcher(*cols: tuple[str, str, float]) -> TableWatcher:
        w = TableWatcher(make_script("spit", 2, 12, 5.0).layout, "spit", lambda crop: Detections(), 30.0)
        for zone, card, conf in cols:
            tr = next(tr for tr in w.trackers if tr.zone.name == zone)
            tr.history.add(card)
            tr.stack.append(card)
            seen = CardSeen(10.433, zone, card, conf, 313, _middle_box(tr.zone), 10.5)
            w.cards.append(seen)
            ev = Event(t=10.433, type="card", zone=zone, card=card, conf=conf, evidence={"frame": 313})
            heapq.heappush(w._pending, (10.433, next(w._seq), ev, seen))
        return w

    def play_kc(w: TableWatcher, conf: float = 0.9) -> list[tuple[str, str]]:
        w._column_top_misread([CardSeen(11.113, "right", "KC", conf, 334, (658.0, 306.0, 760.0, 421.0), 11.2)])
        return sorted((e.zone, e.card) for _, _, e, _ in w._pending)

    w = watcher(("col:B:3", "KS", 0.781), ("col:B:2", "JH", 0.9))
    w._column_top_misread([CardSeen(11.113, "right", "KC", 0.9, 334, (658.0, 306.0, 760.0, 421.0), 11.2, covered=True)])
    assert sorted((e.zone, e.card) for _, _, e, _ in w._pending) == [("col:B:2", "JH"), ("col:B:3", "KS")]
    assert play_kc(w) == [("col:B:2", "JH"), ("col:B:3", "KC")]
    col = next(tr for tr in w.trackers if tr.zone.name == "col:B:3")
    assert col.stack == ["KC"] and "KC" in col.history and "KS" not in col.history
    assert ("col:B:3", "KC") in {(c.zone, c.card) for c in w.cards}
    assert play_kc(watcher(("col:B:3", "KS", 0.9))) == [("col:B:3", "KC")]  # (as sure: the play is ruled)
    assert play_kc(watcher(("col:B:3", "KS", 0.9)), conf=0.8) == [("col:B:3", "KS")]
    assert play_kc(watcher(("col:B:3", "KS", 0.781), ("col:A:1", "KS", 0.7))) == [("col:A:1", "KS"), ("col:B:3", "KS")]
    # SP-10: a column that read its card at its place once the card had landed: the card never left it; what landed
    # was a spit card (rendered Spit 2p s5 3.19 s: 6S spat on the right pile while B4's 6C, read 6C at 0.76, lay still)
    still = watcher(("col:B:3", "KS", 0.781))
    next(tr for tr in still.trackers if tr.zone.name == "col:B:3")._last_seen["KS"] = 11.2
    assert play_kc(still) == [("col:B:3", "KS")]
    left = watcher(("col:B:3", "KS", 0.781))
    next(tr for tr in left.trackers if tr.zone.name == "col:B:3")._last_seen["KS"] = 11.0  # (before it landed)
    assert play_kc(left) == [("col:B:3", "KC")]


def test_a_centre_pile_the_detector_boxes_nothing_on_is_read_with_the_deck_where_its_top_lay() -> None:
    """TM-1 with ST-2 and SN-3: on a pink striped cloth the detector left B's 4C on the left pile unboxed for a
    second (rendered Spit s12 5.1-6.1 s, its face scored 0.03), and the next card there was ruled on the 3C under
    it. A pile played on (a centre pile, a Snap pile) with a top card on which the detector boxes nothing (no card,
    no hand, no back) is read against the deck's pictures at the top card's box; a look that boxes anything there,
    or a read that names nothing, adds nothing; nor does a column."""

    class Deckish(_Model):
        def __init__(self, read: str | None) -> None:
            self.read, self.asked = read, []

        def read_box(self, image: np.ndarray, box: np.ndarray, want: str | None = None) -> tuple[str | None, float]:
            self.asked.append(tuple(float(v) for v in box))
            return (self.read, 0.9) if self.read else (None, 0.0)

    sc = make_script("spit", 2, 3, 5.0)
    for read in ("4C", None):
        model = Deckish(read)
        w = TableWatcher(sc.layout, "spit", model, 30.0)
        left = next(tr for tr in w.trackers if tr.zone.name == "left")
        col = next(tr for tr in w.trackers if tr.zone.name == "col:A:1")
        box = _middle_box(left.zone)
        left.top, col.top = "3C", "7H"
        w.cards.append(CardSeen(3.65, "left", "3C", 0.9, 110, box, 3.7))
        image = np.zeros((720, 1280, 3), np.uint8)
        found = w._unboxed_top(image, Detections(), [left, col])
        assert np.allclose(model.asked, [box], atol=0.01)
        assert [str(n) for n in found.class_name] == ([read] if read else [])
        hand = dets(("hand", box))
        assert w._unboxed_top(image, hand, [left]) is hand and len(model.asked) == 1
    # Snap's piles too (rendered Snap 4p s12 12.03 s: A's AH, never boxed on the pink cloth, slapped 56 ms later)
    sc = make_script("snap", ["A", "B", "C", "D"], 12, seconds=1.0)
    model = Deckish("AH")
    w = TableWatcher(sc.layout, "snap", model, 30.0)
    pile = next(tr for tr in w.trackers if tr.zone.name == "pile:A")
    box = _middle_box(pile.zone)
    pile.top = "3D"
    w.cards.append(CardSeen(9.56, "pile:A", "3D", 0.9, 287, box, 9.6))
    found = w._unboxed_top(np.zeros((720, 1280, 3), np.uint8), Detections(), [pile])
    assert [str(n) for n in found.class_name] == ["AH"] and np.allclose(model.asked, [box], atol=0.01)
    # an empty pile is read where its cards are laid: the zone (rendered Snap 4p s5 16.6 s: B's AD on the pile B had
    # just lost, never boxed; the snap of aces it made was missed)
    empty = next(tr for tr in w.trackers if tr.zone.name == "pile:B")
    assert empty.top is None
    found = w._unboxed_top(np.zeros((720, 1280, 3), np.uint8), Detections(), [empty])
    zone_box = (*empty.zone.polygon.min(0), *empty.zone.polygon.max(0))
    assert [str(n) for n in found.class_name] == ["AH"] and np.allclose(model.asked[-1], zone_box, atol=0.01)


def test_a_spit_column_top_misread_once_is_no_turn_up_of_the_card_that_lands() -> None:
    """ST-3: rendered Spit s12, A's column 3 shows AH; under a hand it is read AS once, and AH again in the next
    look; the spit card AS lands on the right pile 0.3 s later. The column still held AH after the read: the read
    was of AH, misread, and AS is no turn-up of that column (else the referee is told a face-down card was turned
    on a column that shows one)."""
    sc = make_script("spit", 2, 3, 5.0)
    w = TableWatcher(sc.layout, "spit", lambda crop: Detections(), 30.0)
    col = next(tr for tr in w.trackers if tr.zone.name == "col:A:3")
    box = _middle_box(col.zone)
    for i, t in enumerate((7.067, 7.133, 7.2, 7.767, 7.867)):
        col.update(212 + 3 * i, t, dets(("AH", box)))
    assert col.top == "AH"
    col.update(238, 7.933, dets(("AS", box)))
    landed = CardSeen(8.214, "right", "AS", 0.9, 246, (600.0, 300.0, 660.0, 380.0), 8.3)
    col.update(240, 8.0, dets(("AH", box)))  # the top seen again after the read
    w._turned_up_unseen([landed])
    assert not w._pending and col.top == "AH"
    w2 = TableWatcher(sc.layout, "spit", lambda crop: Detections(), 30.0)  # the same read, the top not seen after
    col2 = next(tr for tr in w2.trackers if tr.zone.name == "col:A:3")
    for i, t in enumerate((7.067, 7.133, 7.2, 7.767, 7.867)):
        col2.update(212 + 3 * i, t, dets(("AH", box)))
    col2.update(238, 7.933, dets(("AS", box)))
    w2._turned_up_unseen([landed])
    assert [(e.zone, e.card) for _, _, e, _ in w2._pending] == [("col:A:3", "AS")]


def test_a_spit_turn_up_read_once_as_its_look_alike_is_logged_as_the_card_that_landed() -> None:
    """ST-3: read once half under the hand that turned it, a column's card may be read as its look-alike (rendered
    Spit s11: 7H read 7D). The card that lands on a centre pile (confirmed there) is that column's turn-up; a read
    of another rank, or of the other colour, is not."""
    sc = make_script("spit", 2, 3, 5.0)
    w = TableWatcher(sc.layout, "spit", lambda crop: Detections(), 30.0)
    cols = {tr.zone.name: tr for tr in w.trackers if tr.zone.name.startswith("col:")}
    cols["col:B:4"].update(100, 3.3333, dets(("7S", _middle_box(cols["col:B:4"].zone))))
    cols["col:B:5"].update(130, 4.3333, dets(("7D", _middle_box(cols["col:B:5"].zone))))
    cols["col:A:2"].update(132, 4.4, dets(("8H", _middle_box(cols["col:A:2"].zone))))
    w._turned_up_unseen([CardSeen(4.75, "left", "7H", 0.9, 142, (600.0, 300.0, 660.0, 380.0), 4.8)])
    lines = [e for _, _, e, _ in sorted(w._pending)]
    assert [(e.t, e.zone, e.card) for e in lines] == [(4.3333, "col:B:5", "7H")]
    assert cols["col:B:5"].top == "7H" and cols["col:B:5"].unconfirmed_read("7D") is None  # the read was 7H
    w._turned_up_unseen([CardSeen(4.8, "right", "8C", 0.9, 144, (600.0, 300.0, 660.0, 380.0), 4.85)])
    assert len(w._pending) == 1  # 8H is red, 8C black: not a look-alike


def test_a_speed_card_read_unsurely_is_no_evidence_on_its_pile() -> None:
    """SP-2: a Speed card half under the hand that lays it is read as its neighbour in rank at 0.5-0.6 (rendered s11:
    7C read 6C at 0.59, confirmed, then "Illegal: six on six"); on Speed's piles such a read confirms nothing, a
    sure one does. Spit keeps the watcher's threshold."""
    sc = make_script("speed", 2, 3, 5.0)
    w = TableWatcher(sc.layout, "speed", lambda crop: Detections(), 30.0)
    left = next(tr for tr in w.trackers if tr.zone.name == "left")
    box = _middle_box(left.zone)
    unsure = Detections(np.array([box], np.float32), np.array([0.59], np.float32), np.zeros(1, np.int64),
                        np.array(["6C"]))
    assert [left.update(i, i / 30, unsure) for i in range(4)] == [None] * 4
    assert left.update(4, 4 / 30, dets(("7C", box))) is None
    assert left.update(5, 5 / 30, dets(("7C", box))).card == "7C"
    spit = TableWatcher(make_script("spit", 2, 3, 5.0).layout, "spit", lambda crop: Detections(), 30.0)
    assert {tr.min_conf for tr in spit.trackers} == {spit.min_conf}


def test_a_spit_reader_expects_the_column_tops_on_the_centre_piles_only() -> None:
    """ST-2: a card played on a centre pile comes from a column's top: the reader is told to expect those there
    (of look-alike courts, the one lying on a column), and nothing elsewhere; a top already played is not one."""

    class Expecting(_Model):
        expect = None

    sc = make_script("spit", 2, 3, 5.0)
    w = TableWatcher(sc.layout, "spit", Expecting(), 30.0)
    cols = [tr for tr in w.trackers if tr.zone.name.startswith("col:")]
    cols[0].top, cols[3].top = "QD", "7C"
    assert w.detector.expect(_middle_box(sc.layout.zones["left"])) == set()  # (the piles' first cards: spit cards)
    w._spit_due.clear()  # (the piles started: what lands now is played from the columns)
    assert w.detector.expect(_middle_box(sc.layout.zones["left"])) == {"QD", "7C"}
    assert w.detector.expect(_middle_box(sc.layout.zones["right"])) == {"QD", "7C"}
    assert w.detector.expect(_middle_box(cols[1].zone)) == set()
    next(tr for tr in w.trackers if tr.zone.name == "right").stack = ["9S", "QD"]  # QD was played: the column
    assert w.detector.expect(_middle_box(sc.layout.zones["left"])) == {"7C"}  # shows it until its next turn-up
    assert TableWatcher(sc.layout, "speed", Expecting(), 30.0).detector.expect is None


def test_a_snap_reader_is_told_the_cards_face_up_on_the_other_piles() -> None:
    """SN-1: a card face up on one Snap pile is on no other until its pile is taken: the reader is told the cards
    confirmed on the piles other than the one under a box (not the box's own pile: the tracker keeps that one)."""

    class Told(_Model):
        elsewhere = None

    sc = make_script("snap", 3, 238, 5.0)
    w = TableWatcher(sc.layout, "snap", Told(), 30.0)
    piles = {tr.zone.name: tr for tr in w.trackers}
    for zone, cards in (("pile:A", ["JS", "2S"]), ("pile:B", ["9D"])):
        piles[zone].stack, piles[zone].history = list(cards), set(cards)
    assert w.detector.elsewhere(_middle_box(sc.layout.zones["pile:C"])) == {"JS", "2S", "9D"}
    assert w.detector.elsewhere(_middle_box(sc.layout.zones["pile:A"])) == {"9D"}
    piles["pile:A"].taken(1.0)  # (confirmed before it: they went with the pile)
    assert w.detector.elsewhere(_middle_box(sc.layout.zones["pile:C"])) == {"9D"}
    assert TableWatcher(make_script("speed", 2, 3, 5.0).layout, "speed", Told(), 30.0).detector.elsewhere is None


def test_a_pai_jie_reader_expects_the_suit_of_the_row_a_card_lies_on() -> None:
    """PJ-3: cards are played into one row per suit: on a row, of look-alike matches (a court's suit is what the
    pictures tell worst), one of the row's suit is the read; off the rows, nothing is expected."""

    class Expecting(_Model):
        expect = None

    sc = make_script("paijie", 3, 3, 5.0)
    w = TableWatcher(sc.layout, "paijie", Expecting(), 30.0)
    spades = w.detector.expect(_middle_box(sc.layout.zones["row:S"]))
    assert len(spades) == 13 and all(c.endswith("S") for c in spades) and {"QS", "10S"} <= spades
    assert {c[-1] for c in w.detector.expect(_middle_box(sc.layout.zones["row:C"]))} == {"C"}
    assert w.detector.expect((0.0, 0.0, 4.0, 4.0)) == set()


def test_a_look_at_several_pai_jie_rows_reads_every_card_on_them() -> None:
    """PJ-3: the suit rows are looked at together (one crop) and each row shows every card laid on it. The reader
    read the four surest faces of a look, fit for a pile: rendered Pai Jie s238's look read AS, AD, 8S and 10S,
    and the hearts row's 7H and QH went unread for 1.5 s (7H was "taken back" and laid again, twice). Speed's
    piles, looked at one by one, keep four."""
    from models.reader import ReadingDetector

    sc = make_script("paijie", 3, 3, 5.0)
    rows = [sc.layout.zones[f"row:{s}"] for s in "SHDC"]
    codes = [f"{r}{s}" for s in "SHDC" for r in ("2", "9")] + ["KS"]  # two cards a row, three on the spades row
    frame_boxes = []
    for code in codes:
        row = rows["SHDC".index(code[-1])].polygon
        (x0, y0), y1 = row.min(0), row.max(0)[1]
        x = x0 + 40 + 90 * ("29K".index(code[0]))
        frame_boxes.append([x, y0 + 10, x + 60, y1 - 10])

    class RowsReader:
        classes = (*FACES, "none")

        def crops(self, frame: np.ndarray, boxes: np.ndarray, bgr: bool = True) -> np.ndarray:
            return np.stack([np.full((8, 8, 3), k, np.uint8) for k in range(len(boxes))])

        def probabilities(self, crops: np.ndarray) -> np.ndarray:
            p = np.zeros((len(crops), len(self.classes)), np.float32)
            for i, crop in enumerate(crops):  # each box is read as the card laid there
                p[i, self.classes.index(order[int(crop[0, 0, 0])])] = 0.95
            return p

    order: list[str] = []
    origin = np.zeros(4, np.float32)

    def detector(crop: np.ndarray, bgr: bool = True, conf: float = 0.25, clip: bool = True) -> Detections:
        boxes = np.array(frame_boxes, np.float32) - origin
        conf_each = np.linspace(0.9, 0.5, len(codes)).astype(np.float32)  # the spades row's cards surest
        order[:] = codes
        return Detections(boxes, conf_each, np.zeros(len(codes), np.int64), np.array(["7H"] * len(codes)))

    reading = ReadingDetector(detector, RowsReader())
    w = TableWatcher(sc.layout, "paijie", reading, 30.0)
    (crop, members), = w.looks
    origin[:] = (crop[0], crop[1], crop[0], crop[1])
    image = np.zeros((sc.layout.frame_size[1], sc.layout.frame_size[0], 3), np.uint8)
    w.feed(0, 0.0, image)
    assert sorted(name for _, name in w.boxes) == sorted(codes)
    speed = make_script("speed", 2, 3, 5.0)
    assert TableWatcher(speed.layout, "speed", ReadingDetector(detector, RowsReader()), 30.0).detector.max_faces == 4


def _match_scores(**match: float) -> np.ndarray:
    """A turned card's match with each of the deck's pictures (``_10H=0.6``: a leading ``_`` for a digit)."""
    from models.classes import FACES

    s = np.full(len(FACES), 0.1)
    for code, m in match.items():
        s[FACES.index(code.lstrip("_"))] = m
    return s


class _PosedDeck:
    """A deck whose posed reads of a batch are given: one row of matches per card, top first."""

    def __init__(self, *cards: np.ndarray) -> None:
        self.cards = cards

    def read_posed(self, frame: np.ndarray, poses: list, origin: tuple) -> list[np.ndarray]:
        return list(self.cards)


def _read_reveal(claimed: str | None, *cards: np.ndarray, named: frozenset = frozenset()) -> tuple[str, ...]:
    """The batch turned up, read by a batch watcher from its cards' matches (``claimed``: the rank heard for it;
    ``named``: the faces the detector named surely in the look)."""
    from vision.fan import CardPose

    w = BatchWatcher(Zone("center", ZONE.polygon), CROP, confirm=2, every=1, deck=_PosedDeck(*cards))
    w._colour = np.zeros((10, 10, 3), np.uint8)
    w._batch_poses = [CardPose((0.0, 0.0), 0.0, 1.0, 1.0, 1.0)] * len(cards)
    w.claimed = claimed
    w._named = named
    return w._read_turned()


def test_of_look_alike_strips_in_a_reveal_the_claimed_rank_is_the_read() -> None:
    """CH-4: a batch turned up shows a strip of each lower card, its index a few pixels high, so look-alikes match
    within a few hundredths (rendered Cheat 3p s11's three tens: the lowest strip matched 9C 0.461, 10C 0.448).
    Of matches within ``CLAIMED_CLOSE`` of the best, the rank claimed for the batch (heard by the watcher as it is
    said) is the read; a card further from the best is read as what it matches best: a liar's card stays a lie.
    The batch's cards are named together, one card of each."""
    from vision.batches import CLAIMED_CLOSE

    scores, read = _match_scores, _read_reveal
    top, strip = scores(_10H=0.6, _9H=0.59), scores(_9C=0.461, _10C=0.448, JC=0.444)
    assert read("10", top, strip) == ("10C", "10H")
    assert read(None, top, strip) == ("10H", "9C")
    lie = scores(_8S=0.748, _6S=0.748 - CLAIMED_CLOSE - 0.01)
    assert read("6", lie) == ("8S",)
    # the batch is read as a whole: the top card's look-alike must not take the lower strip's own name (s11 3.48 s:
    # 2S on top read 2C, then the strip of the real 2C read as its next best, 3C: a true claim called false)
    top, strip = scores(_2C=0.799, _2S=0.775, _3C=0.685), scores(_3C=0.559, _2C=0.554, _3S=0.535)
    assert read("2", top, strip) == ("2C", "2S")
    assert read(None, top, strip) == ("2C", "3C")
    sc = make_script("cheat", 3, 3, 5.0)
    w = TableWatcher(sc.layout, "cheat", _Model(), 30.0)
    w.heard(Event(t=1.0, type="claim", player="A", count=2, rank="Q"))
    assert [tr.claimed for tr in w.trackers if isinstance(tr, BatchWatcher)] == ["Q"]


def test_of_look_alike_courts_in_a_reveal_the_card_the_detector_named_surely_is_the_read() -> None:
    """CH-4: the deck's pictures of one rank's courts differ by their suit marks alone, and a court turned up on top
    of a batch matches all four within a few thousandths (rendered Cheat 2p s12 5.0 s: JS, boxed JS 0.9 by the
    detector, matched JC JS JH JD 0.87 each and was read JC: the claim of twos was false either way, but the reveal
    named a card that was not there). Of matches within ``CLAIMED_CLOSE`` of the best, the one the detector named
    at least ``NAMED_SURE`` in the look is the read; the claimed rank still comes first, and a name matching further
    from the best than that changes nothing."""
    from vision.batches import CLAIMED_CLOSE

    top = _match_scores(JC=0.871, JS=0.870, JH=0.869, JD=0.871 - CLAIMED_CLOSE - 0.01)
    strip = _match_scores(_2S=0.61, _3S=0.62, _2C=0.5)
    assert _read_reveal("2", top, strip) == ("2S", "JC")
    assert _read_reveal("2", top, strip, named=frozenset({"JS"})) == ("2S", "JS")
    assert _read_reveal("2", top, strip, named=frozenset({"JD"})) == ("2S", "JC")
    assert _read_reveal("2", top, strip, named=frozenset({"JS", "3S"})) == ("2S", "JS")
    assert _read_reveal(None, top, strip, named=frozenset({"JS", "2S"})) == ("2S", "JS")


def _card_on_a_row(players: int, row: str) -> tuple[TableWatcher, tuple, np.ndarray]:
    """A Pai Jie watcher for ``players`` players, a card's box in the middle of ``row`` and the card's middle."""
    sc = make_script("paijie", players, 3, 5.0)
    box = _middle_box(sc.layout.zones[row])
    return TableWatcher(sc.layout, "paijie", _Model(), 30.0), box, np.array([(box[0] + box[2]) / 2,
                                                                            (box[1] + box[3]) / 2])


def _seat(w: TableWatcher, player: str) -> np.ndarray:
    return w.layout.seats[player].reshape(-1, 2).mean(0)


def _film_arms(w: TableWatcher, frames: int, draw: Any) -> None:
    """``frames`` frames of a grey table at 30 fps, each drawn on by ``draw(image, t)``, shown to the arm finder."""
    width, height = w.layout.frame_size
    for i in range(frames):
        img = np.full((height, width, 3), 100, np.uint8)
        draw(img, i / 30)
        w.arms.update(i / 30, img)


def test_a_card_taken_from_a_pai_jie_row_went_to_the_arm_over_it() -> None:
    """PJ-10 / EVENTS.md ``remove``: a card an ace effect takes from the table goes into a named player's hand; the
    referee wants who. The arm over the card's place as it went, from that player's seat, says it; a card that went
    with no arm over it (the detector lost it) names nobody."""
    from vision.tracking import RemoveSeen

    w, box, card = _card_on_a_row(3, "row:H")
    seat = _seat(w, "C")

    def arm(img: np.ndarray, t: float) -> None:
        if 0.9 <= t <= 1.3:  # C's arm reaches over the card and takes it
            cv2.line(img, tuple(int(v) for v in card), tuple(int(v) for v in seat), (60, 90, 160), 70)

    _film_arms(w, 45, arm)
    w._removed(RemoveSeen(1.1, "row:H", "JH", 33), box=box)
    w._removed(RemoveSeen(0.4, "row:H", "QH", 12), box=box)
    taken = {ev.card: ev.player for _, _, ev, _ in w._pending}
    assert taken == {"JH": "C", "QH": None}


def test_a_card_laid_on_a_pai_jie_row_by_the_only_arm_there_is_that_players_even_as_it_draws_back() -> None:
    """PJ-3 (who played): an arm drawing back from the card it laid sweeps along its strip, and a sweep counts
    against an arm where another may have laid the card; where no other arm is over the table there, the arm going
    back laid it (rendered Pai Jie 3p s6 17.5 s: A's QC, A's cover 0.61 -> 0.37, unattributed, was taken for the
    next player's play)."""
    w, box, card = _card_on_a_row(3, "row:H")
    seat = _seat(w, "A")

    def arm(img: np.ndarray, t: float) -> None:
        if 1.0 <= t < 1.5:  # A's arm over the card, drawing back from 1.3 s
            start = card + (0.0 if t < 1.3 else (t - 1.3) / 0.2 * 0.9) * (seat - card)
            cv2.line(img, tuple(int(v) for v in start), tuple(int(v) for v in seat), (60, 90, 160), 70)

    _film_arms(w, 60, arm)
    assert w.arms.who(box, 1.2, 1.34) == "A"  # (at rest)
    assert w.arms.who(box, 1.3, 1.44) == "A"  # (drawing back, alone)


def test_a_card_laid_lately_in_another_players_strip_is_no_arm() -> None:
    """PJ-3 (who played): a card laid a second ago is not yet part of the background; lying across the strip from
    this card to B's seat it covers it as an arm at rest would, as much as A's arm laying this card covers A's or
    more (rendered Pai Jie 2p s12 3.9 s: A's 7S, B's strip across the joker B laid 1.4 s before, 0.60 at every look,
    a tie). The watcher names the cards laid lately; their places are left out of the strips."""
    w, box, card = _card_on_a_row(2, "row:S")
    seat = {p: _seat(w, p) for p in ("A", "B")}
    near, far = card + 0.15 * (seat["B"] - card), card + 1.2 * (seat["B"] - card)
    joker = (float(min(near[0], far[0]) - 45), float(min(near[1], far[1]) - 45), float(max(near[0], far[0]) + 45),
             float(max(near[1], far[1]) + 45))  # (B's jokers, fanned along the strip)

    def draw(img: np.ndarray, t: float) -> None:
        if t >= 0.9:  # B's jokers, laid 0.4 s before the card
            cv2.line(img, tuple(int(v) for v in near), tuple(int(v) for v in far), (235, 235, 235), 90)
        if 1.0 <= t < 1.5:  # A's arm over the card, at rest
            cv2.line(img, tuple(int(v) for v in card), tuple(int(v) for v in seat["A"]), (60, 90, 160), 70)

    _film_arms(w, 50, draw)
    assert w.arms.who(box, 1.2, 1.34) != "A"  # (the jokers' place covers B's strip more than A's arm does A's)
    assert w.arms.who(box, 1.2, 1.34, cards=[joker]) == "A"


def test_the_only_arm_drawing_back_fast_from_a_card_on_a_pai_jie_row_laid_it() -> None:
    """PJ-3 (who played): A's arm leaves the card it laid within a look, so it covers the strip towards A's seat in
    the first look of the card's window only (its mean cover under the bar), and no other arm is over the table
    there: A laid it (rendered Pai Jie 3p s7 17.5 s: A's AC, cover 0.34 -> 0.16, mean 0.22, went to nobody, and A's
    draw of 3 for it was an anomaly)."""
    w, box, card = _card_on_a_row(3, "row:C")
    seat = _seat(w, "A")

    def arm(img: np.ndarray, t: float) -> None:
        if 1.0 <= t < 1.31:  # A's arm over the card, gone (back past the strip) by the next look after 1.3 s
            cv2.line(img, tuple(int(v) for v in card), tuple(int(v) for v in seat), (60, 90, 160), 70)

    _film_arms(w, 60, arm)
    assert w.arms.who(box, 1.3, 1.44) == "A"
    assert w.arms.who(box, 1.34, 1.44) is None  # (the arm gone back: nothing over the strip says who)


def test_the_arm_drawing_back_from_a_card_laid_it_not_a_still_card_on_another_players_side() -> None:
    """PJ-3 (who played): B's arm draws back from the card it laid (cover 0.93 -> 0.24) while the strip towards A's
    seat crosses a card laid there a moment before (still, not yet part of the background: 0.28 all along). An arm
    coming in after the card showed did not lay it; one going back did: rendered Pai Jie 2p s238 2.33 s, B's JS of a
    pair of jacks was given to A (verdicts said alike 7 -> 14 of 19)."""
    w, box, card = _card_on_a_row(2, "row:S")
    seat = {p: _seat(w, p) for p in ("A", "B")}

    def arms(img: np.ndarray, t: float) -> None:
        if t >= 0.9:  # a card laid between this one and A's seat
            mid = card + 0.3 * (seat["A"] - card)
            cv2.rectangle(img, tuple(int(v) for v in mid - (40, 55)), tuple(int(v) for v in mid + (40, 55)),
                          (235, 235, 235), -1)
        if 1.0 <= t < 1.5:  # B's arm over the card, drawing back from 1.3 s
            start = card + min((t - 1.3) / 0.15, 1.0) * 0.8 * (seat["B"] - card) if t >= 1.3 else card
            cv2.line(img, tuple(int(v) for v in start), tuple(int(v) for v in seat["B"]), (60, 90, 160), 70)

    _film_arms(w, 60, arms)
    assert w.arms.who(box, 1.2, 1.34) == "B"
    assert w.arms.who(box, 1.3, 1.44) == "B"


def test_a_card_no_arm_in_view_laid_at_the_frames_edge_is_the_unseen_players() -> None:
    """PJ-3 (who played): a card laid at the frame's edge on a player's side, that player's arm gone past the edge
    before the card shows: no arm in view covers a strip, and the strip towards that player lies outside the frame
    (rendered Pai Jie 2p s12 2.5 s: B's RJ on the jokers' place, given to nobody, then taken as part of A's joker play:
    "Illegal"). The one player the camera cannot see there laid it; where another's arm was over its strip, nobody
    is named, and a card in the middle of the table (every strip in view) with no arm over it names nobody."""
    sc = make_script("paijie", 2, 3, 5.0)
    w = TableWatcher(sc.layout, "paijie", _Model(), 30.0)
    x0, y0, x1, y1 = _middle_box(sc.layout.zones["center"])
    box = (x0, 2.0, x1, 2.0 + (y1 - y0))  # (at the frame's top edge, B's side)
    card = np.array([(box[0] + box[2]) / 2, (box[1] + box[3]) / 2])
    seat = _seat(w, "A")
    for a_arm, want in ((False, "B"), (True, None)):
        w.arms = type(w.arms)(w.layout, 30.0)

        def draw(img: np.ndarray, t: float, a_arm: bool = a_arm) -> None:
            if a_arm and 1.0 <= t < 1.5:  # A's arm over the far end of the strip towards A, too little to be its
                cv2.line(img, tuple(int(v) for v in card + 0.35 * (seat - card)), tuple(int(v) for v in seat),
                         (60, 90, 160), 70)

        _film_arms(w, 50, draw)
        assert w.arms.who(box, 1.2, 1.34) == want, a_arm
    w.arms = type(w.arms)(w.layout, 30.0)
    _film_arms(w, 50, lambda img, t: None)
    _, middle, _ = _card_on_a_row(2, "row:H")
    assert w.arms.who(box, 1.2, 1.34) == "B" and w.arms.who(middle, 1.2, 1.34) is None


def test_the_look_at_the_start_of_a_cards_window_counts_however_its_time_was_rounded() -> None:
    """PJ-3 (who played): the window around a card's landing starts a set time before it; a look at that very time
    is in it, whatever the rounding of the card's time (rendered Pai Jie 2p s11 9.17 s: A's 7S, B's hand coming in
    over it the frame after; the window's first frame left out as 9.1667 - 0.1 fell a hair above 275/30, B's arm
    seemed only to draw back and was given the card)."""
    w, box, card = _card_on_a_row(2, "row:S")
    seat = {p: _seat(w, p) for p in ("A", "B")}

    def arms(img: np.ndarray, t: float) -> None:
        if 0.9 <= t < 1.5:  # A's arm resting over its strip
            cv2.line(img, tuple(int(v) for v in card + 0.35 * (seat["A"] - card)), tuple(int(v) for v in seat["A"]),
                     (60, 90, 160), 70)
        if t >= 1.245:  # B's hand over its strip from the frame after the window's start, going on past B's seat
            start = card + (0.3 + 5 * (t - 1.25)) * (seat["B"] - card)
            cv2.line(img, tuple(int(v) for v in start), tuple(int(v) for v in seat["B"] + 2 * (seat["B"] - card)),
                     (60, 90, 160), 80)

    _film_arms(w, 50, arms)
    t0 = 37 / 30 + 1e-12  # (the window's start a hair after the frame at 37/30, as 1.3333 - 0.1 may come out)
    assert w.arms.who(box, t0, t0 + 0.14) == "A"


class _RowLook(_Model):
    """A detector that boxes one card (``seen``, frame pixels) in whatever crop of the frame it is given."""

    def __init__(self, seen: tuple[float, float, float, float]) -> None:
        self.seen = seen

    def look_at(self, crop: tuple[int, int, int, int]) -> None:
        self.look = crop

    def items(self) -> list[tuple[str, float, tuple]]:
        return [("7H", 0.9, tuple(np.subtract(self.seen, (self.look[0], self.look[1], self.look[0], self.look[1]))))]

    def __call__(self, crop: np.ndarray) -> Detections:
        names, confs, boxes = zip(*self.items(), strict=True)
        return Detections(np.array(boxes, np.float32), np.array(confs, np.float32), np.zeros(len(names), np.int64),
                          np.array(names))


def _hearts_row(sc: Any) -> tuple[float, float, float, tuple, tuple]:
    """A Pai Jie layout's hearts row (x0, y0, y1) and two card places on it: one the detector boxes (its size is a
    card's), and one it leaves unboxed."""
    row = sc.layout.zones["row:H"].polygon
    (x0, y0), y1 = row.min(0), row.max(0)[1]
    return x0, y0, y1, (x0 + 40, y0 + 5, x0 + 115, y1 - 5), (x0 + 300, y0 + 5, x0 + 375, y1 - 5)


def _show(w: TableWatcher, image: np.ndarray, start: int) -> int:
    """``image`` fed to the watcher from frame ``start`` on until a look at it after it has lain still a few frames
    (nothing is read where something moves; a still table is looked at again every ``retry`` frames), whose boxes
    ``w.boxes`` keeps; returns the next frame's index."""
    boxes, i = [], start
    while i < start + STILL_FRAMES + 1 or not w.boxes:
        w.feed(i, i / 30, image)
        boxes, i = w.boxes or boxes, i + 1
        assert i < start + 40
    w.boxes = boxes
    return i


def _lay_on_bare_rows(w: TableWatcher, bare: np.ndarray, cards: tuple) -> np.ndarray:
    """The watcher shown the bare table, then the table with white ``cards`` (frame pixels) laid on it, still: the
    table returned."""
    w.feed(0, 0.0, bare)
    table = bare.copy()
    for x_0, y_0, x_1, y_1 in cards:
        table[int(y_0):int(y_1), int(x_0):int(x_1)] = 235
    _show(w, table, 1)
    return table


def test_a_card_the_detector_leaves_unboxed_on_a_pai_jie_row_is_read_by_the_deck() -> None:
    """PJ-3: the detector leaves some cards on the rows unboxed for seconds (rendered Pai Jie s11's QS lying alone, a
    striped court; s12's 5S, the third of three overlapping spades: the chain of turns broke there). Where a row
    differs from the bare row of the first frame outside every box, with no hand in the look, the deck's pictures
    read a card-sized box there; a hand in the look, or nothing the pictures name, adds nothing."""
    sc = make_script("paijie", 3, 3, 5.0)
    x0, y0, y1, seen, unseen = _hearts_row(sc)
    asked: list[tuple[float, float]] = []

    class Rows(_RowLook):
        hand = False

        def items(self) -> list[tuple[str, float, tuple]]:
            look = (self.look[0], self.look[1], self.look[0], self.look[1])
            hand = [("hand", 0.8, tuple(np.subtract((x0 + 250, y0, x0 + 450, y1 + 200), look)))] if self.hand else []
            return super().items() + hand

        def read_box(self, frame: np.ndarray, box: np.ndarray, want: str | None = None) -> tuple[str | None, float]:
            middle = ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)
            asked.append(middle)
            on_it = abs(middle[0] - (unseen[0] + unseen[2]) / 2) < 20 \
                and abs(middle[1] - (unseen[1] + unseen[3]) / 2) < 20
            return ("QH", 0.8) if on_it else (None, 0.0)

    w = TableWatcher(sc.layout, "paijie", Rows(seen), 30.0)
    width, height = sc.layout.frame_size
    table = _lay_on_bare_rows(w, np.full((height, width, 3), (40, 110, 60), np.uint8), (seen, unseen))
    assert [n for _, n in w.boxes] == ["7H", "QH"]
    w.detector.hand = True
    asked.clear()
    i = _show(w, table, 40)
    assert not any(n == "QH" for _, n in w.boxes) and not asked
    w.detector.hand = False
    for k in range(4):  # the light changes in patches along the row: the largest few are read, not every one
        table[int(y0) + 5:int(y1) - 5, int(x0) + 130 + 90 * k:int(x0) + 200 + 90 * k] = 200
    w.feed(i, i / 30, table)
    assert not asked  # (not while it changes)
    asked.clear()
    _show(w, table, i + 1)
    # (the two largest as patches; the one beside the 7H box also as a strip ending the row's run of cards; and the
    # gap between 7H and QH, ranks apart, looks different now: read again there, TableWatcher._row_gaps)
    gap = ((seen[0] + seen[2]) / 2 + (unseen[0] + unseen[2]) / 2) / 2  # (QH's box is the deck's: about there)
    assert sum(abs(x - gap) < 10 for x, _ in asked) == 1
    assert len([x for x, _ in asked if abs(x - gap) >= 10]) == UNBOXED_MOST + 1 < 4


class _ReadByPlace(_RowLook):
    """Boxes ``seen`` (and a hand where one is set), and reads a card at a box whose middle lies within 12 px of
    one of ``cards`` (frame x of its middle -> code), on the hearts row."""

    def __init__(self, seen: tuple[float, float, float, float], cards: dict[float, str]) -> None:
        super().__init__(seen)
        self.cards, self.asked, self.hand_at = cards, [], None

    def items(self) -> list[tuple[str, float, tuple]]:
        look = (self.look[0], self.look[1], self.look[0], self.look[1])
        hand = [("hand", 0.8, tuple(np.subtract(self.hand_at, look)))] if self.hand_at is not None else []
        return super().items() + hand

    def read_box(self, frame: np.ndarray, box: np.ndarray, want: str | None = None) -> tuple[str | None, float]:
        middle = (box[0] + box[2]) / 2
        self.asked.append(middle)
        return next(((code, 0.8) for x, code in self.cards.items() if abs(middle - x) < 12), (None, 0.0))


@pytest.mark.parametrize("right, read, kept", [("KH", "QH", True), ("KH", "9H", False), ("QH", "10H", False)])
def test_a_card_between_two_row_boxes_whose_ranks_leave_a_gap_is_read_there(right: str, read: str, kept: bool) -> None:
    """PJ-3: a card laid between two on a row lies under the next one's end, and the detector may box it with
    neither, their boxes meeting over it (rendered Pai Jie 4p s5 16.2 s: B's QD between JD and KD, never boxed: B's
    QD-KD straight was ruled a lone KD). Between two boxes whose ranks leave a gap, a card apart or more, the deck's
    pictures read a card-sized box; a card of a rank between theirs is kept. Nothing is asked between cards of
    neighbouring ranks, and a read of a rank outside the gap is no card."""
    sc = make_script("paijie", 3, 3, 5.0)
    x0, y0, y1, _, _ = _hearts_row(sc)
    left, far = (x0 + 40, y0 + 5, x0 + 115, y1 - 5), (x0 + 130, y0 + 5, x0 + 205, y1 - 5)
    between = (x0 + 85, y0 + 5, x0 + 160, y1 - 5)

    class Gap(_ReadByPlace):
        def items(self) -> list[tuple[str, float, tuple]]:
            look = (self.look[0], self.look[1], self.look[0], self.look[1])
            return [("JH", 0.9, tuple(np.subtract(left, look))), (right, 0.9, tuple(np.subtract(far, look)))]

    w = TableWatcher(sc.layout, "paijie", Gap(left, {x0 + 122.5: read}), 30.0)
    width, height = sc.layout.frame_size
    _lay_on_bare_rows(w, np.full((height, width, 3), (40, 110, 60), np.uint8), (left, between, far))
    assert [n for _, n in w.boxes] == ["JH", right] + ([read] if kept else [])
    assert any(abs(m - (x0 + 122.5)) < 2 for m in w.detector.asked) == (right == "KH")


def test_cards_laid_over_each_others_ends_that_no_box_covers_are_read_at_both_ends() -> None:
    """PJ-3: two cards laid over each other's ends on a row, neither boxed, differ from the bare row as one patch
    longer than a card (rendered Pai Jie 3p s5: 10H and JH over its end, read as one card at the patch's middle,
    10H; JH was never seen, nor its straight's draw penalty). A patch longer than a card by UNBOXED_STRIP of one is
    read at both ends."""
    sc = make_script("paijie", 3, 3, 5.0)
    x0, y0, y1, seen, _ = _hearts_row(sc)
    pair = (x0 + 300, y0 + 5, x0 + 420, y1 - 5)  # 120 px: a card (75 px) and 45 px of the next
    model = _ReadByPlace(seen, {x0 + 337.5: "10H", x0 + 382.5: "JH", x0 + 360: "10H"})
    w = TableWatcher(sc.layout, "paijie", model, 30.0)
    width, height = sc.layout.frame_size
    _lay_on_bare_rows(w, np.full((height, width, 3), (40, 110, 60), np.uint8), (seen, pair))
    assert sorted(n for _, n in w.boxes) == ["10H", "7H", "JH"]
    assert not any(abs(x - (x0 + 360)) < 12 for x in model.asked)  # (not at the patch's middle)


def test_a_card_over_the_gap_between_two_boxes_is_read_there_and_a_hand_elsewhere_hides_nothing() -> None:
    """PJ-3: a card laid over the ends of two boxed cards shows between their boxes only, a strip narrower than the
    patch a card alone makes (rendered Pai Jie 3p s6: 9C over 8C and 10C, unboxed for 2.4 s): a strip along the row
    at least UNBOXED_STRIP of a card wide between two boxes is read at its middle. A hand resting elsewhere in the
    look (at a seat, over another row) does not stop the reading; one over the card does."""
    sc = make_script("paijie", 3, 3, 5.0)
    x0, y0, y1, seen, _ = _hearts_row(sc)
    right = (seen[0] + 100, seen[1], seen[2] + 100, seen[3])  # boxed too: a 25 px gap between the two boxes

    class TwoBoxed(_ReadByPlace):
        def items(self) -> list[tuple[str, float, tuple]]:
            look = (self.look[0], self.look[1], self.look[0], self.look[1])
            return super().items() + [("8H", 0.9, tuple(np.subtract(right, look)))]

    gap = (seen[2] + seen[0] + 100) / 2
    model = TwoBoxed(seen, {gap: "9H"})
    model.hand_at = (x0 + 500, y1 + 30, x0 + 700, y1 + 200)  # below the hearts row
    w = TableWatcher(sc.layout, "paijie", model, 30.0)
    width, height = sc.layout.frame_size
    table = _lay_on_bare_rows(w, np.full((height, width, 3), (40, 110, 60), np.uint8),
                              (seen, right, (seen[0] + 40, seen[1] + 3, right[2] - 40, seen[3] - 3)))
    assert sorted(n for _, n in w.boxes if n != "hand") == ["7H", "8H", "9H"]
    model.hand_at = (gap - 30, y0 - 40, gap + 30, y1 + 40)  # over the card
    model.asked.clear()
    _show(w, table, 60)
    assert "9H" not in [n for _, n in w.boxes] and not any(abs(x - gap) < 12 for x in model.asked)


def test_a_card_unboxed_on_a_checked_cloth_is_found_where_the_dark_checks_were() -> None:
    """PJ-3: a white card on a checked cloth differs from the bare row only where the dark checks were (rendered Pai
    Jie s238's KC alone at the end of the clubs row: a patch a third of the size asked for, and the referee never
    heard the illegal play it made). The checks are closed into one patch, and the card is read."""
    sc = make_script("paijie", 3, 3, 5.0)
    _, _, _, seen, unseen = _hearts_row(sc)
    asked: list[tuple[float, float]] = []

    class Rows(_RowLook):
        def read_box(self, frame: np.ndarray, box: np.ndarray, want: str | None = None) -> tuple[str | None, float]:
            asked.append(((box[0] + box[2]) / 2, (box[1] + box[3]) / 2))
            return "QH", 0.8

    w = TableWatcher(sc.layout, "paijie", Rows(seen), 30.0)
    width, height = sc.layout.frame_size
    ys, xs = np.mgrid[0:height, 0:width]
    checks = ((ys // 16 + xs // 16) % 2).astype(bool)  # 16 px checks: a card (75 px wide) covers four or five
    _lay_on_bare_rows(w, np.repeat(np.where(checks, 235, 90).astype(np.uint8)[..., None], 3, axis=2), (seen, unseen))
    assert [n for _, n in w.boxes] == ["7H", "QH"]
    gap = ((seen[0] + seen[2]) / 2 + (unseen[0] + unseen[2]) / 2) / 2  # (7H and QH leave a gap: asked there too)
    patches = [a for a in asked if abs(a[0] - gap) >= 10]
    assert len(patches) == 1 and abs(patches[0][0] - (unseen[0] + unseen[2]) / 2) < 12
    # a row card the detector stops boxing is asked of the deck's pictures at its place, in the frame looked at
    assert all(tr.still_lies == w._still_lies for tr in w.trackers if tr.row)
    assert w._still_lies("QH", unseen) and not w._still_lies("KH", unseen)


def test_a_row_card_asked_about_again_on_an_unchanged_table_is_not_searched_for_again() -> None:
    """PJ-3: a row's cards under later ones are asked about every look (``still_lies``); while the table at a card's
    place is as it was when last asked, the answer stands without another search of the deck's pictures (rendered
    Pai Jie 4p s11: 598 asked, 3.9 s of a 19 s audit). A hand or a card over the place is asked about anew."""
    sc = make_script("paijie", 3, 3, 5.0)
    _, _, _, seen, unseen = _hearts_row(sc)
    asked: list[tuple[float, float]] = []
    answer = ["QH"]

    class Rows(_RowLook):
        def read_box(self, frame: np.ndarray, box: np.ndarray, want: str | None = None) -> tuple[str | None, float]:
            asked.append(((box[0] + box[2]) / 2, (box[1] + box[3]) / 2))
            return answer[0], 0.8

    w = TableWatcher(sc.layout, "paijie", Rows(seen), 30.0)
    width, height = sc.layout.frame_size
    rng = np.random.default_rng(2)
    w._image = rng.integers(60, 200, (height, width, 3), dtype=np.uint8)
    assert w._still_lies("QH", unseen) and len(asked) == 1
    w._image = np.clip(w._image.astype(np.int16) + rng.integers(-3, 4, w._image.shape), 0, 255).astype(np.uint8)
    answer[0] = None  # (a search now would say otherwise: the answer given stands, nothing changed there)
    assert w._still_lies("QH", unseen) and len(asked) == 1  # codec noise: the same table
    assert not w._still_lies("KH", unseen) and len(asked) == 2  # another card asked about: searched
    x0, y0, x1, y1 = (int(v) for v in unseen)
    w._image[y0:y1, x0:(x0 + x1) // 2] = 250  # a card laid over half of it
    assert not w._still_lies("QH", unseen) and len(asked) == 3


@pytest.mark.parametrize("game, players, twice", [("speed", 2, False), ("spit", 2, True), ("snap", 3, True),
                                                  ("paijie", 3, True)])
def test_only_where_cards_lie_still_a_while_a_read_of_look_alikes_waits_to_be_read_twice(game: str, players: int,
                                                                                            twice: bool) -> None:
    """TM-1: a read that told look-alikes apart by their shapes alone stands once a second search names it too
    (``DeckMatcher.read_twice``); not in Speed, where hands fly over a card lying a moment, and a second search named
    the old top's look-alike, confirmed with the next card as a race (rendered Speed 2p s6 1.9 s: JH read JD)."""
    from models.deckmatch import DeckMatcher
    from models.scenes import FaceSet

    sc = make_script(game, players, 3, 5.0)
    model = _Model()
    deck = FaceSet("builtin").deck(np.random.default_rng(0))
    model.deck = DeckMatcher({c: deck.image(c, 88) for c in ("AS", "AC")}, sc.layout.homography)
    TableWatcher(sc.layout, game, model, 30.0)
    assert model.deck.read_twice is twice


def test_a_spit_column_card_read_again_as_its_look_alike_is_corrected_when_it_lands_read_so() -> None:
    """ST-3 (nothing lands on a face-up column card) with ST-2: B's 4C turned up on column 3 was read 4S (rendered
    Spit 2p s12 1.77 s), its line long out when the still card was read 4C at its place (4.0 s); the 4C was logged
    as a new card there (an ST-3 anomaly), then played on the left pile, read 4C, and refused (no column showed
    4C): "Not stuck, B: the four goes on the three" followed. The column's read again is kept aside; when the card
    lands on a centre pile read as it, a ``card`` line with ``misread`` renames the column's card, just before the
    play. Landing read as the card the column was logged as, the read again is dropped (looks of one still card
    flip between look-alikes: rendered Spit 2p s7 2.2 s, JS read JS, JC, JS, JC). A card elsewhere is no read again."""
    from engine.games import new_referee

    def column_read_again(second: str = "4C", started: bool = True) -> tuple[TableWatcher, list[Event]]:
        w = TableWatcher(make_script("spit", 2, 12, 5.0).layout, "spit", lambda crop: Detections(), 30.0)
        if started:
            w._spit_due.clear()  # (the spit cards landed at 2.86 s: what lands now is played from a column)
        col = next(tr for tr in w.trackers if tr.zone.name == "col:B:3")
        box = _middle_box(col.zone)
        out: list[Event] = []
        for i in range(4):
            w._look(col, 53 + 2 * i, 1.7667 + i / 15, dets(("4S", box)))
        out += w._release(4.0)
        for i in range(3):
            w._look(col, 121 + 2 * i, 4.0333 + i / 15, dets((second, box)))
        return w, out

    def land(w: TableWatcher, t: float, card: str) -> list[Event]:
        left = next(tr for tr in w.trackers if tr.zone.name == "left")
        w._landed(left, [CardSeen(t, "left", card, 0.9, int(t * 30), (551.0, 311.0, 631.0, 422.0), t + 0.05)])
        return w._release(t + 3.0)

    w, out = column_read_again()
    assert [(e.zone, e.card) for e in out] == [("col:B:3", "4S")]
    assert w._release(5.0) == []  # the read again makes no line of its own
    lines = land(w, 5.108, "4C")
    assert [(e.zone, e.card, e.misread) for e in lines] == [("col:B:3", "4C", "4S"), ("left", "4C", None)]
    assert lines[0].t < lines[1].t
    ref = new_referee(GameHeader("spit", ("A", "B")))  # the deal (B's column 3 logged 4S) and the spit cards
    tops = {"A": ["7H", "6S", "6D", "4H", "2D"], "B": ["10D", "JS", "4S", "3C", "10S"]}
    deal = [Event(t=1.0 + k / 10, type="card", zone=f"col:{p}:{k + 1}", card=c, source="deal")
            for p, cards in tops.items() for k, c in enumerate(cards)]
    spat = [Event(t=2.86, type="card", zone="left", card="3H", player="A", source="spit"),
            Event(t=2.88, type="card", zone="right", card="8D", player="B", source="spit")]
    for ev in deal + spat:
        assert ref.push(ev) == []
    plain = ref.copy()
    assert [o.to_dict()["type"] for o in plain.push(lines[1]) + plain.finish()] == ["anomaly"]  # no column shows 4C
    ruled = [o.to_dict() for ev in lines for o in ref.push(ev)] + [o.to_dict() for o in ref.finish()]
    assert [(o["kind"], o["say"]) for o in ruled] == [("legal_play", "B: four on three")]

    w, _ = column_read_again()
    assert [(e.zone, e.card, e.misread) for e in land(w, 5.108, "4S")] == [("left", "4S", None)]
    assert w._read_again_as == {}

    w, _ = column_read_again("9S")  # not a look-alike: a new card (the 4S went unseen)
    assert "9S" not in w._read_again_as and ("col:B:3", "9S") in {(c.zone, c.card) for c in w.cards}

    # a spit card due on the pile (ST-2: the piles' first cards) comes from a spit stack, not the column: the read
    # again was wrong (rendered held-out Spit 2p s5 3.19 s, filmed as a print: B's spit card 6S, and column 4's 6C
    # read 6S once, renamed 6S and taken for played there, and every later play on that pile refused)
    w, _ = column_read_again(started=False)
    assert [(e.zone, e.card, e.misread) for e in land(w, 5.108, "4C")] == [("left", "4C", None)]
    assert w._read_again_as == {}
    assert ("col:B:3", "4S") in {(c.zone, c.card) for c in w.cards}


def test_a_spit_card_due_on_a_centre_pile_is_no_column_top_and_a_play_is_one() -> None:
    """ST-2 and ST-4: the piles' first cards, and the cards flipped after both players said "stuck", come from the
    spit stacks, not the columns, whose tops still lie there (one deck): of look-alikes, such a card is not read as
    a column's top (rendered Spit 2p s7 2.44 s: A's spit card JC read JS, column 3's top, as the column tops were
    expected on the centre piles; the referee then held JS on the pile and on the column). Once a card lands, the
    next is a play: a column's top is expected there again, till both say "stuck"."""
    from models.deckmatch import deck_read

    w = TableWatcher(make_script("spit", 2, 7, 5.0).layout, "spit", lambda crop: Detections(), 30.0)
    col = next(tr for tr in w.trackers if tr.zone.name == "col:A:3")
    col.top = "JS"
    left = next(tr for tr in w.trackers if tr.zone.name == "left")
    on_left = _middle_box(left.zone)
    assert w._column_tops_over_centre(on_left) == set() and w._not_there_in_spit(on_left) == {"JS"}
    match = np.full(len(FACES), -1.0)
    match[FACES.index("JS")], match[FACES.index("JC")] = 0.899, 0.898  # (the deck's JS and JC alike)
    assert FACES[deck_read(match, elsewhere=[FACES.index("JS")])[0]] == "JC"
    w._landed(left, [CardSeen(2.44, "left", "JC", 0.9, 73, on_left, 2.5)])
    assert w._column_tops_over_centre(on_left) == {"JS"} and w._not_there_in_spit(on_left) == set()
    assert FACES[deck_read(match, expected=[FACES.index("JS")])[0]] == "JS"
    w.heard(Event(t=6.0, type="stuck", player="A"))
    assert w._not_there_in_spit(on_left) == set()  # (one stuck: the other may still play)
    w.heard(Event(t=6.1, type="stuck", player="B"))
    assert w._not_there_in_spit(on_left) == {"JS"} and w._column_tops_over_centre(on_left) == set()


def test_a_spit_column_top_its_column_still_shows_is_not_expected_on_a_centre_pile() -> None:
    """ST-2 (a card played on a centre pile comes from a column's top) with one deck: a column's top that the
    column's latest look read there still lies there, so it is not expected on a centre pile; once a look misses it
    (picked up), it is (rendered Spit 2p s11 15.3 s: JS turned up on A's column 1, and the right pile's JC, lying
    still, was read as the expected look-alike JS for four looks: "Illegal: jack on jack")."""
    w = TableWatcher(make_script("spit", 2, 11, 5.0).layout, "spit", lambda crop: Detections(), 30.0)
    col = next(tr for tr in w.trackers if tr.zone.name == "col:A:1")
    on_col = _middle_box(col.zone)
    right = next(tr for tr in w.trackers if tr.zone.name == "right")
    on_right = _middle_box(right.zone)
    w._landed(right, [CardSeen(14.6, "right", "JC", 0.9, 438, on_right, 14.7)])  # (the spit card: a play is next)
    col.top = "JS"
    assert w._column_tops_over_centre(on_right) == {"JS"}  # (never looked at: as before)
    col.update(460, 15.3, dets(("JS", on_col)))
    assert w._column_tops_over_centre(on_right) == set()
    col.update(462, 15.37, dets(("hand", on_col)))  # (a hand picks it up)
    assert w._column_tops_over_centre(on_right) == {"JS"}


def test_a_card_turned_up_on_a_spit_column_that_a_pile_was_logged_with_corrects_the_piles_card() -> None:
    """ST-3 (a turned-up card is new: one deck) with SP-8 (only an illegal card goes back on its column): rendered
    held-out Spit 2p s6, the left pile's 7C read 7S at 8.17 s and ruled; B's 7S turned up on column 4 at 14.05 s was
    taken for the 7S moved off the pile (a refused ``remove``, "7S is already on the table"), and the referee, still
    holding a face-down card there, told B "Not stuck: turn up the card in column 4" when both were stuck. The
    pile's card was 7S's look-alike: a ``card`` line with ``misread`` says so, before the column's line. An illegal
    card, or one whose line is hardly out (not ruled yet), is taken back as before (a ``remove``)."""
    from engine.games import new_referee

    def turn_up_7s(illegal: bool = False, since: float = 5.0) -> list[Event]:
        w = TableWatcher(make_script("spit", 2, 6, 5.0).layout, "spit", lambda crop: Detections(), 30.0)
        left = next(tr for tr in w.trackers if tr.zone.name == "left")
        col = next(tr for tr in w.trackers if tr.zone.name == "col:B:4")
        left.stack, left.top, left._seen_at = ["8D", "7S"], "7S", {"8D": 2.9, "7S": 8.17}
        w.cards.append(CardSeen(8.17, "left", "7S", 0.9, 245, _middle_box(left.zone), 8.3))
        w._released_t = 8.17 + since
        if illegal:
            w.ruled({"t": 8.19, "type": "verdict", "kind": "illegal_play", "zone": "left", "card": "7S"})
        w._landed(col, [CardSeen(14.05, "col:B:4", "7S", 0.9, 431, _middle_box(col.zone), 14.1)])
        return [e for _, _, e, _ in sorted(w._pending)]

    lines = turn_up_7s()
    assert [(e.type, e.zone, e.card, e.misread) for e in lines] == [
        ("card", "left", "7C", "7S"), ("card", "col:B:4", "7S", None)]
    ref = new_referee(GameHeader("spit", ("A", "B")))  # (A's 7C, column 2's top, logged 7S all along)
    deal = [Event(t=1.0 + k / 10, type="card", zone=f"col:{p}:{k + 1}", card=c, source="deal")
            for p, cards in {"A": ["4H", "7S", "KD", "9C", "2H"], "B": ["QS", "JD", "5C", "AS", "10H"]}.items()
            for k, c in enumerate(cards)]
    spat = [Event(t=2.9, type="card", zone="left", card="8D", player="A", source="spit"),
            Event(t=2.92, type="card", zone="right", card="2C", player="B", source="spit")]
    plays = [Event(t=8.17, type="card", zone="left", card="7S", player="A"),
             Event(t=9.0, type="card", zone="right", card="AS", player="B")]  # (column 4 shows a face-down card)
    ruled = [o for ev in [*deal, *spat, *plays] for o in ref.push(ev)] + ref.advance(10.0)
    assert [o.to_dict()["kind"] for o in ruled] == ["legal_play"] * 2
    assert [o.to_dict()["type"] for ev in lines for o in ref.push(ev)] == []  # (B's 7S: a turn-up)
    assert ref.up["col:B:4"] == ["7S"] and ref.top["left"] == "7C"
    assert [(e.type, e.zone, e.card) for e in turn_up_7s(illegal=True)] == [
        ("remove", "left", "7S"), ("card", "col:B:4", "7S")]
    assert [e.type for e in turn_up_7s(since=0.2)] == ["remove", "card"]


def test_a_spit_column_card_read_as_its_look_alike_is_corrected_where_it_lands_after_its_line_is_out() -> None:
    """ST-2/ST-3: as above (rendered Spit 2p s12: B's KC read KS at 0.9 on column 3 at 10.4 s, read KC at 0.9 on the
    right pile at 11.1 s), but the column's line is out already (the live loop releases cards at once): a ``card``
    line with ``misread`` renames the column's card just before the play, which the referee then rules (refused
    before, and at 14.1 s "Not stuck, B: the king goes on the ace" where both were stuck). Not where the column
    read its card at its place after the card landed (it never left), nor where the column's read was surer, nor
    for a card logged on a column before (it came from there: held-out s5's AD, its column seen bare first)."""

    def play_kc(conf: float = 0.9, seen_after: bool = False, from_column: bool = False, spat: bool = False,
                covered_by: str | None = None) -> list[Event]:
        w = TableWatcher(make_script("spit", 2, 12, 5.0).layout, "spit", lambda crop: Detections(), 30.0)
        col = next(tr for tr in w.trackers if tr.zone.name == "col:B:3")
        col.history.add("KS")
        col.stack.append("KS")
        col.top = "KS"
        col._seen_at["KS"] = 10.433
        if seen_after:
            col._last_seen["KS"] = 11.2
        w.cards.append(CardSeen(10.433, "col:B:3", "KS", 0.9, 313, _middle_box(col.zone), 10.5))
        if from_column:  # (KC lay on A's column 5, seen bare before KC was confirmed on the pile)
            w.cards.append(CardSeen(9.0, "col:A:5", "KC", 0.9, 270, (785.0, 501.0, 853.0, 587.0), 9.1))
        w._released_t = 10.9
        if not spat:
            w._spit_due.clear()  # (the piles started long ago: a card landing is a play, no spit card)
        right = next(tr for tr in w.trackers if tr.zone.name == "right")
        landed = [CardSeen(11.113, "right", "KC", conf, 334, (658.0, 306.0, 760.0, 421.0), 11.2,
                           covered=covered_by is not None)]
        if covered_by is not None:  # (KC only read as it came in, under the card confirmed on it)
            landed.append(CardSeen(11.2, "right", covered_by, 0.9, 336, (660.0, 306.0, 762.0, 421.0), 11.27))
        w._landed(right, landed)
        return [e for _, _, e, _ in sorted(w._pending)]

    lines = play_kc()
    assert [(e.zone, e.card, e.misread) for e in lines] == [("col:B:3", "KC", "KS"), ("right", "KC", None)]
    assert lines[0].t < lines[1].t
    assert [(e.zone, e.card) for e in play_kc(conf=0.8)] == [("right", "KC")]
    assert [(e.zone, e.card) for e in play_kc(seen_after=True)] == [("right", "KC")]
    assert [(e.zone, e.card) for e in play_kc(from_column=True)] == [("right", "KC")]
    assert [(e.zone, e.card) for e in play_kc(spat=True)] == [("right", "KC")]  # (a spit card: from no column)
    # a KC confirmed only as covered by the next card may be that card misread in flight: it renames no column
    assert [(e.zone, e.card) for e in play_kc(covered_by="QD")] == [("right", "KC"), ("right", "QD")]


def test_a_card_turned_up_on_a_spit_column_that_the_other_players_column_shows_is_its_look_alike() -> None:
    """ST-3 (a column takes only its own player's cards) and one deck: B's JC turned up on column 5 read JS, which
    A's column showed (rendered Spit 2p s11 14.3 s): the referee refused it and kept a face-down card there ("Not
    stuck, B: turn up the card in column 5"), and B's play of it was taken for A's. It is logged as the look-alike,
    and the column's tracker holds that; not where the look-alike is a column's top too."""

    def turn_up(a_tops: tuple[str, ...]) -> tuple[list[tuple[str, str]], str | None]:
        w = TableWatcher(make_script("spit", 2, 11, 5.0).layout, "spit", lambda crop: Detections(), 30.0)
        for k, code in enumerate(a_tops, 1):
            next(tr for tr in w.trackers if tr.zone.name == f"col:A:{k}").top = code
        col = next(tr for tr in w.trackers if tr.zone.name == "col:B:5")
        for i in range(3):
            w._look(col, 430 + 2 * i, 14.33 + i / 15, dets(("JS", _middle_box(col.zone))))
        return [(e.zone, e.card) for _, _, e, _ in sorted(w._pending)], col.top

    assert turn_up(("JS",)) == ([("col:B:5", "JC")], "JC")
    assert turn_up(("JS", "JC")) == ([("col:B:5", "JS")], "JS")  # (JC lies on A's column 2: no guess)
    assert turn_up(("QS",)) == ([("col:B:5", "JS")], "JS")


def test_a_spit_card_never_goes_onto_a_column_though_a_column_reads_as_it() -> None:
    """ST-2: a spit card comes from its player's spit stack and stays on its centre pile. Rendered held-out Spit 2p
    s7 2.69 s: A's spit card JC on the left pile; 0.25 s later column 3's JS was read JC (0.64) and taken for the JC
    moved there from the pile (a ``remove`` the referee refused), and the left pile lost its top: A's JS, played
    there at 4.78 s, was read JC, "already on the table", and eleven plays after it were ruled on the wrong top."""
    w = TableWatcher(make_script("spit", 2, 7, 5.0).layout, "spit", lambda crop: Detections(), 30.0)
    trs = {tr.zone.name: tr for tr in w.trackers}
    out: list[Event] = []
    for i, t in enumerate((1.1, 1.167, 1.233)):
        w._look(trs["col:A:3"], 33 + 2 * i, t, dets(("JS", _middle_box(trs["col:A:3"].zone))))
    out += w._release(2.4)  # (the column's line out)
    for i, t in enumerate((2.467, 2.533, 2.6)):  # the spit card, due on the left pile
        w._look(trs["left"], 74 + 2 * i, t, dets(("JC", _middle_box(trs["left"].zone))))
    for i, t in enumerate((2.667, 2.733, 2.8)):
        w._look(trs["col:A:3"], 80 + 2 * i, t, dets(("JC", _middle_box(trs["col:A:3"].zone))))
    out += w._release(10.0)
    assert ("card", "left", "JC") in [(e.type, e.zone, e.card) for e in out]
    assert not [e for e in out if e.type == "remove"]
    assert trs["left"].top == "JC"
