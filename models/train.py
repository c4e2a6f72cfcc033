"""Train the card detector from scratch (no pretrained weights exist offline), export ONNX, write metrics and a card.

Why the details (``shared/ENVIRONMENT.md``): ultralytics looks up github.com for its fonts on every ``train()``, so
a project-local ``YOLO_CONFIG_DIR`` holds matplotlib's DejaVuSans copied under the two names it wants, and
``YOLO_OFFLINE``/``YOLO_AUTOINSTALL`` stop the other network calls; it pins CPU training to one thread, which wastes
the other cores; ``fliplr`` mirrors card indices (a mirrored 7 is no card), so flips are off; ``mixup`` blends two
scenes into ghost cards no camera sees, so it is off. The model is built from ``yolo11n.yaml`` (no ``.pt`` download).

Output folder::

    OUT/best.pt  OUT/best.onnx       weights (PyTorch, ONNX without NMS: see models.detector)
    OUT/metrics.json  OUT/MODEL_CARD.md
    OUT/run/                         ultralytics' run folder (last.pt, results.csv, args.yaml)
    OUT/data/                        the synthetic dataset, when none was given (reused when the recipe matches)
"""

from __future__ import annotations

import json
import os
import platform
import re
import shutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from models.classes import BACK, CLASSES, FACES, HAND

_DEVICE_RE = re.compile(r"^(cpu|mps|cuda|cuda:\d+|\d+(,\d+)*)$")
CARD_IDS = frozenset(range(len(FACES)))  # the 54 faces: what "cards" means in the metrics


class MissingDependency(RuntimeError):
    """ultralytics (or its torch) is not installed: a setup problem, not a bug; the CLI reports it in one line."""


@dataclass(frozen=True)
class TrainResult:
    """Where a run's artefacts are (the lead's CLI prints these) and its metrics."""

    out: Path
    pt: Path
    onnx: Path | None
    metrics: dict[str, Any]


def check_device(device: str | int) -> str:
    """``cpu``, ``mps``, ``cuda[:N]`` or GPU indices (``0``, ``0,1``); anything else is refused before a long start-up.
    A GPU asked for where torch sees none is refused too (ultralytics' own message comes much later)."""
    d = str(device).strip().lower()
    if not _DEVICE_RE.match(d):
        raise ValueError(f"device={device!r} is not a device: use cpu, 0 (first GPU), 0,1 or cuda:0")
    if d not in ("cpu", "mps"):
        import torch

        n = torch.cuda.device_count()
        wanted = [0] if d == "cuda" else [int(x) for x in d.removeprefix("cuda:").split(",")]
        if n == 0:
            raise ValueError(f"device={device!r} asks for a GPU but torch sees none here; use device=cpu")
        if max(wanted) >= n:
            raise ValueError(f"device={device!r}: only {n} GPU(s) here (0..{n - 1})")
    return d


def _font_source() -> Path:
    import matplotlib

    f = Path(matplotlib.__file__).parent / "mpl-data" / "fonts" / "ttf" / "DejaVuSans.ttf"
    if not f.is_file():
        raise FileNotFoundError(f"matplotlib's DejaVuSans.ttf is missing ({f}); ultralytics would try to download "
                                f"Arial.ttf and fail offline")
    return f


def _place_fonts(config_sub: Path) -> None:
    config_sub.mkdir(parents=True, exist_ok=True)
    src = _font_source()
    for name in ("Arial.ttf", "Arial.Unicode.ttf"):
        if not (config_sub / name).is_file():
            shutil.copyfile(src, config_sub / name)


def configure_offline(config_dir: str | Path) -> Path:
    """Apply the offline fixes; call before the first ``import ultralytics`` (this module's functions do).

    If ultralytics is already imported, its settings folder is fixed; the fonts are then placed in that one too."""
    config_dir = Path(config_dir).resolve()
    os.environ.setdefault("YOLO_CONFIG_DIR", str(config_dir))
    os.environ["YOLO_OFFLINE"] = "1"
    os.environ["YOLO_AUTOINSTALL"] = "0"
    os.environ.setdefault("MPLCONFIGDIR", str(config_dir / "matplotlib"))
    _place_fonts(Path(os.environ["YOLO_CONFIG_DIR"]) / "Ultralytics")
    if sys.modules.get("ultralytics") is not None:
        from ultralytics.utils import USER_CONFIG_DIR

        _place_fonts(Path(USER_CONFIG_DIR))
    return config_dir


def _import_ultralytics(threads: int) -> Any:
    """Import ultralytics with a clear message when it is absent, and let CPU training use every core."""
    try:
        import ultralytics
        import ultralytics.utils.torch_utils as tu
    except ImportError as e:
        raise MissingDependency("ultralytics is not installed (pip install ultralytics==8.4.190; it brings torch and "
                           f"torchvision): {e}") from None
    tu.NUM_THREADS = threads  # select_device() resets torch to this many threads on CPU (default: cores - 1)
    import torch

    torch.set_num_threads(threads)
    return ultralytics


def _check_data(data_yaml: Path) -> None:
    """A missing or incomplete dataset is named here rather than deep in ultralytics' loader."""
    import yaml

    if not data_yaml.is_file():
        raise FileNotFoundError(f"no dataset description at {data_yaml} (make one with `tablecam synth out=DIR` "
                                f"or pass data=None to generate one)")
    cfg = yaml.safe_load(data_yaml.read_text()) or {}
    root = Path(cfg.get("path") or data_yaml.parent)
    if not root.is_absolute():
        root = (data_yaml.parent / root).resolve()
    for split in ("train", "val"):
        if split not in cfg:
            raise ValueError(f"{data_yaml} has no '{split}' entry")
        d = root / str(cfg[split])
        if not d.is_dir() or not any(d.iterdir()):
            raise FileNotFoundError(f"the {split} images folder {d} (from {data_yaml}) is missing or empty")
    if int(cfg.get("nc", len(CLASSES))) != len(CLASSES):
        raise ValueError(f"{data_yaml} has nc={cfg.get('nc')}, the detector has {len(CLASSES)} classes "
                         f"(models.classes)")


def hardware(device: str) -> dict[str, Any]:
    """What the run ran on, for the metrics and the model card (speeds differ by orders of magnitude)."""
    import torch

    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    hw: dict[str, Any] = {"device": device, "cpu": cpu, "cores": os.cpu_count(), "torch": torch.__version__,
                          "python": platform.python_version()}
    if device not in ("cpu", "mps") and torch.cuda.is_available():
        hw["gpu"] = torch.cuda.get_device_name(0)
    try:
        import ultralytics

        hw["ultralytics"] = ultralytics.__version__
    except ImportError:
        pass
    return hw


def group_metrics(all_ap: Any, class_index: Any) -> dict[str, dict[str, float | None]]:
    """mAP50 and mAP50-95 overall and for cards / back / hand, from ultralytics' per-class AP table
    (``all_ap``: one row of 10 IoU thresholds per class present in the validation labels)."""
    import numpy as np

    ap = np.asarray(all_ap, dtype=float).reshape(-1, 10)
    idx = [int(i) for i in class_index]

    def pick(ids: set[int] | frozenset[int]) -> dict[str, float | None]:
        rows = [r for r, c in enumerate(idx) if c in ids]
        if not rows:
            return {"mAP50": None, "mAP50-95": None, "classes": 0}
        sub = ap[rows]
        return {"mAP50": round(float(sub[:, 0].mean()), 4), "mAP50-95": round(float(sub.mean()), 4),
                "classes": len(rows)}

    return {"all": pick(set(idx)), "cards": pick(CARD_IDS), "back": pick({BACK}), "hand": pick({HAND})}


# Augmentation for cards (ultralytics names). Flips mirror the indices; mixup makes ghost cards; the scenes
# already vary rotation, perspective, light and blur, so the geometric jitter stays moderate.
CARD_AUG: dict[str, Any] = {
    "fliplr": 0.0, "flipud": 0.0, "mixup": 0.0, "cutmix": 0.0, "copy_paste": 0.0,
    "degrees": 0.0, "shear": 0.0, "perspective": 0.0, "translate": 0.1, "scale": 0.5,
    "mosaic": 1.0, "hsv_h": 0.01, "hsv_s": 0.5, "hsv_v": 0.4,
}


def _model_card(path: Path, m: dict[str, Any]) -> None:
    def f(x: Any) -> str:
        return "n/a" if x is None else f"{x:.3f}"

    rows = "\n".join(f"| {k} | {f(v['mAP50'])} | {f(v['mAP50-95'])} | {v['classes']} |"
                     for k, v in m["val"].items())
    hw = m["hardware"]
    d = m["data"]
    path.write_text(f"""# tablecam card detector ({m['model']}, trained from scratch)

Finds the 52 cards and two jokers by face (one class each), face-down cards (`back`) and hands (`hand`):
{len(CLASSES)} classes in the order of `models/classes.py` (never reorder).

## Data
Synthetic table scenes from `models/dataset.py` (`models.scenes`: rendered decks in many styles, camera, table,
hands, distractors, webcam effects); labels are the visible part of each object.
- dataset: `{d['yaml']}`
- recipe: {json.dumps(d.get('recipe'))}
- images: {d.get('images')} ({d.get('train_images')} train, {d.get('val_images')} val)

## Training
- architecture `{m['model']}.yaml`, no pretrained weights; imgsz {m['imgsz']}, {m.get('epochs_run', m['epochs'])}
  epochs run (of {m['epochs']} allowed), batch {m['batch']}, seed {m['seed']}
- other settings: {', '.join(f'{k}={v}' for k, v in m.get('settings', {}).items()) or 'ultralytics defaults'}
- augmentation: {', '.join(f'{k}={v}' for k, v in m['augmentation'].items())}
- hardware: {hw.get('gpu') or hw.get('cpu')} ({hw.get('cores')} cores), device `{hw['device']}`, torch
  {hw.get('torch')}, ultralytics {hw.get('ultralytics')}
- time: data {m['seconds']['data']:.0f} s, training {m['seconds']['train']:.0f} s, export
  {m['seconds']['export']:.0f} s

## Metrics (synthetic validation set)
| group | mAP50 | mAP50-95 | classes present |
|---|---|---|---|
{rows}

These are scores on scenes drawn by the same renderer as the training set: they measure fit, not transfer to
real decks (score those with `tablecam eval-detector` on `data/real_cards`).

## Files
`best.pt` (ultralytics), `best.onnx` (ONNX, opset of ultralytics' export, outputs `(1, 4+{len(CLASSES)}, N)`
boxes cx,cy,w,h in letterboxed pixels and class scores; NMS is not in the graph: `models.detector.Detector`).
The ONNX input size is dynamic: whole frames and photos run at the training size (the metadata's `imgsz`), the
zone crops of some games at `models.detector.ZONE_IMGSZ` (160 px; `vision.watcher.ZONE_SIZE_GAMES`).
""")


def _count(folder: Path) -> int:
    return sum(1 for p in folder.iterdir() if p.suffix.lower() in (".jpg", ".jpeg", ".png")) if folder.is_dir() else 0


def train(data: str | Path | None = None, *, images: int = 1000, epochs: int = 30, imgsz: int = 640,
          model: str = "yolo11n", device: str | int = "cpu", batch: int = 16, workers: int | None = None,
          out: str | Path = "out/train", seed: int = 0, faces: str | Path = "builtin", val_fraction: float = 0.1,
          data_dir: str | Path | None = None, closeup: float = 0.0, patience: int = 100, export: bool = True,
          verbose: bool = True,
          **overrides: Any) -> TrainResult:
    """Train ``model`` (an ultralytics architecture name, built from its YAML) and export it; see the module doc.

    ``data``: a ``data.yaml`` to train on, or None to generate (or reuse) ``images`` synthetic scenes at ``imgsz``
    in ``data_dir`` (default ``OUT/data``). ``workers``: dataloader and generator processes (default: cores).
    ``overrides``: any other ultralytics train argument (e.g. ``mosaic=0.5``, ``lr0=0.005``)."""
    for key, v in (("images", images), ("epochs", epochs), ("imgsz", imgsz), ("batch", batch)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise ValueError(f"{key}={v!r} must be a positive whole number")
    if data is None and int(images * val_fraction) < 1:
        raise ValueError(f"images={images} with val_fraction={val_fraction} leaves no validation image")
    device = check_device(device)
    out = Path(out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    cores = os.cpu_count() or 1
    workers = cores if workers is None else int(workers)
    configure_offline(out / ".ultralytics")
    ultralytics = _import_ultralytics(cores)

    t0 = time.perf_counter()
    recipe = None
    if data is None:
        from models.dataset import generate

        ddir = Path(data_dir).resolve() if data_dir is not None else out / "data"
        data_yaml = generate(ddir, images, imgsz=imgsz, seed=seed, val_fraction=val_fraction, faces=faces,
                             workers=max(1, workers), progress=verbose, closeup=closeup)
    else:
        data_yaml = Path(data).resolve()
        if data_yaml.is_dir():
            data_yaml = data_yaml / "data.yaml"
    _check_data(data_yaml)
    rpath = data_yaml.parent / "recipe.json"
    if rpath.is_file():
        recipe = json.loads(rpath.read_text()).get("recipe")
    t_data = time.perf_counter() - t0

    if model.endswith(".pt"):  # our own weights to start from; pretrained ones cannot be downloaded here
        if not Path(model).is_file():
            raise FileNotFoundError(f"no weights at {model} (nothing can be downloaded offline: train from an "
                                    f"architecture, model=yolo11n)")
        arch = model
    else:
        arch = model if model.endswith((".yaml", ".yml")) else f"{model}.yaml"
    name = Path(arch).stem
    yolo = ultralytics.YOLO(arch)
    aug = {**CARD_AUG, **{k: v for k, v in overrides.items() if k in CARD_AUG}}
    rest = {k: v for k, v in overrides.items() if k not in CARD_AUG}
    t1 = time.perf_counter()
    results = yolo.train(data=str(data_yaml), epochs=epochs, imgsz=imgsz, batch=batch, device=device,
                         workers=workers, project=str(out), name="run", exist_ok=True, seed=seed,
                         deterministic=False, plots=False, patience=patience, verbose=verbose, amp=device != "cpu",
                         **aug, **rest)
    t_train = time.perf_counter() - t1

    trainer = yolo.trainer
    best = Path(trainer.best) if Path(trainer.best).is_file() else Path(trainer.last)
    pt = out / "best.pt"
    shutil.copyfile(best, pt)

    t2 = time.perf_counter()
    onnx: Path | None = None
    if export:
        # any input size: the audit and the live loop run zone crops at a smaller one (models.detector.ZONE_IMGSZ)
        exported = ultralytics.YOLO(str(pt)).export(format="onnx", imgsz=imgsz, simplify=True, dynamic=True,
                                                    device="cpu", verbose=verbose)
        onnx = Path(exported)
    t_export = time.perf_counter() - t2

    box = getattr(results, "box", None)
    val = group_metrics(box.all_ap, box.ap_class_index) if box is not None and len(box.ap_class_index) else \
        group_metrics([], [])
    root = data_yaml.parent
    n_train, n_val = _count(root / "images" / "train"), _count(root / "images" / "val")
    metrics: dict[str, Any] = {
        "model": name, "epochs": epochs, "epochs_run": int(getattr(trainer, "epoch", epochs - 1)) + 1,
        "imgsz": imgsz, "batch": batch, "seed": seed, "images": (recipe or {}).get("images", n_train + n_val),
        "val": val,
        "data": {"yaml": str(data_yaml), "recipe": recipe, "images": (recipe or {}).get("images"),
                 "train_images": n_train, "val_images": n_val},
        "augmentation": aug, "settings": rest, "hardware": hardware(device),
        "seconds": {"data": round(t_data, 1), "train": round(t_train, 1), "export": round(t_export, 1),
                    "total": round(time.perf_counter() - t0, 1)},
        "files": {"pt": str(pt), "onnx": str(onnx) if onnx else None},
    }
    metrics["mAP50"], metrics["mAP50-95"] = val["all"]["mAP50"], val["all"]["mAP50-95"]
    (out / "metrics.json").write_text(json.dumps(metrics, indent=1))
    _model_card(out / "MODEL_CARD.md", metrics)
    return TrainResult(out=out, pt=pt, onnx=onnx, metrics=metrics)
