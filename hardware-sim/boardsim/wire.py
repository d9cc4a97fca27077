"""The bytes an emulated board puts on the line, built by the simulator itself.

Written from the published DGT protocol (see docs/simulator.md and
tests/data/dgt-eeprom-reference.md), independently of `boards/dgt/`, so that the product's
decoders are tested against a second reading of the protocol rather than against
themselves. Byte values of host commands are here too, to match what the host sent.

Single-board message: id (bit 7 set), the TOTAL length (header included) as two 7-bit
bytes, high first, then the payload (every byte below 0x80).
Bus reply: id, total length (two 7-bit bytes), address (two 7-bit bytes), data, checksum
= sum of every byte before it, mod 128.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import IntEnum

from boardsim.eeprom_log import LogTag, bcd

MAX_FRAME = (1 << 14) - 1  # a length is two 7-bit bytes


class HostCommand(IntEnum):
    """Single-board commands the host sends (one byte each)."""

    RESET = 0x40
    SEND_CLK = 0x41
    SEND_BRD = 0x42
    SEND_UPDATE = 0x43
    SEND_UPDATE_BRD = 0x44
    RETURN_SERIALNR = 0x45
    RETURN_BUSADRES = 0x46
    SEND_TRADEMARK = 0x47
    SEND_EE_MOVES = 0x49
    TO_BUSMODE = 0x4A
    SEND_UPDATE_NICE = 0x4B
    SEND_BATTERY_STATUS = 0x4C
    SEND_VERSION = 0x4D
    STARTBOOTLOADER = 0x4E
    SCAN_50B = 0x51
    SCAN_50W = 0x53
    SCAN_100 = 0x54
    RETURN_LONG_SERIALNR = 0x55


# A real board would start its bootloader or switch to draughts: the emulation never acts.
DANGEROUS = frozenset(
    {HostCommand.STARTBOOTLOADER, HostCommand.SCAN_50B, HostCommand.SCAN_50W, HostCommand.SCAN_100}
)


class BusHostCommand(IntEnum):
    """Bus commands (first byte of the host's 4-byte frame)."""

    SEND_CLK = 0x81
    SEND_BRD = 0x82
    SEND_CHANGES = 0x83
    REPEAT_CHANGES = 0x84
    SET_START_GAME = 0x85
    SEND_FROM_START = 0x86
    PING = 0x87
    END_BUSMODE = 0x88
    RESET = 0x89
    IGNORE_NEXT_BUS_PING = 0x8A
    SEND_VERSION = 0x8B
    SEND_ALL_D = 0x8D


class MessageId(IntEnum):
    """Single-board messages, board to host."""

    BOARD_DUMP = 0x86
    BWTIME = 0x8D
    FIELD_UPDATE = 0x8E
    EE_MOVES = 0x8F
    BUSADRES = 0x90
    SERIALNR = 0x91
    TRADEMARK = 0x92
    VERSION = 0x93
    BATTERY_STATUS = 0xA0
    LONG_SERIALNR = 0xA2


class BusReplyId(IntEnum):
    """Bus replies, board to host."""

    BRD_DUMP = 0x83
    BWTIME = 0x84
    UPDATE = 0x85
    FROM_START = 0x86
    PING = 0x87
    START_GAME_WRITTEN = 0x88
    VERSION = 0x89


def seven_bit_pair(value: int) -> bytes:
    """A 14-bit value as two 7-bit bytes, high first (lengths, bus addresses)."""
    if not 0 <= value <= MAX_FRAME:
        raise ValueError(f"{value} does not fit in two 7-bit bytes")
    return bytes([value >> 7, value & 0x7F])


def message(message_id: int, payload: bytes) -> bytes:
    """One single-board message frame."""
    if any(b >= 0x80 for b in payload):
        raise ValueError("a DGT payload byte must be below 0x80")
    return bytes([message_id]) + seven_bit_pair(len(payload) + 3) + payload


def bus_checksum(data: bytes) -> int:
    return sum(data) % 128


def bus_reply(reply_id: int, address: int, data: bytes) -> bytes:
    """One bus reply frame, checksum included."""
    body = bytes([reply_id]) + seven_bit_pair(len(data) + 6) + seven_bit_pair(address) + data
    return body + bytes([bus_checksum(body)])


# -- single-board messages -------------------------------------------------------------


def board_dump(codes: Sequence[int]) -> bytes:
    if len(codes) != 64:
        raise ValueError(f"a board dump has 64 squares, not {len(codes)}")
    return message(MessageId.BOARD_DUMP, bytes(codes))


def field_update(square: int, piece: int) -> bytes:
    return message(MessageId.FIELD_UPDATE, bytes([square, piece]))


def bwtime(payload: bytes) -> bytes:
    if len(payload) != 7:
        raise ValueError("a BWTIME payload is 7 bytes")
    return message(MessageId.BWTIME, payload)


def ee_moves(log: bytes) -> bytes:
    """The EEPROM download: the log as stored, then EOF."""
    return message(MessageId.EE_MOVES, log + bytes([LogTag.EOF]))


def bus_address(address: int) -> bytes:
    return message(MessageId.BUSADRES, seven_bit_pair(address))


def _ascii(text: str, size: int | None = None) -> bytes:
    raw = text.encode("ascii")
    if size is not None and len(raw) != size:
        raise ValueError(f"expected {size} ASCII characters, got {text!r}")
    return raw


def serial_number(text: str) -> bytes:
    return message(MessageId.SERIALNR, _ascii(text, 5))


def long_serial_number(text: str) -> bytes:
    return message(MessageId.LONG_SERIALNR, _ascii(text, 10))


def trademark(text: str) -> bytes:
    return message(MessageId.TRADEMARK, _ascii(text))


def version(major: int, minor: int) -> bytes:
    return message(MessageId.VERSION, bytes([major, minor]))


def battery_status(payload: bytes) -> bytes:
    return message(MessageId.BATTERY_STATUS, payload)


# -- clock payloads (BWTIME p0..p6) ------------------------------------------------------

_FINAL_FLAG = 0x10  # p0 / p3
_INCREMENT_MODE = 0x20
_FLAG_SHOWN = 0x40
_RUNNING = 0x01  # p6
_RIGHT_LEVER_HIGH = 0x02
_BATTERY_LOW = 0x04
_LEFT_TURN = 0x08  # 2012/2014 header reading, which real captures agree with
_RIGHT_TURN = 0x10
_NO_CLOCK = 0x20
_ACK = 0x0A  # low nibble of p0 or p3 marks an ack


def _side(seconds: int, flag: bool, final: bool, increment: bool) -> bytes:
    seconds = max(0, min(seconds, 9 * 3600 + 59 * 60 + 59))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    head = hours | (_FINAL_FLAG if final else 0) | (_INCREMENT_MODE if increment else 0)
    return bytes([head | (_FLAG_SHOWN if flag else 0), bcd(minutes), bcd(secs)])


def clock_times(
    *,
    left_seconds: int,
    right_seconds: int,
    running: bool,
    right_lever_high: bool,
    left_flag: bool = False,
    right_flag: bool = False,
    left_final_flag: bool = False,
    right_final_flag: bool = False,
    left_increment_mode: bool = False,
    right_increment_mode: bool = False,
    battery_low: bool = False,
) -> bytes:
    """The 7 BWTIME bytes of a time display: right side p0-p2, left side p3-p5, status p6."""
    status = (
        (_RUNNING if running else 0)
        | (_RIGHT_LEVER_HIGH if right_lever_high else 0)
        | (_BATTERY_LOW if battery_low else 0)
    )
    if running:
        status |= _RIGHT_TURN if right_lever_high else _LEFT_TURN
    right = _side(right_seconds, right_flag, right_final_flag, right_increment_mode)
    left = _side(left_seconds, left_flag, left_final_flag, left_increment_mode)
    return right + left + bytes([status])


NO_CLOCK = bytes([0, 0, 0, 0, 0, 0, _NO_CLOCK])


def clock_ack(ack0: int, ack1: int, ack2: int, ack3: int) -> bytes:
    """The 7 BWTIME bytes carrying a clock's ack: the low 7 bits of each ack byte in p1, p2,
    p4, p5, their top bits folded into p3 (ack0, ack1) and p0 (ack2, ack3) next to 0x0A."""
    p0 = _ACK | (0x10 if ack2 & 0x80 else 0) | (0x20 if ack3 & 0x80 else 0)
    p3 = _ACK | (0x10 if ack0 & 0x80 else 0) | (0x20 if ack1 & 0x80 else 0)
    return bytes([p0, ack0 & 0x7F, ack1 & 0x7F, p3, ack2 & 0x7F, ack3 & 0x7F, 0])


__all__ = [
    "DANGEROUS",
    "MAX_FRAME",
    "NO_CLOCK",
    "BusHostCommand",
    "BusReplyId",
    "HostCommand",
    "MessageId",
    "battery_status",
    "board_dump",
    "bus_address",
    "bus_checksum",
    "bus_reply",
    "bwtime",
    "clock_ack",
    "clock_times",
    "ee_moves",
    "field_update",
    "long_serial_number",
    "message",
    "serial_number",
    "seven_bit_pair",
    "trademark",
    "version",
]
