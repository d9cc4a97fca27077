"""Pure folding of decoded board messages into driver events, shared by live drivers and
offline replay: the same code turns bytes into positions whether they come from a port
or from a capture file.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from boards.dgt.bus import BusReply
from boards.dgt.codes import BusReplyId
from boards.dgt.eeprom import ClockTime, PieceChange, decode_events
from boards.dgt.messages import BatteryStatus, BoardDump, BoardMessage, BWTime, FieldUpdate
from boards.driver_events import BatterySeen, ClockSeen, ClockStamped, DriverEvent, PositionSeen
from boards.position import BoardPosition
from boards.recovery import RecentChanges
from clocks.reading import ClockAck, ClockReading, NoClock, decode_bwtime


@dataclass
class BoardStream:
    """One board's current position and clock, updated message by message."""

    board: str
    position: BoardPosition | None = None
    clock: ClockReading | NoClock | None = None
    recent: RecentChanges = field(default_factory=RecentChanges)
    acks: list[ClockAck] = field(default_factory=list)

    def set_position(self, t: float, position: BoardPosition) -> list[DriverEvent]:
        self.position = position
        return [PositionSeen(t, self.board, position)]

    def change(self, t: float, index: int, code: int) -> list[DriverEvent]:
        """One square changed. Before the first full position, a change means nothing."""
        if self.position is None:
            return []
        self.recent.add(index, code)
        self.position = self.position.with_piece(index, code)
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
            out: list[DriverEvent] = []
            for event in decode_events(reply.data)[0]:
                if isinstance(event, PieceChange):
                    out += self.change(t, event.index, event.code)
                elif isinstance(event, ClockTime):
                    out.append(
                        ClockStamped(
                            t,
                            self.board,
                            "left" if event.left else "right",
                            event.seconds,
                            recovered=False,
                        )
                    )
            return out
        return []


__all__ = ["BoardStream"]
