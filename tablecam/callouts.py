"""The callout queue and its policy, the mixer that turns it into samples, and an offline renderer.

A verdict is only worth saying while it is news: a callout that cannot start before its deadline is
dropped, never spoken late; an urgent ruling (snap, slap won, false slap ...) goes first, cuts a playing
ordinary sentence short and makes the ordinary sentences still waiting obsolete. The queue is pure logic
driven by the clock value it is given, so the same code runs on a simulated clock (``render``, tests) and
inside the real-time audio callback (``tablecam.audio_out.Player``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from engine.verdicts import Verdict
from tablecam.speech import SAMPLE_RATE, Speech, chime, phrase_for, tick, write_wav


@dataclass(slots=True)
class Policy:
    """Callout settings. Delays are from submission to the first sample: later than that, it is dropped."""

    urgent_delay: float = 0.6     # an urgent ruling heard later than this is confusing, not helpful
    normal_delay: float = 1.5
    tick_delay: float = 0.15      # a play's tick is only meaningful right at the play
    fade_s: float = 0.012         # a cut sentence fades out this fast (no click)
    gap_s: float = 0.03           # silence between an urgent callout's chime and its words
    mute: bool = False            # record what would be said, play nothing
    lang: str = "en"              # "en" or "zh" (espeak-ng's cmn voice)
    earcons: bool = True


@dataclass(slots=True, eq=False)
class Callout:
    """One thing to say (or tick), with what happened to it: the sidecar line of ``audio_out``."""

    seq: int
    text: str
    kind: str
    urgent: bool
    sound: str                    # "speech" | "tick"
    voice: str
    submitted: float
    deadline: float
    verdict_t: float
    status: str = "queued"        # queued | playing | done | cut | dropped | muted
    reason: str | None = None
    started: float | None = None
    ended: float | None = None
    start_sample: int | None = None
    end_sample: int | None = None
    audio: np.ndarray | None = field(default=None, repr=False)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"seq": self.seq, "text": self.text, "kind": self.kind, "urgent": self.urgent,
                             "sound": self.sound, "voice": self.voice, "verdict_t": round(self.verdict_t, 6),
                             "submitted": round(self.submitted, 6), "deadline": round(self.deadline, 6),
                             "status": self.status}
        for k in ("started", "ended"):
            v = getattr(self, k)
            if v is not None:
                d[k] = round(v, 6)
        if self.start_sample is not None:
            d["start_sample"] = self.start_sample
        if self.end_sample is not None:
            d["end_sample"] = self.end_sample
        if self.started is not None:
            d["latency_ms"] = round((self.started - self.submitted) * 1000, 2)
        if self.status == "dropped":
            d["dropped"] = True
        if self.status == "cut":
            d["cut"] = True
        if self.reason:
            d["reason"] = self.reason
        return d


class CalloutQueue:
    """What to say next. No threads, no clock of its own: every call takes ``now``.

    Rules: urgent callouts first (FIFO among them), then ordinary ones (FIFO). A callout whose deadline has
    passed when it could start is dropped. A new urgent callout drops every ordinary callout still queued
    (they describe a table the urgent ruling has just changed) and asks the player to cut a playing
    ordinary one (``should_cut``). A playing urgent callout is never cut. Muted: nothing is queued; the
    callout is recorded as ``muted`` with what would have been said.
    """

    def __init__(self, policy: Policy | None = None) -> None:
        self.policy = policy or Policy()
        self.queued: list[Callout] = []
        self.current: Callout | None = None
        self.history: list[Callout] = []
        self._finished: list[Callout] = []
        self._seq = 0

    def make(self, verdict: Verdict, now: float, text: str | None = None) -> Callout | None:
        """The callout for a verdict (not queued, no number yet); None when there is nothing to hear (muted tick)."""
        p = self.policy
        if verdict.voice:
            voice, say = phrase_for(verdict, p.lang, text)
            sound = "speech"
            delay = p.urgent_delay if verdict.urgent else p.normal_delay
        else:
            if p.mute:
                return None
            voice, say, sound, delay = "", text or verdict.say, "tick", p.tick_delay
        return Callout(0, say, verdict.kind, verdict.urgent and sound == "speech", sound, voice,
                       now, now + delay, verdict.t)

    def submit(self, verdict: Verdict, now: float, text: str | None = None,
               audio: np.ndarray | None = None) -> Callout | None:
        """Queue a verdict's callout at ``now`` (see the class rules); returns it, or None if silent."""
        c = self.make(verdict, now, text)
        if c is None:
            return None
        self._seq += 1
        c.seq, c.audio = self._seq, audio
        self.history.append(c)
        if self.policy.mute:
            c.status, c.reason = "muted", "mute"
            self._finished.append(c)
            return c
        if c.urgent:
            keep = []
            for q in self.queued:
                if q.urgent:
                    keep.append(q)
                else:
                    self._drop(q, f"obsoleted by urgent #{c.seq} ({c.kind})")
            self.queued = keep
        self.queued.append(c)
        return c

    def _drop(self, c: Callout, reason: str) -> None:
        c.status, c.reason = "dropped", reason
        self._finished.append(c)

    def expire(self, now: float) -> None:
        """Drop every queued callout that can no longer start by its deadline."""
        keep = []
        for q in self.queued:
            if now > q.deadline + 1e-9:
                self._drop(q, f"stale: not started within {1000 * (q.deadline - q.submitted):.0f} ms")
            else:
                keep.append(q)
        self.queued = keep

    def next(self, now: float) -> Callout | None:
        """The callout to start at ``now`` (marked playing), or None. Only call when nothing is playing."""
        assert self.current is None, "finish() the playing callout first"
        self.expire(now)
        if not self.queued:
            return None
        pick = next((q for q in self.queued if q.urgent), self.queued[0])
        self.queued.remove(pick)
        pick.status, pick.started = "playing", now
        self.current = pick
        return pick

    def should_cut(self) -> bool:
        """True while an ordinary callout plays and an urgent one waits: the player fades it out."""
        return (self.current is not None and not self.current.urgent
                and any(q.urgent for q in self.queued))

    def finish(self, now: float, cut: bool = False) -> None:
        """The playing callout ended at ``now`` (``cut``: faded out early for an urgent one)."""
        c = self.current
        if c is None:
            return
        c.status, c.ended = ("cut", now) if cut else ("done", now)
        if cut:
            c.reason = "pre-empted by an urgent callout"
        self.current = None
        self._finished.append(c)

    def drop_all(self, reason: str) -> None:
        """Drop everything still queued (the player is stopping)."""
        for q in self.queued:
            self._drop(q, reason)
        self.queued = []

    def pop_finished(self) -> list[Callout]:
        """Callouts that reached a final state since the last call (for the sidecar writer)."""
        out, self._finished = self._finished, []
        return out

    @property
    def idle(self) -> bool:
        return self.current is None and not self.queued


class Mixer:
    """Pulls callouts from a queue and writes their samples block by block; stamps start/end times.

    ``fill(out, t0)`` is all the audio callback does: ``t0`` is the time (queue clock) at which the block's
    first sample is heard, so a callout's ``started`` is the time of its first sample.
    """

    def __init__(self, queue: CalloutQueue, speech: Speech | None, rate: int = SAMPLE_RATE) -> None:
        self.queue, self.speech, self.rate = queue, speech, rate
        self.samples = 0                     # samples written so far (the WAV position)
        self._pos = 0
        self._fade_left: int | None = None
        self._chime = chime(rate)
        self._tick = tick(rate)

    def build(self, c: Callout) -> np.ndarray:
        """The callout's samples: (chime + gap +) speech, or the tick. Synthesizes if not cached."""
        if c.sound == "tick":
            return self._tick
        if self.speech is None:
            raise RuntimeError("a speech callout needs a Speech")
        words = self.speech.synth(c.text, c.voice)
        if c.urgent and self.queue.policy.earcons:
            gap = np.zeros(int(self.queue.policy.gap_s * self.rate), np.float32)
            return np.concatenate([self._chime, gap, words])
        return words

    def audio_for(self, c: Callout) -> np.ndarray:
        """The callout's samples, built here only if the submitter did not attach them."""
        if c.audio is None:
            c.audio = self.build(c)
        return c.audio

    def fill(self, out: np.ndarray, t0: float) -> None:
        """Write ``len(out)`` samples heard from ``t0`` on (silence where nothing plays)."""
        frames, pos, q = len(out), 0, self.queue
        while pos < frames:
            t = t0 + pos / self.rate
            c = q.current
            if c is None:
                c = q.next(t)
                if c is None:
                    out[pos:] = 0.0
                    break
                self.audio_for(c)
                c.start_sample = self.samples + pos
                self._pos, self._fade_left = 0, None
            audio = c.audio
            assert audio is not None
            if self._fade_left is None and q.should_cut():
                self._fade_left = min(int(q.policy.fade_s * self.rate), len(audio) - self._pos)
            remain = len(audio) - self._pos if self._fade_left is None else self._fade_left
            n = min(frames - pos, remain)
            chunk = audio[self._pos:self._pos + n]
            if self._fade_left is not None:
                total = max(1, int(q.policy.fade_s * self.rate))
                done = total - self._fade_left
                gain = 1.0 - (np.arange(done, done + n, dtype=np.float32) + 1) / total
                chunk = chunk * np.clip(gain, 0.0, 1.0)
                self._fade_left -= n
            out[pos:pos + n] = chunk
            self._pos += n
            pos += n
            ended = self._pos >= len(audio) or self._fade_left == 0
            if ended:
                c.end_sample = self.samples + pos
                q.finish(t0 + pos / self.rate, cut=self._fade_left == 0 and self._pos < len(audio))
                self._fade_left = None
        self.samples += frames


@dataclass(slots=True)
class Rendering:
    """An offline rendering: the samples from ``t0`` on and every callout with its fate."""

    samples: np.ndarray
    callouts: list[Callout]
    rate: int = SAMPLE_RATE
    t0: float = 0.0

    def save(self, wav_path: str | Path) -> None:
        """The WAV and its ``.jsonl`` sidecar, exactly as the live player writes them."""
        write_wav(wav_path, self.samples, self.rate)
        with open(f"{wav_path}.jsonl", "w", encoding="utf-8") as f:
            for c in sorted(self.callouts, key=lambda c: c.seq):
                f.write(json.dumps(c.to_dict(), ensure_ascii=False) + "\n")


def render(verdicts: Iterable[Verdict | tuple[float, Verdict]], speech: Speech | None,
           policy: Policy | None = None, t0: float = 0.0, end: float | None = None,
           block: int = 128, rate: int = SAMPLE_RATE) -> Rendering:
    """Play verdicts on a simulated clock: each is submitted at ``v.t`` (or the paired time).

    Blocks are split at submission times, so a callout submitted while nothing plays starts on the very
    sample of its submission: deterministic, and the real player differs only by its block and latency.
    """
    subs = sorted(((v.t, v) if isinstance(v, Verdict) else v for v in verdicts), key=lambda s: s[0])
    queue = CalloutQueue(policy)
    mixer = Mixer(queue, speech, rate)
    chunks: list[np.ndarray] = []
    i, n = 0, 0
    while True:
        t = t0 + n / rate
        while i < len(subs) and subs[i][0] <= t + 0.5 / rate:
            queue.submit(subs[i][1], subs[i][0])
            i += 1
        if i >= len(subs) and queue.idle and (end is None or t >= end):
            break
        size = block
        if i < len(subs):
            size = max(1, min(block, math.ceil((subs[i][0] - t0) * rate - 1e-9) - n))
        if end is not None and queue.idle and i >= len(subs):
            size = max(1, min(size, math.ceil((end - t0) * rate) - n))
        buf = np.zeros(size, np.float32)
        mixer.fill(buf, t)
        chunks.append(buf)
        n += size
    queue.pop_finished()
    samples = np.concatenate(chunks) if chunks else np.zeros(0, np.float32)
    return Rendering(samples, list(queue.history), rate, t0)
