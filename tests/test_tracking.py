"""The pile tracker: hysteresis, one-deck history, dating a card back to the frame it appeared (EVENTS.md
``card``: the time a face-up card *became* the visible top)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration.layout import Zone
from models.detector import Detections
from vision.tracking import PileTracker, zone_crop

ZONE = Zone("center", np.array([[100.0, 100.0], [300.0, 100.0], [300.0, 300.0], [100.0, 300.0]]))
FRAME = (640, 480)


def dets(*items: tuple[str, float, tuple[float, float, float, float]]) -> Detections:
    if not items:
        return Detections()
    names, confs, boxes = zip(*items, strict=True)
    return Detections(np.array(boxes, np.float32), np.array(confs, np.float32), np.zeros(len(items), np.int64),
                      np.array(names))


def _feed_looks(tr: PileTracker, looks: list[tuple[tuple, tuple]]) -> list:
    """One look a frame for each (the cards lying on the table, what the detector sees): each card painted a shade
    darker than the one it was laid after. The cards confirmed, in order."""
    confirmed = []
    for i, (cards, seen) in enumerate(looks):
        img = np.full((480, 640, 3), 90, np.uint8)
        for k, (_, _, (x0, y0, x1, y1)) in enumerate(cards):
            img[int(y0):int(y1), int(x0):int(x1)] = 240 - 50 * k
        tr.remember(i, i / 30, img)
        s = tr.update(i, i / 30, dets(*seen))
        confirmed += [s] if s is not None else []
    return confirmed


def _look(tr: PileTracker, i: int, img: np.ndarray, d: Detections) -> list:
    """Frame ``i`` (30 fps) and its detections ``d``: the cards confirmed, those the top covered first."""
    tr.remember(i, i / 30, img)
    s = tr.update(i, i / 30, d)
    landed = [*tr.also, *([s] if s else [])]
    tr.also.clear()
    return landed


def frame_with(card: bool, hand: bool = False) -> np.ndarray:
    """A grey table; a white card (with a dark mark) in the zone; optionally a hand over part of it."""
    img = np.full((480, 640, 3), 90, np.uint8)
    if card:
        img[150:260, 160:240] = 240
        img[170:190, 170:190] = 20
    if hand:
        img[120:300, 120:330] = (120, 150, 200)
    return img


def lay_over(img: np.ndarray, code: str) -> Detections:
    """The next card, ``code``, laid over the lower right of the one :func:`frame_with` draws (drawn on ``img``): the
    detections of a look at it."""
    img[180:290, 190:270] = 235
    img[250:270, 240:260] = 40
    return dets((code, 0.9, (190.0, 180.0, 270.0, 290.0)))


def test_crop_is_square_inside_the_frame_and_holds_the_zone() -> None:
    x0, y0, x1, y1 = zone_crop(ZONE, FRAME)
    assert x1 - x0 == y1 - y0 >= 320
    assert x0 >= 0 and y0 >= 0 and x1 <= 640 and y1 <= 480
    assert x0 <= 100 and y0 <= 100 and x1 >= 300 and y1 >= 300
    edge = Zone("e", np.array([[560.0, 400.0], [640.0, 400.0], [640.0, 480.0], [560.0, 480.0]]))
    ex0, ey0, ex1, ey1 = zone_crop(edge, FRAME)
    assert ex1 == 640 and ey1 == 480 and ex1 - ex0 == 320


def test_new_card_needs_two_runs_and_is_dated_back_to_its_first_frame() -> None:
    tr = PileTracker(ZONE, zone_crop(ZONE, FRAME), every=1, retry=3)
    box = (160.0, 150.0, 240.0, 260.0)
    seen, runs = [], []
    # frames 0-2: empty; 3-4: a hand lays the card; from 5 the card shows, the hand is gone
    for i in range(14):
        img = frame_with(card=i >= 3, hand=i in (3, 4))
        t = i / 30
        if not tr.remember(i, t, img):
            continue
        runs.append(i)
        hand = ("hand", 0.8, (200.0, 180.0, 330.0, 300.0))
        d = dets(("7H", 0.9, box)) if i >= 6 else dets(hand) if i in (3, 4) else dets()  # missed in frame 5
        s = tr.update(i, t, d)
        if s:
            seen.append(s)
    assert runs == [0, 3, 5, 8, 9, 12]  # changes, a still pile looked at again (retry), the confirming run
    assert len(seen) == 1
    s = seen[0]
    assert s.card == "7H" and s.zone == "center"
    assert s.frame == 9  # confirmed on the second run that saw it
    assert abs(s.t - 5 / 30) < 1e-9  # but it showed (uncovered) from frame 5


def test_a_pile_looked_at_and_seen_bare_is_looked_at_again_at_once() -> None:
    """TM-1: a look that sees nothing where cards lie (the detector missed a card just turned over on the pile) is
    followed by another at the next chance, not after ``retry`` frames of a still table: a slap may cover the card
    a few frames later. A card read once is looked at again the next frame too."""
    tr = PileTracker(ZONE, zone_crop(ZONE, FRAME), every=2, retry=10)
    box = (160.0, 150.0, 240.0, 260.0)
    seven, queen = frame_with(card=True), frame_with(card=True)
    queen[160:250, 170:230] = 30  # (the queen's figure)
    runs, seen = [], []
    for i in range(16):
        img = seven if i < 6 else queen
        if not tr.remember(i, i / 30, img):
            continue
        runs.append(i)
        # 7H lies there; QC lands on it in frame 6; the detector misses the pile at frame 6 and 8
        d = dets(("7H", 0.9, box)) if i < 6 else dets() if i < 10 else dets(("QC", 0.9, box))
        s = tr.update(i, i / 30, d)
        if s:
            seen.append(s)
    assert runs[:6] == [0, 1, 6, 8, 10, 11], runs  # (1: 7H read once; 8, 10: the pile seen bare; 11: QC read once)
    assert [s.card for s in seen] == ["7H", "QC"]
    assert seen[1].frame == 11 and abs(seen[1].t - 6 / 30) < 1e-9


def test_a_single_flicker_is_not_a_card() -> None:
    tr = PileTracker(ZONE, zone_crop(ZONE, FRAME), every=1)
    box = (160.0, 150.0, 240.0, 260.0)
    img = frame_with(card=True)
    out = []
    for i in range(6):
        tr.remember(i, i / 30, img)
        out.append(tr.update(i, i / 30, dets(("7H", 0.9, box)) if i == 2 else dets(("8H", 0.9, box)) if i == 3
                             else dets()))
    assert not any(out)


def test_low_confidence_and_outside_the_zone_are_ignored() -> None:
    tr = PileTracker(ZONE, zone_crop(ZONE, FRAME), every=1)
    img = frame_with(card=True)
    for i in range(4):
        tr.remember(i, i / 30, img)
        assert tr.update(i, i / 30, dets(("7H", 0.2, (160, 150, 240, 260)), ("9S", 0.9, (400, 300, 460, 380)))) \
            is None


def test_a_buried_card_peeking_out_is_not_played_again_until_the_pile_is_taken() -> None:
    tr = PileTracker(ZONE, zone_crop(ZONE, FRAME), every=1)
    top, under = (160.0, 150.0, 240.0, 260.0), (150.0, 140.0, 230.0, 250.0)
    seven, queen = frame_with(card=True), frame_with(card=True)
    queen[200:240, 200:230] = 30  # the queen lands on the seven: its part of the pile looks different
    cards = []
    script = [("7H",)] * 2 + [("QC", "7H")] * 3 + [("QC",)] * 2 + [("QC", "7H")] * 2 + [("hand",)] + [()] * 3 \
        + [("7H",)] * 2
    for i, names in enumerate(script):
        tr.remember(i, i / 30, seven if i < 2 or i >= 13 else queen if i < 9 else frame_with(card=False))
        s = tr.update(i, i / 30, dets(*[(n, 0.9, top if k == 0 else under) for k, n in enumerate(names)]))
        if s:
            cards.append(s.card)
    # 7H, then QC on it; 7H peeking out again is old; after a hand took the pile and it is seen empty, a 7H is a
    # new card
    assert cards == ["7H", "QC", "7H"]


def test_a_pile_the_detector_misses_with_no_hand_over_it_is_still_there() -> None:
    """A pile goes only in a hand: looks that see nothing on it, with no hand over it since it last showed (the
    detector missed a card just turned over), do not empty it, so the cards under it are not new when they show."""
    tr = PileTracker(ZONE, zone_crop(ZONE, FRAME), every=1)
    top, under = (160.0, 150.0, 240.0, 260.0), (150.0, 140.0, 230.0, 250.0)
    cards = []
    seven, queen = frame_with(card=True), frame_with(card=True)
    queen[200:240, 200:230] = 30
    script = [("7H",)] * 2 + [("QC", "7H")] * 2 + [()] * 3 + [("7H",)] * 3
    for i, names in enumerate(script):
        tr.remember(i, i / 30, seven if i < 2 else queen)
        s = tr.update(i, i / 30, dets(*[(n, 0.9, top if k == 0 else under) for k, n in enumerate(names)]))
        if s:
            cards.append(s.card)
    assert cards == ["7H", "QC"]
    assert tr.top == "QC"


def test_unchanged_crop_is_not_detected_again() -> None:
    tr = PileTracker(ZONE, zone_crop(ZONE, FRAME), every=1, retry=10)
    img = frame_with(card=True)
    runs = [tr.remember(i, i / 30, img) for i in range(5)]
    assert runs == [True, False, False, False, False]
    assert tr.remember(5, 5 / 30, frame_with(card=False))  # the pile changed: look again


def test_one_misread_between_two_reads_is_forgiven() -> None:
    tr = PileTracker(ZONE, zone_crop(ZONE, FRAME), every=1)
    box = (160.0, 150.0, 240.0, 260.0)
    img = frame_with(card=True)
    got = []
    for i, name in enumerate(["7H", "7D", "7H", "7H"]):
        tr.remember(i, i / 30, img)
        s = tr.update(i, i / 30, dets((name, 0.8, box)))
        got.append(s.card if s else None)
    assert got == [None, None, "7H", None]


def test_a_second_reading_of_the_same_card_is_not_a_new_card() -> None:
    """Nothing changed on the pile since 5H showed: a later 5D read there is the same card misread, not a play."""
    tr = PileTracker(ZONE, zone_crop(ZONE, FRAME), every=1)
    box = (160.0, 150.0, 240.0, 260.0)
    empty, card = frame_with(card=False), frame_with(card=True)
    seen = []
    reads = [(), (), ("5H",), ("5H",), ("5D",), ("5D",), ("5D",), ("5H",)]
    for i, names in enumerate(reads):
        tr.remember(i, i / 30, empty if i < 2 else card)
        s = tr.update(i, i / 30, dets(*[(n, 0.9, box) for n in names]))
        if s:
            seen.append((s.card, round(s.t * 30)))
    assert seen == [("5H", 2)]
    later = frame_with(card=True)
    later[150:260, 160:240] = 200  # another card lands: the pile changes
    for i in range(8, 11):
        tr.remember(i, i / 30, later)
        s = tr.update(i, i / 30, dets(("9C", 0.9, box)))
        if s:
            seen.append((s.card, round(s.t * 30)))
    assert seen == [("5H", 2), ("9C", 8)]


def test_a_card_is_dated_from_the_look_that_first_read_it_though_a_hand_covers_it_by_the_confirming_look() -> None:
    """EVENTS.md ``card``: a slap arriving over a new card between the two looks that confirm it must not make the
    card look newer (SN-5: a slap 30 ms after the card showed was taken for the hand that laid it)."""
    tr = PileTracker(ZONE, zone_crop(ZONE, FRAME), every=1, retry=3)
    box = (160.0, 150.0, 240.0, 260.0)
    seen = []
    for i in range(8):
        img = frame_with(card=i >= 3)
        if i >= 5:  # a hand comes over the lower half of the card from frame 5 on
            img[200:300, 120:330] = (120, 150, 200)
        tr.remember(i, i / 30, img)
        s = tr.update(i, i / 30, dets(("7H", 0.9, box)) if i in (4, 6) else dets())
        if s:
            seen.append(s)
    assert [s.card for s in seen] == ["7H"] and seen[0].frame == 6
    assert abs(seen[0].t - 3 / 30) < 1e-9  # first read in frame 4, and it looked so from frame 3


def _face_or_back(face: bool, shift: int = 0, hand_to: int = 0) -> np.ndarray:
    """A card at (160, 150)-(240, 260), shifted ``shift`` px right: its face (pips: dark squares on white) or its
    back (dark stripes); a hand (flat, skin-coloured) over the rows above ``hand_to``."""
    img = np.full((480, 640, 3), 90, np.uint8)
    x0 = 160 + shift
    if face:
        img[150:260, x0:x0 + 80] = 240
        for py in range(160, 250, 14):
            for px in range(8, 72, 14):
                img[py:py + 7, x0 + px:x0 + px + 7] = 30
    else:
        img[150:260, x0:x0 + 80] = 200
        for py in range(155, 255, 8):
            img[py:py + 4, x0 + 4:x0 + 76] = 60
    if hand_to:
        img[100:hand_to, 120:330] = (120, 150, 200)
    return img


@pytest.mark.parametrize("case", ["under a hand", "sliding in"])
def test_a_card_turned_up_under_the_hand_that_turned_it_is_dated_from_when_it_first_partly_showed(case: str) -> None:
    """EVENTS.md ``card`` (ST-2: a column's next card turned up): the hand that turned the card stays over part of
    it for frames (rendered Spit s238 10.1 s: B's 2C, its index bare from the first frame, its middle clean only 5
    frames later). The card showed from the first frame its bare part matches it, still (back before it, as turned
    up). A card sliding the last pixels into place (Spit s238 13.2 s: JD moved from another column) matches in part
    as well, but better shifted: it landed when it stopped."""
    tr = PileTracker(ZONE, zone_crop(ZONE, FRAME), every=1, retry=3)
    box = (160.0, 150.0, 240.0, 260.0)
    for i in range(12):
        if i < 4:
            img = _face_or_back(False, hand_to=210 if i >= 2 else 0)
        elif case == "under a hand" and i < 8:
            img = _face_or_back(True, hand_to=205)
        elif i < 8:
            img = _face_or_back(True, shift=(12, 9, 6, 4)[i - 4])
        else:
            img = _face_or_back(True)
        tr.remember(i, i / 30, img)
    shown = tr.first_seen(box, 11 / 30)
    assert shown == pytest.approx((4 if case == "under a hand" else 8) / 30)


def _spot_card(pips: list[tuple[int, int]]) -> np.ndarray:
    """A frame with a white card (160..240, 150..260) on a green cloth, black pips at ``pips`` (frame pixels)."""
    img = np.full((FRAME[1], FRAME[0], 3), (40, 110, 60), np.uint8)
    img[150:260, 160:240] = 235
    for x, y in pips:
        cv2.circle(img, (x, y), 6, (20, 20, 20), -1)
    return img


def test_a_spot_card_laid_just_where_the_last_one_lay_is_dated_from_when_it_landed() -> None:
    """EVENTS.md ``card`` (ST-2, SP-2): a card's middle is mostly plain white, and the next card laid just where the
    last one lay matched it in 80 % of its pixels: rendered Spit 2p s6's 4S on 5S was dated back to 5S's landing,
    taken for 5S misread, and the pile stuck at 5S for the rest of the game (three cards lost). A card's middle looked
    as it does now only while its telling pixels (its pips) matched too."""
    five = [(180, 170), (220, 170), (200, 205), (180, 240), (220, 240)]
    four = [(180, 170), (220, 170), (180, 240), (220, 240)]
    four_here = [(x + 2, y - 2) for x, y in four]  # (laid a pixel or two off)
    tr = PileTracker(ZONE, zone_crop(ZONE, FRAME), every=1, retry=3)
    for i in range(12):
        tr.remember(i, i / 30, _spot_card(five if i < 6 else four_here))
    assert tr.first_seen((160.0, 150.0, 240.0, 260.0), 11 / 30) == pytest.approx(6 / 30)


def test_a_card_that_lands_elsewhere_left_its_pile_first() -> None:
    """SP-8: one card lies in one place; a card on one pile that shows on another was taken back from the first
    (perhaps from under a later card, where no look saw it go)."""
    tr = PileTracker(ZONE, zone_crop(ZONE, FRAME), every=1, removals=True)
    under, top = ("9S", 0.9, (150.0, 150.0, 230.0, 260.0)), ("4H", 0.9, (160.0, 150.0, 240.0, 260.0))
    for i, d in enumerate([dets(under)] * 3 + [dets(under, top)] * 3):
        tr.remember(i, i / 30, frame_with(card=i >= 3))
        tr.update(i, i / 30, d)
    assert tr.top == "4H"
    assert tr.moved_away("4H") == pytest.approx(5 / 30)  # last seen here
    assert tr.top == "9S" and "4H" not in tr.stack and "4H" not in tr.history
    assert tr.moved_away("4H") is None and tr.moved_away("QS") is None  # not (or no longer) here


def test_a_card_read_under_the_hand_that_laid_it_is_dated_by_that_read() -> None:
    """EVENTS.md ``card``: the hand that laid a card goes back over it for a few frames; the look that read the
    card under it is a bound on when it showed, though no clean frame shows it that early."""
    tr = PileTracker(ZONE, zone_crop(ZONE, FRAME), every=1, retry=3)
    box = (160.0, 150.0, 240.0, 260.0)
    hand = ("hand", 0.8, (150.0, 180.0, 330.0, 300.0))  # over the card's middle
    seen = []
    for i in range(9):
        img = frame_with(card=i >= 3)
        if 3 <= i <= 5:  # the laying hand going back over the lower part of the card
            img[200 - 20 * (i - 3):300, 120:330] = (120, 150, 200)
        tr.remember(i, i / 30, img)
        d = dets(("7H", 0.9, box), hand) if 3 <= i <= 5 else dets(("7H", 0.9, box)) if i >= 6 else dets()
        s = tr.update(i, i / 30, d)
        if s:
            seen.append(s)
    assert [s.card for s in seen] == ["7H"]
    assert abs(seen[0].t - 3 / 30) < 1e-9


def test_a_card_laid_along_a_long_row_is_a_change_to_look_at() -> None:
    """Pai Jie: a row is long and thin; its square crop is mostly other rows. One card laid on it must still call
    for a look (before: too small a change of the whole crop, and the card was dated late, PJ-1 turns broke)."""
    row = Zone("row:S", np.array([[10.0, 300.0], [710.0, 300.0], [710.0, 410.0], [10.0, 410.0]]))
    tr = PileTracker(row, zone_crop(row, (720, 720), min_side=224), every=1, retry=50)
    img = np.full((720, 720, 3), 90, np.uint8)
    assert tr.remember(0, 0.0, img)  # the first look
    img2 = img.copy()
    img2[310:400, 300:370] = 240  # one card on the row
    assert tr.remember(1, 1 / 30, img2)
    assert not tr.remember(2, 2 / 30, img2)  # nothing new


def test_a_face_read_too_unsurely_still_shows_the_pile_is_there() -> None:
    """A face the reader cannot name (too unsure to count: a shadow over it) is no new card, but the pile is not
    empty either: its top stays, and the same card read again later is not played again (ST-3: a Spit column's
    top announced twice)."""
    tr = PileTracker(ZONE, zone_crop(ZONE, FRAME), every=1)
    box = (160.0, 150.0, 240.0, 260.0)
    img = frame_with(card=True)
    cards = []
    script = [("7H", 0.9)] * 2 + [("7H", 0.1)] * 4 + [("7H", 0.9)] * 3
    for i, (name, conf) in enumerate(script):
        tr.remember(i, i / 30, img)
        s = tr.update(i, i / 30, dets((name, conf, box)))
        if s:
            cards.append(s.card)
    assert cards == ["7H"] and tr.top == "7H"
    for i in range(9, 12):  # a hand, then nothing at all there: the pile was taken
        tr.remember(i, i / 30, frame_with(card=False))
        tr.update(i, i / 30, dets(("hand", 0.8, box)) if i == 9 else dets())
    assert tr.top is None


def test_a_card_carried_face_up_over_a_pile_is_not_played_there_and_one_that_lands_is() -> None:
    """SP-8, ST-2 (Speed, Spit): a card carried face up to the other pile crosses this one, read in several looks
    as it goes; it was never played here. The card that lands here is confirmed once it lies still, and dated
    from the frame it came to rest (not from when it first passed overhead)."""
    def flights(carried: float | None) -> list:
        tr = PileTracker(ZONE, zone_crop(ZONE, FRAME), every=1, carried=carried)
        seen = []
        for i in range(24):
            img = np.full((480, 640, 3), 90, np.uint8)
            if i < 6:  # 5S crosses the zone left to right, 30 px a frame, and is gone
                x = 110 + 30 * i
                d = dets(("5S", 0.9, (float(x), 150.0, x + 80.0, 260.0)))
            else:  # 9H comes in from the top, 25 px a frame, and stops at frame 12
                y = 150 - 25 * max(0, 12 - i)
                d = dets(("9H", 0.9, (160.0, float(y), 240.0, y + 110.0)))
                img[max(0, y):y + 110, 160:240] = 240
                img[max(0, y + 60):y + 75, 175:225] = 30  # its pips
            tr.remember(i, i / 30, img)
            s = tr.update(i, i / 30, d)
            if s:
                seen.append((s.card, s.frame, round(s.t * 30)))
        return seen

    assert flights(carried=0.06) == [("9H", 13, 12)]  # confirmed by the second look that saw it still
    assert flights(carried=None)[0][0] == "5S"  # (without the rule, the card in flight is played here)


def test_a_card_covered_by_the_next_before_it_was_confirmed_is_played_before_it() -> None:
    """ST-2 / SP-2 (Spit, Speed): a card lands and lies still, but its box differs by a little more than the carried
    check allows from look to look (a hand still half over it) and the next card covers it before it is confirmed.
    Read in two looks in a row at one place, it lay there: it is confirmed with the card on top of it, before it and
    dated from its own first look, and marked as covered (timed alone, not as a race). A card carried across the
    pile in the same time is not."""
    tr = PileTracker(ZONE, zone_crop(ZONE, FRAME), every=1, carried=0.06, races=True)
    seen = []
    for i in range(12):
        img = frame_with(i >= 2)
        d = dets()
        if i < 2:  # 5S crosses the zone, 35 px a frame
            x = 110 + 35 * i
            img[150:260, x:x + 80] = 170
            d = dets(("5S", 0.9, (float(x), 150.0, x + 80.0, 260.0)))
        if 2 <= i <= 4:  # 7H lies still; its box is drawn 7 px differently at each look
            dx = (0, 7, -6)[i - 2]
            d = dets(("7H", 0.9, (160.0 + dx, 150.0 - dx, 240.0 + dx, 260.0 - dx)))
        if i in (5, 6):
            d = dets(("hand", 0.8, (140.0, 120.0, 300.0, 230.0)))
        if i >= 7:  # 6D lands over it and stays
            d = lay_over(img, "6D")
        landed = _look(tr, i, img, d)
        seen += [(c.card, round(c.t * 30), c.covered) for c in landed]
    assert seen == [("7H", 2, True), ("6D", 7, False)]
    assert tr.stack == ["7H", "6D"]


def test_a_code_the_top_was_misread_as_may_land_once_another_card_covers_the_top() -> None:
    """One deck: a code read on a pile's top where nothing changed is the top misread (rendered Spit s11: JC read JS
    on a centre pile) and is not confirmed there. Once another card covers that top, the code may land there as the
    card it is (the real JS was played there a second later and never confirmed)."""
    tr = PileTracker(ZONE, zone_crop(ZONE, FRAME), every=1, retry=1)
    cards = {"JC": (160, 150, 240, 260, 240), "10D": (180, 170, 260, 280, 150), "JS": (170, 160, 250, 270, 200)}
    script = ["JC"] * 4 + ["JS"] * 4 + ["10D"] * 4 + ["JS"] * 4  # JC; misread JS; 10D lands; JS lands
    on_pile: list[str] = []
    seen = []
    for i, code in enumerate(script):
        shown = "JC" if 4 <= i < 8 else code  # the misread looks change no pixel
        if not on_pile or on_pile[-1] != shown:
            on_pile.append(shown)
        img = np.full((480, 640, 3), 90, np.uint8)
        for c in on_pile:
            x0, y0, x1, y1, grey = cards[c]
            img[y0:y1, x0:x1] = grey
            img[y0 + 15:y0 + 30, x0 + 10:x0 + 25] = 20
        tr.remember(i, i / 30, img)
        x0, y0, x1, y1, _ = cards[shown]
        s = tr.update(i, i / 30, dets((code, 0.9, (float(x0), float(y0), float(x1), float(y1)))))
        if s:
            seen.append((s.card, round(s.t * 30)))
    assert seen == [("JC", 0), ("10D", 8), ("JS", 12)]


@pytest.mark.parametrize(("lay_once", "two_ways", "want"), [
    (0.85, False, [("7D", 2, True), ("8S", 6, False)]),
    (None, False, [("8S", 6, False)]),
    (0.85, True, [("8S", 6, False)]),  # read 7D, then 7H at the same place: which card it was is not known
])
def test_a_speed_card_read_once_and_covered_at_once_was_played_before_the_next(lay_once: float | None,
                                                                               two_ways: bool, want: list) -> None:
    """SP-2 (Speed): a card laid and covered at once by the hand holding the stock is read in one look only; when
    the next card covers it, it was played before it (rendered Speed: s11's AC, s238's JD, 5D and 5C; else the next
    card is judged on the card under it, "Illegal"). Where a single read is not enough (``lay_once`` None, as in
    Spit), it is not a card."""
    tr = PileTracker(ZONE, zone_crop(ZONE, FRAME), every=1, carried=0.15, races=True, lay_once=lay_once)
    seen = []
    for i in range(10):
        img = frame_with(True)
        d = dets(("7D", 0.9, (160.0, 150.0, 240.0, 260.0))) if i == 2 else dets()
        if i == 3 and two_ways:
            d = dets(("7H", 0.9, (162.0, 151.0, 241.0, 262.0)))
        elif i in (3, 4, 5):  # the stock in a hand over it
            img[120:300, 120:330] = (60, 40, 120)
            d = dets(("back", 0.8, (130.0, 130.0, 320.0, 290.0)))
        if i >= 6:  # 8S lands over it and stays
            d = lay_over(img, "8S")
        if i < 2:
            img[150:260, 160:240] = 90
        landed = _look(tr, i, img, d)
        seen += [(c.card, round(c.t * 30), c.covered) for c in landed]
    assert seen == want


@pytest.mark.parametrize(("backs_between", "want"), [
    (True, [("5C", 2, True), ("6D", 6, False)]),
    (False, [("6D", 6, False)]),  # read 5C, then 6D at its place with nothing over it between: one card, unknown
])
def test_a_card_read_once_then_covered_by_a_back_is_not_the_next_card_read_two_ways(backs_between: bool,
                                                                                    want: list) -> None:
    """SP-2 (Speed): 5C lands and is read once, surely; the next card, carried face down, covers it for two looks
    and lands at the very place 0.13 s after the read, read 6D. Two cards were played, 5C first: a card does not
    change its face under a back (rendered Speed 2p s238 19.07 s: 5C taken for 6D read two ways, and B's 6D on it
    was ruled "Illegal: six on six"). With nothing over the pile between the two reads it is one card read two
    ways."""
    tr = PileTracker(ZONE, zone_crop(ZONE, FRAME), every=1, carried=0.15, races=True, lay_once=0.75)
    place = (160.0, 150.0, 240.0, 260.0)
    seen = []
    for i in range(12):
        img = frame_with(i >= 2)
        d = dets(("5C", 0.9, place)) if i == 2 else dets()
        if i in (3, 4, 5) and backs_between:  # the next card, face down, over it
            img[120:300, 120:330] = (60, 40, 120)
            d = dets(SPEED_BACK)
        elif i in (3, 4, 5):
            d = dets(("hand", 0.8, (300.0, 300.0, 400.0, 400.0)))  # (a hand elsewhere in the crop)
        if i >= 6:
            img[150:260, 160:240] = 200
            img[170:185, 170:185] = 30
            d = dets(("6D", 0.9, (161.0, 150.0, 241.0, 261.0)))
        landed = _look(tr, i, img, d)
        seen += [(c.card, round(c.t * 30), c.covered) for c in landed]
    assert seen == want


SPEED_BACK = ("back", 0.8, (130.0, 130.0, 320.0, 290.0))  # the next card, carried face down over the pile


def test_a_covered_card_read_only_under_a_hand_is_dated_from_that_read() -> None:
    """SP-2 (Speed): 2D lands and is read once, surely, with the hand that laid it still over its middle; the next
    card is carried over it and laid on it. 2D lay there from that read on: dated from it, not from the look that
    confirmed the card on top (rendered Speed 2p s12 4.07 s: 2D was dated 4.78 s, with 4S)."""
    tr = PileTracker(ZONE, zone_crop(ZONE, FRAME), every=1, carried=0.15, races=True, lay_once=0.85)
    seen = []
    for i in range(20):
        img = frame_with(i >= 2)
        d = dets()
        if i == 2:  # read under the hand that laid it
            d = dets(("2D", 0.9, (160.0, 150.0, 240.0, 260.0)), ("hand", 0.8, (150.0, 190.0, 330.0, 300.0)))
        elif 3 <= i < 16:  # the next card, face down, over it for 0.4 s
            img[120:300, 120:330] = (60, 40, 120)
            d = dets(SPEED_BACK)
        if i >= 16:  # 4S lands over it and stays
            d = lay_over(img, "4S")
        landed = _look(tr, i, img, d)
        seen += [(c.card, round(c.t * 30), c.covered) for c in landed]
    assert seen == [("2D", 2, True), ("4S", 16, False)]


@pytest.mark.parametrize("lay_first", [True, False])
def test_a_card_shown_again_where_the_top_was_taken_back_off_it_was_laid_before_the_top(lay_first: bool) -> None:
    """SP-2 / SP-8 (Speed): B's 10C lands and is read once, unsurely; A's 8D lands on it a tenth of a second later;
    8D, illegal, is taken back, and 10C shows again. It was laid before 8D (its middle looks as in the frames before
    8D landed): 8D leaves the pile (``remove``) and 10C is the card it covered, dated from its own landing (rendered
    Speed 2p s6 10.93 s: 10C was taken for a card laid on 8D). A card laid anew where 10C was never seen is new."""
    s9, c10 = ("9S", 0.9, (150.0, 140.0, 230.0, 250.0)), ("10C", 0.9, (160.0, 150.0, 240.0, 260.0))
    d8 = ("8D", 0.9, (175.0, 165.0, 255.0, 275.0))
    tr = PileTracker(ZONE, zone_crop(ZONE, FRAME), every=1, carried=0.15, races=True, removals=True, lay_once=0.75,
                     min_conf=0.65)
    seen, gone = [], []
    for i in range(22):
        img = np.full((480, 640, 3), 90, np.uint8)
        img[140:250, 150:230] = 200
        img[150:170, 160:180] = 30
        d = dets(s9)
        ten = (lay_first and i >= 4) or (not lay_first and i >= 17)
        if ten:
            img[150:260, 160:240] = 240
            for y, x in ((165, 175), (165, 215), (230, 175), (230, 215), (198, 195)):
                img[y - 6:y + 6, x - 5:x + 5] = 20
            d = dets(("10C", 0.6, c10[2]))
        if i in (5, 6):  # 8D carried face down over the pile
            img[130:290, 130:320] = (120, 40, 90)
            d = dets(SPEED_BACK)
        if 7 <= i <= 14:
            img[165:275, 175:255] = 235
            img[240:262, 225:245] = (40, 40, 200)
            d = dets(d8)
        if i in (15, 16):  # the hand taking it back
            img[120:300, 120:330] = (120, 150, 200)
            d = dets(("hand", 0.8, (120.0, 120.0, 330.0, 300.0)))
        if i >= 17:
            d = dets(c10)
        landed = _look(tr, i, img, d)
        seen += [(c.card, round(c.t * 30)) for c in landed]
        gone += [(r.card, round(r.t * 30)) for r in tr.removed]
        tr.removed.clear()
    if lay_first:
        assert seen == [("9S", 0), ("8D", 7), ("10C", 4)] and gone == [("8D", 17)]
        assert tr.stack == ["9S", "10C"]
    else:
        assert seen == [("9S", 0), ("8D", 7), ("10C", 17)] and gone == []
        assert tr.stack == ["9S", "8D", "10C"]


def _paint(img: np.ndarray, box: tuple[float, float, float, float], grey: int,
           pips: tuple[tuple[int, int], ...] = ((20, 20),)) -> None:
    """A card at ``box`` (frame pixels) of paper ``grey`` with dark pips at (dx, dy) from its top left corner."""
    x0, y0, x1, y1 = (int(v) for v in box)
    img[y0:y1, x0:x1] = grey
    for dx, dy in pips:
        img[y0 + dy - 6:y0 + dy + 6, x0 + dx - 5:x0 + dx + 5] = 20


@pytest.mark.parametrize("misread_first", [True, False])
def test_a_code_the_old_top_was_misread_as_lands_later_dated_from_its_own_landing(misread_first: bool) -> None:
    """SP-2 (Speed): AS, the top, is misread AC once; KD lands on it; B's real AC lands on KD, read once surely, and
    2S covers it a few looks later. AC was played between KD and 2S, dated from its own landing, not from the misread
    of the old top (rendered Speed 2p s11 4.17 s: dated from the misread, before KD, AC was taken for KD misread and
    dropped, and 2S judged on KD: "Illegal: two on king")."""
    a_s, kd = (150.0, 140.0, 230.0, 250.0), (160.0, 150.0, 240.0, 260.0)
    ac, s2 = (168.0, 158.0, 248.0, 268.0), (176.0, 166.0, 256.0, 276.0)
    tr = PileTracker(ZONE, zone_crop(ZONE, FRAME), every=1, carried=0.15, races=True, lay_once=0.75)
    seen = []
    for i in range(18):
        img = np.full((480, 640, 3), 90, np.uint8)
        _paint(img, a_s, 200)
        d = dets(("AS", 0.9, a_s))
        if i == 2 and misread_first:
            d = dets(("AC", 0.7, (160.0, 160.0, 220.0, 230.0)))  # part of AS read as its look-alike
        if i >= 5:
            _paint(img, kd, 240, ((40, 30), (40, 80)))
            d = dets(("KD", 0.9, kd))
        if i >= 10:
            _paint(img, ac, 225, ((40, 55),))
            d = dets(("AC", 0.9, ac))
        if i in (11, 12, 13):  # 2S carried face down over the pile
            img[130:290, 130:320] = (120, 40, 90)
            d = dets(SPEED_BACK)
        if i >= 14:
            _paint(img, s2, 235, ((40, 20), (40, 90)))
            d = dets(("2S", 0.9, s2))
        landed = _look(tr, i, img, d)
        seen += [(c.card, round(c.t * 30)) for c in landed]
    assert seen == [("AS", 0), ("KD", 5), ("AC", 10), ("2S", 14)]
    assert tr.stack == ["AS", "KD", "AC", "2S"]


@pytest.mark.parametrize("case", ["four under", "four laid first"])
def test_a_card_whose_middle_looks_like_the_card_under_the_top_is_laid_on_the_top(case: str) -> None:
    """SP-2 / ST-2 (Spit, Speed): A's 3D lands on 4S; B's 4C lands on 3D at 4S's very place, hiding 3D. 4C's middle
    looks as 4S's did (a four's pips lie alike whatever its suit), so a frame of 4S from before 3D landed does not say
    that 4C lay there then: it was laid on 3D, which stays (rendered Spit 2p s6 5.36 s: 3D was taken for taken back,
    and 4C for "four on four"). Where 4C did lie there before 3D (laid on 9S, read unsurely), and 3D was taken back
    off it, the same frames say so: 3D leaves the pile and 4C is its top."""
    four = ((20, 20), (60, 20), (20, 90), (60, 90))
    base, d3 = (160.0, 150.0, 240.0, 260.0), (190.0, 180.0, 270.0, 290.0)
    under = "4S" if case == "four under" else "9S"
    tr = PileTracker(ZONE, zone_crop(ZONE, FRAME), every=1, carried=0.15, races=True, removals=True, lay_once=0.75,
                     min_conf=0.65)
    gone = []
    for i in range(20):
        img = np.full((480, 640, 3), 90, np.uint8)
        _paint(img, base, 240, four if under == "4S" else ((40, 55),))
        d = dets((under, 0.9, base))
        if i >= 3 and under == "9S":  # 4C laid on 9S, read unsurely
            _paint(img, base, 240, four)
            d = dets(("4C", 0.6, base))
        if i in (3, 4):  # the hand laying 3D, over the pile's top edge
            img[110:150, 140:280] = (120, 150, 200)
            d = dets(("hand", 0.8, (140.0, 110.0, 280.0, 150.0)))
        if 5 <= i < 12 or (i >= 12 and under == "4S"):
            _paint(img, d3, 170, ((20, 20), (20, 55), (20, 90)))
            d = dets(("3D", 0.9, d3))
        if i >= 12:  # 4C at the place of the card under 3D: laid on 3D, or shown again once 3D was taken back
            _paint(img, base, 240, four)
            d = dets(("4C", 0.9, base))
        _look(tr, i, img, d)
        gone += [r.card for r in tr.removed]
        tr.removed.clear()
    if under == "4S":
        assert tr.stack == ["4S", "3D", "4C"] and gone == []
    else:
        assert tr.stack == ["9S", "4C"] and gone == ["3D"]


def test_a_card_read_on_the_last_one_before_it_landed_there_is_dated_from_its_landing() -> None:
    """SP-2 (Speed): 7S lands and is read once surely; a card carried face down over its top edge leaves its lower
    half to be read as 6S (a six of spades is a seven without its top pip); the next card, 6S itself, lands at 7S's
    very place, its middle like 7S's. 6S showed only after the last look that read 7S there: dated from that look
    on, it is the card after 7S, not 7S misread (rendered Speed 2p s7 8.13 s: 7S was lost, dated back to 7S's
    landing, and 6S judged on the nine under it)."""
    d8, s7 = ("8D", 0.9, (140.0, 140.0, 220.0, 250.0)), ("7S", 0.9, (160.0, 150.0, 240.0, 260.0))
    s6 = ("6S", 0.9, (160.0, 150.0, 240.0, 260.0))
    tr = PileTracker(ZONE, zone_crop(ZONE, FRAME), every=1, carried=0.15, races=True, lay_once=0.75)
    seen = []
    for i in range(14):
        img = np.full((480, 640, 3), 90, np.uint8)
        img[140:250, 140:220] = 200
        img[150:170, 150:170] = 30
        d = dets(d8)
        if i >= 4:  # 7S, and 6S after it, look alike (white, one dark pip in the middle)
            img[150:260, 160:240] = 240
            img[195:215, 190:210] = 20
            d = dets(s7)
        if i == 5:  # the next card, face down, over 7S's top edge (outside its middle); its lower half read 6S
            img[120:168, 150:250] = (120, 40, 90)
            d = dets(("back", 0.8, (150.0, 120.0, 250.0, 168.0)), ("6S", 0.9, (165.0, 190.0, 235.0, 258.0)))
        if i in (6, 7, 8):  # ... over the whole pile
            img[130:290, 130:320] = (120, 40, 90)
            d = dets(SPEED_BACK)
        if i >= 9:
            d = dets(s6)
        landed = _look(tr, i, img, d)
        seen += [(c.card, round(c.t * 30), c.covered) for c in landed]
    assert seen == [("8D", 0, False), ("7S", 4, True), ("6S", 9, False)]


@pytest.mark.parametrize(("second_read", "want"), [
    (0.78, ["JD", "10D"]),  # read JD surely, then JH less surely as the next card came over it: JD lay there
    (0.9, ["10D"]),  # read both ways as surely: which card it was is not known
])
def test_a_speed_card_read_once_surely_stands_against_a_weaker_second_reading(second_read: float,
                                                                              want: list[str]) -> None:
    """SP-2 (Speed): a card read once surely, then read as another code less surely as the next card is carried over
    it, lay on the pile (rendered Speed s238: JD read 0.90, then JH at 0.78; 10D covered it half a second later and
    was judged on the queen under JD, "Illegal: ten on queen"). The card confirmed later at the same place is another
    card, not a third reading of it."""
    jd, jh = ("JD", 0.9, (160.0, 150.0, 240.0, 260.0)), ("JH", second_read, (161.0, 151.0, 241.0, 261.0))
    ten = ("10D", 0.9, (168.0, 158.0, 248.0, 268.0))  # (a card laid on another lies a little off it)
    tr = PileTracker(ZONE, zone_crop(ZONE, FRAME), every=1, carried=0.15, races=True, lay_once=0.85)
    _feed_looks(tr, [((), ())] * 2 + [((jd,), (jd,)), ((jd,), (jh, SPEED_BACK))] + [((jd,), (SPEED_BACK,))] * 10
                + [((jd, ten), (ten,))] * 4)
    assert tr.stack == want


@pytest.mark.parametrize(("reads", "under", "want"), [
    ((0.70, 0.61, 0.61), False, ["3C", "4S", "5H"]),  # read alike three times at one place, unsurely: it lay there
    ((0.70, 0.61), False, ["3C", "5H"]),  # twice only: no evidence
    ((0.61, 0.61, 0.61), False, ["3C", "5H"]),  # never surely (a neighbour in rank, half under the hand)
    ((0.70, 0.50, 0.61), False, ["3C", "5H"]),  # once too unsurely between
    ((0.70, 0.61, 0.61), True, ["3C", "5H"]),  # a strip peeking out from under a card read surely (s12: 4H as 6H)
])
def test_a_speed_card_read_alike_three_times_though_unsurely_lay_there(reads: tuple[float, ...], under: bool,
                                                                       want: list[str]) -> None:
    """SP-2 (Speed): reads below ``min_conf`` are no evidence (a card half under the hand that lays it reads as its
    neighbour in rank), unless the same code is read at one place in three looks in a row (rendered Speed s238
    12.25 s: 4S read 0.70, 0.61, 0.61 on the left pile, then covered by 5H; "Illegal: five on three" followed)."""
    c3, f5 = ("3C", 0.9, (160.0, 150.0, 240.0, 260.0)), ("5H", 0.9, (176.0, 166.0, 256.0, 276.0))
    box = (168.0, 158.0, 248.0, 268.0)
    tr = PileTracker(ZONE, zone_crop(ZONE, FRAME), every=1, carried=0.15, races=True, lay_once=0.75, min_conf=0.65)
    s4 = [("4S", r, box) for r in reads]
    over = (c3,) if under else (SPEED_BACK,)
    _feed_looks(tr, [((c3,), (c3,))] * 4 + [((c3, s), (s, *over)) for s in s4] + [((c3, s4[-1], f5), (f5,))] * 4)
    assert tr.stack == want


@pytest.mark.parametrize(("top_again", "want"), [(True, ["QS", "KH"]), (False, ["QS", "JS", "KH"])])
def test_a_code_read_once_between_reads_of_the_top_at_its_place_is_the_top_misread(top_again: bool,
                                                                                   want: list[str]) -> None:
    """SP-2 (Speed): a code read once at the top's very place, with the top read there again in the next look, did
    not land on it (rendered Speed s11: QS read JS once at 0.87 between reads of QS; KH covered both later, and JS
    came out as a card played). A card that did land there (the pile changed) and is covered before a second look lay
there."""
    qs, js = ("QS", 0.9, (160.0, 150.0, 240.0, 260.0)), ("JS", 0.87, (161.0, 150.0, 241.0, 260.0))
    kh = ("KH", 0.9, (168.0, 158.0, 248.0, 268.0))  # (a card laid on another lies a little off it)
    tr = PileTracker(ZONE, zone_crop(ZONE, FRAME), every=1, carried=0.15, races=True, lay_once=0.85)
    lying, after = ((qs,), (qs,)) if top_again else ((qs, js), (SPEED_BACK,))
    _feed_looks(tr, [((qs,), (qs,))] * 4 + [(lying, (js,)), (lying, after)] + [(lying, (SPEED_BACK,))] * 8
                + [((*lying, kh), (kh,))] * 4)
    assert tr.stack == want


@pytest.mark.parametrize(("kc_box", "ks_box", "want"), [
    # KS lies still; the detector boxes it whole (read KC) and on part of its middle (read KS): one card, two ways
    ((160.0, 150.0, 240.0, 260.0), (165.0, 155.0, 225.0, 215.0), ["KS"]),
    # KC lands beside KS, which is still read whole in the same look: a second card (a race)
    ((250.0, 150.0, 330.0, 260.0), (160.0, 150.0, 240.0, 260.0), ["KS", "KC"]),
])
def test_a_still_card_boxed_twice_and_read_two_ways_is_no_race(kc_box: tuple, ks_box: tuple, want: list[str]) -> None:
    """SP-2 (Speed races): a reader gives one box one code, so the old top still read in the look that reads a new
    card at another place is a second card, landed with it. A card lying still that the detector boxes twice (whole,
    and on part of it), each box read differently, is one card (rendered Speed s238: KC read KS in two of its three
    boxes, KC in the third: KC was confirmed over itself twice, and taken back in between)."""
    ks = ("KS", 0.9, (160.0, 150.0, 240.0, 260.0))
    kc = ("KC", 0.9, kc_box)
    lying = (ks,) if want == ["KS"] else (ks, kc)
    tr = PileTracker(ZONE, zone_crop(ZONE, FRAME), every=1, carried=0.15, races=True, lay_once=0.75)
    _feed_looks(tr, [((ks,), (ks,))] * 4 + [(lying, (kc, ("KS", 0.9, ks_box)))] * 4)
    assert tr.stack == want


@pytest.mark.parametrize("row", [True, False])
def test_a_row_card_boxed_with_its_neighbour_or_under_a_back_is_hidden_not_gone(row: bool) -> None:
    """PJ-3: a suit row's cards lie side by side, the last laid over the end of the one before. The detector boxes
    the two as one and reads it as one of them (rendered Pai Jie s12: JC over QC, read QC for a second), or a card
    carried face down covers one (s238: a back over 10C): neither card left the row. One taken from it leaves its
    place bare and the card under it whole: that is a ``remove``. On a pile (no row) the card under the top shown
    where the top was is the top taken back."""
    tr = PileTracker(ZONE, zone_crop(ZONE, FRAME), every=1, removals=True, row=row)
    qc, jc = ("QC", 0.9, (180.0, 150.0, 260.0, 260.0)), ("JC", 0.9, (130.0, 150.0, 210.0, 260.0))
    merged = ("QC", 0.9, (130.0, 150.0, 260.0, 260.0))
    back = ("back", 0.7, (176.0, 146.0, 256.0, 262.0))  # no larger than the card

    def table(*cards: tuple) -> np.ndarray:
        img = np.full((480, 640, 3), 90, np.uint8)
        for k, (_, _, (x0, y0, x1, y1)) in enumerate(cards):
            img[int(y0):int(y1), int(x0):int(x1)] = 240 - 60 * k  # the later card over the earlier
        return img

    # (the cards on the table, what the detector saw)
    looks = [((qc,), (qc,))] * 3 + [((qc, jc), (qc, jc))] * 3 + [((qc, jc), (merged,))] * 5 \
        + [((qc, jc), (jc, back))] * 5
    for i, (cards, seen) in enumerate(looks):
        tr.remember(i, i / 30, table(*cards))
        tr.update(i, i / 30, dets(*seen))
    gone = [r.card for r in tr.removed]
    assert gone == ([] if row else ["JC"])
    if row:
        assert tr.stack == ["QC", "JC"]
        for i in range(len(looks), len(looks) + 8):  # JC taken: QC shows whole, its place bare and still
            tr.remember(i, i / 30, table(qc))
            tr.update(i, i / 30, dets(qc))
        assert [r.card for r in tr.removed] == ["JC"] and tr.stack == ["QC"]


def test_a_row_card_under_an_arm_the_detector_misses_is_gone_only_once_its_place_is_still() -> None:
    """PJ-3 / EVENTS.md ``remove``: an arm as dark as the cloth is not boxed (rendered Pai Jie s12: 7C under one for
    half a second was "taken" and laid again). While its place moves, a row card not read is hidden; once the place
    lies still and bare, the card went, dated from the first look that missed it."""
    tr = PileTracker(ZONE, zone_crop(ZONE, FRAME), every=1, removals=True, row=True)
    qc, jc = ("QC", 0.9, (200.0, 150.0, 280.0, 260.0)), ("JC", 0.9, (120.0, 150.0, 195.0, 260.0))

    def table(i: int, cards: tuple, arm: bool = False) -> np.ndarray:
        img = np.full((480, 640, 3), 90, np.uint8)
        for k, (_, _, (x0, y0, x1, y1)) in enumerate(cards):
            img[int(y0):int(y1), int(x0):int(x1)] = 240 - 60 * k
        if arm:  # a dark arm sweeping over JC's place, one the detector does not see
            x = 110 + 12 * (i % 6)
            img[140:300, x:x + 60] = 70
        return img

    i = 0
    for cards, seen, arm, n in [((qc,), (qc,), False, 3), ((qc, jc), (qc, jc), False, 3), ((qc, jc), (qc,), True, 8)]:
        for _ in range(n):
            tr.remember(i, i / 30, table(i, cards, arm))
            tr.update(i, i / 30, dets(*seen))
            i += 1
    assert tr.removed == [] and tr.stack == ["QC", "JC"]
    first_missed = (i - 8) / 30
    for _ in range(8):  # the arm has gone with JC: its place is bare and still
        tr.remember(i, i / 30, table(i, (qc,)))
        tr.update(i, i / 30, dets(qc))
        i += 1
    assert [r.card for r in tr.removed] == ["JC"] and tr.removed[0].t == pytest.approx(first_missed)


def test_a_row_card_hidden_by_the_hand_laying_the_next_is_not_taken_back() -> None:
    """PJ-3: on a pile, a top unseen under a hand when the next card lands, where the card under it showed meanwhile,
    went before it (taken back); along a row the hand laying the next card passes over the last one (rendered Pai Jie
    s238: QH "taken" and laid again)."""
    hand = ("hand", 0.8, (110.0, 120.0, 300.0, 300.0))
    qc, jc, kc = (("QC", 0.9, (200.0, 150.0, 280.0, 260.0)), ("JC", 0.9, (120.0, 150.0, 195.0, 260.0)),
                  ("KC", 0.9, (205.0, 180.0, 285.0, 290.0)))
    for row in (True, False):
        tr = PileTracker(ZONE, zone_crop(ZONE, FRAME), every=1, removals=True, row=row)
        looks = [((qc,), (qc,))] * 3 + [((qc, jc), (qc, jc))] * 3 + [((qc, jc), (qc, hand))] \
            + [((qc, jc), (hand,))] * 5 + [((qc, jc, kc), (kc, hand))] * 3 + [((qc, jc, kc), (jc, kc))] * 3
        _feed_looks(tr, looks)
        assert [r.card for r in tr.removed] == ([] if row else ["JC"])


def test_a_row_card_the_detector_stops_boxing_is_not_gone_while_it_still_lies_there() -> None:
    """PJ-3 / EVENTS.md ``remove``: the detector stops boxing some row cards for seconds while nothing touches them
    (rendered Pai Jie s11: QS alone at the end of the spades row, "taken", then read again as JS: an illegal play
    never made). A row card not boxed that still lies at its place (``still_lies``: the deck's pictures read it
    there) is not gone; one that does not, is."""
    qc, jc = ("QC", 0.9, (200.0, 150.0, 280.0, 260.0)), ("JC", 0.9, (120.0, 150.0, 195.0, 260.0))
    for lies in (True, False):
        asked: list[tuple[str, tuple]] = []

        def still_lies(code: str, place: tuple, lies: bool = lies, asked: list = asked) -> bool:
            asked.append((code, place))
            return lies

        tr = PileTracker(ZONE, zone_crop(ZONE, FRAME), every=1, removals=True, row=True, still_lies=still_lies)
        # JC unboxed from the seventh look
        _feed_looks(tr, [((qc,), (qc,))] * 3 + [((qc, jc), (qc, jc))] * 3 + [((qc, jc), (qc,))] * 8)
        assert tr.stack == (["QC", "JC"] if lies else ["QC"])
        assert [r.card for r in tr.removed] == ([] if lies else ["JC"])
        assert asked and asked[0] == ("JC", jc[2])


def test_a_row_card_read_as_its_look_alike_at_its_own_place_is_that_card_misread() -> None:
    """PJ-3: a card is laid over the end of the row's last card, never where another card lies: a court read as
    another court of its suit at the very place of a row card not read in that look is that card misread (rendered
    Pai Jie 4p s11: D's KS at the end of the spades row read QS from 4.8 s on, "a QS laid": an illegal play never
    made). A look-alike laid over its end is new; a read of no likeness there is not taken for the card."""
    ks, kd = ("KS", 0.9, (200.0, 150.0, 280.0, 260.0)), ("KD", 0.9, (120.0, 150.0, 195.0, 260.0))
    qs_there, qs_beside = ("QS", 0.8, (202.0, 151.0, 281.0, 259.0)), ("QS", 0.9, (240.0, 150.0, 290.0, 260.0))
    fs_there = ("4S", 0.9, (202.0, 151.0, 281.0, 259.0))
    for cards, seen, stack, removed in [((kd, ks), (kd, qs_there), ["KD", "KS"], []),
                                        ((kd, ks, qs_beside), (kd, ks, qs_beside), ["KD", "KS", "QS"], []),
                                        ((kd, ks), (kd, fs_there), ["KD"], ["KS"])]:
        tr = PileTracker(ZONE, zone_crop(ZONE, FRAME), every=1, removals=True, row=True)
        _feed_looks(tr, [((kd,), (kd,))] * 3 + [((kd, ks), (kd, ks))] * 3 + [(cards, seen)] * 6)
        assert tr.stack == stack and [r.card for r in tr.removed] == removed, (seen, tr.stack)


def test_a_weak_read_of_a_box_straddling_two_row_cards_is_not_a_card() -> None:
    """PJ-3: the detector boxes a card's width across two overlapping row cards now and then, and the deck's pictures
    name something weakly there (rendered Pai Jie 4p s12 13.7 s: a box over 6C and 7C read 3C 0.53, "a 3C laid",
    "Illegal: that is not a single..."). A read under STRADDLE_READ of a card not on the row, over the places of two
    row cards, is no card; one beyond the row's end, or read surely, is."""
    c6, c9 = ("6C", 0.9, (110.0, 150.0, 190.0, 260.0)), ("9C", 0.9, (160.0, 150.0, 240.0, 260.0))
    straddle, sure = ("8C", 0.53, (135.0, 150.0, 215.0, 260.0)), ("8C", 0.9, (135.0, 150.0, 215.0, 260.0))
    beyond = ("10C", 0.53, (210.0, 150.0, 290.0, 260.0))
    for read, stack in ((straddle, ["6C", "9C"]), (sure, ["6C", "9C", "8C"]), (beyond, ["6C", "9C", "10C"])):
        tr = PileTracker(ZONE, zone_crop(ZONE, FRAME), every=1, removals=True, row=True, min_conf=0.25)
        _feed_looks(tr, [((c6,), (c6,))] * 3 + [((c6, c9), (c6, c9))] * 3 + [((c6, c9, read), (c6, c9, read))] * 6)
        assert tr.stack == stack and tr.removed == [], (read, tr.stack)


def test_a_weak_read_of_part_of_a_row_card_a_hand_hides_is_not_a_card() -> None:
    """PJ-3: a hand over a row card leaves its lower corner to be boxed alone, and the deck's pictures name it weakly
    as another card (rendered Pai Jie 3p s11 6.8 s: the lower left of 7C read 6C 0.59, "a 6C laid" that no one
    played). A read under STRADDLE_READ of a card not on the row, boxed inside the place of a row card not read in
    that look, at most PART_OF_TOP of it, is part of that card; read surely, or boxed over its edge, it is a card."""
    c7, c2 = ("7C", 0.9, (160.0, 150.0, 240.0, 260.0)), ("2C", 0.9, (110.0, 150.0, 150.0, 260.0))
    part, sure = ("6C", 0.59, (165.0, 205.0, 200.0, 258.0)), ("6C", 0.9, (165.0, 205.0, 200.0, 258.0))
    over_edge = ("8C", 0.59, (205.0, 150.0, 285.0, 260.0))  # (laid over its end)
    hand = ("hand", 0.8, (150.0, 100.0, 260.0, 200.0))  # over 7C's upper part
    for read, stack in ((part, ["2C", "7C"]), (sure, ["2C", "7C", "6C"]), (over_edge, ["2C", "7C", "8C"])):
        tr = PileTracker(ZONE, zone_crop(ZONE, FRAME), every=1, removals=True, row=True, min_conf=0.25)
        _feed_looks(tr, [((c2,), (c2,))] * 3 + [((c2, c7), (c2, c7))] * 3 + [((c2, c7, read), (c2, read, hand))] * 6)
        assert tr.stack == stack, (read, tr.stack)


def test_a_row_card_first_read_once_the_next_covers_its_end_is_laid_not_the_top_misread() -> None:
    """PJ-3 / PJ-6: a card laid between two on a row lies under the next one's end, boxed with neither, and is read
    only once the next card is laid over it (rendered Pai Jie 4p s5 16.2 s: B's QD between JD and KD). Unchanged since
    before the top was laid, on a pile it would be the top read differently; beside the top on a row it is a card laid
    before it, dated from when it showed as now. Read on the middle of a row card, it is that card misread."""
    jd, qd, kd = (("JD", 0.9, (100.0, 150.0, 180.0, 260.0)), ("QD", 0.9, (145.0, 150.0, 225.0, 260.0)),
                  ("KD", 0.9, (190.0, 150.0, 270.0, 260.0)))
    on_kd = ("QD", 0.9, (192.0, 151.0, 271.0, 259.0))
    for read, stack in ((qd, ["JD", "KD", "QD"]), (on_kd, ["JD", "KD"])):
        tr = PileTracker(ZONE, zone_crop(ZONE, FRAME), every=1, removals=True, row=True)
        seen = _feed_looks(tr, [((jd,), (jd,))] * 3 + [((jd, qd), (jd,))] * 4 + [((jd, qd, kd), (jd, kd))] * 3
                           + [((jd, qd, kd), (jd, kd, read))] * 4)
        assert tr.stack == stack and tr.removed == [], (read, tr.stack)
        if len(stack) == 3:
            assert seen[-1].card == "QD" and seen[-1].t <= 7 / 30 + 1e-9  # (no later than KD laid over its end)


def test_a_read_of_another_suit_on_a_suit_row_is_not_a_card() -> None:
    """PJ-3: cards are played into one row per suit; a read of a card of another suit on a suit's row is a misread or
    a card carried over it (rendered Pai Jie 4p s238 11.9 s: 7H read 7D 0.69 on the hearts row, "a 7D laid" that no
    one played). A card of the row's suit is laid; a row zone named for no suit takes any card."""
    hearts = Zone("row:H", ZONE.polygon)
    h7, h9 = ("7H", 0.9, (110.0, 150.0, 190.0, 260.0)), ("9H", 0.9, (200.0, 150.0, 280.0, 260.0))
    d7 = ("7D", 0.69, (200.0, 151.0, 280.0, 259.0))
    for zone, read, stack in ((hearts, d7, ["7H"]), (hearts, h9, ["7H", "9H"]), (ZONE, d7, ["7H", "7D"])):
        tr = PileTracker(zone, zone_crop(zone, FRAME), every=1, removals=True, row=True, min_conf=0.25)
        _feed_looks(tr, [((h7,), (h7,))] * 3 + [((h7, read), (h7, read))] * 6)
        assert tr.stack == stack, (zone.name, read, tr.stack)


@pytest.mark.parametrize("mirrored", [False, True])
def test_a_read_on_a_row_where_its_rank_cannot_lie_is_not_a_card(mirrored: bool) -> None:
    """PJ-3: a suit row runs in rank order, each card at its rank's place. A read of a card not on the row on the
    wrong side of a row card for that order is no card laid (rendered Pai Jie 2p s238 14.5 s: 6S half under a hand and
    a card back read 3S 0.66 right of 5S, "a 3S laid", and B's four twos ruled an illegal play). The same read where
    its rank lies, left of 5S, is a card; the order is the one the row's cards lie in (A..K either way), and a row of
    one card has none yet."""
    def at(code: str, conf: float, x0: float) -> tuple[str, float, tuple[float, float, float, float]]:
        x = 400.0 - x0 - 80.0 if mirrored else x0  # (the row laid K..A left to right: mirrored about x = 200)
        return code, conf, (x, 150.0, x + 80.0, 260.0)

    s5, s6, s8 = at("5S", 0.9, 120.0), at("6S", 0.9, 160.0), at("8S", 0.9, 215.0)
    wrong, right = at("3S", 0.66, 150.0), at("3S", 0.66, 70.0)
    for row, read, stack in (((s5, s6, s8), wrong, ["5S", "6S", "8S"]),
                             ((s5, s6, s8), right, ["5S", "6S", "8S", "3S"]),
                             ((s6,), wrong, ["6S", "3S"])):
        tr = PileTracker(ZONE, zone_crop(ZONE, FRAME), every=1, removals=True, row=True, min_conf=0.25)
        looks = [((c,), (c,)) for c in row for _ in range(3)]
        looks = [(row[:k // 3 + 1], row[:k // 3 + 1]) for k, _ in enumerate(looks)]
        _feed_looks(tr, looks + [((*row, read), (*row, read))] * 6)
        assert tr.stack == stack and tr.removed == [], (row, read, tr.stack)


def test_a_pai_jie_card_read_once_surely_and_covered_by_the_next_of_a_straight_lay_on_the_row() -> None:
    """PJ-3 / PJ-6: a straight is laid card by card a few tenths of a second apart (rendered Pai Jie 4p s2: 8D read
    once, then hidden by the hand laying 9D over its end): a card read once surely and covered by the next lay on the
    row. Read once on the middle of a card already on the row, it is that card misread (s12: 7C read 8C once), not
    a card."""
    d7, d8, d9 = (("7D", 0.9, (110.0, 150.0, 180.0, 250.0)), ("8D", 0.9, (150.0, 150.0, 220.0, 250.0)),
                  ("9D", 0.9, (190.0, 150.0, 260.0, 250.0)))
    misread = ("8D", 0.9, (112.0, 151.0, 181.0, 249.0))
    back = ("back", 0.8, (150.0, 140.0, 230.0, 260.0))
    for once, stack in ((d8, ["7D", "8D", "9D"]), (misread, ["7D", "9D"])):
        tr = PileTracker(ZONE, zone_crop(ZONE, FRAME), every=1, removals=True, row=True, carried=0.15,
                         lay_once=0.85)
        looks = [((d7,), (d7,))] * 3 + [((d7, once), (d7, once))] + [((d7, once), (d7, back))] * 2 \
            + [((d7, once, d9), (d7, d9))] * 3
        _feed_looks(tr, looks)
        assert tr.stack == stack and tr.removed == []


def test_a_pai_jie_card_taken_by_an_arm_the_detector_misses_is_gone_from_the_first_look_that_missed_it() -> None:
    """PJ-10 / EVENTS.md ``remove``: a card taken from a zone goes into a hand, and the detector misses some arms
    (rendered Pai Jie 4p s2: RJ taken back from the centre; the centre lay bare for two seconds and RJ "stayed", so RJ
    laid there again was never seen). Something moving over the zone is a hand too: the zone then seen bare and
    still lost its card, dated from the first look that missed it."""
    rj = ("RJ", 0.9, (150.0, 150.0, 220.0, 250.0))

    def table(i: int, card: bool, arm: bool) -> np.ndarray:
        img = np.full((480, 640, 3), 90, np.uint8)
        if card:
            img[150:250, 150:220] = 230
        if arm:  # a dark arm sweeping over the zone, one the detector does not box
            x = 120 + 15 * (i % 5)
            img[100:300, x:x + 70] = 40
        return img

    tr = PileTracker(ZONE, zone_crop(ZONE, FRAME), every=1, removals=True, emptied_is_removal=True)
    i = 0
    for card, arm, n in [(True, False, 4), (False, True, 5), (False, False, 8)]:
        if not card and arm:
            first_missed = i / 30
        for _ in range(n):
            tr.remember(i, i / 30, table(i, card, arm))
            tr.update(i, i / 30, dets(rj) if card else dets())
            i += 1
    assert [r.card for r in tr.removed] == ["RJ"] and tr.removed[0].t == pytest.approx(first_missed)
    assert tr.stack == []


@pytest.mark.parametrize(("read_conf", "second_code", "want"), [
    (0.9, None, [("7S", 3)]),  # read once surely, then hands, then the pile gone: 7S lay there and went with it
    (0.6, None, []),  # read too unsurely to stand alone
    (0.9, "7C", []),  # read two ways once each: no telling which card lay there
    (0.9, "5D", []),  # the top read again after it: 7S was the top misread (rendered Snap 3p s11: JS read JH)
    (0.9, "top's rank", []),  # 5H at the top's place: the top read two ways (rendered Slapjack 3p s12: JH as JC)
])
def test_a_snap_card_read_once_then_slapped_and_taken_with_its_pile_lay_there(read_conf: float,
                                                                            second_code: str | None,
                                                                            want: list) -> None:
    """SN-3, TM-2 (Snap): a card slapped at once (anticipated) is covered by hands a look after it first showed, and
    the pile goes to the slapper before a second look could confirm it (rendered Snap 4p s11 3.18 s: B's 7S, so the
    snap of sevens was called false). Read once surely and never confirmed, on a pile then seen bare twice, it lay
    there from its first read; a single unsure read, or a card read two ways, is not a card."""
    tr = PileTracker(ZONE, zone_crop(ZONE, FRAME), every=1, read_before_take=0.85)
    top, new = (150.0, 140.0, 230.0, 250.0), (160.0, 150.0, 240.0, 260.0)
    hand = ("hand", 0.8, (120.0, 120.0, 330.0, 300.0))
    code = "7S"
    if second_code == "top's rank":
        code, new, second_code = "5H", (152.0, 141.0, 231.0, 251.0), None
    seen = []
    for i in range(14):
        img = np.full((480, 640, 3), 90, np.uint8)
        d = dets()
        if i < 8:  # the pile: 5D, and 7S on it from frame 3
            img[140:250, 150:230] = 200
            if i >= 3:
                img[150:260, 160:240] = 240
                img[170:190, 170:190] = 20
        if i < 3:
            d = dets(("5D", 0.9, top))
        elif i == 3:
            d = dets((code, read_conf, new))
        elif i == 4 and second_code:
            d = dets((second_code, 0.9, new))
        elif i < 10:  # hands over the pile; it is taken under them
            img[120:300, 120:330] = (60, 40, 120)
            d = dets(hand)
        tr.remember(i, i / 30, img)
        s = tr.update(i, i / 30, d)
        if s:
            seen.append((s.card, round(s.t * 30)))
    assert seen == [("5D", 0), *want]


@pytest.mark.parametrize(("case", "want"), [
    ("slapped", [("JD", 3)]),  # read once surely, then the slapping hand on it: the jack it slapped
    ("read before", []),  # the hand came down before the read: not its top
    ("read again", []),  # a face read on the pile since: a second look can say (the top read: JD was a misread)
    ("unsure", []),  # read too unsurely to stand alone
    ("first card", [("JD", 3)]),  # the pile's first card (rendered Slapjack 2p s6 1.82 s)
])
def test_a_card_read_once_then_covered_by_a_slapping_hand_was_the_top_it_slapped(case: str, want: list) -> None:
    """SJ-2, TM-2 (Slapjack): a jack slapped at once (anticipated) is covered by the slapping hand a look after it
    first showed, and the pile goes away under hands before a second look (rendered Slapjack 3p s6 3.35 s: C's JD,
    B's hand on it 60 ms later, was never a card, and B's slap was a false one). Read once surely, never confirmed,
    with no face read on the pile since, it was the top the hand came down on; not so for a card read after the
    contact, or read unsurely, or where the top was read again since."""
    tr = PileTracker(ZONE, zone_crop(ZONE, FRAME), every=1, read_before_take=0.85)
    top, new = (150.0, 140.0, 230.0, 250.0), (160.0, 150.0, 240.0, 260.0)
    hand = ("hand", 0.8, (120.0, 120.0, 330.0, 300.0))
    seen = []
    for i in range(8):
        img = np.full((480, 640, 3), 90, np.uint8)
        img[140:250, 150:230] = 200
        if i >= 3:
            img[150:260, 160:240] = 240
            img[170:190, 170:190] = 20
        if i < 3:
            d = dets() if case == "first card" else dets(("6S", 0.9, top))
        elif i == 3:
            d = dets(("JD", 0.6 if case == "unsure" else 0.9, new))
        elif i == 4:
            d = dets(("6S", 0.9, top)) if case == "read again" else dets()
        else:
            d = dets(hand)
        if i >= 5:
            img[120:300, 120:330] = (60, 40, 120)
        tr.remember(i, i / 30, img)
        s = tr.update(i, i / 30, d)
        if s:
            seen.append((s.card, round(s.t * 30)))
    contact = 2.5 / 30 if case == "read before" else 5.2 / 30
    s = tr.slapped(7 / 30, contact)
    if s:
        seen.append((s.card, round(s.t * 30)))
        assert tr.top == "JD"
    assert seen == ([] if case == "first card" else [("6S", 0)]) + want


@pytest.mark.parametrize(("case", "want_stack", "misread"), [
    ("at its place", ["6S", "JD"], "AS"),  # the top read AS unsurely was JD: renamed, no new card
    ("sure top", ["6S", "AS", "JD"], None),  # AS was confirmed as surely: JD read there is laid on it
    ("moved", ["6S", "AS", "JD"], None),  # JD read 6 px off AS's box: a card laid on it
])
def test_a_card_read_surely_at_the_unchanged_top_just_before_a_slap_is_the_top_read_wrong(
        case: str, want_stack: list[str], misread: str | None) -> None:
    """SJ-2 (Slapjack): C's JD comes to rest on the pile read AS unsurely in three looks (confirmed AS), then JD
    surely, at the very place, nothing changed there, just before B's hand covers it. JD is the top, read wrong
    before, not a card laid on it: the tracker renames its top and says so (:attr:`CardSeen.misread`), and B takes
    the cards there are (rendered Slapjack 3p s238 14.3 s: "B takes 6 cards" for 5). A card read where the top was
    confirmed as surely, or off its place, is laid on it."""
    tr = PileTracker(ZONE, zone_crop(ZONE, FRAME), every=1, read_before_take=0.85)
    under, place = (150.0, 140.0, 230.0, 250.0), (160.0, 150.0, 240.0, 260.0)
    read_at = (166.0, 150.0, 246.0, 260.0) if case == "moved" else (160.5, 149.5, 240.5, 260.5)
    seen = []
    for i in range(10):
        img = np.full((480, 640, 3), 90, np.uint8)
        img[140:250, 150:230] = 200
        d = dets(("6S", 0.9, under))
        if i >= 3:
            img[150:260, 160:240] = 240
            img[170:190, 170:190] = 20
            d = dets(("AS", 0.9 if case == "sure top" else 0.56, place))
        if i == 7:
            d = dets(("JD", 0.9, read_at))
        if i >= 8:
            img[120:300, 120:330] = (60, 40, 120)
            d = dets(("hand", 0.8, (120.0, 120.0, 330.0, 300.0)))
        tr.remember(i, i / 30, img)
        s = tr.update(i, i / 30, d)
        if s:
            seen.append((s.card, round(s.t * 30)))
    s = tr.slapped(9 / 30, 8.2 / 30)
    assert seen == [("6S", 0), ("AS", 3)]
    assert s is not None and s.card == "JD" and s.misread == misread
    assert tr.stack == want_stack and tr.top == "JD"


@pytest.mark.parametrize(("case", "want"), [
    ("played again", [("JC", 3), ("JC", 11)]),  # read turned the other way after the hands: won and played anew
    ("same place", [("JC", 3)]),  # read where it lay after the hands: it never went
    ("box off", [("JC", 3)]),  # boxed 15 px off after the hands, lying as it lay (rendered Snap 3p s11 17.4 s)
    ("no wins unseen", [("JC", 3)]),  # a pile that is not won under hands (``won_unseen`` off)
])
def test_a_slap_pile_top_read_elsewhere_after_hands_hid_it_was_won_and_played_again(case: str, want: list) -> None:
    """SJ-2 (Slapjack): A wins the pile on JC under three hands and plays JC again at once, turned the other way;
    the pile is never seen bare between. JC read whole, away from where it lay, after hands hid the pile, is a new
    card (rendered Slapjack 4p s11 12.98 s: kept as the old top, its four slaps were all false). Read where it lay,
    or boxed elsewhere while its middle still looks as it did, it never went."""
    tr = PileTracker(ZONE, zone_crop(ZONE, FRAME), every=1, read_before_take=0.85, won_unseen=case != "no wins unseen")
    flat, turned = (150.0, 160.0, 260.0, 240.0), (165.0, 145.0, 245.0, 255.0)
    seen = []
    for i in range(16):
        img = np.full((480, 640, 3), 90, np.uint8)
        d = dets()
        if 3 <= i < 6:  # JC lies across the pile
            img[160:240, 150:260] = 240
            img[175:195, 165:185] = 20
            d = dets(("JC", 0.9, flat))
        if 6 <= i < 11:  # hands over it: the pile is won, JC played again
            img[120:300, 120:330] = (60, 40, 120)
            d = dets(("hand", 0.8, (120.0, 120.0, 330.0, 300.0)))
        if i >= 11:
            if case == "played again":
                img[145:255, 165:245] = 240
                img[160:180, 180:200] = 20
            else:
                img[160:240, 150:260] = 240
                img[175:195, 165:185] = 20
            d = dets(("JC", 0.9, flat if case == "same place" else turned))
        tr.remember(i, i / 30, img)
        s = tr.update(i, i / 30, d)
        if s:
            seen.append((s.card, round(s.t * 30)))
    assert seen == want


@pytest.mark.parametrize(("case", "want"), [
    ("played again", [("3D", 0), ("4D", 4), ("JC", 8), ("3D", 16)]),  # won under the hands, 3D played again
    ("once", [("3D", 0), ("4D", 4), ("JC", 8)]),  # read in one look only: a buried card peeking out
    ("top too", [("3D", 0), ("4D", 4), ("JC", 8)]),  # the top read too, where it lay: the pile is still there
    ("unsure", [("3D", 0), ("4D", 4), ("JC", 8)]),  # read at 0.6: no evidence
    ("no wins unseen", [("3D", 0), ("4D", 4), ("JC", 8)]),  # a pile that is not won under hands
])
def test_a_card_under_a_slap_piles_top_read_whole_after_hands_hid_it_was_won_and_played_again(case: str,
                                                                                             want: list) -> None:
    """SJ-2 (Slapjack): 3D, 4D and JC laid; A wins the pile on JC under the hands and plays 3D again at once, where
    the pile lay. The referee says the pile was won only once the slap is ruled (1.6 s later in the audit), and 3D,
    confirmed on this pile 0.6 s before, was taken for a buried card peeking out: it was never a card (rendered
    Slapjack 2p s11 6.42 s). A card under the top read surely and whole in two looks running, the top in neither,
    after hands hid the pile, is a new card: nothing but a won slap takes the cards above it."""
    tr = PileTracker(ZONE, zone_crop(ZONE, FRAME), every=1, read_before_take=0.85, won_unseen=case != "no wins unseen")
    box = (160.0, 150.0, 240.0, 260.0)
    seen = []
    for i in range(22):
        img = np.full((480, 640, 3), 90, np.uint8)
        d = dets()
        for start, code, ink in ((0, "3D", 20), (4, "4D", 60), (8, "JC", 120)):
            if start <= i < 12:
                img[150:260, 160:240] = 240
                img[170 + start * 2:190 + start * 2, 170:190] = ink
                d = dets((code, 0.9, box))
        if 12 <= i < 16:  # hands over it: the pile is won, 3D played again
            img[120:300, 120:330] = (60, 40, 120)
            d = dets(("hand", 0.8, (120.0, 120.0, 330.0, 300.0)))
        if i >= 16:
            img[150:260, 160:240] = 240
            img[170:190, 170:190] = 20
            d = dets(("3D", 0.6 if case == "unsure" else 0.9, box))
            if case == "once" and i > 16:
                d = dets()
            if case == "top too":
                d = dets(("3D", 0.9, (160.0, 170.0, 240.0, 280.0)), ("JC", 0.9, box))
        tr.remember(i, i / 30, img)
        s = tr.update(i, i / 30, d)
        if s:
            seen.append((s.card, round(s.t * 30)))
    assert seen == want


@pytest.mark.parametrize(("gap_s", "want"), [(4.0, ["3S", "4C", "3S"]), (1.0, ["3S", "4C"])])
def test_a_code_unseen_for_long_under_newer_cards_is_a_new_card_when_read_again(gap_s: float, want: list) -> None:
    """SP-2 (Speed): a code confirmed on a pile long ago (there, a misread: rendered Speed s238 read 4H as 3S at 9.3 s)
    and topped since by newer cards is forgotten after ``forget_s`` unseen: the real 3S laid at 15.2 s is a new card,
    read in two looks. It must stay new from its first read to its second (it was seen again at the first). Within
    ``forget_s`` it is a buried card peeking out, not a new one."""
    tr = PileTracker(ZONE, zone_crop(ZONE, FRAME), every=1)
    box = (160.0, 150.0, 240.0, 260.0)
    seen: list[str] = []

    def look(i: int, t: float, code: str, grey: int) -> None:
        img = np.full((480, 640, 3), 90, np.uint8)
        img[150:260, 160:240] = grey
        img[170:190, 170:190] = 20 + grey // 10
        tr.remember(i, t, img)
        s = tr.update(i, t, dets((code, 0.9, box)))
        if s:
            seen.append(s.card)

    look(0, 0.0, "3S", 240)
    look(1, 1 / 30, "3S", 240)
    look(2, 0.5, "4C", 200)
    look(3, 0.5 + 1 / 30, "4C", 200)
    t = 0.5 + gap_s
    look(4, t, "3S", 160)
    look(5, t + 1 / 30, "3S", 160)
    assert seen == want


def test_a_row_card_unread_for_long_beside_newer_cards_is_the_same_card_when_read_again() -> None:
    """PJ-3: a row card under the end of the next one may go unread for many seconds while cards are laid beside it;
    read again where it lies, it is the card laid then, not a new one (rendered Pai Jie 2p s238 17.4 s: JD, unread for
    9 s under QD's end, "the jack of diamonds is already on the table"). A pile's card unseen that long is forgotten
    (the test above); a row's never is."""
    j, q = ("JD", 0.9, (160.0, 150.0, 240.0, 260.0)), ("QD", 0.9, (200.0, 150.0, 280.0, 260.0))
    tr = PileTracker(ZONE, zone_crop(ZONE, FRAME), every=1, retry=1, removals=True, row=True, min_conf=0.25)
    seen = _feed_looks(tr, [((j,), (j,))] * 3 + [((j, q), (j, q))] * 3)
    for i, t in enumerate((2.0, 5.0, 9.0, 9.0 + 1 / 30, 9.0 + 2 / 30)):
        img = np.full((480, 640, 3), 90, np.uint8)
        img[150:260, 160:240] = 240
        img[150:260, 200:280] = 190
        tr.remember(10 + i, t, img)
        s = tr.update(10 + i, t, dets(q) if t < 9.0 else dets(j, q))
        seen += [s] if s else []
    assert [c.card for c in seen] == ["JD", "QD"] and tr.stack == ["JD", "QD"]


@pytest.mark.parametrize(("dx", "want"), [
    (1.0, ["QH"]),  # boxed a pixel off the top: the top read again as another code
    (0.0, ["QH", "KH"]),  # the very box: the deck's read at the top's place (nothing boxed there) says nothing of place
    (8.0, ["QH", "KH"]),  # a tenth of its size off: a card laid on it
])
def test_a_card_boxed_where_the_top_lies_is_the_top_read_again(dx: float, want: list) -> None:
    """SP-2/ST-2 (Speed, Spit): no card lands just where the last one lies; a code confirmed at the top's very place
    (rendered Spit s12 14.7 s: KH confirmed as QH, then read KH 0.9 s later after hands passed; Speed s12: JD read AS)
    is the top read again, not a card played on it (else "Illegal: ace on jack", and the new card takes another
    card's tap)."""
    tr = PileTracker(ZONE, zone_crop(ZONE, FRAME), every=1, races=True, carried=0.06, removals=True)
    box = (160.0, 150.0, 240.0, 260.0)
    again = (box[0] + dx, box[1], box[2] + dx, box[3])
    seen = []
    for i in range(12):
        img = frame_with(True)
        if i < 2:
            img[150:260, 160:240] = 90
            d = dets()
        elif i < 5:
            d = dets(("QH", 0.9, box))
        elif i < 9:  # hands pass over it
            img[100:320, 100:340] = (60, 40, 120)
            d = dets(("hand", 0.8, (100.0, 100.0, 340.0, 320.0)))
        else:
            d = dets(("KH", 0.9, again))
        tr.remember(i, i / 30, img)
        s = tr.update(i, i / 30, d)
        seen += [c.card for c in [*tr.also, *([s] if s else [])]]
        tr.also.clear()
    assert seen == want


@pytest.mark.parametrize(("unboxed_arms", "want"), [(True, ["QS"]), (False, ["QS", "QS"])])
def test_a_snap_pile_under_an_arm_the_detector_misses_is_not_seen_empty(unboxed_arms: bool, want: list[str]) -> None:
    """SN-3 (Snap): the referee says when a pile is won. An arm whose pale sleeve matches the grey cloth goes
    unboxed; reaching across D's pile it hid QS for two looks with a hand over the pile in between, the pile was
    taken for gone, and QS, seen again, was "laid" again out of turn (rendered Snap 4p s11 3.6-3.93 s). With
    ``unboxed_arms``, something moving over the zone is a hand, boxed or not: the pile is not seen empty under it."""
    tr = PileTracker(ZONE, zone_crop(ZONE, FRAME), every=1, unboxed_arms=unboxed_arms)
    box = (160.0, 150.0, 240.0, 260.0)
    seen = []
    for i in range(16):
        img = frame_with(True)
        d = dets(("QS", 0.9, box)) if i < 4 or i >= 12 else dets()
        if i == 5:
            d = dets(("hand", 0.8, (250.0, 100.0, 340.0, 300.0)))
        if 6 <= i < 12:  # the unboxed sleeve sweeping over the pile
            x = 100 + 25 * (i - 6)
            img[140:270, x:x + 120] = (150, 150, 150)
        tr.remember(i, i / 30, img)
        s = tr.update(i, i / 30, d)
        if s:
            seen.append(s.card)
    assert seen == want


def test_a_box_on_part_of_the_top_read_as_another_card_is_the_top_misread_until_that_card_covers_it() -> None:
    """SP-2 (Speed): the detector boxes part of the top card alone now and then, and that part is read as another
    card while the top's whole box, around it, is read as the top, more surely: it is the top misread, not a card
    laid on it, though a hand passed over the pile meanwhile (rendered Speed s238: KD's middle read AS at 0.78 for
    a second, "B: ace on king"). Once the real card covers the top, it is new there (the real AS was never seen)."""
    kd = ("KD", 0.9, (160.0, 150.0, 240.0, 260.0))
    part = ("AS", 0.78, (172.0, 160.0, 222.0, 205.0))
    back = ("back", 0.9, (150.0, 120.0, 230.0, 230.0))
    as_laid = ("AS", 0.9, (170.0, 160.0, 250.0, 270.0))
    tr = PileTracker(ZONE, zone_crop(ZONE, FRAME), every=1, carried=0.15, races=True, lay_once=0.75)
    seen = []
    looks = [((kd,), (kd,))] * 4 + [((kd, back), (back,))] * 2 + [((kd,), (kd, part))] * 8 + \
        [((kd, back), (back,))] * 2 + [((kd, as_laid), (as_laid,))] * 4
    for i, (lying, shown) in enumerate(looks):
        img = np.full((480, 640, 3), 90, np.uint8)
        for k, (_, _, (x0, y0, x1, y1)) in enumerate(lying):
            img[int(y0):int(y1), int(x0):int(x1)] = 240 - 50 * k
        tr.remember(i, i / 30, img)
        s = tr.update(i, i / 30, dets(*shown))
        if s:
            seen.append((s.card, i))
    assert seen == [("KD", 1), ("AS", 17)]
    assert tr.stack == ["KD", "AS"]


def test_a_card_dated_back_across_a_blur_that_passed_over_it_for_two_frames() -> None:
    """EVENTS.md ``card`` (ST-2, SP-2): something passing over a card (a shadow, a blur) may change its telling
    pixels for a frame or two while all its pixels still match: rendered Speed s238's 3C on the left pile matched
    0.66 of them at 9.867 s, 0.9 and 1.0 on either side; dated from 9.900 s it was a new card, read 3S, "three on
    three", and the real 3S played later was refused. No card comes and goes leaving the one there as it was: the
    card is dated from when it landed. Three such frames in a row are a change (the four laid on the five stays
    dated from its own landing)."""
    four = [(180, 170), (220, 170), (180, 240), (220, 240)]

    def shown(blurred: set[int]) -> float:
        tr = PileTracker(ZONE, zone_crop(ZONE, FRAME), every=1, retry=3)
        for i in range(14):
            img = _spot_card(four) if i >= 3 else np.full((FRAME[1], FRAME[0], 3), (40, 110, 60), np.uint8)
            tr.remember(i, i / 30, cv2.GaussianBlur(img, (9, 9), 0) if i in blurred else img)
        return tr.first_seen((160.0, 150.0, 240.0, 260.0), 13 / 30)

    assert shown(set()) == pytest.approx(3 / 30)
    assert shown({8, 9}) == pytest.approx(3 / 30)
    assert shown({7, 8, 9}) == pytest.approx(10 / 30)


@pytest.mark.parametrize("bare_middle", [True, False])
def test_an_arm_resting_over_a_pile_unboxed_hides_it_and_does_not_take_it(bare_middle: bool) -> None:
    """TM-1 with SN-3: a grey sleeve resting on a grey cloth over a pile goes unboxed, and the pile then shows
    nothing: looks that see no card and no hand. The pile is seen taken only where its middle looks as it did bare
    (rendered Snap 4p s11 10.5 s: C's 10S under a resting arm for 0.8 s was seen taken, and its card, showing again,
    was laid anew: an anomaly). A pile really taken is still seen so."""
    tr = PileTracker(ZONE, zone_crop(ZONE, FRAME), every=1, unboxed_arms=True, bare_middle=bare_middle)
    box = (160.0, 150.0, 240.0, 260.0)
    sleeve = frame_with(card=True)
    sleeve[110:300, 110:300] = 60  # (darker than the cloth, still from look to look)
    laid, bare = (frame_with(card=True), ("7H",)), (frame_with(card=False), ())
    hand = (frame_with(card=True, hand=True), ("hand",))
    script = [bare] * 5 + [laid] * 2 + [hand] + [(sleeve, ())] * 6 + [laid] * 2 + [hand] + [bare] * 6 + [laid] * 2
    cards = []
    for i, (img, names) in enumerate(script):
        tr.remember(i, i / 30, img)
        s = tr.update(i, i / 30, dets(*[(n, 0.9, box) for n in names]))
        if s:
            cards.append((i, s.card))
    # laid at look 5; under the arm (looks 8-13) still there; taken (looks 17-22); laid again from look 23
    assert cards == ([(6, "7H"), (24, "7H")] if bare_middle else [(6, "7H"), (15, "7H"), (24, "7H")])


@pytest.mark.parametrize(("one_by_one", "want"), [(True, ["9H"]), (False, ["10H", "9H"])])
def test_a_spit_column_card_read_two_ways_as_it_is_turned_up_is_one_card(one_by_one: bool, want: list[str]) -> None:
    """ST-3: a column takes one card at a time, turned up by its owner, and nothing lands on a face-up column card.
    Read 10H twice as the hand turning it leaves (its box growing: still moving, not confirmed), then 9H surely at the
    same place, it is one card, the 9H: not a 10H covered by a 9H (rendered held-out Spit 2p s7 4.37 s; the referee
    kept the 10H there). A centre pile (not ``one_by_one``) takes both."""
    tr = PileTracker(ZONE, zone_crop(ZONE, FRAME), every=1, min_conf=0.5, carried=0.06, races=True,
                     one_by_one=one_by_one)
    seen = []
    for i in range(8):
        img = np.full((480, 640, 3), 90, np.uint8)
        d = dets(("back", 0.9, (160.0, 150.0, 240.0, 260.0)))
        if i in (2, 3):
            img[150:245 + 13 * (i - 2), 160:240] = 240
            d = dets(("10H", 0.64, (160.0, 150.0, 240.0, 245.0 + 13 * (i - 2))))
        if i >= 4:
            img[150:260, 160:240] = 230
            img[190:220, 185:215] = 30
            d = dets(("9H", 0.9, (160.0, 150.0, 240.0, 260.0)))
        seen += [c.card for c in _look(tr, i, img, d)]
    assert seen == want


def _carried_across_then_played(told: bool) -> list[tuple[str, int]]:
    """A Spit centre pile (10D on top): QS crosses it in a hand once (read at frame 4, on its way to a column), JD
    is laid (in flight, then settling: read at two places a few pixels apart, never confirmed alone), then QS is
    played on it. ``told``: the watcher says QS landed elsewhere at frame 9. The cards confirmed, (code, frame)."""
    ten = ("10D", 0.9, (160.0, 150.0, 240.0, 260.0))
    crossing = ("QS", 0.9, (230.0, 120.0, 300.0, 220.0))
    jd_flying = [("JD", 0.9, (125.0, 195.0, 205.0, 305.0)), ("JD", 0.9, (145.0, 175.0, 225.0, 285.0))]
    jd_settling = [("JD", 0.9, (165.0, 155.0, 245.0, 265.0)), ("JD", 0.9, (173.0, 153.0, 246.0, 265.0))]
    qs = ("QS", 0.9, (170.0, 150.0, 250.0, 262.0))
    tr = PileTracker(ZONE, zone_crop(ZONE, FRAME), every=1, carried=0.06, races=True, removals=True)
    looks = [((ten,), (ten,))] * 4 + [((ten, crossing), (ten, crossing))] + [((ten,), (ten,))] * 20 + \
        [((ten, jd), (jd,)) for jd in jd_flying + jd_settling] + [((ten, jd_settling[1], qs), (qs,))] * 6
    seen = []
    for i, (lying, shown) in enumerate(looks):
        if told and i == 10:
            tr.landed_elsewhere("QS", 9 / 30)
        img = np.full((480, 640, 3), 90, np.uint8)
        for k, (_, _, (x0, y0, x1, y1)) in enumerate(lying):
            img[int(y0):int(y1), int(x0):int(x1)] = 240 - 50 * k
        seen += [(c.card, round(c.t * 30)) for c in _look(tr, i, img, dets(*shown))]
    return seen


def test_a_card_read_crossing_a_race_pile_on_its_way_elsewhere_is_dated_from_its_own_landing_later() -> None:
    """ST-2, SP-2 (Spit): a card read once over a centre pile as a hand carries it to a column, and confirmed on that
    column, was not laid on the centre pile then: played there later, it is dated from its reads then, and the card
    laid just before it stays (rendered Spit 2p s7: A's QS, read on ``right`` at 16.3 s crossing to ``col:A:1``,
    played on ``right`` at 17.61 s, was dated from 16.3 s, and B's JD, laid 0.26 s before it, was dropped)."""
    assert _carried_across_then_played(told=True) == [("10D", 0), ("JD", 27), ("QS", 29)]


def _shown_after_hands(back_carried: bool, face_down: bool = True, top_carried: bool = True) -> tuple[list, list]:
    """A Speed centre pile (4C on top): 5D is laid, carried face down and covered at once by 3D, carried face down
    over it too (5D never shows; ``top_carried`` False: no back is seen, only a hand); a hand comes over the pile and
    5D shows where 3D lay (``back_carried``: a card back came over the pile first, as a card played shows). The cards
    confirmed and the cards taken back, (code, frame)."""
    c4 = ("4C", 0.9, (160.0, 150.0, 240.0, 260.0))
    back = ("back", 0.9, (150.0, 140.0, 235.0, 250.0))
    d3 = ("3D", 0.9, (165.0, 140.0, 245.0, 250.0))
    d5 = ("5D", 0.9, (163.0, 154.0, 243.0, 264.0))
    hand = ("hand", 0.8, (140.0, 230.0, 260.0, 320.0))
    tr = PileTracker(ZONE, zone_crop(ZONE, FRAME), every=1, carried=0.15, races=True, removals=True, lay_once=0.75,
                     carried_face_down=face_down)
    looks = [((c4,), (c4,))] * 4 + [((c4, d5), (back if top_carried else hand,))] * 3 + [((c4, d5, d3), (d3,))] * 8 + \
        [((c4, d5, d3), (hand, d3))] + ([((c4, d5, d3), (back,))] * 2 if back_carried else []) + \
        [((c4, d5), (hand, d5))] + [((c4, d5), (d5,))] * 4
    seen = []
    for i, (lying, shown) in enumerate(looks):
        img = np.full((480, 640, 3), 90, np.uint8)
        for k, (_, _, (x0, y0, x1, y1)) in enumerate(lying):
            img[int(y0):int(y1), int(x0):int(x1)] = 240 - 50 * k
        seen += [(c.card, round(c.t * 30)) for c in _look(tr, i, img, dets(*shown))]
    return seen, [(r.card, round(r.t * 30)) for r in tr.removed]


def test_a_card_shown_under_hands_with_no_back_carried_before_it_lay_under_the_top_taken_back() -> None:
    """SP-8 (Speed): every card played on a centre pile comes carried face down and is turned up as it lands, so a
    card laid and covered at once by the next one carried over it may never show. When the top is taken back (a
    hand over the pile, no card back), the card that shows is that one, not a card played on the top: it is dated
    before the top, and the top leaves (rendered held-out Speed 2p s5 9.17 s: B's 5D under A's 3D; 3D taken back;
    "Illegal: five on three" where the truth has "Illegal: three on five", and the pile judged on 3D for 5 s). A card
    that came with a back over the pile before it showed was played; a pile not played face down, or where no back
    was seen before the top either (a detector that boxes no card in flight), keeps the rule out."""
    assert _shown_after_hands(back_carried=False) == ([("4C", 0), ("3D", 7), ("5D", 6)], [("3D", 16)])
    seen, removed = _shown_after_hands(back_carried=True)
    assert [c for c, _ in seen] == ["4C", "3D", "5D"] and seen[-1][1] > 7 and removed == []
    for kept_out in ({"face_down": False}, {"top_carried": False}):
        seen, removed = _shown_after_hands(back_carried=False, **kept_out)
        assert [c for c, _ in seen] == ["4C", "3D", "5D"] and seen[-1][1] > 7 and removed == []


def _twin_read_on_the_top(carried_back: bool, part: bool = False) -> list:
    """A Speed centre pile (AD on top, then KS laid, carried face down): a few looks later KC is read at KS's very
    place as the next card, carried face down, comes over part of it (``carried_back``: a KC carried face down came
    over the pile before and lies there now; ``part``: the KC read is a box on KS's lower part). The cards
    confirmed, (code, frame)."""
    ad = ("AD", 0.9, (160.0, 150.0, 240.0, 260.0))
    back = ("back", 0.9, (150.0, 140.0, 235.0, 250.0))
    ks = ("KS", 0.9, (165.0, 140.0, 245.0, 250.0))
    kc = ("KC", 0.9, (170.0, 180.0, 244.0, 250.0) if part else (172.0, 146.0, 252.0, 256.0))
    coming = ("back", 0.9, (125.0, 185.0, 205.0, 295.0))  # (the next card, over the lower left)
    tr = PileTracker(ZONE, zone_crop(ZONE, FRAME), every=1, carried=0.15, races=True, removals=True, lay_once=0.75,
                     carried_face_down=True)
    lying = (ad, ks, kc, coming) if carried_back else (ad, ks, coming)
    looks = [((ad,), (ad,))] * 4 + [((ad,), (back,))] * 3 + [((ad, ks), (ks,))] * 8 + \
        ([((ad, ks), (back,))] * 3 if carried_back else []) + [(lying, (kc, coming))] * 4
    return [(c.card, round(c.t * 30)) for c in _feed_looks(tr, looks)]


def test_the_tops_twin_read_at_its_place_when_nothing_came_over_the_pile_is_the_top_read_again() -> None:
    """SP-2 (Speed): a card played comes carried face down over the pile. The top's twin (its rank in the other suit
    of its colour), read at the top's very place with no card back nor hand seen on the pile since the top was
    confirmed, is the top read again, not a card laid on it (rendered held-out Speed 2p s6 12.9 s: KC read KS for
    0.3 s, then KC as the next card's back came over part of it: "Illegal: king on king"), and so is a box on part
    of the top read as its twin (tuning s238 18.35 s: AD's lower part read AH). A twin that came carried face down
    is a card played, and an illegal one."""
    assert _twin_read_on_the_top(carried_back=False) == [("AD", 0), ("KS", 7)]
    assert _twin_read_on_the_top(carried_back=False, part=True) == [("AD", 0), ("KS", 7)]
    assert _twin_read_on_the_top(carried_back=True)[-1][0] == "KC"


def _part_of_the_top_read_under_the_next_back(laid: bool) -> list[str]:
    """A Speed centre pile, 8C on top; the next card comes carried face down over its lower left, and a look reads
    the upper right of the pile as 6C (``laid``: a 6C was laid there under that back, and what shows of the pile
    changed; else what shows is 8C as it lay); then 9C lands on the pile. The cards confirmed, in order."""
    tr = PileTracker(ZONE, zone_crop(ZONE, FRAME), every=1, carried=0.15, races=True, removals=True, lay_once=0.75,
                     carried_face_down=True)
    table = np.full((480, 640, 3), 90, np.uint8)
    table[150:260, 160:240] = 235  # 8C, its pips
    for y, x in ((165, 200), (190, 215), (215, 185), (240, 205)):
        table[y:y + 12, x:x + 12] = 30
    eight = ("8C", 0.9, (160.0, 150.0, 240.0, 260.0))
    confirmed = []
    for i in range(4):
        confirmed += _look(tr, i, table.copy(), dets(eight))
    img = table.copy()
    if laid:  # (a 6C laid a little off the 8C: its paper and pips where the 8C's showed)
        img[148:262, 165:245] = 225
        for y, x in ((160, 180), (160, 220), (200, 180), (200, 220)):
            img[y:y + 12, x:x + 12] = 40
    img[185:295, 125:205] = 60  # the next card, carried face down
    confirmed += _look(tr, 4, img, dets(("6C", 0.9, (172.0, 150.0, 240.0, 230.0)),
                                        ("back", 0.9, (125.0, 185.0, 205.0, 295.0))))
    nine = table.copy()
    nine[145:255, 165:245] = 215
    nine[170:190, 190:210] = 25
    for i in range(5, 9):
        confirmed += _look(tr, i, nine.copy(), dets(("9C", 0.9, (165.0, 145.0, 245.0, 255.0))))
    return [c.card for c in confirmed]


def test_part_of_the_top_read_as_another_card_under_the_next_back_is_the_top_if_what_shows_is_unchanged() -> None:
    """SP-2 (Speed): the top's upper half, its lower half under the next card carried face down, read as another
    card at its very place, where what shows of the pile is the top as it lay, is the top misread, not a card laid
    and covered at once (rendered Speed 2p s12 15.93 s: 8C's upper half read 6C at 0.9, taken for a 6C played under
    the 9C that came next; the 9C was taken back unseen and four later plays were called illegal). Where what shows
    changed, a card was laid there."""
    assert _part_of_the_top_read_under_the_next_back(laid=False) == ["8C", "9C"]
    assert _part_of_the_top_read_under_the_next_back(laid=True) == ["8C", "6C", "9C"]
