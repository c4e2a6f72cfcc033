"""Slap onsets from a live microphone, on the live loop's clock.

:class:`StreamingOnsets` is the pure part: blocks of samples in, each with the time of its first sample, and
:func:`vision.audio.impact_onsets` run on a sliding window of the last ``window_s`` seconds every ``every_s``.
An onset is reported once, when it lies more than ``guard_s`` before the newest sample (its refinement needs the
samples after it); the batch detector on the whole recording finds the same onsets (tested).

Clock: a block's first sample is dated by the arrival of its callback on ``time.monotonic()`` minus the block's
duration and the stream's input latency, and the sample count carries the clock from there (a sound card's clock
is steadier than callback arrival); the anchor is moved only when the two drift apart by more than ``resync_s``.
The live loop subtracts its start time, so onsets land on the frames' clock; the layout's ``latency.audio_s``
(``tablecam calibrate-latency``) corrects what is left.

:class:`Microphone` opens the sound card with sounddevice. No input device is a :class:`MicrophoneError` that
says so; the live loop warns and times slaps from the video alone.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from vision.audio import Onset, impact_onsets


class MicrophoneError(RuntimeError):
    """No microphone can be opened (no sound card, no input device, or the device refused)."""


class StreamingOnsets:
    """Impact onsets of a stream fed in blocks; :meth:`feed` returns the onsets that became final."""

    def __init__(self, rate: int, window_s: float = 0.6, every_s: float = 0.04, guard_s: float = 0.03,
                 delay_s: float = 0.0) -> None:
        self.rate = rate
        self.window = int(round(window_s * rate))
        self.every = int(round(every_s * rate))
        self.guard_s = guard_s
        self.delay_s = delay_s
        self._buf = np.zeros(0, np.float32)
        self._t0: float | None = None  # time of _buf[0]
        self._since = 0
        self._last_t = -np.inf

    def feed(self, block: np.ndarray, t_first: float) -> list[Onset]:
        """Append ``block`` (mono float) whose first sample is at ``t_first``; a gap is filled with silence."""
        x = np.asarray(block, np.float32).reshape(-1)
        if self._t0 is None:
            self._t0 = t_first
        else:
            expected = self._t0 + self._buf.size / self.rate
            gap = int(round((t_first - expected) * self.rate))
            if gap > self.rate // 100:  # more than 10 ms lost: start afresh (silence would make the sound's
                self._buf, self._t0 = np.zeros(0, np.float32), t_first  # return look like an impact)
        self._buf = np.concatenate([self._buf, x])
        self._since += x.size
        if self._buf.size > 2 * self.window:
            cut = self._buf.size - self.window
            self._buf = self._buf[cut:]
            self._t0 += cut / self.rate
        if self._since < self.every:
            return []
        self._since = 0
        return self._scan()

    def flush(self) -> list[Onset]:
        """The onsets left in the window when the stream ends."""
        return self._scan(final=True)

    def _scan(self, final: bool = False) -> list[Onset]:
        if self._t0 is None:
            return []
        x = self._buf[-self.window:]
        t0 = self._t0 + (self._buf.size - x.size) / self.rate
        t_end = t0 + x.size / self.rate
        new = []
        for o in impact_onsets(x, self.rate, t0, delay_s=self.delay_s):
            if o.t <= self._last_t + 0.02 or (not final and o.t + self.delay_s > t_end - self.guard_s):
                continue
            if o.t + self.delay_s < t0 + 0.1 * (x.size / self.rate) and not final:
                continue  # at the window's start its local background is not known: it was judged before
            new.append(o)
            self._last_t = o.t
        return new


class Microphone:
    """A sounddevice input stream feeding :class:`StreamingOnsets`; ``on_onset`` gets each onset (on the audio
    thread) with its time on the clock ``clock() - start`` (the live loop's)."""

    def __init__(self, on_onset: Callable[[Onset], None], start: float, delay_s: float = 0.0,
                 device: Any = None, rate: int = 48000, block: int = 480,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.on_onset, self.start_wall, self.clock = on_onset, start, clock
        self.device, self.rate, self.block = device, rate, block
        self.detector = StreamingOnsets(rate, delay_s=delay_s)
        self._stream: Any = None
        self._anchor: float | None = None  # loop time of sample 0
        self._n = 0
        self._lock = threading.Lock()
        self.blocks = 0
        self.bad_blocks = 0  # blocks with NaN or infinite samples, fed as silence
        self.resync_s = 0.05

    def open(self) -> Microphone:
        try:
            import sounddevice as sd
        except OSError as e:  # PortAudio missing
            raise MicrophoneError(f"no microphone: {e}") from None
        try:
            sd.query_devices(self.device, kind="input")
            self._stream = sd.InputStream(samplerate=self.rate, blocksize=self.block, channels=1, dtype="float32",
                                          device=self.device, callback=self._callback)
            self._stream.start()
        except (sd.PortAudioError, ValueError) as e:
            raise MicrophoneError(f"no microphone: {e}") from None
        return self

    def _callback(self, indata: np.ndarray, frames: int, _time_info: Any, _status: Any) -> None:
        latency = float(self._stream.latency) if self._stream is not None else 0.0
        arrived = self.clock() - self.start_wall - latency - frames / self.rate
        with self._lock:
            if self._anchor is None or abs(self._anchor + self._n / self.rate - arrived) > self.resync_s:
                self._anchor = arrived - self._n / self.rate
            t_first = self._anchor + self._n / self.rate
            self._n += frames
            self.blocks += 1
            samples = indata[:, 0]
            if not np.isfinite(samples).all():  # a device that hands over uninitialised memory (ALSA's null
                self.bad_blocks += 1            # capture does) must not make impacts out of it
                samples = np.zeros_like(samples)
            for o in self.detector.feed(samples, t_first):
                self.on_onset(o)

    def close(self) -> None:
        if self._stream is not None:
            try:
                self._stream.stop()
                self._stream.close()
            finally:
                self._stream = None
            with self._lock:
                for o in self.detector.flush():
                    self.on_onset(o)
