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


def perfect_reader(game: Any) -> Any:
    """Right card reads for a rendered game (``models.gamevideo.TruthReader`` on the watcher's crop of the centre
    pile): stands in for the detector only, so that a test checks everything else against the ground truth."""
    from calibration.layout import Layout
    from models.gamevideo import TruthReader
    from vision.tracking import zone_crop

    lay = Layout.load(game.layout)
    return TruthReader(game.script, zone_crop(lay.zones["center"], lay.frame_size, min_side=224), imgsz=224)
