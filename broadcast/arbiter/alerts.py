"""Arbiter events: alerts, their acknowledgement and updates, and players marked present
(by the arbiter, or checking in) or absent.

They are journal events like any other (`eventjson.to_json` writes an `Alert` as
`{"type": "alert", "kind": ...}`), so a restart replays them and the desk's view of what
was raised and acknowledged is a fold, not a memory.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from broadcast.arbiter.readers import BoardsUnheard
from broadcast.games.game_events import Colour
from broadcast.phrases import Phrase

Severity = Literal["info", "warning", "critical"]
SEVERITIES: tuple[Severity, ...] = ("info", "warning", "critical")

AlertKind = Literal[
    "late",  # a player is not at the board yet; the default time approaches
    "check-presence",  # zero default time: no sign of a player some minutes after the start
    "check-tables",  # the default time: tables without an e-board nobody has said who is at
    "withdraw-from-pairing",  # the section's no-show limit is reached
    "early-draw",  # a draw by agreement before the section's early-draw limit
    "board-not-responding",  # the driver lost the board, or it went silent
    "board-missing",  # system: a configured board has never connected (no such port?)
    "driver-fault",  # a software error stopped a board's driver; it is restarting
    "moves-to-check",  # a board's log could not fill an outage: moves may be missing
    "bus-polls-missed",  # the bus master's polls go unanswered
    "battery-low",
    "clock-not-connected",
    "out-of-sync",  # the board has shown a foreign position for too long
    "illegal-move-stood",  # the players go on pressing the clock from a foreign position
    "bye-refused",  # a requested bye the policy refuses (the arbiter may still grant it)
    "both-flags",  # a second flag fell while a flag-fall result was pending
    "result-proposed",  # a result waits for the arbiter's word (confirm or override)
    "absence-disqualifies",  # single-absence rule: out unless they ask to continue
    "arbiter-override",  # the arbiter overrode a regulation's refusal (a bye, a cancellation)
    "team-forfeit",  # a team has too few players at the default time: the match by forfeit?
    "journal-not-writable",  # system: disk full or I/O error; events held in memory
    "export-failing",  # system: the --export folder cannot be written; retrying
    "delays-add-up",  # system: the event's delay and the Lichess round's own delay add up
    "publish-behind",  # system: the public stream to Redis is down or behind
    "task-failed",  # system: a long-running task stopped on a software error; restarted
    "service-overloaded",  # the service is behind the boards: moves kept, but late
    "station-lost",  # system: a capture station sends no heartbeat (names its boards)
    "station-clock",  # system: a capture station's clock is off the central one
    "board-claimed-twice",  # system: two capture stations claim one board
    "station-refused",  # system: a capture station's stream holds what cannot be applied
    "stations-unreachable",  # system: the central serve cannot reach the stations' Redis
]

ALERT_KINDS: tuple[AlertKind, ...] = (
    "late",
    "check-presence",
    "check-tables",
    "withdraw-from-pairing",
    "early-draw",
    "board-not-responding",
    "board-missing",
    "driver-fault",
    "moves-to-check",
    "bus-polls-missed",
    "battery-low",
    "clock-not-connected",
    "out-of-sync",
    "illegal-move-stood",
    "bye-refused",
    "both-flags",
    "result-proposed",
    "absence-disqualifies",
    "arbiter-override",
    "team-forfeit",
    "journal-not-writable",
    "export-failing",
    "delays-add-up",
    "publish-behind",
    "task-failed",
    "service-overloaded",
    "station-lost",
    "station-clock",
    "board-claimed-twice",
    "station-refused",
    "stations-unreachable",
)


@dataclass(frozen=True, slots=True)
class Alert:
    """Something an arbiter must look at. `id` is stable and unique per cause (the engine
    never raises the same id twice), so acknowledgements and the desk can refer to it.

    `game`, `round` and `board` are empty/0 when the alert is not about one game (a
    board with no game attached, a player's no-show count). `board` is the pairing
    board number in the section; `hall_board` the physical board's name when known.
    """

    id: str
    kind: AlertKind
    severity: Severity
    section: str
    round: int
    board: int
    game: str
    players: tuple[str, ...]
    message: str
    t: float
    hall_board: str = ""
    result: str = ""  # a result-proposed alert: the proposed result and its reason code
    reason: str = ""
    # `message` as a template and its values, for the desk's languages (None: English only)
    phrase: Phrase | None = None


@dataclass(frozen=True, slots=True)
class AlertResolved:
    """The cause of alert `alert` has ended (the player moved, the board is back, the
    result was decided...): the alert leaves the desk by itself. `why` says what ended it."""

    alert: str
    t: float
    why: str = ""
    phrase: Phrase | None = None  # `why` for the desk's languages (None: English only)


@dataclass(frozen=True, slots=True)
class AlertAcknowledged:
    """The arbiter has seen alert `alert` (by id)."""

    alert: str
    t: float
    by: str = "arbiter"


@dataclass(frozen=True, slots=True)
class AlertUpdated:
    """Alert `alert` says something new (a late player's opponent marked present, a table
    checked off the list): same alert, new `message` and `players`. It stays open, and
    the desk does not ring for it again."""

    alert: str
    t: float
    message: str
    players: tuple[str, ...] = ()
    phrase: Phrase | None = None  # `message` for the desk's languages (None: English only)


@dataclass(frozen=True, slots=True)
class PlayerMarkedPresent:
    """`colour` of `game` is at the board, on the word of `by`: the arbiter who saw them
    (a player present before moving, e.g. Black waiting for an absent White; a table
    without an e-board), or the player checking in at the table (`how` "check-in"). Stops
    the default-time countdown for them; a check-in counts from its time `t`, the
    arbiter's word whenever it is given."""

    game: str
    colour: Colour
    t: float
    by: str = "arbiter"
    how: str = "arbiter"  # "arbiter" | "check-in"


@dataclass(frozen=True, slots=True)
class PlayerMarkedAbsent:
    """The arbiter says `colour` of `game` is not at the board (a hall walk at the default
    time). It replaces an earlier present mark (not what the board saw: a move, a press):
    at the default time the player loses by forfeit."""

    game: str
    colour: Colour
    t: float
    by: str = "arbiter"


@dataclass(frozen=True, slots=True)
class AbsenceUnmarked:
    """The arbiter's word that `colour` of `game` was absent (given at `since`) is taken
    back (the mark was undone)."""

    game: str
    colour: Colour
    since: float
    t: float
    by: str = "arbiter"


@dataclass(frozen=True, slots=True)
class AlertReopened:
    """Alert `alert` is open again: the action that closed it (a confirmation, an
    acknowledgement, a withdrawal) was undone, so what it asked is asked again."""

    alert: str
    t: float
    by: str = "arbiter"


@dataclass(frozen=True, slots=True)
class PresenceUnmarked:
    """The arbiter's word that `colour` of `game` was at the board from `since` is taken
    back (the mark was undone): they count as present again only from a move or a press."""

    game: str
    colour: Colour
    since: float
    t: float
    by: str = "arbiter"


ArbiterEvent = (
    BoardsUnheard
    | Alert
    | AlertAcknowledged
    | AlertResolved
    | AlertReopened
    | AlertUpdated
    | PlayerMarkedPresent
    | PlayerMarkedAbsent
    | PresenceUnmarked
    | AbsenceUnmarked
)

__all__ = [
    "ALERT_KINDS",
    "SEVERITIES",
    "AbsenceUnmarked",
    "Alert",
    "AlertAcknowledged",
    "AlertKind",
    "AlertReopened",
    "AlertResolved",
    "AlertUpdated",
    "ArbiterEvent",
    "PlayerMarkedAbsent",
    "PlayerMarkedPresent",
    "PresenceUnmarked",
    "Severity",
]
