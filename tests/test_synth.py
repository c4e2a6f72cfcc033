"""Synthetic detector data: class list, face renderer, folder loader, scenes and their labels, dataset writer.

Fast on purpose (a few seconds): small images, few scenes. Nothing here needs ``/work/shared/data``.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from engine.cards import DECK_WITH_JOKERS, STANDARD_DECK
from models.classes import BACK, CLASSES, HAND, NAME_TO_INDEX
from models.render import (
    CARD_ASPECT,
    code_from_filename,
    load_face_folder,
    random_style,
    render_back,
    render_face,
)


def test_classes_are_56_in_fixed_order() -> None:
    assert len(CLASSES) == 56 and len(set(CLASSES)) == 56
    assert CLASSES[:52] == STANDARD_DECK
    assert CLASSES[52:] == ("RJ", "BJ", "back", "hand")
    assert NAME_TO_INDEX["AS"] == 0 and NAME_TO_INDEX["10H"] == 22 and BACK == 54 and HAND == 55
    assert all(CLASSES[NAME_TO_INDEX[n]] == n for n in CLASSES)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_every_face_renders_with_card_aspect(seed: int) -> None:
    style = random_style(np.random.default_rng(seed))
    for height in (64, 181):
        for card in DECK_WITH_JOKERS:
            img = render_face(card, style, height)
            assert img.dtype == np.uint8 and img.shape[2] == 4 and img.shape[0] == height
            assert abs(img.shape[1] / img.shape[0] - CARD_ASPECT) < 1.0 / height + 0.01
            rgb = img[..., :3].astype(int)
            assert rgb.std() > 10, f"{card} is blank"  # something is printed on it
            assert img[0, 0, 3] < 128 and img[height // 2, img.shape[1] // 2, 3] == 255  # rounded corner, body
        back = render_back(style, height)
        assert back.shape == img.shape and back[..., :3].std() > 5


def test_renders_without_system_fonts() -> None:
    """Where no TTF is installed (a bare training machine) PIL's default font still draws every index."""
    style = random_style(np.random.default_rng(9))
    style.font = style.court_font = ""
    style.pips = {s: p if p.kind == "poly" else type(p)("poly") for s, p in style.pips.items()}
    for card in DECK_WITH_JOKERS:
        img = render_face(card, style, 90)
        assert img.shape[0] == 90 and img[..., :3].std() > 10


def test_styles_vary() -> None:
    """Different seeds give different decks (fonts, colours, layout): the point of the renderer."""
    styles = [random_style(np.random.default_rng(s)) for s in range(20)]
    assert len({s.font for s in styles}) >= 5
    assert len({s.ink["H"] for s in styles}) >= 10
    assert len({s.back_kind for s in styles}) >= 4
    a = render_face("7H", styles[0], 120).astype(int)
    b = render_face("7H", styles[1], 120).astype(int)
    assert np.abs(a - b).mean() > 3


def test_ranks_are_told_apart_in_one_style() -> None:
    style = random_style(np.random.default_rng(5))
    imgs = {c: render_face(c, style, 100).astype(int) for c in ("6S", "8S", "9S", "6C", "6H")}
    for a in imgs:
        for b in imgs:
            if a != b:
                assert np.abs(imgs[a] - imgs[b]).sum() > 0, (a, b)


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4, 5])
def test_pip_count_is_the_rank(seed: int) -> None:
    """Outside the corner indices, a 2-10 carries exactly rank-many pips (separate ink blobs), an ace one."""
    import cv2

    style = random_style(np.random.default_rng(seed))
    for card in [r + s for r in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10") for s in "SHDC"]:
        img = render_face(card, style, 240)
        h, w = img.shape[:2]
        ink = (np.abs(img[..., :3].astype(int) - np.array(style.paper)).sum(2) > 120).astype(np.uint8)
        for x0, y0, x1, y1 in style.index_regions():
            ink[int(y0 * h): int(np.ceil(y1 * h)), int(x0 * w): int(np.ceil(x1 * w))] = 0
        if style.border is not None:  # the printed frame line is not a pip
            m = int((style.border[0] + style.border[1]) * w) + 2
            ink[:, :m] = ink[:, w - m:] = ink[:m] = ink[h - m:] = 0
        n, _, stats, _ = cv2.connectedComponentsWithStats(ink)
        blobs = sum(1 for k in range(1, n) if stats[k, 4] > 20)
        assert blobs == (1 if card[0] == "A" else int(card[:-1])), card


def test_filename_schemes() -> None:
    assert code_from_filename("10C.png") == "10C"
    assert code_from_filename("qs.jpg") == "QS"
    assert code_from_filename("TD.png") == "10D"
    assert code_from_filename("10_of_clubs.png") == "10C"
    assert code_from_filename("ace_of_spades.png") == "AS"
    assert code_from_filename("king_of_hearts2.png") == "KH"
    assert code_from_filename("red_joker.png") == "RJ"
    assert code_from_filename("black_joker.png") == "BJ"
    assert code_from_filename("back.png") == "back"
    assert code_from_filename("1C.png") is None and code_from_filename("notes.png") is None
    assert code_from_filename("11_of_clubs.png") is None


def test_folder_loader_maps_both_schemes(tmp_path) -> None:
    import cv2

    for name, color in (("10C.png", (0, 0, 255)), ("QS.jpg", (0, 255, 0)), ("ace_of_spades.png", (255, 0, 0)),
                        ("red_joker.png", (9, 9, 9)), ("back.png", (50, 60, 70)), ("readme.txt", None),
                        ("7_of_hearts.png", (1, 2, 3))):
        if color is None:
            (tmp_path / name).write_text("not an image")
            continue
        img = np.zeros((88, 63, 3), np.uint8)
        img[:] = color
        cv2.imwrite(str(tmp_path / name), img)
    (tmp_path / "2_of_clubs.png").write_bytes(b"broken")  # unreadable: skipped, not fatal
    faces = load_face_folder(tmp_path, height=100)
    assert set(faces) == {"10C", "QS", "AS", "RJ", "back", "7H"}
    img = faces["AS"][0]
    assert img.shape == (100, round(100 * CARD_ASPECT), 4)
    assert tuple(img[50, 30, :3]) == (0, 0, 255)  # BGR file read as RGB
    assert tuple(faces["10C"][0][50, 30, :3]) == (255, 0, 0)


# ------------------------------------------------------------------------------------------------------ scenes

from models.scenes import (  # noqa: E402
    MIN_INDEX_VISIBLE,
    MIN_VISIBLE,
    Deck,
    FaceSet,
    Placed,
    make_camera,
    make_scene,
    render_scene,
)


def _box_of(mask: np.ndarray) -> tuple[int, int, int, int]:
    ys, xs = np.nonzero(mask)
    return int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1


def _label_px(label: tuple, W: int, H: int) -> tuple[float, float, float, float]:
    _, cx, cy, w, h = label
    return (cx - w / 2) * W, (cy - h / 2) * H, (cx + w / 2) * W, (cy + h / 2) * H


@pytest.fixture(scope="module")
def scenes() -> list:
    fs = FaceSet()
    return [make_scene(np.random.default_rng([11, i]), fs, (320, 240), return_info=True) for i in range(24)]


def test_scene_shapes_and_label_ranges(scenes: list) -> None:
    n_labels = 0
    for img, labels, _ in scenes:
        assert img.shape == (240, 320, 3) and img.dtype == np.uint8
        for c, cx, cy, w, h in labels:
            assert 0 <= c < len(CLASSES)
            assert cx - w / 2 >= 0 and cx + w / 2 <= 1 + 1e-9 and cy - h / 2 >= 0 and cy + h / 2 <= 1 + 1e-9
            assert w > 0 and h > 0
        n_labels += len(labels)
    assert n_labels >= 24 * 2  # scenes are not empty


def test_boxes_are_the_visible_pixels(scenes: list) -> None:
    """Per labelled object: box == bbox of its visible mask (1 px), and those pixels are not the bare table."""
    for _img, labels, info in scenes:
        labelled = [o for o in info.objects if o.labelled]
        assert len(labelled) == len(labels)
        diff = np.abs(info.clean.astype(int) - info.background.astype(int)).sum(2)
        for obj, lab in zip(labelled, labels, strict=True):
            assert lab[0] == obj.cls
            box = _box_of(obj.mask)
            got = _label_px(lab, 320, 240)
            assert max(abs(a - b) for a, b in zip(box, got, strict=True)) <= 1.0, (obj.name, box, got)
            assert (diff[obj.mask] > 20).mean() > 0.5, f"{obj.name}: its pixels look like the table"
            if obj.cls < 54:
                assert obj.visible >= MIN_VISIBLE and obj.index_visible >= MIN_INDEX_VISIBLE
        # an unlabelled object is one the rule refused, never one forgotten
        for obj in info.objects:
            if not obj.labelled and obj.mask.sum() > 0 and obj.cls < 54:
                assert obj.visible < MIN_VISIBLE or obj.index_visible < MIN_INDEX_VISIBLE


def test_scenes_have_variety(scenes: list) -> None:
    names = {CLASSES[c] for _, labels, _ in scenes for c, *_ in labels}
    assert "back" in names and "hand" in names
    assert len(names) >= 15


def _fixed(cover_both: bool, hand: bool = False) -> tuple:
    from models.render import random_style

    style = random_style(np.random.default_rng(0))
    style.four_index = False
    cam = make_camera((480, 360), height=40, tilt=10, roll=30, hfov=60)
    placed = [Placed("7H", 0.0, 0.0, 0.0), Placed("back", -3.0, 4.3, 0.0)]  # over the top-left index (+y: up)
    if cover_both:
        placed.append(Placed("back", 3.0, -4.3, 0.0))
    targets = [np.array([240.0, 180.0])] if hand else []
    return render_scene(np.random.default_rng(1), cam, Deck(style, {}), placed, targets)


def test_face_with_both_indices_covered_gets_no_label() -> None:
    _, labels, info = _fixed(cover_both=True)
    seven = info.objects[0]
    assert seven.name == "7H" and seven.visible >= MIN_VISIBLE  # enough of it shows...
    assert seven.index_visible < 0.5  # ...but neither index
    assert not seven.labelled
    assert [CLASSES[c] for c, *_ in labels] == ["back", "back"]
    _, labels, info = _fixed(cover_both=False)  # the bottom-right index is free: now it is a 7 of hearts
    assert info.objects[0].labelled and info.objects[0].index_visible >= MIN_INDEX_VISIBLE
    assert sorted(CLASSES[c] for c, *_ in labels) == ["7H", "back"]


def test_hands_are_labelled_and_occlude() -> None:
    _, labels, info = _fixed(cover_both=False, hand=True)
    hands = [o for o in info.objects if o.name == "hand"]
    assert len(hands) == 1 and hands[0].labelled
    lab = [lb for lb in labels if lb[0] == HAND][0]
    box = _box_of(hands[0].mask)
    assert max(abs(a - b) for a, b in zip(box, _label_px(lab, 480, 360), strict=True)) <= 1.0
    # the hand reaches for the middle of the 7: the card's visible pixels shrink
    _, _, bare = _fixed(cover_both=False, hand=False)
    assert info.objects[0].mask.sum() < bare.objects[0].mask.sum()


def test_scene_is_deterministic_per_seed() -> None:
    a, la = make_scene(np.random.default_rng(5), size=(160, 120))
    b, lb = make_scene(np.random.default_rng(5), size=(160, 120))
    c, _ = make_scene(np.random.default_rng(6), size=(160, 120))
    assert np.array_equal(a, b) and la == lb
    assert not np.array_equal(a, c)


def test_user_folder_faces_in_scenes(tmp_path) -> None:
    import cv2

    for name in ("AS.png", "king_of_hearts.png", "back.png"):
        img = np.full((88, 63, 3), 255, np.uint8)
        cv2.putText(img, name[:2], (5, 20), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (0, 0, 0), 2)
        cv2.imwrite(str(tmp_path / name), img)
    fs = FaceSet(tmp_path, user_share=1.0)
    assert set(fs.user) == {"AS", "KH", "back"}
    img, labels = make_scene(np.random.default_rng(3), fs, (320, 240))  # missing cards fall back to builtin
    assert img.shape == (240, 320, 3)
    with pytest.raises(FileNotFoundError):
        FaceSet(tmp_path / "nope")


# ------------------------------------------------------------------------------------------------- dataset

from models.dataset import generate, is_val  # noqa: E402


def _read_layout(root) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
            and p.name not in ("recipe.json", "data.yaml")}


def test_dataset_layout_is_valid_yolo(tmp_path) -> None:
    import cv2
    import yaml

    out = tmp_path / "ds"
    data = generate(out, images=10, imgsz=160, seed=3, val_fraction=0.2, workers=2, progress=False)
    meta = yaml.safe_load(data.read_text())
    assert meta["path"] == str(out.resolve()) and meta["train"] == "images/train" and meta["val"] == "images/val"
    assert meta["nc"] == 56 and [meta["names"][k] for k in range(56)] == list(CLASSES)
    for i in range(10):
        split = "val" if is_val(i, 0.2) else "train"
        img = cv2.imread(str(out / "images" / split / f"{i:06d}.jpg"))
        assert img is not None and img.shape[1] == 160 and img.shape[0] in (160, 120, 90)
        lines = (out / "labels" / split / f"{i:06d}.txt").read_text().splitlines()
        for line in lines:
            parts = line.split()
            assert len(parts) == 5 and 0 <= int(parts[0]) < 56
            assert all(0.0 <= float(v) <= 1.0 for v in parts[1:])
    assert sum(is_val(i, 0.2) for i in range(10)) == 2
    assert len(list((out / "images" / "val").iterdir())) == 2


def test_dataset_is_deterministic_and_reused(tmp_path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    generate(a, images=5, imgsz=128, seed=7, workers=2, progress=False)
    generate(b, images=5, imgsz=128, seed=7, workers=1, progress=False)  # worker count does not matter
    assert _read_layout(a) == _read_layout(b)
    before = {p: p.stat().st_mtime_ns for p in a.rglob("*.jpg")}
    generate(a, images=5, imgsz=128, seed=7, workers=2, progress=False)  # same recipe: nothing rewritten
    assert before == {p: p.stat().st_mtime_ns for p in a.rglob("*.jpg")}
    first = _read_layout(a)
    generate(a, images=4, imgsz=128, seed=8, workers=1, progress=False)  # another recipe replaces it
    now = _read_layout(a)
    assert len([k for k in now if k.endswith(".jpg")]) == 4
    assert all(now[k] != first[k] for k in now if k.endswith(".jpg"))


def test_cards_are_laid_face_up_not_mirrored() -> None:
    """A card seen straight from above must look like its face, not its mirror image (a mirrored 7 is not a
    card): compare the drawn card with the face and with the face flipped left-right."""
    from models.scenes import FaceSet, Placed, make_camera, render_scene

    rng = np.random.default_rng(3)
    cam = make_camera((640, 480), 40, 0, 0)
    deck = FaceSet("builtin").deck(rng)
    for code in ("7H", "AS", "QD"):
        img, _, info = render_scene(rng, cam, deck, [Placed(code, 0, 0, 0)], [], effects=False, distractors=False)
        ys, xs = np.nonzero(info.objects[0].mask)
        drawn = cv2.cvtColor(img[ys.min(): ys.max() + 1, xs.min(): xs.max() + 1], cv2.COLOR_RGB2GRAY)
        face = cv2.cvtColor(deck.image(code, 400)[..., :3], cv2.COLOR_RGB2GRAY)
        face = cv2.resize(face, drawn.shape[::-1], interpolation=cv2.INTER_AREA).astype(np.float32)
        d = drawn.astype(np.float32)

        def corr(a: np.ndarray, b: np.ndarray) -> float:
            return float(np.corrcoef(a.ravel(), b.ravel())[0, 1])

        assert corr(d, face) > 0.8, code
        assert corr(d, face) > corr(d, np.fliplr(face)) + 0.04, code


def test_a_face_seen_small_is_its_printed_picture_shrunk_and_a_back_is_drawn_at_its_size() -> None:
    """A camera sees a print shrunk: a face drawn anew at the size it is filmed is another card (pip outlines filled
    at a few pixels made every club a round blob, a spade to the matcher, in rendered games whose deck pictures show
    real clubs). Every builtin face at a filmed size is the ``PRINT_PX`` picture (the deck folder's) shrunk; backs
    are drawn at the size asked (Cheat's batch counting was tuned on their edges: :meth:`models.scenes.Deck.image`)."""
    from models.render import render_back, resize_card
    from models.scenes import PRINT_PX

    rng = np.random.default_rng(3)
    for _ in range(4):
        deck = FaceSet("builtin").deck(rng)
        for code, height in (("KC", 100), ("3C", 64), ("AS", 150), ("10D", 351)):
            printed = resize_card(deck.image(code, PRINT_PX), height).astype(np.float32)
            assert np.abs(deck.image(code, height).astype(np.float32) - printed).max() == 0, code
        assert np.array_equal(deck.image("back", 100), render_back(deck.style, 100))
        assert deck.image("KC", 400).shape[0] == 400  # (larger than the print: drawn at its size)
