"""Reading and appending game logs (EVENTS.md JSON Lines) on disk.

The writer appends and flushes every line, so a crash loses at most the line being written; the reader
reports that torn last line and keeps every earlier one usable.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from engine.events import Event, GameHeader, LogFormatError, dumps, parse_line


@dataclass(slots=True)
class LogLine:
    """One line of a log: what it parsed to (None for blank and output lines) or why it could not."""

    number: int
    item: GameHeader | Event | None
    error: str | None = None
    torn: bool = False


def _lines(stream: IO[str]) -> Iterator[tuple[int, str, bool]]:
    """(number, text, ended_with_newline) for each line; streaming, never the whole file in memory."""
    for number, text in enumerate(stream, start=1):
        yield number, text.rstrip("\r\n"), text.endswith("\n")


def read_lines(stream: IO[str]) -> Iterator[LogLine]:
    """Parse a log stream line by line. Errors are returned, never raised."""
    for number, text, complete in _lines(stream):
        try:
            item = parse_line(text, number)
        except LogFormatError as e:
            if not complete:
                yield LogLine(number, None, f"torn last line (the writer stopped mid-line?): {e}", torn=True)
            else:
                yield LogLine(number, None, str(e))
            continue
        yield LogLine(number, item)


def open_log(path: str | Path) -> IO[str]:
    """Open a log for reading; ``-`` is standard input. Undecodable bytes become U+FFFD and then errors."""
    if str(path) == "-":
        return sys.stdin
    return open(path, encoding="utf-8", errors="replace", newline="")


class LogWriter:
    """Append-only JSON Lines writer: one ``write`` is one line, flushed (and optionally fsynced) at once."""

    def __init__(self, path: str | Path | IO[str], fsync: bool = False, fresh: bool = False) -> None:
        """``fresh`` starts a new file (a new game); otherwise lines are appended to what is there
        (a live log resumed after a crash)."""
        self._fsync = fsync
        if isinstance(path, str | Path) and str(path) != "-":
            p = Path(path)
            p.parent.mkdir(parents=True, exist_ok=True)
            torn = not fresh and p.exists() and p.stat().st_size > 0 and not _ends_with_newline(p)
            mode = "w" if fresh else "a"
            self._stream: IO[str] = open(p, mode, encoding="utf-8", newline="\n")  # noqa: SIM115 - held open
            self._owned = True
            if torn:  # never glue a new line onto a line a crash left unfinished
                self._stream.write("\n")
        else:
            self._stream = sys.stdout if isinstance(path, str | Path) else path
            self._owned = False

    def write(self, obj: dict[str, Any] | GameHeader | Event) -> None:
        d = obj if isinstance(obj, dict) else obj.to_dict()
        self._stream.write(dumps(d) + "\n")
        self._stream.flush()
        if self._fsync and self._owned:
            os.fsync(self._stream.fileno())

    def close(self) -> None:
        if self._owned:
            self._stream.close()

    def __enter__(self) -> LogWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _ends_with_newline(path: Path) -> bool:
    with open(path, "rb") as f:
        f.seek(-1, os.SEEK_END)
        return f.read(1) == b"\n"


def corrected_cards(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The ``card`` lines of a log as the camera finally read them: a line with ``misread`` (a zone's top read
    again, a look-alike read wrong before) renames the latest earlier card line on its zone that named that card,
    and is no card of its own. For counting cards against a ground truth (``bench/``)."""
    cards: list[dict[str, Any]] = []
    for d in lines:
        if d.get("type") != "card":
            continue
        was = d.get("misread")
        if was is None:
            cards.append(dict(d))
            continue
        earlier = next((c for c in reversed(cards) if c.get("zone") == d.get("zone") and c.get("card") == was), None)
        if earlier is not None:
            earlier["card"] = d.get("card")
    return cards
