"""A scripted card game filmed by a synthetic webcam: the bench on which the audit is measured.

``render_game`` plays a game with the simulator (``engine.sim``), then films it: a fixed camera 95 cm over an
80 x 60 cm table, every card dealt by a hand that carries it face down from its player's stack and lays it
face up on the pile, every slap a hand that shoots from its player's seat onto the pile and stays there until
the pile is taken. The soundtrack has a sharp impact at every slap's true contact time and a soft tap where a
card lands. Out come the video (H.264 + AAC), the ground-truth log (the simulator's events: what a perfect
camera would have written) and the table layout, so that every figure of the audit is measured, not assumed.

Why render rather than film: the ground truth of a real recording would be typed by hand and be wrong by
tens of milliseconds, which is the very thing being measured.

Drawing reuses the scene generator (:mod:`models.scenes`: card faces, table surfaces, hands); the frame is
kept as a cached "still" layer (table, stacks, piles), redrawn only when a pile changes, with the moving
hands drawn over a copy of it each frame, so rendering keeps pace with encoding.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

import av
import cv2
import numpy as np

from calibration.layout import Layout
from calibration.markers import DEFAULT_TABLE_MM, layout_from_homography, table_layout
from engine.events import HEARD_TYPES, Event, GameHeader, dumps
from engine.games import new_referee
from engine.sim import simulate
from models.classes import FACES
from models.detector import Detections
from models.progress import Progress
from models.scenes import (
    CARD_H,
    CARD_W,
    PRINT_PX,
    UPRIGHT_CORNERS,
    Camera,
    FaceSet,
    _composite,
    _draw_hand,
    _draw_table,
    _rot,
    make_camera,
    noise_patch,
)

FPS = 30
SIZE = (1280, 720)
RATE = 48000
CAMERA_HEIGHT_CM = 95.0
#: the games this bench can film
FILMABLE = ("slapjack", "snap", "speed", "spit", "cheat", "paijie")
ROW_PITCH_CM = 4.6  # Pai Jie: a suit row's cards overlap, each showing its index beside the next
HELD_IN_HAND = ("cheat", "paijie")  # games whose players hold their cards: no stacks on the table
FAN_CM = 2.6  # Cheat: a face-down batch is laid a little fanned, each card showing

DEAL_S = 0.42  # a card travels from the stack to the pile in this long
RETRACT_S = 0.32  # a hand goes back to its seat in this long
SLAP_S = 0.15  # a slapping hand covers its last 30 cm in this long, speeding up to contact
HOLD_S = 0.55  # a slap that wins nothing stays on the pile this long
TAKE_S = 0.30
GRIP_CM = 10.0  # from the palm (a hand's reference point in models.scenes) to the edge of the card it holds


@dataclass
class Motion:
    """One hand's trip: its fingertip path over the table (cm) and what it carries.

    ``keys`` are (time, point) pairs; between them the hand moves along a straight line (``ease`` "in" speeds
    up towards the second key, as a slap does; "inout" starts and stops gently, as dealing does)."""

    player: str
    kind: str  # deal, slap, take
    keys: list[tuple[float, np.ndarray]]
    ease: list[str]
    seed: int
    carry_until: float | None = None  # the card carried ahead of the fingers until this time
    carry: str = "back"  # what it shows: a back, or a face-up card moved across the table
    contact: float | None = None  # a slap's contact time
    seat: np.ndarray | None = None  # where the arm comes from (the player's shoulder, behind the table's edge)

    @property
    def t0(self) -> float:
        return self.keys[0][0]

    @property
    def t1(self) -> float:
        return self.keys[-1][0]

    def at(self, t: float) -> np.ndarray:
        """Fingertip position at ``t`` (clamped to the path's ends)."""
        if t <= self.keys[0][0]:
            return self.keys[0][1]
        for (ta, pa), (tb, pb), ease in zip(self.keys, self.keys[1:], self.ease, strict=False):
            if t <= tb:
                u = 0.0 if tb <= ta else (t - ta) / (tb - ta)
                if ease == "in":
                    u = u * u
                elif ease == "inout":
                    u = u * u * (3 - 2 * u)
                return pa + (pb - pa) * u
        return self.keys[-1][1]


@dataclass(eq=False)  # a card is itself, wherever it lies (identity, not equal fields)
class PileCard:
    code: str
    xy: np.ndarray
    angle: float
    t: float  # when it landed


def frame_box(cam: Any, card: PileCard) -> tuple[float, float, float, float]:
    """Where ``card`` lies in the camera's frame: the box (x0, y0, x1, y1, pixels) around its four corners, as a
    detector boxes it. ``cam``: the script's camera (``Script.cam``)."""
    q = cam.to_image(UPRIGHT_CORNERS * (CARD_W / 2, CARD_H / 2) @ _rot(card.angle).T + card.xy)
    return float(q[:, 0].min()), float(q[:, 1].min()), float(q[:, 0].max()), float(q[:, 1].max())


@dataclass
class Script:
    """Everything that happens on the table, in table cm (origin at the table's centre, y away from the
    first player's... see :data:`models.scenes.UPRIGHT_CORNERS`: +y is up the image)."""

    header: GameHeader
    events: list[Event]
    layout: Layout
    cam: Camera
    stacks: dict[str, np.ndarray]  # player -> their face-down stack's centre
    piles: dict[str, np.ndarray]  # zone -> centre
    landings: list[tuple[float, str, PileCard]] = field(default_factory=list)  # (t, zone, card)
    clears: list[tuple[float, str]] = field(default_factory=list)  # (t, zone): the pile was taken
    removals: list[tuple[float, str, PileCard]] = field(default_factory=list)  # (t, zone, card): one card left
    side_stacks: dict[str, np.ndarray] = field(default_factory=dict)  # Speed: zone -> its side stack's centre
    stacks_drawn: bool = True  # False where the players hold their cards (Cheat, Pai Jie)
    motions: list[Motion] = field(default_factory=list)
    slaps: list[tuple[float, str, str]] = field(default_factory=list)  # (contact t, player, zone)
    duration: float = 0.0


def _cm_to_mm() -> np.ndarray:
    w, h = DEFAULT_TABLE_MM
    # table mm (origin at marker 0 = the far-left corner, y towards the first player) -> scene cm (y up)
    return np.array([[10.0, 0, w / 2], [0, -10.0, h / 2], [0, 0, 1]])


def _mm_to_cm(pts: np.ndarray) -> np.ndarray:
    M = np.linalg.inv(_cm_to_mm())
    p = np.c_[pts, np.ones(len(pts))] @ M.T
    return p[:, :2] / p[:, 2:3]


def scene_layout(game: str, players: Sequence[str], cam: Camera) -> Layout:
    """The calibrated layout of the filmed table: the default zones projected through the camera."""
    image_to_mm = _cm_to_mm() @ cam.Hinv
    return layout_from_homography(image_to_mm, cam.size, game, players, DEFAULT_TABLE_MM,
                                  source="<rendered game>")


def make_script(game: str, players: Sequence[str] | int, seed: int, seconds: float | None = None,
                variants: dict | None = None) -> Script:
    """Simulate the game (``seed``) and plan every hand's motion; events after ``seconds`` are cut off."""
    if game not in FILMABLE:
        raise ValueError(f"synth-video can film {', '.join(FILMABLE)}; not {game!r}")
    variants = dict(variants or {})
    if game == "snap":
        variants.setdefault("snap_by_slap", True)  # a spoken "snap" is not on camera; a slap is
    header, events = simulate(game, players, seed, variants)
    header.extra["seed"] = seed
    if seconds is not None:
        events = [e for e in events if e.t <= seconds]
    return script_from_events(header, events, seed)


def script_from_events(header: GameHeader, events: list[Event], seed: int) -> Script:
    """Plan the filming of a given log (a simulated one, or one edited by a test: two slaps 30 ms apart)."""
    game = header.game
    if game not in FILMABLE:
        raise ValueError(f"synth-video can film {', '.join(FILMABLE)}; not {game!r}")
    rng = np.random.default_rng([seed, 77])
    cam = make_camera(SIZE, CAMERA_HEIGHT_CM, tilt=rng.uniform(0, 6), roll=rng.uniform(-3, 3), hfov=65)
    layout = scene_layout(game, header.players, cam)
    zones_mm, seats_mm = table_layout(game, header.players, DEFAULT_TABLE_MM)
    piles = {z: _mm_to_cm(poly).mean(0) for z, poly in zones_mm.items()}
    seat = {p: _mm_to_cm(seg).mean(0) for p, seg in seats_mm.items()}
    centre = np.zeros(2)
    fwd = {p: (centre - s) / (np.linalg.norm(centre - s) + 1e-9) for p, s in seat.items()}
    shoulder = {p: seat[p] - fwd[p] * 45.0 for p in header.players}  # where every arm of p's comes from
    stacks = {p: seat[p] + fwd[p] * 11.0 + np.r_[-fwd[p][1], fwd[p][0]] * 9.0 for p in header.players}
    sc = Script(header, events, layout, cam, stacks, piles)
    if game in HELD_IN_HAND:  # no stack on the table: the cards come from the hand, at the table's edge
        sc.stacks = {p: seat[p] + fwd[p] * 3.0 for p in header.players}
        sc.stacks_drawn = False
    if game == "speed":  # the side stacks, beside the centre piles, outward
        sc.side_stacks = {"left": piles["left"] + np.r_[-CARD_W - 4.0, 0.0],
                          "right": piles["right"] + np.r_[CARD_W + 4.0, 0.0]}
    plan = _Planner(sc, rng, seat, fwd, shoulder, seed)
    plan.run()
    last = max([e.t for e in events] + [m.t1 for m in sc.motions] + [t for t, *_ in sc.landings] + [0.0])
    sc.duration = last + 0.8
    return sc


class _Planner:
    """Turns the log into what the table shows: cards landing and leaving, and the hands that move them."""

    def __init__(self, sc: Script, rng: np.random.Generator, seat: dict, fwd: dict, shoulder: dict,
                 seed: int) -> None:
        self.sc, self.rng, self.seat, self.fwd, self.shoulder, self.seed = sc, rng, seat, fwd, shoulder, seed
        self.game = sc.header.game
        self.players = list(sc.header.players)
        self.on: dict[str, list[PileCard]] = {z: [] for z in sc.piles}  # what lies on each zone now (planning)
        self.came_from: dict[str, str] = {}  # card -> the column it was played from (Spit: a card taken back
        self.last_player: dict[str, str] = {}  # goes back there); card -> who laid it
        self._n = 0
        self.referee = new_referee(sc.header)  # the deal's hidden cards (Spit column heights) and the rulings
        self.outputs: list[tuple[float, dict]] = []
        self.landing_times: dict[str, list[float]] = {}
        for e in sc.events:
            if e.type in ("card", "facedown") and e.zone:
                self.landing_times.setdefault(e.zone, []).append(e.t)

    def next_seed(self) -> int:
        self._n += 1
        return self.seed * 1000 + self._n

    def before_next_card(self, zone: str, t: float, gap: float = 0.2, since: float | None = None) -> float:
        """``t``, or earlier if the next card on ``zone`` (after ``since``, or landing from 0.35 s before ``t`` on)
        lands sooner: a won pile is swept before it, and a hand resting on a pile is off it before its owner lays
        the next card there (rendered Snap 2p s5: B's false-snap hand rested 1.6 s on B's pile, and the 4D B laid
        under it at 5.256 s could not be seen)."""
        nxt = [u for u in self.landing_times.get(zone, []) if u > (t - 0.35 if since is None else since)]
        return min(t, nxt[0] - gap) if nxt else t

    # -- the table's state
    def land(self, t: float, zone: str, card: PileCard) -> None:
        self.on[zone].append(card)
        self.sc.landings.append((t, zone, card))

    def lift(self, t: float, zone: str, code: str) -> PileCard | None:
        """``code`` (the topmost card of that code) leaves ``zone`` at ``t``."""
        for k in range(len(self.on[zone]) - 1, -1, -1):
            c = self.on[zone][k]
            if c.code == code:
                del self.on[zone][k]
                self.sc.removals.append((t, zone, c))
                return c
        return None

    def clear(self, t: float, zone: str) -> None:
        self.on[zone] = []
        self.sc.clears.append((t, zone))

    def where(self, code: str) -> str | None:
        for z, cards in self.on.items():
            if any(c.code == code for c in cards):
                return z
        return None

    # -- positions
    def angle_of(self, p: str) -> float:
        return math.degrees(math.atan2(self.fwd[p][0], self.fwd[p][1]))

    def spot(self, zone: str, code: str, p: str) -> tuple[np.ndarray, float]:
        """Where a card lands on ``zone``, and how it is turned."""
        c = self.sc.piles[zone]
        if zone.startswith("row:"):  # Pai Jie: a suit row runs A..K left to right, 7 in the middle, overlapping
            from engine.cards import RANK_VALUE
            v = RANK_VALUE.get(code[:-1], 7)
            return c + np.r_[(v - 7) * ROW_PITCH_CM, 0.0] + self.rng.normal(0, 0.25, 2), float(self.rng.normal(0, 2))
        if zone.startswith("col:"):
            owner = zone.split(":")[1]
            return c + self.rng.normal(0, 0.3, 2), self.angle_of(owner) + float(self.rng.normal(0, 3))
        return c + self.rng.normal(0, 0.7, 2), float(self.rng.normal(0, 10)) + self.angle_of(p)

    def player_for(self, ev: Event) -> str:
        if ev.player:
            return ev.player
        z = ev.zone or ""
        if z.startswith("col:"):
            return z.split(":")[1]
        if ev.type == "remove" and ev.card in self.last_player:
            return self.last_player[ev.card]
        if z in ("left", "right") and len(self.players) == 2:
            return self.players[0] if z == "left" else self.players[1]
        return self.players[0]

    # -- hands
    def deal_motion(self, p: str, t: float, start: np.ndarray, xy: np.ndarray, carry: str = "back",
                    t_start: float | None = None) -> None:
        """A hand carries a card from ``start`` (from ``t_start``, default ``DEAL_S`` before) and lays it at ``xy``
        at ``t``: the fingers hold its near edge, about 9 cm past the palm, so the card shows whole as it lands."""
        f = self.fwd[p]
        release = xy - f * (CARD_H / 2 + GRIP_CM)
        back = self.seat[p] - f * 6.0
        t0 = t - DEAL_S if t_start is None else t_start
        self.sc.motions.append(Motion(p, "deal", [(t0, start - f * 2.0), (t, release), (t + RETRACT_S, back)],
                                      ["inout", "in"], self.next_seed(), carry_until=t, seat=self.shoulder[p],
                                      carry=carry))

    def fetch_motion(self, p: str, t: float, xy: np.ndarray) -> None:
        """A hand comes to ``xy`` and picks something up at ``t``."""
        f = self.fwd[p]
        rest = self.seat[p] - f * 6.0
        self.sc.motions.append(Motion(p, "take", [(t - TAKE_S, rest), (t, xy - f * (CARD_H / 2 + GRIP_CM * 0.6)),
                                                  (t + RETRACT_S, rest)], ["inout", "inout"], self.next_seed(),
                                      seat=self.shoulder[p]))

    # -- the log
    def run(self) -> None:
        sc = self.sc
        outputs = []
        for ev in sc.events:
            outputs += [o.to_dict() for o in self.referee.push(ev)]
        outputs += [o.to_dict() for o in self.referee.finish()]
        won = self.piles_won(outputs)
        timeline: list[tuple[float, int, int, Any]] = []
        for t_pot, n in self.pot_cards:  # the snapped piles go face down into the middle
            for _ in range(min(n, 6)):
                xy = sc.piles["pot"] + self.rng.normal(0, 1.0, 2)
                card = PileCard("back", xy, float(self.rng.uniform(-30, 30)), t_pot)
                timeline.append((t_pot, 2, len(timeline), ("pot", card)))
        timeline += [(t, 1, len(timeline) + k, ("won", z, p)) for k, (t, z, p) in enumerate(won)]
        timeline += [(ev.t, 0, len(timeline) + k, ev) for k, ev in enumerate(sc.events)]
        timeline.sort(key=lambda x: x[:3])
        # the Spit deal needs the referee's state as each card lands (the columns' face-down cards)
        self.referee = new_referee(sc.header)
        filmed = {"card": self.card, "slap": self.slap, "take": self.take, "remove": self.remove,
                  "facedown": self.facedown, "reveal": self.reveal}  # what a camera sees move on the table
        first_deal = True
        prev = None
        for t, _, _, item in timeline:
            if isinstance(item, tuple):
                if item[0] == "pot":
                    self.land(t, "pot", item[1])
                else:
                    _, z, p = item
                    self.clear(t, z)
                    if p and not any(m.player == p and m.kind in ("slap", "take") and m.t0 <= t <= m.t1 + 0.5
                                     for m in sc.motions):
                        self.fetch_motion(p, t, sc.piles[z])
                continue
            ev = item
            if self.game == "spit" and ev.source == "deal" and prev != "deal":
                if not first_deal:  # a new round: the old layouts and piles went into the hands
                    for z in list(self.on):
                        if self.on[z]:
                            self.clear(ev.t - 0.9, z)
                first_deal = False
            prev = ev.source if ev.type == "card" else ev.type
            self.referee.push(ev)
            film = filmed.get(ev.type)
            if film is not None and ev.zone in sc.piles:
                film(ev)

    def piles_won(self, outs: list[dict]) -> list[tuple[float, str, str | None]]:
        """(time, zone, who) of every pile the verdicts give away (not always logged as takes)."""
        won: list[tuple[float, str, str | None]] = []
        self.pot_cards: list[tuple[float, int]] = []
        for d in outs:
            if d.get("type") != "verdict":
                continue
            t_v, kind, who = float(d["t"]), d["kind"], d.get("player")
            if self.game == "slapjack" and kind == "slap_won":
                won.append((self.before_next_card("center", t_v + 0.35), "center", None))
            elif kind in ("snap", "snap_pot"):
                won += [(self.before_next_card(f"pile:{q}", t_v + 0.35), f"pile:{q}", None)
                        for q in d.get("piles", [])]
                if kind == "snap_pot":
                    self.pot_cards.append((t_v + 0.35, int(d.get("cards") or 0)))
            elif kind == "pot_won":
                won.append((t_v + 0.35, "pot", None))
            elif self.game == "cheat" and kind in ("challenge_true", "challenge_false"):
                won.append((self.before_next_card("center", t_v + 0.9, gap=0.5), "center", who))
        self.takes = sorted([(e.t, e.zone) for e in self.sc.events if e.type == "take"] +
                            [(t, z) for t, z, _ in won])
        return [w for w in won if w[1] in self.sc.piles]  # (a Snap without a pot zone has no pot to sweep)

    def card(self, ev: Event) -> None:
        sc, z, code = self.sc, str(ev.zone), ev.card or "back"
        p = self.player_for(ev)
        xy, angle = self.spot(z, code, p)
        start = sc.stacks[p]
        carry = "back"
        t_start = None
        src = self.where(code)
        if src is not None and src != z:  # a face-up card moved (a Spit column top played or shifted)
            # not picked up before it has lain there a moment (a card just turned up and played at once)
            shown = max((c.t for c in self.on[src] if c.code == code), default=-1e9)
            t_start = min(ev.t - 0.12, max(ev.t - DEAL_S, shown + 0.3))
            lifted = self.lift(t_start, src, code)
            if lifted is not None:
                start, carry = lifted.xy + self.fwd[p] * (CARD_H / 2 + GRIP_CM), code
                if src.startswith("col:"):
                    self.came_from[code] = src
        elif z.startswith("col:") and self.on[z] and self.on[z][-1].code == "back":
            lifted = self.lift(ev.t - 0.25, z, "back")  # a face-down card turned up where it lies
            self.land(ev.t, z, PileCard(code, lifted.xy if lifted else xy, lifted.angle if lifted else angle, ev.t))
            self.turn_motion(p, ev.t, xy)
            self.last_player[code] = p
            return
        elif self.game == "speed" and (ev.source == "side" or not ev.player) and z in sc.side_stacks:
            start = sc.side_stacks[z]
        if z.startswith("col:") and ev.source == "deal":  # the deal: the column's face-down cards, then its top
            for _ in range(self.down_after(z)):
                self.land(ev.t - 0.05, z, PileCard("back", xy + self.rng.normal(0, 0.15, 2),
                                                   angle + float(self.rng.normal(0, 2)), ev.t - 0.05))
        self.land(ev.t, z, PileCard(code, xy, angle, ev.t))
        self.last_player[code] = p
        self.deal_motion(p, ev.t, start, xy, carry, t_start)

    def down_after(self, zone: str) -> int:
        return int(getattr(self.referee, "down", {}).get(zone, 0))

    def turn_motion(self, p: str, t: float, xy: np.ndarray) -> None:
        f = self.fwd[p]
        rest = self.seat[p] - f * 6.0
        at = xy - f * (CARD_H / 2 + GRIP_CM * 0.5)
        self.sc.motions.append(Motion(p, "deal", [(t - 0.3, rest), (t - 0.05, at), (t + RETRACT_S, rest)],
                                      ["inout", "in"], self.next_seed(), seat=self.shoulder[p]))

    def remove(self, ev: Event) -> None:
        z, code = str(ev.zone), str(ev.card)
        p = self.player_for(ev)
        lifted = self.lift(ev.t, z, code)
        xy = lifted.xy if lifted is not None else self.sc.piles[z]
        self.fetch_motion(p, ev.t, xy)
        col = self.came_from.get(code)
        if self.game == "spit" and col is not None:  # an illegal Spit card goes back on top of its column
            cx, ca = self.spot(col, code, p)
            self.land(ev.t + RETRACT_S, col, PileCard(code, cx, ca, ev.t + RETRACT_S))

    def slap(self, ev: Event) -> None:
        sc, z = self.sc, str(ev.zone)
        p = self.player_for(ev)
        reach_dir = sc.piles[z] - self.shoulder[p]  # a slap comes straight from the shoulder
        reach_dir = reach_dir / (np.linalg.norm(reach_dir) + 1e-9)
        target = sc.piles[z] + reach_dir * 1.0 + self.rng.normal(0, 1.2, 2)  # the palm on the pile
        approach = target - reach_dir * 30.0
        later = [t for t, zz in self.takes if (zz == z or self.game == "snap") and ev.t < t <= ev.t + 2.0]
        hold_end = later[0] if later else ev.t + HOLD_S + self.rng.uniform(0, 0.2)
        # off the pile before the next card lands there (players leave room for the turner)
        hold_end = max(ev.t + 0.1, self.before_next_card(z, hold_end, gap=RETRACT_S * 0.7, since=ev.t))
        sc.motions.append(Motion(p, "slap", [(ev.t - SLAP_S, approach), (ev.t, target), (hold_end, target),
                                             (hold_end + RETRACT_S, self.seat[p] - self.fwd[p] * 6.0)],
                                 ["in", "in", "inout"], self.next_seed(), contact=ev.t, seat=self.shoulder[p]))
        sc.slaps.append((ev.t, p, z))

    def take(self, ev: Event) -> None:
        sc, z = self.sc, str(ev.zone)
        p = self.player_for(ev)
        self.clear(ev.t, z)
        slapped = any(m.kind == "slap" and m.player == p and m.contact is not None
                      and ev.t - 2.0 <= m.contact <= ev.t for m in sc.motions)
        if not slapped:  # a hand that was not already on the pile comes to take it
            rest = self.seat[p] - self.fwd[p] * 6.0
            sc.motions.append(Motion(p, "take", [(ev.t - TAKE_S, rest), (ev.t, sc.piles[z] + self.fwd[p] * 2.0),
                                                 (ev.t + RETRACT_S, rest)], ["inout", "inout"], self.next_seed(),
                                     seat=self.shoulder[p]))

    def facedown(self, ev: Event) -> None:
        """Cheat: ``count`` cards laid face down, fanned a little across the player's reach so that each shows;
        the batch before is squared into the pile."""
        sc, z = self.sc, str(ev.zone)
        p = self.player_for(ev)
        c = sc.piles[z]
        squared = [PileCard("back", c + self.rng.normal(0, 0.3, 2), float(self.rng.normal(0, 4)), ev.t - 0.05)
                   for _ in range(min(3, len(self.on[z])))]
        self.clear(ev.t - 0.06, z)
        for card in squared:
            self.land(ev.t - 0.05, z, card)
        f = self.fwd[p]
        across = np.r_[-f[1], f[0]]
        n = max(1, int(ev.count or 1))
        base = self.angle_of(p) + float(self.rng.normal(0, 6))
        batch = []
        for k in range(n):
            off = (k - (n - 1) / 2) * FAN_CM
            xy = c + across * off + self.rng.normal(0, 0.2, 2)
            card = PileCard("back", xy, base + (k - (n - 1) / 2) * 6.0, ev.t)
            self.land(ev.t, z, card)
            batch.append(card)
        self.batch = batch
        self.deal_motion(p, ev.t, sc.stacks[p], c)

    def reveal(self, ev: Event) -> None:
        """Cheat: the last batch turned face up where it lay."""
        z = str(ev.zone)
        cards = list(ev.cards or [])
        batch = getattr(self, "batch", [])
        for k, code in enumerate(cards):
            if k < len(batch):
                old = batch[k]
                if old in self.on[z]:
                    self.on[z].remove(old)
                    self.sc.removals.append((ev.t - 0.02, z, old))
                self.land(ev.t, z, PileCard(code, old.xy, old.angle, ev.t))
            else:
                xy, angle = self.spot(z, code, self.players[0])
                self.land(ev.t, z, PileCard(code, xy, angle, ev.t))
        self.batch = []


class Filmer:
    """Draws the frames of a :class:`Script` one at a time (a generator: a whole game is never in memory)."""

    def __init__(self, script: Script, faces: str | FaceSet = "builtin", seed: int = 0) -> None:
        self.sc = script
        rng = np.random.default_rng([seed, 5])
        self.rng = rng
        self.deck = (faces if isinstance(faces, FaceSet) else FaceSet(faces)).deck(rng)
        self.table = _draw_table(rng, script.cam)
        W, H = script.cam.size
        gx = np.linspace(-1, 1, W, dtype=np.float32)[None, :]
        gy = np.linspace(-1, 1, H, dtype=np.float32)[:, None]
        a = rng.uniform(0, 2 * math.pi)
        light = 1.0 + 0.12 * (math.cos(a) * gx + math.sin(a) * gy)  # a lamp off to one side
        self.table *= light[..., None]
        self.idbuf = np.zeros((H, W), np.int32)
        stacks = list(script.stacks.values()) if script.stacks_drawn else []
        for xy in [*stacks, *script.side_stacks.values()]:  # face-down stacks: drawn once
            for k in range(4):
                self._card(self.table, "back", xy + rng.normal(0, 0.1, 2), float(rng.normal(0, 2)), lift=0.4 * k)
        self.still = self.table.copy()
        self.piles: dict[str, list[PileCard]] = {z: [] for z in script.piles}
        level = float(rng.uniform(1.5, 3.0))
        # sensor noise: a few fields made once and cycled (drawing fresh noise for 1280x720 costs more than the rest)
        self.noise = [noise_patch(rng, H, W) * level for _ in range(3)]
        S = np.diag([0.5, 0.5, 1.0])
        self.half_cam = Camera(S @ script.cam.H, np.linalg.inv(S @ script.cam.H), (W // 2, H // 2))
        self._sprites: dict[tuple, tuple | None] = {}

    def _card(self, canvas: np.ndarray, code: str, xy: np.ndarray, angle: float, lift: float = 0.0) -> None:
        cam = self.sc.cam
        corners = UPRIGHT_CORNERS * (CARD_W / 2, CARD_H / 2) @ _rot(angle).T + xy
        quad = cam.to_image(corners)
        if lift:
            quad = quad.mean(0) + (quad - quad.mean(0)) * (1 + lift / 60)
        long_edge = max(np.linalg.norm(quad[1] - quad[2]), np.linalg.norm(quad[0] - quad[3]))
        img = self.deck.image(code, int(np.clip(long_edge * 1.15, 24, 420)))
        w, h = img.shape[1], img.shape[0]
        Hm = cv2.getPerspectiveTransform(np.float32([[0, 0], [w, 0], [w, h], [0, h]]), quad.astype(np.float32))
        _composite(canvas, self.idbuf, img, Hm, 1, 0.3)

    def _restill(self) -> None:
        self.still = self.table.copy()
        for cards in self.piles.values():
            for c in cards:
                self._card(self.still, c.code, c.xy, c.angle)

    def frames(self) -> Iterator[tuple[int, float, np.ndarray]]:
        """(index, time, RGB uint8 frame) for every frame of the game."""
        sc = self.sc
        # what changes the still layer, in time order; at one time: clears, then removals, then landings
        changes = sorted([(t, 0, k, ("clear", z, None)) for k, (t, z) in enumerate(sc.clears)] +
                         [(t, 1, k, ("remove", z, c)) for k, (t, z, c) in enumerate(sc.removals)] +
                         [(t, 2, k, ("land", z, c)) for k, (t, z, c) in enumerate(sc.landings)],
                         key=lambda x: x[:3])
        ci = 0
        n = int(math.ceil(sc.duration * FPS))
        for i in range(n):
            t = i / FPS
            redraw = False
            while ci < len(changes) and changes[ci][0] <= t:
                what, zone, card = changes[ci][3]
                ci += 1
                if what == "clear":
                    self.piles[zone] = []
                    redraw = True
                elif what == "remove":
                    if card in self.piles[zone]:
                        self.piles[zone].remove(card)
                        redraw = True
                else:
                    self.piles[zone].append(card)
                    if not redraw:
                        self._card(self.still, card.code, card.xy, card.angle)
            if redraw:
                self._restill()
            frame = self.still.copy()
            active = [m for m in sc.motions if m.t0 <= t <= m.t1]
            active.sort(key=lambda m: (m.kind == "slap", m.contact or m.t0))
            for m in active:
                self._hand(frame, m, t)
            frame += self.noise[i % len(self.noise)]
            yield i, t, np.clip(frame, 0, 255).astype(np.uint8)

    def _hand(self, frame: np.ndarray, m: Motion, t: float) -> None:
        cam = self.sc.cam
        tip = m.at(t)
        origin = m.seat if m.seat is not None else m.keys[0][1]
        seat_dir = origin - tip
        if np.linalg.norm(seat_dir) < 1.0:
            seat_dir = m.keys[0][1] - m.keys[1][1]
        seat_dir = seat_dir / (np.linalg.norm(seat_dir) + 1e-9)
        if m.carry_until is not None and t < m.carry_until:
            fwd = -seat_dir
            centre = tip + fwd * (CARD_H / 2 + GRIP_CM)
            self._card(frame, m.carry, centre, math.degrees(math.atan2(fwd[0], fwd[1])), lift=3.0)
        # motion blur: how far the hand moves while the shutter is open (about half a frame)
        v = cam.to_image(m.at(t + 0.5 / FPS)[None])[0] - cam.to_image(tip[None])[0]
        tip_px = cam.to_image(tip[None])[0]
        start_px = cam.to_image((tip + seat_dir * 60.0)[None])[0]
        key = (m.seed, *np.round(tip_px * 2).astype(int), *np.round(v).astype(int))
        sprite = self._sprites.get(key)
        if sprite is None:  # a hand held still on the pile is the same picture frame after frame
            sprite = self._draw_sprite(m.seed, tip_px, start_px, v)
            if len(self._sprites) > 64:
                self._sprites.pop(next(iter(self._sprites)))
            self._sprites[key] = sprite
        if sprite is None:
            return
        (y0, y1, x0, x1), color, cover = sprite
        reg = frame[y0:y1, x0:x1]
        reg *= 1 - 0.25 * cover  # a faint shadow where the hand is over the table (under it, it is hidden anyway)
        reg += (color - reg) * cover

    def _draw_sprite(self, seed: int, tip_px: np.ndarray, start_px: np.ndarray, v: np.ndarray) -> tuple | None:
        """The hand drawn at half resolution (4x cheaper; a moving hand is soft anyway), cropped to its box and
        scaled up to the frame."""
        color, cover = _draw_hand(np.random.default_rng(seed), self.half_cam, tip_px / 2, start=start_px / 2,
                                  blur=(float(v[0]) / 2, float(v[1]) / 2))
        ys, xs = np.nonzero(cover > 0.004)
        if ys.size == 0:
            return None
        W, H = self.sc.cam.size
        y0, y1, x0, x1 = ys.min(), ys.max() + 1, xs.min(), xs.max() + 1
        box = (2 * y0, min(H, 2 * y1), 2 * x0, min(W, 2 * x1))
        size = (box[3] - box[2], box[1] - box[0])
        color = cv2.resize(color[y0:y1, x0:x1], size, interpolation=cv2.INTER_LINEAR)
        cover = cv2.resize(cover[y0:y1, x0:x1], size, interpolation=cv2.INTER_LINEAR)[..., None]
        return box, color, cover


def soundtrack(script: Script, seed: int = 0) -> np.ndarray:
    """Mono float32 at :data:`RATE`: room noise, a sharp impact at every slap's contact, a soft tap where a card
    lands (which the audit must not take for a slap)."""
    rng = np.random.default_rng([seed, 9])
    n = int(math.ceil(script.duration * RATE)) + RATE // 10
    x = (0.002 * rng.standard_normal(n)).astype(np.float32)

    def burst(t: float, amp: float, tau: float, dur: float = 0.04) -> None:
        s = int(round(t * RATE))
        k = int(dur * RATE)
        b = amp * rng.standard_normal(k) * np.exp(-np.arange(k) / (tau * RATE))
        x[s:s + k] += b[: max(0, n - s)].astype(np.float32)

    for t, _zone, _card in script.landings:
        burst(t, float(rng.uniform(0.01, 0.02)), 0.002)
    for t, _p, _z in script.slaps:
        burst(t, float(rng.uniform(0.3, 0.7)), float(rng.uniform(0.004, 0.008)))
    return np.clip(x, -1, 1)


class TruthReader:
    """Card reads from the script itself: at the time given by :meth:`seek`, every card that shows in the crop the
    watcher looks at (:meth:`look_at`, else ``crop``), boxed where the renderer put it, in crop pixels. A card
    shows when at least ``min_visible`` of it is neither under a later card nor under a palm that is on the table
    (a slapping or taking hand); a hand passing over the table hides nothing (it is drawn above, but a detector
    reads around it, and the tracker's hysteresis is what is measured). It stands in for the detector where a test
    or a benchmark measures everything else the audit or the live loop does; ``inner`` (a real detector) is still
    run on every crop, so that its cost counts."""

    boxes_each_card = True  # a fanned Cheat batch is boxed card by card (vision.batches counts those boxes)

    def __init__(self, script: Script, crop: tuple[int, int, int, int] | None = None, zone: str | None = None,
                 imgsz: int = 224, inner: Any = None, min_visible: float = 0.12) -> None:
        self.sc, self.crop, self.zone, self.inner = script, crop, zone, inner
        self.imgsz = int(getattr(inner, "imgsz", imgsz))
        self.min_visible = min_visible
        self.t = 0.0
        g = np.linspace(-0.92, 0.92, 7)
        self._grid = np.stack(np.meshgrid(g, g), -1).reshape(-1, 2) * (CARD_W / 2, CARD_H / 2)
        changes = sorted([(t, 0, k, ("clear", z, None)) for k, (t, z) in enumerate(script.clears)] +
                         [(t, 1, k, ("remove", z, c)) for k, (t, z, c) in enumerate(script.removals)] +
                         [(t, 2, k, ("land", z, c)) for k, (t, z, c) in enumerate(script.landings)],
                         key=lambda x: x[:3])
        self._changes = [(t, what) for t, _, _, what in changes]
        self._visible_at: tuple[float, list[PileCard]] | None = None
        self._boxes_at: tuple[float, list[tuple[float, float, float, float]]] | None = None

    def seek(self, t: float) -> None:
        self.t = t

    def look_at(self, crop: tuple[int, int, int, int]) -> None:
        self.crop = crop

    def table(self, t: float) -> dict[str, list[PileCard]]:
        """What lies on every zone at ``t``, bottom first."""
        on: dict[str, list[PileCard]] = {z: [] for z in self.sc.piles}
        for tc, (what, zone, card) in self._changes:
            if tc > t:
                break
            if what == "clear":
                on[zone] = []
            elif what == "remove":
                if card in on[zone]:
                    on[zone].remove(card)
            else:
                on[zone].append(card)
        return on

    def _frame_box(self, c: PileCard) -> tuple[float, float, float, float]:
        return frame_box(self.sc.cam, c)

    def visible(self, t: float) -> list[PileCard]:
        """The cards that show at ``t`` (the watcher asks once per crop: the table is worked out once a frame)."""
        if self._visible_at is not None and self._visible_at[0] == t:
            return self._visible_at[1]
        out = self._visible(t)
        self._visible_at = (t, out)
        return out

    def _visible(self, t: float) -> list[PileCard]:
        on = self.table(t)
        palms = [m.at(t) for m in self.sc.motions if m.kind in ("slap", "take") and m.t0 <= t <= m.t1]
        out = []
        for cards in on.values():
            for k, c in enumerate(cards):
                pts = self._grid @ _rot(c.angle).T + c.xy
                free = np.ones(len(pts), bool)
                for above in cards[k + 1:]:
                    local = (pts - above.xy) @ _rot(above.angle)
                    free &= ~((np.abs(local[:, 0]) <= CARD_W / 2) & (np.abs(local[:, 1]) <= CARD_H / 2))
                for palm in palms:
                    free &= np.linalg.norm(pts - palm, axis=1) > 9.0
                if free.mean() >= self.min_visible:
                    out.append(c)
        return out

    def __call__(self, image: np.ndarray) -> Detections:
        if self.inner is not None:
            self.inner(image)
        x0, y0, x1, y1 = self.crop if self.crop is not None else (0, 0, *self.sc.cam.size)
        boxes, names = [], []
        shown = self.visible(self.t)
        if self._boxes_at is None or self._boxes_at[0] != self.t:
            self._boxes_at = (self.t, [self._frame_box(c) for c in shown])
        for c, fb in zip(shown, self._boxes_at[1], strict=True):
            b = [fb[0] - x0, fb[1] - y0, fb[2] - x0, fb[3] - y0]
            cx, cy = (b[0] + b[2]) / 2, (b[1] + b[3]) / 2
            if 0 <= cx < x1 - x0 and 0 <= cy < y1 - y0:
                boxes.append(b)
                names.append(c.code)
        for m in self.sc.motions:  # hands over the crop, as a detector's ``hand`` class boxes them
            if m.t0 <= self.t <= m.t1:
                palm = m.at(self.t)
                q = self.sc.cam.to_image(np.array([palm - 8.0, palm + 8.0])) - (x0, y0)
                b = [q[:, 0].min(), q[:, 1].min(), q[:, 0].max(), q[:, 1].max()]
                if b[2] > 0 and b[3] > 0 and b[0] < x1 - x0 and b[1] < y1 - y0:
                    boxes.append(b)
                    names.append("hand")
        if not boxes:
            return Detections()
        n = len(boxes)
        return Detections(np.array(boxes, np.float32), np.full(n, 0.9, np.float32), np.zeros(n, np.int64),
                          np.array(names))


@dataclass
class RenderedGame:
    video: Path
    truth: Path
    layout: Path
    script: Script


def truth_text(sc: Script) -> str:
    """The ground-truth log of ``sc`` as :func:`render_game` writes it: the header, then every event, a JSON line
    each (``bench/audit.py --reuse`` compares a kept game's with it)."""
    return "".join(dumps(item.to_dict()) + "\n" for item in [sc.header, *sc.events])


def render_game(out: str | Path, game: str = "slapjack", players: Sequence[str] | int = 3, seed: int = 0,
                seconds: float | None = 30.0, faces: str | FaceSet = "builtin", audio: bool = True,
                progress: bool = False, script: Script | None = None) -> RenderedGame:
    """Film a simulated game to ``out`` (an .mp4); writes ``<stem>.truth.jsonl``, ``<stem>.layout.yaml`` and, for
    games with spoken calls (Speed's "stuck", Cheat's claims and doubts), ``<stem>.said.jsonl`` beside it.
    ``seconds`` cuts the game off (None: the whole game). ``script``: film this one instead."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    sc = script if script is not None else make_script(game, players, seed, seconds)
    truth = out.with_name(out.stem + ".truth.jsonl")
    said = out.with_name(out.stem + ".said.jsonl")
    layout_path = out.with_name(out.stem + ".layout.yaml")
    with open(truth, "w", encoding="utf-8", newline="\n") as log:
        log.write(truth_text(sc))
    heard = [e for e in sc.events if e.type in HEARD_TYPES]
    said.unlink(missing_ok=True)  # a file from another game rendered here before
    if heard:  # what the players said (or a scorer typed): the audit takes it with said=
        with open(said, "w", encoding="utf-8", newline="\n") as log:
            for item in [sc.header, *heard]:
                log.write(dumps(item.to_dict()) + "\n")
    sc.layout.save(layout_path)
    filmer = Filmer(sc, faces, seed)
    write_deck(filmer.deck, out.with_name(out.stem + ".deck"))
    with av.open(str(out), "w", options={"movflags": "faststart"}) as c:  # index first: a cut file still plays
        vs = c.add_stream("libx264", rate=FPS)
        vs.width, vs.height = SIZE
        vs.pix_fmt = "yuv420p"
        vs.options = {"preset": "veryfast", "crf": "20"}
        vs.codec_context.time_base = Fraction(1, FPS)
        ast = None
        if audio:
            ast = c.add_stream("aac", rate=RATE)
            ast.layout = "mono"
        bar = Progress(int(math.ceil(sc.duration * FPS)), "synth-video", "frames", enabled=progress)
        for i, _t, rgb in filmer.frames():
            f = av.VideoFrame.from_ndarray(rgb, format="rgb24")
            f.pts = i
            f.time_base = Fraction(1, FPS)
            for p in vs.encode(f):
                c.mux(p)
            bar.update()
        for p in vs.encode():
            c.mux(p)
        if ast is not None:
            x = soundtrack(sc, seed)
            fs = 1024
            for s in range(0, x.size, fs):
                af = av.AudioFrame.from_ndarray(x[s:s + fs].reshape(1, -1), format="fltp", layout="mono")
                af.sample_rate = RATE
                af.pts = s
                af.time_base = Fraction(1, RATE)
                for p in ast.encode(af):
                    c.mux(p)
            for p in ast.encode():
                c.mux(p)
    bar.close()
    return RenderedGame(out, truth, layout_path, sc)


DECK_PICTURE_PX = PRINT_PX  # the height of each picture in a rendered game's deck folder: the printed card


def write_deck(deck: Any, folder: Path) -> None:
    """The faces of the deck a game was filmed with, one picture per card (``10C.png``) and its back (``back.png``)
    in ``folder``: what a player would photograph of their own deck, for ``tablecam audit deck=``
    (:mod:`models.deckmatch`)."""
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("*.png"):  # another game's deck rendered here before
        old.unlink()
    for code in (*FACES, "back"):  # (its back too: whether it is printed to its edges, vision.fan)
        rgba = deck.image(code, DECK_PICTURE_PX)
        cv2.imwrite(str(folder / f"{code}.png"), cv2.cvtColor(rgba, cv2.COLOR_RGBA2BGRA))
