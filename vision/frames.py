"""Frames with true timestamps, from a file (PyAV) or a live camera (cv2).

Why timestamps and not ``index / fps``: phones record variable frame rate, and a slap verdict is decided to
the millisecond (RULES.md TM-1..TM-3), so every frame carries the time the file says it is shown.

The clock (EVENTS.md ``t``): for a file, ``t = pts * time_base - start``, where ``start`` is the
*container's* start time (the earliest stream's first timestamp). ``t = 0`` is therefore the start of the
recording, and :func:`vision.audio.read_audio` subtracts the same ``start`` so that audio samples and frames
share one clock. Live, ``t`` is ``time.monotonic()`` taken right after the frame is grabbed.

Generators over frames: nothing here holds more than the frame being yielded (plus the decoder's own
reorder/thread buffers). Damage loses nothing: a truncated or corrupt file yields every frame decoded
before the damage, then stops and records a :class:`VideoDamage` (the generator's return value, or
:attr:`VideoReader.damage`) instead of raising half-way through a game.
"""

from __future__ import annotations

import contextlib
import os
import queue
import threading
import time
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

__all__ = [
    "Camera",
    "CameraError",
    "Frame",
    "VideoDamage",
    "VideoError",
    "VideoInfo",
    "VideoReader",
    "open_camera",
    "probe",
    "read_video",
]


class VideoError(Exception):
    """A source that cannot be read at all (missing, not a video, no video stream); says what and where."""

    def __init__(self, source: str, reason: str) -> None:
        super().__init__(f"{source}: {reason}")
        self.source = source
        self.reason = reason


class CameraError(VideoError):
    """No camera at that index, or it would not deliver a frame."""


@dataclass(slots=True, weakref_slot=True)
class Frame:
    """One picture: ``index`` counts frames from the start of the file (presentation order), ``t`` is seconds
    on the recording's clock (module docstring), ``image`` is BGR uint8 (H, W, 3)."""

    index: int
    t: float
    image: np.ndarray
    #: the picture shrunk for the slap detector, where the reader that decoded it was given the shrink
    #: (:class:`VideoReader` ``shrink``): made on the decoding thread, not the audit's
    small: np.ndarray | None = None
    #: what the reader's ``glance`` made of the picture, on the decoding thread (:class:`VideoReader`)
    glanced: Any = None


@dataclass(frozen=True, slots=True)
class VideoDamage:
    """Where a damaged file stopped yielding: the last good frame (``None`` if none), and why."""

    path: str
    last_index: int | None
    last_t: float | None
    error: str

    def __str__(self) -> str:
        if self.last_index is not None:
            where = f"after frame {self.last_index} (t={self.last_t:.3f} s)"
        elif self.last_t is not None:
            where = f"after t={self.last_t:.3f} s"
        else:
            where = "before the first frame"
        return f"{self.path}: damaged {where}: {self.error}"


@dataclass(frozen=True, slots=True)
class VideoInfo:
    """What a file says about itself, before decoding. ``fps`` is an estimate (average rate); do not derive
    times from it. ``frame_count`` is ``None`` when the container does not store it. ``start`` is the
    container start time subtracted from every timestamp (seconds)."""

    path: str
    width: int
    height: int
    fps: float | None
    duration: float | None
    frame_count: int | None
    has_audio: bool
    start: float
    codec: str


def _open(path: str | os.PathLike[str]) -> Any:
    """``av.open`` with its failures turned into :class:`VideoError` naming the file."""
    import av

    p = os.fspath(path)
    if not os.path.exists(p):
        raise VideoError(p, "no such file")
    if os.path.isdir(p):
        raise VideoError(p, "is a directory, not a video file")
    try:
        return av.open(p, mode="r")
    except av.FFmpegError as exc:
        raise VideoError(p, _mp4_hint(p) or f"not a readable video ({_msg(exc)})") from exc
    except (OSError, ValueError) as exc:
        raise VideoError(p, f"cannot open ({exc})") from exc


def _mp4_hint(path: str) -> str | None:
    """Why an MP4/MOV that starts like one will not open: its index (``moov``) is missing or cut, which is
    what a recording stopped without being finalised (app killed, battery, full card) looks like."""
    boxes: list[bytes] = []
    try:
        size = os.path.getsize(path)
        with open(path, "rb") as fh:
            pos = 0
            while pos + 8 <= size and len(boxes) < 64:
                fh.seek(pos)
                head = fh.read(16)
                n, kind = int.from_bytes(head[:4], "big"), head[4:8]
                if n == 1 and len(head) >= 16:
                    n = int.from_bytes(head[8:16], "big")
                elif n == 0:
                    n = size - pos
                if n < 8 or not kind.isalnum():
                    break
                boxes.append(kind)
                if kind == b"moov" and pos + n > size:
                    return "MP4 index (moov box) is cut off: the file is truncated near its start"
                pos += n
    except OSError:
        return None
    if boxes and boxes[0] == b"ftyp" and b"moov" not in boxes:
        return ("MP4 without its index (no moov box): the recording was not finalised (app killed, power "
                "or storage ran out) or the file is truncated; its frames cannot be located without it")
    return None


def _msg(exc: BaseException) -> str:
    return str(exc).strip() or type(exc).__name__


def container_start(container: Any) -> float:
    """Seconds to subtract from stream timestamps: the container's start time (0 when unknown)."""
    st = container.start_time  # AV_TIME_BASE (microseconds) units
    return float(st) / 1_000_000 if st is not None else 0.0


def _video_stream(container: Any, path: str) -> Any:
    if not container.streams.video:
        container.close()
        raise VideoError(path, "no video stream in the file")
    return container.streams.video[0]


def probe(path: str | os.PathLike[str]) -> VideoInfo:
    """Read the file's header (no decoding) into a :class:`VideoInfo`."""
    p = os.fspath(path)
    container = _open(p)
    try:
        vs = _video_stream(container, p)
        rate = vs.average_rate or vs.guessed_rate
        tb = vs.time_base
        if vs.duration is not None and tb is not None:
            duration: float | None = float(vs.duration * tb)
        elif container.duration is not None:
            duration = container.duration / 1_000_000
        else:
            duration = None
        return VideoInfo(
            path=p,
            width=int(vs.codec_context.width),
            height=int(vs.codec_context.height),
            fps=float(rate) if rate else None,
            duration=duration,
            frame_count=int(vs.frames) or None,
            has_audio=bool(container.streams.audio),
            start=container_start(container),
            codec=vs.codec_context.name,
        )
    finally:
        container.close()


def _frames_before(container: Any, vs: Any, start_pts: int) -> int:
    """How many frames are shown before ``start_pts``: demux only (no decoding). Packets come in decode order
    and ``pts >= dts``, so once ``dts >= start_pts`` no later packet can be shown earlier."""
    n = 0
    for pkt in container.demux(vs):
        if pkt.size == 0:
            continue
        key = pkt.dts if pkt.dts is not None else pkt.pts
        if key is not None and key >= start_pts:
            break
        if pkt.pts is not None and pkt.pts < start_pts:
            n += 1
    return n


def read_video(
    path: str | os.PathLike[str], start: float = 0.0, end: float | None = None, *, threads: int = 0
) -> Generator[Frame, None, VideoDamage | None]:
    """Yield the frames of ``path`` with ``start <= t < end`` (seconds, module clock), in presentation order.

    Returns (as the generator's return value, ``StopIteration.value``) a :class:`VideoDamage` if the file
    ended early or would not decode further, else ``None``; :class:`VideoReader` keeps it as an attribute.
    Raises :class:`VideoError` before the first frame when the file cannot be read at all.
    ``threads``: decoder threads (0 = FFmpeg picks).
    """
    import av

    p = os.fspath(path)
    container = _open(p)
    try:
        vs = _video_stream(container, p)
        cc = vs.codec_context
        cc.thread_type = "AUTO"
        cc.thread_count = threads
        tb: Fraction = vs.time_base
        offset = container_start(container)
        expected = int(vs.frames) or None
        # where the header says the stream ends (on our clock): a short count alone is not damage, an edit
        # list may hide frames at the start; a short count that also stops well before this end is.
        end_expected: float | None = None
        if vs.duration is not None:
            end_expected = float(((vs.start_time or 0) + vs.duration) * tb) - offset
        rate_est = float(vs.average_rate or vs.guessed_rate or 30)
        index = 0
        if start > 0:
            start_pts = int((start + offset) / tb)
            index = _frames_before(container, vs, start_pts)
            container.seek(start_pts, backward=True, any_frame=False, stream=vs)
        last_index: int | None = None
        last_t: float | None = None
        last_dur = 0.0  # duration of the last yielded frame (seconds; 0 when the file does not say)
        ended_early = False

        def out(frame: Any) -> Iterator[Frame]:
            nonlocal index, last_index, last_t, last_dur, ended_early
            pts = frame.pts
            if pts is None:  # a few raw formats carry no pts: fall back to the decoder's best guess
                pts = getattr(frame, "dts", None)
            if pts is None:
                rate = vs.average_rate or vs.guessed_rate or 30
                t = (last_t + 1 / float(rate)) if last_t is not None else 0.0
            else:
                t = float(pts * tb) - offset
            if t < start - 1e-9:
                return
            if end is not None and t >= end:
                ended_early = True
                return
            f = Frame(index, t, frame.to_ndarray(format="bgr24"))
            last_index, last_t = index, t
            last_dur = float(frame.duration * tb) if frame.duration else 0.0
            index += 1
            yield f

        damage_error: str | None = None
        drained: list[Any] = []  # frames the decoder still held when the input ended (a few: reordering)
        try:
            for pkt in container.demux(vs):
                if ended_early:
                    break
                if pkt.is_corrupt:
                    damage_error = f"corrupt packet at t={float((pkt.pts or 0) * tb) - offset:.3f} s"
                    break
                if pkt.size == 0:  # the flush packet at the end of the file: drain the decoder
                    drained.extend(pkt.decode())
                    continue
                for frame in pkt.decode():
                    yield from out(frame)
        except av.FFmpegError as exc:
            damage_error = f"decoding stopped: {_msg(exc)}"
        if damage_error is not None and not ended_early:
            # frames already inside the decoder (reordering, threads) were decoded fine: drain them
            with contextlib.suppress(av.FFmpegError):
                drained.extend(cc.decode(None))
        short = expected is not None and index + len(drained) < expected
        if short and end_expected is not None:
            ts = [float(f.pts * tb) - offset for f in drained if f.pts is not None]
            seen = max([*ts, last_t if last_t is not None else -1.0])
            short = seen < end_expected - 2.5 / rate_est
        if (damage_error is not None or short) and not ended_early:
            # A cut or corrupt end loses the frames stored after it, which may be shown BEFORE frames the
            # decoder still held (B-frames): yield the held ones only while they follow on without a gap, so
            # that every index stays true; the first frame after a gap is the damage point.
            for frame in drained:
                if last_t is not None and frame.pts is not None and last_dur:
                    gap = float(frame.pts * tb) - offset - last_t
                    if gap > 1.5 * last_dur:
                        damage_error = damage_error or (
                            f"file ended early (truncated?): frames missing after t={last_t:.3f} s "
                            f"(the next decodable frame, t={gap + last_t:.3f} s, is not yielded)")
                        break
                yield from out(frame)
        else:
            for frame in drained:
                yield from out(frame)
        if damage_error is None and not ended_early and short:
            damage_error = f"file ended early: {index} of {expected} frames decoded (truncated?)"
        if damage_error is not None:
            return VideoDamage(p, last_index, last_t, damage_error)
        return None
    finally:
        container.close()


class VideoReader:
    """Iterable over :func:`read_video`; after the loop, :attr:`damage` says whether and where it stopped
    early (``None``: the whole range was read).

    ``ahead`` > 0 decodes that many frames ahead in a thread of its own: FFmpeg's decoding and the conversion to
    BGR let go of the interpreter, so they run on one core while the caller's work (a detector's) runs on the
    other, instead of taking turns. ``shrink``: a function of a frame's picture whose result each frame carries
    (:attr:`Frame.small`), made on that thread too (the slap detector's shrunk frame: 1.8 ms a 720p frame);
    ``glance``: another (:attr:`Frame.glanced`; the watcher's trackers' grey crops)."""

    def __init__(self, path: str | os.PathLike[str], start: float = 0.0, end: float | None = None,
                 *, threads: int = 0, ahead: int = 0,
                 shrink: Callable[[np.ndarray], np.ndarray] | None = None,
                 glance: Callable[[np.ndarray], Any] | None = None) -> None:
        self.path = os.fspath(path)
        self.info = probe(self.path)  # fails here, loudly, if the file is not a video
        self.start, self.end, self.threads, self.ahead = start, end, threads, ahead
        self.shrink = shrink
        self.glance = glance
        self.damage: VideoDamage | None = None

    def __iter__(self) -> Iterator[Frame]:
        if self.ahead <= 0:
            self.damage = yield from self._prepared(read_video(self.path, self.start, self.end, threads=self.threads))
            return
        yield from self._ahead()

    def _prepared(self, frames: Generator[Frame, None, VideoDamage | None]
                  ) -> Generator[Frame, None, VideoDamage | None]:
        """``frames`` with :attr:`Frame.small` (``shrink``) and :attr:`Frame.glanced` (``glance``) made, and their
        generator's return value."""
        while True:
            try:
                fr = next(frames)
            except StopIteration as end:
                return end.value
            if self.shrink is not None:
                fr.small = self.shrink(fr.image)
            if self.glance is not None:
                fr.glanced = self.glance(fr.image)
            try:
                yield fr
            except GeneratorExit:
                frames.close()
                raise

    def _ahead(self) -> Iterator[Frame]:
        q: queue.Queue = queue.Queue(maxsize=self.ahead)
        stop = threading.Event()
        done = object()

        def put(item: Any) -> bool:
            while not stop.is_set():
                try:
                    q.put(item, timeout=0.1)
                    return True
                except queue.Full:
                    continue
            return False

        def produce() -> None:
            try:
                frames = self._prepared(read_video(self.path, self.start, self.end, threads=self.threads))
                while True:
                    try:
                        fr = next(frames)
                    except StopIteration as end:
                        put((done, end.value))
                        return
                    if not put(fr):
                        frames.close()
                        return
            except BaseException as e:  # noqa: BLE001 - handed to the reading thread, raised there
                put((done, e))

        worker = threading.Thread(target=produce, name="video-ahead", daemon=True)
        worker.start()
        try:
            while True:
                item = q.get()
                if isinstance(item, tuple) and len(item) == 2 and item[0] is done:
                    if isinstance(item[1], BaseException):
                        raise item[1]
                    self.damage = item[1]
                    return
                yield item
        finally:
            stop.set()
            worker.join(timeout=5)


class Camera:
    """A live cv2 camera: iterate for :class:`Frame` s stamped with ``time.monotonic()`` at grab. Stops
    (``damage`` set) when the camera stops delivering, e.g. unplugged. Close it (or use ``with``)."""

    def __init__(self, cap: Any, index: int) -> None:
        self._cap = cap
        self.index = index
        self.damage: VideoDamage | None = None

    @property
    def size(self) -> tuple[int, int]:
        import cv2

        return int(self._cap.get(cv2.CAP_PROP_FRAME_WIDTH)), int(self._cap.get(cv2.CAP_PROP_FRAME_HEIGHT))

    def __iter__(self) -> Iterator[Frame]:
        n = 0
        last_t: float | None = None
        while self._cap.isOpened():
            if not self._cap.grab():
                self.damage = VideoDamage(f"camera {self.index}", n - 1 if n else None, last_t,
                                          "camera stopped delivering frames")
                return
            t = time.monotonic()  # as close to the exposure as cv2 lets us get
            ok, image = self._cap.retrieve()
            if not ok or image is None:
                self.damage = VideoDamage(f"camera {self.index}", n - 1 if n else None, last_t,
                                          "frame grabbed but could not be retrieved")
                return
            yield Frame(n, t, image)
            last_t = t
            n += 1

    def close(self) -> None:
        self._cap.release()

    def __enter__(self) -> Camera:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_camera(index: int = 0, width: int | None = None, height: int | None = None,
                fps: float | None = None) -> Camera:
    """Open camera ``index`` now (so a missing camera fails here, not at the first frame) and check it can
    deliver one frame. Raises :class:`CameraError` saying which camera and what is wrong."""
    import cv2

    where = f"camera {index}"
    if os.name == "posix" and os.path.isdir("/dev") and not os.path.exists(f"/dev/video{index}"):
        raise CameraError(where, f"no camera: /dev/video{index} does not exist (is one plugged in?)")
    cap = cv2.VideoCapture(index)
    if not cap.isOpened():
        cap.release()
        raise CameraError(where, "no camera at this index, or it is in use by another program")
    if width:
        cap.set(cv2.CAP_PROP_FRAME_WIDTH, width)
    if height:
        cap.set(cv2.CAP_PROP_FRAME_HEIGHT, height)
    if fps:
        cap.set(cv2.CAP_PROP_FPS, fps)
    if not cap.grab():
        cap.release()
        raise CameraError(where, "opened but delivered no frame")
    return Camera(cap, index)
