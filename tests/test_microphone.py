"""Slap onsets from a live microphone: the streaming detector finds what the batch detector finds, once each, on
the stream's clock; the sounddevice wiring runs through the ALSA null device, and no sound card is a clear error."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest
from test_frames_audio import RATE, soundtrack

from vision.audio import impact_onsets
from vision.microphone import Microphone, MicrophoneError, StreamingOnsets

IMPACTS = [0.31, 0.95, 1.0312, 1.7, 2.48, 2.5155, 3.3]  # two pairs 31 and 35 ms apart


def _stream(x: np.ndarray, t0: float, block: int, det: StreamingOnsets) -> list:
    got = []
    for i in range(0, x.size, block):
        got += det.feed(x[i:i + block], t0 + i / RATE)
    return got + det.flush()


@pytest.mark.parametrize("block", [480, 1024, 256])
def test_streamed_onsets_are_the_batch_onsets(block: int) -> None:
    x = soundtrack(4.0, IMPACTS)
    batch = impact_onsets(x, RATE, 10.0)
    det = StreamingOnsets(RATE)
    got = _stream(x, 10.0, block, det)
    assert [round(o.t - 10.0, 3) for o in batch] == [round(t, 3) for t in IMPACTS]
    assert len(got) == len(batch), (got, batch)
    assert max(abs(a.t - b.t) for a, b in zip(got, batch, strict=True)) < 0.0005


def test_an_onset_is_reported_within_the_guard_and_hop_of_its_time() -> None:
    x = soundtrack(2.0, [1.0])
    det = StreamingOnsets(RATE)
    when = None
    for i in range(0, x.size, 480):
        if det.feed(x[i:i + 480], i / RATE):
            when = (i + 480) / RATE
            break
    assert when is not None and 1.0 < when <= 1.0 + det.guard_s + 0.04 + 0.011  # a live slap waits 0.2 s


def test_a_gap_in_the_stream_keeps_the_clock() -> None:
    x = soundtrack(3.0, [0.5, 2.2])
    det = StreamingOnsets(RATE)
    got = []
    for i in range(0, x.size, 480):
        if 1.0 * RATE <= i < 1.5 * RATE:
            continue  # half a second of blocks lost
        got += det.feed(x[i:i + 480], i / RATE)
    got += det.flush()
    assert [round(o.t, 3) for o in got] == [0.5, 2.2]


def test_the_null_device_delivers_blocks_through_the_callback(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """ENVIRONMENT.md's null-device path: the stream opens, blocks arrive and the callback survives them. What
    the null device's capture holds is unspecified (NaN here, arbitrary floats elsewhere), so no onset count
    is asserted on it; silence and NaN are checked below with known samples."""
    (tmp_path / "alsa").mkdir()
    (tmp_path / "alsa" / "asoundrc").write_text('pcm.!default { type plug; slave.pcm "null" }\n')
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    import subprocess
    import sys

    code = ("import time, sys; sys.path.insert(0, sys.argv[1]); from vision.microphone import Microphone; got = []; "
            "m = Microphone(got.append, time.monotonic()).open(); time.sleep(0.3); m.close(); "
            "print(m.blocks, m._stream is None)")
    out = subprocess.run([sys.executable, "-c", code, str(Path(__file__).resolve().parent.parent)],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr[-1500:]
    blocks, closed = out.stdout.split()
    assert int(blocks) > 5 and closed == "True"


def test_silent_and_non_finite_blocks_give_no_onsets() -> None:
    got: list = []
    ticks = iter(np.arange(1, 1000) * 0.01)  # the callbacks arrive on time, one block (10 ms) apart
    mic = Microphone(got.append, 0.0, clock=lambda: float(next(ticks)))
    for i in range(200):  # 2 s of blocks: silence, then NaN and inf garbage
        block = np.zeros((480, 1), np.float32)
        if i >= 100:
            block[::7] = np.nan if i % 2 else np.inf
        mic._callback(block, 480, None, None)
    assert mic.blocks == 200 and mic.bad_blocks == 100 and got == []
    loud = np.zeros((480, 1), np.float32)  # and the same callback still hears a real impact after them
    for i in range(100):
        block = loud.copy()
        if i == 50:
            block[100:140, 0] = np.hanning(40) * 0.8
        mic._callback(block, 480, None, None)
    assert [round(o.t, 2) for o in got] == [2.5]


def test_no_sound_card_is_a_clear_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))  # no asoundrc: no device on this machine
    with pytest.raises(MicrophoneError, match="no microphone"):
        Microphone(lambda o: None, time.monotonic(), device="no-such-input-device").open()
