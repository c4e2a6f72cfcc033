"""Live latency: from the frame where a jack first shows to the first audio sample of its callout.

Renders Slapjack games (``models.gamevideo``), runs each through ``tablecam live`` at real-time speed (the
recording paced to the wall clock, as a camera would deliver it) with sound through the ALSA null device (a
real PortAudio stream: the sidecar's ``started`` is the stream's DAC time of the first sample), and compares
each "Jack!" callout with the true moment its jack first showed (the first frame at or after the card landed).
Also prints the share of frames dropped (the loop fell behind) and the processing time per frame. With
``--oracle`` the detector still runs on every crop (its cost counts) but the true top card is reported: the
latency of the loop itself, whatever the detector's accuracy.

    python bench/latency.py [--seeds 238 11 12] [--seconds 20] [--model M.onnx]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

from models.gamevideo import FPS, render_game  # noqa: E402

CHILD = r"""
import json, sys, time
sys.path.insert(0, sys.argv[1])
from tablecam.audio_out import Player
from tablecam.live import run_live
video, layout, model, log, wav, seconds = sys.argv[2:8]
oracle = sys.argv[9] == "1"
detector = None
if oracle:  # the real detector runs (its cost is in the latency) but the true top card is what it reports
    from calibration.layout import Layout
    from models.gamevideo import TruthReader, make_script
    from models.reader import load_card_model
    from vision.tracking import zone_crop
    sc = make_script("slapjack", json.loads(sys.argv[8]), int(sys.argv[10]), float(seconds))
    from vision.watcher import detector_input
    # the detector and the reader, as live runs them
    real = load_card_model(model, turns=1, imgsz=detector_input(model, "slapjack"))
    lay = Layout.load(layout)
    detector = TruthReader(sc, zone_crop(lay.zones["center"], lay.frame_size, min_side=real.imgsz), inner=real)
p = Player.from_settings(audio_out=wav)
st = run_live(video=video, game="slapjack", players=json.loads(sys.argv[8]), layout=layout, model=model,
              log_path=log, player=p, realtime=True, seconds=float(seconds), detector=detector)
print(json.dumps({"start_wall": st.start_wall, "frames": st.frames, "dropped": st.dropped,
                  "captured": st.captured, "busy_ms": st.busy_s / max(1, st.frames) * 1000, "backend": p.backend}))
"""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[238, 11, 12])
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--model", default=None)
    ap.add_argument("--oracle", action="store_true",
                    help="report the true top card (the detector still runs, for its cost): the loop's own latency")
    args = ap.parse_args()
    root = Path(tempfile.mkdtemp(prefix="tablecam-latency-"))
    xdg = root / "xdg"
    (xdg / "alsa").mkdir(parents=True)
    (xdg / "alsa" / "asoundrc").write_text('pcm.!default { type plug; slave.pcm "null" }\n')
    env = dict(os.environ, XDG_CONFIG_HOME=str(xdg))
    repo = str(Path(__file__).resolve().parent.parent)
    from tablecam.audit import default_model

    model = args.model or str(default_model())
    print(f"live latency bench: Slapjack, 1280x720 @ {FPS} fps, real time, {os.cpu_count()} cores, "
          f"load {os.getloadavg()[0]:.2f}")
    lat_all: list[float] = []
    for seed in args.seeds:
        r = render_game(root / f"sj{seed}.mp4", "slapjack", 3, seed, seconds=args.seconds)
        log, wav = root / f"sj{seed}.jsonl", root / f"sj{seed}.wav"
        proc = subprocess.run([sys.executable, "-c", CHILD, repo, str(r.video), str(r.layout), model, str(log),
                               str(wav), str(args.seconds), json.dumps(list(r.script.header.players)),
                               "1" if args.oracle else "0", str(seed)],
                              env=env, capture_output=True, text=True, timeout=600)
        if proc.returncode != 0:
            print(proc.stderr[-2000:])
            return 1
        info = json.loads(proc.stdout.strip().splitlines()[-1])
        side = [json.loads(x) for x in Path(f"{wav}.jsonl").read_text().splitlines() if x.strip()]
        jacks = [math.ceil(e.t * FPS - 1e-9) / FPS for e in r.script.events if e.type == "card" and e.card
                 and e.card[:-1] == "J"]
        calls = [c for c in side if c["kind"] == "trigger"]
        lat = []
        missed = 0
        for tj in jacks:
            due = info["start_wall"] + tj
            got = [c for c in calls if c.get("started") is not None and 0 <= c["started"] - due < 1.0]
            if got:
                lat.append(min(c["started"] for c in got) - due)
            else:
                missed += 1
        lat_all += lat
        ms = np.array(lat) * 1000
        drop = info["dropped"] / max(1, info["captured"])
        print(f"seed {seed:>4}: {len(jacks)} jacks, {len(lat)} called ({missed} missed); latency median "
              f"{np.median(ms) if ms.size else float('nan'):.0f} ms, max {ms.max() if ms.size else float('nan'):.0f} ms"
              f"; frames {info['frames']}, dropped {drop:.1%}, {info['busy_ms']:.1f} ms a frame; "
              f"sound: {info['backend']}", flush=True)
    ms = np.array(lat_all) * 1000
    if ms.size:
        print(f"all: {ms.size} jacks, latency median {np.median(ms):.0f} ms, 95th percentile "
              f"{np.percentile(ms, 95):.0f} ms (targets: 100 / 150 ms)")
    print(f"files: {root}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
