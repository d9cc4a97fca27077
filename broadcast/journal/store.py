"""The journal: every event, in order, durable before anything acts on it.

SQLite in write-ahead-log mode with synchronous=FULL: a committed transaction survives a
kill -9 or a power cut. Appends go into a `Transaction` (`begin()`, `add()`), and a
transaction is written whole, by one of two commits:

- `commit(txn)`, for board events (it may run in a worker thread: the service syncs off
  its event loop). When the disk cannot take the rows (full, I/O error, made read-only)
  they are held in memory, in order, with their numbers; `failure` says why and names
  the disk, and a later commit (or `retry()`, with back-off) writes the held rows before
  its own. The boards' logs give these events back if the process dies meanwhile.
- `commit_now(txn)`, for what a person is told is done (an arbiter action): it returns
  only once its rows are synced, and raises `JournalUnavailable` otherwise, keeping
  nothing of them. It writes any earlier transaction still waiting for the worker thread
  first (rows reach the file in sequence order), so an action can never ride on a board
  batch that is not synced yet: each action is its own transaction and waits for it.

A transaction holds only the rows added to it: nothing added elsewhere can join it.

Opening never changes a file that is not ours. The header is checked first; an SQLite
file is then inspected with `immutable=1` (no -wal, no -shm created or rewritten, no
lock). A boardwire journal has our tables (`meta`, `events`, and from schema 2
`snapshots`), our schema version and nothing else; a new journal is an absent or empty
file, or an SQLite file with no schema objects at all and user_version 0 and no
application id. Anything else is refused untouched. A schema-1 journal is migrated to
schema 2 (a table added) on opening. Permission problems and read-only filesystems are
named as such.

While the service runs, `check_file()` compares the open file with the path: a journal
deleted or replaced under a running boardwire is noticed (`gone`), actions are refused,
and `rescue()` writes a full copy through the open connection (SQLite's backup API).

The `snapshots` table keeps folded states (see `broadcast/service/snapshot.py`), each checked
against the journal by the number and digest of the last event it folded.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import logging
import os
import shutil
import sqlite3
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from broadcast.journal.codec import CodecError, decode, encode
from clocks.errors import BoardwireError

if TYPE_CHECKING:
    from broadcast.journal.kinds import JournalEvent

SCHEMA_VERSION = 2
READABLE_VERSIONS = ("1", "2")  # 1 is migrated on opening (it lacks the snapshots table)
OUR_TABLES = {"meta", "events", "snapshots"}
OUR_TABLES_V1 = {"meta", "events"}
OUR_INDEXES = {"sqlite_autoindex_meta_1"}  # meta's TEXT PRIMARY KEY
EVENT_COLUMNS = ["seq", "t", "kind", "body"]
RETRY_FIRST = 0.5  # seconds before the first retry of a failed write; doubles to RETRY_MAX
RETRY_MAX = 10.0
MAX_HELD = 200_000  # events kept in memory while the journal cannot be written
READ_PAGE = 5000  # events read back per query
SNAPSHOTS_KEPT = 2
# Rows deleted per transaction by compaction, and the pause between two: a game's rows
# are spread over the file (every other board wrote between them), so each row is a page
# of its own; small transactions keep a board batch's commit from waiting long.
DELETE_CHUNK = 500
DELETE_PAUSE = 0.005
SQLITE_MAGIC = b"SQLite format 3\x00"

log = logging.getLogger(__name__)

Row = tuple[int, float, str, str]  # seq, t, kind, body

_CREATE_SNAPSHOTS = (
    "CREATE TABLE snapshots (seq INTEGER PRIMARY KEY, t REAL NOT NULL, format TEXT NOT NULL, "
    "fingerprint TEXT NOT NULL, digest TEXT NOT NULL, checksum TEXT NOT NULL, "
    "body BLOB NOT NULL)"
)


class JournalError(BoardwireError):
    """The journal cannot be used: wrong schema version, unreadable file, foreign database."""


class JournalWriteError(JournalError):
    """The journal could not be written for so long that memory cannot hold more."""


class JournalDamaged(JournalError):
    """An event in the journal cannot be read back (a newer boardwire's kind, a damaged row)."""


class JournalUnavailable(JournalError):
    """A transaction that had to be durable now could not be written: nothing of it is kept."""


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
class JournalGone:
    """The journal's file was deleted or replaced while it is open: writes still reach the
    open file, which nothing can find after this process ends."""

    path: str
    how: str  # "deleted" or "replaced by another file"
    pid: int
    fds: tuple[int, ...]  # our descriptors on the open file (and its -wal)
    rescued: str | None = None  # where a full copy was written
    rescue_error: str | None = None

    @property
    def message(self) -> str:
        proc = " and ".join(f"/proc/{self.pid}/fd/{fd}" for fd in self.fds) or "/proc/PID/fd"
        if self.rescued is not None:
            save = (
                f"boardwire wrote a full copy to {self.rescued} (and writes it again when it "
                f"stops); stop boardwire, then start it again with --db {self.rescued}, or "
                f"move that file to {self.path} first"
            )
        elif self.rescue_error is None:
            save = (
                "boardwire is writing a full copy of it beside it (the desk's alert says "
                "where once it is done)"
            )
        else:
            save = (
                f"boardwire could not write a copy ({self.rescue_error}); while it still "
                f"runs, save the open file: cp {proc.split(' and ')[0]} {self.path}.saved, "
                f"then stop boardwire and start it again with --db {self.path}.saved"
            )
        return (
            f"the journal {self.path} was {self.how} while boardwire runs: arbiter actions "
            f"are refused, since a restart would not find them. The open file is still "
            f"readable as {proc}; {save}"
        )


JournalProblem = WriteFailure | JournalGone


@dataclass(frozen=True, slots=True)
class Entry:
    """One stored event: its number, when it was appended (service clock), the event."""

    seq: int
    t: float
    event: JournalEvent


@dataclass(frozen=True, slots=True)
class StoredSnapshot:
    """A row of the snapshots table (the body as stored: see broadcast/service/snapshot.py)."""

    seq: int
    t: float
    format: str
    fingerprint: str
    digest: str
    checksum: str
    body: bytes


class Transaction:
    """The rows of one journal transaction, numbered as they are added (`Journal.add`).

    Only what is added to this object is in it. States: open (taking rows), queued (closed,
    waiting to be written), written, held (in memory: the disk failed), dropped."""

    __slots__ = ("first", "rows", "state")

    def __init__(self, first: int) -> None:
        self.first = first
        self.rows: list[Row] = []
        self.state = "open"

    @property
    def seqs(self) -> range:
        return range(self.first, self.first + len(self.rows))


class Journal:
    """Append-only event store in one SQLite file (see the module docstring)."""

    def __init__(
        self,
        path: str | Path,
        *,
        now: Callable[[], float] = time.monotonic,
        readonly: bool = False,
    ) -> None:
        self.path = str(path)
        self.now = now
        self.readonly = readonly
        self.failure: WriteFailure | None = None
        self.gone: JournalGone | None = None
        self._held: list[Row] = []
        self._retry_at = 0.0
        self._retry_wait = RETRY_FIRST
        version = inspect_journal(Path(path), readonly=readonly)
        try:
            if readonly:
                self._db = _open_read_only(Path(path))
            else:
                self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
                self._db.execute("PRAGMA journal_mode=WAL")
                self._db.execute("PRAGMA synchronous=FULL")
                if version is None:
                    self._create_schema()
                else:
                    self._migrate()
        except sqlite3.OperationalError as exc:
            raise JournalError(
                f"{self.path}: cannot open the journal for writing ({exc})"
            ) from None
        except sqlite3.DatabaseError as exc:
            raise JournalError(f"{self.path}: not a boardwire journal ({exc})") from None
        # One user of the connection at a time: a commit may be running in a worker thread.
        self._lock = threading.Lock()
        self._next_seq = self.last_seq() + 1  # held and queued rows are numbered already
        self._open: Transaction | None = None
        self._queue: list[Transaction] = []  # closed, not written yet, in sequence order
        self.last_commit_seconds = 0.0  # how long the last commit took (fsync included)
        self.written_seq = self._next_seq - 1  # newest number durable in the file
        self._identity = _identity(self.path)

    # -- schema ------------------------------------------------------------------------------

    def _create_schema(self) -> None:
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        db.execute(
            "CREATE TABLE events (seq INTEGER PRIMARY KEY, t REAL NOT NULL, kind TEXT NOT NULL, "
            "body TEXT NOT NULL)"
        )
        db.execute(_CREATE_SNAPSHOTS)
        db.execute("INSERT INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
        db.execute("COMMIT")

    def _migrate(self) -> None:
        """Schema 1 -> 2: the snapshots table (the events are as they were)."""
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            row = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
            if row is not None and str(row[0]) == "1":
                db.execute(_CREATE_SNAPSHOTS.replace("TABLE", "TABLE IF NOT EXISTS", 1))
                db.execute(
                    "UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(SCHEMA_VERSION),)
                )
                log.info("journal %s: schema 1 -> %d (snapshots table added)", self.path, 2)
            elif row is None or str(row[0]) != str(SCHEMA_VERSION):
                raise JournalError(
                    f"{self.path} has journal schema {row[0] if row else '?'}, this boardwire "
                    f"reads {SCHEMA_VERSION}; use the matching boardwire version or start a new "
                    "journal with --db"
                )
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise

    def close(self) -> None:
        if self.gone is not None and not self.readonly:
            self.rescue()  # the copy gets what was written since it was first made
        with self._lock:
            self._db.close()

    def set_meta(self, key: str, value: str) -> None:
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    def meta(self, key: str) -> str | None:
        with self._lock:
            row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    @property
    def problem(self) -> JournalProblem | None:
        """Why an action cannot be made durable now (None: it can)."""
        return self.gone or self.failure

    # -- transactions ----------------------------------------------------------------------------

    def begin(self) -> Transaction:
        """A new transaction; rows are numbered as they are added (one open at a time)."""
        if self._open is not None:
            raise RuntimeError("a journal transaction is open already")
        self._open = Transaction(self._next_seq)
        return self._open

    def add(self, txn: Transaction, events: Iterable[JournalEvent], t: float) -> list[int]:
        """Encode `events` into `txn` (all of them or, on a CodecError, none); their numbers."""
        if txn is not self._open:
            raise RuntimeError("rows can only be added to the open transaction")
        rows = [(t, *encode(e)) for e in events]
        first = self._next_seq
        txn.rows += [(first + i, *row) for i, row in enumerate(rows)]
        self._next_seq += len(rows)
        return list(range(first, first + len(rows)))

    def rollback(self, txn: Transaction) -> None:
        """Drop the open transaction: its numbers are given back."""
        if txn is not self._open:
            raise RuntimeError("only the open transaction can be rolled back")
        self._open = None
        txn.state = "dropped"
        self._next_seq = txn.first

    def seal(self, txn: Transaction) -> None:
        """Close `txn` for additions: it waits (queued) for `commit` or `commit_now`."""
        if txn is self._open:
            self._open = None
            txn.state = "queued"
            if txn.rows:
                with self._lock:
                    self._queue.append(txn)
            else:
                txn.state = "written"

    def commit(self, txn: Transaction) -> None:
        """Write `txn` and every transaction queued before it (the fsync is here; any
        thread). While the journal cannot be written the rows are held in memory (see
        `failure`); they go in first when it works again."""
        self.seal(txn)
        started = time.perf_counter()
        with self._lock:
            if txn.state != "queued":
                return  # an action wrote it already, or it is held
            upto = self._take_queue(txn)
            rows = [r for t in upto for r in t.rows]
            if self._held and self.now() < self._retry_at:
                self._hold_locked(upto, rows, None)
            else:
                try:
                    self._write_locked(self._held + rows)
                except sqlite3.OperationalError as exc:
                    self._hold_locked(upto, rows, exc)
                else:
                    self._written_locked(upto, rows)
        self.last_commit_seconds = time.perf_counter() - started

    def commit_now(self, txn: Transaction) -> None:
        """Write and sync `txn` now (after everything numbered before it), or raise
        JournalUnavailable and keep none of its rows. Refused while the file is gone."""
        self.seal(txn)
        with self._lock:
            if txn.state == "written":
                return
            upto = self._take_queue(txn)
            earlier = [t for t in upto if t is not txn]
            rows = [r for t in upto for r in t.rows]
            problem: str | None = None
            if self.gone is not None:
                problem = self.gone.message
            else:
                try:
                    self._write_locked(self._held + rows)
                except sqlite3.OperationalError as exc:
                    problem = str(exc)
                    self._hold_locked(earlier, [r for t in earlier for r in t.rows], exc)
                else:
                    self._written_locked(upto, rows)
                    return
            if self.gone is not None:
                # Board rows before it still go to the open file (the rescue copy has them).
                with contextlib.suppress(sqlite3.OperationalError):
                    before = [r for t in earlier for r in t.rows]
                    self._write_locked(self._held + before)
                    self._written_locked(earlier, before)
            txn.state = "dropped"
            if self._next_seq == txn.first + len(txn.rows) and self._open is None:
                self._next_seq = txn.first  # its numbers are given back
        raise JournalUnavailable(f"not stored: {problem}")

    def _take_queue(self, txn: Transaction) -> list[Transaction]:
        if txn not in self._queue:
            return [txn] if txn.rows else []
        k = self._queue.index(txn) + 1
        upto, self._queue = self._queue[:k], self._queue[k:]
        return upto

    def _written_locked(self, txns: list[Transaction], rows: list[Row]) -> None:
        """`txns` (their `rows`) and everything held are in the file now."""
        for t in txns:
            t.state = "written"
        if self.failure is not None:
            log.warning(
                "journal %s writable again: %d held event(s) written", self.path, len(self._held)
            )
        self.written_seq = max([self.written_seq, *(r[0] for r in self._held[-1:] + rows[-1:])])
        self._held, self.failure = [], None
        self._retry_wait = RETRY_FIRST

    def _hold_locked(
        self, txns: list[Transaction], rows: list[Row], exc: sqlite3.OperationalError | None
    ) -> None:
        if len(self._held) + len(rows) > MAX_HELD:
            for t in txns:
                t.state = "dropped"
            raise JournalWriteError(
                f"{self.path}: more than {MAX_HELD} events could not be written "
                f"({self.failure.reason if self.failure else exc})"
            )
        for t in txns:
            t.state = "held"
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

    def _write_locked(self, rows: list[Row]) -> None:
        if not rows:
            return
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

    def append(self, events: Iterable[JournalEvent], t: float) -> list[int]:
        """Append events in a transaction of their own, board-event style: their numbers
        once durable, or once held in memory while the journal cannot be written."""
        txn = self.begin()
        try:
            seqs = self.add(txn, events, t)
        except BaseException:
            self.rollback(txn)
            raise
        if not seqs:
            self.rollback(txn)
            self.retry()
            return []
        self.commit(txn)
        return seqs

    @contextlib.contextmanager
    def transaction(self) -> Iterator[Transaction]:
        """A transaction committed (board-event style) when the block ends; an exception
        drops it."""
        txn = self.begin()
        try:
            yield txn
        except BaseException:
            self.rollback(txn)
            raise
        self.commit(txn)

    def retry(self) -> bool:
        """Try to write what is held (if its back-off has passed); True if nothing is held."""
        with self._lock:
            if self._held and self.now() >= self._retry_at:
                try:
                    self._write_locked(self._held)
                except sqlite3.OperationalError as exc:
                    self._hold_locked([], [], exc)
                else:
                    self._written_locked([], [])
            return not self._held

    @property
    def unwritten(self) -> int:
        """Rows numbered but not in the file yet: held, queued or in the open transaction."""
        open_rows = len(self._open.rows) if self._open is not None else 0
        return len(self._held) + sum(len(t.rows) for t in self._queue) + open_rows

    # -- reading -----------------------------------------------------------------------------

    def read(self, after: int = 0) -> Iterator[Entry]:
        """Every stored event after number `after`, in order. JournalDamaged (one line
        naming the row) when one cannot be read back."""
        while True:
            with self._lock:  # in pages: never hold the connection while the caller works
                rows = self._db.execute(
                    "SELECT seq, t, kind, body FROM events WHERE seq > ? ORDER BY seq LIMIT ?",
                    (after, READ_PAGE),
                ).fetchall()
            for seq, t, kind, body in rows:
                yield Entry(seq, t, self._decode(seq, kind, body))
            if len(rows) < READ_PAGE:
                return
            after = rows[-1][0]

    def _decode(self, seq: int, kind: object, body: object) -> JournalEvent:
        try:
            if not isinstance(kind, str) or not isinstance(body, str):
                raise CodecError(f"a {type(kind).__name__} kind and a {type(body).__name__} body")
            event: JournalEvent = decode(kind, body)
            return event
        except (CodecError, ValueError, TypeError, KeyError, AttributeError, RecursionError) as exc:
            raise JournalDamaged(
                f"{self.path}: event {seq} cannot be read ({exc}); it was written by a newer "
                "boardwire or the file is damaged: use the boardwire that wrote it, or a copy "
                "of the journal from before the damage"
            ) from None

    def read_kinds(
        self, after: int, upto: int, kinds: tuple[str, ...]
    ) -> Iterator[tuple[int, JournalEvent]]:
        """The events of `kinds` numbered after `after` and up to `upto`, in order."""
        marks = ",".join("?" * len(kinds))
        while True:
            with self._lock:
                rows = self._db.execute(
                    f"SELECT seq, kind, body FROM events WHERE seq > ? AND seq <= ? "
                    f"AND kind IN ({marks}) ORDER BY seq LIMIT ?",
                    (after, upto, *kinds, READ_PAGE),
                ).fetchall()
            for seq, kind, body in rows:
                yield seq, self._decode(seq, kind, body)
            if len(rows) < READ_PAGE:
                return
            after = rows[-1][0]

    def delete_rows(self, seqs: list[int]) -> int:
        """Delete the events numbered `seqs` (compaction: see broadcast/journal/compaction.py), a
        few hundred per transaction so that commits wait little; how many went. Stops at
        the first failure (a full disk): the rows stay, nothing else changes."""
        gone = 0
        for i in range(0, len(seqs), DELETE_CHUNK):
            chunk = [(s,) for s in seqs[i : i + DELETE_CHUNK]]
            with self._lock:
                if self.failure is not None or self.gone is not None:
                    return gone
                db = self._db
                try:
                    db.execute("BEGIN IMMEDIATE")
                    db.executemany("DELETE FROM events WHERE seq = ?", chunk)
                    db.execute("COMMIT")
                except sqlite3.OperationalError as exc:
                    if db.in_transaction:
                        db.execute("ROLLBACK")
                    log.warning("journal %s: compaction stopped (%s)", self.path, exc)
                    return gone
            gone += len(chunk)
            time.sleep(DELETE_PAUSE)  # let the commits waiting for the lock in first
        return gone

    def last_t(self) -> float | None:
        """When the newest event was appended (service clock), or None for a new journal."""
        with self._lock:
            row = self._db.execute("SELECT t FROM events ORDER BY seq DESC LIMIT 1").fetchone()
        return None if row is None else float(row[0])

    def last_seq(self) -> int:
        """The newest stored event's number (held or pending ones not counted)."""
        with self._lock:
            return int(self._db.execute("SELECT COALESCE(MAX(seq), 0) FROM events").fetchone()[0])

    def row_digest(self, seq: int) -> str | None:
        """A digest of the stored row `seq` (None if there is none): what a snapshot is
        checked against."""
        with self._lock:
            row = self._db.execute(
                "SELECT seq, t, kind, body FROM events WHERE seq = ?", (seq,)
            ).fetchone()
        return None if row is None else _row_digest(row)

    # -- snapshots ---------------------------------------------------------------------------

    def has_snapshots(self) -> bool:
        with self._lock:
            return bool(
                self._db.execute(
                    "SELECT 1 FROM sqlite_master WHERE type='table' AND name='snapshots'"
                ).fetchone()
            )

    def snapshots(self) -> Iterator[StoredSnapshot]:
        """Stored snapshots, newest first (a schema-1 journal read only has none)."""
        if not self.has_snapshots():
            return
        with self._lock:
            seqs = [
                int(r[0]) for r in self._db.execute("SELECT seq FROM snapshots ORDER BY seq DESC")
            ]
        for seq in seqs:
            try:
                with self._lock:
                    row = self._db.execute(
                        "SELECT seq, t, CAST(format AS TEXT), CAST(fingerprint AS TEXT), "
                        "CAST(digest AS TEXT), CAST(checksum AS TEXT), CAST(body AS BLOB) "
                        "FROM snapshots WHERE seq = ?",
                        (seq,),
                    ).fetchone()
            except sqlite3.Error as exc:  # a damaged row: as if there were none
                log.warning("journal %s: snapshot at event %d unreadable (%s)", self.path, seq, exc)
                continue
            if row is not None:
                yield StoredSnapshot(
                    int(row[0]),
                    float(row[1]),
                    str(row[2]),
                    str(row[3]),
                    str(row[4]),
                    str(row[5]),
                    bytes(row[6]) if isinstance(row[6], bytes | memoryview) else b"",
                )

    def snapshot_seqs(self) -> set[int]:
        """Where the stored snapshots were taken."""
        if not self.has_snapshots():
            return set()
        with self._lock:
            return {int(r[0]) for r in self._db.execute("SELECT seq FROM snapshots")}

    def store_snapshot(self, snapshot: StoredSnapshot) -> bool:
        """Keep `snapshot` (and the newest SNAPSHOTS_KEPT in all); False when the journal
        cannot take it now (a snapshot is never needed: the events are all there)."""
        with self._lock:
            if self.failure is not None or self.gone is not None:
                return False
            db = self._db
            try:
                db.execute("BEGIN IMMEDIATE")
                db.execute(
                    "INSERT OR REPLACE INTO snapshots VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (
                        snapshot.seq,
                        snapshot.t,
                        snapshot.format,
                        snapshot.fingerprint,
                        snapshot.digest,
                        snapshot.checksum,
                        snapshot.body,
                    ),
                )
                db.execute(
                    "DELETE FROM snapshots WHERE seq NOT IN "
                    "(SELECT seq FROM snapshots ORDER BY seq DESC LIMIT ?)",
                    (SNAPSHOTS_KEPT,),
                )
                db.execute("COMMIT")
            except sqlite3.OperationalError as exc:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                log.warning("journal %s: snapshot not stored (%s)", self.path, exc)
                return False
        return True

    # -- the file under us -------------------------------------------------------------------

    def check_file(self) -> JournalGone | None:
        """Is the open file still the one at the path? Cheap (one stat); on the first
        sign that it is not, `gone` is set and logged once."""
        if self.gone is not None or self.readonly:
            return self.gone
        try:
            now = _identity(self.path)
        except OSError:
            now = None
        if now == self._identity:
            return None
        how = "deleted" if now is None else "replaced by another file"
        self.gone = JournalGone(self.path, how, os.getpid(), self._open_fds())
        log.critical("%s", self.gone.message)
        return self.gone

    def _open_fds(self) -> tuple[int, ...]:
        """Our descriptors on the journal and its -wal (for a /proc copy)."""
        found: list[int] = []
        folder = Path("/proc/self/fd")
        try:
            names = sorted(os.listdir(folder), key=int)
        except OSError:
            return ()
        for name in names:
            try:
                target = os.readlink(folder / name)
            except OSError:
                continue
            base = target.removesuffix(" (deleted)")
            if base in (self.path, str(Path(self.path).resolve())):
                found.insert(0, int(name))
            elif base.endswith("-wal") and base[:-4] in (self.path, str(Path(self.path).resolve())):
                found.append(int(name))
        return tuple(found)

    def rescue(self) -> str | None:
        """Write a full copy of the open journal through its connection (SQLite's backup
        API: the -wal's content included) next to where it was, or in the temp folder;
        where it went, or None. Runs for as long as the copy takes: call it off the loop."""
        if self.gone is None:
            return None
        target = self.gone.rescued or _rescue_path(self.path)
        error = None
        try:
            copy = sqlite3.connect(target)
            try:
                with self._lock:
                    self._db.backup(copy)
            finally:
                copy.close()
        except (sqlite3.Error, OSError) as exc:
            error = str(exc)
            with contextlib.suppress(OSError):
                if self.gone.rescued is None:
                    os.unlink(target)
        gone = self.gone
        if error is None:
            if gone.rescued is None:
                log.critical("journal %s saved to %s", self.path, target)
            self.gone = JournalGone(gone.path, gone.how, gone.pid, gone.fds, target, None)
            return target
        log.critical("journal %s could not be saved to %s: %s", self.path, target, error)
        self.gone = JournalGone(gone.path, gone.how, gone.pid, gone.fds, gone.rescued, error)
        return gone.rescued


def _open_read_only(path: Path) -> sqlite3.Connection:
    """Our journal for reading only. SQLite keeps its -shm beside it (ours: fine); where it
    cannot (a read-only folder) and no -wal holds anything, the file alone is all there is."""
    base = path.resolve().as_uri()
    try:
        db = sqlite3.connect(
            f"{base}?mode=ro", uri=True, isolation_level=None, check_same_thread=False
        )
        db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
        return db
    except sqlite3.OperationalError:
        if _nonempty(path.with_name(path.name + "-wal")):
            raise
    return sqlite3.connect(
        f"{base}?mode=ro&immutable=1", uri=True, isolation_level=None, check_same_thread=False
    )


def _row_digest(row: tuple[object, ...]) -> str:
    seq, t, kind, body = row
    text = f"{seq}\x1f{float(t)!r}\x1f{kind}\x1f{body}"  # type: ignore[arg-type]
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _identity(path: str) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    return (st.st_dev, st.st_ino)


def _rescue_path(path: str) -> str:
    stamp = dt.datetime.now().strftime("%Y%m%dT%H%M%S")
    name = f"{Path(path).name}.rescued-{stamp}"
    for folder in (Path(path).resolve().parent, Path(tempfile.gettempdir())):
        candidate = folder / name
        try:
            fd = os.open(candidate, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except OSError:
            continue
        os.close(fd)
        return str(candidate)
    return str(Path(tempfile.gettempdir()) / f"{name}-{os.getpid()}")


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


# -- inspecting a file before opening it -------------------------------------------------------


def read_only_filesystem(folder: Path) -> bool:
    """True if `folder` is on a filesystem mounted read-only."""
    try:
        return bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    except OSError:
        return False


def _siblings(path: Path) -> list[Path]:
    return [path.with_name(path.name + s) for s in ("-wal", "-shm", "-journal")]


def _nonempty(path: Path) -> bool:
    try:
        return path.stat().st_size > 0
    except OSError:
        return False


@dataclass(frozen=True, slots=True)
class _Schema:
    tables: frozenset[str]
    others: frozenset[str]  # views, triggers, indexes other than our own
    user_version: int
    application_id: int
    columns: tuple[str, ...]
    version: str | None


def _read_schema(uri: str) -> _Schema:
    probe = sqlite3.connect(uri, uri=True)
    try:
        objects = probe.execute("SELECT type, name FROM sqlite_master").fetchall()
        tables = frozenset(str(n) for kind, n in objects if kind == "table")
        others = frozenset(
            f"{kind} {n}"
            for kind, n in objects
            if kind != "table" and not (kind == "index" and n in OUR_INDEXES)
        )
        user_version = int(probe.execute("PRAGMA user_version").fetchone()[0])
        application_id = int(probe.execute("PRAGMA application_id").fetchone()[0])
        columns: tuple[str, ...] = ()
        version = None
        if tables in (OUR_TABLES, OUR_TABLES_V1) and not others:
            columns = tuple(str(r[1]) for r in probe.execute("PRAGMA table_info(events)"))
            row = probe.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
            version = None if row is None else str(row[0])
        return _Schema(tables, others, user_version, application_id, columns, version)
    finally:
        probe.close()


def _schema_of_copy(path: Path) -> _Schema:
    """The schema of a crashed WAL database as SQLite would recover it, read from a copy
    (the database and its -wal) so that nothing of the original is touched."""
    with tempfile.TemporaryDirectory(prefix="boardwire-inspect-") as tmp:
        copy = Path(tmp) / "copy.sqlite"
        shutil.copyfile(path, copy)
        wal = path.with_name(path.name + "-wal")
        if wal.exists():
            shutil.copyfile(wal, Path(tmp) / "copy.sqlite-wal")
        return _read_schema(copy.as_uri())


def inspect_journal(path: Path, *, readonly: bool = False) -> str | None:
    """Inspect `path` without changing it (or its -wal/-shm): None if it is new (absent,
    empty, or an SQLite file with nothing in it), our schema version if it is a boardwire
    journal we can use; JournalError otherwise, with one line for the user."""
    where = str(path)
    if path.is_dir():
        raise JournalError(f"{where} is a folder: give a journal file, e.g. event.sqlite")
    folder = path.parent if str(path.parent) else Path(".")
    if not path.exists():
        if not folder.is_dir():
            raise JournalError(f"{where}: the folder {folder} does not exist")
        if readonly:
            raise JournalError(f"{where}: no journal there")
        _check_writable(path, folder, exists=False)
        return None
    if not os.access(path, os.R_OK):
        raise JournalError(f"{where}: permission denied: cannot read the journal")
    try:
        with path.open("rb") as f:
            header = f.read(100)
    except OSError as exc:
        raise JournalError(f"{where}: cannot read it ({exc.strerror or exc})") from None
    if not header:
        if any(_nonempty(s) for s in _siblings(path)):
            raise JournalError(
                f"{where} is empty but has a -wal or -journal file beside it (another "
                "program's database that crashed?); it was left untouched: give another --db"
            )
        if not readonly:
            _check_writable(path, folder, exists=True)
        return None
    if len(header) < 100 or not header.startswith(SQLITE_MAGIC):
        raise JournalError(
            f"{where} is not a boardwire journal (not an SQLite database; it was left "
            "untouched): give another --db"
        )
    try:
        schema = _read_schema(f"{path.resolve().as_uri()}?mode=ro&immutable=1")
        if not schema.tables and not schema.others and _nonempty(_siblings(path)[0]):
            schema = _schema_of_copy(path)  # a crash before the first checkpoint
    except (sqlite3.Error, OSError) as exc:
        raise JournalError(
            f"{where}: not a boardwire journal ({exc}); it was left untouched"
        ) from None
    empty = (
        not schema.tables
        and not schema.others
        and schema.user_version == 0
        and schema.application_id == 0
    )
    if empty:
        if not readonly:
            _check_writable(path, folder, exists=True)
        return None
    if schema.tables not in (OUR_TABLES, OUR_TABLES_V1) or schema.others:
        held = sorted(schema.tables) + sorted(schema.others)
        what = (
            f"it holds {', '.join(held)}"
            if held
            else f"it has user_version {schema.user_version}, application_id "
            f"{schema.application_id}"
        )
        raise JournalError(
            f"{where} is not a boardwire journal ({what}; it was left untouched): give another --db"
        )
    if list(schema.columns) != EVENT_COLUMNS or schema.version is None:
        raise JournalError(
            f"{where} holds tables but no boardwire schema version (left untouched): "
            "give another --db"
        )
    if schema.version not in READABLE_VERSIONS:
        raise JournalError(
            f"{where} has journal schema {schema.version}, this boardwire reads "
            f"{SCHEMA_VERSION}; use the matching boardwire version or start a new journal "
            "with --db"
        )
    if not readonly:
        _check_writable(path, folder, exists=True)
    return schema.version


def _check_writable(path: Path, folder: Path, *, exists: bool) -> None:
    if read_only_filesystem(folder):
        raise JournalError(
            f"{path}: the filesystem holding {folder} is mounted read-only, so boardwire "
            "cannot write its journal there: remount it read-write, or give --db on a "
            "writable disk"
        )
    if exists and not os.access(path, os.W_OK):
        raise JournalError(f"{path}: permission denied: the journal is read-only")
    if not os.access(folder, os.W_OK | os.X_OK):
        # WAL mode keeps two files next to the journal (-wal, -shm).
        raise JournalError(f"{path}: permission denied: cannot create files in {folder}")


__all__ = [
    "DELETE_CHUNK",
    "DELETE_PAUSE",
    "EVENT_COLUMNS",
    "MAX_HELD",
    "OUR_INDEXES",
    "OUR_TABLES",
    "OUR_TABLES_V1",
    "READABLE_VERSIONS",
    "READ_PAGE",
    "RETRY_FIRST",
    "RETRY_MAX",
    "SCHEMA_VERSION",
    "SNAPSHOTS_KEPT",
    "SQLITE_MAGIC",
    "Entry",
    "Journal",
    "JournalDamaged",
    "JournalError",
    "JournalGone",
    "JournalProblem",
    "JournalUnavailable",
    "JournalWriteError",
    "Row",
    "StoredSnapshot",
    "Transaction",
    "WriteFailure",
    "describe_disk",
    "inspect_journal",
    "read_only_filesystem",
]
