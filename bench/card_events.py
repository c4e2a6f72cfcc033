"""Card events of an audit against the ground truth, one line per card: right, off time (the right card dated
outside the frame ``bench/audit.py`` allows, :func:`card_on_time`), wrong (read as what), missed, or extra (seen
where no card landed). Where ``bench/audit.py`` counts, this says which: its cards right are the lines right here.

    python bench/card_events.py GAME.truth.jsonl AUDIT/game.jsonl
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from audit import card_on_time  # noqa: E402

from tablecam.gamelog import corrected_cards  # noqa: E402


def card_events(path: Path) -> list[tuple[float, str, str, dict]]:
    """(time, zone, card, line) of every ``card`` line of a game log (corrections applied: a card read again as what
    it is renames its earlier line)."""
    with open(path, encoding="utf-8") as f:
        lines = [json.loads(line) for line in f if line.strip()]
    return [(float(d["t"]), str(d.get("zone")), str(d.get("card")), d) for d in corrected_cards(lines)]


def pair_cards(truth: list[tuple[float, str, str, dict]], seen: list[tuple[float, str, str, dict]], within: float
               ) -> dict[int, int]:
    """Truth index -> seen index: first each truth card with the nearest line of the same card on its zone within
    ``within`` seconds (as ``bench/audit.py`` counts: a card missed does not make the next ones "read as" it), then
    the cards left with the nearest line left on their zone (read as another card)."""
    paired: dict[int, int] = {}
    for same_card in (True, False):
        for k, (t, zone, card, _) in enumerate(truth):
            near = [(abs(ts - t), i) for i, (ts, zs, got, _) in enumerate(seen)
                    if i not in paired.values() and zs == zone and abs(ts - t) <= within
                    and (got == card or not same_card)]
            if k not in paired and near:
                paired[k] = min(near)[1]
    return paired


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("truth", type=Path)
    ap.add_argument("audited", type=Path)
    ap.add_argument("--within", type=float, default=0.5, help="seconds an audited card may be off the truth's")
    args = ap.parse_args()
    truth, seen = card_events(args.truth), card_events(args.audited)
    counts = {"right": 0, "off time": 0, "wrong": 0, "missed": 0, "extra": 0}
    paired = pair_cards(truth, seen, args.within)
    for k, (t, zone, card, _) in enumerate(truth):
        if k not in paired:
            counts["missed"] += 1
            print(f"{t:8.3f} {zone:10} {card:4} missed")
            continue
        ts, _, got, line = seen[paired[k]]
        what = "wrong" if got != card else "right" if card_on_time(t, line) else "off time"
        counts[what] += 1
        said = f"read as {got}" if what == "wrong" else what
        print(f"{t:8.3f} {zone:10} {card:4} {said} ({1000 * (ts - t):+.0f} ms)")
    used = set(paired.values())
    for i, (ts, zone, got, _) in enumerate(seen):
        if i not in used:
            counts["extra"] += 1
            print(f"{ts:8.3f} {zone:10} {got:4} extra")
    print(", ".join(f"{k} {v}" for k, v in counts.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
