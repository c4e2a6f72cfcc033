"""What the referee says: spoken verdicts, silent anomalies and the outcome of a game."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

#: EVENTS.md verdict kinds (at least these; games may add their own)
VERDICT_KINDS: frozenset[str] = frozenset({
    "slap_won", "false_slap", "unresolved_tie", "snap", "snap_pot", "pot_won", "false_snap", "missed_snap",
    "legal_play", "illegal_play", "both_stuck", "challenge_true", "challenge_false", "count_mismatch",
    "late_challenge", "draw_penalty", "effect", "blocked_suit", "eliminated", "win", "draw", "anticipated",
})

#: kinds that get an earcon before their sentence and pre-empt stale callouts (issue 5); ``trigger`` is not a
#: ruling but the live assistant's call of a card that makes slapping right ("Jack!"), never logged as a verdict
URGENT_KINDS: frozenset[str] = frozenset({"snap", "slap_won", "false_slap", "pot_won", "snap_pot", "false_snap",
                                          "trigger"})


#: verdicts after which the Snap pot is off the table (taken, or the game won with it)
POT_GONE: frozenset[str] = frozenset({"pot_won", "win"})


def piles_moved(line: Mapping[str, Any], game: str) -> list[str]:
    """The zones a logged verdict line empties (their cards go to a player's stack or to the Snap pot): Slapjack's
    centre when a slap won it (SJ-2), Snap's matching piles when a snap or a Snap Pot took them (SN-3, SN-4)."""
    if line.get("type") != "verdict":
        return []
    if game == "slapjack" and line.get("kind") == "slap_won":
        return ["center"]
    if line.get("kind") in ("snap", "snap_pot"):
        return [f"pile:{p}" for p in line.get("piles", [])]
    return []


@dataclass(slots=True)
class Verdict:
    """A ruling, with the rule that decided it and the sentence to speak.

    ``voice`` is False for verdicts that are logged but not spoken (a legal Speed play is a short sound;
    an ``anticipated`` mark is for the audit). ``extra`` holds game-specific fields (``zone``, ``pile``,
    ``anticipated`` ...), written into the log line beside the EVENTS.md ones.
    """

    t: float
    kind: str
    rule: str
    say: str
    player: str | None = None
    to: str | None = None
    cards: int | None = None
    reaction_ms: float | None = None
    voice: bool = True
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def urgent(self) -> bool:
        return self.kind in URGENT_KINDS

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"t": round(self.t, 6), "type": "verdict", "kind": self.kind, "rule": self.rule}
        if self.player is not None:
            d["player"] = self.player
        if self.to is not None:
            d["to"] = self.to
        if self.cards is not None:
            d["cards"] = self.cards
        if self.reaction_ms is not None:
            d["reaction_ms"] = round(self.reaction_ms, 1)
        d.update(self.extra)
        d["say"] = self.say
        if not self.voice:
            d["voice"] = False
        return d


@dataclass(slots=True)
class Anomaly:
    """An observation that cannot happen. It changes nothing, is kept in the log, and is never spoken."""

    t: float
    reason: str
    event: dict[str, Any] | None = None
    rule: str | None = None
    line: int | None = None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"t": round(self.t, 6), "type": "anomaly", "reason": self.reason}
        if self.rule is not None:
            d["rule"] = self.rule
        if self.line is not None:
            d["line"] = self.line
        if self.event is not None:
            d["event"] = self.event
        return d


Output = Verdict | Anomaly


@dataclass(slots=True, frozen=True)
class Outcome:
    """How a game ended: a winner (None for a draw), the reason in words, and the deciding rule."""

    winner: str | None
    reason: str
    rule: str
    t: float


class Impossible(Exception):  # noqa: N818 - it names the situation, like StopIteration
    """Raised by a referee's ``apply`` *before* it changes anything: the event cannot happen."""

    def __init__(self, reason: str, rule: str | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.rule = rule
