"""`EventService`: one running event, a small facade over the rooms of `broadcast.service`.

    service = EventService(config, Journal(path), time=EpochTime())
    service.load()          # the state from the snapshot and the journal's tail
    await service.run()     # the boards' drivers and the clock tick, until stop()

What it is made of, one job each:

- `committer.Committer`: the commit path. Every input becomes journal events, folded into
  the one `EventState` and written in the journal's open transaction together, the arbiter
  rules react, and once durable it is announced (the public view, the listeners). Board
  batches (one fsync in a worker thread) and actions (durable before answered, undone
  whole when they cannot be); the inbox of driver events.
- `hall.Hall`: the hall boards, the game the live round puts on each, the reconstruction
  following it, and what a driver event means for its board. The committer builds it at
  construction: the hall commits through the committer, the committer hands it each
  driver event it drains and each game that gets a result.
- `action_log.ActionLog`: the arbiter's actions so far, and which an undo took back.
- `runtime.Runtime`: the drivers, the tick loop, the lag, under the `Supervisor`.

The facade is the read API (`config`, `time`, `state`, `tournament`, `book`, `hall`,
`journal`, `rules`, `health`, `supervisor`, `delay`, `listeners`, `action_log`,
`public_state()`, `alerts()`, `live_rounds()`, `unpaired_rounds()`) and the commit path
the actions go through: the arbiter's actions are values that come in through one door,
`broadcast.actions.act(service, command, by)`. docs/architecture.md ("The service", "One
door for the arbiter's actions") explains the choices.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Sequence
from functools import partial

from boards.driver_events import DriverEvent
from boards.drivers.bus import BusDriver, BusSettings
from boards.drivers.link import Opener, open_serial
from boards.drivers.single import SingleBoardDriver
from boards.recovery import KnownBoard
from broadcast.arbiter.alerts import Alert
from broadcast.arbiter.context import RulesConfig
from broadcast.arbiter.dispatch import ArbiterRules
from broadcast.config.model import EventConfig
from broadcast.games.book import GameBook
from broadcast.journal.kinds import JournalEvent, register_all
from broadcast.journal.store import Entry, Journal
from broadcast.service.action_log import ActionLog
from broadcast.service.committer import (
    ActionError,
    Committer,
    Listener,
    NotDurable,
)
from broadcast.service.delayed import DelayedView
from broadcast.service.event_state import EventState, PublicState
from broadcast.service.hall import Hall, HallBoard, utc
from broadcast.service.health import Health
from broadcast.service.overload import LagWatch
from broadcast.service.pairing_worker import PairingWorker
from broadcast.service.public_view import PublicView
from broadcast.service.runtime import Runtime
from broadcast.service.snapshot import Snapshots
from broadcast.service.supervisor import Backoff, Supervisor
from broadcast.tournament.live_round import RoundStartMoved, StartOverrides, unpaired_rounds
from broadcast.tournament.news import Held, held_news
from broadcast.tournament.registration import registration_changes, round_robin_pairings
from broadcast.tournament.tournament_state import TournamentState, registration_events
from clocks.timesource import EpochTimeSource

log = logging.getLogger(__name__)


def _shows(item: Held, live: TournamentState, snapshot: PublicState) -> bool:
    return item.shown_in(snapshot.tournament, live)


class EventService:
    """Runs one event. `time` must give seconds since the Unix epoch (UTC).

    `health` holds the system's own alerts for the desk (a new one unless given);
    `supervisor` runs every long-running task of the event (drivers, the tick; the
    publishers, the web hub and emulated players are started on it too) and reports a
    task that fails to `health`. `restart_backoff` sets its restart timing. Its parts are
    `committer` (the commit path), the hall (read through `hall`), and `runtime` (the
    drivers and the tick loop); the actions are `actions`' functions over it."""

    def __init__(
        self,
        config: EventConfig,
        journal: Journal,
        *,
        time_source: EpochTimeSource,
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
        self.time_source = time_source
        self.health = health if health is not None else Health()
        self.delay = float(config.broadcast_delay_seconds if delay is None else delay)
        self._live_round_request = live_round
        self.action_log = ActionLog()
        # The committer builds the hall with itself (the hall commits through it) and
        # hands it each driver event and result; the action log hears every durable batch.
        self.committer: Committer[Hall] = Committer(
            config,
            journal,
            ArbiterRules(config, rules, state=EventState.new(config)),
            time_source=time_source,
            health=self.health,
            delay=self.delay,
            hall=partial(
                Hall,
                config,
                time_source=time_source,
                port_overrides=port_overrides,
                retry_seconds=tick_seconds * time_source.speed,
            ),
            listeners=[self.action_log.on_entries],
            overload_after=overload_after,
            snapshots=snapshots,
        )
        self._hall = self.committer.hall
        self._public_view = PublicView(self)
        # The one FIDE Dutch worker of the running event (the desk, the API, `serve --sim`).
        self.pairer = PairingWorker()
        self.supervisor = Supervisor(self.health, now=time_source.now, backoff=restart_backoff)
        self.runtime = Runtime(
            self.committer,
            self._hall,
            self.supervisor,
            time_source=time_source,
            opener=opener,
            tick_seconds=tick_seconds,
            bus_settings=bus_settings,
        )

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
    def drivers(self) -> list[SingleBoardDriver | BusDriver]:
        """The boards' drivers `run` started, one per port."""
        return self.runtime.drivers

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

    def held_news(self) -> list[tuple[Held, float | None]]:
        """The news the public does not see yet because it follows from results the
        delay still hides (a Swiss round's pairings, a withdrawal for no-shows, a play-off
        game), each with when the public sees it (None: with a snapshot still to come)."""
        live = self.tournament
        public = self.public_state().tournament
        if public is live:
            return []
        now = self.time_source.now()
        out = []
        for item in held_news(public, live):
            if item.grounds:
                when = self.public.shown_from(now, partial(_shows, item, live))
                out.append((item, when))
        return out

    # -- the commit path (committer.py) -------------------------------------------------------

    def commit(self, events: Sequence[JournalEvent], *, game: str | None = None) -> list[Entry]:
        """See `Committer.commit`."""
        return self.committer.commit(events, game=game)

    def action(self) -> contextlib.AbstractContextManager[None]:
        """See `Committer.action`."""
        return self.committer.action()

    def rules_until_now(self) -> None:
        """The arbiter rules' timers up to now, in the open transaction: an action starts
        after what time brought (a default time due, a warning), which is not its doing."""
        with self.committer.step("the arbiter rules' timers"):
            self.commit(self.rules.tick(self.time_source.now(), self.state))

    def action_entries(self) -> list[Entry]:
        """What the open action has stored so far (see `Committer.action_entries`)."""
        return self.committer.action_entries()

    def batch(self) -> contextlib.AbstractContextManager[None]:
        """Board events in one transaction, made durable in place (see `Committer.batch`)."""
        return self.committer.batch()

    def queue_driver_event(self, port: str, event: DriverEvent) -> None:
        """A driver read `event`: it is handled with the others read within BATCH_SECONDS."""
        self.committer.queue_driver_event(port, event)

    def drain(self) -> None:
        """On the loop: handle every queued driver event now, in one batch."""
        self.committer.drain()

    def drain_system(self) -> None:
        """Commit the service's own alerts waiting for a batch."""
        self.committer.drain_system()

    def load(self) -> None:
        """Rebuild the state from the newest snapshot that fits and the journal after it;
        a new journal gets the registrations and the round-robin pairings; `--round R`
        moves that round's start to now."""
        self.committer.restore()
        self.action_log.load(self.journal)
        if self._live_round_request is not None:
            # First, so that round R is the round being played when its pairings arrive.
            now = utc(self.time_source.now())
            self.commit(
                [
                    RoundStartMoved(s.name, self._live_round_request, now)
                    for s in self.config.sections
                ]
            )
        if self.last_seq == 0 or not any(s.players for s in self.tournament.sections.values()):
            self.commit(list(registration_events(self.config)))
            self.commit(round_robin_pairings(self.config, self.tournament))
        for line in self.config_changes():
            log.warning("config changed after the start: %s", line)
        self.attach_boards()

    def config_changes(self) -> tuple[str, ...]:
        """What the config says differently from the players the event registered (each
        line says what the service does about it, and how to apply what can be applied);
        empty when they agree. Read from the state each time: a late entry made at the
        desk ends the notice that asked for it."""
        return tuple(
            line
            for s in self.config.sections
            for line in registration_changes(s, self.tournament.section(s.name))
        )

    # -- the hall (hall.py) -------------------------------------------------------------------

    def known_board(self, name: str | None) -> KnownBoard | None:
        """What the journal knew of DGT board `name` (see `Hall.known_board`)."""
        return self._hall.known_board(name)

    def next_decision(self) -> float | None:
        """When the next reconstruction decision of any board falls due (event time)."""
        return min(self._hall.due.values(), default=None)

    def live_rounds(self) -> dict[str, int | None]:
        """Each section's round being played now (None: none), as the hall and the desk
        see it (the public's: `public_view`)."""
        return self._hall.live_rounds()

    @property
    def public_view(self) -> PublicView:
        """The event as spectators may see it: every public output reads this."""
        return self._public_view

    def attach_boards(self) -> None:
        """Point every hall board at the game its section's live round puts on it."""
        self._hall.attach_boards()

    def on_driver_event(self, port: str, event: DriverEvent) -> None:
        """A driver's event for the board on `port` (see `Hall.on_driver_event`)."""
        self._hall.on_driver_event(port, event)

    # -- what the arbiter reads, and what the actions call ------------------------------------

    def alerts(self) -> list[Alert]:
        """The rules' alerts the arbiter has not acknowledged yet, oldest first (the
        system's own, `health`, the desk shows before them)."""
        return self.rules.open_alerts()

    def refollow(self, game_id: str) -> None:
        """After a correction of `game_id`: its board follows the corrected game."""
        self._hall.refollow(game_id)

    def unpaired_rounds(self) -> dict[str, int]:
        """Sections with a round due and not paired, and that round."""
        return unpaired_rounds(
            self.config, self.tournament, utc(self.time_source.now()), self.start_overrides
        )

    # -- running (runtime.py) -----------------------------------------------------------------

    async def run(self) -> None:
        """Start every board's driver and the clock tick; run until `stop()`."""
        await self.runtime.run()

    def stop(self) -> None:
        self.runtime.stop()

    def tick(self, *, full: bool = True) -> bool:
        """Time passes (see `Runtime.tick`); False while a batch is being made durable."""
        return self.runtime.tick(full=full)


__all__ = [
    "ActionError",
    "EventService",
    "HallBoard",
    "NotDurable",
    "PublicState",
]
