"""What keeps the journal from taking an arbiter action now, in words for the arbiter:
the disk fails (`WriteFailure`: board events are held meanwhile), the file was deleted or
replaced (`JournalGone`), or overwritten in place by another program (`JournalTampered`).
Each `message` is the desk's alert and the 503's reason: what happened, what boardwire
does about it, and what the person reading it should do.
"""

from __future__ import annotations

import datetime as dt
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from broadcast.phrases import Phrase, Value, and_list, say


@dataclass(frozen=True, slots=True)
class WriteFailure:
    """Why appends are held: the error, the disk, since when (journal clock), what is held
    (how many, the bytes in memory and in the spill file) and for how long memory holds
    at this rate (`lasts`: words, or empty)."""

    reason: str
    disk: str
    since: float
    held: int
    memory: int = 0
    spilled: int = 0
    spill: str = ""  # the spill folder ("" when it cannot be written)
    lasts: str = ""
    stopped: bool = False  # never written: the file was overwritten by another program
    catching_up: bool = False  # the disk takes writes again; what was held is being written

    @property
    def message(self) -> str:
        where = f", {self.spilled / 1e6:.1f} MB in a spill file in {self.spill}" * bool(
            self.spilled
        )
        held = f"{self.held} event(s) are held ({self.memory / 1e6:.1f} MB in memory{where})"
        if self.catching_up:
            return (
                f"the journal {self.disk} takes writes again and is writing the events held "
                f"meanwhile: {held}, about {duration(max(self.held / 250_000, 1))} more (at "
                "250,000 a second); arbiter actions wait until it is done"
            )
        if self.stopped:
            return (
                f"the journal cannot be written ({self.reason}): {self.disk}. {held}, none "
                "dropped: boardwire writes nothing into a file another program overwrote, "
                "and the boards' logs give these events back at the next start (the other "
                "alert says what to do)"
            )
        lasts = f"; {self.lasts}" if self.lasts else ""
        return (
            f"the journal cannot be written ({self.reason}): {self.disk}. Free space there; "
            f"{held}, none dropped, and written as soon as it works{lasts}"
        )

    @property
    def phrase(self) -> Phrase:
        """`message` for the desk's languages (the error, the disk and how long memory
        lasts stay as the system says them)."""
        held = say(
            "%(held)s event(s) are held (%(memory)s MB in memory)",
            held=self.held,
            memory=f"{self.memory / 1e6:.1f}",
        )
        if self.spilled:
            held = say(
                "%(held)s event(s) are held (%(memory)s MB in memory, %(spilled)s MB in a "
                "spill file in %(spill)s)",
                held=self.held,
                memory=f"{self.memory / 1e6:.1f}",
                spilled=f"{self.spilled / 1e6:.1f}",
                spill=self.spill,
            )
        if self.catching_up:
            return say(
                "the journal %(disk)s takes writes again and is writing the events held "
                "meanwhile: %(held)s, about %(left)s more (at 250,000 a second); arbiter "
                "actions wait until it is done",
                disk=self.disk,
                held=held,
                left=duration(max(self.held / 250_000, 1)),
            )
        if self.stopped:
            return say(
                "the journal cannot be written (%(reason)s): %(disk)s. %(held)s, none "
                "dropped: boardwire writes nothing into a file another program overwrote, "
                "and the boards' logs give these events back at the next start (the other "
                "alert says what to do)",
                reason=self.reason,
                disk=self.disk,
                held=held,
            )
        if self.lasts:
            return say(
                "the journal cannot be written (%(reason)s): %(disk)s. Free space there; "
                "%(held)s, none dropped, and written as soon as it works; %(lasts)s",
                reason=self.reason,
                disk=self.disk,
                held=held,
                lasts=self.lasts,
            )
        return say(
            "the journal cannot be written (%(reason)s): %(disk)s. Free space there; "
            "%(held)s, none dropped, and written as soon as it works",
            reason=self.reason,
            disk=self.disk,
            held=held,
        )


@dataclass(frozen=True, slots=True)
class JournalGone:
    """The journal's file was deleted or replaced while it is open: writes still reach the
    open file, which nothing can find after this process ends."""

    path: str
    how: str  # "deleted", "replaced by another file", or what became of its -wal
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

    @property
    def phrase(self) -> Phrase:
        """`message` for the desk's languages (the paths, what became of the file and the
        error stay as the system says them)."""
        proc = " and ".join(f"/proc/{self.pid}/fd/{fd}" for fd in self.fds) or "/proc/PID/fd"
        if self.rescued is not None:
            save = say(
                "boardwire wrote a full copy to %(copy)s (and writes it again when it stops); "
                "stop boardwire, then start it again with --db %(copy)s, or move that file to "
                "%(path)s first",
                copy=self.rescued,
                path=self.path,
            )
        elif self.rescue_error is None:
            save = say(
                "boardwire is writing a full copy of it beside it (the desk's alert says "
                "where once it is done)"
            )
        else:
            save = say(
                "boardwire could not write a copy (%(error)s); while it still runs, save the "
                "open file: cp %(fd)s %(path)s.saved, then stop boardwire and start it again "
                "with --db %(path)s.saved",
                error=self.rescue_error,
                fd=proc.split(" and ")[0],
                path=self.path,
            )
        return say(
            "the journal %(path)s was %(how)s while boardwire runs: arbiter actions are "
            "refused, since a restart would not find them. The open file is still readable "
            "as %(proc)s; %(save)s",
            path=self.path,
            how=self.how,
            proc=proc,
            save=save,
        )


@dataclass(frozen=True, slots=True)
class JournalTampered:
    """The journal's file was overwritten in place by another program (a backup copied
    over it, truncated), or its -wal emptied: boardwire writes nothing into it any more."""

    path: str
    detail: str  # "overwritten in place by another program (its size went ...)", ...
    pid: int
    written: int  # the newest event boardwire had made durable in it
    holds: str = ""  # what the file holds now, in words ("holds 12 event(s), ...")
    wal_aside: str | None = None  # where boardwire's own -wal was moved
    saved: tuple[str, ...] = ()  # the games and results as boardwire holds them (files)

    @property
    def message(self) -> str:
        aside = (
            f" Its own write-ahead log was moved to {self.wal_aside}, so that the next "
            "start does not lay it over what the file holds now."
            if self.wal_aside
            else ""
        )
        saved = (
            f" The games and results as boardwire holds them now were written to "
            f"{' and '.join(self.saved)}."
            if self.saved
            else ""
        )
        return (
            f"the journal {self.path} was {self.detail} while boardwire runs: boardwire "
            f"stopped writing into it, so that nothing of its own lands on what another "
            f"program put there, and refuses arbiter actions; board events are held in "
            f"memory. It had written "
            f"events up to {self.written}{'; the file now ' + self.holds if self.holds else ''}."
            f"{aside}{saved} Stop "
            "boardwire (Ctrl-C), find what wrote over the file, and start again: the start "
            "says what the file holds"
        )

    @property
    def phrase(self) -> Phrase:
        """`message` for the desk's languages (the paths, what happened to the file and
        what it holds stay as the system says them)."""
        aside: Value = ""
        if self.wal_aside:
            aside = say(
                " Its own write-ahead log was moved to %(aside)s, so that the next start does "
                "not lay it over what the file holds now.",
                aside=self.wal_aside,
            )
        saved: Value = ""
        if self.saved:
            saved = say(
                " The games and results as boardwire holds them now were written to %(files)s.",
                files=and_list(list(self.saved)),
            )
        holds: Value = ""
        if self.holds:
            holds = say("; the file now %(holds)s", holds=self.holds)
        return say(
            "the journal %(path)s was %(detail)s while boardwire runs: boardwire stopped "
            "writing into it, so that nothing of its own lands on what another program put "
            "there, and refuses arbiter actions; board events are held in memory. It had "
            "written events up to %(written)s%(holds)s.%(aside)s%(saved)s Stop boardwire "
            "(Ctrl-C), find what wrote over the file, and start again: the start says what "
            "the file holds",
            path=self.path,
            detail=self.detail,
            written=self.written,
            holds=holds,
            aside=aside,
            saved=saved,
        )


JournalProblem = WriteFailure | JournalGone | JournalTampered


def duration(seconds: float) -> str:
    seconds = max(seconds, 0.0)
    if seconds < 60:
        return f"{seconds:.0f} s"
    if seconds < 3600:
        return f"{seconds / 60:.0f} min"
    return f"{int(seconds // 3600)} h {int(seconds % 3600 // 60):02d} min"


def rescue_path(path: str) -> str:
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


__all__ = [
    "JournalGone",
    "JournalProblem",
    "JournalTampered",
    "WriteFailure",
    "describe_disk",
    "duration",
    "rescue_path",
]
