"""From one board's driver and reconstruction events to one game's events. Pure.

The board knows squares and the left/right halves of its clock; the game knows plies
and colours. `BoardToGame` keeps a board's follower (reconstruction) and translates
what it reports into `GameEvent`s for the game that board currently carries. Clock
flags and board health are not game facts: they pass through, for the arbiter rules.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from boards.events import ClockSeen, DriverEvent
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
from broadcast.follow import BoardFollower
from broadcast.games.events import (
    GameClock,
    GameEvent,
    GameMove,
    GameMoveClocked,
    GameSync,
    GameTakeback,
    ResultProposed,
)
from clocks.clocktimes import other_side
from clocks.reading import ClockReading

Passed = DriverEvent | ReconstructionEvent


@dataclass
class BoardToGame:
    """One physical board carrying one game."""

    board: str
    game: str
    follower: BoardFollower = field(init=False)
    reconstructor: Reconstructor = field(default_factory=Reconstructor)

    def __post_init__(self) -> None:
        self.follower = BoardFollower(self.board, self.reconstructor)

    def handle(self, event: DriverEvent) -> tuple[list[GameEvent], list[Passed]]:
        """Game events, and the raw events the arbiter rules also want (health, flags,
        new-game and sync details)."""
        games: list[GameEvent] = []
        passed: list[Passed] = [event]
        if isinstance(event, ClockSeen) and isinstance(event.reading, ClockReading):
            games.append(self.clock_event(event.t, event.reading))
        for out in self.follower.handle(event):
            games += self.translate(out)
            passed.append(out)
        return games, passed

    def tick(self, t: float) -> tuple[list[GameEvent], list[Passed]]:
        games: list[GameEvent] = []
        passed: list[Passed] = []
        for out in self.follower.tick(t):
            games += self.translate(out)
            passed.append(out)
        return games, passed

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
