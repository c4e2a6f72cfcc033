"""Small helpers so that tests read like the log they check."""

from __future__ import annotations

from typing import Any

from engine.events import parse_event, parse_header
from engine.replay import replay_to_end


def run(header: dict[str, Any], *lines: dict[str, Any]) -> list[dict[str, Any]]:
    """Referee ``lines`` (EVENTS.md dicts) after the ``game`` line; returns the output lines as dicts."""
    _ref, out = replay_to_end(parse_header({"type": "game", **header}),
                              [parse_event(obj, i + 2) for i, obj in enumerate(lines)])
    return [o.to_dict() for o in out]


def verdicts(out: list[dict[str, Any]], kind: str | None = None) -> list[dict[str, Any]]:
    """The verdict lines of ``out`` (optionally only one kind)."""
    return [o for o in out if o["type"] == "verdict" and (kind is None or o["kind"] == kind)]


def anomalies(out: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [o for o in out if o["type"] == "anomaly"]


def card(t: float, zone: str, c: str, player: str | None = None, **kw: Any) -> dict[str, Any]:
    d = {"t": t, "type": "card", "zone": zone, "card": c, **kw}
    if player is not None:
        d["player"] = player
    return d


def slap(t: float, zone: str, player: str, **kw: Any) -> dict[str, Any]:
    return {"t": t, "type": "slap", "zone": zone, "player": player, **kw}


def call(t: float, player: str, word: str = "snap", **kw: Any) -> dict[str, Any]:
    return {"t": t, "type": "call", "player": player, "word": word, **kw}


class PerfectReader:
    """A card reader that knows the rendered game: the true top card of the pile at the frame's time, boxed where
    the renderer put it. It stands in for the detector only, so that this test checks everything else the
    audit does (crops, tracking and dating back, slaps, audio, referee) against the ground truth."""

    imgsz = 224

    def __init__(self, game: Any) -> None:
        from calibration.layout import Layout
        from vision.tracking import zone_crop

        self.sc = game.script
        lay = Layout.load(game.layout)
        self.crop = zone_crop(lay.zones["center"], lay.frame_size, min_side=self.imgsz)
        self.t = 0.0

    def __call__(self, crop):  # noqa: ANN001, ANN204 - the detector's call
        import numpy as np

        from models.detector import Detections
        from models.scenes import CARD_H, CARD_W, UPRIGHT_CORNERS, _rot

        top = None
        for t, zone, card in self.sc.landings:
            if zone == "center" and t <= self.t:
                top = card
        for t, zone in self.sc.clears:
            if zone == "center" and top is not None and top.t <= t <= self.t:
                top = None
        covering = any(m.kind in ("slap", "take") and m.t0 <= self.t <= m.t1
                       and np.linalg.norm(m.at(self.t) - top.xy) < 15 for m in self.sc.motions) if top else False
        if top is None or covering:  # a palm on the pile hides the card from any detector
            return Detections()
        corners = UPRIGHT_CORNERS * (CARD_W / 2, CARD_H / 2) @ _rot(top.angle).T + top.xy
        q = self.sc.cam.to_image(corners) - self.crop[:2]
        box = np.array([[q[:, 0].min(), q[:, 1].min(), q[:, 0].max(), q[:, 1].max()]], np.float32)
        return Detections(box, np.array([0.9], np.float32), np.zeros(1, np.int64), np.array([top.code]))
