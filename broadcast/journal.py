"""The journal: every event, in order, durable before anything acts on it.

SQLite in write-ahead-log mode with synchronous=FULL: a committed append survives a
kill -9 or a power cut. The service batches its appends per loop turn with
`transaction()` (one transaction, one fsync, however many boards spoke). State is rebuilt
at start by reading the events back.
"""

from __future__ import annotations

import contextlib
import sqlite3
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from broadcast.codec import decode, encode

SCHEMA_VERSION = 1


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
        self._db.close()

    def set_meta(self, key: str, value: str) -> None:
        self._db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    def meta(self, key: str) -> str | None:
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
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        self._open_tx = True
        try:
            yield
        except BaseException:
            self._open_tx = False
            db.execute("ROLLBACK")
            raise
        self._open_tx = False
        started = time.perf_counter()
        try:
            self._commit()
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                db.execute("ROLLBACK")
            raise
        self.last_commit_seconds = time.perf_counter() - started

    def _commit(self) -> None:
        self._db.execute("COMMIT")

    def read(self, after: int = 0) -> Iterator[Entry]:
        cursor = self._db.execute(
            "SELECT seq, t, kind, body FROM events WHERE seq > ? ORDER BY seq", (after,)
        )
        for seq, t, kind, body in cursor:
            yield Entry(seq, t, decode(kind, body))

    def last_t(self) -> float | None:
        """When the newest event was appended (service clock), or None for a new journal."""
        row = self._db.execute("SELECT t FROM events ORDER BY seq DESC LIMIT 1").fetchone()
        return None if row is None else float(row[0])

    def last_seq(self) -> int:
        return int(self._db.execute("SELECT COALESCE(MAX(seq), 0) FROM events").fetchone()[0])
