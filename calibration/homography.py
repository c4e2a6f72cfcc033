"""Image <-> table homography: the flat table seen at an angle is a projective map of the table in mm.

It lets the layout be *designed* in table millimetres (piles in front of seats, a centre pile at the centre)
and *used* in image pixels, and gives a top-down view where cards have the same size everywhere (for the
detector, for the audit pictures). Table coordinates: origin at marker 0 (the far-left corner seen from the
first player's seat), x to the right along the far edge, y towards the first player, in millimetres.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import combinations

import cv2
import numpy as np

from calibration.layout import Layout, LayoutError


class HomographyError(ValueError):
    """Points that do not define a homography (too few, repeated, three on a line)."""


@dataclass(frozen=True)
class Homography:
    """A fitted 3x3 map ``src -> dst`` and how well it fits the pairs it was fitted on.

    ``rms`` and ``max_error`` are reprojection errors in ``dst`` units (mm for image -> table); with exactly
    four pairs the fit is exact and the error is ~0, so it only means something with five or more."""

    matrix: np.ndarray
    rms: float
    max_error: float
    n_points: int

    @property
    def inverse(self) -> np.ndarray:
        return np.linalg.inv(self.matrix)


def _as_points(pts: np.ndarray | list, what: str) -> np.ndarray:
    arr = np.asarray(pts, dtype=np.float64)
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise HomographyError(f"{what} must be an N x 2 array of points, got shape {arr.shape}")
    return arr


def map_points(matrix: np.ndarray, pts: np.ndarray | list) -> np.ndarray:
    """Apply a 3x3 homography to an N x 2 array (or one point) and return N x 2 (projective divide)."""
    arr = np.asarray(pts, dtype=np.float64).reshape(-1, 2)
    ones = np.ones((len(arr), 1))
    h = np.hstack([arr, ones]) @ np.asarray(matrix, dtype=np.float64).T
    return h[:, :2] / h[:, 2:3]


map_polygon = map_points  # a polygon is its vertices: straight edges stay straight under a homography


def local_scale(matrix: np.ndarray, xy: np.ndarray | list) -> float:
    """How far ``matrix`` stretches its input around the point ``xy``: the square root of the area a unit square
    there covers once mapped (a homography's scale changes across the picture: a table seen at an angle)."""
    x, y = (float(v) for v in np.asarray(xy, dtype=np.float64).reshape(2))
    o, a, b = map_points(matrix, [(x, y), (x + 1.0, y), (x, y + 1.0)])
    (ax, ay), (bx, by) = a - o, b - o
    return math.sqrt(abs(float(ax * by - ay * bx)))


def reprojection_error(matrix: np.ndarray, src: np.ndarray, dst: np.ndarray) -> tuple[float, float]:
    """(rms, max) distance between ``matrix``-mapped ``src`` points and ``dst``, in ``dst`` units."""
    d = np.linalg.norm(map_points(matrix, src) - np.asarray(dst, dtype=np.float64).reshape(-1, 2), axis=1)
    return float(np.sqrt(np.mean(d ** 2))), float(d.max())


def estimate_homography(src: np.ndarray | list, dst: np.ndarray | list) -> Homography:
    """Fit ``src -> dst`` from 4 or more point pairs (exact for 4, least squares beyond) and report the error."""
    s, d = _as_points(src, "source points"), _as_points(dst, "target points")
    if len(s) != len(d):
        raise HomographyError(f"need as many source as target points, got {len(s)} and {len(d)}")
    if len(s) < 4:
        raise HomographyError(f"a homography needs at least 4 point pairs, got {len(s)}")
    for name, pts in (("source", s), ("target", d)):
        if _degenerate(pts):
            raise HomographyError(f"{name} points are degenerate: fewer than 4 of them with no 3 on a line")
    if len(s) == 4:
        m = _exact4(s, d)
    else:
        m, _ = cv2.findHomography(s, d, 0)
    if m is None or not np.all(np.isfinite(m)) or abs(np.linalg.det(m)) < 1e-15:
        raise HomographyError("the point pairs do not define an invertible homography")
    m = m / m[2, 2]
    rms, mx = reprojection_error(m, s, d)
    return Homography(matrix=m, rms=rms, max_error=mx, n_points=len(s))


def _exact4(s: np.ndarray, d: np.ndarray) -> np.ndarray | None:
    """The homography through exactly four pairs, solved in float64 (OpenCV's version works in float32)."""
    a = np.zeros((8, 8))
    b = np.zeros(8)
    for k, ((x, y), (u, v)) in enumerate(zip(s, d, strict=True)):
        a[2 * k] = [x, y, 1, 0, 0, 0, -u * x, -u * y]
        a[2 * k + 1] = [0, 0, 0, x, y, 1, -v * x, -v * y]
        b[2 * k], b[2 * k + 1] = u, v
    try:
        h = np.linalg.solve(a, b)
    except np.linalg.LinAlgError:
        return None
    return np.append(h, 1.0).reshape(3, 3)


def _degenerate(pts: np.ndarray) -> bool:
    """True unless some 4 of the points are in general position (no three collinear)."""
    n = len(pts)
    scale = max(float(np.ptp(pts, axis=0).max()), 1e-9)

    def collinear(a: int, b: int, c: int) -> bool:
        u, v = pts[b] - pts[a], pts[c] - pts[a]
        return abs(u[0] * v[1] - u[1] * v[0]) < 1e-6 * scale * scale

    return not any(not any(collinear(*t) for t in combinations(q, 3)) for q in combinations(range(n), 4))


def _need_homography(layout: Layout) -> np.ndarray:
    if layout.homography is None:
        raise LayoutError(f"{layout.source}: the layout has no table homography (calibrate it from markers)")
    return layout.homography


def image_to_table(layout: Layout, pts: np.ndarray | list) -> np.ndarray:
    """Image pixels -> table mm through the layout's homography."""
    return map_points(_need_homography(layout), pts)


def table_to_image(layout: Layout, pts: np.ndarray | list) -> np.ndarray:
    """Table mm -> image pixels through the inverse of the layout's homography."""
    return map_points(np.linalg.inv(_need_homography(layout)), pts)


def top_down_matrix(layout: Layout, px_per_mm: float = 1.0, margin_mm: float = 0.0) -> np.ndarray:
    """The 3x3 map image pixels -> top-down view pixels: table point (x, y) mm lands on pixel
    ((x + margin) * px_per_mm, (y + margin) * px_per_mm)."""
    s = float(px_per_mm)
    scale = np.array([[s, 0.0, margin_mm * s], [0.0, s, margin_mm * s], [0.0, 0.0, 1.0]])
    return scale @ _need_homography(layout)


def top_down(frame: np.ndarray, layout: Layout, px_per_mm: float = 1.0, margin_mm: float = 0.0) -> np.ndarray:
    """Warp a camera frame into a top-down view of the table (plus ``margin_mm`` around it), where every
    card has the same size and shape wherever it lies."""
    if layout.table_mm is None:
        raise LayoutError(f"{layout.source}: the layout has no table size (table width_mm/height_mm)")
    w_mm, h_mm = layout.table_mm
    size = (int(round((w_mm + 2 * margin_mm) * px_per_mm)) + 1, int(round((h_mm + 2 * margin_mm) * px_per_mm)) + 1)
    m = top_down_matrix(layout, px_per_mm, margin_mm)
    return cv2.warpPerspective(frame, m, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
