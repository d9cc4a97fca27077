"""Byte values of the DGT protocol: host commands, board message ids, bus commands and replies."""

from __future__ import annotations

from enum import IntEnum


class Command(IntEnum):
    """Single-board host commands (one byte each, except CLOCK_MESSAGE and SET_LEDS)."""

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
    SET_LEDS = 0x60
    CLOCK_MESSAGE = 0x2B


# Commands that can brick a board or switch it to draughts scanning; drivers refuse them.
DANGEROUS_COMMANDS = frozenset(
    {Command.STARTBOOTLOADER, Command.SCAN_50B, Command.SCAN_50W, Command.SCAN_100}
)


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


class BusCommand(IntEnum):
    """Bus-mode host commands: cmd, address high, address low, checksum."""

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


class BusReplyId(IntEnum):
    """Bus-mode replies: id, length high, length low, address high, address low, data, checksum."""

    BRD_DUMP = 0x83
    BWTIME = 0x84
    UPDATE = 0x85
    FROM_START = 0x86
    PING = 0x87
    START_GAME_WRITTEN = 0x88
    VERSION = 0x89


class ClockCommandCode(IntEnum):
    """Clock commands carried inside 2B N 03 cmd ... 00."""

    DISPLAY = 0x01
    ICONS = 0x02
    END = 0x03
    VERSION = 0x09
    SETNRUN = 0x0A
    BEEP = 0x0B
    ASCII = 0x0C


CLOCK_START = 0x03
CLOCK_END = 0x00

__all__ = [
    "CLOCK_END",
    "CLOCK_START",
    "DANGEROUS_COMMANDS",
    "BusCommand",
    "BusReplyId",
    "ClockCommandCode",
    "Command",
    "MessageId",
]
