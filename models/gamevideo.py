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
from engine.events import Event, GameHeader, dumps
from engine.replay import replay_to_end
from engine.sim import simulate
from models.detector import Detections
from models.scenes import (
    CARD_H,
    CARD_W,
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
#: the games this bench can film (the others need their own table states, not drawn yet)
FILMABLE = ("slapjack", "snap")

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
    carry_until: float | None = None  # the face-down card carried ahead of the fingers until this time
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


@dataclass
class PileCard:
    code: str
    xy: np.ndarray
    angle: float
    t: float  # when it landed


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
        raise ValueError(f"synth-video can film {', '.join(FILMABLE)}; not {game!r} yet")
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
    pile_of: dict[str, list[PileCard]] = {z: [] for z in piles}
    hand_seed = 0

    def next_seed() -> int:
        nonlocal hand_seed
        hand_seed += 1
        return seed * 1000 + hand_seed

    # slap hands are held until the pile is taken (or HOLD_S when nothing is taken soon); in Snap the won piles
    # are not in the log as takes: the referee's verdicts say which piles went when
    takes = [(e.t, e.zone) for e in events if e.type == "take"]
    pot_cards: list[tuple[float, int]] = []
    landing_times: dict[str, list[float]] = {}
    for e in events:
        if e.type == "card" and e.zone:
            landing_times.setdefault(e.zone, []).append(e.t)

    def before_next_card(zone: str, t: float, gap: float = 0.2) -> float:
        """``t``, or earlier if the next card on ``zone`` lands sooner: a won pile is swept before it."""
        nxt = [u for u in landing_times.get(zone, []) if u > t - 0.35]
        return min(t, nxt[0] - gap) if nxt else t

    _, outs = replay_to_end(header, events)  # which piles were won, and when (not always logged as takes)
    won: list[tuple[float, str]] = []
    for o in outs:
        d = o.to_dict()
        if d.get("type") != "verdict":
            continue
        t_v = float(d["t"])
        if game == "slapjack" and d["kind"] == "slap_won":
            won.append((before_next_card("center", t_v + 0.35), "center"))
        elif d["kind"] in ("snap", "snap_pot"):
            won += [(before_next_card(f"pile:{q}", t_v + 0.35), f"pile:{q}") for q in d.get("piles", [])]
            if d["kind"] == "snap_pot":
                pot_cards.append((t_v + 0.35, int(d.get("cards") or 0)))
        elif d["kind"] == "pot_won":
            won.append((t_v + 0.35, "pot"))
    takes = sorted(takes + won)
    sc.clears += [(t, z) for t, z in won if z in piles]
    for t_pot, n in pot_cards:  # the snapped piles go face down into the middle
        for _ in range(min(n, 6)):
            xy = piles["pot"] + rng.normal(0, 1.0, 2)
            sc.landings.append((t_pot, "pot", PileCard("back", xy, float(rng.uniform(-30, 30)), t_pot)))
    for ev in events:
        p = ev.player or header.players[0]
        if ev.type == "card" and ev.zone in piles:
            c = piles[ev.zone]
            xy = c + rng.normal(0, 0.7, 2)
            angle = float(rng.normal(0, 10)) + math.degrees(math.atan2(fwd[p][0], fwd[p][1]))
            card = PileCard(ev.card or "back", xy, angle, ev.t)
            pile_of[ev.zone].append(card)
            sc.landings.append((ev.t, ev.zone, card))
            # the hand's reference point is its palm; the fingers reach about 9 cm past it and hold the card's
            # near edge, so the card shows whole as it lands
            release = xy - fwd[p] * (CARD_H / 2 + GRIP_CM)
            start = stacks[p] - fwd[p] * 2.0
            back = seat[p] - fwd[p] * 6.0
            sc.motions.append(Motion(p, "deal", [(ev.t - DEAL_S, start), (ev.t, release),
                                                 (ev.t + RETRACT_S, back)], ["inout", "in"], next_seed(),
                                     carry_until=ev.t, seat=shoulder[p]))
        elif ev.type == "slap" and ev.zone in piles:
            reach_dir = piles[ev.zone] - shoulder[p]  # a slap comes straight from the shoulder
            reach_dir = reach_dir / (np.linalg.norm(reach_dir) + 1e-9)
            target = piles[ev.zone] + reach_dir * 1.0 + rng.normal(0, 1.2, 2)  # the palm on the pile
            approach = target - reach_dir * 30.0
            later = [t for t, z in takes if (z == ev.zone or game == "snap") and ev.t < t <= ev.t + 2.0]
            hold_end = later[0] if later else ev.t + HOLD_S + rng.uniform(0, 0.2)
            # off the pile before the next card lands there (players leave room for the turner)
            hold_end = max(ev.t + 0.1, before_next_card(ev.zone, hold_end, gap=RETRACT_S * 0.7))
            sc.motions.append(Motion(p, "slap", [(ev.t - SLAP_S, approach), (ev.t, target), (hold_end, target),
                                                 (hold_end + RETRACT_S, seat[p] - fwd[p] * 6.0)],
                                     ["in", "in", "inout"], next_seed(), contact=ev.t, seat=shoulder[p]))
            sc.slaps.append((ev.t, p, ev.zone))
        elif ev.type == "take" and ev.zone in piles:
            sc.clears.append((ev.t, ev.zone))
            pile_of[ev.zone] = []
            slapped = any(m.kind == "slap" and m.player == p and m.contact is not None
                          and ev.t - 2.0 <= m.contact <= ev.t for m in sc.motions)
            if not slapped:  # a hand that was not already on the pile comes to take it
                target = piles[ev.zone] + fwd[p] * 2.0
                sc.motions.append(Motion(p, "take", [(ev.t - TAKE_S, seat[p] - fwd[p] * 6.0), (ev.t, target),
                                                     (ev.t + RETRACT_S, seat[p] - fwd[p] * 6.0)],
                                         ["inout", "inout"], next_seed(), seat=shoulder[p]))
    last = max([e.t for e in events] + [m.t1 for m in sc.motions] + [0.0])
    sc.duration = last + 0.8
    return sc


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
        for xy in script.stacks.values():  # the players' face-down stacks: drawn once
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
        landings = sorted(sc.landings, key=lambda x: x[0])
        clears = sorted(sc.clears)
        li = ci = 0
        n = int(math.ceil(sc.duration * FPS))
        W, H = sc.cam.size
        for i in range(n):
            t = i / FPS
            changed = False
            while ci < len(clears) and clears[ci][0] <= t:
                self.piles[clears[ci][1]] = []
                ci += 1
                changed = True
            if changed:
                self._restill()
            while li < len(landings) and landings[li][0] <= t:
                _, zone, card = landings[li]
                self.piles[zone].append(card)
                self._card(self.still, card.code, card.xy, card.angle)
                li += 1
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
            self._card(frame, "back", centre, math.degrees(math.atan2(fwd[0], fwd[1])), lift=3.0)
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
    """Card reads from the script itself: at the time given by :meth:`seek`, the true top card of ``zone``, boxed
    where the renderer put it (in the pixels of ``crop``, the watcher's crop of that zone), unless a palm covers
    it. It stands in for the detector where a test or a benchmark measures everything else the audit or the live
    loop does; ``inner`` (a real detector) is still run on every crop, so that its cost counts."""

    def __init__(self, script: Script, crop: tuple[int, int, int, int], zone: str = "center", imgsz: int = 224,
                 inner: Any = None) -> None:
        self.sc, self.crop, self.zone, self.inner = script, crop, zone, inner
        self.imgsz = int(getattr(inner, "imgsz", imgsz))
        self.t = 0.0

    def seek(self, t: float) -> None:
        self.t = t

    def __call__(self, image: np.ndarray) -> Detections:
        if self.inner is not None:
            self.inner(image)
        top = None
        for t, zone, card in self.sc.landings:
            if zone == self.zone and t <= self.t:
                top = card
        for t, zone in self.sc.clears:
            if zone == self.zone and top is not None and top.t <= t <= self.t:
                top = None
        if top is None or any(m.kind in ("slap", "take") and m.t0 <= self.t <= m.t1
                              and np.linalg.norm(m.at(self.t) - top.xy) < 15 for m in self.sc.motions):
            return Detections()  # an empty pile, or a palm on it hides the card from any detector
        corners = UPRIGHT_CORNERS * (CARD_W / 2, CARD_H / 2) @ _rot(top.angle).T + top.xy
        q = self.sc.cam.to_image(corners) - self.crop[:2]
        box = np.array([[q[:, 0].min(), q[:, 1].min(), q[:, 0].max(), q[:, 1].max()]], np.float32)
        return Detections(box, np.array([0.9], np.float32), np.zeros(1, np.int64), np.array([top.code]))


@dataclass
class RenderedGame:
    video: Path
    truth: Path
    layout: Path
    script: Script


def render_game(out: str | Path, game: str = "slapjack", players: Sequence[str] | int = 3, seed: int = 0,
                seconds: float | None = 30.0, faces: str | FaceSet = "builtin", audio: bool = True,
                progress: bool = False, script: Script | None = None) -> RenderedGame:
    """Film a simulated game to ``out`` (an .mp4); writes ``<stem>.truth.jsonl`` and ``<stem>.layout.yaml``
    beside it. ``seconds`` cuts the game off (None: the whole game). ``script``: film this one instead."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    sc = script if script is not None else make_script(game, players, seed, seconds)
    truth = out.with_name(out.stem + ".truth.jsonl")
    layout_path = out.with_name(out.stem + ".layout.yaml")
    with open(truth, "w", encoding="utf-8", newline="\n") as log:
        for item in [sc.header, *sc.events]:
            log.write(dumps(item.to_dict()) + "\n")
    sc.layout.save(layout_path)
    filmer = Filmer(sc, faces, seed)
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
        n = int(math.ceil(sc.duration * FPS))
        for i, _t, rgb in filmer.frames():
            f = av.VideoFrame.from_ndarray(rgb, format="rgb24")
            f.pts = i
            f.time_base = Fraction(1, FPS)
            for p in vs.encode(f):
                c.mux(p)
            if progress and (i % 30 == 0 or i == n - 1):
                print(f"\rsynth-video {i + 1}/{n} frames", end="", flush=True)
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
    if progress:
        print()
    return RenderedGame(out, truth, layout_path, sc)
