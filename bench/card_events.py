"""Card events of an audit against the ground truth, one line per card: right, wrong (read as what), missed, or
extra (seen where no card landed). Where ``bench/audit.py`` counts, this says which.

    python bench/card_events.py GAME.truth.jsonl AUDIT/game.jsonl
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tablecam.gamelog import corrected_cards  # noqa: E402


def card_events(path: Path) -> list[tuple[float, str, str]]:
    """(time, zone, card) of every ``card`` line of a game log (corrections applied: a card read again as what it
    is renames its earlier line)."""
    with open(path, encoding="utf-8") as f:
        lines = [json.loads(line) for line in f if line.strip()]
    return [(float(d["t"]), str(d.get("zone")), str(d.get("card"))) for d in corrected_cards(lines)]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("truth", type=Path)
    ap.add_argument("audited", type=Path)
    ap.add_argument("--within", type=float, default=0.5, help="seconds an audited card may be off the truth's")
    args = ap.parse_args()
    truth, seen = card_events(args.truth), card_events(args.audited)
    used: set[int] = set()
    counts = {"right": 0, "wrong": 0, "missed": 0, "extra": 0}
    for t, zone, card in truth:
        near = [(abs(ts - t), i) for i, (ts, zs, _) in enumerate(seen)
                if i not in used and zs == zone and abs(ts - t) <= args.within]
        if not near:
            counts["missed"] += 1
            print(f"{t:8.3f} {zone:10} {card:4} missed")
            continue
        i = min(near)[1]
        used.add(i)
        ts, _, got = seen[i]
        what = "right" if got == card else "wrong"
        counts[what] += 1
        print(f"{t:8.3f} {zone:10} {card:4} {what if got == card else 'read as ' + got} ({1000 * (ts - t):+.0f} ms)")
    for i, (ts, zone, got) in enumerate(seen):
        if i not in used:
            counts["extra"] += 1
            print(f"{ts:8.3f} {zone:10} {got:4} extra")
    print(", ".join(f"{k} {v}" for k, v in counts.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
