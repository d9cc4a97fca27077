"""What an emulated board hears: the host's bytes parsed by the simulator itself.

Written from the published protocol, independently of `boards/dgt/decoder.py`, so that a
host frame the product encodes wrongly (a bad checksum, a misplaced length) is refused
here as a real board would refuse it, instead of being read back by the same misreading.
The items it yields are the plain values the boards take (`SingleCommand`,
`ClockCommandFrame`, `SetLeds`, `BusRequest`).

- Bus frame: command (bit 7 set), address high, address low (7 bits each), checksum =
  sum of the three mod 128. A frame that fails is dropped one byte at a time.
- Clock message: 2B, N (the number of bytes after N), 03, command, data, 00.
  SETNRUN data: left hours, minutes, seconds, right hours, minutes, seconds (binary),
  then the flags byte.
- LED frame (Revelation II): 60, N, then N bytes.
- Anything else below 0x80 is a one-byte command.
"""

from __future__ import annotations

from boards.dgt.bus import BusRequest
from boards.dgt.clock_commands import (
    ClockAscii,
    ClockBeep,
    ClockCommand,
    ClockDisplay,
    ClockEnd,
    ClockIcons,
    ClockSetAndRun,
    ClockVersion,
)
from boards.dgt.codes import BusCommand
from boards.dgt.decoder import ClockCommandFrame, HostItem, SetLeds, SingleCommand
from boardsim.clock import (
    CODE_ASCII,
    CODE_BEEP,
    CODE_DISPLAY,
    CODE_END,
    CODE_ICONS,
    CODE_SETNRUN,
    CODE_VERSION,
)
from boardsim.wire import BusHostCommand, HostCommand, bus_checksum

CLOCK_MESSAGE = 0x2B
SET_LEDS = 0x60
CLOCK_START = 0x03
CLOCK_END = 0x00
MAX_INNER = 16  # the longest clock frame body (ASCII: 03 0C + 8 characters + beep + 00)

_SINGLE = frozenset(int(c) for c in HostCommand)
_BUS = frozenset(int(c) for c in BusHostCommand)


def parse_clock_command(inner: bytes) -> ClockCommand | None:
    """The bytes after `2B N` as a clock command; None when malformed."""
    if len(inner) < 3 or inner[0] != CLOCK_START or inner[-1] != CLOCK_END:
        return None
    code, data = inner[1], inner[2:-1]
    match code, len(data):
        case (c, 8) if c == CODE_DISPLAY:
            return ClockDisplay(bytes(data[:6]), data[6], data[7])
        case (c, 8) if c == CODE_ICONS:
            return ClockIcons(bytes(data))
        case (c, 0) if c == CODE_END:
            return ClockEnd()
        case (c, 0) if c == CODE_VERSION:
            return ClockVersion()
        case (c, 7) if c == CODE_SETNRUN:
            lh, lm, ls, rh, rm, rs, flags = data
            return ClockSetAndRun(lh * 3600 + lm * 60 + ls, rh * 3600 + rm * 60 + rs, flags)
        case (c, 1) if c == CODE_BEEP:
            return ClockBeep(data[0])
        case (c, 9) if c == CODE_ASCII:
            return ClockAscii(data[:8].decode("ascii", "replace").rstrip(" "), data[8])
    return None


class HostParser:
    """Incremental: feed it whatever chunks arrive; it keeps an unfinished frame."""

    def __init__(self) -> None:
        self._buf = bytearray()
        self.dropped = 0

    def feed(self, data: bytes) -> list[HostItem]:
        self._buf += data
        out: list[HostItem] = []
        while self._buf:
            item, used = self._next()
            if used == 0:
                break  # wait for the rest of a frame
            if item is None:
                self.dropped += used
            else:
                out.append(item)
            del self._buf[:used]
        return out

    def _next(self) -> tuple[HostItem | None, int]:
        """One item and the bytes it took; (None, n) drops n bytes; (None, 0) needs more."""
        buf = self._buf
        first = buf[0]
        if first >= 0x80:
            if len(buf) < 4:
                return None, 0
            high, low, check = buf[1], buf[2], buf[3]
            if first not in _BUS or high >= 0x80 or low >= 0x80:
                return None, 1
            if check != bus_checksum(bytes(buf[:3])):
                return None, 1  # a real board ignores a frame whose checksum fails
            try:
                bus_command = BusCommand(first)
            except ValueError:  # a command the boards' item type cannot carry
                return None, 1
            return BusRequest(bus_command, high << 7 | low), 4
        if first in (CLOCK_MESSAGE, SET_LEDS):
            if len(buf) < 2:
                return None, 0
            n = buf[1]
            if not 1 <= n <= MAX_INNER:
                return None, 1
            if len(buf) < 2 + n:
                return None, 0
            inner = bytes(buf[2 : 2 + n])
            if first == SET_LEDS:
                return SetLeds(inner), 2 + n
            command = parse_clock_command(inner)
            return (None, 1) if command is None else (ClockCommandFrame(command), 2 + n)
        if first in _SINGLE:
            return SingleCommand(first), 1
        return None, 1


__all__ = [
    "CLOCK_END",
    "CLOCK_MESSAGE",
    "CLOCK_START",
    "MAX_INNER",
    "SET_LEDS",
    "HostParser",
    "parse_clock_command",
]
