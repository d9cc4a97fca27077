"""A capture station's name: how the config, the station and the central serve spell it
(it is part of Redis keys and of a board's qualified port)."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping

from broadcast.config.model import EventConfig
from clocks.errors import BoardwireError

__all__ = ["NAME_PATTERN", "NAME_RULE", "StationAssignmentError", "assign_stations", "valid_name"]

NAME_PATTERN = re.compile(r"[a-z0-9][a-z0-9_-]{0,31}")
NAME_RULE = "lower-case letters, digits, '-' and '_', at most 32 (e.g. \"east-1\")"


def valid_name(name: str) -> bool:
    """`name` can name a station."""
    return NAME_PATTERN.fullmatch(name) is not None


class StationAssignmentError(BoardwireError, ValueError):
    """Boards put on stations that cannot be: what is wrong, in words."""


def assign_stations(config: EventConfig, stations: Mapping[int, str | None]) -> EventConfig:
    """`config` with hall board N on station `stations[N]` (None: the serve's own port),
    as `serve --station NAME=BOARDS` says for a night or a rehearsal without editing the
    file. A port is a path on one computer: boards that end up sharing a port on one
    station need their bus addresses, as the loader checks for the file."""
    numbers = {b.number for b in config.boards}
    unknown = sorted(set(stations) - numbers)
    if unknown:
        raise StationAssignmentError(
            f"the event has no board {', '.join(map(str, unknown))} "
            f"(its boards: {', '.join(str(n) for n in sorted(numbers))})"
        )
    for name in {n for n in stations.values() if n is not None}:
        if not valid_name(name):
            raise StationAssignmentError(f"{name[:40]!r} is not a station's name: {NAME_RULE}")
    boards = tuple(
        dataclasses.replace(b, station=stations[b.number]) if b.number in stations else b
        for b in config.boards
    )
    shared: dict[tuple[str | None, str], list[int | None]] = {}
    for b in boards:
        if b.port:  # a board found by its serial number is found with its address
            shared.setdefault((b.station, b.port), []).append(b.address)
    for (station, port), addresses in shared.items():
        if len(addresses) > 1 and (None in addresses or len(set(addresses)) < len(addresses)):
            where = port if station is None else f"{port} on station {station}"
            raise StationAssignmentError(
                f"{where} would carry {len(addresses)} boards without a bus address each: "
                "put the boards of one port on one station"
            )
    return dataclasses.replace(config, boards=boards)
