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


def test_the_null_device_delivers_blocks_and_silence_gives_no_onsets(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "alsa").mkdir()
    (tmp_path / "alsa" / "asoundrc").write_text('pcm.!default { type plug; slave.pcm "null" }\n')
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    import subprocess
    import sys

    code = ("import time, sys; sys.path.insert(0, sys.argv[1]); from vision.microphone import Microphone; got = []; "
            "m = Microphone(got.append, time.monotonic()).open(); time.sleep(0.3); m.close(); "
            "print(m.blocks, len(got))")
    out = subprocess.run([sys.executable, "-c", code, str(Path(__file__).resolve().parent.parent)],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr[-1500:]
    blocks, onsets = map(int, out.stdout.split())
    assert blocks > 5 and onsets == 0


def test_no_sound_card_is_a_clear_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))  # no asoundrc: no device on this machine
    with pytest.raises(MicrophoneError, match="no microphone"):
        Microphone(lambda o: None, time.monotonic(), device="no-such-input-device").open()
