"""The journal's errors: each message is one line a user can act on."""

from __future__ import annotations

from clocks.errors import BoardwireError


class JournalError(BoardwireError):
    """The journal cannot be used: wrong schema version, unreadable file, foreign database."""


class JournalWriteError(JournalError):
    """The journal could not be written (kept for callers that catch it; board events are
    held, never dropped, while the disk fails: see `broadcast.journal.held`)."""


class JournalDamaged(JournalError):
    """The journal cannot be read back: an event of a newer boardwire's kind, a damaged
    row, a damaged or cut-short file."""


class JournalUnavailable(JournalError):
    """A transaction that had to be durable now could not be written: nothing of it is kept."""


class JournalInUse(JournalError):
    """Another process writes this journal (the message names it and its PID)."""


__all__ = [
    "JournalDamaged",
    "JournalError",
    "JournalInUse",
    "JournalUnavailable",
    "JournalWriteError",
]
