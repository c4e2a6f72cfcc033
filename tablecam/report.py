"""The audit report of a recorded game: ``slaps.csv`` (and Speed's and Spit's ``races.csv``) for spreadsheets and one
self-contained ``report.html``.

The HTML has no scripts, no web fonts and no network: it is read offline next to the audit folder (frames and
the annotated video are linked by relative path), and its charts are inline SVG drawn here, so the report looks
the same in any browser and years later.
"""

from __future__ import annotations

import bisect
import csv
import html
import math
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

from engine.cards import rank
from engine.games.cheat import count_sure
from engine.verdicts import piles_moved

#: seconds within which slaps on the same card are one race (and worth a look)
RACE_WINDOW_S = 0.5
#: how far after the first contact the ruling of a disputed slap is looked for
VERDICT_WINDOW_S = 2.0
#: longest stretch of video one timeline strip shows, so a long game stays readable at 1000 px
STRIP_S = 120.0

CSV_FIELDS: tuple[str, ...] = ("t", "player", "zone", "trigger_card", "trigger_t", "reaction_ms", "verdict",
                               "anticipated", "t_err", "source")

#: marker colour per slap verdict; the legend lists them in this order
VERDICT_COLOURS: dict[str, str] = {
    "slap_won": "#1f9d55",
    "lost_race": "#3b7dd8",
    "false_slap": "#d64545",
    "unresolved_tie": "#e08e0b",
    "anticipated": "#8e44ad",
    "late": "#9aa1a9",
}
VERDICT_LABELS: dict[str, str] = {
    "slap_won": "won", "lost_race": "lost race", "false_slap": "false slap", "unresolved_tie": "unresolved tie",
    "anticipated": "anticipated", "late": "late (ignored)",
    "snap": "snap", "pot_won": "pot won", "false_snap": "false snap", "snap_pot": "snap pot",
}
#: Snap's slap verdicts (SN-3, SN-4) are drawn, counted and disputed as the Slapjack verdict they amount to: a snap
#: or the pot won is a slap won, a false snap a false slap, and a Snap Pot (calls too close to order) a tie
AS_SLAP: dict[str, str] = {"snap": "slap_won", "pot_won": "slap_won", "false_snap": "false_slap",
                           "snap_pot": "unresolved_tie"}
#: the verdicts of a slap (drawn from the slaps themselves); every other verdict with a player is a play, drawn as a
#: square in that player's row
SLAP_KINDS = frozenset({"slap_won", "false_slap", "snap", "snap_pot", "pot_won", "false_snap", "missed_snap",
                        "anticipated"})
#: square colour per play verdict; the legend lists those a timeline shows, in this order
PLAY_COLOURS: dict[str, str] = {
    "legal_play": "#7cc496", "illegal_play": "#d64545", "count_mismatch": "#e08e0b", "challenge_true": "#3b7dd8",
    "challenge_false": "#b83280", "late_challenge": "#9aa1a9", "draw_penalty": "#e08e0b", "win": "#1f9d55",
}
OTHER_COLOUR = "#555b63"
ANTICIPATED_COLOUR = "#8e44ad"


@dataclass
class SlapRecord:
    """One hand contact the audit saw, with the card it was about and the verdict that ruled it."""

    t: float                    # contact time, seconds on the video clock
    player: str
    zone: str                   # e.g. "center" or "pile:Bob"
    trigger_card: str | None    # the card that made the slap right/wrong, None if no card on the pile
    trigger_t: float | None     # when that card became visible (s)
    reaction_ms: float | None   # (t - trigger_t) * 1000
    verdict: str                # slap_won, false_slap, unresolved_tie, lost_race, late, anticipated
    anticipated: bool           # contact before a human could have reacted (RULES anticipation window)
    t_err: float                # timing uncertainty (s)
    source: str                 # "audio+video", "video", or "audio" (heard, its hand found after)
    frames: list[str] = field(default_factory=list)  # JPEG paths relative to the output folder, in time order
    frame_times: list[float] = field(default_factory=list)  # the video time of each of those frames


@dataclass
class AuditSummary:
    """Everything the report shows; plain data so the report can be rebuilt and tested without a video."""

    video: str
    game: str
    players: list[str]
    width: int
    height: int
    fps: float
    frames: int
    duration: float                       # seconds of video audited
    cards: list[tuple[float, str, str]]   # (t, zone, card) every card event seen
    verdicts: list[dict]                  # verdict lines as in the game log
    slaps: list[SlapRecord]
    stopped: str | None = None            # where/why the audit stopped on a damaged video (a warning banner)
    model: str | None = None              # detector weights used
    seconds: float | None = None          # how long the audit took
    annotated: str | None = "annotated.mp4"  # relative path of the annotated video, linked if not None
    observations: list[dict] = field(default_factory=list)  # the log's observation lines (seen, and said)


# ----------------------------------------------------------------------------------------------------------- CSV


def _fmt(x: float | None, decimals: int) -> str:
    return "" if x is None else f"{x:.{decimals}f}"


def slap_row(s: SlapRecord) -> dict[str, str]:
    """The CSV cells of a slap; the HTML table shows the very same strings so the two never disagree."""
    return {"t": _fmt(s.t, 4), "player": s.player, "zone": s.zone, "trigger_card": s.trigger_card or "",
            "trigger_t": _fmt(s.trigger_t, 4), "reaction_ms": _fmt(s.reaction_ms, 1), "verdict": s.verdict,
            "anticipated": "true" if s.anticipated else "false", "t_err": _fmt(s.t_err, 4), "source": s.source}


def _write_csv(path: str | Path, fields: Sequence[str], rows: Iterable[dict[str, str]]) -> None:
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=list(fields))
        w.writeheader()
        w.writerows(rows)


def write_slaps_csv(path: str | Path, slaps: Iterable[SlapRecord]) -> None:
    """Write one row per slap (empty cell for unknown values) for people who check the audit in a spreadsheet."""
    _write_csv(path, CSV_FIELDS, (slap_row(s) for s in slaps))


# ------------------------------------------------------------------------------------------------------ disputes


def _trigger_key(s: SlapRecord) -> float | None:
    return None if s.trigger_t is None else round(s.trigger_t, 6)


def disputed(slaps: Iterable[SlapRecord]) -> list[list[SlapRecord]]:
    """The slaps people would argue about, grouped: races (2+ slaps on the same zone and card within
    :data:`RACE_WINDOW_S` of the first) and every false slap or unresolved tie not already in a race.
    Groups and the slaps in them are in time order."""
    ordered = sorted(slaps, key=lambda s: s.t)
    groups: list[list[SlapRecord]] = []
    used: set[int] = set()
    for i, first in enumerate(ordered):
        if i in used:
            continue
        key = (first.zone, _trigger_key(first))
        race = [i] + [j for j in range(i + 1, len(ordered)) if j not in used
                      and (ordered[j].zone, _trigger_key(ordered[j])) == key
                      and ordered[j].t - first.t <= RACE_WINDOW_S]
        if len(race) >= 2:
            used.update(race)
            groups.append([ordered[j] for j in race])
    for i, s in enumerate(ordered):
        if i not in used and AS_SLAP.get(s.verdict, s.verdict) in ("false_slap", "unresolved_tie"):
            groups.append([s])
    groups.sort(key=lambda g: g[0].t)
    return groups


def ruling_for(group: Sequence[SlapRecord], verdicts: Iterable[dict]) -> dict | None:
    """The verdict line that ruled a group: the first one at or after its first contact, within 2 s."""
    t0 = group[0].t
    best: dict | None = None
    for v in verdicts:
        t = v.get("t")
        if not isinstance(t, int | float) or not t0 - 1e-6 <= t <= t0 + VERDICT_WINDOW_S:
            continue
        if best is None or t < best["t"]:
            best = v
    return best


# ------------------------------------------------------------------------------------------------------- helpers


#: Speed and Spit: two players' cards that land on one pile closer than this (s) raced for it: the second was on its
#: way before the first landed (nobody reacts faster: TM-2's anticipation bound, which the Speed referee's SP-3 uses
#: to say "the nine was first")
PILE_RACE_S = 0.1
#: the games whose cards race for one pile (SP-3, SP-9, ST-7)
PILE_RACE_GAMES = ("speed", "spit")
#: the rulings of a play on a pile
PLAY_KINDS = ("legal_play", "illegal_play")
#: card lines that are no play (SP-10: the flips of the side stacks and spit cards, the deal)
NOT_PLAYS = ("side", "spit", "deal")


@dataclass(frozen=True)
class Landing:
    """A card played onto a pile: when it landed (the log's time and its uncertainty), who laid it, and its ruling."""

    t: float
    t_err: float
    zone: str
    card: str
    player: str | None
    ruling: dict | None


@dataclass(frozen=True)
class PileRace:
    """Two cards racing for one pile (:data:`PILE_RACE_S`): which landed first, by how much, and how each was ruled;
    ``tie``: the ``unresolved_tie`` that ruled both, where they were too close to order (SP-9)."""

    first: Landing
    second: Landing
    tie: dict | None = None

    @property
    def apart_ms(self) -> float:
        return (self.second.t - self.first.t) * 1000.0

    @property
    def err_ms(self) -> float:
        return (self.first.t_err + self.second.t_err) * 1000.0


#: a card's ruling comes within this long (s) after its line in the log: its race closes a tie window after it landed
#: (TM-3), or a late line is ruled where it belongs (``engine.timeline``, up to 3 s back)
RULED_WITHIN_S = 10.0


def _ruling_of(o: dict, rulings: Sequence[tuple[float, dict]]) -> dict | None:
    """The verdict that ruled the card line ``o``, of ``rulings`` (its pile's, in time order): a play's ruling or a
    tie naming it (Speed's ``played``, Spit's ``tied``), the first from the card's time on (a card played again later
    is ruled again later)."""
    t, card = float(o.get("t", 0.0)), o.get("card")
    for tv, v in rulings[bisect.bisect_left(rulings, t - 1e-6, key=lambda x: x[0]):]:
        if tv > t + RULED_WITHIN_S:
            break
        if (v.get("kind") in PLAY_KINDS and v.get("card") == card) or \
                (v.get("kind") == "unresolved_tie" and card in (v.get("played") or v.get("tied") or ())):
            return v
    return None


def pile_races(observations: Sequence[dict], verdicts: Sequence[dict], within: float = PILE_RACE_S
               ) -> list[PileRace]:
    """Speed and Spit: every two cards of two players landing on one pile less than ``within`` apart, in time order.
    Who laid a card is its line's player, else its ruling's; cards a tie ruled race though nobody can say whose was
    whose. One player's two cards that close are no race (one hand lays one card at a time)."""
    rulings: dict[str, list[tuple[float, dict]]] = {}
    for v in verdicts:
        if v.get("kind") in (*PLAY_KINDS, "unresolved_tie") and v.get("zone"):
            rulings.setdefault(str(v["zone"]), []).append((float(v.get("t", 0.0)), v))
    for zone_rulings in rulings.values():
        zone_rulings.sort(key=lambda x: x[0])
    by_zone: dict[str, list[Landing]] = {}
    for o in observations:
        if o.get("type") != "card" or not o.get("card") or not o.get("zone") or o.get("source") in NOT_PLAYS:
            continue
        ruling = _ruling_of(o, rulings.get(str(o["zone"]), []))
        player = o.get("player") or (ruling.get("player") if ruling and ruling.get("kind") in PLAY_KINDS else None)
        by_zone.setdefault(str(o["zone"]), []).append(
            Landing(float(o.get("t", 0.0)), float(o.get("t_err") or 0.0), str(o["zone"]), str(o["card"]),
                    player, ruling))
    races = []
    for landings in by_zone.values():
        landings.sort(key=lambda x: x.t)
        for a, b in zip(landings, landings[1:], strict=False):
            if b.t - a.t >= within:
                continue
            tie = a.ruling if a.ruling is not None and a.ruling is b.ruling \
                and a.ruling.get("kind") == "unresolved_tie" else None
            if tie is not None or (a.player and b.player and a.player != b.player):
                races.append(PileRace(a, b, tie))
    return sorted(races, key=lambda r: r.first.t)


#: Cheat: the rulings a turn row shows (a claim's rank, the count, a doubt and who picks up, the game's end)
TURN_RULINGS = ("illegal_play", "count_mismatch", "challenge_true", "challenge_false", "late_challenge", "win",
                "draw")


@dataclass
class CheatTurn:
    """Cheat: one turn as the log tells it: whose, the backs counted on the pile, the claim heard, who doubted it, the
    cards turned up, and the referee's rulings on it."""

    t: float
    player: str | None = None
    laid: int | None = None
    unsure: bool = False  # the camera was unsure of the backs' count (the claim stood for it)
    claim: tuple[int, str] | None = None
    doubted_by: list[str] = field(default_factory=list)
    turned: tuple[str, ...] = ()
    rulings: list[dict] = field(default_factory=list)


def cheat_turns(observations: Sequence[dict], verdicts: Sequence[dict]) -> list[CheatTurn]:
    """Cheat: the log's lines as turns. A turn begins with its ``turn`` line, or with a batch or a claim where the
    turn before already has one (a log made without turn lines); a doubt, a reveal and the rulings after them belong
    to the turn they come in. Lines at one time keep the log's order, verdicts after what they rule."""
    lines = sorted([(float(o.get("t", 0.0)), 0, k, o) for k, o in enumerate(observations)]
                   + [(float(v.get("t", 0.0)), 1, k, v) for k, v in enumerate(verdicts)], key=lambda x: x[:3])
    turns: list[CheatTurn] = []
    for t, ruled, _, line in lines:
        kind = "verdict" if ruled else line.get("type")
        now = turns[-1] if turns else None
        if kind == "turn" or (kind == "facedown" and (now is None or now.laid is not None or now.claim is not None)) \
                or (kind == "claim" and (now is None or now.claim is not None)):
            now = CheatTurn(t, line.get("player"))
            turns.append(now)
        if now is None:
            continue
        if kind == "facedown":
            now.laid, now.unsure = int(line.get("count") or 0), _unsure(line)
        elif kind == "claim":
            now.claim = (int(line.get("count") or 0), str(line.get("rank", "?")))
            now.player = now.player or line.get("player")
        elif kind == "call" and line.get("player"):
            now.doubted_by.append(str(line["player"]))
        elif kind == "reveal":
            now.turned = tuple(line.get("cards") or ())
        elif kind == "verdict" and line.get("kind") in TURN_RULINGS:
            now.rulings.append(line)
    return [x for x in turns if x.laid is not None or x.claim is not None or x.rulings]


#: the columns of ``races.csv`` (Speed, Spit), one row per race for a pile (:func:`pile_races`)
RACE_CSV_FIELDS: tuple[str, ...] = ("t", "pile", "first_card", "first_player", "second_card", "second_player",
                                    "second_t", "apart_ms", "err_ms", "first_ruling", "second_ruling", "tie")


def race_row(r: PileRace) -> dict[str, str]:
    """One race as ``races.csv`` writes it: times in s, gaps in ms, rulings as said, empty where unknown."""
    def said(v: dict | None) -> str:
        return str(v.get("say", "")) if v is not None else ""

    tie = r.tie is not None
    return {"t": f"{r.first.t:.4f}", "pile": r.first.zone, "first_card": r.first.card,
            "first_player": r.first.player or "", "second_card": r.second.card, "second_player": r.second.player or "",
            "second_t": f"{r.second.t:.4f}", "apart_ms": f"{r.apart_ms:.1f}", "err_ms": f"{r.err_ms:.1f}",
            "first_ruling": "" if tie else said(r.first.ruling), "second_ruling": "" if tie else said(r.second.ruling),
            "tie": said(r.tie)}


def write_races_csv(path: str | Path, races: Iterable[PileRace]) -> None:
    """Speed and Spit: one row per race for a pile, for spreadsheets (as ``slaps.csv`` is for the slap games)."""
    _write_csv(path, RACE_CSV_FIELDS, (race_row(r) for r in races))


def _e(x: object) -> str:
    return html.escape(str(x), quote=True)


def _src(path: str) -> str:
    """A relative file path as an attribute-safe URL (spaces and ``#`` in names would break a raw path)."""
    return _e(quote(Path(path).as_posix(), safe="/"))


def _colour(verdict: str) -> str:
    return VERDICT_COLOURS.get(AS_SLAP.get(verdict, verdict), OTHER_COLOUR)


def _is_jack(card: str) -> bool:
    return len(card) == 2 and card[0] == "J" and card[1] in "SHDC"


def _card_colour(card: str) -> str:
    return "#c0392b" if card[-1:] in ("H", "D") or card == "RJ" else "#22262b"


def _nice_step(span: float, target: int, steps: Sequence[float] = (1, 2, 5)) -> float:
    """A round tick step giving about ``target`` ticks over ``span``."""
    raw = max(span, 1e-9) / target
    mag = 10 ** math.floor(math.log10(raw))
    for m in steps:
        if m * mag >= raw:
            return m * mag
    return 10 * mag


def _time_step(span: float) -> float:
    for step in (0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600):
        if span / step <= 12:
            return step
    return _nice_step(span, 10)


def _clock(t: float, step: float) -> str:
    if step >= 60:
        return f"{int(t // 60)}:{int(t % 60):02d}"
    return f"{t:g}"


def _duration(seconds: float) -> str:
    if seconds >= 60:
        return f"{int(seconds // 60)} min {seconds % 60:04.1f} s"
    return f"{seconds:.1f} s"


def _players(summary: AuditSummary) -> list[str]:
    """The summary's players, then anyone seen slapping who is not among them (so no slap is dropped)."""
    out = list(summary.players)
    for s in summary.slaps:
        if s.player not in out:
            out.append(s.player)
    return out


def _short(name: str, n: int = 13) -> str:
    return name if len(name) <= n else name[: n - 1] + "…"


def _median(xs: Sequence[float]) -> float | None:
    return statistics.median(xs) if xs else None


def _slap_title(s: SlapRecord) -> str:
    trig = (f"card {s.trigger_card} at {s.trigger_t:.3f} s" if s.trigger_card and s.trigger_t is not None
            else "no card on the pile")
    rt = f", reaction {s.reaction_ms:.0f} ms" if s.reaction_ms is not None else ""
    ant = ", ANTICIPATED" if s.anticipated else ""
    return (f"{s.player} slapped {s.zone} at {s.t:.3f} s ±{s.t_err * 1000:.0f} ms ({s.source}): "
            f"{s.verdict}; {trig}{rt}{ant}")


def _diamond(x: float, y: float, r: float, fill: str, stroke: str, title: str, width: float = 1.5) -> str:
    pts = f"{x:.1f},{y - r:.1f} {x + r:.1f},{y:.1f} {x:.1f},{y + r:.1f} {x - r:.1f},{y:.1f}"
    return (f'<polygon points="{pts}" fill="{fill}" stroke="{stroke}" stroke-width="{width}">'
            f"<title>{_e(title)}</title></polygon>")


# ------------------------------------------------------------------------------------------------------ timeline

_TL_W = 1000
_TL_LEFT = 128
_TL_RIGHT = 16
_TL_ROW = 30
_TL_LANES = 3
_TL_LANE_H = 13
_TL_CHAR_W = 6.6


def _place_card_labels(items: list[tuple[float, str, bool]]
                       ) -> list[tuple[float, float, float, str, float, int | None]]:
    """Where each card label goes: (x, left, width, text-anchor, text x, lane or None when it does not fit).

    Labels never overlap: each takes the lowest free lane; highlighted cards (jacks, triggers) are placed
    first so that, in a crowded stretch, the cards that matter keep their labels and the others give way.
    """
    lanes: list[list[tuple[float, float]]] = [[] for _ in range(_TL_LANES)]
    out: list[tuple[float, float, float, str, float, int | None]] = [(0, 0, 0, "", 0, None)] * len(items)
    for k in sorted(range(len(items)), key=lambda k: (not items[k][2], k)):
        xc, card, hi = items[k]
        w = len(card) * _TL_CHAR_W + (12 if hi else 4)
        lo, anchor, tx = xc - w / 2, "middle", xc
        if lo < 4:
            lo, anchor, tx = xc - 2, "start", xc - 2 + (4 if hi else 0)
        elif lo + w > _TL_W - 2:
            lo, anchor, tx = xc + 2 - w, "end", xc + 2 - (4 if hi else 0)
        lane_of: int | None = None
        for i, lane in enumerate(lanes):
            if all(lo + w + 3 < a or lo - 3 > b for a, b in lane):
                lane.append((lo, lo + w))
                lane_of = i
                break
        out[k] = (xc, lo, w, anchor, tx, lane_of)
    return out


def _timeline_svg(summary: AuditSummary, players: list[str], t0: float, t1: float, strip: float, step: float,
                  last: bool = True, marks: Sequence[tuple[float, str, str, str]] = (),
                  plays: Sequence[dict] = ()) -> str:
    """One strip of the timeline from ``t0`` to ``t1``: card labels on top (and the table's ``marks``,
    :func:`_table_marks`), one row of slaps and ``plays`` (:func:`_plays`) per player.

    Every strip has the scale of a full ``strip`` seconds, so the strips of a long game line up in time."""
    span = max(t1 - t0, 1e-6)
    plot_w = (_TL_W - _TL_LEFT - _TL_RIGHT) * min(span / strip, 1.0)

    def x(t: float) -> float:
        return _TL_LEFT + (t - t0) / span * plot_w

    def inside(t: float) -> bool:   # half-open, so a mark on a strip boundary is drawn once
        return t0 <= t < t1 or (last and t == t1)

    triggers = {(s.trigger_card, round(s.trigger_t, 6)) for s in summary.slaps
                if s.trigger_card is not None and s.trigger_t is not None}
    cards = [c for c in summary.cards if inside(c[0])]
    marks = [m for m in marks if inside(m[0])]
    jacks = summary.game == "slapjack"  # (the cards slapped there; elsewhere a jack is a card like any)
    labels = _place_card_labels([(x(t), card, (card, round(t, 6)) in triggers or (jacks and _is_jack(card)))
                                 for t, _, card in cards] + [(x(t), text, False) for t, _, text, _ in marks])
    n_lanes = max((lane for *_, lane in labels if lane is not None), default=-1) + 1
    lanes_top = 6
    tick_top = lanes_top + n_lanes * _TL_LANE_H + (2 if n_lanes else 0)
    rows_top = tick_top + 12
    rows_bottom = rows_top + _TL_ROW * max(len(players), 1)
    height = rows_bottom + 40
    p: list[str] = [f'<svg class="chart" viewBox="0 0 {_TL_W} {height}" width="{_TL_W}" height="{height}" '
                    f'role="img" aria-label="timeline {t0:.0f} to {t1:.0f} s" xmlns="http://www.w3.org/2000/svg">']
    # player rows
    for i, name in enumerate(players):
        y = rows_top + i * _TL_ROW
        if i % 2 == 0:
            p.append(f'<rect x="{_TL_LEFT}" y="{y}" width="{plot_w}" height="{_TL_ROW}" fill="#f3f5f8"/>')
        p.append(f'<text x="{_TL_LEFT - 10}" y="{y + _TL_ROW / 2 + 4:.1f}" text-anchor="end" class="rowlabel">'
                 f"<title>{_e(name)}</title>{_e(_short(name))}</text>")
    # time axis and grid
    p.append(f'<line x1="{_TL_LEFT}" y1="{rows_bottom}" x2="{_TL_LEFT + plot_w}" y2="{rows_bottom}" '
             f'stroke="#8a9099"/>')
    v = math.ceil(t0 / step - 1e-9) * step
    while v <= t1 + 1e-9:
        xv = x(v)
        p.append(f'<line x1="{xv:.1f}" y1="{rows_top}" x2="{xv:.1f}" y2="{rows_bottom + 4}" stroke="#e1e5ea"/>'
                 f'<line x1="{xv:.1f}" y1="{rows_bottom}" x2="{xv:.1f}" y2="{rows_bottom + 5}" stroke="#8a9099"/>'
                 f'<text x="{xv:.1f}" y="{rows_bottom + 18}" text-anchor="middle" class="tick">'
                 f"{_e(_clock(v, step))}</text>")
        v += step
    unit = "m:ss" if step >= 60 else "s"
    p.append(f'<text x="{_TL_LEFT + plot_w}" y="{rows_bottom + 34}" text-anchor="end" class="axis">'
             f"video time ({unit})</text>")
    # cards: a tick each (a dashed guide down through the rows when it triggered a slap), labels in their lanes
    p.append(f'<line x1="{_TL_LEFT}" y1="{tick_top + 10}" x2="{_TL_LEFT + plot_w}" y2="{tick_top + 10}" '
             f'stroke="#c9ced5"/>')
    guides, ticks, texts = [], [], []
    for k, ((t, zone, card, *_), (xc, lo, w, anchor, tx, lane)) in enumerate(zip([*cards, *marks], labels,
                                                                                 strict=True)):
        mark = k >= len(cards)  # (a batch, a reveal, a card taken back: its label in grey)
        trig = not mark and (card, round(t, 6)) in triggers
        hi = not mark and (trig or (jacks and _is_jack(card)))
        title = _e(f"{card} on {zone} at {t:.3f} s" + (" (triggered a slap)" if trig else ""))
        if trig:
            guides.append(f'<line x1="{xc:.1f}" y1="{tick_top}" x2="{xc:.1f}" y2="{rows_bottom}" '
                          f'stroke="#f0a500" stroke-width="1" stroke-dasharray="3 3" opacity="0.8"/>')
        ticks.append(f'<line x1="{xc:.1f}" y1="{tick_top}" x2="{xc:.1f}" y2="{tick_top + 10}" '
                     f'stroke="{"#f0a500" if hi else "#8a9099"}" stroke-width="{2 if hi else 1}">'
                     f"<title>{title}</title></line>")
        if lane is None:
            continue
        ty = lanes_top + (n_lanes - lane) * _TL_LANE_H - 3
        if hi:
            texts.append(f'<rect x="{lo + 1:.1f}" y="{ty - 10}" width="{w - 2:.1f}" height="12" rx="3" '
                         f'fill="#fff3cd" stroke="#f0a500" stroke-width="0.8"/>')
        texts.append(f'<text x="{tx:.1f}" y="{ty}" text-anchor="{anchor}" class="card{" hi" if hi else ""}" '
                     f'fill="{OTHER_COLOUR if mark else _card_colour(card)}"><title>{title}</title>{_e(card)}</text>')
    p += guides + ticks + texts
    # slaps: reaction span from the trigger card, then the marker
    for s in sorted(summary.slaps, key=lambda s: s.t):
        if not inside(s.t):
            continue
        i = players.index(s.player)
        y = rows_top + i * _TL_ROW + _TL_ROW / 2
        xs, col, title = x(s.t), _colour(s.verdict), _slap_title(s)
        if s.trigger_t is not None and s.trigger_t <= s.t:
            p.append(f'<line x1="{max(x(s.trigger_t), _TL_LEFT):.1f}" y1="{y:.1f}" x2="{xs:.1f}" y2="{y:.1f}" '
                     f'stroke="{col}" stroke-width="2" opacity="0.45"/>')
        if s.anticipated:
            p.append(_diamond(xs, y, 8, col, "#2b1036", title))
        else:
            p.append(f'<circle cx="{xs:.1f}" cy="{y:.1f}" r="6.5" fill="{col}" stroke="#fff" stroke-width="1.5">'
                     f"<title>{_e(title)}</title></circle>")
    # plays: the referee's verdict on each, a square in the row of the player it names
    for v in plays:
        if not inside(v["t"]) or v["player"] not in players:
            continue
        y = rows_top + players.index(v["player"]) * _TL_ROW + _TL_ROW / 2
        title = f"{v['t']:.3f} s: {v.get('say') or v['kind'].replace('_', ' ')}"
        p.append(f'<rect x="{x(v["t"]) - 5:.1f}" y="{y - 5:.1f}" width="10" height="10" rx="2" '
                 f'fill="{PLAY_COLOURS.get(v["kind"], OTHER_COLOUR)}" stroke="#fff" stroke-width="1">'
                 f"<title>{_e(title)}</title></rect>")
    p.append("</svg>")
    return "".join(p)


def _table_marks(summary: AuditSummary) -> list[tuple[float, str, str, str]]:
    """(t, zone, label, observation type) of what the timeline shows beside the cards: each batch laid face down
    ("2 down"), each batch turned up ("up 9S 6H") and each card taken back ("back 10D")."""
    out = []
    for o in summary.observations:
        kind, t = o.get("type"), o.get("t")
        if not isinstance(t, int | float):
            continue
        if kind == "facedown":
            out.append((float(t), str(o.get("zone", "")), f"{o.get('count')}{'?' * _unsure(o)} down", kind))
        elif kind == "reveal":
            out.append((float(t), str(o.get("zone", "")), "up " + " ".join(o.get("cards") or ()), kind))
        elif kind == "remove":
            out.append((float(t), str(o.get("zone", "")), f"back {o.get('card')}", kind))
    return out


def _plays(summary: AuditSummary) -> list[dict]:
    """The verdicts on plays (not on slaps: those are drawn from the slaps) that name a player."""
    return [v for v in summary.verdicts if v.get("player") and v.get("kind") not in SLAP_KINDS
            and isinstance(v.get("t"), int | float)]


def _timeline(summary: AuditSummary, players: list[str]) -> str:
    marks, plays = _table_marks(summary), _plays(summary)
    end = max([summary.duration, *(c[0] for c in summary.cards), *(s.t for s in summary.slaps),
               *(m[0] for m in marks), *(v["t"] for v in plays), 0.0])
    if not summary.cards and not summary.slaps and not marks and not plays:
        return '<p class="empty">Nothing was seen on the table and no verdict named a player: nothing to draw.</p>'
    end = max(end, 1.0)
    n = max(1, math.ceil(end / STRIP_S - 1e-9))
    strip = end
    if n > 1:   # round strips (0-100 s, 100-200 s ...); the last one may be shorter
        unit = 10 if end / n > 30 else 5
        strip = math.ceil(end / n / unit) * unit
        n = math.ceil(end / strip - 1e-9)
    step = _time_step(strip)
    parts = []
    for k in range(n):
        t0, t1 = k * strip, min((k + 1) * strip, end)
        svg = _timeline_svg(summary, players, t0, t1, strip, step, k == n - 1, marks, plays)
        parts.append(f'<div class="strip">{svg}</div>')
    return "".join(parts) + _legend(summary, {v["kind"] for v in plays}, {kind for *_, kind in marks})


def _unsure(o: dict) -> bool:
    """A ``facedown`` line whose count the camera was unsure of (:func:`engine.games.cheat.count_sure`): the claim's
    count stood for it."""
    conf = o.get("conf")
    return isinstance(conf, int | float) and not count_sure(conf)


#: what a grey label on the timeline says, by the observation it marks (:func:`_table_marks`)
MARK_MEANINGS = {"facedown": "“2 down”: a batch of two laid face down (“2? down”: a count the camera is unsure of)",
                 "reveal": "“up 9S”: a batch turned up", "remove": "“back 10D”: a card taken back"}


def _legend(summary: AuditSummary, play_kinds: set[str], marks: set[str]) -> str:
    """The slap markers' meanings in a game with slaps, and those of the play squares and table marks drawn."""
    items = []
    if summary.slaps or summary.game in SLAP_GAMES:
        items += [f'<span><i class="dot" style="background:{c}"></i>{_e(VERDICT_LABELS[k])}</span>'
                  for k, c in VERDICT_COLOURS.items()]
        items.append('<span><i class="diamond" style="background:#8a9099"></i>contact before a human could react'
                     '</span>')
        items.append('<span><i class="cardhi"></i>' + ("jack / " if summary.game == "slapjack" else "")
                     + 'card that triggered a slap</span>')
        items.append('<span><i class="span"></i>card → contact (reaction)</span>')
    shown = [k for k in PLAY_COLOURS if k in play_kinds] + sorted(play_kinds - set(PLAY_COLOURS))
    items += [f'<span><i class="sq" style="background:{PLAY_COLOURS.get(k, OTHER_COLOUR)}"></i>'
              f'{_e(k.replace("_", " "))}</span>' for k in shown]
    items += [f'<span><i class="bar" style="background:{OTHER_COLOUR}"></i>{_e(MARK_MEANINGS[m])}</span>'
              for m in MARK_MEANINGS if m in marks]
    return f'<div class="legend">{"".join(items)}</div>'


# ------------------------------------------------------------------------------------------------ reaction plot

_RT_W = 1000
_RT_LEFT = 128
_RT_RIGHT = 120
_RT_ROW = 44


def _reaction_svg(players: list[str], slaps: Sequence[SlapRecord]) -> str:
    """A strip plot per player: every reaction a dot (anticipated ones a diamond), the median a bar."""
    timed = [s for s in slaps if s.reaction_ms is not None]
    if not timed:
        return '<p class="empty">No slaps with a card to react to: no reaction times.</p>'
    rows = [p for p in players if any(s.player == p for s in timed)]
    vals = [float(s.reaction_ms) for s in timed]  # type: ignore[arg-type]
    lo = min(0.0, min(vals))
    hi = max(vals) * 1.05
    step = _nice_step(hi - lo, 8)
    lo = math.floor(lo / step) * step
    hi = max(math.ceil(hi / step) * step, lo + step)
    plot_w = _RT_W - _RT_LEFT - _RT_RIGHT
    top = 10
    bottom = top + _RT_ROW * len(rows)
    height = bottom + 40

    def x(ms: float) -> float:
        return _RT_LEFT + (ms - lo) / (hi - lo) * plot_w

    p = [f'<svg class="chart" viewBox="0 0 {_RT_W} {height}" width="{_RT_W}" height="{height}" role="img" '
         f'aria-label="reaction times" xmlns="http://www.w3.org/2000/svg">']
    for i in range(0, len(rows), 2):
        p.append(f'<rect x="{_RT_LEFT}" y="{top + i * _RT_ROW}" width="{plot_w}" height="{_RT_ROW}" fill="#f3f5f8"/>')
    v = lo
    while v <= hi + 1e-9:
        xv = x(v)
        p.append(f'<line x1="{xv:.1f}" y1="{top}" x2="{xv:.1f}" y2="{bottom}" stroke="#e1e5ea"/>'
                 f'<line x1="{xv:.1f}" y1="{bottom}" x2="{xv:.1f}" y2="{bottom + 5}" stroke="#8a9099"/>'
                 f'<text x="{xv:.1f}" y="{bottom + 18}" text-anchor="middle" class="tick">{v:g}</text>')
        v += step
    p.append(f'<line x1="{_RT_LEFT}" y1="{bottom}" x2="{_RT_LEFT + plot_w}" y2="{bottom}" stroke="#8a9099"/>')
    p.append(f'<text x="{_RT_LEFT + plot_w}" y="{bottom + 34}" text-anchor="end" class="axis">'
             f"reaction time (ms, contact − card visible)</text>")
    p.append(f'<text x="{_RT_W - 8}" y="{top - 1 + 10}" text-anchor="end" class="axis">median</text>')
    for i, name in enumerate(rows):
        y0 = top + i * _RT_ROW
        yc = y0 + _RT_ROW / 2
        p.append(f'<text x="{_RT_LEFT - 10}" y="{yc + 4:.1f}" text-anchor="end" class="rowlabel">'
                 f"<title>{_e(name)}</title>{_e(_short(name))}</text>")
        mine = [s for s in timed if s.player == name]
        ms = sorted(float(s.reaction_ms) for s in mine)  # type: ignore[arg-type]
        if len(ms) >= 3:
            q1, _, q3 = statistics.quantiles(ms, n=4, method="inclusive")
            p.append(f'<rect x="{x(q1):.1f}" y="{yc - 12:.1f}" width="{max(x(q3) - x(q1), 1):.1f}" height="24" '
                     f'fill="#dfe7f3" stroke="#9fb3cf" rx="3"><title>{_e(name)}: middle half '
                     f"{q1:.0f}–{q3:.0f} ms</title></rect>")
        med = statistics.median(ms)
        p.append(f'<line x1="{x(med):.1f}" y1="{yc - 15:.1f}" x2="{x(med):.1f}" y2="{yc + 15:.1f}" '
                 f'stroke="#22262b" stroke-width="2.5"><title>{_e(name)}: median {med:.0f} ms</title></line>')
        placed: list[tuple[float, int]] = []
        for s in sorted(mine, key=lambda s: s.t):
            xs = x(float(s.reaction_ms))  # type: ignore[arg-type]
            # dots that would cover each other step up/down the row, so every slap stays visible
            level = next((lv for lv in (0, -1, 1, -2, 2)
                          if all(abs(xs - px) > 9 or pl != lv for px, pl in placed)), 0)
            placed.append((xs, level))
            yj = yc + level * 6
            title = _slap_title(s)
            if s.anticipated:
                p.append(_diamond(xs, yj, 6.5, "#fff", ANTICIPATED_COLOUR, title, 2))
            else:
                p.append(f'<circle cx="{xs:.1f}" cy="{yj:.1f}" r="5" fill="{_colour(s.verdict)}" fill-opacity="0.85" '
                         f'stroke="#fff" stroke-width="1"><title>{_e(title)}</title></circle>')
        p.append(f'<text x="{_RT_W - 8}" y="{yc + 5:.1f}" text-anchor="end" class="median">{med:.0f} ms'
                 f"</text>")
    p.append("</svg>")
    skipped = len(slaps) - len(timed)
    note = (f'<p class="note">{skipped} slap{"s" * (skipped != 1)} with no card on the pile '
            f"{'have' if skipped != 1 else 'has'} no reaction time and {'are' if skipped != 1 else 'is'} not shown."
            "</p>") if skipped else ""
    legend = ('<div class="legend"><span><i class="dot" style="background:#1f9d55"></i>one slap (colour: verdict)'
              '</span><span><i class="diamond hollow"></i>anticipated</span><span><i class="bar"></i>median</span>'
              '<span><i class="box"></i>middle half (3+ slaps)</span></div>')
    return "".join(p) + legend + note


# ------------------------------------------------------------------------------------------------------ sections


def _figures(summary: AuditSummary, players: list[str]) -> str:
    slaps = summary.slaps
    rows = []
    for name in players:
        mine = [s for s in slaps if s.player == name]
        med = _median([s.reaction_ms for s in mine if s.reaction_ms is not None])
        ruled = [AS_SLAP.get(s.verdict, s.verdict) for s in mine]
        rows.append((name, len(mine), ruled.count("slap_won"), ruled.count("false_slap"),
                     sum(s.anticipated for s in mine), med))
    all_med = _median([s.reaction_ms for s in slaps if s.reaction_ms is not None])
    head = _kpis(summary)
    body = "".join(f"<tr><td>{_e(n)}</td><td>{k}</td><td>{w}</td><td>{f}</td><td>{a}</td>"
                   f"<td>{'–' if m is None else f'{m:.0f} ms'}</td></tr>" for n, k, w, f, a, m in rows)
    foot = (f"<tr><td>all</td><td>{len(slaps)}</td><td>{sum(r[2] for r in rows)}</td><td>{sum(r[3] for r in rows)}"
            f"</td><td>{sum(r[4] for r in rows)}</td><td>{'–' if all_med is None else f'{all_med:.0f} ms'}</td></tr>")
    table = ('<table class="num figures"><thead><tr><th>player</th><th>slaps</th><th>won</th><th>false slaps</th>'
             f"<th>anticipated</th><th>median reaction</th></tr></thead><tbody>{body}</tbody><tfoot>{foot}</tfoot>"
             "</table>")
    return head + table


#: the games whose disputes are slaps (the slap sections of the report); the others show their plays instead
SLAP_GAMES = ("slapjack", "snap", "spit")


#: what the figures of a game without slap figures count: observation type -> its label
SEEN_LABELS = {"card": "cards", "facedown": "batches", "reveal": "reveals", "remove": "taken back"}
SAID_TYPES = ("call", "claim", "stuck", "draw", "turn")
ONE = {"cards": "card", "jacks": "jack", "slaps": "slap", "verdicts": "verdict", "batches": "batch",
       "reveals": "reveal", "snaps on the table": "snap on the table", "races": "race"}  # (a figure of one)


def _tallies(summary: AuditSummary) -> list[tuple[int, str]]:
    """The figures at the head of the report, (count, label): cards, slaps and verdicts in Slapjack and Snap; in the
    other games what was seen (cards, batches, reveals, cards taken back: those seen at all), what was said, and
    the verdicts."""
    if summary.game in ("slapjack", "snap"):
        chances = (sum(_is_jack(c[2]) for c in summary.cards), "jacks") if summary.game == "slapjack" \
            else (snap_chances(summary.cards, summary.verdicts), "snaps on the table")
        out = [(len(summary.cards), "cards"), chances, (len(summary.slaps), "slaps"),
               (len(summary.verdicts), "verdicts"), (len(disputed(summary.slaps)), "disputed")]
    else:
        obs = summary.observations
        seen = [(sum(1 for o in obs if o.get("type") == t), label) for t, label in SEEN_LABELS.items()]
        races = [(len(pile_races(obs, summary.verdicts)), "races")] if summary.game in PILE_RACE_GAMES else []
        out = [(n, label) for n, label in seen if n] + races + [
            (sum(1 for o in obs if o.get("type") in SAID_TYPES), "said"), (len(summary.verdicts), "verdicts")]
    return [(n, ONE.get(label, label) if n == 1 else label) for n, label in out]


def snap_chances(cards: list[tuple[float, str, str]], verdicts: list[dict]) -> int:
    """Snap (SN-3): how many cards, as they showed, matched the rank of another player's top: the snaps there were
    to call (Slapjack's figure is its jacks). A pile leaves the table with the verdict that gives it to a player or
    to the pot (its ``piles``)."""
    tops: dict[str, str] = {}
    gone = sorted((float(v.get("t", 0.0)), moved) for v in verdicts if (moved := piles_moved(v, "snap")))
    n = 0
    for t, zone, card in sorted(cards):
        while gone and gone[0][0] <= t:
            for z in gone.pop(0)[1]:
                tops.pop(z, None)
        if rank(card) is not None and any(z != zone and rank(c) == rank(card) for z, c in tops.items()):
            n += 1
        tops[zone] = card
    return n


def _kpis(summary: AuditSummary) -> str:
    """The head figures (:func:`_tallies`) as the report's boxes."""
    return '<div class="kpis">' + "".join(f"<div><b>{n}</b>{label}</div>" for n, label in _tallies(summary)) + "</div>"


def tally_line(summary: AuditSummary) -> str:
    """The report's head figures as one line ("13 batches, 3 reveals, 3 said, 4 verdicts"), for the command line."""
    return ", ".join(f"{n} {label}" for n, label in _tallies(summary))


def _play_figures(summary: AuditSummary, players: list[str]) -> str:
    """Speed, Spit, Cheat, Pai Jie: what each player did (cards laid, batches) and what the referee ruled."""
    obs = summary.observations
    kinds = sorted({str(v.get("kind")) for v in summary.verdicts if v.get("player")})[:7]
    head = _kpis(summary)
    # what each player laid, where the log names who laid it (a Cheat batch seen but never claimed names nobody: the
    # referee knows whose turn it was, the camera does not; a column of noughts would say nobody played)
    laid = {name: sum(1 for o in obs if o.get("player") == name and o.get("type") in ("card", "facedown", "claim"))
            for name in players}
    known = any(laid.values())
    rows = []
    for name in players:
        counts = [sum(1 for v in summary.verdicts if v.get("player") == name and v.get("kind") == k) for k in kinds]
        rows.append(f"<tr><td>{_e(name)}</td>" + (f"<td>{laid[name]}</td>" if known else "")
                    + "".join(f"<td>{c}</td>" for c in counts) + "</tr>")
    cols = ("<th>laid</th>" if known else "") + "".join(f"<th>{_e(k.replace('_', ' '))}</th>" for k in kinds)
    table = (f'<table class="num figures"><thead><tr><th>player</th>{cols}</tr></thead>'
             f'<tbody>{"".join(rows)}</tbody></table>')
    return head + table


def _observation_table(obs: list[dict]) -> str:
    """Every line the audit logged before the referee's: what was seen (with how it was timed) and what was said."""
    if not obs:
        return '<p class="empty">Nothing was seen.</p>'
    body = []
    for o in sorted(obs, key=lambda o: o.get("t", 0)):
        what = o.get("card") or (" ".join(o.get("cards", [])) if o.get("cards") else "")
        if o.get("type") == "facedown":
            what = f"{o.get('count')} face down" + (" (count unsure: a claim stands)" if _unsure(o) else "")
        elif o.get("type") == "claim":
            what = f"{o.get('count')} × {o.get('rank')}"
        elif o.get("type") in ("call", "draw"):
            what = str(o.get("word") or o.get("count") or "")
        ev = o.get("evidence") or {}
        how = ev.get("source", "video") if ev else "said"
        body.append(f"<tr><td>{o.get('t', 0):.3f}</td><td>{_e(o.get('type', ''))}</td><td>{_e(o.get('zone', ''))}"
                    f"</td><td>{_e(what)}</td><td>{_e(o.get('player', ''))}</td><td>{_e(how)}</td></tr>")
    return ('<table class="num data"><thead><tr><th>t</th><th>what</th><th>zone</th><th>card(s)</th><th>player</th>'
            f'<th>from</th></tr></thead><tbody>{"".join(body)}</tbody></table>')


def _badge(verdict: str, text: str | None = None) -> str:
    return (f'<span class="badge" style="background:{_colour(verdict)}">'
            f"{_e(text or VERDICT_LABELS.get(verdict, verdict))}</span>")


_FLAG = ' <span class="flag">anticipated</span>'
_ANT = ' class="ant"'


def _ruling(label: str, v: dict) -> str:
    who = f", {_e(v['player'])}" if v.get("player") else ""
    return (f'<p class="ruling">{label} at {float(v["t"]):.3f} s: <b>{_e(v.get("kind", "?"))}</b> '
            f'<span class="rule">({_e(v.get("rule", "?"))}{who})</span> <q>{_e(v.get("say", ""))}</q></p>')


def _dispute(group: list[SlapRecord], verdicts: list[dict]) -> str:
    first = group[0]
    who = " vs ".join(dict.fromkeys(s.player for s in group))
    kind = "race" if len(group) > 1 else VERDICT_LABELS.get(first.verdict, first.verdict)
    card = f", card {first.trigger_card}" if first.trigger_card else ", no card on the pile"
    head = (f'<h3><span class="when">{first.t:.3f} s</span> {_e(who)} <span class="sub">— {_e(kind)} on '
            f"{_e(first.zone)}{_e(card)}</span></h3>")
    facts = []
    if len(group) > 1:
        margin = (group[1].t - first.t) * 1000
        err = math.hypot(first.t_err, group[1].t_err) * 1000
        facts.append(f'<p class="margin"><b>{margin:.0f} ms</b> between {_e(first.player)} and '
                     f"{_e(group[1].player)} (timing uncertainty ±{err:.0f} ms)</p>")
    rows = "".join(
        f"<tr><td>{_e(s.player)}</td><td>{s.t:.3f} s</td><td>{(s.t - first.t) * 1000:+.0f} ms</td>"
        f"<td>{'–' if s.reaction_ms is None else f'{s.reaction_ms:.0f} ms'}</td><td>{_badge(s.verdict)}"
        f"{_FLAG if s.anticipated and s.verdict != 'anticipated' else ''}</td><td>{_e(s.source)}</td></tr>"
        for s in group)
    facts.append('<table class="num contacts"><thead><tr><th>player</th><th>contact</th><th>after first</th>'
                 f"<th>reaction</th><th>verdict</th><th>timing</th></tr></thead><tbody>{rows}</tbody></table>")
    v = ruling_for(group, verdicts)
    if v is None:
        facts.append('<p class="ruling none">No verdict found within 2 s of the first contact.</p>')
    else:
        facts.append(_ruling("Ruling", v))
        # later verdicts about the same hands (an anticipated mark is followed by the real win, say)
        names = {s.player for s in group}
        for w in sorted(verdicts, key=lambda w: w.get("t", 0)):
            t = w.get("t")
            if (w is not v and isinstance(t, int | float) and float(v["t"]) <= t <= group[0].t + VERDICT_WINDOW_S
                    and w.get("player") in names):
                facts.append(_ruling("Then", w))
    # the frames of every slap in the group, once each, in time order; a contact frame is labelled by player
    frames: dict[str, float] = {}
    for s in group:
        for path, ft in zip(s.frames, s.frame_times, strict=False):
            frames.setdefault(path, ft)
    contact: dict[str, list[str]] = {}
    for s in group:
        if frames:
            nearest = min(frames, key=lambda f: abs(frames[f] - s.t))
            contact.setdefault(nearest, [])
            if s.player not in contact[nearest]:
                contact[nearest].append(s.player)
    figs = []
    for path, ft in sorted(frames.items(), key=lambda f: f[1]):
        near = contact.get(path, [])
        tag = f'<b>{_e(" & ".join(near))}</b> ' if near else ""
        cls = ' class="contact"' if near else ""
        figs.append(f"<figure{cls}><img src=\"{_src(path)}\" alt=\"frame at {ft:.3f} s\" loading=\"lazy\">"
                    f"<figcaption>{tag}{(ft - first.t) * 1000:+.0f} ms</figcaption></figure>")
    if figs:
        facts.append(f'<div class="frames">{"".join(figs)}</div>')
    else:
        facts.append('<p class="note">No frames were saved for this slap.</p>')
    return f'<section class="dispute">{head}{"".join(facts)}</section>'


def _slap_table(slaps: list[SlapRecord]) -> str:
    if not slaps:
        return '<p class="empty">No slaps.</p>'
    head = "".join(f"<th>{_e(f)}</th>" for f in CSV_FIELDS)
    body = []
    for s in sorted(slaps, key=lambda s: s.t):
        r = slap_row(s)
        cells = "".join(f"<td>{_badge(r[f]) if f == 'verdict' else _e(r[f])}</td>" for f in CSV_FIELDS)
        body.append(f"<tr{_ANT if s.anticipated else ''}>{cells}</tr>")
    return f'<table class="num data"><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>'


def _landing(x: Landing) -> str:
    who = f"{_e(x.player)} " if x.player else ""
    return f"{who}<b>{_e(x.card)}</b> <small>{x.t:.3f} s</small>"


def _race_table(races: list[PileRace]) -> str:
    """Speed and Spit: the cards that raced for a pile (:func:`pile_races`), with how each was ruled."""
    if not races:
        return (f'<p class="empty">No races: no two players\' cards landed on one pile within '
                f"{PILE_RACE_S * 1000:.0f} ms.</p>")
    body = []
    for r in races:
        err = f" ± {r.err_ms:.0f}" if r.err_ms >= 1 else ""
        says = [r.tie] if r.tie is not None else [x.ruling for x in (r.first, r.second) if x.ruling is not None]
        ruled = "; ".join(_e(v.get("say", "")) for v in says) or '<span class="empty">not ruled</span>'
        body.append(f"<tr><td>{r.first.t:.3f}</td><td>{_e(r.first.zone)}</td><td>{_landing(r.first)}</td>"
                    f"<td>{_landing(r.second)}</td><td>{r.apart_ms:.0f}{err} ms</td>"
                    f'<td class="say">{ruled}</td></tr>')
    return ('<p class="note">Two players\' cards that landed on one pile less than '
            f"{PILE_RACE_S * 1000:.0f} ms apart: the second was on its way before the first landed (TM-2). "
            "The first to land counts; the second is judged on it (SP-3), or nobody is, where they are too close "
            "to order (SP-9).</p>"
            '<table class="num data"><thead><tr><th>t</th><th>pile</th><th>first</th><th>second</th><th>apart</th>'
            f'<th>ruled</th></tr></thead><tbody>{"".join(body)}</tbody></table>')


def _turn_table(turns: list[CheatTurn]) -> str:
    """Cheat: every turn (:func:`cheat_turns`): the backs counted against the claim, the doubt, what turned up."""
    if not turns:
        return '<p class="empty">No turns: no batch was seen nor claim heard.</p>'
    body = []
    for x in turns:
        claim = f"{x.claim[0]} × {_e(x.claim[1])}" if x.claim else ""
        laid = "" if x.laid is None else f"{x.laid}{'?' * x.unsure}"
        if x.claim and x.laid is not None and x.laid != x.claim[0]:  # (unsure: the claim stood, nobody accused)
            laid = f'<span title="counted unsurely: the claim stood">{laid}</span>' if x.unsure \
                else f'<span class="flag">{laid}</span>'
        ruled = "; ".join(_e(v.get("say", "")) for v in x.rulings)
        body.append(f"<tr><td>{x.t:.3f}</td><td>{_e(x.player or '')}</td><td>{laid}</td><td>{claim}</td>"
                    f"<td>{_e(', '.join(x.doubted_by))}</td><td>{_e(' '.join(x.turned))}</td>"
                    f'<td class="say">{ruled}</td></tr>')
    return ('<table class="num data"><thead><tr><th>t</th><th>player</th><th>backs seen</th><th>claim</th>'
            f'<th>doubted by</th><th>turned up</th><th>ruled</th></tr></thead><tbody>{"".join(body)}</tbody></table>')


def _verdict_table(verdicts: list[dict]) -> str:
    if not verdicts:
        return '<p class="empty">No verdicts.</p>'
    body = []
    for v in sorted(verdicts, key=lambda v: v.get("t", 0)):
        t = v.get("t")
        ts = f"{t:.3f}" if isinstance(t, int | float) else _e(t)
        kind = str(v.get("kind", ""))
        shown = _badge(kind, kind) if kind in VERDICT_COLOURS or kind in AS_SLAP else _e(kind)
        body.append(f"<tr><td>{ts}</td><td>{shown}</td>"
                    f"<td>{_e(v.get('rule', ''))}</td><td>{_e(v.get('player', ''))}</td>"
                    f"<td class=\"say\">{_e(v.get('say', ''))}</td></tr>")
    return ('<table class="num data verdicts"><thead><tr><th>t</th><th>kind</th><th>rule</th><th>player</th>'
            f'<th>say</th></tr></thead><tbody>{"".join(body)}</tbody></table>')


def _summary_line(s: AuditSummary, players: list[str]) -> str:
    parts = [f"<b>{_e(s.game)}</b>", _e(", ".join(players) or "no players"), _e(_duration(s.duration)),
             f"{s.frames} frames at {s.fps:.2f} fps", f"{s.width}×{s.height}"]
    if s.model:
        parts.append(f"model {_e(Path(s.model).name)}")
    if s.seconds:
        parts.append(f"audited in {s.seconds:.1f} s ({s.duration / s.seconds:.1f} x real time)")
    return '<p class="meta">' + " · ".join(parts) + "</p>"


_CSS = """
:root{--fg:#1f2328;--muted:#5b636d;--line:#d8dde3;--bg:#f6f7f9;--card:#fff}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,
"Helvetica Neue",Arial,sans-serif}
main{max-width:1080px;margin:0 auto;padding:28px 24px 60px}
h1{font-size:26px;margin:0 0 4px;word-break:break-all}
h2{font-size:19px;margin:0 0 12px}
h3{font-size:16px;margin:0 0 8px}
.meta{color:var(--muted);margin:0 0 18px}
.banner{background:#fdecea;border:1px solid #e3a39c;border-left:6px solid #c0392b;color:#7b1f16;
padding:12px 16px;border-radius:6px;margin:0 0 18px;font-weight:600}
.banner small{display:block;font-weight:400;color:#8d3a30}
section.box{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:18px 20px;
margin:0 0 18px;overflow-x:auto}
.kpis{display:flex;gap:12px;margin:0 0 14px;flex-wrap:wrap}
.kpis div{background:var(--bg);border:1px solid var(--line);border-radius:6px;padding:6px 14px;color:var(--muted)}
.kpis b{font-size:20px;color:var(--fg);margin-right:6px}
table{border-collapse:collapse;font-size:14px}
th,td{padding:5px 10px;border-bottom:1px solid #e6e9ed;text-align:left;vertical-align:top}
th{font-weight:600;color:var(--muted);background:#fafbfc;white-space:nowrap}
table.num td{font-variant-numeric:tabular-nums}
table.figures td:not(:first-child),table.figures th:not(:first-child){text-align:right}
table.figures tfoot td{font-weight:600;border-top:2px solid var(--line)}
table.data{width:100%}
table.data tbody tr:nth-child(even){background:#fafbfc}
table.data td{white-space:nowrap}
table.data td.say{white-space:normal}
tr.ant td{background:#f6effa}
.badge{display:inline-block;color:#fff;border-radius:10px;padding:0 8px;font-size:12px;font-weight:600;
white-space:nowrap}
.flag{color:#8e44ad;font-size:12px;font-weight:600}
svg.chart{display:block;max-width:100%;height:auto;font-family:inherit}
svg .rowlabel{font-size:13px;font-weight:600;fill:#1f2328}
svg .tick{font-size:11px;fill:#5b636d}
svg .axis{font-size:12px;fill:#5b636d}
svg .card{font-size:11px;font-family:ui-monospace,"DejaVu Sans Mono",Menlo,Consolas,monospace}
svg .card.hi{font-weight:700}
svg .median{font-size:13px;font-weight:600;fill:#1f2328}
.strip+.strip{margin-top:10px}
.legend{display:flex;flex-wrap:wrap;gap:6px 18px;font-size:13px;color:var(--muted);margin:10px 0 0}
.legend span{display:inline-flex;align-items:center;gap:6px}
.legend i{display:inline-block;width:12px;height:12px}
.legend i.dot{border-radius:50%}
.legend i.diamond{transform:rotate(45deg) scale(.8);border:1.5px solid #2b1036}
.legend i.diamond.hollow{background:#fff;border:2px solid #8e44ad}
.legend i.cardhi{background:#fff3cd;border:1px solid #f0a500;border-radius:3px}
.legend i.span{height:3px;background:#1f9d55;opacity:.5;width:18px}
.legend i.bar{width:3px;height:16px;background:#22262b}
.legend i.sq{border-radius:2px}
.legend i.box{background:#dfe7f3;border:1px solid #9fb3cf;border-radius:2px}
.note,.empty{color:var(--muted);font-size:14px;margin:8px 0 0}
.empty{font-style:italic}
section.dispute{border-top:1px solid var(--line);padding:14px 0 4px}
section.dispute:first-of-type{border-top:0;padding-top:0}
.when{font-variant-numeric:tabular-nums;color:var(--muted);font-weight:600;margin-right:4px}
.sub{font-weight:400;color:var(--muted)}
.margin{margin:0 0 8px}
.ruling{margin:8px 0}
.ruling .rule{color:var(--muted)}
.ruling q{font-style:italic}
.ruling.none{color:var(--muted)}
.frames{display:flex;gap:8px;flex-wrap:wrap;margin:8px 0 6px}
.frames figure{margin:0;width:176px;background:#fafbfc;border:1px solid var(--line);border-radius:6px;padding:4px}
.frames figure.contact{border:2px solid #f0a500;padding:3px}
.frames img{display:block;width:100%;height:auto;border-radius:4px;background:#e6e9ed}
.frames figcaption{font-size:12px;text-align:center;color:var(--muted);font-variant-numeric:tabular-nums}
.links a{margin-right:18px}
a{color:#0b62c4}
footer{color:var(--muted);font-size:12px;margin-top:24px}
"""


def render_report(summary: AuditSummary) -> str:
    """The report as one HTML string (see :func:`write_report`)."""
    players = _players(summary)
    name = Path(summary.video).name or summary.video
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           '<meta name="viewport" content="width=device-width, initial-scale=1">',
           f"<title>tablecam audit: {_e(name)}</title><style>{_CSS}</style></head><body><main>",
           f"<h1>tablecam audit: {_e(name)}</h1>", _summary_line(summary, players)]
    if summary.stopped:
        out.append(f'<div class="banner" role="alert">⚠ {_e(summary.stopped)}'
                   "<small>The audit stopped early: everything after this point of the video is missing "
                   "from this report.</small></div>")
    slap_game = summary.game in SLAP_GAMES
    figures = _figures(summary, players) if summary.game in ("slapjack", "snap") else _play_figures(summary, players)
    out.append(f'<section class="box" id="figures"><h2>Figures</h2>{figures}</section>')
    out.append(f'<section class="box" id="timeline"><h2>Timeline</h2>{_timeline(summary, players)}</section>')
    if slap_game:
        out.append(f'<section class="box" id="reactions"><h2>Reaction times</h2>'
                   f"{_reaction_svg(players, summary.slaps)}</section>")
        groups = disputed(summary.slaps)
        body = ("".join(_dispute(g, summary.verdicts) for g in groups) if groups
                else '<p class="empty">No disputed slaps: no races, false slaps or ties.</p>')
        out.append(f'<section class="box" id="disputed"><h2>Disputed slaps ({len(groups)})</h2>{body}</section>')
        out.append(f'<section class="box" id="slaps"><h2>Every slap ({len(summary.slaps)})</h2>'
                   f"{_slap_table(summary.slaps)}</section>")
    if summary.game == "cheat":
        turns = cheat_turns(summary.observations, summary.verdicts)
        out.append(f'<section class="box" id="turns"><h2>Every turn ({len(turns)})</h2>'
                   f"{_turn_table(turns)}</section>")
    if summary.game in PILE_RACE_GAMES:
        races = pile_races(summary.observations, summary.verdicts)
        out.append(f'<section class="box" id="races"><h2>Races for a pile ({len(races)})</h2>'
                   f"{_race_table(races)}</section>")
    out.append(f'<section class="box" id="verdicts"><h2>Every verdict ({len(summary.verdicts)})</h2>'
               f"{_verdict_table(summary.verdicts)}</section>")
    if not slap_game or summary.game == "spit":
        out.append(f'<section class="box" id="observations"><h2>Everything seen and said '
                   f"({len(summary.observations)})</h2>{_observation_table(summary.observations)}</section>")
    links = []
    if summary.annotated:
        links.append(f'<a href="{_src(summary.annotated)}">annotated video</a>')
    links += ['<a href="slaps.csv">slaps.csv</a>'] + \
        (['<a href="races.csv">races.csv</a>'] if summary.game in PILE_RACE_GAMES else []) + \
        ['<a href="game.jsonl">game log (game.jsonl)</a>']
    out.append(f'<section class="box links" id="files"><h2>Files</h2>{"".join(links)}</section>')
    out.append("<footer>Made by tablecam audit. Times are on the video clock; hover a mark for details.</footer>")
    out.append("</main></body></html>\n")
    return "\n".join(out)


def write_report(out_dir: str | Path, summary: AuditSummary) -> Path:
    """Write ``out_dir/report.html`` (one offline file; frames and video linked relative to it); return its path."""
    path = Path(out_dir) / "report.html"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_report(summary), encoding="utf-8")
    return path
