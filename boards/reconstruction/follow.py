"""Following one board: driver events in, reconstructed game events out.

Glue between a board driver and the pure Reconstructor, shared by `boardwire demo`,
`watch` and `replay`. No I/O: time comes in with the events and with `tick(t)`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from boards.driver_events import (
    BoardConnected,
    BoardLost,
    ClockSeen,
    DriverEvent,
    LogRecovered,
    PositionSeen,
)
from boards.reconstruction import GameLine, ReconstructionEvent, Reconstructor


@dataclass
class BoardFollower:
    """One board's game: feed it every driver event of that board."""

    board: str
    reconstructor: Reconstructor = field(default_factory=Reconstructor)
    line: GameLine = field(default_factory=GameLine)
    connected: bool = False

    def handle(self, event: DriverEvent) -> list[ReconstructionEvent]:
        if isinstance(event, BoardConnected):
            self.connected = True
            return []
        if isinstance(event, BoardLost):
            self.connected = False
            return []
        if isinstance(event, PositionSeen):
            out = self.reconstructor.feed_position(
                event.t, event.position, recovered=event.recovered
            )
        elif isinstance(event, LogRecovered):
            positions = [(event.start, ())] + [
                (p, step.presses) for p, step in zip(event.positions(), event.steps, strict=True)
            ]
            out = self.reconstructor.feed_log(event.t, positions, event.seen + 1)
        elif isinstance(event, ClockSeen):
            out = self.reconstructor.feed_clock(event.t, event.reading)
        else:
            return []
        self.line.extend(out)
        return out

    def tick(self, t: float) -> list[ReconstructionEvent]:
        out = self.reconstructor.tick(t)
        self.line.extend(out)
        return out


__all__ = ["BoardFollower"]
