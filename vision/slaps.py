"""Slaps from the video (an arm shooting from a seat onto a pile) and their contact times, refined by audio.

Video: for every pile and every player there is a *corridor*, a strip of table from the player's side of the
pile, across the pile and a little past it. Each frame, the strip is sampled at a few millimetres' pitch
(:func:`cv2.remap` on a quarter-size frame: cheap), compared with a background that learns only what stays
still for ``absorb_s`` seconds, and its *reach* is measured: how far a run of changed pixels, unbroken from
the strip's outer end (the seat's side: an arm comes from its owner), goes towards and over the pile.

A slap is a reach that covers the pile's centre (a palm on the pile; a dealing hand lays its card and stops
at the card's near edge) and then stops, and a hand that comes to rest there (its wrist still within the next
few frames: a hand passing over the pile does not). The contact is the frame where it stopped; a hand whose wrist
still moves after that (one landing on hands already there: its edge meets their fingers early) landed later, part of
the way to the last frame its wrist moved (:data:`SETTLE_SHARE`). One slap per arrival: the arm must
leave the pile before it can slap again. Who: the corridor's player (the seat the arm comes from).

Audio (:func:`fuse_audio`): the impact onset nearest each video contact, within the video's uncertainty, gives
the contact to the millisecond (``vision.audio``). The sounds say when, not whose. Two hands first seen down in
the same frame (or a frame apart: a hand landing on a hand already there is seen early) are told apart by the
next frames: the one still settling after the other's wrist is at rest landed later, and takes the later sound
(:attr:`SlapSeen.landed_by`), or by where their edges were in the frame before and how fast they came: one half a
frame or more ahead landed first (:func:`approach_time`). Where none of that tells (arms from opposite sides of a
pile: the later hand's fingers reach over the first one's wrist), they keep the doubt (``t_err``), and the referee
(TM-3) says the tie cannot be resolved. A loud impact that no slap seen took is a hand the arrival rules missed (one
landing where other arms already are): the watcher asks :meth:`SlapDetector.hand_for_sound` whose hand came in fast
and stayed on a pile just then.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field

import cv2
import numpy as np

from calibration.layout import Layout
from vision.audio import Onset, impact_onsets, read_audio
from vision.frames import VideoError, probe, read_video

SCALE = 0.25  # the slap detector looks at a quarter-size frame
#: an impact this loud (dB over the room's background) is a hand hitting the table; a card's tap is far softer (the
#: rendered games: slaps 41-49 dB, taps 10-18 dB)
SLAP_SOUND_DB = 30.0


def channel_max(img: np.ndarray) -> np.ndarray:
    """The largest of each pixel's channels (H x W x C -> H x W): ``img.max(axis=2)`` walks the three values of every
    pixel one by one, ten times slower on a quarter-size frame, and these run on every frame."""
    if img.ndim == 2:
        return img
    return np.maximum(np.maximum(img[..., 0], img[..., 1]), img[..., 2]) if img.shape[2] == 3 else img.max(axis=2)


@dataclass
class StillBackground:
    """A background that learns only what stays still: a pixel that has not changed by more than ``motion`` for
    ``absorb`` frames joins it (a hand never stays still that long; a card laid down does). The slap corridors and
    the arm finder each keep one."""

    absorb: int
    motion: float
    threshold: float  # a pixel this far from the background (any channel) is foreground
    image: np.ndarray | None = None
    prev: np.ndarray | None = None
    still: np.ndarray | None = None  # frames each pixel has not moved

    def update(self, img: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Learn from ``img`` (uint8, H x W x C); returns (what moved since the last image, what differs from the
        background), bool H x W."""
        if self.image is None:
            self.image, self.prev = img.copy(), img
            self.still = np.zeros(img.shape[:2], np.int32)
        moving = channel_max(cv2.absdiff(img, self.prev)) > self.motion
        self.still = np.where(moving, 0, self.still + 1)
        # (one masked copy: ``image[learn] = img[learn]`` gathers and scatters pixel by pixel, 5 ms on a quarter-size
        # frame that is mostly still)
        cv2.copyTo(img, (self.still >= self.absorb).astype(np.uint8), self.image)
        self.prev = img
        return moving, channel_max(cv2.absdiff(img, self.image)) > self.threshold


@dataclass(frozen=True)
class SlapSeen:
    """A hand's contact with ``zone`` by ``player`` at ``t`` (seconds) ± ``t_err``; ``frame`` is the first
    frame that shows it landed; ``source`` says what timed it."""

    t: float
    zone: str
    player: str
    t_err: float
    frame: int
    t_video: float
    source: str = "video"
    strength: float | None = None
    #: the time of the last frame before the hand's wrist came to rest (None: not seen to): a hand that landed in
    #: the same frame as another but later is still moving in the next frame (see :meth:`SlapDetector._landed_by`)
    landed_by: float | None = None
    #: which way the arm came in: the unit vector (image) from the zone towards the player's shoulder
    arm_from: tuple[float, float] | None = None
    #: the time of ``frame`` (None: ``t_video``); ``t_video`` is the contact inside or after it, as far as the
    #: frames say (:data:`SETTLE_SHARE`). Which hands showed down in one frame is asked of this
    t_frame: float | None = None
    #: the time of the first frame of this arrival from which the hand's leading edge stayed over the zone's centre
    #: up to ``frame`` (None: not known): of two arms from opposite sides first seen down in one frame, the one over
    #: the centre a frame sooner was down first (their wrists cannot tell: see :func:`_settled_apart`)
    at_centre: float | None = None
    #: the arm covered its strip to the far end as it came down (past the pile by more than a palm): an arm on its
    #: way to a farther pile on the same line does; a palm on this pile mostly does not (see ``SlapDetector.went_on``)
    to_far_end: bool = False
    #: seen in two frames only (:func:`quick_step`): a slap only where an impact was heard then (:func:`unheard_quick`)
    quick: bool = False
    #: when the hand's leading edge would have reached its pile at the speed of its last step before ``frame``
    #: (:func:`approach_time`; None: not seen coming in): of two hands first seen down in one frame, which got there
    #: first, to a fraction of a frame
    t_approach: float | None = None

    def __post_init__(self) -> None:
        if self.t_frame is None:
            object.__setattr__(self, "t_frame", self.t_video)


@dataclass
class Corridor:
    """The strip from ``player``'s side of ``zone`` across it: sample maps for cv2.remap (quarter-size frame)."""

    zone: str
    player: str
    map_x: np.ndarray
    map_y: np.ndarray
    s_centre: int  # sample index (along) of the zone's centre
    s_edge: int  # sample index where the zone begins (the seat's side)
    pitch_mm: float
    u: np.ndarray = field(default_factory=lambda: np.zeros(2))  # unit vector, zone centre -> shoulder (pixels)
    dist: float = 0.0  # zone centre to shoulder (pixels)
    background: StillBackground | None = None
    state: str = "idle"  # idle, arriving, on
    entered: bool = False  # while arriving: the moving edge has crossed into the zone
    again: bool = False  # this arrival came while the zone was still covered (see SlapDetector.update)
    left: int = -1  # the last frame the zone was left (the reach fell back short of its centre)
    slapped: bool = False  # a slap came down this corridor since the zone was last left
    past: deque = field(default_factory=lambda: deque(maxlen=24))  # (t, front, reach) of the last frames
    wrist: deque = field(default_factory=lambda: deque(maxlen=12))  # (index, t, rows moving just outside the zone)
    held_frames: deque = field(default_factory=lambda: deque(maxlen=12))  # frames whose reach was held (_held_reach)

    def reach_at(self, t: float) -> float:
        """The reach (rows from the outer end) in the frame at ``t``, among the last frames kept; 0 if gone."""
        return next((r for tt, _, r in reversed(self.past) if abs(tt - t) < 1e-6), 0.0)

    def covered_to_end(self, t: float) -> bool:
        """Whether the strip was covered to its far end in the frame at ``t``: an arm reaching past the pile."""
        return self.reach_at(t) >= len(self.map_x) - 1

    def leads_on_to(self, far: Corridor) -> bool:
        """Whether ``far`` (the same player's strip to another pile) runs on past this one's pile, on the same line
        from the shoulder: an arm reaching that pile passes over this one."""
        return far.dist > self.dist and float(np.dot(far.u, self.u)) > 0.97

    def _recent(self, i: int) -> list[float]:
        n = len(self.past)
        return [e[i] for e in itertools.islice(self.past, max(0, n - RULES_LOOK_BACK), n)]

    @property
    def times(self) -> list[float]:
        """The times of the last :data:`RULES_LOOK_BACK` frames (what the arrival rules look back over)."""
        return self._recent(0)

    @property
    def front(self) -> list[float]:
        """The leading edges of motion (samples; -1: nothing moved) of the same frames."""
        return self._recent(1)

    @property
    def reach(self) -> list[float]:
        """How far over the strip something reached (samples) in the same frames."""
        return self._recent(2)


#: a hand's wrist goes still while its palm settles its last centimetres: it may land this many frames after the
#: last frame its wrist moved (:attr:`SlapSeen.landed_by`)
LAST_CM_FRAMES = 0.6

#: a hand seen down (its edge stopped) while its wrist still moves for a frame or two, which happens when it lands
#: on hands already on the pile (its edge meets their fingers early), landed this share of the way from the frame
#: it was first seen down to the last frame its wrist moved: on 98 slaps of rendered Slapjack and Snap games (2-4
#: players) the contact lay 0.7 of that way on average, within a frame of it at 0.5-0.7 (0.6: 97 % of the slaps,
#: against 80 % taking the first frame seen down)
SETTLE_SHARE = 0.6

#: frames the arrival rules look back over (:func:`contact_step` walks all of them: a longer look would change
#: contacts); ``Corridor.past`` keeps more, for a hand heard but not seen (``SlapDetector.hand_for_sound``)
RULES_LOOK_BACK = 8


def _px_per_mm(layout: Layout, point: np.ndarray) -> float:
    if layout.homography is None:
        return 0.0
    inv = np.linalg.inv(layout.homography)
    p = np.array([point[0], point[1], 1.0]) @ layout.homography.T
    q = p[:2] / p[2]
    pts = np.array([[q[0], q[1], 1.0], [q[0] + 10, q[1], 1.0], [q[0], q[1] + 10, 1.0]]) @ inv.T
    pts = pts[:, :2] / pts[:, 2:3]
    return float((np.linalg.norm(pts[1] - pts[0]) + np.linalg.norm(pts[2] - pts[0])) / 20)


def make_corridors(layout: Layout, zones: list[str], out_mm: float = 330.0, past_mm: float = 90.0,
                   width_mm: float = 130.0, pitch_mm: float = 8.0, shoulder_mm: float = 400.0) -> list[Corridor]:
    """One corridor per (zone, player): along the line from the zone's centre to the player's shoulder
    (``shoulder_mm`` behind their seat), from ``out_mm`` on that side of the centre to ``past_mm`` beyond it,
    ``width_mm`` wide. Without a table homography, sizes are taken from the zone's own size
    (a pile zone is about a card and a half across)."""
    out: list[Corridor] = []
    middle = np.mean([z.polygon.mean(0) for z in layout.zones.values()], axis=0)
    for zname in zones:
        zone = layout.zones[zname]
        c = zone.polygon.mean(0)
        ppm = _px_per_mm(layout, c) or (np.sqrt(zone.area) / 140.0)
        for p in layout.players:
            seat = layout.seats[p].reshape(-1, 2).mean(0)
            away = seat - middle
            away = away / (np.linalg.norm(away) + 1e-9)
            shoulder = seat + away * shoulder_mm * ppm  # arms come from the shoulder, behind the table's edge
            u = shoulder - c
            dist = float(np.linalg.norm(u))
            u = u / (dist + 1e-9)
            n = np.array([-u[1], u[0]])
            outer = min(out_mm * ppm, float(np.linalg.norm(seat - c)))  # not past the table's edge
            n_along = int((outer + past_mm * ppm) / (pitch_mm * ppm)) + 1
            n_across = int(width_mm / pitch_mm) + 1
            s = np.linspace(outer, -past_mm * ppm, n_along)  # distance from the centre towards the seat
            a = np.linspace(-width_mm / 2 * ppm, width_mm / 2 * ppm, n_across)
            pts = c[None, None, :] + s[:, None, None] * u[None, None, :] + a[None, :, None] * n[None, None, :]
            pts = pts * SCALE
            # the zone's edge on this side: the last sample (walking in) outside the polygon
            axis = c[None, :] + s[:, None] * u[None, :]
            inside = zone.contains(axis)
            s_edge = int(np.argmax(inside)) if inside.any() else int(np.argmin(np.abs(s)))
            s_centre = int(np.argmin(np.abs(s)))
            out.append(Corridor(zname, p, pts[..., 0].astype(np.float32), pts[..., 1].astype(np.float32),
                                s_centre, s_edge, pitch_mm, u=u, dist=dist))
    return out


class SlapDetector:
    """Feed every frame to :meth:`update`; it returns the slaps whose contact it has just seen."""

    def __init__(self, layout: Layout, zones: list[str], fps: float, absorb_s: float = 2.5,
                 threshold: float = 28.0, min_frac: float = 0.22, past_centre_mm: float = 15.0,
                 motion: float = 12.0, min_step: float = 6.0, watch: list[str] | None = None,
                 history_s: float = 2.5) -> None:
        """``zones`` are slapped; for ``watch`` zones (and those) how much of the strip just outside the zone on
        each player's side is covered is kept, frame by frame, for ``history_s`` (:meth:`arm_on`: who laid a
        card)."""
        self.slap_zones = set(zones)
        #: slapped zones where no slap is looked for now (the Snap pot while there is none: an arm reaching across
        #: the table to another pile passes over the middle and may stop there); their strips still learn the table
        self.closed: set[str] = set()
        self.near_rows = 12  # the strip just outside a zone, on a player's side, where their hand is as it lays a card
        self.corridors = make_corridors(layout, list(zones) + [z for z in (watch or []) if z not in zones])
        self._corridor = {(c.zone, c.player): c for c in self.corridors}
        self.reached: dict[tuple[str, str], deque] = {(c.zone, c.player): deque(maxlen=max(8, int(history_s * fps)))
                                                      for c in self.corridors}
        self.fps = fps
        self.absorb = max(2, int(round(absorb_s * fps)))
        self.threshold = threshold
        self.min_frac = min_frac
        self.past = past_centre_mm
        self.motion = motion
        # the leading edge is looked for up to this many rows past the zone's centre: farther on, what moves is
        # more likely the fingers of a hand from the other side
        self.own_rows = 5
        self.min_step = min_step  # rows (pitch_mm each) the hand's edge covered in its last frame: a slap is fast
        self.creep_rows = 3  # after its fast step a slapping hand's edge may creep this many rows before it stops
        self.small: np.ndarray | None = None
        self.hold_frames = 4
        self.hold_rows = 10  # a forearm along the strip, beyond the zone's near edge (see _held_reach)
        self.wrist_rows = 10  # the strip just outside the zone on the player's side: the wrist of a hand on the pile
        self.still_rows = 1.5  # rows' worth of change there that still counts as a wrist at rest
        self._held: list[tuple[SlapSeen, Corridor, bool]] = []  # (slap, its corridor, came while covered)
        self._given: deque[tuple[SlapSeen, Corridor]] = deque(maxlen=8)  # the last slaps given out

    def slappable(self, zone: str) -> bool:
        """Whether a hand coming down on ``zone`` now is looked at as a slap."""
        return zone in self.slap_zones and zone not in self.closed

    def _reach(self, fg: np.ndarray) -> float:
        """Samples from the outer end covered by an unbroken run of changed rows (one-row gaps bridged)."""
        covered = fg.mean(axis=1) >= self.min_frac
        if not covered[0] and not covered[1]:
            return 0.0
        gap = 0
        last = 0
        for i, ok in enumerate(covered):
            if ok:
                last, gap = i, 0
            else:
                gap += 1
                if gap > 1:
                    break
        return float(last + 1)

    def _held_reach(self, fg: np.ndarray, c: Corridor) -> float:
        """The reach of an arm that covered the zone from the seat's side in the last frame and now shows only from
        the zone back along its forearm (a sleeve the colour of the table: rendered Slapjack 4p s11 9.13 s, D's
        pale blue sleeve on the grey cloth, the same to within 10 grey levels): the run of changed rows through the
        zone's centre, when it goes at least ``hold_rows`` back beyond the zone's near edge (a forearm along the
        strip, not a palm alone or fingers from across). 0 when it does not."""
        covered = fg.mean(axis=1) >= self.min_frac
        if c.s_centre >= len(covered) or not covered[c.s_centre]:
            return 0.0
        start = c.s_centre
        while start > 0 and (covered[start - 1] or (start > 1 and covered[start - 2])):
            start -= 1
        if start > c.s_edge - self.hold_rows:
            return 0.0
        end = c.s_centre
        while end + 1 < len(covered) and (covered[end + 1] or (end + 2 < len(covered) and covered[end + 2])):
            end += 1
        return float(end + 1)

    def _front(self, moving: np.ndarray, reach: float) -> float:
        """The farthest row (within the reach) where something moved since the last frame: a hand's leading
        edge while it travels. -1 when nothing moves."""
        rows = np.flatnonzero(moving[: int(reach)].mean(axis=1) >= self.min_frac)
        return float(rows[-1] + 1) if rows.size else -1.0

    @staticmethod
    def shrink(frame: np.ndarray) -> np.ndarray:
        """The frame the detector looks at (:data:`SCALE`); a reader decoding ahead may make it (``small``)."""
        H, W = frame.shape[:2]
        return cv2.resize(frame, (int(W * SCALE), int(H * SCALE)), interpolation=cv2.INTER_AREA)

    def update(self, index: int, t: float, frame: np.ndarray, small: np.ndarray | None = None) -> list[SlapSeen]:
        """One frame (BGR); ``small``: the frame already shrunk (:meth:`shrink`). The arrivals it ends."""
        self.small = small if small is not None else self.shrink(frame)
        for c in self.corridors:
            strip = cv2.remap(self.small, c.map_x, c.map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
            if c.background is None:
                c.background = StillBackground(self.absorb, self.motion, self.threshold)
            moving, fg = c.background.update(strip)
            r = self._reach(fg)
            over = c.s_centre + self.past / c.pitch_mm  # (a reach this far covers the pile: a palm on it)
            if c.past and c.past[-1][2] >= over > r:
                held = self._held_reach(fg, c)
                if held > r:
                    r = held
                    c.held_frames.append(index)
            f = self._front(moving, min(r, c.s_centre + self.own_rows))
            lo = max(0, c.s_edge - self.near_rows)
            self.reached[(c.zone, c.player)].append((t, float(fg[lo:c.s_edge].mean()) if c.s_edge > lo else 0.0))
            if c.zone not in self.slap_zones:
                continue
            c.past.append((t, f, r))
            c.wrist.append((index, t, float(moving[max(0, c.s_edge - self.wrist_rows):c.s_edge].mean(axis=1).sum())))
            if c.zone in self.closed:
                c.state, c.entered, c.again, c.slapped = "idle", False, False, False
                continue
            if c.state == "idle" and r >= over:
                c.state, c.entered = "arriving", False
            elif c.state == "on" and not c.slapped and len(c.front) > 1 and 0 <= c.front[-2] < c.s_edge <= f \
                    and r >= over:
                # the zone stayed covered (by this arm's first hand, or by others' arms along the same strip), yet
                # in the last frame nothing moved over it, only outside it, and now an edge has come in from the
                # seat's side: a new arrival (it is a slap if :func:`contact_step` finds one when it stops)
                c.state, c.entered, c.again = "arriving", True, True
                continue
            if c.state == "arriving" and c.entered and f <= c.front[-2] + 0.5:
                # the leading edge stopped coming in: the contact was in the last frame where it advanced; a hand
                # that slapped is still there (a reach that collapses at once was a passing connection)
                seen = self._contact(c, index - 1)
                if seen is not None and r >= over - 1 and (not c.again or self._came_again(c)):
                    self._held.append((seen, c, c.again))
                    c.slapped = True  # (the palm rests on the pile: it must leave before it slaps again)
                    c.state = "on"
                elif r < c.s_centre - 2:  # no slap, and it stopped short of the centre: it has left (it may slap next)
                    c.state, c.left = "idle", index
                else:
                    c.state = "on"
                c.again = False
            elif c.state == "arriving" and f >= c.s_edge:
                c.entered = True
            elif c.state in ("arriving", "on") and r < c.s_centre - 2:  # the palm has left the pile
                c.state, c.left, c.slapped = "idle", index, False
        return self._settle(index)

    def hand_for_sound(self, t: float, exclude: set[tuple[str, str]]) -> Corridor | None:
        """The corridor whose hand landed at ``t`` (an impact heard that no slap seen took): its edge made the
        biggest fast advance (at least ``min_step`` rows, up to the zone's centre or past it) in the frames around
        ``t``, and its reach then covered the centre for the next frames (a hand on a nearer spot of the same line,
        the Snap pot, stops short). None when no corridor did, or two did alike (the sound cannot say whose). For
        a hand the arrival rules miss: one that lands on a pile its own other arm or others' arms already cover.
        ``exclude``: (zone, player) pairs that already have a slap at that time."""
        dt = 1.0 / self.fps
        steps: list[tuple[float, Corridor]] = []
        for c in self.corridors:
            if not self.slappable(c.zone) or (c.zone, c.player) in exclude:
                continue
            past = list(c.past)
            after = [r for tt, _, r in past if t < tt <= t + 3 * dt]
            if len(after) < 2 or min(after) < c.s_centre:
                continue
            best = max((f1 - f0 for (_, f0, _), (t1, f1, _) in zip(past, past[1:], strict=False)
                        if f0 >= 0 and f1 >= c.s_centre and abs(t1 - t) <= 1.5 * dt), default=0.0)
            if best >= self.min_step:
                steps.append((best, c))
        steps.sort(key=lambda x: -x[0])
        if not steps:
            return self._came_to_rest_at(t, exclude)
        if len(steps) > 1 and steps[1][0] >= steps[0][0] - 2:
            return None
        return steps[0][1]

    def _came_to_rest_at(self, t: float, exclude: set[tuple[str, str]]) -> Corridor | None:
        """The corridor whose hand, already over its pile (it came in before: a player slapping their own pile just
        before them, or the pile their hand has just laid a card on), was still moving into the frame of the sound
        at ``t`` and came to rest within two frames after it: the hand whose impact it was. Its edge cannot show the
        landing, having been past the pile's centre for frames (rendered Snap 4p s11 3.25 s: B's hand, on B's pile since
        laying a card, hit it 39 ms before B's other hand hit C's; 4p s12 12.08 s: C's on C's, 31 ms before C's
        other hand hit A's). None when no hand or two did so."""
        dt = 1.0 / self.fps
        found: list[Corridor] = []
        for c in self.corridors:
            if not self.slappable(c.zone) or (c.zone, c.player) in exclude:
                continue
            around = [r for tt, _, r in c.past if t - 2 * dt <= tt <= t + 3 * dt]
            if len(around) < 4 or min(around) < c.s_centre:
                continue  # (not over the pile all the while)
            wrist = [(tt, w) for _, tt, w in c.wrist]
            peak = max((w for tt, w in wrist if t - 2 * dt <= tt <= t), default=0.0)
            # (at rest, or nearly: a palm pressed down still stirs the wrist's sleeve a little)
            still = max(2 * self.still_rows, 0.4 * peak)
            rest = next((tt for tt, w in wrist if tt > t and w <= still), None)
            if peak > 2 * self.still_rows and rest is not None and rest <= t + 2 * dt:
                found.append(c)
        return found[0] if len(found) == 1 else None

    def _came_again(self, c: Corridor) -> bool:
        """Whether an arrival on a zone that stayed covered was a slap: its own edge, not the reach (others' arms
        make that too), came in fast for the two frames before it stopped and got to the zone's centre. A hand
        taking a pile or going back after laying a card jumps about: forward a frame, back the next."""
        f = c.front[-4:-1]  # up to the frame before it stopped: the contact
        return len(f) == 3 and f[0] >= 0 and f[2] >= c.s_centre and min(f[1] - f[0], f[2] - f[1]) >= self.min_step

    def _settle(self, index: int, final: bool = False) -> list[SlapSeen]:
        """Arrivals held ``hold_frames`` frames, then given out; an arm reaching over a nearer pile to slap a
        farther one on the same line from the shoulder passes over both: only the far one is a slap. An arrival
        on a zone that stayed covered must also have stayed (a palm that slapped rests on the pile, a hand on its
        way to take a pile passes on), and is no slap when the same player's hand landed on a farther pile on the
        same line in the frame before: that is the arm following its hand over the near pile. Either way the arm
        covers the near pile's corridor to its far end; a player's two hands, one on each pile, do not."""
        out: list[SlapSeen] = []
        keep: list[tuple[SlapSeen, Corridor, bool]] = []
        for seen, c, again in self._held:
            if not final and index - seen.frame < self.hold_frames:
                keep.append((seen, c, again))
                continue
            lo, hi = (-0.05, 0.02) if again else (-0.02, 0.02)  # (the far one's time less this one's)
            others = [(o, oc) for o, oc, _ in self._held] + list(self._given)
            # (an arm on its way to the far pile covers the near one's corridor to its far end; a hand that
            # stopped on the near pile, the player's other hand slapping the far one, leaves its end bare)
            to_far_end = c.covered_to_end(seen.t_frame) or c.covered_to_end(seen.t_frame + 1 / self.fps)
            beyond = c.covered_to_end(seen.t_frame) and any(
                o.player == seen.player and o.zone != seen.zone and lo <= o.t_frame - seen.t_frame <= hi
                and c.leads_on_to(oc) for o, oc in others)
            landed_by = self._landed_by(c, seen.frame)
            # (a reach held by its forearm when the hand stopped must go on covering the pile: an arm going back
            # clears the strip from the seat's side first, and its forearm is what is left for a frame)
            if {seen.frame, seen.frame + 1} & set(c.held_frames) and not final and min(
                    (r for tt, _, r in c.past if tt > seen.t_frame + 1.5 / self.fps), default=0.0) < c.s_centre:
                continue
            # a palm that slapped rests on the pile; a hand that never comes to rest there (a card dealt past it,
            # an arm reaching across) slapped nothing (at the end of the video, there is no telling); nor one whose
            # wrist is still only because it has gone (its reach short of the centre when it came to rest)
            if landed_by is not None and not self._rests_on(c, landed_by):
                continue
            if not beyond and not (again and c.left >= seen.frame) and (landed_by is not None or final):
                # a hand still moving frames after it first showed down may have landed as late as that
                settling = 0.0 if landed_by is None else max(0.0, landed_by - seen.t_frame)
                late = 0.0 if landed_by is None else landed_by + LAST_CM_FRAMES / self.fps - seen.t_frame
                # (the interval t ± t_err still holds both the frame first seen down and the wrist's last move)
                t = seen.t_frame + SETTLE_SHARE * settling
                seen = dataclasses.replace(seen, t=t, t_video=t, t_err=max(seen.t_err, late), landed_by=landed_by,
                                           arm_from=(float(c.u[0]), float(c.u[1])), to_far_end=to_far_end)
                out.append(seen)
                self._given.append((seen, c))
        self._held = keep
        return out

    def went_on(self, seen: SlapSeen, later: list[SlapSeen], within_s: float = 0.15) -> bool:
        """Whether the arm seen down on ``seen.zone`` was on its way to a farther pile: it covered its strip to the
        far end, and the same player's hand came down on a pile farther along the same line from their shoulder
        within ``within_s`` after (rendered Snap 2p s238 12.87 s: A's arm over A's pile, its hand down on B's 0.1 s
        later). ``later``: the slaps to look among (the caller's: those heard, when the near one was not)."""
        if not seen.to_far_end:
            return False
        near = self._corridor.get((seen.zone, seen.player))
        if near is None:
            return False
        for o in later:
            far = self._corridor.get((o.zone, o.player))
            if o.player == seen.player and far is not None and near.leads_on_to(far) \
                    and 0 < o.t_frame - seen.t_frame <= within_s:
                return True
        return False

    def _rests_on(self, c: Corridor, landed_by: float) -> bool:
        """Whether the hand is over the pile (the reach past its centre) in the frame after ``landed_by``, when its
        wrist was first still: a hand lifting off the pile leaves its wrist as still as one resting there (rendered
        Snap 2p s5 6.81 s: A's hand, resting under B's since their Snap Pot and taken into the background, showed
        again as B's lifted, swept back over the pile and was gone the next frame: a slap by the arrival rules)."""
        after = [r for tt, _, r in c.past if tt > landed_by + 1e-6]
        return not after or after[0] >= c.s_centre

    def _landed_by(self, c: Corridor, frame: int) -> float | None:
        """The time of the last frame in which the hand that landed in ``frame`` still moved: its wrist (the strip
        just outside the zone on its side) is still from the next frame on. A camera shows a hand moving while
        it travels: two hands that both first show down in one frame are told apart by the one still settling in
        the next (it landed later). None when the wrist did not come to rest in the frames held."""
        for (_, t0, _), (j, _, w) in itertools.pairwise(c.wrist):
            if j > frame and w <= self.still_rows:
                return t0
        return None

    def arm_on(self, zone: str, t0: float, t1: float, min_cover: float = 0.25, exclude: frozenset[str] = frozenset()
               ) -> str | None:
        """The player whose hand was over the strip just outside ``zone`` on their side between ``t0`` and ``t1``
        (the most of it, on average, and at least ``min_cover``): the hand that laid a card there holds its near
        edge. None when no hand was there, or two were equally. ``exclude``: players known not to have laid it."""
        best: list[tuple[float, str]] = []
        for (z, p), hist in self.reached.items():
            if z == zone and p not in exclude:
                cover = [d for t, d in hist if t0 <= t <= t1]
                if not cover:
                    best.append((0.0, p))
                    continue
                # the hand that lays a card rests there as it lands; one coming in (to play next) or going
                # back (from the card before) sweeps across: its cover changes fast, so that counts against it
                best.append((float(np.mean(cover)) - abs(cover[-1] - cover[0]), p))
        best.sort(reverse=True)
        if not best or best[0][0] < min_cover or (len(best) > 1 and best[1][0] >= best[0][0] - 0.05):
            return None
        return best[0][1]

    def arrivals_on(self, zone: str, t0: float, t1: float, min_cover: float = 0.25) -> list[str]:
        """The players whose hands came over the strip outside ``zone`` between ``t0`` and ``t1``, first come
        first: two cards landing on a pile together were laid in the order their hands arrived."""
        first: list[tuple[float, str]] = []
        for (z, p), hist in self.reached.items():
            if z == zone:
                ts = [t for t, d in hist if t0 <= t <= t1 and d >= min_cover]
                if ts:
                    first.append((ts[0], p))
        return [p for _, p in sorted(first)]

    def finish(self) -> list[SlapSeen]:
        """The arrivals still held at the end of the video."""
        return self._settle(0, final=True)

    def _contact(self, c: Corridor, index: int) -> SlapSeen | None:
        """Contact at the frame :func:`contact_step` picks from the edge's last advances (``t_err``: a frame),
        ``index`` being the last frame that moved; None when they were no slap's."""
        dt = 1.0 / self.fps
        front = c.front[:-1]  # up to the last frame that moved: ``index``
        k = contact_step(front, self.min_step, self.creep_rows)
        quick = k is None and c.zone == f"pile:{c.player}" and quick_step(front, self.min_step)
        if quick:
            k = len(front) - 1
        if k is None:
            return None
        t = c.times[:k + 1]
        index -= len(front) - 1 - k
        # the last advancing frame is the first to show the palm down (its blurred edge runs ahead of it in the
        # frames before): the contact is taken at that frame, give or take a frame. Half a frame either way would
        # be the sampling alone; a hand arriving on a pile other hands already crowd is seen down early (moved
        # later by :meth:`_settle`), and a slap timed by the video alone must not be ordered before one timed by
        # its sound that it may have followed (TM-3)
        est = t[-1]
        j = k
        while j > 0 and front[j - 1] >= c.s_centre:
            j -= 1
        return SlapSeen(est, c.zone, c.player, dt, index, est, at_centre=t[j], quick=quick,
                        t_approach=approach_time(front, t, k, c.s_centre))


#: :func:`approach_time`: the hand is taken to land where its leading edge is this many rows short of the pile's centre
#: (its fingers reach past where the blurred edge shows; fitted on 65 slaps of rendered Slapjack and Snap games: the
#: estimate then lies a steady 0.9 frame before the contact, within 0.25 frame of that in half the slaps, 0.6 in 90 %)
APPROACH_SHORT_ROWS = 4.0
#: and at most this many frames after the frame before the one that showed it down (a slow last step says little)
APPROACH_MOST = 1.5
#: and the contact comes about this many frames after it (the median on those 65 slaps): where several sounds may be a
#: hand's, the one nearest then is (on 45 such slaps, 39 right, against 22 for the first of them)
APPROACH_LAG = 0.9
#: two hands first seen down in one frame whose :func:`approach_time` differ by this share of a frame or more are
#: ordered by it (on 14 pairs of hands on one pile under 70 ms apart, the difference of the estimates was within
#: 0.5 frame of the truth's except for one pair, a hand on its own near pile: +23 ms read as -15 ms)
APPROACH_APART = 0.5


def approach_time(front: list[float], times: list[float], k: int, s_centre: int) -> float | None:
    """When a hand whose edge was first shown down in frame ``k`` (``front``: its leading edge, rows, per frame of
    ``times``; -1 nothing moved) got there, to a fraction of a frame: from the frame before, at the speed of the step
    into it, to :data:`APPROACH_SHORT_ROWS` short of the centre. A camera samples a fast hand every 33 ms; two
    hands landing 25 ms apart are often seen down in the same frame, and their sounds say when but not whose.
    The estimate is early by about a frame for every hand alike, so only differences are meant. None when the
    hand was not seen in the two frames before."""
    if k < 2 or front[k - 2] < 0 or front[k - 1] <= front[k - 2]:
        return None
    speed = front[k - 1] - front[k - 2]
    share = (s_centre - APPROACH_SHORT_ROWS - front[k - 1]) / speed
    return times[k - 1] + min(max(share, 0.0), APPROACH_MOST) * (times[k] - times[k - 1])


def contact_step(front: list[float], min_step: float, creep_rows: float) -> int | None:
    """Which of a stopped hand's leading edges (``front``: rows per frame, up to the last that moved; -1 nothing
    moved) was its contact, or None when it was no slap: an edge that did not come in over several frames (an arm
    that appeared at once: a hand going back past a card just laid) or that came in slowly (a hand laying a card
    down slows to a stop, its edge creeping the last frames)."""
    f = front
    if len(f) < 3 or min(f[-3:]) < 0:
        return None
    # a slap is still fast in its last frame or two before it stops dead
    if max(b - a for a, b in zip(f[-3:], f[-2:], strict=False)) >= min_step:
        return len(f) - 1
    # or it came in fast for two frames and then crept ``creep_rows`` at most: a hand arriving on a pile other
    # hands already crowd (its fingers spread over theirs); the contact was its last fast step
    k = len(f) - 1
    while k >= 3 and f[k] - f[k - 1] < min_step and f[-1] - f[k - 1] <= creep_rows:
        k -= 1
    if k >= 2 and min(f[k - 2:k + 1]) >= 0 and min(f[k] - f[k - 1], f[k - 1] - f[k - 2]) >= min_step:
        return k
    return None


#: a two-frame arrival's second step, in ``min_step``s, for :func:`quick_step`
QUICK_STRIDE = 3.0
#: an impact this near (s) a quick arrival's contact makes it a slap (:func:`unheard_quick`)
QUICK_HEARD_S = 0.02


def quick_step(front: list[float], min_step: float) -> bool:
    """Whether a stopped hand came in so fast that two frames show it, the second a long stride on from the first
    (:data:`QUICK_STRIDE`), where :func:`contact_step` asks for three: a player's hand on their own pile, just before
    them (rendered Snap 4p s11 10.47 s: rows 2 -> 23, C's hand on the same pile 3 ms later). An arm seen at once, in
    one frame, is not one; nor is a hand that was moving in the frame before the two."""
    f = front
    return len(f) >= 2 and min(f[-2:]) >= 0 and f[-1] - f[-2] >= QUICK_STRIDE * min_step and (len(f) < 3 or f[-3] < 0)


def unheard_quick(slaps: list[SlapSeen], onsets: list[Onset], within_s: float = QUICK_HEARD_S) -> list[SlapSeen]:
    """Without the quick arrivals (:func:`quick_step`) that no impact was heard with (one heard, taken by another
    hand or not: two hands a few ms apart make one sound): two frames alone are little to call a slap on (rendered
    Snap 4p s12 16.83 s: D's hand on D's own pile, no slap and no sound; a slap invented when sound was not asked)."""
    times = np.array([o.t for o in onsets])
    return [s for s in slaps if not s.quick or (times.size > 0 and float(np.abs(times - s.t_video).min()) <= within_s)]


#: a sound this long (s) after a hand was seen at rest is late for it (on 135 slaps of rendered Slapjack and Snap games
#: the contact came at most 21 ms after, 5 % more than 11 ms after): another hand still moving then may take it
LATE_SOUND_S = 0.01


def fuse_audio(slaps: list[SlapSeen], onsets: list[Onset], before_s: float = 0.1, after_s: float = 0.06,
               used: set[int] | None = None, same_frame_s: float = 0.01, frame_s: float = 1 / 30) -> list[SlapSeen]:
    """Give each video slap the impact onset that timed it: the onsets within [t - before, t + after] of its
    video contact, taken in time order by the slaps in the order their hands landed (:func:`_landing_order`; so two
    hands in one frame take the two onsets in order), none later than a hand was at rest. An onset more than a frame
    and a half before the video contact is passed over when another lies within a frame of it: that earlier sound is
    a hand the video missed, not this one; one more than :data:`LATE_SOUND_S` after the hand was at rest is left to
    a hand on another pile still moving then, whose only sound it is. A slap without an onset keeps its video time
    and uncertainty. ``used``:
    indices of onsets already given to earlier slaps (kept across calls when slaps come a frame at a time).
    ``frame_s``: the video's frame interval."""
    out: list[SlapSeen] = []
    used = set() if used is None else used
    times = np.array([o.t for o in onsets]) if onsets else np.zeros(0)
    order = _landing_order(slaps, frame_s)

    def candidates(s: SlapSeen) -> list[int]:
        # a hand is down by the frame after which it stopped moving, give or take the last centimetres (its wrist
        # goes still as its palm settles: some slack); a later sound is another hand's, however near its contact
        down_by = np.inf if s.landed_by is None else s.landed_by + LAST_CM_FRAMES * frame_s
        last = max(s.t_frame + after_s, min(down_by, s.t_frame + 3 * frame_s))
        lo, hi = np.searchsorted(times, s.t_frame - before_s), np.searchsorted(times, last, side="right")
        return [i for i in range(lo, hi) if i not in used and times[i] <= down_by]

    for k, s in enumerate(order):
        free = candidates(s)
        # a hand hitting the table is loud, a card landing far softer: of the sounds that may be this hand's, a loud one
        # is (rendered Slapjack 3p s6 3.35 s: C's JD tapped down 60 ms before B's hand hit it, and B's slap took the
        # tap's time, before the jack showed)
        loud = [i for i in free if onsets[i].strength >= SLAP_SOUND_DB]
        free = loud or free
        pick = free[0] if free else None
        if pick is not None and s.t_frame - onsets[pick].t > 1.5 * frame_s:
            pick = next((i for i in free if abs(onsets[i].t - s.t_frame) <= frame_s), pick)
        # of several sounds, the one nearest to when its edge's last steps say it landed (rendered Snap 4p s12 12.08 s:
        # C's hands on C's pile and on A's 31 ms apart; the one on A's, seen down at 12.100 s, took the first sound).
        # Not where another hand came down on the same pile within a frame or so: which of them came first is the
        # question there, and the rules above answer it (a hand on its own near pile comes in unlike one from across:
        # rendered Snap 3p s12 3.56 s, A's and B's 23 ms apart, read 16 ms the other way)
        crowded = any(o is not s and o.zone == s.zone and abs(o.t_frame - s.t_frame) <= 1.5 * frame_s for o in slaps)
        if len(free) > 1 and s.t_approach is not None and not crowded:
            due = s.t_approach + APPROACH_LAG * frame_s
            pick = min(free, key=lambda i: abs(onsets[i].t - due))
        # a sound that came well after this hand was at rest, the only one left for a hand on another pile still
        # moving then, is that hand's (rendered Snap 4p s11 18.5 s: D's hand, at rest by 18.50 s, took A's 18.515
        # s sound, B's and D's 7 ms apart being one: A was left with none, and B's snap was no Snap Pot)
        if pick is not None and s.landed_by is not None and onsets[pick].t > s.landed_by + LATE_SOUND_S and any(
                r.zone != s.zone and r.landed_by is not None and r.landed_by >= onsets[pick].t
                and candidates(r) == [pick] for r in order[k + 1:]):
            pick = None
        if pick is None:
            out.append(s)
            continue
        used.add(pick)
        o = onsets[pick]
        out.append(dataclasses.replace(s, t=o.t, t_err=max(o.t_err, 0.0005), source="audio+video",
                                       strength=o.strength))
    # two hands the frames put at the same moment: the sounds say when, not whose, unless one hand was still
    # settling when the other was at rest, or was over the pile's centre a frame later, or was coming in half a frame
    # behind (it took the later sound); otherwise their times keep that doubt
    for i, a in enumerate(out):
        for b in out[i + 1:]:
            same_frame = a.zone == b.zone and abs(a.t_frame - b.t_frame) < same_frame_s
            if same_frame and a.source == b.source == "audio+video" and not _settled_apart(a, b) \
                    and not _centred_apart(a, b, frame_s) and not _approached_apart(a, b, frame_s):
                doubt = abs(a.t - b.t)
                out = [dataclasses.replace(x, t_err=max(x.t_err, doubt)) if x is a or x is b else x for x in out]
    return sorted(out, key=lambda x: x.t)


def _landing_order(slaps: list[SlapSeen], frame_s: float) -> list[SlapSeen]:
    """The slaps in the order their hands landed, as far as the video says: by their contact frames, except that of
    two hands on one pile whose contacts are at most a frame apart, the one that came to rest first landed first
    when that can be seen (:func:`_settled_apart`): a hand arriving on a hand already there is seen down a frame
    early (its edge meets the other's fingers), but it is still moving after the first is at rest."""
    # (in one frame, the hand over the pile's centre sooner first, then the hand at rest sooner, even where that is
    # not proof: it cannot take a later sound)
    order = sorted(slaps, key=lambda x: (x.t_frame, x.frame, np.inf if x.at_centre is None else x.at_centre,
                                         np.inf if x.landed_by is None else x.landed_by))
    for _ in range(len(order)):
        swapped = False
        for i, (a, b) in enumerate(itertools.pairwise(order)):
            if a.zone == b.zone and b.t_frame - a.t_frame <= 1.5 * frame_s and _settled_apart(a, b) \
                    and b.landed_by < a.landed_by:
                order[i], order[i + 1] = b, a
                swapped = True
        if not swapped:
            break
    # two hands first seen down in one frame that neither of those tells apart: the one coming in half a frame or more
    # ahead landed first (rendered Slapjack 3p s7 7.40 s: A's and C's hands 26 ms apart, read 24 ms apart). So too
    # where their wrists say otherwise but neither pile is the hand's own: an arm coming in across the other's wrist
    # strip keeps it moving (rendered Snap 4p s6 3.76 s: D's hand on B's pile 38 ms before A's, D's wrist crossed by
    # A's arm; the wrists said A first, the approaches D, 34 ms ahead)
    for i, (a, b) in enumerate(itertools.pairwise(order)):
        if a.zone == b.zone and abs(a.t_frame - b.t_frame) < 1e-6 \
                and (not _settled_apart(a, b) or not (_own_pile(a) or _own_pile(b))) \
                and not _centred_apart(a, b, frame_s) and _approached_apart(a, b, frame_s) \
                and b.t_approach < a.t_approach:
            order[i], order[i + 1] = b, a
    return order


def _own_pile(s: SlapSeen) -> bool:
    """Whether the hand came down on its own player's pile (Snap): near its seat, it comes in unlike one from across
    (:data:`APPROACH_APART`)."""
    return s.zone == f"pile:{s.player}"


def _approached_apart(a: SlapSeen, b: SlapSeen, frame_s: float) -> bool:
    """Whether of two hands first seen down in one frame, one was coming in :data:`APPROACH_APART` of a frame or
    more ahead of the other (:func:`approach_time`): it landed first."""
    if a.t_approach is None or b.t_approach is None:
        return False
    return abs(a.t_approach - b.t_approach) >= APPROACH_APART * frame_s


def _centred_apart(a: SlapSeen, b: SlapSeen, frame_s: float) -> bool:
    """Whether of two hands first shown down in one frame, one's edge was over the pile's centre a frame or more
    before the other's: that hand came down first (a hand shows over the pile a little before its palm meets it, by
    about as long for each)."""
    if a.at_centre is None or b.at_centre is None:
        return False
    return abs(a.at_centre - b.at_centre) >= 0.5 * frame_s


def _settled_apart(a: SlapSeen, b: SlapSeen, opposite: float = -0.7) -> bool:
    """Whether two hands that first show down in one frame came to rest in different frames, as far as the video
    can tell: not for arms from opposite sides of the pile, where the later hand's fingers reach over the first
    hand's wrist (its stillness is not seen)."""
    if a.landed_by is None or b.landed_by is None or a.landed_by == b.landed_by:
        return False
    if a.arm_from is None or b.arm_from is None:
        return False
    return float(np.dot(a.arm_from, b.arm_from)) > opposite


#: a hand heard hitting the pile laid the card there only if the card showed at least this long (s) after the hand was
#: first seen down (its card shows as it lets go; in the frame the hand came down, the card was there before it)
HEARD_LAID_S = 0.02


def drop_dealing(slaps: list[SlapSeen], cards: list[tuple[float, str]], before_s: float = 0.2,
                 after_s: float = 0.1, own_before_s: float = 0.45) -> list[SlapSeen]:
    """Without the hands that laid cards: a "slap" on a pile within ``before_s`` before (or ``after_s`` after) a new
    card showed there is the hand that put it down. On one's own pile (``pile:P`` by P, Snap), where the hand lays
    its card after a short reach, up to ``own_before_s`` before (rendered Snap 2p s5 6.93 s: B's hand held its QC
    over B's pile 367 ms before letting go; 0.35 s had made it a slap); on another's, never (its owner lays its
    cards: that hand slapped, anticipated, TM-2). A hand heard hitting the pile (:data:`SLAP_SOUND_DB`) after the
    card showed (or in the same frame, :data:`HEARD_LAID_S`) slapped it: the hand that lays a card is down before the
    card shows, and puts it down softly (rendered Slapjack 3p s6 3.35 s: C's JD, B's hand on it 60 ms later,
    anticipated; the dealing hands of 24 rendered Slapjack and Snap games were all down 33 ms or more before their
    cards showed). ``before_s``: rendered Slapjack 4p s11 15.06 s, C's hand seen down 167 ms before its 5C showed
    (0.15 s made it a false slap); the slaps of all 27 rendered slap games came 268 ms or more before the next card
    laid on their pile.
    ``cards``: (time the card first showed, zone)."""
    def laid(s: SlapSeen) -> bool:
        if s.zone.startswith("pile:") and s.zone != f"pile:{s.player}":
            return False  # (a Snap pile's cards are laid by its owner: another's hand on it slapped, if too soon)
        before = own_before_s if s.zone == f"pile:{s.player}" else before_s
        heard = s.source != "video" and s.strength is not None and s.strength >= SLAP_SOUND_DB
        return any(z == s.zone and (HEARD_LAID_S if heard else -after_s) <= t - s.t_frame <= before for t, z in cards)

    return [s for s in slaps if not laid(s)]


def slaps_in_video(path: str, layout: Layout, zones: list[str], use_audio: bool = True,
                   cards: list[tuple[float, str]] | None = None, closed: Iterable[str] = ()) -> list[SlapSeen]:
    """Every slap in a video file (video alone, then timed by its audio track when it has one and ``use_audio``);
    ``cards`` (when each card showed, and where) drops the hands that laid them (:func:`drop_dealing`); ``closed``
    zones are watched but not slapped (:attr:`SlapDetector.closed`).
    For tests and benchmarks; the audit runs the same detector inside its single pass over the frames."""
    det = SlapDetector(layout, zones, probe(path).fps or 30.0)
    det.closed |= set(closed)
    found: list[SlapSeen] = []
    for fr in read_video(path):
        found += det.update(fr.index, fr.t, fr.image)
    found += det.finish()
    if cards is not None:
        found = drop_dealing(found, cards)
    if not use_audio:
        return unheard_quick(found, [])
    try:
        samples, rate, t0 = read_audio(path)
    except VideoError:
        return unheard_quick(found, [])
    onsets = impact_onsets(samples, rate, t0)
    return fuse_audio(unheard_quick(found, onsets), onsets, frame_s=1 / det.fps)
