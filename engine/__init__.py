"""tablecam's rules engine: pure referees for Snap, Slapjack, Speed, Spit, Cheat and Pai Jie.

No I/O, no clock, no imports from the rest of tablecam: events in, verdicts out.
"""

from engine.events import Event, GameHeader, LogFormatError, parse_line
from engine.referee import GameSetupError, Referee, advance, finish, step
from engine.verdicts import Anomaly, Outcome, Verdict

__all__ = [
    "Anomaly", "Event", "GameHeader", "GameSetupError", "LogFormatError", "Outcome", "Referee", "Verdict",
    "advance", "finish", "parse_line", "step",
]
