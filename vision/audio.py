"""The audio track on the frames' clock, and impact onsets (slaps on a table) to the millisecond.

Why audio: a slap's time is its CONTACT (RULES.md TM-1). At 30 fps a frame lasts 33 ms, longer than the
20 ms tie window (TM-3); the sound of a hand hitting cards is a broadband click whose start is sharp to
well under a millisecond, so the audio orders two slaps that the frames cannot.

Clock: :func:`read_audio` returns ``t0`` such that sample ``i`` is at ``t0 + i / rate`` on the same clock as
:func:`vision.frames.read_video` (stream timestamps minus the container start time). Gaps in the track
(dropped packets) are filled with silence so that this stays true across the whole file.

Not corrected here: sound needs about 2.9 ms per metre to reach the microphone. Two slaps on the same pile
are delayed alike (the order is right); to compare audio with video, pass ``delay_s`` to
:func:`impact_onsets`.
"""

from __future__ import annotations

import os
import warnings
from typing import Any, NamedTuple

import numpy as np

from vision.frames import VideoDamage, VideoError, _msg, _open, container_start

__all__ = ["AudioTrack", "Onset", "impact_onsets", "load_audio", "onsets_from_file", "read_audio"]


class AudioTrack(NamedTuple):
    """A decoded track: mono float32 ``samples`` in [-1, 1], ``rate`` Hz, ``t0`` seconds of sample 0, and
    ``damage`` when decoding stopped early (the samples before it are kept)."""

    samples: np.ndarray
    rate: int
    t0: float
    damage: VideoDamage | None


class Onset(NamedTuple):
    """One impact: ``t`` contact time (seconds, same clock as the samples' ``t0``), ``strength`` in dB above
    the local background, ``t_err`` seconds of uncertainty (TM-3)."""

    t: float
    strength: float
    t_err: float


def load_audio(path: str | os.PathLike[str], start: float = 0.0, end: float | None = None) -> AudioTrack:
    """Decode the first audio stream of ``path`` (mono mix, native rate) between ``start`` and ``end``
    seconds. Raises :class:`VideoError` when the file cannot be read or has no audio stream."""
    import av

    p = os.fspath(path)
    container = _open(p)
    try:
        if not container.streams.audio:
            raise VideoError(p, "no audio stream in the file")
        st = container.streams.audio[0]
        offset = container_start(container)
        rate = int(st.codec_context.sample_rate or st.rate)
        resampler = av.AudioResampler(format="flt", layout="mono", rate=rate)
        chunks: list[np.ndarray] = []
        t0: float | None = None
        n = 0  # samples placed so far
        damage: VideoDamage | None = None
        first = int(round(start * rate))
        last = int(round(end * rate)) if end is not None else None

        def place(arr: np.ndarray, t: float | None) -> None:
            """Put ``arr`` at its timestamp: pad gaps with zeros, drop overlap, so index stays time."""
            nonlocal t0, n
            if t0 is None:
                t0 = t if t is not None else 0.0
            if t is not None:
                pos = int(round((t - t0) * rate))
                if pos > n + rate // 1000:  # a gap of more than 1 ms: silence keeps the clock
                    chunks.append(np.zeros(pos - n, np.float32))
                    n = pos
                elif pos < n:
                    arr = arr[n - pos:]
            if arr.size:
                chunks.append(arr)
                n += arr.size

        if start > 0:
            container.seek(int((start + offset) / st.time_base), backward=True, stream=st)
        try:
            for pkt in container.demux(st):
                if pkt.is_corrupt:
                    damage = VideoDamage(p, None, (t0 + n / rate) if t0 is not None else None,
                                         "corrupt audio packet")
                    break
                for frame in pkt.decode():
                    t = float(frame.pts * frame.time_base) - offset if frame.pts is not None else None
                    for out in resampler.resample(frame):
                        place(out.to_ndarray().reshape(-1).astype(np.float32, copy=False), t)
                        t = None  # a resampler may split a frame: later pieces follow on
                if last is not None and t0 is not None and t0 * rate + n >= last:
                    break
        except av.FFmpegError as exc:
            damage = VideoDamage(p, None, (t0 + n / rate) if t0 is not None else None,
                                 f"audio decoding stopped: {_msg(exc)}")
        samples = np.concatenate(chunks) if chunks else np.zeros(0, np.float32)
        if t0 is None:
            t0 = 0.0
        # trim to [start, end)
        lo = max(0, first - int(round(t0 * rate))) if start > 0 else 0
        hi = (last - int(round(t0 * rate))) if last is not None else samples.size
        samples = samples[lo:max(lo, hi)]
        return AudioTrack(samples, rate, t0 + lo / rate, damage)
    finally:
        container.close()


def read_audio(path: str | os.PathLike[str], start: float = 0.0,
               end: float | None = None) -> tuple[np.ndarray, int, float]:
    """``(samples float32 mono, rate, t0)`` of ``path``; see :func:`load_audio` (which also returns the
    damage record; here a damaged track warns and returns what decoded)."""
    track = load_audio(path, start, end)
    if track.damage is not None:
        warnings.warn(str(track.damage), RuntimeWarning, stacklevel=2)
    return track.samples, track.rate, track.t0


def _highpass(x: np.ndarray, rate: int, cutoff: float) -> np.ndarray:
    """Windowed-sinc FIR high-pass (linear phase, delay compensated): keeps the click, drops voices' and
    the table's low rumble. Short (about 1 ms) so it smears an attack by well under a millisecond."""
    if cutoff <= 0:
        return x.astype(np.float32, copy=False)
    ntaps = max(15, int(rate / 1000) | 1)  # odd, ~1 ms
    m = np.arange(ntaps) - (ntaps - 1) / 2
    fc = cutoff / rate
    lp = 2 * fc * np.sinc(2 * fc * m) * np.hamming(ntaps)
    lp /= lp.sum()
    h = -lp
    h[(ntaps - 1) // 2] += 1.0
    return np.convolve(x.astype(np.float32, copy=False), h.astype(np.float32), mode="same")


def _local_stats(e: np.ndarray, block: int) -> tuple[np.ndarray, np.ndarray]:
    """Median and MAD of ``e`` per block of ``block`` frames, spread back to every frame. Impacts are rare
    and short, so the median is the background, and it follows a background that changes over a game."""
    nb = max(1, -(-e.size // block))
    med = np.empty(nb)
    mad = np.empty(nb)
    for b in range(nb):
        seg = e[b * block:(b + 1) * block]
        if b == nb - 1 and seg.size < block // 2 and nb > 1:  # a short tail: use the full last block
            seg = e[-block:]
        med[b] = np.median(seg)
        mad[b] = np.median(np.abs(seg - med[b]))
    idx = np.minimum(np.arange(e.size) // block, nb - 1)
    return med[idx], mad[idx]


def impact_onsets(
    samples: np.ndarray,
    rate: int,
    t0: float = 0.0,
    *,
    hop_ms: float = 1.0,
    win_ms: float = 2.0,
    highpass_hz: float = 2000.0,
    k: float = 8.0,
    min_db: float = 10.0,
    rise_db: float = 9.0,
    floor_db: float = -75.0,
    min_gap_ms: float = 6.0,
    frac: float = 0.5,
    delay_s: float = 0.0,
) -> list[Onset]:
    """Sharp impacts in ``samples`` (mono, ``rate`` Hz, sample 0 at ``t0``), as :class:`Onset` in time order.

    How: high-pass at ``highpass_hz``; energy in ``win_ms`` windows every ``hop_ms`` (dB); a frame is a
    candidate when it is above the local background (median + max(k * MAD, ``min_db``), and above
    ``floor_db`` dBFS) AND it rose by ``rise_db`` over the previous ``2 * win_ms`` (so a second slap during
    the first one's ringing still counts, while the ringing itself does not). The onset is then refined to
    the first sample whose 0.25 ms RMS exceeds ``frac`` of the burst's peak (the contact, TM-1), and onsets
    closer than ``min_gap_ms`` to the previous one are dropped (a double trigger on one attack). Two hands a few ms
    apart are two impacts (rendered Snap 3p s11 1.40 s: 9 ms); the rise test, not the gap, keeps one impact's
    ringing and a weaker rattle of the cards from counting twice (24 rendered Slapjack and Snap games and 9 held out:
    at 20 ms, 223 of 243 slaps had an onset of their own; at 6 ms, 231, and no other onset more).
    ``t_err`` = hypot(hop / 2, rise / 2), where rise is the onset-to-peak time: a soft, slow hit is less
    certain than a crack. ``delay_s`` (sound travel, latency) is subtracted from every ``t``.
    """
    x = np.asarray(samples, dtype=np.float32).reshape(-1)
    hop = max(1, int(round(rate * hop_ms / 1000)))
    win = max(hop, int(round(rate * win_ms / 1000)))
    if x.size < win + hop:
        return []
    y = _highpass(x, rate, highpass_hz)
    y2 = y.astype(np.float64) ** 2
    cs = np.concatenate(([0.0], np.cumsum(y2)))
    nfr = (x.size - win) // hop + 1
    starts = np.arange(nfr) * hop
    energy = (cs[starts + win] - cs[starts]) / win
    e = 10 * np.log10(energy + 1e-14)
    med, mad = _local_stats(e, max(1, int(round(1000 / hop_ms))))  # ~1 s blocks
    thr = np.maximum(med + np.maximum(k * mad, min_db), floor_db)
    lag = max(1, int(round(2 * win / hop)))
    prev_min = np.full(nfr, np.inf)
    for d in range(1, lag + 1):  # min over the previous `lag` frames, vectorised
        prev_min[d:] = np.minimum(prev_min[d:], e[:-d])
    prev_min[0] = e[0]
    cand = (e > thr) & (e - prev_min > rise_db)
    idx = np.flatnonzero(cand)
    if idx.size == 0:
        return []
    # groups of candidate frames: a new group starts where the previous candidate is > lag frames away
    group_starts = idx[np.concatenate(([True], np.diff(idx) > lag))]

    # short RMS (~0.25 ms) for the sample-level refinement
    sm = max(1, int(round(rate * 0.00025)))
    rms = np.sqrt(np.convolve(y2, np.ones(sm) / sm, mode="same"))
    peak_span = int(round(rate * 0.005))  # the peak of a click comes within a few ms of its start
    min_gap = min_gap_ms / 1000
    out: list[Onset] = []
    for j in group_starts:
        lo = max(0, int(starts[j]) - hop)  # the window that first crossed holds the attack, or the hop before
        hi = min(x.size, int(starts[j]) + win + peak_span)
        seg = rms[lo:hi]
        p = int(np.argmax(seg))
        peak = float(seg[p])
        if peak <= 0:
            continue
        noise = float(np.sqrt(10 ** (med[j] / 10)))
        level = max(frac * peak, 2.0 * noise)
        above = np.flatnonzero(seg[:p + 1] > level)
        first = int(above[0]) if above.size else p
        s = lo + first
        t = t0 + s / rate - delay_s
        rise = (p - first) / rate
        if out and t - out[-1].t < min_gap:
            continue
        strength = float(e[j:min(nfr, j + lag + 1)].max() - med[j])
        out.append(Onset(t, strength, float(np.hypot(hop / rate / 2, rise / 2))))
    return out


def onsets_from_file(path: str | os.PathLike[str], **kw: Any) -> list[Onset]:
    """:func:`impact_onsets` of a file's audio track, on the frames' clock."""
    samples, rate, t0 = read_audio(path)
    return impact_onsets(samples, rate, t0, **kw)
