"""ArUco corner markers: a printable sheet, their detection, and a default layout placed from them.

Four DICT_4X4_50 markers (ids 0-3) lie flat with their centres on the corners of the play area. Seen from
the first player's seat: 0 far left, 1 far right, 2 near right, 3 near left. Their centres in the image and
the table size in mm fix the image -> table homography; a default layout for the game and the number of
players is then designed in table millimetres (a centre pile at the centre, each player's piles in front of
their seat, seats along the edges, players clockwise from the first) and projected into the image.

Why centres and not marker corners: the centre of a marker (the crossing of its diagonals, which a
homography preserves) does not depend on how the paper was turned when it was laid down, so only the table
size has to be measured, not each marker's pose.
"""

from __future__ import annotations

import math
import struct
import zlib
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np

from calibration.homography import estimate_homography, map_points
from calibration.layout import SUITS_ROWS, TWO_PLAYER_GAMES, Layout, LayoutError, Zone, required_zones
from engine.events import GAMES

DICTIONARY = cv2.aruco.DICT_4X4_50
MARKER_IDS: tuple[int, ...] = (0, 1, 2, 3)
#: where each marker goes, seen from the first player's seat
CORNER_NAMES: dict[int, str] = {0: "far left", 1: "far right", 2: "near right", 3: "near left"}
DEFAULT_TABLE_MM: tuple[float, float] = (800.0, 600.0)
DEFAULT_MARKER_MM = 60.0

CARD_MM = (63.0, 88.0)  # a poker card, for the sizes below
PILE_MM = (100.0, 130.0)  # one pile zone: a card plus room for a messy stack (across, depth)
CENTER_MM = (160.0, 160.0)  # Slapjack/Cheat centre pile: cards land turned any way, hands slap on it
COLUMN_MM = (78.0, 110.0)  # one Spit column
COLUMN_PITCH_MM = 86.0


class MarkerError(LayoutError):
    """Markers missing or ambiguous in the calibration image; the message names the corners."""


# ---- the printable sheet --------------------------------------------------------------------------------

def marker_image(marker_id: int, side_px: int) -> np.ndarray:
    """One DICT_4X4_50 marker, ``side_px`` square, black on white (no quiet zone)."""
    d = cv2.aruco.getPredefinedDictionary(DICTIONARY)
    return cv2.aruco.generateImageMarker(d, int(marker_id), int(side_px))


def _png_with_dpi(img: np.ndarray, dpi: int) -> bytes:
    """PNG bytes with a pHYs chunk, so that printers and viewers know the sheet's true size."""
    ok, buf = cv2.imencode(".png", img)
    if not ok:
        raise OSError("PNG encoding failed")
    data = buf.tobytes()
    ppm = int(round(dpi / 0.0254))
    body = struct.pack(">IIB", ppm, ppm, 1)
    chunk = struct.pack(">I", len(body)) + b"pHYs" + body + struct.pack(">I", zlib.crc32(b"pHYs" + body))
    ihdr_end = 8 + 4 + 4 + 13 + 4  # signature + IHDR chunk
    return data[:ihdr_end] + chunk + data[ihdr_end:]


def _put_lines(img: np.ndarray, text: str, x: int, y: int, max_w: int, scale: float, thick: int) -> int:
    """Word-wrapped Hershey text from (x, y) downwards; returns the next free y."""
    font = cv2.FONT_HERSHEY_SIMPLEX
    line_h = int(cv2.getTextSize("Hg", font, scale, thick)[0][1] * 1.9)
    for para in text.split("\n"):
        words, line = para.split(" "), ""
        for w in words + [None]:
            trial = w if not line else f"{line} {w}" if w is not None else line
            if w is None or cv2.getTextSize(trial, font, scale, thick)[0][0] > max_w:
                if line:
                    y += line_h
                    cv2.putText(img, line, (x, y), font, scale, 0, thick, cv2.LINE_AA)
                line = w or ""
            else:
                line = trial
    return y + line_h // 2


def _dashed_rect(img: np.ndarray, x0: int, y0: int, x1: int, y1: int, dash: int, thick: int) -> None:
    for (ax, ay), (bx, by) in (((x0, y0), (x1, y0)), ((x1, y0), (x1, y1)), ((x1, y1), (x0, y1)), ((x0, y1), (x0, y0))):
        length = int(math.hypot(bx - ax, by - ay))
        for s in range(0, length, 2 * dash):
            e = min(s + dash, length)
            p = (int(ax + (bx - ax) * s / length), int(ay + (by - ay) * s / length))
            q = (int(ax + (bx - ax) * e / length), int(ay + (by - ay) * e / length))
            cv2.line(img, p, q, 128, thick)


def sheet_image(marker_mm: float = DEFAULT_MARKER_MM, dpi: int = 300) -> np.ndarray:
    """The A4 portrait sheet (grayscale): four markers with their corner labels and the instructions."""
    mm = dpi / 25.4
    w, h = int(round(210 * mm)), int(round(297 * mm))
    img = np.full((h, w), 255, np.uint8)
    font = cv2.FONT_HERSHEY_SIMPLEX
    cv2.putText(img, "tablecam corner markers (ArUco DICT_4X4_50)", (int(15 * mm), int(18 * mm)), font,
                2.0 * dpi / 300, 0, max(2, dpi // 75), cv2.LINE_AA)
    side = int(round(marker_mm * mm))
    quiet = int(round(10 * mm))
    centres = {0: (55, 70), 1: (155, 70), 2: (155, 165), 3: (55, 165)}  # the sheet mirrors the table
    for mid, (cx_mm, cy_mm) in centres.items():
        cx, cy = int(round(cx_mm * mm)), int(round(cy_mm * mm))
        x0, y0 = cx - side // 2, cy - side // 2
        img[y0:y0 + side, x0:x0 + side] = marker_image(mid, side)
        _dashed_rect(img, x0 - quiet, y0 - quiet, x0 + side + quiet, y0 + side + quiet, int(3 * mm), 3)
        tick = int(4 * mm)  # centre ticks on the white border: line them up with the table corner
        for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            a = (cx + dx * (side // 2 + quiet // 3), cy + dy * (side // 2 + quiet // 3))
            b = (a[0] + dx * tick, a[1] + dy * tick)
            cv2.line(img, a, b, 0, max(2, dpi // 100))
        label = f"{mid}: {CORNER_NAMES[mid].upper()}"
        tw = cv2.getTextSize(label, font, 1.6 * dpi / 300, 4)[0][0]
        cv2.putText(img, label, (cx - tw // 2, y0 + side + quiet + int(8 * mm)), font, 1.6 * dpi / 300, 0,
                    max(2, dpi // 75), cv2.LINE_AA)
    steps = (
        f"1. Print at 100% (no 'fit to page'): each black square must measure {marker_mm:g} mm.\n"
        "2. Cut out the four markers along the dashed lines, keeping the white border round each. The short "
        "ticks mark each marker's centre.\n"
        "3. From the FIRST player's seat (the first name in players=...), lay them flat with their centres "
        "on the corners of the play area: 0 far left, 1 far right, 2 near right, 3 near left. "
        "The other players sit clockwise from the first.\n"
        "4. Measure centre to centre in mm: 3 to 2 is the table width, 2 to 1 its depth (table=WIDTHxDEPTH).\n"
        "5. Aim the camera so that all four markers are fully in view, then run: tablecam calibrate IMAGE "
        "game=G players=A,B table=WIDTHxDEPTH out=layout.yaml\n"
        "6. Leave the markers in place; calibrate again whenever the camera or a marker moves."
    )
    _put_lines(img, steps, int(15 * mm), int(222 * mm), int(180 * mm), 1.25 * dpi / 300, max(1, dpi // 150))
    return img


def write_sheet(path: str | Path, marker_mm: float = DEFAULT_MARKER_MM, dpi: int = 300) -> Path:
    """Write the printable A4 marker sheet as a PNG tagged with its dpi; returns the path."""
    out = Path(path)
    out.write_bytes(_png_with_dpi(sheet_image(marker_mm, dpi), dpi))
    return out


# ---- detection -------------------------------------------------------------------------------------------

def detect_marker_corners(frame: np.ndarray) -> dict[int, np.ndarray]:
    """The four corners (4 x 2, marker order) of each corner marker seen, by id. Other ids are ignored; an
    id seen twice is refused, since either copy could be the true corner. Markers the first pass misses are
    looked for again in an unsharp-masked copy: a slightly soft webcam image loses the far, small markers."""
    gray = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(DICTIONARY), params)
    found = _detect_pass(detector, gray)
    for sigma, amount in ((3.0, 1.0), (2.0, 1.5)):  # unsharp masks, gentle then strong
        if len(found) == len(MARKER_IDS):
            break
        sharp = cv2.addWeighted(gray, 1.0 + amount, cv2.GaussianBlur(gray, (0, 0), sigma), -amount, 0)
        for mid, pts in _detect_pass(detector, sharp).items():
            found.setdefault(mid, pts)
    return found


def _detect_pass(detector: cv2.aruco.ArucoDetector, gray: np.ndarray) -> dict[int, np.ndarray]:
    corners, ids, _ = detector.detectMarkers(gray)
    found: dict[int, np.ndarray] = {}
    if ids is None:
        return found
    for c, i in zip(corners, ids.ravel(), strict=True):
        mid = int(i)
        if mid not in MARKER_IDS:
            continue
        pts = np.asarray(c, dtype=np.float64).reshape(4, 2)
        if mid in found:
            a, b = found[mid].mean(axis=0), pts.mean(axis=0)
            raise MarkerError(f"marker {mid} ({CORNER_NAMES[mid]} corner) is seen twice, at ({a[0]:.0f}, "
                              f"{a[1]:.0f}) and ({b[0]:.0f}, {b[1]:.0f}); remove the extra copy")
        found[mid] = pts
    return found


def marker_centre(corners: np.ndarray) -> np.ndarray:
    """Where the diagonals cross: the true centre under perspective (the corner mean is not)."""
    p0, p1, p2, p3 = (np.asarray(c, dtype=np.float64) for c in corners)
    d1, d2 = p2 - p0, p3 - p1
    denom = d1[0] * d2[1] - d1[1] * d2[0]
    if abs(denom) < 1e-12:
        return np.mean(corners, axis=0)
    t = ((p1[0] - p0[0]) * d2[1] - (p1[1] - p0[1]) * d2[0]) / denom
    return p0 + t * d1


def detect_markers(frame: np.ndarray) -> dict[int, tuple[float, float]]:
    """Centres (x, y) in image pixels of the corner markers seen in ``frame``, by id (0-3)."""
    return {mid: (float(c[0]), float(c[1])) for mid, c in
            ((mid, marker_centre(pts)) for mid, pts in sorted(detect_marker_corners(frame).items()))}


def _require_all(found: dict[int, object], image_name: str) -> None:
    missing = [m for m in MARKER_IDS if m not in found]
    if missing:
        which = ", ".join(f"{m} ({CORNER_NAMES[m]})" for m in missing)
        seen = ", ".join(str(m) for m in sorted(found)) or "none"
        raise MarkerError(f"{image_name}: corner marker(s) not found: {which}; found: {seen}. Each marker must "
                          f"be fully in view, flat, lit without glare and not covered")


# ---- the default layout, in table millimetres ------------------------------------------------------------

def _rect(centre: np.ndarray, across: np.ndarray, size: tuple[float, float]) -> np.ndarray:
    """A rectangle of ``size`` (along ``across``, along its normal) centred at ``centre``; 4 x 2, one winding."""
    a = across / np.linalg.norm(across)
    n = np.array([-a[1], a[0]])
    hw, hd = size[0] / 2, size[1] / 2
    return np.array([centre - a * hw - n * hd, centre + a * hw - n * hd, centre + a * hw + n * hd,
                     centre - a * hw + n * hd])


def _seat(i: int, n: int, w: float, h: float) -> tuple[np.ndarray, np.ndarray]:
    """Player ``i`` of ``n``'s seat point on the table edge and their seat segment along that edge.

    Seats go round clockwise as seen from above starting at the near edge's middle (the first player);
    with y pointing to the near edge, clockwise is increasing angle. Three players sit near, left and right
    (the middles of three edges) rather than at even angles, which would put two of them near corners."""
    phi = math.pi / 2 + (math.pi / 2 * (2 * i - 1) if n == 3 and i else 2 * math.pi * i / n)
    c, s = math.cos(phi), math.sin(phi)
    t = 1.0 / max(abs(c), abs(s))
    p = np.array([w / 2 + t * c * w / 2, h / 2 + t * s * h / 2])
    on_vertical = abs(c) >= abs(s)  # the ray leaves through the left or right edge
    edge_len = h if on_vertical else w
    half = min(150.0, 0.2 * edge_len)
    axis = 1 if on_vertical else 0
    lo, hi = max(0.0, p[axis] - half), min(edge_len, p[axis] + half)
    a, b = p.copy(), p.copy()
    a[axis], b[axis] = lo, hi
    return p, np.array([a, b])


def table_layout(game: str, players: Sequence[str], table_mm: tuple[float, float] = DEFAULT_TABLE_MM,
                 ) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """The default zones and seats of ``game`` in table mm (origin at marker 0, y towards the first player).

    ``left``/``right`` are as the first player sees them; Spit columns run 1-5 from each player's own left."""
    if game not in GAMES:
        raise LayoutError(f"unknown game {game!r}; valid games: {', '.join(GAMES)}")
    n = len(players)
    if n < 2:
        raise LayoutError(f"a layout needs at least two players, got {n}")
    if game in TWO_PLAYER_GAMES and n != 2:
        raise LayoutError(f"{game} is for exactly two players, not {n}")
    w, h = map(float, table_mm)
    if w <= 0 or h <= 0:
        raise LayoutError(f"table size must be positive, got {w:g}x{h:g} mm")
    centre = np.array([w / 2, h / 2])
    x_axis = np.array([1.0, 0.0])
    seats: dict[str, np.ndarray] = {}
    forward: dict[str, np.ndarray] = {}  # unit vector from the seat towards the table centre
    reach: dict[str, float] = {}  # distance seat -> centre
    for i, p in enumerate(players):
        pt, seg = _seat(i, n, w, h)
        seats[p] = seg
        v = centre - pt
        reach[p] = float(np.linalg.norm(v))
        forward[p] = v / reach[p]
    zones: dict[str, np.ndarray] = {}
    if game in ("slapjack", "cheat"):
        zones["center"] = _rect(centre, x_axis, CENTER_MM)
    elif game == "snap":
        zones["pot"] = _rect(centre, x_axis, PILE_MM)
        for p in players:
            f = forward[p]
            zones[f"pile:{p}"] = _rect(centre - f * reach[p] * 0.5, np.array([-f[1], f[0]]), PILE_MM)
    elif game in ("speed", "spit"):
        gap = 20.0
        off = x_axis * (PILE_MM[0] + gap) / 2
        zones["left"] = _rect(centre - off, x_axis, PILE_MM)
        zones["right"] = _rect(centre + off, x_axis, PILE_MM)
        if game == "spit":
            for p in players:
                f = forward[p]
                right_hand = np.array([-f[1], f[0]])  # the player's right, seen from above (y down)
                base = centre - f * max(reach[p] * 0.6, PILE_MM[1] / 2 + COLUMN_MM[1] / 2 + 10)
                for k in range(1, 6):
                    zones[f"col:{p}:{k}"] = _rect(base + right_hand * (k - 3) * COLUMN_PITCH_MM, right_hand,
                                                  COLUMN_MM)
    elif game == "paijie":
        gap = 10.0
        row_h = min(100.0, (0.7 * h - 3 * gap) / 4)
        row_w = min(0.85 * w, 13 * 55.0)
        top = h / 2 - (4 * row_h + 3 * gap) / 2
        for k, name in enumerate(SUITS_ROWS):  # S farthest from the first player, C nearest
            zones[name] = _rect(np.array([w / 2, top + row_h / 2 + k * (row_h + gap)]), x_axis, (row_w, row_h))
        if top >= 60.0:  # the jokers' place (EVENTS.md: jokers on ``center``), beyond the spade row
            zones["center"] = _rect(np.array([w / 2, top / 2]), x_axis, (130.0, min(90.0, top - 6.0)))
    for name, poly in zones.items():
        if poly.min() < 0 or np.any(poly.max(axis=0) > [w, h]):
            raise LayoutError(f"table {w:g}x{h:g} mm is too small for the default {game} layout: zone {name!r} "
                              f"does not fit; measure the table (table=WIDTHxDEPTH) or draw the zones by hand")
    missing = [z for z in required_zones(game, players) if z not in zones]
    assert not missing, missing
    return zones, seats


def layout_from_homography(image_to_table: np.ndarray, frame_size: tuple[int, int], game: str,
                           players: Sequence[str], table_mm: tuple[float, float] = DEFAULT_TABLE_MM,
                           source: str = "<calibration>") -> Layout:
    """Project the default table layout into the image and validate it (zones inside the frame, no
    overlaps). Shared by the marker path and, later, by clicking the four table corners."""
    zones_mm, seats_mm = table_layout(game, players, table_mm)
    inv = np.linalg.inv(image_to_table)
    zones = {name: Zone(name, map_points(inv, poly)) for name, poly in zones_mm.items()}
    seats = {p: map_points(inv, seg) for p, seg in seats_mm.items()}
    layout = Layout(frame_size=(int(frame_size[0]), int(frame_size[1])), game=game, players=tuple(players),
                    zones=zones, seats=seats, homography=np.asarray(image_to_table, dtype=np.float64),
                    table_mm=(float(table_mm[0]), float(table_mm[1])), source=source)
    layout.validate()
    return layout


def parse_table_mm(text: str | Sequence[float] | None) -> tuple[float, float]:
    """``"800x600"`` (width x depth, mm, as in ``table=800x600``) -> (800.0, 600.0); None -> the default."""
    if text is None:
        return DEFAULT_TABLE_MM
    if not isinstance(text, str):
        vals = [float(v) for v in text]
    else:
        try:
            vals = [float(v) for v in text.lower().replace("mm", "").split("x")]
        except ValueError:
            vals = []
    if len(vals) != 2 or not all(math.isfinite(v) and v > 0 for v in vals):
        raise LayoutError(f"table size {text!r}: write WIDTHxDEPTH in mm between the marker centres, e.g. 800x600")
    return vals[0], vals[1]


def table_corners_mm(table_mm: tuple[float, float]) -> np.ndarray:
    """Table positions of the marker centres 0-3 (far left, far right, near right, near left)."""
    w, h = map(float, table_mm)
    return np.array([[0.0, 0.0], [w, 0.0], [w, h], [0.0, h]])


def layout_from_markers(frame: np.ndarray, game: str, players: Sequence[str],
                        table_mm: tuple[float, float] = DEFAULT_TABLE_MM, image_name: str = "<frame>") -> Layout:
    """Detect the four corner markers in ``frame`` and build the default layout for ``game`` and ``players``.
    Raises :class:`MarkerError` naming any corner not found, :class:`LayoutError` if the layout is unusable."""
    found = detect_markers(frame)
    _require_all(found, image_name)
    image_pts = np.array([found[m] for m in MARKER_IDS])
    hom = estimate_homography(image_pts, table_corners_mm(table_mm))
    h, w = frame.shape[:2]
    return layout_from_homography(hom.matrix, (w, h), game, players, table_mm, source=image_name)


def marker_sizes_mm(frame: np.ndarray, layout: Layout) -> dict[int, float]:
    """Each marker's mean side in table mm through the layout's homography: it should match the printed size
    (60 mm by default). A clearly different value means the table size given, or the print scale, is wrong."""
    if layout.homography is None:
        raise LayoutError(f"{layout.source}: the layout has no table homography")
    out = {}
    for mid, pts in detect_marker_corners(frame).items():
        t = map_points(layout.homography, pts)
        out[mid] = float(np.mean(np.linalg.norm(t - np.roll(t, -1, axis=0), axis=1)))
    return out


def calibrate_image(image_path: str | Path, game: str, players: Sequence[str], out_path: str | Path,
                    table_mm: tuple[float, float] = DEFAULT_TABLE_MM) -> tuple[Layout, str]:
    """The ``tablecam calibrate`` command's work: read the image, build the layout from its markers, save it.
    Returns the layout and a one-paragraph summary for the user; errors are :class:`LayoutError`."""
    frame = cv2.imread(str(image_path), cv2.IMREAD_COLOR)
    if frame is None:
        raise LayoutError(f"{image_path}: cannot read the image (missing file or not an image)")
    layout = layout_from_markers(frame, game, players, table_mm, image_name=str(image_path))
    layout.save(out_path)
    sizes = marker_sizes_mm(frame, layout)
    h, w = frame.shape[:2]
    summary = (f"{out_path}: {game} layout for {', '.join(players)} (clockwise from the near edge) on a "
               f"{table_mm[0]:g}x{table_mm[1]:g} mm table, {w}x{h} frame, zones: {', '.join(layout.zones)}; "
               f"markers measure {', '.join(f'{m}: {s:.0f}' for m, s in sorted(sizes.items()))} mm "
               f"(printed {DEFAULT_MARKER_MM:g} mm; if far off, check table=WIDTHxDEPTH)")
    return layout, summary
