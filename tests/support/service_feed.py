"""Games played by emulated people at emulated boards, fed through an `EventService` in
virtual time: what the boards would report (scans, clock readings) becomes driver events,
the service ticks every half second of event time. No ports, no waiting."""

from __future__ import annotations

import bisect
import heapq
import random
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import chess.pgn

from boards.driver_events import BoardConnected, BoardInfo, ClockSeen, DriverEvent, PositionSeen
from boardsim.humans import Habits, perform
from boardsim.readout import board_scans, clock_readings
from broadcast.arbiter.context import RulesConfig
from broadcast.config.loader import load_event
from broadcast.journal.store import Journal
from broadcast.service.event_service import EventService
from clocks.timesource import ManualTime
from tests.support.paths import ROOT

EXAMPLES = ROOT / "examples"
PAMPLONA = EXAMPLES / "pamplona-masters.toml"
TICK = 0.5
MAX_THINK = 20.0  # event seconds per move at most: the test plays hours of chess in seconds


@dataclass(frozen=True, slots=True)
class Played:
    """One board's game as performed."""

    board: int
    serial: str
    game: chess.pgn.Game
    flag: bool = False


def think_times(game: chess.pgn.Game) -> list[float]:
    return [min(n.emt() or 8.0, MAX_THINK) for n in game.mainline()]


def stalled(
    times: Sequence[float], seed: int, rate: float, length: tuple[float, float] = (1.5, 4.0)
) -> Any:
    """A monotone time warp: at random moments (`rate` per event second) everything after
    is late by `length` (1.5 to 4 s), as when a loaded machine runs the simulator at 20x (a 0.1 s stall
    of the event loop is 2 s of event time): a hand seems to hold a piece longer, a clock
    press arrives before the board's position has settled."""
    rng = random.Random(seed)
    end = max(times, default=0.0)
    at: list[float] = []
    shift: list[float] = []
    t, total = 0.0, 0.0
    while rate > 0 and t < end:
        t += rng.expovariate(rate)
        total += rng.uniform(*length)
        at.append(t)
        shift.append(total)

    def warp(x: float) -> float:
        i = bisect.bisect_right(at, x)
        return x + (shift[i - 1] if i else 0.0)

    return warp


def board_events(
    played: Played,
    port: str,
    t0: float,
    seed: int,
    habits: Habits,
    increment: int,
    stall_rate: float = 0.0,
) -> list[DriverEvent]:
    """What the board of `played` reports, from `t0` on."""
    moves = list(played.game.mainline_moves())
    perf = perform(
        moves,
        start_fen=played.game.board().fen(),
        habits=habits,
        seed=seed,
        think=think_times(played.game),
        initial_seconds=(7200, 7200),
        result=None if played.flag else played.game.headers.get("Result"),
        flag=played.flag,
    )
    info = BoardInfo(port, played.serial, (1, 7), "single", battery_percent=90, clock_present=True)
    scans = board_scans(perf, seed=seed)
    readings = clock_readings(perf, increment=increment)
    warp = stalled([t for t, _ in scans], seed, stall_rate)
    out: list[DriverEvent] = [BoardConnected(t0 - 1.0, played.serial, info)]
    out += [PositionSeen(t0 + warp(t), played.serial, p) for t, p in scans]
    out += [ClockSeen(t0 + warp(t), played.serial, r) for t, r in readings]
    if readings and not played.flag:
        # The game over, the players stop the clock (a running clock would report on).
        end = t0 + warp(max(max(t for t, _ in scans), readings[-1][0])) + 2.0
        out.append(ClockSeen(end, played.serial, replace(readings[-1][1], running=False)))
    return out


def run_round(
    tmp: Path,
    games: Sequence[chess.pgn.Game],
    *,
    seed: int = 0,
    habits: Habits | None = None,
    flags: Sequence[int] = (),
    after: float = 30.0,
    delay: float = 0.0,
    stall_rate: float = 0.0,
    rules: RulesConfig | None = None,
) -> tuple[EventService, ManualTime]:
    """Round 1 of the Pamplona example with `games` on its boards (board k plays
    games[k-1]; boards in `flags` let the flag fall at the end instead of finishing)."""
    config = load_event(PAMPLONA)
    time_source = ManualTime(1_800_000_000.0)
    service = EventService(
        config,
        Journal(tmp / f"feed-{seed}.sqlite"),
        time_source=time_source,
        live_round=1,
        delay=delay,
        rules=rules,
    )
    service.load()
    increment = config.sections[0].time_control.periods("white")[0].increment
    queue: list[tuple[float, int, str, Any]] = []
    n = 0
    for k, game in enumerate(games[: len(config.boards)], 1):
        hall = config.boards[k - 1]
        played = Played(k, f"{10000 + k:05d}", game, flag=k in flags)
        for event in board_events(
            played,
            hall.port,
            time_source.now() + 10.0,
            seed * 31 + k,
            habits or Habits.realistic(),
            increment,
            stall_rate,
        ):
            heapq.heappush(queue, (event.t, n, hall.port, event))
            n += 1
    next_tick = time_source.now() + TICK
    last = time_source.now()
    while queue:
        t, _, port, event = heapq.heappop(queue)
        while next_tick <= t:
            time_source.set(next_tick)
            service.tick()
            next_tick += TICK
        time_source.set(max(t, time_source.now()))
        service.on_driver_event(port, event)
        last = t
    while next_tick <= last + after:
        time_source.set(next_tick)
        service.tick()
        next_tick += TICK
    return service, time_source


def journal_events(service: EventService) -> list[Any]:
    return [entry.event for entry in service.journal.read()]


def load_games(
    path: Path, count: int, *, skip: int = 0, min_plies: int = 10
) -> list[chess.pgn.Game]:
    """`count` standard-start games of at least `min_plies` plies from a PGN file."""
    out: list[chess.pgn.Game] = []
    seen = 0
    with path.open(encoding="utf-8", errors="replace") as f:
        while len(out) < count:
            game = chess.pgn.read_game(f)
            if game is None:
                break
            if "FEN" in game.headers or game.errors:
                continue
            if len(list(game.mainline_moves())) < min_plies:
                continue
            seen += 1
            if seen > skip:
                out.append(game)
    return out
