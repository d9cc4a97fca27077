"""A capture station's durable outbox: every board event, numbered, kept until sent.

One SQLite file (WAL, synchronous=FULL) per station. Made once, it gets an incarnation
(letters and digits) that numbers its events from 1: a new file is a new incarnation, so
the central serve never confuses event 7 of yesterday's file with today's. Events are
appended before anything sends them (`append` stages them, `commit` makes the staged
ones durable in one transaction: the station commits as soon as the loop is free, so a
burst of a bus line costs one fsync); the sender reads the unsent ones back in order
(`unsent`), and marks them sent (`mark_sent`); after a kill -9 the file still holds
every committed event and where sending stopped.

The outbox also keeps each board's memory (`BoardMemory`: last position, recent square
changes, last heard; where the board was found: port and bus address), updated in the
same transaction as the events that change it, so that sent rows can be pruned
(`prune`) and a restarted station still gives its drivers `KnownBoard`s: their first
connection is a reconnect that reads the board's log for what was played meanwhile.

A file that cannot be written (disk full, read-only, I/O error) raises
`OutboxUnwritable` at `commit` and keeps the events staged, in order, with their numbers:
the next `commit` writes them all. Marking events sent and pruning never fail on it (what
was sent is kept in memory and written with the next mark that succeeds: at worst a
restart sends some events twice, which the central serve skips).

One process at a time: `Outbox.open` takes an exclusive lock on a side file and refuses
(`OutboxBusy`) a second opener.
"""

from __future__ import annotations

import fcntl
import sqlite3
import time
import uuid
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO

from boards.driver_events import BoardConnected, DriverEvent, LogRecovered, PositionSeen
from boards.recovery import KnownBoard
from broadcast.journal import codec
from broadcast.service.event_state import BoardMemory, remember
from clocks.errors import BoardwireError

__all__ = ["Outbox", "OutboxBusy", "OutboxError", "OutboxUnwritable", "Pending"]

codec.register(BoardMemory)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS events (
    seq INTEGER PRIMARY KEY,
    port TEXT NOT NULL,
    kind TEXT NOT NULL,
    data TEXT NOT NULL,
    sent REAL
);
CREATE TABLE IF NOT EXISTS boards (
    name TEXT PRIMARY KEY,
    port TEXT,
    address INTEGER,
    memory TEXT
);
"""


class OutboxError(BoardwireError, RuntimeError):
    """The outbox file cannot be used (say which file and what to do)."""


class OutboxBusy(OutboxError):
    """Another process has this outbox open."""


class OutboxUnwritable(OutboxError):
    """The outbox's file cannot be written now (disk full, read-only): the staged events
    are kept, in order, for the next `commit`."""


@dataclass(frozen=True, slots=True)
class Pending:
    """A committed event not yet sent: its number, the station's port, the event."""

    seq: int
    port: str
    event: DriverEvent


@dataclass
class _Place:
    port: str | None = None
    address: int | None = None
    memory: BoardMemory | None = None


class Outbox:
    """The durable outbox of one station (see the module docstring). Not thread-safe:
    one event loop uses it."""

    def __init__(self, path: Path, db: sqlite3.Connection, lock: IO[bytes]) -> None:
        self.path = path
        self._db = db
        self._lock = lock
        meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
        self.incarnation: str = meta["incarnation"]
        self.last_seq = int(meta.get("seq", "0"))  # the last number given (staged or not)
        self.durable_seq = self.last_seq  # the last number committed
        self.sent_seq = int(meta.get("sent", "0"))  # every event up to it is sent
        self._sent_written = self.sent_seq  # ...and what the file says of it
        self._staged: list[tuple[int, str, DriverEvent]] = []
        self._places: dict[str, _Place] = {}
        for name, port, address, memory in db.execute(
            "SELECT name, port, address, memory FROM boards"
        ):
            self._places[name] = _Place(
                port,
                address,
                codec.decode("BoardMemory", memory) if memory is not None else None,
            )

    @classmethod
    def open(cls, path: Path) -> Outbox:
        """The outbox at `path`, made (with a new incarnation) if there is none."""
        try:
            lock = open(f"{path}.lock", "ab")  # noqa: SIM115 (held for the outbox's life)
        except OSError as exc:
            raise OutboxError(
                f"the outbox {path} cannot be opened ({exc.strerror}): check the folder "
                "exists and can be written, or name another file with --outbox"
            ) from None
        try:
            fcntl.flock(lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            lock.close()
            raise OutboxBusy(
                f"the outbox {path} is in use by another process: is this station already "
                "running on this computer? Stop it first, or give this one its own --outbox"
            ) from None
        try:
            db = sqlite3.connect(path, isolation_level=None)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=FULL")
            db.executescript(_SCHEMA)
            db.execute(
                "INSERT OR IGNORE INTO meta VALUES ('incarnation', ?)", (uuid.uuid4().hex[:16],)
            )
        except sqlite3.Error as exc:
            lock.close()
            raise OutboxError(
                f"the outbox {path} cannot be used ({exc}): move it away to start a new one "
                "(the central serve treats it as a new incarnation)"
            ) from None
        return cls(path, db, lock)

    # -- writing ------------------------------------------------------------------------------

    def append(self, port: str, event: DriverEvent) -> int:
        """Stage `event`, read on the station's port `port`; its number. Durable at the
        next `commit`."""
        self.last_seq += 1
        self._staged.append((self.last_seq, port, event))
        return self.last_seq

    @property
    def staged(self) -> int:
        return len(self._staged)

    def commit(self) -> int:
        """Make the staged events (and the boards' memory they change) durable, in one
        transaction; the last committed number."""
        if not self._staged:
            return self.durable_seq
        staged = self._staged
        db = self._db
        rows = []
        changed: dict[str, _Place] = {}  # the boards' memory after these events
        for seq, port, event in staged:
            kind, data = codec.encode(event)
            rows.append((seq, port, kind, data))
            self._remember(changed, port, event)
        sent = self._sent_written < self.sent_seq  # a mark that could not be written
        try:
            db.execute("BEGIN IMMEDIATE")
            db.executemany("INSERT INTO events (seq, port, kind, data) VALUES (?, ?, ?, ?)", rows)
            db.executemany(
                "INSERT OR REPLACE INTO boards VALUES (?, ?, ?, ?)", _board_rows(changed)
            )
            db.execute("INSERT OR REPLACE INTO meta VALUES ('seq', ?)", (str(staged[-1][0]),))
            db.execute("COMMIT")
        except (sqlite3.Error, OSError) as exc:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise OutboxUnwritable(f"the outbox {self.path} cannot be written ({exc})") from exc
        self._staged = self._staged[len(staged) :]
        self._places.update(changed)
        self.durable_seq = staged[-1][0]
        if sent:
            self.mark_sent(self.sent_seq, time.time())
        return self.durable_seq

    def _remember(self, changed: dict[str, _Place], port: str, event: DriverEvent) -> None:
        if not isinstance(event, BoardConnected | PositionSeen | LogRecovered):
            return
        place = changed.get(event.board)
        if place is None:
            now = self._places.get(event.board)
            place = replace(now) if now is not None else _Place(port)
            changed[event.board] = place
        if isinstance(event, BoardConnected):
            place.port, place.address = port, event.info.bus_address
        else:
            place.memory = remember(place.memory, event)

    def mark_sent(self, upto: int, at: float) -> None:
        """Every event up to number `upto` has reached Redis (at wall-clock second `at`)."""
        upto = min(upto, self.durable_seq)
        if upto <= self._sent_written:
            return
        self.sent_seq = max(self.sent_seq, upto)
        db = self._db
        try:
            db.execute("BEGIN IMMEDIATE")
            db.execute(
                "UPDATE events SET sent = ? WHERE seq > ? AND seq <= ?",
                (at, self._sent_written, upto),
            )
            db.execute("INSERT OR REPLACE INTO meta VALUES ('sent', ?)", (str(upto),))
            db.execute("COMMIT")
        except (sqlite3.Error, OSError):
            # Not written (the disk is full): kept in memory, written with the next mark.
            if db.in_transaction:
                db.execute("ROLLBACK")
            return
        self._sent_written = upto

    def prune(self, sent_before: float) -> int:
        """Forget the events sent before wall-clock second `sent_before` (the boards'
        memory stays); how many."""
        try:
            cursor = self._db.execute(
                "DELETE FROM events WHERE sent IS NOT NULL AND sent < ?", (sent_before,)
            )
        except (sqlite3.Error, OSError):
            return 0  # the disk is full or read-only: pruned another time
        return cursor.rowcount

    # -- reading ------------------------------------------------------------------------------

    @property
    def waiting(self) -> int:
        """Events numbered and not yet sent."""
        return self.last_seq - self.sent_seq

    def unsent(self, limit: int = 500) -> list[Pending]:
        """The committed events not sent yet, in order, at most `limit`."""
        rows = self._db.execute(
            "SELECT seq, port, kind, data FROM events WHERE seq > ? ORDER BY seq LIMIT ?",
            (self.sent_seq, limit),
        ).fetchall()
        return [Pending(seq, port, codec.decode(kind, data)) for seq, port, kind, data in rows]

    def events(self) -> list[Pending]:
        """Every event the file still holds, in order (sent or not)."""
        rows = self._db.execute("SELECT seq, port, kind, data FROM events ORDER BY seq")
        return [Pending(seq, port, codec.decode(kind, data)) for seq, port, kind, data in rows]

    def known(self, port: str, address: int | None = None) -> list[KnownBoard]:
        """What the outbox remembers of the boards found on `port` (at bus `address` when
        given): for the drivers' `known`, so a restart reads the boards' logs."""
        return [
            KnownBoard(name, p.memory.position, p.memory.recent, p.memory.last_heard)
            for name, p in sorted(self._places.items())
            if p.port == port and p.memory is not None and (address is None or p.address == address)
        ]

    def close(self) -> None:
        """Commit what is staged and let the file go (OutboxUnwritable: the staged events
        could not be written; the file holds what was committed before)."""
        try:
            self.commit()
        except OutboxUnwritable:
            pass  # the station said so; the boards' logs hold what was not written
        finally:
            self._db.close()
            self._lock.close()


def _board_rows(
    places: dict[str, _Place],
) -> list[tuple[str, str | None, int | None, str | None]]:
    rows = []
    for name, p in places.items():
        memory = codec.encode(p.memory)[1] if p.memory is not None else None
        rows.append((name, p.port, p.address, memory))
    return rows
