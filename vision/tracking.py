"""The visible top card of every pile, tracked over frames, and the ``card`` events it gives.

The detector runs on a crop of each pile's zone (:func:`zone_crop`), so a card is seen at the camera's full
resolution even when the whole frame would be shrunk to the model's input. It runs only when the crop has
changed since its last run, at most once per ``every`` frames, and every ``retry`` frames on a still table
(in case the last look missed).

Hysteresis: a card becomes the new top when the same code, never seen on this pile since it was last
cleared, is the best such detection in ``confirm`` of the last ``confirm + 1`` runs (one misread forgiven).
Its time is then traced back through the last frames kept in a ring: the first frame from which the card's
area looked as it does now. That is the time it *appeared* (EVENTS.md ``card``), within a frame, however long
the hysteresis took.

One deck: a code already confirmed on this pile cannot be its new top, so a buried card whose index peeks out
between two other cards does not come back as a new play. And a new top must have shown after the current one:
a second reading of the same card (5H, then 5D) is a misread, not a play. The pile's history is forgotten when
the pile is seen empty (it was taken).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

import cv2
import numpy as np

from calibration.layout import Zone
from models.detector import Detections

FACE_EXCLUDE = frozenset({"back", "hand"})


@dataclass(frozen=True)
class CardSeen:
    """A new top card: ``t`` when it first showed, ``t_confirmed`` when the tracker was sure."""

    t: float
    zone: str
    card: str
    conf: float
    frame: int
    box: tuple[float, float, float, float]  # frame pixels
    t_confirmed: float


def zone_crop(zone: Zone, frame_size: tuple[int, int], min_side: int = 320, margin: float = 0.25
              ) -> tuple[int, int, int, int]:
    """(x0, y0, x1, y1) of the crop the detector sees for ``zone``: its box plus ``margin``, at least
    ``min_side`` square (a small zone is not blown up past the camera's resolution), inside the frame."""
    W, H = frame_size
    x0, y0 = zone.polygon.min(0)
    x1, y1 = zone.polygon.max(0)
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    side = max(min_side, (x1 - x0) * (1 + 2 * margin), (y1 - y0) * (1 + 2 * margin))
    side = min(side, W, H)
    ax = int(round(np.clip(cx - side / 2, 0, W - side)))
    ay = int(round(np.clip(cy - side / 2, 0, H - side)))
    return ax, ay, ax + int(side), ay + int(side)


@dataclass
class PileTracker:
    """One pile's top card. Feed it every frame (:meth:`update`); it says when to detect (:meth:`wants`)."""

    zone: Zone
    crop: tuple[int, int, int, int]
    confirm: int = 2
    min_conf: float = 0.35
    change: float = 3.0  # mean grey difference (0-255) of the small crop that counts as a change
    every: int = 2
    retry: int = 10  # look again this often (frames) even when nothing changed: the last look may have missed
    ring: int = 45
    history: set[str] = field(default_factory=set)
    top: str | None = None
    _count: int = 0  # runs among the recent ones whose best new card was the current best
    _recent: deque = field(default_factory=deque)  # best new card of each recent run (None: none)
    _last_small: np.ndarray | None = None
    _last_run: int = -10**9
    _empty_runs: int = 0
    forget_s: float = 3.0
    _last_seen: dict = field(default_factory=dict)  # code -> last time any run detected it here
    _seen_at: dict = field(default_factory=dict)  # code -> when it was confirmed as the top
    _frames: deque = field(default_factory=deque)  # (index, t, grey crop)
    _top_t: float | None = None  # when the current top card first showed

    def small(self, frame: np.ndarray) -> np.ndarray:
        x0, y0, x1, y1 = self.crop
        return cv2.resize(cv2.cvtColor(frame[y0:y1, x0:x1], cv2.COLOR_BGR2GRAY), (64, 64),
                          interpolation=cv2.INTER_AREA).astype(np.int16)

    def remember(self, index: int, t: float, frame: np.ndarray) -> bool:
        """Keep this frame's crop for tracing back; True when the crop changed enough to detect again."""
        x0, y0, x1, y1 = self.crop
        grey = cv2.cvtColor(frame[y0:y1, x0:x1], cv2.COLOR_BGR2GRAY)
        self._frames.append((index, t, grey))
        while len(self._frames) > self.ring:
            self._frames.popleft()
        small = cv2.resize(grey, (64, 64), interpolation=cv2.INTER_AREA).astype(np.int16)
        if index - self._last_run < self.every:
            return False
        if self._last_small is not None and float(np.abs(small - self._last_small).mean()) < self.change \
                and self._count == 0 and index - self._last_run < self.retry:
            return False
        self._last_small = small
        self._last_run = index
        return True

    def crop_of(self, frame: np.ndarray) -> np.ndarray:
        x0, y0, x1, y1 = self.crop
        return frame[y0:y1, x0:x1]

    def update(self, index: int, t: float, dets: Detections) -> CardSeen | None:
        """The detections of this frame's crop (already in frame pixels); returns a newly confirmed top card."""
        faces = [(float(c), str(n), b) for b, c, n in zip(dets.xyxy, dets.confidence, dets.class_name, strict=True)
                 if n not in FACE_EXCLUDE and c >= self.min_conf]
        inside = []
        for c, n, b in faces:
            centre = ((b[0] + b[2]) / 2, (b[1] + b[3]) / 2)
            if self.zone.contains([centre])[0]:
                inside.append((c, n, b))
        hands = bool(np.any(dets.class_name == "hand")) if len(dets) else False
        if not inside and not hands:
            self._empty_runs += 1
            if self._empty_runs >= 2:  # seen empty twice with nothing over it: the pile was taken
                self.history.clear()
                self.top = None
        else:
            self._empty_runs = 0
        for _, n, _ in inside:
            self._last_seen[n] = t
        new = [(c, n, b) for c, n, b in inside if n not in self.history or self._forgotten(n, t)]
        best = max(new, key=lambda x: x[0]) if new else None
        self._recent.append(best[1] if best else None)
        while len(self._recent) > self.confirm + 1:  # one misread among the last runs is forgiven
            self._recent.popleft()
        if best is None:
            self._count = 0
            return None
        c, n, b = best
        self._count = sum(1 for x in self._recent if x == n)
        if self._count < self.confirm:
            return None
        self._count = 0
        self._recent.clear()
        box = tuple(float(v) for v in b)
        t_first = self.first_seen(box, t)
        self.history.add(n)
        if self.top is not None and self._top_t is not None and self._frames and \
                t_first <= max(self._top_t, self._frames[0][1]) + 1e-9:
            return None  # nothing has changed there since the top showed: the same card, read differently
        self._seen_at[n] = t
        self.top, self._top_t = n, t_first
        return CardSeen(t_first, self.zone.name, n, c, index, box, t)

    def _forgotten(self, code: str, t: float) -> bool:
        """A card confirmed here before may come back (the pile was taken and its cards played again) once it has
        not been seen for ``forget_s`` and newer cards have topped it since: a buried card peeking out between
        two others is seen now and then, never after that long."""
        seen = self._last_seen.get(code, self._seen_at.get(code, t))
        newer = any(v > self._seen_at.get(code, t) for v in self._seen_at.values())
        return t - seen > self.forget_s and newer

    def taken(self, t: float) -> None:
        """The pile as it was at ``t`` went to a player (the referee says so, a moment later): the cards that had
        landed by then may all come back as new ones; those laid since are the new pile."""
        gone = {c for c in self.history if self._seen_at.get(c, t) <= t}
        self.history -= gone
        if self.top in gone:
            self.top = None

    def first_seen(self, box: tuple[float, float, float, float], t_now: float) -> float:
        """The earliest kept frame from which the card's area (the middle of its box) looked as it does now."""
        if not self._frames:
            return t_now
        x0, y0 = self.crop[0], self.crop[1]
        bx0, by0, bx1, by1 = box
        w, h = bx1 - bx0, by1 - by0
        sx0, sx1 = int(bx0 + 0.2 * w - x0), int(bx1 - 0.2 * w - x0)
        sy0, sy1 = int(by0 + 0.2 * h - y0), int(by1 - 0.2 * h - y0)
        _, t_last, ref = self._frames[-1]
        ref = ref[max(0, sy0):sy1, max(0, sx0):sx1].astype(np.int16)
        if ref.size == 0:
            return t_now
        first = t_last
        for _, t, grey in reversed(self._frames):
            patch = grey[max(0, sy0):sy1, max(0, sx0):sx1].astype(np.int16)
            if float((np.abs(patch - ref) < 24).mean()) < 0.8:
                break
            first = t
        return first
