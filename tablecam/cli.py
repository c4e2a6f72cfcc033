"""The ``tablecam`` command: ``tablecam MODE [positional] key=value ...`` (ultralytics style).

Defaults live in ``cfg/default.yaml``; unknown keys and modes are refused with the closest match.
"""

from __future__ import annotations

import difflib
import sys
from collections.abc import Callable, Iterable
from typing import Any, TextIO

from engine.events import GAMES, GameHeader, dumps
from engine.games import new_referee
from engine.referee import GameSetupError, Referee
from engine.verdicts import Output, Verdict
from tablecam.config import ConfigError, parse_args, whole_number
from tablecam.gamelog import LogWriter, open_log, read_lines

USAGE = """\
usage: tablecam MODE [ARGS] [key=value ...]

modes:
  replay LOG.jsonl|-  [--say]        referee a game log; verdicts as JSON Lines (or sentences) on stdout
  simulate game=G players=N seed=S   play a whole random legal game; write the log a perfect camera makes
  synth out=DIR images=N imgsz=640 seed=S faces=builtin|FOLDER workers=N
                                     write a synthetic YOLO dataset of card-table scenes (detector training)
  eval-detector FOLDER detections=F  score detections against FOLDER/labels.json (recall, precision, confusions)
  train images=N epochs=E imgsz=640 model=yolo11n device=cpu|0
                                     train the card detector on synthetic scenes; exports ONNX, writes a model card
  markers out=sheet.png              write the printable sheet of table-corner markers
  calibrate IMAGE|VIDEO game=G players=A,B out=layout.yaml
                                     table zones and seats from the markers in a frame
  help                               this text

games: {games}
settings and their defaults: tablecam/cfg/default.yaml
"""


def _eprint(*parts: Any) -> None:
    print(*parts, file=sys.stderr)


def _emit(outputs: Iterable[Output], say_only: bool, out: TextIO) -> None:
    for o in outputs:
        if say_only:
            if isinstance(o, Verdict) and o.voice and o.say:
                out.write(o.say + "\n")
        else:
            out.write(dumps(o.to_dict()) + "\n")


def cmd_replay(args: list[str]) -> int:
    """Referee a log file (or stdin). Malformed lines are reported with file and line and skipped;
    the exit status is 1 when any line was malformed, 2 when the log cannot be refereed at all."""
    cfg, pos = parse_args("replay", args)
    if len(pos) != 1:
        _eprint("usage: tablecam replay LOG.jsonl|- [--say]")
        return 2
    path = pos[0]
    name = "<stdin>" if path == "-" else path
    try:
        stream = open_log(path)
    except OSError as e:
        _eprint(f"tablecam replay: cannot read {name}: {e.strerror or e}")
        return 2
    say_only = bool(cfg["say"])
    out = sys.stdout
    referee: Referee | None = None
    bad = 0
    with stream if stream is not sys.stdin else _nullcontext():
        for line in read_lines(stream):
            if line.error is not None:
                if referee is None:
                    _eprint(f"{name}:{line.number}: {line.error}")
                    _eprint(f"{name}: cannot referee without a valid first 'game' line "
                            f"(games: {', '.join(GAMES)})")
                    return 2
                _eprint(f"{name}:{line.number}: {line.error}; skipped")
                bad += 1
                continue
            item = line.item
            if item is None:
                continue
            if isinstance(item, GameHeader):
                if referee is not None:
                    _eprint(f"{name}:{line.number}: a second 'game' line; one log holds one game; skipped")
                    bad += 1
                    continue
                try:
                    referee = new_referee(item)
                except GameSetupError as e:
                    _eprint(f"{name}:{line.number}: {e}")
                    return 2
                continue
            if referee is None:
                _eprint(f"{name}:{line.number}: the first line must be the 'game' line, e.g. "
                        '{"t":0,"type":"game","game":"slapjack","players":["A","B"],"variants":{}}')
                return 2
            _emit(referee.push(item), say_only, out)
    if referee is None:
        _eprint(f"{name}: empty log: no 'game' line")
        return 2
    _emit(referee.finish(), say_only, out)
    out.flush()
    return 1 if bad else 0


class _nullcontext:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


def _players_arg(value: Any) -> int | list[str]:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip():
        return [p.strip() for p in value.split(",") if p.strip()]
    if isinstance(value, list):
        return [str(p) for p in value]
    raise ConfigError(f"players={value!r}: give a number or names separated by commas")


def cmd_simulate(args: list[str]) -> int:
    """Play one random legal game and write its log (observations; ``verdicts=true`` adds the rulings)."""
    from engine.sim import simulate

    cfg, pos = parse_args("simulate", args)
    if pos:
        raise ConfigError(f"simulate takes only key=value settings, not {pos[0]!r}")
    seed = whole_number(cfg, "seed")
    header, events = simulate(str(cfg["game"]), _players_arg(cfg["players"]), seed, dict(cfg["variants"] or {}),
                              cfg["dealer"])
    header.extra["seed"] = seed  # the log says how to make it again
    with LogWriter(cfg["out"], fresh=True) as log:
        log.write(header)
        referee = new_referee(header) if cfg["verdicts"] else None
        for ev in events:
            log.write(ev)
            if referee is not None:
                for o in referee.push(ev):
                    log.write(o.to_dict())
        if referee is not None:
            for o in referee.finish():
                log.write(o.to_dict())
    return 0


def cmd_eval_detector(args: list[str]) -> int:
    """Score a detector's output on a folder of labelled photos (matching rule of the detector issue)."""
    from models.evaluate import load_detections, load_labels, score

    cfg, pos = parse_args("eval-detector", args)
    if len(pos) != 1:
        _eprint("usage: tablecam eval-detector FOLDER detections=DETECTIONS.json [--json]")
        return 2
    if not cfg["detections"]:
        raise ConfigError("give detections=FILE.json (the detector's boxes for the folder's images)")
    try:
        labels = load_labels(pos[0])
        dets = load_detections(cfg["detections"])
    except (OSError, ValueError, KeyError, TypeError) as e:
        _eprint(f"tablecam eval-detector: {e}")
        return 2
    threshold = float(cfg["conf"])
    dets = {img: [d for d in items if d.conf >= threshold] for img, items in dets.items()}
    report = score(labels, dets)
    print(dumps(report.to_dict()) if cfg["json"] else report.text())
    return 0


def cmd_synth(args: list[str]) -> int:
    """Write (or reuse) a synthetic YOLO dataset; prints the path of its data.yaml."""
    from models.dataset import generate

    cfg, pos = parse_args("synth", args)
    if pos:
        raise ConfigError(f"synth takes only key=value settings, not {pos[0]!r}")
    for key in ("images", "imgsz", "seed"):
        whole_number(cfg, key)
    workers = None if cfg["workers"] is None else whole_number(cfg, "workers", minimum=1)
    try:
        data = generate(str(cfg["out"]), cfg["images"], imgsz=cfg["imgsz"], seed=cfg["seed"],
                        val_fraction=float(cfg["val_fraction"]), faces=str(cfg["faces"]), workers=workers,
                        closeup=float(cfg["closeup"]))
    except (ValueError, FileNotFoundError) as e:
        raise ConfigError(str(e)) from None
    print(data)
    return 0


def cmd_train(args: list[str]) -> int:
    """Train the detector (ultralytics, from scratch, offline) and export it to ONNX with metrics and a card."""
    from models.train import MissingDependency, train

    cfg, pos = parse_args("train", args)
    if pos:
        raise ConfigError(f"train takes only key=value settings, not {pos[0]!r}")
    for key in ("images", "epochs", "imgsz", "batch"):
        whole_number(cfg, key, minimum=1)
    workers = None if cfg["workers"] is None else whole_number(cfg, "workers", minimum=1)
    extra: dict = {"mosaic": float(cfg["mosaic"])}
    if cfg["hours"] is not None:
        if not isinstance(cfg["hours"], (int, float)) or isinstance(cfg["hours"], bool) or cfg["hours"] <= 0:
            raise ConfigError(f"hours={cfg['hours']!r} must be a positive number")
        extra["time"] = float(cfg["hours"])
    try:
        result = train(cfg["data"], images=cfg["images"], epochs=cfg["epochs"], imgsz=cfg["imgsz"],
                       model=str(cfg["model"]), device=cfg["device"], batch=cfg["batch"], workers=workers,
                       out=cfg["out"], seed=whole_number(cfg, "seed"), faces=str(cfg["faces"]),
                       data_dir=cfg["data_dir"], closeup=float(cfg["closeup"]), **extra)
    except (ValueError, FileNotFoundError, MissingDependency) as e:
        raise ConfigError(str(e)) from None
    print(f"weights: {result.pt}\nonnx: {result.onnx}\nmodel card: {result.out / 'MODEL_CARD.md'}")
    for group, v in result.metrics["val"].items():
        if v["mAP50-95"] is not None:
            print(f"synthetic val {group}: mAP50 {v['mAP50']:.3f}, mAP50-95 {v['mAP50-95']:.3f}")
    return 0


def cmd_markers(args: list[str]) -> int:
    """Write the printable marker sheet."""
    from calibration.markers import write_sheet

    cfg, pos = parse_args("markers", args)
    if pos:
        raise ConfigError(f"markers takes only key=value settings, not {pos[0]!r}")
    path = write_sheet(cfg["out"], marker_mm=float(cfg["marker_mm"]))
    print(f"{path}: print at 100 % on A4, cut out the four markers and lay them at the corners of the play area")
    return 0


def _first_frame_with_markers(source: str, max_frames: int = 300) -> Any:
    """An image file's pixels, or the first frame of a video in which all four markers are seen."""
    import cv2

    from calibration.markers import detect_markers

    frame = cv2.imread(source, cv2.IMREAD_COLOR)
    if frame is not None:
        return frame
    cap = cv2.VideoCapture(source)
    if not cap.isOpened():
        raise ConfigError(f"{source}: cannot open it as an image or a video")
    first = None
    try:
        for _ in range(max_frames):
            ok, frame = cap.read()
            if not ok:
                break
            first = frame if first is None else first
            if len(detect_markers(frame)) >= 4:
                return frame
    finally:
        cap.release()
    if first is None:
        raise ConfigError(f"{source}: no frame could be read")
    return first  # the marker search on it names the corners that are missing


def cmd_calibrate(args: list[str]) -> int:
    """Build a table layout (zones, seats, homography) from the corner markers seen in an image or video."""
    from calibration.layout import LayoutError
    from calibration.markers import layout_from_markers, marker_sizes_mm, parse_table_mm

    cfg, pos = parse_args("calibrate", args)
    if len(pos) != 1:
        _eprint("usage: tablecam calibrate IMAGE|VIDEO game=G players=A,B [table=800x600] [out=layout.yaml]")
        return 2
    players = _players_arg(cfg["players"])
    if isinstance(players, int):
        raise ConfigError("players= needs names, clockwise from the near edge, e.g. players=Ann,Bob")
    frame = _first_frame_with_markers(pos[0])
    table = parse_table_mm(cfg["table"])
    try:
        layout = layout_from_markers(frame, str(cfg["game"]), players, table, image_name=pos[0])
    except LayoutError as e:
        _eprint(f"tablecam calibrate: {e}")
        return 2
    layout.save(cfg["out"])
    sizes = marker_sizes_mm(frame, layout)
    print(f"{cfg['out']}: {cfg['game']} layout for {', '.join(players)}; zones {', '.join(layout.zones)}; markers "
          f"measure {', '.join(f'{m}: {s:.0f}' for m, s in sorted(sizes.items()))} mm on the table")
    return 0


def cmd_help(args: list[str]) -> int:
    print(USAGE.format(games=", ".join(GAMES)), end="")
    return 0


MODES: dict[str, Callable[[list[str]], int]] = {
    "replay": cmd_replay,
    "simulate": cmd_simulate,
    "eval-detector": cmd_eval_detector,
    "train": cmd_train,
    "markers": cmd_markers,
    "calibrate": cmd_calibrate,
    "synth": cmd_synth,
    "help": cmd_help,
}


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        return cmd_help([])
    mode, rest = argv[0], argv[1:]
    if mode not in MODES:
        close = difflib.get_close_matches(mode, list(MODES), n=1)
        hint = f"; did you mean '{close[0]}'?" if close else ""
        _eprint(f"tablecam: unknown mode {mode!r}{hint} (modes: {', '.join(MODES)})")
        return 2
    try:
        return MODES[mode](rest)
    except (ConfigError, GameSetupError) as e:
        _eprint(f"tablecam {mode}: {e}")
        return 2
    except BrokenPipeError:  # `tablecam replay log | head` is fine
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
