"""The central serve reads the capture stations' streams (`broadcast.stations.intake`),
with a real redis-server: station entries are written by hand (XADD + `encode_entry`).
Board events reach the journal and the games under the station's qualified port, are
acknowledged only once durable, a restart applies nothing twice and loses nothing, junk
is refused once, and the stations' health becomes one alert per station."""

from __future__ import annotations

import asyncio
import logging
import threading
from pathlib import Path
from typing import Any

import pytest
from redis import asyncio as aioredis

from boards.driver_events import BoardConnected, PositionSeen
from broadcast.journal.station_progress import StationProgress
from broadcast.stations.intake import stations_of
from broadcast.stations.wire import (
    GROUP,
    StationBeat,
    StationEvent,
    StationHello,
    StationKeys,
    decode_venue,
    encode_entry,
    qualified_port,
)
from clocks.timesource import ManualTime
from tests.support.redis_server import RedisProcess
from tests.support.station_intake import (
    PLACES,
    SERIALS,
    game_events,
    running_intake,
    station_service,
    until,
    xadd,
)
from tests.support.web_app import T0

EVENT = "Pamplona Masters"
KEYS = StationKeys.of(EVENT)
MOVES = ["e4", "e5", "Nf3", "Nc6"]


def entries(station: str, board: int, t0: float, *, inc: str = "a1", first: int = 1) -> list[Any]:
    port = PLACES[board][1]
    return [
        StationEvent(station, inc, first + k, port, e)
        for k, e in enumerate(game_events(board, t0, MOVES))
    ]


async def pending(url: str, station: str) -> int:
    client = aioredis.Redis.from_url(url)
    try:
        summary = await client.xpending(KEYS.stream(station), GROUP)
        return int(summary["pending"])
    finally:
        await client.aclose()


def journaled(service: Any, kind: type) -> list[Any]:
    return [e.event for e in service.journal.read() if isinstance(e.event, kind)]


async def play_out(service: Any, clock: ManualTime, seconds: float) -> None:
    """Event time passes: the reconstruction decides what the boards showed."""
    for _ in range(int(seconds / 0.5)):
        clock.advance(0.5)
        while not service.tick():
            await asyncio.sleep(0.01)


async def test_station_events_reach_the_journal_and_the_games(
    tmp_path: Path, redis_server: RedisProcess
) -> None:
    clock = ManualTime(T0)
    service = station_service(tmp_path, clock)
    async with running_intake(service, redis_server.url) as intake:
        await xadd(redis_server.url, EVENT, entries("east-1", 1, T0 + 1))
        await xadd(redis_server.url, EVENT, entries("west-1", 3, T0 + 1))
        await until(lambda: service.state.stations.get("west-1") == ("a1", 6))
        await until(lambda: service.state.stations.get("east-1") == ("a1", 6))
        await play_out(service, clock, 60)
        # The venue hash names every station board, and the groups exist.
        client = aioredis.Redis.from_url(redis_server.url)
        venue = decode_venue(await client.hgetall(KEYS.venue))
        await client.aclose()
        assert not isinstance(venue, type(None))
        assert {(b.number, b.station, b.port) for b in venue.boards} == {  # type: ignore[union-attr]
            (n, s, p) for n, (s, p) in PLACES.items()
        }
        await until(lambda: intake.acked >= 12)
    # Each station board is named by its qualified port; both /dev/ttyUSB0 kept apart.
    assert service.hall[1].config.port == qualified_port("east-1", "/dev/ttyUSB0")
    assert service.hall[3].config.port == qualified_port("west-1", "/dev/ttyUSB0")
    connected = journaled(service, BoardConnected)
    assert {c.info.port for c in connected} == {"east-1:/dev/ttyUSB0", "west-1:/dev/ttyUSB0"}
    assert service.hall[1].name == SERIALS[1] and service.hall[3].name == SERIALS[3]
    for board in (1, 3):
        game = service.book.get(service.hall[board].game or "")
        assert [m.san for m in game.moves] == MOVES
    assert await pending(redis_server.url, "east-1") == 0
    assert service.drivers == []  # no local driver for a station's board


async def test_entries_are_acknowledged_only_once_durable(
    tmp_path: Path, redis_server: RedisProcess
) -> None:
    service = station_service(tmp_path)
    gate = threading.Event()
    commit = service.journal.commit

    def held(txn: Any) -> None:
        gate.wait(10)
        commit(txn)

    service.journal.commit = held  # type: ignore[method-assign]
    async with running_intake(service, redis_server.url) as intake:
        await xadd(redis_server.url, EVENT, entries("east-1", 1, T0 + 1))
        await until(lambda: intake.applied_events == 6 and service.committer.syncing)
        await asyncio.sleep(0.3)  # the intake's loop turns several times meanwhile
        assert await pending(redis_server.url, "east-1") == 6
        assert intake.acked == 0
        gate.set()
        await until(lambda: intake.acked == 6)
        assert await pending(redis_server.url, "east-1") == 0
    assert journaled(service, StationProgress)[-1].seq == 6


async def test_a_restart_applies_nothing_twice_and_loses_nothing(
    tmp_path: Path, redis_server: RedisProcess
) -> None:
    first = station_service(tmp_path)
    handed = first.committer.queue_driver_event

    def until_third(port: str, event: Any, mark: Any = None) -> None:
        if mark.seq <= 3:  # the rest is read, and lost with the process before journaled
            handed(port, event, mark)

    first.committer.queue_driver_event = until_third  # type: ignore[method-assign]
    async with running_intake(first, redis_server.url) as intake:

        def no_acks() -> dict[str, list[str]]:  # killed between durable and XACK
            return {}

        intake._take_acks = no_acks  # type: ignore[method-assign]
        await xadd(redis_server.url, EVENT, entries("east-1", 1, T0 + 1))
        await until(lambda: first.state.stations.get("east-1") == ("a1", 3))
        await until(lambda: intake.applied_events == 6)
    first.journal.close()
    assert await pending(redis_server.url, "east-1") == 6

    again = station_service(tmp_path)
    assert again.state.stations["east-1"] == ("a1", 3)
    async with running_intake(again, redis_server.url) as intake:
        await until(lambda: again.state.stations.get("east-1") == ("a1", 6))
        await until(lambda: intake.acked == 6)
        assert intake.skipped == 3 and intake.applied_events == 3
    seen = journaled(again, PositionSeen) + journaled(again, BoardConnected)
    assert len(seen) == 6  # each once
    assert await pending(redis_server.url, "east-1") == 0


async def test_junk_is_refused_and_said_once(
    tmp_path: Path, redis_server: RedisProcess, caplog: pytest.LogCaptureFixture
) -> None:
    service = station_service(tmp_path)
    client = aioredis.Redis.from_url(redis_server.url)
    good = entries("east-1", 1, T0 + 1)[:2]
    async with running_intake(service, redis_server.url) as intake:
        with caplog.at_level(logging.WARNING):
            stream = KEYS.stream("east-1")
            junk: dict[Any, Any] = {"hello": "world"}
            await client.xadd(stream, junk)
            bad = {**_fields(good[1]), "seq": "9", "data": '{"t":1.0,"board":"x","position":7}'}
            await client.xadd(stream, bad)
            await client.xadd(stream, {**_fields(good[0]), "seq": "10", "port": "/dev/ttyUSB7"})
            await xadd(redis_server.url, EVENT, good)
            await until(lambda: intake.refused == 3 and intake.acked == 5)
    await client.aclose()
    said = [r for r in caplog.records if "cannot be applied" in r.getMessage()]
    assert len(said) == 1
    kinds = [a.kind for a in service.health.alerts(None, T0)]
    assert kinds.count("station-refused") == 1
    assert len(journaled(service, PositionSeen)) == 1  # the good ones only
    assert await pending(redis_server.url, "east-1") == 0


def _fields(entry: Any) -> dict[Any, Any]:
    return dict(encode_entry(entry))


def beat(station: str, t: float, offset: float = 0.0, boards: tuple[int, ...] = ()) -> Any:
    return StationBeat(station, "a1", 0, t, offset, 0.001, 0, boards)


def station_alerts(service: Any, clock: ManualTime, kind: str) -> list[Any]:
    return [a for a in service.health.alerts(None, clock.now()) if a.kind == kind]


async def test_a_lost_station_is_one_alert_naming_its_boards_closed_when_back(
    tmp_path: Path, redis_server: RedisProcess
) -> None:
    clock = ManualTime(T0)
    service = station_service(tmp_path, clock)
    async with running_intake(service, redis_server.url) as intake:
        await xadd(redis_server.url, EVENT, [beat("east-1", T0, boards=(1, 2))])
        await xadd(redis_server.url, EVENT, [beat("west-1", T0, boards=(3, 4))])
        await until(lambda: all(r["up"] for r in service.health.stations()))
        assert not station_alerts(service, clock, "station-lost")
        clock.advance(4)
        await xadd(redis_server.url, EVENT, [beat("west-1", T0 + 4, boards=(3, 4))])
        await until(lambda: intake.acked == 3)
        clock.advance(2)  # east-1 silent for 6 s
        await until(lambda: bool(station_alerts(service, clock, "station-lost")))
        lost = station_alerts(service, clock, "station-lost")
        assert len(lost) == 1 and lost[0].severity == "critical"
        assert "east-1" in lost[0].message and "boards 1, 2" in lost[0].message
        rows = {r["name"]: r for r in service.health.stations()}
        assert rows["east-1"]["up"] is False and rows["west-1"]["up"] is True
        await xadd(redis_server.url, EVENT, [beat("east-1", T0 + 6, boards=(1, 2))])
        await until(lambda: not station_alerts(service, clock, "station-lost"))
        assert {r["name"]: r for r in service.health.stations()}["east-1"]["up"] is True


async def test_a_station_clock_off_by_more_than_half_a_second_is_a_warning(
    tmp_path: Path, redis_server: RedisProcess
) -> None:
    clock = ManualTime(T0)
    service = station_service(tmp_path, clock)
    async with running_intake(service, redis_server.url) as intake:
        own = intake.health.own_offset
        await xadd(redis_server.url, EVENT, [beat("east-1", T0, own + 0.1, (1, 2))])
        await xadd(redis_server.url, EVENT, [beat("west-1", T0, own + 0.8, (3, 4))])
        await until(lambda: bool(station_alerts(service, clock, "station-clock")))
        await asyncio.sleep(0.3)
        warned = station_alerts(service, clock, "station-clock")
        assert [a.severity for a in warned] == ["warning"]
        assert "west-1" in warned[0].message and "+0.8" in warned[0].message
        rows = {r["name"]: r for r in service.health.stations()}
        assert abs(float(rows["west-1"]["offset"]) - 0.8) < 0.05  # type: ignore[arg-type]
        await xadd(redis_server.url, EVENT, [beat("west-1", T0, own + 0.05, (3, 4))])
        await until(lambda: not station_alerts(service, clock, "station-clock"))


async def test_two_stations_claiming_one_board_is_an_alert_and_the_second_is_refused(
    tmp_path: Path, redis_server: RedisProcess
) -> None:
    clock = ManualTime(T0)
    service = station_service(tmp_path, clock)
    async with running_intake(service, redis_server.url) as intake:
        await xadd(
            redis_server.url,
            EVENT,
            [
                StationHello("east-1", "a1", 0, (1, 2), "east", 10, T0),
                StationHello("west-1", "b1", 0, (3, 4, 2), "west", 11, T0),
            ],
        )
        await until(lambda: bool(station_alerts(service, clock, "board-claimed-twice")))
        claimed = station_alerts(service, clock, "board-claimed-twice")
        assert len(claimed) == 1 and claimed[0].severity == "critical"
        assert "west-1" in claimed[0].message and "board 2" in claimed[0].message
        # west-1's events for board 2 (east-1's port /dev/ttyUSB1) are refused.
        board2 = game_events(2, T0 + 1, MOVES[:1])
        await xadd(
            redis_server.url,
            EVENT,
            [StationEvent("west-1", "b1", k + 1, "/dev/ttyUSB1", e) for k, e in enumerate(board2)],
        )
        await until(lambda: intake.refused == 3)
    assert service.hall[2].name is None
    assert not journaled(service, BoardConnected)


def test_the_stations_of_the_config() -> None:
    from tests.support.station_intake import station_config

    assert stations_of(station_config()) == {"east-1": (1, 2), "west-1": (3, 4)}


async def test_streams_are_trimmed_below_what_is_acknowledged_with_a_margin(
    tmp_path: Path, redis_server: RedisProcess
) -> None:
    service = station_service(tmp_path)
    client = aioredis.Redis.from_url(redis_server.url)
    stream = KEYS.stream("east-1")
    now_ms = int((await client.time())[0]) * 1000
    old = entries("east-1", 1, T0 + 1)
    # three entries written five minutes ago, three now
    for k, entry in enumerate(old[:3]):
        await client.xadd(stream, _fields(entry), id=f"{now_ms - 300_000 + k}-0")
    async with running_intake(service, redis_server.url) as intake:
        await xadd(redis_server.url, EVENT, old[3:])
        await until(lambda: intake.acked == 6)
        await intake.trim(client)
        assert await client.xlen(stream) == 3  # the recent ones: within the margin
    await client.aclose()


async def test_redis_away_is_said_once_and_the_intake_goes_on_when_it_is_back(
    tmp_path: Path, redis_server: RedisProcess, caplog: pytest.LogCaptureFixture
) -> None:
    service = station_service(tmp_path)
    events = entries("east-1", 1, T0 + 1)
    async with running_intake(service, redis_server.url) as intake:
        await xadd(redis_server.url, EVENT, events[:3])
        await until(lambda: intake.acked == 3)
        with caplog.at_level(logging.WARNING):
            redis_server.kill()
            await until(lambda: intake.state == "down")
            await asyncio.sleep(1.5)  # several retries meanwhile
            down = [a for a in service.health.alerts(None, T0) if a.kind == "stations-unreachable"]
            assert len(down) == 1 and "cannot be read" in down[0].message
            assert dict(service.health.links())["capture stations"].startswith("DOWN")
            redis_server.start()
            await until(lambda: intake.state == "up", 15)
        said = [r for r in caplog.records if "capture stations' Redis at" in r.getMessage()]
        assert len(said) == 1
        assert not [a for a in service.health.alerts(None, T0) if a.kind == "stations-unreachable"]
        await xadd(redis_server.url, EVENT, events[3:])
        await until(lambda: service.state.stations.get("east-1") == ("a1", 6))
        await until(lambda: intake.acked == 6)
    assert len(journaled(service, PositionSeen)) == 5


async def test_what_the_serve_knows_of_each_board_is_published_for_the_stations(
    tmp_path: Path, redis_server: RedisProcess
) -> None:
    """A replacement computer (a fresh outbox) starts from the central serve's memory of
    its boards: the last position a board showed, from its station's durable events, in
    `StationKeys.known(station)`, one field per hall board; a board never seen is left out
    until its game is under way."""
    from boards.position import BoardPosition
    from broadcast.stations.wire import decode_known

    clock = ManualTime(T0)
    service = station_service(tmp_path, clock)
    async with running_intake(service, redis_server.url):
        await xadd(redis_server.url, EVENT, entries("east-1", 1, T0 + 1))
        await until(lambda: service.state.stations.get("east-1") == ("a1", 6))
        await play_out(service, clock, 60)
        client = aioredis.Redis.from_url(redis_server.url)
        try:

            async def known() -> dict[int, Any]:
                return decode_known(await client.hgetall(KEYS.known("east-1")))[0]

            deadline = asyncio.get_running_loop().time() + 8
            while (boards := await known()).get(1) is None or boards[1].position is None:
                assert asyncio.get_running_loop().time() < deadline, "never published"
                await asyncio.sleep(0.1)
            last = game_events(1, T0 + 1, MOVES)[-1]
            assert isinstance(last, PositionSeen)
            assert boards[1].serial == SERIALS[1]
            assert boards[1].position == last.position
            assert isinstance(boards[1].position, BoardPosition)
            # board 2 was never seen, its game not begun: read its log from the setup
            assert boards[2].position is None and boards[2].serial == ""
            assert 3 not in boards  # west's
        finally:
            await client.aclose()


async def test_a_read_whose_reply_was_lost_is_read_again_in_order(
    tmp_path: Path, redis_server: RedisProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Entries delivered to this serve whose reply never arrived (a timeout, a cancel
    redis-py swallowed) stay in its pending list, and the next read starts after them.
    The hole in the numbering sends the intake back to its own pending entries, in
    order: nothing is skipped (the fault test's "events 35 to 35 never reached this
    serve; going on from 36")."""
    from broadcast.stations import intake as intake_module

    real = intake_module._streams
    lose = [False]
    lost: list[int] = []

    def maybe_lost(reply: Any) -> Any:
        got = real(reply)
        if lose[0] and got and not lost:
            lost.append(sum(len(e) for _, e in got))
            return []  # delivered in Redis, never seen here
        return got

    monkeypatch.setattr(intake_module, "_streams", maybe_lost)
    clock = ManualTime(T0)
    service = station_service(tmp_path, clock)
    events = entries("east-1", 1, T0 + 1)
    async with running_intake(service, redis_server.url) as intake:
        await xadd(redis_server.url, EVENT, events[:2])
        await until(lambda: service.state.stations.get("east-1") == ("a1", 2))
        lose[0] = True
        await xadd(redis_server.url, EVENT, events[2:4])
        await until(lambda: bool(lost))
        await xadd(redis_server.url, EVENT, events[4:])
        await until(lambda: service.state.stations.get("east-1") == ("a1", 6))
        await play_out(service, clock, 60)
        assert intake.gaps == 0 and intake.applied_events == 6
        await until(lambda: intake.acked >= 6)
    game = service.book.get(service.hall[1].game or "")
    assert [m.san for m in game.moves] == MOVES
    assert await pending(redis_server.url, "east-1") == 0
