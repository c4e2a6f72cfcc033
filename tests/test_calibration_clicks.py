"""Calibration without markers: the play area's corners clicked (the picker's logic) or given as pixels."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest
from test_calibration import TABLE, corners_mm, synthetic_frame

from calibration.clicks import CornerPicker, NoWindow, click_corners, layout_from_corners, parse_corners
from calibration.homography import map_points
from calibration.layout import Layout, LayoutError
from calibration.markers import layout_from_markers
from tablecam.cli import main


def _corners_px() -> tuple[np.ndarray, np.ndarray]:
    frame, table_to_frame = synthetic_frame()
    return frame, map_points(table_to_frame, corners_mm(TABLE))


def test_corners_give_the_same_layout_as_the_markers_on_them() -> None:
    frame, px = _corners_px()
    h, w = frame.shape[:2]
    by_markers = layout_from_markers(frame, "snap", ["Ann", "Bob", "Cy"], TABLE)
    by_corners = layout_from_corners(px, (w, h), "snap", ["Ann", "Bob", "Cy"], TABLE)
    assert set(by_corners.zones) == set(by_markers.zones)
    for name, zone in by_corners.zones.items():
        assert np.abs(zone.polygon - by_markers.zones[name].polygon).max() < 2.0, name


def test_corners_out_of_order_outside_or_malformed_are_refused() -> None:
    frame, px = _corners_px()
    h, w = frame.shape[:2]
    with pytest.raises(LayoutError, match="do not go round"):
        layout_from_corners(px[[0, 2, 1, 3]], (w, h), "snap", ["A", "B"], TABLE)
    with pytest.raises(LayoutError, match="anticlockwise"):
        layout_from_corners(px[::-1], (w, h), "snap", ["A", "B"], TABLE)
    bad = px.copy()
    bad[2] = (w + 50, h / 2)
    with pytest.raises(LayoutError, match="near right corner .* outside the"):
        layout_from_corners(bad, (w, h), "snap", ["A", "B"], TABLE)
    with pytest.raises(LayoutError, match="four x,y pixel pairs"):
        parse_corners("10,10;20,20;30")
    assert parse_corners(" 1,2;3,4;5,6;7,8 ").tolist() == [[1, 2], [3, 4], [5, 6], [7, 8]]


def test_picker_takes_four_clicks_undoes_and_previews_the_layout() -> None:
    frame, px = _corners_px()
    picker = CornerPicker(frame, "slapjack", ["Ann", "Bob"], TABLE)
    assert "far left" in picker.prompt
    for x, y in px[:3]:
        picker.click(x, y)
    assert picker.layout is None and "near left" in picker.prompt
    picker.click(*px[1])  # a wrong fourth click: the corners cross
    assert picker.layout is None and picker.error and "undo" in picker.prompt.lower()
    picker.undo()
    picker.click(*px[3])
    assert picker.layout is not None and "Enter" in picker.prompt
    picker.click(5, 5)  # a fifth click changes nothing
    assert len(picker.points) == 4
    view = picker.view()
    assert view.shape == frame.shape and not np.array_equal(view, frame)
    centre = picker.layout.zones["center"].polygon.mean(0).astype(int)
    assert picker.layout.zones["center"].contains([centre])[0]


def test_click_without_a_display_says_how_to_give_corners(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        monkeypatch.delenv(var, raising=False)
    frame, _ = _corners_px()
    with pytest.raises(NoWindow, match="corners=x,y"):
        click_corners(frame, "snap", ["A", "B"])


def test_cli_calibrates_from_corners_without_markers(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    frame, px = _corners_px()
    plain = tmp_path / "table.png"  # the corners are where the markers were; the markers are not needed
    cv2.imwrite(str(plain), cv2.GaussianBlur(frame, (0, 0), 6))
    text = ";".join(f"{x:.1f},{y:.1f}" for x, y in px)
    out = tmp_path / "layout.yaml"
    assert main(["calibrate", str(plain), "game=snap", "players=Ann,Bob", f"corners={text}", f"out={out}"]) == 0
    assert "from the corners" in capsys.readouterr().out
    assert {"pile:Ann", "pile:Bob"} <= set(Layout.load(out).zones)
    assert main(["calibrate", str(plain), "game=snap", "players=Ann,Bob", "corners=1,2;3,4",
                 f"out={tmp_path / 'x.yaml'}"]) == 2
    assert "four x,y pixel pairs" in capsys.readouterr().err and not (tmp_path / "x.yaml").exists()
    for var in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        monkeypatch.delenv(var, raising=False)
    assert main(["calibrate", str(plain), "game=snap", "players=Ann,Bob", "click=true",
                 f"out={tmp_path / 'y.yaml'}"]) == 2
    assert "cannot open a window" in capsys.readouterr().err


def test_cli_calibrate_from_a_missing_camera_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["calibrate", "camera=57", "game=snap", "players=Ann,Bob", "click=true"]) == 2
    assert "camera 57" in capsys.readouterr().err
