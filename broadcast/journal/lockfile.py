"""One writer per journal: an OS lock on the journal file while a boardwire writes it,
and `NAME.lock` beside it, the record of what that boardwire wrote.

The lock is `flock` on the journal file itself: it belongs to the open file, so it ends
with the process however the process ends (a kill -9 or a power cut included), there is
never a stale lock to remove by hand, and no cleanup of the folder can take it away. A
second writer is told the first one's PID (from /proc/locks, else from the record).

The record stays beside the journal between runs; a person can read it too:

    pid 4242
    written 0000000000013062
    note the journal was overwritten in place ... (0 or more lines)

`written` is the newest event number the writer made durable, rewritten in place (a
fixed width, no sync: it may lag, never lead) after each write. At the next start it says
whether the journal is older than what the last boardwire wrote into it (a backup copied
over it, a restore): the start says so instead of serving an older state without a word.
The notes carry what a run found (the journal overwritten under it) to the next starts,
until the arbiter acknowledges them on the desk.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import threading
from dataclasses import dataclass
from pathlib import Path

from broadcast.journal.errors import JournalError, JournalInUse

SUFFIX = ".lock"
WRITTEN_WIDTH = 16  # digits of the `written` field, rewritten in place


@dataclass(frozen=True, slots=True)
class LockRecord:
    """What the lock file said when it was taken: the last writer's PID, the newest event
    it had made durable, and the notes carried from run to run."""

    pid: int | None
    written: int | None
    notes: tuple[str, ...]


def lock_path(journal: Path) -> Path:
    return journal.with_name(journal.name + SUFFIX)


def parse_record(text: str) -> LockRecord:
    """The record in a lock file's text (total: anything unreadable is left out)."""
    pid = written = None
    notes: list[str] = []
    for line in text.splitlines():
        key, _, value = line.partition(" ")
        if key == "pid" and value.strip().isdigit():
            pid = int(value)
        elif key == "written" and value.strip().isdigit():
            written = int(value)
        elif key == "note" and value.strip():
            notes.append(value.strip())
    return LockRecord(pid, written, tuple(notes))


OLDER = "older:"  # the note of a start that found the journal older than its record


def found_against(previous: LockRecord, last: int) -> tuple[str, ...]:
    """What a start has to say about a journal whose newest event is `last`, against the
    record its last writer left (nothing: all is well), as notes for the lock file: the
    notes carried from earlier starts (until the arbiter has seen them) come with it."""
    notes = [n for n in previous.notes if not n.startswith(OLDER)]
    older = [n for n in previous.notes if n.startswith(OLDER)]
    if previous.written is not None and previous.written > last:
        who = f" (PID {previous.pid})" if previous.pid is not None else ""
        if last == 0:
            what = (
                f"a new journal was started where boardwire{who} had written events up to "
                f"{previous.written}: if that journal was deleted or moved by mistake, stop "
                "boardwire and put it back; if the event starts over on purpose, acknowledge "
                "this"
            )
        else:
            what = (
                f"the journal holds events up to {last}, but boardwire{who} had written up "
                f"to {previous.written} into it: it is an older copy (a backup put back?), and "
                f"the {previous.written - last} event(s) after {last} are not in it. Check the "
                "games and results since then against the score sheets, and enter what is "
                "missing"
            )
        older = [f"{OLDER} {what}"]
    return (*older, *notes)


def describe_found(notes: tuple[str, ...]) -> str | None:
    """The notes in words for the log and the desk (None: none)."""
    return "; ".join(n.removeprefix(OLDER).strip() for n in notes) or None


class JournalLock:
    """The lock on one journal (`take`) and its record, held until `release` (or until
    the process ends)."""

    def __init__(self, journal: Path, fd: int, key: str, previous: LockRecord) -> None:
        self.journal = journal
        self.path = lock_path(journal)  # the record
        self.previous = previous
        self.fd = fd  # holds the flock on the journal itself
        self._key = key
        self._record = -1  # the record's descriptor
        self._notes: tuple[str, ...] = ()
        self._written_at = 0  # where the digits of `written` start in the record
        self._written = -1

    @classmethod
    def take(cls, journal: Path) -> JournalLock:
        """Lock `journal` for this process; JournalInUse (naming the holder's PID) when
        another process holds it. The same process may take it again (a test restarting
        a service in place): it shares the one lock, released when the last of them is."""
        key = os.path.realpath(journal)
        with _TAKEN_LOCK:
            taken = _TAKEN.get(key)
            if taken is not None:
                taken[1] += 1
                fd = taken[0]
            else:
                fd = _lock(journal)
                _TAKEN[key] = [fd, 1]
        return cls(journal, fd, key, parse_record(_read_file(lock_path(journal))))

    def write(self, written: int, notes: tuple[str, ...] = ()) -> None:
        """Rewrite the record: this process's PID, `written`, and `notes`."""
        self._notes = notes
        head = f"pid {os.getpid()}\nwritten "
        body = head + f"{written:0{WRITTEN_WIDTH}d}\n" + "".join(f"note {n}\n" for n in notes)
        with contextlib.suppress(OSError):  # a hint for the next start, never a reason to stop
            if self._record < 0:
                self._record = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
            os.ftruncate(self._record, 0)
            os.pwrite(self._record, body.encode("utf-8", "replace"), 0)
            self._written_at = len(head.encode())
            self._written = written

    def record(self, written: int) -> None:
        """`written` in place (cheap: a stat and one small write, no sync); the record
        written again whole if a cleanup deleted it."""
        if written == self._written or self._record < 0:
            return
        try:
            here = os.stat(self.path)
            mine = os.fstat(self._record)
            if (here.st_dev, here.st_ino) != (mine.st_dev, mine.st_ino):
                raise FileNotFoundError(self.path)
            os.pwrite(self._record, f"{written:0{WRITTEN_WIDTH}d}".encode(), self._written_at)
            self._written = written
        except OSError:
            with contextlib.suppress(OSError):
                os.close(self._record)
            self._record = -1
            self.write(written, self._notes)

    def release(self) -> None:
        """Unlock (the record stays, for the next start)."""
        if self._record >= 0:
            with contextlib.suppress(OSError):
                os.close(self._record)
            self._record = -1
        if self.fd < 0:
            return
        with _TAKEN_LOCK:
            taken = _TAKEN.get(self._key)
            if taken is not None and taken[0] == self.fd:
                taken[1] -= 1
                if taken[1] == 0:
                    del _TAKEN[self._key]
                    with contextlib.suppress(OSError):
                        os.close(self.fd)  # its only descriptor: the flock ends
        self.fd = -1


# The locks this process holds, by the journal's real path: [descriptor, takers].
_TAKEN: dict[str, list[int]] = {}
_TAKEN_LOCK = threading.Lock()


def _lock(journal: Path) -> int:
    """A descriptor on `journal` (created empty if absent) holding its flock: on the
    journal itself, so that no cleanup of the folder can take it away."""
    try:
        fd = os.open(journal, os.O_RDONLY | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except OSError as exc:
        raise JournalError(f"{journal}: cannot open it ({exc.strerror or exc})") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        holder = _holder(fd) or parse_record(_read_file(lock_path(journal))).pid
        os.close(fd)
        if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            raise JournalError(f"{journal}: cannot lock it ({exc.strerror or exc})") from None
        who = f"PID {holder}" if holder is not None else "its PID unknown"
        raise JournalInUse(
            f"the journal {journal} is in use by another boardwire serve ({who}): stop "
            "that one first, or give this one its own journal with --db"
        ) from None
    return fd


def _holder(fd: int) -> int | None:
    """The PID holding a flock on the file of `fd`, from /proc/locks (Linux), or None."""
    try:
        st = os.fstat(fd)
        with open("/proc/locks", encoding="ascii", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    device = f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino}"
    by_inode = None
    for line in lines:
        parts = [p for p in line.split() if p != "->"]
        if len(parts) < 6 or parts[1] != "FLOCK" or not parts[4].isdigit():
            continue
        if parts[5] == device:
            return int(parts[4])
        if parts[5].rsplit(":", 1)[-1] == str(st.st_ino):
            by_inode = int(parts[4])  # (some filesystems show another device number)
    return by_inode


def _read_file(path: Path) -> str:
    try:
        with open(path, "rb") as f:
            return f.read(65536).decode("utf-8", "replace")
    except OSError:
        return ""


__all__ = [
    "OLDER",
    "SUFFIX",
    "JournalLock",
    "LockRecord",
    "describe_found",
    "found_against",
    "lock_path",
    "parse_record",
]
