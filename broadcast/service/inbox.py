"""The inbox: driver events read and not handled yet.

Drivers hand in each event as they read it (`put`); the events read within BATCH_SECONDS
are handled together, in the order read, in one board batch: `put` asks the running loop
to call the committer's drain that much later. How long the oldest waited (`take`) is
the queue's part of the lag (`broadcast.service.overload`).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from boards.driver_events import DriverEvent
from broadcast.journal.station_progress import StationMark

# Real seconds board events wait to be handled together: a bus line answers in many small
# replies, each its own loop turn; one batch (one fsync, one web update) per turn would
# leave the loop little time for the lines themselves with hundreds of boards.
BATCH_SECONDS = 0.02


class Inbox:
    """Driver events waiting for a batch, with the real time each was read. `drain` is
    what the loop calls to handle them (the committer's); it calls `drained` first."""

    def __init__(self, drain: Callable[[], None]) -> None:
        self._drain = drain
        self._items: list[tuple[str, DriverEvent, float, StationMark | None]] = []
        self._scheduled = False

    def __bool__(self) -> bool:
        return bool(self._items)

    def put(self, port: str, event: DriverEvent, mark: StationMark | None = None) -> None:
        """A driver read `event` on `port`: drained with the others read within
        BATCH_SECONDS. Called on the event loop (the drivers run there). `mark`: where
        a capture station's event came from (its progress is journaled with it)."""
        self._items.append((port, event, time.monotonic(), mark))
        if not self._scheduled:
            self._scheduled = True
            asyncio.get_running_loop().call_later(BATCH_SECONDS, self._drain)

    def remind(self) -> None:
        """Events wait and no drain is scheduled (a batch being synced held them back):
        drain on the loop's next turn."""
        if self._items and not self._scheduled:
            self._scheduled = True
            asyncio.get_running_loop().call_soon(self._drain)

    def drained(self) -> None:
        """The scheduled drain runs: the next event read schedules another."""
        self._scheduled = False

    def take(self) -> tuple[list[tuple[str, DriverEvent, StationMark | None]], float]:
        """Every event waiting, in the order read, with its station mark (None: read
        here), and how long the oldest waited (real seconds)."""
        items, self._items = self._items, []
        waited = time.monotonic() - items[0][2] if items else 0.0
        return [(port, event, mark) for port, event, _, mark in items], waited


__all__ = ["BATCH_SECONDS", "Inbox"]
