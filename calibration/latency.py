"""Camera and microphone clock offset from one clap in view: what ``tablecam calibrate-latency`` measures.

A clap is seen and heard at the same instant. The frames show two hands rushing together and stopping dead: the
motion between consecutive frames peaks and then collapses; the contact is between the last frame of the
rush and the first still one (half a frame either way). The sound is the loudest sharp onset
(``vision.audio.impact_onsets``). Their difference is how late the audio clock runs against the video clock
(capture and driver buffers differ, in a webcam's own file as well as live); ``Layout.latency['audio_s']``
keeps it, and the audit and the live loop subtract it from every onset before matching slaps.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import cv2
import numpy as np

from vision.audio import Onset, impact_onsets
from vision.frames import Frame


class ClapNotFound(ValueError):
    """No clap could be found in the frames or in the sound; the message says which."""


@dataclass(frozen=True)
class ClapOffset:
    t_video: float  # contact, from the frames
    t_audio: float  # onset, from the sound
    frame_s: float  # one frame's duration: the video time is known to half of it
    strength_db: float

    @property
    def audio_s(self) -> float:
        return self.t_audio - self.t_video


def clap_in_frames(frames: Iterable[Frame], scale: float = 0.25) -> tuple[float, float]:
    """(contact time, frame duration): the frame after which the motion collapsed most, minus half a frame."""
    prev = None
    times: list[float] = []
    energy: list[float] = []
    for fr in frames:
        g = cv2.cvtColor(cv2.resize(fr.image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA),
                         cv2.COLOR_BGR2GRAY).astype(np.int16)
        if prev is not None:
            energy.append(float(np.abs(g - prev).mean()))
            times.append(fr.t)
        prev = g
    if len(energy) < 3:
        raise ClapNotFound("the recording has fewer than 4 frames")
    e = np.array(energy)
    drop = e[:-1] - e[1:]  # motion into frame k+1 minus motion into frame k+2
    k = int(np.argmax(drop))
    if e[k] < 4 * max(float(np.median(e)), 0.2):
        raise ClapNotFound("no clap in the frames: nothing moved fast and stopped (clap once, in view)")
    dt = float(np.median(np.diff(times))) if len(times) > 1 else 1 / 30
    return times[k] - dt / 2, dt  # times[k]: the last frame of the rush (the hands met by then)


def clap_in_sound(samples: np.ndarray, rate: int, t0: float = 0.0) -> Onset:
    """The loudest sharp onset of the recording."""
    onsets = impact_onsets(samples, rate, t0)
    if not onsets:
        raise ClapNotFound("no clap in the sound: nothing sharp enough was heard (is the microphone on?)")
    return max(onsets, key=lambda o: o.strength)


def measure(frames: Iterable[Frame], samples: np.ndarray, rate: int, t0: float = 0.0) -> ClapOffset:
    t_video, dt = clap_in_frames(frames)
    o = clap_in_sound(samples, rate, t0)
    return ClapOffset(t_video, o.t, dt, o.strength)
