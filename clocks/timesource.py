"""Injected time: the core never reads the wall clock, it is handed a TimeSource."""

from __future__ import annotations

import time
from typing import Protocol


class TimeSource(Protocol):
    """Seconds on a monotonic scale; only differences and order matter."""

    def now(self) -> float: ...


class SystemTime:
    """The real monotonic clock, for production."""

    def now(self) -> float:
        return time.monotonic()


class ManualTime:
    """A clock that moves only when told to, for tests and replays."""

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


class EpochTime:
    """Seconds since the Unix epoch that never step backwards: the wall clock read once at
    start, then advanced by the monotonic clock (times `speed` for fast-forward runs)."""

    def __init__(self, speed: float = 1.0, start: float | None = None) -> None:
        if not speed > 0:
            raise ValueError(f"speed must be positive, got {speed}")
        self.speed = speed
        self._start = time.time() if start is None else start
        self._mono0 = time.monotonic()

    def now(self) -> float:
        return self._start + (time.monotonic() - self._mono0) * self.speed
