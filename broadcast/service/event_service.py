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
import datetime as dt
import logging
from collections import defaultdict
from collections.abc import Callable, Sequence
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
from broadcast.arbiter.rules import ArbiterRules, RulesConfig
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
from broadcast.journal.store import Entry, Journal
from broadcast.service.committer import (
    TOURNAMENT_RESULT,
    Committer,
    Listener,
    NotDurable,
    PublicState,
)
from broadcast.service.delayed import DelayedView
from broadcast.service.health import SYSTEM_PREFIX, Health
from broadcast.service.overload import LagWatch
from broadcast.service.snapshot import Snapshots
from broadcast.service.state import BoardStatus, EventState
from broadcast.service.supervisor import Backoff, SupervisedTask, Supervisor
from broadcast.tournament.events import (
    PairingEdited,
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
from clocks.timesource import TimeSource

log = logging.getLogger(__name__)

MIN_WAKE = 0.01  # real seconds: the tick loop never wakes more often than this


class ActionError(ValueError):
    """An arbiter action that cannot be done; the message says why (shown to the arbiter)."""


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
        self.committer.handle = self.on_driver_event
        self.committer.on_result = self._unfollow
        self.committer.undo_parts.append(self._undo_part)
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
        self.supervisor = Supervisor(self.health, now=time.now, backoff=restart_backoff)
        self._tasks: list[SupervisedTask] = []  # what run() started (and stops)
        self._stopping = asyncio.Event()
        self._imported_byes: dict[
            tuple[str, int, tuple[Pairing, ...]], tuple[tuple[int, str], ...]
        ] = {}
        self.bus_settings = bus_settings
        self._due: dict[int, float] = {}  # hall board -> its next reconstruction decision
        self._speed = float(getattr(time, "speed", 1.0))  # event seconds per real second

    def _undo_part(self) -> Callable[[], None]:
        # The followers an action replaced were not touched (it made new ones): the old
        # ones are exactly as they were.
        hall = {n: (b.game, b.follower) for n, b in self.hall.items()}
        due = dict(self._due)
        byes = dict(self._imported_byes)

        def restore() -> None:
            for number, (game, follower) in hall.items():
                board = self.hall[number]
                board.game, board.follower = game, follower
            self._due = due
            self._imported_byes = byes

        return restore

    # -- the read API (what web/ and the commands read) ---------------------------------------

    @property
    def state(self) -> EventState:
        """Everything the journal says, folded (an immutable value)."""
        return self.committer.state

    @state.setter
    def state(self, value: EventState) -> None:
        self.committer.state = value

    def _current(self) -> EventState:
        return self.committer.state

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
            self.commit(self._round_robin_pairings())
        self.attach_boards()

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
        if not due and not full and not self.committer.waiting:
            return True
        with self.batch():
            self.committer.handle_inbox()  # events read before now come first
            for number in due:
                board = self.hall[number]
                self._due.pop(number, None)
                if board.follower is None:
                    continue
                with self.committer.step(f"the reconstruction of hall board {number}"):
                    games, passed = board.follower.tick(now)
                    self.commit([*games, *_flags(passed, board.game)], game=board.game)
                    self._note_due(board)
                if self._due.get(number, now + 1) <= now:
                    # Nothing decided: look again at the pace of the old full tick.
                    self._due[number] = now + self.tick_seconds * self._speed
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
        await self.committer.flush()

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


__all__ = [
    "ActionError",
    "EventService",
    "HallBoard",
    "NotDurable",
    "PublicState",
    "how_to_pair",
]
