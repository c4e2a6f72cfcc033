"""``tablecam markers`` and ``tablecam calibrate`` on a synthetic camera view of the marker sheet."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest
from test_calibration import synthetic_frame

from calibration.layout import Layout
from calibration.markers import detect_markers
from tablecam.cli import main


def test_markers_writes_a_sheet_with_four_markers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "sheet.png"
    assert main(["markers", f"out={out}"]) == 0
    assert sorted(detect_markers(cv2.imread(str(out)))) == [0, 1, 2, 3]
    assert "print at 100 %" in capsys.readouterr().out


def test_calibrate_from_an_image(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    frame, _ = synthetic_frame()
    image = tmp_path / "frame.png"
    cv2.imwrite(str(image), frame)
    out = tmp_path / "layout.yaml"
    assert main(["calibrate", str(image), "game=snap", "players=Ann,Bob,Cy", f"out={out}"]) == 0
    layout = Layout.load(out)
    assert set(layout.zones) >= {"pile:Ann", "pile:Bob", "pile:Cy"} and list(layout.players) == ["Ann", "Bob", "Cy"]
    assert "markers measure" in capsys.readouterr().out


def test_calibrate_from_a_video_finds_the_frame_with_markers(tmp_path: Path) -> None:
    frame, _ = synthetic_frame()
    video = tmp_path / "table.avi"
    h, w = frame.shape[:2]
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 10, (w, h))
    assert writer.isOpened()
    for _ in range(3):  # the camera starts on an empty grey view
        writer.write(np.full_like(frame, 90))
    for _ in range(3):
        writer.write(frame)
    writer.release()
    out = tmp_path / "layout.yaml"
    assert main(["calibrate", str(video), "game=slapjack", "players=Ann,Bob", f"out={out}"]) == 0
    assert "center" in Layout.load(out).zones


def test_calibrate_names_missing_markers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    frame, _ = synthetic_frame(hide=(1, 3))
    image = tmp_path / "frame.png"
    cv2.imwrite(str(image), frame)
    assert main(["calibrate", str(image), "game=cheat", "players=A,B", f"out={tmp_path / 'l.yaml'}"]) == 2
    err = capsys.readouterr().err
    assert "not found" in err and "1 (far right)" in err and "3 (near left)" in err
    assert main(["calibrate", str(tmp_path / "nothing.png"), "game=cheat", "players=A,B"]) == 2
    assert "cannot open" in capsys.readouterr().err
