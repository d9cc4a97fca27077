"""Incremental decoders fed arbitrary chunks of bytes. They never raise on garbage.

Only id/command bytes have bit 7 set, so a decoder that loses sync drops bytes up to
the next byte >= 0x80 and tries again there. Impossible lengths and payloads with a
high byte inside are dropped the same way. `dropped` counts the bytes thrown away.

The two device-to-host streams (a board in single-board mode, boards on a bus) share
one frame walk (`_FrameDecoder`): they differ only in their ids, the lengths each id may
have, and what a complete frame becomes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from boards.dgt.bus import (
    BusChecksumError,
    BusReply,
    BusRequest,
    checksum,
    decode_request,
    reply_length_ok,
)
from boards.dgt.clock_commands import ClockCommand, decode_clock_command
from boards.dgt.codes import BusReplyId, Command, MessageId
from boards.dgt.messages import BoardMessage, decode_payload, length_ok

_MESSAGE_IDS = frozenset(int(m) for m in MessageId)
_BUS_REPLY_IDS = frozenset(int(m) for m in BusReplyId)

T = TypeVar("T")

__all__ = [
    "BoardStreamDecoder",
    "BusItem",
    "BusStreamDecoder",
    "ClockCommandFrame",
    "HostItem",
    "HostStreamDecoder",
    "SetLeds",
    "SingleCommand",
]


class _Resync:
    """Shared buffer handling: find frame starts, count what is dropped.

    Consumed bytes are tracked with a read offset and cut off once per `feed`, so a large
    chunk (a whole capture file) decodes in linear time.
    """

    def __init__(self) -> None:
        self._buf = bytearray()
        self._pos = 0
        self.dropped = 0

    def _drop(self, n: int) -> None:
        self._pos += n
        self.dropped += n

    def _skip_to_next_high(self, start: int = 1) -> None:
        """Drop the first `start` bytes and everything up to the next byte >= 0x80."""
        buf, i = self._buf, self._pos + start
        while i < len(buf) and buf[i] < 0x80:
            i += 1
        self._drop(i - self._pos)

    def _first_high(self, begin: int, end: int) -> int | None:
        """Offset (from the read position) of the first byte >= 0x80 in [begin, end)."""
        buf, base = self._buf, self._pos
        for i in range(base + begin, min(base + end, len(buf))):
            if buf[i] >= 0x80:
                return i - base
        return None

    def _available(self) -> int:
        return len(self._buf) - self._pos

    def _compact(self) -> None:
        del self._buf[: self._pos]
        self._pos = 0

    @property
    def pending(self) -> int:
        return self._available()


class _FrameDecoder(_Resync, Generic[T]):
    """The frame walk of the device-to-host streams, written once: `id, len_hi, len_lo,
    payload` with the length counting the whole frame. Subclasses give the ids they
    accept and the lengths each id may have, and say what a complete frame becomes
    (`_step`)."""

    def __init__(self, ids: frozenset[int], length_ok: Callable[[int, int], bool]) -> None:
        super().__init__()
        self._ids = ids
        self._length_ok = length_ok

    def _step(self, first: int, buf: bytearray, start: int, total: int) -> T | None:
        """What the complete frame `buf[start : start + total]` becomes; None drops it.
        (Given the buffer, not a copy: each step slices only what it needs.)"""
        raise NotImplementedError

    def feed(self, data: bytes) -> list[T]:
        self._buf += data
        out: list[T] = []
        buf, ids, length_ok, step = self._buf, self._ids, self._length_ok, self._step
        while (avail := self._available()) > 0:
            p = self._pos
            first = buf[p]
            if first not in ids:
                self._skip_to_next_high(1 if first >= 0x80 else 0)
                continue
            if avail < 3:
                break
            if buf[p + 1] >= 0x80 or buf[p + 2] >= 0x80:
                self._skip_to_next_high()
                continue
            total = (buf[p + 1] << 7) | buf[p + 2]
            if not length_ok(first, total):
                self._skip_to_next_high()
                continue
            # A high byte inside the would-be payload means this frame was cut short.
            cut = self._first_high(3, total)
            if cut is not None:
                self._drop(cut)
                continue
            if avail < total:
                break
            self._pos = p + total
            item = step(first, buf, p, total)
            if item is None:
                self.dropped += total
                continue
            out.append(item)
        self._compact()
        return out


class BoardStreamDecoder(_FrameDecoder[BoardMessage]):
    """Board-to-host messages of a board in single-board mode."""

    def __init__(self) -> None:
        super().__init__(_MESSAGE_IDS, length_ok)

    def _step(self, first: int, buf: bytearray, start: int, total: int) -> BoardMessage | None:
        try:
            return decode_payload(first, bytes(buf[start + 3 : start + total]))
        except (UnicodeDecodeError, ValueError, IndexError):
            return None


BusItem = BusReply | BusChecksumError


class BusStreamDecoder(_FrameDecoder[BusItem]):
    """Replies from boards in bus mode."""

    def __init__(self) -> None:
        super().__init__(_BUS_REPLY_IDS, reply_length_ok)

    def _step(self, first: int, buf: bytearray, start: int, total: int) -> BusItem:
        frame = bytes(buf[start : start + total])
        address = (frame[3] << 7) | frame[4]
        if frame[-1] != checksum(frame[:-1]):
            # Reported (the driver asks again), and counted as dropped: its bytes are lost.
            self.dropped += total
            return BusChecksumError(BusReplyId(first), address)
        return BusReply(BusReplyId(first), address, frame[5:-1])


@dataclass(frozen=True, slots=True)
class SingleCommand:
    """A one-byte single-board command (or one the board does not know)."""

    code: int


@dataclass(frozen=True, slots=True)
class ClockCommandFrame:
    command: ClockCommand


@dataclass(frozen=True, slots=True)
class SetLeds:
    data: bytes


HostItem = SingleCommand | ClockCommandFrame | SetLeds | BusRequest

_SINGLE_CODES = frozenset(int(c) for c in Command) - {Command.CLOCK_MESSAGE, Command.SET_LEDS}


class HostStreamDecoder(_Resync):
    """What a board receives: one-byte commands, clock frames, LED frames and bus frames."""

    def feed(self, data: bytes) -> list[HostItem]:
        self._buf += data
        out: list[HostItem] = []
        buf = self._buf
        while (avail := self._available()) > 0:
            p = self._pos
            first = buf[p]
            if first >= 0x80:
                if avail < 4:
                    break
                request = decode_request(bytes(buf[p : p + 4]))
                if request is None:
                    # Drop only the bad command byte: a one-byte single-board command may follow.
                    self._drop(1)
                    continue
                self._pos += 4
                out.append(request)
            elif first in (Command.CLOCK_MESSAGE, Command.SET_LEDS):
                if avail < 2:
                    break
                n = buf[p + 1]
                if n < 1 or n > 16:
                    self._drop(1)
                    continue
                if avail < 2 + n:
                    break
                inner = bytes(buf[p + 2 : p + 2 + n])
                if first == Command.SET_LEDS:
                    self._pos += 2 + n
                    out.append(SetLeds(inner))
                    continue
                clock = decode_clock_command(inner)
                if clock is None:
                    self._drop(1)
                    continue
                self._pos += 2 + n
                out.append(ClockCommandFrame(clock))
            elif first in _SINGLE_CODES:
                self._pos += 1
                out.append(SingleCommand(first))
            else:
                self._drop(1)
        self._compact()
        return out
