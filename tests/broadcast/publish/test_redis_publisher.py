"""The venue's side of the public stream against a Redis that holds junk (the audit's F7
at the venue): a real venue, its real publisher, a real redis-server, a real mirror.

- One junk entry (a `seq` that is not a number) crashed the publisher at every restart,
  since its resume read the stream's last entry, until someone deleted it by hand. The
  resume now skips what the venue did not write and goes on after its own entries.
- An entry forged with the venue's run and a high seq made the resume drop real deltas
  from the outbox; it is not believed.
- The stream's key holding another type (someone SET it) gave "cannot be reached", which
  sent the organizer to check the uplink: the desk now names the key and what to do.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import redis

from broadcast.publish import stream_format
from broadcast.publish.stream_format import StreamKeys
from tests.broadcast.cli.test_mirror import (
    Venue,
    mirrors,
    settled,
    until,
    venue,
)
from tests.support.redis_server import RedisProcess


def _publisher(v: Venue) -> Any:
    assert v.publisher is not None
    return v.publisher


def _task_failures(v: Venue) -> list[Any]:
    return [t for t in v.service.supervisor.tasks if t.failures]


async def _redis_back_with(server: RedisProcess, stream: str, fields: dict[str, str]) -> None:
    """Start Redis again and write `fields` into the stream before the venue reconnects:
    a synchronous client, so the venue's loop cannot run in between."""
    server.start()
    client = redis.Redis.from_url(server.url)
    try:
        client.xadd(stream, fields)
    finally:
        client.close()


async def test_a_junk_entry_does_not_crash_the_venues_resume(
    tmp_path: Path, redis_server: RedisProcess
) -> None:
    """The audit: `redis-cli xadd ...:stream '*' format 1 kind delta epoch zzz seq abc`
    while the venue is away from Redis."""
    async with venue(tmp_path, redis_server.url) as v:
        async with mirrors(redis_server.url, v.service.config.name) as (m,):
            game = v.game()
            v.play(game, ["e4"])
            v.release()
            await settled(v, m)
            redis_server.kill()
            v.play(game, ["e5"])
            v.release()
            await until(lambda: _publisher(v).state == "down", "the link to be seen down")
            stream = StreamKeys.of(v.service.config.name).stream
            junk = {"format": "1", "kind": "delta", "epoch": "zzz", "seq": "abc"}
            await _redis_back_with(redis_server, stream, junk)
            await until(lambda: _publisher(v).state == "up", "the link to be back", 30)
            v.play(game, ["Nf3"])
            v.release()
            await settled(v, m)
            assert m.feed is not None and m.feed.state is not None
            assert m.feed.state.public_state().book.get(game).ply == 3
            assert _task_failures(v) == []


async def test_an_entry_forged_with_the_venues_run_does_not_drop_its_deltas(
    tmp_path: Path, redis_server: RedisProcess
) -> None:
    async with venue(tmp_path, redis_server.url) as v:
        async with mirrors(redis_server.url, v.service.config.name) as (m,):
            game = v.game()
            v.play(game, ["d4"])
            v.release()
            await settled(v, m)
            assert m.feed is not None
            seen: list[int] = []
            m.feed.on_delta = _chain(m.feed.on_delta, lambda e: seen.append(e.seq))
            resets = m.feed.resets
            redis_server.kill()
            for san in ("d5", "c4", "e6"):
                v.play(game, [san])
                v.release()
                await asyncio.sleep(0.3)
            await until(lambda: _publisher(v).state == "down", "the link to be seen down")
            stream = StreamKeys.of(v.service.config.name).stream
            forged = {
                "format": stream_format.FORMAT,
                "kind": "delta",
                "epoch": v.hub.epoch,
                "seq": str(v.hub.public.seq + 100),
                "keys": "[]",
                "text": json.dumps({"type": "x", "seq": v.hub.public.seq + 100}),
                "patch": "{}",
                "venue": "{}",
            }
            await _redis_back_with(redis_server, stream, forged)
            await until(lambda: _publisher(v).state == "up", "the link to be back", 30)
            await settled(v, m)
            assert m.feed.state is not None
            assert m.feed.state.public_state().book.get(game).ply == 4
            assert m.feed.resets == resets  # every delta arrived: no start-over
            assert seen == list(range(seen[0], seen[0] + len(seen))), seen


def _chain(first: Any, then: Any) -> Any:
    def both(entry: Any) -> None:
        first(entry)
        then(entry)

    return both


async def test_a_stream_key_of_another_type_is_named_on_the_desk(
    tmp_path: Path, redis_server: RedisProcess
) -> None:
    async with venue(tmp_path, redis_server.url) as v:
        game = v.game()
        v.play(game, ["e4"])
        v.release()
        await until(lambda: _publisher(v).written > 0, "the first entries")
        await until(lambda: not _publisher(v).outbox, "the outbox to empty")
        stream = StreamKeys.of(v.service.config.name).stream
        client = redis.Redis.from_url(redis_server.url)
        try:
            client.delete(stream)
            client.set(stream, "hello")  # the audit: `SET ...:stream hello`
            v.play(game, ["e5"])
            v.release()
            await until(lambda: _publisher(v).state == "down", "the refusal to be seen")
            [alert] = [
                a
                for a in v.service.health.alerts(None, v.clock.now())
                if a.kind == "publish-behind"
            ]
            assert stream in alert.message and "string" in alert.message, alert.message
            assert "uplink" not in alert.message  # it is not the line: do not send them there
            [(_, link)] = v.service.health.links()
            assert stream in link, link
            client.delete(stream)
        finally:
            client.close()
        await until(lambda: _publisher(v).state == "up", "the link to be back", 30)
        await until(lambda: not _publisher(v).outbox, "the outbox to empty")
        assert _task_failures(v) == []
