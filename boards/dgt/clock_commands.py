"""Clock commands, wrapped as 2B N 03 cmd data... 00 (N = bytes after N)."""

from __future__ import annotations

from dataclasses import dataclass

from boards.dgt.codes import CLOCK_END, CLOCK_START, ClockCommandCode, Command

SETNRUN_LEFT_COUNTS_DOWN = 0x01
SETNRUN_RIGHT_COUNTS_DOWN = 0x02
SETNRUN_PAUSE = 0x04
SETNRUN_TOGGLE_ON_LEVER = 0x08


@dataclass(frozen=True, slots=True)
class ClockDisplay:
    """DGT XL segment display: six segment bytes, an icon byte and a beep byte."""

    segments: bytes
    icons: int = 0
    beep: int = 0


@dataclass(frozen=True, slots=True)
class ClockIcons:
    data: bytes  # left/right icons, left/right periods, special, three zero bytes


@dataclass(frozen=True, slots=True)
class ClockEnd:
    """Back to the time display."""


@dataclass(frozen=True, slots=True)
class ClockVersion:
    pass


@dataclass(frozen=True, slots=True)
class ClockSetAndRun:
    """Set both times (seconds) and how the clock runs (SETNRUN_* flags)."""

    left_seconds: int
    right_seconds: int
    flags: int


@dataclass(frozen=True, slots=True)
class ClockBeep:
    duration_64ms: int


@dataclass(frozen=True, slots=True)
class ClockAscii:
    """DGT 3000 text display: 8 characters and a beep of 0-15."""

    text: str
    beep: int = 0


ClockCommand = (
    ClockDisplay | ClockIcons | ClockEnd | ClockVersion | ClockSetAndRun | ClockBeep | ClockAscii
)


def _hms(seconds: int) -> bytes:
    if not 0 <= seconds <= 9 * 3600 + 59 * 60 + 59:
        raise ValueError(f"a DGT clock shows 0 to 9:59:59, not {seconds} s")
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return bytes([h, m, s])


def _body(command: ClockCommand) -> tuple[ClockCommandCode, bytes]:
    match command:
        case ClockDisplay(segments, icons, beep):
            if len(segments) != 6:
                raise ValueError("the XL display takes six segment bytes")
            return ClockCommandCode.DISPLAY, bytes(segments) + bytes([icons, beep])
        case ClockIcons(data):
            if len(data) != 8:
                raise ValueError("the icons command takes eight bytes")
            return ClockCommandCode.ICONS, bytes(data)
        case ClockEnd():
            return ClockCommandCode.END, b""
        case ClockVersion():
            return ClockCommandCode.VERSION, b""
        case ClockSetAndRun(left, right, flags):
            return ClockCommandCode.SETNRUN, _hms(left) + _hms(right) + bytes([flags & 0x0F])
        case ClockBeep(duration):
            return ClockCommandCode.BEEP, bytes([duration & 0x7F])
        case ClockAscii(text, beep):
            raw = text.encode("ascii")[:8].ljust(8, b" ")
            return ClockCommandCode.ASCII, raw + bytes([beep & 0x0F])
    raise TypeError(f"not a clock command: {command!r}")


def encode_clock_command(command: ClockCommand) -> bytes:
    code, data = _body(command)
    inner = bytes([CLOCK_START, code]) + data + bytes([CLOCK_END])
    return bytes([Command.CLOCK_MESSAGE, len(inner)]) + inner


def decode_clock_command(inner: bytes) -> ClockCommand | None:
    """Decode the bytes after `2B N`; None when they are not a well-formed clock command."""
    if len(inner) < 3 or inner[0] != CLOCK_START or inner[-1] != CLOCK_END:
        return None
    code, data = inner[1], inner[2:-1]
    if code == ClockCommandCode.DISPLAY and len(data) == 8:
        return ClockDisplay(bytes(data[:6]), data[6], data[7])
    if code == ClockCommandCode.ICONS and len(data) == 8:
        return ClockIcons(bytes(data))
    if code == ClockCommandCode.END and not data:
        return ClockEnd()
    if code == ClockCommandCode.VERSION and not data:
        return ClockVersion()
    if code == ClockCommandCode.SETNRUN and len(data) == 7:
        left = data[0] * 3600 + data[1] * 60 + data[2]
        right = data[3] * 3600 + data[4] * 60 + data[5]
        return ClockSetAndRun(left, right, data[6])
    if code == ClockCommandCode.BEEP and len(data) == 1:
        return ClockBeep(data[0])
    if code == ClockCommandCode.ASCII and len(data) == 9:
        return ClockAscii(data[:8].decode("ascii", "replace").rstrip(" "), data[8])
    return None


__all__ = [
    "SETNRUN_LEFT_COUNTS_DOWN",
    "SETNRUN_PAUSE",
    "SETNRUN_RIGHT_COUNTS_DOWN",
    "SETNRUN_TOGGLE_ON_LEVER",
    "ClockAscii",
    "ClockBeep",
    "ClockCommand",
    "ClockDisplay",
    "ClockEnd",
    "ClockIcons",
    "ClockSetAndRun",
    "ClockVersion",
    "decode_clock_command",
    "encode_clock_command",
]
