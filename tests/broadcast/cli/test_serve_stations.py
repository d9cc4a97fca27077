"""`serve EVENT.toml --stations URL` (in-process, a real redis-server): one line per
station expected, the venue written for them, no local driver and no emulated board for
a station's board (`--sim` emulates only the serve's own), the intake running; refused
for a config with no board on a station."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

import pytest
from redis import asyncio as aioredis

from broadcast.cli.serve import serve
from broadcast.service.event_service import EventService
from broadcast.stations.wire import StationKeys, decode_venue
from tests.support.redis_server import RedisProcess
from tests.support.serve_args import EVENT, serve_args


def station_event(folder: Path, stations: dict[int, str]) -> Path:
    """The Pamplona example with board N on station `stations[N]` (its port renamed)."""
    text = EVENT.read_text(encoding="utf-8")
    for number, station in stations.items():
        port = f'port = "/dev/ttyACM{number - 1}"'
        text = text.replace(port, f'port = "/dev/ttyUSB{number % 2}"\nstation = "{station}"')
    path = folder / "venue.toml"
    path.write_text(text, encoding="utf-8")
    return path


def args_for(tmp_path: Path, event: Path, url: str, **more: object) -> argparse.Namespace:
    args = serve_args(tmp_path)
    args.event = event
    args.stations = url
    for name, value in more.items():
        setattr(args, name, value)
    return args


async def test_serve_reads_stations_and_says_which_it_expects(
    tmp_path: Path, redis_server: RedisProcess, capsys: pytest.CaptureFixture[str]
) -> None:
    event = station_event(tmp_path, {1: "east-1", 2: "east-1", 3: "west-1"})
    seen: dict[str, object] = {}

    def started(service: EventService) -> None:
        seen["service"] = service
        seen["ports"] = {n: b.config.port for n, b in service.hall.items()}
        asyncio.get_running_loop().call_later(0.5, service.stop)

    code = await serve(
        args_for(tmp_path, event, redis_server.url, sim=True), credentials=None, started=started
    )
    assert code == 0
    out = capsys.readouterr().out
    assert "boardwire: station east-1: boards 1, 2;" in out
    assert "boardwire: station west-1: boards 3;" in out
    assert "--name east-1" in out
    ports = seen["ports"]
    assert isinstance(ports, dict)
    assert ports[1] == "east-1:/dev/ttyUSB1" and ports[3] == "west-1:/dev/ttyUSB1"
    assert not ports[4].startswith(("east-1:", "west-1:"))  # emulated here (--sim)
    service = seen["service"]
    assert isinstance(service, EventService)
    assert [d.port for d in service.drivers] == [ports[4]]  # none for a station's board
    client = aioredis.Redis.from_url(redis_server.url)
    keys = StationKeys.of("Pamplona Masters")
    venue = decode_venue(await client.hgetall(keys.venue))
    groups = await client.xinfo_groups(keys.stream("west-1"))
    await client.aclose()
    assert not isinstance(venue, type(None))
    assert [(b.number, b.station) for b in venue.boards] == [  # type: ignore[union-attr]
        (1, "east-1"),
        (2, "east-1"),
        (3, "west-1"),
    ]
    assert [g["name"] for g in groups] == [b"boardwire-serve"]


async def test_stations_for_a_config_without_any_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = await serve(args_for(tmp_path, EVENT, "redis://127.0.0.1:1/0"), credentials=None)
    assert code == 2
    assert "--stations: no board of" in capsys.readouterr().err


async def test_a_stations_url_that_is_not_redis_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    event = station_event(tmp_path, {1: "east-1"})
    code = await serve(args_for(tmp_path, event, "http://example.org"), credentials=None)
    assert code == 2
    assert "--stations:" in capsys.readouterr().err
