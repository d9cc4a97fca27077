"""A capture station: its boards' drivers, its outbox, its sender, supervised.

`Station.run` starts a driver per port of the station's boards in the venue (a
`BusDriver` for a bus line or several boards, a `SingleBoardDriver` for one board on its
own port, as the central `Runtime` does), each given what the outbox remembers of its
boards (`KnownBoard`: after a restart the first connection is a reconnect that reads the
board's log for what was played meanwhile). Every event a driver emits is staged in the
outbox and committed as soon as the loop is free (one transaction for a burst), and only
then is the sender woken. The drivers stamp events in the venue's event time
(`VenueClock`).

A board the outbox knows nothing of (a fresh outbox: a replacement computer) is given
what the central serve knows of it (`central`, read from `StationKeys.known`): its first
connection reads its log too. The outbox's own memory wins where it has one.

The venue is looked at again (by the sender, at every reconnection and every few
seconds): a new venue clock is taken at once (`VenueClock.retime`, never stepping back);
a changed list of this station's boards stops the station (exit code 3, one log line:
restart it, its drivers are for the old list).

An outbox that cannot be written (disk full, read-only) is said once at ERROR; the
events stay in memory, in order, and are written as soon as it can be (tried every
`COMMIT_RETRY` seconds). Past `MAX_STAGED` events waiting (about 40 minutes of a busy
64-board station) the drivers are stopped rather than any event dropped: the boards keep
every move in their own logs, and once the outbox is written again the drivers start
again from its memory, so their first connection reads those logs.

`devices` maps a venue port to the device actually opened (`--sim`: pseudo-terminals);
the events then name the venue's port, as the central serve knows it.

Boards found by their serial numbers (the venue's `wanted`): every `PROBE_EVERY` seconds
the station probes the serial ports `probe_paths()` gives that no driver of its own holds
(`boards.drivers.discovery`), and reads each port where it finds a wanted serial with a
driver of its own, as if the config had put the board there. The central serve places the
board where its first `BoardConnected` comes from (`broadcast.stations.placement`).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from functools import partial

from boards.driver_events import BoardConnected, BoardLost, DriverEvent
from boards.drivers.bus import BusDriver, BusSettings
from boards.drivers.discovery import ProbeResult, probe_ports
from boards.drivers.for_port import driver_for
from boards.drivers.link import Opener
from boards.drivers.single import SingleBoardDriver
from boards.recovery import KnownBoard
from broadcast.phrases import say
from broadcast.service.runtime import supervise_driver
from broadcast.service.supervisor import SupervisedTask, Supervisor
from broadcast.stations.outbox import Outbox, OutboxUnwritable
from broadcast.stations.sender import Sender
from broadcast.stations.wire import Venue, VenueBoard, renamed_port
from clocks.timesource import EpochTimeSource

__all__ = [
    "COMMIT_RETRY",
    "DRAIN_SECONDS",
    "EXIT_BOARDS_CHANGED",
    "MAX_STAGED",
    "PROBE_EVERY",
    "Prober",
    "Station",
    "VenueClock",
]

log = logging.getLogger(__name__)

COMMIT_RETRY = 1.0  # real seconds between two attempts to write an unwritable outbox
DRAIN_SECONDS = 3.0  # a stopping station sends what waits this long at most, if Redis is up
MAX_STAGED = 50_000  # events kept in memory meanwhile (~1 KB each); then the drivers stop
EXIT_BOARDS_CHANGED = 3
PROBE_EVERY = 5.0  # real seconds between two looks for boards found by their serials

Prober = Callable[[list[str]], Awaitable[list[ProbeResult]]]


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

    def retime(self, venue: Venue) -> None:
        """The venue's new clock (the central serve restarted): event time follows it from
        now on, holding still while it is behind what this clock already said."""
        self.venue = venue
        self.speed = venue.speed


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
        central: Mapping[int, KnownBoard] | None = None,
        probe_paths: Callable[[], Sequence[str]] = lambda: (),
        prober: Prober | None = None,
        found_known: Callable[[], Awaitable[Mapping[int, KnownBoard]]] | None = None,
    ) -> None:
        self.name = name
        self.venue = venue
        self.configured: tuple[VenueBoard, ...] = venue.boards_of(name)
        self.boards: tuple[VenueBoard, ...] = self.configured  # and the boards found
        self.wanted = venue.wanted_by(name)  # serial -> a board to find on the ports
        self.probe_paths = probe_paths
        self.prober: Prober = prober or partial(probe_ports, opener=opener)
        # What the central serve knows of the boards found by their serials (read just
        # before a found board's first connection: it may have played elsewhere).
        self.found_known = found_known
        self.central = dict(central or {})  # hall board -> what the central serve knows
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
        self.exit_code = 0
        self.unwritable: str | None = None  # why the outbox cannot be written now
        self._paused = False  # the drivers stopped: too many events wait in memory
        self._driver_tasks: list[SupervisedTask] = []
        self._changing: asyncio.Task[None] | None = None  # drivers being stopped/started
        self._on_port: dict[str, tuple[SingleBoardDriver | BusDriver, SupervisedTask]] = {}

    # -- what the beat says ---------------------------------------------------------------------

    def connected(self) -> tuple[int, ...]:
        """The hall boards the drivers hold connected now."""
        return tuple(sorted(self._connected))

    def all_connected(self) -> bool:
        """Its drivers hold every board it must read: its own, and those found by their
        serial numbers that the config gives to this station alone."""
        mine = {b.number for b in self.configured}
        mine |= {w.number for w in self.wanted.values() if w.station == self.name}
        return mine <= self._connected

    # -- running -------------------------------------------------------------------------------

    def ports(self) -> dict[str, list[VenueBoard]]:
        by_port: dict[str, list[VenueBoard]] = {}
        for board in self.boards:
            by_port.setdefault(board.port, []).append(board)
        return by_port

    def known(self, port: str, boards: list[VenueBoard]) -> list[KnownBoard]:
        """What the drivers of `port` are given of its boards: the outbox's memory or the
        central serve's, whichever heard the board last (a fresh outbox has none)."""
        out: list[KnownBoard] = []
        for b in boards:
            mine = self.outbox.known(port, b.address)
            best = max(mine, key=lambda k: k.last_seen) if mine else None
            theirs = self.central.get(b.number)
            # The later of the two: an old laptop brought back after a replacement ran
            # the board must not start from what it knew before it died.
            if theirs is not None and (
                best is None or (theirs.position is not None and theirs.last_seen > best.last_seen)
            ):
                best = theirs
            if best is not None:
                out.append(best)
        return out

    async def run(self) -> None:
        """Start the drivers and the sender; run until `stop()`."""
        self._start_drivers()
        if self.wanted:
            self._tasks.append(
                self.supervisor.start(
                    say("the search for boards by their serial numbers"),
                    self._discover,
                    stops=say("Boards plugged in meanwhile are not found until it runs again."),
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
            if self._changing is not None:
                await asyncio.gather(self._changing, return_exceptions=True)
            await self._stop_drivers()
            if self._commit_soon is not None:
                self._commit_soon.cancel()
            self._commit()
            # The drivers' last words (a board lost on stopping) go out before the link is
            # cut: cancelled mid-batch, an XADD can reach Redis unmarked in the outbox (the
            # next start finds it there, but an organizer reading the outbox would not).
            await self.sender.drain(DRAIN_SECONDS)
            for task in self._tasks:
                task.cancel()
            for task in self._tasks:
                await task.stop()
            if self._commit_soon is not None:
                self._commit_soon.cancel()
            self._commit()
            if self.outbox.staged:
                log.error(
                    "station %s: %d board events could not be written to the outbox %s and "
                    "end with this process; the boards' logs still hold the moves: start the "
                    "station again once the outbox can be written, and it reads them back",
                    self.name,
                    self.outbox.staged,
                    self.outbox.path,
                )

    def _start_drivers(self) -> None:
        for port, boards in self.ports().items():
            self._start_port(port, boards)

    def _start_port(self, port: str, boards: list[VenueBoard]) -> None:
        device = self.devices.get(port, port)
        emit = partial(self._emit, port, device)
        addresses = [b.address for b in boards if b.address is not None]
        driver = driver_for(
            device,
            emit,
            boards=len(boards),
            addresses=addresses,
            known=self.known(port, boards),
            time_source=self.clock,
            opener=self.opener,
            bus_settings=self.bus_settings,
        )
        task = supervise_driver(self.supervisor, port, driver, partial(self._driver_failed, port))
        self.drivers.append(driver)
        self._driver_tasks.append(task)
        self._on_port[port] = (driver, task)

    async def _discover(self) -> None:
        """Look for the wanted boards on the ports no driver holds, every `PROBE_EVERY`."""
        while True:
            await self.discover_once()
            await asyncio.sleep(PROBE_EVERY)

    async def discover_once(self) -> list[VenueBoard]:
        """One look: the wanted boards found on free ports (now read by drivers)."""
        if self._paused or self._stopping.is_set():
            return []
        found = {b.number for b in self.boards}
        if all(w.number in found for w in self.wanted.values()):
            return []
        # Never a port of a board it reads, even while its driver restarts.
        held = {*self._on_port, *(self.devices.get(b.port, b.port) for b in self.boards)}
        free = [p for p in dict.fromkeys(self.probe_paths()) if p not in held]
        if not free:
            return []
        by_port: dict[str, list[VenueBoard]] = {}
        for result in await self.prober(free):
            if result.port in self._on_port or self._stopping.is_set():
                continue  # found by another look meanwhile, or stopping
            for info in result.boards:
                wanted = self.wanted.get(info.serial)
                if wanted is None or wanted.number in found:
                    continue
                address = info.bus_address if result.mode == "bus" else None
                board = VenueBoard(wanted.number, self.name, result.port, address)
                by_port.setdefault(result.port, []).append(board)
                found.add(wanted.number)
        if by_port and self.found_known is not None:
            known = await self.found_known()
            self.central.update(
                {
                    b.number: known[b.number]
                    for here in by_port.values()
                    for b in here
                    if b.number in known
                }
            )
        added: list[VenueBoard] = []
        for port, here in by_port.items():
            if port in self._on_port or self._stopping.is_set():
                continue
            log.info(
                "station %s: found board(s) %s by serial number on %s",
                self.name,
                ", ".join(str(b.number) for b in here),
                port,
            )
            self.boards = (*self.boards, *here)
            self._start_port(port, here)
            added += here
        return added

    async def _stop_drivers(self) -> None:
        drivers, tasks = self.drivers, self._driver_tasks
        self.drivers, self._driver_tasks = [], []
        self._on_port.clear()
        for d in drivers:
            d.stop()
        for task in tasks:
            task.cancel()
        for task in tasks:
            await task.stop()

    def stop(self, code: int = 0) -> None:
        """Stop the station; `code` is what the command exits with."""
        self.exit_code = self.exit_code or code
        self._stopping.set()

    # -- the venue, looked at again -------------------------------------------------------------

    def venue_seen(self, venue: Venue) -> None:
        """The venue as Redis holds it now (the sender reads it again and again)."""
        if set(venue.boards_of(self.name)) != set(self.configured) or (
            venue.wanted_by(self.name) != self.wanted
        ):
            if not self._stopping.is_set():
                now = ", ".join(str(b.number) for b in venue.boards_of(self.name)) or "none"
                log.error(
                    "station %s: the venue's boards for this station changed (now: %s; "
                    "this station reads %s): it stops (exit code %d); start it again to "
                    "read the new boards",
                    self.name,
                    now,
                    ", ".join(str(b.number) for b in self.configured),
                    EXIT_BOARDS_CHANGED,
                )
                self.stop(EXIT_BOARDS_CHANGED)
            return
        old = self.venue
        if (venue.start, venue.wall0, venue.speed) != (old.start, old.wall0, old.speed):
            if isinstance(self.clock, VenueClock):
                self.clock.retime(venue)
            log.info(
                "station %s: the venue clock changed (the central serve restarted at %s, "
                "speed %g): event time follows it",
                self.name,
                venue.host,
                venue.speed,
            )
        self.venue = venue

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
        try:
            self.outbox.commit()
        except OutboxUnwritable as exc:
            self._unwritable(exc)
            return
        if self.unwritable is not None:
            log.warning(
                "station %s: the outbox %s is written again: every event kept meanwhile is "
                "in it (%d so far) and is being sent",
                self.name,
                self.outbox.path,
                self.outbox.durable_seq,
            )
            self.unwritable = None
        if self._paused and not self._stopping.is_set():
            self._paused = False
            log.warning(
                "station %s: reading the boards again; their logs give what was played meanwhile",
                self.name,
            )
            self._changing = asyncio.ensure_future(self._restart_drivers())
        self.sender.wake()

    def _unwritable(self, exc: OutboxUnwritable) -> None:
        if self.unwritable is None:
            self.unwritable = str(exc.__cause__ or exc)
            log.error(
                "station %s: %s: the board events are kept in memory, in order (%d now, "
                "room for %d: about 40 minutes of a busy station; then the boards are read "
                "back from their own logs) and written as soon as it can be. Free disk "
                "space or make the outbox's folder writable; nothing is lost meanwhile, but "
                "nothing reaches the venue either",
                self.name,
                exc,
                self.outbox.staged,
                MAX_STAGED,
            )
        if self.outbox.staged >= MAX_STAGED and not self._paused:
            self._paused = True
            log.error(
                "station %s: %d events wait in memory for the outbox: its boards are no "
                "longer read (they keep every move in their logs) until it can be written",
                self.name,
                self.outbox.staged,
            )
            self._connected.clear()
            self._changing = asyncio.ensure_future(self._stop_drivers())
        if not self._stopping.is_set():
            loop = asyncio.get_running_loop()
            self._commit_soon = loop.call_later(COMMIT_RETRY, self._commit)

    async def _restart_drivers(self) -> None:
        await self._stop_drivers()
        self._start_drivers()

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
