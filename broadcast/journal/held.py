"""Board events waiting for the journal while its disk fails: kept in order, never dropped.

A hall's board events are mostly clock readings, one a second per board: 256 boards make
about 600 a second. Held as rows (Python tuples) they cost about 0.4 kB each, so a long
outage (a full disk over the lunch break) would run the venue computer out of memory.
So the rows are kept as they come in a short list, and every `chunk` rows are packed
(JSON, then zlib): readings of the same clocks compress about 20 to 1 (19 bytes a row,
measured on the readings of 256 clocks: 41 MB an hour for 256 boards). Packed chunks
stay in memory up to `memory` bytes (256 MB: about 6 hours at 256 boards); beyond that
they go to a spill file in `spill_dir` (the system's temp folder unless told: preferably
another disk than the journal's), a file with no name (`tempfile.TemporaryFile`) that
nothing else can open or delete and that disappears with the process, as memory would.
When the spill folder cannot be written either, the chunks stay in memory: boardwire
holds on for as long as the computer's memory lasts, and never drops an event.

JSON rather than pickle: a spill file in a shared temp folder must never run code when
it is read back. Each chunk carries a CRC, checked when it is read back.

`HeldRows` is only the container; the journal writes `oldest()` chunk by chunk and
`drop_oldest()`s each once it is durable.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
import zlib
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from broadcast.journal.errors import JournalError

log = logging.getLogger(__name__)

Row = tuple[int, float, str, str]  # seq, t, kind, body

CHUNK = 5_000  # rows packed together
MEMORY = 256 * 1024 * 1024  # bytes of packed chunks kept in memory before spilling
ROW_BYTES = 400  # what a row not packed yet costs in memory, about (measured: 402 bytes)


class HeldDamaged(JournalError):
    """A spilled chunk read back is not what was written (its CRC)."""


@dataclass(frozen=True, slots=True)
class _Chunk:
    count: int
    last_seq: int
    crc: int
    data: bytes | None  # in memory, or None when it is in the spill file
    offset: int = 0
    length: int = 0


class HeldRows:
    """Rows in order: `add` the newest, write `oldest()` and `drop_oldest()` it."""

    def __init__(
        self,
        *,
        chunk: int | None = None,
        memory: int | None = None,
        spill_dir: str | Path | None = None,
    ) -> None:
        self.chunk = chunk or CHUNK
        self.memory = MEMORY if memory is None else memory
        self.spill_dir = str(spill_dir) if spill_dir is not None else tempfile.gettempdir()
        self._plain: list[Row] = []
        self._chunks: deque[_Chunk] = deque()
        self._count = 0
        self.packed_bytes = 0  # packed chunks in memory
        self.spilled_bytes = 0  # packed chunks in the spill file
        self.spill_error: str | None = None  # why the spill file could not be written
        self._spill: IO[bytes] | None = None
        self._spill_end = 0

    def __len__(self) -> int:
        return self._count

    def __bool__(self) -> bool:
        return self._count > 0

    @property
    def memory_bytes(self) -> int:
        """What the held rows cost in memory, about."""
        return self.packed_bytes + len(self._plain) * ROW_BYTES

    @property
    def last_seq(self) -> int | None:
        if self._plain:
            return self._plain[-1][0]
        return self._chunks[-1].last_seq if self._chunks else None

    def add(self, rows: list[Row]) -> None:
        self._plain += rows
        self._count += len(rows)
        while len(self._plain) >= self.chunk:
            rows, self._plain = self._plain[: self.chunk], self._plain[self.chunk :]
            self._chunks.append(self._pack(rows))

    def oldest(self) -> list[Row]:
        """The oldest rows still held (a chunk, or the newest list when no chunk is left)."""
        if not self._chunks:
            return list(self._plain)
        chunk = self._chunks[0]
        data = chunk.data if chunk.data is not None else self._read_spilled(chunk)
        if zlib.crc32(data) != chunk.crc:
            raise HeldDamaged(f"held events up to {chunk.last_seq}: the spill file was changed")
        return [
            (int(s), float(t), str(k), str(b))
            for s, t, k, b in json.loads(zlib.decompress(data).decode("ascii"))
        ]

    def drop_oldest(self) -> None:
        """The rows `oldest()` gave are written: forget them."""
        if not self._chunks:
            self._count -= len(self._plain)
            self._plain = []
        else:
            chunk = self._chunks.popleft()
            self._count -= chunk.count
            if chunk.data is not None:
                self.packed_bytes -= len(chunk.data)
            else:
                self.spilled_bytes -= chunk.length
        if not any(c.data is None for c in self._chunks):
            self._close_spill()  # its room on the disk is given back
        if not self._count:
            self.spill_error = None  # the next outage tries the spill folder again

    def clear(self) -> None:
        self._plain, self._chunks, self._count = [], deque(), 0
        self.packed_bytes = self.spilled_bytes = 0
        self._close_spill()

    # -- packing and spilling ----------------------------------------------------------------

    def _pack(self, rows: list[Row]) -> _Chunk:
        # ensure_ascii (the default): lone surrogates in a body survive as \\udXXX escapes.
        data = zlib.compress(json.dumps(rows, separators=(",", ":")).encode("ascii"), 6)
        crc = zlib.crc32(data)
        if self.packed_bytes + len(data) > self.memory:
            spilled = self._spill_out(data)
            if spilled is not None:
                self.spilled_bytes += len(data)
                return _Chunk(len(rows), rows[-1][0], crc, None, spilled, len(data))
        self.packed_bytes += len(data)
        return _Chunk(len(rows), rows[-1][0], crc, data)

    def _spill_out(self, data: bytes) -> int | None:
        """Append `data` to the spill file; where it went, or None (it stays in memory)."""
        if self.spill_error is not None:
            return None
        try:
            if self._spill is None:
                # No name: nothing else can open or delete it; gone with the process.
                self._spill = tempfile.TemporaryFile(  # noqa: SIM115 (closed by _close_spill)
                    prefix="boardwire-held-", dir=self.spill_dir
                )
                self._spill_end = 0
            written = os.pwrite(self._spill.fileno(), data, self._spill_end)
            if written != len(data):
                raise OSError(f"short write ({written} of {len(data)} bytes)")
        except OSError as exc:
            self.spill_error = f"{self.spill_dir}: {exc.strerror or exc}"
            log.warning(
                "held board events cannot be spilled to %s; they stay in memory", self.spill_error
            )
            return None
        offset = self._spill_end
        self._spill_end += len(data)
        return offset

    def _read_spilled(self, chunk: _Chunk) -> bytes:
        if self._spill is None:
            raise HeldDamaged(f"held events up to {chunk.last_seq}: the spill file is closed")
        return os.pread(self._spill.fileno(), chunk.length, chunk.offset)

    def _close_spill(self) -> None:
        if self._spill is not None:
            self._spill.close()
            self._spill = None
            self._spill_end = 0


__all__ = ["CHUNK", "MEMORY", "ROW_BYTES", "HeldDamaged", "HeldRows", "Row"]
