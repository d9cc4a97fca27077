"""The central serve's side of capture stations in tests: the Pamplona example with its
boards on two stations, a service over it, and station entries written into Redis by
hand (XADD + `encode_entry`), with no station process."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import chess
from redis import asyncio as aioredis

from boards.driver_events import BoardConnected, BoardInfo, DriverEvent, PositionSeen
from boards.position import BoardPosition
from broadcast.config import load_event
from broadcast.config.model import EventConfig
from broadcast.journal.store import Journal
from broadcast.publish.redis_link import RedisTarget, redis_problem
from broadcast.service.event_service import EventService
from broadcast.stations.intake import Intake, station_ports
from broadcast.stations.wire import StationEntry, StationKeys, encode_entry
from clocks.timesource import ManualTime
from tests.support.web_app import EVENT, T0

# board -> (station, port): two stations, each with its own /dev/ttyUSB0
PLACES = {
    1: ("east-1", "/dev/ttyUSB0"),
    2: ("east-1", "/dev/ttyUSB1"),
    3: ("west-1", "/dev/ttyUSB0"),
    4: ("west-1", "/dev/ttyUSB2"),
}
SERIALS = {n: f"{20000 + n:05d}" for n in PLACES}


def station_config() -> EventConfig:
    config = load_event(EVENT)
    boards = tuple(
        replace(b, station=PLACES[b.number][0], port=PLACES[b.number][1]) for b in config.boards
    )
    return replace(config, boards=boards)


def station_service(folder: Path, clock: ManualTime | None = None) -> EventService:
    """Round 1 live, no delay, its journal `folder/journal.sqlite` (the same on a restart)."""
    config = station_config()
    service = EventService(
        config,
        Journal(folder / "journal.sqlite"),
        time_source=clock or ManualTime(T0),
        live_round=1,
        delay=0,
        port_overrides=station_ports(config),
    )
    service.load()
    return service


def game_events(board: int, t0: float, sans: Sequence[str]) -> list[DriverEvent]:
    """Board `board` connects and shows the start, then each move 10 s after the last."""
    serial = SERIALS[board]
    port = PLACES[board][1]
    info = BoardInfo(port, serial, (1, 7), "single", battery_percent=90, clock_present=False)
    chess_board = chess.Board()
    out: list[DriverEvent] = [
        BoardConnected(t0, serial, info),
        PositionSeen(t0 + 1, serial, BoardPosition.from_board(chess_board)),
    ]
    for k, san in enumerate(sans, 1):
        chess_board.push_san(san)
        out.append(PositionSeen(t0 + 1 + 10 * k, serial, BoardPosition.from_board(chess_board)))
    return out


async def xadd(url: str, event: str, entries: Sequence[StationEntry]) -> list[str]:
    """Write `entries` on their stations' streams, in order; their stream ids."""
    keys = StationKeys.of(event)
    client = aioredis.Redis.from_url(url)
    try:
        ids = []
        for entry in entries:
            fields: dict[Any, Any] = dict(encode_entry(entry))
            got = await client.xadd(keys.stream(entry.station), fields)
            ids.append(got.decode() if isinstance(got, bytes) else str(got))
        return ids
    finally:
        await client.aclose()


async def until(check: Callable[[], bool], seconds: float = 8.0) -> None:
    """Wait (real time) until `check()`; fail after `seconds`."""
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError("not reached in time")
        await asyncio.sleep(0.02)


@contextlib.asynccontextmanager
async def running_intake(
    service: EventService, url: str, **options: object
) -> AsyncIterator[Intake]:
    """The intake of `service` running on this loop for the `with` block."""
    intake = Intake(service, RedisTarget(url), problem=redis_problem, block_ms=50, **options)  # type: ignore[arg-type]
    task = asyncio.ensure_future(intake.run())
    try:
        yield intake
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        await service.committer.flush()
