"""Test helpers: running drivers, collecting their events and waiting for them without
sleeping blindly, and naming squares and positions."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Protocol, TypeVar

from boards.driver_events import DriverEvent
from boards.drivers.link import Link

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


def idx(square: str) -> int:
    """The DGT board index of a square name (normal orientation)."""
    import chess

    from boards.position import square_to_index

    return square_to_index(chess.parse_square(square))


def fen_after(*ucis: str) -> str:
    """The FEN placement after `ucis` from the standard start."""
    import chess

    board = chess.Board()
    for uci in ucis:
        board.push_uci(uci)
    return board.board_fen()


D = TypeVar("D", bound="Runnable")


class Runnable(Protocol):
    async def run(self) -> None: ...

    def stop(self) -> None: ...


@contextlib.asynccontextmanager
async def running(driver: D) -> AsyncIterator[D]:
    """Run a driver for the duration of the block, then stop it and wait for it."""
    task = asyncio.ensure_future(driver.run())
    try:
        yield driver
    finally:
        driver.stop()
        # Not wait_for: it would wait forever for a task that ignores its cancellation.
        done, _ = await asyncio.wait({task}, timeout=5)
        if not done:
            task.cancel()
            stack = "".join(
                f"  {t.get_coro()}: {[f'{fr.f_code.co_filename}:{fr.f_lineno}' for fr in t.get_stack()]}\n"
                for t in asyncio.all_tasks()
            )
            raise AssertionError(f"the driver did not stop within 5 s; it was at:\n{stack}")
        if not task.cancelled() and task.exception() is not None:
            raise AssertionError("the driver ended with an error") from task.exception()


class FilteredLink:
    """A link whose writes pass `allow(data)` first: it may raise (a port error) or
    return False (the bytes are lost on the line). Faults at chosen moments."""

    def __init__(self, inner: Link, allow: Callable[[bytes], bool]) -> None:
        self._inner, self._allow = inner, allow

    async def read(self) -> bytes:
        return await self._inner.read()

    def write(self, data: bytes) -> None:
        if self._allow(data):
            self._inner.write(data)

    async def close(self) -> None:
        await self._inner.close()


def assert_no_errors(output: str) -> None:
    """A child process (serve, demo, sim) printed no traceback and logged no ERROR: the
    in-process rule of conftest.py, for subprocesses (the CLI logs "HH:MM:SS LEVEL ...")."""
    import re

    assert "Traceback (most recent call last)" not in output, output
    bad = [line for line in output.splitlines() if re.match(r"\S+ (ERROR|CRITICAL) ", line)]
    assert not bad, "\n".join(bad)
