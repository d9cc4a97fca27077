"""Fold reconstruction events back into the current game line (moves and clock times)."""

from __future__ import annotations

from dataclasses import dataclass, field

from boards.reconstruction.reconstruction_events import (
    MoveClocked,
    MovePlayed,
    MoveRetracted,
    NewGame,
    ReconstructionEvent,
    Result,
    ResultSignalled,
)
from clocks.move_times import MoveTime


@dataclass
class GameLine:
    """The game as the events describe it now; apply events in order."""

    fen: str | None = None
    sans: list[str] = field(default_factory=list)
    ucis: list[str] = field(default_factory=list)
    clocks: list[MoveTime | None] = field(default_factory=list)
    times: list[float] = field(default_factory=list)
    result: Result | None = None
    games: int = 0
    retractions: int = 0

    def apply(self, event: ReconstructionEvent) -> None:
        if isinstance(event, NewGame):
            self.fen = event.fen
            self.sans, self.ucis, self.clocks, self.times = [], [], [], []
            self.result = None
            self.games += 1
        elif isinstance(event, MovePlayed):
            del self.sans[event.ply - 1 :]
            del self.ucis[event.ply - 1 :]
            del self.clocks[event.ply - 1 :]
            del self.times[event.ply - 1 :]
            self.sans.append(event.san)
            self.ucis.append(event.uci)
            self.clocks.append(event.clock)
            self.times.append(event.t)
        elif isinstance(event, MoveClocked):
            if 0 < event.ply <= len(self.clocks):
                self.clocks[event.ply - 1] = event.clock
        elif isinstance(event, MoveRetracted):
            self.retractions += 1
            del self.sans[event.ply :]
            del self.ucis[event.ply :]
            del self.clocks[event.ply :]
            del self.times[event.ply :]
        elif isinstance(event, ResultSignalled):
            self.result = event.result

    def extend(self, events: list[ReconstructionEvent]) -> None:
        for event in events:
            self.apply(event)


__all__ = ["GameLine"]
