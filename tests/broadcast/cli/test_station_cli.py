"""`boardwire station`: a capture station on emulated boards (real pseudo-terminals)
sends its boards' events to its Redis stream (a real redis-server) in order, numbered
from 1 with no gap and no repeat, through a Redis outage and a kill -9 of itself; a
second station with the same name is refused."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
from redis import Redis

from boards.driver_events import BoardConnected, LogRecovered, PositionSeen
from boards.recovery import START, KnownBoard
from broadcast.cli.main import build_parser
from broadcast.cli.station import station
from broadcast.journal.kinds import register_all
from broadcast.stations import sender as sender_module
from broadcast.stations.outbox import Outbox
from broadcast.stations.wire import (
    Refused,
    StationBeat,
    StationEntry,
    StationEvent,
    StationHello,
    StationKeys,
    Venue,
    VenueBoard,
    WantedBoard,
    decode_entry,
    encode_known,
    encode_venue,
)
from tests.support.paths import ROOT
from tests.support.redis_server import RedisProcess

register_all()

EVENT = "Station Test Open"
KEYS = StationKeys.of(EVENT)
SPEED = 10.0
PORTS = {1: "/dev/ttyUSB0", 2: "/dev/ttyUSB1"}


def write_venue(url: str) -> Venue:
    now = time.time()
    venue = Venue(
        EVENT,
        (
            VenueBoard(1, "east-1", PORTS[1], None),
            VenueBoard(2, "east-1", PORTS[2], None),
            VenueBoard(3, "west-1", "/dev/ttyUSB0", None),
        ),
        start=now,
        wall0=now,
        speed=SPEED,
        host="central",
        pid=1,
    )
    with Redis.from_url(url) as r:
        r.hset(KEYS.venue, mapping=encode_venue(venue))
    return venue


def entries(url: str, name: str = "east-1") -> list[StationEntry]:
    with Redis.from_url(url) as r:
        raw = r.xrange(KEYS.stream(name))
    out = []
    for _id, fields in raw:
        entry = decode_entry(fields)
        assert not isinstance(entry, Refused), entry
        out.append(entry)
    return out


def events(url: str) -> list[StationEvent]:
    return [e for e in entries(url) if isinstance(e, StationEvent)]


def args_for(url: str, outbox: Path, *extra: str) -> list[str]:
    return [
        "station",
        "--redis",
        url,
        "--event",
        EVENT,
        "--name",
        "east-1",
        "--outbox",
        str(outbox),
        "--sim",
        *extra,
    ]


async def until(check: Callable[[], bool], seconds: float = 15.0) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "waited too long"
        await asyncio.sleep(0.1)


def moves_seen(url: str) -> int:
    return sum(1 for e in events(url) if isinstance(e.event, PositionSeen))


def assert_in_order(evs: list[StationEvent]) -> None:
    incarnations = {e.incarnation for e in evs}
    assert len(incarnations) == 1
    assert [e.seq for e in evs] == list(range(1, len(evs) + 1))


async def test_station_sends_its_boards_events_in_order(
    redis_server: RedisProcess, tmp_path: Path
) -> None:
    write_venue(redis_server.url)
    stop = asyncio.Event()
    args = build_parser().parse_args(args_for(redis_server.url, tmp_path / "o.sqlite"))
    running = asyncio.ensure_future(station(args, stop=stop))
    try:
        await until(lambda: moves_seen(redis_server.url) >= 20)
        await until(
            lambda: any(
                isinstance(e, StationBeat) and e.connected == (1, 2)
                for e in entries(redis_server.url)
            )
        )
    finally:
        stop.set()
        assert await running == 0
    every = entries(redis_server.url)
    assert isinstance(every[0], StationHello) and every[0].boards == (1, 2)
    evs = events(redis_server.url)
    assert_in_order(evs)
    # The venue's ports, not the pseudo-terminals the drivers opened.
    assert {e.port for e in evs} == set(PORTS.values())
    connected = [e.event for e in evs if isinstance(e.event, BoardConnected)]
    assert {c.info.port for c in connected} == set(PORTS.values())
    beats = [e for e in every if isinstance(e, StationBeat)]
    assert beats and all(abs(b.offset) < 1.0 and b.rtt < 1.0 for b in beats)
    with Redis.from_url(redis_server.url) as r:
        assert r.smembers(KEYS.stations) == {b"east-1"}


async def test_redis_killed_and_back_nothing_lost_nothing_twice(
    redis_server: RedisProcess, tmp_path: Path
) -> None:
    venue = write_venue(redis_server.url)
    stop = asyncio.Event()
    outbox = tmp_path / "o.sqlite"
    args = build_parser().parse_args(args_for(redis_server.url, outbox))
    running = asyncio.ensure_future(station(args, stop=stop))
    try:
        await until(lambda: moves_seen(redis_server.url) >= 5)
        redis_server.kill()
        before, down = time.monotonic(), venue.event_time(time.time())
        await asyncio.sleep(2.0)  # the boards play on: events wait in the outbox
        back = venue.event_time(time.time())
        redis_server.start()
        assert time.monotonic() - before < 10
        latest = max(e.seq for e in events(redis_server.url))

        def caught_up() -> bool:
            every = entries(redis_server.url)
            evs = [e for e in every if isinstance(e, StationEvent)]
            beats = [e for e in every if isinstance(e, StationBeat)]
            return (
                max(e.seq for e in evs) > latest + 10
                and bool(beats)
                and beats[-1].waiting == 0
                and beats[-1].seq > latest + 10
            )

        await until(caught_up)
    finally:
        stop.set()
        assert await running == 0
    evs = events(redis_server.url)
    assert_in_order(evs)
    # What the boards said while Redis was away arrived once it was back.
    assert sum(1 for e in evs if down + 1 < e.event.t < back - 1) >= 5
    hellos = [e for e in entries(redis_server.url) if isinstance(e, StationHello)]
    assert len(hellos) >= 2  # greeted again once Redis was back
    box = Outbox.open(outbox)
    try:
        assert box.sent_seq == evs[-1].seq
    finally:
        box.close()


def _spawn(url: str, outbox: Path, log: Path) -> subprocess.Popen[bytes]:
    with log.open("ab") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "broadcast.cli", *args_for(url, outbox)],
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )


async def test_station_killed_and_restarted_continues_and_reads_the_logs(
    redis_server: RedisProcess, tmp_path: Path
) -> None:
    write_venue(redis_server.url)
    outbox, log = tmp_path / "o.sqlite", tmp_path / "station.log"
    first = _spawn(redis_server.url, outbox, log)
    try:
        await until(lambda: moves_seen(redis_server.url) >= 10)
    finally:
        first.send_signal(signal.SIGKILL)
        await asyncio.to_thread(first.wait)  # not on the loop: it is the test's
    killed_at = max(e.seq for e in events(redis_server.url))
    second = _spawn(redis_server.url, outbox, log)
    try:

        def reconnected() -> bool:
            later = [e for e in events(redis_server.url) if e.seq > killed_at]
            found = [e.event for e in later if isinstance(e.event, BoardConnected)]
            return len(found) >= 2 and moves_seen(redis_server.url) >= 14

        await until(reconnected, 18.0)
    finally:
        second.send_signal(signal.SIGTERM)
        assert await asyncio.to_thread(second.wait, 10) == 0, log.read_text()
    evs = events(redis_server.url)
    assert_in_order(evs)  # one incarnation, numbering continued, no gap, no repeat
    after = [e.event for e in evs if e.seq > killed_at]
    connected = [c for c in after if isinstance(c, BoardConnected)]
    # Each board's first connection is a reconnect from the outbox's memory: its log is read.
    assert len({c.board for c in connected}) == 2 and all(c.reconnect for c in connected[:2])
    assert {r.board for r in after if isinstance(r, LogRecovered)} == {c.board for c in connected}
    hellos = [e for e in entries(redis_server.url) if isinstance(e, StationHello)]
    assert len({h.pid for h in hellos}) == 2 and hellos[-1].seq >= killed_at


async def test_a_second_station_with_the_same_name_is_refused(
    redis_server: RedisProcess, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_venue(redis_server.url)
    stop = asyncio.Event()
    parser = build_parser()
    running = asyncio.ensure_future(
        station(parser.parse_args(args_for(redis_server.url, tmp_path / "a.sqlite")), stop=stop)
    )
    try:
        await until(lambda: bool(entries(redis_server.url)))
        second = parser.parse_args(args_for(redis_server.url, tmp_path / "b.sqlite"))
        assert await station(second, stop=asyncio.Event()) == 2
    finally:
        stop.set()
        assert await running == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "another station named 'east-1' is running" in err[0]


async def test_a_name_without_boards_is_refused(
    redis_server: RedisProcess, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_venue(redis_server.url)
    args = build_parser().parse_args(args_for(redis_server.url, tmp_path / "o.sqlite"))
    args.name = "north-1"
    assert await station(args, stop=asyncio.Event()) == 2
    assert "no boards on a station named 'north-1'" in capsys.readouterr().err


async def test_a_rehearsal_emulates_and_finds_the_boards_given_by_serial_number(
    redis_server: RedisProcess, tmp_path: Path
) -> None:
    # Board 4 is found by its serial number, on east-1 only: `--sim` emulates it with that
    # serial on a port of its own, the station finds it there and sends its events.
    venue = write_venue(redis_server.url)
    wanted = replace(venue, wanted=(WantedBoard(4, "24317", "east-1"), WantedBoard(5, "24318")))
    with Redis.from_url(redis_server.url) as r:
        r.hset(KEYS.venue, mapping=encode_venue(wanted))
    stop = asyncio.Event()
    args = build_parser().parse_args(args_for(redis_server.url, tmp_path / "o.sqlite"))
    running = asyncio.ensure_future(station(args, stop=stop))
    try:
        await until(
            lambda: any(
                isinstance(e, StationBeat) and e.connected == (1, 2, 4)
                for e in entries(redis_server.url)
            )
        )
        await until(lambda: moves_seen(redis_server.url) >= 30)
    finally:
        stop.set()
        assert await running == 0
    found = [
        e for e in events(redis_server.url)
        if isinstance(e.event, BoardConnected) and e.event.board == "24317"
    ]  # fmt: skip
    assert len(found) == 1 and found[0].port not in PORTS.values()
    played = {e.port for e in events(redis_server.url) if isinstance(e.event, PositionSeen)}
    assert found[0].port in played


async def test_a_replacement_computer_reads_the_logs_from_what_central_knows(
    redis_server: RedisProcess, tmp_path: Path
) -> None:
    venue = write_venue(redis_server.url)
    t = venue.event_time(time.time())
    with Redis.from_url(redis_server.url) as r:
        r.hset(
            KEYS.known("east-1"),
            mapping={
                "1": encode_known(KnownBoard("", START, (), t)),  # serial unknown: any board
                "2": encode_known(KnownBoard("10002", START, ((12, 0), (28, 1)), t)),
            },
        )
    stop = asyncio.Event()
    # A fresh outbox: the computer that read these boards died.
    args = build_parser().parse_args(args_for(redis_server.url, tmp_path / "new.sqlite"))
    running = asyncio.ensure_future(station(args, stop=stop))

    def found() -> list[BoardConnected]:
        return [e.event for e in events(redis_server.url) if isinstance(e.event, BoardConnected)]

    try:
        await until(lambda: len({c.board for c in found()}) == 2)
    finally:
        stop.set()
        assert await running == 0
    first: dict[str, BoardConnected] = {}
    for c in found():
        first.setdefault(c.board, c)
    # Each board's first connection is a reconnect: its log is read for what was played
    # while no computer listened, from where the central serve's record of it ends.
    assert len(first) == 2 and all(c.reconnect for c in first.values())


@pytest.mark.expected_log(r"station east-1: the venue's boards for this station changed")
async def test_the_venue_is_read_again_new_clock_taken_new_boards_stop_the_station(
    redis_server: RedisProcess,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr(sender_module, "VENUE_SECONDS", 0.2)
    venue = write_venue(redis_server.url)
    stop = asyncio.Event()
    args = build_parser().parse_args(args_for(redis_server.url, tmp_path / "o.sqlite"))
    running = asyncio.ensure_future(station(args, stop=stop))

    def beats() -> list[StationBeat]:
        return [e for e in entries(redis_server.url) if isinstance(e, StationBeat)]

    try:
        await until(lambda: bool(beats()))
        # The central serve restarted: a clock an hour ahead...
        ahead = replace(venue, start=venue.start + 3600, pid=2)
        with Redis.from_url(redis_server.url) as r:
            r.hset(KEYS.venue, mapping=encode_venue(ahead))
        await until(lambda: beats()[-1].t > venue.event_time(time.time()) + 3000)
        # ...then one behind: event time holds still, never steps back.
        behind = replace(venue, start=venue.start - 3600, pid=3)
        with Redis.from_url(redis_server.url) as r:
            r.hset(KEYS.venue, mapping=encode_venue(behind))
        count = len(beats())
        await until(lambda: len(beats()) >= count + 3)
        ts = [b.t for b in beats()]
        assert ts == sorted(ts) and ts[-1] > venue.event_time(time.time()) + 3000
        # A new board list for this station: said, and the station stops with code 3.
        moved = replace(
            venue, boards=(*venue.boards[:2], VenueBoard(3, "east-1", "/dev/ttyUSB2", None))
        )
        with Redis.from_url(redis_server.url) as r:
            r.hset(KEYS.venue, mapping=encode_venue(moved))
        code = await asyncio.wait_for(running, 15)
    finally:
        stop.set()
    assert code == 3
    assert "start it again" in capsys.readouterr().err
