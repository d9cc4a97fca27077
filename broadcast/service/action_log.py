"""The arbiter's actions so far, newest last: what the desk lists with an Undo.

Each `ActionTaken` in the journal is one entry (its words, who, when, what it undid), read
once at start and added as each action is made durable. An action is in force unless an
action in force undid it (an undo undone is a redo). The parts an action changed stay in
the journal; an undo reads them from there (`record`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from broadcast.arbiter.decisions import ActionTaken
from broadcast.journal.store import Entry, Journal

__all__ = ["ActionLog", "LoggedAction"]

KIND = "ActionTaken"  # the journal's kind column: the class name


@dataclass(frozen=True, slots=True)
class LoggedAction:
    """One action as the desk lists it: its journal number and its record's words."""

    seq: int
    t: float
    kind: str
    summary: str
    by: str
    removes: tuple[str, ...]
    undoes: int


class ActionLog:
    """Every action of the event in journal order, and which ones an undo took back."""

    def __init__(self) -> None:
        self._actions: dict[int, LoggedAction] = {}
        self._undoers: dict[int, list[int]] = {}  # action -> the undos that named it

    def load(self, journal: Journal) -> None:
        """Every action the journal holds (an index scan of their rows)."""
        self._actions.clear()
        self._undoers.clear()
        self.add(journal.read_kinds(0, journal.last_seq(), (KIND,)))

    def add(self, items: Iterable[tuple[int, object]]) -> None:
        for seq, event in items:
            if isinstance(event, ActionTaken) and seq not in self._actions:
                self._actions[seq] = LoggedAction(
                    seq, event.t, event.kind, event.summary, event.by, event.removes, event.undoes
                )
                if event.undoes:
                    self._undoers.setdefault(event.undoes, []).append(seq)

    def on_entries(self, entries: Sequence[Entry]) -> None:
        """A listener: the actions among durable entries."""
        self.add((e.seq, e.event) for e in entries if isinstance(e.event, ActionTaken))

    def get(self, seq: int) -> LoggedAction | None:
        return self._actions.get(seq)

    def undone_by(self, seq: int) -> int:
        """The undo in force that took action `seq` back (0: none, it is in force). An
        undo that was itself undone (a redo) takes nothing back."""
        for undo in reversed(self._undoers.get(seq, [])):
            if not self.undone_by(undo):
                return undo
        return 0

    def recent(self, limit: int = 20) -> list[LoggedAction]:
        """The newest actions first."""
        return [self._actions[s] for s in sorted(self._actions, reverse=True)[:limit]]

    def __len__(self) -> int:
        return len(self._actions)
