"""Stage two of card recognition: which card a detected face is, read from a crop at the camera's resolution.

Why two stages: the detector must find faces, backs and hands in a whole frame, and telling 54 faces apart is by
far the hardest part of that job; a small YOLO trained for an hour on a laptop CPU learns *where* the faces are
long before it learns *which* they are (the shipped stand-in: hands 0.86 and backs 0.74 mAP50, faces 0.10, yet
its face boxes sit on the right cards). The reader takes each face box, cuts a square around it out of the frame
(not out of the detector's shrunken input) and classifies it into the 54 faces or ``none`` (not a face: a back,
a hand, the table, a box off its card). It is a plain CNN, trained here in minutes per epoch, exported to ONNX.

Its training crops come from :func:`models.scenes.make_scene` (the detector's own scenes) around every face
whose index is visible and most of whose area shows, each box jittered as a detector's would be; backs, hands
and bare table make the ``none`` class. Rotations by quarter turns are free augmentation (a card turned is the
same card); mirror images never are (a mirrored 7 is no card).
"""

from __future__ import annotations

import itertools
import json
import os
import sys
import time
from collections import deque
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from engine.cards import JOKERS
from models.classes import FACES
from models.deckmatch import deck_read
from models.detector import Detections, box_ious, nms

READER_CLASSES: tuple[str, ...] = (*FACES, "none")
NONE = len(FACES)
READER_SIZE = 64  # crop side fed to the reader (px) unless trained with another ``size``
CROP_MARGIN = 0.08  # the square crop reaches this far (of the box's longer side) beyond the box
MIN_BOX_PX = 24  # faces smaller than this (shorter box side, px) are not read: too few pixels for an index
RECIPE_VERSION = 1
MARGINAL_WEIGHT = 0.5  # weight of the rank and suit losses beside the card's own (see reader_loss)
NORMAL_BOX_JITTER = 0.06  # detector box edges err by about this fraction of the box side


def square_crop(image: np.ndarray, box: Any, size: int = READER_SIZE, margin: float = CROP_MARGIN) -> np.ndarray:
    """The square around ``box`` (x0, y0, x1, y1; image pixels), its side the box's longer side plus ``margin``
    on each end, resized to ``size``; parts outside the image repeat its edge (a card at the frame's border)."""
    x0, y0, x1, y1 = (float(v) for v in box)
    side = max(x1 - x0, y1 - y0, 2.0) * (1 + 2 * margin)
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    ax0, ay0 = int(round(cx - side / 2)), int(round(cy - side / 2))
    ax1, ay1 = ax0 + max(int(round(side)), 2), ay0 + max(int(round(side)), 2)
    h, w = image.shape[:2]
    px0, py0, px1, py1 = max(0, -ax0), max(0, -ay0), max(0, ax1 - w), max(0, ay1 - h)
    patch = image[max(0, ay0):min(h, ay1), max(0, ax0):min(w, ax1)]
    if patch.size == 0:
        return np.zeros((size, size, 3), np.uint8)
    if px0 or py0 or px1 or py1:
        patch = cv2.copyMakeBorder(patch, py0, py1, px0, px1, cv2.BORDER_REPLICATE)
    interp = cv2.INTER_AREA if patch.shape[0] > size else cv2.INTER_LINEAR
    return cv2.resize(patch, (size, size), interpolation=interp)


# --------------------------------------------------------------------------------------------------- training data


def _jitter(rng: np.random.Generator, box: tuple[float, ...], amount: float = NORMAL_BOX_JITTER) -> tuple[float, ...]:
    x0, y0, x1, y1 = box
    s = max(x1 - x0, y1 - y0)
    d = rng.normal(0, amount * s, 4)
    return x0 + d[0], y0 + d[1], x1 + d[2], y1 + d[3]


def scene_crops(i: int, seed: int, faces: Any = "builtin", closeup_share: float = 0.7,
                per_card: int = 2, size: int = READER_SIZE) -> tuple[np.ndarray, np.ndarray]:
    """Crops (N, S, S, 3) RGB uint8 and reader class ids (N,) from synthetic scene ``i`` of ``seed``."""
    from models.scenes import make_scene

    rng = np.random.default_rng([seed, i, 7])
    closeup = rng.random() < closeup_share
    scene_size = (320, 320) if closeup else (640, 480)
    img, _, info = make_scene(rng, faces, scene_size, return_info=True, closeup=closeup)
    crops, ys = [], []
    faces_boxes = []
    for ob in info.objects:
        if ob.box is None:
            continue
        x0, y0, x1, y1 = ob.box
        if min(x1 - x0, y1 - y0) < MIN_BOX_PX:
            continue
        if ob.name in READER_CLASSES and ob.name != "none":
            faces_boxes.append(ob.box)
            if ob.labelled and ob.visible >= 0.6 and ob.index_visible >= 0.85:
                for _ in range(per_card):
                    crops.append(square_crop(img, _jitter(rng, ob.box), size))
                    ys.append(READER_CLASSES.index(ob.name))
        elif rng.random() < 0.35:  # a back or a hand: not a face
            crops.append(square_crop(img, _jitter(rng, ob.box, 0.15), size))
            ys.append(NONE)
    H, W = img.shape[:2]
    if rng.random() < 0.6:  # bare table (or whatever is there) in a card-sized box
        s = rng.uniform(0.1, 0.4) * min(W, H)
        x, y = rng.uniform(0, W - s), rng.uniform(0, H - s)
        crops.append(square_crop(img, (x, y, x + s, y + s * rng.uniform(0.7, 1.4)), size))
        ys.append(NONE)
    if faces_boxes and rng.random() < 0.4:  # a box mostly off its card: what a loose detection looks like
        x0, y0, x1, y1 = faces_boxes[int(rng.integers(len(faces_boxes)))]
        dx, dy = (x1 - x0) * rng.choice([-0.7, 0.7]), (y1 - y0) * rng.uniform(-0.3, 0.3)
        crops.append(square_crop(img, (x0 + dx, y0 + dy, x1 + dx, y1 + dy), size))
        ys.append(NONE)
    if not crops:
        return np.zeros((0, size, size, 3), np.uint8), np.zeros(0, np.int16)
    return np.stack(crops).astype(np.uint8), np.asarray(ys, np.int16)


_W: dict[str, Any] = {}


def _init(seed: int, faces: str, closeup_share: float, size: int) -> None:
    from models.scenes import FaceSet

    _W.update(seed=seed, faces=FaceSet(faces, user_share=0.35) if faces != "builtin" else FaceSet("builtin"),
              closeup=closeup_share, size=size)


def _work(i: int) -> tuple[int, np.ndarray, np.ndarray]:
    x, y = scene_crops(i, _W["seed"], _W["faces"], _W["closeup"], size=_W["size"])
    return i, x, y


def make_reader_data(scenes: int, seed: int = 0, faces: str = "builtin", closeup_share: float = 0.7,
                     workers: int | None = None, progress: bool = True, size: int = READER_SIZE
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Crops, class ids and scene indices of ``scenes`` synthetic scenes, made on every core."""
    workers = workers or os.cpu_count() or 1
    xs: list[np.ndarray] = []
    ys: list[np.ndarray] = []
    idx: list[np.ndarray] = []
    t0 = time.time()
    with get_context("fork").Pool(workers, _init, (seed, str(faces), closeup_share, size)) as pool:
        for n, (i, x, y) in enumerate(pool.imap_unordered(_work, range(scenes), chunksize=16), 1):
            xs.append(x)
            ys.append(y)
            idx.append(np.full(len(y), i, np.int32))
            if progress and (n % 500 == 0 or n == scenes):
                print(f"reader data: {n}/{scenes} scenes, {sum(len(v) for v in ys)} crops, "
                      f"{time.time() - t0:.0f} s", file=sys.stderr, flush=True)
    return np.concatenate(xs), np.concatenate(ys), np.concatenate(idx)


# ----------------------------------------------------------------------------------------------------- the network


def build_net(n_classes: int = len(READER_CLASSES)) -> Any:
    """A plain 7-conv CNN (0.67 M parameters): 64 px in, four stride-2 stages, global pooling, one linear layer.
    Input: float RGB in [0, 1], NCHW."""
    import torch.nn as nn

    def block(i: int, o: int, s: int) -> nn.Sequential:
        return nn.Sequential(nn.Conv2d(i, o, 3, s, 1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True))

    chans = [(3, 24, 2), (24, 48, 2), (48, 48, 1), (48, 96, 2), (96, 96, 1), (96, 192, 2), (192, 192, 1)]
    return nn.Sequential(*[block(*c) for c in chans], nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.1),
                         nn.Linear(192, n_classes))


def _augment(x: Any, gen: Any) -> Any:
    """Quarter turns, light, contrast and colour casts, sensor noise: on a float NCHW batch in [0, 1]."""
    import torch

    n = x.shape[0]
    k = torch.randint(0, 4, (n,), generator=gen)
    out = x.clone()
    for r in (1, 2, 3):
        m = k == r
        if m.any():
            out[m] = torch.rot90(x[m], r, (2, 3))
    gain = torch.empty(n, 1, 1, 1).uniform_(0.6, 1.3, generator=gen)
    cast = torch.empty(n, 3, 1, 1).uniform_(0.88, 1.12, generator=gen)
    mean = out.mean((1, 2, 3), keepdim=True)
    contrast = torch.empty(n, 1, 1, 1).uniform_(0.7, 1.3, generator=gen)
    out = ((out - mean) * contrast + mean) * gain * cast
    out = out + torch.randn(out.shape, generator=gen) * torch.empty(n, 1, 1, 1).uniform_(0, 0.04, generator=gen)
    return out.clamp(0, 1)


def _group_log_masks() -> list[tuple[Any, Any]]:
    """For ranks, then suits: a log-mask (classes x groups; 0 in a class's group, -inf elsewhere) and each class's
    group. Jokers and ``none`` are groups of their own in both."""
    import torch

    def groups(key: Any) -> tuple[Any, Any]:
        names = [key(c) for c in READER_CLASSES]
        order = sorted(set(names), key=names.index)
        of = torch.tensor([order.index(n) for n in names])
        mask = torch.full((len(READER_CLASSES), len(order)), float("-inf"))
        mask[torch.arange(len(READER_CLASSES)), of] = 0.0
        return mask, of

    return [groups(lambda c: c if c == "none" or c in JOKERS else c[:-1]),
            groups(lambda c: c if c == "none" or c in JOKERS else c[-1])]


def reader_loss(logits: Any, target: Any, masks: list[tuple[Any, Any]], marginal_weight: float) -> Any:
    """Cross-entropy on the card, plus ``marginal_weight`` times that on its rank and on its suit (each the sum of
    the probabilities of the cards sharing it). Why: a jack's letter is learnt from all four jacks at once, and a
    read with the right rank and wrong suit is less wrong than one with neither. ``masks``:
    :func:`_group_log_masks`, on the logits' device."""
    import torch
    import torch.nn.functional as F

    loss = F.cross_entropy(logits, target, label_smoothing=0.05)
    if marginal_weight > 0:
        logp = F.log_softmax(logits, 1).unsqueeze(2)
        for mask, of in masks:
            group_logp = torch.logsumexp(logp + mask[None], 1)
            loss = loss + marginal_weight * F.nll_loss(group_logp, of[target])
    return loss


def _to_float(x: np.ndarray) -> Any:
    import torch

    return torch.from_numpy(np.ascontiguousarray(x)).permute(0, 3, 1, 2).float().div_(255.0)


def evaluate_crops(predict: Any, x: np.ndarray, y: np.ndarray, batch: int = 512) -> dict[str, Any]:
    """Accuracy of ``predict`` (uint8 RGB crops -> class ids) on (x, y): overall, faces only, rank-only and suit-only
    on faces, and how often ``none`` was taken for a face or a face for ``none``."""
    pred = np.concatenate([predict(x[i:i + batch]) for i in range(0, len(x), batch)]) if len(x) else np.zeros(0, int)
    face = y != NONE

    def rank(c: np.ndarray) -> np.ndarray:
        return np.array([READER_CLASSES[v][:-1] for v in c])

    def suit(c: np.ndarray) -> np.ndarray:
        return np.array([READER_CLASSES[v][-1] for v in c])

    fy, fp = y[face], pred[face]
    return {
        "crops": int(len(y)), "faces": int(face.sum()),
        "accuracy": round(float((pred == y).mean()), 4) if len(y) else None,
        "face_accuracy": round(float((fp == fy).mean()), 4) if face.any() else None,
        "rank_accuracy": round(float((rank(fp) == rank(fy)).mean()), 4) if face.any() else None,
        "suit_accuracy": round(float((suit(fp) == suit(fy)).mean()), 4) if face.any() else None,
        "face_read_as_none": round(float((fp == NONE).mean()), 4) if face.any() else None,
        "none_read_as_face": round(float((pred[~face] != NONE).mean()), 4) if (~face).any() else None,
    }


@dataclass(frozen=True)
class ReaderResult:
    onnx: Path
    metrics: dict[str, Any]


def train_reader(out: str | Path, scenes: int = 12000, epochs: int = 8, seed: int = 0, faces: str = "builtin",
                 batch: int = 128, lr: float = 2e-3, val_fraction: float = 0.08, hours: float | None = None,
                 data: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
                 progress: bool = True, device: str = "cpu", init: str | Path | None = None,
                 size: int = READER_SIZE, marginal_weight: float = MARGINAL_WEIGHT) -> ReaderResult:
    """Make the crops, train the reader, export ``OUT/reader.onnx`` and ``OUT/reader.json`` (metrics, recipe).

    ``hours`` stops training at that time budget (the epoch under way finishes). Validation crops come from
    held-out scenes (every scene index with ``i % round(1 / val_fraction) == 0``). ``device``: ``cpu``, or a
    GPU (``0``, ``cuda:0``); crops are augmented on the CPU either way. ``init``: start from these weights (a
    ``reader.pt``) instead of from scratch, to train a reader further. ``size``: the crop side (px) it reads, at
    about ``(size / 64) ** 2`` times the cost. A larger one keeps a 720p webcam's corner index unshrunk (a card
    there is about 95 px tall), yet 96 px (16,000 scenes, 6 epochs) read no better: 114 of 251 top cards of rendered
    games against the shipped 64 px reader's 129, real labelled boxes 0.76 / 0.63 against 0.81 / 0.60."""
    import torch

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(seed)
    t_start = time.time()
    x, y, idx = data if data is not None else make_reader_data(scenes, seed, faces, progress=progress, size=size)
    t_data = time.time() - t_start
    every = max(2, round(1 / val_fraction))
    val = idx % every == 0
    xtr, ytr = x[~val], y[~val].astype(np.int64)
    xva, yva = x[val], y[val].astype(np.int64)
    dev = torch.device("cpu" if str(device) == "cpu" else
                       (f"cuda:{device}" if str(device).isdigit() else str(device)))
    net = build_net()
    if init is not None:
        net.load_state_dict(torch.load(str(init), map_location="cpu"))
    net = net.to(dev)
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=5e-4)
    steps = max(1, epochs * (len(xtr) // batch))
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps, pct_start=0.15)
    gen = torch.Generator().manual_seed(seed)
    step, epochs_run, history = 0, 0, []
    masks = [(mask.to(dev), of.to(dev)) for mask, of in _group_log_masks()]  # once, not every batch

    def predict(batch_x: np.ndarray) -> np.ndarray:
        net.eval()
        with torch.no_grad():
            return net(_to_float(batch_x).to(dev)).argmax(1).cpu().numpy()

    for ep in range(epochs):
        net.train()
        order = torch.randperm(len(xtr), generator=gen).numpy()
        t_ep, losses = time.time(), []
        for b in range(len(xtr) // batch):
            if step >= steps:
                break
            sel = order[b * batch:(b + 1) * batch]
            xb = _augment(_to_float(xtr[sel]), gen).to(dev, non_blocking=True)
            loss = reader_loss(net(xb), torch.from_numpy(ytr[sel]).to(dev), masks, marginal_weight)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            step += 1
            losses.append(float(loss.detach()))
            if progress and b % 100 == 0:
                print(f"reader epoch {ep + 1}/{epochs} batch {b}/{len(xtr) // batch} loss {np.mean(losses[-100:]):.3f}",
                      file=sys.stderr, flush=True)
        m = evaluate_crops(predict, xva, yva)
        epochs_run = ep + 1
        history.append({"epoch": epochs_run, "loss": round(float(np.mean(losses)), 4), **m,
                        "seconds": round(time.time() - t_ep, 1)})
        if progress:
            print(f"reader epoch {epochs_run}: {history[-1]}", file=sys.stderr, flush=True)
        if hours is not None and time.time() - t_start > hours * 3600:
            break
    net = net.cpu().eval()
    onnx_path = out / "reader.onnx"
    export_onnx(net, onnx_path, size)
    metrics = {
        "recipe_version": RECIPE_VERSION, "scenes": scenes, "seed": seed, "faces": str(faces),
        "train_crops": int(len(ytr)), "val_crops": int(len(yva)), "input": size, "margin": CROP_MARGIN,
        "epochs": epochs, "epochs_run": epochs_run, "batch": batch, "lr": lr, "marginal_weight": marginal_weight,
        "data_seconds": round(t_data, 1), "train_seconds": round(time.time() - t_start - t_data, 1),
        "threads": torch.get_num_threads(), "device": str(dev), "init": str(init) if init else None,
        "synthetic_val": history[-1] if history else {}, "history": history,
        "classes": list(READER_CLASSES),
    }
    (out / "reader.json").write_text(json.dumps(metrics, indent=1) + "\n", encoding="utf-8")
    torch.save(net.state_dict(), out / "reader.pt")
    return ReaderResult(onnx_path, metrics)


def export_onnx(net: Any, path: Path, size: int = READER_SIZE) -> None:
    """ONNX with a dynamic batch (opset 17), the classes in its metadata."""
    import onnx
    import torch

    dummy = torch.zeros(1, 3, size, size)
    torch.onnx.export(net, dummy, str(path), input_names=["crops"], output_names=["logits"],
                      dynamic_axes={"crops": {0: "n"}, "logits": {0: "n"}}, opset_version=17, dynamo=False)
    model = onnx.load(str(path))
    for k, v in (("classes", ",".join(READER_CLASSES)), ("input", str(size)), ("margin", str(CROP_MARGIN))):
        entry = model.metadata_props.add()
        entry.key, entry.value = k, v
    onnx.save(model, str(path))


def score_on_labels(reader: CardReader, folder: str | Path) -> dict[str, Any]:
    """The reader alone on real photos: each labelled box of ``FOLDER/labels.json`` cut out and read, as if the
    detector had boxed it exactly. Accuracy, rank-only and suit-only accuracy, how many were read as ``none``."""
    from models.evaluate import load_labels

    labels = load_labels(folder)
    truth: list[str] = []
    read: list[str] = []
    for name, items in labels.items():
        image = cv2.imread(str(Path(folder) / "images" / name))
        if image is None:
            raise ValueError(f"{Path(folder) / 'images' / name}: not an image")
        codes, _ = reader.read(image, np.array([lab.box for lab in items], np.float32))
        truth += [lab.card for lab in items]
        read += codes
    n = max(len(truth), 1)
    pairs = list(zip(truth, read, strict=True))
    return {"folder": Path(folder).name, "labels": len(truth),
            "accuracy": round(sum(t == r for t, r in pairs) / n, 4),
            "rank_accuracy": round(sum(t[:-1] == r[:-1] for t, r in pairs if r != "none") / n, 4),
            "suit_accuracy": round(sum(t[-1] == r[-1] for t, r in pairs if r != "none") / n, 4),
            "read_as_none": round(sum(r == "none" for r in read) / n, 4)}


# -------------------------------------------------------------------------------------------------------- inference


class CardReader:
    """The exported reader run by ONNX Runtime: ``read(frame, boxes)`` -> (codes, probabilities); ``"none"`` for a
    box that holds no face.

    ``turns``: each crop is also read turned by quarter turns and the probabilities averaged (a card turned is the
    same card, and the reader was trained on all four): 4 reads cost about a millisecond and make fewer mistakes
    than one."""

    def __init__(self, onnx_path: str | Path, threads: int | None = None, turns: int = 4) -> None:
        path = Path(onnx_path)
        if not path.is_file():
            raise FileNotFoundError(f"no card reader model at {path} (train one with `tablecam train-reader`)")
        import onnxruntime as ort

        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads or os.cpu_count() or 1
        opts.inter_op_num_threads = 1
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")  # two models share two cores
        self.session = ort.InferenceSession(str(path), sess_options=opts, providers=["CPUExecutionProvider"])
        meta = self.session.get_modelmeta().custom_metadata_map
        self.classes = tuple(meta["classes"].split(",")) if "classes" in meta else READER_CLASSES
        self.size = int(meta.get("input", READER_SIZE))
        self.margin = float(meta.get("margin", CROP_MARGIN))
        self.turns = max(1, min(4, int(turns)))
        self.path = path

    def probabilities(self, crops_rgb: np.ndarray) -> np.ndarray:
        """Softmax over the classes for uint8 RGB crops (N, S, S, 3)."""
        if not len(crops_rgb):
            return np.zeros((0, len(self.classes)), np.float32)
        x = np.ascontiguousarray(crops_rgb.transpose(0, 3, 1, 2), dtype=np.float32) / 255.0
        x = np.concatenate([np.rot90(x, k, axes=(2, 3)) for k in range(self.turns)])
        logits = self.session.run(None, {"crops": np.ascontiguousarray(x)})[0]
        e = np.exp(logits - logits.max(1, keepdims=True))
        p = e / e.sum(1, keepdims=True)
        return p.reshape(self.turns, len(crops_rgb), -1).mean(0)

    def crops(self, frame: np.ndarray, boxes: np.ndarray, bgr: bool = True) -> np.ndarray:
        out = np.stack([square_crop(frame, b, self.size, self.margin) for b in boxes]) if len(boxes) else \
            np.zeros((0, self.size, self.size, 3), np.uint8)
        return out[..., ::-1] if bgr else out

    def read(self, frame: np.ndarray, boxes: np.ndarray, bgr: bool = True) -> tuple[list[str], np.ndarray]:
        p = self.probabilities(self.crops(frame, boxes, bgr))
        best = p.argmax(1) if len(p) else np.zeros(0, np.int64)
        return [self.classes[i] for i in best], p[np.arange(len(best)), best] if len(p) else np.zeros(0, np.float32)


@dataclass
class ReadingDetector:
    """The detector finds faces, backs and hands; the reader says which card each face is.

    Faces are kept from ``face_conf`` on (the detector's face score only has to say "a card is here"), merged
    across face classes (one box per card), the ``max_faces`` surest read, and dropped when the reader says
    ``none``; their confidence becomes the reader's. Backs and hands keep the detector's classes from ``conf``
    on."""

    detector: Any
    reader: CardReader
    face_conf: float = 0.03
    conf: float = 0.25
    merge_iou: float = 0.6
    max_faces: int = 4  # a pile crop shows its top card and a few peeking ones; reading costs ~0.5 ms a turn
    remember: int = 48  # reads kept: a card lying still is read once, not at every look (see :meth:`_read`)
    deck: Any = None  # a models.deckmatch.DeckMatcher: faces are compared with pictures of the deck played
    #: the cards the table says may lie in a box (camera-frame pixels), if any: of the deck's look-alike matches, one
    #: of these is the read (:func:`models.deckmatch.deck_read`); set by whoever watches the table
    expect: Callable[[tuple[float, float, float, float]], Collection[str]] | None = None
    #: the cards the table shows in another place than a box (camera-frame pixels), where cards stay once laid: of the
    #: deck's look-alike matches, not one of these (:func:`models.deckmatch.deck_read`); set by whoever watches it
    elsewhere: Callable[[tuple[float, float, float, float]], Collection[str]] | None = None
    #: the face boxes (camera-frame pixels) whose two ends are read, where a box is as long as two cards side by side
    #: (:func:`_split_pairs`): cards laid overlapping along a row (a Pai Jie suit row), which the detector boxes as
    #: one and read as the card under the other; set by whoever watches the table
    split_pairs: Callable[[tuple[float, float, float, float]], bool] | None = None
    #: whether a face box (camera-frame pixels) lies where a card is watched (its middle on a pile, a column, a row):
    #: a face elsewhere (in a hand, on its way, on a stock) keeps the reader's own read, not the deck's (a search
    #: costs ~7 ms: rendered Spit s7, 154 of 799 searches were of such boxes); set by whoever watches the table
    watched: Callable[[tuple[float, float, float, float]], bool] | None = None
    #: whether a back boxed over part of a face box (camera-frame pixels) there is a card above it (the next card,
    #: carried face down over a Speed centre pile): the deck then compares the face on what shows, the back's box
    #: left out. Not where face-down cards lie under faces turned up on them (Cheat's pile, a Spit column); set by
    #: whoever watches the table
    backs_over_faces: Callable[[tuple[float, float, float, float]], bool] | None = None
    #: whether a box (camera-frame pixels) lies where cards lie face up only (a Pai Jie suit row): a back boxed there,
    #: however sure, is compared with the deck's pictures as an unsure one is (a face-down card carried over it
    #: matches no face and stays a back); set by whoever watches the table
    faces_only: Callable[[tuple[float, float, float, float]], bool] | None = None
    _memo: deque = field(default_factory=deque)  # (box, crop, probabilities) of recent reads

    @property
    def wants_origin(self) -> bool:
        """Whether each crop's place in the camera's frame must be given (the deck's pictures are compared with
        the card turned flat through the table's homography, which is in the whole frame's pixels)."""
        return self.deck is not None

    @property
    def imgsz(self) -> int:
        return int(self.detector.imgsz)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self.detector.names)

    def __call__(self, frame: np.ndarray, bgr: bool = True, conf: float | None = None,
                 clip: bool = True, origin: tuple[float, float] = (0.0, 0.0)) -> Detections:
        return self.many([frame], bgr, conf, clip, [origin])[0]

    def many(self, frames: list[np.ndarray], bgr: bool = True, conf: float | None = None,
             clip: bool = True, origins: list[tuple[float, float]] | None = None) -> list[Detections]:
        """:meth:`__call__` on several frames: the detector runs them side by side (``Detector.many``), and the
        faces of all of them are read in one batch. ``origins``: each frame's top-left corner in the camera's
        frame, when the frames are crops of it (see :attr:`wants_origin`)."""
        return self._with_reads(frames, self.boxes(frames, bgr, clip), bgr, conf, origins)

    def boxes(self, frames: list[np.ndarray], bgr: bool = True, clip: bool = True) -> list[Detections]:
        """The detector's own boxes in each of ``frames``, unread (faces from ``face_conf``, all else from ``conf``
        too): what :meth:`many` reads, given to it as ``found`` when they were found beforehand."""
        many = getattr(self.detector, "many", None)
        return many(frames, bgr=bgr, conf=self._faint, clip=clip) if many is not None else \
            [self.detector(f, bgr=bgr, conf=self._faint, clip=clip) for f in frames]

    def boxes_aside(self, frame: np.ndarray, bgr: bool = True, clip: bool = True) -> Detections:
        """:meth:`boxes` of one frame on one core (``Detector.solo``, where the detector has it): for a thread that
        finds a later frame's boxes beside the reads of this one's."""
        solo = getattr(self.detector, "solo", None)
        return (solo or self.detector)(frame, bgr=bgr, conf=self._faint, clip=clip)

    @property
    def _faint(self) -> float:
        """The detector's threshold for the boxes read: faces from ``face_conf``, the rest kept from ``conf``."""
        return min(self.face_conf, self.conf)

    def read_found(self, frames: list[np.ndarray], found: list[Detections], bgr: bool = True,
                   conf: float | None = None, origins: list[tuple[float, float]] | None = None) -> list[Detections]:
        """:meth:`many` with the detector's boxes ``found`` beforehand (:meth:`boxes`, :meth:`boxes_aside`)."""
        return self._with_reads(frames, found, bgr, conf, origins)

    def _with_reads(self, frames: list[np.ndarray], found: list[Detections], bgr: bool,
                    conf: float | None, origins: list[tuple[float, float]] | None = None) -> list[Detections]:
        """Each frame's detections with its faces read: faces merged across face classes, the surest
        ``max_faces`` read, ``none`` dropped; backs and hands from ``conf`` on. With a deck, a back that no face box
        covers and the detector is unsure of (or any, where cards lie face up only: :attr:`faces_only`) is compared
        with the deck's pictures too, and one they name surely is that face (the detector takes some courts, a figure
        all over, for a back: rendered Spit s11's JH and KD on a centre pile, for seconds)."""
        parts = []
        for i, dets in enumerate(found):
            if not len(dets):
                parts.append(None)
                continue
            is_face = ~np.isin(dets.class_name, ("back", "hand"))
            others = dets[~is_face & (dets.confidence >= (self.conf if conf is None else conf))]
            faces = dets[is_face]
            if len(faces):
                faces = faces[nms(faces.xyxy, faces.confidence, self.merge_iou)[:self.max_faces]]
            source = np.arange(len(faces))  # the detector's box each face box read comes from
            if self.split_pairs is not None and len(faces):
                faces, source = _split_pairs(faces, self.split_pairs, origins[i] if origins is not None else (0.0, 0.0))
            backs = np.zeros(len(others), bool)
            if self.deck is not None:
                unsure = others.confidence < BACK_READ_BELOW
                rows = np.zeros(len(others), bool)  # (where cards lie face up only, strips of them are read too)
                if self.faces_only is not None:
                    ox, oy = origins[i] if origins is not None else (0.0, 0.0)
                    rows = np.array([self.faces_only((b[0] + ox, b[1] + oy, b[2] + ox, b[3] + oy))
                                     for b in others.xyxy], bool).reshape(-1)
                    unsure |= rows
                backs = (others.class_name == "back") & unsure & ~_covered(others.xyxy, faces.xyxy, self.merge_iou)
                off_rows = np.flatnonzero(backs & ~rows)  # (off a row, a back is compared only whole)
                backs[off_rows] = self._whole(others.xyxy[off_rows], origins[i] if origins is not None else (0.0, 0.0))
            parts.append((faces, others, backs, source))
        above = [self._backs_over(p[0].xyxy, p[1].xyxy[p[1].class_name == "back"],
                                  origins[i] if origins is not None else (0.0, 0.0)) if p is not None else None
                 for i, p in enumerate(parts)]
        reads = self._read(frames, [np.concatenate([p[0].xyxy, p[1].xyxy[p[2]]]) if p is not None
                                    else np.zeros((0, 4), np.float32) for p in parts],
                           bgr, origins, [len(p[0]) if p is not None else 0 for p in parts], above)
        if self.deck is not None:
            for i, (part, (codes, probs)) in enumerate(zip(parts, reads, strict=True)):
                if part is not None:
                    self._read_unions(frames[i] if bgr else frames[i][..., ::-1], part[0], codes, probs,
                                      origins[i] if origins is not None else (0.0, 0.0))
        out = []
        for dets, part, (codes, probs) in zip(found, parts, reads, strict=True):
            if part is None:
                out.append(dets)
                continue
            faces, others, backs, source = part
            n = len(faces)
            named = np.zeros(len(others), bool)  # backs the deck names
            named[np.flatnonzero(backs)] = np.asarray(codes[n:]) != "none"
            if len(faces) or named.any():
                code_arr = np.asarray(codes)
                keep = code_arr != "none"
                keep[n:] = named[backs]
                xyxy = np.concatenate([faces.xyxy, others.xyxy[backs]])
                for a, b in zip(*np.nonzero(source[:, None] == source[None, :]), strict=True):
                    if a < b and keep[a] and keep[b] and code_arr[a] == code_arr[b]:  # one card: both ends read it
                        keep[b if probs[a] >= probs[b] else a] = False
                        xyxy[a] = xyxy[b] = _union_box(xyxy[a], xyxy[b])
                for k in np.flatnonzero(keep[:n]):  # (a box of three: its middle box is the last of the three)
                    trio = np.flatnonzero(source == source[k])
                    if len(trio) == 3 and k != trio[-1] and keep[trio[-1]] \
                            and probs[k] <= probs[trio[-1]] - STRADDLE_MARGIN:
                        keep[k] = False
                ids = np.array([READER_CLASSES.index(c) for c in code_arr[keep]], np.int64)
                faces = Detections(xyxy[keep], probs[keep].astype(np.float32), ids,
                                   code_arr[keep].astype(faces.class_name.dtype))
                others = others[~named]
            xyxy = np.concatenate([faces.xyxy, others.xyxy]).astype(np.float32)
            confidence = np.concatenate([faces.confidence, others.confidence]).astype(np.float32)
            order = np.argsort(-confidence, kind="stable")
            out.append(Detections(xyxy[order], confidence[order],
                                  np.concatenate([faces.class_id, others.class_id])[order],
                                  np.concatenate([faces.class_name, others.class_name])[order]))
        return out

    def _read(self, frames: list[np.ndarray], boxes: list[np.ndarray], bgr: bool,
              origins: list[tuple[float, float]] | None = None, n_faces: list[int] | None = None,
              above: list[list[np.ndarray] | None] | None = None) -> list[tuple[list[str], np.ndarray]]:
        """The reader's codes and confidences for each frame's ``boxes``, all read in one batch; a box read before
        (about the same box, the same pixels, within a small difference) takes that read again: the reader gives the
        same pixels the same answer, and most cards on a table lie still from one look to the next (not a read the deck
        is unsure of: :attr:`models.deckmatch.DeckMatcher.unsure`). Boxes after the
        first ``n_faces[i]`` of a frame are backs: the deck alone reads them (:meth:`_back_with_deck`). ``above``:
        for each frame, the boxes of the cards above each face box (:func:`_backs_above`), left out of the deck's
        comparison."""
        crops = [self.reader.crops(f, b, bgr) if len(b) else None for f, b in zip(frames, boxes, strict=True)]
        probs = [np.zeros((len(b), len(self.reader.classes)), np.float32) for b in boxes]
        todo: list[tuple[int, int]] = []
        memo = list(self._memo)
        memo_boxes = np.array([mb for mb, _, _ in memo], np.float32).reshape(-1, 4)
        for i, (bs, cs) in enumerate(zip(boxes, crops, strict=True)):
            for k in range(len(bs)):
                box, crop = bs[k], cs[k]
                near = np.flatnonzero(np.abs(memo_boxes - box).max(1) <= MEMO_BOX_PX) if len(memo) else []
                hit = next((memo[j][2] for j in near
                            if float(np.abs(memo[j][1].astype(np.int16) - crop).mean()) <= MEMO_PIXELS), None)
                if hit is None:
                    todo.append((i, k))
                else:
                    probs[i][k] = hit
        if todo:
            faces = [(i, k) for i, k in todo if n_faces is None or k < n_faces[i]]
            p = dict(zip(faces, self.reader.probabilities(np.stack([crops[i][k] for i, k in faces])), strict=True)) \
                if faces else {}
            for i, k in todo:
                origin = origins[i] if origins is not None else (0.0, 0.0)
                frame_bgr = frames[i] if bgr else frames[i][..., ::-1]
                if self.deck is not None:
                    self.deck.unsure = False  # (set again by a read of the deck's made now)
                if (i, k) not in p:
                    pk = self._back_with_deck(frame_bgr, boxes[i][k], origin)
                elif self.deck is not None and self._watched(boxes[i][k], origin):
                    over = above[i][k] if above is not None and above[i] is not None else None
                    pk = self._with_deck(frame_bgr, boxes[i][k], origin, p[(i, k)], over)
                else:
                    pk = p[(i, k)]
                probs[i][k] = pk
                if self.deck is not None and self.deck.unsure:
                    continue  # (look-alikes told apart once: not to stand till read so twice, see DeckMatcher.unsure)
                if self.deck is not None and _unread(float(pk.max())):
                    # a face the deck named nothing in is not remembered: fingertips leaving its edge change the crop
                    # too little to miss the memory, and the card would stay unread (rendered Snap 3p s238 8.1 s,
                    # faces filmed as prints: 3S read nothing under the hand that laid it, then nothing for 0.4 s
                    # till it was covered). The deck keeps its own failed searches while the table is unchanged.
                    continue
                self._memo.append((np.asarray(boxes[i][k], np.float32).copy(), crops[i][k].copy(), pk.copy()))
            while len(self._memo) > self.remember:
                self._memo.popleft()
        out = []
        for p in probs:
            best = p.argmax(1) if len(p) else np.zeros(0, np.int64)
            out.append(([self.reader.classes[j] for j in best], p[np.arange(len(best)), best]))
        return out

    def _read_unions(self, frame_bgr: np.ndarray, faces: Detections, codes: list[str], probs: np.ndarray,
                     origin: tuple[float, float]) -> None:
        """Two overlapping face boxes the deck's pictures named no card in (each on part of one card: the detector
        boxes a card two ways, its upper and its lower half) are read as one box around both; where the pictures
        name a card there surely (:data:`BACK_MIN_CONF`), the first box becomes that card's and the other is
        dropped (``codes`` and ``probs`` changed in place, ``none``). Rendered held-out Snap 2p s6 16.87 s: B's 10D,
        boxed at its upper two thirds and at its lower two thirds, neither read, was never seen; around both, 10D
        0.82 (10H 0.78)."""
        unread = [k for k in range(len(faces)) if _unread(float(probs[k]))]
        for a, b in itertools.combinations(unread, 2):
            if codes[a] == "none" or codes[b] == "none":
                continue
            box_a, box_b = faces.xyxy[a], faces.xyxy[b]
            union = _union_box(box_a, box_b)
            grown = _area(union) > UNION_GROWTH * max(_area(box_a), _area(box_b))
            if float(box_ious(box_a[None], box_b[None])[0, 0]) < UNION_IOU or grown or not self._watched(union, origin):
                continue
            k, confidence = self._deck_read(frame_bgr, union, origin)
            if k < 0 or confidence < BACK_MIN_CONF:
                continue
            faces.xyxy[a] = union
            codes[a], probs[a] = FACES[k], confidence
            codes[b] = "none"

    def _backs_over(self, faces: np.ndarray, backs: np.ndarray, origin: tuple[float, float]
                    ) -> list[np.ndarray] | None:
        """For each face box (crop pixels at ``origin``), the back boxes lying over part of it
        (:func:`_backs_above`) where :attr:`backs_over_faces` says a back there is above; None if it says so nowhere."""
        if self.backs_over_faces is None or not len(backs):
            return None
        ox, oy = origin
        above = _backs_above(faces, backs)
        return [a if len(a) and self.backs_over_faces((f[0] + ox, f[1] + oy, f[2] + ox, f[3] + oy))
                else a[:0] for f, a in zip(np.asarray(faces, np.float64), above, strict=True)]

    def _whole(self, boxes: np.ndarray, origin: tuple[float, float]) -> np.ndarray:
        """Which back ``boxes`` (crop pixels at ``origin``) are wide enough to hold a whole card
        (:data:`BACK_WHOLE`): only a whole card the detector took for a back is a face the deck can name there."""
        return np.array([min(b[2] - b[0], b[3] - b[1]) >= BACK_WHOLE * self.deck.card_width_px(b, origin)
                         for b in np.asarray(boxes, np.float64)], bool).reshape(-1)

    def _watched(self, box: np.ndarray, origin: tuple[float, float]) -> bool:
        """Whether the face ``box`` (crop pixels at ``origin``) is where a card is watched (:attr:`watched`)."""
        if self.watched is None:
            return True
        x0, y0, x1, y1 = (float(v) for v in box)
        ox, oy = origin
        return self.watched((x0 + ox, y0 + oy, x1 + ox, y1 + oy))

    def _with_deck(self, frame_bgr: np.ndarray, box: np.ndarray, origin: tuple[float, float],
                   p: np.ndarray, above: np.ndarray | None = None) -> np.ndarray:
        """The reader's probabilities ``p`` for one box, replaced by the deck's read (``models.deckmatch``) when the
        reader takes it for a face the deck has a picture of; a face too small to compare keeps ``p``. ``above``:
        boxes of cards lying over part of it (crop pixels), left out of the comparison."""
        read = int(p.argmax())
        x0, y0, x1, y1 = (float(v) for v in box)
        if read == NONE or FACES[read] not in self.deck.codes or min(x1 - x0, y1 - y0) < MIN_BOX_PX:
            return p
        k, confidence = self._deck_read(frame_bgr, box, origin, above)
        out = np.zeros_like(p)
        if k < 0:  # nothing in the deck looks like it (a hand over it, a card half covered): a face, no read
            out[read] = UNREAD_CONF
        else:
            out[k], out[NONE] = confidence, 1.0 - confidence
        return out

    def read_box(self, frame_bgr: np.ndarray, box: np.ndarray, want: str | None = None) -> tuple[str | None, float]:
        """The card the deck's pictures name in ``box`` (pixels of the camera's frame ``frame_bgr``) and how surely;
        (None, 0) without a deck, or where they name none surely (:data:`BACK_MIN_CONF`). ``want``: the caller asks
        only whether this card is there (None may then stand for another card: the search stops once it cannot
        name this one)."""
        if self.deck is None:
            return None, 0.0
        k, confidence = self._deck_read(frame_bgr, box, (0.0, 0.0), want=want)
        return (FACES[k], confidence) if k >= 0 and confidence >= BACK_MIN_CONF else (None, 0.0)

    def _deck_read(self, frame_bgr: np.ndarray, box: np.ndarray, origin: tuple[float, float],
                   above: np.ndarray | None = None, want: str | None = None) -> tuple[int, float]:
        """The deck's read of ``box`` (crop pixels at ``origin``), weighing the cards :attr:`expect` says may lie
        there: :func:`models.deckmatch.deck_read`; ``above``: boxes hiding part of it."""
        expected: list[str] = []
        elsewhere: list[str] = []
        x0, y0, x1, y1 = (float(v) for v in box)
        ox, oy = origin
        framed = (x0 + ox, y0 + oy, x1 + ox, y1 + oy)
        if self.expect is not None:
            expected = [c for c in self.expect(framed) if c in FACES]
        if self.elsewhere is not None:
            elsewhere = [c for c in self.elsewhere(framed) if c in FACES]
        return deck_read(self.deck.scores(frame_bgr, box, origin, expected, above, want),
                         [FACES.index(c) for c in expected],
                         [FACES.index(c) for c in elsewhere])

    def _back_with_deck(self, frame_bgr: np.ndarray, box: np.ndarray, origin: tuple[float, float]) -> np.ndarray:
        """A back's probabilities: the face the deck's pictures name from :data:`BACK_MIN_CONF` on, else ``none``
        (a back matches no face well; a court the detector took for a back matches its picture)."""
        out = np.zeros(len(self.reader.classes), np.float32)
        x0, y0, x1, y1 = (float(v) for v in box)
        k, confidence = (-1, 0.0) if min(x1 - x0, y1 - y0) < MIN_BOX_PX else self._deck_read(frame_bgr, box, origin)
        if k >= 0 and confidence >= BACK_MIN_CONF:
            out[k], out[NONE] = confidence, 1.0 - confidence
        else:
            out[NONE] = 1.0
        return out


#: a back box over a face box hides part of it (:func:`_backs_above`) when it covers at least this share of the face
#: box and at most ABOVE_MOST (a face box mostly inside a back's is a face lying on a face-down card, or the back's
#: box is the face's own), and reaches out past the face box by ABOVE_OUT of its size on some side: a card as large
#: as the face, lying elsewhere, does; a back boxed on part of the face itself does not (rendered Speed s11 4.23 s:
#: AC's middle boxed as a back, hidden, and the ace read as nothing)
ABOVE_LEAST = 0.05
ABOVE_MOST = 0.8
ABOVE_OUT = 0.15


def _backs_above(faces: np.ndarray, backs: np.ndarray) -> list[np.ndarray]:
    """For each face box (x0 y0 x1 y1), the back boxes that lie over part of it (:data:`ABOVE_LEAST`)."""
    out = []
    for f in np.asarray(faces, np.float64).reshape(-1, 4):
        fw, fh = max(f[2] - f[0], 1.0), max(f[3] - f[1], 1.0)
        keep = []
        for b in np.asarray(backs, np.float64).reshape(-1, 4):
            w = min(f[2], b[2]) - max(f[0], b[0])
            h = min(f[3], b[3]) - max(f[1], b[1])
            share = max(w, 0.0) * max(h, 0.0) / (fw * fh)
            out_x = max(f[0] - b[0], b[2] - f[2]) / fw
            out_y = max(f[1] - b[1], b[3] - f[3]) / fh
            if ABOVE_LEAST <= share <= ABOVE_MOST and max(out_x, out_y) >= ABOVE_OUT:
                keep.append(b)
        out.append(np.array(keep, np.float64).reshape(-1, 4))
    return out


#: a face box this much longer than a card (its short side times a card's 88/63) holds two cards side by side, one
#: laid over the end of the other (a Pai Jie row): each end is read as a card (:attr:`ReadingDetector.split_pairs`)
PAIR_LENGTH = 1.3
CARD_RATIO = 88.0 / 63.0
#: ... and one at least TRIPLE_LENGTH cards long holds three (the ends of two and the middle one whole, laid over
#: both): a box is added at its middle too. An end box then straddles the middle card and the strip of the next,
#: and its read, STRADDLE_MARGIN less sure than the middle's, is dropped (rendered Pai Jie 3p s7 9.75 s: 4S laid
#: between 3S and 5S, over both, boxed with them, its two ends read 3S and 2S, 0.68: "B draws 1 for the straight of 2")
TRIPLE_LENGTH = 1.8
STRADDLE_MARGIN = 0.15


def _split_pairs(faces: Detections, where: Callable[[Any], bool], origin: tuple[float, float]
                 ) -> tuple[Detections, np.ndarray]:
    """Each face box (crop pixels, the crop's top-left corner at ``origin`` in the camera's frame) that ``where`` (a
    box in frame pixels) says may hold cards side by side and that holds two (:data:`PAIR_LENGTH`), as two card-sized
    boxes at its two ends; and for each box, the index of the box it came from."""
    ox, oy = origin
    boxes, keep = [], []
    for k, (x0, y0, x1, y1) in enumerate(faces.xyxy.astype(np.float64)):
        w, h = x1 - x0, y1 - y0
        if not where((x0 + ox, y0 + oy, x1 + ox, y1 + oy)):
            boxes.append((x0, y0, x1, y1))
            keep.append(k)
        elif w >= PAIR_LENGTH * h / CARD_RATIO:  # portrait cards along a row running across the image
            cw = h / CARD_RATIO
            boxes += [(x0, y0, x0 + cw, y1), (x1 - cw, y0, x1, y1)]
            keep += [k, k]
            if w >= TRIPLE_LENGTH * cw:
                boxes.append(((x0 + x1 - cw) / 2, y0, (x0 + x1 + cw) / 2, y1))
                keep.append(k)
        elif h >= PAIR_LENGTH * w * CARD_RATIO:  # ... down the image
            ch = w * CARD_RATIO
            boxes += [(x0, y0, x1, y0 + ch), (x0, y1 - ch, x1, y1)]
            keep += [k, k]
            if h >= TRIPLE_LENGTH * ch:
                boxes.append((x0, (y0 + y1 - ch) / 2, x1, (y0 + y1 + ch) / 2))
                keep.append(k)
        else:
            boxes.append((x0, y0, x1, y1))
            keep.append(k)
    source = np.array(keep, np.int64)
    return Detections(np.array(boxes, np.float32).reshape(-1, 4), faces.confidence[source], faces.class_id[source],
                      faces.class_name[source]), source


#: two unread face boxes are read as one box around both (:meth:`ReadingDetector._read_unions`) where they overlap
#: this much (IoU) at least, and the box around both is at most UNION_GROWTH times the larger one's area (two halves
#: of one card, not two cards side by side)
UNION_IOU = 0.2
UNION_GROWTH = 2.0


def _area(box: Any) -> float:
    return max(0.0, float(box[2]) - float(box[0])) * max(0.0, float(box[3]) - float(box[1]))


def _union_box(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.array([min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3])], np.float32)


def _covered(boxes: np.ndarray, by: np.ndarray, iou: float) -> np.ndarray:
    """Which ``boxes`` overlap one of ``by`` by more than ``iou`` (intersection over union)."""
    if not len(boxes) or not len(by):
        return np.zeros(len(boxes), bool)
    return (box_ious(boxes, by) > iou).any(1)


#: backs the detector is less sure of than this are compared with the deck's pictures (rendered Spit s11: 29 of 30
#: backs the deck named were below 0.45, none of 206 from 0.55 on; a comparison costs ~25 ms on this CPU). 0.7 since
#: the detector was trained on faces filmed as prints: a striped court turned up on a Spit column is boxed as a back at
#: 0.51-0.69 (rendered Spit 2p s11 13.0 s: B's QS, never read there, so its play was "not a visible top of any
#: column" and the game's verdicts cascaded); the Spit audit is ~8 % slower so
BACK_READ_BELOW = 0.7
#: ... and only where the box's shorter side is at least this share of a card's width there: every back the deck
#: named on rendered Spit games was a whole card the detector took for a back (shorter side 52-76 px, 0.8 of a
#: card's width and more; s11: 42 of 253 compared), none a strip of the face-down cards peeking from under a column's
#: top (held-out s7: 210 of 266 compared were under 47 px, none named), each comparison ~12 ms. Not on Pai Jie's rows
#: (``faces_only``), where cards show as strips of faces
BACK_WHOLE = 0.7
#: a back the deck's pictures read at this confidence or more is that face (:func:`models.deckmatch.deck_read`: 0.7
#: is a match of 0.55; a back matches no face that well)
BACK_MIN_CONF = 0.7
#: a read is taken again for a box within this many pixels of one read before, whose crop differs by at most
#: this mean grey level (0-255): codec noise on a still card, not another card or a hand coming over it
MEMO_BOX_PX = 6.0
MEMO_PIXELS = 6.0
#: the confidence of a face the deck's pictures cannot name: kept (the pile is not empty) but below any tracker's
#: evidence threshold, so it names nothing
UNREAD_CONF = 0.1


def _unread(confidence: float) -> bool:
    """Whether a face's confidence is :data:`UNREAD_CONF`: the deck's pictures named nothing in it."""
    return abs(confidence - UNREAD_CONF) < 1e-6


WEIGHTS = Path(__file__).resolve().parent / "weights"
SHIPPED_READER = WEIGHTS / "tablecam-reader.onnx"


def load_card_model(model: str | Path, reader: str | Path | None = "auto", conf: float = 0.25,
                    threads: int | None = None, imgsz: int | None = None, turns: int = 4) -> Any:
    """The detector at ``model``, with a reader for its faces: ``reader="auto"`` uses the shipped reader when it is
    there, a path uses that one, ``None``/``"none"`` reads faces with the detector's own classes. ``turns``: how
    many quarter turns of each crop the reader reads (live reads one: every millisecond counts there)."""
    from models.detector import Detector

    det = Detector(model, conf=conf, threads=threads, imgsz=imgsz)
    if reader is None or str(reader).lower() in ("none", "false", ""):
        return det
    path = SHIPPED_READER if str(reader) == "auto" else Path(reader)
    if str(reader) == "auto" and not path.is_file():
        return det
    return ReadingDetector(det, CardReader(path, threads=threads, turns=turns), conf=conf)


def attach_deck(detector: Any, folder: str | Path, image_to_mm: Any, layout_name: str = "the layout",
                codes: Collection[str] | None = None) -> None:
    """Read ``detector``'s faces against the pictures of the deck played in ``folder`` (``models.deckmatch``),
    of the cards ``codes`` only where given (the cards the game is played with).
    Raises ValueError saying what is missing: the card reader (the pictures settle what it reads), the table
    homography (a card is turned flat through it), or the pictures."""
    from models.deckmatch import DeckMatcher

    if not isinstance(detector, ReadingDetector):
        raise ValueError(f"deck={folder}: the deck's pictures settle what the card reader reads; "
                         f"use the reader (reader=auto or a path), not reader=none")
    if image_to_mm is None:
        raise ValueError(f"deck={folder}: {layout_name} has no table homography to turn cards flat with; "
                         f"calibrate from markers or corners")
    try:
        detector.deck = DeckMatcher.from_folder(folder, image_to_mm, codes)
    except FileNotFoundError as e:
        raise ValueError(str(e)) from None


def write_reader_card(out: Path, metrics: dict[str, Any], real: list[dict[str, Any]] | None = None) -> Path:
    """``OUT/READER_CARD.md``: the reader's data, training and measured accuracy, for people."""
    v = metrics.get("synthetic_val", {})
    lines = [
        "# tablecam card reader", "",
        "Stage two of card recognition: reads which of the 54 faces (or `none`) a detected face box holds, from a "
        f"{metrics['input']} px square crop of the frame around the box (margin {metrics['margin']}).", "",
        "## Data", "",
        f"- {metrics['scenes']} synthetic scenes (`models.scenes.make_scene`, 70 % close-ups), seed {metrics['seed']}, "
        f"faces: {metrics['faces']} (user faces in 35 % of the scenes when a folder is given).",
        f"- {metrics['train_crops']} training crops, {metrics['val_crops']} validation crops from held-out scenes.",
        "- Positives: faces with at least 60 % of their area and 85 % of one corner index showing, box edges "
        f"jittered by {NORMAL_BOX_JITTER:.0%} of the box side. `none`: backs, hands, bare table, boxes off their card.",
        "- Augmentation: quarter turns, light, contrast, colour casts, noise. No mirror images.", "",
        "## Training", "",
        f"- {metrics['epochs_run']} of {metrics['epochs']} epochs, batch {metrics['batch']}, AdamW one-cycle to lr "
        f"{metrics['lr']}, on {metrics.get('device', 'cpu')} ({metrics['threads']} CPU threads); data "
        f"{metrics['data_seconds']:.0f} s, training "
        f"{metrics['train_seconds']:.0f} s" + (f", starting from `{metrics['init']}`" if metrics.get("init") else "")
        + ".", "",
        "## Measured", "",
        "| set | crops | read right | rank right | suit right | face read as none | none read as face |",
        "|---|---|---|---|---|---|---|",
        f"| synthetic validation | {v.get('faces')} faces / {v.get('crops')} | {v.get('face_accuracy')} | "
        f"{v.get('rank_accuracy')} | {v.get('suit_accuracy')} | {v.get('face_read_as_none')} | "
        f"{v.get('none_read_as_face')} |",
    ]
    for r in real or []:
        lines.append(f"| real photos `{r['folder'][:40]}` (labelled boxes) | {r['labels']} | {r['accuracy']} | "
                     f"{r['rank_accuracy']} | {r['suit_accuracy']} | {r['read_as_none']} | |")
    path = out / "READER_CARD.md"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
