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

    Padding (00, 7F) is skipped silently; EOF ends the stream. The rule is greedy and
    deterministic: every byte is read as the start of a record when the bytes after it
    allow one (40-5F then a byte below 40 is a piece change, 60-79 then two BCD bytes
    under 60 a clock time), and as making no sense otherwise. That is exact for data
    that begins at a record, as bus replies do. A ring dump (EE_MOVES) can begin inside
    a record, and there the bytes alone are ambiguous: a cut clock time's BCD minutes or
    seconds 40-59 followed by a byte below 40 (the seconds, or a NOP 00 after the cut)
    read here as a piece change. Use `decode_ring` for a dump.
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


def _is_bcd(b: int) -> bool:
    return b >> 4 <= 5 and b & 0x0F <= 9


def _strict(data: bytes) -> list[EepromEvent] | None:
    """`data` read as whole records and nothing else, or None."""
    events, bad = decode_events(data)
    return events if bad == 0 else None


def decode_ring(data: bytes) -> tuple[list[EepromEvent], int]:
    """Decode a whole EEPROM log as a board sends it (EE_MOVES): a byte ring whose dump
    starts at the oldest byte, which can be the second or third byte of a record.

    Bytes 60..7F only ever begin a record (a clock time or a tag: squares are below 40,
    BCD digits below 5A), so every reading agrees from the first of them on. Before it,
    the cut can be 0, 1 or 2 bytes long: each cut whose bytes could be a record's tail and
    leaves whole records is a reading; what all readings agree on is kept, the rest (a
    cut clock time whose minutes or seconds, 40-59, read as the head of a piece change:
    `45 30`, or `59 00` with the NOP after the cut) is dropped as doubtful.
    Returns the events and the bytes that made no sense or were dropped."""
    sure = next((i for i, b in enumerate(data) if 0x60 <= b <= 0x7F), len(data))
    head, tail = data[:sure], data[sure:]
    readings: list[list[EepromEvent]] = []
    for cut in (0, 1, 2):
        skipped = head[:cut]
        if len(skipped) < cut:
            break
        if cut == 1 and not (skipped[0] < 0x40 or _is_bcd(skipped[0])):
            continue  # neither a square nor a clock's seconds
        if cut == 2 and not all(_is_bcd(b) for b in skipped):
            continue  # not a clock's minutes and seconds
        reading = _strict(head[cut:])
        if reading is not None:
            readings.append(reading)
    agreed: list[EepromEvent] = []
    if readings:
        shortest = min(len(r) for r in readings)
        for k in range(1, shortest + 1):
            if len({repr(r[-k]) for r in readings}) != 1:
                break
            agreed.insert(0, readings[0][-k])
    events, bad = decode_events(tail)
    padding = sum(1 for b in head if b in (Tag.NOP, Tag.NOP0))
    dropped = len(head) - padding - 2 * len(agreed)
    return agreed + events, bad + dropped


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


__all__ = [
    "ClockTime",
    "EepromEvent",
    "PieceChange",
    "Tag",
    "TagEvent",
    "decode_events",
    "decode_ring",
    "encode_event",
    "encode_events",
]
