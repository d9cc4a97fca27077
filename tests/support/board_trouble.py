"""A board, its driver and the arbiter's rules for minutes of virtual time (issue 30).

`run_board(script, ...)` puts one emulated board on an in-memory line
(`boardsim.virtual.MemoryLine`), follows it with the real `SingleBoardDriver` on a
virtual-time loop, and feeds every driver event to the arbiter's rules (attached to
Sestao round 1, board 1), ticking them every second. `script(line)` is what happens at
the table (moves, presses, a clock that dies, a cable pulled), awaited with virtual
sleeps. It returns what the arbiter raised and closed, and how often the board's log was
read.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field

from boards.driver_events import DriverEvent
from boards.drivers.single import DriverSettings, SingleBoardDriver
from boardsim.board import EmulatedBoard
from boardsim.virtual import LoopTime, MemoryLine, VirtualClockLoop
from boardsim.wire import HostCommand
from broadcast.arbiter import Alert, AlertResolved
from broadcast.arbiter.standalone import StandaloneRules
from broadcast.games.game_events import BoardAttached
from tests.support.arbiter import SESTAO, engine, gid, start_of

BOARD = "10001"
GAME = gid(SESTAO, 1, 1)
START = start_of(SESTAO, 1)
# Alerts about a board's health (not the game's moves).
BOARD_KINDS = frozenset({"board-not-responding", "clock-not-connected", "moves-to-check"})

Script = Callable[[MemoryLine], Awaitable[None]]


@dataclass
class Outcome:
    """What the arbiter saw of one board in the run."""

    raised: list[Alert] = field(default_factory=list)
    resolved: list[AlertResolved] = field(default_factory=list)
    events: list[DriverEvent] = field(default_factory=list)
    log_reads: int = 0
    rules: StandaloneRules | None = None

    def of(self, kind: str) -> list[Alert]:
        return [a for a in self.raised if a.kind == kind]

    def open(self) -> list[Alert]:
        assert self.rules is not None
        return [a for a in self.rules.open_alerts() if a.kind in BOARD_KINDS]

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for alert in self.raised:
            out[alert.kind] = out.get(alert.kind, 0) + 1
        out["closed"] = len(self.resolved)
        out["log reads"] = self.log_reads
        return out


async def _run(
    script: Script,
    minutes: float,
    board_kw: dict[str, object],
    settings: DriverSettings | None,
    watch: Callable[[Outcome], None] | None,
) -> Outcome:
    out = Outcome()
    rules = engine(SESTAO)
    out.rules = rules
    t0 = START + 60  # a minute into the round
    time_source = LoopTime(t0)
    rules.observe(BoardAttached(GAME, BOARD, t0 - 600))
    board = EmulatedBoard(BOARD, t=t0, download_rate=None, **board_kw)  # type: ignore[arg-type]
    mine = {a.id for a in rules.open_alerts()}

    def took(new: Sequence[object]) -> None:
        for e in new:
            if isinstance(e, Alert) and e.kind in BOARD_KINDS:
                out.raised.append(e)
                mine.add(e.id)
            elif isinstance(e, AlertResolved) and e.alert in mine:
                out.resolved.append(e)

    over = False

    def emit(event: DriverEvent) -> None:
        if over:
            return  # the driver stopping at the end of the run: not the board's doing
        out.events.append(event)
        took(rules.observe(event, game=GAME))

    async with MemoryLine(board, time_source) as line:
        driver = SingleBoardDriver(
            "mem://board-1", emit, time_source=time_source, opener=line.opener, settings=settings
        )
        task = asyncio.ensure_future(driver.run())

        async def ticking() -> None:
            while True:
                await asyncio.sleep(1.0)
                took(rules.tick(time_source.now()))
                if watch is not None:
                    watch(out)

        ticker = asyncio.ensure_future(ticking())
        try:
            await asyncio.sleep(5.0)  # connected
            script_task = asyncio.ensure_future(script(line))
            await asyncio.sleep(minutes * 60)
            if script_task.done():
                script_task.result()
            else:
                script_task.cancel()
        finally:
            over = True
            driver.stop()
            ticker.cancel()
            await asyncio.wait({task}, timeout=30)
            if not task.done():
                task.cancel()
        out.log_reads = line.commands[HostCommand.SEND_EE_MOVES]
    return out


def run_board(
    script: Script,
    *,
    minutes: float = 7.0,
    settings: DriverSettings | None = None,
    watch: Callable[[Outcome], None] | None = None,
    **board_kw: object,
) -> Outcome:
    """Run `script` at a board for `minutes` of virtual time (see the module docstring);
    `watch(outcome)` is called after every second's tick of the rules."""
    with asyncio.Runner(loop_factory=VirtualClockLoop) as runner:
        return runner.run(_run(script, minutes, board_kw, settings, watch))


__all__ = ["BOARD", "BOARD_KINDS", "GAME", "START", "Outcome", "run_board"]
