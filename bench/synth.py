"""Synthetic dataset speed: images per second, and the projected time for 10,000 images.

Target (detector issue): 10,000 images at 640 px in under 10 minutes on the 2-core machine, i.e. about 100 ms
per image per core. Two rows: ``1 process`` (scene generation + JPEG + label file, in this process) and
``all cores`` (``models.dataset.generate`` with a worker pool, start-up included, into a temporary folder).
The machine is shared, so the load average is printed with the figures.

    python bench/synth.py [--images 120] [--imgsz 640] [--workers N]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import cv2  # noqa: E402

from models.dataset import _write_item, generate, make_item  # noqa: E402
from models.scenes import FaceSet  # noqa: E402

TARGET_IMAGES = 10_000
TARGET_SECONDS = 600


def _row(name: str, workers: int, n: int, seconds: float) -> str:
    rate = n / seconds
    proj = TARGET_IMAGES / rate
    verdict = "" if workers == 1 else ("ok" if proj <= TARGET_SECONDS else "SLOW")
    return (f"{name:<12} {workers:>7} {n:>6} {seconds:>8.1f} {rate:>8.1f} {1000 * workers / rate:>12.0f} "
            f"{proj / 60:>10.1f}  {verdict}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--images", type=int, default=120)
    ap.add_argument("--imgsz", type=int, default=640)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--faces", default="builtin")
    args = ap.parse_args()
    print(f"cores {os.cpu_count()}, load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}, "
          f"imgsz {args.imgsz}, faces {args.faces}")
    print(f"{'mode':<12} {'workers':>7} {'images':>6} {'seconds':>8} {'img/s':>8} {'ms/img/core':>12} "
          f"{'10k (min)':>10}")
    cv2.setNumThreads(1)
    faces = FaceSet(args.faces)
    make_item(10**6, 0, args.imgsz, faces)  # fonts, caches, noise bank
    n1 = max(10, args.images // 4)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        for sub in ("images/train", "labels/train"):
            (out / sub).mkdir(parents=True)
        t = time.perf_counter()
        for i in range(n1):
            img, labels, q = make_item(i, 0, args.imgsz, faces)
            _write_item(out, i, "train", img, labels, q)
        print(_row("1 process", 1, n1, time.perf_counter() - t))
    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        generate(tmp, args.images, imgsz=args.imgsz, seed=1, faces=args.faces, workers=args.workers,
                 progress=False)
        print(_row("all cores", args.workers, args.images, time.perf_counter() - t))
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
