"""An audit's verdicts beside those of refereeing the ground truth, in time order: where they part, and what the
audit saw there. Where ``bench/audit.py`` says "DIFFER", this says how.

    python bench/verdicts.py GAME.truth.jsonl AUDIT/game.jsonl
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.events import GameHeader  # noqa: E402
from engine.replay import replay_to_end  # noqa: E402
from engine.verdicts import Verdict  # noqa: E402
from tablecam.gamelog import open_log, read_lines  # noqa: E402


def truth_verdicts(path: Path) -> list[dict]:
    """The verdicts of refereeing the log at ``path`` from its header on."""
    header, events = None, []
    with open_log(path) as f:
        for ln in read_lines(f):
            if isinstance(ln.item, GameHeader):
                header = ln.item
            elif ln.item is not None:
                events.append(ln.item)
    if header is None:
        raise SystemExit(f"{path}: no game header line")
    _, outs = replay_to_end(header, events)
    return [o.to_dict() for o in outs if isinstance(o, Verdict)]


def line(d: dict) -> str:
    return f"{float(d['t']):7.3f} {d.get('kind', d.get('type'))} {d.get('player') or ''} {d.get('say') or ''}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("truth", type=Path)
    ap.add_argument("audited", type=Path)
    args = ap.parse_args()
    want = truth_verdicts(args.truth)
    with open(args.audited, encoding="utf-8") as f:
        got = [d for d in (json.loads(s) for s in f if s.strip()) if d.get("type") == "verdict"]
    rows = sorted([(float(d["t"]), "truth ", d) for d in want] + [(float(d["t"]), "audit ", d) for d in got],
                  key=lambda r: r[0])
    for _, who, d in rows:
        print(who, line(d))
    print(f"{len(want)} verdicts from the truth, {len(got)} from the audit")
    return 0


if __name__ == "__main__":
    sys.exit(main())
