"""A table layout: the camera frame's named zones (EVENTS.md zone names) as polygons, and each player's seat.

Vision asks two questions of it for every detection: *which pile is this card on* (:meth:`Layout.zone_of`,
:meth:`Zone.contains`, PolygonZone style: a boolean per point) and *whose arm is this* (:meth:`Layout.seat_of`).
Both only make sense when the file fits the game and the camera, so :meth:`Layout.load` checks everything it
can and raises :class:`LayoutError` naming the file, the zone or seat, and the reason.

File format (YAML, ``version: 1``)::

    version: 1
    frame: {width: 1280, height: 720}
    game: snap
    players: [A, B]              # clockwise
    zones:                       # name -> polygon in image pixels [[x, y], ...]
      pile:A: [[x, y], ...]
    seats:                       # player -> one table-edge point, or a segment [[x, y], [x, y]]
      A: [[x, y], [x, y]]
    table:                       # optional: the homography image -> table (mm) and the table size
      width_mm: 800
      height_mm: 600
      homography: [[...], [...], [...]]
    latency:                     # optional, from tablecam calibrate-latency
      audio_s: 0.021             # audio clock minus video clock for one instant

Every zone is a card pile, so two zones that overlap (by area, not just a shared edge) are an error: a card
seen at one point must belong to exactly one pile.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import yaml

from engine.events import GAMES, is_zone

VERSION = 1
SUITS_ROWS: tuple[str, ...] = ("row:S", "row:H", "row:D", "row:C")
#: games for exactly two players (the referee refuses other counts)
TWO_PLAYER_GAMES: frozenset[str] = frozenset({"speed", "spit"})
_PLAYER_RE = re.compile(r"^[^\s:]+$")


class LayoutError(ValueError):
    """A layout that cannot be used; the message says which file, which zone or seat, and why."""


def required_zones(game: str, players: Sequence[str]) -> list[str]:
    """Zones the referee of ``game`` writes to, so the camera must be able to see them (RULES.md)."""
    if game in ("slapjack", "cheat"):
        return ["center"]
    if game == "snap":
        return [f"pile:{p}" for p in players]  # `pot` is optional (Snap Pot)
    if game == "speed":
        return ["left", "right"]
    if game == "spit":
        return ["left", "right"] + [f"col:{p}:{k}" for p in players for k in range(1, 6)]
    if game == "paijie":
        return list(SUITS_ROWS)
    raise LayoutError(f"unknown game {game!r}; valid games: {', '.join(GAMES)}")


def zone_player(name: str) -> str | None:
    """The player a zone name belongs to (``pile:B`` -> ``B``, ``col:A:3`` -> ``A``), else None."""
    if name.startswith(("pile:", "col:")):
        return name.split(":")[1]
    return None


def polygon_area(poly: np.ndarray) -> float:
    """Unsigned shoelace area in square pixels."""
    x, y = poly[:, 0], poly[:, 1]
    return float(abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))) / 2.0)


def _orient(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> float:
    return float((b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]))


def _on_segment(a: np.ndarray, b: np.ndarray, p: np.ndarray) -> bool:
    return (min(a[0], b[0]) - 1e-9 <= p[0] <= max(a[0], b[0]) + 1e-9
            and min(a[1], b[1]) - 1e-9 <= p[1] <= max(a[1], b[1]) + 1e-9)


def segments_intersect(p1: np.ndarray, p2: np.ndarray, q1: np.ndarray, q2: np.ndarray) -> bool:
    """True when the closed segments p1p2 and q1q2 share a point (touching counts)."""
    d1, d2 = _orient(q1, q2, p1), _orient(q1, q2, p2)
    d3, d4 = _orient(p1, p2, q1), _orient(p1, p2, q2)
    if ((d1 > 0 > d2) or (d1 < 0 < d2)) and ((d3 > 0 > d4) or (d3 < 0 < d4)):
        return True
    return ((d1 == 0 and _on_segment(q1, q2, p1)) or (d2 == 0 and _on_segment(q1, q2, p2))
            or (d3 == 0 and _on_segment(p1, p2, q1)) or (d4 == 0 and _on_segment(p1, p2, q2)))


def self_intersection(poly: np.ndarray) -> tuple[int, int] | None:
    """The first pair of non-adjacent edges (by start index) that cross or touch, else None."""
    n = len(poly)
    for i in range(n):
        for j in range(i + 2, n):
            if i == 0 and j == n - 1:
                continue  # adjacent through the closing edge
            if segments_intersect(poly[i], poly[(i + 1) % n], poly[j], poly[(j + 1) % n]):
                return i, j
    return None


def _point_segment_distance(p: np.ndarray, seg: np.ndarray) -> float:
    """Distance from ``p`` to a seat: one point, or the segment between two points."""
    a = seg[0]
    if len(seg) == 1:
        return float(np.hypot(*(p - a)))
    b = seg[1]
    ab = b - a
    denom = float(np.dot(ab, ab))
    t = 0.0 if denom == 0 else float(np.clip(np.dot(p - a, ab) / denom, 0.0, 1.0))
    return float(np.hypot(*(p - (a + t * ab))))


@dataclass
class Zone:
    """One named pile area: a simple polygon in image pixels."""

    name: str
    polygon: np.ndarray  # (N, 2) float64
    #: (the polygon these were made of, its corners' x and y, the same rolled one corner on): the watcher asks
    #: whether a box lies on a zone thousands of times a game, and the rolls were a third of each answer
    _edges: tuple | None = field(default=None, init=False, repr=False, compare=False)

    def contains(self, points: np.ndarray | Sequence[Sequence[float]]) -> np.ndarray:
        """A boolean per point (N x 2 array): inside the polygon (even-odd ray casting, vectorised over
        points and edges). Points exactly on an edge may go either way; zones do not overlap, so that is safe."""
        pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
        x, y = pts[:, 0:1], pts[:, 1:2]  # (M, 1)
        if self._edges is None or self._edges[0] is not self.polygon:
            xi, yi = self.polygon[:, 0], self.polygon[:, 1]
            self._edges = (self.polygon, xi, yi, np.roll(xi, 1), np.roll(yi, 1))
        _, xi, yi, xj, yj = self._edges  # (N,) each
        straddles = (yi > y) != (yj > y)  # (M, N)
        with np.errstate(divide="ignore", invalid="ignore"):
            x_cross = (xj - xi) * (y - yi) / (yj - yi) + xi
        crossings = straddles & (x < x_cross)
        return (np.count_nonzero(crossings, axis=1) % 2) == 1

    @property
    def area(self) -> float:
        return polygon_area(self.polygon)

    @property
    def centroid(self) -> tuple[float, float]:
        """The vertex mean: a label position, not the exact area centroid."""
        c = self.polygon.mean(axis=0)
        return float(c[0]), float(c[1])


@dataclass
class Layout:
    """A calibrated table for one game and one camera frame size. Build it with :meth:`load`, :meth:`from_dict`
    or :func:`calibration.markers.layout_from_markers`; all of them validate."""

    frame_size: tuple[int, int]  # (width, height) in pixels
    game: str
    players: tuple[str, ...]  # clockwise
    zones: dict[str, Zone]
    seats: dict[str, np.ndarray]  # player -> (1, 2) point or (2, 2) segment, image pixels
    homography: np.ndarray | None = None  # 3x3, image pixels -> table mm
    table_mm: tuple[float, float] | None = None  # (width, height) of the table rectangle
    source: str = "<layout>"  # the file it came from, for messages
    #: measured clock offsets (``tablecam calibrate-latency``): ``audio_s`` = when the microphone's clock says a
    #: sound happened minus when the camera's clock says it did (positive: the sound is logged late)
    latency: dict[str, float] = field(default_factory=dict)

    # ---- queries -------------------------------------------------------------------------------------
    def zone_of(self, point: Sequence[float]) -> str | None:
        """The zone a point (x, y) lies in, or None when it is on no pile."""
        for z in self.zones.values():
            if z.contains(np.asarray(point, dtype=np.float64).reshape(1, 2))[0]:
                return z.name
        return None

    def zones_of(self, points: np.ndarray) -> list[str | None]:
        """:meth:`zone_of` for many points at once (one vectorised pass per zone)."""
        pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
        out: list[str | None] = [None] * len(pts)
        for z in self.zones.values():
            for i in np.flatnonzero(z.contains(pts)):
                if out[i] is None:
                    out[i] = z.name
        return out

    def seat_of(self, point: Sequence[float]) -> str:
        """The player whose seat (edge point or segment) is nearest: an arm entering the frame at ``point``
        belongs to them."""
        p = np.asarray(point, dtype=np.float64).reshape(2)
        return min(self.players, key=lambda name: _point_segment_distance(p, self.seats[name]))

    def check_frame(self, width: int, height: int) -> None:
        """Refuse a frame of another size: the zones are in pixels of the frame the layout was made on."""
        w, h = self.frame_size
        if (int(width), int(height)) != (w, h):
            raise LayoutError(
                f"{self.source}: layout was made for a {w}x{h} frame, but the video frame is {width}x{height}; "
                f"calibrate again on this camera setting (tablecam calibrate IMAGE ...)")

    # ---- (de)serialisation --------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        def pts(a: np.ndarray) -> list[list[float]]:
            return [[round(float(x), 2), round(float(y), 2)] for x, y in a]

        d: dict[str, Any] = {
            "version": VERSION,
            "frame": {"width": int(self.frame_size[0]), "height": int(self.frame_size[1])},
            "game": self.game,
            "players": list(self.players),
            "zones": {name: pts(z.polygon) for name, z in self.zones.items()},
            "seats": {p: pts(s) for p, s in self.seats.items()},
        }
        if self.homography is not None:
            table: dict[str, Any] = {"homography": [[float(v) for v in row] for row in self.homography]}
            if self.table_mm is not None:
                table = {"width_mm": float(self.table_mm[0]), "height_mm": float(self.table_mm[1]), **table}
            d["table"] = table
        if self.latency:
            d["latency"] = {k: round(float(v), 5) for k, v in self.latency.items()}
        return d

    def save(self, path: str | Path) -> None:
        """Write the YAML file (block style, so that a person can edit a point by hand)."""
        text = yaml.safe_dump(self.to_dict(), sort_keys=False, default_flow_style=None, width=120)
        Path(path).write_text(text, encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path) -> Layout:
        """Read and validate a layout file; every problem is a :class:`LayoutError` naming the file."""
        src = str(path)
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as e:
            raise LayoutError(f"{src}: cannot read layout file ({e.strerror})") from None
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as e:
            mark = getattr(e, "problem_mark", None)
            where = f" at line {mark.line + 1}" if mark is not None else ""
            raise LayoutError(f"{src}: not valid YAML{where}") from None
        return cls.from_dict(data, source=src)

    @classmethod
    def from_dict(cls, data: Any, source: str = "<layout>") -> Layout:
        """Build and validate a layout from the parsed YAML mapping."""
        def err(msg: str) -> LayoutError:
            return LayoutError(f"{source}: {msg}")

        if not isinstance(data, dict):
            raise err("a layout file must be a YAML mapping (version, frame, game, players, zones, seats)")
        version = data.get("version")
        if version != VERSION:
            raise err(f"unsupported layout version {version!r}; this tablecam reads version {VERSION}")
        frame = data.get("frame")
        if (not isinstance(frame, dict) or not all(_is_int(frame.get(k)) and frame[k] > 0
                                                   for k in ("width", "height"))):
            raise err("field 'frame' must give the image size: {width: W, height: H} in pixels")
        players = data.get("players")
        if (not isinstance(players, list) or len(players) < 2
                or not all(isinstance(p, str) and _PLAYER_RE.match(p) for p in players)):
            raise err("field 'players' must list at least two names (no spaces or ':'), clockwise")
        zones_raw = data.get("zones")
        if not isinstance(zones_raw, dict) or not zones_raw:
            raise err("field 'zones' must map zone names to polygons [[x, y], ...]")
        seats_raw = data.get("seats")
        if not isinstance(seats_raw, dict):
            raise err("field 'seats' must map each player to a table-edge point [[x, y]] or segment")
        zones = {}
        for name, poly in zones_raw.items():
            zones[str(name)] = Zone(str(name), _points(poly, err, f"zone {name!r}"))
        seats = {str(p): _points(s, err, f"seat {p!r}") for p, s in seats_raw.items()}
        homography = table_mm = None
        table = data.get("table")
        if table is not None:
            if not isinstance(table, dict):
                raise err("field 'table' must be a mapping (width_mm, height_mm, homography)")
            try:
                homography = np.asarray(table.get("homography"), dtype=np.float64)
            except (TypeError, ValueError):
                raise err("table homography must be a 3x3 matrix of numbers") from None
            if "width_mm" in table or "height_mm" in table:
                try:
                    table_mm = (float(table["width_mm"]), float(table["height_mm"]))
                except (KeyError, TypeError, ValueError):
                    raise err("table width_mm and height_mm must both be numbers") from None
        latency = data.get("latency") or {}
        if not isinstance(latency, dict) or not all(isinstance(v, int | float) and not isinstance(v, bool)
                                                    and abs(v) < 5 for v in latency.values()):
            raise err("field 'latency' must map clock names to offsets in seconds (under 5 s), e.g. {audio_s: 0.02}")
        layout = cls(frame_size=(int(frame["width"]), int(frame["height"])), game=str(data.get("game")),
                     players=tuple(players), zones=zones, seats=seats, homography=homography,
                     table_mm=table_mm, source=source, latency={str(k): float(v) for k, v in latency.items()})
        layout.validate()
        return layout

    # ---- validation ---------------------------------------------------------------------------------
    def validate(self) -> None:
        """Check the layout against the game, its players and the frame; raise the first problem found."""
        src = self.source

        def err(msg: str) -> LayoutError:
            return LayoutError(f"{src}: {msg}")

        if self.game not in GAMES:
            raise err(f"unknown game {self.game!r}; valid games: {', '.join(GAMES)}")
        if len(set(self.players)) != len(self.players):
            raise err(f"players repeat a name: {list(self.players)}")
        if self.game in TWO_PLAYER_GAMES and len(self.players) != 2:
            raise err(f"{self.game} is for exactly two players, the layout lists {len(self.players)}")
        w, h = self.frame_size
        for name, zone in self.zones.items():
            self._check_zone(name, zone.polygon, w, h, err)
        for need in required_zones(self.game, self.players):
            if need not in self.zones:
                raise err(f"zone {need!r} is missing: {self.game} needs zones "
                          f"{', '.join(required_zones(self.game, self.players))}")
        self._check_overlaps(err)
        for p in self.players:
            if p not in self.seats:
                raise err(f"seat for player {p!r} is missing: every player needs a seat (table-edge point)")
        for p, seat in self.seats.items():
            if p not in self.players:
                raise err(f"seat {p!r} names an unknown player (players: {', '.join(self.players)})")
            if len(seat) not in (1, 2):
                raise err(f"seat {p!r}: give one table-edge point or a segment of two points, not {len(seat)}")
            for i, (x, y) in enumerate(seat):
                if not (0 <= x <= w and 0 <= y <= h):
                    raise err(f"seat {p!r}: point {i} ({x:.1f}, {y:.1f}) is outside the {w}x{h} frame")
        if self.homography is not None:
            hm = self.homography
            if hm.shape != (3, 3) or not np.all(np.isfinite(hm)) or abs(np.linalg.det(hm)) < 1e-12:
                raise err("table homography must be an invertible 3x3 matrix (image pixels -> table mm)")
        if self.table_mm is not None and not all(v > 0 for v in self.table_mm):
            raise err(f"table size must be positive, got {self.table_mm}")

    def _check_zone(self, name: str, poly: np.ndarray, w: int, h: int, err: Any) -> None:
        if not is_zone(name):
            raise err(f"zone {name!r}: unknown zone name (EVENTS.md zones: center, pot, left, right, pile:<player>, "
                      f"col:<player>:<1-5>, row:<S|H|D|C>)")
        owner = zone_player(name)
        if owner is not None and owner not in self.players:
            raise err(f"zone {name!r}: names unknown player {owner!r} (players: {', '.join(self.players)})")
        if len(poly) < 3:
            raise err(f"zone {name!r}: a polygon needs at least 3 points, got {len(poly)}")
        for i, (x, y) in enumerate(poly):
            if not (0 <= x <= w and 0 <= y <= h):
                raise err(f"zone {name!r}: point {i} ({x:.1f}, {y:.1f}) is outside the {w}x{h} frame")
        zero_area = f"zone {name!r}: polygon has zero area (its points lie on one line or repeat)"
        thickness = np.linalg.svd(poly - poly.mean(axis=0), compute_uv=False)[1] / np.sqrt(len(poly))
        if thickness < 0.25:  # all points within about a pixel of one line
            raise err(zero_area)
        crossing = self_intersection(poly)
        if crossing is not None:
            i, j = crossing
            raise err(f"zone {name!r}: polygon is self-intersecting (edge {i}-{(i + 1) % len(poly)} crosses "
                      f"edge {j}-{(j + 1) % len(poly)}); list the points in order around the zone")
        if polygon_area(poly) < 1.0:
            raise err(zero_area)

    def _check_overlaps(self, err: Any) -> None:
        names = list(self.zones)
        for a_i, a in enumerate(names):
            for b in names[a_i + 1:]:
                area, where = overlap(self.zones[a].polygon, self.zones[b].polygon)
                if area > 0:
                    raise err(f"zones {a!r} and {b!r} overlap ({area:.0f} px² around ({where[0]:.0f}, "
                              f"{where[1]:.0f})): pile zones must not overlap, a card belongs to one pile")


def overlap(a: np.ndarray, b: np.ndarray) -> tuple[float, tuple[float, float]]:
    """Area (px²) shared by two polygons and a point inside the shared part. Exact for convex polygons;
    non-convex ones are rasterised with a one-pixel erosion, so zones that only share an edge never count."""
    ax0, ay0 = a.min(axis=0)
    ax1, ay1 = a.max(axis=0)
    bx0, by0 = b.min(axis=0)
    bx1, by1 = b.max(axis=0)
    if ax1 <= bx0 or bx1 <= ax0 or ay1 <= by0 or by1 <= ay0:
        return 0.0, (0.0, 0.0)
    a32, b32 = a.astype(np.float32), b.astype(np.float32)
    if cv2.isContourConvex(a32) and cv2.isContourConvex(b32):
        area, inter = cv2.intersectConvexConvex(a32, b32)
        if area <= 1.0 or inter is None:  # sub-pixel slivers are rounding, not overlap
            return 0.0, (0.0, 0.0)
        c = inter.reshape(-1, 2).mean(axis=0)
        return float(area), (float(c[0]), float(c[1]))
    x0, y0 = int(np.floor(min(ax0, bx0))) - 2, int(np.floor(min(ay0, by0))) - 2
    x1, y1 = int(np.ceil(max(ax1, bx1))) + 2, int(np.ceil(max(ay1, by1))) + 2
    kernel = np.ones((3, 3), np.uint8)
    masks = []
    for poly in (a, b):
        m = np.zeros((y1 - y0 + 1, x1 - x0 + 1), np.uint8)
        cv2.fillPoly(m, [np.round(poly - [x0, y0]).astype(np.int32)], 1)
        masks.append(cv2.erode(m, kernel))
    both = masks[0] & masks[1]
    n = int(np.count_nonzero(both))
    if n == 0:
        return 0.0, (0.0, 0.0)
    ys, xs = np.nonzero(both)
    return float(n), (float(xs.mean() + x0), float(ys.mean() + y0))


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _points(raw: Any, err: Any, what: str) -> np.ndarray:
    """A list of [x, y] pairs as an (N, 2) float array; wrong shapes are refused with ``what`` named."""
    if not isinstance(raw, list) or not all(isinstance(p, list | tuple) and len(p) == 2 for p in raw):
        raise err(f"{what}: must be a list of [x, y] points")
    try:
        arr = np.asarray(raw, dtype=np.float64).reshape(-1, 2)
    except (TypeError, ValueError):
        raise err(f"{what}: points must be numbers [x, y]") from None
    if not np.all(np.isfinite(arr)):
        raise err(f"{what}: points must be finite numbers")
    return arr


def draw_layout(frame: np.ndarray, layout: Layout, thickness: int = 2) -> np.ndarray:
    """A copy of ``frame`` with each zone outlined and labelled and each seat drawn: the picture a person
    checks after calibrating."""
    img = frame.copy() if frame.ndim == 3 else cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
    palette = [(0, 200, 255), (255, 120, 0), (60, 60, 235), (200, 60, 255), (0, 255, 160), (255, 255, 0)]
    colour_of = {p: palette[i % len(palette)] for i, p in enumerate(layout.players)}
    for z in layout.zones.values():
        owner = zone_player(z.name)
        colour = colour_of.get(owner or "", (255, 255, 255))
        cv2.polylines(img, [np.round(z.polygon).astype(np.int32)], True, colour, thickness, cv2.LINE_AA)
        _label(img, z.name, z.centroid, colour)
    for p, seat in layout.seats.items():
        colour = colour_of.get(p, (255, 255, 255))
        pts = np.round(seat).astype(np.int32)
        if len(pts) == 2:
            cv2.line(img, tuple(map(int, pts[0])), tuple(map(int, pts[1])), colour, thickness * 3, cv2.LINE_AA)
        for q in pts:
            cv2.circle(img, tuple(map(int, q)), thickness * 3, colour, -1, cv2.LINE_AA)
        c = seat.mean(axis=0)
        _label(img, f"seat {p}", (float(c[0]), float(c[1])), colour)
    return img


def draw_zones(img: np.ndarray, layout: Layout, scale: float = 1.0, colour: tuple[int, int, int] = (80, 255, 80)
               ) -> None:
    """Thin zone outlines with their names, in place, on a frame shown at ``scale``: the annotated video's and the
    live window's light touch (:func:`draw_layout` is the calibration check's full picture)."""
    for z in layout.zones.values():
        pts = np.round(z.polygon * scale).astype(np.int32)
        cv2.polylines(img, [pts], True, colour, 1, cv2.LINE_AA)
        c = pts.mean(0).astype(int)
        cv2.putText(img, z.name, (int(c[0]) - 20, int(pts[:, 1].min()) - 4), cv2.FONT_HERSHEY_SIMPLEX, 0.35,
                    colour, 1, cv2.LINE_AA)


def _label(img: np.ndarray, text: str, at: Iterable[float], colour: tuple[int, int, int]) -> None:
    x, y = (int(round(v)) for v in at)
    font, scale = cv2.FONT_HERSHEY_SIMPLEX, 0.45
    (tw, th), _ = cv2.getTextSize(text, font, scale, 1)
    org = (x - tw // 2, y + th // 2)
    cv2.putText(img, text, org, font, scale, (0, 0, 0), 3, cv2.LINE_AA)
    cv2.putText(img, text, org, font, scale, colour, 1, cv2.LINE_AA)
