"""Emulated boards shaped like an event's config, for `serve --sim` and `demo`.

Each port of the config becomes a pseudo-terminal: a single emulated board, or a bus line
of emulated boards whose serial numbers are the configured bus addresses. Only the CLI
layer imports this module (DESIGN: only the command may import the simulator).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import tempfile
from collections import defaultdict
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import chess.pgn

from boardsim.board import EmulatedBoard
from boardsim.busline import BusLine
from boardsim.firmware import firmware_list
from boardsim.pty import PtyHost
from boardsim.script import Action, ClockSetup, actions_for_game, play
from boardsim.sim import clean_stale_runs, run_folder_prefix
from broadcast.config.model import EventConfig
from broadcast.service.supervisor import SupervisedTask, Supervisor
from clocks.timecontrol import TimeControl
from clocks.timesource import MonotonicTimeSource

log = logging.getLogger(__name__)

# Sim seconds between every board being followed and the players setting their clocks.
START_AFTER = 5.0
# Real seconds to wait for the service to follow every board before the games start anyway.
FOLLOW_WAIT = 60.0


def clock_setting(time_control: TimeControl) -> tuple[float, float]:
    """What the arbiter sets the clocks to for the event's time control: the first
    period's time and increment (the emulated clocks run in event time, so at --speed N
    they run N times faster, like everything else)."""
    first = time_control.periods("white")[0]
    return float(first.seconds), float(first.increment)


def _pgn_base(game: chess.pgn.Game) -> float | None:
    """The clock time the game's PGN started from: the higher of the first two [%clk]s (a
    first move without one must not make the other side's first clock a long think)."""
    clocks = [c for c in (n.clock() for n in list(game.mainline())[:2]) if c is not None]
    return max(clocks) if clocks else None


def event_clock_actions(
    game: chess.pgn.Game, time_control: TimeControl | None, **kw: object
) -> list[Action]:
    """The players' timeline for `game` with the clocks set for the event's
    `time_control` (None: what the game's PGN says). The think times still come from the
    PGN's own clocks; only the clock setting follows the event, as the arbiter sets it.
    A PGN from a faster game (15-minute clocks) would otherwise flag within minutes."""
    # The clocks start from the PGN's first clocks even without a time control: a game
    # whose first move has no [%clk] would otherwise start from the simulator's 90
    # minutes, and Black's first move would think for an hour and a quarter.
    actions = actions_for_game(game, base=_pgn_base(game), **kw)  # type: ignore[arg-type]
    if time_control is None:
        return actions
    base, increment = clock_setting(time_control)
    return [
        dataclasses.replace(a, left_seconds=base, right_seconds=base, increment=increment)
        if isinstance(a, ClockSetup)
        else a
        for a in actions
    ]


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
        time_source: MonotonicTimeSource,
        *,
        speed: float,
        delay: float = 0.0,
        supervisor: Supervisor | None = None,
        time_control: TimeControl | None = None,
        **kw: object,
    ) -> None:
        """Play `game` on hall board `board`, the clocks set for `time_control` (the
        event's; None: the PGN's own)."""
        host, index = self.where[board]
        actions = event_clock_actions(game, time_control, **kw)

        async def run() -> None:
            await asyncio.sleep(delay)
            await play(host, actions, time_source, board=index, speed=speed)

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
        time_source: MonotonicTimeSource,
        *,
        speed: float,
        followed: Callable[[], bool],
        start_after: float = START_AFTER,
        wait_limit: float = FOLLOW_WAIT,
        supervisor: Supervisor | None = None,
        time_controls: Mapping[int, TimeControl] | None = None,
    ) -> None:
        """Play `games` (in turn) on every board, once `followed()` says the service follows
        every board; each board's clocks set for its time control in `time_controls` (hall
        board -> the event's time control; a board not in it: the PGN's own clocks). A fixed real-time head start is not enough: at 40x, a service that takes
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
                time_source,
                speed=speed,
                delay=start_after / speed,
                supervisor=supervisor,
                time_control=(time_controls or {}).get(board),
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


class BoardPlace(Protocol):
    """Where a hall board is: a configured board, or a station's board in the venue."""

    @property
    def number(self) -> int: ...
    @property
    def port(self) -> str: ...
    @property
    def address(self) -> int | None: ...


def _serial(board: BoardPlace) -> str:
    return f"{board.address:05d}" if board.address is not None else f"{10000 + board.number:05d}"


async def start_simulated_boards(
    config: EventConfig,
    time_source: MonotonicTimeSource,
    *,
    speed: float = 1.0,
    firmware: str = "classic",
) -> tuple[SimulatedHall, dict[int, str]]:
    """Start emulated boards for every configured board; returns them and the hall board
    number -> device path map to use instead of the configured ports. Games are started
    with `SimulatedHall.start_games` once the service follows the boards. `firmware`:
    the variant(s) of `boardsim.firmware`, comma-separated, given to the boards in turn
    (in hall board order)."""
    return await start_emulated_boards(config.boards, time_source, speed=speed, firmware=firmware)


async def start_emulated_boards(
    places: Sequence[BoardPlace],
    time_source: MonotonicTimeSource,
    *,
    speed: float = 1.0,
    firmware: str = "classic",
    serials: Mapping[int, str] | None = None,
) -> tuple[SimulatedHall, dict[int, str]]:
    """`start_simulated_boards` for the boards at `places` only (a capture station's);
    `serials`: the serial numbers some hall boards must report (found by them)."""
    serials = serials or {}
    variants = firmware_list(firmware)
    clean_stale_runs()  # run folders of simulations killed with -9
    hall = SimulatedHall(rundir=tempfile.TemporaryDirectory(prefix=run_folder_prefix()))
    assert hall.rundir is not None
    by_port: dict[str, list[BoardPlace]] = defaultdict(list)
    for board in places:
        by_port[board.port].append(board)
    paths: dict[int, str] = {}
    t = time_source.now()
    for i, (_port, boards) in enumerate(sorted(by_port.items())):
        boards.sort(key=lambda b: b.number)
        emulated = [
            EmulatedBoard(
                serials.get(b.number) or _serial(b),
                seed=b.number,
                t=t,
                firmware=variants[(b.number - 1) % len(variants)],
            )
            for b in boards
        ]
        device: EmulatedBoard | BusLine = (
            BusLine(emulated) if len(boards) > 1 or boards[0].address is not None else emulated[0]
        )
        host = PtyHost(device, Path(hall.rundir.name) / f"port-{i + 1}", time_source=time_source)
        await host.start()
        hall.hosts.append(host)
        for index, board in enumerate(boards):
            hall.where[board.number] = (host, index)
            paths[board.number] = str(host.path)
    return hall, paths


def board_time_controls(config: EventConfig) -> dict[int, TimeControl]:
    """Each hall board's time control: its section's."""
    return {b.number: config.section(b.section).time_control for b in config.boards}


__all__ = [
    "FOLLOW_WAIT",
    "START_AFTER",
    "BoardPlace",
    "SimulatedHall",
    "board_time_controls",
    "clock_setting",
    "event_clock_actions",
    "start_emulated_boards",
    "start_simulated_boards",
]
