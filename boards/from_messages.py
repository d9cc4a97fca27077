"""Pure folding of decoded board messages into driver events, shared by live drivers and
offline replay: the same code turns bytes into positions whether they come from a port
or from a capture file.

A bus board's change list that holds two lever presses or more (two moves completed
between two polls: a line polled late on a loaded machine, or a blitz flurry) becomes one
`LogRecovered` rather than a position per change: the changes come with no times, only
their order, so each would carry the poll's one time stamp, and the reconstruction, which
weighs how long a position stood, could not tell the moves apart. As a log read back,
the list is explained press by press, each press's time its move's clock time (the way
`recovery.continued` treats what a single board sent during a log download).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from boards.dgt.bus import BusReply
from boards.dgt.codes import BusReplyId
from boards.dgt.eeprom import ClockTime, EepromEvent, PieceChange, decode_events
from boards.dgt.messages import BatteryStatus, BoardDump, BoardMessage, BWTime, FieldUpdate
from boards.driver_events import (
    BatterySeen,
    ClockSeen,
    ClockStamped,
    DriverEvent,
    LogRecovered,
    LogStep,
    PositionSeen,
)
from boards.position import BoardPosition
from boards.recovery import RecentChanges
from clocks.reading import ClockAck, ClockReading, NoClock, Side, decode_bwtime


@dataclass
class Way:
    """The way a bus board's last few moves came, as its change lists logged it: the
    position at an earlier lever press (`start`) and every square change and press since,
    as log steps. A change list of several moves is read on from it, so that it begins
    where the game stands, even when the game has not taken the last move or two yet (a
    piece lifted for the next move, or a move and the next lift in one list, are part of
    the way, not the start). `PRESSES` presses are kept, `STEPS` steps at most."""

    PRESSES: ClassVar[int] = 3
    STEPS: ClassVar[int] = 96

    start: BoardPosition | None = None
    steps: list[LogStep] = field(default_factory=list)

    def forget(self) -> None:
        """A dump: the way here is unknown."""
        self.start, self.steps = None, []

    def change(self, index: int, code: int) -> None:
        if self.start is None:
            return
        self.steps.append(LogStep(((index, code),)))
        if len(self.steps) > self.STEPS:
            self.forget()

    def press(self, side: Side, seconds: int, now: BoardPosition) -> None:
        """A press logged while the board shows `now`."""
        if self.start is None:
            self.start = now  # the first press: the way begins here
            return
        last = self.steps.pop() if self.steps else LogStep(())
        self.steps.append(LogStep(last.changes, (*last.presses, (side, seconds)), last.reset))
        while sum(len(step.presses) for step in self.steps) > self.PRESSES:
            # Begin at the first press kept instead: the position after its step.
            first = next(i for i, step in enumerate(self.steps) if step.presses)
            for step in self.steps[: first + 1]:
                for square, piece in step.changes:
                    self.start = self.start.with_piece(square, piece)
            self.steps = self.steps[first + 1 :]


@dataclass
class BoardStream:
    """One board's current position and clock, updated message by message."""

    board: str
    position: BoardPosition | None = None
    clock: ClockReading | NoClock | None = None
    recent: RecentChanges = field(default_factory=RecentChanges)
    acks: list[ClockAck] = field(default_factory=list)
    way: Way = field(default_factory=Way)

    def set_position(self, t: float, position: BoardPosition) -> list[DriverEvent]:
        self.position = position
        self.way.forget()
        return [PositionSeen(t, self.board, position)]

    def change(self, t: float, index: int, code: int) -> list[DriverEvent]:
        """One square changed. Before the first full position, a change means nothing."""
        if self.position is None:
            return []
        self.recent.add(index, code)
        self.position = self.position.with_piece(index, code)
        self.way.change(index, code)
        return [PositionSeen(t, self.board, self.position, change=(index, code))]

    def clock_payload(self, t: float, raw: bytes) -> list[DriverEvent]:
        """A BWTIME payload: a reading (reported when it changes), an ack, or noise."""
        reading = decode_bwtime(raw)
        if isinstance(reading, ClockAck):
            self.acks.append(reading)
            return []
        if reading is None or reading == self.clock:
            return []
        self.clock = reading
        return [ClockSeen(t, self.board, reading)]

    def feed(self, t: float, message: BoardMessage) -> list[DriverEvent]:
        """A single-board-mode message."""
        match message:
            case BoardDump(position):
                return self.set_position(t, position)
            case FieldUpdate(index, code):
                return self.change(t, index, code)
            case BWTime(raw):
                return self.clock_payload(t, raw)
            case BatteryStatus() if message.percent is not None:
                return [BatterySeen(t, self.board, message.percent, message.charging)]
        return []

    def feed_bus(self, t: float, reply: BusReply) -> list[DriverEvent]:
        """A bus-mode reply from this board (FROM_START is the driver's: it needs recovery)."""
        if reply.reply_id == BusReplyId.BRD_DUMP and len(reply.data) == 64:
            return self.set_position(t, BoardPosition.from_bytes(reply.data))
        if reply.reply_id == BusReplyId.BWTIME and len(reply.data) == 7:
            return self.clock_payload(t, reply.data)
        if reply.reply_id == BusReplyId.UPDATE:
            events = decode_events(reply.data)[0]
            if self.position is not None and sum(isinstance(e, ClockTime) for e in events) > 1:
                return [self._several_moves(t, self.position, events)]
            out: list[DriverEvent] = []
            for event in events:
                if isinstance(event, PieceChange):
                    out += self.change(t, event.index, event.code)
                elif isinstance(event, ClockTime):
                    side: Side = "left" if event.left else "right"
                    if self.position is not None:
                        self.way.press(side, event.seconds, self.position)
                    out.append(ClockStamped(t, self.board, side, event.seconds, recovered=False))
            return out
        return []

    def _several_moves(
        self, t: float, position: BoardPosition, events: list[EepromEvent]
    ) -> LogRecovered:
        """A change list of several moves as one log read back: on from the way of the
        last few presses (seen live), or else from what the host saw last; a step per
        square change, each press with the step before it."""
        if self.way.start is not None:
            start, steps = self.way.start, list(self.way.steps)
        else:
            start, steps = position, []
        seen = len(steps) - 1
        for event in events:
            if isinstance(event, PieceChange):
                self.recent.add(event.index, event.code)
                position = position.with_piece(event.index, event.code)
                steps.append(LogStep(((event.index, event.code),)))
                self.way.change(event.index, event.code)
            elif isinstance(event, ClockTime):
                side: Side = "left" if event.left else "right"
                last = steps.pop() if steps else LogStep(())
                steps.append(LogStep(last.changes, (*last.presses, (side, event.seconds))))
                self.way.press(side, event.seconds, position)
        self.position = position
        return LogRecovered(t, self.board, start, tuple(steps), seen, "known")


__all__ = ["BoardStream", "Way"]
