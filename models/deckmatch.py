"""Reading a card by comparing it with pictures of the deck being played.

The card reader (:mod:`models.reader`) has to know every deck design from a 64 px crop, and a 720p webcam shows a
card's corner index about 8 px tall: courts and suits of one colour are where it fails. At a real table the deck
is one known deck. Given a picture of each of its cards (a folder like ``faces=``: ``10C.png`` or
``10_of_clubs.png``; a flat photo or scan of each face), a card seen on the table is turned flat with the table's
homography (the layout's) and compared with each picture, pixel by pixel (normalised cross-correlation): the
whole face counts (pips, figure, colour), not only its index.

The card's angle comes first. The detector's box gives the card's place roughly and says nothing of its angle, so
the box's neighbourhood is turned flat at every angle (6 degree steps, grey, half resolution) and compared with
the deck's mean face inside a rim of dark table (every card of the deck resembles it: white, index corners). At
that angle every card's picture is compared, each also turned half a turn (a card lies either way up); the six
best again in colour at full resolution, at that angle and 3 degrees either side, 15 mm around the box's middle
either way. Cards that match alike (courts of one colour in many designs) are ordered by the pixels where their
pictures differ: by their ink's colour, then by their shapes there, at the search's and the camera's resolution. A
card read before and still lying there untouched is not searched again.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Collection
from pathlib import Path
from typing import Any, NamedTuple

import cv2
import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from calibration.homography import local_scale
from models.classes import FACES

CARD_MM = (63.0, 88.0)  # poker size; the homography's unit is the mm
PX_PER_MM = 0.667  # the flat face compared: 42 x 59 px (a 720p webcam shows a card at about this size)
COARSE_STEP_DEG = 6.0  # angles tried at half resolution
SEARCH_MM = 15.0  # how far the card's centre may be from the box's centre (detector boxes err by ~6 % a side)
COARSE_SCALE = 0.5  # the coarse search looks at this fraction of the full resolution
POSE_RIM_MM = 3.0  # the rim of table around the mean face when the pose is searched
POSE_RIM_SHADE = 0.5  # ... and its grey, as a fraction of the mean face's
#: the mean face's best angles (its highest peaks) at which every card is compared at half resolution: the pose is
#: the one where some card fits best. A face with few pips (a two, a three) looks like the mean face at a wrong angle
#: more than at its own (rendered Slapjack 2p s238: 2D at -2 degrees, the mean face's best at 12: read 0.30, none)
ANGLE_PEAKS = 3
#: every card is compared (grey, half resolution) at the pose's angle; the REFINE_TOP best again in colour at full
#: resolution at that angle and half a step either side
REFINE_TURNS = (-COARSE_STEP_DEG / 2, 0.0, COARSE_STEP_DEG / 2)
#: ... and where another of those peaks is this close to the best at half resolution, that peak's REFINE_TOP best are
#: compared in colour at its angle too: a joker's busy figure, turned sideways, fits the grey half-resolution view of a
#: plain two better than the two's own picture at the two's angle (rendered Spit 2p s6 5.1 s: 2D on a column,
#: 0.368 at its angle, RJ 0.384 turned 84 degrees; read RJ 0.34, nothing, for a second)
ANGLE_CLOSE = 0.03
REFINE_TOP = 6
#: ... and every other card from this close under the best at half resolution, up to REFINE_MOST in all: in a deck
#: whose courts share one busy picture (a striped panel with the rank's letter), the twelve courts match the grey
#: half-resolution view within 0.03 of each other, and the card itself may rank twelfth (rendered Snap 2p s11 9.7 s:
#: QC 0.629 under KD 0.656, never compared in colour; QD read)
REFINE_CLOSE = 0.04
REFINE_MOST = 12
#: and the EXPECTED_TOP best of the cards the table expects there, from this far under the best at half resolution
#: (rendered Pai Jie s11: QS on the spades row ranked 7th, 0.027 under QD; JS 0.044 under; a pip card further off)
EXPECTED_TOP = 2
EXPECTED_COARSE = 0.05
#: a view that fits the deck's back (grey, half resolution, at the pose's angle) better than every face by more than
#: this is a card back, not a face: it is not compared in colour (no read). Measured on rendered Pai Jie (2p s238,
#: 4p s11), Speed (s238, s5: a finely checked back printed to its edges) and Snap (2p s238): of 2478 searches, none
#: that named a card fitted the back more than 0.06 over its best face; 217 fitted it 0.1 over, most of them the
#: backs carried over Pai Jie's rows, which are compared in case the detector took a striped court for a back
BACK_LIKE = 0.1
#: a best match below this is no read (a hand over the card, a card half covered, a box on no card): measured on
#: rendered Snap s238, every one of 121 landed cards at or above it read right but 4, none of 8 below it did
MIN_MATCH = 0.4
#: a read under this match (weak) stands again (:meth:`DeckMatcher._still_there`) only for a box about where its own
#: was (within WEAK_SAME_MM of its middle): it may be of a box on part of a card (a hand under it as it is laid), and
#: it stood for the whole card once the hand had gone and the detector boxed the card right (rendered Slapjack 4p
#: s238: JC boxed on its lower two thirds read AS at 0.417, then every good box of it read AS again from the memory).
#: (Not keeping weak reads at all also mends that, but a card half covered on a Pai Jie row is then searched at every
#: look, and read as something else in the end: Pai Jie s11 13 -> 11 of 13 verdicts). At 0.5, a box straddling a
#: card on a row and the strip of the one beside it (rendered Pai Jie 3p s7 13.4 s: 8S and 7S's strip read 6S 0.51)
#: stood for the card's own box 22 mm off, and 8S was never laid; at 0.6 held-out Pai Jie 43 -> 44 of 44 cards, the
#: other games' cards and verdicts as before (Snap, Slapjack, Spit, Speed; Spit's speed the same)
KEEP_MATCH = 0.6
WEAK_SAME_MM = 6.0
CLOSE = 0.03  # cards matching within this of the best look alike as a whole: see DeckMatcher._tell_apart
#: a card compared on the part that shows (cards over the rest painted the paper's colour, :func:`_hide`) is read so
#: only from this match on, and only where no other card matches within CLOSE of it, else as if nothing hid it: the
#: paint matches every face's plain paper a little (rendered Snap 4p s11 6.3 s: a box on 3D's lower half, under the
#: next card in flight, read 6D 0.33, 0.40 so: a 6D never played), and the part hidden may be the one pip that tells
#: two ranks apart (rendered Speed s7 8.13 s: 7S read 6S)
HIDDEN_MATCH = 0.5
#: look-alikes of one colour are told apart by their shapes where their pictures differ at the search's resolution
#: and again at the camera's own (px per mm of table at the card, within FINE_PX_PER_MM), the best one's picture
#: aligned on the card anew (FINE_SLACK_MM around its pose, FINE_TURNS degrees); the two correlations summed, the
#: camera's FINE_WEIGHT times: at 0.667 px/mm a club's lobes and a spade's point are a blob of six pixels. Measured
#: on the look-alike reads of 33 rendered Snap, Slapjack, Spit and Speed games (1.06 px/mm): 1015 of 1231 right at
#: the search's resolution alone, 1078 at the camera's alone, 1059 summed so. Alone, the camera's tied a clear case
#: the search's told (rendered Slapjack 3p s238's QC, 0.659 / 0.660 against 0.740 / 0.664)
FINE_PX_PER_MM = (PX_PER_MM, 2.0)
FINE_WEIGHT = 2.0
FINE_SLACK_MM = 3.0
FINE_TURNS = (-1.0, 0.0, 1.0)
#: a read stands again for a box at most this much larger (area) than its own: a box on part of a card reads the part
#: (rendered Speed s238: KD's middle boxed alone read AS 0.53, and every whole box of KD then read AS from the memory,
#: though KD's whole box searched reads KD 0.85: AS was refused once it was played)
GROWN_BOX = 1.5
#: a search that found no card (a back, a hand over a card, a box on bare table) is not made again for a box whose
#: middle is this near its box's while the table the search looked at is unchanged (:data:`STILL_GREY`): a search is
#: fixed by the box's middle and the pixels around it alone. Rendered Spit 2p s7: 354 of 913 searches found nothing,
#: 76 of them of one back at the crop's edge, its box's height jittering by 30 px (the reader's memory misses it)
FAILED_SAME_MM = 6.0
FAILED_KEPT = 16
RECENT = 32  # reads kept to check again before a search (:meth:`DeckMatcher._still_there`)
STILL_MM = 35.0  # the three reads nearest a box, this close to its middle, are checked again before a search
STILL_GREY = 10.0  # ... and stands while the card there differs from then by at most this (mean, 0-255)
#: ... a weak read (under KEEP_MATCH) by at most this: a card still sliding is read weakly as another, and where it
#: comes to rest a few pixels on its view at that pose changes less than STILL_GREY (rendered Slapjack 3p s238
#: 14.3 s, faces filmed as prints: JD sliding in read AS 0.43, kept at 6.5 grey levels a frame later where a new
#: search reads JD 0.92; a weak read kept for a still card on a Pai Jie row differs 0-4, 4 of 134 more)
WEAK_STILL_GREY = 5.0
DIFFER_GREY = 40.0  # grey levels (0-255) between two pictures where they are said to differ
#: look-alikes of both suit colours: the card is red where its redness (red less the mean of green and blue) follows a
#: red look-alike's this well (correlation, where the pictures differ), black where no red one's is followed BLACK_FIT
RED_FIT = 0.5
BLACK_FIT = 0.2
#: ... and black where its redness barely varies there at all (spread under this share of the red look-alikes'): a
#: black picture's differing pixels are black ink and paper, its redness flat, and a correlation of a flat signal
#: says nothing (rendered Snap 2p s7: JC's picture followed JH's redness 0.2-0.5 by chance, so the jacks' pictures
#: were taken for not told apart by colour, and a red JH, its frame and index plainly red, was read JC)
INKLESS_SPREAD = 0.15
POSED_SLACK_MM = 4.0  # a known pose (:meth:`DeckMatcher.read_posed`) is this far off at most (searched 3 mm around
#                        the reveals of 9 rendered Cheat games, 28 of 31 were read right; 4 mm, 29; 6 mm around the
#                        unsure ones too, 29)
POSED_HIDES_MM = 2.0  # a card above hides this much around it too (its shadow, the fit's error)

class _Kept(NamedTuple):
    """A read kept to stand again (:meth:`DeckMatcher._still_there`)."""

    angle: float  # the pose the best card fits (degrees, mm)
    centre: np.ndarray
    view: np.ndarray  # the table there, turned flat, as it was
    scores: np.ndarray  # per card of the deck
    asked: np.ndarray  # the middle of the box read (mm)
    asked_area: float  # its area (px)
    sure: bool  # not :attr:`DeckMatcher.unsure`, or read so twice


# the four corners of a flat picture, in the order cv2.getPerspectiveTransform pairs them with the card's corners
_UNIT = np.array([[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]])


#: a back whose band just inside its edge varies at least this much relative to its middle is printed to its edges
#: (the renderer's backs: 0.97-1.01 printed so, 0.00 with a margin or a plain edge)
EDGE_PATTERN = 0.5


def printed_to_edge(picture: np.ndarray) -> bool:
    """Whether a card back's picture (RGB or RGBA, the card alone) has its pattern running to its edges: the band
    0.5-2.5 % of its width inside each side (the middle of each side: rounded corners) varies as much as its middle
    does. Where two such backs overlap on the table no outline tells them apart (:mod:`vision.fan`)."""
    g = cv2.cvtColor(np.ascontiguousarray(picture[..., :3]), cv2.COLOR_RGB2GRAY).astype(np.float32)
    h, w = g.shape
    b0, b1 = max(1, int(0.005 * w)), max(2, int(0.025 * w))
    ys, xs = slice(int(0.2 * h), int(0.8 * h)), slice(int(0.2 * w), int(0.8 * w))
    band = np.concatenate([g[ys, b0:b1].ravel(), g[ys, w - b1:w - b0].ravel(), g[b0:b1, xs].ravel(),
                           g[h - b1:h - b0, xs].ravel()])
    middle = g[int(0.15 * h):int(0.85 * h), int(0.15 * w):int(0.85 * w)]
    return bool(middle.std() > 1.0 and band.std() >= EDGE_PATTERN * middle.std())


def _flat_face(img: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """An RGB(A) card picture as a BGR float32 face ``size`` (w, h) px; transparent corners grey."""
    rgb = img[..., :3].astype(np.float32)
    if img.shape[2] == 4:
        a = img[..., 3:4].astype(np.float32) / 255.0
        rgb = rgb * a + 128.0 * (1.0 - a)
    if rgb.shape[1] > rgb.shape[0]:  # a picture taken sideways
        rgb = np.rot90(rgb)
    return np.ascontiguousarray(cv2.resize(rgb, size, interpolation=cv2.INTER_AREA)[..., ::-1])


def _vertex(before: float, peak: float, after: float) -> float:
    """Where (in steps from the middle one, -0.5..0.5) the parabola through three equally spaced values peaks."""
    curve = before - 2.0 * peak + after
    return float(np.clip(0.5 * (before - after) / curve, -0.5, 0.5)) if curve < 0 else 0.0


def _unit_rows(rows: np.ndarray) -> np.ndarray:
    """Each row less its mean, scaled to length 1 (a flat row stays 0): the dot product of two such rows is their
    normalised cross-correlation, ``cv2.matchTemplate``'s ``TM_CCOEFF_NORMED`` at one place."""
    rows = rows - rows.mean(1, keepdims=True)
    norm = np.linalg.norm(rows, axis=1, keepdims=True)
    return np.divide(rows, norm, out=np.zeros_like(rows), where=norm > 1e-3)


class _Spectra:
    """The colour pictures' spectra (``cv2.dft``, per channel, less their means) for views of one size: each
    view's spectrum is taken once for all the pictures compared with it, and each picture's once for the game. As
    ``cv2.matchTemplate(view, picture, TM_CCOEFF_NORMED)`` on each picture (within ~1e-6), which took the DFT of
    both every call: the full-resolution comparisons were half of every read."""

    def __init__(self, pictures: list[np.ndarray], view: tuple[int, int]) -> None:
        self.size = (cv2.getOptimalDFTSize(view[0]), cv2.getOptimalDFTSize(view[1]))
        self.tpl = pictures[0].shape[:2]
        self.pictures = pictures
        self._spectra: dict[int, tuple[list[np.ndarray], float]] = {}

    def _of(self, img: np.ndarray) -> np.ndarray:
        padded = np.zeros(self.size, np.float32)
        padded[:img.shape[0], :img.shape[1]] = img
        return cv2.dft(padded)

    def picture(self, j: int) -> tuple[list[np.ndarray], float]:
        """Picture ``j``'s channels' spectra (less each channel's mean) and its norm."""
        if j not in self._spectra:
            t = self.pictures[j].astype(np.float64)
            t = t - t.mean(axis=(0, 1))
            self._spectra[j] = ([self._of(t[..., c]) for c in range(t.shape[2])], float(np.sqrt((t * t).sum())))
        return self._spectra[j]

    def match(self, view: np.ndarray, pictures: list[int]) -> list[np.ndarray]:
        """The score of each of ``pictures`` at every place it fits in ``view`` (rows x columns)."""
        h, w = self.tpl
        out_hw = (view.shape[0] - h + 1, view.shape[1] - w + 1)
        chans = [self._of(view[..., c]) for c in range(view.shape[2])]
        s1, s2 = cv2.integral2(view.astype(np.float64), sdepth=cv2.CV_64F, sqdepth=cv2.CV_64F)

        def box(c: np.ndarray) -> np.ndarray:
            return (c[h:, w:] - c[:-h, w:] - c[h:, :-w] + c[:-h, :-w]).reshape(*out_hw, -1)

        b1, b2 = box(s1), box(s2)
        var = np.maximum((b2 - b1 * b1 / (h * w)).sum(-1), 0.0)
        flat = var <= np.minimum(0.5, 10 * np.finfo(np.float32).eps * b2.sum(-1))  # as OpenCV: no pattern there
        root = np.sqrt(var)
        maps = []
        for j in pictures:
            spectra, norm = self.picture(j)
            total = None
            for v, t in zip(chans, spectra, strict=True):
                m = cv2.mulSpectrums(v, t, 0, conjB=True)
                total = m if total is None else total + m
            num = cv2.dft(total, flags=cv2.DFT_INVERSE | cv2.DFT_SCALE | cv2.DFT_REAL_OUTPUT)[:out_hw[0], :out_hw[1]]
            score = np.divide(num, root * norm, out=np.zeros(out_hw), where=~flat)
            maps.append(np.clip(score, -1.0, 1.0))
        return maps


class DeckMatcher:
    """Scores of a face box against each card of a known deck (see the module doc).

    ``faces``: code -> RGB or RGBA picture (one per card; a code missing cannot be read by this matcher).
    ``image_to_mm``: the 3x3 homography from image pixels to the table in mm (``Layout.homography``)."""

    def __init__(self, faces: dict[str, np.ndarray], image_to_mm: np.ndarray, back: np.ndarray | None = None
                 ) -> None:
        #: the deck's back is printed to its edges (no plain margin): None where no picture of it was given
        self.back_to_edge = None if back is None else printed_to_edge(back)
        self.codes = tuple(c for c in FACES if c in faces)
        self._pictures = faces
        self._fine: dict[tuple[int, ...], np.ndarray] = {}  # (card, way up, w, h) -> face at the camera's resolution
        if not self.codes:
            raise ValueError("the deck has no card pictures")
        self.to_mm = np.asarray(image_to_mm, np.float64)
        self.to_image = np.linalg.inv(self.to_mm)
        self._face_ids = np.array([FACES.index(c) for c in self.codes])
        #: the cards the game is played with (None: all): only these are read. A deck's jokers come in its box and
        #: are photographed with it, but only Pai Jie plays them; they are still searched with the rest (the mean
        #: face the pose is searched with is the whole deck's: without the jokers' figures in it, two rendered Snap
        #: games' threes were found turned wrong and read 3S and 5S), but never the read (rendered Snap 2p s238
        #: 9.9 s: QC laid under a hand, read RJ at 0.40, a joker in a game of Snap)
        self.playing: frozenset[str] | None = None
        #: the last read (:meth:`scores`) named one of look-alikes of one colour by their shapes alone and no search
        #: before it, of the card lying as still, named it too. Which one such a read names may turn on where the card
        #: lies to a quarter of a pixel, and a card's first read is made as it settles (rendered Snap 2p s11 8.8 s: KC
        #: read KS as it landed, and KS from the memory for the seconds it lay there, though every fresh look read
        #: KC): it stands for the card (:meth:`_still_there`) only once a second search at a later look names it too,
        #: and whoever remembers reads should not keep it either (27 rendered Snap and Slapjack games: cards right
        #: 508 -> 511 of 528, verdicts unchanged)
        self.unsure = False
        #: whether such a read waits to be read so twice (see :attr:`unsure`; the table's watcher says, per game)
        self.read_twice = True
        self._recent: deque[_Kept] = deque()  # the latest reads
        self._failed: deque = deque(maxlen=FAILED_KEPT)  # (box middle mm, the grey view searched, scores) of the
        # latest searches that found no card
        w, h = (int(round(v * PX_PER_MM)) for v in CARD_MM)
        full = [_flat_face(faces[c], (w, h)) for c in self.codes]
        self.full = full + [np.ascontiguousarray(f[::-1, ::-1]) for f in full]  # a half turn each
        half = (int(round(w * COARSE_SCALE)), int(round(h * COARSE_SCALE)))
        # the coarse searches compare grey pictures at half resolution (a sixth of the cost); colour is for the end
        self.half = np.stack([cv2.cvtColor(cv2.resize(f, half, interpolation=cv2.INTER_AREA), cv2.COLOR_BGR2GRAY)
                              for f in self.full])
        # every window of a view against every grey picture is one product of two matrices (a hundred small
        # matchTemplate calls were a third of a Spit audit)
        # (in float32, as the views are: a float64 product took twice as long, to no better ranking)
        self._half_rows = _unit_rows(self.half.reshape(len(self.half), -1).astype(np.float32))
        #: the back's grey half-resolution picture, both ways up, as :attr:`_half_rows` (:data:`BACK_LIKE`)
        self._back_rows: np.ndarray | None = None
        if back is not None:
            flat_back = _flat_face(back, (w, h))
            self._back_rows = _unit_rows(np.stack([
                cv2.cvtColor(cv2.resize(f, half, interpolation=cv2.INTER_AREA), cv2.COLOR_BGR2GRAY)
                for f in (flat_back, np.ascontiguousarray(flat_back[::-1, ::-1]))]).reshape(2, -1).astype(np.float32))
        self._grids: dict[tuple, np.ndarray] = {}
        self._spectra: dict[tuple[int, ...], _Spectra] = {}
        # the pose is found with the deck's mean face inside a dark rim: a card is lighter than most tables, and its
        # outline is what fixes its angle when its face has little on it (a two's two pips)
        mean = self.half[: len(self.codes)].mean(0)
        rim = int(round(POSE_RIM_MM * half[0] / CARD_MM[0]))
        self.mean_half = np.ascontiguousarray(cv2.copyMakeBorder(mean, rim, rim, rim, rim, cv2.BORDER_CONSTANT,
                                                                 value=float(mean.mean()) * POSE_RIM_SHADE))

    @classmethod
    def from_folder(cls, folder: str | Path, image_to_mm: np.ndarray, codes: Collection[str] | None = None
                    ) -> DeckMatcher:
        """The pictures in ``folder``; ``codes``: the cards the game is played with, the only ones read
        (:attr:`playing`)."""
        from models.scenes import load_face_folder

        path = Path(folder)
        if not path.is_dir():
            raise FileNotFoundError(f"deck={folder}: not a folder of card pictures")
        found = load_face_folder(path)
        if not found:
            raise ValueError(f"deck={folder}: no card pictures named like 10C.png or 10_of_clubs.png")
        matcher = cls({c: v[0] for c, v in found.items()}, image_to_mm, found.get("back", [None])[0])
        if codes is not None:
            matcher.playing = frozenset(codes)
        return matcher

    def _flat(self, frame: np.ndarray, origin: np.ndarray, centre_mm: np.ndarray, angle_deg: float,
              half_mm: tuple[float, float], px_per_mm: float) -> np.ndarray:
        """The table around ``centre_mm`` turned by ``angle_deg``, flat, ``2 * half_mm`` wide, as float32.
        ``frame`` may be a crop of the camera's frame whose top-left corner is at ``origin``."""
        a = math.radians(angle_deg)
        rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        corners = (_UNIT * half_mm) @ rot.T + centre_mm
        p = np.c_[corners, np.ones(4)] @ self.to_image.T
        quad = (p[:, :2] / p[:, 2:3] - origin).astype(np.float32)
        w, h = int(round(2 * half_mm[0] * px_per_mm)), int(round(2 * half_mm[1] * px_per_mm))
        dst = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
        m = cv2.getPerspectiveTransform(quad, dst)
        return cv2.warpPerspective(frame, m, (w, h), flags=cv2.INTER_LINEAR,
                                   borderMode=cv2.BORDER_REPLICATE).astype(np.float32)

    def _flats(self, frame: np.ndarray, origin: np.ndarray, centre_mm: np.ndarray, angles: np.ndarray,
               half_mm: tuple[float, float], px_per_mm: float) -> np.ndarray:
        """:meth:`_flat` at each of ``angles`` (degrees), all in one ``cv2.remap``: (angles, h, w, channels)
        float32. The pose search turns the table 30 ways; one call each cost more than the comparisons."""
        w, h = int(round(2 * half_mm[0] * px_per_mm)), int(round(2 * half_mm[1] * px_per_mm))
        key = (tuple(float(a) for a in angles), half_mm, px_per_mm)
        if key not in self._grids:  # each output pixel's place on the table around the centre, in mm, per angle
            u, v = np.meshgrid(-half_mm[0] + np.arange(w) * (2 * half_mm[0] / w),
                               -half_mm[1] + np.arange(h) * (2 * half_mm[1] / h))
            a = np.radians(np.asarray(angles, np.float64))[:, None, None]
            mm = np.stack([u * np.cos(a) - v * np.sin(a), u * np.sin(a) + v * np.cos(a)], -1)
            self._grids[key] = mm @ self.to_image[:, :2].T  # (the homography is linear in them: the centre's part
            # is added for each read)
        p = self._grids[key] + (self.to_image[:, :2] @ centre_mm + self.to_image[:, 2])
        maps = (p[..., :2] / p[..., 2:3] - origin).reshape(-1, w, 2).astype(np.float32)
        flat = cv2.remap(frame, maps, None, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        return flat.reshape(len(angles), h, w, -1).astype(np.float32)

    def _box_centre(self, box: Any, origin: np.ndarray) -> np.ndarray:
        """Table mm of the middle of ``box`` (pixels of a frame whose top-left corner is at ``origin``)."""
        x0, y0, x1, y1 = (float(v) for v in box)
        p = np.c_[[[x0, y0], [x1, y0], [x1, y1], [x0, y1]] + origin, np.ones(4)] @ self.to_mm.T
        return (p[:, :2] / p[:, 2:3]).mean(0)

    def _angles(self, frame: np.ndarray, origin: np.ndarray, centre: np.ndarray) -> list[float]:
        """The angles (degrees) at which the table around ``centre`` (mm) looks most like the deck's mean face: the
        :data:`ANGLE_PEAKS` highest peaks, best first, each between its step's neighbours where a parabola through
        the three is highest. A card's few pips fit only near its own angle: rendered Spit 2p s6 5.1 s, its faces
        shrunk from the deck's pictures (as a camera sees a print, not drawn anew at the size filmed), a 2D at 171
        degrees fits its picture 0.63 there at half resolution, 0.31 at the step's 174, under a joker's 0.38 at the
        other peak, and went unread (the mean face: 0.71 at 168, 0.73 at 174, 0.50 at 180: vertex 171.6)."""
        half = (CARD_MM[0] / 2 + SEARCH_MM, CARD_MM[1] / 2 + SEARCH_MM)
        px = self.half.shape[2] / CARD_MM[0]
        angles = np.arange(0.0, 180.0, COARSE_STEP_DEG)
        flats = self._flats(frame, origin, centre, angles, half, px)
        n, h, w = flats.shape[:3]
        grey = cv2.cvtColor(flats.reshape(n * h, w, -1), cv2.COLOR_BGR2GRAY).reshape(n, h, w)
        scores = np.array([float(cv2.matchTemplate(g, self.mean_half, cv2.TM_CCOEFF_NORMED).max()) for g in grey])
        peaks = [k for k in range(n) if scores[k] >= scores[k - 1] and scores[k] >= scores[(k + 1) % n]]
        peaks.sort(key=lambda k: -scores[k])
        return [float(angles[k]) + _vertex(scores[k - 1], scores[k], scores[(k + 1) % n]) * COARSE_STEP_DEG
                for k in peaks[:ANGLE_PEAKS]]

    def card_width_px(self, box: Any, origin: tuple[float, float] = (0.0, 0.0)) -> float:
        """How many of the camera's pixels a card's short side (:data:`CARD_MM`) spans where ``box`` lies (pixels of a
        frame whose top-left corner is at ``origin``): the scale that says whether a box can hold a whole card."""
        return CARD_MM[0] * self._px_per_mm(self._box_centre(box, np.asarray(origin, np.float64)))

    def _px_per_mm(self, centre: np.ndarray) -> float:
        """The camera's pixels per mm of table around ``centre`` (mm): the square root of the area a square mm
        covers in the picture, through the homography."""
        return local_scale(self.to_image, centre)

    def _native_px(self, centre: np.ndarray) -> float:
        """The camera's pixels per mm of table around ``centre`` (mm), within :data:`FINE_PX_PER_MM`."""
        return float(np.clip(self._px_per_mm(centre), *FINE_PX_PER_MM))

    def _fine_picture(self, k: int, flip: bool, px: float) -> np.ndarray:
        w, h = (int(round(v * px)) for v in CARD_MM)
        key = (k, int(flip), w, h)
        if key not in self._fine:
            face = _flat_face(self._pictures[self.codes[k]], (w, h))
            self._fine[key] = np.ascontiguousarray(face[::-1, ::-1]) if flip else face
        return self._fine[key]

    def _fine_look(self, frame: np.ndarray, origin: np.ndarray, pose: tuple[float, np.ndarray], close: list[int],
                   flip: bool, shows: np.ndarray | None = None
                   ) -> tuple[list[np.ndarray], np.ndarray, np.ndarray | None]:
        """The look-alikes' pictures at the camera's resolution and the card there, aligned on the first of them
        (the best match): at each of :data:`FINE_TURNS` about the pose, where that picture fits best within
        :data:`FINE_SLACK_MM`; on the part that ``shows`` (a mask at the search's resolution) when given, which is
        returned at the camera's resolution too."""
        angle, centre = pose
        px = self._native_px(centre)
        pics = [self._fine_picture(k, flip, px) for k in close]
        h, w = pics[0].shape[:2]
        part = None if shows is None else cv2.resize(shows.astype(np.uint8), (w, h),
                                                     interpolation=cv2.INTER_NEAREST).astype(bool)
        mask = None if part is None else np.repeat(part.astype(np.float32)[..., None], 3, axis=2)
        half = (CARD_MM[0] / 2 + FINE_SLACK_MM, CARD_MM[1] / 2 + FINE_SLACK_MM)
        found = (-2.0, np.zeros(0), (0, 0))
        for d in FINE_TURNS:
            view = self._flat(frame, origin, centre, angle + d, half, px)
            res = cv2.matchTemplate(view, pics[0], cv2.TM_CCOEFF_NORMED, mask=mask)
            res[~np.isfinite(res)] = -2.0
            _, m, _, loc = cv2.minMaxLoc(res)
            if m > found[0]:
                found = (m, view, loc)
        _, view, (lx, ly) = found
        return pics, view[ly:ly + h, lx:lx + w], part

    def _tell_apart(self, best: np.ndarray, at: dict[int, tuple[int, np.ndarray, tuple[int, int]]],
                    shows: np.ndarray | None = None,
                    fine: tuple[np.ndarray, np.ndarray, dict[int, tuple[float, np.ndarray]]] | None = None) -> bool:
        """Cards matching within :data:`CLOSE` of the best look alike as a whole (courts of one colour in many
        designs differ only in a suit sign and an index): they are compared again on the pixels where their
        pictures differ, on the best card's view, and ordered by that. ``shows``: the part of the card that shows (a
        strip of a fan, :meth:`read_posed`): compared there by their ink's colour, and those of one colour by their
        shapes at the camera's resolution only (on a strip's few differing pixels at the search's, one look-alike's
        shapes against another's told nothing: the reveals of 9 rendered Cheat games were read right 25 of 31 times
        so, 29 by colour only or not at all). ``fine``: the frame, its crop's corner and each card's pose, to compare
        the look-alikes at the camera's resolution (:data:`FINE_PX_PER_MM`): a whole card's shapes there and at the
        search's resolution summed, a strip's there alone (9 held-out rendered Cheat games' batches, reveals and
        take-backs right 118 -> 119 of 145)."""
        n = len(self.codes)
        k0 = int(best.argmax())
        close = [int(k) for k in np.flatnonzero(best >= best[k0] - CLOSE)]
        if len(close) < 2:
            return False
        j0, win, (lx, ly) = at[k0]
        flip = j0 >= n
        close.sort(key=lambda k: k != k0)  # the best first: the fine look is aligned on it
        pics = [self.full[k + n if flip else k] for k in close]
        patch = win[ly:ly + pics[0].shape[0], lx:lx + pics[0].shape[1]]
        differ = self._differ(pics, shows)
        if differ is None:
            return False
        # the suit colour at the search's resolution (its thresholds were measured there), and then, in each colour,
        # the shapes where the pictures differ, at the camera's too (FINE_PX_PER_MM) when the whole card is seen
        colour = self._ink_colour(patch[differ], [p[differ] for p in pics], [self.codes[k] for k in close])
        if shows is not None:  # a strip: by colour; of one colour, by its shapes at the camera's resolution
            there: list[float] | None = [float(best[k]) for k in close]
            if len(set(colour)) < 2:
                there = None if fine is None else self._fine_there(fine, k0, close, flip, shows)
                if there is None:
                    return False
        else:
            there = _correlations(patch[differ], [p[differ] for p in pics])
            seen = None if fine is None else self._fine_there(fine, k0, close, flip, None)
            if seen is not None:
                there = [a + FINE_WEIGHT * b for a, b in zip(there, seen, strict=True)]
        top = float(best[k0])
        order = sorted(range(len(close)), key=lambda i: (colour[i], there[i]), reverse=True)
        for rank, i in enumerate(order):
            best[close[i]] = top - rank * 1e-3  # the order where they differ; the score stays the whole face's
        return sum(colour[i] == colour[order[0]] for i in order) > 1

    def _fine_there(self, fine: tuple[np.ndarray, np.ndarray, dict[int, tuple[float, np.ndarray]]], k0: int,
                    close: list[int], flip: bool, shows: np.ndarray | None) -> list[float] | None:
        """How well each look-alike in ``close`` fits the card at the camera's resolution (:meth:`_fine_look`, on
        the part that ``shows``), where their pictures differ; None where they differ in too few pixels."""
        frame, origin, posed = fine
        pics, patch, part = self._fine_look(frame, origin, posed[k0], close, flip, shows)
        differ = self._differ(pics, part)
        return None if differ is None else _correlations(patch[differ], [p[differ] for p in pics])

    @staticmethod
    def _differ(pics: list[np.ndarray], shows: np.ndarray | None) -> np.ndarray | None:
        """Where any of ``pics`` differs from the first (:data:`DIFFER_GREY`, a pixel around), within ``shows``;
        None where that is under 8 pixels."""
        grey = [p.mean(2) for p in pics]
        differ = np.zeros(grey[0].shape, bool)
        for g in grey[1:]:
            differ |= np.abs(g - grey[0]) > DIFFER_GREY
        differ = cv2.dilate(differ.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)
        if shows is not None:
            differ &= shows
        return differ if differ.sum() >= 8 else None

    @staticmethod
    def _ink_colour(patch: np.ndarray, pics: list[np.ndarray], codes: list[str]) -> list[int]:
        """Whether each look-alike's suit colour is the card's (1), is not (0), or cannot be told (0 for all): a
        red pip card's ink is red where its picture's is, a black one's is not red anywhere. Matched channel by
        channel (each normalised), a red ten of diamonds blurred by a webcam looks like the black ten of spades:
        in the green and blue channels its pips are as dark, and in the red one they still darken the paper
        (rendered Spit s12: 10D matched 10S 0.871, 10D 0.870). ``patch``, ``pics``: BGR pixels where they differ."""
        red = [c[-1] in "HD" for c in codes]
        if all(red) or not any(red) or any(c in ("RJ", "BJ") for c in codes):
            return [0] * len(codes)

        def redness(px: np.ndarray) -> np.ndarray:
            return px[:, 2].astype(np.float32) - px[:, :2].astype(np.float32).mean(1)

        spread = min(float(redness(p).std()) for p, r in zip(pics, red, strict=True) if r)

        def colour_of(px: np.ndarray) -> list[int]:
            seen = redness(px) - float(redness(px).mean())
            if float(seen.std()) < INKLESS_SPREAD * spread:
                return [int(not r) for r in red]
            fits = []
            for p, r in zip(pics, red, strict=True):
                if not r:
                    continue
                want = redness(p) - float(redness(p).mean())
                fits.append(float((seen * want).sum() / (np.linalg.norm(seen) * np.linalg.norm(want) + 1e-6)))
            if max(fits) >= RED_FIT:
                return [int(r) for r in red]
            if max(fits) < BLACK_FIT:
                return [int(not r) for r in red]
            return [0] * len(codes)

        if any(c[:-1] in ("J", "Q", "K") for c in codes) and any(
                colour_of(p) != [int(r == own) for r in red] for p, own in zip(pics, red, strict=True)):
            # a court's figure is drawn in red and black whatever its suit in many designs: there the pictures
            # themselves are not told apart by their red ink, and neither is the card (in a design whose courts'
            # letters are inked in their suit's colour they are: rendered Spit s12's JD read JS three times)
            return [0] * len(codes)
        return colour_of(patch)

    def _centre_of(self, centre: np.ndarray, angle: float, loc: tuple[int, int], half_mm: tuple[float, float],
                   px: float, tpl_hw: tuple[int, int]) -> np.ndarray:
        """Table mm of the centre of a template found at ``loc`` (its top-left, px) in a flat view made by
        :meth:`_flat` around ``centre`` turned by ``angle``."""
        dx = (loc[0] + tpl_hw[1] / 2) / px - half_mm[0]
        dy = (loc[1] + tpl_hw[0] / 2) / px - half_mm[1]
        a = math.radians(angle)
        return centre + np.array([dx * math.cos(a) - dy * math.sin(a), dx * math.sin(a) + dy * math.cos(a)])

    def scores(self, frame: np.ndarray, box: Any, origin: tuple[float, float] = (0.0, 0.0),
               expected: Collection[str] = (), hidden: np.ndarray | None = None, want: str | None = None
               ) -> np.ndarray:
        """The best match (-1..1) of each of :data:`models.classes.FACES` with the card in ``box`` (x0 y0 x1 y1,
        pixels of ``frame``, a crop whose top-left corner is at ``origin`` in the camera's frame); -1 for cards the
        deck has no picture of, and for those not compared in full (all but the :data:`REFINE_TOP` best at half
        resolution, any within :data:`REFINE_CLOSE` of the best there, and the :data:`EXPECTED_TOP` best of the
        ``expected`` codes near them: the cards the table says may lie there, compared in colour though grey at half
        resolution ranked them a little lower). A read kept stands again for the card lying as still, but one
        :attr:`unsure` of look-alikes only once read so twice. ``hidden``:
        boxes (pixels of ``frame``) of cards lying over part of this one, left out (:func:`_hide`); such a read is
        not kept to stand again (:meth:`_still_there`), nor taken from one kept: the card is seen in part. ``want``:
        the caller asks only whether this card is read there (:meth:`_search`)."""
        self.unsure = False
        corner = np.asarray(origin, np.float64)
        centre = self._box_centre(box, corner)
        if hidden is not None and len(hidden):
            shown = self._search(_hide(frame, box, hidden), corner, centre, box, expected, keep=False)
            top, second = np.sort(shown)[::-1][:2] if len(shown) > 1 else (shown.max(), -1.0)
            if top >= HIDDEN_MATCH and top - second > CLOSE:
                self.unsure = False  # (the deck keeps no read of a part; the reader's memory may, as before)
                return self._as_faces(shown)
        kept = self._still_there(frame, corner, centre, _box_area(box))
        if kept is not None and kept.sure:
            return self._as_faces(kept.scores)
        found = self._search(frame, corner, centre, box, expected, want=want)
        if kept is not None and self.unsure and int(found.argmax()) == int(kept.scores.argmax()) \
                and self._recent and self._recent[-1].scores is found:
            self._recent[-1] = self._recent[-1]._replace(sure=True)  # read so twice: it stands
            self.unsure = False
        return self._as_faces(found)

    def _search(self, frame: np.ndarray, corner: np.ndarray, centre: np.ndarray, box: Any,
                expected: Collection[str], keep: bool = True, want: str | None = None) -> np.ndarray:
        """The matches (-1..1, per card of the deck) found by searching around ``centre`` (mm); ``keep``: the read
        (or the failure) is kept to stand again while the table there stays as it was. ``want``: only whether this
        card is read matters; where the half-resolution comparison leaves it out of those compared in colour (it
        cannot be read), none is (no read, none kept): a Pai Jie row's card under later ones is asked about at every
        look (``vision.watcher.TableWatcher._still_lies``). The answer is the full search's, but a read of another card
        there that it would have kept to stand again for a later box is not kept (asked so for the ranks missing in a
        row's gap, ``_row_gaps``, later reads there differed: rendered Pai Jie 3p s7's 6D went unread)."""
        n = len(self.codes)
        px = self.half.shape[2] / CARD_MM[0]
        half = (CARD_MM[0] / 2 + SEARCH_MM, CARD_MM[1] / 2 + SEARCH_MM)
        failed = self._failed_there(frame, corner, centre, half, px) if keep else None
        if failed is not None:
            return failed
        angle, coarse, back_fit = 0.0, np.zeros(0), -1.0
        tried: list[tuple[float, np.ndarray]] = []
        for a in self._angles(frame, corner, centre):  # the peak where some card fits best, at half resolution
            win = cv2.cvtColor(self._flat(frame, corner, centre, a, half, px), cv2.COLOR_BGR2GRAY)
            places = _unit_rows(sliding_window_view(win, self.half.shape[1:]).reshape(-1, self.half[0].size))
            fits = (places @ self._half_rows.T).max(0)
            tried.append((a, fits))
            if not len(coarse) or fits.max() > coarse.max():
                angle, coarse = a, fits
                back_fit = float((places @ self._back_rows.T).max()) if self._back_rows is not None else -1.0
        best = np.full(n, -1.0)
        if back_fit > float(coarse.max()) + BACK_LIKE:  # a card back: no face to read (and none in colour to compare)
            # (as a failed search that told look-alikes apart: the reader does not keep it, but asks again at its next
            # look, which the failure kept here answers while the table there is unchanged)
            self.unsure = self.read_twice
            if keep:
                self._failed.append((centre, self._flat(frame, corner, centre, 0.0, half, px), best.copy()))
            return best
        per_card = np.maximum(coarse[:n], coarse[n:])
        at: dict[int, tuple[int, np.ndarray, tuple[int, int]]] = {}  # card -> (way up, its view, where it fits)
        posed: dict[int, tuple[float, np.ndarray]] = {}  # card -> (angle, centre mm) where it fits best
        ranked = np.argsort(-per_card)
        top = list(ranked[:REFINE_TOP])
        hoped = [k for k in ranked[REFINE_TOP:] if self.codes[k] in expected
                 and per_card[k] >= per_card[top[0]] - EXPECTED_COARSE]
        top += hoped[:EXPECTED_TOP]
        # another peak about as good at half resolution: its best cards compared in colour there too (see ANGLE_CLOSE)
        peaks = [(a, np.argsort(-np.maximum(fits[:n], fits[n:]))[:REFINE_TOP]) for a, fits in tried
                 if a != angle and fits.max() >= coarse.max() - ANGLE_CLOSE]
        # the other cards about as close at half resolution, compared the way up and at the turn the best one fits
        more = [int(k) for k in ranked[REFINE_TOP:REFINE_MOST]
                if per_card[k] >= per_card[ranked[0]] - REFINE_CLOSE and k not in top]
        # only these can be read (every other card's match stays -1; _tell_apart orders only cards about as good as
        # the best): asked about another, none is compared in colour
        compared = {int(k) for k in top} | {int(k) for _, there in peaks for k in there} | set(more)
        if want is not None and (self.codes.index(want) if want in self.codes else -1) not in compared:
            self.unsure = False
            return best
        ways = [(int(k), j) for k in top for j in (k, k + n)]
        for d in REFINE_TURNS:
            win = self._flat(frame, corner, centre, angle + d, half, PX_PER_MM)
            self._refine(win, ways, angle + d, centre, half, best, at, posed)
        for a, there in peaks:
            for d in REFINE_TURNS:
                win = self._flat(frame, corner, centre, a + d, half, PX_PER_MM)
                self._refine(win, [(int(k), j) for k in there for j in (k, k + n)], a + d, centre, half, best, at,
                             posed)
        k0 = int(best.argmax())
        if more and k0 in at:
            j0, win0, _ = at[k0]
            self._refine(win0, [(k, k + n if j0 >= n else k) for k in more], posed[k0][0], centre, half, best, at,
                         posed)
        self.unsure = self._tell_apart(best, at, fine=(frame, corner, posed)) and self.read_twice
        k0 = int(best.argmax())
        # a failed read is not kept: its pose may be wrong (a box on part of a card) while the table there stays as
        # it was, and a good box there would be told the failure
        if keep and k0 in at and best[k0] >= MIN_MATCH:
            angle0, centre0 = posed[k0]
            view = self._flat(frame, corner, centre0, angle0, (CARD_MM[0] / 2, CARD_MM[1] / 2), PX_PER_MM)
            best = best.copy()
            self._recent.append(_Kept(angle0, centre0, view, best, centre, _box_area(box), not self.unsure))
        elif keep and best[k0] < MIN_MATCH:
            self._failed.append((centre, self._flat(frame, corner, centre, 0.0, half, px), best.copy()))
        while len(self._recent) > RECENT:
            self._recent.popleft()
        return best

    def _refine(self, win: np.ndarray, ways: list[tuple[int, int]], angle: float, centre: np.ndarray,
                half: tuple[float, float], best: np.ndarray, at: dict[int, tuple[int, np.ndarray, tuple[int, int]]],
                posed: dict[int, tuple[float, np.ndarray]]) -> None:
        """Each (card, picture) of ``ways`` compared in colour at full resolution with the view ``win`` (the table
        turned ``angle`` about ``centre``): ``best``, ``at`` and ``posed`` raised where it fits better."""
        spectra = self._spectra.setdefault(win.shape[:2], _Spectra(self.full, win.shape[:2]))
        for (k, j), score in zip(ways, spectra.match(win, [j for _, j in ways]), strict=True):
            y, x = np.unravel_index(int(score.argmax()), score.shape)
            m, loc = float(score[y, x]), (int(x), int(y))
            if m > best[k]:
                best[k], at[k] = m, (j, win, loc)
                posed[k] = (angle, self._centre_of(centre, angle, loc, half, PX_PER_MM, self.full[j].shape[:2]))

    def read_posed(self, frame: np.ndarray, poses: list[tuple[tuple[float, float], float]],
                   origin: tuple[float, float] = (0.0, 0.0)) -> list[np.ndarray]:
        """Scores (as :meth:`scores`) of each card of a fan whose poses are known, top first: (centre mm, angle
        degrees), from :func:`vision.fan.fit_cards`. Each card is compared on the part of it that shows (outside
        the cards above it, :data:`POSED_HIDES_MM` around them too), :data:`POSED_SLACK_MM` and half a coarse step
        around its pose: a Cheat batch turned up shows one card whole and a strip of each of the others, too
        little of them for a box's search to find."""
        corner = np.asarray(origin, np.float64)
        out = []
        n = len(self.codes)
        h, w = self.full[0].shape[:2]
        half = (CARD_MM[0] / 2 + POSED_SLACK_MM, CARD_MM[1] / 2 + POSED_SLACK_MM)
        for k, (xy, angle) in enumerate(poses):
            centre = np.asarray(xy, np.float64)
            best = np.full(n, -1.0)
            at: dict[int, tuple[int, np.ndarray, tuple[int, int]]] = {}
            shows: dict[int, np.ndarray] = {}
            posed: dict[int, tuple[float, np.ndarray]] = {}
            for d in REFINE_TURNS:
                win = self._flat(frame, corner, centre, angle + d, half, PX_PER_MM)
                mask = self._shows(centre, angle + d, poses[:k], (w, h))
                if mask.mean() < 0.1:
                    break
                for j in range(2 * n):
                    res = cv2.matchTemplate(win, self.full[j], cv2.TM_CCOEFF_NORMED, mask=mask)
                    m = float(res.max())
                    if np.isfinite(m) and m > best[j % n]:
                        loc = cv2.minMaxLoc(res)[3]
                        best[j % n], at[j % n], shows[j % n] = m, (j, win, loc), mask
                        posed[j % n] = (angle + d, self._centre_of(centre, angle + d, loc, half, PX_PER_MM, (h, w)))
            if at:
                self._tell_apart(best, at, shows[int(best.argmax())][..., 0] > 0.5, fine=(frame, corner, posed))
            out.append(self._as_faces(best))
        return out

    @staticmethod
    def _shows(centre: np.ndarray, angle: float, above: list[tuple[tuple[float, float], float]],
               size: tuple[int, int]) -> np.ndarray:
        """The mask (float32, 3 channels, ``size`` w x h) of a card at ``centre``/``angle`` that the cards
        ``above`` leave showing."""
        w, h = size
        ys, xs = np.mgrid[0:h, 0:w].astype(np.float64)
        local = np.stack([(xs + 0.5) / PX_PER_MM - CARD_MM[0] / 2, (ys + 0.5) / PX_PER_MM - CARD_MM[1] / 2], -1)
        a = math.radians(angle)
        rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        mm = local @ rot.T + centre
        shows = np.ones((h, w), bool)
        for c, ang in above:
            b = math.radians(ang)
            u = (mm - np.asarray(c)) @ np.array([[math.cos(b), -math.sin(b)], [math.sin(b), math.cos(b)]])
            shows &= ~((np.abs(u[..., 0]) < CARD_MM[0] / 2 + POSED_HIDES_MM)
                       & (np.abs(u[..., 1]) < CARD_MM[1] / 2 + POSED_HIDES_MM))
        return np.repeat(shows.astype(np.float32)[..., None], 3, axis=2)

    def _as_faces(self, best: np.ndarray) -> np.ndarray:
        out = np.full(len(FACES), -1.0)
        out[self._face_ids] = best
        if self.playing is not None:
            out[[k for k, c in enumerate(FACES) if c not in self.playing]] = -1.0
        return out

    def _still_there(self, frame: np.ndarray, origin: np.ndarray, centre: np.ndarray, area: float
                     ) -> _Kept | None:
        """The scores of a card read before near ``centre`` if it still lies there untouched: the table at its pose,
        turned flat, differs from then by at most :data:`STILL_GREY` on average (codec noise; another card laid
        there, or a hand over it, differs more). Most reads are of cards lying still while hands pass by or the
        detector's box moves a little: looking at one pose costs a hundredth of finding it. A weak read stands only
        for a box about where its own was (:data:`KEEP_MATCH`) and while the card there is stiller
        (:data:`WEAK_STILL_GREY`), and none for a box much larger than its own (:data:`GROWN_BOX`)."""
        near = sorted((float(np.hypot(*(r.centre - centre))), i) for i, r in enumerate(self._recent))
        for dist, i in near[:3]:
            if dist > STILL_MM:
                break
            r = self._recent[i]
            if area > GROWN_BOX * r.asked_area:
                continue  # (see GROWN_BOX)
            weak = r.scores.max() < KEEP_MATCH
            if weak and float(np.hypot(*(r.asked - centre))) > WEAK_SAME_MM:
                continue  # a weak read stands for its own box only (:data:`KEEP_MATCH`)
            now = self._flat(frame, origin, r.centre, r.angle, (CARD_MM[0] / 2, CARD_MM[1] / 2), PX_PER_MM)
            if float(np.abs(now - r.view).mean()) <= (WEAK_STILL_GREY if weak else STILL_GREY):
                if not r.sure:  # (read once: searched again, see :attr:`unsure`)
                    del self._recent[i]
                return r
        return None


    def _failed_there(self, frame: np.ndarray, origin: np.ndarray, centre: np.ndarray, half: tuple[float, float],
                      px: float) -> np.ndarray | None:
        """The matches of a search that found no card, made for a box whose middle was near ``centre``
        (:data:`FAILED_SAME_MM`), if the table it looked at is unchanged (:data:`STILL_GREY`)."""
        for c, view, best in self._failed:
            if float(np.hypot(*(c - centre))) <= FAILED_SAME_MM:
                now = self._flat(frame, origin, c, 0.0, half, px)
                if float(np.abs(now - view).mean()) <= STILL_GREY:
                    return best
        return None


def _hide(frame: np.ndarray, box: Any, above: np.ndarray) -> np.ndarray:
    """A copy of ``frame`` where the boxes ``above`` (cards over part of the face in ``box``) are painted the median
    colour of what shows of the face: compared with the deck's pictures, the card over it then counts for little
    (rendered Speed s238 0.9 s: 9D half under the next card carried face down read 9D 0.53 against 10D 0.46 with it,
    0.80 against 9S 0.71 without)."""
    h, w = frame.shape[:2]
    x0, y0, x1, y1 = (int(round(float(v))) for v in box)
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if x1 <= x0 or y1 <= y0:
        return frame
    covered = np.zeros((h, w), bool)
    for bx0, by0, bx1, by1 in above:
        covered[max(int(by0), 0):max(int(np.ceil(by1)), 0), max(int(bx0), 0):max(int(np.ceil(bx1)), 0)] = True
    shows = ~covered[y0:y1, x0:x1]
    if shows.sum() < 0.2 * shows.size:
        return frame
    out = frame.copy()
    out[covered] = np.median(frame[y0:y1, x0:x1][shows], axis=0).astype(frame.dtype)
    return out


def _correlations(seen: np.ndarray, pictures: list[np.ndarray]) -> list[float]:
    """The normalised correlation of the pixels ``seen`` (n x 3) with each picture's same pixels."""
    a = seen - seen.mean(0)
    a /= np.linalg.norm(a) + 1e-6
    out = []
    for p in pictures:
        b = p - p.mean(0)
        out.append(float((a * b).sum() / (np.linalg.norm(b) + 1e-6)))
    return out


def _box_area(box: Any) -> float:
    x0, y0, x1, y1 = (float(v) for v in box)
    return max(x1 - x0, 1.0) * max(y1 - y0, 1.0)


def deck_read(match: np.ndarray, expected: Collection[int] = (), elsewhere: Collection[int] = ()
              ) -> tuple[int, float]:
    """(class id in :data:`models.classes.FACES`, or -1 for no read; confidence) from the deck's matches (-1..1 per
    face, :meth:`DeckMatcher.scores`). A best match under :data:`MIN_MATCH` is no read. The confidence grows with
    the match: 0.5 at :data:`MIN_MATCH`, 0.9 from 0.7 on. ``expected``: cards the table says may be there (a Spit
    card played on a centre pile is a column's top): of those matching within :data:`CLOSE` of the best (look-alike
    courts, which their pictures barely tell apart at a webcam's resolution), the best is the read. ``elsewhere``:
    cards the table shows in another place, where a card stays once laid (one deck: a Snap pile's cards until it is
    taken): when the best is one of those, the best of the others within :data:`CLOSE` of it is the read (rendered
    Snap s238: 2C laid on C while 2S lay on A, its look-alike, read 2S: no snap).

    The card reader is not asked to settle close matches: on rendered Snap (seed 238, 129 landed cards, jittered
    true boxes) the deck alone read 114 right, the card reader 101, and the reader choosing among matches within
    :data:`CLOSE` of the best 105."""
    top = float(match.max())
    if top < MIN_MATCH:
        return -1, 0.0
    near = [k for k in expected if match[k] >= top - CLOSE]
    best = max(near, key=lambda k: float(match[k])) if near else int(match.argmax())
    if best in elsewhere:
        here = [k for k in np.flatnonzero(match >= top - CLOSE) if k not in elsewhere]
        best = max(here, key=lambda k: float(match[k])) if here else best
    return int(best), float(np.clip(0.5 + (top - MIN_MATCH) * (0.4 / 0.3), 0.5, 0.9))
