"""The journal's snapshots table: folded states kept beside the events (see
`broadcast/service/snapshot.py`), each checked against the journal by the number and
digest of the last event it folded. A snapshot is never needed (the events are all
there): one the journal cannot take now is not stored, an unreadable one is skipped.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass

from broadcast.journal.file_guard import GuardedFile

SNAPSHOTS_KEPT = 2

log = logging.getLogger(__name__)


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


class SnapshotTable(GuardedFile):
    """The snapshots table of the journal's file (`Journal` is one)."""

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


__all__ = ["SNAPSHOTS_KEPT", "SnapshotTable", "StoredSnapshot"]
