"""Emulated boards shaped like an event's config, for `serve --sim` and `demo`.

Each port of the config becomes a pseudo-terminal: a single emulated board, or a bus line
of emulated boards whose serial numbers are the configured bus addresses. Only the CLI
layer imports this module (DESIGN: only the command may import the simulator).
"""

from __future__ import annotations

import asyncio
import logging
import tempfile
from collections import defaultdict
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import chess.pgn

from boardsim.board import EmulatedBoard
from boardsim.busline import BusLine
from boardsim.firmware import firmware_list
from boardsim.pty import PtyHost
from boardsim.script import actions_for_game, play
from boardsim.sim import clean_stale_runs, run_folder_prefix
from broadcast.config.model import BoardConfig, EventConfig
from broadcast.service.supervisor import SupervisedTask, Supervisor
from clocks.timesource import MonotonicTimeSource

log = logging.getLogger(__name__)

# Sim seconds between every board being followed and the players setting their clocks.
START_AFTER = 5.0
# Real seconds to wait for the service to follow every board before the games start anyway.
FOLLOW_WAIT = 60.0


@dataclass
class SimulatedHall:
    """The running emulated boards; `stop()` closes them.

    Each emulated player is a supervised task (on the service's supervisor when given,
    else the hall's own): a player whose script fails is logged with its traceback and
    alerted, and not restarted (its game cannot start over)."""

    hosts: list[PtyHost] = field(default_factory=list)
    where: dict[int, tuple[PtyHost, int]] = field(
        default_factory=dict
    )  # hall board -> (host, index)
    players: list[SupervisedTask] = field(default_factory=list)
    rundir: tempfile.TemporaryDirectory[str] | None = None
    supervisor: Supervisor = field(default_factory=Supervisor)

    async def play(
        self,
        board: int,
        game: chess.pgn.Game,
        time: MonotonicTimeSource,
        *,
        speed: float,
        delay: float = 0.0,
        supervisor: Supervisor | None = None,
        **kw: object,
    ) -> None:
        host, index = self.where[board]
        actions = actions_for_game(game, **kw)  # type: ignore[arg-type]

        async def run() -> None:
            await asyncio.sleep(delay)
            await play(host, actions, time, board=index, speed=speed)

        self.start_player(board, run, supervisor)

    def start_player(
        self, board: int, run: Callable[[], Awaitable[None]], supervisor: Supervisor | None
    ) -> SupervisedTask:
        """Run one board's emulated player as a supervised one-shot task."""
        task = (supervisor or self.supervisor).start(
            f"the emulated player on board {board}",
            run,
            stops=f"The emulated game on board {board} does not go on.",
            restart=False,
        )
        self.players.append(task)
        return task

    async def start_games(
        self,
        games: Sequence[chess.pgn.Game],
        time: MonotonicTimeSource,
        *,
        speed: float,
        followed: Callable[[], bool],
        start_after: float = START_AFTER,
        wait_limit: float = FOLLOW_WAIT,
        supervisor: Supervisor | None = None,
    ) -> None:
        """Play `games` (in turn) on every board, once `followed()` says the service follows
        every board. A fixed real-time head start is not enough: at 40x, a service that takes
        two seconds to come up meets games 80 s old and can never pick up their first moves.
        `start_after` is in sim seconds (the start position must be seen stable first)."""
        if not games:
            return
        loop = asyncio.get_running_loop()
        deadline = loop.time() + wait_limit
        while not followed():
            if loop.time() >= deadline:
                log.warning("emulated games start although not every board is followed yet")
                break
            await asyncio.sleep(0.05)
        for n, board in enumerate(sorted(self.where)):
            await self.play(
                board,
                games[n % len(games)],
                time,
                speed=speed,
                delay=start_after / speed,
                supervisor=supervisor,
            )

    async def wait_players(self) -> None:
        """Until every emulated player has played its game; raises the first failure
        (already logged and alerted when it happened)."""
        if self.players:
            await asyncio.wait({p.task for p in self.players})
        for player in self.players:
            if player.errors:
                raise player.errors[0]

    async def stop(self) -> None:
        for task in self.players:
            task.cancel()
        for task in self.players:
            await task.stop()  # a player that failed was logged and alerted then
        for host in self.hosts:
            await host.stop()
        if self.rundir is not None:
            self.rundir.cleanup()


def _serial(board: BoardConfig) -> str:
    return f"{board.address:05d}" if board.address is not None else f"{10000 + board.number:05d}"


async def start_simulated_boards(
    config: EventConfig, time: MonotonicTimeSource, *, speed: float = 1.0, firmware: str = "classic"
) -> tuple[SimulatedHall, dict[int, str]]:
    """Start emulated boards for every configured board; returns them and the hall board
    number -> device path map to use instead of the configured ports. Games are started
    with `SimulatedHall.start_games` once the service follows the boards. `firmware`:
    the variant(s) of `boardsim.firmware`, comma-separated, given to the boards in turn
    (in hall board order)."""
    variants = firmware_list(firmware)
    clean_stale_runs()  # run folders of simulations killed with -9
    hall = SimulatedHall(rundir=tempfile.TemporaryDirectory(prefix=run_folder_prefix()))
    assert hall.rundir is not None
    by_port: dict[str, list[BoardConfig]] = defaultdict(list)
    for board in config.boards:
        by_port[board.port].append(board)
    paths: dict[int, str] = {}
    t = time.now()
    for i, (_port, boards) in enumerate(sorted(by_port.items())):
        boards.sort(key=lambda b: b.number)
        emulated = [
            EmulatedBoard(
                _serial(b),
                seed=b.number,
                t=t,
                firmware=variants[(b.number - 1) % len(variants)],
            )
            for b in boards
        ]
        device: EmulatedBoard | BusLine = (
            BusLine(emulated) if len(boards) > 1 or boards[0].address is not None else emulated[0]
        )
        host = PtyHost(device, Path(hall.rundir.name) / f"port-{i + 1}", time_source=time)
        await host.start()
        hall.hosts.append(host)
        for index, board in enumerate(boards):
            hall.where[board.number] = (host, index)
            paths[board.number] = str(host.path)
    return hall, paths


__all__ = ["FOLLOW_WAIT", "START_AFTER", "SimulatedHall", "start_simulated_boards"]
