"""What drivers report: immutable, timestamped facts about boards, positions and clocks.

`t` is seconds on the injected `MonotonicTimeSource`. `board` names the board: its serial
number when known (bus boards always), else the port path.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from boards.position import BoardPosition
from clocks.reading import ClockReading, NoClock

Mode = Literal["single", "bus"]


@dataclass(frozen=True, slots=True)
class BoardInfo:
    """Identity of a board found on a port."""

    port: str
    serial: str
    version: tuple[int, int]
    mode: Mode
    bus_address: int | None = None
    long_serial: str | None = None
    battery_percent: int | None = None
    clock_present: bool | None = None

    @property
    def name(self) -> str:
        return self.serial or self.port


@dataclass(frozen=True, slots=True)
class BoardConnected:
    t: float
    board: str
    info: BoardInfo
    reconnect: bool = False


@dataclass(frozen=True, slots=True)
class BoardLost:
    """The link to a board is gone (port error, or it stopped answering). `answering`:
    the board still answers, but the driver ended the session to read back what the
    board did while it was not streaming (a reboot, an update lost); that board is not
    lost, and the reconnect follows at once."""

    t: float
    board: str
    reason: str
    answering: bool = False


@dataclass(frozen=True, slots=True)
class DriverFault:
    """A software error (not the board, not the cable) stopped the driver's work on a
    board: it was logged with its traceback, the board is reported lost, and the driver
    reconnects with backoff. `error` names the exception (`ValueError: ...`)."""

    t: float
    board: str
    port: str
    error: str


@dataclass(frozen=True, slots=True)
class LogGap:
    """The board's log could not fill an outage (the board rebooted, was away, or the
    service restarted): our place in it was not found, nothing usable was logged, or
    reading it failed (`reason`). The driver went on from what the board shows now (its
    dump, or the log from its last anchor): moves made in the gap may be missing or wrong,
    and an arbiter should check the moves after the last one known before it."""

    t: float
    board: str
    port: str
    reason: str


@dataclass(frozen=True, slots=True)
class PositionSeen:
    """A full position on the board. `recovered` marks positions replayed from the EEPROM log
    after a disconnect: they happened between the loss and the reconnect, `t` is an estimate."""

    t: float
    board: str
    position: BoardPosition
    recovered: bool = False
    # The square change (index, new code) that made this position, when one did (a field
    # update, a bus change): the real change stream, which finds our place in the board's
    # log after a restart. None for a board dump.
    change: tuple[int, int] | None = None


@dataclass(frozen=True, slots=True)
class ClockSeen:
    t: float
    board: str
    reading: ClockReading | NoClock


@dataclass(frozen=True, slots=True)
class ClockSilent:
    """A running clock stopped reporting while the board itself still answers: the
    clock's batteries died or its cable to the board was pulled (or the board cannot
    read it). Reported once until the clock reports again. `answer` is what the board
    said when asked for its clock: "none" (no answer), "frozen" (the last reading again,
    still running) or "no-clock" (the no-clock bit)."""

    t: float
    board: str
    answer: Literal["none", "frozen", "no-clock"]


@dataclass(frozen=True, slots=True)
class ClockStamped:
    """A clock time written to the EEPROM log at a lever press: the time left on the side
    whose clock just stopped. Arrives with recovered positions."""

    t: float
    board: str
    side: Literal["left", "right"]
    seconds: int
    recovered: bool = True


@dataclass(frozen=True, slots=True)
class LogStep:
    """One record group of a board's EEPROM log: square changes (one, or every piece of a
    power-up or start-game dump) and the lever presses logged right after them, as (side,
    seconds left on the side that stopped)."""

    changes: tuple[tuple[int, int], ...]
    presses: tuple[tuple[Literal["left", "right"], int], ...] = ()
    reset: bool = False  # a dump: the board is empty but for `changes`


@dataclass(frozen=True, slots=True)
class LogRecovered:
    """A board's EEPROM log read back after an outage (or at a first start mid-round): the
    positions it showed from `start` on, in order, step by step. The log holds no times:
    only the order and the lever presses count. `seen` is the index of the step that shows
    what the host last saw live (-1: `start` itself); steps after it happened while nobody
    listened. `anchor` says where `start` comes from: "setup" (a start position the board
    logged), "absolute" (a power-up or start-game dump, an empty board) or "known" (the
    host's own last position). `placed=False`: what the host last saw is not in the log
    (it wrapped past it, or a power cycle left only what came after): the steps begin at
    the log's last anchor, and moves made between may be missing, for the arbiter to
    check."""

    t: float
    board: str
    start: BoardPosition
    steps: tuple[LogStep, ...]
    seen: int
    anchor: Literal["setup", "absolute", "known"] = "known"
    placed: bool = True

    def positions(self) -> list[BoardPosition]:
        """The position after each step."""
        out: list[BoardPosition] = []
        pos = self.start
        for step in self.steps:
            if step.reset:
                pos = BoardPosition.empty()
            for index, code in step.changes:
                pos = pos.with_piece(index, code)
            out.append(pos)
        return out

    @property
    def final(self) -> BoardPosition:
        positions = self.positions()
        return positions[-1] if positions else self.start

    @property
    def rebooted(self) -> bool:
        """The board rebooted after what the host saw live: its log shows a power-up (or
        watchdog) dump among the steps the host had not seen."""
        unseen = self.steps[self.seen + 1 :]
        return any(step.reset for step in unseen)


@dataclass(frozen=True, slots=True)
class BatterySeen:
    t: float
    board: str
    percent: int
    charging: bool = False


@dataclass(frozen=True, slots=True)
class BoardHealth:
    """Bus health for one board: polls answered and missed since the last report."""

    t: float
    board: str
    last_seen: float | None
    missed_polls: int
    bad_checksums: int


DriverEvent = (
    BoardConnected
    | BoardLost
    | DriverFault
    | LogGap
    | PositionSeen
    | ClockSeen
    | ClockSilent
    | ClockStamped
    | LogRecovered
    | BatterySeen
    | BoardHealth
)

# What a driver calls with each event it reports.
Emit = Callable[[DriverEvent], None]

__all__ = [
    "BatterySeen",
    "BoardConnected",
    "BoardHealth",
    "BoardInfo",
    "BoardLost",
    "ClockSeen",
    "ClockSilent",
    "ClockStamped",
    "DriverEvent",
    "DriverFault",
    "Emit",
    "LogGap",
    "LogRecovered",
    "LogStep",
    "Mode",
    "PositionSeen",
]
