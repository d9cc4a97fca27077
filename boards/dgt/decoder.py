"""Incremental decoders fed arbitrary chunks of bytes. They never raise on garbage.

Only id/command bytes have bit 7 set, so a decoder that loses sync drops bytes up to
the next byte >= 0x80 and tries again there. Impossible lengths and payloads with a
high byte inside are dropped the same way. `dropped` counts the bytes thrown away.
"""

from __future__ import annotations

from dataclasses import dataclass

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


class _Resync:
    """Shared buffer handling: find frame starts, count what is dropped."""

    def __init__(self) -> None:
        self._buf = bytearray()
        self.dropped = 0

    def _drop(self, n: int) -> None:
        del self._buf[:n]
        self.dropped += n

    def _skip_to_next_high(self, start: int = 1) -> None:
        """Drop the first `start` bytes and everything up to the next byte >= 0x80."""
        i = start
        while i < len(self._buf) and self._buf[i] < 0x80:
            i += 1
        self._drop(i)

    @property
    def pending(self) -> int:
        return len(self._buf)


class BoardStreamDecoder(_Resync):
    """Board-to-host messages of a board in single-board mode."""

    def feed(self, data: bytes) -> list[BoardMessage]:
        self._buf += data
        out: list[BoardMessage] = []
        buf = self._buf
        while buf:
            first = buf[0]
            if first not in _MESSAGE_IDS:
                self._skip_to_next_high(1 if first >= 0x80 else 0)
                continue
            if len(buf) < 3:
                break
            if buf[1] >= 0x80 or buf[2] >= 0x80:
                self._skip_to_next_high()
                continue
            total = (buf[1] << 7) | buf[2]
            if not length_ok(first, total):
                self._skip_to_next_high()
                continue
            # A high byte inside the would-be payload means this frame was cut short.
            limit = min(total, len(buf))
            cut = next((i for i in range(3, limit) if buf[i] >= 0x80), None)
            if cut is not None:
                self._drop(cut)
                continue
            if len(buf) < total:
                break
            payload = bytes(buf[3:total])
            message = _safe_decode(first, payload)
            if message is None:
                self._drop(total)
                continue
            del buf[:total]
            out.append(message)
        return out


def _safe_decode(message_id: int, payload: bytes) -> BoardMessage | None:
    try:
        return decode_payload(message_id, payload)
    except (UnicodeDecodeError, ValueError, IndexError):
        return None


BusItem = BusReply | BusChecksumError


class BusStreamDecoder(_Resync):
    """Replies from boards in bus mode."""

    def feed(self, data: bytes) -> list[BusItem]:
        self._buf += data
        out: list[BusItem] = []
        buf = self._buf
        while buf:
            first = buf[0]
            if first not in _BUS_REPLY_IDS:
                self._skip_to_next_high(1 if first >= 0x80 else 0)
                continue
            if len(buf) < 3:
                break
            if buf[1] >= 0x80 or buf[2] >= 0x80:
                self._skip_to_next_high()
                continue
            total = (buf[1] << 7) | buf[2]
            if not reply_length_ok(first, total):
                self._skip_to_next_high()
                continue
            limit = min(total, len(buf))
            cut = next((i for i in range(3, limit) if buf[i] >= 0x80), None)
            if cut is not None:
                self._drop(cut)
                continue
            if len(buf) < total:
                break
            frame = bytes(buf[:total])
            del buf[:total]
            address = (frame[3] << 7) | frame[4]
            if frame[-1] != checksum(frame[:-1]):
                self.dropped += total
                out.append(BusChecksumError(BusReplyId(first), address))
                continue
            out.append(BusReply(BusReplyId(first), address, frame[5:-1]))
        return out


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
        while buf:
            first = buf[0]
            if first >= 0x80:
                if len(buf) < 4:
                    break
                request = decode_request(bytes(buf[:4]))
                if request is None:
                    self._skip_to_next_high()
                    continue
                del buf[:4]
                out.append(request)
            elif first in (Command.CLOCK_MESSAGE, Command.SET_LEDS):
                if len(buf) < 2:
                    break
                n = buf[1]
                if n < 1 or n > 16:
                    self._drop(1)
                    continue
                if len(buf) < 2 + n:
                    break
                inner = bytes(buf[2 : 2 + n])
                if first == Command.SET_LEDS:
                    del buf[: 2 + n]
                    out.append(SetLeds(inner))
                    continue
                clock = decode_clock_command(inner)
                if clock is None:
                    self._drop(1)
                    continue
                del buf[: 2 + n]
                out.append(ClockCommandFrame(clock))
            elif first in _SINGLE_CODES:
                del buf[:1]
                out.append(SingleCommand(first))
            else:
                self._drop(1)
        return out
