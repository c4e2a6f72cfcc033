"""Audit speed and accuracy on rendered games (``tablecam synth-video``): every figure of the audit issue, measured.

For each game (seeds x player counts, 1280x720 at 30 fps, with the slap sounds) it renders the video, audits it
with the shipped detector and compares with the ground truth:

- speed: frames audited per second and the ratio to real time (the issue asks >= 1.0 on this 2-core CPU);
  the audit is timed with and without writing the annotated video;
- cards: ground-truth ``card`` events found with the right card and time: within the frame before the one that
  showed it, or (race cards) within the ``t_err`` of their tap or frame; who laid them, where the truth says;
- Cheat's batches and reveals, cards taken back: found with the right count, cards and zone within 0.1 s;
- slaps: recall, the right player, contact-time errors from the video alone and after the audio;
- verdicts: whether the audit's verdicts equal those of refereeing the ground-truth log.

    python bench/audit.py [--game slapjack|snap|speed|spit|cheat|paijie] [--seeds 238 11 12] [--players 2 3 4]
                          [--seconds 20] [--model M.onnx] [--perfect] [--keep DIR [--reuse]]

``--reuse`` audits again the games an earlier run filmed into ``--keep DIR`` (the same script: the truth file says so;
the whole video: its length says so) instead of filming them again, which is most of a run's time: for a change to
the audit, not to the renderer.

``--perfect`` reads the cards from the script (``models.gamevideo.TruthReader``) instead of the detector: it
measures everything else (tracking, timing, players, counts, the referee) apart from the card reading.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

from engine.referee import COMMON_SETTINGS  # noqa: E402
from engine.replay import replay_to_end  # noqa: E402
from engine.verdicts import Verdict  # noqa: E402
from models.detector import Detector  # noqa: E402
from models.gamevideo import FPS, RenderedGame, TruthReader, make_script, render_game, truth_text  # noqa: E402
from tablecam.audit import audit, compare_verdicts, default_model  # noqa: E402
from tablecam.gamelog import corrected_cards  # noqa: E402
from vision.frames import VideoError, probe  # noqa: E402
from vision.watcher import detector_input  # noqa: E402

#: a verdict the audit says this close to one of the truth's, in the same words, is the same verdict (said alike)
ALIKE_S = 0.3
#: TM-3: slaps closer than this (or than the sum of their ``t_err``) are not ordered by the referee
TIE_WINDOW_S = COMMON_SETTINGS["tie_window_ms"][0] / 1000.0


def match_in_order(truth: list[tuple[float, str]], found: list[tuple[float, str]], gate: float = 0.15
                   ) -> list[tuple[int, int]]:
    """Pairs (truth index, found index) of slaps on the same zone, within ``gate`` seconds, that keep their order
    in time: the most pairs, then the least total time error. Who slapped first is the question, so the n-th
    slap seen on a pile is compared with the n-th that happened, not with whichever is nearest in time (two
    hands ms apart, one timed a little early, would otherwise be paired crosswise)."""
    pairs: list[tuple[int, int]] = []
    for zone in sorted({z for _, z in truth} | {z for _, z in found}):
        ti = sorted((i for i, (_, z) in enumerate(truth) if z == zone), key=lambda i: truth[i][0])
        fi = sorted((j for j, (_, z) in enumerate(found) if z == zone), key=lambda j: found[j][0])
        n, m = len(ti), len(fi)
        # best[a][b]: (pairs, -error) aligning the first a truths with the first b found
        best = [[(0, 0.0)] * (m + 1) for _ in range(n + 1)]
        for a in range(1, n + 1):
            for b in range(1, m + 1):
                cands = [best[a - 1][b], best[a][b - 1]]
                dt = abs(truth[ti[a - 1]][0] - found[fi[b - 1]][0])
                if dt < gate:
                    k, e = best[a - 1][b - 1]
                    cands.append((k + 1, e - dt))
                best[a][b] = max(cands)
        a, b = n, m
        while a and b:
            if best[a][b] == best[a - 1][b]:
                a -= 1
            elif best[a][b] == best[a][b - 1]:
                b -= 1
            else:
                pairs.append((ti[a - 1], fi[b - 1]))
                a, b = a - 1, b - 1
    return sorted(pairs)


def kept_render(video: Path, game: str, players: int, seed: int, seconds: float) -> RenderedGame | None:
    """The game an earlier run filmed to ``video``, when it is this one: its truth file holds this script's lines,
    its layout and deck are beside it and the video runs to the script's end (a run stopped mid-film leaves a short
    one). None otherwise: it must be filmed again."""
    sc = make_script(game, players, seed, seconds)
    truth = video.with_name(video.stem + ".truth.jsonl")
    layout = video.with_name(video.stem + ".layout.yaml")
    if not (video.is_file() and truth.is_file() and layout.is_file()
            and video.with_name(video.stem + ".deck").is_dir()):
        return None
    if truth.read_text(encoding="utf-8") != truth_text(sc):
        return None
    try:
        info = probe(video)
    except VideoError:
        return None
    if info.duration is None or info.duration < sc.duration - 2 / FPS:
        return None
    return RenderedGame(video, truth, layout, sc)


def players_right_unordered(matched: list[tuple[str, str, float, float, str]]) -> int:
    """How many matched slaps name the right player: (truth player, zone, found time, found t_err, found player)
    each. Slaps on one zone that the audit itself leaves unordered (TM-3: closer than the tie window or the sum of
    their ``t_err``: two hands 2 ms apart, one timed by the video to a frame) are compared as a group, by who is
    in it, not by their order: which came first is TM-3's question (``unresolved_tie``), whose hand each one was
    is this one."""
    right = 0
    by_zone: dict[str, list[tuple[str, str, float, float, str]]] = {}
    for m in matched:
        by_zone.setdefault(m[1], []).append(m)
    for group in by_zone.values():
        group.sort(key=lambda m: m[2])
        cluster: list[tuple[str, str, float, float, str]] = []
        for m in [*group, None]:
            if cluster and (m is None or all(m[2] - c[2] > max(TIE_WINDOW_S, m[3] + c[3]) for c in cluster)):
                want = Counter(c[0] for c in cluster)
                got = Counter(c[4] for c in cluster)
                right += sum((want & got).values())
                cluster = []
            if m is not None:
                cluster.append(m)
    return right


def card_on_time(truth_t: float, seen: dict) -> bool:
    """Whether a ``card`` line ``seen`` dates a card that landed at ``truth_t`` right: within the frame before the
    one that showed it (an audit dates a card by the first frame it shows in), or within the ``t_err`` of a race
    card's tap; a few ms either way for the renderer's rounding."""
    t_err = float(seen.get("t_err", 0.0))
    return seen["t"] - (t_err or 1 / FPS) - 0.003 <= truth_t <= seen["t"] + t_err + 0.003


def score(r: object, res: object) -> dict:
    """Compare one audit (``res``) with its rendered game's ground truth (``r``)."""
    sc = r.script
    truth_cards = [e for e in sc.events if e.type == "card" and e.zone in sc.piles]
    with open(res.log, encoding="utf-8") as f:
        logged = [json.loads(x) for x in f if x.strip()]
    seen_cards = corrected_cards(logged)  # (a column's card read again right renames its line)
    used: set[int] = set()
    right = players = players_known = 0
    for e in truth_cards:
        for i, d in enumerate(seen_cards):
            if i not in used and d["zone"] == e.zone and d["card"] == e.card and card_on_time(e.t, d):
                used.add(i)
                right += 1
                if e.player and sc.header.game in ("speed", "paijie"):
                    players_known += 1
                    players += d.get("player") == e.player
                break
    wrong_cards = len(seen_cards) - len(used)
    others = [e for e in sc.events if e.type in ("facedown", "reveal", "remove") and e.zone in sc.piles]
    found_others, taken_o = 0, set()
    for e in others:
        for i, d in enumerate(logged):
            if i in taken_o or d.get("type") != e.type or d.get("zone") != e.zone or abs(d["t"] - e.t) > 0.1:
                continue
            if (e.type == "facedown" and d.get("count") == e.count) or \
                    (e.type == "reveal" and sorted(d.get("cards", [])) == sorted(e.cards or ())) or \
                    (e.type == "remove" and d.get("card") == e.card):
                taken_o.add(i)
                found_others += 1
                break
    extra_others = sum(1 for d in logged if d.get("type") in ("facedown", "reveal", "remove")) - len(taken_o)
    slaps = list(sc.slaps)
    video_err, fused_err = [], []
    pairs = match_in_order([(t, z) for t, _, z in slaps], [(s.t, s.zone) for s in res.slaps])
    right_player = players_right_unordered(
        [(slaps[i][1], res.slaps[j].zone, res.slaps[j].t, res.slaps[j].t_err, res.slaps[j].player)
         for i, j in pairs])
    for i, j in pairs:
        t = slaps[i][0]
        s = res.slaps[j]
        if s.source != "audio":  # (a slap heard, not seen, has no time of its own from the video)
            video_err.append(abs(s.t_video - t))
        fused_err.append(abs(s.t - t))
    taken = {j for _, j in pairs}
    _, outs = replay_to_end(sc.header, sc.events)
    want = [o.to_dict() for o in outs if isinstance(o, Verdict)]
    got = [d for d in res.outputs if d.get("type") == "verdict"]
    return {"cards": len(truth_cards), "cards_right": right, "cards_extra": wrong_cards,
            "players_right": players, "players_known": players_known, "others": len(others),
            "others_right": found_others, "others_extra": extra_others,
            "slaps": len(slaps), "slaps_found": len(taken), "slaps_extra": len(res.slaps) - len(taken),
            "player_right": right_player, "video_err": video_err, "fused_err": fused_err,
            "verdicts_equal": not compare_verdicts(got, want), "verdicts": (len(got), len(want)),
            "verdicts_alike": said_alike(want, got)}


def said_alike(want: list[dict], got: list[dict], within: float = ALIKE_S) -> int:
    """How many of the truth's verdicts (``want``) the audit also said: a verdict of the same kind and words within
    ``within`` seconds, each audit verdict counted once. Where the verdicts are not all equal, how near they are."""
    used: set[int] = set()
    alike = 0
    for w in want:
        for i, g in enumerate(got):
            if i not in used and g.get("kind") == w.get("kind") and g.get("say") == w.get("say") \
                    and abs(float(g["t"]) - float(w["t"])) < within:
                used.add(i)
                alike += 1
                break
    return alike


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[238, 11, 12])
    ap.add_argument("--players", type=int, nargs="+", default=None, help="default: 2 for Speed and Spit, else 3")
    ap.add_argument("--game", default="slapjack")
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--model", default=None)
    ap.add_argument("--keep", default=None, help="keep the videos and audits in this folder")
    ap.add_argument("--reuse", action="store_true",
                    help="audit again the games an earlier run filmed into --keep, instead of filming them again")
    ap.add_argument("--perfect", action="store_true", help="read the cards from the script, not the detector")
    ap.add_argument("--imgsz", type=int, default=None,
                    help="the detector's input for the zone crops (default: vision.watcher.detector_input's)")
    ap.add_argument("--no-deck", action="store_true",
                    help="read faces with the card reader alone, not with the pictures of the game's deck")
    args = ap.parse_args()
    if args.reuse and not args.keep:
        ap.error("--reuse needs --keep DIR: the folder an earlier run filmed its games into")
    if args.players is None:
        args.players = [2] if args.game in ("speed", "spit") else [3]
    root = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="tablecam-bench-"))
    model = Path(args.model) if args.model else default_model()
    # --perfect: the stand-in reader cuts the crops the audit would cut for this model (their side is its input)
    perfect_side = (args.imgsz or detector_input(model, args.game) or Detector(model).imgsz) if args.perfect else 0
    reading = "cards from the script" if args.perfect else \
        "reader alone" if args.no_deck else "reader and the deck's pictures"
    print(f"audit bench: {args.game}, 1280x720 @ {FPS} fps, {args.seconds:g} s per game, {os.cpu_count()} cores, "
          f"load {os.getloadavg()[0]:.2f}; {reading}")
    print(f"{'game':>14} {'frames':>6} {'fps':>6} {'x rt':>5} {'fps*':>6} {'x rt*':>5} {'cards':>7} {'laid by':>7} "
          f"{'batches':>7} {'slaps':>7} {'player':>6} {'vid<=1f':>7} {'vid med':>7} {'aud med':>7} {'verdicts':>9}")
    rows = []
    for n in args.players:
        for seed in args.seeds:
            name = f"{args.game}-{n}p-s{seed}"
            kept = kept_render(root / f"{name}.mp4", args.game, n, seed, args.seconds) if args.reuse else None
            r = kept or render_game(root / f"{name}.mp4", args.game, n, seed, seconds=args.seconds)
            said = r.video.with_name(r.video.stem + ".said.jsonl")
            said_arg = said if said.is_file() else None
            deck = None if args.perfect or args.no_deck else r.video.with_name(r.video.stem + ".deck")

            def reader(game: object = r) -> object:
                return TruthReader(game.script, imgsz=perfect_side) if args.perfect else None

            t0 = time.perf_counter()
            res = audit(r.video, args.game, list(r.script.header.players), r.layout, root / name, model=args.model,
                        progress=False, said=said_arg, detector=reader(), deck=deck, imgsz=args.imgsz)
            t_full = time.perf_counter() - t0
            t0 = time.perf_counter()
            audit(r.video, args.game, list(r.script.header.players), r.layout, root / f"{name}-plain",
                  model=args.model, progress=False, annotate=False, said=said_arg, detector=reader(), deck=deck,
                  imgsz=args.imgsz)
            t_plain = time.perf_counter() - t0
            s = score(r, res)
            video_s = res.frames / FPS
            ve, fe = np.array(s["video_err"]) * 1000, np.array(s["fused_err"]) * 1000
            row = {"name": name, "frames": res.frames, "fps_full": res.frames / t_full, "rt_full": video_s / t_full,
                   "fps_plain": res.frames / t_plain, "rt_plain": video_s / t_plain, **s}
            rows.append(row)
            # (a game with no slap timed has no timing figures: a dash, not nan)
            within = f"{float(np.mean(ve <= 1000 / FPS)):7.0%}" if ve.size else f"{'-':>7}"
            vmed = f"{np.median(ve):6.1f}ms" if ve.size else f"{'-':>8}"
            fmed = f"{np.median(fe):6.2f}ms" if fe.size else f"{'-':>8}"
            print(f"{name:>14} {res.frames:6d} {row['fps_full']:6.1f} {row['rt_full']:5.2f} {row['fps_plain']:6.1f} "
                  f"{row['rt_plain']:5.2f} {s['cards_right']:3d}/{s['cards']:<3d} "
                  f"{s['players_right']:3d}/{s['players_known']:<3d} {s['others_right']:3d}/{s['others']:<3d} "
                  f"{s['slaps_found']:3d}/{s['slaps']:<3d} {s['player_right']:3d}/{s['slaps_found']:<2d} {within} "
                  f"{vmed} {fmed} {'equal' if s['verdicts_equal'] else 'DIFFER':>6} "
                  f"{s['verdicts'][0]}/{s['verdicts'][1]} alike {s['verdicts_alike']}", flush=True)
    tot = {k: sum(r[k] for r in rows) for k in ("cards", "cards_right", "cards_extra", "slaps", "slaps_found",
                                                 "slaps_extra", "player_right", "players_right", "players_known",
                                                 "others", "others_right", "others_extra")}
    ve = np.array([e for r in rows for e in r["video_err"]]) * 1000
    fe = np.array([e for r in rows for e in r["fused_err"]]) * 1000
    slaps = (f"; slaps found {tot['slaps_found']}/{tot['slaps']} (recall {tot['slaps_found'] / tot['slaps']:.1%}, "
             f"+{tot['slaps_extra']} invented); right player {tot['player_right']}/{tot['slaps_found']}"
             if tot["slaps"] else f"; no slaps ({tot['slaps_extra']} invented)")
    print(f"\ntotal: cards right {tot['cards_right']}/{tot['cards']} (+{tot['cards_extra']} wrong or extra){slaps}")
    if tot["players_known"] or tot["others"]:
        print(f"cards laid by the right player {tot['players_right']}/{tot['players_known']}; batches, reveals and "
              f"take-backs right {tot['others_right']}/{tot['others']} (+{tot['others_extra']} wrong or extra)")
    if ve.size:
        print(f"contact error, video alone: median {np.median(ve):.1f} ms, within one frame "
              f"{np.mean(ve <= 1000 / FPS):.1%}, max {ve.max():.1f} ms; with audio: median {np.median(fe):.2f} ms, "
              f"90th pct {np.percentile(fe, 90):.2f} ms")
    print(f"speed (median of games): {statistics.median(r['rt_full'] for r in rows):.2f}x real time with the "
          f"annotated video, {statistics.median(r['rt_plain'] for r in rows):.2f}x without; "
          f"verdicts equal in {sum(r['verdicts_equal'] for r in rows)}/{len(rows)} games; the truth's verdicts "
          f"said alike (same words within {ALIKE_S:g} s) {sum(r['verdicts_alike'] for r in rows)}/"
          f"{sum(r['verdicts'][1] for r in rows)}, {sum(r['verdicts'][0] - r['verdicts_alike'] for r in rows)} more "
          f"said by the audit alone")
    print(f"files: {root}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
