"""Spoken verdicts made offline with espeak-ng, cached per phrase, and the short earcons.

Synthesis runs a process (about 10-70 ms a phrase), far too slow for the 100 ms frame-to-sound budget, so
every phrase is made once, kept in memory and on disk (keyed by voice and text), and ``prepare`` warms the
cache with a game's usual sentences before play starts. All audio here is float32 mono at ``SAMPLE_RATE``.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
import threading
import wave
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from engine.verdicts import Verdict

#: one fixed rate for speech, earcons, the mixer and the WAV: espeak-ng's own, so nothing is resampled
SAMPLE_RATE = 22050

#: espeak-ng voice per ``lang`` setting
VOICES: dict[str, str] = {"en": "en", "zh": "cmn"}


class SpeechError(RuntimeError):
    """Synthesis cannot run (espeak-ng missing or failing); the message says how to fix it."""


def default_cache_dir() -> Path:
    """``$XDG_CACHE_HOME/tablecam/speech`` (or ``~/.cache/...``): phrases survive between games."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "tablecam" / "speech"


def read_wav(data: bytes | str | Path) -> tuple[np.ndarray, int]:
    """A PCM WAV (file or bytes) as float32 mono in [-1, 1] and its rate (stdlib ``wave``, no soundfile)."""
    import io

    src: Any = io.BytesIO(data) if isinstance(data, bytes) else str(data)
    with wave.open(src, "rb") as w:
        rate, ch, width, n = w.getframerate(), w.getnchannels(), w.getsampwidth(), w.getnframes()
        raw = w.readframes(n)
    if width == 2:
        x = np.frombuffer(raw, dtype="<i2").astype(np.float32) / 32768.0
    elif width == 1:
        x = (np.frombuffer(raw, dtype=np.uint8).astype(np.float32) - 128.0) / 128.0
    elif width == 4:
        x = np.frombuffer(raw, dtype="<i4").astype(np.float32) / 2147483648.0
    else:
        raise ValueError(f"unsupported WAV sample width {width}")
    if ch > 1:
        x = x.reshape(-1, ch).mean(axis=1)
    return x.astype(np.float32), rate


def write_wav(path: str | Path, samples: np.ndarray, rate: int = SAMPLE_RATE) -> None:
    """Float samples to a 16-bit mono WAV (clipped, not wrapped)."""
    pcm = (np.clip(samples, -1.0, 1.0) * 32767.0).round().astype("<i2")
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(pcm.tobytes())


def resample(x: np.ndarray, src: int, dst: int) -> np.ndarray:
    """Linear-interpolation resampling: enough for speech at the rates espeak-ng makes."""
    if src == dst or len(x) == 0:
        return x.astype(np.float32)
    n = int(round(len(x) * dst / src))
    t = np.arange(n, dtype=np.float64) * (src / dst)
    return np.interp(t, np.arange(len(x)), x).astype(np.float32)


def trim(x: np.ndarray, rate: int = SAMPLE_RATE, threshold: float = 0.01, pad_s: float = 0.005) -> np.ndarray:
    """Cut espeak-ng's leading/trailing silence so a callout's first sample is already sound (latency)."""
    loud = np.flatnonzero(np.abs(x) > threshold)
    if len(loud) == 0:
        return x[:0]
    pad = int(pad_s * rate)
    return x[max(0, loud[0] - pad): loud[-1] + pad + 1]


# ---------------------------------------------------------------------------------------------- earcons

def chime(rate: int = SAMPLE_RATE, dur_s: float = 0.07, amp: float = 0.45) -> np.ndarray:
    """Two-tone rising chime (E6 then B6) played before urgent callouts: it is heard before the words."""
    half = int(dur_s * rate / 2)
    out = []
    for f in (1318.5, 1975.5):
        t = np.arange(half) / rate
        env = np.sin(np.pi * np.arange(half) / half) ** 0.5  # quick rise and fall, no click
        out.append(amp * env * np.sin(2 * np.pi * f * t))
    return np.concatenate(out).astype(np.float32)


def tick(rate: int = SAMPLE_RATE, dur_s: float = 0.03, amp: float = 0.3) -> np.ndarray:
    """A soft 30 ms tick for plays "signalled by a short sound, not speech" (``voice=False``)."""
    n = int(dur_s * rate)
    t = np.arange(n) / rate
    env = np.exp(-t / (dur_s / 5)) * np.minimum(1.0, np.arange(n) / max(1, int(0.001 * rate)))
    return (amp * env * np.sin(2 * np.pi * 2200.0 * t)).astype(np.float32)


# ------------------------------------------------------------------------------------------ translation

#: Mandarin sentences by verdict kind, filled from the verdict's fields (player, to, cards). A kind missing
#: here falls back to the English sentence read by the English voice, never to garbled Chinese.
ZH: dict[str, str] = {
    "snap": "抢到了！{player}拿走{cards}张牌",
    "snap_pot": "抢奖池！{player}拿走奖池",
    "pot_won": "{player}赢得奖池",
    "false_snap": "喊错了！{player}罚牌",
    "missed_snap": "错过了抢牌",
    "slap_won": "拍中了！{player}拿走{cards}张牌",
    "false_slap": "拍错了！{player}罚一张牌",
    "false_slap_to": "拍错了！{player}给{to}一张牌",
    "unresolved_tie": "同时拍下，无法判定",
    "illegal_play": "违规出牌",
    "both_stuck": "双方都无牌可出",
    "challenge_true": "质疑成立，{player}收下牌堆",
    "challenge_false": "质疑失败，{player}收下牌堆",
    "late_challenge": "质疑太晚了",
    "draw_penalty": "{player}罚摸牌",
    "eliminated": "{player}出局",
    "win": "{player}赢了！",
    "draw": "平局",
}


def zh_text(v: Verdict) -> str | None:
    """The Mandarin sentence of a verdict, or None when this kind has no translation yet."""
    key = "false_slap_to" if v.kind == "false_slap" and v.to else v.kind
    tpl = ZH.get(key)
    if tpl is None:
        return None
    fields = {"player": v.player or "", "to": v.to or "", "cards": v.cards if v.cards is not None else ""}
    if any("{" + k + "}" in tpl and fields[k] == "" for k in fields):
        return None
    return tpl.format(**fields)


def phrase_for(v: Verdict, lang: str = "en", text: str | None = None) -> tuple[str, str]:
    """(voice, text) to speak a verdict in ``lang``: a caller's own text wins, then the table above."""
    if lang == "en" or lang not in VOICES:
        return VOICES["en"], text or v.say
    if text:
        return VOICES[lang], text
    zh = zh_text(v) if lang == "zh" else None
    return (VOICES[lang], zh) if zh else (VOICES["en"], v.say)


# ---------------------------------------------------------------------------------------------- speech

class Speech:
    """espeak-ng phrases as float32 arrays, cached in memory and in ``cache_dir`` (None: memory only).

    Thread-safe: the live loop may ``prepare`` while the player reads. ``timings`` keeps the seconds each
    cold synthesis took, for the latency report.
    """

    def __init__(self, cache_dir: str | Path | None = None, rate: int = SAMPLE_RATE, speed: int = 175,
                 exe: str | None = None) -> None:
        self.rate, self.speed = rate, speed
        self.exe = exe or shutil.which("espeak-ng") or shutil.which("espeak")
        self.cache_dir = Path(cache_dir) if cache_dir is not None else None
        self._mem: dict[tuple[str, str], np.ndarray] = {}
        self._lock = threading.Lock()
        self.timings: list[float] = []

    def _key(self, voice: str, text: str) -> str:
        return hashlib.sha1(f"{voice}|{self.speed}|{self.rate}|{text}".encode()).hexdigest()[:20]

    def cached(self, text: str, voice: str = "en") -> np.ndarray | None:
        """The phrase if it is in memory: what the audio callback may use without waiting."""
        return self._mem.get((voice, text))

    def synth(self, text: str, voice: str = "en") -> np.ndarray:
        """The phrase's samples: memory, then disk, then espeak-ng (and both caches filled)."""
        key = (voice, text)
        hit = self._mem.get(key)
        if hit is not None:
            return hit
        path = self.cache_dir / f"{voice}-{self._key(voice, text)}.wav" if self.cache_dir else None
        if path is not None and path.exists():
            x, r = read_wav(path)
            x = resample(x, r, self.rate)
        else:
            import time

            t0 = time.perf_counter()
            x = trim(self._espeak(text, voice), self.rate)
            self.timings.append(time.perf_counter() - t0)
            if path is not None:
                path.parent.mkdir(parents=True, exist_ok=True)
                tmp = path.with_suffix(f".{os.getpid()}.tmp")
                write_wav(tmp, x, self.rate)
                os.replace(tmp, path)
        with self._lock:
            self._mem[key] = x
        return x

    def prepare(self, phrases: Iterable[str | tuple[str, str]], voice: str = "en") -> None:
        """Synthesize phrases (text, or (voice, text)) ahead of play so callouts never wait for espeak-ng."""
        for p in phrases:
            v, t = (p if isinstance(p, tuple) else (voice, p))
            self.synth(t, v)

    def _espeak(self, text: str, voice: str) -> np.ndarray:
        if not self.exe:
            raise SpeechError("espeak-ng is not installed: callouts need it (Debian/Ubuntu: "
                              "apt-get install -y espeak-ng), or run with mute=true")
        with tempfile.NamedTemporaryFile(suffix=".wav") as f:
            r = subprocess.run([self.exe, "-v", voice, "-s", str(self.speed), "-w", f.name, "--", text],
                               capture_output=True, text=True, timeout=20)
            if r.returncode != 0:
                raise SpeechError(f"espeak-ng failed for voice {voice!r}: {r.stderr.strip() or r.returncode}")
            x, rate = read_wav(f.name)
        return resample(x, rate, self.rate)


def warmup_phrases(game: str, players: list[str], lang: str = "en", games: int = 60,
                   extra: Iterable[str] = (), limit: int = 1000) -> list[tuple[str, str]]:
    """(voice, text) of what the referee is likely to say in ``game`` with these ``players``, most frequent first:
    the voiced verdicts of ``games`` simulated games (engine.sim), after the ``extra`` phrases (trigger calls).
    The live loop synthesizes them while the game starts, so that no callout waits for espeak-ng."""
    from collections import Counter

    from engine.replay import replay_to_end
    from engine.sim import simulate

    counts: Counter[tuple[str, str]] = Counter()
    for seed in range(games):
        header, events = simulate(game, list(players), seed=seed)
        _, outputs = replay_to_end(header, events)
        for o in outputs:
            if isinstance(o, Verdict) and o.voice and o.say:
                counts[phrase_for(o, lang)] += 1
    first = [phrase_for(Verdict(0.0, "trigger", "", t), lang) for t in extra]
    rest = [p for p, _ in counts.most_common() if p not in first]
    return (first + rest)[:limit]
