"""Boards on an in-memory line, in virtual time: minutes of a driver's life in a moment.

`VirtualClockLoop` is an asyncio event loop whose clock jumps: when nothing is ready it
moves its time straight to the next timer instead of waiting, so a driver's polls,
timeouts and backoff, the board's clock and the players' pauses all run as they would at
a venue, with no real waiting and no timing in the result. `LoopTime` stamps events with
that clock (from an epoch second of the test's choosing).

`MemoryLine` serves one `EmulatedBoard` through the drivers' `Link` interface (`opener`):
what the host writes is parsed by the simulator's own `HostParser`, what the board says is
queued for the host to read, and the board's own output (the clock in update mode, a paced
download) is ticked on the loop. `unplug()` / `plug()` pull and put back the cable (the
link fails, opening it fails meanwhile); `commands` counts what the host asked for, so a
test can see how often a board's log was read.

Use it with `asyncio.Runner(loop_factory=VirtualClockLoop)`.
"""

from __future__ import annotations

import asyncio
import selectors
from collections import Counter
from typing import Any

from boards.dgt.decoder import SingleCommand
from boards.drivers.link import Link, LinkError
from boardsim.board import EmulatedBoard
from boardsim.clock import Side
from boardsim.hostwire import HostParser

__all__ = ["LoopTime", "MemoryLine", "VirtualClockLoop"]


class _JumpingSelector(selectors.DefaultSelector):
    """Looks at the real file descriptors without waiting; the wait itself is virtual."""

    def __init__(self) -> None:
        super().__init__()
        self.loop: VirtualClockLoop | None = None

    def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
        ready = super().select(0)
        if ready or timeout == 0:
            return ready
        if timeout is None:
            # Nothing scheduled in virtual time: only another thread can wake the loop.
            return super().select(5.0)
        assert self.loop is not None
        self.loop.jump(timeout)
        return []


class VirtualClockLoop(asyncio.SelectorEventLoop):
    """An event loop on virtual time: `time()` moves only when the loop would wait."""

    def __init__(self) -> None:
        selector = _JumpingSelector()
        super().__init__(selector)
        selector.loop = self
        self._virtual = 0.0

    def time(self) -> float:
        return self._virtual

    def jump(self, seconds: float) -> None:
        self._virtual += max(seconds, 0.0)


class LoopTime:
    """The running loop's clock from `start` (an epoch second, for an event's schedule)."""

    speed: float = 1.0

    def __init__(self, start: float = 0.0) -> None:
        self._offset = start - asyncio.get_running_loop().time()

    def now(self) -> float:
        return asyncio.get_running_loop().time() + self._offset


class _MemoryLink:
    def __init__(self, line: MemoryLine) -> None:
        self._line = line
        self._parser = HostParser()
        self._queue: asyncio.Queue[bytes | None] = asyncio.Queue()
        self.closed = False

    async def read(self) -> bytes:
        if self.closed:
            raise LinkError("port closed")
        data = await self._queue.get()
        if data is None:
            raise LinkError("port closed")
        return data

    def write(self, data: bytes) -> None:
        if self.closed:
            raise LinkError("port closed")
        line = self._line
        t = line.time_source.now()
        for item in self._parser.feed(data):
            line.commands[
                item.code if isinstance(item, SingleCommand) else type(item).__name__
            ] += 1
            if not line.muted:
                self.send(line.board.handle(item, t))

    def send(self, data: bytes) -> None:
        if data and not self.closed:
            self._queue.put_nowait(data)

    def fail(self) -> None:
        self.closed = True
        self._queue.put_nowait(None)

    async def close(self) -> None:
        self.closed = True
        self._line.forget(self)


class MemoryLine:
    """One emulated board on an in-memory serial line; `opener` is the driver's opener."""

    def __init__(self, board: EmulatedBoard, time_source: Any, *, tick: float = 0.05) -> None:
        self.board = board
        self.time_source = time_source
        self.tick = tick
        self.plugged = True
        self.muted = False
        self.commands: Counter[int | str] = Counter()
        self._link: _MemoryLink | None = None
        self._task: asyncio.Task[None] | None = None

    async def __aenter__(self) -> MemoryLine:
        self._task = asyncio.create_task(self._pump(), name="memory line")
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass
        if self._link is not None:
            self._link.fail()

    async def opener(self, path: str) -> Link:
        if not self.plugged:
            raise LinkError(f"cannot open {path}: no such device")
        if self._link is not None:
            self._link.fail()
        self._link = _MemoryLink(self)
        return self._link

    def forget(self, link: _MemoryLink) -> None:
        if self._link is link:
            self._link = None

    def _send(self, data: bytes) -> None:
        if self._link is not None and not self.muted:
            self._link.send(data)

    async def _pump(self) -> None:
        while True:
            await asyncio.sleep(self.tick)
            self._send(self.board.tick(self.time_source.now()))

    # -- faults and players --------------------------------------------------------------------

    def unplug(self) -> None:
        """The board's cable pulled: the link fails, the port cannot be opened."""
        self.plugged = False
        if self._link is not None:
            self._link.fail()
            self._link = None

    def plug(self) -> None:
        """The cable back: the board restarts its serial session, as a USB board does."""
        self.plugged = True
        self.board.power_up(self.time_source.now(), reboot_seconds=0.0)

    def set_square(self, index: int, code: int) -> None:
        self._send(self.board.set_square(index, code, self.time_source.now()))

    def press_lever(self, side: Side) -> None:
        self._send(self.board.press_lever(side, self.time_source.now()))

    def setup_clock(self, left: float, right: float, increment: float = 0.0) -> None:
        assert self.board.clock is not None
        self.board.clock.setup(left, right, self.time_source.now(), increment=increment)

    def lose_power(self, seconds: float) -> None:
        self.board.lose_power(self.time_source.now(), seconds)

    def unplug_clock(self) -> None:
        self.board.unplug_clock()

    def plug_clock(self) -> None:
        self.board.plug_clock()

    def clock_battery_dies(self) -> None:
        self.board.clock_battery_dies(self.time_source.now())
