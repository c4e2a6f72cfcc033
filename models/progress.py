"""One progress line for the long jobs (a synthetic dataset, a rendered game, an audit), on stderr.

On a terminal it is a bar redrawn in place. Anywhere else (a log file, a pipe, CI, ``nohup``) a redrawn bar is a
carriage return per update on one endless line: an hour of video audited wrote 7,200 of them. There it is a plain
line now and then instead (each tenth of the job, or every half minute of a job of unknown length), and a last one
at the end, so the log reads as lines a person can follow."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO

REDRAW_S = 0.25  # on a terminal, the bar is redrawn at most this often
PLAIN_STEPS = 10  # elsewhere, a line each time another tenth of the job is done
PLAIN_EVERY_S = 30.0  # ... or, where the job's length is unknown, this often
BAR = 30  # the bar's width in characters


class Progress:
    """``label done/total [####....] rate unit/s note ETA m:ss``: :meth:`update` as work is done, :meth:`close` at the
    end. ``total`` None: a job of unknown length (no bar, no ETA). ``tty`` None: whether ``stream`` is a terminal."""

    def __init__(self, total: int | None, label: str, unit: str = "items", stream: TextIO | None = None,
                 enabled: bool = True, tty: bool | None = None, clock: Callable[[], float] = time.perf_counter):
        self.total, self.label, self.unit, self.enabled = total, label, unit, enabled
        self.stream = stream if stream is not None else sys.stderr
        if tty is None:
            isatty = getattr(self.stream, "isatty", None)
            tty = bool(isatty()) if callable(isatty) else False
        self.tty, self.clock = tty, clock
        self.done, self.note = 0, ""
        self.t0 = clock()
        self._drawn_at = -float("inf")  # when the bar was last drawn (terminal) or a line written (elsewhere)
        self._step = 0  # elsewhere: the last tenth of the job a line was written for
        self._lined: tuple[int, str] | None = None  # elsewhere: (done, note) of the last line written

    def update(self, n: int = 1, note: str = "") -> None:
        """``n`` more done; ``note``: said after the rate (the audit's speed against real time)."""
        self.set(self.done + n, note)

    def set(self, done: int, note: str = "") -> None:
        """``done`` in all (the audit counts frames as the video says)."""
        self.done, self.note = done, note
        if not self.enabled:
            return
        now = self.clock()
        if self.tty:
            if now - self._drawn_at >= REDRAW_S or self._finished():
                self._draw(now)
            return
        if self.total:
            step = min(self.done, self.total) * PLAIN_STEPS // self.total
            if step > self._step:
                self._step = step
                self._line(now)
        elif now - self._drawn_at >= PLAIN_EVERY_S:
            self._line(now)

    def close(self, note: str | None = None, done: int | None = None) -> None:
        """The job is over (or stopped): the last figures (``done`` in all, ``note``: as :meth:`update` takes them,
        where given), and the line ended."""
        if note is not None:
            self.note = note
        if done is not None:
            self.done = done
        if not self.enabled:
            return
        now = self.clock()
        if self.tty:
            self._draw(now)
            self.stream.write("\n")
        elif self._lined != (self.done, self.note):  # (not the line just written as the job got to its end)
            self._line(now)
        self.stream.flush()

    def _finished(self) -> bool:
        return bool(self.total) and self.done >= (self.total or 0)

    def _text(self, now: float) -> str:
        elapsed = max(now - self.t0, 1e-9)
        rate = self.done / elapsed
        parts = [f"{self.label} {self.done}/{self.total}" if self.total else f"{self.label} {self.done} {self.unit}"]
        if self.total:
            filled = int(BAR * min(self.done, self.total) / self.total)
            parts.append(f"[{'#' * filled}{'.' * (BAR - filled)}]")
        parts.append(f"{rate:.1f} {self.unit}/s{self.note}")
        if self.total and rate > 0 and self.done < self.total:
            eta = (self.total - self.done) / rate
            parts.append(f"ETA {int(eta) // 60}:{int(eta) % 60:02d}")
        return " ".join(parts)

    def _draw(self, now: float) -> None:
        self._drawn_at = now
        self.stream.write(f"\r{self._text(now)} ")
        self.stream.flush()

    def _line(self, now: float) -> None:
        self._drawn_at = now
        self._lined = (self.done, self.note)
        self.stream.write(self._text(now) + "\n")
        self.stream.flush()
