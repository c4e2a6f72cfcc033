"""Detector latency: median ONNX Runtime time per 640x480 frame, whole path (letterbox, inference, decode, NMS).

Why an untrained model is fine by default: the latency depends on the graph and the input size, not the weights
(only the decode/NMS step grows with the number of boxes over the threshold, shown separately at conf 0.001).
Figures to compare with (``shared/ENVIRONMENT.md``, 2-core CPU, 2 threads): 11-17 ms at 320, 42-57 ms at 640.
The machine is shared, so the load average is printed with the figures.

    python bench/detector.py [--model best.onnx] [--imgsz 320 640] [--repeats 50] [--threads N] [--reader R.onnx]

The card reader (stage two, ``models.reader``) is timed on 1, 4 and 16 face boxes of the frame.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

from models.detector import Detector  # noqa: E402
from models.reader import SHIPPED_READER, CardReader  # noqa: E402


def fresh_model(imgsz: int, folder: Path) -> Path:
    """An untrained yolo11n with the detector's 56 classes, exported to ONNX at ``imgsz`` (offline fixes applied)."""
    import yaml

    from models.classes import CLASSES
    from models.train import _import_ultralytics, configure_offline

    configure_offline(folder / ".ultralytics")
    ultralytics = _import_ultralytics(os.cpu_count() or 1)
    from ultralytics.nn.tasks import yaml_model_load

    cfg = yaml_model_load("yolo11n.yaml")
    cfg["nc"] = len(CLASSES)
    arch = folder / f"s{imgsz}" / "yolo11n.yaml"  # the name tells ultralytics the scale (n)
    arch.parent.mkdir(parents=True, exist_ok=True)
    arch.write_text(yaml.safe_dump({k: v for k, v in cfg.items() if k != "yaml_file"}))
    model = ultralytics.YOLO(str(arch))
    model.model.names = dict(enumerate(CLASSES))
    with contextlib.chdir(arch.parent):  # a model built from a YAML exports into the working folder
        return arch.parent / model.export(format="onnx", imgsz=imgsz, simplify=True, verbose=False)


def _median_ms(fn, repeats: int) -> float:
    fn()  # warm-up (first run allocates)
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return 1000 * statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", type=Path, default=None, help="an exported .onnx (default: a fresh untrained yolo11n)")
    ap.add_argument("--imgsz", type=int, nargs="+", default=[320, 640])
    ap.add_argument("--repeats", type=int, default=50)
    ap.add_argument("--threads", type=int, default=None, help="ONNX Runtime threads (default: all cores)")
    ap.add_argument("--reader", type=Path, default=None,
                    help="the card reader to time on face crops (default: the shipped one, when it is there)")
    args = ap.parse_args(argv)

    rng = np.random.default_rng(0)
    frame = rng.integers(0, 256, (480, 640, 3), dtype=np.uint8)
    print(f"cores {os.cpu_count()}  load average {os.getloadavg()[0]:.2f}  frame 640x480  repeats {args.repeats}")
    print(f"{'model':<28} {'imgsz':>5} {'whole ms':>9} {'graph ms':>9} {'conf.001 ms':>12} {'fps':>6}")
    with tempfile.TemporaryDirectory() as tmp:
        for imgsz in args.imgsz:
            path = args.model or fresh_model(imgsz, Path(tmp))
            det = Detector(path, imgsz=imgsz, threads=args.threads)
            x, _ = det.preprocess(frame)
            whole = _median_ms(lambda d=det: d(frame), args.repeats)
            graph = _median_ms(lambda d=det, x=x: d.raw(x), args.repeats)
            low = _median_ms(lambda d=det: d(frame, conf=0.001), max(5, args.repeats // 5))
            name = path.name if args.model else "yolo11n (untrained)"
            print(f"{name:<28} {imgsz:>5} {whole:>9.1f} {graph:>9.1f} {low:>12.1f} {1000 / whole:>6.1f}")
    reader_path = args.reader or SHIPPED_READER
    if reader_path.is_file():  # stage two: reading the faces the detector boxed, from the frame
        reader = CardReader(reader_path, threads=args.threads)
        print(f"{'reader':<28} {'faces':>5} {'whole ms':>9}")
        for n in (1, 4, 16):
            boxes = np.array([[100 + 20 * i, 100, 180 + 20 * i, 210] for i in range(n)], np.float32)
            ms = _median_ms(lambda r=reader, b=boxes: r.read(frame, b), args.repeats)
            print(f"{reader_path.name:<28} {n:>5} {ms:>9.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
