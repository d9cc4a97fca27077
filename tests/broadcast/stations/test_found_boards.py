"""Boards found by their serial numbers (`[[board]] serial = ...` with no port), with a
real redis-server and station entries written by hand: a board is placed where a
station's driver first reports it, its game follows from there, a restart places it
there again from the journal, a station the config does not name may find it, a second
station is refused while the first holds the board (one alert), a board carried to
another computer follows it, a board given to one station is refused on the others, and
a board no station finds is one alert."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import chess
from redis import asyncio as aioredis

from boards.driver_events import BoardConnected, BoardInfo, DriverEvent, PositionSeen
from boards.position import BoardPosition
from broadcast.config.model import EventConfig
from broadcast.journal.store import Journal
from broadcast.service.event_service import EventService
from broadcast.stations.intake import station_ports
from broadcast.stations.wire import (
    StationBeat,
    StationEvent,
    StationKeys,
    decode_known,
    decode_venue,
)
from clocks.timesource import ManualTime
from tests.broadcast.stations.test_intake import MOVES, journaled, play_out, station_alerts
from tests.support.redis_server import RedisProcess
from tests.support.station_intake import (
    SERIALS,
    game_events,
    running_intake,
    station_config,
    until,
    xadd,
)
from tests.support.web_app import T0

EVENT = "Pamplona Masters"
KEYS = StationKeys.of(EVENT)


def found_config() -> EventConfig:
    """Boards 1-2 on east-1 by port; board 3 found on any station, board 4 only on west-1."""
    config = station_config()
    boards = tuple(
        b
        if b.number < 3
        else replace(
            b,
            port="",
            station="west-1" if b.number == 4 else None,
            serial=SERIALS[b.number],
        )
        for b in config.boards
    )
    return replace(config, boards=boards)


def found_service(folder: Path, clock: ManualTime) -> EventService:
    config = found_config()
    service = EventService(
        config,
        Journal(folder / "journal.sqlite"),
        time_source=clock,
        live_round=1,
        delay=0,
        port_overrides=station_ports(config),
    )
    service.load()
    return service


def reported(station: str, board: int, port: str, t0: float, moves: list[str]) -> list[Any]:
    """`board`'s game as `station`'s driver on `port` reads it."""
    events: list[DriverEvent] = []
    for e in game_events(board, t0, moves):
        if isinstance(e, BoardConnected):
            e = replace(e, info=replace(e.info, port=port))
        events.append(e)
    return [StationEvent(station, "a1", k + 1, port, e) for k, e in enumerate(events)]


def board_after(sans: list[str]) -> chess.Board:
    board = chess.Board()
    for san in sans:
        board.push_san(san)
    return board


def beat(station: str, t: float, connected: tuple[int, ...]) -> StationBeat:
    return StationBeat(station, "a1", 0, t, 0.0, 0.001, 0, connected)


async def join(url: str, *stations: str) -> None:
    """What a station's greeting does: its name in the venue's set of stations."""
    client = aioredis.Redis.from_url(url)
    try:
        await client.sadd(KEYS.stations, *stations)
    finally:
        await client.aclose()


async def test_a_board_is_placed_where_a_station_finds_it_and_again_after_a_restart(
    tmp_path: Path, redis_server: RedisProcess
) -> None:
    clock = ManualTime(T0)
    service = found_service(tmp_path, clock)
    assert service.hall[3].config.port == "(serial 20003, not found yet)"
    async with running_intake(service, redis_server.url) as intake:
        # The venue tells the stations what to look for.
        await until(lambda: intake.state == "up")
        client = aioredis.Redis.from_url(redis_server.url)
        venue = decode_venue(await client.hgetall(KEYS.venue))
        await client.aclose()
        wanted = getattr(venue, "wanted", ())
        assert {(w.number, w.serial, w.station) for w in wanted} == {
            (3, "20003", None),
            (4, "20004", "west-1"),
        }
        # "north" is in no [[board]]: it joins, and finds board 3 on its /dev/ttyACM3.
        await join(redis_server.url, "north")
        await xadd(redis_server.url, EVENT, reported("north", 3, "/dev/ttyACM3", T0 + 1, MOVES))
        await until(lambda: service.state.stations.get("north") == ("a1", 6))
        await play_out(service, clock, 60)
        assert intake.refused == 0
        # Where it is found next (carried to another computer), its log is read from
        # what the journal knows: the position after the last move.
        await until(lambda: intake._known_sent.get(KEYS.found, {}).keys() == {"3", "4"})
        await intake.publish_known(client := aioredis.Redis.from_url(redis_server.url))
        known, refused = decode_known(await client.hgetall(KEYS.found))
        await client.aclose()
        assert not refused and known[3].serial == "20003"
        assert known[3].position == BoardPosition.from_board(board_after(MOVES))
        assert known[4].serial == "20004" and known[4].position is None  # a first start
    assert service.hall[3].config.port == "north:/dev/ttyACM3"
    assert service.hall[3].name == SERIALS[3]
    game = service.book.get(service.hall[3].game or "")
    assert [m.san for m in game.moves] == MOVES
    assert service.drivers == []  # no local driver for a board found on a station
    # A restart places it there from the journal, before any station speaks.
    again = found_service(tmp_path, ManualTime(clock.now()))
    async with running_intake(again, redis_server.url) as intake:
        assert again.hall[3].config.port == "north:/dev/ttyACM3"
        assert {r["name"]: r["boards"] for r in again.health.stations()}["north"] == [3]


async def test_a_second_station_is_refused_while_the_first_holds_the_board(
    tmp_path: Path, redis_server: RedisProcess
) -> None:
    clock = ManualTime(T0)
    service = found_service(tmp_path, clock)
    async with running_intake(service, redis_server.url) as intake:
        await join(redis_server.url, "north", "south")
        await xadd(redis_server.url, EVENT, reported("north", 3, "/dev/ttyACM3", T0 + 1, MOVES[:1]))
        await xadd(redis_server.url, EVENT, [beat("north", T0 + 1, (3,))])
        await until(lambda: service.hall[3].config.port == "north:/dev/ttyACM3")
        # Board 3 on a second computer at once (its Bluetooth, say): refused, one alert.
        second = reported("south", 3, "/dev/rfcomm0", T0 + 2, [])
        await xadd(redis_server.url, EVENT, [*second, beat("south", T0 + 2, (3,))])
        await until(lambda: bool(station_alerts(service, clock, "board-claimed-twice")))
        claimed = station_alerts(service, clock, "board-claimed-twice")
        assert len(claimed) == 1 and "south" in claimed[0].message
        assert "north" in claimed[0].message and "board 3" in claimed[0].message
        assert service.hall[3].config.port == "north:/dev/ttyACM3"
        await until(lambda: intake.refused == 2)
        # North lets go of it (the USB cable pulled) while south still holds it: the
        # board moves to south's port, connected there, and its game goes on from there.
        clock.advance(1)
        await xadd(redis_server.url, EVENT, [beat("north", T0 + 3, ())])
        await xadd(redis_server.url, EVENT, [beat("south", T0 + 3, (3,))])
        await until(lambda: service.hall[3].config.port == "south:/dev/rfcomm0")
        await until(lambda: not station_alerts(service, clock, "board-claimed-twice"))
        rows = {r["name"]: r["boards"] for r in service.health.stations()}
        assert rows["south"] == [3] and rows["north"] == []
        after = BoardPosition.from_board(board_after(MOVES[:2]))
        reply = PositionSeen(T0 + 5, SERIALS[3], after)
        await xadd(redis_server.url, EVENT, [StationEvent("south", "a1", 3, "/dev/rfcomm0", reply)])
        await until(lambda: service.state.stations.get("south") == ("a1", 3))
        await play_out(service, clock, 20)
        game = service.book.get(service.hall[3].game or "")
        assert [m.san for m in game.moves] == MOVES[:2]
        assert service.hall[3].name == SERIALS[3]
        # Carried on again while south no longer holds it: its new report moves it at once.
        clock.advance(1)
        await xadd(redis_server.url, EVENT, [beat("south", T0 + 27, ())])
        moved = reported("north", 3, "/dev/ttyUSB5", T0 + 28, [])
        moved = [replace(e, seq=e.seq + 3) for e in moved]
        await xadd(redis_server.url, EVENT, moved)
        await until(lambda: service.hall[3].config.port == "north:/dev/ttyUSB5")


async def test_a_board_given_to_one_station_is_refused_on_another(
    tmp_path: Path, redis_server: RedisProcess
) -> None:
    clock = ManualTime(T0)
    service = found_service(tmp_path, clock)
    async with running_intake(service, redis_server.url) as intake:
        await xadd(
            redis_server.url, EVENT, reported("east-1", 4, "/dev/ttyACM9", T0 + 1, MOVES[:1])
        )
        await until(lambda: intake.refused == 3)  # its connection, the start, 1.e4
        assert service.hall[4].config.port == "(serial 20004, not found yet)"
        await xadd(
            redis_server.url, EVENT, reported("west-1", 4, "/dev/ttyACM0", T0 + 1, MOVES[:1])
        )
        await until(lambda: service.hall[4].config.port == "west-1:/dev/ttyACM0")
    assert [c.info.port for c in journaled(service, BoardConnected)] == ["west-1:/dev/ttyACM0"]


async def test_a_board_no_station_finds_is_one_alert_naming_its_serial(
    tmp_path: Path, redis_server: RedisProcess
) -> None:
    clock = ManualTime(T0)
    service = found_service(tmp_path, clock)
    async with running_intake(service, redis_server.url) as intake:
        clock.advance(30)
        intake.look()
        missing = station_alerts(service, clock, "board-missing")
        assert sorted(a.message for a in missing) == [
            "Board 3 (serial number 20003) is not found on any capture station: plug it "
            "into one (its USB cable, its power), or check its serial number in the event's "
            "config",
            "Board 4 (serial number 20004) is not found on any capture station: plug it "
            "into one (its USB cable, its power), or check its serial number in the event's "
            "config",
        ]
        info = BoardInfo("/dev/ttyACM0", SERIALS[4], (1, 7), "single")
        found = StationEvent(
            "west-1", "a1", 1, "/dev/ttyACM0", BoardConnected(T0 + 30, "20004", info)
        )
        await xadd(redis_server.url, EVENT, [found])
        await until(lambda: service.hall[4].config.port == "west-1:/dev/ttyACM0")
        intake.look()
        assert ["3" in a.message for a in station_alerts(service, clock, "board-missing")] == [True]
