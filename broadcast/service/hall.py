"""The hall: which physical board plays which game, and what a driver event means for it.

Each `HallBoard` is one board of the event's `[[board]]` list (its port, its bus address).
The live round of its section puts a game on it (`attach_boards`), and a `BoardToGame`
follows that game there (the reconstruction). A driver event is found its hall board
(`board_for`: by port, and by bus address on a bus line), handed to that board's
follower, and committed with the game events it makes (`on_driver_event`). The hall also
knows when each board's reconstruction next has a decision to make (`due`), so the
runtime ticks a board exactly when it falls due (`tick_due`), and what a restarted driver
needs to find its place in a board's log (`known_board`).

The hall holds no state of its own that the journal has: the game on each board and its
follower are derived from the committed state, and an undone action puts them back
(`undo_part`).
"""

from __future__ import annotations

import datetime as dt
import logging
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace

from boards.driver_events import BoardConnected, BoardLost, DriverEvent, PositionSeen
from boards.reconstruction import Reconstructor
from boards.recovery import KnownBoard
from broadcast.config.model import BoardConfig, EventConfig
from broadcast.games.book import pairing_board_of, section_boards
from broadcast.games.from_board import BoardToGame
from broadcast.games.game_events import BoardAttached, GameFlag
from broadcast.games.game_state import GameState, software_times
from broadcast.games.ids import GameKey
from broadcast.journal.kinds import JournalEvent
from broadcast.service.committer import ActionError, Committer
from broadcast.service.event_state import BoardStatus, EventState
from broadcast.tournament.live_round import current_round
from broadcast.tournament.playoff import time_control_for
from clocks.move_times import FlagFell
from clocks.timesource import EpochTimeSource

log = logging.getLogger(__name__)


@dataclass
class HallBoard:
    """One physical board of the hall: its place (config), the game the live round puts on
    it and the reconstruction following it; what the board said about itself comes from
    the service's state (`name`, `connected`, ...)."""

    config: BoardConfig
    state: Callable[[], EventState] = field(repr=False, compare=False)
    alone: bool = True  # the only board on its port (a single-board line)
    game: str | None = None
    to_game: BoardToGame | None = None  # follows the board's game while it has one
    history: list[str] = field(default_factory=list)
    found: bool = False  # placed where a capture station finds its serial number

    @property
    def number(self) -> int:
        return self.config.number

    @property
    def remote(self) -> bool:
        """A capture station reads it, not this serve's own drivers."""
        return self.config.station is not None or self.found

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


def utc(t: float) -> dt.datetime:
    return dt.datetime.fromtimestamp(t, dt.UTC)


def flags(passed: Sequence[object], game: str | None) -> list[FlagFell | GameFlag]:
    """A clock's flag falls (for the rules, which are told the game) and, as a game fact,
    whose flag it was (for the pages and the PGN)."""
    out: list[FlagFell | GameFlag] = []
    for event in passed:
        if isinstance(event, FlagFell):
            out.append(event)
            if game is not None:
                out.append(GameFlag(game, event.colour, event.t))
    return out


class Hall:
    """The event's hall boards (`boards`, by number), the games on them, their followers."""

    def __init__(
        self,
        config: EventConfig,
        committer: Committer[Hall],
        *,
        time_source: EpochTimeSource,
        port_overrides: dict[int, str] | None = None,
        retry_seconds: float = 0.2,
    ) -> None:
        self.config = config
        self.committer = committer
        self.time_source = time_source
        # A decision that was due and made nothing is looked at again this much later.
        self.retry_seconds = retry_seconds
        overrides = port_overrides or {}
        placed = [replace(b, port=overrides.get(b.number, b.port)) for b in config.boards]
        per_port: dict[str, int] = defaultdict(int)
        for b in placed:
            per_port[b.port] += 1
        found = {b.number for b in config.boards if b.found_by_serial}
        self.boards: dict[int, HallBoard] = {
            b.number: HallBoard(
                b, self._state, alone=per_port[b.port] == 1, found=b.number in found
            )
            for b in placed
        }
        self._on_port: dict[str, list[HallBoard]] = defaultdict(list)
        for board in self.boards.values():
            self._on_port[board.config.port].append(board)
        unknown = set(overrides) - set(self.boards)
        if unknown:
            raise ActionError(f"--board names boards not in the config: {sorted(unknown)}")
        self.due: dict[int, float] = {}  # hall board -> its next reconstruction decision

    def _state(self) -> EventState:
        return self.committer.state

    def undo_part(self) -> Callable[[], None]:
        """For an undone action: what puts the games, followers and due times back. The
        followers an action replaced were not touched (it made new ones): the old ones are
        exactly as they were."""
        hall = {n: (b.game, b.to_game) for n, b in self.boards.items()}
        due = dict(self.due)

        def restore() -> None:
            for number, (game, follower) in hall.items():
                board = self.boards[number]
                board.game, board.to_game = game, follower
            self.due = due

        return restore

    # -- which board ---------------------------------------------------------------------------

    def ports(self) -> dict[str, list[HallBoard]]:
        """The hall boards by port: one driver each."""
        return {port: list(boards) for port, boards in self._on_port.items()}

    def place(self, number: int, station: str, port: str, address: int | None) -> None:
        """Hall board `number` is on `station`'s `port` (qualified) at bus `address` from
        now on: a board found by its serial number where that capture station reports it
        (`broadcast.stations.intake`)."""
        board = self.boards[number]
        old = board.config.port
        if (board.config.station, old, board.config.address) == (station, port, address):
            return
        self._on_port[old].remove(board)
        if not self._on_port[old]:
            del self._on_port[old]
        board.config = replace(board.config, port=port, address=address, station=station)
        self._on_port[port].append(board)
        for where in {old, port}:
            on = self._on_port.get(where, [])
            for b in on:
                b.alone = len(on) == 1

    def board_for(self, port: str, event: DriverEvent) -> HallBoard | None:
        """The hall board a driver event on `port` is from (None: not in the config)."""
        candidates = self._on_port.get(port, [])
        if len(candidates) == 1 and candidates[0].config.address is None:
            return candidates[0]
        if event.board.isdigit():
            address = int(event.board)
            for b in candidates:
                if b.config.address == address:
                    return b
        return None

    def by_name(self, name: str) -> HallBoard | None:
        for board in self.boards.values():
            if board.name == name:
                return board
        return None

    def known_board(self, name: str | None) -> KnownBoard | None:
        """What the journal knew of DGT board `name`: its log fills a restart's gap."""
        memory = self.committer.state.memory.get(name) if name is not None else None
        if name is None or memory is None:
            return None
        return KnownBoard(name, memory.position, memory.recent, memory.last_heard)

    def first_start(self, board: HallBoard) -> KnownBoard | None:
        """A board the journal never saw whose game is under way: its driver rebuilds the
        game from the board's log since the pieces were set up."""
        if board.game is None:
            return None
        game = self.committer.book.games.get(board.game)
        if game is None or game.moves or game.result is not None:
            return None
        serial = board.name or (
            "" if board.config.address is None else f"{board.config.address:05d}"
        )
        return KnownBoard(serial, None, (), self.time_source.now())

    def lost_on(self, port: str, why: str) -> Iterator[BoardLost]:
        """A BoardLost for every board on `port` the state has connected."""
        for board in self._on_port.get(port, []):
            if board.connected and board.name is not None:
                yield BoardLost(self.time_source.now(), board.name, why)

    # -- which game ----------------------------------------------------------------------------

    def live_rounds(self) -> dict[str, int | None]:
        now = utc(self.time_source.now())
        state = self.committer.state
        return {
            s.name: current_round(s, state.tournament, now, state.start_overrides)
            for s in self.config.sections
        }

    def placement(self) -> dict[int, str]:
        """Hall board -> the game it carries in the live rounds. A hall board carries the
        game played at its table (`broadcast.config.tables`: by default the k-th hall board
        of a section carries pairing board k), unless the arbiter moved a game to another
        board (`BoardReplaced`): that board carries it, and the board it left carries nothing
        (or the game that moved there in exchange). A game is its pairing, wherever it is
        played."""
        live = self.live_rounds()  # once, not once per section: every tick comes here
        book = self.committer.book
        out: dict[int, str] = {}
        moved: dict[int, str] = {}
        for section in self.config.sections:
            number = live[section.name]
            if number is None:
                continue
            for board_config in section_boards(self.config, section.name):
                k = pairing_board_of(self.config, board_config)
                game_id = GameKey(section.name, number, k).id
                game = book.games.get(game_id)
                if game is not None and game.hall_board is None:
                    out[board_config.number] = game_id
            for game in book.round_games(section.name, number):
                if game.hall_board is not None and game.hall_board in self.boards:
                    moved[game.hall_board] = game.id
        out.update(moved)  # a moved game displaces a finished one left on its new board
        return out

    def attach_boards(self) -> None:
        """Point every hall board at the game the live rounds put on it (`placement`)."""
        attached: list[BoardAttached] = []
        placement = self.placement()
        book = self.committer.book
        for board in self.boards.values():
            game_id = placement.get(board.number)
            if game_id == board.game:
                continue
            board.game = game_id
            board.to_game = None if game_id is None else self._to_game(board, book.get(game_id))
            if board.to_game is None:
                self.due.pop(board.number, None)
            name = board.name
            if game_id is not None and name is not None:
                attached.append(BoardAttached(game_id, name, self.time_source.now()))
        if not attached:
            return
        self.committer.commit(attached)
        for event in attached:
            shown = self.by_name(event.board)
            if shown is not None:
                self._show_current_position(shown)  # the new game starts from what the board shows

    def unfollow(self, game_id: str) -> None:
        """A game with a result takes no more moves: its board is no longer followed (what
        the players do with the pieces now, a reset or the next game's setup, is nothing
        until the pairings give that board another game)."""
        for board in self.boards.values():
            if board.game == game_id and board.to_game is not None:
                board.to_game = None
                self.due.pop(board.number, None)

    def refollow(self, game_id: str) -> None:
        """After a correction, the board's reconstruction starts again from the new line,
        waiting for the board to show it, and looks at what the board shows now (it may
        show the corrected position already: the arbiter set it up first)."""
        for board in self.boards.values():
            if board.game == game_id:
                board.to_game = self._to_game(board, self.committer.book.get(game_id))
                self._note_due(board)
                self._show_current_position(board)

    def _show_current_position(self, board: HallBoard) -> None:
        name = board.name
        memory = self.committer.state.memory.get(name) if name is not None else None
        if board.to_game is None or name is None or memory is None:
            return
        games, _ = board.to_game.handle(PositionSeen(self.time_source.now(), name, memory.position))
        self._note_due(board)
        self.committer.commit(games, game=board.game)

    def _to_game(self, board: HallBoard, game: GameState) -> BoardToGame | None:
        """The reconstruction that follows `game` on `board`; None for a finished game."""
        if game.finished:
            return None
        state = self.committer.state
        section = next(s for s in self.config.sections if s.name == game.key.section)
        time_control = time_control_for(
            section, state.tournament.section(section.name), game.key.round
        )
        reconstructor = Reconstructor(start_fen=game.start_fen, time_control=time_control)
        white_side = state.white_sides.get(game.id)
        if game.moves:
            reconstructor.resume(
                [m.uci for m in game.moves],
                white_side=white_side,
                # a software clock's reckoning is no clock time: a press may still give one
                clocks=[None if m.software_clock else m.remaining for m in game.moves],
            )
        if game.running is not None and white_side is not None and not game.awaiting_board:
            # Whose clock ran when the record stopped: a press heard only after a restart
            # (a station's stream, resent) still completes its move. A spare's or a
            # corrected board's clock is another matter (below).
            reconstructor.clock_was_running(game.running, white_side)
        name = board.name
        follower = BoardToGame(name or f"board-{board.number}", game.id, reconstructor)
        if game.awaiting_board:
            # A spare taking the game over, or the board after the arbiter's correction: it
            # must show the game's position first. The game's own board keeps its clock.
            follower.awaiting = True
            follower.keeps_clock = game.awaiting_correction
            change = game.board_changes[-1] if game.board_changes else None
            if (
                not game.awaiting_correction
                and change is not None
                and change.white_seconds is not None
                and change.black_seconds is not None
            ):
                follower.entered_times = (change.white_seconds, change.black_seconds)
        else:
            soft = software_times(game)
            if soft is not None:
                # A clockless spare that had taken the game over before a restart: its
                # software clock goes on from the times the journal holds.
                reconstructor.start_software_clock(*soft)
        memory = state.memory.get(name) if name is not None else None
        if memory is not None and not follower.awaiting:
            follower.seen(memory.position)
        return follower

    # -- what the boards say, and time ---------------------------------------------------------

    def on_driver_event(self, port: str, event: DriverEvent) -> None:
        """A driver's event for the board on `port`: with what its game makes of it, in
        the open batch (a batch of its own if none is open)."""
        board = self.board_for(port, event)
        if board is None:
            log.debug("event from a board not in the config: %s on %s", event.board, port)
            return
        if isinstance(event, BoardConnected) and board.name != event.board:
            log.info("hall board %d is DGT board %s on %s", board.number, event.board, port)
            if board.to_game is not None:
                board.to_game.board = event.board
        batch: list[JournalEvent] = [event]
        if board.to_game is not None:
            games, passed = board.to_game.handle(
                event, self.committer.book.games.get(board.game or "")
            )
            self._note_due(board)
            batch += games
            batch += flags(passed, board.game)
            if isinstance(event, BoardConnected) and board.game is not None:
                batch.append(BoardAttached(board.game, event.board, event.t))
        with self.committer.batch():
            self.committer.commit(batch, game=board.game)

    def _note_due(self, board: HallBoard) -> None:
        """When this board's reconstruction next has a decision to make (event time)."""
        due = None if board.to_game is None else board.to_game.reconstructor.next_deadline()
        if due is None:
            self.due.pop(board.number, None)
        else:
            self.due[board.number] = due

    def due_now(self, now: float) -> list[int]:
        """The hall boards whose reconstruction has a decision due at `now`."""
        return [n for n, t in self.due.items() if t <= now]

    def tick_board(self, number: int, now: float) -> None:
        """Board `number`'s reconstruction decides what is due at `now`, in the open batch."""
        board = self.boards[number]
        self.due.pop(number, None)
        if board.to_game is None:
            return
        with self.committer.step(f"the reconstruction of hall board {number}"):
            games, passed = board.to_game.tick(now)
            self.committer.commit([*games, *flags(passed, board.game)], game=board.game)
            self._note_due(board)
        if self.due.get(number, now + 1) <= now:
            # Nothing decided: look again at the pace of the old full tick.
            self.due[number] = now + self.retry_seconds


__all__ = ["Hall", "HallBoard", "flags", "utc"]
