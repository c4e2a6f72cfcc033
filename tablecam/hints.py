"""When to say a hint (``tablecam live hints=true``, Speed and Spit): only once the table has gone quiet.

Pure logic on the times it is given (the live loop's video clock), no threads: :class:`HintTimer` is told the time
of every observation and asked, after each frame, whether a hint is due; :func:`speak_hint` logs the hint and
queues it as an ordinary (never urgent) callout, so any ruling pre-empts it and a stale hint is dropped unsaid.
What the hint says is ``engine.hints``' business.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.hints import HINT_GAMES, Hint, visible_hints
from engine.referee import Referee
from engine.verdicts import Verdict
from tablecam.callouts import Callout

__all__ = ["HINT_GAMES", "HintTimer", "speak_hint"]


class HintTimer:
    """A hint when nothing was observed for ``quiet_s`` seconds, at most one every ``repeat_s`` seconds, and never
    the same hint twice in a row (while the table stays as it is, the repeats go round its fitting plays in turn).

    One timer per table (one live game)."""

    def __init__(self, quiet_s: float = 4.0, repeat_s: float = 8.0) -> None:
        self.quiet_s = quiet_s
        self.repeat_s = repeat_s
        self.last_seen: float | None = None  # time of the latest observation; None: the game has not started
        self.last_said: float | None = None  # time of the latest hint
        self.last: Hint | None = None  # the latest hint

    def saw(self, t: float) -> None:
        """An observation at ``t`` (a card, a slap, a stuck claim ...): the table is not quiet."""
        if self.last_seen is None or t > self.last_seen:
            self.last_seen = t

    def due(self, now: float, referee: Referee) -> Hint | None:
        """The hint to say at ``now``, or None; a hint returned counts as said."""
        if self.last_seen is None or now - self.last_seen < self.quiet_s:
            return None
        if self.last_said is not None and now - self.last_said < self.repeat_s:
            return None
        hints = visible_hints(referee)
        if self.last in hints:  # the table is as it was: the next play in turn, never the same one again
            hints = hints[hints.index(self.last) + 1:] + hints[:hints.index(self.last)]
        if not hints:
            return None
        self.last, self.last_said = hints[0], now
        return hints[0]


def speak_hint(hint: Hint, t: float, player: Any, write: Callable[[dict[str, Any]], None]) -> Callout | None:
    """Log ``hint`` at ``t`` (a ``type: hint`` line) and queue it on ``player`` (a ``tablecam.audio_out.Player``)
    as an ordinary callout in the player's language: dropped unsaid when it cannot start within the policy's
    ordinary delay, and cut by any urgent ruling."""
    write(hint.to_dict(t))
    v = Verdict(t, "hint", hint.rule, hint.say, player=hint.player)
    return player.submit(v, text=hint.text(player.policy.lang))
