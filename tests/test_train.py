"""Detector training and inference: a tiny CPU training run, its ONNX export, and ONNX Runtime inference.

One training run (10 synthetic scenes at 160 px, 1 epoch) is shared by the module: it must give a loadable ``.pt``
and ``.onnx``, metrics and a model card. A model this barely trained detects next to nothing, so PyTorch and ONNX
Runtime are compared on their raw output tensors, and the frame-pixel mapping of ``Detector`` is checked against the
raw output on an independently letterboxed input. About a minute on the 2-core machine.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from models.classes import BACK, CLASSES, HAND
from models.detector import ZONE_IMGSZ, Detections, Detector, Letterbox, decode, letterbox, nms, zone_imgsz
from models.gamevideo import render_game
from models.train import MissingDependency, check_device, group_metrics, train

IMGSZ = 160


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory):
    pytest.importorskip("ultralytics")
    out = tmp_path_factory.mktemp("train")
    return train(None, images=10, epochs=1, imgsz=IMGSZ, batch=8, workers=1, out=out, seed=3, verbose=False)


@pytest.fixture(scope="module")
def frame(run) -> np.ndarray:
    """A 640x480 frame (not the model's size) made from a training scene."""
    img = cv2.imread(str(sorted((run.out / "data" / "images" / "train").glob("*.jpg"))[0]))
    return cv2.resize(img, (640, 480))


def test_tiny_run_writes_weights_metrics_and_card(run) -> None:
    from ultralytics import YOLO

    assert run.pt.is_file() and run.onnx is not None and run.onnx.is_file()
    model = YOLO(str(run.pt))
    assert len(model.names) == len(CLASSES) and model.names[BACK] == "back" and model.names[HAND] == "hand"
    m = json.loads((run.out / "metrics.json").read_text())
    assert m["epochs"] == 1 and m["imgsz"] == IMGSZ and m["images"] == 10 and m["model"] == "yolo11n"
    assert set(m["val"]) == {"all", "cards", "back", "hand"}
    assert m["hardware"]["device"] == "cpu" and m["hardware"]["cores"] >= 1
    assert m["augmentation"]["fliplr"] == 0.0 and m["augmentation"]["mixup"] == 0.0
    assert m["seconds"]["train"] > 0
    card = (run.out / "MODEL_CARD.md").read_text()
    assert "yolo11n" in card and "mAP50-95" in card and "fliplr=0.0" in card
    assert (run.out / ".ultralytics" / "Ultralytics" / "Arial.ttf").is_file()


def test_onnx_runtime_agrees_with_pytorch(run, frame) -> None:
    import torch
    from ultralytics import YOLO

    det = Detector(run.onnx)
    assert det.imgsz == IMGSZ and det.names == CLASSES
    x, _ = det.preprocess(frame)
    net = YOLO(str(run.pt)).model.float().eval()
    with torch.no_grad():
        ref = net(torch.from_numpy(x))[0].numpy()
    got = det.raw(x)
    assert got.shape == ref.shape == (1, 4 + len(CLASSES), ref.shape[2])
    np.testing.assert_allclose(got[:, :4], ref[:, :4], atol=0.05)  # boxes, letterboxed pixels
    np.testing.assert_allclose(got[:, 4:], ref[:, 4:], rtol=1e-3, atol=1e-6)  # class scores
    # the same best class wherever the top two scores are further apart than the numeric noise (a barely trained
    # model scores most classes alike, so elsewhere the pick is a coin toss)
    tol = float(np.abs(got[:, 4:] - ref[:, 4:]).max())
    top2 = np.sort(ref[0, 4:], 0)[-2:]
    clear = top2[1] - top2[0] > 10 * tol + 1e-9
    assert (got[0, 4:].argmax(0)[clear] == ref[0, 4:].argmax(0)[clear]).all()


def _assert_same_detections(xa: np.ndarray, ca: np.ndarray, xb: np.ndarray, cb: np.ndarray, atol: float) -> None:
    """Every detection of one set has one of the same class within ``atol`` pixels in the other (order-free)."""
    assert len(xa) == len(xb)
    diff = np.abs(xa[:, None, :] - xb[None, :, :]).max(2)
    ok = (diff <= atol) & (ca[:, None] == cb[None, :])
    assert ok.any(1).all() and ok.any(0).all()


@pytest.mark.parametrize("size", [(640, 480), (300, 500)])
def test_detector_boxes_are_in_frame_pixels(run, frame, size) -> None:
    """Every candidate equals the raw output on our own letterboxed input mapped by hand: (input - pad) / ratio."""
    f = cv2.resize(frame, size)
    w, h = size
    r = min(IMGSZ / w, IMGSZ / h)
    px, py = (IMGSZ - round(w * r)) / 2, (IMGSZ - round(h * r)) / 2
    # our own letterbox, built without models.detector
    small = cv2.resize(f, (round(w * r), round(h * r)))
    canvas = np.full((IMGSZ, IMGSZ, 3), 114, np.uint8)
    canvas[round(py - 0.1):round(py - 0.1) + small.shape[0], round(px - 0.1):round(px - 0.1) + small.shape[1]] = small
    x = np.ascontiguousarray(canvas[..., ::-1].transpose(2, 0, 1)[None], dtype=np.float32) / 255
    det = Detector(run.onnx)
    np.testing.assert_array_equal(det.preprocess(f)[0], x)
    raw = det.raw(x)[0]
    # every candidate mapped by hand
    cx, cy, bw, bh = raw[:4].astype(np.float64)
    ox, oy = round(px - 0.1), round(py - 0.1)
    want = np.stack([(cx - bw / 2 - ox) / r, (cy - bh / 2 - oy) / r, (cx + bw / 2 - ox) / r, (cy + bh / 2 - oy) / r], 1)
    cls = raw[4:].argmax(0)
    det.iou, det.max_det = 1.0, 10_000  # every candidate: NMS off
    got = det(f, conf=0.0, clip=False)
    assert len(got) == raw.shape[1]
    assert (got.class_name == np.asarray(CLASSES)[got.class_id]).all()
    _assert_same_detections(got.xyxy, got.class_id, want, cls, atol=0.5)
    # clipped (the default): the same boxes cut at the frame's edges
    got = det(f, conf=0.0)
    assert got.xyxy.min() >= 0 and got.xyxy[:, [0, 2]].max() <= w and got.xyxy[:, [1, 3]].max() <= h
    _assert_same_detections(got.xyxy, got.class_id, want.clip(0, [w, h, w, h]), cls, atol=0.5)


def test_the_export_takes_any_input_size_and_a_fixed_size_model_refuses_others_by_name(run, frame,
                                                                                     tmp_path: Path) -> None:
    """``tablecam train`` exports a dynamic input: the audit runs zone crops at ``ZONE_IMGSZ``, whole photos keep
    the training size (the metadata's). A model exported at a fixed size and asked for another (``eval-detector
    imgsz=...``, ``audit imgsz=...``) says so, not an ONNX Runtime shape error at the first frame."""
    from ultralytics import YOLO

    from tablecam.audit import AuditError, audit

    assert Detector(run.onnx).imgsz == IMGSZ and zone_imgsz(run.onnx) == ZONE_IMGSZ
    det = Detector(run.onnx, imgsz=IMGSZ + 32)
    s = IMGSZ + 32
    assert det.raw(det.preprocess(frame)[0]).shape[2] == sum((s // k) ** 2 for k in (8, 16, 32))
    pt = tmp_path / "fixed.pt"
    pt.write_bytes(run.pt.read_bytes())
    fixed = Path(YOLO(str(pt)).export(format="onnx", imgsz=IMGSZ, dynamic=False, device="cpu", verbose=False))
    assert zone_imgsz(fixed) is None and Detector(fixed).imgsz == IMGSZ
    with pytest.raises(ValueError, match=f"takes {IMGSZ} px images only.*imgsz={s}"):
        Detector(fixed, imgsz=s)
    game = render_game(tmp_path / "g.mp4", "slapjack", 3, seed=1, seconds=1.0, audio=False)
    with pytest.raises(AuditError, match=f"takes {IMGSZ} px images only"):
        audit(game.video, "slapjack", list(game.script.header.players), game.layout, tmp_path / "out",
              model=fixed, imgsz=s, progress=False)


def test_decode_maps_a_known_box_to_the_frame() -> None:
    """A box the model puts at letterbox (60..100, 50..70) of a 640x480 frame at 160 px: ratio 1/4, pad y 20."""
    raw = np.zeros((1, 4 + len(CLASSES), 3), np.float32)
    raw[0, :4, 0] = (80, 60, 40, 20)
    raw[0, 4 + 5, 0] = 0.9  # 6S
    raw[0, :4, 1] = (81, 60, 40, 20)  # same class, overlapping: suppressed
    raw[0, 4 + 5, 1] = 0.8
    raw[0, :4, 2] = (81, 60, 40, 20)  # other class, overlapping: kept (class-aware)
    raw[0, 4 + BACK, 2] = 0.7
    box = letterbox(np.zeros((480, 640, 3), np.uint8), 160)[1]
    assert box == Letterbox(0.25, 0.0, 20.0)
    d = decode(raw, box, (480, 640, 3), CLASSES, conf=0.25, iou=0.5)
    assert list(d.class_name) == ["6S", "back"]
    np.testing.assert_allclose(d.xyxy[0], [240, 120, 400, 200])
    assert len(d[d.class_name == "back"]) == 1 and d.to_list()[0]["card"] == "6S"
    assert len(decode(raw, box, (480, 640, 3), CLASSES, conf=0.95)) == 0


def test_nms_keeps_the_best_of_overlapping_boxes() -> None:
    b = np.array([[0, 0, 10, 10], [1, 1, 11, 11], [20, 20, 30, 30]], np.float32)
    assert nms(b, np.array([0.5, 0.9, 0.4]), 0.5).tolist() == [1, 2]
    assert len(Detections()) == 0


def test_group_metrics_split_cards_back_hand() -> None:
    ap = np.array([[0.8] * 10, [0.6] * 10, [0.4] * 10, [0.2] * 10])
    g = group_metrics(ap, [0, 5, BACK, HAND])
    assert g["cards"]["mAP50"] == pytest.approx(0.7) and g["cards"]["classes"] == 2
    assert g["back"]["mAP50-95"] == pytest.approx(0.4) and g["hand"]["mAP50"] == pytest.approx(0.2)
    assert g["all"]["mAP50"] == pytest.approx(0.5)
    assert group_metrics([], [])["hand"]["mAP50"] is None


def test_clear_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(FileNotFoundError, match="nope.onnx"):
        Detector(tmp_path / "nope.onnx")
    for bad in ("gpu", "cuda:x", "0,", ""):
        with pytest.raises(ValueError, match="device="):
            check_device(bad)
    assert check_device("cpu") == "cpu"
    with pytest.raises(ValueError, match="device="):
        train(None, images=10, device="tpu", out=tmp_path / "t")
    with pytest.raises(ValueError, match="no validation image"):
        train(None, images=4, out=tmp_path / "t")
    with pytest.raises(FileNotFoundError, match="nodata"):
        train(tmp_path / "nodata", out=tmp_path / "t")
    monkeypatch.setitem(sys.modules, "ultralytics", None)
    with pytest.raises(MissingDependency, match="ultralytics is not installed"):
        train(None, images=10, out=tmp_path / "t")


def test_train_command_refuses_bad_settings_before_starting(capsys: pytest.CaptureFixture[str]) -> None:
    """``tablecam train``: settings are checked before any data is made or ultralytics is loaded."""
    from tablecam.cli import main

    assert main(["train", "epochs=0"]) == 2
    assert "epochs=0 must be a whole number >= 1" in capsys.readouterr().err
    assert main(["train", "epoch=3"]) == 2
    assert "did you mean 'epochs'" in capsys.readouterr().err
