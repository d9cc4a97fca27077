"""Bus mode frames: many boards on one line, addressed by serial number.

Host frame: cmd, address high, address low, checksum (sum of the three, mod 128).
Reply frame: id, length high, length low, address high, address low, data, checksum
(sum of every byte before it, mod 128); the length counts the whole frame.
"""

from __future__ import annotations

from dataclasses import dataclass

from boards.dgt.codes import BusCommand, BusReplyId

MAX_ADDRESS = (1 << 14) - 1


def checksum(data: bytes) -> int:
    return sum(data) & 0x7F


def address_from_serial(serial: str) -> int:
    """A board's bus address is its 5-digit serial number as a 14-bit value (01025 -> 08 01)."""
    if not serial.isdigit():
        raise ValueError(f"bus address needs a numeric serial number, got {serial!r}")
    value = int(serial)
    if value > MAX_ADDRESS:
        raise ValueError(f"serial {serial} does not fit a 14-bit bus address")
    return value


def serial_from_address(address: int) -> str:
    return f"{address:05d}"


@dataclass(frozen=True, slots=True)
class BusRequest:
    command: BusCommand
    address: int  # 0 = every board

    def encode(self) -> bytes:
        if not 0 <= self.address <= MAX_ADDRESS:
            raise ValueError(f"bus address out of range: {self.address}")
        head = bytes([self.command, (self.address >> 7) & 0x7F, self.address & 0x7F])
        return head + bytes([checksum(head)])


def decode_request(frame: bytes) -> BusRequest | None:
    """A 4-byte host frame; None when the command is unknown or the checksum is wrong."""
    if len(frame) != 4 or frame[3] != checksum(frame[:3]) or frame[1] >= 0x80 or frame[2] >= 0x80:
        return None
    try:
        command = BusCommand(frame[0])
    except ValueError:
        return None
    return BusRequest(command, (frame[1] << 7) | frame[2])


@dataclass(frozen=True, slots=True)
class BusReply:
    """A reply from one board. `data` is the frame's data part (between address and checksum)."""

    reply_id: BusReplyId
    address: int
    data: bytes

    def encode(self) -> bytes:
        total = len(self.data) + 6
        head = bytes(
            [
                self.reply_id,
                (total >> 7) & 0x7F,
                total & 0x7F,
                (self.address >> 7) & 0x7F,
                self.address & 0x7F,
            ]
        )
        body = head + self.data
        return body + bytes([checksum(body)])


@dataclass(frozen=True, slots=True)
class BusChecksumError:
    """A reply frame whose checksum failed: resend (REPEAT_CHANGES for changes)."""

    reply_id: BusReplyId
    address: int


FIXED_REPLY_LENGTHS: dict[int, int] = {
    BusReplyId.BRD_DUMP: 70,
    BusReplyId.BWTIME: 13,
    BusReplyId.PING: 6,
    BusReplyId.START_GAME_WRITTEN: 6,
    BusReplyId.VERSION: 8,
}
VARIABLE_REPLY_IDS = frozenset({BusReplyId.UPDATE, BusReplyId.FROM_START})
MAX_REPLY_LENGTH = (1 << 14) - 1


def reply_length_ok(reply_id: int, total: int) -> bool:
    fixed = FIXED_REPLY_LENGTHS.get(reply_id)
    if fixed is not None:
        return total == fixed
    return reply_id in VARIABLE_REPLY_IDS and 6 <= total <= MAX_REPLY_LENGTH


__all__ = [
    "FIXED_REPLY_LENGTHS",
    "MAX_ADDRESS",
    "MAX_REPLY_LENGTH",
    "VARIABLE_REPLY_IDS",
    "BusChecksumError",
    "BusReply",
    "BusRequest",
    "address_from_serial",
    "checksum",
    "decode_request",
    "reply_length_ok",
    "serial_from_address",
]
