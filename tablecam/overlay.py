"""The live window: the camera's view with the zones, what the detector sees, the last verdicts, fps and latency.

:class:`Overlay` draws (pure: a frame in, a picture out); :class:`Window` shows it with OpenCV and tells the live
loop when the user closed it (the window's close button, ``q`` or Esc), which ends the game as Ctrl-C does.
A machine without a GUI or a display gets no window and a one-line warning (``calibration.clicks.gui_available``);
the refereeing goes on headless.
"""

from __future__ import annotations

import contextlib
import time
from collections import deque
from dataclasses import dataclass, field

import cv2
import numpy as np

from calibration.clicks import gui_available, window_open
from calibration.layout import Layout, draw_zones

SHOW_VERDICT_S = 4.0


@dataclass
class Overlay:
    """Draws one frame of the live view at ``width`` pixels wide (the frame is shrunk, never enlarged)."""

    layout: Layout
    width: int = 960
    verdicts: deque = field(default_factory=lambda: deque(maxlen=6))  # (video t, text)
    _times: deque = field(default_factory=lambda: deque(maxlen=30))  # wall times of recent frames

    def verdict(self, t: float, text: str) -> None:
        self.verdicts.append((t, text))

    def draw(self, frame: np.ndarray, t: float, boxes: list[tuple[tuple[float, float, float, float], str]],
             lag_ms: float | None = None, dropped: float | None = None, now: float | None = None) -> np.ndarray:
        """The frame with zones, ``boxes`` (frame pixels, label), the verdicts of the last few seconds and a
        status line: frames per second processed, the lag behind the camera, the share of frames dropped."""
        now = time.monotonic() if now is None else now
        self._times.append(now)
        h, w = frame.shape[:2]
        s = min(1.0, self.width / w)
        img = cv2.resize(frame, (round(w * s), round(h * s)), interpolation=cv2.INTER_AREA) if s < 1 else frame.copy()
        draw_zones(img, self.layout, s)
        for b, label in boxes:
            colour = (255, 160, 60) if label == "hand" else (0, 220, 255)
            p0, p1 = (int(b[0] * s), int(b[1] * s)), (int(b[2] * s), int(b[3] * s))
            cv2.rectangle(img, p0, p1, colour, 1)
            cv2.putText(img, label, (p0[0], max(10, p0[1] - 3)), cv2.FONT_HERSHEY_SIMPLEX, 0.45, colour, 1,
                        cv2.LINE_AA)
        shown = [(tv, text) for tv, text in self.verdicts if t - SHOW_VERDICT_S <= tv <= t + 0.5]
        y = img.shape[0] - 12 - 24 * (len(shown[-3:]) - 1)
        for _, text in shown[-3:]:
            _text(img, text[:80], (10, y), 0.65, (255, 255, 255))
            y += 24
        fps = (len(self._times) - 1) / (self._times[-1] - self._times[0]) if len(self._times) > 1 and \
            self._times[-1] > self._times[0] else 0.0
        status = f"t {t:7.2f} s   {fps:4.1f} fps"
        if lag_ms is not None:
            status += f"   lag {lag_ms:4.0f} ms"
        if dropped is not None:
            status += f"   dropped {dropped:.1%}"
        cv2.rectangle(img, (0, 0), (img.shape[1], 24), (0, 0, 0), -1)
        cv2.putText(img, status, (8, 17), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (200, 255, 200), 1, cv2.LINE_AA)
        return img


def _text(img: np.ndarray, text: str, org: tuple[int, int], scale: float, colour: tuple[int, int, int]) -> None:
    cv2.putText(img, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, (0, 0, 0), 4, cv2.LINE_AA)
    cv2.putText(img, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, colour, 1, cv2.LINE_AA)


class Window:
    """An OpenCV window; :meth:`show` returns False once the user has closed it."""

    def __init__(self, title: str = "tablecam live") -> None:
        why = gui_available()
        if why:
            raise RuntimeError(why)
        self.title = title
        cv2.namedWindow(title, cv2.WINDOW_NORMAL)
        self.open, self._shown = True, False

    def show(self, img: np.ndarray) -> bool:
        if not self.open:
            return False
        if self._shown and not window_open(self.title):  # closed by the user (imshow would open it again)
            self.close()
            return False
        cv2.imshow(self.title, img)
        self._shown = True
        if cv2.waitKey(1) & 0xFF in (27, ord("q")):
            self.close()
        return self.open

    def close(self) -> None:
        if self.open:
            self.open = False
            with contextlib.suppress(cv2.error):
                cv2.destroyWindow(self.title)
