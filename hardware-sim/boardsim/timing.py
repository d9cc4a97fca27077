"""Simulation time: the wall clock sped up by a factor, as a `clocks.timesource.TimeSource`.

Boards, clocks and scripted players all read the same `ScaledTime`, so a game replayed at
speed 50 keeps its clock times exact while taking a fiftieth of the real time.
"""

from __future__ import annotations

import time


class ScaledTime:
    """Seconds of simulated time since creation: (monotonic - start) * speed, plus `start`."""

    def __init__(self, speed: float = 1.0, start: float = 0.0) -> None:
        if not speed > 0:
            raise ValueError(f"speed must be a positive factor, got {speed}")
        self.speed = speed
        self._start = start
        self._origin = time.monotonic()

    def now(self) -> float:
        return self._start + (time.monotonic() - self._origin) * self.speed

    def real_seconds(self, sim_seconds: float) -> float:
        """How long `sim_seconds` of simulated time take in real time."""
        return sim_seconds / self.speed
