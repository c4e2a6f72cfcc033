"""Cheat's centre pile: face-down batches counted from their backs, and the batch turned up after a doubt.

A batch is laid a little fanned, so each of its backs shows as it lands (a pile squared up shows one back). The
watcher compares the backs of two settled looks at the pile: a back box that matches none of the last settled
look's (its centre farther than ``match`` of a card's size from each) is a new card. A look is settled when the
same counts are seen ``confirm`` times running with no hand in the crop. Faces on the pile are a reveal: the
batch turned up (EVENTS.md ``reveal``, its cards). The pile seen empty twice was picked up.

Times: a change is dated back, through the crop's recent frames, to the first frame that looked as it does now
(:meth:`vision.tracking.PileTracker.first_seen`), so that a batch precedes the claim said right after it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from models.detector import Detections
from vision.tracking import FACE_EXCLUDE, PileTracker


@dataclass(frozen=True)
class BatchSeen:
    """``kind`` ``facedown`` (``count`` new backs) or ``reveal`` (``cards`` turned up) on ``zone`` at ``t``."""

    t: float
    zone: str
    kind: str
    count: int
    cards: tuple[str, ...]
    frame: int
    box: tuple[float, float, float, float]


@dataclass
class BatchWatcher(PileTracker):
    """The Cheat pile; :meth:`look` takes a crop's detections (frame pixels) and returns what changed."""

    match: float = 0.3
    known_backs: list = field(default_factory=list)  # box centres and sizes of the last settled look's backs
    known_faces: tuple = ()
    _settled: np.ndarray | None = None  # the crop (grey) at the last settled look
    _sig: tuple | None = None
    _same: int = 0

    def look(self, index: int, t: float, dets: Detections) -> BatchSeen | None:
        backs, faces = [], []
        hands = False
        for b, c, n in zip(dets.xyxy, dets.confidence, dets.class_name, strict=True):
            if n == "hand":
                hands = True
                continue
            centre = ((b[0] + b[2]) / 2, (b[1] + b[3]) / 2)
            if c < self.min_conf or not self.zone.contains([centre])[0]:
                continue
            (backs if n == "back" else faces).append((str(n), tuple(float(v) for v in b)))
        faces = [(n, b) for n, b in faces if n not in FACE_EXCLUDE]
        if hands:
            self._sig, self._same = None, 0
            return None
        # a batch laid where the last one lay may leave the counts as they were: what changed is part of the look
        sig = (len(backs), tuple(sorted(n for n, _ in faces)), any(self._changed(b) for _, b in backs))
        self._same = self._same + 1 if sig == self._sig else 1
        self._sig = sig
        if self._same != self.confirm:
            return None
        out: BatchSeen | None = None
        if not backs and not faces:  # picked up
            self.known_backs, self.known_faces = [], ()
            self._settled = self._frames[-1][2] if self._frames else None
            return None
        names = tuple(sorted(n for n, _ in faces))
        if faces and names != self.known_faces:
            new_faces = [(n, b) for n, b in faces if n not in self.known_faces]
            box = _union([b for _, b in new_faces or faces])
            out = BatchSeen(self.first_seen(box, t), self.zone.name, "reveal", len(faces), names, index, box)
        elif not faces:
            new: list[tuple] = []
            for _, b in backs:
                fresh = self._changed(b) or (self._settled is None and
                                             not any(self._same_card(b, o) for o in self.known_backs))
                # a squared pile peeking out under the batch is one back, not several
                if fresh and not any(self._same_card(b, o, 0.2) for o in new):
                    new.append(b)
            if new:
                box = _union(new)
                out = BatchSeen(self.first_seen(box, t), self.zone.name, "facedown", len(new), (), index, box)
        self.known_backs = [b for _, b in backs]
        self.known_faces = names
        self._settled = self._frames[-1][2] if self._frames else None
        return out

    def _changed(self, box: tuple) -> bool:
        """The middle of ``box`` looks different from the last settled look: a card laid there since (a batch is
        laid where the pile is, so a new back may sit where an old one was)."""
        if self._settled is None or not self._frames:
            return False
        x0, y0 = self.crop[0], self.crop[1]
        w, h = box[2] - box[0], box[3] - box[1]
        sx0, sx1 = max(0, int(box[0] + 0.3 * w - x0)), int(box[2] - 0.3 * w - x0)
        sy0, sy1 = max(0, int(box[1] + 0.3 * h - y0)), int(box[3] - 0.3 * h - y0)
        now = self._frames[-1][2][sy0:sy1, sx0:sx1].astype(np.int16)
        before = self._settled[sy0:sy1, sx0:sx1].astype(np.int16)
        if now.size == 0 or now.shape != before.shape:
            return False
        return float((np.abs(now - before) >= 24).mean()) > 0.2

    def _same_card(self, a: tuple, b: tuple, match: float | None = None) -> bool:
        ca = np.array([(a[0] + a[2]) / 2, (a[1] + a[3]) / 2])
        cb = np.array([(b[0] + b[2]) / 2, (b[1] + b[3]) / 2])
        size = max(a[2] - a[0], a[3] - a[1], 1.0)
        return bool(np.linalg.norm(ca - cb) < (self.match if match is None else match) * size)


def _union(boxes: list[tuple]) -> tuple[float, float, float, float]:
    a = np.array(boxes, float)
    return float(a[:, 0].min()), float(a[:, 1].min()), float(a[:, 2].max()), float(a[:, 3].max())
