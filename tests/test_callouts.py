"""Callouts: speech synthesis and cache, the queue policy, the rendered WAV's timing, the null-device player."""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from engine.verdicts import Verdict
from tablecam import speech as speech_mod
from tablecam.callouts import CalloutQueue, Policy, render
from tablecam.speech import SAMPLE_RATE, Speech, SpeechError, phrase_for, read_wav

ROOT = Path(__file__).resolve().parents[1]
HAS_ESPEAK = shutil.which("espeak-ng") is not None
needs_espeak = pytest.mark.skipif(not HAS_ESPEAK, reason="espeak-ng is not installed (apt-get install espeak-ng)")


class FakeSpeech(Speech):
    """Deterministic stand-in for espeak-ng: a tone of 60 ms per character, for the many policy cases."""

    def _espeak(self, text: str, voice: str) -> np.ndarray:
        n = int(0.06 * len(text) * self.rate)
        t = np.arange(n) / self.rate
        return (0.5 * np.sin(2 * np.pi * 300 * t)).astype(np.float32)


def V(t: float, kind: str, say: str, **kw: object) -> Verdict:  # noqa: N802 - reads like the dataclass
    return Verdict(t=t, kind=kind, rule="X-1", say=say, **kw)  # type: ignore[arg-type]


def rms_frames(x: np.ndarray, rate: int, frame_s: float = 0.005) -> np.ndarray:
    fl = int(frame_s * rate)
    n = len(x) // fl
    return np.sqrt(np.mean(x[: n * fl].reshape(n, fl).astype(np.float64) ** 2, axis=1))


def onsets(x: np.ndarray, rate: int, frame_s: float = 0.005, thr: float = 0.02, quiet_s: float = 0.25) -> list[float]:
    """Times where RMS rises above ``thr`` after at least ``quiet_s`` below it (or at the file start)."""
    rms = rms_frames(x, rate, frame_s)
    loud = rms > thr
    q = int(quiet_s / frame_s)
    return [i * frame_s for i in range(len(loud)) if loud[i] and not loud[max(0, i - q):i].any()]


# --------------------------------------------------------------------------------------------- speech

@needs_espeak
def test_speech_english_and_mandarin_are_sound_of_the_right_length(tmp_path: Path) -> None:
    sp = Speech(tmp_path)
    en = sp.synth("Snap, sevens! Ann takes four cards", "en")
    zh = sp.synth("抢到了！七", "cmn")
    for x, lo, hi in ((en, 1.0, 3.5), (zh, 0.4, 2.5)):
        dur = len(x) / SAMPLE_RATE
        assert lo < dur < hi, dur
        assert np.sqrt(np.mean(x**2)) > 0.03          # speech, not silence
        assert np.abs(x[: int(0.02 * SAMPLE_RATE)]).max() > 0.01  # trimmed: sound from the first samples
    assert sp.synth("Snap, sevens! Ann takes four cards", "en") is en   # memory cache
    assert len(list(tmp_path.glob("*.wav"))) == 2                        # disk cache
    cold = Speech(tmp_path, exe="/nonexistent/espeak-ng")               # would fail if it synthesized
    assert np.allclose(cold.synth("抢到了！七", "cmn"), zh, atol=1e-4)


def test_missing_espeak_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(speech_mod.shutil, "which", lambda name: None)
    with pytest.raises(SpeechError, match="apt-get install -y espeak-ng"):
        Speech(tmp_path).synth("hello")


def test_mandarin_sentences_by_kind() -> None:
    v = V(1.0, "false_slap", "False slap: Bob gives Ann a card", player="Bob", to="Ann")
    assert phrase_for(v, "zh") == ("cmn", "拍错了！Bob给Ann一张牌")
    assert phrase_for(v, "zh", "你好") == ("cmn", "你好")
    assert phrase_for(V(1, "effect", "Queen: Ann takes the top card"), "zh") == ("en", "Queen: Ann takes the top card")
    assert phrase_for(v) == ("en", v.say)


def test_earcons_are_short_and_audible() -> None:
    for x, dur in ((speech_mod.chime(), 0.07), (speech_mod.tick(), 0.03)):
        assert abs(len(x) / SAMPLE_RATE - dur) < 0.002
        assert 0.05 < np.abs(x).max() <= 0.5


# ------------------------------------------------------------------------------------- queue policy

def test_stale_callout_is_dropped_never_played() -> None:
    q = CalloutQueue()
    a = q.submit(V(0.0, "illegal_play", "first"), 0.0)
    b = q.submit(V(0.1, "illegal_play", "second"), 0.1)
    assert q.next(0.0) is a
    q.finish(2.0)                                  # a long sentence: b's deadline (1.6) has passed
    assert q.next(2.0) is None
    assert b is not None and b.status == "dropped" and b.started is None and "stale" in (b.reason or "")


def test_urgent_goes_first_and_obsoletes_queued_normal_ones() -> None:
    q = CalloutQueue()
    first = q.submit(V(0.0, "snap", "Snap!"), 0.0)
    assert q.next(0.0) is first
    n1 = q.submit(V(0.1, "illegal_play", "old news"), 0.1)
    u = q.submit(V(0.2, "false_slap", "False slap"), 0.2)
    n2 = q.submit(V(0.3, "illegal_play", "newer"), 0.3)
    assert not q.should_cut()                      # a playing urgent callout is never cut
    assert n1 is not None and n1.status == "dropped" and "obsoleted" in (n1.reason or "")
    q.finish(0.5)
    assert q.next(0.5) is u
    q.finish(0.7)
    assert q.next(0.7) is n2


def test_urgent_preempts_a_playing_normal_callout_with_a_fade() -> None:
    pol = Policy()
    r = render([V(0.2, "illegal_play", "a long ordinary sentence about a play"),
                V(0.5, "slap_won", "Slapjack! Ann takes six cards")], FakeSpeech(None), pol, end=4.0)
    normal, urgent = r.callouts
    assert normal.status == "cut" and urgent.status == "done"
    assert urgent.started is not None and normal.ended is not None
    assert urgent.started - 0.5 <= pol.fade_s + 1e-6
    assert normal.ended == pytest.approx(urgent.started)
    # the fade: the last samples of the cut sentence fall to silence
    cut_end = normal.end_sample
    assert cut_end is not None
    tail = r.samples[cut_end - 20: cut_end]
    assert np.abs(tail).max() < 0.05 < np.abs(r.samples[cut_end - 400: cut_end - 300]).max()


@pytest.mark.parametrize("seed", range(25))
def test_deadline_never_exceeded_and_nothing_overlaps(seed: int) -> None:
    rng = random.Random(seed)
    kinds = ["snap", "false_slap", "illegal_play", "legal_play", "win", "slap_won"]
    t, vs = 0.0, []
    for _ in range(25):
        t += rng.expovariate(2.0)
        k = rng.choice(kinds)
        vs.append(V(t, k, "x" * rng.randint(3, 30), voice=k != "legal_play"))
    pol = Policy()
    r = render(vs, FakeSpeech(None), pol)
    played = [c for c in r.callouts if c.started is not None]
    assert played and all(c.status in {"done", "cut", "dropped"} for c in r.callouts)
    for c in r.callouts:
        if c.started is not None:
            assert c.started <= c.deadline + 1e-9
            assert c.started - c.submitted <= (pol.urgent_delay if c.urgent else
                                               pol.tick_delay if c.sound == "tick" else pol.normal_delay) + 1e-9
        else:
            assert c.status == "dropped"
    played.sort(key=lambda c: c.started or 0)
    for a, b in zip(played, played[1:], strict=False):
        assert a.ended is not None and b.started is not None and a.ended <= b.started + 1e-9
        if a.status == "cut":
            assert b.urgent and not a.urgent


def test_mute_records_but_plays_nothing() -> None:
    vs = [V(0.1, "snap", "Snap, sevens!"), V(0.5, "legal_play", "tick", voice=False), V(1.0, "win", "Ann wins")]
    r = render(vs, FakeSpeech(None), Policy(mute=True), end=2.0)
    assert not np.any(r.samples)
    assert [(c.text, c.status) for c in r.callouts] == [("Snap, sevens!", "muted"), ("Ann wins", "muted")]


def test_voice_false_is_a_tick() -> None:
    r = render([V(0.2, "legal_play", "Ann plays a nine", voice=False)], FakeSpeech(None), end=0.5)
    (c,) = r.callouts
    assert c.sound == "tick" and c.status == "done"
    assert c.ended is not None and c.started is not None and abs(c.ended - c.started - 0.03) < 0.001
    assert np.abs(r.samples).max() > 0.1


# ---------------------------------------------------------------------------------- rendered game WAV

@needs_espeak
def test_scripted_game_wav_has_speech_at_the_scheduled_times(tmp_path: Path) -> None:
    game = [V(0.40, "illegal_play", "Illegal: five on nine"),
            V(3.00, "snap", "Snap, sevens! Ann takes four cards", player="Ann", cards=4),
            V(6.50, "legal_play", "Bob plays a six", voice=False),
            V(7.20, "false_slap", "False slap: Bob gives Ann a card", player="Bob", to="Ann"),
            V(10.80, "win", "Ann wins the game", player="Ann")]
    r = render(game, Speech(tmp_path / "cache"), end=13.0)
    wav = tmp_path / "game.wav"
    r.save(wav)
    x, rate = read_wav(wav)
    assert rate == SAMPLE_RATE and abs(len(x) / rate - 13.0) < 0.01
    side = [json.loads(line) for line in Path(f"{wav}.jsonl").read_text().splitlines()]
    assert [s["status"] for s in side] == ["done"] * 5
    found = onsets(x, rate)
    for v in game:
        assert min(abs(o - v.t) for o in found) <= 0.05, (v.t, found)
    spans = [(s["started"], s["ended"]) for s in side]
    for o in found:                                      # no sound outside a callout
        assert any(a - 0.01 <= o <= b for a, b in spans), (o, spans)
    rms = rms_frames(x, rate)
    assert rms[: int(0.35 / 0.005)].max() < 1e-4         # silence before the first callout


# ------------------------------------------------------------------------- real time: null / no device

PLAYER_SCRIPT = textwrap.dedent("""
    import json, sys, time
    from engine.verdicts import Verdict
    from tablecam.audio_out import Player
    from tablecam.callouts import Policy
    from tablecam.speech import Speech
    out, cache, device = sys.argv[1], sys.argv[2], (sys.argv[3] if len(sys.argv) > 3 else None)
    sp = Speech(cache)
    a, b = "Ann plays a seven", "Snap, sevens! Ann takes four cards"
    sp.prepare([a, b])
    p = Player(sp, Policy(), audio_out=out, device=device).start()
    t0 = time.monotonic()
    p.submit(Verdict(0.0, "illegal_play", "X-1", a))
    time.sleep(1.6)
    p.submit(Verdict(1.6, "snap", "X-1", b))
    p.stop(wait=5.0)
    print(json.dumps({"backend": p.backend, "warning": p.warning, "elapsed": time.monotonic() - t0,
                      "flags": p.status_flags, "t0": t0,
                      "lens": [len(sp.synth(a)), len(sp.synth(b))]}))
""")


def run_player(tmp_path: Path, env: dict[str, str], device: str | None = None) -> tuple[dict, list[dict], np.ndarray]:
    wav = tmp_path / "live.wav"
    args = [sys.executable, "-c", PLAYER_SCRIPT, str(wav), str(tmp_path / "cache")] + ([device] if device else [])
    r = subprocess.run(args, env=env, cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    info = json.loads(r.stdout.strip().splitlines()[-1])
    info["stderr"] = r.stderr
    side = [json.loads(line) for line in Path(f"{wav}.jsonl").read_text().splitlines()]
    x, rate = read_wav(wav)
    assert rate == SAMPLE_RATE
    return info, side, x


def check_live(info: dict, side: list[dict], x: np.ndarray) -> None:
    assert [s["status"] for s in side] == ["done", "done"]
    a, b = side
    assert info["t0"] <= a["submitted"] <= a["started"] < a["ended"] <= b["submitted"] <= b["started"] < b["ended"]
    for s, n in zip(side, info["lens"], strict=True):
        want = n / SAMPLE_RATE + (0.1 if s["urgent"] else 0.0)    # + chime and gap
        assert s["end_sample"] - s["start_sample"] == pytest.approx(want * SAMPLE_RATE, abs=2)
        assert s["ended"] - s["started"] == pytest.approx(want, abs=0.05)
        assert s["latency_ms"] < 50
        seg = x[s["start_sample"]: s["end_sample"]]
        assert np.sqrt(np.mean(seg**2)) > 0.03                     # what was played is in the WAV
    assert (b["start_sample"] - a["start_sample"]) / SAMPLE_RATE == pytest.approx(b["started"] - a["started"], abs=0.05)
    assert len(x) / SAMPLE_RATE == pytest.approx(info["elapsed"], abs=0.25)
    gap = x[a["end_sample"]: b["start_sample"]]
    assert not np.any(gap)


@needs_espeak
def test_null_alsa_device_plays_and_records(tmp_path: Path) -> None:
    conf = tmp_path / "xdg" / "alsa"
    conf.mkdir(parents=True)
    (conf / "asoundrc").write_text('pcm.!default { type plug; slave.pcm "null" }\n')
    env = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path / "xdg"))   # before PortAudio starts: a new process
    info, side, x = run_player(tmp_path, env)
    assert info["backend"] == "sounddevice", info
    check_live(info, side, x)


@needs_espeak
def test_no_device_warns_once_and_keeps_timing(tmp_path: Path) -> None:
    t = time.monotonic()
    info, side, x = run_player(tmp_path, dict(os.environ), device="no-such-output-device")
    assert info["backend"] == "silent"
    assert [ln for ln in info["stderr"].splitlines() if "no sound output" in ln] == [info["warning"]]
    check_live(info, side, x)
    assert time.monotonic() - t < 30


def test_muted_player_records_what_would_be_said(tmp_path: Path) -> None:
    from tablecam.audio_out import Player

    with pytest.raises(ValueError, match="lang"):
        Player.from_settings(lang="fr")
    warnings: list[str] = []
    wav = tmp_path / "muted.wav"
    p = Player.from_settings(mute=True, audio_out=wav, device="no-such-output-device", warn=warnings.append)
    p.start()
    p.submit(V(0.0, "snap", "Snap, sevens!"))
    p.submit(V(0.0, "legal_play", "a tick", voice=False))
    time.sleep(0.2)
    p.stop()
    assert p.backend == "silent" and len(warnings) == 1
    side = [json.loads(line) for line in Path(f"{wav}.jsonl").read_text().splitlines()]
    assert [(s["text"], s["status"]) for s in side] == [("Snap, sevens!", "muted")]
    x, _ = read_wav(wav)
    assert len(x) / SAMPLE_RATE == pytest.approx(0.2, abs=0.1) and not np.any(x)


def test_warmup_phrases_are_what_the_referee_says_in_that_game() -> None:
    """Per-game warm-up: the trigger call first, then the sentences of simulated games, most frequent first."""
    from engine.replay import replay_to_end
    from engine.sim import simulate
    from tablecam.speech import warmup_phrases

    players = ["Ann", "Bob", "Cy"]
    sj = warmup_phrases("slapjack", players, extra=["Jack!"])
    assert sj[0] == ("en", "Jack!") and len(sj) == len(set(sj)) > 10
    assert all(voice == "en" for voice, _ in sj)
    assert any(t.startswith("Slapjack! ") for _, t in sj) and not any("snap" in t.lower() for _, t in sj)
    snap = {t for _, t in warmup_phrases("snap", players)}
    assert any("snap" in t.lower() for t in snap)
    header, events = simulate("snap", players, seed=99)  # a game not among the warm-up's seeds
    said = [o.say for o in replay_to_end(header, events)[1] if isinstance(o, Verdict) and o.voice and o.say]
    assert sum(s in snap for s in said) / len(said) > 0.6  # most of a new game's sentences are ready
    zh = warmup_phrases("slapjack", players, "zh")
    assert any(voice == "cmn" for voice, _ in zh)
