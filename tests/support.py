"""Test helpers: collecting driver events and waiting for them without sleeping blindly."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TypeVar

from boards.events import DriverEvent

E = TypeVar("E")


class EventLog:
    """Collects driver events; `wait_for` polls until a predicate holds (or times out)."""

    def __init__(self) -> None:
        self.events: list[DriverEvent] = []
        self._changed = asyncio.Event()

    def __call__(self, event: DriverEvent) -> None:
        self.events.append(event)
        self._changed.set()

    def of(self, kind: type[E]) -> list[E]:
        return [e for e in self.events if isinstance(e, kind)]

    async def wait_for(
        self, predicate: Callable[[], bool], timeout: float = 10.0, what: str = ""
    ) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not predicate():
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise AssertionError(
                    f"timed out waiting for {what or 'condition'}; events: {self.events[-12:]}"
                )
            self._changed.clear()
            try:
                await asyncio.wait_for(self._changed.wait(), min(remaining, 0.05))
            except TimeoutError:
                pass
