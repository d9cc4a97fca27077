"""What the public may see: the state as it was `delay` seconds ago. Pure.

Every public output (pages, websocket, JSON, PGN feeds) is built from `at(now)`, never
from the live state, so nothing younger than the delay leaks. Snapshots are immutable
values, so keeping them costs references, not copies.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

S = TypeVar("S")


@dataclass(frozen=True, slots=True)
class Snapshot(Generic[S]):
    t: float
    state: S


class DelayedView(Generic[S]):
    """Snapshots in time order; `at(now)` is the newest one at least `delay` old."""

    def __init__(self, delay: float, initial: S, t0: float = float("-inf")) -> None:
        if delay < 0:
            raise ValueError(f"a broadcast delay cannot be negative ({delay} s)")
        self.delay = delay
        self._snaps: deque[Snapshot[S]] = deque([Snapshot(t0, initial)])

    def record(self, t: float, state: S) -> None:
        if t < self._snaps[-1].t:
            t = self._snaps[-1].t  # never reorder: a snapshot is at least as new as the last
        self._snaps.append(Snapshot(t, state))

    def amend(self, change: Callable[[S], S]) -> None:
        """Apply `change` to every kept snapshot: for news that is public at once (pairings,
        registrations), which the delay must not hide."""
        self._snaps = deque(Snapshot(s.t, change(s.state)) for s in self._snaps)

    def at(self, now: float) -> S:
        cutoff = now - self.delay
        # Drop what can never be shown again: keep the newest snapshot at or before cutoff.
        while len(self._snaps) > 1 and self._snaps[1].t <= cutoff:
            self._snaps.popleft()
        return self._snaps[0].state

    def shown_from(self, now: float, shows: Callable[[S], bool]) -> float | None:
        """When the public first sees a state for which `shows` holds: `now` if it does
        already, else the time the first kept snapshot that shows it becomes public;
        None when no kept snapshot does (news held back until a later one)."""
        self.at(now)
        for snap in self._snaps:
            if shows(snap.state):
                return max(now, snap.t + self.delay)
        return None

    def __len__(self) -> int:
        return len(self._snaps)


__all__ = ["DelayedView", "Snapshot"]
