"""The system's own troubles, for the arbiter: the journal cannot be written, its file was
deleted or overwritten under the running service (or its -wal deleted, and mended), the
start found the journal older than what boardwire last wrote into it, the export folder
cannot be written, a part of the service failed. They are not journal events (a full
disk could not record them); they live in memory while their cause lasts and end by
themselves (or with the process), or, for news to be seen once (`on_acknowledge`), when
the arbiter acknowledges them.

`Health` holds the current conditions by key; `alerts(journal)` turns them, and the
journal's problems (`Journal.failure`, `Journal.gone`), into `Alert`s the desk shows like
any other. It also keeps the links the venue depends on (the public stream to the
mirrors): each registers a function that says its state in words, read when the desk
asks (`links()`), whether or not anything is wrong.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from broadcast.arbiter.alerts import Alert, AlertKind, Severity
from broadcast.journal.store import Journal
from broadcast.phrases import Phrase, english

SYSTEM_PREFIX = "system-"  # the ids of system alerts (never an id the rules raise)
JOURNAL_ALERT = SYSTEM_PREFIX + "journal"
JOURNAL_FILE_ALERT = SYSTEM_PREFIX + "journal-file"  # deleted, replaced or overwritten
JOURNAL_FOUND = "journal-found"  # the start found the journal older than last written
JOURNAL_MENDED = "journal-mended"  # its -wal or -shm was deleted, and mended


@dataclass(frozen=True, slots=True)
class Condition:
    kind: AlertKind
    severity: Severity
    message: str
    t: float  # event time when it began
    phrase: Phrase | None = None  # `message` for the desk's languages (None: English only)


class Health:
    """Current system conditions (by key) and which ones the arbiter has acknowledged."""

    def __init__(self) -> None:
        self.conditions: dict[str, Condition] = {}
        self.acknowledged: set[str] = set()
        self._journal_t: float | None = None  # event time the journal failure was first seen
        self._gone_t: float | None = None  # event time the journal's file was seen gone
        self._links: dict[str, Callable[[], str]] = {}
        self._on_acknowledge: dict[str, Callable[[], None]] = {}
        self._stations: Callable[[], list[dict[str, object]]] | None = None

    def watch_link(self, name: str, state: Callable[[], str]) -> None:
        """Show link `name` on the desk, its state in the words `state()` gives."""
        self._links[name] = state

    def links(self) -> list[tuple[str, str]]:
        """Every watched link and its state now, in the order they were registered."""
        return [(name, state()) for name, state in self._links.items()]

    def watch_stations(self, rows: Callable[[], list[dict[str, object]]]) -> None:
        """Show the capture stations on the desk, one row each as `rows()` gives them
        (`broadcast.stations.station_health.StationView.json`)."""
        self._stations = rows

    def stations(self) -> list[dict[str, object]]:
        """The capture stations now (empty: the serve reads every board itself)."""
        return self._stations() if self._stations is not None else []

    def report(
        self,
        key: str,
        kind: AlertKind,
        severity: Severity,
        message: str | Phrase,
        t: float,
        *,
        on_acknowledge: Callable[[], None] | None = None,
    ) -> bool:
        """Set a condition; True if it is new (the caller may log it once). With
        `on_acknowledge`, the condition is news to be seen once: acknowledging it calls
        that and ends it. Said as a phrase, the desk shows `message` in its language."""
        old = self.conditions.get(key)
        phrase = message if isinstance(message, Phrase) else None
        self.conditions[key] = Condition(
            kind, severity, english(message), old.t if old else t, phrase
        )
        if on_acknowledge is not None:
            self._on_acknowledge[key] = on_acknowledge
        return old is None

    def clear(self, key: str) -> bool:
        """End a condition; True if there was one."""
        self.acknowledged.discard(f"{SYSTEM_PREFIX}{key}")
        self._on_acknowledge.pop(key, None)
        return self.conditions.pop(key, None) is not None

    def alerts(self, journal: Journal | None, now: float) -> list[Alert]:
        out = [
            _alert(f"{SYSTEM_PREFIX}{key}", c.kind, c.severity, c.message, c.t, c.phrase)
            for key, c in self.conditions.items()
        ]
        failure = journal.failure if journal is not None else None
        if failure is None:
            self.acknowledged.discard(JOURNAL_ALERT)
            self._journal_t = None
        else:
            if self._journal_t is None:
                self._journal_t = now  # stable: the desk must not see a new alert each time
            out.insert(
                0,
                _alert(
                    JOURNAL_ALERT,
                    "journal-not-writable",
                    "critical",
                    failure.message,
                    self._journal_t,
                    failure.phrase,
                ),
            )
        gone = journal.gone if journal is not None else None
        if gone is None:
            self.acknowledged.discard(JOURNAL_FILE_ALERT)
            self._gone_t = None
        else:
            if self._gone_t is None:
                self._gone_t = now
            out.insert(
                0,
                _alert(
                    JOURNAL_FILE_ALERT,
                    "journal-not-writable",
                    "critical",
                    gone.message,
                    self._gone_t,
                    gone.phrase,
                ),
            )
        return [a for a in out if a.id not in self.acknowledged]

    def acknowledge(self, alert_id: str) -> bool:
        """Hide a system alert until its cause ends and comes back; False if unknown."""
        key = alert_id.removeprefix(SYSTEM_PREFIX)
        if key in self._on_acknowledge:
            seen = self._on_acknowledge[key]
            self.clear(key)
            seen()
            return True
        if alert_id in (JOURNAL_ALERT, JOURNAL_FILE_ALERT) or key in self.conditions:
            self.acknowledged.add(alert_id)
            return True
        return False


def _alert(
    alert_id: str,
    kind: AlertKind,
    severity: Severity,
    message: str,
    t: float,
    phrase: Phrase | None = None,
) -> Alert:
    return Alert(alert_id, kind, severity, "", 0, 0, "", (), message, t, phrase=phrase)


__all__ = [
    "JOURNAL_ALERT",
    "JOURNAL_FILE_ALERT",
    "JOURNAL_FOUND",
    "JOURNAL_MENDED",
    "SYSTEM_PREFIX",
    "Condition",
    "Health",
]
