"""Opening the journal's connections, once `broadcast.journal.inspection` has said the file
is ours: the read-only connection a journal starts with, the writing one its first write
switches to, and the schema that one creates (a new journal) or migrates (1 -> 2).

The writing connection is in WAL mode with synchronous=FULL and SQLite's automatic
checkpoint off: the journal checkpoints itself (`broadcast.journal.file_guard`), so the
journal's file changes only in writes that say so, and any other change is another
program's.
"""

from __future__ import annotations

import logging
import os
import sqlite3
from pathlib import Path

from broadcast.journal.errors import JournalError
from broadcast.journal.inspection import SCHEMA_VERSION

log = logging.getLogger(__name__)

_CREATE_SNAPSHOTS = (
    "CREATE TABLE snapshots (seq INTEGER PRIMARY KEY, t REAL NOT NULL, format TEXT NOT NULL, "
    "fingerprint TEXT NOT NULL, digest TEXT NOT NULL, checksum TEXT NOT NULL, "
    "body BLOB NOT NULL)"
)


def connect_writer(path: str) -> sqlite3.Connection:
    """A writing connection to the journal at `path` (its -wal exists once this returns)."""
    db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
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


def open_read_only(path: Path) -> sqlite3.Connection:
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


def create_schema(db: sqlite3.Connection) -> None:
    """A new journal's tables, at the current schema version."""
    db.execute("BEGIN IMMEDIATE")
    db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    db.execute(
        "CREATE TABLE events (seq INTEGER PRIMARY KEY, t REAL NOT NULL, kind TEXT NOT NULL, "
        "body TEXT NOT NULL)"
    )
    db.execute(_CREATE_SNAPSHOTS)
    db.execute("INSERT INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
    db.execute("COMMIT")


def migrate(db: sqlite3.Connection, path: str) -> None:
    """Schema 1 -> 2: the snapshots table (the events are as they were)."""
    db.execute("BEGIN IMMEDIATE")
    try:
        row = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        if row is not None and str(row[0]) == "1":
            db.execute(_CREATE_SNAPSHOTS.replace("TABLE", "TABLE IF NOT EXISTS", 1))
            db.execute(
                "UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(SCHEMA_VERSION),)
            )
            log.info("journal %s: schema 1 -> %d (snapshots table added)", path, 2)
        elif row is None or str(row[0]) != str(SCHEMA_VERSION):
            raise JournalError(
                f"{path} has journal schema {row[0] if row else '?'}, this boardwire "
                f"reads {SCHEMA_VERSION}; use the matching boardwire version or start a new "
                "journal with --db"
            )
        db.execute("COMMIT")
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise


def file_identity(path: str) -> tuple[int, int] | None:
    """The file at `path` as (device, inode), or None when there is none."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    return (st.st_dev, st.st_ino)


def _nonempty(path: Path) -> bool:
    try:
        return path.stat().st_size > 0
    except OSError:
        return False


__all__ = ["connect_writer", "create_schema", "file_identity", "migrate", "open_read_only"]
