"""`EventState`: everything the journal's events say about the event, as one immutable value.

    state = EventState.new(config)
    state = state.apply(event, seq)     # pure: a new value, the old one unchanged

The one fold of the journal: the tournament (pairings, results, byes), the games, moved
round starts, what each DGT board last said about itself (connected, battery, clock), and
what a restarted driver needs to find its place in a board's log (the last position and
the recent square changes). The service, the offline reader (`standings`, `export`) and
the snapshots all use it. Because it is a value, a commit computes the new state first and
makes it current only once the events are in the journal's transaction, and an action that
cannot be made durable puts the old value back: state and journal cannot disagree.

Board status is kept by the board's name (its serial number) and the port a single board
was found on, never by hall board: which hall board a port is depends on the command line
(`--board N=PORT`, the simulator's pseudo-terminals), the fold only on the journal.
`apply` is total for the events the service journals; it raises (GameError, StateError)
only for an event that does not fit, which the service then refuses before journaling it.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field

from boards.driver_events import (
    BatterySeen,
    BoardConnected,
    BoardHealth,
    BoardLost,
    ClockSeen,
    LogRecovered,
    PositionSeen,
)
from boards.position import BoardPosition
from boards.recovery import RECENT_CHANGES, changes_between
from broadcast.arbiter.decisions import ActionUndone
from broadcast.config.model import EventConfig
from broadcast.games.book import GameBook
from broadcast.games.changes import put_back
from broadcast.games.fold import fold_tournament
from broadcast.games.game_events import GameClock, GameEvent
from broadcast.journal.kinds import JournalEvent
from broadcast.journal.station_progress import StationProgress
from broadcast.tournament.live_round import RoundStartMoved
from broadcast.tournament.tournament_events import TournamentEvent
from broadcast.tournament.tournament_state import TournamentState
from clocks.reading import ClockReading, Side

Change = tuple[int, int]


@dataclass(frozen=True, slots=True)
class BoardStatus:
    """What a DGT board last said about itself."""

    connected: bool = False
    battery: int | None = None
    clock_present: bool | None = None
    last_seen: float | None = None
    missed_polls: int = 0


@dataclass(frozen=True, slots=True)
class BoardMemory:
    """What a restarted driver needs to find its place in the board's log."""

    position: BoardPosition
    recent: tuple[Change, ...]  # the last RECENT_CHANGES square changes, as logged
    last_heard: float


def remember(before: BoardMemory | None, event: PositionSeen | LogRecovered) -> BoardMemory:
    """A board's memory after `event`: the last position and the real stream of square
    changes (as the board logged them; only a board dump, which carries none, is turned
    into differences). The journal's fold and a capture station's outbox both keep it."""
    recent = before.recent if before is not None else ()
    added: tuple[Change, ...]
    if isinstance(event, LogRecovered):
        added = tuple(c for step in event.steps[event.seen + 1 :] for c in step.changes)
        position = event.final
    else:
        if event.change is not None:
            added = (event.change,)
        elif before is not None:
            added = tuple(changes_between(before.position, event.position))
        else:
            added = ()
        position = event.position
    if added:
        recent = (*recent, *added)[-RECENT_CHANGES:]
    return BoardMemory(position, recent, event.t)


_NO_STATUS = BoardStatus()


@dataclass(frozen=True)
class EventState:
    """The fold of the journal up to event `seq` (see the module docstring)."""

    tournament: TournamentState
    book: GameBook = field(default_factory=GameBook)
    start_overrides: Mapping[tuple[str, int], dt.datetime] = field(default_factory=dict)
    boards: Mapping[str, BoardStatus] = field(default_factory=dict)  # by board name
    on_port: Mapping[str, str] = field(default_factory=dict)  # port -> board found there
    on_bus: Mapping[tuple[str, int], str] = field(default_factory=dict)  # (port, address)
    memory: Mapping[str, BoardMemory] = field(default_factory=dict)  # by board name
    white_sides: Mapping[str, Side] = field(default_factory=dict)  # by game id
    # Each capture station's stream: how far it is applied (incarnation, seq), by station.
    stations: Mapping[str, tuple[str, int]] = field(default_factory=dict)
    # Where each board last connected: (port, bus address), by board name. A board found
    # by its serial number is placed there again after a restart.
    connected_at: Mapping[str, tuple[str, int | None]] = field(default_factory=dict)
    # Where the fold is in the journal, not what it says: an action and its undo leave
    # the same event, a few entries later.
    seq: int = field(default=0, compare=False)

    @classmethod
    def new(cls, config: EventConfig) -> EventState:
        return cls(TournamentState.new(config))

    def apply(self, event: JournalEvent, seq: int | None = None) -> EventState:
        """The state after `event` (numbered `seq` in the journal, if given)."""
        state = self._apply(event)
        if seq is not None and seq != state.seq:
            state = state._evolve(seq=seq)
        return state

    def at(self, seq: int) -> EventState:
        """The same state, as of journal event `seq`."""
        return self if seq == self.seq else self._evolve(seq=seq)

    def _apply(self, event: JournalEvent) -> EventState:
        if isinstance(event, TournamentEvent):
            tournament, book = fold_tournament(self.tournament, self.book, event)
            return self._evolve(tournament=tournament, book=book)
        if isinstance(event, ActionUndone):
            # The counter-action: the parts the undone action changed, put back.
            tournament, book = put_back(self.tournament, self.book, event.parts)
            return self._evolve(tournament=tournament, book=book)
        if isinstance(event, RoundStartMoved):
            moved = {**self.start_overrides, (event.section, event.round): event.at}
            return self._evolve(start_overrides=moved)
        if isinstance(event, GameEvent):
            state = self._evolve(book=self.book.apply(event))
            if isinstance(event, GameClock) and self.white_sides.get(event.game) != (
                event.white_side
            ):
                state = state._evolve(
                    white_sides={**self.white_sides, event.game: event.white_side}
                )
            return state
        if isinstance(event, BoardConnected | BoardLost | BatterySeen | BoardHealth | ClockSeen):
            return self._board_status(event)
        if isinstance(event, PositionSeen | LogRecovered):
            return self._remember_position(event)
        if isinstance(event, StationProgress):
            mark = (event.incarnation, event.seq)
            return self._evolve(stations={**self.stations, event.station: mark})
        # Alerts, flag falls, clock stamps, action records: the rules' business and the
        # journal's, not the state's.
        return self

    def _board_status(
        self, event: BoardConnected | BoardLost | BatterySeen | BoardHealth | ClockSeen
    ) -> EventState:
        old = self.boards.get(event.board, _NO_STATUS)
        connected, battery, clock, polls = (
            old.connected,
            old.battery,
            old.clock_present,
            old.missed_polls,
        )
        on_port, on_bus = self.on_port, self.on_bus
        if isinstance(event, ClockSeen):  # by far the most frequent: one a second
            clock = isinstance(event.reading, ClockReading)
        elif isinstance(event, BoardConnected):
            connected, battery, clock = True, event.info.battery_percent, event.info.clock_present
            port = event.info.port
            if on_port.get(port) != event.board:
                on_port = {**on_port, port: event.board}
            if event.board.isdigit() and on_bus.get((port, int(event.board))) != event.board:
                on_bus = {**on_bus, (port, int(event.board)): event.board}
            where = (port, event.info.bus_address)
            if self.connected_at.get(event.board) != where:
                at = {**self.connected_at, event.board: where}
                status = BoardStatus(connected, battery, clock, event.t, polls)
                return self._evolve(
                    boards={**self.boards, event.board: status},
                    on_port=on_port,
                    on_bus=on_bus,
                    connected_at=at,
                )
        elif isinstance(event, BoardLost):
            connected = False
        elif isinstance(event, BatterySeen):
            battery = event.percent
        else:
            polls = event.missed_polls
        status = BoardStatus(connected, battery, clock, event.t, polls)
        return self._evolve(
            boards={**self.boards, event.board: status}, on_port=on_port, on_bus=on_bus
        )

    def _remember_position(self, event: PositionSeen | LogRecovered) -> EventState:
        remembered = remember(self.memory.get(event.board), event)
        return self._evolve(memory={**self.memory, event.board: remembered})

    def _evolve(self, **changes: object) -> EventState:
        # `dataclasses.replace` checks every field each time: too slow for a fold of
        # millions of clock readings. The value stays immutable: only a new one is made.
        new = object.__new__(EventState)
        new.__dict__.update(self.__dict__)
        new.__dict__.update(changes)
        return new

    # -- questions ---------------------------------------------------------------------------

    def name_at(self, port: str, address: int | None, *, alone: bool) -> str | None:
        """The board found at a hall place: the only board of its port (`alone`, no bus
        address), else the bus board with that address on the port."""
        if alone and address is None:
            return self.on_port.get(port)
        return self.on_bus.get((port, address)) if address is not None else None

    def status_of(self, name: str | None) -> BoardStatus:
        return self.boards.get(name, BoardStatus()) if name is not None else BoardStatus()


__all__ = [
    "BoardMemory",
    "BoardStatus",
    "EventState",
    "PublicState",
    "fold_tournament",
    "remember",
]


@dataclass(frozen=True, slots=True)
class PublicState:
    """What spectators may see, as of some moment (immutable values)."""

    tournament: TournamentState
    book: GameBook
    seq: int = 0
