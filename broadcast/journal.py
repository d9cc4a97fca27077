"""The journal: every event, in order, durable before anything acts on it.

SQLite in write-ahead-log mode with synchronous=FULL: a committed append survives a
kill -9 or a power cut. The service batches its appends (`begin()` ... `commit()`, or
`transaction()`): one transaction, one fsync, however many boards spoke; its commit may
run in a worker thread, so the connection is shared under a lock. State is rebuilt at
start by reading the events back.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from broadcast.codec import decode, encode

SCHEMA_VERSION = 1
READ_PAGE = 5000  # events read back per query


class JournalError(Exception):
    """The journal cannot be used: wrong schema version, unreadable file, foreign database."""


@dataclass(frozen=True, slots=True)
class Entry:
    seq: int
    t: float
    event: Any


class Journal:
    """Append-only event store in one SQLite file."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        try:
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._init_schema()
        except sqlite3.DatabaseError as exc:
            raise JournalError(f"{self.path}: not a boardwire journal ({exc})") from exc
        self._open_tx = False
        # One user of the connection at a time: a commit may be running in a worker thread.
        self._lock = threading.Lock()
        self.last_commit_seconds = 0.0  # how long the last commit took (fsync included)

    def _init_schema(self) -> None:
        db = self._db
        db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        row = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        if row is None:
            tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            if tables - {"meta"}:
                raise JournalError(f"{self.path} holds tables but no boardwire schema version")
            db.execute("BEGIN")
            db.execute(
                "CREATE TABLE events (seq INTEGER PRIMARY KEY, t REAL NOT NULL, kind TEXT NOT NULL, body TEXT NOT NULL)"
            )
            db.execute("INSERT INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
            db.execute("COMMIT")
        elif int(row[0]) != SCHEMA_VERSION:
            raise JournalError(
                f"{self.path} has journal schema {row[0]}, this boardwire reads {SCHEMA_VERSION}; "
                "use the matching boardwire version or start a new journal with --db"
            )

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
        """Append events in one transaction; returns their sequence numbers once durable.
        Inside `transaction()` they are durable when that transaction ends."""
        rows = [(t, *encode(e)) for e in events]
        if not rows:
            return []
        if self._open_tx:
            return self._insert(rows)
        with self.transaction():
            return self._insert(rows)

    def _insert(self, rows: list[tuple[Any, ...]]) -> list[int]:
        db = self._db
        first = db.execute("SELECT COALESCE(MAX(seq), 0) FROM events").fetchone()[0] + 1
        db.executemany(
            "INSERT INTO events (seq, t, kind, body) VALUES (?, ?, ?, ?)",
            [(first + i, *row) for i, row in enumerate(rows)],
        )
        return list(range(first, first + len(rows)))

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """Appends inside share one transaction, durable together when it ends (one fsync);
        an exception rolls them all back. Nested use joins the outer transaction."""
        if self._open_tx:
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
        """Open a transaction for the appends that follow; end it with `commit()` (which may
        run in another thread: the service syncs off its event loop) or `rollback()`.
        Until then, other users of the journal wait."""
        self._lock.acquire()
        try:
            self._db.execute("BEGIN IMMEDIATE")
        except BaseException:
            self._lock.release()
            raise
        self._open_tx = True

    def commit(self) -> None:
        """Make the open transaction durable (the fsync is here)."""
        assert self._open_tx, "no open transaction"
        started = time.perf_counter()
        try:
            self._commit()
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                self._db.execute("ROLLBACK")
            raise
        finally:
            self._open_tx = False
            self._lock.release()
        self.last_commit_seconds = time.perf_counter() - started

    def rollback(self) -> None:
        assert self._open_tx, "no open transaction"
        try:
            self._db.execute("ROLLBACK")
        finally:
            self._open_tx = False
            self._lock.release()

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
        with self._lock:
            return int(self._db.execute("SELECT COALESCE(MAX(seq), 0) FROM events").fetchone()[0])
