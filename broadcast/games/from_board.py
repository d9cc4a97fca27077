"""From one board's driver and reconstruction events to one game's events. Pure.

The board knows squares and the left/right halves of its clock; the game knows plies
and colours. `BoardToGame` keeps a board's follower (reconstruction) and translates
what it reports into `GameEvent`s for the game that board currently carries. Clock
flags and board health are not game facts: they pass through, for the arbiter rules.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

import chess

from boards.driver_events import ClockSeen, ClockStamped, DriverEvent, LogRecovered, PositionSeen
from boards.position import BoardPosition, Orientation
from boards.reconstruction import (
    BackInSync,
    MoveClocked,
    MovePlayed,
    MoveRetracted,
    OutOfSync,
    ReconstructionEvent,
    Reconstructor,
    ResultSignalled,
)
from boards.reconstruction.follow import BoardFollower
from broadcast.games.game_events import (
    Colour,
    GameClock,
    GameEvent,
    GameMove,
    GameMoveClocked,
    GameSync,
    GameTakeback,
    ResultProposed,
)
from broadcast.games.game_state import GameState
from clocks.move_times import other_side
from clocks.reading import ClockReading

Passed = DriverEvent | ReconstructionEvent


@dataclass
class BoardToGame:
    """One physical board carrying one game."""

    board: str
    game: str
    follower: BoardFollower = field(init=False)
    reconstructor: Reconstructor = field(default_factory=Reconstructor)
    # A board that took the game over (a spare), or the game's board after the arbiter's
    # correction: nothing it shows is read as play until it shows the game's position
    # (`awaiting`), and then the times the arbiter entered for a board without a clock
    # start to run (`entered_times`: white, black seconds). The board of a corrected game
    # is still the game's board: its clock readings stay the game's (`keeps_clock`).
    awaiting: bool = False
    entered_times: tuple[float, float] | None = None
    keeps_clock: bool = False

    def __post_init__(self) -> None:
        self.follower = BoardFollower(self.board, self.reconstructor)
        self._placement: str | None = None  # what the board shows, as a FEN placement
        self._stamps: dict[Colour, deque[tuple[float, float]]] = {
            "white": deque(),
            "black": deque(),
        }

    def handle(
        self, event: DriverEvent, game: GameState | None = None
    ) -> tuple[list[GameEvent], list[Passed]]:
        """Game events, and the raw events the arbiter rules also want (health, flags,
        new-game and sync details). `game` is the game as it stands, so that a clock time
        logged at a lever press can go to a move already recorded."""
        if self.awaiting:
            waiting = self._await(event)
            if waiting is not None:
                return waiting
        games: list[GameEvent] = []
        passed: list[Passed] = [event]
        if isinstance(event, PositionSeen | LogRecovered):
            shown = event.position if isinstance(event, PositionSeen) else event.final
            self._placement = shown.board_fen(self.reconstructor.orientation or "normal")
        if isinstance(event, ClockSeen) and isinstance(event.reading, ClockReading):
            clock = self.clock_event(event.t, event.reading)
            games.append(clock)
            games += self._clock_after_press(clock, game)
        if isinstance(event, ClockStamped):
            games += self._stamp(event, game)
        for out in self.follower.handle(event):
            games += self.translate(out)
            passed.append(out)
        if game is not None:
            # A press read back from the board's log that the game counted already (a
            # restarted reconstructor does not know the recorded moves' clock times); a
            # software clock's reckoning is no clock time: the clock's replaces it.
            games = [
                g
                for g in games
                if not (
                    isinstance(g, GameMoveClocked)
                    and 0 < g.ply <= len(game.moves)
                    and game.moves[g.ply - 1].remaining is not None
                    and not game.moves[g.ply - 1].software_clock
                )
            ]
        return self._stamped(games), passed

    def _await(self, event: DriverEvent) -> tuple[list[GameEvent], list[Passed]] | None:
        """While the board has not shown the game's position: what it shows makes the game
        out of sync (once per new position), its clock is not the game's yet, and nothing
        reaches the reconstruction. None once it matches (the event is then read as usual)."""
        if isinstance(event, PositionSeen) and not event.recovered:
            shown = event.position
        elif isinstance(event, LogRecovered):
            shown = event.final
        elif (
            self.keeps_clock
            and isinstance(event, ClockSeen)
            and isinstance(event.reading, ClockReading)
        ):
            return [self.clock_event(event.t, event.reading)], [event]
        else:
            return [], [event]
        expected = self.reconstructor.board.board_fen()
        orientations: tuple[Orientation, ...] = ("normal", "rotated")
        for orientation in orientations:
            if shown.board_fen(orientation) == expected:
                self.awaiting = False
                self.reconstructor.set_orientation(orientation)
                if self.entered_times is not None:
                    self.reconstructor.start_software_clock(event.t, *self.entered_times)
                games, passed = self.handle(event)
                return [GameSync(self.game, True, event.t), *games], passed
        placement = shown.board_fen("normal")
        if placement == self._placement:
            return [], [event]
        self._placement = placement
        return [GameSync(self.game, False, event.t, fen=placement)], [event]

    def tick(self, t: float) -> tuple[list[GameEvent], list[Passed]]:
        if self.awaiting:
            return [], []
        games: list[GameEvent] = []
        passed: list[Passed] = []
        for out in self.follower.tick(t):
            games += self.translate(out)
            passed.append(out)
        return self._stamped(games), passed

    def seen(self, position: BoardPosition) -> None:
        """What the board showed when this follower took over (the journal's last position),
        so that a press stamp read back from the board's log finds the move it belongs to."""
        self._placement = position.board_fen(self.reconstructor.orientation or "normal")

    def _clock_after_press(self, clock: GameClock, game: GameState | None) -> list[GameEvent]:
        """Last resort for a move that came without a clock time (its press was matched to
        nothing, e.g. around a restart), or with the software clock's (played before any
        reading, as a board's log read at a start: the time control's reckoning, not the
        clock's): once the opponent's time runs, the mover's side of the display is what
        they had left after the move, increment included."""
        if game is None or not game.moves or clock.running is None:
            return []
        last = game.moves[-1]
        mover: Colour = "black" if last.fen_after.split()[1] == "w" else "white"
        if (last.remaining is not None and not last.software_clock) or clock.running == mover:
            return []
        if self._placement is None or not _at_most_one_lifted(last.fen_after, self._placement):
            return []  # the board is elsewhere: this display may belong to a later move
        seconds = clock.white if mover == "white" else clock.black
        return [GameMoveClocked(self.game, game.ply, float(seconds), None, clock.t)]

    def _stamp(self, event: ClockStamped, game: GameState | None) -> list[GameEvent]:
        """A press stamp belongs to the presser's move that the board shows at that moment:
        the game's last move if it is theirs and on the board now, else a move still to
        come out of reconstruction (queued)."""
        colour = self.reconstructor.clock_times.colour_of(event.side)
        if game is not None and game.moves and self._placement is not None:
            last = game.moves[-1]
            mover: Colour = "black" if last.fen_after.split()[1] == "w" else "white"
            if mover == colour and last.fen_after.split()[0] == self._placement:
                if last.remaining is not None:
                    return []
                return [GameMoveClocked(self.game, game.ply, float(event.seconds), None, event.t)]
        self._stamps[colour].append((event.t, float(event.seconds)))
        return []

    def _stamped(self, games: list[GameEvent]) -> list[GameEvent]:
        """Clock times the board logged at lever presses (read back from its EEPROM after an
        outage, or polled from a bus board) complete moves that came without one: the first
        stamp of the mover's colour at or after the move is that move's [%clk]."""
        out: list[GameEvent] = []
        for event in games:
            out.append(event)
            if not isinstance(event, GameMove) or event.remaining is not None:
                continue
            # The side to move after the move is the other one (works from any start FEN).
            colour: Colour = "black" if event.fen_after.split()[1] == "w" else "white"
            pending = self._stamps[colour]
            while pending and pending[0][0] < event.t:
                pending.popleft()  # a press before this move belongs to an earlier one
            if pending:
                t, seconds = pending.popleft()
                out.append(GameMoveClocked(self.game, event.ply, seconds, None, max(t, event.t)))
        return out

    def clock_event(self, t: float, reading: ClockReading) -> GameClock:
        times = self.reconstructor.clock_times
        white_side = times.white_side
        black_side = other_side(white_side)
        running = reading.running_side
        return GameClock(
            self.game,
            reading.seconds(white_side),
            reading.seconds(black_side),
            None if running is None else times.colour_of(running),
            t,
            white_side,
        )

    def translate(self, out: ReconstructionEvent) -> list[GameEvent]:
        g = self.game
        match out:
            case MovePlayed():
                clock = out.clock
                return [
                    GameMove(
                        g,
                        out.ply,
                        out.san,
                        out.uci,
                        out.fen_after,
                        out.t,
                        clock.remaining if clock else None,
                        clock.spent if clock else None,
                        clock.software if clock else False,
                    )
                ]
            case MoveClocked():
                return [GameMoveClocked(g, out.ply, out.clock.remaining, out.clock.spent, out.t)]
            case MoveRetracted():
                return [GameTakeback(g, out.ply, out.t)]
            case OutOfSync():
                return [GameSync(g, False, out.t, fen=out.fen)]
            case BackInSync():
                return [GameSync(g, True, out.t, out_seconds=out.out_seconds)]
            case ResultSignalled():
                detail = f"kings on {out.white_king} and {out.black_king}"
                return [ResultProposed(g, out.result, "kings-signal", out.t, detail)]
        return []


def _at_most_one_lifted(fen_after: str, placement: str) -> bool:
    """The board shows the position after the move, or that position with one piece of the
    side to move lifted (the opponent already reaching for their reply)."""
    expected = chess.Board(fen_after)
    if expected.board_fen() == placement:
        return True
    seen = chess.BaseBoard(placement)
    diff = [sq for sq in chess.SQUARES if expected.piece_at(sq) != seen.piece_at(sq)]
    if len(diff) != 1 or seen.piece_at(diff[0]) is not None:
        return False
    lifted = expected.piece_at(diff[0])
    return lifted is not None and lifted.color == expected.turn


__all__ = ["BoardToGame", "Passed"]
