"""Card detection on frames with ONNX Runtime: the live path (no torch, no ultralytics at run time).

Why by hand: the exported YOLO11 graph holds no NMS (ultralytics' default export), so the steps ultralytics runs
around it are done here, the same way: a centred letterbox to the model's square input (grey 114 padding),
RGB in [0, 1]; the output ``(1, 4 + nc, N)`` holds box centre, width and height in letterboxed pixels and one
score per class; the best class per box, a confidence threshold, class-aware NMS (boxes of different cards
never suppress each other: a fanned hand overlaps), then boxes mapped back to the frame's pixels.
"""

from __future__ import annotations

import ast
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from models.classes import CLASSES

PAD_VALUE = 114
MAX_WH = 7680.0  # class offset for class-aware NMS in one pass (larger than any frame)
#: the detector's input for zone crops (the audit, the live loop; the games of ``vision.watcher.ZONE_SIZE_GAMES``)
#: when the model takes any size: a pile's crop only has to show where the faces are (the reader reads them from the
#: frame itself); the shipped detector there found as many (Spit, 3 games: 44 vs 46 of 133 cards read right) in
#: two thirds of the time
ZONE_IMGSZ = 160


def zone_imgsz(onnx_path: str | Path) -> int | None:
    """:data:`ZONE_IMGSZ` for a model exported with a dynamic input size; None (its own size) for a fixed one."""
    import onnxruntime as ort

    # (asked of onnxruntime, not of the onnx package: importing that cost 0.8 s of every audit's start)
    shape = ort.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"]).get_inputs()[0].shape
    return ZONE_IMGSZ if len(shape) == 4 and not isinstance(shape[2], int) else None


@dataclass(frozen=True)
class Detections:
    """Detections in one frame (supervision style): ``xyxy`` (N, 4) float32 frame pixels, ``confidence`` (N,),
    ``class_id`` (N,) int, ``class_name`` (N,) str; sorted by confidence, highest first."""

    xyxy: np.ndarray = field(default_factory=lambda: np.zeros((0, 4), np.float32))
    confidence: np.ndarray = field(default_factory=lambda: np.zeros(0, np.float32))
    class_id: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    class_name: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype="<U8"))

    def __len__(self) -> int:
        return len(self.confidence)

    def __getitem__(self, index: int | slice | np.ndarray) -> Detections:
        """A subset, e.g. ``d[d.confidence > 0.5]`` or ``d[d.class_name == "back"]``."""
        if isinstance(index, int | np.integer):
            index = [int(index)]
        return Detections(self.xyxy[index], self.confidence[index], self.class_id[index], self.class_name[index])

    def to_list(self) -> list[dict]:
        """``[{"card", "box", "conf"}]``, the shape ``tablecam eval-detector`` reads."""
        return [{"card": str(n), "box": [round(float(v), 1) for v in b], "conf": round(float(c), 4)}
                for b, c, n in zip(self.xyxy, self.confidence, self.class_name, strict=True)]


@dataclass(frozen=True)
class Letterbox:
    """How a frame was fitted into the model input: ``input = frame * ratio + (pad_x, pad_y)``."""

    ratio: float
    pad_x: float
    pad_y: float


def letterbox(frame: np.ndarray, size: int) -> tuple[np.ndarray, Letterbox]:
    """Resize keeping the aspect ratio and pad to ``size`` x ``size``, centred (ultralytics' LetterBox with
    ``auto=False``, including its rounding, so the ONNX model sees what it saw in validation)."""
    h, w = frame.shape[:2]
    r = min(size / h, size / w)
    nw, nh = round(w * r), round(h * r)
    dw, dh = (size - nw) / 2, (size - nh) / 2
    img = frame if (w, h) == (nw, nh) else cv2.resize(frame, (nw, nh), interpolation=cv2.INTER_LINEAR)
    top, bottom = round(dh - 0.1), round(dh + 0.1)
    left, right = round(dw - 0.1), round(dw + 0.1)
    img = cv2.copyMakeBorder(img, top, bottom, left, right, cv2.BORDER_CONSTANT, value=(PAD_VALUE,) * 3)
    return img, Letterbox(r, float(left), float(top))


def box_ious(boxes: Any, by: Any) -> np.ndarray:
    """The intersection over union of each of ``boxes`` (rows) with each of ``by`` (columns), xyxy."""
    a, b = np.asarray(boxes, np.float64)[:, None, :], np.asarray(by, np.float64)[None, :, :]
    iw = np.clip(np.minimum(a[..., 2], b[..., 2]) - np.maximum(a[..., 0], b[..., 0]), 0, None)
    ih = np.clip(np.minimum(a[..., 3], b[..., 3]) - np.maximum(a[..., 1], b[..., 1]), 0, None)
    inter = iw * ih
    union = (a[..., 2] - a[..., 0]) * (a[..., 3] - a[..., 1]) + (b[..., 2] - b[..., 0]) * (b[..., 3] - b[..., 1])
    return inter / np.maximum(union - inter, 1e-9)


def nms(boxes: np.ndarray, scores: np.ndarray, iou: float) -> np.ndarray:
    """Indices kept by greedy non-maximum suppression (xyxy boxes), highest score first."""
    order = np.argsort(-scores, kind="stable")
    x1, y1, x2, y2 = boxes.T
    area = np.maximum(x2 - x1, 0) * np.maximum(y2 - y1, 0)
    keep = []
    while order.size:
        i = order[0]
        keep.append(i)
        rest = order[1:]
        iw = np.maximum(np.minimum(x2[i], x2[rest]) - np.maximum(x1[i], x1[rest]), 0)
        ih = np.maximum(np.minimum(y2[i], y2[rest]) - np.maximum(y1[i], y1[rest]), 0)
        inter = iw * ih
        ov = inter / np.maximum(area[i] + area[rest] - inter, 1e-9)
        order = rest[ov <= iou]
    return np.asarray(keep, dtype=np.int64)


def decode(raw: np.ndarray, box: Letterbox, frame_shape: tuple[int, ...], names: tuple[str, ...] | list[str],
           conf: float = 0.25, iou: float = 0.5, max_det: int = 300, clip: bool = True) -> Detections:
    """Raw YOLO11 output ``(1, 4 + nc, N)`` (or ``(4 + nc, N)``) to detections in frame pixels (clipped to the
    frame unless ``clip=False``: a card half out of view has its box end at the edge)."""
    p = np.asarray(raw, dtype=np.float32)
    if p.ndim == 3:
        p = p[0]
    p = p.T  # (N, 4 + nc)
    scores_all = p[:, 4:]
    cls = scores_all.argmax(1)
    score = scores_all[np.arange(len(cls)), cls]
    m = score > conf
    p, cls, score = p[m], cls[m], score[m]
    if not len(score):
        return Detections()
    cx, cy, w, h = p[:, 0], p[:, 1], p[:, 2], p[:, 3]
    xyxy = np.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], 1)
    keep = nms(xyxy + cls[:, None].astype(np.float32) * MAX_WH, score, iou)[:max_det]
    xyxy, cls, score = xyxy[keep], cls[keep], score[keep]
    xyxy = (xyxy - np.array([box.pad_x, box.pad_y, box.pad_x, box.pad_y], np.float32)) / box.ratio
    if clip:
        fh, fw = frame_shape[:2]
        xyxy[:, [0, 2]] = xyxy[:, [0, 2]].clip(0, fw)
        xyxy[:, [1, 3]] = xyxy[:, [1, 3]].clip(0, fh)
    name_arr = np.asarray(names)
    return Detections(xyxy.astype(np.float32), score.astype(np.float32), cls.astype(np.int64), name_arr[cls])


class Detector:
    """An exported detector (``models.train``'s ``best.onnx``) run by ONNX Runtime on the CPU, all cores.

    ``imgsz`` defaults to the size the model was exported at (ultralytics writes it into the ONNX metadata);
    class names come from the metadata too, else from :mod:`models.classes`."""

    def __init__(self, onnx_path: str | Path, conf: float = 0.25, iou: float = 0.5, imgsz: int | None = None,
                 threads: int | None = None, max_det: int = 300) -> None:
        path = Path(onnx_path)
        if not path.is_file():
            raise FileNotFoundError(f"no detector model at {path} (train one with models.train, or give the path "
                                    f"of a best.onnx)")
        import onnxruntime as ort

        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads or os.cpu_count() or 1
        opts.inter_op_num_threads = 1
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")  # two models share two cores
        self.session = ort.InferenceSession(str(path), sess_options=opts, providers=["CPUExecutionProvider"])
        self.workers = opts.intra_op_num_threads  # crops detected side by side by :meth:`many`
        self._solo: Any = None  # a one-thread session for :meth:`many`, made when first needed
        self._pool: Any = None
        self._solo_lock = threading.Lock()  # (the main thread and one detecting ahead may both want it first)
        self.input_name = self.session.get_inputs()[0].name
        meta = self.session.get_modelmeta().custom_metadata_map
        shape = self.session.get_inputs()[0].shape
        if imgsz is None:
            if "imgsz" in meta:
                imgsz = int(ast.literal_eval(meta["imgsz"])[0])
            elif isinstance(shape[2], int):
                imgsz = shape[2]
            else:
                raise ValueError(f"{path} has a dynamic input size and no imgsz metadata: pass imgsz=")
        if isinstance(shape[2], int) and int(imgsz) != shape[2]:
            raise ValueError(f"{path} takes {shape[2]} px images only (exported with a fixed size), not imgsz={imgsz}: "
                             "leave imgsz unset, or export the model with dynamic=True")
        self.imgsz = int(imgsz)
        names: tuple[str, ...] = CLASSES
        if "names" in meta:
            d = ast.literal_eval(meta["names"])
            names = tuple(d[i] for i in range(len(d)))
        self.names = names
        self.conf, self.iou, self.max_det = conf, iou, max_det
        self.path = path

    def preprocess(self, frame: np.ndarray, bgr: bool = True) -> tuple[np.ndarray, Letterbox]:
        """The model input ``(1, 3, imgsz, imgsz)`` float32 RGB in [0, 1] and how the frame was fitted."""
        if frame.ndim != 3 or frame.shape[2] != 3:
            raise ValueError(f"expected an HxWx3 frame, got shape {frame.shape}")
        img, box = letterbox(frame, self.imgsz)
        if bgr:
            img = img[..., ::-1]
        x = np.ascontiguousarray(img.transpose(2, 0, 1)[None], dtype=np.float32) / 255.0
        return x, box

    def raw(self, x: np.ndarray) -> np.ndarray:
        """The graph's output on a preprocessed input: ``(1, 4 + nc, N)``."""
        return self.session.run(None, {self.input_name: x})[0]

    def __call__(self, frame: np.ndarray, bgr: bool = True, conf: float | None = None,
                 clip: bool = True) -> Detections:
        """Detect in one frame (BGR, as OpenCV reads it, unless ``bgr=False``); boxes in the frame's pixels."""
        return self._detect(self.session, frame, bgr, conf, clip)

    def _detect(self, session: Any, frame: np.ndarray, bgr: bool, conf: float | None, clip: bool) -> Detections:
        x, box = self.preprocess(frame, bgr)
        raw = session.run(None, {self.input_name: x})[0]
        return decode(raw, box, frame.shape, self.names, self.conf if conf is None else conf, self.iou,
                      self.max_det, clip)

    def many(self, frames: list[np.ndarray], bgr: bool = True, conf: float | None = None,
             clip: bool = True) -> list[Detections]:
        """Detect in several frames (a video frame's zone crops) at once, one per core: a small model on a small
        input keeps one core busy far better than it splits its layers over two (measured here: two one-thread
        runs side by side give 1.4 times the images a second of one two-thread run). Same results as calling
        the detector on each."""
        if len(frames) < 2 or self.workers < 2:
            return [self(f, bgr, conf, clip) for f in frames]
        if self._pool is None:
            from concurrent.futures import ThreadPoolExecutor

            self._pool = ThreadPoolExecutor(self.workers, thread_name_prefix="detect")
        solo = self._one_thread()
        return list(self._pool.map(lambda f: self._detect(solo, f, bgr, conf, clip), frames))

    def solo(self, frame: np.ndarray, bgr: bool = True, conf: float | None = None, clip: bool = True) -> Detections:
        """:meth:`__call__` on one core only (the session :meth:`many` runs each crop on): for a thread that detects
        beside another's work rather than taking both cores from it. Same results."""
        return self._detect(self._one_thread(), frame, bgr, conf, clip)

    def _one_thread(self) -> Any:
        """The one-thread session, made when first needed."""
        with self._solo_lock:
            if self._solo is None:
                import onnxruntime as ort

                opts = ort.SessionOptions()
                opts.intra_op_num_threads = 1  # each run on the thread that calls it: runs go side by side
                opts.inter_op_num_threads = 1
                self._solo = ort.InferenceSession(str(self.path), sess_options=opts,
                                                  providers=["CPUExecutionProvider"])
            return self._solo
