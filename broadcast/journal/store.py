"""The journal: every event, in order, durable before anything acts on it.

SQLite in write-ahead-log mode with synchronous=FULL: a committed transaction survives a
kill -9 or a power cut. Appends go into a `Transaction` (`begin()`, `add()`), and a
transaction is written whole, by one of two commits:

- `commit(txn)`, for board events (it may run in a worker thread: the service syncs off
  its event loop). When the disk cannot take the rows (full, I/O error, made read-only)
  they are held, in order, with their numbers (`broadcast.journal.held`: packed in
  memory, then in a spill file; never dropped); `failure` says why, names the disk and
  what is held, and a later commit (or `retry()`, with back-off) writes the held rows
  before its own. The log says it once when it starts, in a summary every
  REPORT_SECONDS, and once when it ends. The boards' logs give these events back if the
  process dies meanwhile.
- `commit_now(txn)`, for what a person is told is done (an arbiter action): it returns
  only once its rows are synced, and raises `JournalUnavailable` otherwise, keeping
  nothing of them. It writes any earlier transaction still waiting for the worker thread
  first (rows reach the file in sequence order), so an action can never ride on a board
  batch that is not synced yet: each action is its own transaction and waits for it.

A transaction holds only the rows added to it: nothing added elsewhere can join it.

Opening decides before it writes (`broadcast.journal.inspection`): a file that is not a
journal of this event, or a damaged one, is refused untouched. A writer then takes the
journal's lock (`broadcast.journal.lockfile`: `flock` on the journal file; a second
`serve` is refused, naming the first one's PID) and reads it through a read-only
connection; only its first write switches to a writing one (WAL mode, schema 1 migrated
to 2). So a journal that cannot be loaded (an event it cannot read) is left as it was,
-wal included.

The journal checkpoints itself (SQLite's automatic checkpoint is off): once the -wal
holds CHECKPOINT_BYTES, in a write of its own that is the only kind allowed to change
the journal's file. While the service runs, `check_file()` (cheap: a few stats, no lock)
and every write look at the files under us (`broadcast.journal.filewatch`):

- deleted, or replaced by another file (`gone`: `JournalGone`): actions are refused,
  board events go on into the open file, and `rescue()` writes a full copy through the
  open connection (SQLite's backup API);
- overwritten in place, or its -wal emptied in place (`gone`: `JournalTampered`):
  nothing is ever written into that file again (SQLite's descriptors on it are pointed
  at /dev/null, so that not even the checkpoint at the end can reach it), our -wal is
  moved aside so that the next start does not lay our pages over what is there now,
  actions are refused and board events are held; the lock record notes it for the next
  start, which says what the file holds;
- its -wal or -shm deleted: everything written is put into the journal file (a
  checkpoint through the open connection) and the connection is opened again, so that
  later writes go to a new -wal at its place (`mended` says so, for the desk). An
  action's write is looked at right after it too: it is acknowledged only once it is in
  a file a restart finds.

The `snapshots` table keeps folded states (see `broadcast/service/snapshot.py`), each checked
against the journal by the number and digest of the last event it folded.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from broadcast.journal.codec import CodecError, decode, encode
from broadcast.journal.errors import (
    JournalDamaged,
    JournalError,
    JournalInUse,
    JournalUnavailable,
    JournalWriteError,
)
from broadcast.journal.filewatch import (
    FileState,
    Finding,
    Marks,
    compare,
    detach,
    marks_of,
    now_of,
    sound_wal,
    state_of,
    what_it_holds,
)
from broadcast.journal.held import HeldDamaged, HeldRows
from broadcast.journal.inspection import (
    EVENT_COLUMNS,
    OUR_INDEXES,
    OUR_TABLES,
    OUR_TABLES_V1,
    READABLE_VERSIONS,
    SCHEMA_VERSION,
    SQLITE_MAGIC,
    inspect_journal,
    read_only_filesystem,
)
from broadcast.journal.lockfile import JournalLock, describe_found, found_against
from broadcast.journal.problems import (
    JournalGone,
    JournalProblem,
    JournalTampered,
    WriteFailure,
    describe_disk,
    duration,
    rescue_path,
)
from broadcast.phrases import Phrase, say

if TYPE_CHECKING:
    from broadcast.journal.kinds import JournalEvent

RETRY_FIRST = 0.5  # seconds before the first retry of a failed write; doubles to RETRY_MAX
RETRY_MAX = 10.0
REPORT_SECONDS = 60.0  # between two log lines summing up an outage (journal clock)
FLUSH_ROWS = 100_000  # held rows written per commit after an outage (about 0.4 s)
READ_PAGE = 5000  # events read back per query
CHECKPOINT_BYTES = 4 * 1024 * 1024  # -wal size that starts a checkpoint (SQLite's own: 1000 pages)
BUSY_MS = 5000  # how long a write waits for SQLite's locks (Python's default)
SNAPSHOTS_KEPT = 2
# Rows deleted per transaction by compaction, and the pause between two: a game's rows
# are spread over the file (every other board wrote between them), so each row is a page
# of its own; small transactions keep a board batch's commit from waiting long.
DELETE_CHUNK = 500
DELETE_PAUSE = 0.005

log = logging.getLogger(__name__)

Row = tuple[int, float, str, str]  # seq, t, kind, body

_CREATE_SNAPSHOTS = (
    "CREATE TABLE snapshots (seq INTEGER PRIMARY KEY, t REAL NOT NULL, format TEXT NOT NULL, "
    "fingerprint TEXT NOT NULL, digest TEXT NOT NULL, checksum TEXT NOT NULL, "
    "body BLOB NOT NULL)"
)


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
    """Append-only event store in one SQLite file (see the module docstring).

    `event`: the event this journal must belong to (another event's is refused before
    anything is written); `spill_dir`: where held events spill beyond memory."""

    def __init__(
        self,
        path: str | Path,
        *,
        now: Callable[[], float] = time.monotonic,
        readonly: bool = False,
        event: str | None = None,
        spill_dir: str | Path | None = None,
    ) -> None:
        self.path = str(path)
        self.now = now
        self.readonly = readonly
        self.failure: WriteFailure | None = None
        self.gone: JournalGone | JournalTampered | None = None
        self.found: str | None = None  # what the start found against the last writer's record
        self._notes: tuple[str, ...] = ()  # the same, as the lock file keeps it
        self.mended: list[Phrase] = []  # what was mended under the running service (for the desk)
        self.attention = False  # `check_file` saw something for `attend` to do off the loop
        self._held = HeldRows(spill_dir=spill_dir)
        self._held_written = 0  # held rows written since the outage began
        self._retry_at = 0.0
        self._retry_wait = RETRY_FIRST
        self._reported = 0.0  # when the outage was last summed up in the log
        # One user of the connection at a time: a commit may be running in a worker thread.
        self._lock = threading.Lock()
        self._writer = False  # the connection writes (WAL mode, the schema current)
        self._marks: Marks | None = None  # the files as our last write left them
        self._gen = 0  # odd while a write is under way (for looks that take no lock)
        self._frozen = False  # overwritten by another program: never written again
        self._checkpoint_at = CHECKPOINT_BYTES  # -wal size of the next checkpoint
        version = inspect_journal(Path(path), readonly=readonly, event=event)
        self._lockfile = None if readonly else JournalLock.take(Path(path))
        try:
            self._db = self._first_connection(version is None)
            self._next_seq = self.last_seq() + 1  # held and queued rows are numbered already
        except BaseException:
            if self._lockfile is not None:
                self._lockfile.release()
            raise
        self._open: Transaction | None = None
        self._queue: list[Transaction] = []  # closed, not written yet, in sequence order
        self.last_commit_seconds = 0.0  # how long the last commit took (fsync included)
        self.written_seq = self._next_seq - 1  # newest number durable in the file
        self._identity = _identity(self.path)
        if self._lockfile is not None and self._marks is None:
            # Not written yet: the file as it was opened (no -wal or -shm of ours yet), so
            # that an overwrite before the first write is noticed by it.
            main = state_of(self.path)
            self._marks = Marks(main, None, None) if main is not None else None
        if self._lockfile is not None:
            self._notes = found_against(self._lockfile.previous, self.written_seq)
            self.found = describe_found(self._notes)
            self._lockfile.write(self.written_seq, self._notes)

    def _first_connection(self, new: bool) -> sqlite3.Connection:
        try:
            if not self.readonly and new:
                db = self._connect_writer()
                self._writer = True
                self._db = db
                self._create_schema()
                self._marks = marks_of(self.path)
                return db
            if new:
                raise JournalError(f"{self.path}: an empty journal (nothing was written to it)")
            return _open_read_only(Path(self.path))
        except sqlite3.OperationalError as exc:
            raise JournalError(f"{self.path}: cannot open the journal ({exc})") from None
        except sqlite3.DatabaseError as exc:
            raise self._damaged(exc) from None

    def _connect_writer(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=FULL")
            # The journal checkpoints itself (`_checkpoint_locked`): then the file changes
            # only in writes that say so, and any other change is another program's.
            db.execute("PRAGMA wal_autocheckpoint=0")
            db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()  # the -wal exists
        except BaseException:
            db.close()
            raise
        return db

    def _writable_locked(self) -> None:
        """The first write switches from the read-only connection to a writing one."""
        if self._writer:
            return
        if self.readonly:
            raise sqlite3.OperationalError("the journal was opened for reading only")
        if _identity(self.path) != self._identity:
            raise sqlite3.OperationalError("the journal's file is not there any more")
        self._db.close()  # a read-only connection never checkpoints, never removes a -wal
        try:
            self._db = self._connect_writer()
            self._writer = True
            self._migrate()
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                self._db.close()
            self._writer = False
            self._db = _open_read_only(Path(self.path))
            raise
        self._marks = marks_of(self.path)

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
        if isinstance(self.gone, JournalGone) and not self.readonly:
            self.rescue()  # the copy gets what was written since it was first made
        with self._lock:
            # Overwritten: the descriptors lead to /dev/null, and closing may complain.
            with contextlib.suppress(sqlite3.Error):
                self._db.close()
            if self._lockfile is not None:
                self._lockfile.release()

    def set_meta(self, key: str, value: str) -> None:
        with self._lock:
            self._look_locked()
            if self._frozen:
                raise JournalUnavailable(f"not stored: {self.problem_text()}")
            try:
                with self._writing():
                    self._db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))
            except sqlite3.Error as exc:
                raise JournalError(f"{self.path}: cannot write the journal ({exc})") from None

    def meta(self, key: str) -> str | None:
        if self._frozen:
            return None
        row = self._fetch_one("SELECT value FROM meta WHERE key = ?", (key,))
        return None if row is None else str(row[0])

    @property
    def problem(self) -> JournalProblem | None:
        """Why an action cannot be made durable now (None: it can)."""
        return self.gone or self.failure

    def problem_text(self) -> str:
        problem = self.problem
        return problem.message if problem is not None else "the journal cannot be written"

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
        thread). While the journal cannot be written the rows are held (see `failure`);
        they go in first when it works again."""
        self.seal(txn)
        started = time.perf_counter()
        with self._lock:
            if txn.state != "queued":
                return  # an action wrote it already, or it is held
            upto = self._take_queue(txn)
            rows = [r for t in upto for r in t.rows]
            self._look_locked()
            if self._frozen:
                self._hold_locked(upto, rows, None, stopped=True)
            elif self._held and self.now() < self._retry_at:
                self._hold_locked(upto, rows, None)
            else:
                try:
                    done = self._write_all_locked(rows, limit=FLUSH_ROWS)
                except sqlite3.DatabaseError as exc:
                    self._hold_locked(upto, rows, exc)
                else:
                    if done:
                        self._written_locked(upto, rows)
                    else:  # catching up: behind what is still held, in order
                        self._hold_locked(upto, rows, None)
        self.last_commit_seconds = time.perf_counter() - started

    def commit_now(self, txn: Transaction) -> None:
        """Write and sync `txn` now (after everything numbered before it), or raise
        JournalUnavailable and keep none of its rows. Refused while the file is gone or
        overwritten; acknowledged only once its rows are in a file a restart finds."""
        self.seal(txn)
        with self._lock:
            if txn.state == "written":
                return
            upto = self._take_queue(txn)
            earlier = [t for t in upto if t is not txn]
            before = [r for t in earlier for r in t.rows]
            rows = [r for t in upto for r in t.rows]
            self._look_locked()
            problem: str | None = None
            if self.gone is not None:
                problem = self.gone.message
            else:
                try:
                    self._write_all_locked(rows)
                except sqlite3.DatabaseError as exc:
                    problem = str(exc)
                    self._hold_locked(earlier, before, exc)
                else:
                    if self._still_there_locked():
                        self._written_locked(upto, rows)
                        # Into the journal's file at once: a -wal deleted a moment later
                        # (a cleanup) cannot take an acknowledged action with it.
                        self._checkpoint_locked(force=True)
                        return
                    # Its rows are only in a -wal nobody can find: taken back (a clean
                    # stop would otherwise put them into the file), the earlier ones stay.
                    if not self._frozen:
                        with contextlib.suppress(sqlite3.Error), self._writing():
                            self._db.executemany(
                                "DELETE FROM events WHERE seq = ?", [(s,) for s in txn.seqs]
                            )
                    self._written_locked(earlier, before)
                    assert self.gone is not None
                    problem = self.gone.message
            pending = [t for t in earlier if t.state == "queued"]
            waiting = [r for t in pending for r in t.rows]
            if pending and isinstance(self.gone, JournalGone):
                # Board rows before it still go to the open file (the rescue copy has them).
                try:
                    self._write_all_locked(waiting)
                except sqlite3.DatabaseError as exc:
                    self._hold_locked(pending, waiting, exc)
                else:
                    self._written_locked(pending, waiting)
            elif pending:  # overwritten: never into that file
                self._hold_locked(pending, waiting, None, stopped=True)
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
        if self.failure is not None and not self._held:
            log.warning(
                "journal %s writable again after %s: %d held event(s) written",
                self.path,
                duration(self.now() - self.failure.since),
                self._held_written,
            )
            self.failure, self._held_written = None, 0
            self._retry_wait = RETRY_FIRST
        if rows:
            self.written_seq = max(self.written_seq, rows[-1][0])
        if self._lockfile is not None:
            self._lockfile.record(self.written_seq)

    def _hold_locked(
        self,
        txns: list[Transaction],
        rows: list[Row],
        exc: sqlite3.Error | None,
        *,
        stopped: bool = False,
    ) -> None:
        """Keep `rows` (of `txns`) until the journal takes them; the log says so when it
        starts and every REPORT_SECONDS, never once per batch."""
        for t in txns:
            t.state = "held"
        self._held.add(rows)
        now = self.now()
        if exc is not None:
            self._retry_at = now + self._retry_wait
            self._retry_wait = min(self._retry_wait * 2, RETRY_MAX)
        if self.failure is None:
            reason = str(exc) if exc is not None else "write failed"
            if stopped:
                reason = "it was overwritten by another program"
            self.failure = self._failure(reason, now, stopped=stopped)
            self._reported = now
            log.critical("%s", self.failure.message)  # once per outage, not per batch
            return
        catching_up = exc is None and not stopped and self.failure.catching_up
        reason = str(exc) if exc is not None else self.failure.reason
        self.failure = self._failure(
            reason, self.failure.since, stopped=stopped, catching_up=catching_up
        )
        if now - self._reported >= REPORT_SECONDS:
            self._reported = now
            log.warning(
                "journal %s %s after %s: %s",
                self.path,
                "is writing what was held"
                if catching_up
                else f"still cannot be written ({self.failure.reason})",
                duration(now - self.failure.since),
                self._held_words(),
            )

    def _failure(
        self, reason: str, since: float, *, stopped: bool = False, catching_up: bool = False
    ) -> WriteFailure:
        held = self._held
        spill = "" if held.spill_error else held.spill_dir
        lasts = ""
        elapsed = self.now() - since
        packed = held.packed_bytes + held.spilled_bytes
        if elapsed >= 10 and packed:
            rate = packed / elapsed  # bytes a second, packed
            room = max(held.memory - held.packed_bytes, 0)
            lasts = f"at this rate memory holds them for about {duration(room / rate)} more"
            lasts += f", then a spill file in {spill}" if spill else ""
        return WriteFailure(
            reason,
            self.path if stopped else describe_disk(self.path),
            since,
            len(held),
            held.memory_bytes,
            held.spilled_bytes,
            spill,
            lasts,
            stopped,
            catching_up,
        )

    def _held_words(self) -> str:
        held = self._held
        spilled = (
            f", {held.spilled_bytes / 1e6:.1f} MB in a spill file in {held.spill_dir}"
            if held.spilled_bytes
            else ""
        )
        return (
            f"{len(held)} event(s) held ({held.memory_bytes / 1e6:.1f} MB in memory{spilled}), "
            "none dropped"
        )

    def _write_all_locked(self, rows: list[Row], *, limit: int | None = None) -> bool:
        """What is held, oldest first (a chunk a transaction: each is durable on its own),
        then `rows`; True when all of it is written. With `limit`, at most that many held
        rows this time (the worker thread holds the journal meanwhile: an hour's outage of
        256 boards is 2 million rows, about 8 s to write): False when some are left, and
        `rows` are not written (they must follow the held ones)."""
        written = 0
        while self._held:
            if limit is not None and written >= limit:
                self._retry_at = self.now()  # (no back-off: the disk takes writes)
                return False
            try:
                chunk = self._held.oldest()
            except HeldDamaged as exc:  # a disk that changed the spill file: said, not hidden
                log.critical("journal %s: held events lost: %s", self.path, exc)
                self._held.drop_oldest()
                continue
            self._write_locked(chunk)
            self._held.drop_oldest()
            self._held_written += len(chunk)
            written += len(chunk)
            self.written_seq = max(self.written_seq, chunk[-1][0])
            if self.failure is not None and not self.failure.catching_up:
                # The disk takes writes again: what the desk says is what is left to do.
                self.failure = self._failure(
                    self.failure.reason, self.failure.since, catching_up=True
                )
        self._write_locked(rows)
        return True

    def _write_locked(self, rows: list[Row]) -> None:
        if not rows:
            return
        with self._writing():
            db = self._db
            db.execute("BEGIN IMMEDIATE")
            try:
                db.executemany("INSERT INTO events (seq, t, kind, body) VALUES (?, ?, ?, ?)", rows)
                self._commit()
            except BaseException:
                if db.in_transaction:  # a failed COMMIT may have rolled back already
                    db.execute("ROLLBACK")
                raise
        self._checkpoint_locked()

    def _commit(self) -> None:
        self._db.execute("COMMIT")

    def append(self, events: Iterable[JournalEvent], t: float) -> list[int]:
        """Append events in a transaction of their own, board-event style: their numbers
        once durable, or once held while the journal cannot be written."""
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
            if self._held and not self._frozen and self.now() >= self._retry_at:
                self._look_locked()
                if self._frozen:
                    return False
                try:
                    done = self._write_all_locked([], limit=FLUSH_ROWS)
                except sqlite3.DatabaseError as exc:
                    self._hold_locked([], [], exc)
                else:
                    if done:
                        self._written_locked([], [])
                    else:
                        self._hold_locked([], [], None)
            return not self._held

    @property
    def unwritten(self) -> int:
        """Rows numbered but not in the file yet: held, queued or in the open transaction."""
        open_rows = len(self._open.rows) if self._open is not None else 0
        return len(self._held) + sum(len(t.rows) for t in self._queue) + open_rows

    # -- reading -----------------------------------------------------------------------------

    def _damaged(self, exc: BaseException) -> JournalError:
        text = str(exc)
        if "locked" in text or "busy" in text:
            return JournalError(f"{self.path}: the journal is busy ({text}): try again")
        return JournalDamaged(
            f"{self.path}: the journal cannot be read ({text}): it is damaged; start from a "
            "copy made before the damage (your backup, or a .rescued- copy boardwire wrote "
            "beside it), or give another --db"
        )

    def _fetch_all(self, sql: str, args: tuple[Any, ...] = ()) -> list[Any]:
        with self._lock:
            try:
                return self._db.execute(sql, args).fetchall()
            except sqlite3.Error as exc:
                raise self._damaged(exc) from None

    def _fetch_one(self, sql: str, args: tuple[Any, ...] = ()) -> Any:
        with self._lock:
            try:
                return self._db.execute(sql, args).fetchone()
            except sqlite3.Error as exc:
                raise self._damaged(exc) from None

    def read(self, after: int = 0) -> Iterator[Entry]:
        """Every stored event after number `after`, in order. JournalDamaged (one line
        naming the row) when one cannot be read back."""
        while not self._frozen:
            # In pages: never hold the connection while the caller works.
            rows = self._fetch_all(
                "SELECT seq, t, kind, body FROM events WHERE seq > ? ORDER BY seq LIMIT ?",
                (after, READ_PAGE),
            )
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
        while not self._frozen:
            rows = self._fetch_all(
                f"SELECT seq, kind, body FROM events WHERE seq > ? AND seq <= ? "
                f"AND kind IN ({marks}) ORDER BY seq LIMIT ?",
                (after, upto, *kinds, READ_PAGE),
            )
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
                self._look_locked()
                if self.failure is not None or self.gone is not None:
                    return gone
                try:
                    with self._writing():
                        db = self._db
                        db.execute("BEGIN IMMEDIATE")
                        db.executemany("DELETE FROM events WHERE seq = ?", chunk)
                        db.execute("COMMIT")
                    self._checkpoint_locked()
                except sqlite3.DatabaseError as exc:
                    if self._db.in_transaction:
                        self._db.execute("ROLLBACK")
                    log.warning("journal %s: compaction stopped (%s)", self.path, exc)
                    return gone
            gone += len(chunk)
            time.sleep(DELETE_PAUSE)  # let the commits waiting for the lock in first
        return gone

    def last_t(self) -> float | None:
        """When the newest event was appended (service clock), or None for a new journal."""
        if self._frozen:
            return None
        row = self._fetch_one("SELECT t FROM events ORDER BY seq DESC LIMIT 1")
        return None if row is None else float(row[0])

    def last_seq(self) -> int:
        """The newest stored event's number (held or pending ones not counted)."""
        if self._frozen:
            return self.written_seq
        return int(self._fetch_one("SELECT COALESCE(MAX(seq), 0) FROM events")[0])

    def row_digest(self, seq: int) -> str | None:
        """A digest of the stored row `seq` (None if there is none): what a snapshot is
        checked against."""
        if self._frozen:
            return None
        row = self._fetch_one("SELECT seq, t, kind, body FROM events WHERE seq = ?", (seq,))
        return None if row is None else _row_digest(row)

    # -- snapshots ---------------------------------------------------------------------------

    def has_snapshots(self) -> bool:
        if self._frozen:
            return False
        return bool(
            self._fetch_one("SELECT 1 FROM sqlite_master WHERE type='table' AND name='snapshots'")
        )

    def snapshots(self) -> Iterator[StoredSnapshot]:
        """Stored snapshots, newest first (a schema-1 journal read only has none)."""
        if not self.has_snapshots():
            return
        seqs = [int(r[0]) for r in self._fetch_all("SELECT seq FROM snapshots ORDER BY seq DESC")]
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
        return {int(r[0]) for r in self._fetch_all("SELECT seq FROM snapshots")}

    def store_snapshot(self, snapshot: StoredSnapshot) -> bool:
        """Keep `snapshot` (and the newest SNAPSHOTS_KEPT in all); False when the journal
        cannot take it now (a snapshot is never needed: the events are all there)."""
        with self._lock:
            self._look_locked()
            if self.failure is not None or self.gone is not None:
                return False
            try:
                with self._writing():
                    db = self._db
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
                self._checkpoint_locked()
            except sqlite3.DatabaseError as exc:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                log.warning("journal %s: snapshot not stored (%s)", self.path, exc)
                return False
        return True

    # -- the file under us -------------------------------------------------------------------

    @contextlib.contextmanager
    def _writing(self, *, main: bool = False) -> Iterator[None]:
        """Around every write (the lock held): the files are marked as this write leaves
        them, and looks that take no lock skip the moment it is under way. Only a write
        that says so (`main`: a checkpoint) may change the journal's file itself."""
        self._gen += 1
        try:
            self._writable_locked()  # (switching to WAL may write the file's header)
            yield
        finally:
            self._remark(main)
            self._gen += 1

    def _remark(self, main: bool) -> None:
        """Take the files as this write left them, but never a change it cannot have
        made: then the old mark stays, and the next look says what happened."""
        old, new = self._marks, marks_of(self.path)
        if old is None or new is None:
            self._marks = new or old
            return
        if new.main.identity != old.main.identity:
            return
        body = new.main
        same = (body.size, body.mtime_ns) == (old.main.size, old.main.mtime_ns)
        if (not main and not same) or body.size < old.main.size:
            body = old.main  # written by another program meanwhile (ours never shrinks)
        wal = new.wal
        if old.wal is not None and (
            wal is None
            or wal.identity != old.wal.identity
            or not sound_wal(wal)
            or (not main and wal.size < old.wal.size)
        ):
            wal = old.wal  # deleted, replaced or emptied meanwhile
        shm = new.shm
        if old.shm is not None and (shm is None or shm.identity != old.shm.identity):
            shm = old.shm
        self._marks = Marks(body, wal, shm)

    def _checkpoint_locked(self, *, force: bool = False) -> None:
        """After a write: once the -wal holds CHECKPOINT_BYTES (or at once, `force`: after
        an action), its pages go into the journal's file and it is emptied, in a write of
        its own. It never waits for a
        reader: in the way of one, it copies what it can and tries again once the -wal
        has grown by as much again (as SQLite's own automatic checkpoint would)."""
        marks = self._marks
        if marks is None or marks.wal is None:
            return
        if marks.wal.size < self._checkpoint_at and not force:
            return
        self._look_locked()
        if self.gone is not None:
            return
        db = self._db
        try:
            with self._writing(main=True):
                db.execute("PRAGMA busy_timeout = 0")
                try:
                    busy = db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
                finally:
                    db.execute(f"PRAGMA busy_timeout = {BUSY_MS}")
        except sqlite3.Error as exc:  # the -wal keeps everything: tried again later
            log.warning("journal %s: checkpoint failed (%s)", self.path, exc)
            busy = 1
        wal = self._marks.wal if self._marks is not None else None
        self._checkpoint_at = (wal.size if busy and wal else 0) + CHECKPOINT_BYTES

    def _finding(self) -> Finding | None:
        """What changed under the journal since our last write (lock or not)."""
        marks = self._marks
        if marks is None:  # not writing yet: only the file's identity can tell
            now = _identity(self.path)
            if now == self._identity:
                return None
            return (
                Finding("deleted", "deleted")
                if now is None
                else Finding("replaced", "replaced by another file")
            )
        gen = self._gen
        if gen % 2:
            return None  # a write is under way: look again next time
        main, wal, shm = now_of(self.path)
        if self._gen != gen or self._marks is not marks:
            return None
        return compare(marks, main, wal, shm)

    def check_file(self) -> JournalGone | JournalTampered | None:
        """Is the open file still the one at the path, as we left it? Cheap (three stats,
        no lock: the event loop calls it about once a second). A deleted or replaced file
        sets `gone` (logged once); an overwritten one too, and what must be done about it
        or about a lost -wal is left to `attend()` (`attention`), off the loop."""
        if self.gone is not None or self.readonly:
            return self.gone
        finding = self._finding()
        if finding is None:
            return None
        if finding.kind in ("deleted", "replaced"):
            self._set_gone(JournalGone(self.path, finding.detail, os.getpid(), self._open_fds()))
        elif finding.kind in ("overwritten", "emptied"):
            self._set_gone(
                JournalTampered(self.path, finding.detail, os.getpid(), self.written_seq)
            )
            self.attention = True
        else:
            self.attention = True
        return self.gone

    def attend(self) -> None:
        """What `check_file` found, done with the lock (call it off the loop): an
        overwritten file left alone for good, a lost -wal mended, a copy of a deleted
        journal written."""
        self.attention = False
        with self._lock:
            self._look_locked()
            if isinstance(self.gone, JournalTampered):
                self._freeze_locked()
        if isinstance(self.gone, JournalGone) and self.gone.rescued is None:
            self.rescue()

    def _look_locked(self) -> None:
        """Before a write (the lock held): act on what changed under the file."""
        if self.readonly or self._frozen:
            return
        if isinstance(self.gone, JournalTampered):
            self._freeze_locked()
            return
        if self.gone is not None:
            return
        finding = self._finding()
        if finding is None:
            return
        if finding.kind in ("deleted", "replaced"):
            self._set_gone(JournalGone(self.path, finding.detail, os.getpid(), self._open_fds()))
        elif finding.kind in ("overwritten", "emptied"):
            self._set_gone(
                JournalTampered(self.path, finding.detail, os.getpid(), self.written_seq)
            )
            self._freeze_locked()
        else:
            self._mend_wal_locked(finding)

    def _still_there_locked(self) -> bool:
        """Right after an action's write: is the -wal it went to still the one a restart
        finds? If it was deleted meanwhile, it is mended (its content put into the file);
        False when that failed."""
        finding = self._finding()
        if finding is None or finding.kind in ("deleted", "replaced"):
            return True  # (written into the open file: a restart finds the rescue copy)
        if finding.kind == "wal":
            return self._mend_wal_locked(finding)
        self._set_gone(JournalTampered(self.path, finding.detail, os.getpid(), self.written_seq))
        self._freeze_locked()  # its rows went where no restart finds them
        return False

    def _set_gone(self, gone: JournalGone | JournalTampered) -> None:
        if self.gone is None:
            self.gone = gone
            if isinstance(gone, JournalGone):  # (an overwritten one: once it is frozen)
                log.critical("%s", gone.message)

    def _mend_wal_locked(self, finding: Finding) -> bool:
        """The -wal or -shm was deleted under us: SQLite would go on writing into the
        deleted -wal, which a crash loses. Everything is written into the journal file (a
        full checkpoint through the open connection), and the connection is opened again:
        later writes go to a new -wal where a restart finds it. False when that failed:
        then it is like a deleted journal (actions refused; everything reaches the file
        at the stop, when SQLite checkpoints)."""
        try:
            with self._writing(main=True):
                busy, frames, done = self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
            if busy or frames != done:
                raise sqlite3.OperationalError(
                    f"the checkpoint wrote {done} of {frames} pages (a reader in the way)"
                )
        except sqlite3.Error as exc:
            self._set_gone(
                JournalGone(
                    self.path,
                    f"left without its {finding.detail} by another program, and boardwire "
                    f"could not write them into the journal file ({exc})",
                    os.getpid(),
                    self._open_fds(),
                )
            )
            return False
        # Everything is in the journal file now; a new connection starts a new -wal.
        self._gen += 1
        try:
            self._db.close()
            self._writer = False
            try:
                self._db = self._connect_writer()
                self._writer = True
            except sqlite3.Error as exc:  # the next write tries again (held meanwhile)
                log.warning("journal %s: cannot open it again for writing (%s)", self.path, exc)
                self._db = _open_read_only(Path(self.path))
            new = marks_of(self.path)
            self._marks = new if new is not None else self._marks
        finally:
            self._gen += 1
        message = say(
            "the journal %(path)s: its %(detail)s by another program (a cleanup, backup or "
            "sync tool?) while boardwire runs. Nothing is lost: boardwire wrote everything "
            "into the journal file and started new ones. Find what deletes files in that "
            "folder and stop it",
            path=self.path,
            detail=finding.detail,
        )
        log.critical("%s", message)
        self.mended.append(message)
        return True

    def _freeze_locked(self) -> None:
        """Overwritten in place: never write into that file again, not even when SQLite
        closes (its checkpoint would lay our pages over the copied ones)."""
        if self._frozen or not isinstance(self.gone, JournalTampered):
            return
        self._frozen = True
        marks = self._marks
        if marks is not None:
            detach(marks.main.dev, marks.main.ino, keep=self._lock_fds())
        aside = self._wal_aside(marks)
        holds = what_it_holds(self.path)
        tampered = self.gone
        self.gone = JournalTampered(
            tampered.path,
            tampered.detail,
            tampered.pid,
            self.written_seq,
            holds,
            aside,
            tampered.saved,
        )
        if self._lockfile is not None:
            stamp = dt.datetime.now().strftime("%Y-%m-%d %H:%M:%S")
            note = (
                f"at {stamp}, while boardwire (PID {os.getpid()}) ran, the journal was "
                f"{tampered.detail}; boardwire had written events up to {self.written_seq}"
            )
            self._lockfile.write(self.written_seq, (*self._notes, note))
        log.critical("%s", self.gone.message)

    def _wal_aside(self, marks: Marks | None) -> str | None:
        """Our -wal renamed out of the way (our -shm removed): the next start finds the
        copied file alone, as it was put there."""
        wal, shm = self.path + "-wal", self.path + "-shm"
        aside = None
        if marks is None:
            return None

        def ours(now: FileState | None, was: FileState | None) -> bool:
            return now is not None and was is not None and now.identity == was.identity

        if ours(state_of(wal), marks.wal):
            stamp = dt.datetime.now().strftime("%Y%m%dT%H%M%S")
            target = f"{self.path}.overwritten-{stamp}-wal"
            try:
                os.rename(wal, target)
                aside = target
            except OSError as exc:
                log.critical("journal %s: its -wal cannot be moved aside (%s)", self.path, exc)
        if ours(state_of(shm), marks.shm):
            with contextlib.suppress(OSError):
                os.unlink(shm)  # ours; SQLite keeps its mapping of it
        return aside

    def _lock_fds(self) -> tuple[int, ...]:
        return (self._lockfile.fd,) if self._lockfile is not None else ()

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
        if not isinstance(self.gone, JournalGone):
            return None
        target = self.gone.rescued or rescue_path(self.path)
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

    def saved_state(self, files: tuple[str, ...]) -> None:
        """The service wrote the games and results it holds to `files` (an overwritten
        journal's alert names them)."""
        gone = self.gone
        if isinstance(gone, JournalTampered):
            self.gone = JournalTampered(
                gone.path, gone.detail, gone.pid, gone.written, gone.holds, gone.wal_aside, files
            )

    def forget_found(self) -> None:
        """The arbiter has seen what the start found: later starts no longer say it."""
        self.found, self._notes = None, ()
        if self._lockfile is not None:
            self._lockfile.write(self.written_seq, ())


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


def _nonempty(path: Path) -> bool:
    try:
        return path.stat().st_size > 0
    except OSError:
        return False


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


__all__ = [
    "DELETE_CHUNK",
    "DELETE_PAUSE",
    "EVENT_COLUMNS",
    "OUR_INDEXES",
    "OUR_TABLES",
    "OUR_TABLES_V1",
    "READABLE_VERSIONS",
    "READ_PAGE",
    "REPORT_SECONDS",
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
    "JournalInUse",
    "JournalProblem",
    "JournalTampered",
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
