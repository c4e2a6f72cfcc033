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
the pile is seen empty after a hand was over it (it was taken: a pile goes only in a hand; looks that see nothing
there with no hand since are the detector missing it, and the pile is looked at again at once).
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from calibration.layout import Zone
from engine.cards import JOKERS, rank, suit, value
from engine.games.paijie import ROW_OF
from models.detector import Detections, box_ious

FACE_EXCLUDE = frozenset({"back", "hand"})
#: a card first read this long (s) or less before its clean looks date it is dated by that read
READ_BOUND_S = 0.3
#: a pixel within this many grey levels (0-255) of a card's clean look still shows it as it was
SAME_GREY = 24
#: a read on the top's place, the top unread and partly covered, whose uncovered part (TOP_AS_IT_WAS_MARGIN px off
#: the covering boxes, at least TOP_AS_IT_WAS_SHOWS of its box) differs from the last look that read the top by at
#: most this (mean grey, 0-255: codec noise) is the top misread (:meth:`PileTracker._top_as_it_was`)
TOP_AS_IT_WAS_GREY = 8.0
TOP_AS_IT_WAS_MARGIN = 3
TOP_AS_IT_WAS_SHOWS = 0.25
#: a card partly under a hand shows at least this share of its telling pixels as in its clean look ...
PART_SHOWN = 0.3
#: ... and where it was not yet, less than this share of the least it showed partly (:meth:`PileTracker.first_seen`)
PART_GONE = 0.65
#: telling pixels: those that change by more than SAME_GREY when the clean look is shifted this many pixels
#: (and at least PART_TELLING of them, else the card's middle is too plain to tell)
PART_EDGE = 3
PART_TELLING = 30
#: a card's middle looked as it does now (walked back by :meth:`PileTracker.first_seen`) while this share of the
#: telling pixels of the two looks matched too, not only 80 % of all its pixels: a spot card's middle is mostly plain
#: white, and the next card laid just where it lay matched it (rendered Spit 2p s6: 4S on 5S dated back to 5S's
#: landing, 0.7 s before, and taken for 5S misread)
TELLING_SAME = 0.8
#: ... though up to this many frames in a row whose telling pixels matched less, all its pixels still matching, between
#: frames that matched both ways, are something passing over it (a shadow, a blur), not another card: no card comes
#: and goes again leaving the one there as it was (rendered Speed s238: 3C on the left pile, 9.567 s, matched 0.66 of
#: its telling pixels at 9.867 s, 0.9 and 1.0 on either side; dated 9.900 s it was a new card read 3S, "three on
#: three", and the real 3S played at 15.2 s was refused)
TELLING_DIP = 2
#: a card under the top read again where the top is not read, whose middle in its first clean look matches the frame
#: now in less than this share of its telling pixels' ink (shifted up to REPLAY_SHIFT pixels; paper matches paper
#: anywhere), was laid anew on the pile, not uncovered: taken back unseen and played again (rendered Speed s12 9.9 s:
#: 9S, taken back at 9.14 s under the hand laying 8S, played again on 7C, was taken for 8S taken back)
REPLAY_MATCH = 0.5
REPLAY_SHIFT = 2
#: (dx, dy) pixel shifts that must all match worse than unshifted: the card is at rest, not sliding in (rendered Spit:
#: a card at rest under a hand 0.59-0.68 unshifted against 0.44-0.56 shifted; one sliding the last pixels into its
#: place 0.38-0.54 against 0.53-0.59)
PART_SHIFTS = tuple((d * a, d * b) for d in (1, 2, 3, 5, 8) for a, b in ((1, 0), (-1, 0), (0, 1), (0, -1)))
#: a pile seen bare where cards lie is looked at again at every chance this many times (then as any still pile)
LOST_LOOKS = 4
#: a zone's middle within this mean grey level (0-255) of how it looked bare looks bare
#: (:attr:`PileTracker.bare_middle`)
BARE_GREY = 20.0
#: a card read in two looks in a row with its box within this share of its size (each edge) lay on the pile then
#: (:attr:`PileTracker.carried` is stricter: it must say whether a card is still *now*, to date it)
SETTLED_SHARE = 0.15
#: a card read less surely than ``min_conf`` but at least this surely, as the same code at one place
#: (:data:`SETTLED_SHARE`) in :data:`STEADY_LOOKS` looks in a row, one of them surely, is evidence all the same: a
#: misread of a card half under the hand that lays it changes as the hand moves away; a card read alike three
#: times lies there (rendered Speed s238 12.25 s: 4S laid on the left pile read 0.70, 0.61, 0.61 before the next
#: card covered it)
STEADY_CONF = 0.55
STEADY_LOOKS = 3
#: a new card's box within this share of the top's (each edge), though not the very same box, is the top read again
#: (:attr:`PileTracker.races` piles): rendered Speed and Spit (seeds 238 11 12) put cards laid on a centre pile 0.04
#: or more off the one under them; the two re-reads of a top as another code lay 0.005-0.009 off it
SAME_PLACE = 0.02
#: a box at most this share of the top's box (area), inside it, is on part of the top (:meth:`PileTracker._part_of_top`;
#: Speed s238's two were 0.26 and 0.31 of KD's)
PART_OF_TOP = 0.5
#: a card read once (:attr:`PileTracker.lay_once`) where another code was read too is that card, not one read two
#: ways, when it was read this much more surely than the other (rendered Speed s238: JD read 0.90 as it landed,
#: then JH at 0.78 as the next card came over it)
TWO_WAYS_MARGIN = 0.1
#: ... and only when the two were first read this close in time (s): a card read once, covered by the next card's
#: back on its way, and that card read at the same place half a second later are two cards (s238: JD, then 10D)
TWO_WAYS_S = 0.2
#: a slap pile's top read again, whole (its box's area within this factor of the one it was confirmed in, either way),
#: overlapping where it lay by less than PLAYED_AGAIN_IOU, after hands hid the pile, was won with its pile and played
#: anew (:attr:`PileTracker.won_unseen`)
PLAYED_AGAIN_AREA = 1.4
PLAYED_AGAIN_IOU = 0.6
#: a card of a slap pile under its top, read this surely and whole in this many looks running with the top read in none,
#: after hands hid the pile, was won with the pile and played again (:meth:`PileTracker._buried_played_again`)
BURIED_SURE = 0.85
BURIED_LOOKS = 2
#: a new card's reads (first look, first read, every read) and the looks that saw only a card back over the pile are
#: kept this long (s): what a confirmation, a race or a card read two ways is judged on
RECENT_READS_S = 1.5
#: a card shown under a top taken back, never seen before (:meth:`PileTracker._lay_under_taken_back`), within this
#: many seconds of the top's confirmation (rendered Speed: 0.5-0.7 s; the audit holds its lines 1.6 s to order them)
REVEALED_UNSEEN_S = 1.0


def _telling(look: np.ndarray) -> np.ndarray | None:
    """The telling pixels of a grey look at a card's middle (where it changes by more than SAME_GREY when shifted
    PART_EDGE pixels: pips, indices, figures), or None where too few of them (PART_TELLING) to tell by."""
    m = PART_EDGE
    h, w = look.shape
    if h <= 2 * m or w <= 2 * m:
        return None
    telling = np.zeros(look.shape, bool)
    for dx, dy in ((m, 0), (-m, 0), (0, m), (0, -m)):
        telling |= np.abs(np.roll(look, (dy, dx), axis=(0, 1)) - look) > SAME_GREY
    telling[:m], telling[-m:], telling[:, :m], telling[:, -m:] = False, False, False, False
    return telling if telling.sum() >= PART_TELLING else None


def _ink_match(grey: np.ndarray, region: tuple[int, int, int, int], telling: np.ndarray, want: np.ndarray,
               dx: int = 0, dy: int = 0) -> float:
    """Share of a clean look's ``telling`` pixels (values ``want``) that ``grey`` matches at ``region`` shifted by
    (``dx``, ``dy``): is that card still the one lying there? 0 where the shifted region leaves the frame."""
    y0, y1, x0, x1 = region
    if y0 + dy < 0 or x0 + dx < 0 or y1 + dy > grey.shape[0] or x1 + dx > grey.shape[1]:
        return 0.0
    now = grey[y0 + dy:y1 + dy, x0 + dx:x1 + dx]
    if now.shape != telling.shape:
        return 0.0
    return float((np.abs(now.astype(np.int16)[telling] - want) < SAME_GREY).mean())


def _box_shift(box: Any, other: Any) -> float:
    """How far ``other`` lies from ``box`` (x0 y0 x1 y1): the edge that moved most, as a share of ``box``'s size."""
    return max(abs(float(box[i]) - float(other[i])) for i in range(4)) \
        / max(float(box[2] - box[0]), float(box[3] - box[1]), 1.0)


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
    covered: bool = False  # it lay there before the card confirmed with it covered it (not a race: timed alone)
    #: when a look first read it here, if before ``t`` (a hand over it since kept ``t`` later): it landed about then
    t_read: float | None = None
    #: it is no new card: the top, confirmed before as this code (a read wrong), read surely at its place since
    misread: str | None = None


def shared_looks(trackers: Sequence[PileTracker], frame_size: tuple[int, int], min_side: int, most: int,
                 own: Sequence[str] = ()) -> list[tuple[tuple[int, int, int, int], list[PileTracker]]]:
    """Looks shared by neighbouring zones: one detector run on a crop that holds several zones, where that crop
    is no larger than ``most`` pixels a side (or than the largest of their own crops). Spit's columns and Pai
    Jie's rows lie close together: looked at one by one, the same table is detected several times a frame.
    The zones named in ``own`` keep a crop of their own (racing piles: their cards are timed to the frame)."""
    groups: list[list[PileTracker]] = [[tr] for tr in trackers]

    def group_crop(group: list[PileTracker]) -> tuple[int, int, int, int]:
        if len(group) == 1:
            return group[0].crop
        pts = np.concatenate([tr.zone.polygon for tr in group])
        return zone_crop(Zone("+".join(tr.zone.name for tr in group), pts), frame_size, min_side=min_side)

    while True:
        best: tuple[int, int, int] | None = None
        for a in range(len(groups)):
            for b in range(a + 1, len(groups)):
                both = groups[a] + groups[b]
                if any(tr.zone.name in own for tr in both):
                    continue
                c = group_crop(both)
                side = c[2] - c[0]
                if side <= max(most, *(tr.crop[2] - tr.crop[0] for tr in both)) and (best is None or side < best[0]):
                    best = (side, a, b)
        if best is None:
            break
        _, a, b = best
        groups[a] += groups.pop(b)
    return [(group_crop(g), g) for g in groups]


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


def _middle(box: Any) -> tuple[float, float, float, float]:
    """The middle of a card's box (60 % of each side): what shows of the card itself, whatever its turn."""
    x0, y0, x1, y1 = (float(v) for v in box)
    w, h = x1 - x0, y1 - y0
    return x0 + 0.2 * w, y0 + 0.2 * h, x1 - 0.2 * w, y1 - 0.2 * h


#: a look is still when, against the frame this many frames before, at most MOVED_SHARE of the place (a Cheat pile, a
#: card's place on a row) differs by more than MOVED_GREY grey levels (codec noise on a still table: 2-3)
STILL_FRAMES = 3
MOVED_GREY = 25
MOVED_SHARE = 0.003
#: a row's card is boxed with its neighbour when a box read as another card covers this share of its place and is
#: this much larger (two overlapping cards' box; the neighbour alone, left whole when a card is taken, is no larger)
MERGED_COVER = 0.7
MERGED_GROWTH = 1.25
#: a read on a row at the place of a row card not read in that look (its box and the card's this much alike, IoU),
#: naming a card that looks like it (a court of its suit, its rank in the other suit of its colour), is that card
#: misread: a card is laid over the end of the row's last, never where another lies (rendered Pai Jie 4p s11: D's KS
#: at the end of the spades row, read QS 0.77 from 4.8 s on, was taken for a QS laid and KS gone)
SAME_PLACE_IOU = 0.75
COURTS = ("J", "Q", "K")
#: ... and a read under STRADDLE_READ of a card not on the row, whose box lies over the places of two row cards, each
#: covering STRADDLE_SHARE of it, is a box straddling the two, not a card (rendered Pai Jie 4p s12 13.7 s: a box over
#: 6C and 7C read 3C 0.53, "a 3C laid"); so is one whose box lies inside the place of a row card not read in that
#: look, at most PART_OF_TOP of it: part of that card, the rest under a hand
STRADDLE_READ = 0.6
STRADDLE_SHARE = 0.35
#: ... and a read of a card not on the row whose middle lies on the wrong side of a row card's middle, by more than
#: this share of the row card's width, for the row's rank order (the order its own cards lie in, A..K one way or the
#: other), is no card laid there: a row runs in rank order, each card at its rank's place (rendered Pai Jie 2p s238
#: 14.5 s: 6S half under a hand and a card back read 3S 0.66, right of 5S, "a 3S laid")
ROW_ORDER_SLACK = 0.15
#: (where a row card lies: the median of its latest boxes read; its smallest one may be a strip of it)
ROW_BOXES_KEPT = 15


def suit_twins(a: str, b: str) -> bool:
    """Two cards a glimpse confuses: the same rank in the other suit of the same colour (rendered Spit s11's 7H, half
    under the hand that turned it up, read 7D)."""
    red = ("H", "D")
    return a != b and rank(a) == rank(b) and (suit(a) in red) == (suit(b) in red)


def _looks_like(a: str, b: str) -> bool:
    """Whether cards ``a`` and ``b`` are look-alikes a read confuses: two courts of one suit, or suit twins
    (:func:`suit_twins`; jokers are neither)."""
    if a == b or a in JOKERS or b in JOKERS:
        return False
    if suit(a) == suit(b):
        return rank(a) in COURTS and rank(b) in COURTS
    return suit_twins(a, b)


def _area(box: Any) -> float:
    return float((box[2] - box[0]) * (box[3] - box[1]))


def _cover(a: Any, b: Any) -> float:
    """The area (px) where boxes ``a`` and ``b`` overlap."""
    return max(0.0, min(float(a[2]), float(b[2])) - max(float(a[0]), float(b[0]))) * \
        max(0.0, min(float(a[3]), float(b[3])) - max(float(a[1]), float(b[1])))


def _centre_on_middle(box: Any, card: Any) -> bool:
    """Whether the centre of ``box`` lies on the middle of ``card`` (:func:`_middle`): a box on that card itself."""
    cx, cy = (float(box[0]) + float(box[2])) / 2, (float(box[1]) + float(box[3])) / 2
    return _overlap((cx, cy, cx, cy), _middle(card))


def _inside(box: Any, other: Any, slack: float = 0.04) -> bool:
    """Whether ``box`` lies within ``other``, give or take ``slack`` of ``other``'s size."""
    m = slack * max(float(other[2] - other[0]), float(other[3] - other[1]))
    return bool(box[0] >= other[0] - m and box[1] >= other[1] - m and box[2] <= other[2] + m and box[3] <= other[3] + m)


def _part_of(box: Any, whole: Any) -> bool:
    """Whether ``box`` lies inside ``whole`` (:func:`_inside`) and is at most :data:`PART_OF_TOP` of its area: a box
    on part of that card, not another card laid on it."""
    return _inside(box, whole) and _area(box) <= PART_OF_TOP * _area(whole)


def _overlap(a: Any, b: Any) -> bool:
    return bool(a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3])


@dataclass(frozen=True)
class RemoveSeen:
    """The top card left the pile into a hand (EVENTS.md ``remove``): the card under it shows again (a pile), or
    the rest of the row does and it does not (a Pai Jie row). ``t``: the first look that missed it."""

    t: float
    zone: str
    card: str
    frame: int


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
    _small: np.ndarray | None = None  # this frame's small crop
    _last_run: int = -10**9
    _hand_since_seen: bool = False  # a hand was over the pile since a look last saw a face on it with none over it
    _empty_runs: int = 0  # looks in a row that saw the pile gone (nothing on it after a hand was over it)
    _blank_looks: int = 0  # looks in a row that saw nothing on the pile, nor a hand or a card back over it
    forget_s: float = 3.0
    _last_seen: dict = field(default_factory=dict)  # code -> last time any run detected it here
    _last_look_t: float = -math.inf  # the time of the latest look (:meth:`update`)
    _seen_at: dict = field(default_factory=dict)  # code -> when it was confirmed as the top
    _frames: deque = field(default_factory=deque)  # (index, t, grey crop)
    _top_t: float | None = None  # when the current top card first showed
    removals: bool = False  # report a top card taken back (games with ``remove`` lines: Speed, Spit, Pai Jie)
    stack: list = field(default_factory=list)  # the confirmed tops, oldest first (the current top last)
    _missing: int = 0  # looks in a row that saw the cards under the top but not the top
    _missing_since: tuple[float, int] | None = None
    _under_shown: bool = False  # since then, a look read a card under the top, hands over the pile or not
    _first_missed: tuple[float, int] | None = None  # the first look that missed the top, a card back over it or not
    removed: list = field(default_factory=list)  # RemoveSeen, for the caller to collect
    emptied: list = field(default_factory=list)  # (top, t): the pile seen taken at t with that top, for the caller
    races: bool = False  # two new cards at two places may be confirmed together (Speed and Spit races)
    #: cards come here one at a time, from one hand, and none lands on a face-up one (a Spit column, ST-3): two codes
    #: confirmed in one look are one card read two ways, never a race nor a card covered by another (rendered
    #: held-out Spit 2p s7 4.37 s: A's 9H turned up on column 2, read 10H at 0.64 twice as the hand left it, then 9H
    #: at 0.9; the 10H was confirmed under the 9H, and the referee kept it there: "the ten goes on the jack")
    one_by_one: bool = False
    #: every card played here comes carried face down over the pile and is turned up as it lands (Speed's centre
    #: piles): a new face shown where no look saw a back since the top was confirmed, only hands, was under the top,
    #: and the top was taken back off it (:meth:`_lay_under_taken_back`)
    carried_face_down: bool = False
    _backs_over: deque = field(default_factory=deque)  # times of the recent looks that saw a card back on the pile
    _hands_over: deque = field(default_factory=deque)  # ... and a hand over it
    emptied_is_removal: bool = False  # a zone seen empty lost its card into a hand (``remove``), not to a take
    _empty_since: tuple[float, int] | None = None
    also: list = field(default_factory=list)  # cards confirmed with (and under) the one update returned
    _recent_all: deque = field(default_factory=deque)  # every new card of each recent run
    _first_look: dict = field(default_factory=dict)  # new card -> the first look that saw it with no hand over it
    _snap: dict = field(default_factory=dict)  # a race pile's card -> (crop region, its middle in a clean look)
    _first_read: dict = field(default_factory=dict)  # new card -> the first look that read it at all
    _read_where: dict = field(default_factory=dict)  # new card -> (frame index, box) of that first read
    _read_conf: dict = field(default_factory=dict)  # new card -> its surest read since that first read
    _reads: dict = field(default_factory=dict)  # new card -> [(t, box)] of every look that read it (RECENT_READS_S)
    _peeking: set = field(default_factory=set)  # cards under the top seen since it landed
    _misreads: set = field(default_factory=set)  # codes the top was read as (not cards of this pile), until covered
    _gone: dict = field(default_factory=dict)  # peeking card -> [since t, since frame, clear looks without it]
    #: cards are carried face up over the piles (Speed, Spit): one whose box edge moved more than this share of its
    #: size since the last look is in flight, not landed (None: no such check)
    carried: float | None = None
    #: with ``carried``: a card read once at this confidence or more lay on the pile too, if the next card covers it
    #: before a second look (None: two reads in a row are needed)
    lay_once: float | None = None
    _last_box: dict = field(default_factory=dict)  # new card -> its boxes in the last look that read it
    _settled: dict = field(default_factory=dict)  # new card -> (conf, box), read in two looks in a row at one place
    #                                                (or once, surely: ``lay_once``; those in ``_once``)
    _once: set = field(default_factory=set)
    _backs_only: deque = field(default_factory=deque)  # times of the recent looks that read no face under a back
    _steady: dict = field(default_factory=dict)  # code read -> (looks in a row at one place, its box, surest read)
    _box_at: dict = field(default_factory=dict)  # confirmed card -> its box in the look that confirmed it
    _box_read: dict = field(default_factory=dict)  # code -> its box in the latest look that read it
    _conf_at: dict = field(default_factory=dict)  # confirmed card -> how surely the look that confirmed it read it
    #: something moving over the zone is a hand, boxed or not: a pale sleeve on a grey cloth goes unboxed (Snap,
    #: Slapjack: a pile is not seen empty under it)
    unboxed_arms: bool = False
    #: a new card read once at this confidence or more, on a pile then covered and taken before a second look could
    #: confirm it, lay there (:meth:`_laid_and_taken`; None: it did not)
    read_before_take: float | None = None
    _bare_looks: int = 0  # looks in a row that saw no card on the zone and nothing over it
    #: a pile is seen taken only where its middle looks as it did bare (no card on it since, nothing over it): an arm
    #: resting over it that the detector does not box (a grey sleeve on a grey cloth) hides its cards, it does not
    #: take them (rendered Snap 4p s11 10.5 s: C's 10S under a resting sleeve for 0.8 s was seen taken, and seen laid
    #: anew after). Where no look saw it bare yet (a game watched from the middle), as before
    bare_middle: bool = False
    _bare_ref: np.ndarray | None = None  # the zone's middle (grey) in the latest look that saw it bare
    #: a pile may be won under hands and its top played again before it is seen bare (Slapjack, Snap): see
    #: :meth:`_played_again`
    won_unseen: bool = False
    _hid_top: bool = False  # hands were over the pile since the top was last read where it lay
    _buried: tuple[str, int] | None = None  # a card under the top read whole where the top is not, in how many looks
    #: the cards lie side by side, overlapping (a Pai Jie suit row), not on top of each other: see
    #: :meth:`_hidden_in_row`
    row: bool = False
    _place: dict = field(default_factory=dict)  # code -> its smallest box read (the card alone, not boxed with another)
    _boxes_read: dict = field(default_factory=dict)  # a row's code -> its latest boxes read (ROW_BOXES_KEPT)
    #: with ``row``: whether a card the detector did not box this look still lies at its place (code, the place in
    #: frame pixels), asked of whoever can read the table there (the watcher, with the deck's pictures); None: unknown
    still_lies: Callable[[str, tuple[float, float, float, float]], bool] | None = None

    def _watched(self, grey: np.ndarray) -> np.ndarray:
        """The part of the crop whose change calls for a look: the crop, or for a long thin zone in its square
        crop (a Pai Jie row), the zone's own strip: one card laid along a row changes too little of the square."""
        x0, y0, x1, y1 = self.crop
        (zx0, zy0), (zx1, zy1) = self.zone.polygon.min(0), self.zone.polygon.max(0)
        if min(zx1 - zx0, zy1 - zy0) * 3 >= min(x1 - x0, y1 - y0):
            return grey
        return self._zone_part(grey)

    def _zone_part(self, grey: np.ndarray) -> np.ndarray:
        """The zone's bounding box within a crop of this tracker's (crop pixels)."""
        x0, y0 = self.crop[0], self.crop[1]
        (zx0, zy0), (zx1, zy1) = self.zone.polygon.min(0), self.zone.polygon.max(0)
        return grey[max(0, int(zy0) - y0):max(1, int(zy1) - y0), max(0, int(zx0) - x0):max(1, int(zx1) - x0)]

    def glance(self, frame: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """This tracker's crop of ``frame`` in grey, and the part watched for change (:meth:`_watched`) shrunk to
        64 x 64 (int16): what :meth:`remember` keeps and compares. Of the crop and zone alone, so another thread (the
        one decoding frames ahead) may make it."""
        x0, y0, x1, y1 = self.crop
        grey = cv2.cvtColor(frame[y0:y1, x0:x1], cv2.COLOR_BGR2GRAY)
        return grey, cv2.resize(self._watched(grey), (64, 64), interpolation=cv2.INTER_AREA).astype(np.int16)

    def remember(self, index: int, t: float, frame: np.ndarray,
                 glanced: tuple[np.ndarray, np.ndarray] | None = None) -> bool:
        """Keep this frame's crop for tracing back; True when the crop changed enough to detect again.
        ``glanced``: :meth:`glance` of ``frame``, where it was made beforehand."""
        grey, small = glanced if glanced is not None else self.glance(frame)
        self._frames.append((index, t, grey))
        while len(self._frames) > self.ring:
            self._frames.popleft()
        self._small = small
        if not self.would_look(index, small):
            return False
        self._last_small = small
        self._last_run = index
        return True

    def would_look(self, index: int, small: np.ndarray) -> bool:
        """Whether frame ``index``, its watched part shrunk as ``small`` (:meth:`glance`), calls for a look as things
        stand: :meth:`remember`'s answer, asked ahead of it too (which later crops to detect ahead)."""
        # a card read once on a pile that is slapped is looked at again at once: the slap may cover it a few frames
        # after it lands (a race pile's next card covers it, and the race is confirmed together)
        if index - self._last_run < self.every and (self.races or not self._count):
            return False
        return not (self._last_small is not None and float(np.abs(small - self._last_small).mean()) < self.change
                    and self._count == 0 and self._missing_since is None and not self._lost()
                    and not self.unsettled() and index - self._last_run < self.retry)

    def _zone_middle(self) -> np.ndarray | None:
        """The middle of the zone in this frame's crop (grey), if a frame was kept."""
        if not self._frames:
            return None
        (zx0, zy0), (zx1, zy1) = self.zone.polygon.min(0), self.zone.polygon.max(0)
        r = self._middle_region((zx0, zy0, zx1, zy1))
        return self._frames[-1][2][r[0]:r[1], r[2]:r[3]].astype(np.int16)

    def _looks_bare(self) -> bool:
        """Whether the zone's middle looks as it did bare (:attr:`bare_middle`; :data:`BARE_GREY`); True where
        unknown."""
        if not self.bare_middle or self._bare_ref is None:
            return True
        now = self._zone_middle()
        if now is None or now.shape != self._bare_ref.shape or not now.size:
            return True
        return float(np.abs(now - self._bare_ref).mean()) <= BARE_GREY

    def _lost(self) -> bool:
        """The last look saw nothing on a pile where cards lie: look again at every chance, a few times: a card
        just turned over on it may have been missed (the detector is weakest on a card that has just stopped), or
        the pile was taken and a second look says so. (A bare place, a Spit column played out, waits for a
        change.)"""
        # (likewise a pile seen bare once with a card read on it that no second look confirmed: :meth:`_laid_and_taken`)
        return (0 < self._blank_looks <= LOST_LOOKS and bool(self.history)) or (
            self._bare_looks == 1 and self.read_before_take is not None and bool(self._first_read))

    def unconfirmed_reads(self) -> dict[str, float]:
        """Cards read here and not yet confirmed: code -> the first look that read it."""
        return dict(self._first_read)

    def unconfirmed_read(self, code: str) -> tuple[float, int, tuple[float, float, float, float]] | None:
        """(time, frame index, box) of the first look that read ``code`` here, not yet confirmed (None: none in the
        last :data:`RECENT_READS_S`)."""
        if code not in self._first_read or code not in self._read_where:
            return None
        return (self._first_read[code], *self._read_where[code])

    def turned_up(self, code: str, t: float, shown: float, read_as: str | None = None) -> None:
        """``code``, read here once (at ``t``, as ``read_as`` if not as itself) and never confirmed, was this pile's
        top from ``shown`` on: a card seen to land elsewhere says so (a Spit column's turn-up played at once, under a
        hand all along)."""
        self.history.add(code)
        self._push_top(code, t, shown)
        for read in {code, read_as or code}:
            self._first_read.pop(read, None)
            self._read_where.pop(read, None)
            self._read_conf.pop(read, None)
            self._first_look.pop(read, None)

    def top_in_last_look(self) -> bool:
        """Whether the latest look read the top here (it lies there as then, as far as anyone knows: a pile that
        changes is looked at again within :attr:`every` frames)."""
        return self.top is not None and self.top in self._last_seen and self._last_seen[self.top] >= self._last_look_t

    def looked(self, index: int) -> None:
        """A look shared with a neighbouring zone was taken for this frame (:meth:`remember` had not asked)."""
        self._last_small = self._small
        self._last_run = index

    def unsettled(self) -> bool:
        """Something seen is waiting for more looks (a subclass's state): look again soon, not at ``retry``."""
        return False

    def update(self, index: int, t: float, dets: Detections) -> CardSeen | None:
        """The detections of this frame's crop (already in frame pixels); returns a newly confirmed top card."""
        self._last_look_t = t
        here = self.zone.contains((dets.xyxy[:, :2] + dets.xyxy[:, 2:]) / 2) if len(dets) else []  # (box middles)
        on_pile = [(float(c), str(n), b) for b, c, n, h in zip(dets.xyxy, dets.confidence, dets.class_name, here,
                                                                 strict=True) if n not in FACE_EXCLUDE and h]
        # only faces read surely enough are evidence; one read too unsurely (a reader that cannot say which card:
        # under a hand's shadow, half covered) still shows that the pile is there
        inside = [(c, n, b) for c, n, b in on_pile if c >= self.min_conf]
        inside += self._steady_reads(on_pile)
        if self.row:
            inside = self._own_places(inside)
        hand_boxes = [b for b, n in zip(dets.xyxy, dets.class_name, strict=True) if n == "hand"] if len(dets) else []
        (zx0, zy0), (zx1, zy1) = self.zone.polygon.min(0), self.zone.polygon.max(0)
        # a card back over the pile is a card on its way there (turned as it is played) or lying on it: not a pile
        # seen empty
        backs = [b for b, n in zip(dets.xyxy, dets.class_name, strict=True) if n == "back"] if len(dets) else []
        back_over = any(_overlap((zx0, zy0, zx1, zy1), b) for b in backs)
        if self.carried_face_down and self.top is not None:
            inside = [(c, self.top, b) if self._top_as_it_was(n, b, inside, backs + hand_boxes, t) else (c, n, b)
                      for c, n, b in inside]
        looked = {n for _, n, _ in inside}  # the codes read on the pile in this look
        if back_over and not on_pile:
            self._backs_only.append(t)
        while self._backs_only and self._backs_only[0] < t - RECENT_READS_S:
            self._backs_only.popleft()
        hand_over = any(_overlap((zx0, zy0, zx1, zy1), h) for h in hand_boxes)
        if self.carried_face_down:  # (for :meth:`_lay_under_taken_back` and :meth:`_twin_where_nothing_came`)
            self._came_over(t, len(dets) > 0 and bool(np.any(np.asarray(here, bool) & (dets.class_name == "back"))),
                            hand_over)
        # where a card taken is a card gone into a hand (Pai Jie), something moving over the zone is a hand too: the
        # detector misses some (rendered Pai Jie 4p s2: RJ taken back from the centre by an arm never boxed; the
        # centre lay bare for two seconds and RJ stayed, so RJ laid there again was never seen)
        zone_stirred = (self.emptied_is_removal or self.unboxed_arms) and self.moving()
        if hand_over or zone_stirred:
            self._hand_since_seen = True
        elif on_pile:
            self._hand_since_seen = False
        # a pile goes only in a hand: one not seen with no hand over it since it last showed is still there (the
        # detector missed it); nor is a pile seen empty while something moves over it
        blank = not on_pile and not hand_boxes and not back_over and not zone_stirred
        self._blank_looks = self._blank_looks + 1 if blank else 0
        # (bare: no card and nothing over the zone's middle, though hands and cards may be elsewhere in the crop)
        bare = not on_pile and not any(
            _overlap(_middle((zx0, zy0, zx1, zy1)), b) for b in hand_boxes + backs)
        self._bare_looks = self._bare_looks + 1 if bare else 0
        laid = self._laid_and_taken(t) if self._bare_looks >= 2 else None
        if laid is not None:
            self._recent.clear()
            self._count = 0
            return laid
        if self.bare_middle and blank and not self.history:
            self._bare_ref = self._zone_middle()
        if blank and (self._hand_since_seen or not self.history) and self._looks_bare():
            self._empty_runs += 1
            if self._empty_since is None:
                self._empty_since = (t, index)
            if self._empty_runs >= 2:  # seen empty twice with nothing over it: the pile was taken
                if self.emptied_is_removal and self.top is not None:  # (Pai Jie: its one card went to a hand)
                    self.removed.append(RemoveSeen(self._empty_since[0], self.zone.name, self.top,
                                                   self._empty_since[1]))
                elif self.top is not None:
                    self.emptied.append((self.top, t))
                self.history.clear()
                self.top = None
                self.stack = []
                self._first_look.clear()  # the cards read and never confirmed went with it
                self._first_read.clear()
                self._read_where.clear()
                self._read_conf.clear()
                self._settled.clear()
        else:
            self._empty_runs = 0
            if on_pile or not self.emptied_is_removal:
                self._empty_since = None
            elif self._empty_since is None:  # a card gone into a hand went when a look first missed it (the hand
                self._empty_since = (t, index)  # over it then, or moving there)
        if self.removals:  # a hand over the pile itself (not one anywhere in the crop) may hide its top
            there = looked | self._hidden_in_row(inside, backs)
            there |= self._still_in_row(there)
            # a row's card not seen while something moves over its place: an arm the detector does not box may
            # hide it (rendered Pai Jie s12: a dark arm on a pink cloth hid 7C for half a second); it went once
            # its place is seen bare and still
            stirred = self.row and any(self.moving(self._place[c]) for c in self.stack
                                       if c not in there and c in self._place)
            there -= self._laid_anew(index, inside, hand_boxes)
            self._check_removed(index, t, there, hand_over or stirred, back_over)
            self._check_buried(index, t, there, hand_over or stirred or any(n not in self.history for n in looked))
        self._played_again(inside, hand_over or zone_stirred or back_over)
        self._buried_played_again(inside, t)
        # (whether a card seen before is forgotten is asked of when it was seen before this look; once forgotten, it
        # is new until confirmed again)
        self.history -= {n for _, n, _ in inside if n in self.history and self._forgotten(n, t)}
        # a code the top was misread as, read now where the top is not read around it, may be the card itself, laid
        # over the top (rendered Speed s238: KD's middle read AS for a second; the real AS laid on it was not new)
        released = {n for c, n, b in inside if n in self._misreads and n not in self.stack
                    and not self._part_of_top(c, b, inside)}
        self.history -= released
        self._misreads -= released
        new = [(c, n, b) for c, n, b in inside if n not in self.history]
        for _, n, b in inside:
            self._last_seen[n] = t
            self._box_read[n] = tuple(float(v) for v in b)
            if n not in self._place or _area(b) < _area(self._place[n]):
                self._place[n] = tuple(float(v) for v in b)
            if self.row:
                self._boxes_read.setdefault(n, deque(maxlen=ROW_BOXES_KEPT)).append(tuple(float(v) for v in b))
        for _, n, b in new:  # a look with a hand over the card's middle is no clean view of it to date it by
            if n not in self._first_read:
                self._first_read[n] = t
                self._read_where[n] = (index, tuple(float(v) for v in b))
            if n not in self._first_look and not any(_overlap(_middle(b), h) for h in hand_boxes):
                self._first_look[n] = t
        for _, n, b in new:
            self._reads.setdefault(n, []).append((t, tuple(float(v) for v in b)))
        recent = t - RECENT_READS_S
        self._reads = {k: [r for r in v if r[0] >= recent] for k, v in self._reads.items() if v[-1][0] >= recent}
        self._first_look = {k: v for k, v in self._first_look.items() if v >= recent}
        self._first_read = {k: v for k, v in self._first_read.items() if v >= recent}
        self._read_where = {k: v for k, v in self._read_where.items() if k in self._first_read}
        for c, n, _ in new:
            self._read_conf[n] = max(c, self._read_conf.get(n, 0.0))
        self._read_conf = {k: v for k, v in self._read_conf.items() if k in self._first_read}
        if self.carried is not None:  # (cards are carried over these piles: one read twice in one place lay there)
            for cx, k, bx in new:
                if k not in self._settled and self._shift(k, [bx]) <= SETTLED_SHARE:
                    self._settled[k] = (cx, tuple(float(v) for v in bx))
                    self._once.discard(k)
                elif k not in self._settled and self.lay_once is not None and cx >= self.lay_once:
                    self._settled[k] = (cx, tuple(float(v) for v in bx))
                    self._once.add(k)
        self._settled = {k: v for k, v in self._settled.items() if k in self._first_read}
        self._once &= set(self._settled)
        self._top_read_again(t, inside)
        best = max(new, key=lambda x: x[0]) if new else None
        self._recent.append(best[1] if best else None)
        self._recent_all.append({n for _, n, _ in new})
        while len(self._recent) > self.confirm + 1:  # one misread among the last runs is forgiven
            self._recent.popleft()
        while len(self._recent_all) > self.confirm + 1:
            self._recent_all.popleft()
        if best is None:
            self._count = 0
            return None
        c, n, b = best
        moved = self._moved_since(n, [bx for _, k, bx in new if k == n])
        if self.carried is not None:
            self._last_box = {}
            for _, k, bx in new:
                self._last_box.setdefault(k, []).append(bx)
        self._count = sum(1 for x in self._recent if x == n)
        if self._count < self.confirm:
            return None
        if moved:  # still in the hand that carries it over this pile (to another, or to land here a moment later)
            self._count = 1
            while len(self._recent) > 1:
                self._recent.popleft()
            self._first_look[n] = self._first_read[n] = t  # where it was before is not where it lands
            self._read_where[n] = (index, tuple(float(v) for v in b))
            return None
        self._count = 0
        self._recent.clear()
        revealed = self._revealed_under(index, t, c, n, b, looked)
        if revealed is not None:
            self._recent_all.clear()
            return revealed
        found = [best]
        if self.races and not self.one_by_one:  # two cards landed on the pile within a look or two (a race)
            found += [(c2, n2, b2) for c2, n2, b2 in new if n2 != n
                      and sum(n2 in r for r in self._recent_all) >= self.confirm]
        self._recent_all.clear()
        covered = self._covered_by(n, {nx for _, nx, _ in found})
        # since when a card's middle has shown as it did in the first look that read it: by the look that confirms
        # it a hand may be coming over it (a slap), and a card covered a frame later by another (a race) was
        # read by an earlier look
        dated = sorted(((self._dated(nx, bx, t, self._after_covered(nx, bx, covered)), k, cx, nx, bx)
                        for k, (cx, nx, bx) in enumerate(found)), key=lambda x: (x[0], x[1]))
        t_best = next(d[0] for d in dated if d[1] == 0)
        dated = [d for d in dated if abs(d[0] - t_best) <= 0.1]  # a race lands at once; old ones peek later
        # (a covered card is walked back from the last look that read it, where no look read it with no hand over its
        # middle: it is covered now. Rendered Speed 2p s12 4.07 s: 2D, read once under a hand, covered by 4S, was dated
        # from 4S's landing)
        under = [(self._dated(nx, bx, max((tr for tr, _ in self._reads.get(nx, [])), default=t)), -1, cx, nx, bx)
                 for nx, (cx, bx) in covered if self._dated_before(nx, dated)]
        dated = sorted(under) + dated
        out: list[CardSeen] = []
        if self.removals and not self.row and self._missing_since is not None and self.top is not None and self.stack \
                and dated and self._missing_since[0] < dated[0][0] - 0.12 and self._under_shown:
            # (not a hand about to lay a card: the card under the top showed, rendered Spit 2p s5 6.83 s: the hand
            # laying 7H hid 6C for 0.4 s before it landed, and 6C was taken for taken back)
            self._take_back()  # the top went before these landed (a hand hid the pile while it went; along a row the
            # hand laying the next card passes over the last one, which stays)
        before = self._top_t if self.top is not None else None  # the top before these cards
        for t_first, k, cx, nx, bx in dated:
            self.history.add(nx)
            # a reader gives one box one code: the old top still read in the same look, elsewhere than on this card's
            # middle, is a second card (one card boxed two ways and read two ways is not: rendered Speed s238, KC
            # lying still read KS in two of its three boxes and KC in the third, confirmed twice, a "race")
            elsewhere = self.races and before is not None and any(
                n == self.top and not _centre_on_middle(b, bx) and not _centre_on_middle(bx, b) for _, n, b in inside)
            # the same card, read differently: nothing has changed there since the top showed, or it is boxed where
            # the top lies, to a pixel or two (no card lands just where the last one lies: rendered Spit s12, QH read
            # KH 0.9 s later; Speed s12, JD read AS). (A box exactly the top's is the deck's read at the top's place
            # where the detector boxed nothing: it says nothing of place. Not a Spit column, where each card turned up
            # lies where the one before it lay)
            unchanged = before is not None and self._frames and t_first <= max(before, self._frames[0][1]) + 1e-9
            # (along a row a card laid before the top lies beside it, its end under the top's: only a read on the
            # middle of a card confirmed on the row, there still or not, is that card read differently. Rendered Pai
            # Jie 4p s5 16.2 s: QD between JD and KD, read only once KD was laid over its end, was taken for KD misread)
            unchanged = unchanged and not (self.row and not any(
                _centre_on_middle(bx, self._place[c]) for c in self._seen_at if c in self._place and c != nx))
            top_box = self._box_at.get(self.top) if self.races and self.removals and self.top is not None else None
            at_top = top_box is not None and 0.0 < _box_shift(top_box, bx) <= SAME_PLACE
            part_of_top = self._part_of_top(cx, bx, inside)
            # (the first look that read it on where it lies now, its box's centre on the card's middle: the looks
            # before may have read it in flight to another place)
            t_read = min((tr for tr, br in self._reads.get(nx, []) if _centre_on_middle(br, bx)), default=None)
            if part_of_top or ((unchanged or at_top) and not elsewhere) \
                    or self._twin_where_nothing_came(nx, bx, t_first if t_read is None else t_read):
                if nx not in self.stack:
                    self._misreads.add(nx)
                continue
            t_under = self._lay_under_taken_back(bx, t_first, t, index, looked)
            if t_under is not None:  # (its tap came before the top's landing: timed up to then)
                self._push_top(nx, t, t_under, bx, cx)
                out.append(CardSeen(t_under, self.zone.name, nx, cx, index, tuple(float(v) for v in bx), t_under,
                                    covered=k < 0))
                continue
            self._push_top(nx, t, t_first, bx, cx)
            out.append(CardSeen(t_first, self.zone.name, nx, cx, index, tuple(float(v) for v in bx), t,
                                covered=k < 0, t_read=t_read if t_read is not None and t_read < t_first else None))
        if not out:
            return None
        self.also += out[:-1]
        return out[-1]

    def _played_again(self, inside: list[tuple[float, str, Any]], hidden: bool) -> None:
        """:attr:`won_unseen`: the top, read whole (:data:`PLAYED_AGAIN_AREA`) away from where it lay
        (:data:`PLAYED_AGAIN_IOU`) after hands hid the pile (``hidden`` in this look or since it was last read there),
        where its middle no longer looks as in its first clean look (:meth:`_as_snapped`), was won with its pile and
        played again: it is forgotten, to be confirmed anew where it lies now (rendered
        Slapjack 4p s11 12.98 s: A won the pile on JC at 12.36 s under three hands and played JC again, turned the other
        way; never seen bare between, the pile kept JC as its top and the four slaps on it were false)."""
        if not self.won_unseen or self.top is None or self.top not in self._box_at:
            return
        was = self._box_at[self.top]
        reads = [b for _, n, b in inside if n == self.top]
        if not reads:
            self._hid_top = self._hid_top or hidden
            return
        area = _area(was)
        moved = [b for b in reads if float(box_ious([b], [was])[0, 0]) < PLAYED_AGAIN_IOU
                 and area / PLAYED_AGAIN_AREA <= _area(b) <= area * PLAYED_AGAIN_AREA]
        if not moved or len(moved) < len(reads) or not self._hid_top or not self._frames \
                or self._as_snapped(self.top, self._frames[-1][2]) is not False:
            self._hid_top = hidden  # (where its first clean look still shows where it lay, it never went: a box
            return  # read 20 px off it after a hand passed, rendered Snap 3p s11 17.4 s)
        self.history.discard(self.top)
        self.stack.pop()
        self._box_at.pop(self.top, None)
        self.top = self.stack[-1] if self.stack else None
        self._hid_top = False

    def _buried_played_again(self, inside: list[tuple[float, str, Any]], t: float) -> None:
        """:attr:`won_unseen`: a card of the pile under its top, read surely (:data:`BURIED_SURE`) and whole (its box
        as large as the top's, :data:`PLAYED_AGAIN_AREA`) in :data:`BURIED_LOOKS` looks running with the top read in
        none, after hands hid the pile: the cards above it went, and nothing takes them but a slap that wins the pile.
        The pile was won under the hands and this card played again: the pile is forgotten (:meth:`taken`), the card
        to be confirmed anew. (The referee says the pile was won only once its slap is ruled, 1.6 s later in the
        audit: rendered Slapjack 2p s11 6.42 s, A won JC's pile at 5.70 s and played 3D, laid under 4D and JC 3.1 s
        before, again; taken for the buried 3D peeking out, it was never a card.)"""
        if not self.won_unseen or self.top is None or len(self.stack) < 2 or self.top not in self._box_at \
                or not self._hid_top or any(n == self.top for _, n, _ in inside):
            self._buried = None
            return
        area = _area(self._box_at[self.top])
        under = {n for c, n, b in inside if n in self.stack[:-1] and c >= BURIED_SURE
                 and area / PLAYED_AGAIN_AREA <= _area(b) <= area * PLAYED_AGAIN_AREA}
        code = next(iter(under)) if len(under) == 1 else None
        looks = self._buried[1] + 1 if code is not None and self._buried and self._buried[0] == code else 1
        self._buried = (code, looks) if code is not None else None
        if code is not None and looks >= BURIED_LOOKS:
            self.taken(t)
            self._buried = None
            self._hid_top = False

    def _steady_reads(self, on_pile: list[tuple[float, str, Any]]) -> list[tuple[float, str, Any]]:
        """Reads below ``min_conf`` (from :data:`STEADY_CONF`) of a code read at the same place in the last
        :data:`STEADY_LOOKS` looks, one of them surely: evidence all the same (only where ``min_conf`` is above
        :data:`STEADY_CONF`)."""
        if self.min_conf <= STEADY_CONF:
            return []
        steady: dict = {}
        out = []
        for c, n, b in sorted(on_pile, key=lambda x: -x[0]):
            if c < STEADY_CONF or n in steady:
                continue
            runs, last, sure = self._steady.get(n, (0, None, 0.0))
            if last is None or _box_shift(b, last) > SETTLED_SHARE:
                runs, sure = 0, 0.0
            runs, sure = runs + 1, max(sure, c)
            steady[n] = (runs, b, sure)
            # (read surely once in the run: a code never read surely is a misread however often, rendered s11's 7C
            # read 6C at 0.59 as it landed; nor a strip of a card peeking out from under a surer one, s12's 4H edge
            # under 5C read 6H at 0.58 three times)
            if c < self.min_conf and runs >= STEADY_LOOKS and sure >= self.min_conf and not any(
                    c2 > c and n2 != n and _overlap(b, b2) for c2, n2, b2 in on_pile):
                out.append((c, n, b))
        self._steady = steady
        return out

    def _part_of_top(self, conf: float, box: Any, inside: list[tuple[float, str, Any]]) -> bool:
        """Whether a read (``conf``, ``box``) is of part of the top card: its box lies inside a box of the top read in
        the same look more surely, and is much smaller (:data:`PART_OF_TOP`). A card laid on the top would hide it
        (rendered Speed s238: KD's middle and corner boxed alone read AS, 0.78 and 0.65, while its whole box read KD
        0.9); a card laid on it is boxed about as large, or read as surely (a card laid sideways on one turned 45
        degrees boxes inside the other's box, 0.62 of it)."""
        return self.top is not None and any(n == self.top and c > conf and _part_of(box, b) for c, n, b in inside)

    def _top_as_it_was(self, code: str, box: Any, inside: list[tuple[float, str, Any]], over: list[Any],
                       t: float) -> bool:
        """Whether a read of ``code`` in this look is the top misread: the top not read in it, ``box`` on the top's
        place (inside its box), part of it under a card back or hand (``over``), and the rest as it was in the last
        look that read the top (:data:`TOP_AS_IT_WAS_GREY`): nothing was laid there, what shows is the top. Half
        under the next card carried face down, a card's upper half reads as another (rendered Speed 2p s12 15.93 s:
        8C's upper half read 6C at 0.9, taken for a 6C laid and covered by the 9C that came next; the pile's top
        stayed a 9C taken back unseen, and the next four plays were called illegal)."""
        top = self.top
        at = [b for b in (self._box_at.get(top), self._box_read.get(top)) if b is not None]
        if code == top or not at or top not in self._last_seen or any(n == top for _, n, _ in inside) \
                or not any(_inside(box, b) for b in at) or not any(_overlap(box, o) for o in over) or not self._frames \
                or abs(self._frames[-1][1] - t) > 1e-6:
            return False
        then = next((f for f in reversed(self._frames) if abs(f[1] - self._last_seen[top]) <= 1e-6), None)
        if then is None:
            return False
        r0, r1, c0, c1 = self._crop_region(box)
        now, was = self._frames[-1][2][r0:max(r0, r1), c0:max(c0, c1)], then[2][r0:max(r0, r1), c0:max(c0, c1)]
        if not now.size:
            return False
        shows = np.ones(now.shape, bool)
        m = TOP_AS_IT_WAS_MARGIN  # (around each box over it: a hand's box or a back's may miss its shadow, its edge)
        for o0, o1, p0, p1 in map(self._crop_region, over):
            shows[max(0, o0 - m - r0):max(0, o1 + m - r0), max(0, p0 - m - c0):max(0, p1 + m - c0)] = False
        if shows.mean() < TOP_AS_IT_WAS_SHOWS:
            return False
        return float(np.abs(now.astype(np.int16) - was.astype(np.int16))[shows].mean()) <= TOP_AS_IT_WAS_GREY

    def _laid_and_taken(self, t: float) -> CardSeen | None:
        """The one new card read surely (:attr:`read_before_take`) since the top, never confirmed, on a pile now
        seen bare twice (nothing on it, nothing over it): it was laid and covered before a second look, and went
        with the pile (rendered Snap 4p s11 3.18 s: B's 7S, slapped by B 64 ms later, under hands until B took the
        piles). None when there is no such card, or two (no telling which lay there), or when it may be the top misread:
        the top was read after it, or it has the top's rank at the top's place."""
        return self._read_once(t)

    def slapped(self, t: float, contact: float) -> CardSeen | None:
        """A hand came down on this pile at ``contact`` (seen at ``t``): the one new card read surely
        (:attr:`read_before_take`) before then, never confirmed, with no face read on the pile since, was the top it
        slapped: the hand covered it before a second look (rendered Slapjack 3p s6 3.35 s: C's JD read once, B's hand
        on it 60 ms later and on it until B took the pile), also the first card of a pile (rendered Slapjack 2p s6
        1.82 s: A's JD, the game's first card, slapped by B 156 ms later). None when there is no such card (see
        :meth:`_laid_and_taken`)."""
        if not self._first_read or max(self._last_seen.values(), default=-1.0) > max(self._first_read.values()):
            return None  # (a face read since: a second look could confirm it, or the card was not what was read)
        seen = self._read_once(t, before=contact, first=True, top_misread=True)
        if seen is not None:
            self._recent.clear()
            self._count = 0
        return seen

    def _read_once(self, t: float, before: float = math.inf, first: bool = False, top_misread: bool = False
                   ) -> CardSeen | None:
        """The one new card read surely since the top (before ``before``), never confirmed, pushed as the new top
        (see :meth:`_laid_and_taken`); ``first``: also on a pile with no top yet (its first card). ``top_misread``:
        where it was read at the top's very place (:data:`SAME_PLACE`), more surely than the top was confirmed, with
        nothing changed there since the top showed, it is the top, read wrong before: renamed, not pushed
        (:attr:`CardSeen.misread`; rendered Slapjack 3p s238 14.3 s: C's JD, read AS 0.56 three times as it came to
        rest, then JD 0.9 just before B slapped it; logged as JD laid on AS, B took one card too many)."""
        if self.read_before_take is None or (self.top is None and not first):
            return None
        fresh = [k for k in self._first_read if k not in self.history and k in self._read_where
                 and k not in self._misreads and self._read_conf.get(k, 0.0) >= self.read_before_take
                 and self._first_read[k] <= before]
        if len(fresh) != 1:
            return None
        code = fresh[0]
        if self._last_seen.get(self.top, -1.0) > self._first_read[code]:
            return None  # the top read again after it: it was the top misread (rendered Snap 3p s11: JS read JH)
        frame, box = self._read_where[code]
        if self.top is not None and code[:-1] == self.top[:-1] and self.top in self._place and _box_shift(
                self._place[self.top], box) <= SETTLED_SHARE:
            return None  # the top's rank at its place: the top read two ways (rendered Slapjack 3p s12: JH as JC)
        conf = self._read_conf[code]
        shown = self._dated(code, box, t)
        old = self.top
        if top_misread and old is not None and not self.races and old in self._box_at and self._top_t is not None \
                and shown <= self._top_t + 1e-9 and _box_shift(self._box_at[old], box) <= SAME_PLACE \
                and conf > self._conf_at.get(old, 1.0):
            self.rename(old, code)
            self._box_at[code], self._conf_at[code] = self._box_at.pop(old), conf
            return CardSeen(self._top_t, self.zone.name, code, conf, frame, box, t, misread=old)
        self._push_top(code, t, shown)
        return CardSeen(shown, self.zone.name, code, conf, frame, box, t)

    def moving(self, box: Any = None) -> bool:
        """Something moved over the pile (the zone, not the whole crop: arms pass by it to other places), or under
        ``box`` (frame pixels), in the last :data:`STILL_FRAMES` frames: a hand laying or taking a card, which the
        detector may not box (fingers alone reaching into the crop, an arm as dark as the cloth)."""
        if len(self._frames) <= STILL_FRAMES:
            return True
        now, then = self._frames[-1][2], self._frames[-1 - STILL_FRAMES][2]
        if box is None:
            now, then = self._zone_part(now), self._zone_part(then)
        else:
            x0, y0 = self.crop[0], self.crop[1]
            part = (slice(max(0, int(box[1]) - y0), max(1, int(box[3]) - y0)),
                    slice(max(0, int(box[0]) - x0), max(1, int(box[2]) - x0)))
            now, then = now[part], then[part]
        return now.size > 0 and float((cv2.absdiff(now, then) > MOVED_GREY).mean()) > MOVED_SHARE

    def place_of(self, code: str) -> tuple[float, float, float, float] | None:
        """Where ``code`` lay on this pile (frame pixels; its smallest box read), if it was read here."""
        return self._place.get(code)

    def _hidden_in_row(self, inside: list[tuple[float, str, Any]], backs: list[Any]) -> set[str]:
        """A row of cards (``row``): the cards of the row not read in this look whose place a larger box read as
        another card covers (:data:`MERGED_COVER`): a card laid over the end of the row and the card under it are
        boxed as one and read as one of them (rendered Pai Jie s12: JC over QC, read QC for a second). Or a card
        back covers it: a card carried over the row face down (s238: over 10C, for a fifth of a second). That card is
        hidden, not gone: a card taken from a row leaves its place bare, or the card under it whole."""
        if not self.row:
            return set()
        hidden = set()
        for code in self.stack:
            place = self._place.get(code)
            if place is None or any(n == code for _, n, _ in inside):
                continue
            area = _area(place)
            for b, back in [*((b, False) for _, _, b in inside), *((b, True) for b in backs)]:
                cover = _cover(place, b)
                if area > 0 and cover >= MERGED_COVER * area and (back or _area(b) >= MERGED_GROWTH * area):
                    hidden.add(code)
                    break
        return hidden

    def _own_places(self, inside: list[tuple[float, str, Any]]) -> list[tuple[float, str, Any]]:
        """A row's reads, each read at the place of a row card not read in this look as a look-alike of it taken for
        that card (:data:`SAME_PLACE_IOU`), and a weak read of a box straddling two row cards, or of a box on part of
        one not read in this look, left out (:data:`STRADDLE_READ`), as is a read of a card whose rank cannot lie
        there (:meth:`_out_of_row_order`) and, on a suit's row (a zone ``row:S`` ...), one of another suit: a row holds
        its suit's cards only (PJ-3; rendered Pai Jie 4p s238 11.9 s: 7H read 7D 0.69 on the hearts row, "a 7D laid"
        that no one played)."""
        read = {n for _, n, _ in inside}
        suit_row = self.zone.name.startswith("row:")
        out = []
        for c, n, b in inside:
            if n not in self.stack and c < STRADDLE_READ and sum(
                    _cover(b, p) >= STRADDLE_SHARE * _area(b) for k, p in self._place.items() if k in self.stack) >= 2:
                continue  # (a box straddling two row cards)
            if n not in self.stack and self._out_of_row_order(n, b):
                continue  # (a card read where its rank cannot lie)
            if n not in self.stack and c < STRADDLE_READ and any(
                    k not in read and _part_of(b, p) for k, p in self._place.items() if k in self.stack):
                continue  # (part of a row card a hand hides the rest of, read alone: rendered Pai Jie 3p s11 6.8 s,
                # the lower left of 7C beside a hand read 6C 0.59, "a 6C laid" that no one played)
            if n not in self.stack:
                k = next((k for k in self.stack if k not in read and k in self._place and _looks_like(k, n)
                          and float(box_ious([b], [self._place[k]])[0, 0]) >= SAME_PLACE_IOU), None)
                if k is not None:
                    n = k
                    read.add(k)
            if suit_row and n in ROW_OF and ROW_OF[n] != self.zone.name:
                continue  # (a card of another suit's row: the referee's own test, PJ-3)
            out.append((c, n, b))
        return out

    def _out_of_row_order(self, code: str, box: Any) -> bool:
        """Whether ``code`` read at ``box`` (frame pixels) lies on the wrong side of a row card of another rank, by
        more than :data:`ROW_ORDER_SLACK` of that card's width, for the row's rank order. The order is the one the
        row's own cards lie in along the frame's x or y, whichever they spread along more; with fewer than two of
        them, or where they lie out of order themselves (a row laid carelessly), none is known and any rank fits."""
        r = value(code)
        axis = self._row_axis() if r is not None else None
        if axis is None:
            return False
        cards, (name, sign) = axis
        k = 0 if name == "x" else 1
        mid = (float(box[k]) + float(box[k + 2])) / 2
        return any(rk != r and (mid - at) * (r - rk) * sign < 0 and abs(mid - at) > ROW_ORDER_SLACK * size
                   for rk, at, size in cards)

    def _row_axis(self) -> tuple[list[tuple[int, float, float]], tuple[str, int]] | None:
        """The row's cards as (rank value, middle along the row, width along it: the median of its latest boxes
        read) and the row's direction (axis, +1 where ranks grow along it, -1 where they fall), if its cards lie in
        one rank order; else None."""
        known = [(k, np.median(np.array(self._boxes_read[k]), axis=0)) for k in self.stack
                 if self._boxes_read.get(k) and value(k) is not None]
        if len({value(k) for k, _ in known}) < 2:
            return None
        xs = [(float(p[0]) + float(p[2])) / 2 for _, p in known]
        ys = [(float(p[1]) + float(p[3])) / 2 for _, p in known]
        k = 0 if max(xs) - min(xs) >= max(ys) - min(ys) else 1
        cards = [(value(c), (xs if k == 0 else ys)[i], float(p[k + 2]) - float(p[k])) for i, (c, p) in enumerate(known)]
        signs = {(a[0] - b[0]) * (a[1] - b[1]) > 0 for a in cards for b in cards if a[0] != b[0]}
        if len(signs) != 1:
            return None
        return cards, ("x" if k == 0 else "y", 1 if signs.pop() else -1)

    def _still_in_row(self, seen: set[str]) -> set[str]:
        """A row of cards with :attr:`still_lies`: the row's cards not ``seen`` this look that still lie at their
        places. The detector stops boxing some cards on a row for seconds while nothing touches them (rendered Pai
        Jie s11: QS, a striped court alone at the end of the spades row, unboxed from 13.7 s on, was taken as gone,
        then read again as JS: an illegal play that was never made)."""
        if not self.row or self.still_lies is None:
            return set()
        return {c for c in self.stack if c not in seen and c in self._place and self.still_lies(c, self._place[c])}

    def _push_top(self, code: str, t: float, shown: float, box: Any = None, conf: float | None = None) -> None:
        """``code``, confirmed at ``t``, is the new top from ``shown`` on. The codes the old top was misread as may
        be read here again as the cards they are (rendered Spit s11: JC read JS on a centre pile; the real JS, played
        there later, was never confirmed). ``box``, ``conf``: how the look that confirmed it read it, where known."""
        self.history -= self._misreads - set(self.stack) - {code}
        self._misreads = set()
        self._seen_at[code] = t
        self.top, self._top_t = code, shown
        if box is not None:
            self._box_at[code] = tuple(float(v) for v in box)
        if conf is not None:
            self._conf_at[code] = float(conf)
        self.stack.append(code)
        self._peeking, self._gone = set(), {}
        if self.races and not self.row:
            self._forget_reads_before(shown)

    def _forget_reads_before(self, shown: float) -> None:
        """A race pile's new top showed at ``shown``: a code first read here before then and not confirmed lies under
        it or was a misread; read again, it is a card landed later, dated from then, not from the old read (rendered
        Speed 2p s11: AS, the top at 3.4 s, misread AC once; KD covered it; B's real AC, laid on KD at 4.17 s and
        covered by 2S a quarter second later, was dated from that misread, before KD, and taken for KD misread)."""
        self._forget([k for k, first in self._first_read.items() if first < shown - 1e-9 and k not in self.stack])

    def landed_elsewhere(self, code: str, shown: float) -> None:
        """``code`` was confirmed on another pile, lying there from ``shown`` on: a read of it here first made before
        then, never confirmed, was of the card on its way there (a Spit column card carried over a centre pile), not
        of one laid here; if it lands here later, it is dated from its reads then (rendered Spit 2p s7: A's QS, read
        once on ``right`` at 16.3 s as it crossed to ``col:A:1``, was played on ``right`` at 17.61 s and dated from
        16.3 s, before B's JD, which was dropped as covered)."""
        if self._first_read.get(code, float("inf")) < shown and code not in self.stack:
            self._forget([code])

    def _forget(self, codes: list[str]) -> None:
        """Unconfirmed reads of ``codes`` here, forgotten."""
        for k in codes:
            for kept in (self._first_read, self._first_look, self._read_where, self._read_conf, self._reads,
                         self._settled, self._last_box, self._steady):
                kept.pop(k, None)
            self._once.discard(k)

    def rename(self, old: str, code: str) -> None:
        """A card confirmed here as ``old`` was ``code`` (its look-alike: a surer read of it elsewhere says so)."""
        if old == code:
            return
        if old in self.history:
            self.history.discard(old)
            self.history.add(code)
        self.stack = [code if c == old else c for c in self.stack]
        for seen in (self._seen_at, self._last_seen):
            if old in seen:
                seen[code] = seen.pop(old)
        if self.top == old:
            self._misreads.add(old)
            self.top = code

    def _moved_since(self, code: str, boxes: list[Any]) -> bool:
        """No box of ``code`` in this look lies where one did in the last look that read it (within ``carried``
        of its size, each edge): a card in flight, not one lying on the pile. (A look may box one card twice: alone,
        and with the cards it half covers.)"""
        return self.carried is not None and self._shift(code, boxes) > self.carried

    def _shift(self, code: str, boxes: list[Any]) -> float:
        """How far (share of its size, the edge that moved most) the nearest of ``boxes`` lies from a box of
        ``code`` in the last look that read it; infinite when that look did not."""
        last = self._last_box.get(code)
        if not last:
            return float("inf")
        return min(_box_shift(b, a) for b in boxes for a in last)

    def _covered_by(self, code: str, landing: set[str]) -> list[tuple[str, tuple[float, Any]]]:
        """Cards that lay on the pile, read in two looks in a row at one place (or once surely, :attr:`lay_once`) but
        never confirmed (a hand over them, a misread between), first read before ``code``, which is now confirmed on
        top of them: they were played before it (Speed, Spit: the next card lands a few tenths of a second later).
        (code, (conf, box)), oldest first. None where cards come one by one (:attr:`one_by_one`)."""
        if self.one_by_one:
            return []
        t_code = self._first_read.get(code, float("inf"))
        return sorted(((k, b) for k, b in self._settled.items() if k not in landing and k not in self.history
                       and self._first_read.get(k, float("inf")) < t_code and not self._read_two_ways(k)),
                      key=lambda kb: self._first_read[kb[0]])

    def _top_read_again(self, t: float, inside: list[tuple[float, str, Any]]) -> None:
        """A card read once only (:attr:`lay_once`) where the top is read again later, at the same place, never lay
        on it: the top misread (rendered Speed s11: QS read JS once between reads of QS)."""
        tops = [b for _, n, b in inside if n == self.top]
        for k in [k for k in self._once if self._first_read.get(k, t) < t and k in self._read_where]:
            if any(_box_shift(b, self._read_where[k][1]) <= SETTLED_SHARE for b in tops):
                self._settled.pop(k, None)
                self._once.discard(k)

    def _read_two_ways(self, code: str) -> bool:
        """``code`` was read once only (:attr:`lay_once`) where another code was read too, unconfirmed: one card read
        two ways (rendered Speed s238: JD read JH, then JD), which of them it was is not known, unless it was read
        :data:`TWO_WAYS_MARGIN` more surely than the others; the others read first :data:`TWO_WAYS_S` or more apart
        from it are other cards."""
        if code not in self._once or code not in self._read_where:
            return False
        box = self._read_where[code][1]
        # read once on the middle of a card of a row: that card, misread (a card laid along a row covers the end of
        # the last one, not its middle; rendered Pai Jie s12: 7C read 8C once under a hand)
        if self.row and any(_centre_on_middle(box, self._place[c]) for c in self.stack if c in self._place):
            return True
        sure = self._read_conf.get(code, 0.0) - TWO_WAYS_MARGIN
        when = self._first_read[code]
        return any(_box_shift(box, where[1]) <= SETTLED_SHARE and self._read_conf.get(k, 0.0) >= sure
                   and abs(self._first_read.get(k, float("inf")) - when) <= TWO_WAYS_S
                   and not self._backs_between(when, self._first_read.get(k, float("inf")))
                   for k, where in self._read_where.items() if k != code)

    def _backs_between(self, t0: float, t1: float) -> bool:
        """A look between ``t0`` and ``t1`` saw a card back over the pile and no face on it: the next card on its
        way covered the one read at ``t0``; a code read at its place after that is that card landed, not the first one
        read two ways (rendered Speed 2p s238 19.07 s: 5C read once, covered by a back twice, 6D read 0.2 s later)."""
        lo, hi = min(t0, t1), max(t0, t1)
        return any(lo < tb < hi for tb in self._backs_only)

    def _dated_before(self, code: str, dated: list[tuple]) -> bool:
        """(A covered card) first read before every card confirmed with it showed: else it is one of them, misread."""
        return all(self._first_read.get(code, float("inf")) < d[0] for d in dated)

    def _check_removed(self, index: int, t: float, seen: set[str], hands: bool, coming: bool = False) -> None:
        """The top is gone while the cards it covered show: it was taken back (after ``confirm + 1`` looks).
        ``coming``: a card back over the pile (a card on its way onto it) hides the top; it did not go."""
        below = self.stack[:-1]
        if self.top is None or self.top in seen or not below:
            self._reset_missing()
            return
        if self._first_missed is None:
            self._first_missed = (t, index)
        if coming and self._missing_since is None:
            return
        if self._missing_since is None:
            self._missing_since = (t, index)  # the look that first missed it (a hand may be taking it)
        self._under_shown = self._under_shown or any(c in seen for c in below)
        if hands or not any(c in seen for c in below):
            return  # nothing to tell yet: wait for a clear look
        self._missing += 1
        if self._missing <= self.confirm:
            return
        self._take_back()

    def _check_buried(self, index: int, t: float, seen: set[str], busy: bool) -> None:
        """A card under the top that was peeking out and is gone, with no card laid meanwhile: pulled out from
        under (an illegal card taken back after a legal one covered it, SP-8)."""
        below = set(self.stack[:-1])
        self._peeking = (self._peeking | (seen & below)) & below
        for c in list(self._peeking):
            if c in seen:
                self._gone.pop(c, None)
                continue
            since = self._gone.setdefault(c, [t, index, 0])
            if busy or not (seen & (set(self.stack) - {c})):
                continue  # a hand over the pile, or a new card coming: nothing to tell yet
            since[2] += 1
            if since[2] > self.confirm:
                self._lose(c)
                self.removed.append(RemoveSeen(since[0], self.zone.name, c, since[1]))

    def _take_back(self) -> None:
        assert self._missing_since is not None
        # (it went when a look first missed it: the hand taking it may show as a card back over the pile, rendered
        # Spit s11 7.07 s: 10S taken back under a hand boxed as a back, gone in the first look after)
        t0, i0 = self._first_missed or self._missing_since  # (never after it: set in the same look or before)
        self._top_taken_back(t0, i0)
        self._top_t = t0

    def _frame_at(self, t: float, default: int) -> int:
        """The index of the first kept frame at or after ``t`` (``default`` where none is kept)."""
        return next((f[0] for f in self._frames if f[1] >= t - 1e-9), default)

    def _top_taken_back(self, t: float, index: int) -> None:
        """The top left the pile into a hand at ``t`` (frame ``index``): its ``remove``; the card under it is the
        top again, and the one taken may be played again."""
        card = self.stack.pop()
        self.history.discard(card)
        self.removed.append(RemoveSeen(t, self.zone.name, card, index))
        self.top = self.stack[-1] if self.stack else None
        self._snap.pop(card, None)
        self._reset_missing()

    def _reset_missing(self) -> None:
        """The top shows again (or there is none to miss): start counting looks that miss it afresh."""
        self._missing, self._missing_since, self._under_shown, self._first_missed = 0, None, False, None

    def _lose(self, code: str) -> None:
        """``code`` is no longer on this pile (it may be played again): the top is the card under it."""
        self.stack.remove(code)
        self.history.discard(code)
        self._snap.pop(code, None)
        self._peeking.discard(code)
        self._gone.pop(code, None)
        if self.top == code:
            self.top = self.stack[-1] if self.stack else None

    def top_before(self, code: str) -> str | None:
        """The card confirmed here last before ``code`` was (None: none), on the pile still or not."""
        t = self._seen_at.get(code)
        before = [(s, c) for c, s in self._seen_at.items() if c != code and (t is None or s <= t)]
        return max(before)[1] if before else None

    def last_seen(self, code: str) -> float | None:
        """When ``code`` was last seen here (confirmed or read by a look); None if never."""
        t = max(self._last_seen.get(code, -float("inf")), self._seen_at.get(code, -float("inf")))
        return None if t == -float("inf") else t

    def moved_away(self, code: str) -> float | None:
        """``code`` has just landed somewhere else: one card lies in one place, so it left this pile (taken back,
        perhaps from under a later card where no look saw it). Returns when it was last seen here (None: it was
        not on this pile)."""
        if code not in self.stack:
            return None
        self._lose(code)
        return self.last_seen(code)  # (a code on the stack was confirmed here: never None)

    def _forgotten(self, code: str, t: float) -> bool:
        """A card confirmed here before may come back (the pile was taken and its cards played again) once it has
        not been seen for ``forget_s`` and newer cards have topped it since: a buried card peeking out between
        two others is seen now and then, never after that long. Not on a row: its cards lie side by side, and one
        that goes is seen going (rendered Pai Jie 2p s238 17.4 s: JD under QD's end on the diamonds row, unread for
        9 s, read again where it lay and taken for a JD laid anew)."""
        if self.row:
            return False
        seen = self._last_seen.get(code, self._seen_at.get(code, t))
        newer = any(v > self._seen_at.get(code, t) for v in self._seen_at.values())
        return t - seen > self.forget_s and newer

    def taken(self, t: float) -> None:
        """The pile as it was at ``t`` went to a player (the referee says so, a moment later): the cards that had
        landed by then may all come back as new ones; those laid since are the new pile."""
        gone = {c for c in self.history if self._seen_at.get(c, t) <= t}
        self.history -= gone
        self.stack = [c for c in self.stack if c not in gone]
        for c in gone:
            self._snap.pop(c, None)
        if self.top in gone:
            self.top = None

    def _dated(self, code: str, box: Any, t: float, after: float | None = None) -> float:
        """When a confirmed card first showed: walked back from a clean look at it (:meth:`first_seen`), and no later
        than the first look that read it at all (by then it showed, though a hand hid its middle from the frames
        since: the hand that laid it, going back). ``after``: a look then read another card where this one lies
        (:meth:`_after_covered`): it showed later, walked back from the look that confirmed it to that look at
        most; the looks that read it before were misreads of the card under it."""
        t_ref = self._first_look.pop(code, t)
        read = self._first_read.pop(code, None)
        if after is not None:
            t_ref, read = t, None
        shown = self.first_seen(tuple(float(v) for v in box), t_ref, after)
        if (self.races and self.removals) or self.won_unseen:
            self._snap_middle(code, box, t_ref)
        self._read_where.pop(code, None)
        self._read_conf.pop(code, None)
        if read is None:
            return shown
        return read if shown - READ_BOUND_S <= read < shown else shown

    def _revealed_under(self, index: int, t: float, conf: float, code: str, box: Any, looked: set[str]
                        ) -> CardSeen | None:
        """A race pile (:attr:`races`, :attr:`removals`): ``code``, confirmed new where the top is not read, lay there
        before the top showed, and the top was taken back off it: its middle looks now as in a frame from before the
        top showed (and after the card under the top was last read), and as it did not while the top lay on it. Then
        the top leaves the pile (a ``remove`` from when ``code`` showed again) and ``code`` is the card it covered,
        dated from its own landing (rendered Speed 2p s6 10.93 s: B's 10C, read once unsurely, covered by A's 8D a
        tenth of a second later; 8D, illegal on it, was taken back, and 10C was taken for a card laid on 8D)."""
        if not self.races or not self.removals or self.row or self.top is None or self.top in looked \
                or self._top_t is None or len(self.stack) < 2 or len(self._frames) < 2:
            return None
        if rank(code) == rank(self.stack[-2]):
            # (the card under the top has the same pips: a frame showing it looks as ``code`` does now, and says
            # nothing of when ``code`` came. Rendered Spit 2p s6 5.36 s: B's 4C laid on A's 3D, which lay on 4S,
            # matched a frame of 4S before 3D landed: 3D was taken for taken back and 4C for "four on four")
            return None
        t_top = self._top_t
        under_last = self._last_seen.get(self.stack[-2], -math.inf)
        sy0, sy1, sx0, sx1 = self._middle_region(box)
        ref = self._frames[-1][2][sy0:sy1, sx0:sx1].astype(np.int16)
        telling = _telling(ref) if ref.size else None
        if telling is None:
            return None

        def as_now(grey: np.ndarray) -> bool:
            same = np.abs(grey[sy0:sy1, sx0:sx1].astype(np.int16) - ref) < SAME_GREY
            return same.shape == ref.shape and float(same.mean()) >= 0.8 and float(same[telling].mean()) >= TELLING_SAME

        before = [f for f in self._frames if under_last < f[1] < t_top - 1e-9]
        covered = [f for f in self._frames if t_top - 1e-9 <= f[1] < t]
        laid = next((f for f in reversed(before) if as_now(f[2])), None)
        if laid is None or not covered or all(as_now(f[2]) for f in covered):
            return None
        t_laid = self.first_seen(tuple(float(v) for v in box), laid[1], under_last)
        t_back = self.first_seen(tuple(float(v) for v in box), t, t_top)
        self._top_taken_back(t_back, self._frame_at(t_back, index))
        self.history.add(code)
        for kept in (self._first_look, self._first_read, self._read_where, self._read_conf, self._settled):
            kept.pop(code, None)
        self._push_top(code, t, t_laid, box)
        # (its tap came before the top's landing: up to the last frame that showed it then)
        return CardSeen(t_laid, self.zone.name, code, conf, index, tuple(float(v) for v in box), laid[1])

    def _came_over(self, t: float, back: bool, hand: bool) -> None:
        """Keep when a look saw a card back on the pile (its middle there: one lying beside it overlaps the pile's
        bounds) and when a hand over it, for :data:`RECENT_READS_S`."""
        if back:
            self._backs_over.append(t)
        if hand:
            self._hands_over.append(t)
        for kept in (self._backs_over, self._hands_over):
            while kept and kept[0] < t - RECENT_READS_S:
                kept.popleft()

    def _lay_under_taken_back(self, box: Any, shown: float, t: float, index: int, looked: set[str]) -> float | None:
        """A pile whose cards all come carried face down (:attr:`carried_face_down`): a card confirmed new at ``t``
        where the top is not read (at ``box``, shown since ``shown``), with no card back seen on the pile from the
        top's confirmation until it showed and a hand over it meanwhile, was not played (a play shows its back first,
        as the top's did): it lay under the top, never seen (the top, carried face down over it, covered it as it
        landed), and the top was taken back off it. Then the top leaves (a ``remove`` from when the card showed), and
        the time the card is dated from is returned: the frame before the top showed. None otherwise, or past
        :data:`REVEALED_UNSEEN_S` after the top's confirmation (a card is taken back at once or not at all).
        Rendered held-out Speed 2p s5 9.17 s: B's 5D, covered by A's 3D carried over it 0.1 s later; 3D, illegal on
        it, was taken back, and 5D was taken for a card laid on 3D: "Illegal: five on three", and the left pile was
        judged on the 3D for five seconds."""
        if not self.carried_face_down or not self.removals or self.row or self.top is None or self.top in looked \
                or self._top_t is None or self.top not in self._seen_at:
            return None
        confirmed, t_top = self._seen_at[self.top], self._top_t
        # (and the top itself came so: a back seen on the pile before it showed. A detector that boxes no card in
        # flight, the tests' stand-in reading the script, shows every card laid so, under the hand that lays it)
        since = self._seen_at.get(self.stack[-2], -math.inf) if len(self.stack) > 1 else -math.inf
        if t - confirmed > REVEALED_UNSEEN_S or any(confirmed <= tb <= shown for tb in self._backs_over) \
                or not any(confirmed < th <= shown for th in self._hands_over) \
                or not any(since < tb <= t_top for tb in self._backs_over):
            return None
        t_shown = self.first_seen(tuple(float(v) for v in box), shown, t_top)
        self._top_taken_back(t_shown, self._frame_at(t_shown, index))
        return max((f[1] for f in self._frames if f[1] < t_top - 1e-9), default=t_top)

    def _twin_where_nothing_came(self, code: str, box: Any, shown: float) -> bool:
        """A pile whose cards all come carried face down (:attr:`carried_face_down`): ``code``, the top's twin (its
        rank in the other suit of its colour), read at the top's place (:data:`SAME_PLACE_IOU`) or on part of it (a
        box inside its box) from ``shown`` on, with no card back nor hand seen on the pile from the top's confirmation
        until then, is the top read again, not a card laid on it: nothing came to lay it. Rendered held-out Speed 2p
        s6 12.9 s: A's KC, read KS at 0.9 for 0.3 s, then KC at its very place as the next card's back came over part
        of it, was taken for a KC laid on KS: "Illegal: king on king"; tuning s238 18.35 s: AD's lower part, as the
        side card came, read AH and taken for the side card."""
        if not self.carried_face_down or self.top is None or self.top not in self._seen_at \
                or self.top not in self._box_at or rank(code) != rank(self.top) or not _looks_like(code, self.top):
            return False
        at = self._box_at[self.top]
        if float(box_ious([box], [at])[0, 0]) < SAME_PLACE_IOU and not _inside(box, at):
            return False
        confirmed = self._seen_at[self.top]
        return not any(confirmed <= tb < shown for tb in (*self._backs_over, *self._hands_over))

    def _after_covered(self, code: str, box: Any, covered: list[tuple[str, tuple[float, Any]]]) -> float | None:
        """The last look that read one of the ``covered`` cards (:meth:`_covered_by`: played before ``code``, which now
        lies on them) on the middle of ``code``'s ``box``: ``code`` was not there then. Rendered Speed 2p s7 8.13 s:
        7S landed, read surely at 8.27 s; B's 6S laid on it at 8.50 s, at its very place; 7S's lower half, a back
        carried over its top, was read 6S at 8.33 s; dated from that look, 6S's like middle walked back to 7S's
        landing, and 7S was taken for 6S misread."""
        if not self.races:
            return None
        last = [tr for k, _ in covered for tr, br in self._reads.get(k, []) if _centre_on_middle(br, box)]
        return max(last, default=None)

    def _middle_region(self, box: Any) -> tuple[int, int, int, int]:
        """The middle of ``box`` (frame coordinates) as rows and columns of this pile's crop: y0, y1, x0, x1."""
        return self._crop_region(_middle(box))

    def _crop_region(self, box: Any) -> tuple[int, int, int, int]:
        """``box`` (frame coordinates) as rows and columns of this pile's crop: y0, y1, x0, x1 (from 0 on)."""
        x0, y0 = self.crop[0], self.crop[1]
        return max(0, int(box[1] - y0)), int(box[3] - y0), max(0, int(box[0] - x0)), int(box[2] - x0)

    def _snap_middle(self, code: str, box: Any, t_ref: float) -> None:
        """Keep the middle of ``code``'s box as the kept frame at ``t_ref`` shows it (:meth:`_laid_anew`)."""
        frames = [f for f in self._frames if f[1] <= t_ref + 1e-9]
        if not frames:
            return
        region = self._middle_region(box)
        patch = frames[-1][2][region[0]:region[1], region[2]:region[3]].astype(np.int16)
        if patch.size:
            self._snap[code] = (region, patch)

    def _laid_anew(self, index: int, inside: list[tuple[float, str, Any]], hand_boxes: list[Any]) -> set[str]:
        """Cards under the top read in this look, the top not read, that were laid anew over it (their middle no
        longer as in their first clean look, :data:`REPLAY_MATCH`): taken back unseen and played again. Each leaves
        the pile (a ``remove`` dated from when it was last seen lying there) and is a new card. Not a card a hand is
        over (the hand taking the top back covers part of the card it uncovers), nor one with another card read over
        its middle (rendered Spit s2 11.3 s: KH and JH peeking out from under two eights landing together)."""
        if not self.races or not self.removals or self.top is None or not self._frames \
                or any(n == self.top for _, n, _ in inside):
            return set()
        grey = self._frames[-1][2]
        out = set()
        for _, n, b in inside:
            if n not in self.stack[:-1] or n not in self._snap or n in out or any(_overlap(b, h) for h in hand_boxes) \
                    or any(n2 != n and _overlap(_middle(b), b2) for _, n2, b2 in inside):
                continue  # (another card read over its middle: it peeks out from under that one)
            if self._as_snapped(n, grey) is False:
                out.add(n)
        for n in out:
            last = self._last_seen.get(n, self._frames[-1][1])
            self._lose(n)
            self.removed.append(RemoveSeen(last, self.zone.name, n, index))
        return out

    def _as_snapped(self, code: str, grey: np.ndarray) -> bool | None:
        """Whether ``grey`` (a crop) still shows ``code``'s middle where it lay in its first clean look
        (:meth:`_snap_middle`): at least :data:`REPLAY_MATCH` of that look's ink, shifted up to :data:`REPLAY_SHIFT`
        pixels. None where no such look was kept, or its middle has too little ink to tell by."""
        if code not in self._snap:
            return None
        region, patch = self._snap[code]
        telling = _telling(patch)
        if telling is None:
            return None
        telling &= patch < float(np.median(patch)) - SAME_GREY  # (its ink: paper matches paper anywhere)
        if telling.sum() < PART_TELLING:
            return None
        want = patch[telling]
        shifts = range(-REPLAY_SHIFT, REPLAY_SHIFT + 1)
        return max(_ink_match(grey, region, telling, want, dx, dy) for dy in shifts for dx in shifts) >= REPLAY_MATCH

    def first_seen(self, box: tuple[float, float, float, float], t_ref: float, after: float | None = None) -> float:
        """The earliest kept frame from which the card's area (the middle of its box) looked as it did at ``t_ref``
        (a look that read the card with no hand over it); ``t_ref`` itself when no kept frame is that old. Not
        ``after`` (a time it was not there) nor before."""
        frames = [f for f in self._frames if f[1] <= t_ref + 1e-9 and (after is None or f[1] > after + 1e-9)]
        if not frames:  # read before the oldest kept frame
            return t_ref
        sy0, sy1, sx0, sx1 = self._middle_region(box)
        _, t_last, ref = frames[-1]
        ref = ref[sy0:sy1, sx0:sx1].astype(np.int16)
        if ref.size == 0:
            return t_last
        telling_now = _telling(ref)
        first, k, dip = t_last, len(frames), 0
        for i in range(len(frames) - 1, -1, -1):
            patch = frames[i][2][sy0:sy1, sx0:sx1].astype(np.int16)
            same = np.abs(patch - ref) < SAME_GREY
            if float(same.mean()) < 0.8:
                break
            # (the telling pixels of either look: a pip of the card before where this one is plain white tells too)
            then = _telling(patch) if patch.shape == ref.shape else None
            telling = telling_now if then is None else then if telling_now is None else telling_now | then
            if telling is not None and float(same[telling].mean()) < TELLING_SAME:
                dip += 1
                if dip > TELLING_DIP:
                    break
                continue
            first, k, dip = frames[i][1], i, 0
        return self._partly_shown(frames[:k], ref, (sy0, sy1, sx0, sx1), first)

    @staticmethod
    def _partly_shown(frames: list, ref: np.ndarray, region: tuple[int, int, int, int], first: float) -> float:
        """How far before ``first`` (its first clean frame) the card already lay where it lies, partly under a hand:
        the hand that turned a column's card up still over it. Only the card's telling pixels count (where its
        clean look changes when shifted a few pixels: pips, indices, figures; not its plain white), those a hand
        leaves bare match wherever it moves. Walked back over ``frames`` (those before ``first``) while at least
        :data:`PART_SHOWN` of them match unshifted, better than shifted by any of :data:`PART_SHIFTS` (a card still
        sliding in matches better where it was going), and taken only when the walk ends on a frame where the card
        was not there (less than :data:`PART_GONE` of the least it matched) within :data:`READ_BOUND_S`: a card on
        a card of the same look matches in part all along."""
        telling = _telling(ref)
        if telling is None:
            return first
        want = ref[telling]
        least, earliest = 1.0, first
        for _, t, grey in reversed(frames):
            if first - t > READ_BOUND_S + 1e-9:
                return first
            here = _ink_match(grey, region, telling, want)
            if here < PART_SHOWN:
                return earliest if here < PART_GONE * least and earliest < first else first
            shifted = max(_ink_match(grey, region, telling, want, dx, dy) for dx, dy in PART_SHIFTS)
            if shifted >= here:
                return first
            least, earliest = min(least, here), t
        return first

