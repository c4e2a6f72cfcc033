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

import bisect
import dataclasses
import heapq
import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from calibration.layout import Layout
from engine.cards import STANDARD_DECK, adjacent, value
from engine.events import Event
from engine.games.paijie import ROW_OF
from engine.verdicts import POT_GONE, piles_moved
from models.detector import Detections, box_ious, zone_imgsz
from vision.arms import ArmFinder
from vision.audio import Onset
from vision.batches import BatchSeen, BatchWatcher
from vision.slaps import (
    SLAP_SOUND_DB,
    SlapDetector,
    SlapSeen,
    channel_max,
    drop_dealing,
    fuse_audio,
    unheard_quick,
)
from vision.tracking import READ_BOUND_S, CardSeen, PileTracker, RemoveSeen, shared_looks, suit_twins, zone_crop


def zones_for(game: str, layout: Layout) -> tuple[list[str], list[str]]:
    """(zones whose top card is tracked, zones that are slapped) for ``game``."""
    if game == "slapjack":
        return ["center"], ["center"]
    if game == "snap":
        piles = [z for z in layout.zones if z.startswith("pile:")]
        # (the pot's top is not tracked: the referee knows it from the piles it merged, SN-4; slaps on it are looked
        # for only while there is one, see TableWatcher.ruled)
        return piles, piles + [z for z in ("pot",) if z in layout.zones]
    if game == "speed":
        return ["left", "right"], []
    if game == "spit":  # a round ends with a slap on the pile each player chooses (ST-5)
        return ["left", "right"] + sorted(z for z in layout.zones if z.startswith("col:")), ["left", "right"]
    if game == "paijie":  # the suit rows, and the jokers' place when the layout has one
        rows = sorted((z for z in layout.zones if z.startswith("row:")), key=lambda z: "SHDC".index(z[-1]))
        return rows + [z for z in ("center",) if z in layout.zones], []
    if game == "cheat":
        return [], []  # the centre holds face-down batches: vision.batches watches it
    raise ValueError(f"no vision for {game!r}")


#: games whose cards go from a centre pile back to a hand or a column and may be played again (SP-8, ST-7)
CARDS_MOVE_BETWEEN_PILES = ("speed", "spit")
#: games with several piles whose cards stay where they were laid until the pile is taken: a card face up on one pile
#: is on no other (one deck, SN-1), and of two look-alikes the deck's pictures barely tell apart, not that one
CARDS_STAY_ON_THEIR_PILE = ("snap",)
#: games whose centre piles (``left``, ``right``) see the next card carried face down over them, to be turned up as it
#: lands: a back over part of a face there is above it, and the face is read on what shows
#: (``ReadingDetector.backs_over_faces``; rendered Speed, cards right 92 -> 93 of 108 tuning, 74 -> 75 of 119 held
#: out, about 8 % slower: such reads are searched at every look). Not Spit: no card mended on its centre piles, one
#: column card more read where none was laid (tuning s238), slower; a Spit column's face-down cards lie under its
#: face-up top, as Cheat's batches under a reveal. Nor Pai Jie, Snap and Slapjack, where it mended no card (Pai Jie's
#: tuning games lost two: 50 -> 48 of 51)
BACKS_OVER_FACES = ("speed",)
#: games where a read of look-alikes told apart by their shapes alone stands as made, not only once read so twice
#: (``models.deckmatch.DeckMatcher.read_twice``): in Speed a card lies still a moment only, hands fly over it, and a
#: second search named the old top's look-alike where the first had named it right (rendered Speed 2p s6 1.9 s: JH
#: read JD, and JD confirmed with the QS laid on it as a race): held out, verdicts alike 47 -> 39 of 105 with it
READ_ONCE = ("speed",)
#: the ``conf`` of a ``facedown`` line whose count the outline fit is unsure of (``BatchSeen.sure``): under the Cheat
#: referee's ``COUNT_SURE``, so that a claim that differs is taken at its word, not called a count mismatch (a sure
#: count's line carries no ``conf``, as one typed by hand)
UNSURE_COUNT = 0.25
#: the Speed and Spit centre piles, where both players lay cards
CENTRE_PILES = ("left", "right")
#: games whose cards are carried face up over the piles, and how far (share of its size) a card's box may move
#: between two looks and still lie on the pile (``PileTracker.carried``; ``bench/audit.py``, three games each, shipped
#: models: Spit at 0.06 reads 89 of 133 cards right, +41 wrong or extra, against 67 (+77) without the check. Chosen
#: with the deck reads of e2f2c83, since reverted: Spit at 0.15 86 (+46), at 0.06 90 (+39), at 0.03 87 (+37); Speed
#: 72 of 108 (+17) at 0.15, 68 (+19) at 0.06: a Speed card is laid from a hand held just over the pile)
CARRIED_SHARE = {"spit": 0.06, "speed": 0.15, "paijie": 0.15}
#: a card read less surely than this is no evidence on a pile in these games (``PileTracker.min_conf``; elsewhere
#: :attr:`TableWatcher.min_conf`): a Speed card half under the hand that lays it is read as its neighbour in rank
#: (s11: 7C read 6C at 0.59, confirmed, and then "Illegal: six on six"). Speed (seeds 238 11 12): verdicts matching
#: the truth's 43 -> 50 of 93, verdicts not in the truth 33 -> 24, cards 79 -> 80 of 108 (+18 -> +12); 0.6 and 0.7
#: within one verdict of it, 0.5 as 0.25. Not Spit: at 0.65 its verdicts matching fell 29 -> 26 of 46
READ_AS_EVIDENCE = {"speed": 0.65}
#: a card read once (at this confidence or more) and covered by the next before a second look lay on its pile
#: (``PileTracker.lay_once``): a Speed card laid and covered at once by the hand holding the stock, then by the next
#: card. Speed (seeds 238 11 12): 76 -> 79 of 108 cards (+17 -> +18), verdicts matching the truth's 37 -> 43 of 93
#: (at 0.75: 80, +23, 37; without the two-ways check: 80, +21, 42). Since a surer read stands against a weaker second
#: one and a code read between reads of the top is the top misread, 0.75: 81 of 108 (+14 -> +17), verdicts said alike
#: 44 -> 52 of 93 (0.70: 51, +19). Not Spit: cards carried across its centre piles
#: from the columns are read once there (97 of 133, but +44 -> +56). Pai Jie: a straight is laid card by card a few
#: tenths of a second apart, each over the end of the last (the lay-once rule needs the carried check, at Speed's
#: 0.15): six games (2p s1, 4p s2, 3p s5 238 11 12) 86 -> 87 of 95 cards, verdicts said alike 75 -> 79 of 94 (4p s2
#: 11 -> 15 of 19), with a card read once on the middle of a row card taken as that card misread
LAY_ONCE_CONF = {"speed": 0.75, "paijie": 0.85}
#: a card read once at this confidence or more, on a pile then covered by hands and taken before a second look, lay
#: there (``PileTracker.read_before_take``): a card slapped at once, anticipated (rendered Snap 4p s11 3.18 s)
READ_BEFORE_TAKE = {"snap": 0.85, "slapjack": 0.85}
#: a Spit column's card read this long (s) or less before it lands on a centre pile was turned up there
#: (:meth:`TableWatcher._turned_up_unseen`)
TURN_UP_READ_S = 1.0
#: Spit: a column's new card whose box overlaps the card it showed at least this much (IoU) lies at its place
#: (:meth:`TableWatcher._read_again`): rendered Spit 2p s12's 4S and 4C, 0.98
SAME_CARD_IOU = 0.6
#: ... and the line that corrects a column's card read wrong comes this long before the card's play (s)
CORRECTED_BEFORE_S = 0.001
#: Spit: a centre pile's card whose line has been out this long (s) was ruled by the referee (an illegal card is
#: ruled once its tie window, 20 ms, has passed: the next line after it closes it)
RULED_S = 0.5
#: a hand reaches over a pile to take a card back in about this long (s) before the card is missed
TAKE_BACK_S = 0.35
#: a card taken from a Pai Jie row went into the hand of the arm over its place this long either side of the first
#: look that missed it (rendered s238's JH and 3S to C, 5S to A: each named right; wider windows name none)
ROW_TAKE_S = 0.2
#: more card zones than this share their looks between neighbours (Spit's twelve, Pai Jie's rows)
SHARE_LOOKS_ABOVE = 4
#: the faces a reader reads in one look (the surest first), per zone the look covers: a pile shows its top card and
#: a few peeking out; a Pai Jie suit row shows every card laid on it (up to 13). The reader read 4 a look: rendered
#: Pai Jie s238's look at three rows read AS, AD, 8S and 10S, and the hearts row's 7H and QH went unread for 1.5 s
#: (7H was "taken back" and laid again twice)
FACES_PER_PILE = 4
FACES_PER_ZONE = {"paijie": 13}
#: games whose cards lie in overlapping rows: a face box as long as two cards is read at both ends
ROWS_OF_CARDS = ("paijie",)
#: a card no box covers on a row: a patch of at least UNBOXED_SHARE of a card's box where the row differs from the bare
#: row by more than UNBOXED_GREY (any channel, 0-255)
UNBOXED_GREY = 40
UNBOXED_SHARE = 0.3
UNBOXED_MOST = 2  # patches read a row and look at most
#: a strip of a row, at least this share of a card wide, that differs from the bare row (in at least half a card's
#: height) where no box lies along the row: a card laid over the end of another whose box straddles both, or over the
#: gap between two boxes (:meth:`TableWatcher._unboxed_strips`)
UNBOXED_STRIP = 0.15
#: two neighbouring boxes on a row whose cards' ranks leave a gap (a rank or more between them) and whose middles lie
#: at least this many cards' widths apart have room for a card between them, hidden between their boxes: read there
#: (:meth:`TableWatcher._row_gaps`)
ROW_GAP = 1.1
GAP_VIEW = (16, 20)  # (w, h) px: the view of a gap a read there was made for
#: a sound no slap seen has taken by this long after it (s: the slap detector's hold, its look for the sound) is
#: looked for among the hands on the piles (:meth:`vision.slaps.SlapDetector.hand_for_sound`)
UNSEEN_AFTER_S = 0.3
#: a still Spit column is looked at again this often (frames; a pile: ``PileTracker.retry``): a column's cards change
#: only under a hand, and the change calls for a look then (looking every third of a second cost a tenth of the runs)
COLUMN_RETRY = 30
#: games whose cards race for one pile (SP-9, TM-3): their landings are timed by their taps on the table
AUDIO_TIMED_CARDS = ("speed", "spit")
#: a card read on its pile this long (s) at most before it showed there for sure is timed from that read on
#: (:meth:`TableWatcher._card_times`)
READ_BEFORE_S = 0.5
#: the piles played on, per game (zone names or their beginnings), where a top card the detector leaves unboxed is
#: read by the deck's pictures (:meth:`TableWatcher._unboxed_top`). Not Slapjack's centre: there it gained no card
#: on six rendered games and cost one (4p s11: JC read JD)
UNBOXED_TOPS = {"speed": CENTRE_PILES, "spit": CENTRE_PILES, "snap": ("pile:",)}
#: a card's place that differs from when it was last asked about by at most this (mean grey level, 0-255, at half
#: resolution: codec noise) is the same table: the answer stands (:meth:`TableWatcher._still_lies`; the deck's own
#: kept reads stand so too, :data:`models.deckmatch.STILL_GREY`)
STILL_ASKED_GREY = 10.0
#: games whose cards land anywhere along a long zone (a suit row): the arm is found from the card to each seat
PLAYER_FROM_SEAT = ("paijie",)
#: games whose card lines must name who laid the card (the referee keeps each player's count, SP-8): the arm
#: that reached the pile as it showed says who
PLAYER_FROM_ARM = ("speed",)
#: games whose zone crops go through the detector at ``models.detector.ZONE_IMGSZ`` where the model takes any size,
#: measured no worse there (``bench/audit.py --game G``, shipped models): Spit 44 vs 46 of 133 cards read right at
#: 1.04x real time instead of 0.72x, Slapjack 32 vs 28 of 57. The others keep the model's own size: at 160 px Pai
#: Jie's suit rows (crops shared up to twice the input's size) read 13 vs 24 of 51 cards right, Snap 36 vs 39 of 56
#: (twice the wrong ones), Cheat 22 vs 28 of 49 batches and reveals; Speed read as many (51 vs 52 of 108) and is
#: fast enough at 224; at 320 (``bench/audit.py --game speed --imgsz 320``, 2026-12-07) it read no more (94 of 108,
#: +5 wrong or extra against +4), said 62 of the truth's 93 verdicts alike against 66, at 1.30x real time against
#: 1.88x (two runs, one after the other): the cards it misses show whole for a frame or two before the next card's
#: back covers them
ZONE_SIZE_GAMES = ("slapjack", "spit")


def detector_input(model: str | Path, game: str) -> int | None:
    """The detector's input size for ``game``'s zone crops: ``models.detector.ZONE_IMGSZ`` where the game is in
    :data:`ZONE_SIZE_GAMES` and the model takes any size, else None (the model's own)."""
    return zone_imgsz(model) if game in ZONE_SIZE_GAMES else None


def _look_alike_of(code: str) -> str | None:
    """The card :func:`vision.tracking.suit_twins` pairs with ``code`` (None for a joker)."""
    return next((c for c in STANDARD_DECK if suit_twins(c, code)), None)


def _grey_patch(image: np.ndarray, box: Sequence[float]) -> np.ndarray:
    """The frame inside ``box`` (pixels), grey, at half resolution, as float32: what a cached answer about it was
    given for."""
    h, w = image.shape[:2]
    x0, y0 = max(0, int(box[0])), max(0, int(box[1]))
    x1, y1 = min(w, int(math.ceil(box[2]))), min(h, int(math.ceil(box[3])))
    patch = image[y0:y1:2, x0:x1:2]
    if patch.ndim == 3:
        patch = patch.mean(axis=2)
    return patch.astype(np.float32)


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
    # detect a changed pile at most every this many frames. Looking at every frame read no more Speed cards (rendered
    # seeds 238 11 12: 94 of 108 both ways, +7 wrong or extra against +4, verdicts said alike 63 against 66 of 93) at
    # two thirds of the speed: a card seen in one frame only is read in none
    every: int = 2
    min_conf: float = 0.25  # a card read below this confidence is not evidence (the hysteresis needs several)
    cards: list[CardSeen] = field(default_factory=list)
    slaps: list[SlapSeen] = field(default_factory=list)
    dealing: list[SlapSeen] = field(default_factory=list)
    passing: list[SlapSeen] = field(default_factory=list)  # silent arms over a pile on their way to a farther one
    boxes: list[tuple[tuple[float, float, float, float], str]] = field(default_factory=list)  # this frame's
    looked: list[tuple[int, int, int, int]] = field(default_factory=list)  # this frame's crops looked at (pixels)
    slapper_found: list[SlapSeen] = field(default_factory=list)  # every arrival, before the dealing check

    def __post_init__(self) -> None:
        card_zones, slap_zones = zones_for(self.game, self.layout)
        self._rows = [z for z in card_zones if z.startswith("row:")]  # rows of cards (Pai Jie's suit rows)
        side = int(getattr(self.detector, "imgsz", 320))  # no smaller than the model's input: never blown up
        size = self.layout.frame_size
        removals = self.game in ("speed", "spit", "paijie")  # (a Spit column's top that goes was played)
        self.trackers: list[PileTracker] = [
            PileTracker(self.layout.zones[z], zone_crop(self.layout.zones[z], size, min_side=side), every=self.every,
                        min_conf=READ_AS_EVIDENCE.get(self.game, self.min_conf),
                        removals=removals and not z.startswith("col:"),
                        races=self.game in ("speed", "spit"), one_by_one=z.startswith("col:"),
                        carried=CARRIED_SHARE.get(self.game),
                        lay_once=LAY_ONCE_CONF.get(self.game), read_before_take=READ_BEFORE_TAKE.get(self.game),
                        unboxed_arms=self.game in READ_BEFORE_TAKE, bare_middle=self.game in READ_BEFORE_TAKE,
                        won_unseen=self.game in READ_BEFORE_TAKE,
                        carried_face_down=self.game in BACKS_OVER_FACES and z in CENTRE_PILES,
                        emptied_is_removal=self.game == "paijie", row=z.startswith("row:"),
                        retry=COLUMN_RETRY if z.startswith("col:") else PileTracker.retry)
            for z in card_zones]
        if self.game == "cheat":
            zone = self.layout.zones["center"]
            self.trackers.append(BatchWatcher(zone, zone_crop(zone, size, min_side=side), every=self.every,
                                              min_conf=self.min_conf, image_to_mm=self.layout.homography,
                                              deck=getattr(self.detector, "deck", None),
                                              count_outlines=not getattr(self.detector, "boxes_each_card", False)))
        self._place = {id(tr): k for k, tr in enumerate(self.trackers)}  # (each tracker's place in glance's list)
        self._zone_bounds = {tr.zone.name: (*tr.zone.polygon.min(0), *tr.zone.polygon.max(0)) for tr in self.trackers}
        # a game with many zones close together shares looks between neighbours (at most twice the model's input a
        # side); the others look at each zone on its own
        self.looks = shared_looks(self.trackers, size, side, 2 * side, own=CENTRE_PILES) \
            if len(self.trackers) > SHARE_LOOKS_ABOVE else [(tr.crop, [tr]) for tr in self.trackers]
        if hasattr(self.detector, "max_faces"):  # a look shared by several zones reads the faces of all of them
            most = max(len(members) for _, members in self.looks) * FACES_PER_ZONE.get(self.game, FACES_PER_PILE)
            self.detector.max_faces = max(self.detector.max_faces, most)
        if self.game in ROWS_OF_CARDS and hasattr(self.detector, "read_box"):
            for tr in self.trackers:
                if tr.row:
                    tr.still_lies = self._still_lies
        if self.game in ROWS_OF_CARDS and hasattr(self.detector, "split_pairs"):
            self.detector.split_pairs = self._on_a_row
        if self.game in ROWS_OF_CARDS and hasattr(self.detector, "faces_only"):
            # a suit row holds face-up cards only: a back there is a court taken for one (rendered Pai Jie 4p s11
            # 1.4 s, filmed as a print: KC's striped panel boxed as a back at 0.70 for seconds, never read)
            self.detector.faces_only = self._on_a_row
        watch = [z for z in card_zones if self.game in PLAYER_FROM_ARM]
        self.arms = ArmFinder(self.layout, self.fps) if self.game in PLAYER_FROM_SEAT else None
        self.slapper = SlapDetector(self.layout, slap_zones, self.fps, watch=watch)
        self.slapper.closed |= set(slap_zones) & {"pot"}  # (no pot until a Snap Pot makes one)
        self._pending: list[tuple[float, int, Event, Any]] = []
        #: Spit: a column's card read again as its look-alike (card -> (the card it was logged as, the read)), until a
        #: centre pile says which it is (:meth:`_read_again`)
        self._read_again_as: dict[str, tuple[str, CardSeen]] = {}
        self._seq = itertools.count()
        self.detections = 0
        self.detected_ahead = 0  # looks whose boxes were found ahead of time (:meth:`_detect_ahead`)
        self._used_onsets: set[int] = set()
        self._heard_upto = 0  # onsets before this index were looked at for a hand the video missed
        self._seek = getattr(self.detector, "seek", None)
        self._laid: dict[str, tuple[float, str]] = {}  # zone -> (time, player) of the last card laid there
        self._raced: set[tuple[str, str]] = set()  # (zone, card) of cards confirmed together on one pile
        self._released_t = -float("inf")  # the latest time released: nothing found later may be dated before it
        self._look_at = getattr(self.detector, "look_at", None)  # a reader that must know which crop it is given
        self._bare: np.ndarray | None = None  # the first frame: the rows of cards as they lay bare
        self._image: np.ndarray | None = None  # the frame being looked at
        #: (frame index, crop) -> the detector's boxes there, being found ahead of time (:meth:`_detect_ahead`)
        self._ahead: dict[tuple[int, tuple[int, int, int, int]], Future] = {}
        self._ahead_pool: ThreadPoolExecutor | None = None
        #: :meth:`_still_lies`' answers, with the table they were given for: (code, place) -> (grey patch, answer)
        self._still_asked: dict[tuple[str, tuple[float, ...]], tuple[np.ndarray, bool]] = {}
        #: :meth:`_row_gaps`' reads, with the table they were made on: (row, card, card) -> (grey patch, read)
        self._gap_reads: dict[tuple[str, str, str], tuple[np.ndarray, tuple[str | None, float]]] = {}
        expect = {"spit": self._column_tops_over_centre, "paijie": self._suit_of_row}.get(self.game)
        if expect is not None and hasattr(self.detector, "expect"):  # a reader that weighs what the table shows
            self.detector.expect = expect
        #: Spit: the centre piles a spit card is due on (the opening, both players stuck), till a card lands there
        self._spit_due: set[str] = set(CENTRE_PILES) if self.game == "spit" else set()
        self._spit_cards: set[tuple[str, str]] = set()  # Spit: (pile, card) of the cards landed there as spit cards
        self._stuck_said: set[str] = set()  # Spit: who said "stuck" since a card last landed on a centre pile
        self._illegal: set[tuple[str, str]] = set()  # (zone, card) of the cards the referee ruled illegal
        if self.game in CARDS_STAY_ON_THEIR_PILE and hasattr(self.detector, "elsewhere"):
            self.detector.elsewhere = self._on_other_piles
        if self.game == "spit" and hasattr(self.detector, "elsewhere"):
            self.detector.elsewhere = self._not_there_in_spit
        if hasattr(self.detector, "watched"):
            self.detector.watched = self._watched_place
        if self.game in BACKS_OVER_FACES and hasattr(self.detector, "backs_over_faces"):
            self.detector.backs_over_faces = self._on_a_centre_pile
        deck = getattr(self.detector, "deck", None)
        if deck is not None and hasattr(deck, "read_twice"):
            deck.read_twice = self.game not in READ_ONCE

    def _ready_at(self, ev: Event) -> float:
        if self.slap_hold_s is None:
            return ev.t + self.hold_s
        return ev.t + (self.slap_hold_s if ev.type == "slap" else 0.0)

    def feed(self, index: int, t: float, image: np.ndarray, small: np.ndarray | None = None,
             upcoming: Mapping[int, Any] | None = None, glanced: list | None = None) -> list[Event]:
        """Look at one frame (BGR; ``small``: it shrunk for the slap detector, where the reader made it); returns the
        observations now final, in time order. ``upcoming``: the frames decoded ahead (``vision.frames.Frame``), by
        index (a file's): where this frame is looked at, the detector finds the boxes of the same crops ``every``
        frames later on the other core while this frame's cards are read (:meth:`_detect_ahead`). ``glanced``:
        :meth:`glance` of ``image``, where the reader made it."""
        self.boxes = []
        self.looked = []
        self._image = image  # (the frame the trackers' questions are about: :meth:`_still_lies`)
        if self._bare is None and self.game in ROWS_OF_CARDS:
            self._bare = image.copy()  # the table before the game: the rows bare
        if self._seek is not None:
            self._seek(t)
        self._arrivals(self.slapper.update(index, t, image, small), now=t)
        self._heard_unseen(index, t)
        if self.arms is not None:
            self.arms.update(t, image, self.slapper.small)
        due = []
        for crop, members in self.looks:
            wants = [tr.remember(index, t, image, glanced[self._place[id(tr)]] if glanced is not None else None)
                     for tr in members]  # (every member keeps its frames)
            if any(wants):
                due.append((crop, members, wants))
        many = getattr(self.detector, "many", None) if self._look_at is None else None
        found: list[Detections | None] = [None] * len(due)
        origins = bool(getattr(self.detector, "wants_origin", False))  # it must know where each crop lies
        if due and self._look_at is None and hasattr(self.detector, "read_found"):
            found = list(self._found(index, image, [(c, members) for c, members, _ in due], upcoming, origins))
        elif many is not None and len(due) > 1:  # this frame's looks, side by side
            crops = [image[c[1]:c[3], c[0]:c[2]] for c, _, _ in due]
            found = list(many(crops, origins=[(c[0], c[1]) for c, _, _ in due]) if origins else many(crops))
        for (crop, members, wants), d in zip(due, found, strict=True):
            x0, y0 = crop[0], crop[1]
            if d is None:
                if self._look_at is not None:
                    self._look_at(crop)
                d = self.detector(image[crop[1]:crop[3], crop[0]:crop[2]], **({"origin": (x0, y0)} if origins else {}))
            self.detections += 1
            if len(d):
                d = Detections(d.xyxy + np.array([x0, y0, x0, y0], np.float32), d.confidence, d.class_id,
                               d.class_name)
            if self.game in ROWS_OF_CARDS and hasattr(self.detector, "read_box"):
                d = self._unboxed_cards(image, d, members)
            if self.game in UNBOXED_TOPS and hasattr(self.detector, "read_box"):
                d = self._unboxed_top(image, d, members)
            self.boxes += [(tuple(float(v) for v in b), str(n)) for b, n in zip(d.xyxy, d.class_name, strict=True)]
            self.looked.append(tuple(int(v) for v in crop))
            for tr, wanted in zip(members, wants, strict=True):
                if not wanted:
                    tr.looked(index)
                self._look(tr, index, t, d)
        return self._release(t)

    def glance(self, image: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
        """Each tracker's :meth:`vision.tracking.PileTracker.glance` at ``image``, in :attr:`trackers`' order: what
        :meth:`feed` looks at first in every frame, made beforehand on the thread that decodes ahead (``glanced``);
        of the trackers' crops and zones alone."""
        return [tr.glance(image) for tr in self.trackers]

    def _found(self, index: int, image: np.ndarray, looks: list[tuple[tuple[int, int, int, int], list[Any]]],
               upcoming: Mapping[int, Any] | None, origins: bool) -> list[Detections]:
        """This frame's ``looks`` (crop in frame pixels, its trackers), read: the detector's boxes found ahead of time
        (:meth:`_detect_ahead`) where they were, the others now (side by side); then the looks ``every`` frames on
        are detected ahead, and these boxes read."""
        crops = [c for c, _ in looks]
        pictures = [image[c[1]:c[3], c[0]:c[2]] for c in crops]
        boxes: list[Detections | None] = [None] * len(crops)
        for k, c in enumerate(crops):
            job = self._ahead.pop((index, c), None)
            if job is not None:
                boxes[k] = job.result()
                self.detected_ahead += 1
        todo = [k for k, b in enumerate(boxes) if b is None]
        if todo:
            for k, b in zip(todo, self.detector.boxes([pictures[k] for k in todo]), strict=True):
                boxes[k] = b
        for key in [key for key in self._ahead if key[0] <= index]:  # (looks made ahead that were not wanted)
            self._ahead.pop(key).cancel()
        if upcoming is not None:
            self._detect_ahead(index + self.every, looks, upcoming)
        return self.detector.read_found(pictures, boxes, origins=[(c[0], c[1]) for c in crops] if origins else None)

    def _detect_ahead(self, index: int, looks: list[tuple[tuple[int, int, int, int], list[Any]]],
                      upcoming: Mapping[int, Any]) -> None:
        """Find the detector's boxes in frame ``index`` (if decoded: ``upcoming``) at the crops of ``looks``, on a
        thread of its own: a crop looked at now is most often looked at again ``every`` frames on (a hand moving
        over a pile), and its boxes are then ready. The other core, idle while this frame's cards are compared with
        the deck's pictures (a third of the audit), finds them; the boxes are the same whenever found. Where that
        frame was glanced at (:meth:`glance`), only the crops one of whose trackers would look at it as things stand
        (``PileTracker.would_look``; rendered Spit 2p s11: 231 of 1215 boxes found ahead were not wanted)."""
        later = upcoming.get(index)
        if later is None:
            return
        if self._ahead_pool is None:
            self._ahead_pool = ThreadPoolExecutor(1, thread_name_prefix="detect-ahead")
        for c, members in looks:
            if (index, c) in self._ahead:
                continue
            if later.glanced is not None and not any(tr.would_look(index, later.glanced[self._place[id(tr)]][1])
                                                     for tr in members):
                continue
            self._ahead[(index, c)] = self._ahead_pool.submit(self.detector.boxes_aside,
                                                              later.image[c[1]:c[3], c[0]:c[2]])

    def _look(self, tr: PileTracker, index: int, t: float, d: Detections) -> None:
        """One look's detections (frame pixels) for one tracker: cards confirmed, taken back, counted."""
        if isinstance(tr, BatchWatcher):
            self._batch(tr.look(index, t, d))
            return
        seen = tr.update(index, t, d)
        for gone in tr.removed:
            self._removed(gone, box=tr.place_of(gone.card))
        tr.removed.clear()
        if self.game == "spit" and tr.zone.name.startswith("col:"):
            for old, t_gone in tr.emptied:  # (a column's last card gone: played, or seen nowhere)
                self._played_unseen(tr, old, t_gone)
        tr.emptied.clear()
        landed = [*tr.also, *([seen] if seen is not None else [])]  # (cards it covered first, each on its own)
        tr.also.clear()
        self._landed(tr, landed)

    def _landed(self, tr: PileTracker, landed: list[CardSeen]) -> None:
        """Cards confirmed on ``tr``'s pile (those it covered first, then the top): their ``card`` events."""
        together = [c for c in landed if not c.covered]
        for card in landed:  # (a card on its way to another pile, read over a centre pile as it crossed it)
            for other in self.trackers:
                if other is not tr and other.zone.name in CENTRE_PILES:
                    other.landed_elsewhere(card.card, card.t)
        if len(together) > 1:
            self._raced |= {(c.zone, c.card) for c in together}
        if self.game in CARDS_MOVE_BETWEEN_PILES:
            self._moved(tr, landed)
        spat = self.game == "spit" and tr.zone.name in self._spit_due  # (a spit card due: from no column)
        if spat:
            self._spit_cards |= {(tr.zone.name, c.card) for c in landed}
        if self.game == "spit" and tr.zone.name in CENTRE_PILES:
            if not spat:  # (a spit card comes from a spit stack, not a column)
                self._column_top_misread(landed)
            self._turned_up_unseen(landed)
            if landed:
                self._spit_due.discard(tr.zone.name)
                self._stuck_said.clear()
        if self.game == "spit" and tr.zone.name.startswith("col:") and landed:
            landed = self._own_cards(tr, landed)
            if self._read_again(tr, landed):
                return
        if self.game == "spit" and tr.zone.name.startswith("col:") and landed:
            old = tr.top_before(landed[-1].card)
            if old is not None:
                self._played_unseen(tr, old, landed[-1].t, landed[-1])
        racing: list[str] = []
        if self.game in PLAYER_FROM_ARM and len(together) > 1:  # cards landed together: the hands, in order
            racing = self.slapper.arrivals_on(together[0].zone, together[0].t - 0.5, together[-1].t + 0.04)
            racing = [""] * (len(landed) - len(together)) + racing
        # (a covered card landed before the card on it showed, and that card's tap came up to a look before: no tap
        # since is its own. Rendered Speed 2p s7 8.13 s: 7S, covered by 6S at 8.50 s, took 6S's tap)
        timed = [self._card_times([dataclasses.replace(c, t_confirmed=min(c.t_confirmed,
                                                                          nxt.t - (self.every + 1) / self.fps))])[0]
                 for c, nxt in itertools.pairwise([*landed, *landed[-1:]]) if c.covered]
        timed += self._card_times(together)  # (in order)
        for k, card in enumerate(landed):
            self.cards.append(card)
            t_card, t_err, source = timed[k]
            if self.game == "spit" and card.zone in CENTRE_PILES:
                self._settle_read_again(card, t_card, from_column=not spat)
                if not spat:
                    self._column_top_read_wrong(card, t_card)
            player = racing[k] if len(racing) == len(landed) else None
            if self.arms is not None:
                lately = self._not_yet_background(card, t_card, self.arms.absorb_s)
                player = self.arms.who(card.box, t_card - 0.1, t_card + 0.04, cards=lately)
            if not player and self.game in PLAYER_FROM_ARM:
                player = self._who_laid(card.zone, t_card)
            if player is not None:
                self._laid[card.zone] = (t_card, player)
            evidence = {"frame": card.frame, "box": [round(v, 1) for v in card.box]}
            if source:
                evidence.update(t_video=round(card.t, 4), source=source)
            ev = Event(t=round(t_card, 4), type="card", zone=card.zone, card=card.card, player=player,
                       conf=round(card.conf, 3), t_err=round(t_err, 4), evidence=evidence)
            heapq.heappush(self._pending, (t_card, next(self._seq), ev, card))

    def _not_yet_background(self, card: CardSeen, t_card: float, absorb_s: float) -> list[tuple[float, ...]]:
        """The boxes of the cards other than ``card`` laid within ``absorb_s`` before ``t_card``, which the arm
        finder's background has not learnt yet (they cover a strip as an arm at rest would), and of every card on a
        row one of them was laid on: it lies over the end of its neighbour, whose look changes too (rendered Pai Jie
        2p s238 15.2 s: B's 2S on the spades row; 3D, under the end of the 2D laid 0.8 s before, covered A's strip
        0.39 at every look, and A was given the card)."""
        fresh = {id(c) for c in self.cards if c is not card and t_card - absorb_s <= c.t < t_card}
        rows = {c.zone for c in self.cards if id(c) in fresh and c.zone.startswith("row:")}
        return [c.box for c in self.cards if c is not card and (id(c) in fresh or c.zone in rows)]

    def _who_laid(self, zone: str, t_card: float) -> str | None:
        """The hand over the pile's edge as the card landed. A hand lays one card at a time: the one that has
        just laid the card before on this pile (and may still be over it) did not lay this one."""
        last = self._laid.get(zone)
        busy = frozenset({last[1]}) if last is not None and t_card - last[0] < 0.2 else frozenset()
        player = self.slapper.arm_on(zone, t_card - 0.1, t_card + 0.04, exclude=busy)
        if player is None and busy:
            player = self.slapper.arm_on(zone, t_card - 0.1, t_card + 0.04)
        if player is None:  # two hands there at once: the one that came first laid the card first
            first = [p for p in self.slapper.arrivals_on(zone, t_card - 0.5, t_card + 0.04) if p not in busy]
            player = first[0] if first else None
        return player

    def _moved(self, tr: PileTracker, landed: list[CardSeen]) -> None:
        """A card that lands here while another pile still holds it left that pile first (a card taken back and
        played again, or put back on its Spit column): its ``remove`` there, though no look saw it go."""
        for card in landed:
            for other in self.trackers:
                if other is tr or not isinstance(other, PileTracker) or not other.removals:
                    continue
                if self._ruled_there(other, card, tr) or (other.zone.name, card.card) in self._spit_cards:
                    continue  # (a spit card is no column's: it never goes back on one, ST-2)
                last = other.moved_away(card.card)
                if last is None:
                    continue
                # when it went is not seen: as soon as it was not seen there (an illegal card is taken back at
                # once, SP-8), and before it landed here
                t_gone = min(card.t - 0.01, max(last + 1.0 / self.fps, self._released_t))
                self._removed(RemoveSeen(t_gone, other.zone.name, card.card, card.frame), seen_again=card.zone)

    def _ruled_there(self, pile: PileTracker, card: CardSeen, col: PileTracker) -> bool:
        """Spit: ``card``, turned up on the column ``col``, was logged on the centre ``pile`` and ruled there, a legal
        play or a spit card (no illegal card waits to be taken back: only such a card goes back on a column, SP-8),
        its line out a while: the pile's card was its look-alike, read wrong. A ``card`` line with ``misread`` there
        (an extension of EVENTS.md) says so, before the column's (True). Rendered held-out Spit 2p s6: the left
        pile's 7C, read 7S at 8.17 s; B's 7S turned up on column 4 at 14.05 s was taken for the 7S moved off the
        pile (a refused ``remove``, then "7S is already on the table"), and the referee, holding a face-down card
        there still, told B "Not stuck: turn up the card in column 4" when both were stuck."""
        if self.game != "spit" or not col.zone.name.startswith("col:") or pile.zone.name not in CENTRE_PILES \
                or card.card not in pile.stack or (pile.zone.name, card.card) in self._illegal:
            return False
        line = self._line_of(pile.zone.name, card.card)
        if line is None or line.t > self._released_t - RULED_S:
            return False
        alike = _look_alike_of(card.card)
        if alike is None or alike in pile.stack:
            return False
        pile.rename(card.card, alike)
        self.cards = [dataclasses.replace(c, card=alike) if c is line else c for c in self.cards]
        self._correct(pile.zone.name, alike, card.card, card.t, card, col.zone.name, where=False)
        return True

    def _column_tops_over_centre(self, box: tuple[float, float, float, float]) -> set[str]:
        """Spit: a card on a centre pile was played from a column's top (ST-2; a spit card too, but seldom a
        look-alike of a column's top): the column tops, for a box whose middle lies on a centre pile; none where a
        spit card is due (:meth:`_not_there_in_spit`). (A column keeps its last top until the next is
        turned up: one already on a centre pile was played.)"""
        pile = self._zone_under(box, CENTRE_PILES)
        if pile is None or pile in self._spit_due:
            return set()
        return self._column_tops() - self._lying_on_columns()

    def _lying_on_columns(self) -> set[str]:
        """Spit: the column tops their column's latest look read there: still lying there, not on their way to a
        centre pile (a card picked up from a column changes it, and the column is looked at again within two frames).
        Rendered Spit 2p s11 15.3 s: JS turned up on A's column 1, expected on the centre piles, and the right pile's
        JC, lying still, was read as its look-alike JS for four looks: "Illegal: jack on jack"."""
        return {tr.top for tr in self._columns() if tr.top_in_last_look()}

    def _column_tops(self) -> set[str]:
        """Spit: the cards the columns show on top (not those already seen on a centre pile: played)."""
        played = {c for tr in self.trackers if tr.zone.name in CENTRE_PILES for c in tr.stack}
        return {tr.top for tr in self._columns() if tr.top is not None} - played

    def _not_there_in_spit(self, box: tuple[float, float, float, float]) -> set[str]:
        """Spit: cards on the table that cannot be the one in ``box`` (one deck), of look-alikes the read is the other:
        where a spit card is due on a centre pile (the piles' first cards; both players stuck), what lands there comes
        from a spit stack, not a column: the columns' tops (rendered Spit 2p s7 2.44 s: A's spit card JC read JS,
        column 3's top, as the column tops were expected there)."""
        pile = self._zone_under(box, CENTRE_PILES)
        return self._column_tops() if pile is not None and pile in self._spit_due else set()

    def _suit_of_row(self, box: tuple[float, float, float, float]) -> set[str]:
        """Pai Jie: a suit row holds cards of its suit (PJ-3): those, for a box whose middle lies on a row (of
        look-alike courts, the one of the row's suit; the reader confuses a court's suit more than its rank)."""
        row = self._zone_under(box, self._rows)
        return set() if row is None else {c for c, its_row in ROW_OF.items() if its_row == row}

    def _unboxed_cards(self, image: np.ndarray, d: Detections, members: Sequence[Any]) -> Detections:
        """A row of cards (a Pai Jie suit row): a card no box covers, read against the deck's pictures and added to
        ``d`` (frame pixels). The detector leaves some cards unboxed for seconds (rendered Pai Jie s11: QS lying alone
        and JC over the end of 10C, striped courts; s12: 5S, the third of three overlapping spades). A card is a patch,
        as large as :data:`UNBOXED_SHARE` of a card, where the row differs from the bare row of the first frame,
        outside every box; it is read at a card-sized box around it (the deck's search finds the card's pose), or at
        both ends where it is longer than a card (:func:`_cards_along`), and kept where the pictures name it surely.
        No card is read where a hand's box overlaps it (:func:`_under_hand`), nor where something moves (a card
        carried over the row in a hand the box holds only part of: rendered Pai Jie 4p s238's 10D on its way to the
        diamonds row, read 10C on the clubs row). Strips between boxes: :meth:`_unboxed_strips`."""
        faces = [b for b, n in zip(d.xyxy, d.class_name, strict=True) if n not in ("back", "hand")]
        if not faces or self._bare is None:
            return d  # no card size to go by
        hands = [b for b, n in zip(d.xyxy, d.class_name, strict=True) if n == "hand"]
        w = float(np.median([b[2] - b[0] for b in faces]))
        h = float(np.median([b[3] - b[1] for b in faces]))
        found: list[tuple[np.ndarray, float, str]] = []
        for tr in members:
            if not tr.zone.name.startswith("row:"):
                continue
            (zx0, zy0), (zx1, zy1) = np.maximum(tr.zone.polygon.min(0), 0).astype(int), \
                tr.zone.polygon.max(0).astype(int)
            now, bare = image[zy0:zy1, zx0:zx1], self._bare[zy0:zy1, zx0:zx1]
            if now.size == 0:
                continue
            changed = (channel_max(cv2.absdiff(now, bare)) > UNBOXED_GREY).astype(np.uint8)
            for b in d.xyxy:  # what the boxes hold is read already (a hand's: a hand, no card to read)
                changed[max(0, int(b[1]) - zy0 - 3):max(0, int(b[3]) - zy0 + 3),
                        max(0, int(b[0]) - zx0 - 3):max(0, int(b[2]) - zx0 + 3)] = 0
            k = max(3, int(w / 4))
            # a card on a checked cloth differs only where the cloth's dark checks were: closed whole first (rendered
            # Pai Jie s238's KC, a striped court alone at the end of the clubs row, was a patch of 883 px, not 2544;
            # closed, the audit's verdicts equal the truth's)
            closed = cv2.morphologyEx(changed, cv2.MORPH_CLOSE, np.ones((k, k), np.uint8))
            changed = cv2.morphologyEx(closed, cv2.MORPH_OPEN, np.ones((k, k), np.uint8))
            asked: list[float] = []  # (the middles along the row read this look)
            along_x = zx1 - zx0 >= zy1 - zy0  # (a row lies along its zone's longer side)
            n, _, stats, centres = cv2.connectedComponentsWithStats(changed)
            large = [j for j in range(1, n) if stats[j, cv2.CC_STAT_AREA] >= UNBOXED_SHARE * w * h]
            # the largest few: a change of light over the whole table must not cost a read of every patch each look
            for j in sorted(large, key=lambda j: -stats[j, cv2.CC_STAT_AREA])[:UNBOXED_MOST]:
                middle = (centres[j][0] + zx0, centres[j][1] + zy0)
                for cx, cy in _cards_along(stats[j], (zx0, zy0), (w, h), along_x) or [middle]:
                    box = np.array([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], np.float32)
                    if _under_hand(box, hands) or tr.moving(box):
                        continue
                    asked.append(cx if along_x else cy)
                    code, conf = self.detector.read_box(image, box)
                    if code is not None and all(code != c for _, _, c in found):
                        found.append((box, conf, code))
            found += self._unboxed_strips(image, d, closed, tr, (zx0, zy0), (w, h), hands, asked,
                                          {c for _, _, c in found})
            found += self._row_gaps(image, d, tr, (w, h), along_x, hands, found)
        return _with_reads(d, found)

    def _unboxed_strips(self, image: np.ndarray, d: Detections, changed: np.ndarray, tr: PileTracker,
                        origin: tuple[int, int], card: tuple[float, float], hands: list[Any], asked: list[float],
                        read: set[str]) -> list[tuple[np.ndarray, float, str]]:
        """Cards on the row of ``tr`` (``changed``: where its zone's box, at ``origin`` in the frame, differs from the
        bare row, boxes masked out) that show as a strip along the row no box covers (:data:`UNBOXED_STRIP`): the
        detector boxes two overlapping cards as one box straddling both (rendered Pai Jie 3p s5: 10H and JH laid over
        its end, one box across the two, read 10H), or leaves a card laid over the gap between two boxes unboxed (s6:
        9C between 8C and 10C, for 2.4 s). Each is read at a card-sized box flush with the strip's outer end (where it
        ends a run of cards) or centred on it (between two boxes), unless a patch's read was asked within a quarter
        of a card of it (``asked``: middles along the row), a hand's box overlaps it or something moves there; kept
        where the deck's pictures name surely a card no box here was read as, nor one of the patches (``read``).
        ``card``: a card's box (w, h)."""
        w, h = card
        ox, oy = origin
        along = changed.shape[1] >= changed.shape[0]  # (a row lies along its zone's longer side)
        grid = changed if along else changed.T
        size, across = (w, h) if along else (h, w)
        shown = grid.sum(0) >= 0.5 * across  # positions along the row where a card's height (or more) differs
        covered = np.zeros(len(shown), bool)
        on_row = tr.zone.contains((d.xyxy[:, :2] + d.xyxy[:, 2:]) / 2) if len(d) else []
        for b in d.xyxy[np.asarray(on_row, bool)] if len(d) else []:
            lo, hi = (b[0] - ox, b[2] - ox) if along else (b[1] - oy, b[3] - oy)
            covered[max(0, int(lo) - 3):max(0, int(hi) + 3)] = True
        names = {str(n) for n in d.class_name} | read
        out: list[tuple[np.ndarray, float, str]] = []
        edges = np.flatnonzero(np.diff(np.r_[0, (shown & ~covered).astype(np.int8), 0]))
        for a, b in zip(edges[::2], edges[1::2], strict=True):
            if b - a < UNBOXED_STRIP * size or len(out) >= UNBOXED_MOST:
                continue
            # (a box's edge within a few pixels: a card's rim may not differ from the bare row)
            boxed_before, boxed_after = covered[max(0, a - 4):a].any(), covered[b:b + 4].any()
            if boxed_before and boxed_after:
                centre = (a + b) / 2
            elif boxed_before:
                centre = b - size / 2  # (the card ends where the strip does)
            elif boxed_after:
                centre = a + size / 2
            else:
                continue  # a patch of its own: :meth:`_unboxed_cards` reads it
            if any(abs(centre + (ox if along else oy) - m) < size / 4 for m in asked):
                continue
            rows = np.flatnonzero(grid[:, a:b].any(1))
            middle = (rows.min() + rows.max()) / 2
            cx, cy = (centre + ox, middle + oy) if along else (middle + ox, centre + oy)
            box = np.array([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], np.float32)
            if _under_hand(box, hands) or tr.moving(box):
                continue
            code, conf = self.detector.read_box(image, box)
            if code is not None and code not in names:
                names.add(code)
                out.append((box, conf, code))
        return out

    def _row_gaps(self, image: np.ndarray, d: Detections, tr: PileTracker, card: tuple[float, float], along_x: bool,
                  hands: list[Any], found: list[tuple[np.ndarray, float, str]]) -> list[tuple[np.ndarray, float, str]]:
        """Cards on the row of ``tr`` hidden between two boxes: a card laid between two row cards whose ranks
        leave a gap (a row runs in rank order), under the next one's end, that the detector boxes with neither (its
        neighbours' boxes meet over it; rendered Pai Jie 4p s5 16.2 s: QD between JD and KD, never boxed, and B's
        QD-KD straight was ruled a lone KD). Read at a card-sized box between the two boxes where their middles lie
        :data:`ROW_GAP` or more of a card apart (unless a hand's box overlaps it or something moves there); kept where
        the deck's pictures name surely a card of a rank between theirs that no box here, nor a card ``found`` by the
        deck's pictures on the rows this look, was read as (those count as boxes too). A read stands while the table
        there is as it was (:data:`STILL_ASKED_GREY`). ``card``: a card's box (w, h); ``along_x``: the row runs along
        the frame's x."""
        w, h = card
        boxes = [*zip(d.xyxy, [str(n) for n in d.class_name], strict=True), *((b, c) for b, _, c in found)]
        if len(boxes) < 2:
            return []
        on_row = tr.zone.contains(np.array([((b[0] + b[2]) / 2, (b[1] + b[3]) / 2) for b, _ in boxes], np.float64))
        faces = [(b, n) for (b, n), on in zip(boxes, on_row, strict=True) if on and value(n) is not None]
        if len(faces) < 2:
            return []
        along = 0 if along_x else 1
        size = w if along == 0 else h
        faces.sort(key=lambda f: float(f[0][along] + f[0][along + 2]))
        names = {n for _, n in boxes}
        out: list[tuple[np.ndarray, float, str]] = []
        for (b1, c1), (b2, c2) in itertools.pairwise(faces):
            m1, m2 = (float(b1[along] + b1[along + 2]) / 2, float(b2[along] + b2[along + 2]) / 2)
            r1, r2 = sorted((value(c1), value(c2)))
            if r2 - r1 < 2 or m2 - m1 < ROW_GAP * size:
                continue
            centre = (m1 + m2) / 2
            across = float(b1[1 - along] + b1[3 - along] + b2[1 - along] + b2[3 - along]) / 4
            cx, cy = (centre, across) if along == 0 else (across, centre)
            box = np.array([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], np.float32)
            if _under_hand(box, hands) or tr.moving(box):
                continue
            key = (tr.zone.name, c1, c2)  # (the gap between these two cards)
            patch = _grey_patch(image, box)
            if not patch.size:
                continue
            # (at a fixed small size: the box moves a pixel or two with its neighbours' boxes, look to look)
            patch = cv2.resize(patch, GAP_VIEW, interpolation=cv2.INTER_AREA)
            known = self._gap_reads.get(key)
            if known is not None and float(np.abs(patch - known[0]).mean()) <= STILL_ASKED_GREY:
                code, conf = known[1]
            else:
                code, conf = self.detector.read_box(image, box)
                self._gap_reads[key] = (patch, (code, conf))
            if code is not None and code not in names and r1 < (value(code) or 0) < r2:
                names.add(code)
                out.append((box, conf, code))
        return out

    def _unboxed_top(self, image: np.ndarray, d: Detections, members: Sequence[Any]) -> Detections:
        """A pile played on (:data:`UNBOXED_TOPS`) on which the detector boxes nothing at all (no card, hand or
        back) is read against the deck's pictures where its top card lay (the deck's search finds a card laid a
        little off it). On some cloths the detector leaves a card on a pile unboxed for seconds (rendered Spit s12,
        pink stripes: B's 4C on the left pile, 5.1-6.1 s, its face scored 0.03), and the next card played there was
        ruled on the card under it; Snap 4p s12 12.03 s: A's AH, slapped 56 ms after it landed, was never boxed
        and the snap of aces was called a false one."""
        found: list[tuple[np.ndarray, float, str]] = []
        for tr in members:
            if not tr.zone.name.startswith(UNBOXED_TOPS[self.game]):
                continue
            if len(d) and tr.zone.contains((d.xyxy[:, :2] + d.xyxy[:, 2:]) / 2).any():
                continue  # (something boxed there: the detector's look stands)
            if tr.top is None:  # an empty pile: where its cards are laid (rendered Snap 4p s5 16.6 s: B's AD, laid
                # on the pile B had just lost, lay there unboxed, and the snap of aces it made was missed)
                place = tuple(float(v) for v in (*tr.zone.polygon.min(0), *tr.zone.polygon.max(0)))
            else:
                place = next((c.box for c in reversed(self.cards) if c.zone == tr.zone.name and c.card == tr.top),
                             None)
            if place is None:
                continue
            box = np.array(place, np.float32)
            code, conf = self.detector.read_box(image, box)
            if code is not None:
                found.append((box, conf, code))
        return _with_reads(d, found)

    def _still_lies(self, code: str, place: tuple[float, float, float, float]) -> bool:
        """Whether the deck's pictures read ``code`` surely at ``place`` (frame pixels) in the frame being looked at.
        Asked again while the table there is as it was when last asked (:data:`STILL_ASKED_GREY`), the answer stands:
        a row's cards under later ones are asked every look and read as nothing each time, a deck search apiece
        (rendered Pai Jie 4p s11: 598 asked, 444 no, 3.9 s of a 19 s audit)."""
        if self._image is None:
            return False
        key = (code, tuple(float(v) for v in place))
        patch = _grey_patch(self._image, place)
        asked = self._still_asked.get(key)
        if asked is not None and patch.shape == asked[0].shape and patch.size \
                and float(np.abs(patch - asked[0]).mean()) <= STILL_ASKED_GREY:
            return asked[1]
        read, _ = self.detector.read_box(self._image, np.asarray(place, np.float32), want=code)
        self._still_asked[key] = (patch, read == code)
        return read == code

    def _on_other_piles(self, box: tuple[float, float, float, float]) -> set[str]:
        """The cards confirmed on the piles other than the one under the middle of ``box`` (frame pixels), since
        each was last taken: a card lies on one pile only (:data:`CARDS_STAY_ON_THEIR_PILE`)."""
        here = self._zone_under(box, [tr.zone.name for tr in self.trackers])
        return {c for tr in self.trackers if tr.zone.name != here for c in tr.stack}

    def _watched_place(self, box: tuple[float, float, float, float]) -> bool:
        """Whether the middle of ``box`` (frame pixels) lies on a watched zone: only there does a face's read count
        (a tracker takes the boxes whose middle is on its zone)."""
        mx, my = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
        near = [z for z, (x0, y0, x1, y1) in self._zone_bounds.items() if x0 <= mx <= x1 and y0 <= my <= y1]
        return self._zone_under(box, near) is not None  # (a zone's bounds first: every face read asks this)

    def _on_a_centre_pile(self, box: tuple[float, float, float, float]) -> bool:
        """Whether the middle of ``box`` (frame pixels) lies on a Speed or Spit centre pile."""
        return self._zone_under(box, [z for z in CENTRE_PILES if z in self.layout.zones]) is not None

    def _on_a_row(self, box: tuple[float, float, float, float]) -> bool:
        """Whether the middle of ``box`` (frame pixels) lies on a row of cards (a Pai Jie suit row)."""
        return self._zone_under(box, self._rows) is not None

    def _zone_under(self, box: tuple[float, float, float, float], names: Sequence[str]) -> str | None:
        """The first of the zones ``names`` that holds the middle of ``box`` (frame pixels), if any."""
        middle = [((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)]
        return next((z for z in names if self.layout.zones[z].contains(middle)[0]), None)

    def _columns(self) -> list[PileTracker]:
        """Spit's column trackers."""
        return [tr for tr in self.trackers if isinstance(tr, PileTracker) and tr.zone.name.startswith("col:")]

    def _column_top_misread(self, landed: list[CardSeen]) -> None:
        """Spit: a card landing on a centre pile that no column holds, where exactly one column's card (its line
        still held back, seen landing nowhere else) was read less surely as its look-alike, was that card (rendered
        Spit s12 10.4 s: B's KC turned up on column 3, read KS at 0.78, the deck's pictures of KS, KC and QC alike
        at that size; played on the right pile at 11.1 s and read KC at 0.9 there). The column's card and its
        held-back line are renamed; else the referee refuses the play (no column shows KC) and keeps the KS. Not a
        column that read its card at its place once the card had landed: it never left (a spit card, rendered Spit
        2p s5 3.19 s: 6S on the right pile, while column B4's 6C, read 6C at 0.76 and then 0.87, lay still); nor a
        card landing where a spit card is due (the caller's: that 6S, its faces filmed as prints, the 6C's last read
        there before it landed)."""
        columns = {col.zone.name: col for col in self._columns()}
        for card in landed:
            if card.covered or any(card.card in col.stack for col in columns.values()):
                continue  # (a covered card, never read lying there alone, says nothing of a column: see
                # :meth:`_column_top_read_wrong`)
            landed_elsewhere = {c.card for c in self.cards if c.zone not in columns}
            held = [k for k, (_, _, ev, _) in enumerate(self._pending)
                    if ev.type == "card" and ev.zone in columns and suit_twins(ev.card, card.card)
                    and (ev.conf or 0.0) <= round(card.conf, 3) and ev.card not in landed_elsewhere
                    and (columns[ev.zone].last_seen(ev.card) or -math.inf) <= card.t]
            if len(held) != 1:
                continue
            zone = self._pending[held[0]][2].zone
            old = self._rename_held(held[0], card.card, card.zone)
            columns[zone].rename(old, card.card)

    def _correct(self, zone: str, code: str, was: str, before: float, seen: CardSeen, seen_again: str,
                 where: bool = True) -> None:
        """A ``card`` line with ``misread`` (an extension of EVENTS.md): ``zone``'s card logged as ``was`` is ``code``,
        as the card ``seen_again`` there says; just before ``before`` (the line that says so), never before a line
        already out. ``seen``: the look that read the card (on ``zone``: its box and confidence too, ``where``)."""
        t = max(self._released_t, before - CORRECTED_BEFORE_S)
        evidence: dict[str, Any] = {"frame": seen.frame}
        if where:
            evidence["box"] = [round(v, 1) for v in seen.box]
        evidence["seen_again"] = seen_again
        ev = Event(t=round(t, 4), type="card", zone=zone, card=code, conf=round(seen.conf, 3) if where else None,
                   evidence=evidence, misread=was)
        heapq.heappush(self._pending, (t, next(self._seq), ev, seen))

    def _line_of(self, zone: str, code: str) -> CardSeen | None:
        """The card confirmed last on ``zone`` as ``code`` (its ``card`` line's), if any."""
        return next((c for c in reversed(self.cards) if c.card == code and c.zone == zone), None)

    def _rename_held(self, k: int, code: str, seen_again: str) -> str:
        """The held-back ``card`` line ``self._pending[k]`` (and its card) renamed ``code``, as a surer read of it
        where it landed (``seen_again``) says; returns the code it had."""
        t, seq, ev, seen = self._pending[k]
        old = str(ev.card)
        ev.card = code
        ev.evidence = {**(ev.evidence or {}), "read_as": old, "seen_again": seen_again}
        renamed = dataclasses.replace(seen, card=code)
        self._pending[k] = (t, seq, ev, renamed)
        self.cards = [renamed if c is seen else c for c in self.cards]
        return old

    def _own_cards(self, col: PileTracker, landed: list[CardSeen]) -> list[CardSeen]:
        """Spit: a column takes only its own player's cards (ST-3), so a card confirmed there that the other player's
        column shows on top is its look-alike (one deck), where that is on no column: the tracker's card and the
        line's are renamed (rendered Spit 2p s11 14.3 s: B's JC turned up on column 5 read JS, A's column top; the
        referee refused it, kept a face-down card there, and took B's play of it for A's)."""
        owner = col.zone.name.split(":")[1]
        theirs = {tr.top for tr in self._columns() if tr.top is not None and tr.zone.name.split(":")[1] != owner}
        tops = {tr.top for tr in self._columns() if tr.top is not None}
        out = []
        for card in landed:
            alike = _look_alike_of(card.card)
            if card.card in theirs and alike is not None and alike not in tops:
                col.rename(card.card, alike)
                card = dataclasses.replace(card, card=alike)
            out.append(card)
        return out

    def _read_again(self, col: PileTracker, landed: list[CardSeen]) -> bool:
        """Spit: a column's one new card, the look-alike of the card it showed (:func:`suit_twins`) at that card's
        place, where that card was seen landing nowhere since, is the same card read again (nothing lands on a
        face-up column card, ST-3). Which of the two reads was right is not told by reading it again: looks of one
        still card flip between look-alikes (rendered Spit 2p s7 2.2 s: JS on a column read JS, JC, JS, JC); the
        read is kept aside (True) until the card lands on a centre pile (:meth:`_settle_read_again`). Rendered Spit
        2p s12 1.77 s: B's 4C on column 3, read 4S as it was turned up; read 4C at 4.0 s, logged as a new card there
        (an ST-3 anomaly); played on the left pile, read 4C, and refused: no column showed 4C."""
        card = landed[-1]
        old = col.top_before(card.card)
        if len(landed) != 1 or old is None or not suit_twins(old, card.card):
            return False
        line = self._line_of(col.zone.name, old)
        if line is None or float(box_ious([line.box], [card.box])[0, 0]) < SAME_CARD_IOU:
            return False
        if any(c.card in (old, card.card) and c.zone != col.zone.name and c.t >= line.t for c in self.cards):
            return False  # (the old card went elsewhere since, or this one is elsewhere: one deck)
        self._read_again_as[card.card] = (old, card)
        return True

    def _settle_read_again(self, card: CardSeen, t_card: float, from_column: bool = True) -> None:
        """Spit: ``card`` lands on a centre pile (at ``t_card``). Where it was a column's card read again as it
        (:meth:`_read_again`), the column's card was it: its line there, still held back, is renamed; else a
        ``card`` line with ``misread`` (an extension of EVENTS.md) corrects it, just before this one. Where it was
        the card the column was logged as, or where ``card`` is a spit card (not ``from_column``: one was due on the
        pile, ST-2/ST-4), the read again was wrong and is dropped (rendered held-out Spit 2p s5 3.19 s, the faces
        filmed as prints: B's spit card 6S on the right pile, and column 4's 6C, read 6S once, was renamed 6S and
        taken for played there: "there is no right pile yet", and every play on it refused)."""
        for code, (old, _) in list(self._read_again_as.items()):
            if old == card.card:
                del self._read_again_as[code]
        if not from_column:
            self._read_again_as.pop(card.card, None)
        if card.card not in self._read_again_as:
            return
        old, again = self._read_again_as.pop(card.card)
        held = [k for k, (_, _, ev, _) in enumerate(self._pending)
                if ev.type == "card" and ev.zone == again.zone and ev.card == old]
        if held:
            self._rename_held(held[-1], card.card, card.zone)
            return
        self.cards = [dataclasses.replace(c, card=card.card) if c.zone == again.zone and c.card == old else c
                      for c in self.cards]
        self._correct(again.zone, card.card, old, t_card, again, card.zone)

    def _column_top_read_wrong(self, card: CardSeen, t_card: float) -> None:
        """Spit: ``card``, landing on a centre pile at ``t_card``, is on no column, and exactly one column shows its
        look-alike, logged (its line out already) no more surely than this read, seen landing nowhere, and not read at
        its place since the card landed: that column's card was this one (:meth:`_column_top_misread` for a line still
        held back). A ``card`` line with ``misread`` (an extension of EVENTS.md) renames it, just before the play;
        else the referee refuses the play (no column shows it) and keeps the look-alike on the column (rendered Spit
        2p s12 10.4 s: B's KC turned up on column 3, read KS at 0.9; played on the right pile at 11.1 s, read KC at
        0.9: refused, and at 14.1 s "Not stuck, B: the king goes on the ace" where both were stuck). Spit's plays
        are ruled on ranks, which look-alikes share. Not a spit card due (the caller says: from no column), nor a card
        confirmed only as covered by the next (``CardSeen.covered``): read while it came in and never alone on the pile,
        it may be the next card misread in flight (rendered held-out Spit 2p s7 4.7 s: A's JS, carried face up onto the
        left pile, read JH as it slowed down there and JS once down; the JH, taken for a card JS covered, renamed B's
        column 4 JD a JH played, and the referee, seeing that column's face-down card to turn up, ruled "Not stuck"
        where both were stuck, refused the spit cards and judged every later play against the old tops)."""
        if card.covered:
            return
        columns = self._columns()
        if any(card.card in col.stack for col in columns) or any(
                c.card == card.card and c.zone.startswith("col:") for c in self.cards):
            return  # (its column may have been seen bare before it was confirmed here: it came from there)
        landed_elsewhere = {c.card for c in self.cards if not c.zone.startswith("col:") and c is not card}
        held = {(ev.zone, ev.card) for _, _, ev, _ in self._pending if ev.type == "card"}
        found = []
        for col in columns:
            top = col.top
            if top is None or not suit_twins(top, card.card) or top in landed_elsewhere \
                    or (col.zone.name, top) in held or (col.last_seen(top) or -math.inf) > card.t:
                continue
            line = self._line_of(col.zone.name, top)
            if line is not None and round(line.conf, 3) <= round(card.conf, 3) and not any(
                    c.card == card.card and c is not card and c.t >= line.t for c in self.cards):
                found.append((col, top, line))  # (and this card seen nowhere else since: one deck)
        if len(found) != 1:
            return
        col, top, line = found[0]
        col.rename(top, card.card)
        self.cards = [dataclasses.replace(c, card=card.card) if c is line else c for c in self.cards]
        self._correct(col.zone.name, card.card, top, t_card, line, card.zone)

    def _turned_up_unseen(self, landed: list[CardSeen]) -> None:
        """Spit: a card played on a centre pile that a column read shortly before and never confirmed was that
        column's turn-up (ST-3), turned and played at once with the hand over it all along: its ``card`` line there,
        dated from the read, before the play. (Else the referee keeps a face-down card too many in that column.) A
        card already confirmed on a column came from there; of several columns that read it, the first read it
        first (the others saw it carried over them). Not a column whose top was seen there again after the read: the
        read was of that top, misread (rendered Spit s12: AH on a column read AS once, under a hand, and the spit
        card AS played 0.3 s later was taken for that column's turn-up)."""
        columns = self._columns()
        for card in landed:
            if any(card.card in col.stack for col in columns):
                continue
            # (a column whose top was seen again after the read still held it: the read was of the top, misread)
            window = [(read, col, code) for col in columns for code in col.unconfirmed_reads()
                      if (read := col.unconfirmed_read(code)) is not None
                      and card.t - TURN_UP_READ_S <= read[0] < card.t
                      and not (col.top is not None and (col.last_seen(col.top) or -1.0) > read[0])]
            # (read once half under the hand, it may have been read as its look-alike)
            reads = [r for r in window if r[2] == card.card] or [r for r in window if suit_twins(r[2], card.card)]
            if not reads:
                continue
            (t_read, frame, box), col, read_as = min(reads, key=lambda r: r[0][0])
            shown = max(col.first_seen(box, t_read), t_read - READ_BOUND_S, self._released_t)
            if shown > t_read:
                continue  # later observations are out already (live): it would come out of time order
            col.turned_up(card.card, t_read, shown, read_as)
            seen = CardSeen(shown, col.zone.name, card.card, card.conf, frame, box, card.t_confirmed)
            self.cards.append(seen)
            ev = Event(t=round(shown, 4), type="card", zone=col.zone.name, card=card.card, conf=round(card.conf, 3),
                       evidence={"frame": frame, "box": [round(v, 1) for v in box], "seen_again": card.zone})
            heapq.heappush(self._pending, (shown, next(self._seq), ev, seen))

    def _played_unseen(self, col: PileTracker, old: str, t_gone: float, shown: CardSeen | None = None) -> None:
        """Spit: a column's top ``old`` that no look saw land anywhere, when the column shows a new card or is seen
        bare (by ``t_gone``), was played onto a centre pile and covered there before any look saw it (rendered Spit
        s12 3.62 s: A's 2D played on 3H, B's 3C on it 32 ms later; the referee then ruled 3C on 3H illegal and
        refused A's next turn-up on a column that still held 2D; s12 15.64 s: A's last 6S of a column, on 7S, under
        B's 5H within a look). Its ``card`` line goes on the one centre pile where it fits between two cards seen
        landing there after it was last seen on its column (ST-2: each one rank from the one under it), just before
        the upper one, while that is still held back. ``shown``: the column's card that says so (the new one; None:
        ``old``'s own line there, as it was confirmed)."""
        line = self._line_of(col.zone.name, old)
        shown = shown or line
        if shown is None:
            return
        was = line.t if line is not None else -1.0
        if any(c.card == old and c.zone != col.zone.name and c.t >= was for c in self.cards):
            return  # (seen landing somewhere since it showed there: a centre pile, or another column)
        last_here = col.last_seen(old)
        if last_here is None:
            return
        pending = {(ev.zone, ev.card): ev for _, _, ev, _ in self._pending if ev.type == "card"}
        fits = []
        for pile in CENTRE_PILES:
            landed = sorted((c for c in self.cards if c.zone == pile), key=lambda c: c.t)
            for below, above in itertools.pairwise(landed):
                ev = pending.get((pile, above.card))
                if ev is None or not last_here - 0.1 <= above.t <= t_gone:
                    continue
                if adjacent(old, below.card) and adjacent(above.card, old):
                    fits.append((pile, below, ev))
        if len(fits) != 1:
            return
        pile, below, above = fits[0]
        # it lay under the upper card: it landed before it, a frame before the time the upper one may have landed
        # (no race: which was first is seen), give or take a quarter of a frame
        t = max(below.t + 0.001, above.t - (above.t_err or 0.0) - 1.0 / self.fps, self._released_t)
        if t >= above.t:
            return
        ev = Event(t=round(t, 4), type="card", zone=pile, card=old, player=col.zone.name.split(":")[1],
                   conf=round(shown.conf, 3), t_err=round(min(above.t - t, 0.25 / self.fps), 4),
                   evidence={"frame": shown.frame, "played_from": col.zone.name})
        seen = CardSeen(t, pile, old, shown.conf, shown.frame, shown.box, t_gone, covered=True)
        self.cards.append(seen)
        heapq.heappush(self._pending, (t, next(self._seq), ev, seen))

    def _removed(self, gone: RemoveSeen, seen_again: str | None = None,
                 box: tuple[float, float, float, float] | None = None) -> None:
        """A ``remove`` line. A card that raced another onto its pile (SP-9) was logged with a player nobody can be
        sure of: the hand that takes it back, from over the pile's edge on its side, says whose it is. A card taken
        from a Pai Jie row (``box``: where it lay) went into the hand of the arm over it as it went (PJ-10: the ace
        effect names who takes each card)."""
        evidence: dict[str, Any] = {"frame": gone.frame}
        if seen_again is not None:
            evidence["seen_again"] = seen_again
        player = None
        if self.game in PLAYER_FROM_ARM and (gone.zone, gone.card) in self._raced:
            player = self.slapper.arm_on(gone.zone, gone.t - TAKE_BACK_S, gone.t + 0.05)
        if self.arms is not None and box is not None:  # (the arm reaching it as it went, or carrying it away)
            player = self.arms.who(box, gone.t - ROW_TAKE_S, gone.t + ROW_TAKE_S)
        # (no earlier than what is already released: a card seen laid anew went unseen, some time after it was last
        # seen lying there, perhaps before lines already logged; the log stays in time order)
        t = max(gone.t, self._released_t)
        ev = Event(t=round(t, 4), type="remove", zone=gone.zone, card=gone.card, player=player, evidence=evidence)
        heapq.heappush(self._pending, (t, next(self._seq), ev, gone))

    def _card_times(self, landed: list[CardSeen]) -> list[tuple[float, float, str | None]]:
        """(t, t_err, source) for cards confirmed together. In the race games (Speed, Spit: two cards on one pile
        a few milliseconds apart) a card is timed like a slap: by the tap of its landing, the one audio onset
        between the frame before it showed and the frame that showed it; cards landing together take their taps
        in order. Without a tap a race card keeps its frame's time, uncertain by a frame (TM-3 then says whether
        the race can be ordered). Elsewhere: the frame's time, as EVENTS.md dates a card."""
        if self.game not in AUDIO_TIMED_CARDS or not landed or landed[0].zone not in CENTRE_PILES:
            return [(c.t, 0.0, None) for c in landed]  # (a column does not race; the deal's taps come thick)
        cards = list(landed)
        frame = 1.0 / self.fps
        times = [o.t for o in self.onsets]
        reach = 3 * frame  # a card's first clear look may come a frame or two after it landed (a hand, a race)
        # a card carried face up over the pile shows there before it lands: its tap may come up to the look that
        # confirmed it
        lo = bisect.bisect_left(times, min(c.t for c in cards) - READ_BEFORE_S - reach)
        hi = bisect.bisect_right(times, max(c.t_confirmed for c in cards) + 0.005)
        free = [i for i in range(lo, hi) if i not in self._used_onsets]
        out: list[tuple[float, float, str | None]] = []
        picks: list[int] = []
        after = -float("inf")
        race = [i for i in free if cards[0].t - reach <= times[i] <= cards[-1].t + 0.001]
        if len(cards) > 1 and race:  # cards that landed together take the last taps before they showed, in order
            race = race[-len(cards):]
            for k in range(len(cards)):
                picks.append(race[k] if k < len(race) else -1)
            cards = []
        # a tap after this card showed may be another card's: one read on a centre pile, not yet confirmed, that
        # no look before showed; it landed between that look and the one that read it, with the last tap there
        codes = {c.card for c in landed}
        reserved: set[int] = set()
        for tr in self.trackers:
            if isinstance(tr, PileTracker) and tr.zone.name in CENTRE_PILES:
                for code, t_read in tr.unconfirmed_reads().items():
                    if code not in codes:
                        mine = [i for i in free if t_read - (self.every + 0.5) * frame < times[i] <= t_read + 0.001]
                        reserved.update(mine[-1:])
        for c in cards:  # one card
            # a card lands before the frame that first shows it: the latest free tap before then; else (a card
            # carried face up over the pile showed early) the first one after, up to the look that confirmed it
            # (from the look that first read it there, where a hand over it since made it show later: rendered Spit
            # 2p s5 15.31 s, B's QH read at its place 21 ms after its tap, then a hand, then shown 155 ms later; it
            # took the tap of A's 3D on the other pile)
            since = min(c.t, c.t_read if c.t_read is not None and c.t_read >= c.t - READ_BEFORE_S else c.t) - reach
            before = [i for i in free if since <= times[i] <= c.t + 0.001 and times[i] > after]
            later = [i for i in free if c.t + 0.001 < times[i] <= c.t_confirmed + 0.005 and times[i] > after
                     and i not in reserved]
            pick = before[-1] if before else (later[0] if later else -1)
            picks.append(pick)
            if pick >= 0:
                after = times[pick]
        for c, pick in zip(landed, picks, strict=True):
            if pick < 0:  # it landed after the look before the one that showed it: half a frame either way
                out.append((c.t - frame / 2, frame / 2, None))
                continue
            self._used_onsets.add(pick)
            out.append((times[pick], max(self.onsets[pick].t_err, 0.0005), "audio+video"))
        return out

    def _batch(self, seen: BatchSeen | None) -> None:
        if seen is None:
            return
        evidence = {"frame": seen.frame, "box": [round(v, 1) for v in seen.box]}
        if seen.kind == "facedown":
            ev = Event(t=round(seen.t, 4), type="facedown", zone=seen.zone, count=seen.count,
                       conf=None if seen.sure else UNSURE_COUNT, evidence=evidence)
        else:
            ev = Event(t=round(seen.t, 4), type="reveal", zone=seen.zone, cards=tuple(seen.cards), evidence=evidence)
        heapq.heappush(self._pending, (seen.t, next(self._seq), ev, seen))

    def _heard_unseen(self, index: int, t: float) -> None:
        """Slaps heard but not seen: a loud impact that no slap seen took, in a corridor where a hand came in fast
        and stayed on the pile just then (the slap detector's arrival rules miss hands that land where other arms
        already are). Only where slaps wait long enough for it (the audit; not live, whose slaps go out sooner)."""
        if self.slap_hold_s is not None and self.slap_hold_s < UNSEEN_AFTER_S + 0.05:
            return
        while self._heard_upto < len(self.onsets) and self.onsets[self._heard_upto].t <= t - UNSEEN_AFTER_S:
            i = self._heard_upto
            self._heard_upto += 1
            o = self.onsets[i]
            if i in self._used_onsets or o.strength < SLAP_SOUND_DB:
                continue
            near = {(s.zone, s.player) for s in self.slapper_found
                    if min(abs(s.t - o.t), abs(s.t_video - o.t)) < 0.15}
            c = self.slapper.hand_for_sound(o.t, near)
            if c is None:
                continue
            self._used_onsets.add(i)
            frame = index - int(round((t - o.t) * self.fps))
            self._arrivals([SlapSeen(o.t, c.zone, c.player, max(o.t_err, 0.0005), frame, o.t, "audio",
                                     o.strength)], fuse=False, now=t)

    def _arrivals(self, arrivals: list[SlapSeen], fuse: bool = True, now: float | None = None) -> None:
        if fuse and arrivals and self.onsets:
            arrivals = fuse_audio(arrivals, self.onsets, used=self._used_onsets, frame_s=1 / self.fps)
        for s in arrivals:
            # a card read once and covered by this hand before a second look was the top it slapped
            for tr in self.trackers:
                if tr.zone.name == s.zone and isinstance(tr, PileTracker):
                    top = tr.slapped(s.t if now is None else now, max(s.t, s.t_frame))
                    if top is not None and not self._top_read_wrong(tr, top):
                        self._landed(tr, [dataclasses.replace(top, misread=None)])
            self.slapper_found.append(s)
            if self.game == "spit" and not self._a_layout_is_clear():
                self.dealing.append(s)  # ST-5: piles are slapped only when a layout is clear; this hand played
                # a card, and the tap it was given is that card's landing: left for the card (rendered Spit 2p s5
                # 15.31 s: B's QH, hidden by the hand a moment, took the tap of A's 3D on the other pile)
                i = bisect.bisect_left(self.onsets, s.t, key=lambda o: o.t)
                if s.source != "video" and i < len(self.onsets) and self.onsets[i].t == s.t:
                    self._used_onsets.discard(i)
                continue
            evidence = {"frame": s.frame, "t_video": round(s.t_video, 4), "source": s.source}
            if s.landed_by is not None:  # the hand was at rest from the frame after this one
                evidence["landed_by"] = round(s.landed_by, 4)
            ev = Event(t=round(s.t, 4), type="slap", zone=s.zone, player=s.player, t_err=round(s.t_err, 4),
                       evidence=evidence)
            heapq.heappush(self._pending, (s.t, next(self._seq), ev, s))

    def _top_read_wrong(self, tr: PileTracker, top: CardSeen) -> bool:
        """``top`` (:attr:`CardSeen.misread`) is the pile's top, confirmed before under another code: its ``card``
        line, still held back, is renamed (True). Once that line is out (live) it stands, and ``top`` is logged as a
        card laid on it (False): the games the slap piles are played in take no correction of a line."""
        if top.misread is None:
            return False
        held = [k for k, (_, _, ev, _) in enumerate(self._pending)
                if ev.type == "card" and ev.zone == top.zone and ev.card == top.misread]
        if len(held) != 1:
            return False
        self._rename_held(held[0], top.card, top.zone)
        return True

    def _a_layout_is_clear(self) -> bool:
        """Spit: some player's five columns show no card (their layout is played out: the round is over)."""
        for p in self.layout.players:
            cols = [tr for tr in self.trackers if tr.zone.name.startswith(f"col:{p}:")]
            if cols and all(tr.top is None for tr in cols):
                return True
        return False

    def _release(self, now: float) -> list[Event]:
        out: list[Event] = []
        while self._pending and self._ready_at(self._pending[0][2]) <= now:
            _, _, ev, seen = heapq.heappop(self._pending)
            self._released_t = max(self._released_t, ev.t)
            if ev.type == "slap":
                if not unheard_quick([seen], self.onsets):
                    continue  # (two frames alone, no impact heard: no slap)
                if not drop_dealing([seen], [(c.t, c.zone) for c in self.cards]):
                    self.dealing.append(seen)  # the hand that laid a card, not a slap
                    continue
                # an arm over this pile that made no sound, its hand heard on a farther pile on the same line just
                # after: it was on its way there (an arm that did not go on has no heard hand farther on)
                if self.onsets and seen.source == "video" and self.slapper.went_on(
                        seen, [s for s in self.slapper_found if s.source != "video"]):
                    self.passing.append(seen)
                    continue
                self.slaps.append(seen)
            out.append(ev)
        return out

    def ruled(self, line: Mapping[str, Any]) -> None:
        """A line the referee wrote (as logged): the piles a verdict moved may come back (:meth:`piles_taken`), and
        the Snap pot is slapped from the verdict that made it to the one that took it. An arm reaching across the
        table to a pile passes over the middle and may stop there: with no pot on the table, that is no slap
        (rendered Snap 3p s11 1.39 s: A's slap on B's pile, looked for on the pot too, was taken for one there). A
        slap on the pot within the audit's hold (``hold_s``) of its making is missed: the verdict comes that late."""
        self.piles_taken(piles_moved(line, self.game), float(line.get("t", 0.0)))
        if line.get("type") == "verdict" and line.get("kind") == "illegal_play":
            self._illegal.add((str(line.get("zone")), str(line.get("card"))))
        if line.get("type") == "verdict" and "pot" in self.slapper.slap_zones:
            if line.get("kind") == "snap_pot":
                self.slapper.closed.discard("pot")
            elif line.get("kind") in POT_GONE:
                self.slapper.closed.add("pot")

    def piles_taken(self, zones: Sequence[str], t: float) -> None:
        """The referee says these piles, as they were at ``t``, went to a player: their cards may come back."""
        for tr in self.trackers:
            if tr.zone.name in zones:
                tr.taken(t)

    def heard(self, ev: Event) -> None:
        """A call said at the table as it is said (a ``said`` line): Cheat's claim names the rank the batch just laid
        should be, and of look-alike strips in a reveal, one of that rank is the read (``BatchWatcher.claimed``);
        Spit's "stuck" from both players makes a spit card due on each centre pile."""
        if ev.type == "claim" and ev.rank:
            for tr in self.trackers:
                if isinstance(tr, BatchWatcher):
                    tr.claimed = ev.rank
        if self.game == "spit" and ev.type == "stuck" and ev.player:
            self._stuck_said.add(ev.player)
            if self._stuck_said >= set(self.layout.players):  # both stuck: each flips a spit card (ST-4)
                self._spit_due = set(CENTRE_PILES)

    def finish(self) -> list[Event]:
        """Everything still held, in time order (the end of the video or of the game)."""
        for job in self._ahead.values():
            job.cancel()
        self._ahead.clear()
        if self._ahead_pool is not None:
            self._ahead_pool.shutdown(wait=False)
            self._ahead_pool = None
        self._arrivals(self.slapper.finish())
        return self._release(float("inf"))

    @property
    def waiting(self) -> Sequence[Event]:
        return [p[2] for p in sorted(self._pending)]


def _under_hand(box: Any, hands: Sequence[Any]) -> bool:
    """Whether a hand's box (frame pixels) overlaps ``box``: what shows there may be the hand, not a card. (A hand
    elsewhere in a look shared by every row, resting at its player's seat, hid nothing: rendered Pai Jie 3p s6's 9C,
    left unboxed for 2.4 s while such a hand was in the look, was not looked for.)"""
    return any(h[0] < box[2] and h[2] > box[0] and h[1] < box[3] and h[3] > box[1] for h in hands)


def _cards_along(stats: np.ndarray, origin: tuple[int, int], card: tuple[float, float], along_x: bool
                 ) -> list[tuple[float, float]]:
    """The middles (frame pixels) of the cards at both ends of a patch of a row (its ``cv2`` component stats, at
    ``origin``) longer along the row than a card by :data:`UNBOXED_STRIP` of one or more: cards laid over each
    other's ends (rendered Pai Jie 3p s5: 10H and JH laid over its end, read as one card at the patch's middle, 10H;
    JH never seen). Empty for a patch a card long: one card, read at its middle."""
    x, y, pw, ph = (float(stats[k]) for k in (cv2.CC_STAT_LEFT, cv2.CC_STAT_TOP, cv2.CC_STAT_WIDTH,
                                             cv2.CC_STAT_HEIGHT))
    x, y = x + origin[0], y + origin[1]
    w, h = card
    if along_x and pw >= (1 + UNBOXED_STRIP) * w:
        return [(x + w / 2, y + ph / 2), (x + pw - w / 2, y + ph / 2)]
    if not along_x and ph >= (1 + UNBOXED_STRIP) * h:
        return [(x + pw / 2, y + h / 2), (x + pw / 2, y + ph - h / 2)]
    return []


def _with_reads(d: Detections, found: list[tuple[np.ndarray, float, str]]) -> Detections:
    """``d`` and the cards the deck's pictures read where no box was: (box, confidence, code) each."""
    if not found:
        return d
    return Detections(np.concatenate([d.xyxy, np.array([b for b, _, _ in found], np.float32)]),
                      np.concatenate([d.confidence, np.array([c for _, c, _ in found], np.float32)]),
                      np.concatenate([d.class_id, np.zeros(len(found), d.class_id.dtype)]),
                      np.concatenate([d.class_name.astype(object), [c for _, _, c in found]]).astype(str))
