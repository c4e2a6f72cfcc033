"""Who laid a card: the seat whose arm is over the table between the card and that seat as the card lands.

Where a card can land anywhere along a zone (a Pai Jie suit row runs across the table), a fixed corridor per
zone (``vision.slaps``) misses the hand. Here the whole table is watched at quarter size against a background
that learns only what stays still for ``absorb_s`` (a hand never does; a card laid down does, after a while).
When a card is confirmed, for each player a strip is sampled from the card's near edge towards that player's
shoulder (``reach_mm`` long, ``width_mm`` wide); the hand that laid the card holds its near edge, its arm runs
back along that strip, so the player whose strip is most covered at the landing (a hand coming in sweeps across,
and counts against itself; the hand that laid the card draws back) laid it.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence

import cv2
import numpy as np

from calibration.layout import Layout
from vision.slaps import StillBackground, _px_per_mm

SCALE = 0.25
#: :meth:`ArmFinder.who`: an arm covering its strip (on average over the landing) is the only one over the table
#: there where every other player's strip is covered less than this
ALONE_BELOW = 0.1
#: ... and where less than this share of a player's strip lies inside the frame, that player's arm is out of view
IN_FRAME_MIN = 0.5


class ArmFinder:
    """Feed every frame to :meth:`update`; ask :meth:`who` for a card's box and landing time."""

    def __init__(self, layout: Layout, fps: float, absorb_s: float = 2.0, keep_s: float = 1.0,
                 reach_mm: float = 180.0, width_mm: float = 70.0, threshold: float = 28.0,
                 shoulder_mm: float = 400.0) -> None:
        self.layout, self.fps = layout, fps
        self.absorb_s = absorb_s  # (a card laid this long ago or less is not yet part of the background)
        self.reach_mm, self.width_mm = reach_mm, width_mm
        self.masks: deque = deque(maxlen=max(4, int(keep_s * fps)))  # (t, foreground mask at quarter size)
        self.background = StillBackground(max(2, int(round(absorb_s * fps))), 12, threshold)
        middle = np.mean([z.polygon.mean(0) for z in layout.zones.values()], axis=0)
        self.centre = middle
        self.ppm = _px_per_mm(layout, middle) or 1.0
        self.shoulders: dict[str, np.ndarray] = {}
        for p in layout.players:
            seat = layout.seats[p].reshape(-1, 2).mean(0)
            away = (seat - middle) / (np.linalg.norm(seat - middle) + 1e-9)
            self.shoulders[p] = seat + away * shoulder_mm * self.ppm

    def update(self, t: float, frame: np.ndarray, small: np.ndarray | None = None) -> None:
        """Learn from one frame (BGR). ``small``: the frame at quarter size if already made (the slap detector makes
        one per frame; resizing a 720p frame again cost a millisecond a frame)."""
        H, W = frame.shape[:2]
        if small is None or small.shape[:2] != (int(H * SCALE), int(W * SCALE)):
            small = cv2.resize(frame, (int(W * SCALE), int(H * SCALE)), interpolation=cv2.INTER_AREA)
        self.masks.append((t, self.background.update(small)[1]))

    def _strip(self, box: tuple[float, float, float, float], player: str) -> tuple[np.ndarray, np.ndarray]:
        c = np.array([(box[0] + box[2]) / 2, (box[1] + box[3]) / 2])
        u = self.shoulders[player] - c
        u = u / (np.linalg.norm(u) + 1e-9)
        n = np.array([-u[1], u[0]])
        half = 0.5 * float(np.hypot(box[2] - box[0], box[3] - box[1]))  # past the card's own edge
        along = np.linspace(half, half + self.reach_mm * self.ppm, 12)
        across = np.linspace(-self.width_mm / 2, self.width_mm / 2, 5) * self.ppm
        pts = c + along[:, None, None] * u + across[None, :, None] * n
        pts = (pts.reshape(-1, 2) * SCALE).round().astype(int)
        return pts[:, 0], pts[:, 1]

    def who(self, box: tuple[float, float, float, float], t0: float, t1: float, min_cover: float = 0.25,
            cards: Sequence[tuple[float, float, float, float]] = ()) -> str | None:
        """The player whose strip from ``box`` was most covered between ``t0`` and ``t1`` (frame times, each taken
        as the frame nearest it); None if none was, or two were about equally, unless one player's strip lies out of
        the frame (:data:`IN_FRAME_MIN`) and no arm in view came near the card: that player, unseen, laid it.
        ``cards``: boxes (frame pixels) of cards laid lately elsewhere, left out of the
        strips: a card laid a second ago is not yet part of the background, and still, it covers a strip as an arm
        at rest would (rendered Pai Jie 2p s12 3.9 s: A's 7S, the strip to B's seat across the joker B laid 1.4 s
        before, 0.60 at every look, against A's arm 0.58 -> 0.63: a tie, the card given to nobody)."""
        # (the window's ends are frame times give or take a rounding: a frame half a frame from an end is in it)
        slack = 0.5 / self.fps
        looks = [m for t, m in self.masks if t0 - slack <= t <= t1 + slack]
        if not looks:
            return None
        h, w = looks[0].shape
        best: list[tuple[float, str]] = []
        mean: dict[str, float] = {}
        peak: dict[str, float] = {}
        unseen: list[str] = []  # players whose strip lies mostly outside the frame
        for p in self.shoulders:
            xs, ys = self._strip(box, p)
            ok = (xs >= 0) & (xs < w) & (ys >= 0) & (ys < h)
            if ok.mean() < IN_FRAME_MIN:
                unseen.append(p)
            for x0, y0, x1, y1 in cards:  # (the strip's points on a card lately laid: see ``cards``)
                ok &= ~((xs >= x0 * SCALE) & (xs <= x1 * SCALE) & (ys >= y0 * SCALE) & (ys <= y1 * SCALE))
            if not ok.any():
                best.append((0.0, p))
                mean[p] = peak[p] = 0.0
                continue
            cover = [float(m[ys[ok], xs[ok]].mean()) for m in looks]
            mean[p], peak[p] = float(np.mean(cover)), max(cover)
            # an arm coming in after the card showed did not lay it: its rise counts against it; one going back did
            # (rendered Pai Jie 2p s238 2.33 s: B's arm drawing back from JS, 0.93 -> 0.24, lost to A's strip across
            # a card laid a moment before, 0.28 all along; said alike 40 -> 47 of 66 on four 2p and 4p games)
            best.append((mean[p] - max(0.0, cover[-1] - cover[0]), p))
        best.sort(reverse=True)
        # the only arm over the table there laid the card, going back or not: the sweep counts against an arm where
        # another may have laid it (rendered Pai Jie 3p s6 17.5 s: A's arm drawing back from QC, cover 0.61 -> 0.37,
        # others' at most 0.17; the card went unattributed and was taken for the next player's play)
        # (its cover at its most: an arm drawing back fast is over the strip for the first look or two only, rendered
        # Pai Jie 3p s7 17.5 s: A's arm from AC 0.34 -> 0.16, mean 0.22, the others' 0.06 and 0.02)
        alone = [p for p, c in peak.items() if c >= min_cover]
        if len(alone) == 1 and all(c < ALONE_BELOW for p, c in mean.items() if p != alone[0]):
            return alone[0]
        if best[0][0] < min_cover or (len(best) > 1 and best[1][0] >= best[0][0] - 0.05):
            # no arm in view laid it: the one player whose arm the camera cannot see there did, where every arm in
            # view stayed off its strip (rendered Pai Jie 2p s12 2.5 s: B's RJ on the jokers' place at the frame's
            # top edge, B's hand gone past the edge before the card was seen; A's strip 0.04 at most)
            if len(unseen) == 1 and all(c < ALONE_BELOW for p, c in peak.items() if p != unseen[0]):
                return unseen[0]
            return None
        return best[0][1]
