"""``models.evaluate``: the detector issue's matching rule, scored exactly on a hand-made labels.json."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from models.evaluate import Detection, Label, load_detections, load_labels, score

LABELS = {
    "a.jpg": [{"card": "AS", "box": [0, 0, 100, 140]}, {"card": "10H", "box": [200, 0, 300, 140]},
              {"card": "KD", "box": [400, 0, 500, 140]}],
    "b.jpg": [{"card": "QC", "box": [0, 0, 100, 140]}, {"card": "QC", "box": [120, 0, 220, 140]}],
    "c.jpg": [{"card": "2S", "box": [0, 0, 50, 70]}],
}
DETECTIONS = {
    # AS found; 10H read as 10D (rank right, suit wrong); KD missed; a joker-free stray detection (false)
    "a.jpg": [{"card": "AS", "box": [10, 10, 90, 130], "conf": 0.9},
              {"card": "10D", "box": [210, 10, 290, 130], "conf": 0.8},
              {"card": "7C", "box": [600, 0, 700, 140], "conf": 0.7},
              {"card": "hand", "box": [0, 0, 700, 400], "conf": 0.99}],
    # two QC labels, one QC detection whose centre lies in both? no: inside the first only; used once
    "b.jpg": [{"card": "QC", "box": [0, 0, 100, 140], "conf": 0.6},
              {"card": "QC", "box": [20, 0, 80, 140], "conf": 0.5}],
    # c.jpg: no detections at all
}


@pytest.fixture()
def folder(tmp_path: Path) -> Path:
    (tmp_path / "labels.json").write_text(json.dumps(LABELS))
    (tmp_path / "det.json").write_text(json.dumps(DETECTIONS))
    return tmp_path


def test_scores_a_hand_made_labels_file_exactly(folder: Path) -> None:
    report = score(load_labels(folder), load_detections(folder / "det.json"))
    d = report.to_dict()
    # 6 labels; found: AS, QC(first); the second QC detection lies in the first box only, which is used
    assert (d["images"], d["labels"], d["detections"], d["found"]) == (3, 6, 5, 2)
    assert d["recall"] == round(2 / 6, 4) and d["precision"] == round(2 / 5, 4)
    # located: AS, 10H (by 10D), QC#1 -> rank right 3/3, suit right 2/3
    assert (d["located"], d["rank_accuracy"], d["suit_accuracy"]) == (3, 1.0, round(2 / 3, 4))
    assert d["confusions"] == [{"true": "10H", "predicted": "10D", "count": 1}]
    worst = [w["card"] for w in d["worst_classes"]]
    assert worst[:3] == ["10H", "2S", "KD"] and "AS" not in worst[:3]


def test_each_detection_is_used_once() -> None:
    """Two labels of one card, one detection centred in both boxes: one label found, not two."""
    labels = {"x": [Label("5H", (0.0, 0.0, 100.0, 100.0)), Label("5H", (40.0, 40.0, 140.0, 140.0))]}
    dets = {"x": [Detection("5H", (45.0, 45.0, 95.0, 95.0), 0.9)]}
    assert score(labels, dets).found == 1


def test_bad_labels_file_says_where(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no labels.json"):
        load_labels(tmp_path)
    (tmp_path / "labels.json").write_text(json.dumps({"a.jpg": [{"card": "1H", "box": [0, 0, 1, 1]}]}))
    with pytest.raises(ValueError, match="a.jpg entry 0"):
        load_labels(tmp_path)


def test_eval_detector_command_prints_the_report(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tablecam.cli import main

    assert main(["eval-detector", str(folder), f"detections={folder / 'det.json'}", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert (d["found"], d["labels"], d["detections"]) == (2, 6, 5)
    # a confidence threshold drops the 0.5 QC detection: precision 2/4
    assert main(["eval-detector", str(folder), f"detections={folder / 'det.json'}", "conf=0.55", "json=true"]) == 0
    assert json.loads(capsys.readouterr().out)["precision"] == 0.5
    assert main(["eval-detector", str(folder), f"detections={folder / 'det.json'}"]) == 0
    assert "card-level recall    0.333" in capsys.readouterr().out
    assert main(["eval-detector", str(folder / "nowhere"), f"detections={folder / 'det.json'}"]) == 2
    assert "no labels.json" in capsys.readouterr().err


def test_eval_detector_runs_the_shipped_model_on_a_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``tablecam eval-detector FOLDER`` with no detections file runs the detector itself on FOLDER/images."""
    import cv2

    from models.classes import CLASSES
    from models.scenes import make_scene
    from tablecam.audit import default_model
    from tablecam.cli import main

    if not default_model().is_file():
        pytest.skip("no shipped detector model")
    (tmp_path / "images").mkdir()
    labels = {}
    for i in range(3):
        img, lab = make_scene(100 + i, size=(640, 480), closeup=True)
        cv2.imwrite(str(tmp_path / "images" / f"s{i}.jpg"), img[:, :, ::-1])
        labels[f"s{i}.jpg"] = [{"card": CLASSES[c], "box": [(x - w / 2) * 640, (y - h / 2) * 480, (x + w / 2) * 640,
                                                             (y + h / 2) * 480]}
                               for c, x, y, w, h in lab if CLASSES[c] not in ("back", "hand")]
    (tmp_path / "labels.json").write_text(json.dumps(labels))
    assert main(["eval-detector", str(tmp_path), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["labels"] == sum(len(v) for v in labels.values()) and 0 <= d["recall"] <= 1
