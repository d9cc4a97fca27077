"""The journal's file under the running service: opened for writing at its first write,
checkpointed by the journal itself, watched, mended, frozen or rescued.

`GuardedFile` is the part of `broadcast.journal.store.Journal` that looks after the file;
the journal's write path, reads and snapshots are in the store.

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
"""

from __future__ import annotations

import contextlib
import datetime as dt
import logging
import os
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from broadcast.journal.errors import JournalDamaged, JournalError
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
from broadcast.journal.lockfile import JournalLock
from broadcast.journal.opening import connect_writer, file_identity, migrate, open_read_only
from broadcast.journal.problems import JournalGone, JournalTampered, WriteFailure, rescue_path
from broadcast.phrases import Phrase, say

CHECKPOINT_BYTES = 4 * 1024 * 1024  # -wal size that starts a checkpoint (SQLite's own: 1000 pages)
BUSY_MS = 5000  # how long a write waits for SQLite's locks (Python's default)

log = logging.getLogger(__name__)


class GuardedFile:
    """The journal's file and connection, as the journal (`Journal`, which sets all of
    this up when it opens) writes it: every write goes through `_writing()`, and
    `check_file()`, `attend()` and `rescue()` act on what other programs did to it."""

    path: str
    readonly: bool
    gone: JournalGone | JournalTampered | None
    failure: WriteFailure | None  # why the disk does not take writes now (rows held)
    found: str | None  # what the start found against the last writer's record
    mended: list[Phrase]  # what was mended under the running service (for the desk)
    attention: bool  # `check_file` saw something for `attend` to do off the loop
    written_seq: int  # newest number durable in the file
    _notes: tuple[str, ...]  # `found`, as the lock file keeps it
    _lock: threading.Lock  # one user of the connection at a time
    _db: sqlite3.Connection
    _lockfile: JournalLock | None
    _writer: bool  # the connection writes (WAL mode, the schema current)
    _marks: Marks | None  # the files as our last write left them
    _gen: int  # odd while a write is under way (for looks that take no lock)
    _frozen: bool  # overwritten by another program: never written again
    _checkpoint_at: int  # -wal size of the next checkpoint
    _identity: tuple[int, int] | None  # the file as it was opened

    # -- the connection --------------------------------------------------------------------

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

    def _writable_locked(self) -> None:
        """The first write switches from the read-only connection to a writing one."""
        if self._writer:
            return
        if self.readonly:
            raise sqlite3.OperationalError("the journal was opened for reading only")
        if file_identity(self.path) != self._identity:
            raise sqlite3.OperationalError("the journal's file is not there any more")
        self._db.close()  # a read-only connection never checkpoints, never removes a -wal
        try:
            self._db = connect_writer(self.path)
            self._writer = True
            migrate(self._db, self.path)
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                self._db.close()
            self._writer = False
            self._db = open_read_only(Path(self.path))
            raise
        self._marks = marks_of(self.path)

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
            now = file_identity(self.path)
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
                self._db = connect_writer(self.path)
                self._writer = True
            except sqlite3.Error as exc:  # the next write tries again (held meanwhile)
                log.warning("journal %s: cannot open it again for writing (%s)", self.path, exc)
                self._db = open_read_only(Path(self.path))
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


__all__ = ["BUSY_MS", "CHECKPOINT_BYTES", "GuardedFile"]
