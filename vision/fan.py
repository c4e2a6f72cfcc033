"""The cards of a fanned batch, one by one: where each lies on the table, found from its outline.

A Cheat batch is laid a little fanned (each card showing a strip), and the detector sees a fan as one card: at a
720p webcam's size a box around two cards fanned 2-3 cm apart is one card's box grown a little. What tells the
cards apart is their outlines: every card's edge shows as a straight step of brightness wherever no card above
hides it (a white rim on the table, a rim on the card under it).

So the pile is turned flat with the table's homography (a px for 2 mm) and card-sized rectangles are fitted from the
top down: the top card is the rectangle (any angle, any place) whose whole outline lies on edges; each next card is
the rectangle whose *visible* outline (outside the cards above, which are masked out) lies on edges and whose
visible inside shows a strip of card beside the card above it. The top card must have changed since the last
settled look (it is the batch just laid): its inside, or its rim where the back is as dark as the cloth; fitting
stops when no rectangle's visible outline is as sharp as :data:`MIN_EDGE_RATIO` of the top card's, or too little
of it shows (the pile squared under a batch shows slivers, a fan's card a strip), or a sliver shows whose outline is
not sharper than the top card's. What crosses a card's inside counts against it: the card under a neighbour's rim is
not the top one.

Measured (9 rendered Cheat games, 2-4 players, the audit's facedown lines against the truth, with the pile's
stillness judged on the zone): 101 of 122 batches counted right, none invented; counting the shipped detector's back
boxes instead, 64 of 122 (and 42 batches invented, before the stillness test). The 120 settled looks the same 9
games fit (2026-12-02): 95 counted right; with slivers whose outline is sharp, 104; with the top card's rim, 115.

Edges are measured across each side (the brightness gradient along the side's normal): a card back's stripes
cross a hypothesised side at a slant and light only short stretches of it, a real edge all of it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from calibration.homography import local_scale
from models.deckmatch import CARD_MM  # poker size (the homography's unit is the mm)

PX_PER_MM = 0.5  # the flat view the outlines are fitted in (a fan's cards 13 px apart; a run of a few ms)
MARGIN_MM = 45.0  # the flat view is the zone's bounding box and this much around it (a fan sticks out)
ANGLE_STEP = 3.0  # degrees between the angles tried
MOST_CARDS = 8
HIDES_MM = 3.0  # a card above hides this much around it too (its own rim's edge is not the next card's)
CHANGED_GREY = 14.0  # a pixel this far from the settled look before has changed
#: the top card is the batch just laid: at least this much of it changed since the settled look before (the cards
#: under it need not: a back laid on a back of the same design may look as before)
MIN_CHANGED = 0.3
#: ... or this much of its outline: a dark back on a dark cloth changes a tenth of its inside (its stripes' grey
#: barely differs from the cloth's), but its white rim is new (0.3-0.6 keep the same 115 of 120 counts right)
MIN_RIM_CHANGED = 0.5
#: what crosses a card's inside (another card's rim) counts this much against the sharpness of its outline: a fan's
#: end card shows a whole outline too, but its neighbour's edge runs through it
CROSSED_WEIGHT = 0.3
# a card below the one above it is taken while...
NEXT_WITHIN = 12.0  # ... it is turned at most this much (degrees) from the card above (18 rendered games: a batch's
#                       lower cards lie 0-12 degrees off the card above; over-counts' wrong second cards up to 18)
NEXT_MM = 40.0  # ... its centre is at most this far from that card's (a fan shows a strip of each card)
MIN_EDGE_RATIO = 0.8  # ... its visible outline is this sharp relative to the top card's
MIN_SHOWN = 0.2  # ... this fraction of its inside shows (rendered fans' strips 0.21-0.34, the pile squared under
#                      them 0.09-0.17: measured on 3 rendered games)
MIN_OUTLINE = 0.2  # ... and this fraction of its outline
#: ... or as little as this shows, where its outline is SLIVER_EDGE_RATIO as sharp as the top card's: a batch's
#: lower card laid close under the next shows 0.10-0.19 with an outline 1.08-1.6 as sharp as the top card's (a
#: strip's rim crosses the cloth), the pile's old cards' slivers mostly under 0.9 (120 settled looks of 9 games)
MIN_SLIVER = 0.1
SLIVER_EDGE_RATIO = 1.05
#: ... and at least this much of its outline changed: the batch's lower cards were laid just now, the pile's old
#: cards lie as they lay (their slivers' rims 0.0-0.1 on the rendered games; the batch's 0.2-0.9)
SLIVER_RIM_CHANGED = 0.15
#: ... or, on a bare table (no old card can peek out: every card is the batch's), where this much of its outline
#: changed, with an outline only SLIVER_BARE_EDGE_RATIO as sharp: rendered Cheat 2p s7 5.79 s, a batch of two laid
#: on the bare cloth, the lower card's strip 0.11 of it, its outline 0.96 as sharp as the top's, 0.64 of it new:
#: counted one. (Not on a pile: the renderer squares the old cards under a batch, and a squared card's edge peeking out
#: is as sharp and as new: rendered Cheat 3p s12 14.3 s, one card laid across the pile, counted two so)
SLIVER_BARE_RIM_CHANGED = 0.5
SLIVER_BARE_EDGE_RATIO = 0.9
#: a card failing the rules above is still counted where the card fitted under it shows a strip (MIN_SHOWN) laid just
#: now (SLIVER_RIM_CHANGED) with an outline at least this sharp relative to the top card's: the middle card of a fan
#: of three lies between two sharp outlines, its own 0.76-0.77 of the top's (rendered Cheat 2p s6, seeds nothing was
#: tuned on: batches of seeds 6 and 7 counted right 55 -> 58 of 62; of seeds 238, 11 and 12, 107 of 110 either way;
#: the same at 0.9 and 1.1)
BETWEEN_EDGE_RATIO = 1.0
#: a card under the top whose outline the settled look before already showed, at least OLD_OUTLINE as sharp (its
#: sharpest within two flat px of where it is fitted now), and less of whose outline changed than the top card's must
#: (MIN_RIM_CHANGED), is the pile's and not the batch's: the card laid on it lies nearly as it did (rendered Cheat 3p
#: s238 19.48 s: one card laid 6 degrees and 9 px from the old one under it, whose edge had been there 0.97 as sharp,
#: 0.49 of its rim new: counted two). Of 116 settled batches of more than one card fitted on 18 rendered games, 8
#: were over-counted by one: their second cards' outlines had been there 0.64-1.11 as sharp, 0.0-0.55 of their rims
#: new; the right counts' 0.02-1.8 and 0.46-0.97, those from 0.9 as sharp 0.54-0.77 new. A batch's lower card laid
#: where the old top lay can look so too (2p s11 12.13 s: 1.00 as sharp, 0.54 new). So is one of whose inside less
#: than MIN_CHANGED changed, its rim as above: it lay there before (rendered Cheat 3p s7 2.83 s: B's one card on A's
#: two, the strip of A's top 0.02 new, 0.24 of its rim, its outline sharper now, counted two; the batches' lower cards
#: of 18 games: 0.42-1.0 new). Not for backs printed to their edges: one laid on another looks as before, rim and all
OLD_OUTLINE = 0.9
#: a fit's count is unsure (:attr:`Fit.sure`) where a card it took under the top has an outline less sharp than this
#: share of the top card's, or a card it left out (too weak, or the pile's) has one at least NEAR_EDGE_RATIO as sharp
#: with NEAR_RIM_CHANGED of its rim new: a batch laid nearly squared, its lower cards slivers. Set on the fits that
#: made the facedown lines of 29 rendered Cheat games (2026-12-07: of those counted wrong, about half are unsure so;
#: of those counted right, a quarter). An unsure count gives way to the claim (engine.games.cheat.COUNT_SURE): 99 of
#: the 346 facedown lines, and the count mismatches called where nothing was miscounted fell from 38 to 13
SURE_EDGE_RATIO = 1.0
NEAR_EDGE_RATIO = 0.7
NEAR_RIM_CHANGED = 0.3


@dataclass(frozen=True)
class CardPose:
    """One card of a pile: its centre (table mm), angle (degrees), and how much of it shows (0-1), with the part
    that shows changed since the look before (0-1)."""

    centre: tuple[float, float]
    angle: float
    shown: float
    changed: float
    edge: float  # how sharp its visible outline is (mean gradient across it, grey levels a px)
    rim_changed: float = 1.0  # the share of its visible outline that changed since the look before (0-1)


class Fit(list):
    """The cards fitted (:class:`CardPose`, top first), and whether their count is sure (see
    :data:`SURE_EDGE_RATIO`): a plain list where it is."""

    sure: bool = True


@dataclass
class FlatView:
    """A crop of the camera's frame turned flat around a zone: ``matrix`` maps crop pixels to flat pixels, whose
    origin is ``mm0`` on the table (mm) at :data:`PX_PER_MM`."""

    matrix: np.ndarray
    size: tuple[int, int]
    mm0: np.ndarray

    @classmethod
    def around(cls, zone_polygon: np.ndarray, image_to_mm: np.ndarray, origin: tuple[int, int]) -> FlatView:
        """The flat view of the zone ``zone_polygon`` (frame pixels) seen in a crop whose top-left is ``origin``."""
        h = np.asarray(image_to_mm, np.float64)
        p = np.c_[zone_polygon, np.ones(len(zone_polygon))] @ h.T
        mm = p[:, :2] / p[:, 2:3]
        lo, hi = mm.min(0) - MARGIN_MM, mm.max(0) + MARGIN_MM
        scale = np.array([[PX_PER_MM, 0, -lo[0] * PX_PER_MM], [0, PX_PER_MM, -lo[1] * PX_PER_MM], [0, 0, 1]])
        shift = np.array([[1.0, 0, origin[0]], [0, 1.0, origin[1]], [0, 0, 1]])
        size = (int(math.ceil((hi[0] - lo[0]) * PX_PER_MM)), int(math.ceil((hi[1] - lo[1]) * PX_PER_MM)))
        return cls(scale @ h @ shift, size, lo)

    def warp(self, crop: np.ndarray) -> np.ndarray:
        return cv2.warpPerspective(crop, self.matrix, self.size, flags=cv2.INTER_LINEAR,
                                   borderMode=cv2.BORDER_REPLICATE).astype(np.float32)


def card_corners(centre: tuple[float, float], angle: float) -> np.ndarray:
    """The four corners (table mm) of a card lying at ``centre`` (mm) turned ``angle`` degrees."""
    return _quad(centre, angle, CARD_MM[0] / 2, CARD_MM[1] / 2)


def _axes(angle: float) -> tuple[np.ndarray, np.ndarray]:
    """The unit vectors along a card's width and height when it is turned ``angle`` degrees (flat px)."""
    a = math.radians(angle)
    return np.array([math.cos(a), math.sin(a)]), np.array([-math.sin(a), math.cos(a)])


def _quad(centre: tuple[float, float], angle: float, hw: float, hh: float) -> np.ndarray:
    """The corners of a ``2 hw`` x ``2 hh`` rectangle at ``centre`` turned ``angle`` degrees, in fill order."""
    ax, bx = _axes(angle)
    c = np.asarray(centre, float)
    return np.array([c + sx * hw * ax + sy * hh * bx for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1))])


def _kernels(angle: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """For a card turned ``angle`` degrees, centred in the kernel: its long sides, its short sides (1 px lines),
    its inside (less a 3 mm rim), and the unit normals of the long and short sides."""
    w, h = CARD_MM[0] * PX_PER_MM, CARD_MM[1] * PX_PER_MM
    r = _kernel_radius()
    ax, bx = _axes(angle)

    def corners(hw: float, hh: float) -> np.ndarray:
        return _quad((r, r), angle, hw, hh)

    long_k = np.zeros((2 * r + 1, 2 * r + 1), np.float32)
    short_k = np.zeros_like(long_k)
    inside = np.zeros_like(long_k)
    q = np.round(corners(w / 2, h / 2) * 16).astype(np.int32)
    for i, j, k in ((0, 3, long_k), (1, 2, long_k), (0, 1, short_k), (3, 2, short_k)):
        cv2.line(k, tuple(q[i]), tuple(q[j]), 1.0, 1, cv2.LINE_AA, shift=4)
    rim = 3.0 * PX_PER_MM
    cv2.fillConvexPoly(inside, np.round(corners(w / 2 - rim, h / 2 - rim) * 16).astype(np.int32), 1.0, cv2.LINE_AA,
                       shift=4)
    return long_k, short_k, inside, ax, bx


class _Spectra:
    """Correlations of images of one size with the card's kernels, through the DFT (as ``cv2.filter2D`` with a zero
    border would give them): an image's spectrum is taken once for all the kernels it meets, two correlations that
    are summed share one inverse transform, and the kernels' spectra are kept, per angle, for the next batch on
    the pile. ``filter2D`` took each correlation alone, ~7 a tried angle, about half of a Cheat audit's time."""

    def __init__(self, shape: tuple[int, int]) -> None:
        self.shape = shape
        r = _kernel_radius()
        self.size = (cv2.getOptimalDFTSize(shape[0] + r), cv2.getOptimalDFTSize(shape[1] + r))
        self._kernels: dict[float, tuple[np.ndarray, ...]] = {}

    def of(self, img: np.ndarray) -> np.ndarray:
        """The spectrum (packed, ``cv2.dft``) of ``img`` padded with zeros."""
        padded = np.zeros(self.size, np.float32)
        padded[:self.shape[0], :self.shape[1]] = img
        return cv2.dft(padded)

    def kernels(self, angle: float) -> tuple[np.ndarray, ...]:
        """The spectra of :func:`_kernels`' long sides, short sides, both, and inside, centred on the origin (so a
        correlation's pixel is the kernel's centre), and the two unit normals and the inside's area."""
        if angle not in self._kernels:
            long_k, short_k, inside, ax, bx = _kernels(angle)
            r = long_k.shape[0] // 2

            def spectrum(k: np.ndarray) -> np.ndarray:
                padded = np.zeros(self.size, np.float32)
                padded[:k.shape[0], :k.shape[1]] = k
                return cv2.dft(np.roll(padded, (-r, -r), (0, 1)))

            outline_px = float(long_k.sum() + short_k.sum())
            self._kernels[angle] = (spectrum(long_k), spectrum(short_k), spectrum(long_k + short_k),
                                    spectrum(inside), ax, bx, float(inside.sum()), outline_px)
        return self._kernels[angle]

    def corr(self, *pairs: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
        """The sum of the correlations of each (image spectrum, kernel spectrum) pair, cut to the image's size."""
        total = None
        for img_f, kernel_f in pairs:
            m = cv2.mulSpectrums(img_f, kernel_f, 0, conjB=True)
            total = m if total is None else total + m
        out = cv2.dft(total, flags=cv2.DFT_INVERSE | cv2.DFT_SCALE | cv2.DFT_REAL_OUTPUT)
        return out[:self.shape[0], :self.shape[1]]


def _kernel_radius() -> int:
    """Half the side of :func:`_kernels`' square kernels (px): half a card's diagonal, and 2."""
    return int(math.ceil(math.hypot(CARD_MM[0] * PX_PER_MM, CARD_MM[1] * PX_PER_MM) / 2)) + 2


def _at(img: np.ndarray, kernel: np.ndarray, x: int, y: int) -> float:
    """The correlation of ``img`` with ``kernel`` (centred) at one pixel, zeros outside ``img``."""
    r = kernel.shape[0] // 2
    padded = np.pad(img, r)
    return float((padded[y:y + 2 * r + 1, x:x + 2 * r + 1] * kernel).sum())


_SPECTRA: dict[tuple[int, int], _Spectra] = {}  # per flat view's size: a pile's kernels are made once


def _gradients(grey: np.ndarray, view: FlatView, smooth: float = 0.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The flat view of ``grey`` (a little blurred) and its brightness gradients along x and y (grey levels a px);
    ``smooth``: ``grey`` blurred that much (camera px) before it is turned flat (:data:`FINE_PATTERN_BLUR`)."""
    if smooth > 0:
        grey = cv2.GaussianBlur(grey, (0, 0), smooth)
    flat = cv2.GaussianBlur(view.warp(grey), (0, 0), 1.0)
    return flat, cv2.Sobel(flat, cv2.CV_32F, 1, 0, ksize=3) / 8.0, cv2.Sobel(flat, cv2.CV_32F, 0, 1, ksize=3) / 8.0


#: a back printed to its edges shows no outline where two of its cards overlap, only a seam in its pattern: there the
#: seams (:func:`pattern_seams`, grey levels) count this much towards a side's sharpness (the 40 settled looks of
#: three 2-player games of seeds 15, 17 and 21, backs without a margin: 23 counted right without, 26 at 1.0 or 1.5, 24
#: at 0.5; a back's margin breaks its pattern along its rim, and on the 9 tuning games, all such, the seams were no
#: help: they are used only where the deck's back.png is printed to its edges)
SEAM_WEIGHT = 1.0
SEAM_TURNS = np.arange(-12.0, 12.0 + 1e-6, 3.0)  # degrees the pattern's periods are turned (a fan's cards' angles)
SEAM_MIN_REPEAT = 0.5  # the pattern repeats where its autocorrelation peaks at least this high
#: a back printed to its edges whose pattern repeats within this many px of the flat view (:data:`PX_PER_MM`) is too
#: fine for it: turned flat as it is, the pattern folds into a moire whose stripes run every way, and any rectangle
#: over the pile finds "edges" along its sides (rendered held-out Cheat s5, a lattice repeating every 4 camera px,
#: 1.9 flat px: a fan of four fitted as three, its top in the middle). Such a crop is blurred by FINE_PATTERN_BLUR
#: (camera px) before it is turned flat: the pattern goes grey and the outlines stay. Rendered Cheat s5 (2, 3 and 4
#: players): batches, reveals and take-backs 45 -> 48 of 56 (blur 1.5: 49), 4p s5's verdicts now equal; the checks
#: of seeds 15 and 21 (7-14 camera px) are left as they are. Synthetic fans of two to four such backs (the built-in
#: decks of seeds 1-39 printed to their edges, both cloths): 24 -> 26 of 48 right, every change on seed 5's lattice
#: (blurring every such back: 25, two fans of other decks counted short)
FINE_PATTERN_PX = 2.5
FINE_PATTERN_BLUR = 1.0


def pattern_periods(grey: np.ndarray, mask: np.ndarray | None = None) -> list[np.ndarray]:
    """The (up to two) vectors (crop px) by which a back's pattern repeats at the middle of ``mask`` (crop pixels, the
    batch just laid; the crop's middle where None), from its autocorrelation; none where nothing repeats there."""
    g = grey.astype(np.float32)
    if mask is not None and mask.any():
        ys, xs = np.nonzero(mask)
        cy, cx = int(np.median(ys)), int(np.median(xs))
    else:
        cy, cx = g.shape[0] // 2, g.shape[1] // 2
    r = 14  # (the patch the periods are taken from: 28 px, a few of a back's repeats at a webcam's 1 px/mm)
    if not (r <= cy < g.shape[0] - r and r <= cx < g.shape[1] - r):
        return []
    patch = g[cy - r:cy + r, cx - r:cx + r]
    if patch.std() < 8.0:
        return []
    ac = cv2.matchTemplate(np.pad(patch, r, mode="wrap"), patch, cv2.TM_CCOEFF_NORMED)
    oy, ox = ac.shape[0] // 2, ac.shape[1] // 2
    ac[oy - 2:oy + 3, ox - 2:ox + 3] = -1.0
    periods: list[np.ndarray] = []
    while len(periods) < 2:
        y, x = np.unravel_index(int(ac.argmax()), ac.shape)
        if ac[y, x] < SEAM_MIN_REPEAT:
            break
        v = np.array([x - ox, y - oy], float)
        ac[max(0, y - 2):y + 3, max(0, x - 2):x + 3] = -1.0
        ac[max(0, 2 * oy - y - 2):2 * oy - y + 3, max(0, 2 * ox - x - 2):2 * ox - x + 3] = -1.0
        if all(abs(float(v[0] * u[1] - v[1] * u[0])) > 0.3 * np.linalg.norm(v) * np.linalg.norm(u) for u in periods):
            periods.append(v)
    return periods


def pattern_seams(grey: np.ndarray, view: FlatView, mask: np.ndarray | None = None,
                  periods: list[np.ndarray] | None = None) -> np.ndarray | None:
    """Where a back's repeating pattern breaks (flat view, grey levels): each pixel compared with the pixel one
    period away, the periods taken from the pattern's autocorrelation at the middle of ``mask`` (crop pixels,
    the batch just laid; ``periods``: :func:`pattern_periods`, found already) and turned a little either way (the
    cards of a fan lie at angles of their own): inside a card some period repeats it, on the seam between two cards
    printed to their edges none does. None where no pattern repeats there."""
    g = grey.astype(np.float32)
    periods = pattern_periods(g, mask) if periods is None else periods
    if not periods:
        return None
    best = np.full_like(g, np.inf)
    for v in periods:
        for turn in SEAM_TURNS:
            a = math.radians(float(turn))
            d = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]]) @ v
            for sgn in (1.0, -1.0):
                m = np.float32([[1, 0, -sgn * d[0]], [0, 1, -sgn * d[1]]])
                shifted = cv2.warpAffine(g, m, (g.shape[1], g.shape[0]), borderMode=cv2.BORDER_REPLICATE)
                best = np.minimum(best, cv2.blur(np.abs(g - shifted), (3, 3)))
    return view.warp(best)


def _outline_edge(spectra: _Spectra, gx: np.ndarray, gy: np.ndarray, visible: np.ndarray, visible_f: np.ndarray,
                  angle: float, seams: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """For a card turned ``angle`` centred at each flat pixel: how much of its outline shows (px, where ``visible``;
    ``visible_f`` is its spectrum), and how sharp that is (the mean brightness gradient across its sides, and the
    ``seams`` of a back's pattern along them where given)."""
    long_f, short_f, sides_f, _, ax, bx, _, _ = spectra.kernels(angle)
    ea = np.abs(gx * ax[0] + gy * ax[1])
    eb = np.abs(gx * bx[0] + gy * bx[1])
    if seams is not None:  # (a seam has no direction: it counts along either side)
        ea, eb = ea + seams, eb + seams
    ea, eb = ea * visible, eb * visible
    outline = spectra.corr((visible_f, sides_f))
    return outline, spectra.corr((spectra.of(ea), long_f), (spectra.of(eb), short_f)) / np.maximum(outline, 1.0)


def _outline_before(spectra: _Spectra, was: tuple[np.ndarray, np.ndarray], visible: np.ndarray,
                    visible_f: np.ndarray, angle: float, x: int, y: int) -> float:
    """How sharp the outline of a card turned ``angle`` at (``x``, ``y``) flat px was in the look whose gradients are
    ``was`` (the sharpest within two px: a card does not lie to the pixel where it was fitted before)."""
    edge = _outline_edge(spectra, was[0], was[1], visible, visible_f, angle)[1]
    return float(edge[max(0, y - 2):y + 3, max(0, x - 2):x + 3].max())


def _hide(visible: np.ndarray, x: int, y: int, angle: float) -> np.ndarray:
    """``visible`` less a card at (``x``, ``y``) flat px turned ``angle``, and :data:`HIDES_MM` around it."""
    mask = np.zeros_like(visible)
    quad = _quad((x, y), angle, (CARD_MM[0] / 2 + HIDES_MM) * PX_PER_MM, (CARD_MM[1] / 2 + HIDES_MM) * PX_PER_MM)
    cv2.fillConvexPoly(mask, np.round(quad * 16).astype(np.int32), 1.0, cv2.LINE_AA, shift=4)
    return visible * (mask < 0.5)


def _changed_pixels(now: np.ndarray, before: np.ndarray) -> np.ndarray:
    """Crop pixels that changed since the settled look before, compared at the camera's resolution (a back's
    stripes blur to one grey in the flat view)."""
    diff = cv2.absdiff(cv2.GaussianBlur(now, (0, 0), 0.7), cv2.GaussianBlur(before, (0, 0), 0.7))
    return diff > CHANGED_GREY


def _batch_periods(now: np.ndarray, before: np.ndarray | None) -> list[np.ndarray]:
    """:func:`pattern_periods` of the batch just laid (what changed since ``before``); none without a look before."""
    return [] if before is None else pattern_periods(now, _changed_pixels(now, before))


def seam_edges(now: np.ndarray, view: FlatView, before: np.ndarray | None,
               periods: list[np.ndarray] | None = None) -> np.ndarray | None:
    """What the pattern's seams about the batch just laid add to the outline's edges (flat view,
    :data:`SEAM_WEIGHT`): for backs printed to their edges. None where no pattern repeats there, or no look before
    says what was laid. ``periods``: :func:`_batch_periods`, found already."""
    periods = _batch_periods(now, before) if periods is None else periods
    broken = pattern_seams(now, view, periods=periods) if periods else None
    return None if broken is None else SEAM_WEIGHT * broken


def fine_pattern(now: np.ndarray, view: FlatView, before: np.ndarray | None,
                 periods: list[np.ndarray] | None = None) -> bool:
    """Whether the back of the batch just laid repeats its pattern within :data:`FINE_PATTERN_PX` of the flat view
    (:func:`pattern_periods` at what changed since ``before``, scaled by how far ``view`` stretches a crop pixel at
    the crop's middle). ``periods``: :func:`_batch_periods`, found already."""
    periods = _batch_periods(now, before) if periods is None else periods
    if not periods:
        return False
    scale = local_scale(view.matrix, (now.shape[1] / 2, now.shape[0] / 2))
    return min(float(np.linalg.norm(v)) for v in periods) * scale < FINE_PATTERN_PX


def fit_cards(now: np.ndarray, view: FlatView, before: np.ndarray | None = None,
              top_angles: np.ndarray | None = None, seams: np.ndarray | None = None, bare: bool = False,
              smooth: float = 0.0) -> Fit:
    """The cards lying in ``now`` (a grey crop of a settled pile, no hand over it), top first, and whether their
    count is sure (:attr:`Fit.sure`). ``before``: the crop at the settled look before, to say what changed.
    ``top_angles``: the angles (degrees) the top card is tried at, all where None. ``seams``: for backs printed to
    their edges, where their pattern breaks, an edge too (:func:`seam_edges`). ``bare``: ``before`` showed no card
    (every card is the batch's). ``smooth``: the crops blurred that much (camera px) before they are turned flat
    (:data:`FINE_PATTERN_BLUR`)."""
    flat, gx, gy = _gradients(now, view, smooth)
    grad = np.hypot(gx, gy)
    changed = np.ones_like(flat)
    was: tuple[np.ndarray, np.ndarray] | None = None  # the settled look before's gradients (its outlines)
    if before is not None:
        changed = view.warp(_changed_pixels(now, before).astype(np.float32))
        if not bare:
            was = _gradients(before, view, smooth)[1:]
    visible = np.ones_like(flat)
    area = CARD_MM[0] * CARD_MM[1] * PX_PER_MM ** 2
    cards = Fit()
    top_edge = 0.0
    angles = np.arange(0.0, 180.0, ANGLE_STEP) if top_angles is None else np.asarray(top_angles, float) % 180.0
    yy, xx = np.mgrid[0:flat.shape[0], 0:flat.shape[1]]
    near = np.ones(flat.shape, bool)
    spectra = _SPECTRA.setdefault(flat.shape, _Spectra(flat.shape))
    pending: CardPose | None = None  # a weak card, kept where a sharp one lies under it
    while len(cards) < MOST_CARDS:
        best: tuple[float, ...] | None = None  # (edge, angle, x, y, shown, changed, visible outline px)
        changed_here = changed * visible
        visible_f, changed_f, grad_f = spectra.of(visible), spectra.of(changed_here), spectra.of(grad * visible)
        for angle in angles:
            _, _, sides_f, inside_f, _, _, inside_px, outline_px = spectra.kernels(float(angle))
            outline, edge = _outline_edge(spectra, gx, gy, visible, visible_f, float(angle), seams)
            shows = spectra.corr((visible_f, inside_f))
            new = spectra.corr((changed_f, inside_f)) / np.maximum(shows, 1.0)
            # another card's rim across what shows of this one: this one lies under it (a fan's end card has a whole
            # outline too, but its neighbour's edge runs through it)
            crossed = spectra.corr((grad_f, inside_f)) / np.maximum(shows, 1.0)
            ok = (outline >= MIN_OUTLINE * outline_px) & (shows >= MIN_SLIVER * area)
            if cards:  # a fan's next card lies beside the one above it, under its edge
                ok &= near
            else:  # the top card is the batch just laid: it changed (its inside, or its rim); the cards under it
                #     may look as before
                rim_new = spectra.corr((changed_f, sides_f)) / np.maximum(outline, 1.0)
                ok &= (new >= MIN_CHANGED) | (rim_new >= MIN_RIM_CHANGED)
            score = np.where(ok, edge - CROSSED_WEIGHT * crossed, -1.0)
            y, x = np.unravel_index(int(score.argmax()), score.shape)
            if score[y, x] > (best[0] if best else 0.0):
                best = (float(score[y, x]), float(angle), int(x), int(y), float(shows[y, x]) / inside_px,
                        float(new[y, x]), float(outline[y, x]))
        if best is None:
            break
        edge, angle, x, y, shown, new, outline_at = best
        long_k, short_k = _kernels(angle)[:2]
        rim_new = _at(changed_here, long_k + short_k, x, y) / max(outline_at, 1.0)
        centre = (float(view.mm0[0] + x / PX_PER_MM), float(view.mm0[1] + y / PX_PER_MM))
        pose = CardPose(centre, angle, shown, new, edge, rim_new)
        unchanged = seams is None and new < MIN_CHANGED  # (see OLD_OUTLINE)
        nearly = bool(cards) and edge >= NEAR_EDGE_RATIO * top_edge and rim_new >= NEAR_RIM_CHANGED  # (taken)
        if cards and was is not None and rim_new < MIN_RIM_CHANGED and (unchanged or _outline_before(
                spectra, was, visible, visible_f, angle, x, y) >= OLD_OUTLINE * edge):
            cards.sure &= not nearly
            break  # (the pile's: the cards under it are older still)
        sliver = (edge >= SLIVER_EDGE_RATIO * top_edge and rim_new >= SLIVER_RIM_CHANGED) or (
            bare and edge >= SLIVER_BARE_EDGE_RATIO * top_edge and rim_new >= SLIVER_BARE_RIM_CHANGED)
        weak = bool(cards) and (edge < MIN_EDGE_RATIO * top_edge or (shown < MIN_SHOWN and not sliver))
        if (weak and nearly) or (cards and not weak and edge < SURE_EDGE_RATIO * top_edge):
            cards.sure = False
        if pending is not None:  # the card under a weak one: both are the batch's where this one is a sharp strip
            if weak or edge < BETWEEN_EDGE_RATIO * top_edge or shown < MIN_SHOWN or rim_new < SLIVER_RIM_CHANGED:
                break
            cards.append(pending)
            pending = None
        elif weak and (not BETWEEN_EDGE_RATIO or len(cards) >= MOST_CARDS - 1 or shown < MIN_SLIVER):
            break
        if weak:  # (kept aside, and fitting goes on under it)
            pending = pose
        else:
            top_edge = top_edge or edge
            cards.append(pose)
        beside = np.hypot(xx - x, yy - y) <= NEXT_MM * PX_PER_MM
        turns = np.array([(angle + d) % 180.0 for d in np.arange(-NEXT_WITHIN, NEXT_WITHIN + 1e-6, ANGLE_STEP)])
        if seams is not None and len(cards) > 1:
            # (backs printed to their edges: a seam has no side, so which of two cards lies on top is not told, and
            # the fan may go on beyond the card fitted first: the next card lies beside any of them)
            near, angles = near | beside, np.unique(np.concatenate([angles, turns]))
        else:
            near, angles = beside, turns
        visible = _hide(visible, x, y, angle)
    return cards


#: a top card fitted sideways to the first fit's is the batch's top where its outline is at least this sharp relative
#: to the first's and the fit finds more cards under it, the next showing a strip (:func:`fit_batch`)
SIDEWAYS_TOP = 0.9


def fit_batch(now: np.ndarray, view: FlatView, before: np.ndarray | None = None, seams: bool = False,
              bare: bool = False) -> Fit:
    """The cards of the batch just laid (:func:`fit_cards`), or those fitted with the top card turned a quarter from
    the first fit's where that finds more of them, its top card's outline nearly as sharp and the next card showing
    a strip (:data:`MIN_SHOWN`): two cards laid sideways, the lower one's strip showing below the upper one, make an
    outer outline an upright card fits (rendered Cheat 3p s11 10.39 s: fitted upright, one card; sideways, 0.95 as
    sharp, a strip 0.28 of the lower card showing: two). On 9 rendered games (109 batches fitted) it changed two counts,
    both to the truth's; of the single cards, none turned fits showed a strip under them with a top this sharp.
    ``seams``: the backs are printed to their edges (:func:`seam_edges`); ``bare``: ``before`` showed no card."""
    edges, smooth = _fit_looks(now, view, before, seams)
    cards = fit_cards(now, view, before, seams=edges, bare=bare, smooth=smooth)
    if not cards:
        return cards
    turned = _turned_fit(now, view, before, cards[0].angle, edges, bare, smooth)
    if len(turned) > len(cards) and turned[0].edge >= SIDEWAYS_TOP * cards[0].edge and turned[1].shown >= MIN_SHOWN:
        return turned
    return cards


def fit_turned(now: np.ndarray, view: FlatView, before: np.ndarray | None, top_angle: float, seams: bool = False,
               bare: bool = False) -> Fit:
    """The batch fitted as :func:`fit_batch` fits it with its top card turned a quarter from ``top_angle``: a
    reveal read unsurely at the batch's poses is read again on this fit (``vision.batches``)."""
    edges, smooth = _fit_looks(now, view, before, seams)
    return _turned_fit(now, view, before, top_angle, edges, bare, smooth)


def _fit_looks(now: np.ndarray, view: FlatView, before: np.ndarray | None, seams: bool
               ) -> tuple[np.ndarray | None, float]:
    """What a batch's fits are made on: the seams of backs printed to their edges (``seams``), and the blur of a
    fine pattern (:data:`FINE_PATTERN_BLUR` where there is one, else 0)."""
    periods = _batch_periods(now, before) if seams else []  # (once for both questions)
    edges = seam_edges(now, view, before, periods) if seams else None
    return edges, FINE_PATTERN_BLUR if fine_pattern(now, view, before, periods) else 0.0


def _turned_fit(now: np.ndarray, view: FlatView, before: np.ndarray | None, top_angle: float,
                edges: np.ndarray | None, bare: bool, smooth: float) -> Fit:
    """:func:`fit_cards` with the top card turned 60-120 degrees from ``top_angle``."""
    return fit_cards(now, view, before, np.arange(top_angle + 60.0, top_angle + 120.0 + 1e-6, ANGLE_STEP), edges,
                     bare, smooth)


#: :func:`refit_cards` looks for each card this far from where it was fitted face down (mm, degrees), in these steps
REFIT_MM = 10.0
REFIT_TURN = 6.0
REFIT_STEP = 1.5  # (3 degrees, the face-down fit's step: 26 of 31 reveals read right, against 29)
#: ... on gradients clipped to this (grey levels a px): a face's pips and index are far darker than its rim against
#: the cloth, and unclipped they pull a side onto a column of pips (reveals read right: 27 of 31 unclipped, 29 at
#: 8-12, 27 at 6, 28 at 14)
REFIT_CLIP = 10.0


def refit_cards(now: np.ndarray, view: FlatView, poses: list[CardPose]) -> list[CardPose]:
    """The cards of ``poses`` (top first, fitted face down) fitted again where they lie face up in ``now``: each
    within :data:`REFIT_MM` and :data:`REFIT_TURN` of its pose, to the sharpest visible outline (outside the cards
    above, as fitted again). Face down, a back's patterned middle has sharper sides than its white rim on a light
    cloth, and the fit takes them for the card's (9 rendered Cheat games' 31 reveals: the face-down poses were off by
    5.7 mm (median), up to 9; fitted again face up, 1.5, up to 3.9): a face has no such inner frame, and its strip
    of a fan was read as another card where the pose was off by that much (6D's strip under 6S read 5H)."""
    _, gx, gy = _gradients(now, view)
    g = np.hypot(gx, gy)
    clip = np.minimum(1.0, REFIT_CLIP / np.maximum(g, 1e-6))
    gx, gy = gx * clip, gy * clip
    visible = np.ones_like(gx)
    yy, xx = np.mgrid[0:gx.shape[0], 0:gx.shape[1]]
    spectra = _SPECTRA.setdefault(gx.shape, _Spectra(gx.shape))
    out: list[CardPose] = []
    for pose in poses:
        px, py = ((np.asarray(pose.centre) - view.mm0) * PX_PER_MM).tolist()
        near = np.hypot(xx - px, yy - py) <= REFIT_MM * PX_PER_MM
        visible_f = spectra.of(visible)
        best = (-np.inf, pose.angle, int(round(px)), int(round(py)))
        for angle in np.arange(pose.angle - REFIT_TURN, pose.angle + REFIT_TURN + 1e-6, REFIT_STEP) % 180.0:
            outline_px = spectra.kernels(float(angle))[7]
            outline, edge = _outline_edge(spectra, gx, gy, visible, visible_f, float(angle))
            score = np.where(near & (outline >= MIN_OUTLINE * outline_px), edge, -np.inf)
            y, x = np.unravel_index(int(score.argmax()), score.shape)
            if score[y, x] > best[0]:
                best = (float(score[y, x]), float(angle), int(x), int(y))
        edge, angle, x, y = best
        centre = (float(view.mm0[0] + x / PX_PER_MM), float(view.mm0[1] + y / PX_PER_MM))
        out.append(CardPose(centre, angle, pose.shown, pose.changed, edge if np.isfinite(edge) else pose.edge,
                            pose.rim_changed))
        visible = _hide(visible, x, y, angle)
    return out
