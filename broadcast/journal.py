"""The journal: every event, in order, durable before anything acts on it.

SQLite in write-ahead-log mode with synchronous=FULL: a committed append survives a
kill -9 or a power cut. The service batches its appends (`begin()` ... `commit()`, or
`transaction()`): one transaction, one fsync, however many boards spoke; its commit may
run in a worker thread, so the connection is shared under a lock. State is rebuilt at
start by reading the events back.

Opening never changes a file that is not ours: an existing file is first inspected
read-only (a boardwire journal has exactly the `meta` table with our schema version and
the `events` table); anything else, an SQLite database of another program included, is
refused untouched. Permission problems are named as such.

When an append cannot be written (disk full, I/O error, the file made read-only), the
journal does not raise into the event loop: it keeps the batch in memory, in order,
with its sequence numbers, reports one `WriteFailure` naming the disk (`failure`), and
retries with back-off on later appends (or `retry()`); the first write that succeeds
stores the held batches before the new one, so nothing is lost or reordered while the
process lives. Whoever acknowledges an action to a person (the desk) must refuse while
`failure` is set, since the action would not be durable yet.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from broadcast.codec import decode, encode

SCHEMA_VERSION = 1
OUR_TABLES = {"meta", "events"}
EVENT_COLUMNS = ["seq", "t", "kind", "body"]
RETRY_FIRST = 0.5  # seconds before the first retry of a failed write; doubles to RETRY_MAX
RETRY_MAX = 10.0
MAX_HELD = 200_000  # events kept in memory while the journal cannot be written
READ_PAGE = 5000  # events read back per query

log = logging.getLogger(__name__)

Row = tuple[int, float, str, str]  # seq, t, kind, body


class JournalError(Exception):
    """The journal cannot be used: wrong schema version, unreadable file, foreign database."""


class JournalWriteError(JournalError):
    """The journal could not be written for so long that memory cannot hold more."""


@dataclass(frozen=True, slots=True)
class WriteFailure:
    """Why appends are held in memory: the error, the disk, since when (monotonic)."""

    reason: str
    disk: str
    since: float
    held: int

    @property
    def message(self) -> str:
        return (
            f"the journal cannot be written ({self.reason}): {self.disk}. Free space there; "
            f"{self.held} event(s) are held in memory and written as soon as it works"
        )


@dataclass(frozen=True, slots=True)
class Entry:
    seq: int
    t: float
    event: Any


class Journal:
    """Append-only event store in one SQLite file."""

    def __init__(self, path: str | Path, *, now: Callable[[], float] = time.monotonic) -> None:
        self.path = str(path)
        self.now = now
        self.failure: WriteFailure | None = None
        self._held: list[Row] = []
        self._retry_at = 0.0
        self._retry_wait = RETRY_FIRST
        fresh = _check_existing(Path(path))
        try:
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            if fresh:
                self._create_schema()
        except sqlite3.OperationalError as exc:
            raise JournalError(
                f"{self.path}: cannot open the journal for writing ({exc})"
            ) from None
        except sqlite3.DatabaseError as exc:
            raise JournalError(f"{self.path}: not a boardwire journal ({exc})") from None
        # One user of the connection at a time: a commit may be running in a worker thread.
        self._lock = threading.Lock()
        self._next_seq = self.last_seq() + 1  # held and pending rows are numbered already
        self._pending: list[Row] | None = None  # the open transaction's rows
        self._seq_at_begin = self._next_seq
        self.last_commit_seconds = 0.0  # how long the last commit took (fsync included)

    def _create_schema(self) -> None:
        db = self._db
        db.execute("BEGIN")
        db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        db.execute(
            "CREATE TABLE events (seq INTEGER PRIMARY KEY, t REAL NOT NULL, kind TEXT NOT NULL, "
            "body TEXT NOT NULL)"
        )
        db.execute("INSERT INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
        db.execute("COMMIT")

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def set_meta(self, key: str, value: str) -> None:
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    def meta(self, key: str) -> str | None:
        with self._lock:
            row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def append(self, events: Iterable[Any], t: float) -> list[int]:
        """Append events in one transaction; returns their sequence numbers once durable,
        or once held in memory while the journal cannot be written (see `failure`).
        Inside `transaction()` (or `begin()`) they are durable when that transaction ends."""
        rows = [(t, *encode(e)) for e in events]
        if not rows:
            if self._pending is None:
                self.retry()
            return []
        first = self._next_seq
        self._next_seq += len(rows)
        numbered: list[Row] = [(first + i, *row) for i, row in enumerate(rows)]
        if self._pending is not None:
            self._pending += numbered
        else:
            self._store(numbered)
        return list(range(first, first + len(rows)))

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """Appends inside share one transaction, durable together when it ends (one fsync);
        an exception drops them all. Nested use joins the outer transaction."""
        if self._pending is not None:
            yield
            return
        self.begin()
        try:
            yield
        except BaseException:
            self.rollback()
            raise
        self.commit()

    def begin(self) -> None:
        """Collect the appends that follow into one transaction; end it with `commit()`
        (which may run in another thread: the service syncs off its event loop) or
        `rollback()`."""
        assert self._pending is None, "a transaction is open already"
        self._pending = []
        self._seq_at_begin = self._next_seq

    def commit(self) -> None:
        """Write the open transaction (the fsync is here); while the journal cannot be
        written its rows are held in memory like any append (see `failure`)."""
        assert self._pending is not None, "no open transaction"
        rows, self._pending = self._pending, None
        started = time.perf_counter()
        self._store(rows)
        self.last_commit_seconds = time.perf_counter() - started

    def rollback(self) -> None:
        assert self._pending is not None, "no open transaction"
        self._pending = None
        self._next_seq = self._seq_at_begin

    def _store(self, rows: list[Row]) -> None:
        if self._held and self.now() < self._retry_at:
            self._hold(rows, None)
        else:
            self._flush(rows)

    def retry(self) -> bool:
        """Try to write what is held (if its back-off has passed); True if nothing is held."""
        if self._held and self.now() >= self._retry_at:
            self._flush([])
        return not self._held

    def _flush(self, rows: list[Row]) -> None:
        batch = self._held + rows
        try:
            self._write(batch)
        except sqlite3.OperationalError as exc:
            self._hold(rows, exc)
            return
        if self.failure is not None:
            log.warning(
                "journal %s writable again: %d held event(s) written", self.path, len(batch)
            )
        self._held, self.failure = [], None
        self._retry_wait = RETRY_FIRST

    def _hold(self, rows: list[Row], exc: sqlite3.OperationalError | None) -> None:
        if len(self._held) + len(rows) > MAX_HELD:
            raise JournalWriteError(
                f"{self.path}: more than {MAX_HELD} events could not be written "
                f"({self.failure.reason if self.failure else exc})"
            )
        self._held += rows
        now = self.now()
        if exc is not None:
            self._retry_at = now + self._retry_wait
            self._retry_wait = min(self._retry_wait * 2, RETRY_MAX)
        if self.failure is None:
            reason = str(exc) if exc is not None else "write failed"
            self.failure = WriteFailure(reason, describe_disk(self.path), now, len(self._held))
            log.critical("%s", self.failure.message)  # once per outage, not per event
        else:
            self.failure = WriteFailure(
                self.failure.reason, self.failure.disk, self.failure.since, len(self._held)
            )

    def _write(self, rows: list[Row]) -> None:
        if not rows:
            return
        with self._lock:
            db = self._db
            db.execute("BEGIN IMMEDIATE")
            try:
                db.executemany("INSERT INTO events (seq, t, kind, body) VALUES (?, ?, ?, ?)", rows)
                self._commit()
            except BaseException:
                if db.in_transaction:  # a failed COMMIT may have rolled back already
                    db.execute("ROLLBACK")
                raise

    def _commit(self) -> None:
        self._db.execute("COMMIT")

    def read(self, after: int = 0) -> Iterator[Entry]:
        while True:
            with self._lock:  # in pages: never hold the connection while the caller works
                rows = self._db.execute(
                    "SELECT seq, t, kind, body FROM events WHERE seq > ? ORDER BY seq LIMIT ?",
                    (after, READ_PAGE),
                ).fetchall()
            for seq, t, kind, body in rows:
                yield Entry(seq, t, decode(kind, body))
            if len(rows) < READ_PAGE:
                return
            after = rows[-1][0]

    def last_t(self) -> float | None:
        """When the newest event was appended (service clock), or None for a new journal."""
        with self._lock:
            row = self._db.execute("SELECT t FROM events ORDER BY seq DESC LIMIT 1").fetchone()
        return None if row is None else float(row[0])

    def last_seq(self) -> int:
        """The newest stored event's number (held or pending ones not counted)."""
        with self._lock:
            return int(self._db.execute("SELECT COALESCE(MAX(seq), 0) FROM events").fetchone()[0])


def describe_disk(path: str) -> str:
    """Which disk holds `path`, and how much room is left on it, for an arbiter to act on."""
    folder = Path(path).resolve().parent
    mount = folder
    while not os.path.ismount(mount) and mount != mount.parent:
        mount = mount.parent
    try:
        free = shutil.disk_usage(folder).free
    except OSError:
        return f"{path} on the disk mounted at {mount}"
    return f"{path} on the disk mounted at {mount} ({free / 1e6:.1f} MB free)"


def _check_existing(path: Path) -> bool:
    """Inspect `path` without changing it; True if it is new (absent or empty), False if it
    is a boardwire journal we can write; JournalError otherwise."""
    where = str(path)
    if path.is_dir():
        raise JournalError(f"{where} is a folder: give a journal file, e.g. event.sqlite")
    folder = path.parent if str(path.parent) else Path(".")
    if not path.exists():
        if not folder.is_dir():
            raise JournalError(f"{where}: the folder {folder} does not exist")
        if not os.access(folder, os.W_OK | os.X_OK):
            raise JournalError(f"{where}: permission denied: cannot create files in {folder}")
        return True
    if not os.access(path, os.R_OK):
        raise JournalError(f"{where}: permission denied: cannot read the journal")
    if path.stat().st_size == 0:
        _check_writable(path, folder)
        return True
    try:
        probe = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise JournalError(f"{where}: cannot open it ({exc})") from None
    try:
        tables = {r[0] for r in probe.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if not tables:
            _check_writable(path, folder)
            return True
        if tables != OUR_TABLES:
            raise JournalError(
                f"{where} is not a boardwire journal (it holds tables "
                f"{', '.join(sorted(tables))}; it was left untouched): give another --db"
            )
        columns = [r[1] for r in probe.execute("PRAGMA table_info(events)")]
        row = probe.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    except sqlite3.OperationalError as exc:
        if "unable to open" in str(exc) or "readonly" in str(exc):
            raise JournalError(f"{where}: permission denied: cannot read the journal") from None
        raise JournalError(f"{where}: not a boardwire journal ({exc})") from None
    except sqlite3.DatabaseError as exc:
        raise JournalError(f"{where}: not a boardwire journal ({exc}); left untouched") from None
    finally:
        probe.close()
    if columns != EVENT_COLUMNS or row is None:
        raise JournalError(
            f"{where} holds tables but no boardwire schema version (left untouched): "
            "give another --db"
        )
    if str(row[0]) != str(SCHEMA_VERSION):
        raise JournalError(
            f"{where} has journal schema {row[0]}, this boardwire reads {SCHEMA_VERSION}; "
            "use the matching boardwire version or start a new journal with --db"
        )
    _check_writable(path, folder)
    return False


def _check_writable(path: Path, folder: Path) -> None:
    if not os.access(path, os.W_OK):
        raise JournalError(f"{path}: permission denied: the journal is read-only")
    if not os.access(folder, os.W_OK | os.X_OK):
        # WAL mode keeps two files next to the journal (-wal, -shm).
        raise JournalError(f"{path}: permission denied: cannot create files in {folder}")
