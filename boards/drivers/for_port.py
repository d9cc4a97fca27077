"""Which driver reads a port: a bus line (several boards, or bus addresses) or one board
on its own port. One choice for every program that reads boards (the serve's runtime, a
capture station)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from boards.driver_events import DriverEvent
from boards.drivers.bus import BusDriver, BusSettings
from boards.drivers.link import Opener
from boards.drivers.single import SingleBoardDriver
from boards.recovery import KnownBoard
from clocks.timesource import MonotonicTimeSource

__all__ = ["driver_for"]


def driver_for(
    port: str,
    emit: Callable[[DriverEvent], None],
    *,
    boards: int,
    addresses: Sequence[int],
    known: Sequence[KnownBoard],
    time_source: MonotonicTimeSource,
    opener: Opener,
    bus_settings: BusSettings | None = None,
) -> BusDriver | SingleBoardDriver:
    """The driver for `port` carrying `boards` boards at `addresses` (none: one board
    alone), given what a previous run knew of them (`known`: a single board gets the one
    heard from last)."""
    if addresses or boards > 1:
        return BusDriver(
            port,
            emit,
            time_source=time_source,
            opener=opener,
            addresses=list(addresses),
            known=list(known),
            settings=bus_settings,
        )
    return SingleBoardDriver(
        port,
        emit,
        time_source=time_source,
        opener=opener,
        known=max(known, key=lambda k: k.last_seen) if known else None,
    )
