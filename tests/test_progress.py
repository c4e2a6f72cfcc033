"""The progress line of the long jobs (models.progress): a bar in place on a terminal, plain lines elsewhere."""

from __future__ import annotations

import io

from models.progress import PLAIN_EVERY_S, PLAIN_STEPS, Progress


class Clock:
    """A clock the test moves by hand (the progress line is paced by time)."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_off_a_terminal_a_long_job_writes_a_plain_line_each_tenth_not_a_carriage_return_per_update():
    out, clock = io.StringIO(), Clock()
    bar = Progress(1000, "audit", "frames", stream=out, tty=False, clock=clock)
    for _ in range(1000):
        clock.now += 0.01
        bar.update(note=" (2.00x real time)")
    bar.close()
    text = out.getvalue()
    lines = text.splitlines()
    assert "\r" not in text and text.endswith("\n")
    assert len(lines) == PLAIN_STEPS  # (the last tenth's line is the end's: not written twice)
    assert lines[0].startswith("audit 100/1000 [###...") and "100.0 frames/s (2.00x real time) ETA 0:09" in lines[0]
    assert lines[-1].startswith("audit 1000/1000 [" + "#" * 30 + "]") and "ETA" not in lines[-1]


def test_off_a_terminal_a_job_stopped_early_says_where_it_stopped():
    out, clock = io.StringIO(), Clock()
    bar = Progress(600, "audit", "frames", stream=out, tty=False, clock=clock)
    for _ in range(250):
        clock.now += 0.1
        bar.update()
    bar.close(" (0.90x real time)", done=250)
    lines = out.getvalue().splitlines()
    assert len(lines) == 5  # 60, 120, 180, 240 and the stop
    assert lines[-1].startswith("audit 250/600 [############......")
    assert lines[-1].endswith("(0.90x real time) ETA 0:35")


def test_off_a_terminal_a_job_of_unknown_length_writes_a_line_every_half_minute():
    out, clock = io.StringIO(), Clock()
    bar = Progress(None, "audit", "frames", stream=out, tty=False, clock=clock)
    for _ in range(3000):  # 100 s at 30 updates a second
        clock.now += 1 / 30
        bar.update()
    bar.close()
    lines = out.getvalue().splitlines()
    assert len(lines) == int(100 // PLAIN_EVERY_S) + 1 + 1  # the first update's, one each 30 s, the end's
    assert lines[-1] == "audit 3000 frames 30.0 frames/s"


def test_on_a_terminal_the_bar_is_redrawn_in_place_a_few_times_a_second_and_ended_with_a_newline():
    out, clock = io.StringIO(), Clock()
    bar = Progress(200, "synth", "img", stream=out, tty=True, clock=clock)
    for _ in range(200):
        clock.now += 0.01  # 2 s in all
        bar.update()
    bar.close()
    text = out.getvalue()
    assert text.count("\n") == 1 and text.endswith("\n")
    draws = text.count("\r")
    assert 8 <= draws <= 11  # every 0.25 s, the end and the close
    assert text.rstrip("\n").split("\r")[-1].startswith("synth 200/200 [" + "#" * 30 + "] 100.0 img/s")


def test_a_progress_line_not_asked_for_writes_nothing():
    out = io.StringIO()
    bar = Progress(10, "synth", stream=out, enabled=False)
    for _ in range(10):
        bar.update()
    bar.close()
    assert out.getvalue() == ""


def test_whether_the_stream_is_a_terminal_is_asked_of_the_stream():
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    assert Progress(5, "x", stream=Terminal()).tty
    assert not Progress(5, "x", stream=io.StringIO()).tty
