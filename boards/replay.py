"""Replaying a capture offline through the same pipeline as a live board.

Bytes from the capture go through the same decoders, the same `BoardStream` folding and
the same reconstruction as live traffic; the capture's timestamps are the virtual time.
Pure: a `Capture` in, events and game lines out.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from boards.capture import Capture
from boards.dgt.bus import BusReply, serial_from_address
from boards.dgt.decoder import BoardStreamDecoder, BusStreamDecoder
from boards.dgt.messages import SerialNumber
from boards.driver_events import DriverEvent
from boards.from_messages import BoardStream
from boards.reconstruction import GameLine, ReconstructionEvent, Reconstructor
from boards.reconstruction.drive import deadlines_until
from boards.reconstruction.follow import BoardFollower

FLUSH_SECONDS = 10.0  # after the last byte, let pending stable positions settle

Tagged = tuple[str, DriverEvent | ReconstructionEvent]


@dataclass
class ReplayResult:
    mode: str  # "single" | "bus"
    events: list[Tagged] = field(default_factory=list)  # (board, event) in time order
    followers: dict[str, BoardFollower] = field(default_factory=dict)
    dropped_bytes: int = 0

    @property
    def boards(self) -> list[str]:
        return list(self.followers)

    def line(self, board: str | None = None) -> GameLine:
        """The game of `board` (default: the first board seen)."""
        if not self.followers:
            return GameLine()
        key = board if board is not None else next(iter(self.followers))
        if key not in self.followers:
            raise KeyError(
                f"no board {key} in this capture; boards seen: {', '.join(self.followers)}"
            )
        return self.followers[key].line


def detect_mode(capture: Capture) -> str:
    """Bus traffic has host frames with bit 7 set; without host traffic, the decoder that
    makes more sense of the board's bytes wins."""
    outgoing = b"".join(c.data for c in capture.chunks if c.direction == "out")
    if outgoing:
        return "bus" if any(b >= 0x80 for b in outgoing) else "single"
    incoming = b"".join(c.data for c in capture.chunks if c.direction == "in")
    single = len(BoardStreamDecoder().feed(incoming))
    bus = len(BusStreamDecoder().feed(incoming))
    return "bus" if bus > single else "single"


def replay_capture(
    capture: Capture,
    *,
    make_reconstructor: Callable[[], Reconstructor] = Reconstructor,
) -> ReplayResult:
    mode = detect_mode(capture)
    result = ReplayResult(mode)
    streams: dict[str, BoardStream] = {}

    def follower(board: str) -> BoardFollower:
        if board not in result.followers:
            result.followers[board] = BoardFollower(board, make_reconstructor())
        return result.followers[board]

    def tick_all(t: float) -> None:
        for board, f in result.followers.items():
            for due in deadlines_until(f.reconstructor.next_deadline, t):
                for out in f.tick(due):
                    result.events.append((board, out))

    def deliver(t: float, board: str, events: list[DriverEvent]) -> None:
        f = follower(board)
        for event in events:
            result.events.append((board, event))
            for out in f.handle(event):
                result.events.append((board, out))

    single_decoder = BoardStreamDecoder()
    bus_decoder = BusStreamDecoder()
    single_name = "board"
    last_t = 0.0
    for chunk in capture.chunks:
        if chunk.direction != "in":
            continue
        # Never backwards (read_capture refuses it; a Capture built in code might not):
        # the reconstructor's deadlines only fall due as time advances.
        t = last_t = max(chunk.t, last_t)
        tick_all(t)
        if mode == "single":
            for message in single_decoder.feed(chunk.data):
                if isinstance(message, SerialNumber) and single_name == "board" and not streams:
                    single_name = message.text
                stream = streams.setdefault(single_name, BoardStream(single_name))
                deliver(t, single_name, stream.feed(t, message))
        else:
            for item in bus_decoder.feed(chunk.data):
                name = serial_from_address(item.address)
                stream = streams.setdefault(name, BoardStream(name))
                if isinstance(item, BusReply):
                    deliver(t, name, stream.feed_bus(t, item))
    tick_all(last_t + FLUSH_SECONDS)
    result.dropped_bytes = single_decoder.dropped if mode == "single" else bus_decoder.dropped
    return result


__all__ = ["FLUSH_SECONDS", "ReplayResult", "Tagged", "detect_mode", "replay_capture"]
