"""Injected time: the core never reads the wall clock, it is handed a time source.

Two kinds, kept apart by type:

- `MonotonicTimeSource`: seconds that never go back, on any scale; only differences and
  order matter. The drivers stamp their events with one, the simulator paces with one.
- `EpochTimeSource`: seconds since the Unix epoch (that never step back either), which
  the event needs for dates, schedules and journal stamps, and `speed`, event seconds
  per real second (1 at a real event, more in a fast-forward demo).

An epoch source is also a monotonic one (the service hands its clock to the drivers, so
board events carry event time), never the other way round: `SystemTime` has no epoch and
no speed, and mypy refuses it where the event's time is wanted. Each concrete source
names the protocol it implements.
"""

from __future__ import annotations

import time
from typing import Protocol

__all__ = [
    "EpochTime",
    "EpochTimeSource",
    "ManualTime",
    "MonotonicTimeSource",
    "SystemTime",
]


class MonotonicTimeSource(Protocol):
    """Seconds on a scale that never goes back; only differences and order matter."""

    def now(self) -> float: ...


class EpochTimeSource(MonotonicTimeSource, Protocol):
    """Seconds since the Unix epoch, never stepping back, for the event; `speed` is how many
    event seconds pass per real second (the service paces its own timers by it)."""

    speed: float


class SystemTime(MonotonicTimeSource):
    """The real monotonic clock (no epoch): drivers and tools that stand alone."""

    def now(self) -> float:
        return time.monotonic()


class ManualTime(EpochTimeSource):
    """A clock that moves only when told to, for tests and replays. Start it at an epoch
    second to stand in for an event's time; `speed` 1 (it never runs on its own)."""

    speed: float = 1.0

    def __init__(self, start: float = 0.0) -> None:
        self._now = start

    def now(self) -> float:
        return self._now

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError(f"time cannot go backwards (advance by {seconds})")
        self._now += seconds

    def set(self, t: float) -> None:
        if t < self._now:
            raise ValueError(f"time cannot go backwards ({t} < {self._now})")
        self._now = t


class EpochTime(EpochTimeSource):
    """Seconds since the Unix epoch that never step backwards: the wall clock read once at
    start, then advanced by the monotonic clock (times `speed` for fast-forward runs)."""

    def __init__(self, speed: float = 1.0, start: float | None = None) -> None:
        if not speed > 0:
            raise ValueError(f"speed must be positive, got {speed}")
        self.speed = float(speed)
        self._start = time.time() if start is None else start
        self._mono0 = time.monotonic()

    def now(self) -> float:
        return self._start + (time.monotonic() - self._mono0) * self.speed
