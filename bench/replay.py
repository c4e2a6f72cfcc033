"""Replay speed: events per second through the referee, for a long simulated game of each type.

Target (issue 2): at least 100,000 events/s on the 2-core CI machine, so the engine never delays a callout.
Three figures per game: ``engine`` (parsed events through ``engine.timeline.Timeline.push``, the live path, which
keeps copies of the state so that a late line is ruled in its place in Speed and Spit), ``bare`` (the referee's own
``push``, no copies kept) and ``text`` (JSON line in, JSON verdict line out: what ``tablecam replay`` does). Medians
of several repeats; the machine is shared.

    python bench/replay.py [--repeats 7] [--seeds 40]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.events import dumps, parse_line  # noqa: E402
from engine.games import new_referee  # noqa: E402
from engine.sim import PLAYER_RANGE, simulate  # noqa: E402
from engine.timeline import Timeline  # noqa: E402

GAMES = ["snap", "slapjack", "speed", "spit", "cheat", "paijie"]
TARGET = 100_000


def longest_game(game: str, seeds: int) -> tuple:
    """The longest of ``seeds`` simulated games at the largest table the tests use."""
    players = min(PLAYER_RANGE[game][1], 4)
    best = None
    for seed in range(seeds):
        header, events = simulate(game, players, seed)
        if best is None or len(events) > len(best[1]):
            best = (header, events, seed)
    return best


def _timed(run_once, n_events: int, min_seconds: float) -> float:
    """Events/s of ``run_once`` repeated until ``min_seconds`` have passed (short games need many rounds)."""
    rounds, t0 = 0, time.perf_counter()
    while True:
        run_once()
        rounds += 1
        elapsed = time.perf_counter() - t0
        if elapsed >= min_seconds:
            return rounds * n_events / elapsed


def engine_rate(header, events, min_seconds: float = 0.2, bare: bool = False) -> float:
    """Parsed events through ``push`` (the live path: a timeline; ``bare``: the referee alone), including a fresh
    referee per game."""
    def once() -> None:
        ref = new_referee(header) if bare else Timeline(new_referee(header))
        push = ref.push
        for ev in events:
            push(ev)
        ref.finish()
    return _timed(once, len(events), min_seconds)


def text_rate(header, lines: list[str], min_seconds: float = 0.2) -> float:
    """JSON text line in, JSON verdict line out: what ``tablecam replay`` does minus the file."""
    def once() -> None:
        ref = Timeline(new_referee(header))
        out = []
        for n, text in enumerate(lines, start=2):
            for o in ref.push(parse_line(text, n)):
                out.append(dumps(o.to_dict()))
        for o in ref.finish():
            out.append(dumps(o.to_dict()))
    return _timed(once, len(lines), min_seconds)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--seeds", type=int, default=100)
    args = ap.parse_args()
    print(f"{'game':<9} {'players':>7} {'seed':>5} {'events':>7} {'engine ev/s':>12} {'bare ev/s':>10} "
          f"{'text ev/s':>10}  target")
    ok = True
    for game in GAMES:
        header, events, seed = longest_game(game, args.seeds)
        lines = [json.dumps(e.to_dict()) for e in events]
        eng = statistics.median(engine_rate(header, events) for _ in range(args.repeats))
        bare = statistics.median(engine_rate(header, events, bare=True) for _ in range(args.repeats))
        txt = statistics.median(text_rate(header, lines) for _ in range(args.repeats))
        passed = eng >= TARGET
        ok &= passed
        print(f"{game:<9} {len(header.players):>7} {seed:>5} {len(events):>7} {eng:>12,.0f} {bare:>10,.0f} "
              f"{txt:>10,.0f}  "
              f"{'ok' if passed else 'BELOW'} (engine >= {TARGET:,})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
