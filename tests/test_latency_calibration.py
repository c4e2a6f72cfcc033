"""``tablecam calibrate-latency``: one clap in view gives the audio-video clock offset, stored in the layout."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import av
import numpy as np
import pytest

from calibration.latency import ClapNotFound, measure
from calibration.layout import Layout
from calibration.markers import layout_from_homography
from tablecam.cli import main
from vision.audio import read_audio
from vision.frames import read_video

RATE, FPS, W, H = 48000, 30, 320, 240


def clap_video(path: Path, contact: float, audio_late: float, seconds: float = 2.0) -> Path:
    """Two skin-coloured blocks rush together and stop at ``contact``; the clap is heard ``audio_late`` later."""
    rng = np.random.default_rng(0)
    with av.open(str(path), "w") as c:
        vs = c.add_stream("libx264", rate=FPS)
        vs.width, vs.height, vs.pix_fmt = W, H, "yuv420p"
        vs.options = {"preset": "ultrafast"}
        ast = c.add_stream("aac", rate=RATE)
        ast.layout = "mono"
        for i in range(int(seconds * FPS)):
            t = i / FPS
            gap = 100 * min(1.0, max(0.0, (contact - t) / 0.25)) ** 0.5  # fast until contact, then still
            img = np.full((H, W, 3), 60, np.uint8)
            x = int(W / 2 - 40 - gap)
            img[80:160, max(0, x):x + 40] = (120, 160, 220)
            x2 = int(W / 2 + gap)
            img[80:160, x2:x2 + 40] = (120, 160, 220)
            f = av.VideoFrame.from_ndarray(img, format="bgr24")
            f.pts, f.time_base = i, Fraction(1, FPS)
            for p in vs.encode(f):
                c.mux(p)
        for p in vs.encode():
            c.mux(p)
        x = (0.002 * rng.standard_normal(int(seconds * RATE))).astype(np.float32)
        s = int((contact + audio_late) * RATE)
        n = int(0.03 * RATE)
        if s + n < x.size:
            x[s:s + n] += (0.6 * rng.standard_normal(n) * np.exp(-np.arange(n) / (0.006 * RATE))).astype(np.float32)
        for s0 in range(0, x.size, 1024):
            af = av.AudioFrame.from_ndarray(x[s0:s0 + 1024].reshape(1, -1), format="fltp", layout="mono")
            af.sample_rate, af.pts, af.time_base = RATE, s0, Fraction(1, RATE)
            for p in ast.encode(af):
                c.mux(p)
        for p in ast.encode():
            c.mux(p)
    return path


@pytest.mark.parametrize("late", [0.0, 0.045, -0.03])
def test_clap_offset_within_half_a_frame(tmp_path: Path, late: float) -> None:
    contact = 0.9 + 0.013  # between frames
    v = clap_video(tmp_path / "clap.mp4", contact, late)
    samples, rate, t0 = read_audio(v)
    m = measure(read_video(v), samples, rate, t0)
    assert abs(m.t_video - contact) <= m.frame_s / 2 + 1e-3
    assert abs(m.t_audio - (contact + late)) < 0.003
    assert abs(m.audio_s - late) <= m.frame_s / 2 + 0.004


def test_calibrate_latency_saves_the_offset_in_the_layout(tmp_path: Path) -> None:
    v = clap_video(tmp_path / "clap.mp4", 0.9, 0.05)
    S = np.array([[800 / W, 0, 0], [0, 600 / H, 0], [0, 0, 1.0]])
    lay = layout_from_homography(S, (W, H), "slapjack", ["A", "B", "C"])
    lay.save(tmp_path / "t.layout.yaml")
    assert main(["calibrate-latency", str(v), f"layout={tmp_path / 't.layout.yaml'}"]) == 0
    got = Layout.load(tmp_path / "t.layout.yaml").latency["audio_s"]
    assert got == pytest.approx(0.05, abs=1 / FPS / 2 + 0.004)


def test_no_clap_is_said(tmp_path: Path) -> None:
    v = clap_video(tmp_path / "still.mp4", 99.0, 0.0)  # never claps within the clip
    samples, rate, t0 = read_audio(v)
    with pytest.raises(ClapNotFound):
        measure(read_video(v), samples, rate, t0)
