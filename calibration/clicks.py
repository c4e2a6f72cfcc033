"""Calibration without markers: the four corners of the play area, clicked on a frame or given as pixels.

The corners are taken in the order of the markers (``calibration.markers.table_corners_mm``): far left, far
right, near right, near left, as the camera sees the table with the first player's seat at the near edge. From
them the same default layout as the marker path is projected into the image (:func:`layout_from_corners`).

:class:`CornerPicker` is the clicking itself, apart from any window: points in, undo, a preview of the layout
once four are in. :func:`click_corners` shows it in an OpenCV window; it needs an OpenCV built with a GUI and a
display, and says so clearly when there is none (then ``corners=`` does the same job by hand).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np

from calibration.homography import estimate_homography
from calibration.layout import Layout, LayoutError, draw_layout
from calibration.markers import DEFAULT_TABLE_MM, layout_from_homography, table_corners_mm

CORNER_NAMES = ("far left", "far right", "near right", "near left")


def parse_corners(text: str | Sequence) -> np.ndarray:
    """``"x,y;x,y;x,y;x,y"`` (pixels, far left first, then clockwise) or a sequence of four pairs -> (4, 2)."""
    try:
        if isinstance(text, str):
            pts = [[float(v) for v in p.split(",")] for p in text.replace(" ", "").strip(";").split(";")]
        else:
            pts = [[float(v) for v in p] for p in text]
        arr = np.asarray(pts, np.float64)
    except (ValueError, TypeError):
        arr = np.zeros(0)
    if arr.shape != (4, 2) or not np.isfinite(arr).all():
        raise LayoutError(f"corners={text!r}: give four x,y pixel pairs separated by ';' "
                          f"({', '.join(CORNER_NAMES)}), e.g. corners=210,95;1070,90;1190,650;95,660")
    return arr


def layout_from_corners(corners_px: np.ndarray | Sequence, frame_size: tuple[int, int], game: str,
                        players: Sequence[str], table_mm: tuple[float, float] = DEFAULT_TABLE_MM,
                        source: str = "<clicked corners>") -> Layout:
    """The default layout for ``game`` from the play area's four corners in the image (far left, far right,
    near right, near left). Corners outside the frame, crossed or in a line are refused with the reason."""
    pts = parse_corners(corners_px) if isinstance(corners_px, str) else np.asarray(corners_px, np.float64)
    if pts.shape != (4, 2):
        raise LayoutError(f"{source}: need four corners, got {len(pts)}")
    w, h = frame_size
    for name, (x, y) in zip(CORNER_NAMES, pts, strict=True):
        if not (0 <= x < w and 0 <= y < h):
            raise LayoutError(f"{source}: the {name} corner ({x:.0f}, {y:.0f}) is outside the {w}x{h} frame")
    # the four must go round the table clockwise in the image (far left -> far right -> near right -> near left)
    def turn(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> float:
        (ux, uy), (vx, vy) = b - a, c - b
        return float(ux * vy - uy * vx)

    cross = [turn(pts[i], pts[(i + 1) % 4], pts[(i + 2) % 4]) for i in range(4)]
    if not (all(c > 0 for c in cross) or all(c < 0 for c in cross)):
        raise LayoutError(f"{source}: the corners do not go round the table in order ({', '.join(CORNER_NAMES)}); "
                          f"they cross or three are in a line")
    if all(c < 0 for c in cross):
        raise LayoutError(f"{source}: the corners go round anticlockwise; give them as {', '.join(CORNER_NAMES)} "
                          f"(the first player sits at the near edge, at the bottom of the image)")
    hom = estimate_homography(pts, table_corners_mm(table_mm))
    return layout_from_homography(hom.matrix, (w, h), game, players, table_mm, source=source)


@dataclass
class CornerPicker:
    """The state of clicking four corners on ``frame``: :meth:`click`, :meth:`undo`, :meth:`view`."""

    frame: np.ndarray
    game: str
    players: Sequence[str]
    table_mm: tuple[float, float] = DEFAULT_TABLE_MM
    points: list[tuple[float, float]] = field(default_factory=list)
    error: str | None = None
    layout: Layout | None = None

    def click(self, x: float, y: float) -> None:
        if len(self.points) < 4:
            self.points.append((float(x), float(y)))
            self._update()

    def undo(self) -> None:
        if self.points:
            self.points.pop()
            self._update()

    def _update(self) -> None:
        self.layout, self.error = None, None
        if len(self.points) == 4:
            h, w = self.frame.shape[:2]
            try:
                self.layout = layout_from_corners(self.points, (w, h), self.game, self.players, self.table_mm)
            except LayoutError as e:
                self.error = str(e)

    @property
    def prompt(self) -> str:
        if len(self.points) < 4:
            return f"click the {CORNER_NAMES[len(self.points)]} corner of the play area (Backspace: undo, Esc: quit)"
        if self.error:
            return "Backspace: undo; " + self.error.split(": ", 1)[-1]
        return "Enter: save this layout; Backspace: undo; Esc: quit"

    def view(self) -> np.ndarray:
        """The frame with the clicked corners, the layout once it is valid, and the prompt."""
        img = draw_layout(self.frame.copy(), self.layout) if self.layout is not None else self.frame.copy()
        for i, (x, y) in enumerate(self.points):
            cv2.circle(img, (int(round(x)), int(round(y))), 6, (0, 255, 255), 2, cv2.LINE_AA)
            cv2.putText(img, str(i + 1), (int(x) + 8, int(y) - 8), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (0, 255, 255), 2)
        if len(self.points) > 1:
            cv2.polylines(img, [np.round(np.array(self.points)).astype(np.int32)], len(self.points) == 4,
                          (0, 255, 255), 1, cv2.LINE_AA)
        cv2.rectangle(img, (0, 0), (img.shape[1], 30), (0, 0, 0), -1)
        cv2.putText(img, self.prompt[:140], (8, 21), cv2.FONT_HERSHEY_SIMPLEX, 0.55, (255, 255, 255), 1, cv2.LINE_AA)
        return img


def window_open(title: str) -> bool:
    """Whether the OpenCV window ``title`` is still shown (the user may have closed it)."""
    try:
        return cv2.getWindowProperty(title, cv2.WND_PROP_VISIBLE) >= 1
    except cv2.error:  # Qt: the window is gone
        return False


class NoWindow(RuntimeError):
    """No window can be shown here: OpenCV without a GUI, or no display."""


def gui_available() -> str | None:
    """None when an OpenCV window can be opened here, else why not."""
    info = cv2.getBuildInformation()
    gui = next((line.split(":", 1)[1].strip() for line in info.splitlines() if line.strip().startswith("GUI:")), "")
    if not gui or gui.upper() == "NONE":
        return "this OpenCV has no GUI (opencv-python-headless)"
    if os.name == "posix" and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
                                   or os.environ.get("QT_QPA_PLATFORM")):
        return "there is no display (DISPLAY is not set)"
    return None


def click_corners(frame: np.ndarray, game: str, players: Sequence[str],
                  table_mm: tuple[float, float] = DEFAULT_TABLE_MM, window: str = "tablecam calibrate") -> Layout:
    """Show ``frame``; the user clicks the four corners and presses Enter. Returns the layout; raises
    :class:`NoWindow` when no window can be shown and ``KeyboardInterrupt`` when the user quits with Esc."""
    why = gui_available()
    if why:
        raise NoWindow(f"cannot open a window to click in: {why}; give the corners as "
                       f"corners=x,y;x,y;x,y;x,y ({', '.join(CORNER_NAMES)}) instead")
    picker = CornerPicker(frame, game, players, table_mm)

    def on_mouse(event: int, x: int, y: int, _flags: int, _param: object) -> None:
        if event == cv2.EVENT_LBUTTONDOWN:
            picker.click(x, y)

    try:
        cv2.namedWindow(window, cv2.WINDOW_NORMAL)
        cv2.setMouseCallback(window, on_mouse)
        while True:
            cv2.imshow(window, picker.view())
            key = cv2.waitKey(30) & 0xFF
            if key == 27:
                raise KeyboardInterrupt
            if key in (8, 127):
                picker.undo()
            if key in (13, 10) and picker.layout is not None:
                return picker.layout
            if not window_open(window):
                raise KeyboardInterrupt
    except cv2.error as e:
        raise NoWindow(f"cannot open a window to click in: {e}") from None
    finally:
        with contextlib.suppress(cv2.error):
            cv2.destroyWindow(window)
