"""Rendered games (``tablecam synth-video``) and the slaps found in them (SJ-2, SJ-3, TM-1, TM-3).

The renderer's ground truth is exact, so these tests measure the slap detector rather than trust it: every
slap found, by the right player, none invented from a dealing hand, contact times within a frame from the
video alone and within a few milliseconds with the audio; two hands 30 ms apart ordered by the audio, and
the same two hands, without audio, an ``unresolved_tie`` (TM-3).
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from calibration.layout import Layout
from engine.replay import replay_to_end
from models.gamevideo import FPS, RenderedGame, make_script, render_game, script_from_events
from vision.audio import impact_onsets, read_audio
from vision.frames import probe
from vision.slaps import APPROACH_APART, SlapSeen, drop_dealing, fuse_audio, slaps_in_video

FRAME = 1 / FPS


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> RenderedGame:
    """16 s of a 3-player Slapjack game: three jacks, seven slaps, races with two and three hands."""
    out = tmp_path_factory.mktemp("sj") / "game.mp4"
    return render_game(out, "slapjack", ["A", "B", "C"], seed=238, seconds=16)


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> RenderedGame:
    """The first jack of the same game, slapped by B and then by C 30 ms later (inside one frame or two)."""
    sc = make_script("slapjack", ["A", "B", "C"], 238, seconds=4.0)
    slaps = [e for e in sc.events if e.type == "slap"]
    first = slaps[0]
    events = [dataclasses.replace(e, t=round(first.t + 0.030, 4)) if e is slaps[1] else e for e in sc.events]
    sc = script_from_events(sc.header, events, 238)
    return render_game(tmp_path_factory.mktemp("pair") / "pair.mp4", script=sc)


def match(found: list[SlapSeen], truth: list[tuple[float, str, str]], window: float = 0.15) -> list[tuple]:
    """Pairs (truth, found) by player and nearest time; unmatched truth gets None."""
    used: set[int] = set()
    out = []
    for t, p, z in truth:
        cands = [(abs(s.t - t), i) for i, s in enumerate(found) if s.player == p and s.zone == z and i not in used
                 and abs(s.t - t) < window]
        if cands:
            _, i = min(cands)
            used.add(i)
            out.append(((t, p, z), found[i]))
        else:
            out.append(((t, p, z), None))
    return out


def test_rendered_game_files(game: RenderedGame) -> None:
    info = probe(game.video)
    assert (info.width, info.height) == (1280, 720)
    assert info.fps == pytest.approx(30, abs=0.01)
    assert info.has_audio
    assert info.duration == pytest.approx(game.script.duration, abs=0.1)
    lay = Layout.load(game.layout)
    assert lay.game == "slapjack" and lay.players == ("A", "B", "C")
    lay.check_frame(1280, 720)
    lines = game.truth.read_text().splitlines()
    assert '"seed":238' in lines[0] and len(lines) == 1 + len(game.script.events)


def test_soundtrack_has_an_impact_at_every_contact(game: RenderedGame) -> None:
    samples, rate, t0 = read_audio(game.video)
    onsets = [o.t for o in impact_onsets(samples, rate, t0)]
    times = [t for t, _p, _z in game.script.slaps]
    for t in times:
        if min(abs(u - t) for u in times if u != t) > 0.025:  # closer impacts are one onset (min_gap_ms)
            assert min(abs(o - t) for o in onsets) < 0.002


def test_every_slap_found_by_its_player_none_invented_video_within_a_frame(game: RenderedGame) -> None:
    """SJ-2/TM-1 from the video alone: recall, the seat the arm comes from, no slap from a dealing hand."""
    lay = Layout.load(game.layout)
    shown = [(math.ceil(e.t * FPS) / FPS, e.zone) for e in game.script.events if e.type == "card"]
    found = slaps_in_video(str(game.video), lay, ["center"], use_audio=False, cards=shown)
    pairs = match(found, game.script.slaps)
    assert all(f is not None for _, f in pairs), pairs
    assert len(found) == len(game.script.slaps)  # 15 cards were dealt by hand: none became a slap
    errors = np.array([f.t - t for (t, _, _), f in pairs])
    assert np.median(np.abs(errors)) < FRAME / 2
    # every one within a frame: a hand landing on a hand already there is seen up to two frames early (its edge
    # meets the first hand's fingers), but its wrist still moves, and it is timed part of the way to its last move
    # (9 of these 11 were within a frame when the first frame seen down was taken)
    assert np.max(np.abs(errors)) <= FRAME


def test_audio_times_contacts_to_the_millisecond(game: RenderedGame) -> None:
    """TM-1: with the impact sounds, the contact time of each slap (median within 5 ms)."""
    lay = Layout.load(game.layout)
    found = slaps_in_video(str(game.video), lay, ["center"], use_audio=True)
    pairs = match(found, game.script.slaps, window=0.1)
    errors = np.array([abs(f.t - t) for (t, _, _), f in pairs if f is not None])
    assert len(errors) == len(game.script.slaps)
    assert np.median(errors) <= 0.005
    # two hands 3 ms apart make one sound: one of them keeps its video time
    assert sum(f.source == "audio+video" for _, f in pairs if f) >= len(pairs) - 2


def _referee_with(pair: RenderedGame, found: list[SlapSeen]) -> list[dict]:
    """The truth log's cards with the detected slaps in place of the true ones, refereed."""
    sc = pair.script
    events = [e for e in sc.events if e.type != "slap"]
    events += [dataclasses.replace(next(e for e in sc.events if e.type == "slap"), t=round(s.t, 4),
                                   player=s.player, t_err=round(s.t_err, 4)) for s in found]
    events.sort(key=lambda e: e.t)
    _, out = replay_to_end(sc.header, events)
    return [o.to_dict() for o in out if o.to_dict().get("type") == "verdict"]


def test_two_hands_30ms_apart_timed_by_audio_and_ruled_as_the_frames_allow(pair: RenderedGame) -> None:
    """TM-1/TM-3: both contacts get their sound's time. The sounds say when, not whose: the frames show both hands
    down in one frame, but the one whose edge was coming in ahead landed first and takes the first sound (SJ-2);
    were they coming in alike, nobody could say whose sound came first, and the race is an ``unresolved_tie``."""
    lay = Layout.load(pair.layout)
    (t1, p1, _), (t2, p2, _) = pair.script.slaps[:2]
    assert t2 - t1 == pytest.approx(0.030, abs=1e-6)
    found = slaps_in_video(str(pair.video), lay, ["center"], use_audio=True)
    race = sorted((s for s in found if abs(s.t - t1) < 0.2), key=lambda s: s.t)
    assert sorted(s.player for s in race) == sorted([p1, p2])
    assert all(s.source == "audio+video" for s in race)
    assert all(abs(a - b) < 0.002 for a, b in zip(sorted(s.t for s in race), [t1, t2], strict=True))
    kinds = {v["kind"]: v for v in _referee_with(pair, found)}
    # one frame shows both down and both wrists at rest alike: whose sound is whose? B's edge was coming in well
    # ahead of C's (approach_time: 0.6 frame) so B landed first, took the first sound and won the race
    assert race[0].t_frame == pytest.approx(race[1].t_frame) and race[0].landed_by != race[1].landed_by
    assert race[1].t_approach - race[0].t_approach >= APPROACH_APART * FRAME
    assert [s.player for s in race] == [p1, p2] and kinds["slap_won"]["player"] == p1
    # were they coming in alike, nothing would say whose sound is whose: the race is an unresolved tie
    alike = [dataclasses.replace(s, t=s.t_video, t_err=FRAME, source="video", t_approach=race[0].t_approach)
             for s in race]
    fused = fuse_audio(alike, impact_onsets(*read_audio(str(pair.video))), frame_s=FRAME)
    assert all(s.source == "audio+video" for s in fused) and min(s.t_err for s in fused) >= 0.025
    others = [s for s in found if abs(s.t - t1) >= 0.2]
    kinds = {v["kind"]: v for v in _referee_with(pair, others + fused)}
    assert "unresolved_tie" in kinds and "slap_won" not in kinds


@pytest.mark.parametrize("gap", [0.025, 0.040])
def test_two_hands_from_neighbouring_seats_25_to_40ms_apart_are_ordered(tmp_path, gap: float) -> None:
    """TM-1/TM-3/SJ-2: B slaps the first jack and A (the next seat round, not across) lands ``gap`` later. At
    25 ms the video shows both down in one frame, at 40 ms it shows A a frame *early* (its edge meets B's fingers),
    but in the next frame A is still settling while B's wrist is at rest: B landed first and takes the first
    sound, A the second, and B wins the race."""
    sc = make_script("slapjack", ["A", "B", "C"], 238, seconds=4.0)
    first, second = [e for e in sc.events if e.type == "slap"][:2]
    assert first.player == "B"
    later = dataclasses.replace(second, t=round(first.t + gap, 4), player="A")
    sc = script_from_events(sc.header, [later if e is second else e for e in sc.events], 238)
    game = render_game(tmp_path / "race.mp4", script=sc)
    found = slaps_in_video(str(game.video), Layout.load(game.layout), ["center"], use_audio=True)
    race = sorted((s for s in found if abs(s.t - first.t) < 0.2), key=lambda s: s.t)
    assert [s.player for s in race] == ["B", "A"]
    assert all(s.source == "audio+video" for s in race)
    assert [round(s.t, 3) for s in race] == pytest.approx([first.t, later.t], abs=0.002)
    assert max(s.t_err for s in race) < 0.005  # no doubt left: the sounds are ordered
    kinds = {v["kind"]: v for v in _referee_with(game, found)}
    assert kinds["slap_won"]["player"] == "B" and "unresolved_tie" not in kinds


def test_two_hands_30ms_apart_without_audio_are_an_unresolved_tie(pair: RenderedGame) -> None:
    """TM-3: from the frames alone the two contacts are a frame's uncertainty apart: nobody wins the race."""
    lay = Layout.load(pair.layout)
    (t1, _, _), _ = pair.script.slaps[:2]
    found = slaps_in_video(str(pair.video), lay, ["center"], use_audio=False)
    assert len([s for s in found if abs(s.t - t1) < 0.2]) == 2
    kinds = [v["kind"] for v in _referee_with(pair, found)]
    assert "unresolved_tie" in kinds and "slap_won" not in kinds[: kinds.index("unresolved_tie") + 1]


def test_a_hand_that_lays_a_card_is_not_a_slap() -> None:
    """TM-2: nobody reacts to a card within 100 ms of its showing; an arrival then is the hand that laid it."""
    s = [SlapSeen(1.00, "center", "A", 0.016, 30, 1.00), SlapSeen(2.50, "center", "B", 0.016, 75, 2.50),
         SlapSeen(3.00, "pile:A", "C", 0.016, 90, 3.00)]
    kept = drop_dealing(s, [(1.05, "center"), (2.0, "center"), (3.05, "pile:B")])
    assert [x.player for x in kept] == ["B", "C"]
    # a hand seen down a little before its card showed laid it too (rendered Slapjack 4p s11 15.06 s: 167 ms); one
    # down a quarter second before the next card is a slap (the renders' slaps come 268 ms or more before the next)
    s = [SlapSeen(15.0, "center", "C", 0.12, 450, 15.0), SlapSeen(16.9, "center", "A", 0.016, 507, 16.9)]
    assert [x.player for x in drop_dealing(s, [(15.167, "center"), (17.15, "center")])] == ["A"]
    # a Snap pile's cards are laid by its owner: C's hand on A's pile 47 ms after A's AH showed slapped, anticipated
    # (rendered Snap 4p s12 12.03 s: C won the snap of aces); A's own hand then is the one that laid it
    s = [SlapSeen(12.08, "pile:A", "C", 0.016, 363, 12.08), SlapSeen(12.08, "pile:A", "A", 0.016, 363, 12.08)]
    assert [x.player for x in drop_dealing(s, [(12.033, "pile:A")])] == ["C"]


def test_a_hand_heard_hitting_a_card_just_shown_slapped_it_and_takes_the_loud_sound() -> None:
    """TM-2, SJ-2 (rendered Slapjack 3p s6 3.35 s): C's JD tapped down at 3.349 s (a soft sound) and B's hand hit it at
    3.409 s (a loud one), first seen down in the frame of 3.367 s. B's slap takes the loud sound, not the earlier tap,
    and stands: anticipated (60 ms), not the hand that laid the card, which is down before its card shows and makes
    no loud sound. Seen by the video alone it stays doubtful (dropped); a loud hand whose card showed a frame after it
    came down laid it."""
    from vision.audio import Onset

    b = SlapSeen(101 * FRAME, "center", "B", FRAME, 101, 101 * FRAME)
    fused = fuse_audio([b], [Onset(3.349, 14.0, 0.0005), Onset(3.409, 45.0, 0.0005)], frame_s=FRAME)
    assert fused[0].t == 3.409 and fused[0].strength == 45.0
    assert drop_dealing(fused, [(3.349, "center")]) == fused
    assert drop_dealing([b], [(3.349, "center")]) == []  # (no sound: as before)
    quiet = fuse_audio([b], [Onset(3.349, 14.0, 0.0005)], frame_s=FRAME)
    assert quiet[0].t == 3.349 and drop_dealing(quiet, [(3.349, "center")]) == []
    assert drop_dealing(fused, [(102 * FRAME, "center")]) == []  # its card showed a frame after: it laid it


def test_a_slap_timed_by_the_video_alone_is_not_ordered_before_a_sound_within_a_frame(pair: RenderedGame) -> None:
    """TM-3: the video times a contact give or take a frame (a hand landing on a crowded pile is seen up to a frame
    off). Two hands a couple of ms apart make one sound, which times one of them; the other keeps its video time,
    up to a frame early. Ordering it first on that would call a winner nobody saw: with a frame's ``t_err`` the
    referee says the race cannot be resolved."""
    lay = Layout.load(pair.layout)
    alone = slaps_in_video(str(pair.video), lay, ["center"], use_audio=False)
    # (a frame at least: more for a hand still settling frames after it first showed down)
    assert alone and all(s.t_err >= FRAME - 1e-9 and s.source == "video" for s in alone)
    first = min(alone, key=lambda s: s.t)
    other = next(p for p in pair.script.header.players if p != first.player)
    heard = dataclasses.replace(first, t=first.t + 0.023, player=other, t_err=0.0005, source="audio+video")
    kinds = {v["kind"]: v for v in _referee_with(pair, [first, heard])}
    assert "unresolved_tie" in kinds and "slap_won" not in kinds, kinds


def test_a_sound_from_a_hand_the_video_missed_is_not_given_to_the_next_hand() -> None:
    """TM-1: Slapjack seed 12, A hit at 10.638, unseen by the video (three hands on one pile); C hit at 10.732,
    seen at 10.733. A's sound lies in C's window, but more than a frame and a half before C's contact, with C's own
    sound within a frame of it: C is timed by its own. Sounds within a frame and a half keep their time order."""
    from vision.audio import Onset

    def seen(t: float, player: str) -> SlapSeen:
        return SlapSeen(t, "center", player, FRAME, round(t * FPS), t)

    onsets = [Onset(10.590, 30.0, 0.0005), Onset(10.638, 30.0, 0.0005), Onset(10.732, 30.0, 0.0005)]
    fused = fuse_audio([seen(10.600, "B"), seen(10.733, "C")], onsets, frame_s=FRAME)
    assert [(s.player, s.t) for s in fused] == [("B", 10.590), ("C", 10.732)]
    # a hand seen a frame late takes the first free sound, even when a later one is nearer its frame
    fused = fuse_audio([seen(1.040, "A")], [Onset(1.005, 30.0, 0.0005), Onset(1.038, 30.0, 0.0005)], frame_s=FRAME)
    assert [s.t for s in fused] == [1.005]
    # without a sound near its frame, a hand keeps taking the first free one (the video may be that late)
    fused = fuse_audio([seen(1.040, "A")], [Onset(0.960, 30.0, 0.0005)], frame_s=FRAME)
    assert [s.t for s in fused] == [0.960]


def test_hands_down_in_one_frame_take_their_sounds_in_the_order_they_came_to_rest() -> None:
    """TM-1/TM-3: two hands first seen down in frame 88 with sounds 28 ms apart. The one whose wrist was at rest a
    frame sooner landed first and takes the first sound; arms from opposite sides of the pile cannot be told
    apart that way (the later hand's fingers reach over the first one's wrist): both keep the doubt."""
    from vision.audio import Onset

    def seen(player: str, landed_by: float, arm_from: tuple[float, float], frame: int = 88) -> SlapSeen:
        return SlapSeen(frame * FRAME, "center", player, FRAME, frame, frame * FRAME, landed_by=landed_by,
                        arm_from=arm_from)

    onsets = [Onset(2.9627, 30.0, 0.0005), Onset(2.9907, 30.0, 0.0005)]
    left, below, right = (-1.0, 0.0), (0.0, 1.0), (1.0, 0.0)
    for order in ([seen("A", 3.0, below), seen("B", 89 * FRAME, left)],
                  [seen("B", 89 * FRAME, left), seen("A", 3.0, below)]):
        fused = fuse_audio(order, onsets, frame_s=FRAME)
        assert [(s.player, s.t) for s in fused] == [("B", 2.9627), ("A", 2.9907)]
        assert max(s.t_err for s in fused) < 0.001
    fused = fuse_audio([seen("C", 3.0, right), seen("B", 89 * FRAME, left)], onsets, frame_s=FRAME)
    assert all(s.t_err >= 0.028 for s in fused)
    # seen a frame early (frame 88 against 89), the hand still settling after the other is at rest is the later one
    fused = fuse_audio([seen("A", 3.0, below), seen("B", 89 * FRAME, left, frame=89)], onsets, frame_s=FRAME)
    assert [(s.player, s.t) for s in fused] == [("B", 2.9627), ("A", 2.9907)]
    # a hand is down by the frame after which it stopped: a sound well after that is another hand's
    fused = fuse_audio([seen("B", 89 * FRAME, left, frame=89)], [Onset(2.9907, 30.0, 0.0005)], frame_s=FRAME)
    assert fused[0].source == "video"


@pytest.mark.parametrize("a_slapped", [True, False])
def test_a_sound_late_for_a_hand_at_rest_goes_to_a_hand_on_another_pile_still_moving_then(a_slapped: bool) -> None:
    """SN-4/TM-3 (rendered Snap 4p s11 at 18.5 s): B slapped A's pile at 18.494 s and D D's own pile 7 ms later, one
    sound for both; A slapped A's pile at 18.515 s. D's hand was at rest by 18.50 s and took A's sound, 15 ms late
    for it, leaving A none (its only one) and putting D 21 ms after B: "Snap, jacks! B takes 7 cards" where the
    truth made a Snap Pot. A sound more than LATE_SOUND_S after a hand came to rest, the only one left for a hand on
    another pile still moving then, is that hand's; the first keeps its video time and doubt (TM-3: no order with
    B). Without such a hand, the late sound is still the first hand's."""
    from vision.audio import Onset

    def seen(zone: str, player: str, frame: int, t_video: float, landed_by: float) -> SlapSeen:
        return SlapSeen(t_video, zone, player, 0.0533, frame, t_video, landed_by=landed_by, t_frame=frame * FRAME)

    onsets = [Onset(18.494, 40.0, 0.0009), Onset(18.515, 40.0, 0.0005), Onset(18.576, 40.0, 0.0006)]
    hands = [seen("pile:A", "B", 554, 18.5067, 18.5333), seen("pile:D", "D", 555, 18.5, 18.5)]
    if a_slapped:
        hands.append(seen("pile:A", "A", 555, 18.52, 18.5333))
    fused = {s.player: s for s in fuse_audio(hands, onsets, frame_s=FRAME)}
    assert fused["B"].t == 18.494
    if a_slapped:
        assert fused["A"].t == 18.515 and fused["D"].source == "video"
        assert abs(fused["D"].t - fused["B"].t) < fused["D"].t_err  # (no order between B and D)
    else:
        assert fused["D"].t == 18.515


def test_of_hands_from_opposite_sides_down_in_one_frame_the_one_over_the_centre_sooner_came_first() -> None:
    """TM-1/TM-3, Snap 4p s12 at 12.46 s: D (from the right) and B (from the left) both first show down on C's pile
    in frame 374, their wrists at rest from the same frame; across a pile that cannot tell. But D's edge was over
    the pile's centre a frame sooner (12.433 s; B's at 12.467 s): D came down first (12.456 s) and takes the first
    sound, B (12.498 s) the second, with no doubt left. Over the centre in the same frame, D's edge still came in a
    frame ahead of B's (:func:`vision.slaps.approach_time`); coming in alike as well, they keep the doubt."""
    from types import SimpleNamespace

    from vision.audio import Onset
    from vision.slaps import Corridor, SlapDetector

    def corridor(player: str, fronts: list[float]) -> Corridor:
        c = Corridor("pile:C", player, np.zeros((53, 4), np.float32), np.zeros((53, 4), np.float32), 41, 35, 3.0)
        c.past.extend(((370 + i) * FRAME, f, 53.0) for i, f in enumerate(fronts))
        return c

    rules = SimpleNamespace(fps=FPS, min_step=6.0, creep_rows=3.0)
    d = SlapDetector._contact(rules, corridor("D", [19, 24, 32, 44, 46, 46]), 374)
    b = SlapDetector._contact(rules, corridor("B", [-1, 18, 21, 29, 46, 46]), 374)
    assert d.frame == b.frame == 374 and d.t_frame == b.t_frame == pytest.approx(374 * FRAME)
    assert d.at_centre == pytest.approx(373 * FRAME) and b.at_centre == pytest.approx(374 * FRAME)
    onsets = [Onset(12.456, 30.0, 0.0005), Onset(12.498, 30.0, 0.0005)]

    def down(s: SlapSeen, arm_from: tuple[float, float]) -> SlapSeen:
        return dataclasses.replace(s, landed_by=375 * FRAME, arm_from=arm_from)

    right, left = (1.0, 0.0), (-1.0, 0.0)
    for order in ([down(b, left), down(d, right)], [down(d, right), down(b, left)]):
        fused = fuse_audio(order, onsets, frame_s=FRAME)
        assert [(s.player, s.t) for s in fused] == [("D", 12.456), ("B", 12.498)]
        assert max(s.t_err for s in fused) < 0.001
    # over the centre in the same frame, D's edge was still coming in a frame ahead (approach_time): D was first
    assert b.t_approach - d.t_approach == pytest.approx(FRAME)
    fused = fuse_audio([down(b, left), dataclasses.replace(down(d, right), at_centre=b.at_centre)], onsets,
                       frame_s=FRAME)
    assert [(s.player, s.t) for s in fused] == [("D", 12.456), ("B", 12.498)]
    # coming in alike as well, they keep the doubt
    fused = fuse_audio([down(b, left), dataclasses.replace(down(d, right), at_centre=b.at_centre,
                                                           t_approach=b.t_approach)], onsets, frame_s=FRAME)
    assert all(s.t_err >= 0.04 for s in fused)


def test_approach_time_reads_which_of_two_hands_down_in_one_frame_came_first() -> None:
    """TM-1/TM-3, rendered Slapjack 3p s7 at 7.40 s: A's and C's hands 26 ms apart, both first seen down in frame
    222, their wrists at rest alike. The frame before, A's edge was 11 rows short of its pile's centre and coming
    9 rows a frame, C's 13 rows short at 6 a frame: A got there 0.8 frame sooner, and A landed first. A hand not
    seen coming in over two frames has no such time; a slow last step counts for at most 1.5 frames."""
    from vision.slaps import approach_time

    times = [(218 + i) * FRAME for i in range(5)]
    a = approach_time([8, 10, 17, 26, 42], times, 4, 37)
    c = approach_time([-1, 18, 22, 28, 46], times, 4, 41)
    assert (c - a) / FRAME == pytest.approx((13 - 4) / 6 - (11 - 4) / 9)
    assert approach_time([-1, -1, -1, 26, 42], times, 4, 37) is None
    assert approach_time([8, 25, 26, 26.5, 42], times, 4, 41) == pytest.approx(times[3] + 1.5 * FRAME)
    assert approach_time([8, 20, 30, 45, 46], times, 4, 37) == pytest.approx(times[3])  # past it already


def test_of_several_sounds_a_hand_takes_the_one_its_approach_says_and_a_hand_over_its_pile_the_one_it_settled_on(
) -> None:
    """TM-1, SN-3 (rendered Snap 4p s12 12.08 s): C hit C's own pile at 12.082 s and A's pile with the other hand at
    12.113 s. The hand on A's pile, first seen down at 12.100 s and coming in as if to land at about 12.109 s, takes
    12.113 s, not the first sound. C's hand on C's own pile had been past its centre for frames (its edge shows no
    landing); its wrist was still moving into the frame of the 12.082 s sound and at rest two frames later: that
    sound was its slap (``hand_for_sound``). A hand over its pile whose wrist was already still, or that settles only
    later, is not."""
    from types import SimpleNamespace

    from vision.audio import Onset
    from vision.slaps import APPROACH_LAG, Corridor, SlapDetector

    on_a = SlapSeen(363 * FRAME, "pile:A", "C", FRAME, 363, 363 * FRAME, t_approach=12.109 - APPROACH_LAG * FRAME)
    fused = fuse_audio([on_a], [Onset(12.082, 45.0, 0.0005), Onset(12.113, 45.0, 0.0005)], frame_s=FRAME)
    assert fused[0].t == 12.113
    first = fuse_audio([dataclasses.replace(on_a, t_approach=None)], [Onset(12.082, 45.0, 0.0005),
                                                                       Onset(12.113, 45.0, 0.0005)], frame_s=FRAME)
    assert first[0].t == 12.082  # (without the approach: the first, as before)

    def corridor(player: str, wrist: list[float]) -> Corridor:
        c = Corridor("pile:C", player, np.zeros((31, 4), np.float32), np.zeros((31, 4), np.float32), 19, 11, 8.0)
        for k, w in enumerate(wrist):
            c.past.append(((359 + k) * FRAME, 24.0, 31.0))
            c.wrist.append((359 + k, (359 + k) * FRAME, w))
        return c

    own = corridor("C", [4.7, 1.2, 6.1, 5.2, 1.6, 0.6, 0.0, 0.0])  # frames 359-366: 12.033 s 6.1, 12.133 s 0.6
    rules = SimpleNamespace(fps=FPS, still_rows=1.5, slap_zones={"pile:C"}, closed=set(), corridors=[own])
    rules.slappable = lambda zone: SlapDetector.slappable(rules, zone)
    assert SlapDetector._came_to_rest_at(rules, 12.082, set()) is own
    assert SlapDetector._came_to_rest_at(rules, 12.082, {("pile:C", "C")}) is None
    rules.corridors = [corridor("C", [0.3, 0.2, 0.4, 0.2, 0.1, 0.0, 0.0, 0.0])]  # at rest all along
    assert SlapDetector._came_to_rest_at(rules, 12.082, set()) is None
    rules.corridors = [corridor("C", [4.7, 1.2, 6.1, 5.2, 6.0, 5.5, 6.2, 0.0])]  # settles 0.1 s later
    assert SlapDetector._came_to_rest_at(rules, 12.082, set()) is None
    rules.corridors = [own, corridor("D", [4.7, 1.2, 6.1, 5.2, 1.6, 0.6, 0.0, 0.0])]  # two alike: whose?
    assert SlapDetector._came_to_rest_at(rules, 12.082, set()) is None


def test_the_contact_of_a_hand_landing_among_others_is_its_last_fast_step() -> None:
    """SJ-2/TM-1: Slapjack seed 12, A's hand lands on a pile B's hand already covers: its edge comes in fast
    (14, 25, 38 rows) and then creeps (40, 41) over B's fingers. That is a slap, in contact at the fast step; a
    hand that lays a card comes in slowly, jumps once (the card's edge) and creeps, and is none."""
    from vision.slaps import contact_step

    assert contact_step([14, 25, 38, 40, 41], min_step=6, creep_rows=3) == 2
    assert contact_step([10, 20, 30, 32], min_step=6, creep_rows=3) == 3  # one small step: the last one moved
    assert contact_step([23, 24, 25, 37, 39, 40], min_step=6, creep_rows=3) is None  # A dealing, seed 238, 0.4 s
    assert contact_step([14, 25, 38, 41, 44], min_step=6, creep_rows=3) is None  # crept too far: laying down
    assert contact_step([-1, 25, 38], min_step=6, creep_rows=3) is None  # appeared at once


def test_a_hand_seen_in_two_frames_only_is_a_slap_when_an_impact_was_heard_with_it() -> None:
    """SN-3/TM-1: a player's hand on their own pile, just before them, may show in two frames only (rendered Snap 4p
    s11 10.47 s: rows 2 -> 23, another hand on the pile 3 ms later; three fronts were asked for and it was missed).
    Such a quick arrival is a slap only where an impact was heard within 20 ms, taken by the other hand or not;
    an arm that appears at once, or one that was already coming in, is no quick arrival."""
    from vision.audio import Onset
    from vision.slaps import quick_step, unheard_quick

    assert quick_step([-1, 2, 23], min_step=6)
    assert quick_step([2, 23], min_step=6)
    assert not quick_step([-1, 23], min_step=6)  # (appeared at once)
    assert not quick_step([-1, 2, 12], min_step=6)  # (a short stride: a hand laying a card)
    assert not quick_step([1, 2, 23], min_step=6)  # (moving the frame before: contact_step's to judge)
    quick = SlapSeen(10.4733, "pile:A", "A", 0.033, 314, 10.4733, quick=True)
    seen = SlapSeen(10.4680, "pile:A", "C", 0.033, 314, 10.4680)
    heard = [Onset(10.468, 30.0, 0.0005)]
    assert unheard_quick([seen, quick], heard) == [seen, quick]
    assert unheard_quick([seen, quick], [Onset(10.52, 30.0, 0.0005)]) == [seen]
    assert unheard_quick([seen, quick], []) == [seen]


def test_a_second_hand_on_a_pile_the_first_arm_still_covers_is_a_slap(tmp_path) -> None:
    """SN-3 (snap_by_slap)/TM-1: Snap seed 12, C slaps B's pile at 3.760 and, 84 ms later, C's own pile with the
    other hand. C's first arm had passed over C's pile, so its strip never went idle; the second hand still comes in
    fast from C's side over a pile where nothing else moves, and stays. It is found, in C's name, within a frame;
    the hands that lay cards and take piles in those seconds are still none."""
    sc = make_script("snap", ["A", "B", "C"], 12, seconds=4.3)
    game = render_game(tmp_path / "snap12.mp4", script=sc, audio=False)
    lay = Layout.load(game.layout)
    shown = [(math.ceil(e.t * FPS) / FPS, e.zone) for e in sc.events if e.type == "card"]
    piles = sorted(z for z in lay.zones if z.startswith("pile:"))
    found = slaps_in_video(str(game.video), lay, piles, use_audio=False, cards=shown)
    truth = [s for s in sc.slaps if s[0] < 4.1]
    assert (3.844, "C", "pile:C") in truth
    pairs = match(found, truth)
    assert all(f is not None for _, f in pairs), pairs
    assert len(found) == len(truth), found
    second = dict(pairs)[(3.844, "C", "pile:C")]
    assert abs(second.t - 3.844) <= FRAME


def test_one_players_two_hands_on_two_piles_on_one_line_are_two_slaps() -> None:
    """SN-3/TM-1: in a 4-player Snap game D slaps C's pile and D's own, nearer pile on the same line from D's
    shoulder, one with each hand, in the same frame (rendered Snap 4p s238 17.077 s). An arm reaching over the
    near pile to the far one would cover the near pile's strip to its far end; a hand that stopped on the near pile
    leaves the strip's end bare (reach 31 of 37 rows): both are slaps. With the strip covered to its end, only the
    far one is."""
    from vision.slaps import SlapDetector

    sc = make_script("snap", ["A", "B", "C", "D"], 238, seconds=1.0)
    lay = sc.layout
    det = SlapDetector(lay, sorted(z for z in lay.zones if z.startswith("pile:")), FPS)
    near, far = ([c for c in det.corridors if c.zone == z and c.player == "D"][0] for z in ("pile:D", "pile:C"))
    assert float(np.dot(near.u, far.u)) > 0.97 and far.dist > near.dist  # (one line from D's shoulder)
    t = 17.067

    def given(near_reach: float) -> list[str]:
        near.past.clear()
        near.past.append((t, 30.0, near_reach))
        det._given.clear()
        det._held = [(SlapSeen(t, z, "D", FRAME, 512, t), c, False) for z, c in (("pile:D", near), ("pile:C", far))]
        return sorted(s.zone for s in det.finish())

    assert given(31.0) == ["pile:C", "pile:D"]
    assert given(float(len(near.map_x))) == ["pile:C"]


@pytest.mark.parametrize(("to_far_end", "far_player", "far_after", "want"), [
    (True, "A", 0.1, True),  # A's arm over A's pile, its hand down on B's 0.1 s later: on its way there
    (False, "A", 0.1, False),  # the strip's far end bare: a hand that stopped on A's pile
    (True, "B", 0.1, False),  # the farther hand is another player's
    (True, "A", -0.03, False),  # the farther hand came down first
    (True, "A", 0.25, False),  # too long after to be the same reach
])
def test_a_silent_arm_over_a_nearer_pile_on_its_way_to_a_farther_one_went_on(to_far_end: bool, far_player: str,
                                                                             far_after: float, want: bool) -> None:
    """SN-3/TM-1: in a 2-player Snap game A's arm crosses A's own pile to slap B's, on one line from A's shoulder
    (rendered Snap 2p s238 12.87 s): the arm covers the near pile's strip to its far end and stops a moment there,
    which the arrival rules took for a slap, 0.1 s before the hand came down on B's pile. ``went_on`` says so; the
    watcher drops such an arrival when it made no sound and the farther hand did."""
    from vision.slaps import SlapDetector

    sc = make_script("snap", ["A", "B"], 238, seconds=1.0)
    det = SlapDetector(sc.layout, ["pile:A", "pile:B"], FPS)
    near_c, far_c = ([c for c in det.corridors if c.zone == z and c.player == "A"][0] for z in ("pile:A", "pile:B"))
    assert float(np.dot(near_c.u, far_c.u)) > 0.97 and far_c.dist > near_c.dist  # (one line from A's shoulder)
    t = 12.867
    near = SlapSeen(t, "pile:A", "A", FRAME, 386, t, to_far_end=to_far_end)
    far_zone = "pile:B" if far_player == "A" else "pile:A"
    far = SlapSeen(t + far_after, far_zone, far_player, 0.001, 389, t + far_after, source="audio+video")
    assert det.went_on(near, [far]) is want


def test_an_arm_whose_sleeve_matches_the_table_still_holds_the_pile_by_its_forearm() -> None:
    """SJ-2/TM-1: rendered Slapjack 4p s11 at 9.13 s, D's pale sleeve on the grey cloth (within 10 grey levels):
    once D's arm stops, only the hand and forearm show changed, from row 13 of the strip on, and the reach from the
    strip's outer end fell to 0 (the slap was lost and its sound given to A). After a frame covered from the seat's
    side, a run of changed rows through the zone's centre going back along the strip beyond the zone's near edge
    (a forearm) still holds it; a palm alone, or nothing over the centre, does not."""
    from vision.slaps import SlapDetector

    sc = make_script("slapjack", ["A", "B", "C", "D"], 11, seconds=1.0)
    det = SlapDetector(sc.layout, ["center"], FPS)
    c = next(c for c in det.corridors if c.player == "D")
    rows, cols = c.map_x.shape

    def fg(first_row: int, centre: bool = True) -> np.ndarray:
        out = np.zeros((rows, cols), bool)
        out[first_row:] = True
        if not centre:
            out[c.s_centre - 1:c.s_centre + 2] = False
        return out

    assert c.s_edge - 10 >= 13  # (the forearm from row 13 reaches beyond the zone's edge by more than 10 rows)
    assert det._reach(fg(13)) == 0.0
    assert det._held_reach(fg(13), c) == rows
    assert det._held_reach(fg(c.s_edge - 4), c) == 0.0  # the palm and wrist alone
    assert det._held_reach(fg(13, centre=False), c) == 0.0

    # frame by frame: D's arm comes in over three frames (its moving sleeve shows), then rests with only the hand and
    # forearm showing: a slap by D, in contact in the last frame its edge came in
    def frame(first_row: int, last_row: int) -> np.ndarray:
        img = np.full((720, 1280, 3), 190, np.uint8)
        for r in range(first_row, last_row):
            for x, y in zip(c.map_x[r], c.map_y[r], strict=True):
                cv2.circle(img, (int(x / SCALE), int(y / SCALE)), 5, (90, 120, 200), -1)
        return img

    import cv2

    from vision.slaps import SCALE

    det = SlapDetector(sc.layout, ["center"], FPS)
    c = next(c for c in det.corridors if c.player == "D")
    film = [frame(0, 0)] * 3 + [frame(0, 12), frame(0, 26), frame(0, c.s_centre + 6)] + [frame(13, rows)] * 8
    found = [s for i, img in enumerate(film) for s in det.update(i, i / FPS, img)] + det.finish()
    assert [(s.player, s.frame) for s in found] == [("D", 5)]


def _b_arm_over_the_centre() -> tuple:
    """A 2-player Slapjack table's slap detector, B's corridor to the centre, and ``frame(last_row, sleeve)``: a
    frame with B's sleeve drawn over that corridor's first ``last_row`` rows (an arm reaching that far)."""
    import cv2

    from vision.slaps import SCALE, SlapDetector

    sc = make_script("slapjack", ["A", "B"], 12, seconds=1.0)
    det = SlapDetector(sc.layout, ["center"], FPS)
    c = next(c for c in det.corridors if c.player == "B")

    def frame(last_row: int, sleeve: tuple[int, int, int] = (90, 120, 200)) -> np.ndarray:
        img = np.full((720, 1280, 3), 190, np.uint8)
        for r in range(last_row):
            for x, y in zip(c.map_x[r], c.map_y[r], strict=True):
                cv2.circle(img, (int(x / SCALE), int(y / SCALE)), 5, sleeve, -1)
        return img

    return det, c, frame


def test_a_hand_that_came_short_of_the_centre_and_went_back_has_left_the_pile_and_may_slap_at_once() -> None:
    """SJ-2/TM-3: rendered Slapjack 2p s12 at 6.89 s: B's hand came over the pile, stopped short and drew back short
    of its centre (no slap), then came in fast and slapped, 1 ms before A: the arrival rules kept B "on" the pile
    after the first stop, so the slap was never looked for, A took the pile and the tie (TM-3) was lost. A hand
    whose reach falls short of the centre as it stops has left the pile; its next arrival is a slap like any."""
    det, c, frame = _b_arm_over_the_centre()
    rows = c.map_x.shape[0]
    # (drawing back, the arm moves all along its length: its shading changes)
    short, over = c.s_centre - 6, min(rows, c.s_centre + 8)
    film = [frame(0)] * 3 + [frame(12), frame(24), frame(c.s_centre + 4), frame(short, (60, 90, 160)), frame(over)] \
        + [frame(over)] * 8
    found = [s for i, img in enumerate(film) for s in det.update(i, i / FPS, img)] + det.finish()
    assert [(s.player, s.frame) for s in found] == [("B", 7)]


def test_a_sound_no_slap_seen_took_goes_to_the_hand_that_came_in_fast_and_stayed() -> None:
    """TM-1/SN-3: Snap seed 5 (two players), A hit B's pile and then, 100 ms later, A's own pile with the other hand,
    under the first arm: the video's arrival rules miss it, the impact is heard. In A's own-pile strip the edge
    came in 14, 15, 23 rows and stayed over the pile: that hand, and no other, is the sound's."""
    from vision.slaps import SlapDetector

    sc = make_script("snap", ["A", "B"], 5, seconds=1.0)
    det = SlapDetector(sc.layout, ["pile:A", "pile:B"], FPS)
    mine = next(c for c in det.corridors if (c.zone, c.player) == ("pile:A", "A"))
    others = [c for c in det.corridors if c is not mine]
    k = mine.s_centre + 5  # the reach: over the pile's centre
    c0 = mine.s_centre  # (18 rows from the table's edge there: the edge came in 14, 15, 23)
    for i, f in enumerate([-1, c0 - 4, c0 - 3, c0 + 5, c0 + 5, c0 + 4, c0 + 5]):
        t = 6.267 + i / FPS
        mine.past.append((t, float(f), float(k)))
        for c in others:  # the other strips: nothing comes in
            c.past.append((t, -1.0, 0.0))
    assert det.hand_for_sound(6.375, set()) is mine
    assert det.hand_for_sound(6.375, {("pile:A", "A")}) is None  # that hand already has its slap
    assert det.hand_for_sound(6.10, set()) is None  # no hand came in then
    twin = others[0]  # two hands coming in alike: the sound cannot say whose
    twin.past.clear()
    shift = twin.s_centre - c0
    twin.past.extend((t, f + shift if f >= 0 else f, float(twin.s_centre + 5)) for t, f, _ in mine.past)
    assert det.hand_for_sound(6.375, set()) is None
    mine.past.extend((6.267 + i / FPS, float(c0 + 5), float(c0 - 3)) for i in range(7, 9))
    left = [(t, f, r if t < 6.375 else float(mine.s_centre - 3)) for t, f, r in mine.past]
    mine.past.clear()
    mine.past.extend(left)
    twin.past.clear()
    assert det.hand_for_sound(6.375, set()) is None  # the hand went on: it did not stay on the pile
    mine.past.clear()
    mine.past.extend((t, f if f < 0 else min(f, c0 - 1), float(k)) for t, f, _ in left)
    assert det.hand_for_sound(6.375, set()) is None  # its edge stopped short of the centre (a nearer spot)


def test_no_slap_on_the_snap_pot_while_there_is_none(tmp_path) -> None:
    """SN-3/SN-4: the pot is slapped only from the Snap Pot that makes it to the verdict that takes it. In rendered
    Snap 3p s11 B slaps A's pile at 1.394 s and A slaps B's 9 ms later: their arms cross over the middle of the table,
    where the pot would lie. Looked for there, an arm stopping over the pot's place is taken for a slap on it; with
    the pot closed (no pot yet) the same frames give the four pile slaps and none on the pot."""
    sc = make_script("snap", ["A", "B", "C"], 11, seconds=2.0)
    game = render_game(tmp_path / "snap11.mp4", script=sc, audio=False)
    lay = Layout.load(game.layout)
    assert "pot" in lay.zones
    shown = [(math.ceil(e.t * FPS) / FPS, e.zone) for e in sc.events if e.type == "card"]
    zones = sorted(z for z in lay.zones if z.startswith("pile:")) + ["pot"]
    closed = slaps_in_video(str(game.video), lay, zones, use_audio=False, cards=shown, closed={"pot"})
    assert not [s for s in closed if s.zone == "pot"], closed
    truth = [s for s in sc.slaps if s[0] < 1.6]
    found = {t: f for t, f in match(closed, truth)}
    # (A's hand on B's pile under B's arm is not told from it by the video alone: the audit gives it its sound)
    assert [t for t, f in found.items() if f is None] == [(1.403, "A", "pile:B")], closed
    assert len(closed) == len(truth) - 1
    opened = slaps_in_video(str(game.video), lay, zones, use_audio=False, cards=shown)
    assert [s for s in opened if s.zone == "pot"], opened  # (what closing it is for)


def test_the_snap_pot_is_slapped_from_the_snap_pot_verdict_to_the_one_that_takes_it() -> None:
    """SN-4: the audit opens the pot to slaps when the referee says Snap Pot (the piles it merged may show cards
    again) and closes it when the pot is won; verdicts about the piles leave it as it is."""
    from engine.verdicts import POT_GONE, VERDICT_KINDS
    from models.detector import Detections
    from vision.watcher import TableWatcher

    sc = make_script("snap", ["A", "B", "C"], 11, seconds=1.0)
    w = TableWatcher(sc.layout, "snap", lambda crop: Detections(), float(FPS))
    assert "pot" in w.slapper.slap_zones and not w.slapper.slappable("pot") and w.slapper.slappable("pile:A")
    assert {"snap_pot", "snap", *POT_GONE} <= set(VERDICT_KINDS)
    w.ruled({"t": 2.0, "type": "verdict", "kind": "snap", "player": "A", "piles": ["B"]})
    assert not w.slapper.slappable("pot")
    w.ruled({"t": 3.0, "type": "verdict", "kind": "snap_pot", "piles": ["A", "C"]})
    assert w.slapper.slappable("pot")
    w.ruled({"t": 4.0, "type": "verdict", "kind": "false_snap", "player": "B"})
    assert w.slapper.slappable("pot")
    w.ruled({"t": 5.0, "type": "verdict", "kind": "pot_won", "player": "C"})
    assert not w.slapper.slappable("pot")


@pytest.mark.parametrize("held", [True, False])
def test_a_slapped_top_read_wrong_renames_its_card_line_while_it_is_held_back(held: bool) -> None:
    """SJ-2 (rendered Slapjack 3p s238 14.3 s): the pile's top, logged AS from unsure reads, is read JD surely at its
    very place just before B's slap (:attr:`CardSeen.misread`): the audit's held-back AS line becomes JD (read as AS,
    the evidence says), and no second card is logged, so B takes the five cards there are. Live, a line is out as
    soon as it is confirmed: it stands, and JD is logged as laid on it."""
    from models.detector import Detections
    from vision.tracking import CardSeen
    from vision.watcher import TableWatcher

    sc = make_script("slapjack", ["A", "B", "C"], 238, seconds=1.0)
    w = TableWatcher(sc.layout, "slapjack", lambda crop: Detections(), float(FPS), hold_s=1.6 if held else 0.0)
    tr = next(t for t in w.trackers if t.zone.name == "center")
    box = (603.3, 329.7, 705.3, 405.9)
    w._landed(tr, [CardSeen(14.3, "center", "AS", 0.556, 431, box, 14.37)])
    out = w._release(14.4)
    jd = CardSeen(14.3, "center", "JD", 0.9, 436, box, 14.57, misread="AS")
    assert w._top_read_wrong(tr, jd) == held
    if not held:
        w._landed(tr, [dataclasses.replace(jd, misread=None)])
    out += w._release(20.0)
    cards = [(e.card, e.t, (e.evidence or {}).get("read_as")) for e in out if e.type == "card"]
    assert cards == ([("JD", 14.3, "AS")] if held else [("AS", 14.3, None), ("JD", 14.3, None)])
    assert [c.card for c in w.cards] == (["JD"] if held else ["AS", "JD"])


@pytest.mark.parametrize(("game", "players", "seed"), [("snap", 2, 5), ("slapjack", 4, 11), ("snap", 3, 11)])
def test_a_slapping_hand_is_off_its_pile_before_the_next_card_is_laid_there(game: str, players: int,
                                                                              seed: int) -> None:
    """SN-3/SJ-2, what the renderer films: a hand resting on a pile after a slap leaves it before a card lands there
    (nobody lays a card under a hand). Rendered Snap 2p s5: B's false snap at 4.653 s rested on B's pile until the
    Snap Pot at 6.3 s, and B's 4D laid under it at 5.256 s was in the truth but never in sight."""
    sc = make_script(game, players, seed, seconds=20.0)
    landings = [(e.t, e.zone) for e in sc.events if e.type == "card"]
    slaps = [m for m in sc.motions if m.kind == "slap"]
    assert slaps
    for m in slaps:
        zone = next(z for t, p, z in sc.slaps if t == m.contact and p == m.player)
        lifted = m.keys[2][0]  # (approach, contact, held until, back at the seat)
        assert not [t for t, z in landings if z == zone and m.contact < t < lifted], (m.player, zone, m.contact)


def test_of_two_hands_down_in_one_frame_the_approach_outweighs_a_wrist_another_arm_crossed() -> None:
    """TM-1, SN-3 (rendered Snap 4p s6 3.76 s): D's hand hit B's pile at 3.755 s and A's 38 ms later; both first show
    down in the frame of 3.767 s. A's arm, coming in, crossed the strip outside the pile where D's wrist lay and kept
    it moving: the wrists say A came to rest first. Their approaches say D was 34 ms ahead, and neither pile is the
    hand's own: D takes the first sound. On a hand's own pile (it comes in unlike one from across) the wrists still
    decide."""
    from vision.audio import Onset

    def hand(player: str, zone: str, landed_by: float, t_approach: float, arm_from: tuple[float, float]) -> SlapSeen:
        return SlapSeen(113 * FRAME, zone, player, FRAME, 113, 113 * FRAME, landed_by=landed_by, arm_from=arm_from,
                        at_centre=113 * FRAME, t_approach=t_approach)

    sounds = [Onset(3.7553, 44.0, 0.0005), Onset(3.7929, 47.0, 0.0005)]
    for zone, first in (("pile:B", "D"), ("pile:D", "A")):
        d = hand("D", zone, 116 * FRAME, 112 * FRAME, (0.999, 0.046))
        a = hand("A", zone, 114 * FRAME, 113 * FRAME, (0.231, 0.973))
        fused = fuse_audio([a, d], sounds, frame_s=FRAME)
        assert [s.player for s in fused] == [first, "A" if first == "D" else "D"], zone
        assert fused[0].t == 3.7553


def test_hands_leaving_after_a_snap_pot_and_the_next_card_coming_are_no_slaps(tmp_path) -> None:
    """SN-4/TM-2: rendered Snap 2p s5, after the Snap Pot of 6.27-6.38 s. A's hand, resting on B's pile under B's
    since, shows again as B's lifts, sweeps back over the pile and is gone the next frame: its wrist is as still as a
    resting one's, but no hand is there (was a slap of A's at 6.81 s). B's next card (QC, shown at 7.30 s) is brought
    down over B's pile 367 ms before it shows: the hand that lays it, not a slap (was one at 6.95 s)."""
    sc = make_script("snap", ["A", "B"], 5, seconds=7.6)
    game = render_game(tmp_path / "snap5.mp4", script=sc, audio=False)
    lay = Layout.load(game.layout)
    shown = [(math.ceil(e.t * FPS) / FPS, e.zone) for e in sc.events if e.type == "card"]
    assert (7.3, "pile:B") in [(round(t, 3), z) for t, z in shown]
    zones = sorted(z for z in lay.zones if z.startswith("pile:"))
    found = slaps_in_video(str(game.video), lay, zones, use_audio=False, cards=shown)
    assert not [s for s in found if 6.5 < s.t < 7.6], found
    assert {(p, z) for _, p, z in sc.slaps} <= {(s.player, s.zone) for s in found}


@pytest.mark.parametrize("stays", [True, False])
def test_a_hand_whose_wrist_is_still_only_because_it_has_gone_did_not_slap(stays: bool) -> None:
    """SJ-2: a slap is a hand that comes to rest on the pile. A hand sweeping over the pile and gone the next frame
    leaves the wrist's strip as still as a resting hand (rendered Snap 2p s5 6.81 s: A's hand, under B's since their
    Snap Pot, swept back when B's lifted): the hand must still be over the pile when its wrist is first still."""
    det, c, frame = _b_arm_over_the_centre()
    over = min(c.map_x.shape[0], c.s_centre + 8)
    # (its front stopped over the centre while the arm still moved: its shading changes)
    film = [frame(0)] * 3 + [frame(12), frame(24), frame(over), frame(over, (60, 90, 160)), frame(over)] \
        + [frame(over if stays else 0)] * 8
    found = [s for i, img in enumerate(film) for s in det.update(i, i / FPS, img)] + det.finish()
    assert [(s.player, s.frame) for s in found] == ([("B", 5)] if stays else [])
