"""Keeping a link alive: run a session, and after a failure run it again with backoff,
until stopped. Shared by the single-board and the bus drivers.

A failure of the link (`retry_on`: a port error, a board that stops answering) is the
everyday case: the subclass reports it and the driver reconnects. Any other exception is
a software error in the driver (a bug, or input nothing expected): it must not end the
driver silently. It is logged once with its traceback (the same error again only as one
line, unless it comes back after a quiet while), the subclass reports it (the board lost,
a `DriverFault` the service turns into a desk alert), and the driver reconnects with a
backoff that grows with the faults in a row.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Sequence

log = logging.getLogger(__name__)

FAULT_QUIET = 600.0  # seconds after which the same software error is logged in full again
FAULT_BACKOFF = (2.0, 5.0, 15.0, 30.0, 60.0)  # between sessions ended by software errors
FAULT_FORGOTTEN = 120.0  # a session that ran this long resets the count of faults in a row


def describe_error(exc: BaseException) -> str:
    """`ValueError: bad thing` (the type, and the message when there is one)."""
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class Supervised:
    """Base for drivers: `run()` repeats `_session()` until `stop()`.

    Subclasses implement `_session` (one connection, returning or raising on failure),
    `_failed(exc)` (report it; True when the link had been up, so backoff starts over),
    `_faulted(exc, error)` (report a software error: the board lost, a `DriverFault`)
    and `_cleanup` (close the port), and name the exceptions that mean "try again".
    """

    retry_on: tuple[type[Exception], ...] = (OSError,)
    # Failures after which the next session starts at once (the port works, the board
    # answers: waiting only lets more happen unread), unless the session was short.
    retry_now_on: tuple[type[Exception], ...] = ()
    retry_now_after: float = 10.0  # seconds a session must have run for that

    def __init__(self, backoff: Sequence[float]) -> None:
        self._backoff = tuple(backoff) or (1.0,)
        self._stopping = asyncio.Event()
        self._session_task: asyncio.Task[None] | None = None
        self._last_fault: tuple[str, float] | None = None  # (error, loop time) last logged
        self.faults = 0  # software errors in a row (for the backoff)

    @property
    def describe(self) -> str:
        """What this driver follows, for log lines (`board 10001 on /dev/ttyACM0`)."""
        return type(self).__name__

    def stop(self) -> None:
        self._stopping.set()
        if self._session_task is not None:
            self._session_task.cancel()

    async def _session(self) -> None:
        raise NotImplementedError

    def _failed(self, exc: Exception) -> bool:
        raise NotImplementedError

    def _faulted(self, exc: Exception, error: str) -> None:
        """Report a software error that ended a session (the default: nothing more)."""

    async def _cleanup(self) -> None:
        raise NotImplementedError

    async def _stopped(self) -> None:
        """Called once after the last session (report the board gone, ...)."""

    def log_fault(self, exc: Exception, what: str) -> str:
        """Log a software error once with its traceback (must be called while handling
        it); the same error again within FAULT_QUIET as one line. Returns its text."""
        error = describe_error(exc)
        now = asyncio.get_running_loop().time()
        last = self._last_fault
        if last is None or last[0] != error or now - last[1] > FAULT_QUIET:
            log.exception("%s stopped on a software error (%s); restarting", what, error)
            self._last_fault = (error, now)
        else:
            log.warning("%s stopped on the same software error again (%s); restarting", what, error)
        return error

    def _fault(self, exc: Exception) -> None:
        error = self.log_fault(exc, self.describe)
        self.faults += 1
        try:
            self._faulted(exc, error)
        except Exception:
            # Reporting must not end the driver either; the traceback says why it failed.
            log.exception("%s: the software error could not be reported", self.describe)

    async def run(self) -> None:
        """Connect, follow, and reconnect after failures until stopped. Never raises but
        for cancellation: a software error is logged, reported, and retried."""
        attempt = 0
        loop = asyncio.get_running_loop()
        while not self._stopping.is_set():
            started = loop.time()
            faulted = now = False
            try:
                try:
                    self._session_task = asyncio.ensure_future(self._session())
                    await self._session_task
                finally:
                    try:
                        await self._cleanup()
                    except Exception as exc:  # a port that fails to close: say so, go on
                        log.warning("%s: cleanup failed: %s", self.describe, describe_error(exc))
            except asyncio.CancelledError:
                if self._stopping.is_set():
                    break
                raise
            except self.retry_on as exc:
                now = isinstance(exc, self.retry_now_on)
                now = now and loop.time() - started >= self.retry_now_after
                try:
                    if self._failed(exc):
                        attempt = 0
                except Exception as report:
                    self._fault(report)
                    faulted = True
            except Exception as exc:
                self._fault(exc)
                faulted = True
            if self._stopping.is_set():
                break
            if loop.time() - started >= FAULT_FORGOTTEN:
                self.faults = 1 if faulted else 0
            delay = 0.0 if now else self._backoff[min(attempt, len(self._backoff) - 1)]
            if faulted:
                delay = max(delay, FAULT_BACKOFF[min(self.faults, len(FAULT_BACKOFF)) - 1])
            attempt += 1
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), delay)
        try:
            await self._stopped()
        except Exception as exc:
            self.log_fault(exc, f"{self.describe} (stopping)")


__all__ = ["FAULT_BACKOFF", "FAULT_FORGOTTEN", "FAULT_QUIET", "Supervised", "describe_error"]
