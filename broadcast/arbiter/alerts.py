"""Arbiter events: alerts, their acknowledgement, and the arbiter marking a player present.

They are journal events like any other (`eventjson.to_json` writes an `Alert` as
`{"type": "alert", "kind": ...}`), so a restart replays them and the desk's view of what
was raised and acknowledged is a fold, not a memory.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from broadcast.games.events import Colour

Severity = Literal["info", "warning", "critical"]
SEVERITIES: tuple[Severity, ...] = ("info", "warning", "critical")

AlertKind = Literal[
    "late",  # a player is not at the board yet; the default time approaches
    "check-presence",  # zero default time: no sign of a player some minutes after the start
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
    "journal-not-writable",  # system: disk full or I/O error; events held in memory
    "export-failing",  # system: the --export folder cannot be written; retrying
    "publish-behind",  # system: the public stream to Redis is down or behind
    "task-failed",  # system: a long-running task stopped on a software error; restarted
    "service-overloaded",  # the service is behind the boards: moves kept, but late
]

ALERT_KINDS: tuple[AlertKind, ...] = (
    "late",
    "check-presence",
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
    "journal-not-writable",
    "export-failing",
    "publish-behind",
    "task-failed",
    "service-overloaded",
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


@dataclass(frozen=True, slots=True)
class AlertResolved:
    """The cause of alert `alert` has ended (the player moved, the board is back, the
    result was decided...): the alert leaves the desk by itself. `why` says what ended it."""

    alert: str
    t: float
    why: str = ""


@dataclass(frozen=True, slots=True)
class AlertAcknowledged:
    """The arbiter has seen alert `alert` (by id)."""

    alert: str
    t: float
    by: str = "arbiter"


@dataclass(frozen=True, slots=True)
class PlayerMarkedPresent:
    """The arbiter saw `colour` of `game` at the board (a player present before moving,
    e.g. Black waiting for an absent White). Stops the default-time countdown for them."""

    game: str
    colour: Colour
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
    Alert
    | AlertAcknowledged
    | AlertResolved
    | AlertReopened
    | PlayerMarkedPresent
    | PresenceUnmarked
)

__all__ = [
    "ALERT_KINDS",
    "SEVERITIES",
    "Alert",
    "AlertAcknowledged",
    "AlertKind",
    "AlertReopened",
    "AlertResolved",
    "ArbiterEvent",
    "PlayerMarkedPresent",
    "PresenceUnmarked",
    "Severity",
]
