"""Our own renderer of card faces and backs, in many random styles, plus a loader for a user's deck images.

Why: a detector trained on one deck's art finds cards but misreads their ranks on other decks (see
``shared/ENVIRONMENT.md``, the baseline). So every scene draws a fresh :class:`Style` -- typeface, index size and
placement, pip shapes, print colours, paper tint, corner radius, borders, court and back designs -- and the
detector has to learn what all decks share: the rank glyph and suit pip in the corner.

Everything is numpy/cv2/PIL; fonts are taken from ``/usr/share/fonts`` when present, PIL's own font otherwise.
Cards are returned as RGBA ``uint8`` arrays of aspect 63x88 (width x height); alpha is 0 outside the rounded
corners.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field
from functools import cache, lru_cache
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from engine.cards import JOKERS, RANKS, STANDARD_DECK, SUITS

CARD_W_MM, CARD_H_MM = 63.0, 88.0
CARD_ASPECT = CARD_W_MM / CARD_H_MM  # width / height
#: where typefaces are looked for; TABLECAM_FONTS (folders separated by ":") adds more, e.g. fonts carried to a
#: machine that has none (without any, PIL's single default font is used and the index variety is lost)
FONT_ROOTS: tuple[str, ...] = (*(p for p in os.environ.get("TABLECAM_FONTS", "").split(":") if p), "/usr/share/fonts")
RGB = tuple[int, int, int]
Rect = tuple[float, float, float, float]  # x0, y0, x1, y1 as fractions of card width / height

# fonts that are not letters (symbols, dingbats, maths) or not legible as an index
_FONT_SKIP = re.compile(r"symbol|d050000l|math|z003|dingbat|extralight", re.I)
_FONT_RARE = re.compile(r"italic|oblique|mono|bookman-light", re.I)


def card_size(height: int) -> tuple[int, int]:
    """(width, height) in pixels of a card ``height`` pixels tall."""
    return max(2, round(height * CARD_ASPECT)), max(2, int(height))


# ----------------------------------------------------------------------------------------------------- fonts


@cache
def font_files() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(common, rare) font files usable for indices; rare = italic/mono/light faces seen on few decks."""
    common: list[str] = []
    rare: list[str] = []
    for root in FONT_ROOTS:
        p = Path(root)
        if not p.is_dir():
            continue
        for f in sorted(p.rglob("*")):
            if f.suffix.lower() not in (".ttf", ".otf") or _FONT_SKIP.search(f.name):
                continue
            (rare if _FONT_RARE.search(f.name) else common).append(str(f))
    return tuple(common), tuple(rare)


@lru_cache(maxsize=512)
def _font(path: str, size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    if path == "":
        return ImageFont.load_default(size=size)
    return ImageFont.truetype(path, size)


@cache
def suit_glyph_fonts() -> tuple[str, ...]:
    """Fonts that really draw the four suit symbols (so font pips add real shape variety)."""
    out = []
    for group in font_files():
        for path in group:
            if _FONT_RARE.search(path):
                continue
            try:
                f = _font(path, 40)
                missing = f.getmask("\uffff").getbbox()
                boxes = [f.getmask(ch).getbbox() for ch in "\u2660\u2665\u2666\u2663"]
                ok = all(b is not None and b != missing for b in boxes)
            except OSError:
                ok = False
            if ok:
                out.append(path)
    return tuple(out)


@lru_cache(maxsize=4096)
def text_mask(text: str, font_path: str, height: int, condense: float = 1.0) -> np.ndarray:
    """Coverage mask (float32 0..1) of ``text`` whose inked height is ``height`` px, squeezed by ``condense``.

    Normalising the inked height (not the font size) keeps indices of all typefaces the same size on the card."""
    height = max(3, int(height))
    size = max(6, int(height * 1.5))
    font = _font(font_path, size)
    left, top, right, bottom = font.getbbox(text)
    w, h = max(1, right - left), max(1, bottom - top)
    img = Image.new("L", (w + 4, h + 4), 0)
    ImageDraw.Draw(img).text((2 - left, 2 - top), text, font=font, fill=255)
    a = np.asarray(img)
    ys, xs = np.nonzero(a)
    if len(ys) == 0:
        return np.zeros((height, max(1, height // 2)), np.float32)
    a = a[ys.min(): ys.max() + 1, xs.min(): xs.max() + 1]
    new_w = max(1, round(a.shape[1] * height / a.shape[0] * condense))
    a = cv2.resize(a, (new_w, height), interpolation=cv2.INTER_AREA)
    return a.astype(np.float32) / 255.0


# ----------------------------------------------------------------------------------------------- suit shapes


@dataclass(frozen=True)
class PipShape:
    """How one suit's pip is drawn: our own polygon family with parameters, or a font's suit glyph."""

    kind: str  # "poly" or "glyph"
    a: float = 0.0  # shape parameters (meaning per suit)
    b: float = 0.0
    font: str = ""


_GLYPH = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}
_PIP_ASPECT = {"S": 0.85, "H": 1.0, "D": 0.75, "C": 0.95}  # width / height of our polygons


def _heart_pts(fat: float, n: int = 48) -> np.ndarray:
    t = np.linspace(0, 2 * np.pi, n, endpoint=False)
    x = 16 * np.sin(t) ** 3 * fat
    y = -(13 * np.cos(t) - 5 * np.cos(2 * t) - 2 * np.cos(3 * t) - np.cos(4 * t))
    return np.stack([x, y], 1)


def _norm(pts: np.ndarray) -> np.ndarray:
    lo, hi = pts.min(0), pts.max(0)
    return (pts - lo) / np.maximum(hi - lo, 1e-6)


def _poly_pip(suit: str, shape: PipShape, h: int) -> np.ndarray:
    """Rasterise our own pip polygon with anti-aliasing (cv2 sub-pixel shift)."""
    w = max(2, round(h * _PIP_ASPECT[suit] * (1 + 0.25 * shape.b if suit == "D" else 1)))
    img = np.zeros((h + 2, w + 2), np.uint8)
    s = 16

    def fill(pts01: np.ndarray, box: tuple[float, float, float, float]) -> None:
        x0, y0, x1, y1 = box
        p = np.stack([1 + x0 * w + pts01[:, 0] * (x1 - x0) * w, 1 + y0 * h + pts01[:, 1] * (y1 - y0) * h], 1)
        cv2.fillPoly(img, [np.round(p * s).astype(np.int32)], 255, cv2.LINE_AA, 4)

    def circle(cx: float, cy: float, r: float) -> None:
        cv2.circle(img, (round((1 + cx * w) * s), round((1 + cy * h) * s)), max(1, round(r * h * s)), 255, -1,
                   cv2.LINE_AA, 4)

    if suit == "H":
        fill(_norm(_heart_pts(1.0 + 0.2 * shape.a)), (0, 0, 1, 1))
    elif suit == "D":
        c = 0.18 * shape.a  # concave sides
        side = [(0.5 - 0.5 * k + c * math.sin(math.pi * k) * 0.5, 0.5 * k) for k in np.linspace(0, 1, 8)]
        pts = [(0.5 + (0.5 - x), y) for x, y in side] + [(x, y) for x, y in reversed(side)]
        pts = pts + [(x, 1 - y) for x, y in reversed(pts)]
        fill(np.array(pts), (0, 0, 1, 1))
    elif suit == "S":
        body = _norm(_heart_pts(1.0 + 0.2 * shape.a))
        body[:, 1] = 1 - body[:, 1]
        fill(body, (0, 0, 1, 0.78))
        sw = 0.18 + 0.2 * shape.b
        fill(np.array([(0.5, 0), (0.5 + sw, 1), (0.5 - sw, 1)]), (0, 0.55, 1, 1))
    else:  # clubs
        r = 0.24 + 0.05 * shape.a
        circle(0.5, r, r)
        circle(0.5 - r * 0.95 / _PIP_ASPECT["C"], 0.62 - r * 0.55, r)
        circle(0.5 + r * 0.95 / _PIP_ASPECT["C"], 0.62 - r * 0.55, r)
        fill(np.array([(0.5, 0.0), (0.55, 0.4), (0.45, 0.4)]), (0, 0.3, 1, 0.7))
        sw = 0.14 + 0.16 * shape.b
        fill(np.array([(0.5, 0), (0.5 + sw, 1), (0.5 - sw, 1)]), (0, 0.5, 1, 1))
    img = img[1:-1, 1:-1]
    return img.astype(np.float32) / 255.0


@lru_cache(maxsize=4096)
def pip_mask(suit: str, shape: PipShape, height: int) -> np.ndarray:
    """Coverage mask (float32) of one upright pip ``height`` px tall."""
    height = max(3, int(height))
    if shape.kind == "glyph" and shape.font:
        return text_mask(_GLYPH[suit], shape.font, height)
    return _poly_pip(suit, shape, height)


# ------------------------------------------------------------------------------------------------------ style


@dataclass
class Style:
    """One deck's look; every field is drawn by :func:`random_style`."""

    paper: RGB = (250, 249, 244)
    ink: dict[str, RGB] = field(default_factory=lambda: {"S": (20, 20, 20), "C": (20, 20, 20),
                                                         "H": (200, 20, 30), "D": (200, 20, 30)})
    font: str = ""
    condense: float = 1.0
    index_h: float = 0.085  # rank glyph height / card height
    index_x: float = 0.07  # index centre x / card width
    index_y: float = 0.045  # index top / card height
    index_pip: float = 0.6  # index pip height / rank glyph height
    four_index: bool = False
    pips: dict[str, PipShape] = field(default_factory=lambda: {s: PipShape("poly") for s in SUITS})
    pip_h: float = 0.12  # body pip height / card height
    pip_box: Rect = (0.24, 0.16, 0.76, 0.84)
    ace_h: float = 0.32
    radius: float = 0.06  # corner radius / card width
    border: tuple[float, float, RGB] | None = None  # inset, thickness (fractions of width), colour
    court_kind: str = "figure"
    court_colors: tuple[RGB, ...] = ((200, 30, 30), (30, 50, 160), (230, 180, 40), (20, 20, 20))
    court_font: str = ""
    back_kind: str = "lattice"
    back_colors: tuple[RGB, RGB] = ((160, 20, 30), (240, 240, 240))
    back_margin: float = 0.06
    back_scale: float = 1.0
    joker_text: bool = True

    def index_regions(self) -> list[Rect]:
        """Where the corner indices are (rank + index pip), as card fractions: the label rule checks these."""
        w = max(0.5, 1.0 + 0.35 * (self.condense - 1)) * self.index_h * 88 / 63 * 1.25  # "10" is the widest rank
        h = self.index_h * (1 + self.index_pip + 0.25)
        x0, y0 = max(0.0, self.index_x - w / 2 - 0.01), max(0.0, self.index_y - 0.01)
        tl = (x0, y0, min(1.0, self.index_x + w / 2 + 0.01), min(1.0, y0 + h + 0.02))
        out = [tl, (1 - tl[2], 1 - tl[3], 1 - tl[0], 1 - tl[1])]
        if self.four_index:
            out += [(1 - tl[2], tl[1], 1 - tl[0], tl[3]), (tl[0], 1 - tl[3], tl[2], 1 - tl[1])]
        return out


def _jitter(rng: np.random.Generator, c: RGB, amount: float) -> RGB:
    return tuple(int(np.clip(v + rng.normal(0, amount), 0, 255)) for v in c)  # type: ignore[return-value]


_BACK_KINDS = ("lattice", "checks", "dots", "stripes", "rings", "emblem", "marble", "rosette")
_BACK_COLORS: tuple[RGB, ...] = ((165, 25, 35), (30, 55, 150), (20, 100, 60), (25, 25, 30), (110, 40, 120),
                                 (20, 120, 170), (200, 110, 30), (120, 30, 30), (60, 60, 70), (190, 160, 60))


def random_style(rng: np.random.Generator) -> Style:
    """Draw one deck design. The spread of every choice is what teaches the detector to read any deck."""
    common, rare = font_files()
    fonts = common if (rng.random() < 0.85 or not rare) else rare
    font = str(fonts[rng.integers(len(fonts))]) if fonts else ""
    glyph_fonts = suit_glyph_fonts()
    red = _jitter(rng, (205, 25, 35) if rng.random() < 0.7 else (rng.integers(150, 235), rng.integers(0, 70),
                                                                  rng.integers(10, 80)), 12)
    black = _jitter(rng, (22, 22, 26), 10)
    ink = {"S": black, "C": black, "H": red, "D": red}
    if rng.random() < 0.06:  # four-colour deck
        ink["D"] = _jitter(rng, (30, 70, 190), 15)
        ink["C"] = _jitter(rng, (30, 130, 50), 15)
    pips: dict[str, PipShape] = {}
    glyph_font = str(glyph_fonts[rng.integers(len(glyph_fonts))]) if glyph_fonts else ""
    use_glyphs = bool(glyph_font) and rng.random() < 0.4
    for s in SUITS:
        if use_glyphs:
            pips[s] = PipShape("glyph", font=glyph_font)
        else:
            pips[s] = PipShape("poly", float(rng.random()), float(rng.random()))
    paper = _jitter(rng, (250, 248, 240) if rng.random() < 0.7 else (240, 236, 220), 5)
    index_h = float(rng.uniform(0.06, 0.12))
    border = None
    if rng.random() < 0.25:
        border = (float(rng.uniform(0.03, 0.07)), float(rng.uniform(0.005, 0.015)),
                  _jitter(rng, black if rng.random() < 0.5 else red, 10))
    pal = [_jitter(rng, c, 25) for c in ((200, 30, 30), (30, 50, 160), (230, 180, 40), (20, 20, 20),
                                          (30, 130, 60), (240, 240, 230))]
    order = rng.permutation(len(pal))
    return Style(
        paper=paper, ink=ink, font=font,
        condense=float(rng.uniform(0.7, 1.15)),
        index_h=index_h,
        index_x=float(rng.uniform(0.08, 0.115)) * (index_h / 0.085) ** 0.5,
        index_y=float(rng.uniform(0.025, 0.06)),
        index_pip=float(rng.uniform(0.45, 0.8)),
        four_index=bool(rng.random() < 0.12),
        pips=pips,
        pip_h=float(rng.uniform(0.1, 0.15)),
        pip_box=(float(rng.uniform(0.22, 0.3)), float(rng.uniform(0.12, 0.18)), 0.0, 0.0),
        ace_h=float(rng.uniform(0.18, 0.42)),
        radius=float(rng.uniform(0.02, 0.09)),
        border=border,
        court_kind=("figure", "letter", "pattern")[rng.choice(3, p=[0.6, 0.2, 0.2])],
        court_colors=tuple(pal[i] for i in order[:4]),
        court_font=str(common[rng.integers(len(common))]) if common else "",
        back_kind=_BACK_KINDS[rng.integers(len(_BACK_KINDS))],
        back_colors=(_jitter(rng, _BACK_COLORS[rng.integers(len(_BACK_COLORS))], 15),
                     _jitter(rng, (240, 238, 230), 8) if rng.random() < 0.8 else
                     _jitter(rng, _BACK_COLORS[rng.integers(len(_BACK_COLORS))], 15)),
        back_margin=float(rng.uniform(0.03, 0.09)) if rng.random() < 0.75 else 0.0,
        back_scale=float(rng.uniform(0.6, 1.6)),
        joker_text=bool(rng.random() < 0.6),
    )


# ---------------------------------------------------------------------------------------------- compositing


def _stamp(canvas: np.ndarray, mask: np.ndarray, x: float, y: float, color: RGB, rotate: bool = False) -> None:
    """Paint ``color`` through ``mask`` with its top-left at (x, y); ``rotate`` turns it 180 degrees first."""
    if rotate:
        mask = mask[::-1, ::-1]
    h, w = mask.shape
    x0, y0 = round(x), round(y)
    H, W = canvas.shape[:2]
    cx0, cy0, cx1, cy1 = max(0, x0), max(0, y0), min(W, x0 + w), min(H, y0 + h)
    if cx1 <= cx0 or cy1 <= cy0:
        return
    m = mask[cy0 - y0: cy1 - y0, cx0 - x0: cx1 - x0, None]
    reg = canvas[cy0:cy1, cx0:cx1]
    reg += (np.asarray(color, np.float32) - reg) * m


def rounded_alpha(w: int, h: int, r: float) -> np.ndarray:
    a = np.zeros((h, w), np.uint8)
    rp = max(0, round(r))
    if rp < 1:
        a[:] = 255
        return a
    s = 16
    cv2.rectangle(a, (rp, 0), (w - 1 - rp, h - 1), 255, -1)
    cv2.rectangle(a, (0, rp), (w - 1, h - 1 - rp), 255, -1)
    for cx, cy in ((rp, rp), (w - 1 - rp, rp), (rp, h - 1 - rp), (w - 1 - rp, h - 1 - rp)):
        cv2.circle(a, (cx * s, cy * s), rp * s, 255, -1, cv2.LINE_AA, 4)
    return a


def _finish(canvas: np.ndarray, style: Style, frame: bool = True) -> np.ndarray:
    h, w = canvas.shape[:2]
    if frame and style.border is not None:
        inset, thick, col = style.border
        i, t = round(inset * w), max(1, round(thick * w))
        cv2.rectangle(canvas, (i, i), (w - 1 - i, h - 1 - i), tuple(float(c) for c in col), t, cv2.LINE_AA)
    rgb = np.clip(canvas, 0, 255).astype(np.uint8)
    return np.dstack([rgb, rounded_alpha(w, h, style.radius * w)])


def _draw_index(canvas: np.ndarray, style: Style, rank_text: str, suit: str | None, color: RGB) -> None:
    h, w = canvas.shape[:2]
    rh = max(4, round(style.index_h * h))
    if rank_text == "JOKER":
        glyphs = [text_mask(ch, style.font, max(3, round(rh * 0.55)), 1.0) for ch in "JOKER"]
        tiles = [(g, style.index_x * w - g.shape[1] / 2) for g in glyphs]
        y = style.index_y * h
        marks = []
        for g, x in tiles:
            marks.append((g, x, y))
            y += g.shape[0] + 2
    else:
        cond = style.condense * (0.8 if rank_text == "10" else 1.0)
        g = text_mask(rank_text, style.font, rh, cond)
        marks = [(g, style.index_x * w - g.shape[1] / 2, style.index_y * h)]
        if suit is not None:
            p = pip_mask(suit, style.pips[suit], max(3, round(rh * style.index_pip)))
            marks.append((p, style.index_x * w - p.shape[1] / 2, style.index_y * h + rh * 1.18))
    for m, x, y in marks:
        _stamp(canvas, m, x, y, color)
        _stamp(canvas, m, w - x - m.shape[1], h - y - m.shape[0], color, rotate=True)
        if style.four_index:
            _stamp(canvas, m, w - x - m.shape[1], y, color)
            _stamp(canvas, m, x, h - y - m.shape[0], color, rotate=True)


# pip positions: (column -1/0/1, row 0..1) inside the pip box
_LAYOUT: dict[str, list[tuple[int, float]]] = {
    "2": [(0, 0), (0, 1)],
    "3": [(0, 0), (0, 0.5), (0, 1)],
    "4": [(-1, 0), (1, 0), (-1, 1), (1, 1)],
    "5": [(-1, 0), (1, 0), (0, 0.5), (-1, 1), (1, 1)],
    "6": [(-1, 0), (1, 0), (-1, 0.5), (1, 0.5), (-1, 1), (1, 1)],
    "7": [(-1, 0), (1, 0), (0, 0.25), (-1, 0.5), (1, 0.5), (-1, 1), (1, 1)],
    "8": [(-1, 0), (1, 0), (0, 0.25), (-1, 0.5), (1, 0.5), (0, 0.75), (-1, 1), (1, 1)],
    "9": [(-1, 0), (1, 0), (-1, 1 / 3), (1, 1 / 3), (0, 0.5), (-1, 2 / 3), (1, 2 / 3), (-1, 1), (1, 1)],
    "10": [(-1, 0), (1, 0), (0, 1 / 6), (-1, 1 / 3), (1, 1 / 3), (-1, 2 / 3), (1, 2 / 3), (0, 5 / 6), (-1, 1),
           (1, 1)],
}


def _draw_pips(canvas: np.ndarray, style: Style, rank_text: str, suit: str, color: RGB) -> None:
    h, w = canvas.shape[:2]
    px0, py0 = style.pip_box[0], style.pip_box[1]
    # keep pips clear of the index column
    px0 = max(px0, style.index_x + style.index_h * 0.8 * 88 / 63 * 0.5 + 0.04)
    ph = style.pip_h * (0.9 if rank_text in ("9", "10") else 1.0)
    m = pip_mask(suit, style.pips[suit], max(3, round(ph * h)))
    mh, mw = m.shape
    xs = {-1: px0 * w + mw / 2, 0: w / 2, 1: w - px0 * w - mw / 2}
    ytop, ybot = py0 * h + mh / 2, h - py0 * h - mh / 2
    for col, row in _LAYOUT[rank_text]:
        cx, cy = xs[col], ytop + row * (ybot - ytop)
        _stamp(canvas, m, cx - mw / 2, cy - mh / 2, color, rotate=row > 0.5)


def _draw_court(canvas: np.ndarray, style: Style, rank_text: str, suit: str, color: RGB) -> None:
    """A framed panel with a double-headed figure, a big letter or a pattern: enough to look like a court card."""
    h, w = canvas.shape[:2]
    x0 = round(max(style.pip_box[0] * 0.8, style.index_x + style.index_h * 88 / 63 * 0.5 + 0.03) * w)
    y0 = round(style.pip_box[1] * 0.8 * h)
    x1, y1 = w - x0, h - y0
    if x1 - x0 < 6 or y1 - y0 < 6:
        return
    c = [tuple(float(v) for v in col) for col in style.court_colors]
    pw, ph = x1 - x0, y1 - y0
    panel = canvas[y0:y1, x0:x1]
    half = panel[: ph // 2 + 1]
    if style.court_kind == "figure":
        hw = half.shape
        cx = pw // 2
        head_r = max(2, round(pw * 0.13))
        head_y = round(hw[0] * 0.38)
        body = np.array([(cx - pw * 0.38, hw[0]), (cx + pw * 0.38, hw[0]), (cx + pw * 0.2, head_y + head_r),
                         (cx - pw * 0.2, head_y + head_r)], np.int32)
        cv2.fillPoly(half, [body], c[0], cv2.LINE_AA)
        for k in range(3):  # robe stripes
            yy = round(head_y + head_r + (k + 1) * (hw[0] - head_y - head_r) / 4)
            cv2.line(half, (round(cx - pw * 0.35), yy), (round(cx + pw * 0.35), yy), c[1 + k % 2],
                     max(1, round(pw * 0.04)), cv2.LINE_AA)
        cv2.circle(half, (cx, head_y), head_r, (235, 200, 170), -1, cv2.LINE_AA)
        cv2.circle(half, (cx, head_y), head_r, c[3], max(1, pw // 60), cv2.LINE_AA)
        top = head_y - head_r
        if rank_text == "K":  # crown
            pts = np.array([(cx - head_r, top), (cx - head_r, top - head_r), (cx - head_r // 2, top - head_r // 2),
                            (cx, top - head_r * 1.2), (cx + head_r // 2, top - head_r // 2),
                            (cx + head_r, top - head_r), (cx + head_r, top)], np.int32)
            cv2.fillPoly(half, [pts], c[2], cv2.LINE_AA)
            cv2.line(half, (round(cx + pw * 0.3), hw[0]), (round(cx + pw * 0.3), round(top)), (120, 120, 130),
                     max(1, pw // 30), cv2.LINE_AA)
        elif rank_text == "Q":
            cv2.ellipse(half, (cx, top), (head_r, max(1, head_r // 2)), 0, 180, 360, c[2], -1, cv2.LINE_AA)
            cv2.circle(half, (round(cx - pw * 0.28), round(hw[0] * 0.7)), max(2, head_r // 2), c[1], -1,
                       cv2.LINE_AA)
        else:
            cv2.rectangle(half, (cx - head_r, round(top - head_r * 0.6)), (cx + head_r, round(top + head_r * 0.2)),
                          c[1], -1, cv2.LINE_AA)
        # the figure's rotated twin in the lower half, like real double-headed courts
        panel[ph - half.shape[0]:] = panel[: half.shape[0]][::-1, ::-1].copy()
        cv2.line(panel, (0, ph // 2), (pw, ph // 2), c[3], max(1, pw // 50), cv2.LINE_AA)
        p = pip_mask(suit, style.pips[suit], max(3, round(pw * 0.2)))
        _stamp(panel, p, pw * 0.08, ph * 0.06, color)
        _stamp(panel, p, pw * 0.92 - p.shape[1], ph * 0.94 - p.shape[0], color, rotate=True)
    elif style.court_kind == "pattern":
        step = max(3, pw // 6)
        for k in range(-ph, pw + ph, step):
            cv2.line(panel, (k, 0), (k + ph, ph), c[k // step % 3], max(1, step // 3), cv2.LINE_AA)
        g = text_mask(rank_text, style.court_font, max(4, round(ph * 0.3)))
        _stamp(panel, np.minimum(1, cv2.dilate(g, np.ones((3, 3), np.uint8)) * 1.0), pw / 2 - g.shape[1] / 2,
               ph / 2 - g.shape[0] / 2, style.paper)
        _stamp(panel, g, pw / 2 - g.shape[1] / 2, ph / 2 - g.shape[0] / 2, color)
    else:  # "letter": modern minimal decks
        g = text_mask(rank_text, style.court_font, max(4, round(ph * 0.38)))
        _stamp(panel, g, pw / 2 - g.shape[1] / 2, ph * 0.3 - g.shape[0] / 2, color)
        p = pip_mask(suit, style.pips[suit], max(3, round(ph * 0.22)))
        _stamp(panel, p, pw / 2 - p.shape[1] / 2, ph * 0.72 - p.shape[0] / 2, color)
    cv2.rectangle(canvas, (x0, y0), (x1 - 1, y1 - 1), tuple(float(v) for v in color), max(1, w // 80),
                  cv2.LINE_AA)


def _draw_joker(canvas: np.ndarray, style: Style, card: str) -> RGB:
    h, w = canvas.shape[:2]
    red = card == "RJ"
    ink = style.ink["H"] if red else style.ink["S"]
    cols = [tuple(float(v) for v in c) for c in style.court_colors] if red else [
        (30.0, 30.0, 30.0), (110.0, 110.0, 110.0), (60.0, 60.0, 60.0), (20.0, 20.0, 20.0)]
    cx, cy = w / 2, h * 0.56
    r = w * 0.11
    if style.joker_text:
        g = text_mask("JOKER", style.court_font, max(4, round(h * 0.09)))
        if g.shape[1] > w * 0.6:
            g = cv2.resize(g, (round(w * 0.6), g.shape[0]))
        _stamp(canvas, g, cx - g.shape[1] / 2, h * 0.11, ink)
    # jester: face, three-pointed hat with bells, zig-zag collar
    hat = np.array([(cx - r * 1.3, cy - r * 0.6), (cx - r * 2.2, cy - r * 2.6), (cx - r * 0.4, cy - r * 1.4),
                    (cx, cy - r * 3.2), (cx + r * 0.4, cy - r * 1.4), (cx + r * 2.2, cy - r * 2.6),
                    (cx + r * 1.3, cy - r * 0.6)], np.int32)
    cv2.fillPoly(canvas, [hat], cols[0], cv2.LINE_AA)
    for bx, by in ((cx - r * 2.2, cy - r * 2.6), (cx, cy - r * 3.2), (cx + r * 2.2, cy - r * 2.6)):
        cv2.circle(canvas, (round(bx), round(by)), max(1, round(r * 0.3)), cols[2], -1, cv2.LINE_AA)
    cv2.circle(canvas, (round(cx), round(cy)), max(2, round(r)), (235, 205, 175), -1, cv2.LINE_AA)
    collar = [(cx - r * 2 + k * r * 0.5, cy + r * (1.0 if k % 2 else 1.6)) for k in range(9)]
    cv2.fillPoly(canvas, [np.array([(cx - r * 2, cy + r * 0.8), *collar, (cx + r * 2, cy + r * 0.8)], np.int32)],
                 cols[1], cv2.LINE_AA)
    body = np.array([(cx - r * 1.6, cy + r * 1.4), (cx + r * 1.6, cy + r * 1.4), (cx + r * 2.2, h * 0.85),
                     (cx - r * 2.2, h * 0.85)], np.int32)
    cv2.fillPoly(canvas, [body], cols[3 if red else 0], cv2.LINE_AA)
    return ink


def render_face(card: str, style: Style, height: int) -> np.ndarray:
    """RGBA image (``height`` px tall, aspect 63x88) of ``card`` (``10H``, ``AS``, ``RJ``) in ``style``."""
    if card not in STANDARD_DECK and card not in JOKERS:
        raise ValueError(f"not a card: {card!r}")
    w, h = card_size(height)
    canvas = np.empty((h, w, 3), np.float32)
    canvas[:] = style.paper
    if card in JOKERS:
        ink = _draw_joker(canvas, style, card)
        _draw_index(canvas, style, "JOKER", None, ink)
        return _finish(canvas, style)
    rank_text, suit = card[:-1], card[-1]
    color = style.ink[suit]
    if rank_text == "A":
        m = pip_mask(suit, style.pips[suit], max(3, round(style.ace_h * h * (1.2 if suit == "S" else 1.0))))
        _stamp(canvas, m, w / 2 - m.shape[1] / 2, h / 2 - m.shape[0] / 2, color)
    elif rank_text in _LAYOUT:
        _draw_pips(canvas, style, rank_text, suit, color)
    else:
        _draw_court(canvas, style, rank_text, suit, color)
    _draw_index(canvas, style, rank_text, suit, color)
    return _finish(canvas, style)


def render_back(style: Style, height: int) -> np.ndarray:
    """RGBA image of the deck's back: a pattern in two colours, often inside a white margin."""
    w, h = card_size(height)
    fg, bg2 = (tuple(float(v) for v in c) for c in style.back_colors)
    canvas = np.empty((h, w, 3), np.float32)
    canvas[:] = (245.0, 244.0, 238.0) if style.back_margin > 0 else fg
    m = round(style.back_margin * w)
    inner = canvas[m: h - m, m: w - m]
    ih, iw = inner.shape[:2]
    inner[:] = fg
    step = max(3, round(w * 0.07 * style.back_scale))
    lw = max(1, step // 4)
    kind = style.back_kind
    if kind == "lattice":
        for k in range(-ih, iw + ih, step):
            cv2.line(inner, (k, 0), (k + ih, ih), bg2, lw, cv2.LINE_AA)
            cv2.line(inner, (k, ih), (k + ih, 0), bg2, lw, cv2.LINE_AA)
    elif kind == "checks":
        yy, xx = np.mgrid[0:ih, 0:iw]
        inner[((yy // step + xx // step) % 2) == 1] = bg2
    elif kind == "dots":
        for y in range(step // 2, ih, step):
            for x in range(step // 2 + (y // step % 2) * step // 2, iw, step):
                cv2.circle(inner, (x, y), max(1, step // 3), bg2, -1, cv2.LINE_AA)
    elif kind == "stripes":
        for k in range(-ih, iw + ih, step):
            cv2.line(inner, (k, 0), (k + ih // 2, ih), bg2, lw, cv2.LINE_AA)
    elif kind == "rings":
        for rr in range(step, max(ih, iw), step):
            cv2.ellipse(inner, (iw // 2, ih // 2), (rr, round(rr * 1.3)), 0, 0, 360, bg2, lw, cv2.LINE_AA)
    elif kind == "emblem":
        cv2.rectangle(inner, (step, step), (iw - step, ih - step), bg2, lw, cv2.LINE_AA)
        cv2.circle(inner, (iw // 2, ih // 2), max(2, iw // 4), bg2, max(1, lw), cv2.LINE_AA)
        cv2.circle(inner, (iw // 2, ih // 2), max(1, iw // 8), bg2, -1, cv2.LINE_AA)
    elif kind == "marble":
        rng = np.random.default_rng(int(style.back_scale * 1e6))
        n = rng.random((6, 5)).astype(np.float32)
        t = cv2.resize(n, (iw, ih), interpolation=cv2.INTER_CUBIC)
        t = (np.sin(t * 12) * 0.5 + 0.5)[..., None]
        inner[:] = np.asarray(fg, np.float32) * (1 - t) + np.asarray(bg2, np.float32) * t
    else:  # rosette
        for k in range(12):
            a = k * math.pi / 12
            cv2.ellipse(inner, (iw // 2, ih // 2), (max(2, iw // 2 - step), max(1, iw // 10)), math.degrees(a), 0,
                        360, bg2, lw, cv2.LINE_AA)
    return _finish(canvas, style, frame=False)


# ---------------------------------------------------------------------------------------------- user decks

_RANK_WORDS = {"ace": "A", "jack": "J", "queen": "Q", "king": "K", **{str(n): str(n) for n in range(2, 11)},
               "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7", "eight": "8",
               "nine": "9", "ten": "10", "1": "A"}
_SUIT_WORDS = {"spades": "S", "hearts": "H", "diamonds": "D", "clubs": "C", "spade": "S", "heart": "H",
               "diamond": "D", "club": "C"}
_IMAGE_EXT = (".png", ".jpg", ".jpeg", ".webp", ".bmp")


def code_from_filename(name: str) -> str | None:
    """Card code for an image file name, or None: ``10C.png``, ``qs.jpg``, ``10_of_clubs.png``,
    ``ace_of_spades2.png`` (a numbered variant), ``red_joker.png``, ``back.png`` -> ``back``."""
    stem = Path(name).stem.strip().lower()
    stem = re.sub(r"[\s-]+", "_", stem)
    if stem.startswith("back"):
        return "back"
    if stem in ("red_joker", "joker_red", "rj", "big_joker"):
        return "RJ"
    if stem in ("black_joker", "joker_black", "bj", "little_joker", "small_joker"):
        return "BJ"
    m = re.fullmatch(r"([a-z0-9]+)_of_([a-z]+?)\d*", stem)
    if m:
        r, s = _RANK_WORDS.get(m.group(1)), _SUIT_WORDS.get(m.group(2))
        return r + s if r and s else None
    m = re.fullmatch(r"(10|[2-9]|[ajqkt])([shdc])", stem)
    if m:
        r = {"t": "10"}.get(m.group(1), m.group(1).upper())
        return r + m.group(2).upper() if r in RANKS else None
    return None


def load_face_folder(folder: str | Path, height: int | None = None) -> dict[str, list[np.ndarray]]:
    """Images of a user's deck: card code (or ``back``) -> RGBA arrays resized to card aspect.

    Missing cards are simply absent (the scene generator draws them in a builtin style instead); unreadable or
    unrecognised files are skipped. Several files for one card (``king_of_spades2.png``) are kept as variants."""
    out: dict[str, list[np.ndarray]] = {}
    for f in sorted(Path(folder).iterdir()):
        if f.suffix.lower() not in _IMAGE_EXT:
            continue
        code = code_from_filename(f.name)
        if code is None:
            continue
        img = cv2.imread(str(f), cv2.IMREAD_UNCHANGED)
        if img is None:
            continue
        if img.ndim == 2:
            img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGRA)
        elif img.shape[2] == 3:
            img = cv2.cvtColor(img, cv2.COLOR_BGR2BGRA)
        img = cv2.cvtColor(img, cv2.COLOR_BGRA2RGBA)
        if img.dtype != np.uint8:
            img = (img / 257).astype(np.uint8)
        hh = height or img.shape[0]
        img = cv2.resize(img, card_size(hh), interpolation=cv2.INTER_AREA)
        out.setdefault(code, []).append(_opaque_card(img))
    # plain names before numbered variants
    return out


def _opaque_card(img: np.ndarray) -> np.ndarray:
    """A user's card as a printed card: transparent paper becomes white paper, and the outline gets our rounded
    corners. Some art (the public-domain set in data/card_art) is only ink on a transparent background."""
    a = img[..., 3:4].astype(np.float32) / 255.0
    rgb = img[..., :3].astype(np.float32) * a + 250.0 * (1 - a)
    h, w = img.shape[:2]
    return np.dstack([rgb.astype(np.uint8), rounded_alpha(w, h, 0.05 * w)])


#: where a user's card images have their index (unknown design: the usual top-left/bottom-right corners)
USER_INDEX_REGIONS: list[Rect] = [(0.0, 0.0, 0.2, 0.27), (0.8, 0.73, 1.0, 1.0)]


def resize_card(img: np.ndarray, height: int) -> np.ndarray:
    """A loaded card image at ``height`` px (area interpolation when shrinking keeps indices legible)."""
    w, h = card_size(height)
    interp = cv2.INTER_AREA if h < img.shape[0] else cv2.INTER_LINEAR
    return cv2.resize(img, (w, h), interpolation=interp)
