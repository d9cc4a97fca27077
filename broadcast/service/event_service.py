"""The running event: boards, games, rules, journal and listeners wired together.

The I/O shell around the pure core. Every input (a driver event, an arbiter action,
the passing of time) becomes events; events are folded into a new `EventState` value
and appended to the journal's open transaction together (a commit is all or nothing),
then the arbiter rules react to them (what they raise is committed the same way), and
once the transaction is durable everything is announced to listeners (the web hub,
exporters). A restart rebuilds the state from the newest valid snapshot and the
journal's tail, and reconnects to the boards, whose drivers read back what happened
meanwhile. docs/architecture.md ("The commit path") explains the choices.

Two kinds of transaction:

- **Board batches.** Driver events are queued as they are read (stamped by the driver at
  reading) and handled together every BATCH_SECONDS, in one journal transaction: with
  hundreds of boards that is one fsync per batch, and the fsync runs in a worker thread
  so that the boards' lines are served meanwhile. Each step of a batch (one driver
  event, one board's due decision, the rules' timers, the live-round changes) is
  guarded: a step that fails is logged once with its traceback and raised as a critical
  alert, and what the steps before it (and it) committed stays, in the state and in the
  journal alike. While the disk cannot take a batch, its rows are held in memory (the
  boards' logs give them back if the process dies meanwhile).
- **Actions** (`action()`; a `commit()` outside any transaction is one): an arbiter's
  decision, in a transaction of its own that it waits for. It starts only once earlier
  board events are durable, and returns only once its own rows are synced; otherwise
  `NotDurable` (answered 503), and the state, the rules and the hall boards' followers
  are put back as they were: nothing of it is applied.

Nothing is announced (listeners, the web hub, the public view, exports) before its
transaction is durable; only a live arbiter API read can see a batch's state during its
fsync. Reconstruction decisions are ticked when they fall due (the press settled, the
position stable), not at a fixed pace. When the service falls behind, the arbiter gets an
alert and the log says by how much; no event is ever dropped. docs/performance.md has the
figures.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import partial

from boards.drivers.bus import BusDriver, BusSettings
from boards.drivers.link import Opener, open_serial
from boards.drivers.single import SingleBoardDriver
from boards.events import DriverEvent
from boards.recovery import KnownBoard
from broadcast.arbiter.alerts import Alert
from broadcast.arbiter.rules import ArbiterRules, RulesConfig
from broadcast.config.model import EventConfig
from broadcast.fide.pairing import Pairing
from broadcast.games.book import GameBook
from broadcast.games.events import (
    ResultProposed,
)
from broadcast.journal.kinds import JournalEvent, register_all
from broadcast.journal.store import Entry, Journal
from broadcast.service import actions
from broadcast.service.actions import how_to_pair
from broadcast.service.committer import (
    ActionError,
    Committer,
    Listener,
    NotDurable,
    PublicState,
)
from broadcast.service.delayed import DelayedView
from broadcast.service.hall import Hall, HallBoard, utc
from broadcast.service.health import Health
from broadcast.service.overload import LagWatch
from broadcast.service.snapshot import Snapshots
from broadcast.service.state import EventState
from broadcast.service.supervisor import Backoff, SupervisedTask, Supervisor
from broadcast.tournament.events import (
    TournamentEvent,
)
from broadcast.tournament.live_round import (
    RoundStartMoved,
    StartOverrides,
)
from broadcast.tournament.state import (
    TournamentState,
    registration_events,
)
from clocks.timesource import TimeSource

log = logging.getLogger(__name__)

MIN_WAKE = 0.01  # real seconds: the tick loop never wakes more often than this


class EventService:
    """Runs one event. `time` must give seconds since the Unix epoch (UTC).

    `health` holds the system's own alerts for the desk (a new one unless given);
    `supervisor` runs every long-running task of the event (drivers, the tick; the
    publishers, the web hub and emulated players are started on it too) and reports a
    task that fails to `health`. `restart_backoff` sets its restart timing."""

    def __init__(
        self,
        config: EventConfig,
        journal: Journal,
        *,
        time: TimeSource,
        opener: Opener = open_serial,
        port_overrides: dict[int, str] | None = None,
        live_round: int | None = None,
        tick_seconds: float = 0.2,
        delay: float | None = None,
        rules: RulesConfig | None = None,
        overload_after: float = 1.0,
        bus_settings: BusSettings | None = None,
        health: Health | None = None,
        restart_backoff: Backoff | None = None,
        snapshots: bool = True,
    ) -> None:
        register_all()
        self.config = config
        self.time = time
        self.opener = opener
        self.tick_seconds = tick_seconds
        self.health = health if health is not None else Health()
        self.delay = float(config.broadcast_delay_seconds if delay is None else delay)
        self.committer = Committer(
            config,
            journal,
            ArbiterRules(config, rules),
            time=time,
            health=self.health,
            delay=self.delay,
            overload_after=overload_after,
            snapshots=snapshots,
        )
        self._hall = Hall(
            config,
            self.committer,
            time=time,
            port_overrides=port_overrides,
            retry_seconds=tick_seconds * float(getattr(time, "speed", 1.0)),
        )
        self.committer.handle = self._hall.on_driver_event
        self.committer.on_result = self._hall.unfollow
        self.committer.undo_parts += [self._hall.undo_part, self._undo_part]
        self._live_round_request = live_round
        self._drivers: list[SingleBoardDriver | BusDriver] = []
        self.supervisor = Supervisor(self.health, now=time.now, backoff=restart_backoff)
        self._tasks: list[SupervisedTask] = []  # what run() started (and stops)
        self._stopping = asyncio.Event()
        self.imported_byes: actions.ImportedByes = {}  # see actions.imported_pairings
        self.bus_settings = bus_settings
        self._speed = float(getattr(time, "speed", 1.0))  # event seconds per real second

    def _undo_part(self) -> Callable[[], None]:
        byes = dict(self.imported_byes)

        def restore() -> None:
            self.imported_byes = byes

        return restore

    # -- the read API (what web/ and the commands read) ---------------------------------------

    @property
    def state(self) -> EventState:
        """Everything the journal says, folded (an immutable value)."""
        return self.committer.state

    @state.setter
    def state(self, value: EventState) -> None:
        self.committer.state = value

    @property
    def hall(self) -> dict[int, HallBoard]:
        """The hall boards by number (see `Hall`)."""
        return self._hall.boards

    @property
    def journal(self) -> Journal:
        return self.committer.journal

    @property
    def rules(self) -> ArbiterRules:
        return self.committer.rules

    @property
    def listeners(self) -> list[Listener]:
        """Called with every durable batch of entries (the web hub, exporters)."""
        return self.committer.listeners

    @property
    def public(self) -> DelayedView[PublicState]:
        return self.committer.public

    @property
    def snapshots(self) -> Snapshots:
        return self.committer.snapshots

    @property
    def lag(self) -> LagWatch:
        return self.committer.lag

    @property
    def events_stored(self) -> int:
        """Journal entries written since start (for benchmarks)."""
        return self.committer.events_stored

    @property
    def replayed(self) -> int:
        """Journal events replayed by `load` (after the snapshot)."""
        return self.committer.replayed

    @property
    def _inbox(self) -> list[tuple[str, DriverEvent, float]]:
        return self.committer._inbox

    @property
    def _syncer(self) -> ThreadPoolExecutor:
        return self.committer._syncer

    @property
    def tournament(self) -> TournamentState:
        return self.state.tournament

    @property
    def book(self) -> GameBook:
        return self.state.book

    @property
    def start_overrides(self) -> StartOverrides:
        return self.state.start_overrides

    @property
    def last_seq(self) -> int:
        return self.state.seq

    @property
    def syncing(self) -> bool:
        """A batch's commit (its fsync) is running in the worker thread."""
        return self.committer.syncing

    def public_state(self) -> PublicState:
        """The state as the broadcast delay allows the public to see it now."""
        return self.committer.public_state()

    # -- the commit path (committer.py) -------------------------------------------------------

    def commit(self, events: Sequence[JournalEvent], *, game: str | None = None) -> list[Entry]:
        """See `Committer.commit`."""
        return self.committer.commit(events, game=game)

    def action(self) -> contextlib.AbstractContextManager[None]:
        """See `Committer.action`."""
        return self.committer.action()

    def batch(self, *, in_place: bool = False) -> contextlib.AbstractContextManager[None]:
        """See `Committer.batch`."""
        return self.committer.batch(in_place=in_place)

    def queue_driver_event(self, port: str, event: DriverEvent) -> None:
        """A driver read `event`: it is handled with the others read within BATCH_SECONDS."""
        self.committer.queue_driver_event(port, event)

    def drain(self) -> None:
        """Handle every queued driver event now, in one batch."""
        self.committer.drain()

    def drain_system(self) -> None:
        """Commit the service's own alerts waiting for a batch."""
        self.committer.drain_system()

    def load(self) -> None:
        """Rebuild the state from the newest snapshot that fits and the journal after it;
        a new journal gets the registrations and the round-robin pairings; `--round R`
        moves that round's start to now."""
        self.committer.restore()
        if self._live_round_request is not None:
            # First, so that round R is the round being played when its pairings arrive.
            now = utc(self.time.now())
            self.commit(
                [
                    RoundStartMoved(s.name, self._live_round_request, now)
                    for s in self.config.sections
                ]
            )
        if self.last_seq == 0 or not any(s.players for s in self.tournament.sections.values()):
            self.commit(list(registration_events(self.config)))
            self.commit(actions.round_robin_pairings(self))
        self.attach_boards()

    # -- the commit path ---------------------------------------------------------------------

    def known_board(self, name: str | None) -> KnownBoard | None:
        """What the journal knew of DGT board `name` (see `Hall.known_board`)."""
        return self._hall.known_board(name)

    def live_rounds(self) -> dict[str, int | None]:
        """Each section's round being played now (None: none)."""
        return self._hall.live_rounds()

    def attach_boards(self) -> None:
        """Point every hall board at the game its section's live round puts on it."""
        self._hall.attach_boards()

    def on_driver_event(self, port: str, event: DriverEvent) -> None:
        """A driver's event for the board on `port` (see `Hall.on_driver_event`)."""
        self._hall.on_driver_event(port, event)

    def tick(self, *, full: bool = True) -> bool:
        """Time passes: the boards whose reconstruction has a decision due (its press
        settled, a position stable long enough), and with `full` the arbiter rules' timers
        and live round changes. False when a batch is still being made durable (try again
        a moment later). Each of these is a step of the batch (see `_step`)."""
        if self.syncing:
            return False
        now = self.time.now()
        due = self._hall.due_now(now)
        if not due and not full and not self.committer.waiting:
            return True
        with self.batch():
            self.committer.handle_inbox()  # events read before now come first
            for number in due:
                self._hall.tick_board(number, now)
            if full:
                with self.committer.step("the arbiter rules' timers"):
                    self.commit(self.rules.tick(now))
                with self.committer.step("the live round's boards"):
                    self.attach_boards()
                for driver in self._drivers:
                    if isinstance(driver, BusDriver) and driver.last_cycle is not None:
                        self.lag.bus(driver.last_cycle, driver.port)
                self.committer.check_journal_file()
        self.committer.report_lag()
        return True

    # -- arbiter actions and pairings (actions.py; each one journaled with who did it) -------

    def alerts(self) -> list[Alert]:
        """The rules' alerts the arbiter has not acknowledged yet, oldest first (the
        system's own, `health`, the desk shows before them)."""
        return self.rules.open_alerts()

    def acknowledge(self, alert_id: str, by: str) -> None:
        actions.acknowledge(self, alert_id, by)

    def mark_present(self, game_id: str, colour: str, by: str) -> None:
        actions.mark_present(self, game_id, colour, by)

    def set_result(self, game_id: str, result: str, by: str, reason: str = "arbiter") -> None:
        actions.confirm_result(self, game_id, result, by, reason)

    def confirm_proposal(self, game_id: str, by: str) -> None:
        actions.confirm_proposal(self, game_id, by)

    def propose(self, proposal: ResultProposed) -> None:
        actions.propose(self, proposal)

    def correct_line(self, game_id: str, ucis: Sequence[str], by: str) -> None:
        actions.correct_line(self, game_id, ucis, by)

    def set_start_fen(self, game_id: str, fen: str, by: str) -> None:
        actions.set_start_fen(self, game_id, fen, by)

    def refollow(self, game_id: str) -> None:
        """After a correction of `game_id`: its board follows the corrected game."""
        self._hall.refollow(game_id)

    def dutch_pairings(self, section: str, round_number: int) -> tuple[Pairing, ...]:
        return actions.dutch_pairings(self, section, round_number)

    def imported_pairings(
        self, section: str, round_number: int, trf_text: str
    ) -> tuple[Pairing, ...]:
        return actions.imported_pairings(self, section, round_number, trf_text)

    def publish_pairings(
        self, section: str, round_number: int, pairings: Sequence[Pairing], source: str, by: str
    ) -> None:
        actions.publish_pairings(self, section, round_number, pairings, source, by)

    def tournament_event(self, event: TournamentEvent) -> None:
        actions.tournament_event(self, event)

    def unpaired_rounds(self) -> dict[str, int]:
        return actions.unpaired_rounds(self)

    def pair_unpaired(self, by: str) -> list[str]:
        return actions.pair_unpaired(self, by)

    # -- running -----------------------------------------------------------------------------------

    async def run(self) -> None:
        """Start every board's driver and the clock tick; run until `stop()`."""
        for port, boards in self._hall.ports().items():
            emit = self._emitter(port)
            addresses = [b.config.address for b in boards if b.config.address is not None]
            driver: SingleBoardDriver | BusDriver
            # What the journal knew of these boards: their logs fill the gap of a restart.
            known = [
                k
                for b in boards
                if (k := self._hall.known_board(b.name) or self._hall.first_start(b)) is not None
            ]
            if addresses or len(boards) > 1:
                driver = BusDriver(
                    port,
                    emit,
                    time=self.time,
                    opener=self.opener,
                    addresses=addresses,
                    known=known,
                    settings=self.bus_settings,
                )
            else:
                driver = SingleBoardDriver(
                    port,
                    emit,
                    time=self.time,
                    opener=self.opener,
                    known=known[0] if known else None,
                )
            self._drivers.append(driver)
            self._tasks.append(
                self.supervisor.start(
                    f"the driver for {port}",
                    driver.run,
                    stops=f"The boards on {port} are not read until it runs again.",
                    on_failure=partial(self._driver_failed, port),
                )
            )
        self._tasks.append(
            self.supervisor.start(
                "the clock tick",
                self._tick_loop,
                stops="Default times, flag falls, silent boards and round changes are not "
                "checked, and moves wait to be decided, until it runs again.",
            )
        )
        await self._stopping.wait()
        for d in self._drivers:
            d.stop()
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            await task.stop()  # each failure was logged when it happened
        # What the drivers said last (their BoardLost) is kept too, and all of it durable.
        await self.committer.flush()

    def _driver_failed(self, port: str, exc: Exception) -> None:
        """A driver's run() raised: its boards are not followed until it runs again, and
        the desk must not show them connected meanwhile."""
        why = f"its driver stopped on a software error ({type(exc).__name__})"
        for lost in self._hall.lost_on(port, why):
            self.queue_driver_event(port, lost)

    def _emitter(self, port: str) -> Callable[[DriverEvent], None]:
        def emit(event: DriverEvent) -> None:
            self.queue_driver_event(port, event)

        return emit

    async def _tick_loop(self) -> None:
        """Tick when reconstruction decisions fall due and at `tick_seconds`, until
        cancelled. It does not catch: a failing tick stops it, and its supervisor logs
        the error, alerts the desk and starts it again after a back-off (a tick that
        fails every time must not fill the log five times a second)."""
        loop = asyncio.get_running_loop()
        next_full = loop.time() + self.tick_seconds
        while True:
            wait = next_full - loop.time()
            if self._hall.due:
                soonest = (min(self._hall.due.values()) - self.time.now()) / self._speed
                wait = min(wait, max(soonest, MIN_WAKE))
            wait = max(wait, MIN_WAKE if self.syncing else 0.0)
            asked = loop.time()
            await asyncio.sleep(wait)
            # A late wake-up is time the loop had no room for anyone, boards included.
            self.lag.loop(loop.time() - asked - wait)
            if loop.time() >= next_full:
                if self.tick():
                    next_full = loop.time() + self.tick_seconds
            else:
                self.tick(full=False)

    def stop(self) -> None:
        self._stopping.set()


__all__ = [
    "ActionError",
    "EventService",
    "HallBoard",
    "NotDurable",
    "PublicState",
    "how_to_pair",
]
