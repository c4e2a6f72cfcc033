"""Calibration: layout files and their checks, zone membership, homography, marker sheet and detection,
and the automatic layout on a synthetic tilted camera frame with a known homography."""

from __future__ import annotations

import math
import struct
from pathlib import Path

import cv2
import numpy as np
import pytest
import yaml

from calibration.homography import (
    HomographyError,
    estimate_homography,
    image_to_table,
    map_points,
    table_to_image,
    top_down,
    top_down_matrix,
)
from calibration.layout import Layout, LayoutError, Zone, draw_layout, required_zones
from calibration.markers import (
    CORNER_NAMES,
    MarkerError,
    calibrate_image,
    detect_markers,
    layout_from_markers,
    marker_sizes_mm,
    parse_table_mm,
    sheet_image,
    table_corners_mm,
    table_layout,
    write_sheet,
)
from engine.events import GAMES

FRAME = (1280, 720)
TABLE = (800.0, 600.0)
KNOWN_POINT_MM = (250.0, 400.0)  # a red dot is drawn here on the synthetic table


def corners_mm(table_mm: tuple[float, float]) -> np.ndarray:
    """The documented convention, written out independently of the code under test: marker 0 far left at
    the origin, 1 far right, 2 near right, 3 near left (y grows towards the first player)."""
    w, h = table_mm
    return np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=float)


# ---- a hand-written layout ------------------------------------------------------------------------------

def square(x: float, y: float, s: float = 100.0) -> list[list[float]]:
    return [[x, y], [x + s, y], [x + s, y + s], [x, y + s]]


def snap_dict() -> dict:
    return {
        "version": 1,
        "frame": {"width": 640, "height": 480},
        "game": "snap",
        "players": ["A", "B"],
        "zones": {"pile:A": square(100, 300), "pile:B": square(100, 50), "pot": square(300, 200)},
        "seats": {"A": [[100, 479], [500, 479]], "B": [[100, 0], [500, 0]]},
    }


def write(tmp_path: Path, data: dict, name: str = "layout.yaml") -> Path:
    p = tmp_path / name
    p.write_text(yaml.safe_dump(data), encoding="utf-8")
    return p


def load_error(tmp_path: Path, data: dict) -> str:
    path = write(tmp_path, data)
    with pytest.raises(LayoutError) as e:
        Layout.load(path)
    msg = str(e.value)
    assert str(path) in msg, msg  # every message names the file
    return msg


def test_round_trip(tmp_path: Path) -> None:
    data = snap_dict()
    data["table"] = {"width_mm": 800.0, "height_mm": 600.0,
                     "homography": [[1.25, 0.0, 3.0], [0.1, 1.25, 0.0], [0.0, 0.0005, 1.0]]}
    lay = Layout.load(write(tmp_path, data))
    out = tmp_path / "again.yaml"
    lay.save(out)
    again = Layout.load(out)
    assert again.game == "snap" and again.players == ("A", "B") and again.frame_size == (640, 480)
    assert list(again.zones) == list(lay.zones)
    for name in lay.zones:
        np.testing.assert_allclose(again.zones[name].polygon, lay.zones[name].polygon)
    for p in lay.seats:
        np.testing.assert_allclose(again.seats[p], lay.seats[p])
    np.testing.assert_allclose(again.homography, lay.homography)
    assert again.table_mm == (800.0, 600.0)
    assert yaml.safe_load(out.read_text())["version"] == 1


@pytest.mark.parametrize(("change", "names", "reason"), [
    (lambda d: d["zones"].__setitem__("middle", square(400, 350, 50)), "'middle'", "unknown zone name"),
    (lambda d: d["zones"].__setitem__("pile:Z", square(400, 350, 50)), "'pile:Z'", "unknown player 'Z'"),
    (lambda d: d["zones"].__setitem__("col:Q:2", square(400, 350, 50)), "'col:Q:2'", "unknown player 'Q'"),
    (lambda d: d["zones"].__setitem__("pot", [[300, 200], [400, 200]]), "'pot'", "at least 3 points"),
    (lambda d: d["zones"].__setitem__("pot", [[300, 200], [400, 300], [400, 200], [300, 300]]), "'pot'",
     "self-intersecting"),
    (lambda d: d["zones"].__setitem__("pot", [[300, 200], [350, 250], [400, 300]]), "'pot'", "zero area"),
    (lambda d: d["zones"].__setitem__("pot", square(600, 200)), "'pot'", "outside the 640x480 frame"),
    (lambda d: d["zones"].__setitem__("pot", square(150, 330)), "'pile:A' and 'pot'", "overlap"),
    (lambda d: d["seats"].pop("B"), "'B'", "seat for player 'B' is missing"),
    (lambda d: d["seats"].__setitem__("C", [[0, 10]]), "'C'", "unknown player"),
    (lambda d: d["seats"].__setitem__("B", [[100, -5]]), "'B'", "outside the 640x480 frame"),
    (lambda d: d["zones"].pop("pile:B"), "'pile:B'", "is missing"),
    (lambda d: d.__setitem__("game", "poker"), "'poker'", "unknown game"),
    (lambda d: d.__setitem__("version", 7), "version 7", "unsupported"),
])
def test_validation_errors(tmp_path: Path, change, names: str, reason: str) -> None:
    data = snap_dict()
    Layout.from_dict(snap_dict())  # the base is valid: each error below comes from its one change
    change(data)
    msg = load_error(tmp_path, data)
    assert names in msg and reason in msg, msg


def test_touching_zones_are_not_overlapping(tmp_path: Path) -> None:
    data = snap_dict()
    data["zones"]["pot"] = square(200, 300)  # shares pile:A's right edge
    Layout.load(write(tmp_path, data))


def test_concave_overlap_found(tmp_path: Path) -> None:
    data = snap_dict()
    data["zones"]["pot"] = [[150, 320], [400, 320], [400, 450], [350, 450], [350, 370], [150, 370]]  # an L
    msg = load_error(tmp_path, data)
    assert "'pile:A' and 'pot'" in msg and "overlap" in msg


@pytest.mark.parametrize(("game", "players", "zones"), [
    ("slapjack", ["A", "B"], ["center"]),
    ("cheat", ["A", "B", "C"], ["center"]),
    ("speed", ["A", "B"], ["left", "right"]),
    ("spit", ["A", "B"], ["left", "right"] + [f"col:{p}:{k}" for p in "AB" for k in range(1, 6)]),
    ("paijie", ["A", "B", "C"], ["row:S", "row:H", "row:D", "row:C"]),
])
def test_required_zones_missing(tmp_path: Path, game: str, players: list[str], zones: list[str]) -> None:
    assert required_zones(game, players) == zones
    data = {"version": 1, "frame": {"width": 640, "height": 480}, "game": game, "players": players,
            "zones": {"pot": square(10, 10, 20)}, "seats": {p: [[0, 10 * i]] for i, p in enumerate(players)}}
    msg = load_error(tmp_path, data)
    assert f"zone {zones[0]!r} is missing" in msg and game in msg, msg


def test_two_player_game_with_three(tmp_path: Path) -> None:
    data = {"version": 1, "frame": {"width": 640, "height": 480}, "game": "speed", "players": ["A", "B", "C"],
            "zones": {"left": square(10, 10), "right": square(200, 10)},
            "seats": {p: [[0, 10 * i]] for i, p in enumerate("ABC")}}
    assert "exactly two players" in load_error(tmp_path, data)


def test_unreadable_files(tmp_path: Path) -> None:
    with pytest.raises(LayoutError, match="cannot read layout file"):
        Layout.load(tmp_path / "nope.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("zones: [unclosed\n")
    with pytest.raises(LayoutError, match="not valid YAML at line"):
        Layout.load(bad)


def test_check_frame(tmp_path: Path) -> None:
    path = write(tmp_path, snap_dict())
    lay = Layout.load(path)
    lay.check_frame(640, 480)
    with pytest.raises(LayoutError) as e:
        lay.check_frame(1280, 720)
    msg = str(e.value)
    assert str(path) in msg and "640x480" in msg and "1280x720" in msg


def test_contains_known_points() -> None:
    sq = Zone("center", np.array(square(100, 100), dtype=float))
    pts = np.array([[150, 150], [99, 150], [201, 150], [150, 50], [101, 199], [0, 0]])
    assert sq.contains(pts).tolist() == [True, False, False, False, True, False]
    ell = Zone("center", np.array([[0, 0], [100, 0], [100, 40], [40, 40], [40, 100], [0, 100]], dtype=float))
    assert ell.contains([[20, 80], [80, 20], [80, 80], [39, 41], [41, 41]]).tolist() == [
        True, True, False, True, False]
    assert ell.contains(np.empty((0, 2))).shape == (0,)
    rng = np.random.default_rng(1)
    many = rng.uniform(-10, 110, (5000, 2))
    inside = ell.contains(many)
    expected = np.array([cv2.pointPolygonTest(ell.polygon.astype(np.float32), (float(x), float(y)), False) > 0
                         for x, y in many])
    assert (inside == expected).mean() > 0.999  # only points on an edge may differ


def test_zone_of_and_seat_of() -> None:
    lay = Layout.from_dict(snap_dict())
    assert lay.zone_of((150, 350)) == "pile:A"
    assert lay.zone_of((350, 250)) == "pot"
    assert lay.zone_of((600, 10)) is None
    assert lay.zones_of(np.array([[150, 100], [5, 5]])) == ["pile:B", None]
    assert lay.seat_of((620, 470)) == "A"  # beyond the end of A's segment, still nearest to it
    assert lay.seat_of((300, 30)) == "B"


# ---- homography ---------------------------------------------------------------------------------------------

def test_homography_both_ways() -> None:
    true = np.array([[0.9, 0.2, 30.0], [-0.1, 1.1, 12.0], [0.0004, 0.0009, 1.0]])
    src = np.array([[0, 0], [800, 0], [800, 600], [0, 600], [400, 300], [100, 500]], dtype=float)
    dst = map_points(true, src)
    h4 = estimate_homography(src[:4], dst[:4])
    np.testing.assert_allclose(h4.matrix, true, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(map_points(h4.inverse, dst), src, atol=1e-6)
    noisy = dst + np.random.default_rng(0).normal(0, 0.5, dst.shape)
    h6 = estimate_homography(src, noisy)
    assert h6.n_points == 6 and 0.05 < h6.rms < 1.5 and h6.max_error >= h6.rms


def test_homography_refuses_degenerate_points() -> None:
    with pytest.raises(HomographyError, match="at least 4"):
        estimate_homography([[0, 0], [1, 0], [0, 1]], [[0, 0], [1, 0], [0, 1]])
    with pytest.raises(HomographyError, match="degenerate"):
        estimate_homography([[0, 0], [1, 1], [2, 2], [3, 0]], [[0, 0], [1, 0], [1, 1], [0, 1]])


# ---- marker sheet -------------------------------------------------------------------------------------------

def test_sheet(tmp_path: Path) -> None:
    path = write_sheet(tmp_path / "sheet.png")
    data = path.read_bytes()
    i = data.index(b"pHYs")
    ppm_x, ppm_y, unit = struct.unpack(">IIB", data[i + 4:i + 13])
    assert unit == 1 and round(ppm_x * 0.0254) == 300 == round(ppm_y * 0.0254)
    img = cv2.imread(str(path), cv2.IMREAD_GRAYSCALE)
    assert img.shape == (3508, 2480)  # A4 at 300 dpi
    found = detect_markers(img)
    assert sorted(found) == [0, 1, 2, 3]
    # the sheet mirrors the table: 0 top left, 1 top right, 2 bottom right, 3 bottom left
    assert found[0][0] < found[1][0] and found[0][1] < found[3][1] and found[2][0] > found[3][0]
    black = np.count_nonzero(img[770:890, 590:710] < 128)  # inside marker 0 (60 mm = 709 px square)
    assert 0 < black < 120 * 120


# ---- a synthetic camera frame ----------------------------------------------------------------------------

def camera_homography(table_mm: tuple[float, float], tilt_deg: float = 30.0, roll_deg: float = 8.0,
                      frame: tuple[int, int] = FRAME) -> np.ndarray:
    """Table mm -> frame pixels for a pinhole camera tilted ``tilt_deg`` from looking straight down."""
    w, h = table_mm
    f, dist = 900.0, 1150.0
    k = np.array([[f, 0, frame[0] / 2], [0, f, frame[1] / 2], [0, 0, 1]])
    t, r = -math.radians(tilt_deg), math.radians(roll_deg)  # the near edge is nearer the camera
    rx = np.array([[1, 0, 0], [0, math.cos(t), -math.sin(t)], [0, math.sin(t), math.cos(t)]])
    rz = np.array([[math.cos(r), -math.sin(r), 0], [math.sin(r), math.cos(r), 0], [0, 0, 1]])
    rot = rx @ rz
    centre = np.array([[1, 0, -w / 2], [0, 1, -h / 2], [0, 0, 1]])
    m = k @ np.column_stack([rot[:, 0], rot[:, 1], [0, 0, dist]]) @ centre
    return m / m[2, 2]


def synthetic_frame(table_mm: tuple[float, float] = TABLE, tilt_deg: float = 30.0, hide: tuple[int, ...] = (),
                    seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """A textured table with the sheet's markers on its corners, seen through a known homography.
    Returns (frame BGR, table mm -> frame pixels)."""
    rng = np.random.default_rng(seed)
    s, margin = 2.0, 70.0  # canvas px per mm; room round the table for the markers' paper
    w, h = table_mm
    cw, ch = int((w + 2 * margin) * s), int((h + 2 * margin) * s)
    noise = cv2.GaussianBlur(rng.uniform(0, 255, (ch, cw)).astype(np.float32), (0, 0), 3)
    canvas = np.empty((ch, cw, 3), np.uint8)
    wood = np.clip(noise * 0.5 + 40, 0, 255)
    canvas[..., 0], canvas[..., 1], canvas[..., 2] = wood * 0.5, wood * 0.8, wood  # brown surround
    x0, y0 = int(margin * s), int(margin * s)
    felt = np.clip(noise[y0:y0 + int(h * s), x0:x0 + int(w * s)] * 0.4 + 50, 0, 255)
    canvas[y0:y0 + int(h * s), x0:x0 + int(w * s)] = np.dstack([felt * 0.6, felt * 1.6, felt * 0.5]).clip(0, 255)
    # table mm -> canvas pixel (pixel centres at integers, so a block of pixels is centred on its point)
    to_canvas = np.array([[s, 0, margin * s - 0.5], [0, s, margin * s - 0.5], [0, 0, 1]])
    sheet = sheet_image(dpi=int(round(s * 25.4)))  # the printed markers, 2 px/mm
    side, quiet = int(round(60 * s)), int(round(10 * s))
    sheet_found = {m: np.array(c) for m, c in detect_markers(sheet).items()}
    for mid, (cx, cy) in zip(range(4), map_points(to_canvas, corners_mm(table_mm)), strict=True):
        if mid in hide:
            continue
        sx, sy = (int(round(v + 0.5)) - side // 2 - quiet for v in sheet_found[mid])
        px, py = int(round(cx + 0.5)) - side // 2 - quiet, int(round(cy + 0.5)) - side // 2 - quiet
        patch = sheet[sy:sy + side + 2 * quiet, sx:sx + side + 2 * quiet]
        canvas[py:py + patch.shape[0], px:px + patch.shape[1]] = patch[..., None]
    kx, ky = map_points(to_canvas, [KNOWN_POINT_MM])[0]
    cv2.circle(canvas, (int(round(kx * 16)), int(round(ky * 16))), int(6 * s * 16), (0, 0, 255), -1, cv2.LINE_AA,
               shift=4)
    table_to_frame = camera_homography(table_mm, tilt_deg)
    canvas_to_frame = table_to_frame @ np.linalg.inv(to_canvas)
    background = cv2.GaussianBlur(rng.uniform(60, 120, (FRAME[1], FRAME[0], 3)).astype(np.uint8), (0, 0), 2)
    frame = cv2.warpPerspective(canvas, canvas_to_frame, FRAME, dst=background, flags=cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_TRANSPARENT)
    return frame, table_to_frame


@pytest.fixture(scope="module")
def scene() -> tuple[np.ndarray, np.ndarray]:
    return synthetic_frame()


def test_synthetic_camera_is_tilted(scene) -> None:
    _, m = scene
    corners = map_points(m, corners_mm(TABLE))
    far, near = np.linalg.norm(corners[1] - corners[0]), np.linalg.norm(corners[2] - corners[3])
    assert near > 1.2 * far  # real perspective, not an affine map
    n = np.linalg.inv(np.array([[900, 0, 640], [0, 900, 360], [0, 0, 1]])) @ m
    normal = np.cross(n[:, 0], n[:, 1])
    assert 25 < math.degrees(math.acos(abs(normal[2]) / np.linalg.norm(normal))) < 35


def test_markers_found_within_2px(scene) -> None:
    frame, m = scene
    found = detect_markers(frame)
    assert sorted(found) == [0, 1, 2, 3]
    truth = map_points(m, corners_mm(TABLE))
    np.testing.assert_array_equal(table_corners_mm(TABLE), corners_mm(TABLE))
    err = np.linalg.norm(np.array([found[i] for i in range(4)]) - truth, axis=1)
    assert err.max() < 2.0, err


def test_soft_steep_frame_still_found() -> None:
    frame, m = synthetic_frame(tilt_deg=45, seed=5)
    soft = cv2.GaussianBlur(frame, (0, 0), 2)  # a webcam slightly out of focus
    found = detect_markers(soft)
    assert sorted(found) == [0, 1, 2, 3]
    err = np.linalg.norm(np.array([found[i] for i in range(4)]) - map_points(m, corners_mm(TABLE)), axis=1)
    assert err.max() < 2.0, err


def test_duplicate_marker_refused() -> None:
    frame, _ = synthetic_frame(seed=6)
    sheet = sheet_image(dpi=51)
    patch = sheet[60:220, 30:190]  # marker 0 with its white border, cut out of a small sheet
    assert detect_markers(patch).keys() == {0}
    twice = frame.copy()
    twice[40:160, 1060:1180] = cv2.cvtColor(cv2.resize(patch, (120, 120), interpolation=cv2.INTER_AREA),
                                            cv2.COLOR_GRAY2BGR)
    assert detect_markers(frame).keys() == {0, 1, 2, 3}
    with pytest.raises(MarkerError, match="marker 0 .*seen twice"):
        detect_markers(twice)


def cases() -> list[tuple[str, int]]:
    return [(g, n) for g in GAMES for n in (2, 3, 4) if n == 2 or g not in ("speed", "spit")]


@pytest.mark.parametrize(("game", "n"), cases())
def test_layout_from_markers(scene, tmp_path: Path, game: str, n: int) -> None:
    frame, m = scene
    players = ["Ann", "Bob", "Cy", "Di"][:n]
    lay = layout_from_markers(frame, game, players, table_mm=TABLE)
    assert lay.frame_size == FRAME
    assert set(required_zones(game, players)) <= set(lay.zones)
    w, h = FRAME
    for z in lay.zones.values():
        assert z.polygon.min() >= 0 and np.all(z.polygon.max(axis=0) <= [w, h]), z.name
    # the file it would write loads and validates again
    path = tmp_path / "auto.yaml"
    lay.save(path)
    Layout.load(path).check_frame(w, h)
    # each zone's image polygon is the table design seen through the true camera (within 2 px)
    zones_mm, seats_mm = table_layout(game, players, TABLE)
    for name, poly in zones_mm.items():
        assert np.abs(lay.zones[name].polygon - map_points(m, poly)).max() < 2.0, name
    # a point in each zone (its table centre) is found in that zone and no other
    for name, poly in zones_mm.items():
        assert lay.zone_of(map_points(m, [poly.mean(axis=0)])[0]) == name
    # an arm entering at the middle of the near edge is the first player's; the far edge's middle is not
    near = map_points(m, [[TABLE[0] / 2, TABLE[1]]])[0]
    assert lay.seat_of(near) == players[0]
    far = map_points(m, [[TABLE[0] / 2, 0.0]])[0]
    assert lay.seat_of(far) != players[0]


def test_seats_go_clockwise() -> None:
    _, seats = table_layout("cheat", ["A", "B", "C", "D"], TABLE)
    mid = {p: s.mean(axis=0) for p, s in seats.items()}
    # seen from above with y towards the first player: near (A), left (B), far (C), right (D)
    assert mid["A"][1] == TABLE[1] and mid["B"][0] == 0 and mid["C"][1] == 0 and mid["D"][0] == TABLE[0]
    _, seats3 = table_layout("cheat", ["A", "B", "C"], TABLE)
    mid3 = {p: np.round(s.mean(axis=0), 6).tolist() for p, s in seats3.items()}
    assert mid3 == {"A": [400, 600], "B": [0, 300], "C": [800, 300]}  # near, left, right: edge middles


def test_spit_columns_from_each_players_left() -> None:
    zones, _ = table_layout("spit", ["A", "B"], TABLE)
    ax = [zones[f"col:A:{k}"].mean(axis=0)[0] for k in range(1, 6)]
    bx = [zones[f"col:B:{k}"].mean(axis=0)[0] for k in range(1, 6)]
    assert ax == sorted(ax) and bx == sorted(bx, reverse=True)  # A faces the far edge, B faces A


def test_parse_table_mm() -> None:
    assert parse_table_mm("800x600") == (800.0, 600.0) == parse_table_mm("800X600mm")
    assert parse_table_mm(None) == TABLE and parse_table_mm([900, 700]) == (900.0, 700.0)
    for bad in ("800", "axb", "800x0", "1x2x3"):
        with pytest.raises(LayoutError, match="WIDTHxDEPTH"):
            parse_table_mm(bad)


def test_table_too_small() -> None:
    with pytest.raises(LayoutError, match="too small for the default spit layout"):
        table_layout("spit", ["A", "B"], (300.0, 300.0))


def test_missing_markers_named() -> None:
    frame, _ = synthetic_frame(hide=(1, 3), seed=3)
    with pytest.raises(MarkerError) as e:
        layout_from_markers(frame, "slapjack", ["A", "B"], image_name="cam.png")
    msg = str(e.value)
    assert "cam.png" in msg and f"1 ({CORNER_NAMES[1]})" in msg and f"3 ({CORNER_NAMES[3]})" in msg
    assert "0 (" not in msg and "found: 0, 2" in msg


def test_top_down_puts_known_point_at_its_pixel(scene) -> None:
    frame, m = scene
    lay = layout_from_markers(frame, "slapjack", ["A", "B"], table_mm=TABLE)
    for ppm in (1.0, 1.5):
        view = top_down(frame, lay, px_per_mm=ppm)
        assert view.shape[:2] == (int(TABLE[1] * ppm) + 1, int(TABLE[0] * ppm) + 1)
        b, g, r = (view[..., i].astype(int) for i in range(3))
        red = (r > 150) & (g < 80) & (b < 80)
        ys, xs = np.nonzero(red)
        assert len(xs) > 50
        assert abs(xs.mean() - KNOWN_POINT_MM[0] * ppm) < 2 and abs(ys.mean() - KNOWN_POINT_MM[1] * ppm) < 2
    np.testing.assert_allclose(image_to_table(lay, table_to_image(lay, [KNOWN_POINT_MM])), [KNOWN_POINT_MM])
    assert np.allclose(map_points(top_down_matrix(lay, 2.0, 10.0), table_to_image(lay, [[0, 0]])), [[20, 20]])


def test_calibrate_image_and_picture(scene, tmp_path: Path) -> None:
    frame, _ = scene
    img = tmp_path / "cam.png"
    cv2.imwrite(str(img), frame)
    lay, summary = calibrate_image(img, "snap", ["A", "B", "C", "D"], tmp_path / "layout.yaml", TABLE)
    assert Layout.load(tmp_path / "layout.yaml").zones.keys() == lay.zones.keys()
    assert "pile:D" in summary
    sizes = marker_sizes_mm(frame, lay)
    assert all(abs(v - 60.0) < 3.0 for v in sizes.values()), sizes  # the printed 60 mm, seen through H
    pic = draw_layout(frame, lay)
    assert pic.shape == frame.shape and np.count_nonzero(np.any(pic != frame, axis=2)) > 1000
    with pytest.raises(LayoutError, match="cannot read the image"):
        calibrate_image(tmp_path / "none.png", "snap", ["A", "B"], tmp_path / "x.yaml")
