"""Boards found by their serial numbers: on which station's port each one is. Pure.

A `[[board]]` with a `serial` and no `port` is placed where a capture station's driver
reports it (a `BoardConnected` with that serial): that station, that port, that bus
address. The journal keeps every `BoardConnected` with its qualified port, so a
restarted serve places the board where it last connected (`from_journal`), with no
event of its own.

A report from elsewhere moves the board there (it was carried to another computer), unless
the station it is on still holds it connected: the second report is then refused, and the
desk says a board is claimed twice (`StationHealth`). A board the config gives one station
(`station` with `serial`) is refused on any other.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from broadcast.config.model import BoardConfig, EventConfig
from broadcast.config.stations import valid_name

__all__ = ["Place", "decide", "found_boards", "from_journal", "split_qualified", "unplaced_port"]


@dataclass(frozen=True, slots=True)
class Place:
    """Hall board `number` is on `station`'s `port` (a path on that computer), at bus
    address `address` (None: alone on its port)."""

    number: int
    station: str
    port: str
    address: int | None


def found_boards(config: EventConfig) -> dict[str, BoardConfig]:
    """The boards found by their serial numbers, by serial."""
    return {b.serial: b for b in config.boards if b.found_by_serial and b.serial is not None}


def unplaced_port(board: BoardConfig) -> str:
    """The hall's port for a board no station has found yet: no driver has it, and it
    cannot be a station's qualified port (a station's name has no parenthesis)."""
    return f"(serial {board.serial}, not found yet)"


def split_qualified(port: str) -> tuple[str, str] | None:
    """(station, its own port) of a qualified port (`wire.qualified_port`); None for the
    serve's own ports."""
    station, colon, own = port.partition(":")
    if not colon or not own or not valid_name(station):
        return None
    return station, own


def from_journal(
    config: EventConfig, connected_at: Mapping[str, tuple[str, int | None]]
) -> list[Place]:
    """Where each board found by its serial number last connected (the journal's
    `EventState.connected_at`), if on a station that may have it."""
    out = []
    for serial, board in found_boards(config).items():
        where = connected_at.get(serial)
        split = split_qualified(where[0]) if where is not None else None
        if where is None or split is None:
            continue
        station, port = split
        if board.station in (None, station):
            out.append(Place(board.number, station, port, where[1]))
    return out


def decide(
    board: BoardConfig,
    found: Place,
    current: Place | None,
    holds: Callable[[str, int], bool],
) -> Place | str | None:
    """Board `board` reported at `found`: its new place, None if it is there already,
    or why the report is refused (`holds(station, number)`: that station's drivers hold
    the board connected now)."""
    if board.station is not None and found.station != board.station:
        return (
            f"board {board.number} (serial {board.serial}) is found only on station "
            f"{board.station}, by the event's config"
        )
    if current == found:
        return None
    if (
        current is not None
        and current.station != found.station
        and holds(current.station, board.number)
    ):
        return (
            f"board {board.number} (serial {board.serial}) is read by station "
            f"{current.station} already"
        )
    return found
