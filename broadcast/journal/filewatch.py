"""Is the journal's file still the one boardwire writes? What changed under it, if not.

The journal is written by one process only (`lockfile`), and in WAL mode that process
changes the database file only when it checkpoints, which it does itself, in writes of
its own (SQLite's automatic checkpoints are off). So after each write it notes the
file's identity, size and modification time, and the -wal's identity, size and header
(`Marks`); any later difference that it did not make is another program's doing:

- the path gone, or another file there (another inode): `deleted`, `replaced`;
- the same file with another size or modification time: `overwritten` (in place:
  `cp backup.sqlite event.sqlite`, `truncate`, `>`, which keep the inode, so that a
  comparison of the inode alone misses them);
- the `-wal` or `-shm` beside it gone or another file: `wal` (a cleanup, backup or sync
  tool deleting them). SQLite goes on writing into the open, deleted -wal, where a crash
  would lose everything since the last checkpoint;
- the -wal emptied or cut in place (`> event.sqlite-wal`, `truncate`): `emptied`. SQLite
  would go on writing frames after a hole, which no restart can read, and lay the hole's
  zeros over the journal at its next checkpoint.

Between two checkpoints the -wal only grows and its header (its salts) stays: a smaller
-wal, or another header, is not ours. `compare` is a pure function over these
observations: the journal decides what to do. For an overwritten file, `detach` points
this process's descriptors on it at /dev/null (so that nothing SQLite does, not even its
checkpoint at the end, reaches it), and `what_it_holds` says what the file holds now.
"""

from __future__ import annotations

import datetime as dt
import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

Kind = Literal["deleted", "replaced", "overwritten", "wal", "emptied"]
WAL_MAGIC = (b"\x37\x7f\x06\x82", b"\x37\x7f\x06\x83")  # a -wal's first bytes
WAL_HEADER = 32


@dataclass(frozen=True, slots=True)
class FileState:
    dev: int
    ino: int
    size: int
    mtime_ns: int
    head: bytes = b""  # a -wal's header (empty for the other files)

    @property
    def identity(self) -> tuple[int, int]:
        return (self.dev, self.ino)


@dataclass(frozen=True, slots=True)
class Marks:
    """The journal's file and its -wal and -shm as this process last left them."""

    main: FileState
    wal: FileState | None
    shm: FileState | None


@dataclass(frozen=True, slots=True)
class Finding:
    """What changed under the journal, in words for the arbiter (`detail`)."""

    kind: Kind
    detail: str


def state_of(path: str, *, head: bool = False) -> FileState | None:
    """The file at `path` now (None: there is none), with its first bytes if `head`."""
    try:
        st = os.stat(path)
        first = b""
        if head and st.st_size:
            with open(path, "rb") as f:
                first = f.read(WAL_HEADER)
    except OSError:
        return None
    return FileState(st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, first)


def sound_wal(wal: FileState | None) -> bool:
    """An empty -wal, or one that starts with a -wal's header."""
    return wal is None or not wal.size or wal.head[:4] in WAL_MAGIC


def marks_of(path: str) -> Marks | None:
    main = state_of(path)
    if main is None:
        return None
    return Marks(main, state_of(path + "-wal", head=True), state_of(path + "-shm"))


def now_of(path: str) -> tuple[FileState | None, FileState | None, FileState | None]:
    """The journal, its -wal and its -shm now (for `compare`)."""
    return state_of(path), state_of(path + "-wal", head=True), state_of(path + "-shm")


def compare(
    before: Marks, main: FileState | None, wal: FileState | None, shm: FileState | None
) -> Finding | None:
    """What differs between `before` and the files now (None: nothing)."""
    if main is None:
        return Finding("deleted", "deleted")
    if main.identity != before.main.identity:
        return Finding("replaced", "replaced by another file")
    if main.size != before.main.size or main.mtime_ns != before.main.mtime_ns:
        return Finding("overwritten", _overwritten(before.main, main))
    lost = [
        name
        for name, was, now in (("-wal", before.wal, wal), ("-shm", before.shm, shm))
        if was is not None and (now is None or now.identity != was.identity)
    ]
    if lost:
        how = " and ".join(
            f"{name} {'deleted' if now is None else 'replaced'}"
            for name, now in (("-wal", wal), ("-shm", shm))
            if name in lost
        )
        return Finding("wal", how)
    was = before.wal
    if was is not None and wal is not None and (wal.size < was.size or wal.head != was.head):
        when = dt.datetime.fromtimestamp(wal.mtime_ns / 1e9).strftime("%H:%M:%S")
        return Finding(
            "emptied",
            f"left with its -wal emptied in place by another program (from {_size(was.size)} "
            f"to {_size(wal.size)}, at {when}): what was written since its last checkpoint "
            "is not in the files any more",
        )
    return None


def _overwritten(before: FileState, now: FileState) -> str:
    when = dt.datetime.fromtimestamp(now.mtime_ns / 1e9).strftime("%H:%M:%S")
    if now.size != before.size:
        change = f"its size went from {_size(before.size)} to {_size(now.size)}"
    else:
        change = "its content was rewritten (same size)"
    return f"overwritten in place by another program ({change}, at {when})"


def detach(dev: int, ino: int, *, keep: tuple[int, ...] = ()) -> None:
    """Point every descriptor of this process on the file (dev, ino) at /dev/null, but
    those in `keep` (the journal's lock): SQLite keeps its descriptors, but nothing it
    writes through them reaches the file any more (its reads find nothing, which is why
    an overwritten journal is not read again)."""
    try:
        fds = [int(n) for n in os.listdir("/proc/self/fd")]
    except OSError:  # no /proc: every descriptor number up to a bound
        fds = list(range(3, 4096))
    null = os.open(os.devnull, os.O_RDWR)
    try:
        for fd in fds:
            if fd == null or fd in keep:
                continue
            try:
                st = os.fstat(fd)
            except OSError:
                continue
            if (st.st_dev, st.st_ino) == (dev, ino):
                os.dup2(null, fd)
    finally:
        os.close(null)


def what_it_holds(path: str) -> str:
    """What an overwritten journal holds now, in words (read without changing it)."""
    try:
        probe = sqlite3.connect(f"{Path(path).resolve().as_uri()}?mode=ro&immutable=1", uri=True)
        try:
            row = probe.execute("SELECT COUNT(*), COALESCE(MAX(seq), 0) FROM events").fetchone()
        finally:
            probe.close()
    except sqlite3.Error as exc:
        return f"cannot be read as a journal ({exc})"
    return f"holds {row[0]} event(s), up to number {row[1]}"


def _size(n: int) -> str:
    return f"{n} bytes" if n < 10_000 else f"{n / 1e6:.1f} MB"


__all__ = [
    "WAL_HEADER",
    "WAL_MAGIC",
    "FileState",
    "Finding",
    "Kind",
    "Marks",
    "compare",
    "detach",
    "marks_of",
    "now_of",
    "sound_wal",
    "state_of",
    "what_it_holds",
]
