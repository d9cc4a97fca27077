"""The commit path: fold, then journal, then announce once durable.

Every input of the event (a driver event, an arbiter action, the passing of time) ends
here as journal events. `Committer.commit` folds them into a new `EventState` value (a
game result that stands brings the tournament's result with it:
`broadcast.games.fold.with_tournament_results`), adds them to the journal's open
transaction together (all or nothing; what does not fold raises before anything is
kept), lets the arbiter rules react (what they raise is committed the same way), and
once the transaction is durable announces everything: the log's line
(`broadcast.service.log_lines`), the public view, then the listeners (the action log,
the web hub, replay). docs/architecture.md ("The commit path") explains the choices.

The committer is built with the hall (`broadcast.service.hall.Hall`), the one step it
calls besides the fold: a driver event goes `queue_driver_event` -> the inbox
(`broadcast.service.inbox`) -> `drain` -> `handle_inbox` -> `hall.on_driver_event` ->
`commit`, and a game that gets a result is no longer followed (`hall.unfollow`).

Two kinds of transaction:

- **Board batches** (`batch()`). Driver events are queued as they are read (the inbox,
  `queue_driver_event`) and handled together every `inbox.BATCH_SECONDS`, in one journal
  transaction: with hundreds of boards that is one fsync per batch, and the fsync runs in
  a worker thread so that the boards' lines are served meanwhile. Each step of a batch
  (`step()`) is guarded: a step that fails is logged once with its traceback and raised
  as a critical alert, and what the steps before it (and it) committed stays, in the
  state and in the journal alike. While the disk cannot take a batch, its rows are held
  in memory (the boards' logs give them back if the process dies meanwhile).
- **Actions** (`action()`; a `commit()` outside any transaction is one): an arbiter's
  decision, in a transaction of its own that it waits for. It starts only once earlier
  board events are durable, and returns only once its own rows are synced; otherwise
  `NotDurable` (answered 503), and the state, the rules and the hall (its boards' games
  and followers, `Hall.undo_part`) are put back as they were.

Nothing is announced before its transaction is durable; only a live arbiter API read can
see a batch's state during its fsync. When the service falls behind, the arbiter gets an
alert and the log says by how much; no event is ever dropped.

Loop or not is the caller's to say, never sniffed: code on the event loop (the drain, the
runtime's tick) passes its `loop` to `batch`, and the fsync runs in a worker thread;
without one (a synchronous caller: `replay`, tests, tools) it is done in place.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import datetime as dt
import logging
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from typing import Generic, Protocol, TypeVar

from boards.driver_events import DriverEvent
from broadcast.arbiter.dispatch import ArbiterRules, RulesMemory
from broadcast.config.model import EventConfig
from broadcast.games.book import GameBook
from broadcast.games.fold import SyncedTo, with_tournament_results
from broadcast.games.game_events import (
    ResultConfirmed,
)
from broadcast.games.game_state import GameError
from broadcast.journal.kinds import JournalEvent
from broadcast.journal.station_progress import StationMark, StationProgress
from broadcast.journal.store import (
    Entry,
    Journal,
    JournalError,
    JournalTampered,
    JournalUnavailable,
    Transaction,
)
from broadcast.phrases import Phrase, english, say
from broadcast.service.delayed import DelayedView
from broadcast.service.event_state import EventState, PublicState
from broadcast.service.health import JOURNAL_FOUND, JOURNAL_MENDED, Health
from broadcast.service.inbox import Inbox
from broadcast.service.log_lines import log_line
from broadcast.service.overload import LagWatch, overload_alert
from broadcast.service.rescue import save_state
from broadcast.service.snapshot import Snapshots
from broadcast.tournament.news import AT_ONCE, follows_from_hidden, tell
from broadcast.tournament.section import StateError
from broadcast.tournament.tournament_state import TournamentState
from clocks.errors import BoardwireError
from clocks.timesource import EpochTimeSource

log = logging.getLogger(__name__)

Listener = Callable[[Sequence[Entry]], None]
FILE_CHECK_SECONDS = 1.0  # real seconds between two looks at the journal's file


class ActionError(BoardwireError, ValueError):
    """An arbiter action that cannot be done; the message says why (shown to the arbiter).

    Said as a phrase (`ActionError(say("no game %(game)s", game=...))`), the desk shows
    it in the arbiter's language (`phrase`); `str()` is the English text either way."""

    def __init__(self, why: str | Phrase = "", *args: object) -> None:
        self.phrase = why if isinstance(why, Phrase) else None
        super().__init__(english(why), *args)


class NotDurable(JournalError):
    """An arbiter action that could not be made durable (a full disk, the journal's file
    gone): nothing of it was applied. The message says why (answered 503)."""


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
    hall: Callable[[], None]


class HallSteps(Protocol):
    """What the committer asks of the hall (`broadcast.service.hall.Hall`, built with the
    committer it commits through)."""

    def on_driver_event(self, port: str, event: DriverEvent) -> None:
        """A driver's event: what it means for its board, committed."""

    def unfollow(self, game_id: str) -> None:
        """A game with a result takes no more moves: its board is no longer followed."""

    def undo_part(self) -> Callable[[], None]:
        """Before an action: what puts the hall back if it is undone."""


H = TypeVar("H", bound=HallSteps)


class Committer(Generic[H]):
    """The event's state, its journal and the one way to change them (`commit`).

    Built with its parts: `hall` makes the hall from the committer (the hall commits
    through it; the committer hands it driver events and results, see `HallSteps`), and
    `listeners` are told of every durable batch of entries (more may subscribe later:
    the web hub, replay)."""

    def __init__(
        self,
        config: EventConfig,
        journal: Journal,
        rules: ArbiterRules,
        *,
        time_source: EpochTimeSource,
        health: Health,
        delay: float,
        hall: Callable[[Committer[H]], H],
        listeners: Sequence[Listener] = (),
        overload_after: float = 1.0,
        snapshots: bool = True,
    ) -> None:
        self.config = config
        self.journal = journal
        self.rules = rules
        self.time_source = time_source
        self.health = health
        self.state = EventState.new(config)
        self.listeners: list[Listener] = list(listeners)
        self.delay = delay
        self.public: DelayedView[PublicState] = DelayedView(
            delay, PublicState(self.tournament, self.book)
        )
        self._inbox = Inbox(self.drain)  # driver events waiting for this loop turn's batch
        self._open: _Open | None = None  # the open transaction (a batch or an action)
        self._inflight: _InFlight | None = None  # a batch being made durable in `_syncer`
        self._system: list[JournalEvent] = []  # the service's own alerts, for the next batch
        self.lag = LagWatch(overload_after)
        self.events_stored = 0  # journal entries written since start (for benchmarks)
        self._syncer = ThreadPoolExecutor(1, thread_name_prefix="journal-sync")
        # The service's own troubles (a failing rule, a step of a batch) go to `health`
        # too: desk alerts that are not journal events.
        self._faults: dict[str, int] = {}
        self._file_checked = 0.0
        self._state_saved = False  # an overwritten journal's games written beside it
        self._mended = 0  # -wal deletions mended (each its own desk alert)
        self.replayed = 0  # journal events replayed by `restore` (after the snapshot)
        self.snapshots = Snapshots(journal, config, rules.config, enabled=snapshots)
        self.hall: H = hall(self)  # last: the hall reads the state through the committer

    # -- the state ---------------------------------------------------------------------------

    @property
    def tournament(self) -> TournamentState:
        return self.state.tournament

    @property
    def book(self) -> GameBook:
        return self.state.book

    @property
    def last_seq(self) -> int:
        return self.state.seq

    @property
    def syncing(self) -> bool:
        """A batch's commit (its fsync) is running in the worker thread."""
        return self._inflight is not None

    @property
    def open(self) -> bool:
        """A transaction (a batch or an action) is open."""
        return self._open is not None

    def action_entries(self) -> list[Entry]:
        """What the open action has stored so far (its record lists what it raised)."""
        if self._open is None or not self._open.action:
            return []
        return list(self._open.entries)

    def public_state(self) -> PublicState:
        """The state as the broadcast delay allows the public to see it now."""
        return self.public.at(self.time_source.now())

    def restore(self) -> None:
        """Rebuild the state from the newest snapshot that fits and the journal after it."""
        restored = self.snapshots.restore()
        if restored is not None:
            self.state = restored.state
            self.rules.recall(restored.rules, restored.state)
            self.public = DelayedView(self.delay, restored.public)
            self.public.record(restored.t, PublicState(self.tournament, self.book, self.last_seq))
        replayed = 0
        for entry in self.journal.read(self.state.seq):
            self.replay(entry)
            replayed += 1
        self.replayed = replayed
        if restored is not None or replayed:
            last = self.journal.last_t()
            when = (
                f", the last at {dt.datetime.fromtimestamp(last, dt.UTC):%Y-%m-%d %H:%M:%S} UTC"
                if last is not None
                else ""
            )
            log.info(
                "journal %s: events up to %d%s; %s, then %d event(s) replayed",
                self.journal.path,
                self.state.seq,
                when,
                f"snapshot at event {restored.state.seq}" if restored else "no snapshot",
                replayed,
            )
        self.snapshots.loaded(self.state.seq, replayed)
        self.report_found()

    def replay(self, entry: Entry) -> None:
        """Fold one journal entry as at start (`restore`)."""
        try:
            self.state = self.state.apply(entry.event, entry.seq)
        except (GameError, StateError) as exc:
            # The service never journals what does not fold (it folds first); an older
            # boardwire did, and its live state went on without it: so does the replay.
            log.warning("journal event %d does not fit (%s): skipped", entry.seq, exc)
            self.state = self.state.at(entry.seq)
        self._publish(entry.t, [entry])
        self.public.at(self.time_source.now())  # keep only what can still be shown
        if not isinstance(entry.event, StationProgress):  # the intake's, not the rules'
            self.rules.restore(entry.event, self.state)

    def _publish(self, t: float, entries: Sequence[Entry]) -> None:
        """Record the public snapshot; news that is public at once (a pairing, a
        withdrawal) is told to the older snapshots too, each that already shows what the
        news follows from (`broadcast.tournament.news`)."""
        news = [e.event for e in entries if isinstance(e.event, AT_ONCE)]
        if news:
            live = self.tournament
            # The snapshots a broadcast delay keeps (thousands: one per batch) share a few
            # tournament values: each is amended once, and only the rounds whose games the
            # news changes are synced (a withdrawal: none; a pairing: its round).
            amended: dict[int, tuple[TournamentState, SyncedTo]] = {}

            def amend(state: PublicState) -> PublicState:
                key = id(state.tournament)
                if key not in amended:
                    tournament = state.tournament
                    for event in news:
                        if follows_from_hidden(event, tournament, live):
                            continue  # told with the first snapshot that shows its grounds
                        try:
                            tournament = tell(tournament, live, event)
                        except StateError:
                            continue  # does not fit that older moment: it stays
                    amended[key] = (tournament, SyncedTo(tournament))
                told, sync = amended[key]
                if told is state.tournament:
                    return state
                return PublicState(told, sync(state.book, state.tournament), state.seq)

            self.public.amend(amend)
        self.public.record(t, PublicState(self.tournament, self.book, self.last_seq))

    # -- commit --------------------------------------------------------------------------------

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
                if not isinstance(entry.event, StationProgress):
                    pending += self.rules.observe(entry.event, state, game=game)
            except Exception as exc:
                self.fault("the arbiter rules", exc, entry.event)
        if pending:
            try:
                stored += self._store(pending)[0]
            except Exception as exc:
                self.fault("the arbiter rules' events", exc, pending[0])
        return stored

    def _store(self, events: list[JournalEvent]) -> tuple[list[Entry], list[EventState]]:
        """The events (and the tournament results they make) folded into a new state and
        added to the open transaction, together or not at all; with the state after each
        (what the rules read)."""
        assert self._open is not None
        batch = with_tournament_results(self.book, events)
        if not batch:
            return [], []
        state = self.state
        states = []
        for event in batch:
            state = state.apply(event)
            states.append(state)
        t = self.time_source.now()
        seqs = self.journal.add(self._open.txn, batch, t)
        self.state = state.at(seqs[-1])
        entries = [Entry(seq, t, e) for seq, e in zip(seqs, batch, strict=True)]
        self._open.entries += entries
        self.events_stored += len(entries)
        for event in batch:
            if isinstance(event, ResultConfirmed):
                self.hall.unfollow(event.game)  # a game with a result takes no more moves
        return entries, states

    # -- actions -------------------------------------------------------------------------------

    @contextlib.contextmanager
    def action(self) -> Iterator[None]:
        """An arbiter action: its commits are one journal transaction of its own, written
        and synced before the block ends, after every board event read before it. When it
        cannot be made durable (NotDurable), or the block raises, the state, the rules and
        the hall are put back as they were before it. Inside an open batch or
        action, the block joins it."""
        if self._open is not None:
            yield
            return
        self._settle()
        undo = _Undo(self.state, self.rules.memory(), self.hall.undo_part())
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

    def _undo(self, undo: _Undo) -> None:
        self.state = undo.state
        self.rules.recall(undo.rules, undo.state)
        undo.hall()

    def _settle(self) -> None:
        """Before an action: the board batch being synced is finished (durable, or held),
        and the board events read meanwhile are handled and written, in place."""
        if self._inflight is not None:
            concurrent.futures.wait([self._inflight.future])
            self._finish_sync(self._inflight)
        if self._inbox:
            try:
                with self.batch():
                    self.handle_inbox()
            except Exception:
                log.exception("journal write failed: board events not stored")

    def _announce(self, t: float, entries: Sequence[Entry]) -> None:
        """Durable entries become visible: the public view, then the listeners. Every
        alert, result and arbiter action also gets one INFO line in the service's log."""
        for entry in entries:
            line = log_line(entry.event)
            if line is not None:
                log.info("%s", line)
        self._publish(t, entries)
        for listener in list(self.listeners):
            try:
                listener(entries)
            except Exception:  # a broken listener must not stop the event
                log.exception("listener failed")

    # -- board batches -------------------------------------------------------------------------

    @contextlib.contextmanager
    def batch(self, *, loop: asyncio.AbstractEventLoop | None = None) -> Iterator[None]:
        """Board events: commits inside are one journal transaction (one fsync), and
        nothing is announced (listeners, the public view, exports) before it is durable.
        Inside an open batch or action, the block joins it.

        With `loop` (the caller runs on it), the fsync runs in a worker thread: the loop
        goes on reading the boards meanwhile, and the entries are announced on it when it
        is done; until then no other batch starts (`syncing`). Without, it is done in
        place before the block ends. Whatever ends the block, what it committed is
        written: board events folded are never taken back."""
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
                with self.step("the service's own alerts"):
                    self.commit(events)
            yield
        except BaseException:
            self._open = None
            self.journal.commit(txn)
            self._synced(opened.entries)
            raise
        self._open = None
        entries = opened.entries
        if loop is None or not entries:
            self.journal.commit(txn)
            self._synced(entries)
            return
        self.journal.seal(txn)
        future = self._syncer.submit(self.journal.commit, txn)
        inflight = self._inflight = _InFlight(entries, future)
        future.add_done_callback(
            lambda _: loop.call_soon_threadsafe(self._after_sync, inflight, loop)
        )

    def _after_sync(self, inflight: _InFlight, loop: asyncio.AbstractEventLoop) -> None:
        if inflight.done:
            return  # an action finished it first
        self._finish_sync(inflight)
        self.report_lag(loop)
        self._inbox.remind()

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
    def step(self, what: str) -> Iterator[None]:
        """One step of a batch: if it fails, what it committed stays, and so does the rest
        of the batch; the failure is logged (once) and alerted."""
        try:
            yield
        except Exception as exc:
            self.fault(what, exc)

    def fault(self, what: str, exc: BaseException, event: object = None) -> None:
        """Something of the service failed: logged once with its traceback (later repeats
        counted), and a critical desk alert naming it for as long as the service runs."""
        key = f"fault:{what}:{type(exc).__name__}"
        seen = self._faults.get(key, 0)
        self._faults[key] = seen + 1
        about = f" on {type(event).__name__}" if event is not None else ""
        if seen == 0:
            log.error("%s failed%s: %r", what, about, exc, exc_info=exc)
        message = say(
            "%(what)s failed%(about)s (%(error)s), %(count)s time(s); the board events are "
            "all kept, but what it should have done is missing: check the games and alerts "
            "by hand, and report the log",
            what=what,
            about=about,
            error=f"{type(exc).__name__}: {exc!s:.120}",
            count=seen + 1,
        )
        self.health.report(key, "task-failed", "critical", message, self.time_source.now())

    # -- the inbox -----------------------------------------------------------------------------

    @property
    def waiting(self) -> bool:
        """Driver events or the service's own alerts wait for a batch."""
        return bool(self._inbox or self._system)

    def queue_driver_event(
        self, port: str, event: DriverEvent, mark: StationMark | None = None
    ) -> None:
        """A driver read `event`: it is handled with the others read within BATCH_SECONDS,
        on the running loop (a synchronous caller hands it to `Hall.on_driver_event`).
        `mark`: the capture station's numbering of it (see `handle_inbox`)."""
        self._inbox.put(port, event, mark)

    def drain(self) -> None:
        """On the loop: handle every queued driver event, in the order read, in one batch
        (later, when a batch is still being made durable: its end drains again)."""
        self._inbox.drained()
        if not self._inbox or self.syncing:
            return
        loop = asyncio.get_running_loop()
        try:
            with self.batch(loop=loop):
                self.handle_inbox()
        except Exception:
            # The journal failed: these events are not durable and must not be taken as
            # such. Loud, never silent.
            log.exception("journal write failed: board events not stored")
        self.report_lag(loop)

    def handle_inbox(self) -> None:
        """The queued driver events, each a step of the open batch."""
        if not self._inbox:
            return
        items, waited = self._inbox.take()
        self.lag.queue(waited)
        reached: dict[str, StationMark] = {}
        for port, event, mark in items:
            with self.step(f"the board events from {port}"):
                self.hall.on_driver_event(port, event)
            if mark is not None:
                reached[mark.station] = mark
        # How far each station's stream is applied, in the same transaction as its
        # events: a restart skips what is journaled and applies what is not.
        now = self.time_source.now()
        for mark in reached.values():
            self.commit([StationProgress(now, mark.station, mark.incarnation, mark.seq)])

    async def flush(self) -> None:
        """At the end: what the drivers said last is handled and all of it made durable;
        then the worker thread and the snapshots are closed."""
        while self.syncing or self._inbox:
            if not self.syncing:
                self.drain()
            await asyncio.sleep(0.01)
        self._syncer.shutdown(wait=True)
        self.snapshots.close()

    # -- the service's own alerts --------------------------------------------------------------

    def report_lag(self, loop: asyncio.AbstractEventLoop | None = None) -> None:
        """An alert and a log line when the service falls behind (once per episode); the
        alert goes into the next batch (`loop`: see `batch`)."""
        news = self.lag.news()
        if news is None:
            return
        if news.behind:
            log.warning(
                "overloaded: %.2f s behind the boards (%s); moves are kept and arrive late",
                news.seconds,
                news.cause,
            )
            self._system.append(overload_alert(news, self.time_source.now()))
            if self._open is None and not self.syncing:
                self.drain_system(loop)
        else:
            log.warning("caught up: the service is within %.2f s of the boards", news.seconds)

    def add_system(
        self, events: Sequence[JournalEvent], loop: asyncio.AbstractEventLoop | None = None
    ) -> None:
        """The service's own events (not an action: nobody waits for them) go into the
        next board batch: a caller on the loop never waits for a batch being synced."""
        self._system.extend(events)
        self.drain_system(loop)

    def drain_system(self, loop: asyncio.AbstractEventLoop | None = None) -> None:
        """Commit the service's own alerts waiting for a batch (`loop`: see `batch`)."""
        if self._system and self._open is None and not self.syncing:
            with self.batch(loop=loop):
                pass

    def check_journal_file(self, loop: asyncio.AbstractEventLoop | None = None) -> None:
        """About once a second: is the journal's file still the one it writes, as it left
        it? What the journal finds (deleted, overwritten, its -wal gone) is acted on
        (`Journal.attend`), in the worker thread when the caller runs on `loop`; an
        overwritten journal also gets the games and results as the service holds them
        written beside it; a mended -wal is a desk alert."""
        real = time.monotonic()
        if real - self._file_checked < FILE_CHECK_SECONDS:
            return
        self._file_checked = real
        journal = self.journal
        was = journal.gone
        journal.check_file()
        if journal.attention or (journal.gone is not None and was is None):
            journal.attention = False
            self._off_loop(loop, journal.attend)
        if isinstance(journal.gone, JournalTampered) and not self._state_saved:
            self._state_saved = True
            self._off_loop(loop, partial(self._save_state, self.state))
        while journal.mended:
            message = journal.mended.pop(0)
            self._mended += 1
            self.health.report(
                f"{JOURNAL_MENDED}-{self._mended}",
                "journal-not-writable",
                "warning",
                message,
                self.time_source.now(),
            )

    def _off_loop(self, loop: asyncio.AbstractEventLoop | None, work: Callable[[], object]) -> None:
        if loop is None:
            work()
        else:
            self._syncer.submit(work)

    def _save_state(self, state: EventState) -> None:
        """The games and results as the service holds them, beside an overwritten journal
        (what its alert points the organiser to)."""
        try:
            files = save_state(self.journal.path, state, self.config)
        except Exception as exc:
            log.critical("journal %s: the games could not be saved (%r)", self.journal.path, exc)
            return
        log.critical(
            "journal %s: the games and results saved to %s", self.journal.path, " and ".join(files)
        )
        self.journal.saved_state(files)

    def report_found(self) -> None:
        """At the start: what the journal was found to be against what boardwire last
        wrote into it (an older copy put back): one critical line, and a desk alert that
        stays, start after start, until the arbiter acknowledges it."""
        found = self.journal.found
        if found is None:
            return
        log.critical("journal %s: %s", self.journal.path, found)
        self.health.report(
            JOURNAL_FOUND,
            "journal-not-writable",
            "critical",
            say("At the start (%(path)s): %(found)s", path=self.journal.path, found=found),
            self.time_source.now(),
            on_acknowledge=self.journal.forget_found,
        )


__all__ = [
    "ActionError",
    "Committer",
    "HallSteps",
    "Listener",
    "NotDurable",
    "PublicState",
]
