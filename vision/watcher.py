"""Frames in, game-log observations out: the vision side shared by ``tablecam audit`` and ``tablecam live``.

Per frame: the slap detector looks at arms over the piles (``vision.slaps``); each pile's crop goes to the card
detector when it changed (``vision.tracking``); slaps are timed by the audio onsets known so far. Observations
are held until they are final, then released in time order (the referee needs them so):

- a card is confirmed a few frames after it showed and is dated back, so nothing may be released while an
  earlier card could still be confirmed: everything waits ``hold_s`` (the audit: 1.6 s, no hurry);
- live, a card is released as soon as it is confirmed (a callout is due within 100 ms) and a slap ``slap_hold_s``
  after its contact: time for its impact sound to arrive and for a card laid by that hand to be confirmed
  (:func:`vision.slaps.drop_dealing`).
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from calibration.layout import Layout
from engine.events import Event
from models.detector import Detections
from vision.audio import Onset
from vision.slaps import SlapDetector, SlapSeen, drop_dealing, fuse_audio
from vision.tracking import CardSeen, PileTracker, zone_crop


def zones_for(game: str, layout: Layout) -> tuple[list[str], list[str]]:
    """(zones whose top card is tracked, zones that are slapped) for ``game``."""
    if game == "slapjack":
        return ["center"], ["center"]
    piles = [z for z in layout.zones if z.startswith("pile:")]
    return piles, piles  # the pot is slapped only after a Snap Pot: not watched yet


@dataclass
class TableWatcher:
    """Feed frames with :meth:`feed`; take the observations it releases; :meth:`finish` at the end.

    ``detector``: a callable on a BGR crop returning :class:`models.detector.Detections` (crop pixels); if it has
    a ``seek(t)`` method, it is told each frame's time first (a reader replaying a known game needs it).
    ``onsets``: impact onsets on the frames' clock; a live microphone may append to the list while it runs."""

    layout: Layout
    game: str
    detector: Callable[[np.ndarray], Detections]
    fps: float
    onsets: list[Onset] = field(default_factory=list)
    hold_s: float = 1.6
    slap_hold_s: float | None = None  # live: release slaps this long after contact, cards at once
    every: int = 2  # detect a changed pile at most every this many frames
    min_conf: float = 0.25  # a card read below this confidence is not evidence (the hysteresis needs several)
    cards: list[CardSeen] = field(default_factory=list)
    slaps: list[SlapSeen] = field(default_factory=list)
    dealing: list[SlapSeen] = field(default_factory=list)
    boxes: list[tuple[tuple[float, float, float, float], str]] = field(default_factory=list)  # this frame's
    slapper_found: list[SlapSeen] = field(default_factory=list)  # every arrival, before the dealing check

    def __post_init__(self) -> None:
        card_zones, slap_zones = zones_for(self.game, self.layout)
        side = int(getattr(self.detector, "imgsz", 320))  # no smaller than the model's input: never blown up
        self.trackers = [PileTracker(self.layout.zones[z], zone_crop(self.layout.zones[z], self.layout.frame_size,
                                                                     min_side=side),
                                     every=self.every, min_conf=self.min_conf) for z in card_zones]
        self.slapper = SlapDetector(self.layout, slap_zones, self.fps)
        self._pending: list[tuple[float, int, Event, Any]] = []
        self._seq = itertools.count()
        self.detections = 0
        self._used_onsets: set[int] = set()
        self._seek = getattr(self.detector, "seek", None)

    def _ready_at(self, ev: Event) -> float:
        if self.slap_hold_s is None:
            return ev.t + self.hold_s
        return ev.t + (self.slap_hold_s if ev.type == "slap" else 0.0)

    def feed(self, index: int, t: float, image: np.ndarray) -> list[Event]:
        """Look at one frame (BGR); returns the observations now final, in time order."""
        self.boxes = []
        if self._seek is not None:
            self._seek(t)
        self._arrivals(self.slapper.update(index, t, image))
        for tr in self.trackers:
            if not tr.remember(index, t, image):
                continue
            x0, y0, _, _ = tr.crop
            d = self.detector(tr.crop_of(image))
            self.detections += 1
            if len(d):
                d = Detections(d.xyxy + np.array([x0, y0, x0, y0], np.float32), d.confidence, d.class_id,
                               d.class_name)
            self.boxes += [(tuple(float(v) for v in b), str(n)) for b, n in zip(d.xyxy, d.class_name, strict=True)]
            seen = tr.update(index, t, d)
            if seen is not None:
                self.cards.append(seen)
                ev = Event(t=round(seen.t, 4), type="card", zone=seen.zone, card=seen.card, conf=round(seen.conf, 3),
                           evidence={"frame": seen.frame, "box": [round(v, 1) for v in seen.box]})
                heapq.heappush(self._pending, (seen.t, next(self._seq), ev, seen))
        return self._release(t)

    def _arrivals(self, arrivals: list[SlapSeen]) -> None:
        if arrivals and self.onsets:
            arrivals = fuse_audio(arrivals, self.onsets, used=self._used_onsets)
        for s in arrivals:
            self.slapper_found.append(s)
            evidence = {"frame": s.frame, "t_video": round(s.t_video, 4), "source": s.source}
            ev = Event(t=round(s.t, 4), type="slap", zone=s.zone, player=s.player, t_err=round(s.t_err, 4),
                       evidence=evidence)
            heapq.heappush(self._pending, (s.t, next(self._seq), ev, s))

    def _release(self, now: float) -> list[Event]:
        out: list[Event] = []
        while self._pending and self._ready_at(self._pending[0][2]) <= now:
            _, _, ev, seen = heapq.heappop(self._pending)
            if ev.type == "slap":
                if not drop_dealing([seen], [(c.t, c.zone) for c in self.cards]):
                    self.dealing.append(seen)  # the hand that laid a card, not a slap
                    continue
                self.slaps.append(seen)
            out.append(ev)
        return out

    def piles_taken(self, zones: Sequence[str], t: float) -> None:
        """The referee says these piles, as they were at ``t``, went to a player: their cards may come back."""
        for tr in self.trackers:
            if tr.zone.name in zones:
                tr.taken(t)

    def finish(self) -> list[Event]:
        """Everything still held, in time order (the end of the video or of the game)."""
        self._arrivals(self.slapper.finish())
        return self._release(float("inf"))

    @property
    def waiting(self) -> Sequence[Event]:
        return [p[2] for p in sorted(self._pending)]
