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
