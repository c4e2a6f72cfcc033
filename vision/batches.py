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

import itertools
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from calibration.homography import map_points
from engine.cards import rank
from models.classes import FACES
from models.detector import Detections
from vision.fan import Fit, FlatView, card_corners, fit_batch, fit_turned, refit_cards
from vision.tracking import FACE_EXCLUDE, MOVED_GREY, STILL_FRAMES, PileTracker, _box_shift

#: a hand box the detector is at least this sure of is a hand; one it is less sure of is a hand only while something
#: moves under it (rendered Cheat s12: the striped cloth beside a still pile is a hand at 0.31-0.33 for seconds, and
#: two batches laid there went unseen; in 3 games no hand from 0.35 on came without motion over the pile)
SURE_HAND = 0.5
#: ... unless it lies still, nothing moving under it, for this long: a hand over the pile lays or takes cards and goes;
#: a box that stays is the cloth (rendered Cheat 2p s21, a pink-striped cloth: a "hand" boxed 0.5-0.66 over half the
#: pile for seconds at a time, nothing moving, and 11 of 15 batches missed; s21 2 and 3 players, batches, reveals and
#: take-backs right 5 -> 13 of 30; the 18 games of seeds 238, 11, 12 and 5-7 as before)
STILL_HAND_S = 0.7
STILL_HAND_SHIFT = 0.05  # (the same box: no edge moved more than this share of its size)
#: a look is settled when it shows as many backs boxed at least this surely as the look before (and the same faces):
#: a back boxed less surely comes and goes from look to look while nothing moves (rendered Cheat 2p s238 16.27 s: a
#: fan of four, boxed 0.90 0.69 0.31, then 0.91 0.71, then the next player's card came over it; never settled)
SURE_BACK = 0.5
#: a card turned up is read from what shows of it when its best match with the deck's pictures is at least this
#: (rendered Cheat 2p s11 6.36 s: 3C's strip under 3S matched 0.288, right; at 0.3 the detector's one name stood, a
#: reveal of one card for a batch of two, refused; at 0.25, of nine games' reveals, one more read right, none less)
TURNED_MATCH = 0.25
#: of a card's matches within this of its best (look-alikes: a strip of 6H or 6D, of 2S or 3C, shows an index a few
#: pixels high), one of the rank the batch was claimed as is the read, as :func:`models.deckmatch.deck_read` does
#: with the cards a table expects
CLAIMED_CLOSE = 0.03
#: a card the detector named this surely in the look that turned the batch up is the read of a turned card that
#: matches it within :data:`CLAIMED_CLOSE` of its best (the deck's pictures of one rank's courts differ by their
#: suit marks alone: rendered Cheat 2p s12 5.0 s, JS on top, boxed JS 0.9, matched JC JS JH JD 0.87 each, read JC).
#: Only a card shown whole is named that surely: strips under it are named 0.5-0.7, often wrongly (4p s7 11.05 s:
#: 5S's strip, 4S 0.65)
NAMED_SURE = 0.8
#: a reveal whose least sure card matches its read less than this is read again on a second fit of the batch, its
#: top card turned a quarter (60-120 degrees) from the first fit's, and the fit whose least sure card is surer is
#: the read: the outer outline of a fan of three upright cards fits sideways rectangles about as well (rendered
#: Cheat s238 13.68 s: 10C 10H 10D fitted at 87-96 degrees and read 3D 7C JH, least sure 0.36; turned: 0.82). The
#: right poses' reads measured 0.45-0.95 least sure in 3 games, the wrong ones' 0.25-0.37.
TURNED_SURE = 0.5
READ_OPTIONS = 5  # a turned card's best matches among which the batch's read is chosen
MOST_JOINT = 5  # a batch of more cards than this is read card by card (5 options each: 3125 ways at most)


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
    #: ``count`` is sure: not where the outline fit that counted the batch was (:attr:`vision.fan.Fit.sure`)
    sure: bool = True


@dataclass
class BatchWatcher(PileTracker):
    """The Cheat pile; :meth:`look` takes a crop's detections (frame pixels) and returns what changed."""

    match: float = 0.3
    image_to_mm: np.ndarray | None = None  # the table's homography: with it, a batch is counted by its outlines
    deck: Any = None  # a models.deckmatch.DeckMatcher: with it (and the homography), a reveal is read card by card
    #: count a batch by its outlines (:mod:`vision.fan`) rather than by the detector's new boxes: the shipped
    #: detector boxes a fan as one card or two; a detector that boxes each card of a fan (``boxes_each_card`` set,
    #: as the stand-in that reads a rendered game's script does) is believed instead
    count_outlines: bool = True
    known_backs: list = field(default_factory=list)  # box centres and sizes of the last settled look's backs
    known_faces: tuple = ()
    _settled: np.ndarray | None = None  # the crop (grey) at the last settled look
    _sig: tuple | None = None
    _same: int = 0
    _view: FlatView | None = None
    _batch_poses: list = field(default_factory=list)  # the last batch's cards (vision.fan.CardPose), top first
    #: the crops (grey) the last batch was counted on: (now, the settled look before, whether that showed no card)
    _batch_looks: tuple | None = None
    _colour: np.ndarray | None = None  # the latest crop in colour (the deck's pictures are compared in colour)
    _faces_before: tuple = ()  # the faces of the look before, still or not
    _named: frozenset = frozenset()  # the faces the detector named surely in the latest look (NAMED_SURE)
    claimed: str | None = None  # the rank the last batch was claimed as (CH-2), when the watcher heard it
    _still_hands: list = field(default_factory=list)  # (since when, box) of the sure hand boxes lying still

    def remember(self, index: int, t: float, frame: np.ndarray,
                 glanced: tuple[np.ndarray, np.ndarray] | None = None) -> bool:
        if self.deck is not None:  # only a reveal read against the deck's pictures needs it
            x0, y0, x1, y1 = self.crop
            self._colour = frame[y0:y1, x0:x1].copy()
        return super().remember(index, t, frame, glanced)

    def unsettled(self) -> bool:
        return self._same < self.confirm

    def look(self, index: int, t: float, dets: Detections) -> BatchSeen | None:
        backs, faces = [], []
        sure_backs = 0
        named: set[str] = set()
        hands = False
        still_hands: list[tuple[float, tuple]] = []
        for b, c, n in zip(dets.xyxy, dets.confidence, dets.class_name, strict=True):
            if n == "hand":
                if self.moving(b):
                    hands = True
                elif c >= SURE_HAND:  # (one lying still for STILL_HAND_S is the cloth)
                    since = next((t0 for t0, kept in self._still_hands if _box_shift(kept, b) <= STILL_HAND_SHIFT), t)
                    still_hands.append((since, tuple(float(v) for v in b)))
                    hands = hands or t - since < STILL_HAND_S
                continue
            centre = ((b[0] + b[2]) / 2, (b[1] + b[3]) / 2)
            if c < self.min_conf or not self.zone.contains([centre])[0]:
                continue
            (backs if n == "back" else faces).append((str(n), tuple(float(v) for v in b)))
            sure_backs += n == "back" and c >= SURE_BACK
            if n != "back" and c >= NAMED_SURE:
                named.add(str(n))
        self._still_hands = still_hands
        faces = [(n, b) for n, b in faces if n not in FACE_EXCLUDE]
        self._named = frozenset(named)
        names = tuple(sorted(n for n, _ in faces))
        faces_before, self._faces_before = self._faces_before, names
        # (the detector misses a hand whose fingers alone reach into the crop: something moving over the pile is one;
        # where backs lie, over them (the fingers laying a card hold it), not anywhere on the zone: the next player's
        # hand coming in at its edge leaves the last batch lying still, and it is counted before the next covers it
        # (rendered Cheat 2p s238 16.09 s: four cards, 0.5 s before the next batch; grown by 0.15 of their box, the
        # backs were still too late: two of the four counted)
        if hands or self.moving(_union([b for _, b in backs]) if backs else None):
            self._sig, self._same = None, 0
            return None
        # a batch laid where the last one lay may leave the counts as they were: what changed is part of the look
        sig = (sure_backs, names, any(self._changed(b) for _, b in backs))
        self._same = self._same + 1 if sig == self._sig else 1
        self._sig = sig
        # a batch turned up may lie still for one look only before the loser's hand comes to pick the pile up
        # (rendered Cheat 2p s2: 0.33 s from the reveal to the take, one still look): the same faces seen in the look
        # before, still or not, settle it
        turned_up = bool(faces) and self._same == 1 and names == faces_before and names != self.known_faces
        if self._same != self.confirm and not turned_up:
            return None
        out: BatchSeen | None = None
        if not backs and not faces:  # picked up, or a batch laid whose backs the detector did not box
            out = self._unboxed_batch(index, t)
            self.known_backs, self.known_faces = [], ()
            self._settled = self._frames[-1][2] if self._frames else None
            return out
        if faces and names != self.known_faces:
            new_faces = [(n, b) for n, b in faces if n not in self.known_faces]
            box = _union([b for _, b in new_faces or faces])
            # (the detector's names, where the batch cannot be read card by card, each once: a deck holds each card
            # once, and the detector boxes one card two or three ways; rendered Cheat 4p s5: KS turned up, KS KS KS)
            cards = self._read_turned() or tuple(sorted(set(names)))
            out = BatchSeen(self._since(box, t), self.zone.name, "reveal", len(cards), cards, index, box)
        elif not faces:
            new: list[tuple] = []
            centre = self.zone.polygon.mean(0)
            # the pile squared under a batch may peek out where the batch's cards are: take the backs farthest
            # from the pile's middle first, and a back where one is already counted is the same place
            for _, b in sorted(backs, key=lambda nb: -float(np.hypot((nb[1][0] + nb[1][2]) / 2 - centre[0],
                                                                     (nb[1][1] + nb[1][3]) / 2 - centre[1]))):
                fresh = self._changed(b) or (self._settled is None and
                                             not any(self._same_card(b, o) for o in self.known_backs))
                if fresh and not any(self._same_card(b, o, 0.12) for o in new):
                    new.append(b)
            if new:
                box = _union(new)
                fit = self._count_fanned()  # (none: the detector's boxes, as they are, and sure)
                out = BatchSeen(self._since(box, t), self.zone.name, "facedown", len(fit) or len(new), (), index, box,
                                fit.sure)
            else:
                out = self._unboxed_batch(index, t)
        self.known_backs = [b for _, b in backs]
        self.known_faces = names
        self._settled = self._frames[-1][2] if self._frames else None
        return out

    def _count_fanned(self) -> Fit:
        """The cards of the batch just laid, fitted by their outlines (:mod:`vision.fan`; their count, and whether it
        is sure), or none where that cannot be done (no homography) or finds none: the detector sees a fan of two or
        three backs as one."""
        if self.image_to_mm is None or not self._frames or not self.count_outlines:
            return Fit()
        if self._view is None:
            self._view = FlatView.around(self.zone.polygon, self.image_to_mm, (self.crop[0], self.crop[1]))
        now = self._still_part(self._frames[-1][2])
        bare = self._settled is not None and not self.known_backs and not self.known_faces  # (the pile was taken)
        self._batch_looks = (now, self._settled, bare)
        self._batch_poses = fit_batch(now, self._view, self._settled, self._seams(), bare)
        return self._batch_poses  # (the top one changed)

    def _still_part(self, now: np.ndarray) -> np.ndarray:
        """``now`` (the crop, grey) with what is moving in it (against the frame :data:`STILL_FRAMES` before) shown as
        the last settled look showed it: a card in the next player's hand, coming in over the crop's edge while the
        batch lies still, is no card of the batch (rendered Cheat 2p s238 16.37 s: fitted on top, with a card's strip
        under it, and a fan of four counted six)."""
        if self._settled is None or len(self._frames) <= STILL_FRAMES or self._settled.shape != now.shape:
            return now
        moved = cv2.absdiff(now, self._frames[-1 - STILL_FRAMES][2]) > MOVED_GREY
        if not moved.any():
            return now
        moved = cv2.dilate(moved.astype(np.uint8), np.ones((9, 9), np.uint8)) > 0
        return np.where(moved, self._settled, now)

    def _seams(self) -> bool:
        """Whether the deck's back is printed to its edges (its picture in the deck folder says so): the cards of a
        fan are told apart by the seams of its pattern too (:func:`vision.fan.pattern_seams`)."""
        return bool(getattr(self.deck, "back_to_edge", False))

    def _unboxed_batch(self, index: int, t: float) -> BatchSeen | None:
        """A batch laid with no new back boxed (a back design the detector is unsure of: rendered Cheat s5's fine
        checks, boxed at 0.1-0.4 now and then): a settled look at the pile that differs from the last one where card
        outlines (:func:`vision.fan.fit_batch`) show a card laid since. Not where the last settled look showed a batch
        turned up (what changes next is the pile picked up), nor before a first settled look to compare with."""
        if self._settled is None or self.known_faces or self.image_to_mm is None or not self.count_outlines:
            return None
        kept = self._batch_poses, self._batch_looks
        fit = self._count_fanned()
        # the top card lies on the pile (its middle in the zone, as a back box's must): not a card in a hand coming in
        # over the zone's edge (rendered Cheat 4p s6 3.2 s: C's card, still, an arm's length from the pile)
        if not fit or not self.zone.contains(self._image_xy([fit[0].centre]))[0]:
            self._batch_poses, self._batch_looks = kept  # (the batch a reveal would turn up is still the last one)
            return None
        box = self._poses_box(fit)
        return BatchSeen(self._since(box, t), self.zone.name, "facedown", len(fit), (), index, box, fit.sure)

    def _poses_box(self, poses: list) -> tuple[float, float, float, float]:
        """The frame-pixel box around cards lying at ``poses`` (table mm), through the table's homography."""
        xy = self._image_xy(np.concatenate([card_corners(p.centre, p.angle) for p in poses]))
        return float(xy[:, 0].min()), float(xy[:, 1].min()), float(xy[:, 0].max()), float(xy[:, 1].max())

    def _image_xy(self, mm: Any) -> np.ndarray:
        """Table points (mm) in frame pixels, through the table's homography."""
        assert self.image_to_mm is not None
        return map_points(np.linalg.inv(np.asarray(self.image_to_mm, np.float64)), mm)

    def _read_turned(self) -> tuple[str, ...]:
        """The batch just turned up, card by card: each card of the last batch, where its outline was fitted when it
        was counted (it is turned up where it lay), read against the deck's pictures on what shows of it. The
        detector boxes a fan of faces as one or two cards and reads the top one twice. Empty where this cannot be
        done (no deck, or the batch was not counted by its outlines) or a card cannot be read: the detector's names
        stand then. A read this unsure of a card (:data:`TURNED_SURE`) is tried again on the batch fitted with its
        top card turned a quarter, where it finds as many cards."""
        if self.deck is None or self._colour is None or not self._batch_poses:
            return ()
        self._batch_poses, cards, sure = self._read_face_up(self._batch_poses)
        if sure < TURNED_SURE and self._batch_looks is not None and self._view is not None:
            now, before, bare = self._batch_looks
            turned = fit_turned(now, self._view, before, self._batch_poses[0].angle, self._seams(), bare)
            # as many cards as were counted (the referee holds the batch at that count: rendered Cheat s11 11.58 s,
            # two sideways cards fitted as one upright, were counted one; read two, the reveal was refused)
            if len(turned) == len(self._batch_poses):
                turned, turned_cards, turned_sure = self._read_face_up(turned)
                if turned_sure > sure:
                    self._batch_poses, cards = turned, turned_cards
        return cards

    def _read_face_up(self, poses: list) -> tuple[list, tuple[str, ...], float]:
        """The batch fitted face down at ``poses`` read where it lies face up (:func:`vision.fan.refit_cards`, the
        poses fitted again on the latest look; where the cards cannot be read there, at ``poses``): the poses read
        at, the cards and the least sure card's match (:meth:`_read_poses`). Nine rendered Cheat games' 31 reveals
        were read right 22 times at the face-down poses, 29 fitted again."""
        if self._view is not None and self._frames:
            up = refit_cards(self._frames[-1][2], self._view, poses)
            cards, sure = self._read_poses(up)
            if cards:
                return up, cards, sure
        return poses, *self._read_poses(poses)

    def _read_poses(self, poses: list) -> tuple[tuple[str, ...], float]:
        """The cards at ``poses`` (top first), sorted, and the best match of the least sure of them; nothing and 0
        where a card matches no picture :data:`TURNED_MATCH` well. The batch is read as a whole, one card of each
        (a deck holds each card once): of the ways to name its cards, the one that names the most of them as the
        claimed rank where that matches within :data:`CLAIMED_CLOSE` of the card's best, then the most as the
        detector named them surely (:data:`NAMED_SURE`), within as much, then the surest in all.
        Read card by card, the top card's look-alike (2S read 2C, 0.80 against 0.78) took the lower strip's own
        name, and the strip was read as its next best (3C): a true claim called false (rendered Cheat s11 3.48 s)."""
        scores = self.deck.read_posed(self._colour, [(p.centre, p.angle) for p in poses],
                                      (self.crop[0], self.crop[1]))
        options = []
        for sc in scores:
            order = [int(k) for k in np.argsort(-sc)[:READ_OPTIONS] if sc[k] >= TURNED_MATCH]
            if not order:
                return (), 0.0
            close = [sc[k] >= sc[order[0]] - CLAIMED_CLOSE for k in order]
            options.append([(k, float(sc[k]), rank(FACES[k]) == self.claimed and near, FACES[k] in self._named and near)
                            for k, near in zip(order, close, strict=True)])
        if len(options) > MOST_JOINT:  # (too many ways: card by card, top first)
            ways = [[]]
            for opts in options:
                taken = {w[0] for w in ways[0]}
                free = [o for o in opts if o[0] not in taken] or opts
                ways[0].append(next((o for o in free if o[2]), next((o for o in free if o[3]), free[0])))
        else:
            ways = [list(w) for w in itertools.product(*options) if len({o[0] for o in w}) == len(w)]
        if not ways:
            return (), 0.0
        best = max(ways, key=lambda w: (sum(o[2] for o in w), sum(o[3] for o in w), sum(o[1] for o in w)))
        return tuple(sorted(FACES[k] for k, _, _, _ in best)), min(o[1] for o in best)

    def _region(self, box: tuple) -> tuple[slice, slice]:
        """The card(s) but the outer rim, in crop pixels: a back's middle may be the table's own grey; its border
        is not."""
        x0, y0 = self.crop[0], self.crop[1]
        w, h = box[2] - box[0], box[3] - box[1]
        return (slice(max(0, int(box[1] + 0.1 * h - y0)), max(0, int(box[3] - 0.1 * h - y0))),
                slice(max(0, int(box[0] + 0.1 * w - x0)), max(0, int(box[2] - 0.1 * w - x0))))

    @staticmethod
    def _differs(now: np.ndarray, before: np.ndarray) -> bool:
        diff = np.abs(now.astype(np.int16) - before.astype(np.int16))
        return float(diff.mean()) >= 8.0 or float((diff >= 16).mean()) > 0.15  # (the noise alone: about 2-3)

    def _since(self, box: tuple, t_now: float) -> float:
        """The first of the recent frames from which ``box`` looked as it does now (the batch had landed)."""
        if not self._frames:
            return t_now
        reg = self._region(box)
        ref = self._frames[-1][2][reg]
        first = self._frames[-1][1]
        for _, t, grey in reversed(self._frames):
            if ref.size == 0 or self._differs(grey[reg], ref):
                break
            first = t
        return first

    def _changed(self, box: tuple) -> bool:
        """``box`` looks different from the last settled look: a card laid there since (a batch is laid where the
        pile is, so a new back may sit where an old one was)."""
        if self._settled is None or not self._frames:
            return False
        reg = self._region(box)
        now, before = self._frames[-1][2][reg], self._settled[reg]
        return now.size > 0 and now.shape == before.shape and self._differs(now, before)

    def _same_card(self, a: tuple, b: tuple, match: float | None = None) -> bool:
        ca = np.array([(a[0] + a[2]) / 2, (a[1] + a[3]) / 2])
        cb = np.array([(b[0] + b[2]) / 2, (b[1] + b[3]) / 2])
        size = max(a[2] - a[0], a[3] - a[1], 1.0)
        return bool(np.linalg.norm(ca - cb) < (self.match if match is None else match) * size)


def _union(boxes: list[tuple]) -> tuple[float, float, float, float]:
    a = np.array(boxes, float)
    return float(a[:, 0].min()), float(a[:, 1].min()), float(a[:, 2].max()), float(a[:, 3].max())
