"""Keeping a link alive: run a session, and after a failure run it again with backoff,
until stopped. Shared by the single-board and the bus drivers."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence


class Supervised:
    """Base for drivers: `run()` repeats `_session()` until `stop()`.

    Subclasses implement `_session` (one connection, returning or raising on failure),
    `_failed(exc)` (report it; True when the link had been up, so backoff starts over)
    and `_cleanup` (close the port), and name the exceptions that mean "try again".
    """

    retry_on: tuple[type[Exception], ...] = (OSError,)

    def __init__(self, backoff: Sequence[float]) -> None:
        self._backoff = tuple(backoff) or (1.0,)
        self._stopping = asyncio.Event()
        self._session_task: asyncio.Task[None] | None = None

    def stop(self) -> None:
        self._stopping.set()
        if self._session_task is not None:
            self._session_task.cancel()

    async def _session(self) -> None:
        raise NotImplementedError

    def _failed(self, exc: Exception) -> bool:
        raise NotImplementedError

    async def _cleanup(self) -> None:
        raise NotImplementedError

    async def _stopped(self) -> None:
        """Called once after the last session (report the board gone, ...)."""

    async def run(self) -> None:
        """Connect, follow, and reconnect after failures until stopped."""
        attempt = 0
        while not self._stopping.is_set():
            try:
                self._session_task = asyncio.ensure_future(self._session())
                await self._session_task
            except asyncio.CancelledError:
                if self._stopping.is_set():
                    break
                raise
            except self.retry_on as exc:
                if self._failed(exc):
                    attempt = 0
            finally:
                await self._cleanup()
            if self._stopping.is_set():
                break
            delay = self._backoff[min(attempt, len(self._backoff) - 1)]
            attempt += 1
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), delay)
        await self._stopped()
