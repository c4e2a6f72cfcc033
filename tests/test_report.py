"""The audit report: slaps.csv round-trips, disputes are grouped as people would argue, and report.html is
well-formed, complete, and renders to a non-blank page in a real browser."""

from __future__ import annotations

import csv
import os
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote

import cv2
import numpy as np
import pytest
from PIL import Image

from tablecam.report import AuditSummary, SlapRecord, disputed, render_report, write_report, write_slaps_csv

PLAYERS = ["Alice", "Bob", "Cara"]
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


def slap(t: float, player: str, verdict: str, trigger_t: float | None = 1.0, card: str | None = "JH",
         zone: str = "center", **kw) -> SlapRecord:
    reaction = None if trigger_t is None else (t - trigger_t) * 1000
    return SlapRecord(t=t, player=player, zone=zone, trigger_card=card if trigger_t is not None else None,
                      trigger_t=trigger_t, reaction_ms=reaction, verdict=verdict,
                      anticipated=kw.pop("anticipated", False), t_err=kw.pop("t_err", 0.004),
                      source=kw.pop("source", "audio+video"), **kw)


# ------------------------------------------------------------------------------------------------------------ CSV


def test_csv_round_trip_formats_and_empties(tmp_path: Path) -> None:
    rows = [slap(12.34567, "Alice", "slap_won", trigger_t=12.1, card="JH", t_err=0.0041),
            slap(3.0, "Bob", "false_slap", trigger_t=None, zone="pile:Bob", source="video", anticipated=True)]
    path = tmp_path / "slaps.csv"
    write_slaps_csv(path, rows)
    with open(path, newline="", encoding="utf-8") as f:
        header = f.readline().strip()
    assert header == "t,player,zone,trigger_card,trigger_t,reaction_ms,verdict,anticipated,t_err,source"
    with open(path, newline="", encoding="utf-8") as f:
        got = list(csv.DictReader(f))
    assert got == [
        {"t": "12.3457", "player": "Alice", "zone": "center", "trigger_card": "JH", "trigger_t": "12.1000",
         "reaction_ms": "245.7", "verdict": "slap_won", "anticipated": "false", "t_err": "0.0041",
         "source": "audio+video"},
        {"t": "3.0000", "player": "Bob", "zone": "pile:Bob", "trigger_card": "", "trigger_t": "",
         "reaction_ms": "", "verdict": "false_slap", "anticipated": "true", "t_err": "0.0040", "source": "video"},
    ]


def test_csv_with_no_slaps_is_just_the_header(tmp_path: Path) -> None:
    path = tmp_path / "slaps.csv"
    write_slaps_csv(path, [])
    assert path.read_text(encoding="utf-8").splitlines() == [
        "t,player,zone,trigger_card,trigger_t,reaction_ms,verdict,anticipated,t_err,source"]


# ------------------------------------------------------------------------------------------------------- disputed


def test_race_30ms_apart_is_one_group() -> None:
    a, b = slap(1.250, "Alice", "slap_won"), slap(1.280, "Bob", "lost_race")
    assert disputed([b, a]) == [[a, b]]


def test_lone_false_slap_is_its_own_group_and_lone_win_is_none() -> None:
    won = slap(1.3, "Alice", "slap_won")
    false = slap(5.0, "Bob", "false_slap", trigger_t=4.2, card="7C")
    assert disputed([won]) == []
    assert disputed([false, won]) == [[false]]


def test_race_needs_same_zone_same_card_and_half_a_second() -> None:
    a = slap(1.30, "Alice", "slap_won")
    other_zone = slap(1.32, "Bob", "late", zone="pile:Bob")
    other_card = slap(1.34, "Cara", "late", trigger_t=1.2)
    too_late = slap(1.85, "Bob", "late")
    assert disputed([a, other_zone, other_card, too_late]) == []
    tie = [slap(8.0, "Alice", "unresolved_tie", trigger_t=7.7), slap(8.01, "Cara", "unresolved_tie", trigger_t=7.7)]
    fs = slap(2.0, "Cara", "false_slap", trigger_t=None)
    assert disputed([*tie, fs, a]) == [[fs], tie]   # the tie is one race, not two lone ties; by time


# --------------------------------------------------------------------------------------------------------- report


class _Checker(HTMLParser):
    """Collects what the tests look at and fails on tags that are closed out of order or never closed."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.errors: list[str] = []
        self.imgs: list[str] = []
        self.links: list[str] = []
        self.text: list[str] = []
        self.classes: dict[str, int] = {}
        self.tags: dict[str, int] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        self.tags[tag] = self.tags.get(tag, 0) + 1
        for c in (a.get("class") or "").split():
            self.classes[c] = self.classes.get(c, 0) + 1
        if tag == "img":
            self.imgs.append(a.get("src") or "")
        if tag == "a":
            self.links.append(a.get("href") or "")
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.stack.pop()

    def handle_endtag(self, tag: str) -> None:
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> but open: {self.stack[-3:]}")
        else:
            self.stack.pop()

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def parse(html_text: str) -> _Checker:
    p = _Checker()
    p.feed(html_text)
    p.close()
    assert p.errors == [], p.errors[:5]
    assert p.stack == [], f"never closed: {p.stack}"
    return p


def _frames(out: Path, t: float, label: str, colour: tuple[int, int, int]) -> tuple[list[str], list[float]]:
    """Three small real JPEGs around a contact (solid colour with text), written with cv2 like the audit does."""
    paths, times = [], []
    for k, dt in enumerate((-0.033, 0.0, 0.033)):
        img = np.full((90, 160, 3), colour, np.uint8)
        cv2.putText(img, f"{label} {dt * 1000:+.0f}", (8, 52), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (255, 255, 255), 2)
        rel = f"frames/{label} {t:.3f}_{k}.jpg"   # a space in the name: the src must still resolve
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        assert cv2.imwrite(str(out / rel), img)
        paths.append(rel)
        times.append(round(t + dt, 3))
    return paths, times


def game_summary(out: Path, stopped: str | None = None) -> AuditSummary:
    """3 players, 12 cards, 6 slaps with a race (Alice beats Bob by 30 ms) and a false slap with frames."""
    deck = ["4S", "9D", "JH", "2C", "KD", "7H", "QS", "JC", "3D", "AS", "10H", "5C"]
    cards = [(1.0 + 1.6 * i, "center", c) for i, c in enumerate(deck)]
    t_jh, t_jc, t_kd = cards[2][0], cards[7][0], cards[4][0]
    f_race, ft_race = _frames(out, t_jh + 0.31, "race", (40, 90, 160))
    f_false, ft_false = _frames(out, t_kd + 0.5, "false", (40, 40, 170))
    slaps = [
        slap(t_jh + 0.310, "Alice", "slap_won", t_jh, "JH", frames=f_race, frame_times=ft_race),
        slap(t_jh + 0.340, "Bob", "lost_race", t_jh, "JH", frames=f_race, frame_times=ft_race),
        slap(t_kd + 0.500, "Cara", "false_slap", t_kd, "KD", frames=f_false, frame_times=ft_false),
        slap(t_jc + 0.062, "Bob", "anticipated", t_jc, "JC", anticipated=True),
        slap(t_jc + 0.280, "Cara", "slap_won", t_jc, "JC", source="video", t_err=0.017),
        slap(t_jc + 0.950, "Alice", "late", t_jc, "JC"),
    ]
    verdicts = [
        {"t": t_jh + 0.311, "type": "verdict", "kind": "slap_won", "rule": "SJ-3", "player": "Alice",
         "say": "Alice takes the pile <by a hair>"},
        {"t": t_kd + 0.501, "type": "verdict", "kind": "false_slap", "rule": "SJ-5", "player": "Cara",
         "say": "Cara, false slap: burn a card"},
        {"t": t_jc + 0.063, "type": "verdict", "kind": "anticipated", "rule": "TM-2", "player": "Bob",
         "say": "Bob anticipated"},
        {"t": t_jc + 0.281, "type": "verdict", "kind": "slap_won", "rule": "SJ-3", "player": "Cara",
         "say": "Cara takes the pile"},
    ]
    return AuditSummary(video="/videos/friday night.mp4", game="slapjack", players=list(PLAYERS), width=1280,
                        height=720, fps=30.0, frames=600, duration=20.0, cards=cards, verdicts=verdicts,
                        slaps=slaps, stopped=stopped, model="models/cards-v3.onnx", seconds=8.0)


def test_report_is_complete_well_formed_and_its_images_exist(tmp_path: Path) -> None:
    stopped = "Video damaged at 19.8 s (frame 594): decoder error, audit stopped"
    path = write_report(tmp_path, game_summary(tmp_path, stopped=stopped))
    assert path == tmp_path / "report.html"
    text = path.read_text(encoding="utf-8")
    p = parse(text)
    body = " ".join(p.text)
    for name in PLAYERS:
        assert name in body
    assert "tablecam audit: friday night.mp4" in body
    assert stopped in body and p.classes.get("banner") == 1
    assert "2.5 x real time" in body                               # 20 s of video in 8 s
    assert "<by a hair>" in body and "<by a hair>" not in text     # the say text, escaped
    assert "Alice takes the pile" in body and "Cara, false slap: burn a card" in body
    assert "30 ms" in body                                         # the race margin
    assert "+33 ms" in body and "-33 ms" in body                   # frame captions relative to first contact
    assert p.tags.get("svg", 0) >= 2 and p.tags.get("script", 0) == 0
    # the JH race, the false slap, and Bob's anticipated slap vs Cara's win on JC (Alice's late one is not in it)
    assert p.classes.get("dispute") == 3
    assert len(p.imgs) == 6
    for src in p.imgs:
        assert not src.startswith(("/", "http")), src
        assert (tmp_path / unquote(src)).is_file(), src
    assert {"annotated.mp4", "slaps.csv", "game.jsonl"} <= set(p.links)
    assert "http://" not in text.replace('xmlns="http://www.w3.org/2000/svg"', "")


def test_report_without_banner_when_not_stopped(tmp_path: Path) -> None:
    s = game_summary(tmp_path)
    s.annotated = None
    p = parse(render_report(s))
    assert "banner" not in p.classes
    assert "annotated.mp4" not in p.links


def test_empty_game_still_makes_a_report(tmp_path: Path) -> None:
    s = AuditSummary(video="empty.mp4", game="slapjack", players=["Ann", "Ben"], width=640, height=480, fps=25.0,
                     frames=0, duration=0.0, cards=[], verdicts=[], slaps=[])
    p = parse(write_report(tmp_path / "out", s).read_text(encoding="utf-8"))
    body = " ".join(p.text)
    assert "Ann" in body and "Ben" in body
    assert "No slaps" in body and "No verdicts" in body and "No disputed slaps" in body
    assert p.imgs == []


def test_a_game_without_slaps_shows_what_was_seen_and_said_not_slaps() -> None:
    """Cheat (CH-2, CH-4): batches, reveals and claims, who did what, and the rulings; no slap sections."""
    obs = [{"t": 1.2, "type": "facedown", "zone": "center", "count": 2, "evidence": {"frame": 36}},
           {"t": 1.4, "type": "claim", "player": "Ann", "count": 2, "rank": "A"},
           {"t": 2.0, "type": "call", "player": "Ben", "word": "doubt"},
           {"t": 2.5, "type": "reveal", "zone": "center", "cards": ["AH", "9C"], "evidence": {"frame": 75}}]
    verdicts = [{"t": 2.5, "type": "verdict", "kind": "challenge_true", "rule": "CH-4", "player": "Ann",
                 "cards": 2, "say": "Cheat! Not two aces. Ann picks up 2 cards"}]
    s = AuditSummary(video="cheat.mp4", game="cheat", players=["Ann", "Ben"], width=640, height=480, fps=30.0,
                     frames=90, duration=3.0, cards=[], verdicts=verdicts, slaps=[], observations=obs)
    text = render_report(s)
    body = " ".join(parse(text).text)
    assert "Everything seen and said (4)" in body and "2 face down" in body and "AH 9C" in body
    assert "2 × A" in body and "doubt" in body and "Cheat! Not two aces" in body
    assert "<b>1</b>batch<" in text and "<b>1</b>reveal<" in text and "<b>2</b>said<" in text
    assert "Disputed slaps" not in body and "Reaction times" not in body


def test_a_game_without_cards_or_slaps_draws_its_batches_reveals_and_rulings_on_the_timeline() -> None:
    """Cheat (CH-2, CH-4): no card is seen face up but in a reveal, and nobody slaps: the timeline shows each batch
    laid and turned up (grey labels) and each ruling that names a player (a square in that player's row, its
    sentence on hover), not "nothing to draw"; the legend says what the squares and labels are. The command line's
    figures are the report's."""
    from tablecam.report import tally_line

    obs = [{"t": 1.2, "type": "facedown", "zone": "center", "count": 2, "evidence": {"frame": 36}},
           {"t": 1.4, "type": "claim", "player": "Ann", "count": 3, "rank": "A"},
           {"t": 2.0, "type": "call", "player": "Ben", "word": "doubt"},
           {"t": 2.5, "type": "reveal", "zone": "center", "cards": ["AH", "9C"], "evidence": {"frame": 75}}]
    verdicts = [{"t": 1.4, "type": "verdict", "kind": "count_mismatch", "rule": "CH-2", "player": "Ann",
                 "say": "Count mismatch: Ann claimed three but placed two"},
                {"t": 2.5, "type": "verdict", "kind": "challenge_false", "rule": "CH-4", "player": "Ann",
                 "cards": 2, "say": "Cheat! Not three aces. Ann picks up 2 cards"}]
    s = AuditSummary(video="cheat.mp4", game="cheat", players=["Ann", "Ben"], width=640, height=480, fps=30.0,
                     frames=90, duration=3.0, cards=[], verdicts=verdicts, slaps=[], observations=obs)
    text = render_report(s)
    p = parse(text)
    timeline = text[text.index('id="timeline"'):text.index('id="verdicts"')]
    assert "nothing to draw" not in timeline and p.tags.get("svg") == 1
    assert ">2 down<" in timeline and ">up AH 9C<" in timeline
    assert timeline.count("<rect x=") - timeline.count('<rect x="128"') == 2  # (the two rulings; row bands at 128)
    assert "1.400 s: Count mismatch: Ann claimed three but placed two" in timeline
    assert "count mismatch" in timeline and "challenge false" in timeline and "a batch turned up" in timeline
    assert "won" not in timeline  # (no slap legend in a game without slaps)
    assert tally_line(s) == "1 batch, 1 reveal, 2 said, 2 verdicts"
    assert "<th>laid</th>" in text  # (Ann's claim names who laid the batch)
    unclaimed = AuditSummary(video="cheat.mp4", game="cheat", players=["Ann", "Ben"], width=640, height=480,
                             fps=30.0, frames=90, duration=3.0, cards=[], verdicts=verdicts, slaps=[],
                             observations=[o for o in obs if o["type"] != "claim"])
    # a batch seen but never claimed names nobody: no column of noughts saying nobody played
    assert "<th>laid</th>" not in render_report(unclaimed)
    # CH-2: a count the camera was unsure of (conf under the referee's COUNT_SURE) is marked so, where it shows
    unsure = AuditSummary(video="cheat.mp4", game="cheat", players=["Ann", "Ben"], width=640, height=480, fps=30.0,
                          frames=90, duration=3.0, cards=[], verdicts=verdicts[1:], slaps=[],
                          observations=[{**obs[0], "conf": 0.25}, *obs[1:]])
    text = render_report(unsure)
    assert ">2? down<" in text and "2 face down (count unsure: a claim stands)" in text and "unsure of)" in text
    assert ">2 down<" not in text and '<span class="flag">' not in text  # (nobody accused: not flagged)
    assert '<span title="counted unsurely: the claim stood">2?</span>' in text
    assert '<span class="flag">2</span>' in render_report(s)  # (a sure count that differs from the claim is)


def test_a_jack_is_highlighted_on_the_timeline_of_slapjack_only() -> None:
    """A jack is the card slapped in Slapjack (SJ-1); in Speed it is a card like any, not highlighted."""
    def timeline(game: str) -> str:
        s = AuditSummary(video="g.mp4", game=game, players=["Ann"], width=640, height=480, fps=25.0, frames=250,
                         duration=10.0, cards=[(1.0, "center", "JS"), (2.0, "center", "10D")], verdicts=[],
                         slaps=[])
        return render_report(s)

    assert 'class="card hi"' in timeline("slapjack") and 'class="card hi"' not in timeline("speed")


def test_a_snap_report_counts_the_snaps_on_the_table_not_jacks() -> None:
    """SN-3: the head figure next to the cards is what could be slapped: in Slapjack its jacks, in Snap the cards that
    matched another player's top as they showed (a pile given away by a snap no longer counts)."""
    from tablecam.report import snap_chances, tally_line

    cards = [(1.0, "pile:A", "7H"), (2.0, "pile:B", "7S"), (3.0, "pile:C", "7D"), (4.0, "pile:A", "JC"),
             (5.0, "pile:B", "JD")]
    assert snap_chances(cards, []) == 3  # 7S on 7H; 7D on both; JD on JC
    taken = [{"t": 2.5, "type": "verdict", "kind": "snap", "rule": "SN-3", "player": "C", "piles": ["A", "B"]}]
    assert snap_chances(cards, taken) == 2  # 7S on 7H, then both went to C: 7D matches nothing; JD on JC
    s = AuditSummary(video="g.mp4", game="snap", players=["A", "B", "C"], width=640, height=480, fps=25.0,
                     frames=250, duration=10.0, cards=cards, verdicts=taken, slaps=[])
    assert tally_line(s) == "5 cards, 2 snaps on the table, 0 slaps, 1 verdict, 0 disputed"
    assert "jack /" not in render_report(s)  # (the timeline's legend)
    # SN-3, SN-4: a snap is a slap won, a false snap a false slap (both counted, coloured and disputed so), a Snap
    # Pot a tie
    from tablecam.report import VERDICT_COLOURS, _colour

    def slap(t: float, player: str, verdict: str) -> SlapRecord:
        return SlapRecord(t, player, "pile:A", "7H", 1.0, (t - 1.0) * 1000, verdict, False, 0.001, "audio+video")

    s.slaps = [slap(2.1, "C", "snap"), slap(6.0, "B", "false_snap"), slap(8.0, "A", "snap_pot"),
               slap(8.01, "C", "snap_pot")]
    figures = render_report(s)
    assert "<tr><td>C</td><td>2</td><td>1</td><td>0</td>" in figures  # (C: two slaps, one won)
    assert "<tr><td>B</td><td>1</td><td>0</td><td>1</td>" in figures  # (B: a false snap)
    assert _colour("snap") == VERDICT_COLOURS["slap_won"] and _colour("false_snap") == VERDICT_COLOURS["false_slap"]
    assert _colour("snap_pot") == VERDICT_COLOURS["unresolved_tie"]
    assert [[x.verdict for x in g] for g in disputed(s.slaps)] == [["false_snap"], ["snap_pot", "snap_pot"]]
    s.slaps = []
    s.game = "slapjack"
    assert tally_line(s).startswith("5 cards, 2 jacks, ") and "jack / card that triggered" in render_report(s)


def test_cards_but_no_slaps_draw_a_timeline(tmp_path: Path) -> None:
    s = AuditSummary(video="cards.mp4", game="slapjack", players=["Ann"], width=640, height=480, fps=25.0,
                     frames=250, duration=10.0, cards=[(1.0, "center", "JS"), (2.0, "center", "10D")],
                     verdicts=[], slaps=[])
    p = parse(render_report(s))
    assert p.tags.get("svg") == 1 and "JS" in " ".join(p.text)


def test_long_game_is_split_into_strips_and_draws_every_slap_once() -> None:
    times = [0.5, 60.0, 90.0, 100.0, 120.0, 180.0, 249.0]   # some fall exactly on a strip boundary
    slaps = [slap(t, "Ann", "false_slap", trigger_t=None) for t in times]
    s = AuditSummary(video="long.mp4", game="slapjack", players=["Ann"], width=640, height=480, fps=25.0,
                     frames=6250, duration=250.0, cards=[], verdicts=[], slaps=slaps)
    text = render_report(s)
    p = parse(text)
    assert p.tags.get("svg", 0) >= 2                      # several timeline strips, no reaction plot (no cards)
    assert text.count("Ann slapped") == len(times)       # each slap's marker exactly once


# ----------------------------------------------------------------------------------------------------- screenshot


def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


def screenshot(html_path: Path, png: Path, width: int = 1280, height: int = 2400) -> None:
    """Render a page with headless Chromium; skips without a browser, except in CI where it must run."""
    exe = _chromium()
    if exe is None:
        msg = "no chromium/chromium-browser/google-chrome on PATH (tools/system-packages.sh installs it)"
        if os.environ.get("TABLECAM_CI"):
            pytest.fail(msg)
        pytest.skip(msg)
    cmd = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--disable-dev-shm-usage",
           f"--user-data-dir={png.parent / 'chromium-profile'}", f"--window-size={width},{height}",
           f"--screenshot={png}", html_path.resolve().as_uri()]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert png.is_file(), f"chromium made no screenshot (rc {r.returncode}): {r.stderr[-2000:]}"


def test_report_renders_in_headless_chromium(tmp_path: Path) -> None:
    path = write_report(tmp_path, game_summary(tmp_path, stopped="Video damaged at 19.8 s: audit stopped"))
    png = tmp_path / "report.png"
    screenshot(path, png)
    with Image.open(png) as im:
        assert im.size == (1280, 2400)
        a = np.asarray(im.convert("RGB")).astype(np.int16)
    assert a.std() > 12, "the page is blank"
    bg = a[5, 5]                                                   # page background in the corner
    top = np.abs(a[:400] - bg).max(axis=2) > 40
    assert top.sum() > 2000, "nothing drawn in the top 400 rows (title, summary, banner)"
    red = (a[:400, :, 0] > 150) & (a[:400, :, 1] < 120) & (a[:400, :, 2] < 120)
    assert red.sum() > 200, "the red stopped-banner is not visible near the top"
    if os.environ.get("TABLECAM_KEEP_SCREENSHOT"):
        shutil.copy(png, os.environ["TABLECAM_KEEP_SCREENSHOT"])


# ------------------------------------------------------------------------------------- races for a pile, turns


def _refereed(game: str) -> tuple[list[dict], list[dict]]:
    """A golden example game's lines and the verdicts the referee gives them now (not the stored ones)."""
    from engine.events import Event, GameHeader, parse_line
    from engine.replay import replay
    from engine.verdicts import Verdict

    lines = (Path(__file__).resolve().parent.parent / "examples" / "logs" / f"{game}.jsonl").read_text().splitlines()
    parsed = [parse_line(x, k + 1) for k, x in enumerate(lines)]
    header = next(x for x in parsed if isinstance(x, GameHeader))
    events = [x for x in parsed if isinstance(x, Event)]
    verdicts = [o.to_dict() for o in replay(header, events) if isinstance(o, Verdict)]
    return [e.to_dict() for e in events], verdicts


def test_speed_races_for_a_pile_say_who_landed_first_by_how_much_and_the_rulings() -> None:
    """SP-3, SP-9, TM-2: in the golden Speed game Bob's KH and Ann's JC land 39 ms apart on one pile (the jack, on its
    way before the king landed, is judged on the king: "the king was first"), and 8D and 10D 3 ms apart (too close
    to order: SP-9). Races are in time order; the report shows them with both rulings."""
    from tablecam.report import pile_races

    obs, verdicts = _refereed("speed")
    races = pile_races(obs, verdicts)
    assert [(r.first.card, r.first.player, r.second.card, r.second.player, round(r.apart_ms)) for r in races] == \
        [("8D", "Bob", "10D", "Ann", 3), ("KH", "Bob", "JC", "Ann", 39)]
    tie, sp3 = races
    assert tie.tie is not None and tie.tie["rule"] == "SP-9" and tie.first.zone == tie.second.zone
    assert sp3.tie is None and sp3.second.ruling["rule"] == "SP-3" and "the king was first" in sp3.second.ruling["say"]
    assert sp3.first.ruling["kind"] == "legal_play"
    s = AuditSummary(video="speed.mp4", game="speed", players=["Ann", "Bob"], width=640, height=480, fps=30.0,
                     frames=900, duration=30.0, cards=[], verdicts=verdicts, slaps=[], observations=obs)
    text = render_report(s)
    body = " ".join(parse(text).text)
    assert "Races for a pile (2)" in body and "39 ms" in body and "3 ms" in body
    assert "Illegal: jack on king, the king was first" in body and "Too close to call" in body
    assert "<b>2</b>races<" in text
    assert body.index("Races for a pile") < body.index("Every verdict")


def test_spit_races_include_a_tie_named_by_its_tied_cards() -> None:
    """ST-7 (SP-3, SP-9 in Spit): the Spit referee names a tie's cards ``tied`` (Speed's ``played``): its race is
    found too, and the card lines carry no player (the referee knows the column each came from)."""
    from tablecam.report import pile_races

    obs, verdicts = _refereed("spit")
    races = pile_races(obs, verdicts)
    ties = [r for r in races if r.tie is not None]
    assert len(races) == 3 and len(ties) == 1 and ties[0].tie["rule"] == "SP-9"
    assert all(r.apart_ms < 100 for r in races)
    assert all(r.first.player != r.second.player for r in races if r.tie is None)


def test_what_is_no_race_for_a_pile() -> None:
    """TM-2, SP-10: a card landing 100 ms or more after the last is an answer to it, not a race; one player's two cards
    are not a race (one hand); the flips of the side stacks are no plays; two piles never race each other."""
    from tablecam.report import PILE_RACE_S, pile_races

    def card(t: float, zone: str, code: str, player: str | None, **kw: object) -> dict:
        return {"t": t, "type": "card", "zone": zone, "card": code, "player": player, **kw}

    def play(t: float, zone: str, code: str, player: str, kind: str = "legal_play") -> dict:
        return {"t": t, "type": "verdict", "kind": kind, "rule": "SP-2", "player": player, "zone": zone,
                "card": code, "say": f"{player}: {code}"}

    obs = [card(1.0, "left", "5S", None, source="side"), card(1.01, "left", "6S", None, source="side"),
           card(2.0, "left", "7S", "Ann"), card(2.0 + PILE_RACE_S, "left", "8S", "Bob"),
           card(3.0, "right", "9S", "Ann"), card(3.03, "right", "10S", "Ann"),
           card(4.0, "left", "9D", "Ann"), card(4.01, "right", "JS", "Bob"),
           card(5.0, "left", "10D", "Ann"), card(5.05, "left", "JD", "Bob", t_err=0.004)]
    verdicts = [play(o["t"] + 0.03, o["zone"], o["card"], o["player"]) for o in obs if o["player"]]
    races = pile_races(obs, verdicts)
    assert [(r.first.card, r.second.card) for r in races] == [("10D", "JD")]
    assert round(races[0].apart_ms) == 50 and round(races[0].err_ms) == 4
    assert races[0].second.ruling["card"] == "JD"
    assert "50 ± 4 ms" in _race_html(races)


def _race_html(races: list) -> str:
    from tablecam.report import _race_table

    return _race_table(races)


def test_cheat_turns_pair_batches_with_claims_doubts_reveals_and_rulings() -> None:
    """CH-2, CH-3, CH-4: every turn of a Cheat log, with or without ``turn`` lines: the backs counted beside the claim
    (a count that differs from it flagged), who doubted, what turned up and the ruling; a Cheat report lists them
    before every verdict, and other games' reports do not."""
    from tablecam.report import cheat_turns

    obs = [{"t": 1.2, "type": "facedown", "zone": "center", "count": 2},
           {"t": 1.4, "type": "claim", "player": "Ann", "count": 3, "rank": "A"},
           {"t": 2.0, "type": "facedown", "zone": "center", "count": 1},
           {"t": 2.1, "type": "claim", "player": "Ben", "count": 1, "rank": "2"},
           {"t": 2.4, "type": "call", "player": "Ann", "word": "doubt"},
           {"t": 2.9, "type": "reveal", "zone": "center", "cards": ["9C"]},
           {"t": 4.0, "type": "turn", "player": "Ann"},
           {"t": 4.3, "type": "facedown", "zone": "center", "count": 4}]
    verdicts = [{"t": 1.4, "type": "verdict", "kind": "count_mismatch", "rule": "CH-2", "player": "Ann",
                 "say": "Count mismatch: Ann claimed three but placed two"},
                {"t": 2.9, "type": "verdict", "kind": "challenge_false", "rule": "CH-4", "player": "Ben",
                 "cards": 3, "say": "Cheat! Not one two. Ben picks up 3 cards"}]
    turns = cheat_turns(obs, verdicts)
    assert [(x.player, x.laid, x.claim, x.doubted_by, x.turned, [v["rule"] for v in x.rulings]) for x in turns] == [
        ("Ann", 2, (3, "A"), [], (), ["CH-2"]),
        ("Ben", 1, (1, "2"), ["Ann"], ("9C",), ["CH-4"]),
        ("Ann", 4, None, [], (), [])]
    s = AuditSummary(video="cheat.mp4", game="cheat", players=["Ann", "Ben"], width=640, height=480, fps=30.0,
                     frames=150, duration=5.0, cards=[], verdicts=verdicts, slaps=[], observations=obs)
    text = render_report(s)
    body = " ".join(parse(text).text)
    assert "Every turn (3)" in body and "Cheat! Not one two. Ben picks up 3 cards" in body
    assert '<span class="flag">2</span>' in text  # (two backs seen for a claim of three)
    assert body.index("Every turn") < body.index("Every verdict")
    other = AuditSummary(video="g.mp4", game="speed", players=["Ann", "Ben"], width=640, height=480, fps=30.0,
                         frames=150, duration=5.0, cards=[], verdicts=[], slaps=[], observations=[])
    assert "Every turn" not in render_report(other) and "No races" in " ".join(parse(render_report(other)).text)


def test_races_csv_has_one_row_per_race_with_both_rulings_or_the_tie(tmp_path: Path) -> None:
    """SP-3, SP-9: ``races.csv`` (Speed, Spit) round-trips: pile, both cards and players, the gap and its uncertainty,
    each card's ruling, or the tie that ruled both; a Speed report links it, a Slapjack report does not."""
    from tablecam.report import RACE_CSV_FIELDS, pile_races, write_races_csv

    obs, verdicts = _refereed("speed")
    path = tmp_path / "races.csv"
    write_races_csv(path, pile_races(obs, verdicts))
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        assert tuple(reader.fieldnames or ()) == RACE_CSV_FIELDS
        rows = list(reader)
    tie, sp3 = rows
    assert (tie["pile"], tie["first_card"], tie["second_card"]) == ("right", "8D", "10D")
    assert float(tie["apart_ms"]) == pytest.approx(3, abs=1)
    assert tie["tie"].startswith("Too close to call") and tie["first_ruling"] == tie["second_ruling"] == ""
    assert (sp3["first_card"], sp3["first_player"], sp3["second_card"], sp3["second_player"]) == \
        ("KH", "Bob", "JC", "Ann")
    assert sp3["second_ruling"].endswith("the king was first. Ann, take it back") and sp3["tie"] == ""
    assert float(sp3["second_t"]) > float(sp3["t"]) and float(sp3["apart_ms"]) == pytest.approx(39, abs=1)
    speed = AuditSummary(video="s.mp4", game="speed", players=["Ann", "Bob"], width=640, height=480, fps=30.0,
                         frames=30, duration=1.0, cards=[], verdicts=[], slaps=[])
    assert 'href="races.csv"' in render_report(speed)
    assert 'href="races.csv"' not in render_report(game_summary(tmp_path))
