"""The EEPROM event stream: what a board logs (EE_MOVES payload, bus UPDATE/FROM_START data).

Piece change: 0x40 | (0x10 if < 250 ms after the previous) | piece, then square.
Clock time:   0x60 | (0x10 if left side) | hours, BCD minutes, BCD seconds.
Tags:         6A..6F and 7A..7F single bytes; 00 and 7F are padding.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum


class Tag(IntEnum):
    POWERUP = 0x6A
    EOF = 0x6B
    FOURROWS = 0x6C
    EMPTYBOARD = 0x6D
    DOWNLOADED = 0x6E
    BEGINPOS = 0x6F
    BEGINPOS_ROT = 0x7A
    START_TAG = 0x7B
    WATCHDOG = 0x7C
    NOP = 0x7F
    NOP0 = 0x00


@dataclass(frozen=True, slots=True)
class PieceChange:
    """A square changed to `code` (0 = emptied). `fast`: under 250 ms after the previous event."""

    index: int
    code: int
    fast: bool = False


@dataclass(frozen=True, slots=True)
class ClockTime:
    """The time left on the side whose clock just stopped (written on a lever press)."""

    left: bool
    seconds: int


@dataclass(frozen=True, slots=True)
class TagEvent:
    tag: Tag


EepromEvent = PieceChange | ClockTime | TagEvent


def _bcd(b: int) -> int | None:
    hi, lo = b >> 4, b & 0x0F
    return None if hi > 9 or lo > 9 else hi * 10 + lo


def _to_bcd(n: int) -> int:
    return ((n // 10) << 4) | (n % 10)


def decode_events(data: bytes) -> tuple[list[EepromEvent], int]:
    """Decode an event stream. Returns the events and the number of bytes that made no sense.

    Padding (00, 7F) is skipped silently; EOF ends the stream.
    """
    events: list[EepromEvent] = []
    bad = 0
    i = 0
    n = len(data)
    while i < n:
        b = data[i]
        if b in (Tag.NOP, Tag.NOP0):
            i += 1
            continue
        if 0x40 <= b <= 0x5F:
            if i + 1 < n and data[i + 1] < 64:
                events.append(PieceChange(data[i + 1], b & 0x0F, bool(b & 0x10)))
                i += 2
            else:
                bad += 1
                i += 1
            continue
        if 0x60 <= b <= 0x79 and (b & 0x0F) <= 9:
            if i + 2 < n:
                m, s = _bcd(data[i + 1]), _bcd(data[i + 2])
                if m is not None and s is not None and m < 60 and s < 60:
                    hours = b & 0x0F
                    events.append(ClockTime(bool(b & 0x10), hours * 3600 + m * 60 + s))
                    i += 3
                    continue
            bad += 1
            i += 1
            continue
        try:
            tag = Tag(b)
        except ValueError:
            bad += 1
            i += 1
            continue
        if tag is Tag.EOF:
            break
        events.append(TagEvent(tag))
        i += 1
    return events, bad


def decode_ring(data: bytes) -> tuple[list[EepromEvent], int]:
    """Decode a whole EEPROM log as a board sends it (EE_MOVES): a byte ring whose dump
    starts where the next write goes, so the oldest record may be cut. Bytes 60..7F only
    ever start a record (a clock time or a tag; squares are below 40 and BCD digits below
    5A), so decoding starts at the first of them: a cut record cannot be misread as a
    piece change. Returns the events and the bytes that made no sense (the cut included)."""
    for start, b in enumerate(data):
        if 0x60 <= b <= 0x7F:
            events, bad = decode_events(data[start:])
            return events, bad + start
    return [], len(data)


def encode_event(event: EepromEvent) -> bytes:
    if isinstance(event, PieceChange):
        if not 0 <= event.index < 64 or not 0 <= event.code <= 0x0F:
            raise ValueError(f"piece change out of range: {event}")
        return bytes([0x40 | (0x10 if event.fast else 0) | event.code, event.index])
    if isinstance(event, ClockTime):
        if not 0 <= event.seconds <= 9 * 3600 + 59 * 60 + 59:
            raise ValueError(f"clock time out of range: {event.seconds} s")
        h, rest = divmod(event.seconds, 3600)
        m, s = divmod(rest, 60)
        return bytes([0x60 | (0x10 if event.left else 0) | h, _to_bcd(m), _to_bcd(s)])
    return bytes([event.tag])


def encode_events(events: list[EepromEvent] | tuple[EepromEvent, ...]) -> bytes:
    return b"".join(encode_event(e) for e in events)
