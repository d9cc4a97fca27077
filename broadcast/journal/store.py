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

The journal checkpoints itself, and it and every write look at the files under us: a
deleted, replaced or overwritten journal, or a lost -wal, is acted on by the part that
looks after the file (`broadcast.journal.file_guard`, where `check_file()`, `attend()`
and `rescue()` are described).

The `snapshots` table keeps folded states (`broadcast.journal.snapshot_table`).
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from broadcast.journal.codec import CodecError, decode, encode
from broadcast.journal.errors import JournalDamaged, JournalError, JournalUnavailable
from broadcast.journal.file_guard import CHECKPOINT_BYTES
from broadcast.journal.filewatch import Marks, marks_of, state_of
from broadcast.journal.held import HeldDamaged, HeldRows
from broadcast.journal.inspection import inspect_journal
from broadcast.journal.lockfile import JournalLock, describe_found, found_against
from broadcast.journal.opening import connect_writer, create_schema, file_identity, open_read_only
from broadcast.journal.problems import (
    JournalGone,
    JournalProblem,
    JournalTampered,
    WriteFailure,
    describe_disk,
    duration,
)
from broadcast.journal.snapshot_table import SnapshotTable
from broadcast.phrases import Phrase

if TYPE_CHECKING:
    from broadcast.journal.kinds import JournalEvent

RETRY_FIRST = 0.5  # seconds before the first retry of a failed write; doubles to RETRY_MAX
RETRY_MAX = 10.0
REPORT_SECONDS = 60.0  # between two log lines summing up an outage (journal clock)
FLUSH_ROWS = 100_000  # held rows written per commit after an outage (about 0.4 s)
READ_PAGE = 5000  # events read back per query
# Rows deleted per transaction by compaction, and the pause between two: a game's rows
# are spread over the file (every other board wrote between them), so each row is a page
# of its own; small transactions keep a board batch's commit from waiting long.
DELETE_CHUNK = 500
DELETE_PAUSE = 0.005

log = logging.getLogger(__name__)

Row = tuple[int, float, str, str]  # seq, t, kind, body


@dataclass(frozen=True, slots=True)
class Entry:
    """One stored event: its number, when it was appended (service clock), the event."""

    seq: int
    t: float
    event: JournalEvent


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


class Journal(SnapshotTable):
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
        self._identity = file_identity(self.path)
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
                db = connect_writer(self.path)
                self._writer = True
                self._db = db
                create_schema(db)
                self._marks = marks_of(self.path)
                return db
            if new:
                raise JournalError(f"{self.path}: an empty journal (nothing was written to it)")
            return open_read_only(Path(self.path))
        except sqlite3.OperationalError as exc:
            raise JournalError(f"{self.path}: cannot open the journal ({exc})") from None
        except sqlite3.DatabaseError as exc:
            raise self._damaged(exc) from None

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


def _row_digest(row: tuple[object, ...]) -> str:
    seq, t, kind, body = row
    text = f"{seq}\x1f{float(t)!r}\x1f{kind}\x1f{body}"  # type: ignore[arg-type]
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


__all__ = [
    "DELETE_CHUNK",
    "DELETE_PAUSE",
    "READ_PAGE",
    "REPORT_SECONDS",
    "RETRY_FIRST",
    "RETRY_MAX",
    "Entry",
    "Journal",
    "JournalDamaged",
    "JournalError",
    "JournalGone",
    "JournalTampered",
    "JournalUnavailable",
    "Row",
    "Transaction",
]
