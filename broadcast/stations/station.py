"""A capture station: its boards' drivers, its outbox, its sender, supervised.

`Station.run` starts a driver per port of the station's boards in the venue (a
`BusDriver` for a bus line or several boards, a `SingleBoardDriver` for one board on its
own port, as the central `Runtime` does), each given what the outbox remembers of its
boards (`KnownBoard`: after a restart the first connection is a reconnect that reads the
board's log for what was played meanwhile). Every event a driver emits is staged in the
outbox and committed as soon as the loop is free (one transaction for a burst), and only
then is the sender woken. The drivers stamp events in the venue's event time
(`VenueClock`).

`devices` maps a venue port to the device actually opened (`--sim`: pseudo-terminals);
the events then name the venue's port, as the central serve knows it.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Mapping
from functools import partial

from boards.driver_events import BoardConnected, BoardLost, DriverEvent
from boards.drivers.bus import BusDriver, BusSettings
from boards.drivers.link import Opener
from boards.drivers.single import SingleBoardDriver
from broadcast.phrases import say
from broadcast.service.supervisor import SupervisedTask, Supervisor
from broadcast.stations.outbox import Outbox
from broadcast.stations.sender import Sender
from broadcast.stations.wire import Venue, VenueBoard, renamed_port
from clocks.timesource import EpochTimeSource

__all__ = ["Station", "VenueClock"]

log = logging.getLogger(__name__)


class VenueClock(EpochTimeSource):
    """The venue's event time on this computer: `Venue.event_time` of the wall clock,
    never stepping back (a wall clock set back by NTP holds it still a moment)."""

    def __init__(self, venue: Venue, wall: Callable[[], float] = time.time) -> None:
        self.venue = venue
        self.speed = venue.speed
        self._wall = wall
        self._last = float("-inf")

    def now(self) -> float:
        self._last = max(self._last, self.venue.event_time(self._wall()))
        return self._last


class Station:
    """One capture station's running drivers and sender (see the module docstring)."""

    def __init__(
        self,
        name: str,
        venue: Venue,
        outbox: Outbox,
        sender: Sender,
        supervisor: Supervisor,
        *,
        clock: EpochTimeSource,
        opener: Opener,
        devices: Mapping[str, str] | None = None,
        bus_settings: BusSettings | None = None,
    ) -> None:
        self.name = name
        self.boards: tuple[VenueBoard, ...] = venue.boards_of(name)
        self.outbox = outbox
        self.sender = sender
        self.supervisor = supervisor
        self.clock = clock
        self.opener = opener
        self.devices = dict(devices or {})
        self.bus_settings = bus_settings
        self.drivers: list[SingleBoardDriver | BusDriver] = []
        self._tasks: list[SupervisedTask] = []
        self._stopping = asyncio.Event()
        self._commit_soon: asyncio.Handle | None = None
        self._names: dict[str, int] = {}  # board name -> hall board number
        self._connected: set[int] = set()

    # -- what the beat says ---------------------------------------------------------------------

    def connected(self) -> tuple[int, ...]:
        """The hall boards the drivers hold connected now."""
        return tuple(sorted(self._connected))

    def all_connected(self) -> bool:
        return len(self._connected) == len(self.boards)

    # -- running -------------------------------------------------------------------------------

    def ports(self) -> dict[str, list[VenueBoard]]:
        by_port: dict[str, list[VenueBoard]] = {}
        for board in self.boards:
            by_port.setdefault(board.port, []).append(board)
        return by_port

    async def run(self) -> None:
        """Start the drivers and the sender; run until `stop()`."""
        for port, boards in self.ports().items():
            device = self.devices.get(port, port)
            emit = partial(self._emit, port, device)
            addresses = [b.address for b in boards if b.address is not None]
            driver: SingleBoardDriver | BusDriver
            if addresses or len(boards) > 1:
                known = [k for a in addresses for k in self.outbox.known(port, a)]
                driver = BusDriver(
                    device,
                    emit,
                    time_source=self.clock,
                    opener=self.opener,
                    addresses=addresses,
                    known=known,
                    settings=self.bus_settings,
                )
            else:
                remembered = self.outbox.known(port)
                driver = SingleBoardDriver(
                    device,
                    emit,
                    time_source=self.clock,
                    opener=self.opener,
                    known=max(remembered, key=lambda k: k.last_seen) if remembered else None,
                )
            self.drivers.append(driver)
            self._tasks.append(
                self.supervisor.start(
                    say("the driver for %(port)s", port=port),
                    driver.run,
                    stops=say(
                        "The boards on %(port)s are not read until it runs again.", port=port
                    ),
                    on_failure=partial(self._driver_failed, port),
                )
            )
        self._tasks.append(
            self.supervisor.start(
                say("the link to Redis"),
                self.sender.run,
                stops=say(
                    "Board events wait in the station's outbox and reach the venue when it "
                    "runs again."
                ),
            )
        )
        try:
            await self._stopping.wait()
        finally:
            for d in self.drivers:
                d.stop()
            for task in self._tasks:
                task.cancel()
            for task in self._tasks:
                await task.stop()
            self._commit()

    def stop(self) -> None:
        self._stopping.set()

    def _driver_failed(self, port: str, exc: Exception) -> None:
        why = f"its driver stopped on a software error ({type(exc).__name__})"
        for name, number in list(self._names.items()):
            board = next(b for b in self.boards if b.number == number)
            if board.port == port and number in self._connected:
                self._emit(port, port, BoardLost(self.clock.now(), name, why))

    def _emit(self, port: str, device: str, event: DriverEvent) -> None:
        event = renamed_port(event, device, port)
        self._follow(port, event)
        self.outbox.append(port, event)
        if self._commit_soon is None:
            self._commit_soon = asyncio.get_running_loop().call_soon(self._commit)

    def _commit(self) -> None:
        self._commit_soon = None
        self.outbox.commit()
        self.sender.wake()

    def _follow(self, port: str, event: DriverEvent) -> None:
        """Which hall boards are connected, and one log line when that changes."""
        if isinstance(event, BoardConnected):
            address = event.info.bus_address
            for b in self.boards:
                if b.port == port and (b.address == address or b.address is None):
                    self._names[event.board] = b.number
                    if b.number not in self._connected:
                        self._connected.add(b.number)
                        log.info(
                            "station %s: board %d (%s) found on %s%s",
                            self.name,
                            b.number,
                            event.board,
                            port,
                            " (reading its log)" if event.reconnect else "",
                        )
                    break
        elif isinstance(event, BoardLost) and not event.answering:
            number = self._names.get(event.board)
            if number is not None and number in self._connected:
                self._connected.discard(number)
                log.warning(
                    "station %s: board %d (%s) lost: %s",
                    self.name,
                    number,
                    event.board,
                    event.reason,
                )
