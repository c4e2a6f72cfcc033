"""Synthetic webcam views of a card table, with YOLO labels.

A scene is built like the real thing: a table surface in 3D, cards lying on it (piles, fans, rows, singles,
face-down stacks), a camera 40-120 cm above it tilted 0-45 degrees (so every card is a homography of its flat
render), things that are not cards (paper, phones, coins: never labelled), hands and forearms reaching in over
the cards, then what a cheap webcam does to the picture (uneven light, colour cast, glare, blur, noise, JPEG).

Label rule (what the detector is asked to find), decided here and checked by the tests:

* A face-up card is labelled with its identity only if (a) at least ``MIN_VISIBLE`` (30 %) of the card's area is
  visible (not covered by cards or hands, and inside the frame) AND (b) at least one of its corner indices is
  unoccluded: ``MIN_INDEX_VISIBLE`` (85 %) of the index region (rank + index pip) visible. Anything else is left
  unlabelled, i.e. background to the detector: the right lesson for a card whose identity cannot be seen.
  Small far cards are NOT dropped for being small (only a degenerate index under ``MIN_INDEX_PX`` = 12 px is):
  a fully visible card left unlabelled would teach the detector that cards are background.
* A face-down card (or the top of a stack) is ``back`` if ``MIN_VISIBLE`` of it is visible.
* A hand is labelled ``hand``: the visible hand and forearm, sleeve included, whenever ``MIN_HAND_PX`` pixels of
  it are in the frame.
* Every box is the axis-aligned box of the object's VISIBLE pixels (after occlusion and the frame), as the real
  labels enclose the visible card; the per-object visible masks are returned on request so this can be checked.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from models.classes import BACK, FACES, HAND, NAME_TO_INDEX
from models.render import (
    CARD_H_MM,
    CARD_W_MM,
    USER_INDEX_REGIONS,
    Rect,
    Style,
    load_face_folder,
    random_style,
    render_back,
    render_face,
    resize_card,
    rounded_alpha,
)

MIN_VISIBLE = 0.30
#: the height (px) a builtin card's face is drawn at, as the printed card (4 px per mm: three times a card's
#: height on a 720p table); smaller pictures of it are shrunk from this one (Deck.image)
PRINT_PX = 352
MIN_INDEX_VISIBLE = 0.85
MIN_INDEX_PX = 12
MIN_BACK_PX = 80
MIN_HAND_PX = 300
CARD_W, CARD_H = CARD_W_MM / 10, CARD_H_MM / 10  # cm

Label = tuple[int, float, float, float, float]  # class, cx, cy, w, h (normalised)


# ------------------------------------------------------------------------------------------------ faces / decks


class FaceSet:
    """Where card pictures come from: our renderer (``"builtin"``) or a folder of a user's card images.

    With a folder, ``user_share`` of the scenes use the user's deck (missing cards drawn in a builtin style) and
    the rest builtin decks, so a model trained for one deck still sees other designs."""

    def __init__(self, faces: str | Path | FaceSet = "builtin", user_share: float = 0.75) -> None:
        self.user: dict[str, list[np.ndarray]] = {}
        self.user_share = user_share
        self.name = "builtin"
        if isinstance(faces, FaceSet):
            self.user, self.user_share, self.name = faces.user, faces.user_share, faces.name
        elif str(faces) != "builtin":
            folder = Path(faces)
            if not folder.is_dir():
                raise FileNotFoundError(f"faces={faces}: not 'builtin' and not a folder")
            self.user = load_face_folder(folder)
            if not self.user:
                raise ValueError(f"faces={faces}: no card images named like 10C.png or 10_of_clubs.png")
            self.name = str(folder.resolve())

    def deck(self, rng: np.random.Generator) -> Deck:
        use_user = bool(self.user) and rng.random() < self.user_share
        return Deck(random_style(rng), self.user if use_user else {}, int(rng.integers(1 << 30)))


@dataclass
class Deck:
    """One scene's deck: a builtin style, optionally overridden card by card by user images."""

    style: Style
    user: dict[str, list[np.ndarray]]
    pick: int = 0
    _cache: dict[tuple[str, int], np.ndarray] = field(default_factory=dict)

    def image(self, code: str, height: int) -> np.ndarray:
        """RGBA picture of ``code`` (or ``"back"``) ``height`` px tall.

        A builtin face is drawn once as the printed card (``PRINT_PX`` tall) and shrunk to ``height``, as a camera
        sees a print: drawn anew at a small size it would be another card (pips filled at a few pixels make every
        club a round blob, hinted fonts and strokes change weight), unlike the deck's pictures a reader compares
        with and unlike any real card. Backs are still drawn at the size asked: Cheat's batch counting
        (:mod:`vision.fan`) was tuned on their sharp edges, and with backs shrunk from a print too, 8 of its
        synthetic cases failed and held-out rendered Cheat fell from 5 to 2 of 9 games' verdicts equal (with the
        detector trained halfway; faces alone as prints: 5 of 9, batches and reveals 125 -> 131 of 145)."""
        key = (code, height)
        if key not in self._cache:
            variants = self.user.get(code)
            if variants:
                self._cache[key] = resize_card(variants[self.pick % len(variants)], height)
            elif height < PRINT_PX and code != "back":
                self._cache[key] = resize_card(self.image(code, PRINT_PX), height)
            elif code == "back":
                self._cache[key] = render_back(self.style, height)
            else:
                self._cache[key] = render_face(code, self.style, height)
        return self._cache[key]

    def index_regions(self, code: str) -> list[Rect]:
        return USER_INDEX_REGIONS if code in self.user else self.style.index_regions()


# ------------------------------------------------------------------------------------------------------ camera


@dataclass
class Camera:
    """Pinhole camera over the table plane z=0 (cm); ``H`` maps table (x, y, 1) to image pixels."""

    H: np.ndarray
    Hinv: np.ndarray
    size: tuple[int, int]

    def to_image(self, pts: np.ndarray) -> np.ndarray:
        p = np.c_[pts, np.ones(len(pts))] @ self.H.T
        return p[:, :2] / p[:, 2:3]

    def to_table(self, pts: np.ndarray) -> np.ndarray:
        p = np.c_[pts, np.ones(len(pts))] @ self.Hinv.T
        return p[:, :2] / p[:, 2:3]

    def px_per_cm(self, xy: np.ndarray) -> float:
        a = self.to_image(np.array([xy, xy + (1.0, 0.0), xy + (0.0, 1.0)]))
        return float((np.linalg.norm(a[1] - a[0]) + np.linalg.norm(a[2] - a[0])) / 2)


def random_camera(rng: np.random.Generator, size: tuple[int, int]) -> Camera:
    """A webcam 40-120 cm above the table (more often low), 0-45 degrees tilt, 55-80 degrees field of view."""
    height = 40 + 80 * rng.random() ** 2.2
    tilt = 45 * rng.random() ** 1.2
    roll = rng.uniform(0, 360)
    return make_camera(size, height, tilt, roll, rng.uniform(50, 78))


def closeup_camera(rng: np.random.Generator, size: tuple[int, int]) -> Camera:
    """A camera 16-40 cm above the table, 0-30 degrees tilt: what a crop of one pile's zone out of a webcam frame
    looks like (the audit detects on such crops so cards are seen large)."""
    height = rng.uniform(16, 40)
    return make_camera(size, height, 30 * rng.random() ** 1.5, rng.uniform(0, 360), rng.uniform(50, 78))


def make_camera(size: tuple[int, int], height: float, tilt: float = 0.0, roll: float = 0.0,
                hfov: float = 65.0) -> Camera:
    """Camera ``height`` cm above the table, tilted ``tilt`` degrees, whose optical axis meets the table at (0, 0)."""
    W, H = size
    tilt, roll, hfov = math.radians(tilt), math.radians(roll), math.radians(hfov)
    f = (W / 2) / math.tan(hfov / 2)
    K = np.array([[f, 0, W / 2], [0, f, H / 2], [0, 0, 1]])
    R0 = np.array([[1.0, 0, 0], [0, -1, 0], [0, 0, -1]])  # looking straight down
    c, s = math.cos(tilt), math.sin(tilt)
    Rx = np.array([[1, 0, 0], [0, c, -s], [0, s, c]])
    cr, sr = math.cos(roll), math.sin(roll)
    Rz = np.array([[cr, -sr, 0], [sr, cr, 0], [0, 0, 1]])
    R = Rz @ Rx @ R0
    t = np.array([0.0, 0.0, height / c])  # the optical axis meets the table at the origin
    Hm = K @ np.c_[R[:, 0], R[:, 1], t]
    Hm = Hm / Hm[2, 2]
    return Camera(Hm, np.linalg.inv(Hm), size)


# ------------------------------------------------------------------------------------------------ table surface


def _lowfreq(rng: np.random.Generator, h: int, w: int, cells: int = 6) -> np.ndarray:
    n = rng.random((cells, cells)).astype(np.float32)
    return cv2.resize(n, (w, h), interpolation=cv2.INTER_CUBIC)


def _rand_color(rng: np.random.Generator, base: tuple[int, int, int], spread: float = 25) -> np.ndarray:
    return np.clip(np.asarray(base, np.float32) + rng.normal(0, spread, 3), 0, 255).astype(np.float32)


_TABLE_BASES = {
    "felt": [(30, 110, 60), (20, 80, 50), (40, 60, 120), (120, 30, 40), (70, 70, 75), (25, 25, 28)],
    "plain": [(235, 235, 230), (200, 200, 195), (60, 60, 65), (180, 170, 150), (120, 130, 140), (245, 245, 245),
              (30, 30, 35)],
    "wood": [(170, 120, 75), (120, 80, 50), (200, 160, 110), (90, 60, 40), (210, 190, 160)],
    "cloth": [(200, 50, 50), (40, 60, 140), (220, 220, 210), (60, 120, 70), (150, 130, 100)],
    "carpet": [(180, 165, 140), (120, 110, 100), (90, 80, 90), (160, 150, 150)],
}


def table_texture(rng: np.random.Generator, h: int, w: int, cm_per_px: float) -> np.ndarray:
    """A table surface (RGB float32) in table coordinates: wood, felt, cloth weave, carpet, tiles, plain."""
    kind = rng.choice(["wood", "felt", "plain", "cloth", "carpet", "tiles", "marble"],
                      p=[0.28, 0.17, 0.17, 0.14, 0.1, 0.09, 0.05])
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    xc, yc = xx * cm_per_px, yy * cm_per_px
    if kind == "wood":
        a = _rand_color(rng, _TABLE_BASES["wood"][rng.integers(5)])
        b = a * rng.uniform(0.55, 0.85)
        ang = rng.uniform(0, math.pi)
        u = xc * math.cos(ang) + yc * math.sin(ang)
        v = -xc * math.sin(ang) + yc * math.cos(ang)
        warp = _lowfreq(rng, h, w, 5) * rng.uniform(2, 8)
        period = rng.uniform(0.6, 2.5)
        rings = 0.5 + 0.5 * np.sin((v + warp) * 2 * math.pi / period + 0.3 * np.sin(u * 0.05))
        streak = cv2.resize(rng.random((h, max(2, w // 25))).astype(np.float32), (w, h))
        t = np.clip(rings ** 2 * 0.7 + streak * 0.3, 0, 1)
        if abs(math.cos(ang)) < abs(math.sin(ang)):
            t = np.clip(rings ** 2 * 0.7 + cv2.resize(rng.random((max(2, h // 25), w)).astype(np.float32),
                                                        (w, h)) * 0.3, 0, 1)
        img = a * (1 - t[..., None]) + b * t[..., None]
        plank = rng.uniform(8, 25)
        seams = (np.abs(((v / plank) % 1.0) - 0.5) > 0.495) & (rng.random() < 0.6)
        img[seams] *= 0.6
    elif kind in ("felt", "plain", "carpet"):
        base = _TABLE_BASES[kind]
        a = _rand_color(rng, base[rng.integers(len(base))], 20)
        sigma = {"felt": 7, "plain": 2, "carpet": 30}[kind]
        n = noise_patch(rng, h, w)[..., 0] * sigma
        if kind == "carpet":
            n = cv2.GaussianBlur(n, (0, 0), max(0.6, 0.15 / cm_per_px))
            n *= 2.5
        img = a + n[..., None]
    elif kind == "cloth":
        a = _rand_color(rng, _TABLE_BASES["cloth"][rng.integers(5)], 30)
        b = _rand_color(rng, (235, 235, 230), 15) if rng.random() < 0.6 else a * 0.5
        ang = rng.uniform(0, math.pi)
        u = xc * math.cos(ang) + yc * math.sin(ang)
        v = -xc * math.sin(ang) + yc * math.cos(ang)
        period = rng.uniform(1.0, 5.0)
        if rng.random() < 0.5:  # gingham
            t = (((u // (period / 2)) % 2) + ((v // (period / 2)) % 2)) / 2
        else:  # stripes
            t = ((u // (period / 2)) % 2).astype(np.float32)
        weave = 0.5 + 0.5 * np.sin(u * 2 * math.pi / 0.35) * np.sin(v * 2 * math.pi / 0.35)
        img = a * (1 - t[..., None]) + b * t[..., None]
        img = img * (0.9 + 0.12 * weave[..., None])
    elif kind == "tiles":
        a = _rand_color(rng, (200, 195, 185), 40)
        period = rng.uniform(5, 25)
        g = (np.minimum((xc % period), (yc % period)) < 0.4).astype(np.float32)
        img = a * (1 - 0.4 * g[..., None]) + rng.standard_normal((h, w, 1), dtype=np.float32) * 3
    else:  # marble / stone
        a = _rand_color(rng, (225, 222, 215), 25)
        n = _lowfreq(rng, h, w, 8) * 10
        t = 0.5 + 0.5 * np.sin(xc * 0.15 + n)
        img = a * (1 - rng.uniform(0.05, 0.2) * t[..., None] ** 12)
    img = img * (0.88 + 0.24 * _lowfreq(rng, h, w, 4)[..., None])
    return np.clip(img, 0, 255).astype(np.float32)


def _draw_table(rng: np.random.Generator, cam: Camera) -> np.ndarray:
    """The table warped into the image; beyond its edge, a blurred room (floor, wall)."""
    W, H = cam.size
    corners = cam.to_table(np.array([[0, 0], [W, 0], [W, H], [0, H]], np.float64))
    lo, hi = np.maximum(corners.min(0), -200), np.minimum(corners.max(0), 200)
    # the table: a rectangle around the cards, sometimes with its edge in view
    half = rng.uniform(35, 120, 2)
    tlo, thi = np.maximum(lo, -half), np.minimum(hi, half)
    if np.any(thi <= tlo):
        tlo, thi = lo, hi
    extent = float(max(thi - tlo))
    cm_per_px = max(0.12, extent / 360)
    tw, th = (max(8, int((thi[i] - tlo[i]) / cm_per_px)) for i in (0, 1))
    tex = table_texture(rng, th, tw, cm_per_px)
    room = np.empty((H, W, 3), np.float32)
    shade = cv2.resize((0.7 + 0.6 * rng.random((3, 3))).astype(np.float32), (W, H), interpolation=cv2.INTER_LINEAR)
    col = _rand_color(rng, (90, 85, 80), 50)
    cv2.merge([shade * float(c) for c in col], dst=room)
    S = np.array([[cm_per_px, 0, tlo[0]], [0, cm_per_px, tlo[1]], [0, 0, 1]])
    cv2.warpPerspective(tex, cam.H @ S, (W, H), dst=room, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_TRANSPARENT)
    return room


# ----------------------------------------------------------------------------------------------------- layouts


@dataclass
class Placed:
    """One card on the table: code ('back' for face-down), centre (cm), angle (degrees)."""

    code: str
    x: float
    y: float
    angle: float
    lift: float = 0.0  # cm above the table (a card held or a thick stack): scales it slightly


#: An image's corners (top-left, top-right, bottom-right, bottom-left) on the table, in units of half its size.
#: The table's y axis points AWAY from the viewer of the image (right-handed, z up), so an image's top edge is
#: at +y: listing them as (-1, -1) first would lay every card down mirrored (a mirrored 7 is not a card).
UPRIGHT_CORNERS = np.array([[-1.0, 1.0], [1.0, 1.0], [1.0, -1.0], [-1.0, -1.0]])


def _rot(a: float) -> np.ndarray:
    r = math.radians(a)
    return np.array([[math.cos(r), -math.sin(r)], [math.sin(r), math.cos(r)]])


def _layout(rng: np.random.Generator, kind: str, c: np.ndarray, codes: list[str]) -> list[Placed]:
    n = len(codes)
    base = rng.uniform(0, 360)
    out: list[Placed] = []
    if kind == "pile":  # messy cards under a clear top card
        for i, code in enumerate(codes):
            top = i == n - 1
            off = rng.normal(0, 0.6 if top else 3.0, 2)
            out.append(Placed(code, *(c + off), base + rng.normal(0, 8 if top else 40)))
    elif kind == "fan":
        spread = rng.uniform(6, 16)
        radius = rng.uniform(3, 7)
        for i, code in enumerate(codes):
            a = base + (i - (n - 1) / 2) * spread
            ctr = c + _rot(a) @ np.array([0.0, -radius])
            out.append(Placed(code, *ctr, a))
    elif kind in ("row", "column"):
        along = rng.uniform(1.8, 7.5) if kind == "row" else rng.uniform(1.6, 3.0)
        d = _rot(base) @ (np.array([along, 0.0]) if kind == "row" else np.array([0.0, along]))
        for i, code in enumerate(codes):
            ctr = c + d * (i - (n - 1) / 2) + rng.normal(0, 0.15, 2)
            out.append(Placed(code, *ctr, base + rng.normal(0, 2)))
    elif kind == "stack":  # face-down stack: neat, only the top is seen
        for i, code in enumerate(codes):
            out.append(Placed(code, *(c + rng.normal(0, 0.08, 2)), base + rng.normal(0, 1.5), lift=0.03 * i))
    else:  # "spread": cards dealt apart
        for code in codes:
            out.append(Placed(code, *(c + rng.uniform(-12, 12, 2)), rng.uniform(0, 360)))
    return out


def _plan(rng: np.random.Generator, cam: Camera, deck_codes: list[str]) -> list[Placed]:
    """1-4 groups of cards at random spots of the visible table; each group a pile, fan, row, single or stack."""
    W, H = cam.size
    cards: list[Placed] = []
    pool = list(deck_codes)
    rng.shuffle(pool)
    for _ in range(int(rng.choice([1, 2, 3, 4, 5], p=[0.1, 0.2, 0.3, 0.22, 0.18]))):
        kind = str(rng.choice(["pile", "fan", "row", "column", "single", "stack", "spread"],
                              p=[0.26, 0.14, 0.14, 0.08, 0.14, 0.14, 0.1]))
        pt = np.array([[rng.uniform(0.12, 0.88) * W, rng.uniform(0.12, 0.88) * H]])
        c = cam.to_table(pt)[0]
        if kind == "stack":
            cards += _layout(rng, kind, c, ["back"] * int(rng.integers(2, 25)))
            continue
        n = {"pile": rng.integers(2, 9), "fan": rng.integers(2, 8), "row": rng.integers(2, 7),
             "column": rng.integers(2, 7), "single": 1, "spread": rng.integers(2, 5)}[kind]
        face_down = kind == "spread" and rng.random() < 0.5
        codes = []
        for _ in range(int(n)):
            if face_down or rng.random() < 0.06 or not pool:
                codes.append("back")
            else:
                codes.append(pool.pop())
        cards += _layout(rng, kind, c, codes)
    return cards


# --------------------------------------------------------------------------------------------------- drawing


@dataclass
class SceneObject:
    """One drawn object and why it got (or did not get) a label."""

    name: str  # card code, "back" or "hand"
    cls: int
    mask: np.ndarray  # bool HxW: visible pixels
    full_area: float  # projected area including occluded and out-of-frame parts (px)
    visible: float  # visible fraction
    index_visible: float  # best corner index visible fraction (faces)
    labelled: bool
    box: tuple[int, int, int, int] | None  # x0, y0, x1, y1 (exclusive) of the visible pixels


@dataclass
class SceneInfo:
    objects: list[SceneObject]
    background: np.ndarray | None  # the table alone (before cards, hands and camera effects)
    clean: np.ndarray | None  # the composite before camera effects
    jpeg_quality: int | None = None  # the webcam's compression drawn for this frame


def _quad_mask(quad: np.ndarray, x0: int, y0: int, w: int, h: int) -> np.ndarray:
    m = np.zeros((h, w), np.uint8)
    cv2.fillPoly(m, [np.round((quad - (x0, y0)) * 16).astype(np.int32)], 1, cv2.LINE_8, 4)
    return m.astype(bool)


def _composite(canvas: np.ndarray, idbuf: np.ndarray, rgba: np.ndarray, Hm: np.ndarray, oid: int,
               shadow: float) -> None:
    """Warp ``rgba`` by ``Hm`` onto the canvas (only inside its box), with a soft contact shadow."""
    Hc, Wc = canvas.shape[:2]
    h, w = rgba.shape[:2]
    q = cv2.perspectiveTransform(np.array([[[0, 0], [w, 0], [w, h], [0, h]]], np.float64), Hm)[0]
    pad = 6
    x0, y0 = (max(0, int(math.floor(v)) - pad) for v in q.min(0))
    x1, y1 = (int(math.ceil(v)) + pad for v in q.max(0))
    x1, y1 = min(Wc, x1), min(Hc, y1)
    if x1 <= x0 or y1 <= y0:
        return
    T = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], np.float64) @ Hm
    warped = cv2.warpPerspective(rgba, T, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0))
    a = warped[..., 3:4].astype(np.float32) / 255.0
    reg = canvas[y0:y1, x0:x1]
    if shadow > 0:
        s = cv2.GaussianBlur(a, (0, 0), 2.0)
        reg *= (1 - shadow * s)[..., None]
    reg += (warped[..., :3].astype(np.float32) - reg) * a
    idbuf[y0:y1, x0:x1][a[..., 0] > 0.5] = oid


def _draw_distractor(rng: np.random.Generator, cam: Camera, canvas: np.ndarray, idbuf: np.ndarray,
                     shadow: float) -> None:
    """Things that are not cards on the table (a note pad, a phone, a coin, a coaster): hard negatives, like the
    sheet of paper beside the cards in the real photos. Never labelled."""
    kind = str(rng.choice(["paper", "phone", "coin", "coaster"], p=[0.4, 0.25, 0.2, 0.15]))
    size_cm = {"paper": (rng.uniform(10, 21), rng.uniform(14, 29)), "phone": (7.0, 15.0),
               "coin": (2.4, 2.4), "coaster": (9.5, 9.5)}[kind]
    ppc_img = 6.0  # render resolution: pixels per cm of the object image
    w, h = max(4, int(size_cm[0] * ppc_img)), max(4, int(size_cm[1] * ppc_img))
    rgba = np.zeros((h, w, 4), np.uint8)
    if kind == "paper":
        rgba[..., :3] = _rand_color(rng, (245, 245, 238), 6).astype(np.uint8)
        rgba[..., 3] = 255
        if rng.random() < 0.7:  # ruled or printed lines
            ink = tuple(int(v) for v in _rand_color(rng, (120, 140, 190), 40))
            for y in range(int(h * 0.12), h - 6, int(rng.integers(7, 12))):
                x1 = int(w * rng.uniform(0.5, 0.95))
                cv2.line(rgba, (int(w * 0.08), y), (x1, y), (*ink, 255), 1)
    elif kind == "phone":
        rgba[..., :3] = _rand_color(rng, (25, 25, 30), 10).astype(np.uint8)
        rgba[..., 3] = rounded_alpha(w, h, 0.12 * w)
        if rng.random() < 0.5:  # a lit screen
            cv2.rectangle(rgba, (4, 8), (w - 5, h - 9), (*(int(v) for v in _rand_color(rng, (60, 80, 110), 30)),
                                                        255), -1)
    else:
        col = _rand_color(rng, (190, 160, 90) if kind == "coin" else (150, 110, 70), 30).astype(np.uint8)
        cv2.circle(rgba, (w // 2, h // 2), min(w, h) // 2 - 1, (*(int(v) for v in col), 255), -1, cv2.LINE_AA)
    W, H = cam.size
    c = cam.to_table(np.array([[rng.uniform(0, W), rng.uniform(0, H)]]))[0]
    ang = rng.uniform(0, 360)
    local = UPRIGHT_CORNERS * (size_cm[0] / 2, size_cm[1] / 2)
    quad = cam.to_image(local @ _rot(ang).T + c)
    Hm = cv2.getPerspectiveTransform(np.float32([[0, 0], [w, 0], [w, h], [0, h]]), quad.astype(np.float32))
    _composite(canvas, idbuf, rgba, Hm, 0, shadow)


def _skin(rng: np.random.Generator) -> np.ndarray:
    tones = [(255, 224, 196), (241, 194, 160), (224, 172, 130), (198, 134, 96), (161, 102, 68), (120, 75, 50),
             (90, 56, 38), (235, 200, 180)]
    return _rand_color(rng, tones[rng.integers(len(tones))], 10)


def _draw_hand(rng: np.random.Generator, cam: Camera, target: np.ndarray, start: np.ndarray | None = None,
               blur: tuple[float, float] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Colour (float32) and coverage (float32 0..1) of a forearm + hand reaching from an image edge to ``target``.

    Drawn in image space at the scale of the table there (hands are a little above it, so a bit larger).
    ``start``: where the arm comes from (image px; default a random edge point). ``blur``: the hand's motion
    during the exposure (dx, dy px; default: a random blur in 30 % of hands)."""
    W, H = cam.size
    ppc = cam.px_per_cm(cam.to_table(target[None])[0]) * rng.uniform(0.95, 1.2)
    edge = int(rng.integers(4))
    along = rng.uniform(0.1, 0.9)
    if start is None:
        start = np.array([[along * W, -0.1 * H], [W * 1.1, along * H], [along * W, H * 1.1],
                          [-0.1 * W, along * H]][edge])
    d = target - start
    d /= np.linalg.norm(d) + 1e-9
    nrm = np.array([-d[1], d[0]])
    skin = _skin(rng)
    color = np.zeros((H, W, 3), np.float32)
    cover = np.zeros((H, W), np.float32)

    def poly(pts: np.ndarray, col: np.ndarray) -> None:
        p = np.round(pts * 16).astype(np.int32)
        cv2.fillPoly(color, [p], tuple(float(v) for v in col), cv2.LINE_AA, 4)
        cv2.fillPoly(cover, [p], 1.0, cv2.LINE_AA, 4)

    def capsule(p0: np.ndarray, p1: np.ndarray, width: float, col: np.ndarray) -> None:
        t = max(1, round(width))
        a, b = tuple(np.round(p0).astype(int)), tuple(np.round(p1).astype(int))
        # a darker rim first: the crease between neighbouring fingers
        cv2.line(color, a, b, tuple(float(v) * 0.72 for v in col), t + max(1, round(width * 0.12)), cv2.LINE_AA)
        cv2.line(color, a, b, tuple(float(v) for v in col), t, cv2.LINE_AA)
        cv2.line(cover, tuple(np.round(p0).astype(int)), tuple(np.round(p1).astype(int)), 1.0, t, cv2.LINE_AA)

    wrist = target - d * ppc * rng.uniform(4, 7)
    arm_w, wrist_w = ppc * rng.uniform(6.5, 8.5), ppc * rng.uniform(5, 6)
    sleeve = rng.random() < 0.65
    sleeve_col = _rand_color(rng, [(40, 40, 50), (200, 200, 205), (30, 60, 120), (120, 30, 30), (60, 90, 60),
                                   (150, 120, 90)][rng.integers(6)], 25)
    arm = np.array([start + nrm * arm_w / 2, wrist + nrm * wrist_w / 2, wrist - nrm * wrist_w / 2,
                    start - nrm * arm_w / 2])
    poly(arm, skin * rng.uniform(0.9, 1.0))
    if sleeve:
        cuff = start + (wrist - start) * rng.uniform(0.3, 0.85)
        sw = arm_w * 1.2
        poly(np.array([start + nrm * sw / 2, cuff + nrm * sw / 2, cuff - nrm * sw / 2, start - nrm * sw / 2]),
             sleeve_col)
    # palm and fingers
    pose = rng.choice(["flat", "fist", "point", "grab"], p=[0.4, 0.2, 0.15, 0.25])
    palm_c = wrist + d * ppc * 4.5
    ang = math.degrees(math.atan2(d[1], d[0]))
    cv2.ellipse(color, tuple(np.round(palm_c * 16).astype(int)), (round(ppc * 5 * 16), round(ppc * 4.3 * 16)), ang,
                0, 360, tuple(float(v) for v in skin), -1, cv2.LINE_AA, 4)
    cv2.ellipse(cover, tuple(np.round(palm_c * 16).astype(int)), (round(ppc * 5 * 16), round(ppc * 4.3 * 16)), ang,
                0, 360, 1.0, -1, cv2.LINE_AA, 4)
    knuckles = palm_c + d * ppc * 3.8
    spread = rng.uniform(2, 14) if pose == "flat" else rng.uniform(0, 6)
    for k in range(4):
        off = (k - 1.5) * ppc * 1.9
        length = ppc * rng.uniform(6, 8.5) * (1 - 0.08 * abs(k - 1.5))
        if pose == "fist" or (pose == "point" and k != 1):
            length *= 0.3
        elif pose == "grab":
            length *= rng.uniform(0.5, 0.8)
        fd = _rot((k - 1.5) * spread) @ d
        base_pt = knuckles + nrm * off - d * ppc
        capsule(base_pt, base_pt + fd * length, ppc * rng.uniform(1.6, 1.9), skin * rng.uniform(0.93, 1.03))
    side = 1 if rng.random() < 0.5 else -1
    tb = palm_c + nrm * side * ppc * 3.2 - d * ppc * 1.5
    td = _rot(side * rng.uniform(25, 70)) @ d
    capsule(tb, tb + td * ppc * rng.uniform(4.5, 6.5), ppc * 2.1, skin * 0.95)
    # shading: a round arm and hand lit from above are brightest along their middle
    dist = cv2.distanceTransform((cover > 0.5).astype(np.uint8), cv2.DIST_L2, 3)
    round_ = np.sqrt(np.clip(dist / (ppc * 2.2), 0, 1))
    color *= (rng.uniform(0.55, 0.75) + rng.uniform(0.25, 0.4) * round_)[..., None]
    random_blur = rng.random() < 0.3
    if blur is not None:
        bx, by = abs(blur[0]), abs(blur[1])
        length = int(round(max(bx, by)))
        ksize = (length, 1) if bx >= by else (1, length)
    elif random_blur:  # motion blur of a moving hand
        length = int(rng.integers(5, 25))
        ksize = (length, 1) if rng.random() < 0.5 else (1, length)  # box blurs are cheap; h/v is enough
    else:
        length = 0
    if length >= 2:
        color = cv2.blur(color * cover[..., None], ksize)
        cover = cv2.blur(cover, ksize)
        color = color / np.maximum(cover[..., None], 1e-3)
    return color, np.clip(cover, 0, 1)


def _camera_effects(rng: np.random.Generator, img: np.ndarray, jpeg: bool = True) -> tuple[np.ndarray, int | None]:
    """What a webcam does: uneven light, colour cast, glare, blur, resampling, noise, JPEG.

    Returns the image and the JPEG quality drawn for it; with ``jpeg=False`` the compression is left to the
    caller (the dataset writer saves the file at that quality instead of compressing twice).

    Smooth fields (light, glare) are computed on a 1/8 grid and resized: the same look at a fraction of the cost."""
    H, W = img.shape[:2]
    h8, w8 = max(4, H // 8), max(4, W // 8)
    yy, xx = np.mgrid[0:h8, 0:w8].astype(np.float32)
    yy, xx = (yy + 0.5) * H / h8, (xx + 0.5) * W / w8
    g = rng.normal(0, 1, 2)
    grad = 1 + rng.uniform(0, 0.35) * ((xx / W - 0.5) * g[0] + (yy / H - 0.5) * g[1])
    r2 = ((xx - W / 2) ** 2 + (yy - H / 2) ** 2) / (W * W / 4 + H * H / 4)
    light = grad * (1 - rng.uniform(0, 0.35) * r2) * rng.uniform(0.65, 1.15)
    glare = np.zeros_like(light)
    for _ in range(int(rng.choice([0, 1, 2], p=[0.5, 0.35, 0.15]))):
        cx, cy, s = rng.uniform(0, W), rng.uniform(0, H), rng.uniform(0.03, 0.12) * W
        glare += rng.uniform(40, 150) * np.exp(-((xx - cx) ** 2 + ((yy - cy) * rng.uniform(0.5, 2)) ** 2)
                                               / (2 * s * s))
    gains = rng.normal(1, 0.06, 3)
    light = light.astype(np.float32)
    light = cv2.merge([cv2.resize(light * float(gn), (W, H), interpolation=cv2.INTER_LINEAR) for gn in gains])
    img = cv2.multiply(img, light)
    if glare.any():
        g1 = cv2.resize(glare.astype(np.float32), (W, H), interpolation=cv2.INTER_LINEAR)
        img = cv2.add(img, cv2.merge([g1, g1, g1]))
    np.clip(img, 0, 255, out=img)
    if rng.random() < 0.25:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.5, 1.6))
    if rng.random() < 0.1:  # camera shake
        n = int(rng.integers(3, 9))
        img = cv2.blur(img, (n, 1) if rng.random() < 0.5 else (1, n))
    if rng.random() < 0.4:
        f = rng.uniform(0.45, 0.9)
        small = cv2.resize(img, (max(8, int(W * f)), max(8, int(H * f))), interpolation=cv2.INTER_AREA)
        img = cv2.resize(small, (W, H), interpolation=cv2.INTER_LINEAR)
    img += noise_patch(rng, H, W) * float(rng.uniform(1, 7))
    out = np.clip(img, 0, 255).astype(np.uint8)
    quality = int(rng.integers(35, 95)) if rng.random() < 0.8 else None
    if quality is not None and jpeg:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, quality])
        out = cv2.imdecode(buf, cv2.IMREAD_UNCHANGED)
    return out, quality


_BANK = 1024


@cache
def _noise_bank() -> np.ndarray:
    """Sensor noise to crop from (luminance plus some chroma), made once per process with a fixed seed:
    cropping at a random offset is deterministic per image and much cheaper than drawing fresh normals."""
    g = np.random.default_rng(12345)
    lum = g.standard_normal((_BANK, _BANK, 1), dtype=np.float32)
    chroma = g.standard_normal((_BANK, _BANK, 3), dtype=np.float32)
    return lum + 0.35 * chroma


def noise_patch(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """An (h, w, 3) float32 patch of unit-ish gaussian noise at a random offset/flip of the bank."""
    bank = _noise_bank()
    if h > _BANK or w > _BANK:
        return rng.standard_normal((h, w, 3), dtype=np.float32)
    y, x = int(rng.integers(0, _BANK - h + 1)), int(rng.integers(0, _BANK - w + 1))
    p = bank[y: y + h, x: x + w]
    return p[::-1] if rng.random() < 0.5 else p


def _as_generator(rng: np.random.Generator | random.Random | int) -> np.random.Generator:
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, random.Random):
        return np.random.default_rng(rng.getrandbits(64))
    return np.random.default_rng(rng)


def make_scene(rng: np.random.Generator | random.Random | int, faces: str | Path | FaceSet = "builtin",
               size: tuple[int, int] = (640, 480), return_info: bool = False,
               hands: int | None = None, jpeg: bool = True, closeup: bool = False) -> Any:
    """One webcam frame of a card table and its YOLO labels ``[(class, cx, cy, w, h), ...]`` (normalised).

    ``size`` is (width, height). ``faces``: ``"builtin"``, a folder of card images, or a :class:`FaceSet`
    (make one FaceSet and reuse it: a folder is read once). ``hands`` forces the number of hands (tests).
    ``jpeg=False`` skips the JPEG round trip; ``info.jpeg_quality`` then says at what quality to save it.
    ``closeup``: a camera 16-40 cm above the table (a pile zone cropped out of a frame) instead of 40-120 cm.
    Returns ``(image RGB uint8, labels)``, or ``(image, labels, SceneInfo)`` with ``return_info`` (per-object
    visible masks, boxes and the label decisions)."""
    rng = _as_generator(rng)
    fs = faces if isinstance(faces, FaceSet) else FaceSet(faces)
    cam = closeup_camera(rng, size) if closeup else random_camera(rng, size)
    deck = fs.deck(rng)
    codes = list(FACES)
    placed = _plan(rng, cam, codes)
    n_hands = int(rng.choice([0, 1, 2], p=[0.45, 0.4, 0.15])) if hands is None else hands
    targets = []
    W, H = size
    for _ in range(n_hands):
        if placed and rng.random() < 0.8:
            pc = placed[int(rng.integers(len(placed)))]
            targets.append(cam.to_image(np.array([[pc.x, pc.y]]))[0] + rng.normal(0, 20, 2))
        else:
            targets.append(np.array([rng.uniform(0.15, 0.85) * W, rng.uniform(0.15, 0.85) * H]))
    image, labels, info = render_scene(rng, cam, deck, placed, targets, jpeg=jpeg, keep_images=return_info)
    return (image, labels, info) if return_info else (image, labels)


def render_scene(rng: np.random.Generator, cam: Camera, deck: Deck, placed: list[Placed],
                 hand_targets: list[np.ndarray], effects: bool = True, jpeg: bool = True,
                 keep_images: bool = True, distractors: bool = True) -> tuple[np.ndarray, list[Label], SceneInfo]:
    """Draw given cards (bottom first) and hands (reaching for image points) and decide the labels.

    Split from :func:`make_scene` so tests can build exact situations (a card with both indices covered)."""
    W, H = cam.size
    canvas = _draw_table(rng, cam)
    background = np.clip(canvas, 0, 255).astype(np.uint8) if keep_images else None
    idbuf = np.zeros((H, W), np.int32)
    shadow = rng.uniform(0.1, 0.4)
    if distractors:
        for _ in range(int(rng.choice([0, 1, 2], p=[0.55, 0.3, 0.15]))):
            _draw_distractor(rng, cam, canvas, idbuf, shadow)
    # object id in idbuf, code, card->image homography, image quad, index rects, card image (w, h)
    records: list[tuple[int, str, np.ndarray, np.ndarray, list[Rect], tuple[int, int]]] = []
    for i, pc in enumerate(placed, start=1):
        local = UPRIGHT_CORNERS * (CARD_W / 2, CARD_H / 2)
        corners = local @ _rot(pc.angle).T + (pc.x, pc.y)
        quad = cam.to_image(corners)
        if pc.lift:  # a thicker stack's top is nearer the camera: grow it about its centre
            quad = quad.mean(0) + (quad - quad.mean(0)) * (1 + pc.lift / 60)
        if quad[:, 0].max() < 0 or quad[:, 1].max() < 0 or quad[:, 0].min() > W or quad[:, 1].min() > H:
            continue  # wholly outside the frame: nothing to draw or label
        long_edge = max(np.linalg.norm(quad[1] - quad[2]), np.linalg.norm(quad[0] - quad[3]))
        ch = int(np.clip(long_edge * 1.15, 24, 420))
        img = deck.image(pc.code, ch)
        w, h = img.shape[1], img.shape[0]
        Hm = cv2.getPerspectiveTransform(np.float32([[0, 0], [w, 0], [w, h], [0, h]]), quad.astype(np.float32))
        _composite(canvas, idbuf, img, Hm, i, shadow)
        records.append((i, pc.code, Hm.astype(np.float64), quad,
                        deck.index_regions(pc.code) if pc.code != "back" else [], (w, h)))
    # hands over the cards
    hand_ids = []
    for k, target in enumerate(hand_targets):
        color, cover = _draw_hand(rng, cam, np.clip(target, [0.1 * W, 0.1 * H], [0.9 * W, 0.9 * H]))
        # the hand's soft shadow, offset by the light's direction (blurred at 1/4 size: it is soft anyway)
        small = cv2.resize(cover, (W // 4, H // 4), interpolation=cv2.INTER_AREA)
        off = rng.normal(8, 6, 2) / 4
        M = np.float32([[1, 0, off[0]], [0, 1, off[1]]])
        small = cv2.GaussianBlur(cv2.warpAffine(small, M, (W // 4, H // 4)), (0, 0), 1.5)
        sh = cv2.resize(small, (W, H), interpolation=cv2.INTER_LINEAR)
        strength = rng.uniform(0.25, 0.5)
        bx, by, bw, bh = cv2.boundingRect((sh > 0.004).astype(np.uint8) | (cover > 0).astype(np.uint8))
        reg, cv = canvas[by: by + bh, bx: bx + bw], cover[by: by + bh, bx: bx + bw, None]
        reg *= (1 - strength * sh[by: by + bh, bx: bx + bw])[..., None]
        reg += (color[by: by + bh, bx: bx + bw] - reg) * cv
        oid = len(placed) + 1 + k
        idbuf[cover > 0.5] = oid
        hand_ids.append(oid)
    clean = np.clip(canvas, 0, 255).astype(np.uint8) if keep_images else None
    if effects:
        image, quality = _camera_effects(rng, canvas, jpeg)
    else:
        image, quality = np.clip(canvas, 0, 255).astype(np.uint8), None

    objects: list[SceneObject] = []
    labels: list[Label] = []
    for i, code, Hm, quad, regions, wh in records:
        mask = idbuf == i
        full = abs(cv2.contourArea(quad.astype(np.float32)))
        vis_px = int(mask.sum())
        vis = vis_px / max(full, 1.0)
        best_idx = 0.0
        if regions and vis >= MIN_VISIBLE:
            best_idx = _best_index(mask, Hm, wh, regions, W, H)
        if code == "back":
            ok = vis >= MIN_VISIBLE and vis_px >= MIN_BACK_PX
            cls = BACK
        else:
            ok = vis >= MIN_VISIBLE and best_idx >= MIN_INDEX_VISIBLE
            cls = NAME_TO_INDEX[code]
        objects.append(_finish_object(code, cls, mask, full, vis, best_idx, ok, labels, W, H))
    for oid in hand_ids:
        mask = idbuf == oid
        ok = int(mask.sum()) >= MIN_HAND_PX
        objects.append(_finish_object("hand", HAND, mask, float(mask.sum()), 1.0, 0.0, ok, labels, W, H))
    return image, labels, SceneInfo(objects, background, clean, quality)


def _best_index(mask: np.ndarray, Hm: np.ndarray, wh: tuple[int, int], regions: list[Rect], W: int,
                H: int) -> float:
    """Largest visible fraction among the card's corner indices (0 when none is big enough to read)."""
    best = 0.0
    for x0, y0, x1, y1 in regions:
        pts = np.array([[[x0, y0], [x1, y0], [x1, y1], [x0, y1]]], np.float64)
        q = cv2.perspectiveTransform(pts * np.array(wh, np.float64), Hm)[0]
        area = abs(cv2.contourArea(q.astype(np.float32)))
        if area < MIN_INDEX_PX:
            continue
        bx0, by0 = (max(0, int(math.floor(v))) for v in q.min(0))
        bx1, by1 = min(W, int(math.ceil(q[:, 0].max())) + 1), min(H, int(math.ceil(q[:, 1].max())) + 1)
        if bx1 <= bx0 or by1 <= by0:
            continue
        region = _quad_mask(q, bx0, by0, bx1 - bx0, by1 - by0)
        seen = int((region & mask[by0:by1, bx0:bx1]).sum())
        best = max(best, seen / max(area, 1.0))
    return min(best, 1.0)


def _finish_object(name: str, cls: int, mask: np.ndarray, full: float, vis: float, idx: float, ok: bool,
                   labels: list[Label], W: int, H: int) -> SceneObject:
    box = None
    if mask.any():
        ys = np.flatnonzero(mask.any(1))
        xs = np.flatnonzero(mask.any(0))
        box = (int(xs[0]), int(ys[0]), int(xs[-1]) + 1, int(ys[-1]) + 1)
    ok = ok and box is not None
    if ok and box is not None:
        x0, y0, x1, y1 = box
        labels.append((cls, (x0 + x1) / 2 / W, (y0 + y1) / 2 / H, (x1 - x0) / W, (y1 - y0) / H))
    return SceneObject(name, cls, mask, full, vis, idx, ok, box)

