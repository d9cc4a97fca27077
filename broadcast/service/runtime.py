"""The running event: the boards' drivers, the clock tick, and their supervision.

`Runtime.run` starts one driver per port (a `BusDriver` for a bus line, a
`SingleBoardDriver` for one board on its own port; none for a capture station's ports,
whose events come through its stream) and the tick loop, each as a task of
the `Supervisor` (a task that fails is logged once, alerted on the desk, and restarted
after a back-off), and runs until `stop()`. A driver's events go to the committer's inbox;
what the journal knew of its boards (`Hall.known_board`) lets a restarted driver read back
from the boards' logs what happened meanwhile.

Time passes in `tick`: the boards whose reconstruction has a decision due (the press
settled, the position stable: ticked when they fall due, not at a fixed pace), and at
`tick_seconds` the arbiter rules' timers, the live round's boards, the bus lines' cycle
lag and a look at the journal's file. Each is a step of one board batch.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from functools import partial

from boards.driver_events import DriverEvent
from boards.drivers.bus import BusDriver, BusSettings
from boards.drivers.for_port import driver_for
from boards.drivers.link import Opener
from boards.drivers.single import SingleBoardDriver
from broadcast.phrases import say
from broadcast.service.committer import Committer
from broadcast.service.hall import Hall, utc
from broadcast.service.supervisor import SupervisedTask, Supervisor
from clocks.timesource import EpochTimeSource

log = logging.getLogger(__name__)

MIN_WAKE = 0.01  # real seconds: the tick loop never wakes more often than this
MISSING_AFTER = 20.0  # event seconds: a board not connected by then is missing
# ...and never sooner than these real seconds: a port opens and a board answers in real time,
# whatever `--speed` says (at 20x the 20 event seconds were one real second, and every
# emulated board of a rehearsal was "missing" a moment before it connected: issue 30, D6).
MISSING_AFTER_REAL = 5.0


def supervise_driver(
    supervisor: Supervisor,
    port: str,
    driver: SingleBoardDriver | BusDriver,
    on_failure: Callable[[Exception], None],
) -> SupervisedTask:
    """`driver` run as a supervised task, in the desk's words (the serve's and a capture
    station's drivers alike)."""
    return supervisor.start(
        say("the driver for %(port)s", port=port),
        driver.run,
        stops=say("The boards on %(port)s are not read until it runs again.", port=port),
        on_failure=on_failure,
    )


class Runtime:
    """The drivers and the tick loop of one event, started on `supervisor`."""

    def __init__(
        self,
        committer: Committer[Hall],
        hall: Hall,
        supervisor: Supervisor,
        *,
        time_source: EpochTimeSource,
        opener: Opener,
        tick_seconds: float = 0.2,
        bus_settings: BusSettings | None = None,
    ) -> None:
        self.committer = committer
        self.hall = hall
        self.supervisor = supervisor
        self.time_source = time_source
        self.opener = opener
        self.tick_seconds = tick_seconds
        self.bus_settings = bus_settings
        self.drivers: list[SingleBoardDriver | BusDriver] = []
        self._tasks: list[SupervisedTask] = []  # what run() started (and stops)
        self._stopping = asyncio.Event()
        self._speed = time_source.speed  # event seconds per real second
        self._started: float | None = None  # event time run() started the drivers

    async def run(self) -> None:
        """Start every board's driver and the clock tick; run until `stop()`."""
        self._started = self.time_source.now()
        for port, boards in self.hall.ports().items():
            if all(b.remote for b in boards):
                continue  # a capture station reads it (broadcast.stations.intake)
            emit = self._emitter(port)
            addresses = [b.config.address for b in boards if b.config.address is not None]
            # What the journal knew of these boards: their logs fill the gap of a restart.
            known = [
                k
                for b in boards
                if (k := self.hall.known_board(b.name) or self.hall.first_start(b)) is not None
            ]
            driver = driver_for(
                port,
                emit,
                boards=len(boards),
                addresses=addresses,
                known=known,
                time_source=self.time_source,
                opener=self.opener,
                bus_settings=self.bus_settings,
            )
            self.drivers.append(driver)
            self._tasks.append(
                supervise_driver(self.supervisor, port, driver, partial(self._driver_failed, port))
            )
        self._tasks.append(
            self.supervisor.start(
                say("the clock tick"),
                self._tick_loop,
                stops=say(
                    "Default times, flag falls, silent boards and round changes are not "
                    "checked, and moves wait to be decided, until it runs again."
                ),
            )
        )
        await self._stopping.wait()
        for d in self.drivers:
            d.stop()
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            await task.stop()  # each failure was logged when it happened
        # What the drivers said last (their BoardLost) is kept too, and all of it durable.
        await self.committer.flush()

    def stop(self) -> None:
        self._stopping.set()

    def _driver_failed(self, port: str, exc: Exception) -> None:
        """A driver's run() raised: its boards are not followed until it runs again, and
        the desk must not show them connected meanwhile."""
        why = f"its driver stopped on a software error ({type(exc).__name__})"
        for lost in self.hall.lost_on(port, why):
            self.committer.queue_driver_event(port, lost)

    def _emitter(self, port: str) -> Callable[[DriverEvent], None]:
        def emit(event: DriverEvent) -> None:
            self.committer.queue_driver_event(port, event)

        return emit

    def tick(self, *, full: bool = True, loop: asyncio.AbstractEventLoop | None = None) -> bool:
        """Time passes: the boards whose reconstruction has a decision due (its press
        settled, a position stable long enough), and with `full` the arbiter rules' timers
        and live round changes. False when a batch is still being made durable (try again
        a moment later). Each of these is a step of the batch (see `Committer.step`). The
        tick loop passes its `loop` (the batch's fsync in the worker thread); a
        synchronous caller passes none (in place, see `Committer.batch`)."""
        committer = self.committer
        if committer.syncing:
            return False
        now = self.time_source.now()
        due = self.hall.due_now(now)
        if not due and not full and not committer.waiting:
            return True
        with committer.batch(loop=loop):
            committer.handle_inbox()  # events read before now come first
            for number in due:
                self.hall.tick_board(number, now)
            if full:
                with committer.step("the arbiter rules' timers"):
                    committer.commit(committer.rules.tick(now, committer.state))
                with committer.step("the live round's boards"):
                    self.hall.attach_boards()
                for driver in self.drivers:
                    if isinstance(driver, BusDriver) and driver.last_cycle is not None:
                        committer.lag.bus(driver.last_cycle, driver.port)
                committer.check_journal_file(loop)
                self._missing_boards(now)
        committer.report_lag(loop)
        return True

    def _missing_boards(self, now: float) -> None:
        """A board that has not connected `MISSING_AFTER` seconds after the drivers
        started is a critical alert on the desk (once; closed when it connects): without
        it the desk said "No open alerts" while the board showed "never" and the reason
        was only in the log."""
        wait = max(MISSING_AFTER, MISSING_AFTER_REAL * self._speed)
        if self._started is None or now - self._started < wait:
            return
        health = self.committer.health
        for port, boards in self.hall.ports().items():
            for board in boards:
                if board.remote:
                    continue  # its station says (broadcast.stations.station_health)
                key = f"board-missing-{board.number}"
                if board.name is not None:  # it has connected (maybe lost since: not missing)
                    if health.clear(key):
                        log.info("board %d on %s has connected", board.number, port)
                    continue
                where = (
                    say(
                        "%(port)s, bus address %(address)s",
                        port=port,
                        address=board.config.address,
                    )
                    if board.config.address is not None
                    else port
                )
                message = say(
                    "Board %(board)s (port %(where)s) has not connected since the service "
                    "started at %(time)s UTC: the port does not exist or no board answers on "
                    "it. Check the USB cable and the board's power, or the port in the "
                    "event's config",
                    board=board.number,
                    where=where,
                    time=f"{utc(self._started):%H:%M:%S}",
                )
                if health.report(key, "board-missing", "critical", message, now):
                    log.warning("%s", message)

    async def _tick_loop(self) -> None:
        """Tick when reconstruction decisions fall due and at `tick_seconds`, until
        cancelled. It does not catch: a failing tick stops it, and its supervisor logs
        the error, alerts the desk and starts it again after a back-off (a tick that
        fails every time must not fill the log five times a second)."""
        loop = asyncio.get_running_loop()
        next_full = loop.time() + self.tick_seconds
        while True:
            wait = next_full - loop.time()
            if self.hall.due:
                soonest = (min(self.hall.due.values()) - self.time_source.now()) / self._speed
                wait = min(wait, max(soonest, MIN_WAKE))
            wait = max(wait, MIN_WAKE if self.committer.syncing else 0.0)
            asked = loop.time()
            await asyncio.sleep(wait)
            # A late wake-up is time the loop had no room for anyone, boards included.
            self.committer.lag.loop(loop.time() - asked - wait)
            if loop.time() >= next_full:
                if self.tick(loop=loop):
                    next_full = loop.time() + self.tick_seconds
            else:
                self.tick(full=False, loop=loop)


__all__ = ["MIN_WAKE", "MISSING_AFTER", "MISSING_AFTER_REAL", "Runtime", "supervise_driver"]
