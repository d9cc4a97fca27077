"""When the public state may have changed, told rather than polled: the publishers' wake-up.

The commit path announces every durable batch to the service's listeners (the web hub,
the action log, and these). What is announced reaches the public at once when there is
no broadcast delay, and `delay` event seconds later otherwise (plus the news that is
public at once: a pairing). So a told publisher wakes twice for a batch: when it is
told, and when the delay has passed over it, and needs no poll: between commits, only
the delay changes what the public sees, and that moment is known when the batch is told.

The wait for the delay is in real seconds (`delay / time.speed`: a rehearsal running
fast waits less). A clock that does not run by itself (a test's `ManualTime`) is not
followed: a test moves it, then tells (a commit) or waits.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from types import TracebackType
from typing import Protocol

from broadcast.journal.store import Entry
from broadcast.service.committer import Listener
from broadcast.service.event_state import PublicState
from clocks.timesource import EpochTimeSource

__all__ = ["PublicChanges"]

# The shortest wait for the delay: a timer that fires a hair early waits again this long.
_MIN_WAIT = 0.01


class _Venue(Protocol):
    """What the publishers' wake-up reads of the venue's service (`EventService`)."""

    @property
    def delay(self) -> float: ...
    @property
    def time_source(self) -> EpochTimeSource: ...
    @property
    def listeners(self) -> list[Listener]: ...
    def public_state(self) -> PublicState: ...


class PublicChanges:
    """One publisher's subscription to the commits of `service`: `await changed(seq)`
    returns once the public state's `seq` is no longer `seq`. Use it as a context
    manager (subscribed inside, never left behind by a publisher that ends)."""

    def __init__(self, service: _Venue) -> None:
        self._service = service
        self._loop = asyncio.get_running_loop()
        self._woken = asyncio.Event()
        self._due: list[float] = []  # event times told batches become public

    def __enter__(self) -> PublicChanges:
        self._service.listeners.append(self._told)
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        with contextlib.suppress(ValueError):
            self._service.listeners.remove(self._told)

    def _told(self, entries: Sequence[Entry]) -> None:
        """The service's listener: may be called off the loop (a synchronous caller)."""
        if self._service.delay > 0:
            self._due.append(self._service.time_source.now() + self._service.delay)
        with contextlib.suppress(RuntimeError):  # the loop is gone: nobody waits
            self._loop.call_soon_threadsafe(self._woken.set)

    async def changed(self, seq: int, *, until: float | None = None) -> None:
        """Return once the public state's seq is not `seq` (at once if it is not now),
        or once the loop's clock reaches `until` (a retry's time), whichever is first."""
        service = self._service
        while service.public_state().seq == seq:
            now = service.time_source.now()
            self._due = [t for t in self._due if t > now]
            waits = [(min(self._due) - now) / service.time_source.speed] if self._due else []
            if until is not None:
                waits.append(until - self._loop.time())
            if until is not None and waits[-1] <= 0:
                return
            self._woken.clear()
            timeout = max(min(waits), _MIN_WAIT) if waits else None
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._woken.wait(), timeout)
