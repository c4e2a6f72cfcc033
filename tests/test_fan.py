"""Cheat's face-down batches counted card by card from their outlines (``vision.fan``; CH-2: the backs are what
was placed, and a count mismatch is called from them).

Backs are drawn into a 720p frame through a camera's homography (about 1 px per mm, as a webcam over a table shows
them): the pile squared up in the middle, then a batch fanned a little over it (each card showing a strip, as
players lay them). The fit must count the batch, not the pile under it, on a dark cloth and on a light one."""

from __future__ import annotations

import math
from pathlib import Path

import cv2
import numpy as np
import pytest

from models.scenes import FaceSet
from vision.fan import FlatView, fit_batch, fit_cards

W, H = 1280, 720
TO_IMAGE = np.array([[1.05, 0.04, 640.0], [0.0, 1.0, 360.0], [0.0, 0.0001, 1.0]])  # table mm -> image px
TO_MM = np.linalg.inv(TO_IMAGE)
FAN_MM = 26.0  # each card of a batch shows a strip this wide


def to_image(mm: np.ndarray) -> np.ndarray:
    p = np.c_[mm, np.ones(len(mm))] @ TO_IMAGE.T
    return (p[:, :2] / p[:, 2:3]).astype(np.float32)


def lay_back(frame: np.ndarray, picture: np.ndarray, centre: tuple[float, float], angle: float) -> None:
    a = math.radians(angle)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    quad = to_image(np.array([[-31.5, -44.0], [31.5, -44.0], [31.5, 44.0], [-31.5, 44.0]]) @ rot.T + centre)
    h, w = picture.shape[:2]
    m = cv2.getPerspectiveTransform(np.float32([[0, 0], [w, 0], [w, h], [0, h]]), quad)
    bgr = cv2.warpPerspective(np.ascontiguousarray(picture[..., 2::-1]), m, (W, H), flags=cv2.INTER_AREA)
    alpha = cv2.warpPerspective(picture[..., 3], m, (W, H), flags=cv2.INTER_AREA)[..., None] / 255.0
    frame[:] = (frame * (1 - alpha) + bgr * alpha).astype(np.uint8)


def table(light: bool, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    colour = (200, 210, 205) if light else (70, 80, 20)
    return np.clip(np.full((H, W, 3), colour, np.float32) + rng.normal(0, 3, (H, W, 3)), 0, 255).astype(np.uint8)


def view_and_crop() -> tuple[FlatView, tuple[int, int, int, int]]:
    """The centre zone (12 x 14 cm around the table's middle) and a crop of the frame around it."""
    zone = to_image(np.array([[-60.0, -70.0], [60.0, -70.0], [60.0, 70.0], [-60.0, 70.0]]))
    x0, y0 = (zone.min(0) - 80).astype(int)
    x1, y1 = (zone.max(0) + 80).astype(int)
    return FlatView.around(zone, TO_MM, (int(x0), int(y0))), (int(x0), int(y0), int(x1), int(y1))


def grey(frame: np.ndarray, crop: tuple[int, int, int, int]) -> np.ndarray:
    return cv2.cvtColor(frame[crop[1]:crop[3], crop[0]:crop[2]], cv2.COLOR_BGR2GRAY)


def squared_pile(seed: int, light: bool, turn_sd: float = 3.0, back: np.ndarray | None = None) -> tuple:
    """The pile so far, squared up (three backs of the built-in deck, or ``back``): (rng, back, frame, view, crop,
    grey crop)."""
    rng = np.random.default_rng(seed)
    if back is None:
        back = FaceSet("builtin").deck(rng).image("back", 300)
    frame = table(light, seed)
    for _ in range(3):
        lay_back(frame, back, tuple(rng.normal(0, 1.0, 2)), float(rng.normal(0, turn_sd)))
    view, crop = view_and_crop()
    return rng, back, frame, view, crop, grey(frame, crop)


#: measured weaker than the rest (the rendered games' codec blur is what the thresholds were set on): a lower card's
#: strip whose outline is much fainter than the top card's is not taken (the fit stops at the top card, or at two)
_FAINT_STRIPS = pytest.mark.xfail(strict=True, reason="lower strips fainter than MIN_EDGE_RATIO of the top card")


@pytest.mark.parametrize(("n", "base", "light", "seed"), [
    (1, 0.0, False, 1), (2, 8.0, False, 2), pytest.param(3, -5.0, True, 3, marks=_FAINT_STRIPS),
    pytest.param(4, 3.0, False, 4, marks=_FAINT_STRIPS), (2, 92.0, True, 5), (3, 85.0, False, 6),
    (1, 150.0, True, 7), (2, 40.0, False, 8),
])
def test_a_fanned_batch_is_counted_and_the_pile_squared_under_it_is_not(n: int, base: float, light: bool,
                                                                          seed: int) -> None:
    """CH-2: ``n`` backs laid fanned over a squared pile are ``n`` cards, whatever the batch's angle and the cloth."""
    rng, back, frame, view, crop, before = squared_pile(seed, light)
    a = math.radians(base)
    across = np.array([math.cos(a), math.sin(a)])
    for k in range(n):
        off = (k - (n - 1) / 2) * FAN_MM
        lay_back(frame, back, tuple(across * off + rng.normal(0, 1.0, 2)), base + (k - (n - 1) / 2) * 6.0)
    cards = fit_cards(grey(frame, crop), view, before)
    assert len(cards) == n, [(c.centre, c.angle, round(c.shown, 2), round(c.edge, 1)) for c in cards]
    top = cards[0]
    want = across * ((n - 1) / 2) * FAN_MM  # the last card laid lies on top
    assert np.hypot(*(np.array(top.centre) - want)) < 6.0


def test_a_card_laid_square_on_a_pile_of_the_same_backs_is_left_to_the_detector() -> None:
    """A single back laid just as the pile lies changes almost nothing a camera sees: the fit finds no new card, and
    the watcher counts the detector's new backs instead (``BatchWatcher._count_fanned`` fits none)."""
    _, back, frame, view, crop, before = squared_pile(7, True)
    lay_back(frame, back, (0.5, -0.5), 1.0)
    assert len(fit_cards(grey(frame, crop), view, before)) == 0


def dark_back() -> np.ndarray:
    """A back (RGBA) whose grey is the dark cloth's, in a white rim: only its rim tells it from the table."""
    w, h = 300, round(300 * 88 / 63)
    picture = np.zeros((h, w, 4), np.uint8)
    picture[...] = (245, 245, 245, 255)
    rim = round(3 / 63 * w)
    picture[rim:-rim, rim:-rim, :3] = (78, 70, 40)  # RGB: near the dark cloth (70, 80, 20 BGR) in grey
    return picture


def test_a_dark_back_laid_on_a_dark_cloth_is_new_by_its_rim() -> None:
    """CH-2: a back as dark as the cloth changes little of what a camera sees inside it (rendered games with such a
    deck: a tenth), but its white rim is new: the card laid on the pile is one card, not none."""
    back = dark_back()
    frame = table(False, 21)
    lay_back(frame, back, (0.0, 0.0), 2.0)
    view, crop = view_and_crop()
    before = grey(frame, crop)
    lay_back(frame, back, (9.0, 6.0), 14.0)
    cards = fit_cards(grey(frame, crop), view, before)
    assert len(cards) == 1, [(c.centre, c.angle, round(c.changed, 2)) for c in cards]
    assert cards[0].changed < 0.3  # (its inside alone would not have told it: the rim did)


def test_a_lower_card_showing_a_sliver_with_a_sharp_outline_is_counted() -> None:
    """CH-2: two backs laid close together (the lower one shows a sliver, about a seventh of it) are two cards: the
    sliver's outline crosses the cloth and is sharper than the top card's, which lies on the pile."""
    _, back, frame, view, crop, before = squared_pile(5, False, turn_sd=2.0)
    lay_back(frame, back, (-18.0, 1.0), 3.0)
    lay_back(frame, back, (-6.0, 0.0), 4.0)
    cards = fit_cards(grey(frame, crop), view, before)
    assert len(cards) == 2, [(c.centre, c.angle, round(c.shown, 2), round(c.edge, 1)) for c in cards]
    assert cards[1].shown < 0.2  # a sliver, under MIN_SHOWN


@pytest.mark.parametrize(("seed", "light", "apart", "n", "sure"), [
    (5, True, 20.0, 1, False), (8, True, 12.0, 1, False),  # the lower card's strip nearly taken: counted unsurely
    (5, False, 26.0, 2, True), (2, False, 16.0, 2, True),  # each card's outline as sharp as the top's
    (2, False, 6.0, 1, True),  # laid all but square: nothing of the lower card shows (the detector's boxes count)
])
def test_a_count_whose_lower_strip_was_nearly_taken_or_left_is_said_to_be_unsure(seed: int, light: bool, apart: float,
                                                                                 n: int, sure: bool) -> None:
    """CH-2: two backs laid ``apart`` mm: where the fit took or left a lower card's strip by a small margin (its
    outline less sharp than the top card's, or nearly as sharp with its rim new), its count is unsure
    (``Fit.sure``): the referee then takes the claim's count at its word instead of calling a mismatch."""
    _, back, frame, view, crop, before = squared_pile(seed, light, turn_sd=2.0)
    lay_back(frame, back, (-apart, 1.0), 3.0)
    lay_back(frame, back, (0.0, 0.0), 4.0)
    cards = fit_batch(grey(frame, crop), view, before)
    assert (len(cards), cards.sure) == (n, sure), [(round(c.shown, 2), round(c.edge, 1)) for c in cards]


def test_a_count_said_unsure_is_logged_under_the_referees_sure_count() -> None:
    """CH-2: the watcher logs an unsure count's ``facedown`` line with a ``conf`` under the Cheat referee's
    ``COUNT_SURE`` (and a sure one's with none, as a line typed by hand), so the two agree on what is unsure."""
    from engine.games.cheat import COUNT_SURE
    from models.detector import Detections
    from models.gamevideo import make_script
    from vision.batches import BatchSeen
    from vision.watcher import UNSURE_COUNT, TableWatcher

    sc = make_script("cheat", ["A", "B"], 11, seconds=1.0)
    w = TableWatcher(sc.layout, "cheat", lambda crop: Detections(), 30.0)
    for t, sure in ((2.0, True), (3.0, False)):
        w._batch(BatchSeen(t, "center", "facedown", 2, (), int(t * 30), (600.0, 300.0, 680.0, 400.0), sure))
    lines = [e.to_dict() for e in w.finish() if e.type == "facedown"]
    assert [(d["t"], d["count"], d.get("conf")) for d in lines] == [(2.0, 2, None), (3.0, 2, UNSURE_COUNT)]
    assert UNSURE_COUNT < COUNT_SURE


def test_two_cards_laid_sideways_a_strip_apart_are_two_though_their_outline_fits_one_upright_card() -> None:
    """CH-2: two backs laid sideways, the lower one's strip showing below the upper one, make an outer outline that
    an upright card fits about as well as the top card's own (rendered Cheat 3p s11: counted one, a count mismatch
    called on a true count). The batch fitted with its top card turned a quarter finds both."""
    rng = np.random.default_rng(0)
    back = FaceSet("builtin").deck(rng).image("back", 300)
    frame = table(True, 0)
    view, crop = view_and_crop()
    before = grey(frame, crop)
    lay_back(frame, back, (3.0, 14.0), 93.0)
    lay_back(frame, back, (0.0, -14.0), 90.0)
    now = grey(frame, crop)
    assert len(fit_cards(now, view, before)) == 1  # (the outline fitted upright)
    cards = fit_batch(now, view, before)
    assert len(cards) == 2, [(c.centre, c.angle, round(c.shown, 2), round(c.edge, 1)) for c in cards]
    assert abs(cards[0].angle - 90.0) <= 6.0 and np.hypot(*(np.array(cards[0].centre) - (0.0, -14.0))) < 6.0


def test_a_single_card_is_not_split_by_the_quarter_turned_fit() -> None:
    """CH-2: one back laid alone is one card, upright or sideways (the turned fit finds no strip under it)."""
    for angle in (2.0, 91.0):
        rng = np.random.default_rng(4)
        back = FaceSet("builtin").deck(rng).image("back", 300)
        frame = table(False, 4)
        view, crop = view_and_crop()
        before = grey(frame, crop)
        lay_back(frame, back, (1.0, -2.0), angle)
        assert len(fit_batch(grey(frame, crop), view, before)) == 1


@pytest.mark.parametrize(("seed", "light"), [(0, False), (1, False), (2, False), (4, True), (4, False), (5, False)])
def test_one_card_laid_nearly_where_the_old_top_lay_is_one_card_not_two(seed: int, light: bool) -> None:
    """CH-2: one back laid sideways on the pile, 6 degrees and 8 mm from the sideways card laid before it: the old
    card's edge peeking out beside it was there in the look before, and is the pile's, not a second card of the batch
    (rendered Cheat 3p s238 19.48 s: counted two, a count mismatch called on a true claim of one)."""
    _, back, frame, view, crop, _ = squared_pile(seed, light)
    lay_back(frame, back, (-4.0, -7.0), 87.0)  # the last batch's card
    before = grey(frame, crop)
    lay_back(frame, back, (0.0, 0.0), 93.0)
    cards = fit_batch(grey(frame, crop), view, before)
    assert len(cards) == 1, [(c.centre, c.angle, round(c.shown, 2), round(c.rim_changed, 2)) for c in cards]


@pytest.mark.parametrize(("seed", "light"), [(0, False), (1, False), (1, True), (2, False)])
def test_a_card_under_the_batch_none_of_which_changed_is_the_piles(seed: int, light: bool, monkeypatch) -> None:
    """CH-2: one back laid over the first of the last batch's two: the second's strip beside it did not change at all
    (inside or rim), so it lay there before and is the pile's, not a second card of this batch, even where its outline
    looked fainter in the look before (made so here; rendered Cheat 3p s7 2.83 s: B's one card on A's two, A's strip
    0.02 new, 0.24 of its rim, its outline 0.77 as sharp before: counted two, a count mismatch on a claim of one)."""
    import vision.fan as fan

    monkeypatch.setattr(fan, "_outline_before", lambda *args: 0.0)
    _, back, frame, view, crop, _ = squared_pile(seed, light)
    lay_back(frame, back, (-14.0, 0.0), -3.0)  # the last batch: two cards, a strip apart
    lay_back(frame, back, (12.0, 0.0), 3.0)
    before = grey(frame, crop)
    lay_back(frame, back, (-12.0, 2.0), -4.0)  # this batch: one card, over the first of them
    cards = fit_cards(grey(frame, crop), view, before)
    assert len(cards) == 1 and abs(cards[0].centre[0] + 12.0) < 4.0, [(c.centre, c.angle) for c in cards]


def test_a_pile_that_did_not_change_has_no_new_batch() -> None:
    """Nothing laid since the look before: no card of the pile is new."""
    rng = np.random.default_rng(3)
    back = FaceSet("builtin").deck(rng).image("back", 300)
    frame = table(False, 3)
    for k in range(2):
        lay_back(frame, back, (k * FAN_MM, 0.0), 6.0 * k)
    view, crop = view_and_crop()
    still = grey(frame, crop)
    assert len(fit_cards(still, view, still.copy())) == 0


@pytest.mark.parametrize(("codes", "base", "seed"), [
    (("7H", "2C", "KD"), 0.0, 11), (("9S", "4D"), 95.0, 12),
    # a court's strip is its index and a slice of figure: the queen of hearts read as the jack where the look-alikes
    # of one colour were ordered as matched at the search's 0.667 px/mm; told at the camera's resolution it is not
    (("AC", "QH", "5S"), 177.0, 13),
])
def test_a_batch_turned_up_is_read_card_by_card_from_what_shows_of_each(codes: tuple[str, ...], base: float,
                                                                         seed: int) -> None:
    """CH-4: the faces of a fanned batch turned up where it lay are each read against the deck's pictures on the
    part of them that shows (the top card whole, a strip of each other one), given the poses the batch was counted
    at (``DeckMatcher.read_posed``)."""
    from models.classes import FACES
    from models.deckmatch import DeckMatcher

    deck = FaceSet("builtin").deck(np.random.default_rng(seed))
    frame = table(False, seed)
    a = math.radians(base)
    across = np.array([math.cos(a), math.sin(a)])
    n = len(codes)
    poses = []
    for k, code in enumerate(codes):  # the first laid lies lowest
        centre = tuple(across * (k - (n - 1) / 2) * FAN_MM)
        angle = base + (k - (n - 1) / 2) * 6.0
        lay_back(frame, deck.image(code, 300), centre, angle)
        poses.insert(0, (centre, angle))
    matcher = DeckMatcher({c: deck.image(c, 352) for c in FACES}, TO_MM)
    read = [FACES[int(s.argmax())] for s in matcher.read_posed(frame, poses)]
    assert read == list(codes[::-1])


def test_a_reveal_read_unsure_on_a_sideways_fit_is_read_again_on_the_batch_fitted_turned_a_quarter() -> None:
    """CH-4: the outer outline of a fan of three upright cards fits sideways rectangles about as well (rendered
    Cheat s238: 10C 10H 10D fitted at 87-96 degrees, then read 3D 7C JH at the wrong places). A reveal read that
    unsure (:data:`vision.batches.TURNED_SURE`) is read again on the batch fitted with its top card turned a
    quarter, and the surer read stands."""
    from calibration.layout import Zone
    from models.classes import FACES
    from models.deckmatch import DeckMatcher
    from vision.batches import BatchWatcher
    from vision.fan import CardPose

    codes = ("10C", "10H", "10D")  # laid in this order, fanned left to right, upright
    rng, back, frame, view, crop, before = squared_pile(36, False)
    deck = FaceSet("builtin").deck(rng)
    poses = [((k - 1) * 22.0, 0.0, (k - 1) * 5.0) for k in range(3)]
    face_up = frame.copy()
    for x, y, angle in poses:
        lay_back(frame, back, (x, y), angle)
    for (x, y, angle), code in zip(poses, codes, strict=True):
        lay_back(face_up, deck.image(code, 300), (x, y), angle)
    zone = Zone("center", to_image(np.array([[-60.0, -70.0], [60.0, -70.0], [60.0, 70.0], [-60.0, 70.0]])))
    sideways = [CardPose((-9.0, 8.0), 87.0, 1.0, 1.0, 1.0), CardPose((-9.0, -8.0), 87.0, 0.3, 1.0, 1.0),
                CardPose((9.0, 2.0), 96.0, 0.3, 1.0, 1.0)]

    def reveal(counted_on: tuple | None) -> tuple[str, ...]:
        w = BatchWatcher(zone, crop, confirm=2, every=1, image_to_mm=TO_MM,
                         deck=DeckMatcher({c: deck.image(c, 352) for c in FACES}, TO_MM))
        w._colour = face_up[crop[1]:crop[3], crop[0]:crop[2]].copy()
        w._view, w._batch_poses, w._batch_looks = view, list(sideways), counted_on
        return w._read_turned()

    assert reveal(None) != tuple(sorted(codes))  # (read where the sideways fit put them: wrong or nothing)
    def blurred(img: np.ndarray) -> np.ndarray:  # as a video codec leaves it (without, strips' rims are too sharp)
        return cv2.GaussianBlur(img, (0, 0), 0.8)

    assert reveal((blurred(grey(frame, crop)), before, False)) == tuple(sorted(codes))


@pytest.mark.parametrize(("codes", "base", "light", "seed"), [
    (("5D", "5H"), 3.0, True, 40), (("JD", "JH"), 8.0, False, 42)])
def test_a_batch_turned_up_is_read_where_its_faces_lie_not_where_its_backs_were_fitted(
        codes: tuple[str, ...], base: float, light: bool, seed: int) -> None:
    """CH-4: face down, a back's patterned middle has sharper sides than its white rim on a light cloth, and the
    fit takes them for the card's (rendered Cheat games: poses off by 5.7 mm, median); read there, a strip is read
    as another card (rendered 2p s11: 6D's strip under 6S read 5H; here, 5D's under 5H read 9D). The batch turned
    up is fitted again where its faces lie (``vision.fan.refit_cards``) and read there."""
    from calibration.layout import Zone
    from models.classes import FACES
    from models.deckmatch import DeckMatcher
    from vision.batches import BatchWatcher
    from vision.fan import CardPose

    rng, back, frame, view, crop, _ = squared_pile(seed, light)
    deck = FaceSet("builtin").deck(rng)
    a = math.radians(base)
    across = np.array([math.cos(a), math.sin(a)])
    true = []
    for k, code in enumerate(codes):  # the first laid lies lowest
        centre = tuple(across * (k - 0.5) * 22.0)
        lay_back(frame, deck.image(code, 300), centre, base + (k - 0.5) * 6.0)
        true.insert(0, (np.array(centre), base + (k - 0.5) * 6.0))
    # fitted face down: each a back's rim off, along the fan and along the card, and a little turned
    off = [CardPose(tuple(c + across * (6.0 if k else -5.0) + (0.0, 4.0)), ang + 3.0, 1.0, 1.0, 1.0)
           for k, (c, ang) in enumerate(true)]
    colour = frame[crop[1]:crop[3], crop[0]:crop[2]].copy()
    matcher = DeckMatcher({c: deck.image(c, 352) for c in FACES}, TO_MM)
    at_off = [FACES[int(s.argmax())] for s in matcher.read_posed(colour, [(p.centre, p.angle) for p in off],
                                                                 (crop[0], crop[1]))]
    assert at_off != list(codes[::-1])  # (read where the backs were fitted: wrong)
    zone = Zone("center", to_image(np.array([[-60.0, -70.0], [60.0, -70.0], [60.0, 70.0], [-60.0, 70.0]])))
    w = BatchWatcher(zone, crop, confirm=2, every=1, image_to_mm=TO_MM, deck=matcher)
    w._colour, w._view, w._batch_poses = colour, view, list(off)
    w._frames.append((0, 1.0, cv2.GaussianBlur(grey(frame, crop), (0, 0), 0.8)))
    assert w._read_turned() == tuple(sorted(codes))
    for pose, (c, ang) in zip(w._batch_poses, true, strict=True):
        assert np.hypot(*(np.asarray(pose.centre) - c)) <= 4.0 and abs((pose.angle - ang + 90) % 180 - 90) <= 3.0


def test_the_middle_card_of_a_fan_of_three_is_counted_where_a_sharp_strip_lies_under_it(monkeypatch) -> None:
    """CH-2: the middle card of a fan of three shows a strip between two sharp outlines, its own a little less sharp
    than the top card's (0.76-0.77 of it), and the fit stopped there: rendered Cheat 2p s6, a seed nothing was tuned
    on, counted two batches of three as one each. A weak card is counted where the card fitted under it is a strip
    at least as sharp as the top card and laid just now (``vision.fan.BETWEEN_EDGE_RATIO``)."""
    import vision.fan as fan
    from models.gamevideo import Filmer, make_script
    from vision.tracking import zone_crop

    script = make_script("cheat", 2, 6, seconds=9.0)
    wanted = (5.3, 5.75, 8.5, 9.0)  # the settled look before each batch of three (5.49 s, 8.66 s) and after it
    looks: dict[float, np.ndarray] = {}
    for _, t, rgb in Filmer(script, "builtin", 6).frames():
        for w in wanted:
            if w not in looks and t >= w:
                looks[w] = cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY)
        if len(looks) == len(wanted):
            break
    lay = script.layout
    x0, y0, x1, y1 = zone_crop(lay.zones["center"], lay.frame_size, min_side=320)
    view = FlatView.around(lay.zones["center"].polygon, lay.homography, (x0, y0))

    def counts() -> list[int]:
        return [len(fit_batch(cv2.GaussianBlur(looks[after][y0:y1, x0:x1], (0, 0), 0.8), view,
                              looks[before][y0:y1, x0:x1])) for before, after in ((5.3, 5.75), (8.5, 9.0))]

    assert counts() == [3, 3]
    monkeypatch.setattr(fan, "BETWEEN_EDGE_RATIO", 0.0)  # (without the rule: the fit stops at the top card)
    assert counts() == [1, 1]


def test_a_strip_of_a_batch_turned_up_is_read_in_its_own_ink_colour() -> None:
    """CH-4: a strip of a red card under a black one matches a black look-alike about as well as its own (its
    index and a pip or two, blurred); of look-alikes of both colours the strip is read as one of its own colour, as
    its red ink says (``DeckMatcher._tell_apart`` on what shows of it). Rendered Cheat games of seeds nothing was
    tuned on: 6D's strip read 6S, 3D's 3S; reveals read right 9 -> 11 of 21 (seeds 238, 11, 12: 29 of 31 either
    way)."""
    from models.classes import FACES
    from models.deckmatch import DeckMatcher

    seed, codes = 69, ("2H", "2C")  # 2H laid first, lowest; its strip read 2S without the colour
    rng = np.random.default_rng(seed)
    deck = FaceSet("builtin").deck(rng)
    frame = table(True, seed)
    base = float(rng.uniform(-10, 10))
    across = np.array([math.cos(math.radians(base)), math.sin(math.radians(base))])
    poses = []
    for k, code in enumerate(codes):
        centre = tuple(across * (k - 0.5) * 22.0)
        lay_back(frame, deck.image(code, 300), centre, base + (k - 0.5) * 6.0)
        poses.insert(0, (tuple(np.array(centre) + rng.normal(0, 1.5, 2)), base + (k - 0.5) * 6.0))
    frame = cv2.GaussianBlur(frame, (0, 0), 0.8)
    matcher = DeckMatcher({c: deck.image(c, 352) for c in FACES}, TO_MM)
    top, strip = (FACES[int(s.argmax())] for s in matcher.read_posed(frame, poses))
    assert top == "2C" and strip[-1] in "HD", (top, strip)


def test_a_batch_whose_backs_the_detector_does_not_box_is_counted_from_its_outlines() -> None:
    """CH-2: a back design the detector is unsure of (rendered Cheat s5's fine checks, boxed at 0.1-0.4 now and
    then) leaves the looks at the pile with no back in them; the watcher took every settled look as the pile picked
    up and counted 3 of 17 batches. A settled look that differs from the last one where card outlines show cards
    laid since is a batch: two cards here, dated to the frame they showed; the same pile looked at again is none."""
    from calibration.layout import Zone
    from models.detector import Detections
    from vision.batches import BatchWatcher

    rng, back, frame, view, crop, _ = squared_pile(11, False)
    zone = Zone("center", to_image(np.array([[-60.0, -70.0], [60.0, -70.0], [60.0, 70.0], [-60.0, 70.0]])))
    w = BatchWatcher(zone, crop, confirm=2, every=1, image_to_mm=TO_MM)
    pile = frame.copy()
    for k in (-1, 1):
        lay_back(frame, back, (k * FAN_MM / 2 + 20.0, 5.0), 10.0 + k * 3.0)

    def film(image: np.ndarray, start: int, n: int) -> list:
        seen = []
        for i in range(start, start + n):
            w.remember(i, i / 30, cv2.GaussianBlur(image, (0, 0), 0.8))
            seen.append(w.look(i, i / 30, Detections()))
        return [s for s in seen if s is not None]

    assert film(pile, 0, 8) == []  # (the pile as it was: settled, nothing laid)
    batches = film(frame, 8, 8)
    assert [(b.kind, b.count) for b in batches] == [("facedown", 2)]
    assert batches[0].t == 8 / 30
    x0, y0, x1, y1 = batches[0].box  # around the two cards laid, right of the pile's middle
    assert np.hypot((x0 + x1) / 2 - to_image(np.array([[20.0, 5.0]]))[0, 0],
                    (y0 + y1) / 2 - to_image(np.array([[20.0, 5.0]]))[0, 1]) < 8.0
    assert 90 < x1 - x0 < 130 and 95 < y1 - y0 < 125
    assert film(frame, 16, 8) == []


def test_a_card_turned_up_that_the_detector_boxes_three_ways_is_one_card() -> None:
    """CH-4: where the batch turned up cannot be read card by card (no deck's pictures), the detector's names are
    the reveal, each once: a deck holds each card once (rendered Cheat 4p s5: KS boxed three ways was a reveal of
    KS KS KS, refused, and the false claim never called)."""
    from calibration.layout import Zone
    from models.detector import Detections
    from vision.batches import BatchWatcher

    _, _, frame, _, crop, _ = squared_pile(5, True)
    zone = Zone("center", to_image(np.array([[-60.0, -70.0], [60.0, -70.0], [60.0, 70.0], [-60.0, 70.0]])))
    w = BatchWatcher(zone, crop, confirm=2, every=1, image_to_mm=TO_MM)
    middle = to_image(np.array([[0.0, 0.0]]))[0]
    card = np.array([middle[0] - 32, middle[1] - 44, middle[0] + 32, middle[1] + 44], np.float32)

    def boxed(*names: str) -> Detections:
        n = len(names)
        return Detections(np.stack([card + k for k in range(n)]), np.full(n, 0.8, np.float32), np.zeros(n, np.int64),
                          np.array(names))

    seen = []
    for i in range(12):
        w.remember(i, i / 30, frame)
        seen.append(w.look(i, i / 30, boxed("back") if i < 6 else boxed("KS", "KS", "KS")))
    reveals = [s for s in seen if s is not None and s.kind == "reveal"]
    assert [(r.cards, r.count) for r in reveals] == [(("KS",), 1)]


def _edge_back(seed: int) -> np.ndarray:
    """The back of the built-in deck of ``[seed, 5]``: printed to its edges for seeds 5, 15, 21 and 22."""
    return FaceSet("builtin").deck(np.random.default_rng([seed, 5])).image("back", 300)


@pytest.mark.parametrize("seed", [21, 22])
def test_a_fan_of_backs_printed_to_their_edges_is_told_apart_by_the_seams_of_their_pattern(seed: int) -> None:
    """CH-2: where two backs printed to their edges overlap (the built-in decks of seeds 21 and 22: checks and a
    lattice, no margin) no outline shows between them: a fan of three is fitted as one card. Where the pattern breaks
    (each pixel against the one a period away, :func:`vision.fan.pattern_seams`) is an edge too: three. (Of such
    synthetic fans it is not always so: seed 5's lattice on a light cloth, three without the seams, two with; on
    rendered 2-player games of seeds 15 and 21, 20 -> 24 of 32 batches and reveals right.)"""
    from models.deckmatch import printed_to_edge

    _, back, frame, view, crop, before = squared_pile(seed, True, back=_edge_back(seed))
    assert printed_to_edge(back)
    for k in range(3):
        lay_back(frame, back, ((k - 1) * FAN_MM, 0.0), 4.0 + (k - 1) * 6.0)
    now = grey(frame, crop)
    assert len(fit_batch(now, view, before, seams=True)) == 3
    assert len(fit_batch(now, view, before)) == 1


@pytest.mark.parametrize("seed", [21, 5])
def test_a_fan_of_four_backs_printed_to_their_edges_goes_on_beyond_the_card_fitted_first(seed: int) -> None:
    """CH-2: a seam has no side, so in a fan of four such backs the card fitted first may be one of the middle ones,
    and the fan goes on either side of it: the next card lies beside any card fitted so far, not only the last
    (synthetic fans of four on a dark cloth, seeds 21 and 5: three counted so before; rendered held-out Cheat 3p s5
    3.79 s: a batch of 3 counted 2 -> 3)."""
    _, back, frame, view, crop, before = squared_pile(seed, False, back=_edge_back(seed))
    for k in range(4):
        lay_back(frame, back, ((k - 1.5) * FAN_MM, 0.0), 4.0 + (k - 1) * 6.0)
    assert len(fit_batch(grey(frame, crop), view, before, seams=True)) == 4


@pytest.mark.parametrize(("seed", "to_edge"), [(5, True), (15, True), (21, True), (238, False), (11, False),
                                               (12, False), (17, False)])
def test_a_back_printed_to_its_edges_is_told_from_one_with_a_margin(seed: int, to_edge: bool) -> None:
    """The deck folder's ``back.png`` says whether the pattern runs to the card's edges (the renderer's decks of seeds
    5, 15 and 21) or stops at a margin (238, 11, 12); seed 17's rosette on a plain ground has no pattern at its edge
    to break."""
    from models.deckmatch import printed_to_edge

    back = FaceSet("builtin").deck(np.random.default_rng([seed, 5])).image("back", 352)
    assert printed_to_edge(back) is to_edge


def test_a_lower_cards_strip_on_a_bare_table_is_counted_as_sharp_as_the_top_cards_edge(tmp_path: Path) -> None:
    """CH-2, from a rendered Cheat game (2 players, seed 7, 5.79 s): B lays two backs on the bare cloth (the pile was
    just taken), the lower one's strip 0.11 of it, its outline 0.96 as sharp as the top's and 0.64 of it new. On a
    pile that strip could be an old card's edge peeking out (the renderer squares the pile under a batch: as sharp,
    as new), so a sliver must be sharper than the top card there; on a bare table every card is the batch's."""
    import av

    from calibration.layout import Layout
    from models.gamevideo import render_game
    from vision.tracking import zone_crop

    r = render_game(tmp_path / "g.mp4", "cheat", 2, seed=7, seconds=6.2, audio=False)
    lay = Layout.load(r.layout)
    zone = lay.zones["center"]
    x0, y0, x1, y1 = zone_crop(zone, lay.frame_size, min_side=320)
    with av.open(str(r.video)) as c:
        looks = {k: cv2.cvtColor(f.to_ndarray(format="bgr24")[y0:y1, x0:x1], cv2.COLOR_BGR2GRAY)
                 for k, f in enumerate(c.decode(video=0)) if k in (160, 184)}
    view = FlatView.around(zone.polygon, lay.homography, (x0, y0))
    assert len(fit_batch(looks[184], view, looks[160], bare=True)) == 2
    assert len(fit_batch(looks[184], view, looks[160])) == 1  # (on a pile: one)


def test_a_fan_is_counted_while_a_weak_box_flickers_and_the_next_card_comes_in_at_the_crops_edge() -> None:
    """CH-2: a fan of three laid, its lowest card boxed unsurely one look and not the next, while the next player's
    card, in their hand, comes in over the crop's edge beside the pile (rendered Cheat 2p s238 16.27 s). The look
    settles on the sure backs (a count that flickers with a weak box never did: the batch went unseen), and the
    card coming in is no card of the batch (fitted with it, a fan of four was counted six)."""
    from calibration.layout import Zone
    from models.detector import Detections
    from vision.batches import BatchWatcher

    rng, back, frame, view, crop, _ = squared_pile(21, False)
    zone = Zone("center", to_image(np.array([[-60.0, -70.0], [60.0, -70.0], [60.0, 70.0], [-60.0, 70.0]])))
    w = BatchWatcher(zone, crop, confirm=2, every=1, image_to_mm=TO_MM)
    pile = frame.copy()
    fan = [(-FAN_MM, 3.0), (0.0, 9.0), (FAN_MM, 15.0)]  # lowest first
    for x, a in fan:
        lay_back(frame, back, (x, 2.0), a)

    def box_of(x: float, y: float) -> np.ndarray:
        c = to_image(np.array([[x, y]]))[0]
        return np.array([c[0] - 34, c[1] - 46, c[0] + 34, c[1] + 46], np.float32)

    def boxed(boxes: list[tuple[np.ndarray, float]]) -> Detections:
        return Detections(np.stack([b for b, _ in boxes]), np.array([c for _, c in boxes], np.float32),
                          np.zeros(len(boxes), np.int64), np.array(["back"] * len(boxes)))

    seen = []
    for i in range(8):  # the pile as it was, settled
        w.remember(i, i / 30, cv2.GaussianBlur(pile, (0, 0), 0.8))
        w.look(i, i / 30, boxed([(box_of(0.0, 0.0), 0.9)]))
    for i in range(8, 18):
        image = frame.copy()
        y = -120.0 + 3.0 * (i - 8)  # the next card, held, coming in over the zone's edge
        lay_back(image, back, (5.0, y), 0.0)
        w.remember(i, i / 30, cv2.GaussianBlur(image, (0, 0), 0.8))
        boxes = [(box_of(FAN_MM, 2.0), 0.9), (box_of(0.0, 2.0), 0.7), (box_of(5.0, y), 0.85)]
        if i % 2:
            boxes.append((box_of(-FAN_MM, 2.0), 0.4))  # the lowest card's strip, boxed one look in two
        seen.append(w.look(i, i / 30, boxed(boxes)))
    batches = [(s.kind, s.count) for s in seen if s is not None]
    assert batches == [("facedown", 3)]


def test_a_fan_of_backs_whose_pattern_is_finer_than_the_flat_view_is_counted_on_the_crop_blurred_first(
        monkeypatch) -> None:
    """CH-2: the built-in lattice of seed 5, printed to its edges, repeats every 4 px of a webcam's frame, under two px
    of the flat view the outlines are fitted in: turned flat as it is, it folds into a moire whose stripes run every
    way, and a fan of four on a light cloth was fitted as one card (rendered held-out Cheat s5: fans of four counted
    three). Blurred first (:data:`vision.fan.FINE_PATTERN_BLUR`), four. A coarser pattern (seed 21's checks, 13 px)
    is left as it is."""
    from vision import fan

    _, back, frame, view, crop, before = squared_pile(5, True, back=_edge_back(5))
    rng = np.random.default_rng(54)
    base = float(rng.uniform(-10, 10))
    for k in range(4):
        lay_back(frame, back, ((k - 1.5) * FAN_MM + rng.normal(0, 1), rng.normal(0, 1)), base + (k - 1.5) * 6.0)
    now = grey(frame, crop)
    assert fan.fine_pattern(now, view, before)
    assert len(fit_batch(now, view, before, seams=True)) == 4
    monkeypatch.setattr(fan, "FINE_PATTERN_BLUR", 0.0)
    assert len(fit_batch(now, view, before, seams=True)) != 4

    _, back, frame, view, crop, before = squared_pile(21, True, back=_edge_back(21))
    for k in range(3):
        lay_back(frame, back, ((k - 1) * FAN_MM, 0.0), 4.0 + (k - 1) * 6.0)
    assert not fan.fine_pattern(grey(frame, crop), view, before)


@pytest.mark.parametrize("stirs", [False, True])
def test_a_hand_boxed_where_nothing_moves_for_a_while_is_the_cloth_not_a_hand(stirs: bool) -> None:
    """CH-2: a hand over the pile hides what is laid, so no look with one settles; but a hand lays or takes cards
    and goes, and a "hand" boxed surely at one place for :data:`vision.batches.STILL_HAND_S` with nothing moving
    under it is the cloth (rendered Cheat 2p s21, a pink-striped cloth: boxed 0.5-0.66 over half the pile for
    seconds, 11 of 15 batches missed). The batch laid is counted once it has lain so; where something stirs under
    the box (a hand held there), never."""
    from calibration.layout import Zone
    from models.detector import Detections
    from vision.batches import STILL_HAND_S, BatchWatcher

    rng, back, frame, view, crop, _ = squared_pile(11, False)
    zone = Zone("center", to_image(np.array([[-60.0, -70.0], [60.0, -70.0], [60.0, 70.0], [-60.0, 70.0]])))
    w = BatchWatcher(zone, crop, confirm=2, every=1, image_to_mm=TO_MM)
    pile = frame.copy()
    for k in (-1, 1):
        lay_back(frame, back, (k * FAN_MM / 2, 0.0), 10.0 + k * 3.0)
    c = to_image(np.array([[0.0, 0.0]]))[0]
    card = np.array([c[0] - 34, c[1] - 46, c[0] + 34, c[1] + 46], np.float32)
    cloth = np.array([c[0] - 120, c[1] - 70, c[0] + 120, c[1] + 10], np.float32)  # over the pile's upper half

    def boxed(hand: bool) -> Detections:
        boxes = [(card, 0.9, "back")] + ([(cloth, 0.6, "hand")] if hand else [])
        return Detections(np.stack([b for b, _, _ in boxes]), np.array([p for _, p, _ in boxes], np.float32),
                          np.zeros(len(boxes), np.int64), np.array([n for _, _, n in boxes]))

    for i in range(8):  # the pile as it was, settled
        w.remember(i, i / 30, cv2.GaussianBlur(pile, (0, 0), 0.8))
        w.look(i, i / 30, boxed(False))
    seen = []
    looks = int(STILL_HAND_S * 30) + 8
    for i in range(8, 8 + looks):
        image = frame.copy()
        if stirs:  # (a patch under the box that changes every frame)
            image[int(cloth[1]) + 5:int(cloth[1]) + 45, int(cloth[0]) + 10:int(cloth[0]) + 90] = 60 + 80 * (i % 2)
        w.remember(i, i / 30, cv2.GaussianBlur(image, (0, 0), 0.8))
        seen.append((i, w.look(i, i / 30, boxed(True))))
    batches = [(i, s.kind, s.count) for i, s in seen if s is not None]
    if stirs:
        assert batches == []
    else:
        assert [(k, n) for _, k, n in batches] == [("facedown", 2)]
        assert batches[0][0] >= 8 + STILL_HAND_S * 30 - 1  # (not before the box had lain still so long)
