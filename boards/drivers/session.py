"""One connection of a driver, written once for the single-board and the bus drivers.

A session opens the port, starts a reader that decodes what the link sends, and runs the
work (a handshake and polls, or discovery and round-robin polling) beside it; whichever
ends first ends both, and what ended it is raised for `Supervised.run` to judge. A probe
is the same pair around a short piece of work, the port closed after it. Reading a
board's EEPROM log into a `LogRecovered` (or a reason it could not be) is shared too.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

from boards.dgt.eeprom import EepromEvent
from boards.driver_events import DriverEvent, Emit, LogRecovered
from boards.drivers.link import Link, LinkError, Opener
from boards.drivers.supervise import Supervised
from boards.recovery import RecoveryPlan, outcome, recover
from clocks.timesource import MonotonicTimeSource, SystemTime

__all__ = ["LinkDriver"]

T = TypeVar("T")


class LinkDriver(Supervised):
    """Base for drivers that follow boards over one `Link`.

    Subclasses implement `_read_loop` (decode what arrives and hand it on) and `_work`
    (what a session does), and may reset per-connection state in `_new_connection` and
    wake what waits on the link in `_abandon`.
    """

    def __init__(
        self,
        port: str,
        emit: Emit,
        *,
        time_source: MonotonicTimeSource | None,
        opener: Opener,
        backoff: Sequence[float],
    ) -> None:
        super().__init__(backoff)
        self.port = port
        self._emit = emit
        self._time_source = time_source or SystemTime()
        self._opener = opener
        self._link: Link | None = None

    # -- what subclasses provide --------------------------------------------------------------

    def _new_connection(self) -> None:
        """Fresh per-connection state (a new decoder, an empty queue), before reading starts."""

    async def _read_loop(self, link: Link) -> None:
        raise NotImplementedError

    async def _work(self) -> None:
        raise NotImplementedError

    def _abandon(self) -> None:
        """The link is closing: wake whatever waits for an answer on it."""

    # -- one connection -----------------------------------------------------------------------

    async def _session(self) -> None:
        await self._alongside(self._work)

    async def _alongside(self, work: Callable[[], Awaitable[T]]) -> T:
        """Open the port and run `work` while the reader feeds it; the first of the two to
        end ends the other. Returns what `work` returned; raises what ended either (the
        reader's LinkError, the work's own errors)."""
        link = self._link = await self._opener(self.port)
        self._new_connection()
        reader = asyncio.ensure_future(self._read_loop(link))
        job = asyncio.ensure_future(work())
        try:
            done, _ = await asyncio.wait({reader, job}, return_when=asyncio.FIRST_COMPLETED)
            for task in done:
                task.result()  # raises the LinkError or BoardError that ended the session
            if job not in done:
                raise LinkError(f"{self.port} stopped reading")  # a link never does
            return job.result()
        finally:
            for task in (job, reader):
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task

    async def _probe_once(self, work: Callable[[], Awaitable[T]]) -> T:
        """Open the port once, run `work`, close: who is there? Raises what ended it."""
        try:
            return await self._alongside(work)
        finally:
            await self._close_link()

    async def _cleanup(self) -> None:
        await self._close_link()

    async def _close_link(self) -> None:
        link, self._link = self._link, None
        self._abandon()
        if link is not None:
            with contextlib.suppress(Exception):
                await link.close()

    def _write(self, data: bytes) -> None:
        if self._link is None:
            raise LinkError("not connected")
        self._link.write(data)

    def _emit_all(self, events: Sequence[DriverEvent]) -> None:
        for event in events:
            self._emit(event)

    # -- the board's log ----------------------------------------------------------------------

    def _recovered(
        self,
        serial: str,
        data: bytes,
        decode: Callable[[bytes], tuple[list[EepromEvent], int]],
        plan: RecoveryPlan,
    ) -> tuple[LogRecovered | None, str | None]:
        """The log `data` (decoded by `decode`) as one `LogRecovered` from where `plan`
        says to start, and what went wrong filling the outage (None: nothing). A software
        error reading it is logged with its traceback and becomes the reason, never raised."""
        try:
            events, _ = decode(data)
            got = recover(events, plan.recent, plan.position, self._time_source.now(), serial)
        except Exception as exc:
            error = self.log_fault(exc, f"reading the log of board {serial} on {self.port}")
            return None, f"its log could not be read ({error})"
        return outcome(got, first_start=plan.first_start)
