"""Write a synthetic YOLO dataset (ultralytics layout) from :mod:`models.scenes`, on all cores.

Why the details: image ``i`` depends only on ``(seed, i)`` (its own generator), so a dataset is reproducible
whatever the number of workers and an interrupted run can be finished instead of redone; ``recipe.json`` records
what was asked, so asking again for the same dataset costs nothing and asking for a different one replaces it.

Layout::

    OUT/data.yaml            path (absolute), train, val, nc, names (the 56 classes of models.classes)
    OUT/recipe.json          the recipe and whether it completed
    OUT/images/{train,val}/000123.jpg
    OUT/labels/{train,val}/000123.txt   "class cx cy w h" per line, normalised
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing as mp
import os
import sys
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from models.classes import CLASSES
from models.progress import Progress
from models.scenes import FaceSet, make_scene

RECIPE_VERSION = 2  # bump when scenes change so that old datasets are stale (2: cards were mirrored)
JPEG_QUALITY = 95
_ASPECTS = ((4, 3), (16, 9), (1, 1))  # webcam frames, wide webcams, square crops
_ASPECT_P = (0.6, 0.25, 0.15)


def is_val(i: int, val_fraction: float) -> bool:
    """Exactly ``val_fraction`` of the images, spread evenly, chosen by index alone (deterministic)."""
    return int((i + 1) * val_fraction) > int(i * val_fraction)


def image_size(rng: np.random.Generator, imgsz: int) -> tuple[int, int]:
    """(width, height): long side ``imgsz``, aspect 4:3, 16:9 or 1:1 (even numbers, as video frames are)."""
    aw, ah = _ASPECTS[int(rng.choice(len(_ASPECTS), p=_ASPECT_P))]
    return imgsz, max(2, round(imgsz * ah / aw / 2) * 2)


def is_closeup(i: int, closeup: float) -> bool:
    """Whether image ``i`` is a close-up (a zone crop's view), spread evenly by index like :func:`is_val`."""
    return int((i + 1) * closeup + 0.5) > int(i * closeup + 0.5)


def make_item(i: int, seed: int, imgsz: int, faces: FaceSet, closeup: float = 0.0) -> tuple[np.ndarray, list, int]:
    """Image ``i`` of the dataset with seed ``seed``, its labels and the JPEG quality to save it at (the scene's
    simulated webcam compression, applied once, when writing); depends on nothing else."""
    rng = np.random.default_rng([seed, i])
    img, labels, info = make_scene(rng, faces, image_size(rng, imgsz), return_info=True, jpeg=False,
                                   closeup=is_closeup(i, closeup))
    return img, labels, info.jpeg_quality or JPEG_QUALITY


def _paths(out: Path, i: int, split: str) -> tuple[Path, Path]:
    return out / "images" / split / f"{i:06d}.jpg", out / "labels" / split / f"{i:06d}.txt"


def _write_item(out: Path, i: int, split: str, img: np.ndarray, labels: list, quality: int = JPEG_QUALITY) -> None:
    ip, lp = _paths(out, i, split)
    ok, buf = cv2.imencode(".jpg", cv2.cvtColor(img, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise OSError(f"cannot encode image {i}")
    lp.write_text("".join(f"{c} {cx:.6f} {cy:.6f} {w:.6f} {h:.6f}\n" for c, cx, cy, w, h in labels))
    tmp = ip.with_suffix(".tmp")
    tmp.write_bytes(buf.tobytes())
    os.replace(tmp, ip)  # the image appears last and whole: its presence means the item is done


# worker state (one FaceSet per process: a user's folder is read once per worker)
_W: dict[str, Any] = {}


def _init_worker(faces: str, out: str, seed: int, imgsz: int, val_fraction: float, closeup: float = 0.0) -> None:
    cv2.setNumThreads(1)  # one process per core already; threads inside each would only fight
    _W.update(faces=FaceSet(faces), out=Path(out), seed=seed, imgsz=imgsz, val_fraction=val_fraction,
              closeup=closeup)


def _work(i: int) -> int:
    img, labels, quality = make_item(i, _W["seed"], _W["imgsz"], _W["faces"], _W["closeup"])
    _write_item(_W["out"], i, "val" if is_val(i, _W["val_fraction"]) else "train", img, labels, quality)
    return i


def _faces_id(faces: str) -> str:
    """What the recipe records for ``faces``: ``builtin``, or the folder and a digest of its file list."""
    if str(faces) == "builtin":
        return "builtin"
    folder = Path(faces).resolve()
    h = hashlib.sha1()
    for f in sorted(folder.iterdir()):
        if f.is_file():
            h.update(f"{f.name}:{f.stat().st_size}\n".encode())
    return f"{folder}#{h.hexdigest()[:12]}"


def _clear(out: Path) -> None:
    """Remove the files a previous recipe wrote (only ours: NNNNNN.jpg/.txt/.tmp under images/ and labels/)."""
    for sub in ("images", "labels"):
        for split in ("train", "val"):
            d = out / sub / split
            if d.is_dir():
                for f in d.iterdir():
                    if f.stem.isdigit() and f.suffix in (".jpg", ".txt", ".tmp"):
                        f.unlink()


def generate(out_dir: str | Path, images: int, imgsz: int = 640, seed: int = 0, val_fraction: float = 0.1,
             faces: str | Path = "builtin", workers: int | None = None, progress: bool = True,
             closeup: float = 0.0) -> Path:
    """Write (or finish, or reuse) the dataset and return its ``data.yaml``.

    ``closeup``: the share of images seen from 16-40 cm (zone crops, as the audit detects on), the rest 40-120 cm.
    ``workers`` defaults to all cores; ``workers=1`` runs in this process (no pool)."""
    if images < 1:
        raise ValueError("images must be at least 1")
    if not 0 <= val_fraction < 1:
        raise ValueError("val_fraction must be in [0, 1)")
    if imgsz < 32:
        raise ValueError("imgsz must be at least 32")
    if not 0 <= closeup <= 1:
        raise ValueError("closeup must be in [0, 1]")
    out = Path(out_dir).resolve()
    faces = str(faces)
    FaceSet(faces)  # fail early on a bad folder, before any worker starts
    recipe = {"version": RECIPE_VERSION, "images": int(images), "imgsz": int(imgsz), "seed": int(seed),
              "val_fraction": float(val_fraction), "faces": _faces_id(faces)}
    if closeup:
        recipe["closeup"] = float(closeup)  # absent when 0, so datasets made before the option stay reusable
    rpath = out / "recipe.json"
    data_yaml = out / "data.yaml"
    old = None
    if rpath.is_file():
        try:
            old = json.loads(rpath.read_text())
        except (OSError, ValueError):
            old = None
    if old is not None and old.get("recipe") == recipe and old.get("complete") and data_yaml.is_file():
        if progress:
            print(f"synth: {out} already holds this dataset ({images} images); reused", file=sys.stderr)
        return data_yaml
    if old is not None and old.get("recipe") != recipe:
        _clear(out)
    for sub in ("images", "labels"):
        for split in ("train", "val"):
            (out / sub / split).mkdir(parents=True, exist_ok=True)
    rpath.write_text(json.dumps({"recipe": recipe, "complete": False}, indent=1))
    todo = [i for i in range(images)
            if not _paths(out, i, "val" if is_val(i, val_fraction) else "train")[0].is_file()]
    bar = Progress(len(todo), "synth", "img", enabled=progress)
    workers = max(1, int(workers or os.cpu_count() or 1))
    init_args = (faces, str(out), int(seed), int(imgsz), float(val_fraction), float(closeup))
    t0 = time.perf_counter()
    if workers == 1 or len(todo) <= 1:
        _init_worker(*init_args)
        for i in todo:
            _work(i)
            bar.update()
    elif todo:
        # spawn, not fork: a fork of a process whose cv2 thread pool is busy can deadlock (seen under pytest)
        ctx = mp.get_context("spawn")
        with ctx.Pool(workers, initializer=_init_worker, initargs=init_args) as pool:
            for _ in pool.imap_unordered(_work, todo, chunksize=max(1, min(16, len(todo) // (workers * 8)))):
                bar.update()
    bar.close()
    elapsed = time.perf_counter() - t0
    names = "\n".join(f'  {k}: "{n}"' for k, n in enumerate(CLASSES))
    data_yaml.write_text(f"# tablecam synthetic cards: models/dataset.py, recipe in recipe.json\n"
                         f"path: {out}\ntrain: images/train\nval: images/val\nnc: {len(CLASSES)}\nnames:\n{names}\n")
    rpath.write_text(json.dumps({"recipe": recipe, "complete": True, "generated": len(todo),
                                 "seconds": round(elapsed, 2), "workers": workers}, indent=1))
    return data_yaml
