"""The desk's Stations section and GET /api/v1/arbiter/stations: each capture station,
up or lost, its lag, clock offset, boards and events waiting (a real redis-server, the
stations' entries written by hand)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from aiohttp import encode_basic_auth
from aiohttp.test_utils import TestClient, TestServer

from broadcast.stations.wire import StationBeat, StationHello
from clocks.timesource import ManualTime
from tests.support.redis_server import RedisProcess
from tests.support.station_intake import running_intake, station_service, until, xadd
from tests.support.web_app import CREDENTIALS, T0, make_service
from web.app import build_app

AUTH = {"Authorization": encode_basic_auth(*CREDENTIALS)}


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[RedisProcess]:
    folder = tmp_path / "redis"
    folder.mkdir()
    server = RedisProcess(folder, persist=False)
    server.start()
    yield server
    server.stop()


async def _desk(client: TestClient) -> str:
    """The desk page, logged in through its form."""
    page = await (await client.get("/arbiter/login")).text()
    token = re.search(r'name="login_token" value="([^"]+)"', page)
    assert token is not None
    await client.post(
        "/arbiter/login",
        data={"login_token": token[1], "user": CREDENTIALS[0], "password": CREDENTIALS[1]},
        allow_redirects=False,
    )
    return await (await client.get("/arbiter")).text()


async def test_the_desk_shows_each_station(tmp_path: Path, redis_server: RedisProcess) -> None:
    clock = ManualTime(T0)
    service = station_service(tmp_path, clock)
    client = TestClient(TestServer(build_app(service, CREDENTIALS)))
    await client.start_server()
    try:
        async with running_intake(service, redis_server.url):
            await xadd(
                redis_server.url,
                "Pamplona Masters",
                [
                    StationHello("east-1", "a1", 0, (1, 2), "capture-east", 7, T0),
                    StationBeat("east-1", "a1", 3, T0 - 0.25, 0.0, 0.001, 4, (1, 2)),
                ],
            )
            await until(lambda: any(r["up"] for r in service.health.stations()))
            answer = await client.get("/api/v1/arbiter/stations", headers=AUTH)
            assert answer.status == 200
            rows = {r["name"]: r for r in await answer.json()}
            assert set(rows) == {"east-1", "west-1"}
            east = rows["east-1"]
            assert east["up"] is True and east["boards"] == [1, 2] and east["waiting"] == 4
            assert east["connected"] == [1, 2] and east["host"] == "capture-east"
            assert abs(east["lag"] - 0.25) < 0.01
            assert rows["west-1"]["up"] is False and rows["west-1"]["lag"] is None
            page = await _desk(client)
            section = re.search(r'<section id="stations">(.*?)</section>', page, re.S)
            assert section is not None
            east_row = re.search(
                r'<tr data-station="east-1" class="ok">(.*?)</tr>', section[1], re.S
            )
            assert east_row is not None and "capture-east" in east_row[1] and "1, 2" in east_row[1]
            assert '<tr data-station="west-1" class="bad">' in section[1]
            assert "capture stations" in page  # the link to the stations' Redis
    finally:
        await client.close()


async def test_a_serve_without_stations_shows_none(tmp_path: Path) -> None:
    service, _ = make_service(tmp_path)
    client = TestClient(TestServer(build_app(service, CREDENTIALS)))
    await client.start_server()
    try:
        answer = await client.get("/api/v1/arbiter/stations", headers=AUTH)
        assert await answer.json() == []
        assert 'id="stations"' not in await _desk(client)
    finally:
        await client.close()
