"""The card reader against the deck's pictures (``models.deckmatch``) on the true boxes of the cards landing in
a rendered game, three frames after each lands, each box edge jittered as a detector's errs (6 % of its side):
cards read right by each, and the deck's milliseconds per card.

    python bench/deck_reads.py --game snap --seed 238 --players 3
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import tempfile
import time
from pathlib import Path

import av
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from calibration.layout import Layout  # noqa: E402
from models.classes import FACES  # noqa: E402
from models.deckmatch import DeckMatcher, deck_read  # noqa: E402
from models.gamevideo import FPS, frame_box, render_game  # noqa: E402
from models.reader import SHIPPED_READER, CardReader  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--game", default="slapjack")
    ap.add_argument("--seed", type=int, default=238)
    ap.add_argument("--players", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=None, help="cut the game off (default: the whole game)")
    ap.add_argument("--jitter", type=float, default=0.06)
    ap.add_argument("--keep", default=None, help="render into this folder (and reuse what is there)")
    ap.add_argument("--show", action="store_true", help="print each card the deck's pictures read wrong")
    args = ap.parse_args()
    root = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="tablecam-deck-"))
    video = root / f"{args.game}-{args.players}p-s{args.seed}.mp4"
    game = render_game(video, args.game, args.players, args.seed, seconds=args.seconds, audio=False)
    lay = Layout.load(game.layout)
    deck = DeckMatcher.from_folder(video.with_name(video.stem + ".deck"), lay.homography)
    reader = CardReader(SHIPPED_READER, turns=2)
    due: dict[int, list] = {}
    for t, _zone, card in game.script.landings:
        due.setdefault(int(math.ceil(t * FPS)) + 3, []).append(card)
    rng = np.random.default_rng(0)
    n = by_reader = by_deck = 0
    ms = []
    with av.open(str(video)) as c:
        for k, f in enumerate(c.decode(video=0)):
            if k not in due:
                continue
            frame = f.to_ndarray(format="bgr24")
            for card in due[k]:
                box = np.array(frame_box(game.script.cam, card))
                box = box + rng.normal(0, args.jitter * float(max(box[2] - box[0], box[3] - box[1])), 4)
                codes, _ = reader.read(frame, box[None])
                t0 = time.perf_counter()
                got, _ = deck_read(deck.scores(frame, box))
                ms.append(1000 * (time.perf_counter() - t0))
                n += 1
                by_reader += codes[0] == card.code
                by_deck += got >= 0 and FACES[got] == card.code
                if args.show and not (got >= 0 and FACES[got] == card.code):
                    print(f"  frame {k}: {card.code} read as {FACES[got] if got >= 0 else 'nothing'}")
    print(f"{args.game} {args.players}p seed {args.seed}: {n} cards landing; read right by the reader {by_reader}, "
          f"by the deck's pictures {by_deck}; deck {statistics.median(ms):.1f} ms a card (median)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
