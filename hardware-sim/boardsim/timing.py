"""Simulation time: the wall clock sped up by a factor, as a `clocks.timesource.EpochTime`.

Boards, clocks and scripted players all read the same `ScaledTime`, so a game replayed at
speed 50 keeps its clock times exact while taking a fiftieth of the real time.
"""

from __future__ import annotations

from clocks.timesource import EpochTime


class ScaledTime(EpochTime):
    """Seconds of simulated time: `start` plus real elapsed time times `speed`.

    The default start is 0 (a simulation of its own); pass `start=time.time()` to run in
    fast-forward epoch time alongside an event's schedule.
    """

    def __init__(self, speed: float = 1.0, start: float = 0.0) -> None:
        super().__init__(speed, start)


__all__ = ["ScaledTime"]
