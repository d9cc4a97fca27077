"""A station's sender (`broadcast.stations.sender`) against a real redis-server: it
resumes after what the stream already holds of its outbox (no event twice), greets and
beats, and a station's name is claimed once (a restart on the same outbox takes its own
claim back)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import pytest
from redis import asyncio as aioredis

from boards.driver_events import PositionSeen
from boards.recovery import START
from broadcast.journal.kinds import register_all
from broadcast.stations.outbox import Outbox
from broadcast.stations.sender import NameClaim, Sender, claim_name
from broadcast.stations.wire import (
    StationBeat,
    StationEvent,
    StationHello,
    StationKeys,
    decode_entry,
    encode_entry,
)
from clocks.timesource import ManualTime
from tests.support.redis_server import RedisProcess

register_all()

KEYS = StationKeys.of("Sender Test")


async def test_the_name_is_claimed_once(redis_server: RedisProcess) -> None:
    client = aioredis.Redis.from_url(redis_server.url)
    try:
        key = KEYS.owner("east-1")
        assert await claim_name(client, key, NameClaim("aaa1", "host-a", 10)) is None
        held = await claim_name(client, key, NameClaim("bbb2", "host-b", 20))
        assert held == NameClaim("aaa1", "host-a", 10)
        # The same outbox restarted (killed -9: its claim not expired yet): taken back.
        assert await claim_name(client, key, NameClaim("aaa1", "host-a", 11)) is None
        assert await client.get(key) == b"aaa1 host-a 11"
        assert 0 < await client.pttl(key) <= 15_000
    finally:
        await client.aclose()


async def test_resumes_after_what_the_stream_holds(
    redis_server: RedisProcess, tmp_path: Path
) -> None:
    box = Outbox.open(tmp_path / "o.sqlite")
    for t in range(1, 8):
        box.append("/dev/ttyUSB0", PositionSeen(float(t), "12345", START))
    box.commit()
    client = aioredis.Redis.from_url(redis_server.url)
    stream = KEYS.stream("east-1")
    try:
        # Sent before a kill -9, not yet marked sent in the outbox.
        for p in box.unsent(3):
            entry = StationEvent("east-1", box.incarnation, p.seq, p.port, p.event)
            await client.xadd(stream, encode_entry(entry))  # type: ignore[arg-type]
        sender = Sender(
            partial(aioredis.Redis.from_url, redis_server.url),
            "here",
            KEYS,
            "east-1",
            box,
            ManualTime(1000.0),
            boards=(1,),
            connected=lambda: (1,),
        )
        task = asyncio.ensure_future(sender.run())
        deadline = time.monotonic() + 10
        while box.waiting or not sender.up:
            assert time.monotonic() < deadline
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.1)
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        got = [decode_entry(f or {}) for _id, f in await client.xrange(stream) or []]
    finally:
        await client.aclose()
    seqs = [e.seq for e in got if isinstance(e, StationEvent)]
    assert seqs == [1, 2, 3, 4, 5, 6, 7]
    hello = next(e for e in got if isinstance(e, StationHello))
    assert hello.seq == 7 and hello.boards == (1,)
    beat = next(e for e in got if isinstance(e, StationBeat))
    assert beat.connected == (1,) and beat.t == 1000.0 and abs(beat.offset) < 1.0
    box.close()


@pytest.mark.expected_log(r"station east-1: another station now holds this name")
async def test_a_station_whose_name_another_took_stops_sending_until_it_is_free(
    redis_server: RedisProcess, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its claim expired (a frozen laptop) and another station took the name: this one
    says so once and sends nothing on the other's stream; once the name is free again it
    takes it back and sends what waited, in order."""
    from broadcast.stations import sender as sender_module

    monkeypatch.setattr(sender_module, "CLAIM_RENEW_SECONDS", 0.1)
    box = Outbox.open(tmp_path / "o.sqlite")
    client = aioredis.Redis.from_url(redis_server.url)
    stream = KEYS.stream("east-1")
    sender = Sender(
        partial(aioredis.Redis.from_url, redis_server.url), "here", KEYS, "east-1", box,
        ManualTime(1000.0), boards=(1,), connected=lambda: (1,),
        claim=NameClaim("aaa1", "here", 10),
    )  # fmt: skip
    task = asyncio.ensure_future(sender.run())

    async def until(check: Callable[[], bool]) -> None:
        deadline = time.monotonic() + 10
        while not check():
            assert time.monotonic() < deadline
            await asyncio.sleep(0.05)

    async def sent() -> list[int]:
        got = [decode_entry(f or {}) for _id, f in await client.xrange(stream) or []]
        return [e.seq for e in got if isinstance(e, StationEvent)]

    try:
        await until(lambda: sender.up)
        await client.set(KEYS.owner("east-1"), "bbb2 there 99", px=60_000)  # taken over
        await until(lambda: sender.displaced is not None)
        assert sender.displaced == NameClaim("bbb2", "there", 99)
        box.append("/dev/ttyUSB0", PositionSeen(1.0, "12345", START))
        box.commit()
        sender.wake()
        await asyncio.sleep(0.5)
        assert await sent() == []  # nothing on the other's stream
        await client.delete(KEYS.owner("east-1"))  # the other stopped
        await until(lambda: sender.displaced is None and not box.waiting)
        assert await sent() == [1]
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        await client.aclose()
        box.close()


async def test_a_stopping_station_drains_what_waits_while_the_link_is_up(
    redis_server: RedisProcess, tmp_path: Path
) -> None:
    """A station stopping in order sends what was committed last (its boards' goodbyes)
    before the link is cut, so the outbox says every event is sent; with Redis away it
    does not wait."""
    box = Outbox.open(tmp_path / "o.sqlite")
    sender = Sender(
        partial(aioredis.Redis.from_url, redis_server.url), "here", KEYS, "east-1", box,
        ManualTime(1000.0), boards=(1,), connected=lambda: (1,),
    )  # fmt: skip
    task = asyncio.ensure_future(sender.run())
    try:
        deadline = time.monotonic() + 10
        while not sender.up:
            assert time.monotonic() < deadline
            await asyncio.sleep(0.02)
        for t in range(1, 6):
            box.append("/dev/ttyUSB0", PositionSeen(float(t), "12345", START))
        box.commit()  # committed, the sender not woken
        assert await sender.drain(5.0)
        assert box.sent_seq == box.durable_seq == 5
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
    client = aioredis.Redis.from_url(redis_server.url)
    try:
        got = [decode_entry(f or {}) for _id, f in await client.xrange(KEYS.stream("east-1")) or []]
    finally:
        await client.aclose()
    assert [e.seq for e in got if isinstance(e, StationEvent)] == [1, 2, 3, 4, 5]
    # Redis away: nothing to wait for.
    box.append("/dev/ttyUSB0", PositionSeen(6.0, "12345", START))
    box.commit()
    sender.up = False
    started = time.monotonic()
    assert not await sender.drain(60.0)
    assert time.monotonic() - started < 10.0  # did not wait for the 60 s
    box.close()
