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
import concurrent.futures
import contextlib
import datetime as dt
import logging
import time as _real
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from functools import partial

from boards.drivers.bus import BusDriver, BusSettings
from boards.drivers.link import Opener, open_serial
from boards.drivers.single import SingleBoardDriver
from boards.events import BoardConnected, BoardLost, DriverEvent, PositionSeen
from boards.reconstruction import Reconstructor
from boards.recovery import KnownBoard
from broadcast.arbiter.alerts import Alert, AlertAcknowledged, PlayerMarkedPresent
from broadcast.arbiter.context import RulesConfig
from broadcast.arbiter.engine import ArbiterRules, RulesMemory
from broadcast.config.model import BoardConfig, EventConfig
from broadcast.fide.berger import berger_round
from broadcast.fide.dutch import PairingError, pair_round
from broadcast.fide.pairing import Pairing
from broadcast.fide.pairing_import import PairingImportError, import_round
from broadcast.fide.trf import TrfError, read_trf
from broadcast.games.book import GameBook, section_boards
from broadcast.games.events import (
    BoardAttached,
    GameFlag,
    LineCorrected,
    ResultConfirmed,
    ResultProposed,
    StartPositionSet,
)
from broadcast.games.from_board import BoardToGame
from broadcast.games.ids import GameKey
from broadcast.games.state import GameError, GameState
from broadcast.journal.kinds import JournalEvent, register_all
from broadcast.journal.store import Entry, Journal, JournalError, JournalUnavailable, Transaction
from broadcast.service.delayed import DelayedView
from broadcast.service.health import SYSTEM_PREFIX, Health
from broadcast.service.overload import LagWatch
from broadcast.service.snapshot import Snapshots
from broadcast.service.state import BoardStatus, EventState
from broadcast.service.supervisor import Backoff, SupervisedTask, Supervisor
from broadcast.tournament.events import (
    BoardAssigned,
    PairingEdited,
    PlayersRegistered,
    PlayerWithdrawn,
    PlayoffGamePaired,
    ResultRecorded,
    RoundPaired,
    TournamentEvent,
)
from broadcast.tournament.live_round import (
    RoundStartMoved,
    StartOverrides,
    current_round,
    due_round,
)
from broadcast.tournament.playoff import time_control_for
from broadcast.tournament.state import (
    SectionState,
    StateError,
    TournamentState,
    registration_events,
)
from clocks.clocktimes import FlagFell
from clocks.reading import NoClock
from clocks.timesource import EpochTimeSource

log = logging.getLogger(__name__)

# Tournament news that the broadcast delay does not hide: who plays whom, and where.
PUBLIC_AT_ONCE = (
    PlayersRegistered,
    RoundPaired,
    PairingEdited,
    BoardAssigned,
    PlayerWithdrawn,
    PlayoffGamePaired,
)

# Broadcast result notation -> the tournament's result codes.
TOURNAMENT_RESULT = {
    "1-0": "1-0",
    "0-1": "0-1",
    "1/2-1/2": "1/2-1/2",
    "+/-": "+-",
    "-/+": "-+",
    "-/-": "--",
}

Listener = Callable[[Sequence[Entry]], None]

MIN_WAKE = 0.01  # real seconds: the tick loop never wakes more often than this
# Real seconds board events wait to be handled together: a bus line answers in many small
# replies, each its own loop turn; one batch (one fsync, one web update) per turn would
# leave the loop little time for the lines themselves with hundreds of boards.
BATCH_SECONDS = 0.02
FILE_CHECK_SECONDS = 1.0  # real seconds between two looks at the journal's file


class ActionError(ValueError):
    """An arbiter action that cannot be done; the message says why (shown to the arbiter)."""


class NotDurable(JournalError):
    """An arbiter action that could not be made durable (a full disk, the journal's file
    gone): nothing of it was applied. The message says why (answered 503)."""


@dataclass
class HallBoard:
    """One physical board of the hall: its place (config), the game the live round puts on
    it and the reconstruction following it; what the board said about itself comes from
    the service's state (`name`, `connected`, ...)."""

    config: BoardConfig
    state: Callable[[], EventState] = field(repr=False, compare=False)
    alone: bool = True  # the only board on its port (a single-board line)
    game: str | None = None
    follower: BoardToGame | None = None
    history: list[str] = field(default_factory=list)

    @property
    def number(self) -> int:
        return self.config.number

    @property
    def name(self) -> str | None:
        """The DGT board's serial number once it has connected."""
        return self.state().name_at(self.config.port, self.config.address, alone=self.alone)

    @property
    def status(self) -> BoardStatus:
        return self.state().status_of(self.name)

    @property
    def connected(self) -> bool:
        return self.status.connected

    @property
    def battery(self) -> int | None:
        return self.status.battery

    @property
    def clock_present(self) -> bool | None:
        return self.status.clock_present

    @property
    def last_seen(self) -> float | None:
        return self.status.last_seen

    @property
    def missed_polls(self) -> int:
        return self.status.missed_polls


@dataclass(frozen=True, slots=True)
class PublicState:
    """What spectators may see, as of some moment (immutable values)."""

    tournament: TournamentState
    book: GameBook
    seq: int = 0


@dataclass
class _Open:
    """The open journal transaction: a board batch's or an action's."""

    txn: Transaction
    action: bool
    entries: list[Entry] = field(default_factory=list)


@dataclass
class _InFlight:
    """A board batch whose commit (its fsync) runs in the worker thread."""

    entries: list[Entry]
    future: concurrent.futures.Future[None]
    done: bool = False


@dataclass(frozen=True)
class _Undo:
    """What an action puts back when it cannot be made durable."""

    state: EventState
    rules: RulesMemory
    hall: dict[int, tuple[str | None, BoardToGame | None]]
    due: dict[int, float]
    imported_byes: dict[tuple[str, int, tuple[Pairing, ...]], tuple[tuple[int, str], ...]]


def how_to_pair(section: str, number: int) -> str:
    """What to tell a user whose live round has no pairings (the log, the home page)."""
    from broadcast.games.ids import slug

    return (
        f"round {number} of {section} is not paired, so no game is followed: pair it on the "
        f"arbiter desk (FIDE Dutch, or import the pairing program's TRF), or POST "
        f'{{"engine": "dutch"}} or {{"trf": "..."}} to '
        f"/api/v1/arbiter/sections/{slug(section)}/rounds/{number}/pairings"
    )


def utc(t: float) -> dt.datetime:
    return dt.datetime.fromtimestamp(t, dt.UTC)


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
        time: EpochTimeSource,
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
        self.journal = journal
        self.time = time
        self.opener = opener
        self.tick_seconds = tick_seconds
        self.state = EventState.new(config)
        self.rules = ArbiterRules(config, rules, state=self.state)  # they read self.state
        self.listeners: list[Listener] = []
        overrides = port_overrides or {}
        placed = [replace(b, port=overrides.get(b.number, b.port)) for b in config.boards]
        per_port: dict[str, int] = defaultdict(int)
        for b in placed:
            per_port[b.port] += 1
        self.hall: dict[int, HallBoard] = {
            b.number: HallBoard(b, self._current, alone=per_port[b.port] == 1) for b in placed
        }
        self._on_port: dict[str, list[HallBoard]] = defaultdict(list)
        for board in self.hall.values():
            self._on_port[board.config.port].append(board)
        unknown = set(overrides) - set(self.hall)
        if unknown:
            raise ActionError(f"--board names boards not in the config: {sorted(unknown)}")
        self._live_round_request = live_round
        self._drivers: list[SingleBoardDriver | BusDriver] = []
        self.health = health if health is not None else Health()
        self.supervisor = Supervisor(self.health, now=time.now, backoff=restart_backoff)
        self._tasks: list[SupervisedTask] = []  # what run() started (and stops)
        self._stopping = asyncio.Event()
        self._imported_byes: dict[
            tuple[str, int, tuple[Pairing, ...]], tuple[tuple[int, str], ...]
        ] = {}
        self.delay = float(config.broadcast_delay_seconds if delay is None else delay)
        self.public: DelayedView[PublicState] = DelayedView(
            self.delay, PublicState(self.tournament, self.book)
        )
        # Driver events waiting for this loop turn's batch: (port, event, real time queued).
        self._inbox: list[tuple[str, DriverEvent, float]] = []
        self._drain_scheduled = False
        self._open: _Open | None = None  # the open transaction (a batch or an action)
        self._inflight: _InFlight | None = None  # a batch being made durable in `_syncer`
        self._system: list[JournalEvent] = []  # the service's own alerts, for the next batch
        self.lag = LagWatch(overload_after)
        self.bus_settings = bus_settings
        self.events_stored = 0  # journal entries written since start (for benchmarks)
        self._due: dict[int, float] = {}  # hall board -> its next reconstruction decision
        self._speed = time.speed  # event seconds per real second
        self._syncer = ThreadPoolExecutor(1, thread_name_prefix="journal-sync")
        # The service's own troubles (a failing rule, a step of a batch) go to `health`
        # too: desk alerts that are not journal events.
        self._faults: dict[str, int] = {}
        self._file_checked = 0.0
        self.replayed = 0  # journal events replayed by `load` (after the snapshot)
        self.snapshots = Snapshots(journal, config, self.rules.config, enabled=snapshots)

    # -- state ---------------------------------------------------------------------------------

    def _current(self) -> EventState:
        return self.state

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
        return self._inflight is not None

    def load(self) -> None:
        """Rebuild the state from the newest snapshot that fits and the journal after it;
        a new journal gets the registrations and the round-robin pairings; `--round R`
        moves that round's start to now."""
        restored = self.snapshots.restore()
        if restored is not None:
            self.state = restored.state
            self.rules.recall(restored.rules, restored.state)
            self.public = DelayedView(self.delay, restored.public)
            self.public.record(restored.t, PublicState(self.tournament, self.book, self.last_seq))
        replayed = 0
        for entry in self.journal.read(self.state.seq):
            self._replay(entry)
            replayed += 1
        self.replayed = replayed
        if restored is not None or replayed:
            log.info(
                "journal %s: %s, then %d event(s) replayed",
                self.journal.path,
                f"snapshot at event {restored.state.seq}" if restored else "no snapshot",
                replayed,
            )
        self.snapshots.loaded(self.state.seq, replayed)
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
            self.commit(self._round_robin_pairings())
        self.attach_boards()

    def _replay(self, entry: Entry) -> None:
        try:
            self.state = self.state.apply(entry.event, entry.seq)
        except (GameError, StateError) as exc:
            # The service never journals what does not fold (it folds first); an older
            # boardwire did, and its live state went on without it: so does the replay.
            log.warning("journal event %d does not fit (%s): skipped", entry.seq, exc)
            self.state = self.state.at(entry.seq)
        self._publish(entry.t, [entry])
        self.public.at(self.time.now())  # keep only what can still be shown
        self.rules.restore(entry.event, self.state)

    def _round_robin_pairings(self) -> list[RoundPaired]:
        out = []
        for section in self.config.sections:
            if section.system not in ("round-robin", "double-round-robin"):
                continue
            n = len(section.players)
            cycles = 2 if section.system == "double-round-robin" else 1
            for r in range(1, section.rounds + 1):
                if r not in self.tournament.section(section.name).rounds:
                    out.append(
                        RoundPaired(section.name, r, tuple(berger_round(n, r, cycles)), "berger")
                    )
        return out

    def _publish(self, t: float, entries: Sequence[Entry]) -> None:
        """Record the public snapshot; news that is public at once reaches older snapshots too."""
        immediate = [e.event for e in entries if isinstance(e.event, PUBLIC_AT_ONCE)]
        if immediate:

            def amend(state: PublicState) -> PublicState:
                try:
                    tournament = state.tournament
                    for event in immediate:
                        tournament = tournament.apply(event)
                except StateError:
                    return state  # does not fit that older moment: it stays as it was
                return PublicState(tournament, state.book.synced(tournament), state.seq)

            self.public.amend(amend)
        self.public.record(t, PublicState(self.tournament, self.book, self.last_seq))

    def known_board(self, name: str | None) -> KnownBoard | None:
        memory = self.state.memory.get(name) if name is not None else None
        if name is None or memory is None:
            return None
        return KnownBoard(name, memory.position, memory.recent, memory.last_heard)

    def _first_start(self, board: HallBoard) -> KnownBoard | None:
        """A board the journal never saw whose game is under way: its driver rebuilds the
        game from the board's log since the pieces were set up."""
        if board.game is None:
            return None
        game = self.book.games.get(board.game)
        if game is None or game.moves or game.result is not None:
            return None
        serial = board.name or (
            "" if board.config.address is None else f"{board.config.address:05d}"
        )
        return KnownBoard(serial, None, (), self.time.now())

    # -- the commit path ---------------------------------------------------------------------

    def commit(self, events: Sequence[JournalEvent], *, game: str | None = None) -> list[Entry]:
        """Fold, then journal (in the open transaction), then let the arbiter rules react,
        and commit what they raise the same way. `game` names the game of events that carry
        none (a flag fall from a board's clock). Returns every entry stored.

        Outside a batch or an action this is an action of its own (see `action()`): it
        returns once durable, or raises NotDurable with nothing applied. Events that do
        not fit the state (GameError, StateError) raise before anything is kept; the rules
        failing is logged and alerted, and never undoes the events they reacted to."""
        if not events:
            return []
        if self._open is None:
            with self.action():
                return self.commit(events, game=game)
        stored, states = self._store(list(events))
        pending: list[JournalEvent] = []
        for entry, state in zip(stored, states, strict=True):
            try:
                for raised in pending:  # stored after these events, but the rules saw them
                    state = state.apply(raised)
                pending += self.rules.observe(entry.event, state, game=game)
            except Exception as exc:
                self._fault("the arbiter rules", exc, entry.event)
        if pending:
            try:
                stored += self._store(pending)[0]
            except Exception as exc:
                self._fault("the arbiter rules' events", exc, pending[0])
        return stored

    def _store(self, events: list[JournalEvent]) -> tuple[list[Entry], list[EventState]]:
        """The events (and the tournament results they make) folded into a new state and
        added to the open transaction, together or not at all; with the state after each
        (what the rules read)."""
        assert self._open is not None
        batch = self._with_tournament_results(events)
        if not batch:
            return [], []
        state = self.state
        states = []
        for event in batch:
            state = state.apply(event)
            states.append(state)
        t = self.time.now()
        seqs = self.journal.add(self._open.txn, batch, t)
        self.state = state.at(seqs[-1])
        entries = [Entry(seq, t, e) for seq, e in zip(seqs, batch, strict=True)]
        self._open.entries += entries
        self.events_stored += len(entries)
        for event in batch:
            if isinstance(event, ResultConfirmed):
                self._unfollow(event.game)  # a game with a result takes no more moves
        return entries, states

    @contextlib.contextmanager
    def action(self) -> Iterator[None]:
        """An arbiter action: its commits are one journal transaction of its own, written
        and synced before the block ends, after every board event read before it. When it
        cannot be made durable (NotDurable), or the block raises, the state, the rules and
        the hall boards are put back as they were before it. Inside an open batch or
        action, the block joins it."""
        if self._open is not None:
            yield
            return
        self._settle()
        undo = self._undo_point()
        txn = self.journal.begin()
        self._open = opened = _Open(txn, action=True)
        try:
            yield
            self._open = None
            self.journal.commit_now(txn)
        except JournalUnavailable as exc:
            self._undo(undo)
            log.warning("arbiter action not done: %s", exc)
            raise NotDurable(str(exc)) from None
        except BaseException:
            self._open = None
            if txn.state == "open":
                self.journal.rollback(txn)
            self._undo(undo)
            raise
        if opened.entries:
            self._announce(opened.entries[-1].t, opened.entries)

    def _undo_point(self) -> _Undo:
        return _Undo(
            self.state,
            self.rules.memory(),
            {n: (b.game, b.follower) for n, b in self.hall.items()},
            dict(self._due),
            dict(self._imported_byes),
        )

    def _undo(self, undo: _Undo) -> None:
        # The followers an action replaced were not touched (it made new ones): the old
        # ones are exactly as they were.
        self.state = undo.state
        self.rules.recall(undo.rules, undo.state)
        for number, (game, follower) in undo.hall.items():
            board = self.hall[number]
            board.game, board.follower = game, follower
        self._due = undo.due
        self._imported_byes = undo.imported_byes

    def _settle(self) -> None:
        """Before an action: the board batch being synced is finished (durable, or held),
        and the board events read meanwhile are handled and written, in place."""
        if self._inflight is not None:
            concurrent.futures.wait([self._inflight.future])
            self._finish_sync(self._inflight)
        if self._inbox:
            try:
                with self.batch(in_place=True):
                    self._handle_inbox()
            except Exception:
                log.exception("journal write failed: board events not stored")

    def _announce(self, t: float, entries: Sequence[Entry]) -> None:
        """Durable entries become visible: the public view, then the listeners."""
        self._publish(t, entries)
        for listener in list(self.listeners):
            try:
                listener(entries)
            except Exception:  # a broken listener must not stop the event
                log.exception("listener failed")

    @contextlib.contextmanager
    def batch(self, *, in_place: bool = False) -> Iterator[None]:
        """Board events: commits inside are one journal transaction (one fsync), and
        nothing is announced (listeners, the public view, exports) before it is durable.
        Inside an open batch or action, the block joins it.

        With an event loop running (and not `in_place`), the fsync runs in a worker
        thread: the loop goes on reading the boards meanwhile, and the entries are
        announced when it is done; until then no other batch starts (`syncing`). Without
        a loop it is done in place. Whatever ends the block, what it committed is written:
        board events folded are never taken back."""
        if self._open is not None:
            yield
            return
        if self._inflight is not None:
            concurrent.futures.wait([self._inflight.future])
            self._finish_sync(self._inflight)
        txn = self.journal.begin()
        self._open = opened = _Open(txn, action=False)
        try:
            if self._system:
                events, self._system = self._system, []
                with self._step("the service's own alerts"):
                    self.commit(events)
            yield
        except BaseException:
            self._open = None
            self.journal.commit(txn)
            self._synced(opened.entries)
            raise
        self._open = None
        entries = opened.entries
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if loop is None or in_place or not entries:
            self.journal.commit(txn)
            self._synced(entries)
            return
        self.journal.seal(txn)
        future = self._syncer.submit(self.journal.commit, txn)
        inflight = self._inflight = _InFlight(entries, future)
        future.add_done_callback(lambda _: loop.call_soon_threadsafe(self._after_sync, inflight))

    def _after_sync(self, inflight: _InFlight) -> None:
        if inflight.done:
            return  # an action finished it first
        self._finish_sync(inflight)
        self._report_lag()
        if self._inbox and not self._drain_scheduled:
            self._drain_scheduled = True
            asyncio.get_running_loop().call_soon(self.drain)

    def _finish_sync(self, inflight: _InFlight) -> None:
        if inflight.done:
            return
        inflight.done = True
        if self._inflight is inflight:
            self._inflight = None
        failed = inflight.future.exception()
        if failed is not None:
            # Not durable: never announced, never taken as stored. Loud, never silent.
            log.error(
                "journal commit failed: %d events not stored (%r)", len(inflight.entries), failed
            )
        else:
            self._synced(inflight.entries)

    def _synced(self, entries: list[Entry]) -> None:
        if entries:
            self._announce(entries[-1].t, entries)
            self.lag.journal(self.journal.last_commit_seconds)
            self.snapshots.consider(self)

    @contextlib.contextmanager
    def _step(self, what: str) -> Iterator[None]:
        """One step of a batch: if it fails, what it committed stays, and so does the rest
        of the batch; the failure is logged (once) and alerted."""
        try:
            yield
        except Exception as exc:
            self._fault(what, exc)

    def _fault(self, what: str, exc: BaseException, event: object = None) -> None:
        """Something of the service failed: logged once with its traceback (later repeats
        counted), and a critical desk alert naming it for as long as the service runs."""
        key = f"fault:{what}:{type(exc).__name__}"
        seen = self._faults.get(key, 0)
        self._faults[key] = seen + 1
        about = f" on {type(event).__name__}" if event is not None else ""
        if seen == 0:
            log.error("%s failed%s: %r", what, about, exc, exc_info=exc)
        message = (
            f"{what} failed{about} ({type(exc).__name__}: {exc!s:.120}), "
            f"{seen + 1} time(s); the board events are all kept, but what it should have "
            "done is missing: check the games and alerts by hand, and report the log"
        )
        self.health.report(key, "task-failed", "critical", message, self.time.now())

    def _with_tournament_results(self, events: list[JournalEvent]) -> list[JournalEvent]:
        """A game result that stands is also the tournament's result (by White's number)."""
        out: list[JournalEvent] = []
        for event in events:
            out.append(event)
            if isinstance(event, ResultConfirmed):
                game = self.book.games.get(event.game)
                if game is not None and game.white is not None:
                    under_one = game.ply < 2 and event.result in ("1-0", "0-1", "1/2-1/2")
                    out.append(
                        ResultRecorded(
                            game.key.section,
                            game.key.round,
                            game.white.start,
                            TOURNAMENT_RESULT[event.result],
                            under_one,
                            reason=event.reason,
                        )
                    )
        return out

    def public_state(self) -> PublicState:
        """The state as the broadcast delay allows the public to see it now."""
        return self.public.at(self.time.now())

    # -- boards and games ------------------------------------------------------------------------

    def live_rounds(self) -> dict[str, int | None]:
        now = utc(self.time.now())
        return {
            s.name: current_round(s, self.tournament, now, self.start_overrides)
            for s in self.config.sections
        }

    def unpaired_rounds(self) -> dict[str, int]:
        """Sections with a round not paired up to the one due now (by the schedule, or
        `--round R`), and the first such round: rounds are paired in order, so that is the
        one to pair next (round 9 due with nothing paired means pair round 1)."""
        now = utc(self.time.now())
        out: dict[str, int] = {}
        for section in self.config.sections:
            due = min(due_round(section, now, self.start_overrides), section.rounds)
            paired = self.tournament.section(section.name).rounds
            missing = next((r for r in range(1, due + 1) if r not in paired), None)
            if missing is not None:
                out[section.name] = missing
        return out

    def pair_unpaired(self, by: str) -> list[str]:
        """Pair every unpaired due round with the FIDE Dutch engine (a rehearsal's shortcut:
        at a real event the pairing program's round is imported). Returns what was done or
        could not be, one line each, for the log."""
        done: list[str] = []
        for section, number in self.unpaired_rounds().items():
            try:
                pairings = self.dutch_pairings(section, number)
                self.publish_pairings(section, number, pairings, "dutch", by)
            except ActionError as exc:
                done.append(f"{section} round {number} could not be paired: {exc}")
                continue
            games = sum(1 for p in pairings if p.black is not None)
            done.append(
                f"{section} round {number} was not paired: paired it with the FIDE Dutch "
                f"engine from the ratings and results ({games} games)"
            )
        return done

    def attach_boards(self) -> None:
        """Point every hall board at the game its section's live round puts on it."""
        attached: list[BoardAttached] = []
        live = self.live_rounds()  # once, not once per section: every tick comes here
        for section in self.config.sections:
            number = live[section.name]
            for k, board_config in enumerate(section_boards(self.config, section.name), 1):
                board = self.hall[board_config.number]
                game_id = GameKey(section.name, number, k).id if number is not None else None
                if game_id is not None and game_id not in self.book.games:
                    game_id = None  # no game on this board this round (fewer pairings than boards)
                if game_id == board.game:
                    continue
                board.game = game_id
                board.follower = (
                    None if game_id is None else self._follower(board, self.book.get(game_id))
                )
                name = board.name
                if game_id is not None and name is not None:
                    attached.append(BoardAttached(game_id, name, self.time.now()))
        if not attached:
            return
        self.commit(attached)
        for event in attached:
            shown = self._hall_by_name(event.board)
            if shown is not None:
                self._show_current_position(shown)  # the new game starts from what the board shows

    def _unfollow(self, game_id: str) -> None:
        """A game with a result takes no more moves: its board is no longer followed (what
        the players do with the pieces now, a reset or the next game's setup, is nothing
        until the pairings give that board another game)."""
        for board in self.hall.values():
            if board.game == game_id and board.follower is not None:
                board.follower = None
                self._due.pop(board.number, None)

    def _follower(self, board: HallBoard, game: GameState) -> BoardToGame | None:
        """The reconstruction that follows `game` on `board`; None for a finished game."""
        if game.finished:
            return None
        section = next(s for s in self.config.sections if s.name == game.key.section)
        time_control = time_control_for(
            section, self.tournament.section(section.name), game.key.round
        )
        reconstructor = Reconstructor(start_fen=game.start_fen, time_control=time_control)
        if game.moves:
            reconstructor.resume(
                [m.uci for m in game.moves],
                white_side=self.state.white_sides.get(game.id),
                clocks=[m.remaining for m in game.moves],
            )
        name = board.name
        follower = BoardToGame(name or f"board-{board.number}", game.id, reconstructor)
        memory = self.state.memory.get(name) if name is not None else None
        if memory is not None:
            follower.seen(memory.position)
        return follower

    def _hall_by_name(self, name: str) -> HallBoard | None:
        for board in self.hall.values():
            if board.name == name:
                return board
        return None

    def _hall_for(self, port: str, event: DriverEvent) -> HallBoard | None:
        candidates = self._on_port.get(port, [])
        if len(candidates) == 1 and candidates[0].config.address is None:
            return candidates[0]
        if event.board.isdigit():
            address = int(event.board)
            for b in candidates:
                if b.config.address == address:
                    return b
        return None

    def on_driver_event(self, port: str, event: DriverEvent) -> None:
        """A driver's event for the board on `port`: with what its game makes of it, in
        the open batch (a batch of its own if none is open)."""
        board = self._hall_for(port, event)
        if board is None:
            log.debug("event from a board not in the config: %s on %s", event.board, port)
            return
        if isinstance(event, BoardConnected) and board.name != event.board:
            log.info("hall board %d is DGT board %s on %s", board.number, event.board, port)
            if board.follower is not None:
                board.follower.board = event.board
        batch: list[JournalEvent] = [event]
        if board.follower is not None:
            games, passed = board.follower.handle(event, self.book.games.get(board.game or ""))
            self._note_due(board)
            batch += games
            batch += _flags(passed, board.game)
            if isinstance(event, BoardConnected) and board.game is not None:
                batch.append(BoardAttached(board.game, event.board, event.t))
        with self.batch():
            self.commit(batch, game=board.game)

    def tick(self, *, full: bool = True) -> bool:
        """Time passes: the boards whose reconstruction has a decision due (its press
        settled, a position stable long enough), and with `full` the arbiter rules' timers
        and live round changes. False when a batch is still being made durable (try again
        a moment later). Each of these is a step of the batch (see `_step`)."""
        if self.syncing:
            return False
        now = self.time.now()
        due = [n for n, t in self._due.items() if t <= now]
        if not due and not full and not self._inbox and not self._system:
            return True
        with self.batch():
            self._handle_inbox()  # events read before now come first
            for number in due:
                board = self.hall[number]
                self._due.pop(number, None)
                if board.follower is None:
                    continue
                with self._step(f"the reconstruction of hall board {number}"):
                    games, passed = board.follower.tick(now)
                    self.commit([*games, *_flags(passed, board.game)], game=board.game)
                    self._note_due(board)
                if self._due.get(number, now + 1) <= now:
                    # Nothing decided: look again at the pace of the old full tick.
                    self._due[number] = now + self.tick_seconds * self._speed
            if full:
                with self._step("the arbiter rules' timers"):
                    self.commit(self.rules.tick(now, self.state))
                with self._step("the live round's boards"):
                    self.attach_boards()
                for driver in self._drivers:
                    if isinstance(driver, BusDriver) and driver.last_cycle is not None:
                        self.lag.bus(driver.last_cycle, driver.port)
                self._check_journal_file()
        self._report_lag()
        return True

    def _check_journal_file(self) -> None:
        """About once a second: is the journal's file still there? If not, refuse actions
        (the journal's `problem`), and write a copy of it (off the loop)."""
        real = _real.monotonic()
        if real - self._file_checked < FILE_CHECK_SECONDS:
            return
        self._file_checked = real
        if self.journal.gone is not None:
            return
        if self.journal.check_file() is not None:
            try:
                asyncio.get_running_loop()
            except RuntimeError:
                self.journal.rescue()
            else:
                self._syncer.submit(self.journal.rescue)

    # -- the loop-turn batch and the overload watch --------------------------------------------------

    def queue_driver_event(self, port: str, event: DriverEvent) -> None:
        """A driver read `event`: it is handled with the others read within BATCH_SECONDS."""
        self._inbox.append((port, event, _real.monotonic()))
        if not self._drain_scheduled:
            self._drain_scheduled = True
            try:
                asyncio.get_running_loop().call_later(BATCH_SECONDS, self.drain)
            except RuntimeError:  # no loop (a synchronous caller): handle it now
                self.drain()

    def drain(self) -> None:
        """Handle every queued driver event, in the order read, in one batch (later, when
        a batch is still being made durable: its end drains again)."""
        self._drain_scheduled = False
        if not self._inbox or self.syncing:
            return
        try:
            with self.batch():
                self._handle_inbox()
        except Exception:
            # The journal failed: these events are not durable and must not be taken as
            # such. Loud, never silent.
            log.exception("journal write failed: board events not stored")
        self._report_lag()

    def _handle_inbox(self) -> None:
        if not self._inbox:
            return
        items, self._inbox = self._inbox, []
        self.lag.queue(_real.monotonic() - items[0][2])
        for port, event, _ in items:
            with self._step(f"the board events from {port}"):
                self.on_driver_event(port, event)

    def _report_lag(self) -> None:
        """An alert and a log line when the service falls behind (once per episode); the
        alert goes into the next batch."""
        news = self.lag.news()
        if news is None:
            return
        if news.behind:
            log.warning(
                "overloaded: %.2f s behind the boards (%s); moves are kept and arrive late",
                news.seconds,
                news.cause,
            )
            alert = Alert(
                f"service-overloaded:{news.episode}",
                "service-overloaded",
                "critical",
                "",
                0,
                0,
                "",
                (),
                f"the service is {news.seconds:.1f} s behind the boards ({news.cause}); "
                "moves are kept but appear late: fewer boards on this computer, or a faster disk",
                self.time.now(),
            )
            self._system.append(alert)
            if self._open is None and not self.syncing:
                self.drain_system()
        else:
            log.warning("caught up: the service is within %.2f s of the boards", news.seconds)

    def drain_system(self) -> None:
        """Commit the service's own alerts waiting for a batch."""
        if self._system and self._open is None and not self.syncing:
            with self.batch():
                pass

    # -- alerts -----------------------------------------------------------------------------------

    def alerts(self) -> list[Alert]:
        """The rules' alerts the arbiter has not acknowledged yet, oldest first (the
        system's own, `health`, the desk shows before them)."""
        return self.rules.open_alerts()

    def acknowledge(self, alert_id: str, by: str) -> None:
        if alert_id.startswith(SYSTEM_PREFIX) and self.health.acknowledge(alert_id):
            return  # the service's own trouble: not a journal event
        if alert_id not in self.rules.alerts:
            raise ActionError(f"no alert {alert_id!r}")
        self.commit([AlertAcknowledged(alert_id, self.time.now(), by=by)])

    def mark_present(self, game_id: str, colour: str, by: str) -> None:
        self._game(game_id)
        if colour not in ("white", "black"):
            raise ActionError(f"colour must be 'white' or 'black', not {colour!r}")
        self.commit([PlayerMarkedPresent(game_id, colour, self.time.now(), by=by)])  # type: ignore[arg-type]

    # -- arbiter actions (each one journaled with who did it) ------------------------------------

    def _game(self, game_id: str) -> GameState:
        try:
            return self.book.get(game_id)
        except GameError as exc:
            raise ActionError(str(exc)) from None

    def set_result(self, game_id: str, result: str, by: str, reason: str = "arbiter") -> None:
        game = self._game(game_id)
        if result not in TOURNAMENT_RESULT:
            raise ActionError(
                f"result must be one of {', '.join(TOURNAMENT_RESULT)}, not {result!r}"
            )
        self.commit([ResultConfirmed(game.id, result, reason, self.time.now(), by=by)])  # type: ignore[arg-type]

    def confirm_proposal(self, game_id: str, by: str) -> None:
        proposal = self._game(game_id).proposal
        if proposal is None:
            raise ActionError(f"{game_id} has no result waiting for confirmation")
        self.set_result(game_id, proposal.result, by, proposal.reason)

    def propose(self, proposal: ResultProposed) -> None:
        self.commit([proposal])

    def correct_line(self, game_id: str, ucis: Sequence[str], by: str) -> None:
        game = self._game(game_id)
        event = LineCorrected(game_id, tuple(ucis), self.time.now(), by=by)
        try:
            game.apply(event)
        except GameError as exc:
            raise ActionError(str(exc)) from None
        with self.action():
            self.commit([event])
            self._refollow(game_id)

    def set_start_fen(self, game_id: str, fen: str, by: str) -> None:
        game = self._game(game_id)
        event = StartPositionSet(game_id, fen, self.time.now(), by=by)
        try:
            game.apply(event)
        except GameError as exc:
            raise ActionError(str(exc)) from None
        with self.action():
            self.commit([event])
            self._refollow(game_id)

    def _refollow(self, game_id: str) -> None:
        """After a correction, the board's reconstruction starts again from the new line,
        and looks at what the board shows now (it may already be past the corrected ply)."""
        for board in self.hall.values():
            if board.game == game_id:
                board.follower = self._follower(board, self.book.get(game_id))
                self._note_due(board)
                self._show_current_position(board)

    def _show_current_position(self, board: HallBoard) -> None:
        name = board.name
        memory = self.state.memory.get(name) if name is not None else None
        if board.follower is None or name is None or memory is None:
            return
        games, _ = board.follower.handle(PositionSeen(self.time.now(), name, memory.position))
        self._note_due(board)
        self.commit(games, game=board.game)

    # -- pairings -------------------------------------------------------------------------------

    def dutch_pairings(self, section: str, round_number: int) -> tuple[Pairing, ...]:
        """FIDE Dutch pairings for a round from the results so far (pure; can take seconds
        for a large Swiss, so the web calls it off the event loop)."""
        state = self._section_state(section)
        try:
            return pair_round(
                state.to_crosstable(),
                round_number,
                total_rounds=state.config.rounds,
                absent=state.absent_for(round_number),
            )
        except PairingError as exc:
            raise ActionError(str(exc)) from None

    def imported_pairings(
        self, section: str, round_number: int, trf_text: str
    ) -> tuple[Pairing, ...]:
        """A round as the event's pairing program (Vega, Swiss-Manager) wrote it in a TRF."""
        self._section_state(section)
        try:
            imported = import_round(read_trf(trf_text).crosstable, round_number)
        except (TrfError, PairingImportError) as exc:
            raise ActionError(f"cannot import round {round_number} from that TRF: {exc}") from None
        # The byes the program entered (H, F, Z) go in with these pairings when published.
        self._imported_byes[(section, round_number, imported.pairings)] = imported.byes
        return imported.pairings

    def publish_pairings(
        self, section: str, round_number: int, pairings: Sequence[Pairing], source: str, by: str
    ) -> None:
        """Make `pairings` the round's pairings: a first pairing, or an edit of one."""
        state = self._section_state(section)
        event: TournamentEvent
        if round_number in state.rounds:
            event = PairingEdited(
                section, round_number, tuple(pairings), reason=f"{source} by {by}"
            )
        else:
            event = RoundPaired(section, round_number, tuple(pairings), f"{source} ({by})")
        with self.action():
            self.tournament_event(event)
            byes = self._imported_byes.pop((section, round_number, tuple(pairings)), ())
            if source == "import" and byes:
                # Vega's "H": the half-point bye it entered before pairing scores as such.
                self.commit(
                    [
                        ResultRecorded(section, round_number, p, code, reason="bye")
                        for p, code in byes
                    ]
                )

    def _section_state(self, section: str) -> SectionState:
        try:
            return self.tournament.section(section)
        except StateError as exc:
            raise ActionError(str(exc)) from None

    def tournament_event(self, event: TournamentEvent) -> None:
        try:
            self.tournament.apply(event)
        except StateError as exc:
            raise ActionError(str(exc)) from None
        with self.action():
            self.commit([event])
            self.attach_boards()

    # -- running -----------------------------------------------------------------------------------

    def _driver_groups(self) -> dict[str, list[HallBoard]]:
        groups: dict[str, list[HallBoard]] = defaultdict(list)
        for board in self.hall.values():
            groups[board.config.port].append(board)
        return groups

    async def run(self) -> None:
        """Start every board's driver and the clock tick; run until `stop()`."""
        for port, boards in self._driver_groups().items():
            emit = self._emitter(port)
            addresses = [b.config.address for b in boards if b.config.address is not None]
            driver: SingleBoardDriver | BusDriver
            # What the journal knew of these boards: their logs fill the gap of a restart.
            known = [
                k
                for b in boards
                if (k := self.known_board(b.name) or self._first_start(b)) is not None
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
        while self.syncing or self._inbox:
            if not self.syncing:
                self.drain()
            await asyncio.sleep(0.01)
        self._syncer.shutdown(wait=True)
        self.snapshots.close()

    def _driver_failed(self, port: str, exc: Exception) -> None:
        """A driver's run() raised: its boards are not followed until it runs again, and
        the desk must not show them connected meanwhile."""
        for board in self.hall.values():
            if board.config.port == port and board.connected and board.name is not None:
                reason = f"its driver stopped on a software error ({type(exc).__name__})"
                self.queue_driver_event(port, BoardLost(self.time.now(), board.name, reason))

    def _emitter(self, port: str) -> Callable[[DriverEvent], None]:
        def emit(event: DriverEvent) -> None:
            self.queue_driver_event(port, event)

        return emit

    def _note_due(self, board: HallBoard) -> None:
        """When this board's reconstruction next has a decision to make (event time)."""
        due = None if board.follower is None else board.follower.reconstructor.next_deadline()
        if due is None:
            self._due.pop(board.number, None)
        else:
            self._due[board.number] = due

    async def _tick_loop(self) -> None:
        """Tick when reconstruction decisions fall due and at `tick_seconds`, until
        cancelled. It does not catch: a failing tick stops it, and its supervisor logs
        the error, alerts the desk and starts it again after a back-off (a tick that
        fails every time must not fill the log five times a second)."""
        loop = asyncio.get_running_loop()
        next_full = loop.time() + self.tick_seconds
        while True:
            wait = next_full - loop.time()
            if self._due:
                soonest = (min(self._due.values()) - self.time.now()) / self._speed
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


def _flags(passed: Sequence[object], game: str | None) -> list[FlagFell | GameFlag]:
    """A clock's flag falls (for the rules, which are told the game) and, as a game fact,
    whose flag it was (for the pages and the PGN)."""
    out: list[FlagFell | GameFlag] = []
    for event in passed:
        if isinstance(event, FlagFell):
            out.append(event)
            if game is not None:
                out.append(GameFlag(game, event.colour, event.t))
    return out


__all__ = ["ActionError", "EventService", "HallBoard", "NoClock", "NotDurable", "PublicState"]
