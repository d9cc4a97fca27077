"""The emulated board's EEPROM event log, encoded by the simulator itself.

Nothing here comes from `boards/dgt/`: the byte layout is written from DGT's published
description of the board's storage (summarised, with golden byte strings, in
`tests/data/dgt-eeprom-reference.md`), so that a misreading of the protocol in the
product's codec shows up as a disagreement in tests instead of being mirrored here.

Records (every byte below 0x80):
- piece change, 2 bytes: 0x40 | 0x10 (under 250 ms after the previous change) | piece,
  then the square 0..63;
- clock time, 3 bytes: 0x60 | 0x10 (left side) | hours, BCD minutes, BCD seconds;
- one-byte tags: 6A POWERUP, 6B EOF, 6C FOURROWS, 6D EMPTYBOARD, 6E DOWNLOADED,
  6F BEGINPOS, 7A BEGINPOS_ROT, 7B START_TAG, 7C WATCHDOG, 7F and 00 NOP.

The storage is a byte ring of 0x1F00 bytes. Records are written at a pointer that wraps
round, so once the ring is full the oldest byte (where a download starts) can be the
second or third byte of a record. A piece change on the same square as the record just
written replaces that record instead of adding one (a lifted-and-replaced piece leaves one
record), unless a bus host has already fetched it.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum

RING_SIZE = 0x1F00  # 7936 bytes of storage on the board
FAST_CHANGE_SECONDS = 0.25  # a change this soon after the previous one carries 0x10
MAX_CLOCK_SECONDS = 9 * 3600 + 59 * 60 + 59  # hours have four bits, and clocks stop at 9
FILL_BYTE = 0x00  # what never-written storage reads as (a NOP)

_PIECE_CHANGE = 0x40
_CLOCK_TIME = 0x60
_FAST = 0x10
_LEFT = 0x10


class LogTag(IntEnum):
    """One-byte markers in the log."""

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
    NOP2 = 0x00


@dataclass(frozen=True, slots=True)
class Change:
    """A square now holds `piece` (0 = emptied)."""

    square: int
    piece: int
    fast: bool = False


@dataclass(frozen=True, slots=True)
class ClockRecord:
    """The time shown by the side whose clock just stopped (written on a lever press)."""

    left: bool
    seconds: int


@dataclass(frozen=True, slots=True)
class Marker:
    tag: LogTag


Record = Change | ClockRecord | Marker


def bcd(value: int) -> int:
    """0..99 as two decimal digits in the two nibbles of one byte (59 -> 0x59)."""
    if not 0 <= value <= 99:
        raise ValueError(f"BCD holds 0..99, not {value}")
    tens, units = divmod(value, 10)
    return tens << 4 | units


def encode_record(record: Record) -> bytes:
    """The bytes one record takes in the log."""
    match record:
        case Change(square, piece, fast):
            if not 0 <= square < 64:
                raise ValueError(f"a square is 0..63, not {square}")
            if not 0 <= piece <= 0x0F:
                raise ValueError(f"a piece code is 0..15, not {piece}")
            return bytes([_PIECE_CHANGE | (_FAST if fast else 0) | piece, square])
        case ClockRecord(left, seconds):
            if not 0 <= seconds <= MAX_CLOCK_SECONDS:
                raise ValueError(f"a logged clock time is 0..9:59:59, not {seconds} s")
            hours, rest = divmod(seconds, 3600)
            minutes, secs = divmod(rest, 60)
            return bytes([_CLOCK_TIME | (_LEFT if left else 0) | hours, bcd(minutes), bcd(secs)])
        case Marker(tag):
            return bytes([tag])
    raise TypeError(f"not a log record: {record!r}")


def encode_records(records: Sequence[Record]) -> bytes:
    return b"".join(encode_record(r) for r in records)


# -- which positions the board tags --------------------------------------------------------

# Board index 0 = a8 ... 63 = h1 with White sitting normally; pieces by DGT code:
# 1 P, 2 R, 3 N, 4 B, 5 K, 6 Q for White; 7 p, 8 r, 9 n, A b, B k, C q for Black.
_BACK_WHITE = (0x02, 0x03, 0x04, 0x06, 0x05, 0x04, 0x03, 0x02)  # a1..h1: R N B Q K B N R
_BACK_BLACK = (0x08, 0x09, 0x0A, 0x0C, 0x0B, 0x0A, 0x09, 0x08)  # a8..h8
START_CODES: tuple[int, ...] = _BACK_BLACK + (0x07,) * 8 + (0,) * 32 + (0x01,) * 8 + _BACK_WHITE
# Set up the other way round, the board's index i holds what index 63 - i normally holds.
START_CODES_ROTATED: tuple[int, ...] = tuple(reversed(START_CODES))
_OUTER_ROWS = frozenset(range(16)) | frozenset(range(48, 64))


def position_tag(codes: Sequence[int]) -> LogTag | None:
    """The tag a board writes on seeing `codes`, if any.

    BEGINPOS / BEGINPOS_ROT: the start position, normal or rotated. EMPTYBOARD: no piece.
    FOURROWS (our reading of DGT's "four rows"): every square of the two outer rows on each
    side occupied, the four middle rows empty, and not a start position (pieces set out but
    in the wrong order, e.g. king and queen swapped).
    """
    codes = tuple(codes)
    if codes == START_CODES:
        return LogTag.BEGINPOS
    if codes == START_CODES_ROTATED:
        return LogTag.BEGINPOS_ROT
    if not any(codes):
        return LogTag.EMPTYBOARD
    if all(bool(c) == (i in _OUTER_ROWS) for i, c in enumerate(codes)):
        return LogTag.FOURROWS
    return None


def power_up_records(
    codes: Sequence[int],
    *,
    start_tag: bool = False,
    tag_after: bool = True,
    first: LogTag = LogTag.POWERUP,
    nops: int = 3,
) -> list[Record]:
    """What a board writes when switched on: 3 NOPs, POWERUP, a change per occupied square
    (in index order), then the position's tag if it has one. Firmware variants: START_TAG
    right after POWERUP (`start_tag`), no tag after the pieces (`tag_after=False`), and
    WATCHDOG instead of POWERUP after a watchdog reset (`first`, `nops=0`)."""
    records: list[Record] = [Marker(LogTag.NOP)] * nops
    records.append(Marker(first))
    if start_tag:
        records.append(Marker(LogTag.START_TAG))
    records += [Change(i, c) for i, c in enumerate(codes) if c]
    tag = position_tag(codes) if tag_after else None
    if tag is not None:
        records.append(Marker(tag))
    return records


def start_game_records(codes: Sequence[int]) -> list[Record]:
    """Bus SET_START_GAME: START_TAG, then a change per occupied square."""
    records: list[Record] = [Marker(LogTag.START_TAG)]
    return records + [Change(i, c) for i, c in enumerate(codes) if c]


# -- the ring ------------------------------------------------------------------------------


class EepromRing:
    """The board's storage: a byte ring written at a wrapping pointer.

    Positions are absolute byte counts since the board was made (`written` is the next
    one); the ring holds the last `capacity` of them. `records()` lists the records whose
    bytes are still wholly in the ring, for tests that need the truth behind the bytes.
    """

    def __init__(self, capacity: int = RING_SIZE) -> None:
        if capacity < 16:
            raise ValueError(f"EEPROM capacity too small: {capacity} bytes")
        self.capacity = capacity
        self._buf = bytearray([FILL_BYTE]) * capacity
        self.written = 0
        self._records: deque[tuple[int, Record]] = deque()
        self._sealed = 0  # records starting below this were fetched by a host: never rewrite
        self._start_tag: int | None = None

    # -- writing -----------------------------------------------------------------------

    def write(self, record: Record) -> int:
        """Append one record (piece changes may replace the last record); its position."""
        if self.replaces(record):
            pos, _ = self._records[-1]
            self._put(pos, encode_record(record))
            self._records[-1] = (pos, record)
            return pos
        return self.append(record)

    def append(self, record: Record) -> int:
        """Append one record, never replacing anything."""
        pos = self.written
        raw = encode_record(record)
        self._put(pos, raw)
        self.written += len(raw)
        self._records.append((pos, record))
        if record == Marker(LogTag.START_TAG):
            self._start_tag = pos
        oldest = self.oldest
        while self._records and self._records[0][0] < oldest:
            self._records.popleft()
        return pos

    def replaces(self, record: Record) -> bool:
        """True when `write(record)` would overwrite the last record instead of adding one."""
        if not isinstance(record, Change) or not self._records:
            return False
        pos, last = self._records[-1]
        return isinstance(last, Change) and last.square == record.square and pos >= self._sealed

    def _put(self, pos: int, raw: bytes) -> None:
        for k, b in enumerate(raw):
            self._buf[(pos + k) % self.capacity] = b

    def seal(self) -> None:
        """A host has fetched everything written so far: those records stay as they are."""
        self._sealed = self.written

    # -- reading -----------------------------------------------------------------------

    @property
    def oldest(self) -> int:
        """Absolute position of the oldest byte still in the ring."""
        return max(0, self.written - self.capacity)

    def dump(self) -> bytes:
        """The whole ring, oldest byte first (never-written storage reads as NOPs)."""
        cut = self.written % self.capacity
        return bytes(self._buf[cut:] + self._buf[:cut])

    def since(self, pos: int) -> bytes:
        """The bytes from absolute position `pos` to the newest (clipped to what is kept)."""
        pos = max(pos, self.oldest)
        return bytes(self._buf[p % self.capacity] for p in range(pos, self.written))

    def start_tag(self) -> int | None:
        """Position of the newest START_TAG, if it is still in the ring."""
        if self._start_tag is None or self._start_tag < self.oldest:
            return None
        return self._start_tag

    def records(self) -> list[Record]:
        """The records wholly in the ring, oldest first (the truth a decoder should find)."""
        return [r for _, r in self._records]

    def positioned_records(self) -> list[tuple[int, Record]]:
        return list(self._records)

    def __len__(self) -> int:
        """Bytes of log the ring holds (the capacity once it has wrapped)."""
        return min(self.written, self.capacity)


__all__ = [
    "FAST_CHANGE_SECONDS",
    "FILL_BYTE",
    "MAX_CLOCK_SECONDS",
    "RING_SIZE",
    "START_CODES",
    "START_CODES_ROTATED",
    "Change",
    "ClockRecord",
    "EepromRing",
    "LogTag",
    "Marker",
    "Record",
    "bcd",
    "encode_record",
    "encode_records",
    "position_tag",
    "power_up_records",
    "start_game_records",
]
