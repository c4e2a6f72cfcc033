"""The ``tablecam`` command: ``tablecam MODE [positional] key=value ...`` (ultralytics style).

Defaults live in ``cfg/default.yaml``; unknown keys and modes are refused with the closest match.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable
from typing import Any, TextIO

from engine.events import GAMES, GameHeader, dumps
from engine.games import new_referee
from engine.referee import GameSetupError
from engine.timeline import Timeline
from engine.verdicts import Output, Verdict
from tablecam.config import ConfigError, did_you_mean, parse_args, whole_number
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
  train-reader scenes=N epochs=E size=64 faces=builtin|FOLDER
                                     train the card reader (which card a detected face is); exports ONNX
  markers out=sheet.png              write the printable sheet of table-corner markers
  calibrate IMAGE|VIDEO|camera=N game=G players=A,B out=layout.yaml
                                     table zones and seats from the markers in a frame, or from
                                     the play area's corners (click=true, or corners=x,y;...)
  synth-video game=G seed=S out=game.mp4
                                     render a scripted game (video, audio, ground-truth log, layout)
  audit VIDEO layout=L out=DIR       referee a recorded game: game.jsonl, slaps.csv, report.html,
                                     annotated.mp4 (Speed, Spit: races.csv)
  demo                               render a short Slapjack game and audit it (the shipped model)
  calibrate-latency VIDEO layout=L   the audio-video clock offset from one clap in view; saved in the layout
  live camera=0|video=F layout=L     referee a game as it is played and speak the verdicts
                                     (audio_out=F.wav records them, mute=true, lang=zh)
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
    timeline: Timeline | None = None  # (a line after later ones is ruled in its place where the game says so)
    bad = 0
    with stream if stream is not sys.stdin else _nullcontext():
        for line in read_lines(stream):
            if line.error is not None:
                if timeline is None:
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
                if timeline is not None:
                    _eprint(f"{name}:{line.number}: a second 'game' line; one log holds one game; skipped")
                    bad += 1
                    continue
                try:
                    timeline = Timeline(new_referee(item))
                except GameSetupError as e:
                    _eprint(f"{name}:{line.number}: {e}")
                    return 2
                continue
            if timeline is None:
                _eprint(f"{name}:{line.number}: the first line must be the 'game' line, e.g. "
                        '{"t":0,"type":"game","game":"slapjack","players":["A","B"],"variants":{}}')
                return 2
            _emit(timeline.push(item), say_only, out)
    if timeline is None:
        _eprint(f"{name}: empty log: no 'game' line")
        return 2
    _emit(timeline.finish(), say_only, out)
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
        _eprint("usage: tablecam eval-detector FOLDER [model=M.onnx | detections=DETECTIONS.json] [--json]")
        return 2
    try:
        labels = load_labels(pos[0])
        if cfg["detections"]:
            dets = load_detections(cfg["detections"])
        else:
            dets = detect_folder(pos[0], list(labels), cfg["model"], float(cfg["conf"]), cfg["imgsz"],
                                 cfg["reader"])
    except (OSError, ValueError, KeyError, TypeError) as e:
        _eprint(f"tablecam eval-detector: {e}")
        return 2
    threshold = float(cfg["conf"])
    dets = {img: [d for d in items if d.conf >= threshold] for img, items in dets.items()}
    report = score(labels, dets)
    print(dumps(report.to_dict()) if cfg["json"] else report.text())
    return 0


def detect_folder(folder: str, images: list[str], model: Any, conf: float, imgsz: Any,
                  reader: Any = "auto") -> dict[str, list[Any]]:
    """Run the detector (default: the shipped one) on every labelled image of ``folder``/images."""
    from pathlib import Path

    import cv2

    from models.evaluate import Detection
    from models.reader import load_card_model
    from tablecam.audit import default_model

    det = load_card_model(Path(model) if model else default_model(), reader, conf=conf,
                          imgsz=int(imgsz) if imgsz else None)
    out: dict[str, list[Any]] = {}
    for name in images:
        path = Path(folder) / "images" / name
        if not path.is_file():
            path = Path(folder) / name
        img = cv2.imread(str(path))
        if img is None:
            raise ValueError(f"{path}: cannot read the image named in labels.json")
        d = det(img)
        out[name] = [Detection(str(n), tuple(float(v) for v in b), float(c))
                     for b, c, n in zip(d.xyxy, d.confidence, d.class_name, strict=True) if n not in ("back", "hand")]
    return out


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


def _hours(cfg: dict[str, Any]) -> float | None:
    """The ``hours=`` time budget of a training mode: None, or a positive number."""
    hours = cfg["hours"]
    if hours is None:
        return None
    if not isinstance(hours, int | float) or isinstance(hours, bool) or hours <= 0:
        raise ConfigError(f"hours={hours!r} must be a positive number")
    return float(hours)


def _zone_imgsz(cfg: dict[str, Any]) -> int | None:
    """The ``imgsz=`` of the audit and the live loop: None (``vision.watcher.detector_input`` decides) or pixels."""
    return None if cfg["imgsz"] is None else whole_number(cfg, "imgsz", minimum=32)


def cmd_train(args: list[str]) -> int:
    """Train the detector (ultralytics, from scratch, offline) and export it to ONNX with metrics and a card."""
    from models.train import MissingDependency, train

    cfg, pos = parse_args("train", args)
    if pos:
        raise ConfigError(f"train takes only key=value settings, not {pos[0]!r}")
    for key in ("images", "epochs", "imgsz", "batch"):
        whole_number(cfg, key, minimum=1)
    workers = None if cfg["workers"] is None else whole_number(cfg, "workers", minimum=1)
    extra: dict = {"mosaic": float(cfg["mosaic"]), "optimizer": str(cfg["optimizer"]),
                   "warmup_epochs": float(cfg["warmup_epochs"])}
    if cfg["lr0"] is not None:
        extra["lr0"] = float(cfg["lr0"])
    if _hours(cfg) is not None:
        extra["time"] = _hours(cfg)
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


def cmd_train_reader(args: list[str]) -> int:
    """Train the card reader (stage two: which card a detected face is) on crops of synthetic scenes."""
    from pathlib import Path

    from models.reader import CardReader, score_on_labels, train_reader, write_reader_card

    cfg, pos = parse_args("train-reader", args)
    if pos:
        raise ConfigError(f"train-reader takes only key=value settings, not {pos[0]!r}")
    scenes, epochs = whole_number(cfg, "scenes", minimum=10), whole_number(cfg, "epochs", minimum=1)
    faces = str(cfg["faces"])
    if faces != "builtin" and not Path(faces).is_dir():
        raise ConfigError(f"faces={faces}: not 'builtin' and not a folder")
    real = [f for f in str(cfg["real"] or "").split(",") if f]
    for folder in real:
        if not (Path(folder) / "labels.json").is_file():
            raise ConfigError(f"real={folder}: no labels.json there")
    hours = _hours(cfg)
    result = train_reader(cfg["out"], scenes=scenes, epochs=epochs, seed=whole_number(cfg, "seed"), faces=faces,
                          hours=hours, device=str(cfg["device"]), batch=whole_number(cfg, "batch", minimum=1),
                          init=cfg["init"], lr=float(cfg["lr"]), size=whole_number(cfg, "size", minimum=32))
    reader = CardReader(result.onnx)
    real_scores = [score_on_labels(reader, f) for f in real]
    card = write_reader_card(Path(str(cfg["out"])), result.metrics, real_scores)
    v = result.metrics["synthetic_val"]
    print(f"reader: {result.onnx}\nmodel card: {card}")
    print(f"synthetic val: faces read right {v.get('face_accuracy')}, rank {v.get('rank_accuracy')}, "
          f"suit {v.get('suit_accuracy')}")
    for r in real_scores:
        print(f"real {r['folder']}: {r['accuracy']:.3f} of {r['labels']} labelled cards read right")
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


def _first_frame_with_markers(source: str, max_frames: int = 300, markers: bool = True) -> Any:
    """An image file's pixels, or the first frame of a video in which all four markers are seen (``markers=False``:
    its first frame)."""
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
            if not markers or len(detect_markers(frame)) >= 4:
                return frame
    finally:
        cap.release()
    if first is None:
        raise ConfigError(f"{source}: no frame could be read")
    return first  # the marker search on it names the corners that are missing


def cmd_calibrate(args: list[str]) -> int:
    """Build a table layout (zones, seats, homography) from the corner markers seen in an image or video."""
    from calibration.clicks import NoWindow, click_corners, layout_from_corners
    from calibration.layout import LayoutError
    from calibration.markers import layout_from_markers, marker_sizes_mm, parse_table_mm

    cfg, pos = parse_args("calibrate", args)
    if len(pos) > 1 or (not pos and cfg["camera"] is None):
        _eprint("usage: tablecam calibrate IMAGE|VIDEO|camera=N game=G players=A,B [table=800x600] "
                "[corners=x,y;x,y;x,y;x,y | click=true] [out=layout.yaml]")
        return 2
    players = _players_arg(cfg["players"])
    if isinstance(players, int):
        raise ConfigError("players= needs names, clockwise from the near edge, e.g. players=Ann,Bob")
    source = pos[0] if pos else f"camera {whole_number(cfg, 'camera')}"
    by_hand = cfg["corners"] is not None or bool(cfg["click"])
    if pos:
        frame = _first_frame_with_markers(pos[0], markers=not by_hand)
    else:
        frame = _camera_frame(whole_number(cfg, "camera"))
    table = parse_table_mm(cfg["table"])
    h, w = frame.shape[:2]
    try:
        if cfg["corners"] is not None:
            layout = layout_from_corners(str(cfg["corners"]), (w, h), str(cfg["game"]), players, table,
                                         source=f"{source} (corners given)")
        elif cfg["click"]:
            layout = click_corners(frame, str(cfg["game"]), players, table)
        else:
            layout = layout_from_markers(frame, str(cfg["game"]), players, table, image_name=source)
    except (LayoutError, NoWindow) as e:
        _eprint(f"tablecam calibrate: {e}")
        return 2
    except KeyboardInterrupt:
        _eprint("tablecam calibrate: quit; no layout written")
        return 130
    layout.save(cfg["out"])
    where = "from the corners"
    if not by_hand:
        sizes = marker_sizes_mm(frame, layout)
        where = f"markers measure {', '.join(f'{m}: {s:.0f}' for m, s in sorted(sizes.items()))} mm on the table"
    print(f"{cfg['out']}: {cfg['game']} layout for {', '.join(players)}; zones {', '.join(layout.zones)}; {where}")
    return 0


def _camera_frame(index: int) -> Any:
    """One frame from camera ``index`` (after a few, so that its exposure has settled)."""
    from vision.frames import CameraError, open_camera

    try:
        cam = open_camera(index)
    except CameraError as e:
        raise ConfigError(str(e)) from None
    frame = None
    with cam:
        for f in cam:
            frame = f.image
            if f.index >= 9:
                break
    if frame is None:
        raise ConfigError(f"camera {index}: delivered no frame")
    return frame


def cmd_synth_video(args: list[str]) -> int:
    """Render a scripted game: the video the audit is measured on, with its ground truth."""
    from models.gamevideo import render_game

    cfg, pos = parse_args("synth-video", args)
    if pos:
        raise ConfigError(f"synth-video takes only key=value settings, not {pos[0]!r}")
    seconds = cfg["seconds"]
    if seconds is not None and (not isinstance(seconds, int | float) or isinstance(seconds, bool) or seconds <= 0):
        raise ConfigError(f"seconds={seconds!r} must be a positive number (or null for the whole game)")
    try:
        r = render_game(str(cfg["out"]), str(cfg["game"]), _players_arg(cfg["players"]), whole_number(cfg, "seed"),
                        seconds=seconds, faces=str(cfg["faces"]), audio=bool(cfg["audio"]), progress=True)
    except (ValueError, FileNotFoundError) as e:
        raise ConfigError(str(e)) from None
    print(f"video: {r.video}\nground truth: {r.truth}\nlayout: {r.layout}\n"
          f"deck (a picture of each card, for audit deck=): {r.video.with_name(r.video.stem + '.deck')}")
    said = r.video.with_name(r.video.stem + ".said.jsonl")
    if said.is_file():
        print(f"said at the table: {said}")
    return 0


def _table(cfg: dict[str, Any], video: str | None) -> tuple[str, Any, str, list[str]]:
    """The layout (``layout=``, or VIDEO's ``.layout.yaml``), loaded, and the game and player names, from the
    settings or else from the layout: shared by ``audit`` and ``live``."""
    from pathlib import Path

    from calibration.layout import Layout, LayoutError

    if cfg["game"] and cfg["game"] not in GAMES:  # (before the layout: the name typed wrong is the first thing to say)
        raise ConfigError(f"unknown game {cfg['game']!r}{did_you_mean(str(cfg['game']), GAMES)} "
                          f"(games: {', '.join(GAMES)})")
    layout = cfg["layout"] or (str(Path(video).with_suffix("")) + ".layout.yaml" if video else None)
    if not layout or not Path(layout).is_file():
        raise ConfigError(f"no layout{' at ' + layout if layout else ''}: make one with tablecam calibrate, "
                          f"or pass layout=FILE")
    try:
        lay = Layout.load(layout)
    except LayoutError as e:
        raise ConfigError(str(e)) from None
    players = _players_arg(cfg["players"]) if cfg["players"] else list(lay.players)
    if isinstance(players, int):
        raise ConfigError("players=: give the names, as the layout seats them")
    return str(layout), lay, str(cfg["game"] or lay.game), players


def _audit(video: str, cfg: dict[str, Any]) -> int:
    from pathlib import Path

    from tablecam.audit import AuditError, audit
    from tablecam.report import tally_line
    from vision.frames import VideoError

    if not Path(video).is_file():  # (before its layout, named after it)
        raise ConfigError(f"no video at {video}")
    layout, _, game, players = _table(cfg, video)
    beside = str(Path(video).with_suffix(""))  # what synth-video writes next to a video it films
    said = cfg["said"]
    if said is None and Path(beside + ".said.jsonl").is_file():
        said = beside + ".said.jsonl"
    deck = _deck(cfg, beside)
    try:
        r = audit(video, game, players, layout, cfg["out"], model=cfg["model"], dealer=cfg["dealer"],
                  variants=dict(cfg["variants"] or {}), use_audio=bool(cfg["audio"]), annotate=bool(cfg["annotate"]),
                  progress=bool(cfg["progress"]), conf=float(cfg["conf"]), reader=cfg["reader"], said=said,
                  imgsz=_zone_imgsz(cfg), deck=deck)
    except (AuditError, VideoError, FileNotFoundError) as e:
        raise ConfigError(str(e)) from None
    if deck is not None:
        print(f"faces read against the pictures of the deck in {deck}")
    s = r.summary
    print(f"{tally_line(s)} in {s.duration:.1f} s of video; audited at {s.duration / r.seconds:.2f}x real time")
    if r.stopped:
        print(f"warning: {r.stopped}", file=sys.stderr)
    print(f"report: {r.out / 'report.html'}\nlog: {r.log}\nslaps: {r.out / 'slaps.csv'}")
    if (r.out / "races.csv").is_file():
        print(f"races: {r.out / 'races.csv'}")
    if s.annotated:
        print(f"annotated video: {r.out / s.annotated}")
    return 0


def cmd_audit(args: list[str]) -> int:
    """Audit a recorded game; see tablecam.audit."""
    cfg, pos = parse_args("audit", args)
    if len(pos) != 1:
        _eprint("usage: tablecam audit VIDEO layout=LAYOUT.yaml [game=slapjack] [players=A,B,C] [out=DIR]")
        return 2
    return _audit(pos[0], cfg)


def cmd_demo(args: list[str]) -> int:
    """Render a short Slapjack game, then audit it with the shipped model: the whole pipeline, no camera needed."""
    from pathlib import Path

    from models.gamevideo import render_game

    cfg, pos = parse_args("demo", args)
    if pos:
        raise ConfigError(f"demo takes only key=value settings, not {pos[0]!r}")
    out = Path(str(cfg["out"]))
    players = _players_arg(cfg["players"])
    print(f"rendering a {cfg['seconds']} s {cfg['game']} game (seed {cfg['seed']}) ...", file=sys.stderr)
    r = render_game(out / "game.mp4", str(cfg["game"]), players, whole_number(cfg, "seed"),
                    seconds=cfg["seconds"], progress=True)
    acfg, _ = parse_args("audit", [f"layout={r.layout}", f"out={out / 'audit'}"])
    code = _audit(str(r.video), acfg)
    if code == 0:
        print(f"ground truth: {r.truth}")
        print(truth_agreement(r.truth, out / "audit" / "game.jsonl"))
    return code


def truth_agreement(truth: Any, audited: Any) -> str:
    """One line: do the audit's verdicts equal those of refereeing the ground-truth log?"""
    from engine.replay import replay_to_end
    from tablecam.audit import compare_verdicts

    def verdicts_of(path: Any, rerun: bool) -> list[dict[str, Any]]:
        if not rerun:  # the audit's own verdict lines
            with open(path, encoding="utf-8") as f:
                return [d for d in (json.loads(x) for x in f if x.strip()) if d.get("type") == "verdict"]
        with open_log(path) as f:
            items = [ln.item for ln in read_lines(f) if ln.item is not None]
        header = next(i for i in items if isinstance(i, GameHeader))
        _, outs = replay_to_end(header, [i for i in items if not isinstance(i, GameHeader)])
        return [o.to_dict() for o in outs if isinstance(o, Verdict)]

    want, got = verdicts_of(truth, True), verdicts_of(audited, False)
    diff = compare_verdicts(got, want)
    if not diff:
        return f"the audit's {len(got)} verdicts equal those of refereeing the ground truth"
    return f"the audit's verdicts differ from the ground truth's ({len(got)} vs {len(want)}):\n" + "\n".join(diff)


def cmd_calibrate_latency(args: list[str]) -> int:
    """Measure the microphone-camera clock offset from a clap in a recording and store it in the layout."""
    from calibration.latency import ClapNotFound, measure
    from calibration.layout import Layout, LayoutError
    from vision.audio import read_audio
    from vision.frames import VideoError, read_video

    cfg, pos = parse_args("calibrate-latency", args)
    if len(pos) != 1:
        _eprint("usage: tablecam calibrate-latency CLAP.mp4 layout=LAYOUT.yaml  (record one clap in view)")
        return 2
    try:
        lay = Layout.load(cfg["layout"]) if cfg["layout"] else None
        samples, rate, t0 = read_audio(pos[0])
        m = measure(read_video(pos[0]), samples, rate, t0)
    except (LayoutError, VideoError, ClapNotFound) as e:
        raise ConfigError(str(e)) from None
    print(f"clap seen at {m.t_video:.4f} s (+- {m.frame_s / 2 * 1000:.0f} ms), heard at {m.t_audio:.4f} s: "
          f"the audio runs {m.audio_s * 1000:+.1f} ms against the video")
    if lay is not None:
        lay.latency["audio_s"] = round(m.audio_s, 5)
        lay.save(cfg["layout"])
        print(f"saved in {cfg['layout']} (latency.audio_s)")
    return 0


def _deck(cfg: dict, beside: str | None) -> str | None:
    """The ``deck=`` folder: as given, or the ``.deck`` folder beside the video (``beside``: its path without the
    suffix) when there is one; None when none is or ``deck=none``."""
    from pathlib import Path

    deck = cfg["deck"]
    if deck is None:
        return beside + ".deck" if beside is not None and Path(beside + ".deck").is_dir() else None
    return None if str(deck).lower() in ("none", "false", "") else str(deck)


def cmd_live(args: list[str]) -> int:
    """The live assistant; see tablecam.live."""
    from pathlib import Path

    from tablecam.audio_out import Player
    from tablecam.audit import default_model
    from tablecam.live import LiveError, run_live
    from vision.frames import VideoError

    cfg, pos = parse_args("live", args)
    if pos:
        raise ConfigError(f"live takes only key=value settings, not {pos[0]!r}")
    video = str(cfg["video"]) if cfg["video"] else None
    layout, _, game, players = _table(cfg, video)
    model = Path(cfg["model"]) if cfg["model"] else default_model()
    deck = _deck(cfg, str(Path(video).with_suffix("")) if video else None)
    if deck is not None:
        print(f"faces read against the pictures of the deck in {deck}", flush=True)
    try:
        player = Player.from_settings(mute=bool(cfg["mute"]), lang=str(cfg["lang"]), audio_out=cfg["audio_out"])
        stats = run_live(video=video, camera=None if video else whole_number(cfg, "camera"),
                         game=game, players=players, layout=layout, model=model,
                         log_path=cfg["log"], player=player, realtime=bool(cfg["realtime"]),
                         seconds=cfg["seconds"], use_audio=bool(cfg["audio"]),
                         call_triggers=bool(cfg["call_triggers"]), reader=cfg["reader"],
                         imgsz=_zone_imgsz(cfg),
                         window=not bool(cfg["headless"]), mic_device=cfg["mic"], hints=bool(cfg["hints"]),
                         said=None if cfg["said"] is None else str(cfg["said"]),
                         deck=deck)
    except (LiveError, VideoError, ValueError) as e:
        raise ConfigError(str(e)) from None
    busy = stats.busy_s / stats.frames * 1000 if stats.frames else 0.0
    print(f"{stats.frames} frames ({stats.dropped} dropped, {stats.drop_rate:.1%}), {busy:.1f} ms a frame; "
          f"log: {cfg['log']}" + (f"; audio: {cfg['audio_out']}" if cfg["audio_out"] else ""))
    return 0


def cmd_help(args: list[str]) -> int:
    print(USAGE.format(games=", ".join(GAMES)), end="")
    return 0


MODES: dict[str, Callable[[list[str]], int]] = {
    "replay": cmd_replay,
    "simulate": cmd_simulate,
    "eval-detector": cmd_eval_detector,
    "train": cmd_train,
    "train-reader": cmd_train_reader,
    "markers": cmd_markers,
    "calibrate": cmd_calibrate,
    "synth": cmd_synth,
    "synth-video": cmd_synth_video,
    "audit": cmd_audit,
    "demo": cmd_demo,
    "live": cmd_live,
    "calibrate-latency": cmd_calibrate_latency,
    "help": cmd_help,
}


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        return cmd_help([])
    mode, rest = argv[0], argv[1:]
    if mode not in MODES:
        _eprint(f"tablecam: unknown mode {mode!r}{did_you_mean(mode, list(MODES))} (modes: {', '.join(MODES)})")
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
