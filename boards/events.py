"""What drivers report: immutable, timestamped facts about boards, positions and clocks.

`t` is seconds on the injected TimeSource. `board` names the board: its serial
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
    """The link to a board is gone (port error, or it stopped answering)."""

    t: float
    board: str
    reason: str


@dataclass(frozen=True, slots=True)
class PositionSeen:
    """A full position on the board. `recovered` marks positions replayed from the EEPROM log
    after a disconnect: they happened between the loss and the reconnect, `t` is an estimate."""

    t: float
    board: str
    position: BoardPosition
    recovered: bool = False


@dataclass(frozen=True, slots=True)
class ClockSeen:
    t: float
    board: str
    reading: ClockReading | NoClock


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
    BoardConnected | BoardLost | PositionSeen | ClockSeen | ClockStamped | BatterySeen | BoardHealth
)

# What a driver calls with each event it reports.
Emit = Callable[[DriverEvent], None]
