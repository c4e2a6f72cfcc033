"""Real-time callouts: a sounddevice callback stream pulling from the callout queue, and the recording.

The output stream is callback-based with a small block (128 samples, 5.8 ms at 22050 Hz), so a submitted
callout starts within about one block: synthesis is never done in the callback (``submit`` makes or finds
the phrase first). With no sound device (``query_devices()`` empty, PortAudio missing or failing) a
one-line warning is printed and a thread keeps the same block timing without sound, so refereeing goes on
and ``audio_out`` is still written. ``audio_out=FILE.wav`` records exactly what was played (16-bit mono)
with a ``FILE.wav.jsonl`` sidecar: one line per callout with submitted/started/ended times or its drop.
"""

from __future__ import annotations

import contextlib
import json
import queue as _queue
import sys
import threading
import time
import wave
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from engine.verdicts import Verdict
from tablecam.callouts import Callout, CalloutQueue, Mixer, Policy
from tablecam.speech import SAMPLE_RATE, VOICES, Speech, SpeechError, default_cache_dir


class Recorder:
    """Writes played blocks and finished callouts from its own thread: the audio callback never does I/O."""

    def __init__(self, path: str | Path, rate: int = SAMPLE_RATE) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._wav = wave.open(str(self.path), "wb")  # noqa: SIM115 - closed in close()
        self._wav.setnchannels(1)
        self._wav.setsampwidth(2)
        self._wav.setframerate(rate)
        self._side = open(f"{self.path}.jsonl", "w", encoding="utf-8")  # noqa: SIM115 - closed in close()
        self._q: _queue.SimpleQueue[tuple[np.ndarray | None, list[Callout]] | None] = _queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name="tablecam-audio-out", daemon=True)
        self._thread.start()

    def push(self, block: np.ndarray | None, finished: list[Callout]) -> None:
        """Hand over one played block (a copy) and the callouts that just ended; returns at once."""
        self._q.put((block, finished))

    def _run(self) -> None:
        while True:
            item = self._q.get()
            if item is None:
                break
            block, finished = item
            if block is not None and len(block):
                self._wav.writeframes((np.clip(block, -1.0, 1.0) * 32767.0).round().astype("<i2").tobytes())
            for c in finished:
                self._side.write(json.dumps(c.to_dict(), ensure_ascii=False) + "\n")
            if finished:
                self._side.flush()

    def close(self) -> None:
        self._q.put(None)
        self._thread.join()
        self._wav.close()
        self._side.close()


def _warn(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


class Player:
    """Speaks verdicts as they come: ``start()``, ``submit(verdict)`` from the live loop, ``stop()``.

    ``clock`` is the live loop's clock (``time.monotonic`` by default); ``submit(v, now)`` takes a time on
    it (default: now) and the sidecar's times are on it too: ``started`` is when the callout's first sample
    reaches the output (the stream's DAC time, mapped to ``clock``). ``backend`` is ``"sounddevice"`` or
    ``"silent"`` (no device: same timing, no sound).
    """

    def __init__(self, speech: Speech | None = None, policy: Policy | None = None,
                 audio_out: str | Path | None = None, *, rate: int = SAMPLE_RATE, blocksize: int = 128,
                 device: int | str | None = None, clock: Callable[[], float] = time.monotonic,
                 warn: Callable[[str], None] = _warn) -> None:
        self.policy = policy or Policy()
        self.speech = speech if speech is not None else (None if self.policy.mute else Speech(default_cache_dir()))
        self.rate, self.blocksize, self.device, self.clock, self._warn = rate, blocksize, device, clock, warn
        self.audio_out = audio_out
        self.queue = CalloutQueue(self.policy)
        self.mixer = Mixer(self.queue, self.speech, rate)
        self.backend: str | None = None
        self.warning: str | None = None
        self.status_flags = 0              # callbacks that reported an underflow/overflow
        self._lock = threading.Lock()
        self._recorder: Recorder | None = None
        self._stream: Any = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._offset = 0.0                 # stream time - clock time
        self._first: float | None = None
        self._written = 0
        self._lead = 0.0

    # ------------------------------------------------------------------------------------------ control
    def start(self) -> Player:
        """Open the output (or the silent fallback) and start pulling callouts."""
        if self.audio_out:
            self._recorder = Recorder(self.audio_out, self.rate)
        try:
            import sounddevice as sd
        except OSError as e:  # PortAudio library missing
            self._fallback(f"PortAudio unavailable ({e})")
            return self
        try:
            sd.query_devices(self.device, kind="output")
            self._stream = sd.OutputStream(samplerate=self.rate, blocksize=self.blocksize, channels=1,
                                           dtype="float32", latency="low", device=self.device,
                                           callback=self._callback)
            self._lead = float(self._stream.latency) + 2 * self.blocksize / self.rate + 0.01
            self._offset = self._stream.time - self.clock()
            self._stream.start()
            self._offset = self._stream.time - self.clock()
            self.backend = "sounddevice"
        except (sd.PortAudioError, ValueError) as e:
            self._stream = None
            self._fallback(f"{e}".strip() or type(e).__name__)
        return self

    def _fallback(self, why: str) -> None:
        self.warning = (f"tablecam: no sound output ({why}); callouts are timed"
                        f"{' and recorded' if self.audio_out else ''} but not heard")
        self._warn(self.warning)
        self.backend = "silent"
        self._thread = threading.Thread(target=self._run_silent, name="tablecam-silent-audio", daemon=True)
        self._thread.start()

    def stop(self, wait: float = 0.0) -> None:
        """Stop the output, after waiting up to ``wait`` s for queued callouts; close the recording.

        What is still queued is recorded as dropped, a callout still playing as cut.
        """
        end = time.monotonic() + wait
        while wait > 0 and time.monotonic() < end:
            with self._lock:
                if self.queue.idle:
                    break
            time.sleep(0.005)
        if self._stream is not None:
            self._stream.stop()
            self._stream.close()
            self._stream = None
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        with self._lock:
            now = self.clock()
            if self.queue.current is not None:
                self.queue.current.end_sample = self.mixer.samples
                self.queue.finish(now, cut=True)
            self.queue.drop_all("player stopped")
            finished = self.queue.pop_finished()
        if self._recorder is not None:
            self._recorder.push(None, finished)
            self._recorder.close()
            self._recorder = None

    def __enter__(self) -> Player:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ------------------------------------------------------------------------------------------- submit
    @classmethod
    def from_settings(cls, mute: bool = False, lang: str = "en", audio_out: str | Path | None = None,
                      **kw: Any) -> Player:
        """The player for ``tablecam live mute=... lang=... audio_out=...`` (other keywords: ``__init__``)."""
        if lang not in VOICES:
            raise ValueError(f"lang={lang!r}: choose one of {', '.join(VOICES)}")
        return cls(policy=Policy(mute=bool(mute), lang=lang), audio_out=audio_out or None, **kw)

    def prepare(self, phrases: list[str] | list[tuple[str, str]]) -> None:
        """Warm the speech cache with a game's sentences: texts (in this policy's language voice) or (voice, text)
        pairs (``tablecam.speech.warmup_phrases``). A phrase espeak-ng cannot make is left for the callout to
        report."""
        if self.speech is not None and not self.policy.mute:
            with contextlib.suppress(SpeechError):
                self.speech.prepare(phrases, VOICES.get(self.policy.lang, "en"))

    def submit(self, verdict: Verdict, now: float | None = None, text: str | None = None) -> Callout | None:
        """Queue a verdict's callout; its phrase is synthesized here (cached: microseconds) if needed."""
        if now is None:
            now = self.clock()
        audio = None
        probe = self.queue.make(verdict, now, text)   # what it will say: pure, touches no queue state
        if probe is not None and not self.policy.mute and (probe.sound == "tick" or self.speech is not None):
            audio = self.mixer.build(probe)   # synthesis (cached: microseconds) here, never in the callback
        with self._lock:
            c = self.queue.submit(verdict, now, text, audio=audio)
            if c is not None and c.status == "muted" and self._recorder is not None:
                self._recorder.push(None, self.queue.pop_finished())
        return c

    @property
    def history(self) -> list[Callout]:
        return list(self.queue.history)

    # -------------------------------------------------------------------------------------------- audio
    def _pull(self, buf: np.ndarray, t0: float) -> None:
        with self._lock:
            # no sample is heard before now: a late thread, or a device reporting its DAC time as the
            # callback time (ALSA null), must not stamp a callout before the submit that got the lock first
            self.mixer.fill(buf, max(t0, self.clock()))
            finished = self.queue.pop_finished()
        if self._recorder is not None:
            self._recorder.push(buf.copy(), finished)

    def _callback(self, outdata: np.ndarray, frames: int, time_info: Any, status: Any) -> None:
        if status:
            self.status_flags += 1
        now = time_info.currentTime or (self.clock() + self._offset)
        if self._first is None:
            self._first = now
        # A device that takes samples faster than real time (ALSA "null") is paced here, so the timing
        # (and the WAV) stays that of a real card; a real device is never ahead by more than its latency.
        ahead = self._first + self._written / self.rate - now
        slept = 0.0
        if ahead > self._lead:
            slept = ahead - self._lead
            time.sleep(slept)
        dac = time_info.outputBufferDacTime or now
        self._pull(outdata[:, 0], dac + slept - self._offset)
        self._written += frames

    def _run_silent(self) -> None:
        start, k = self.clock(), 0
        buf = np.zeros(self.blocksize, np.float32)
        while not self._stop.is_set():
            t0 = start + k * self.blocksize / self.rate
            delay = t0 - self.clock()
            if delay > 0 and self._stop.wait(delay):
                break
            self._pull(buf, t0)
            k += 1
