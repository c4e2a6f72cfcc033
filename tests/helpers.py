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
