"""`serve --publish` and `boardwire mirror` against a real redis-server (issue 22).

The venue runs in-process on a `ManualTime` (the broadcast delay passes when the test
says so); its hub's public deltas go through the real publisher to a real redis-server
started on a free port, and real mirrors (the `mirror` command's own function) serve them
over HTTP. Nothing is mocked.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import zlib
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import websockets
from redis import asyncio as aioredis

from broadcast.cli.mirror import mirror
from broadcast.cli.run_event import Running
from broadcast.cli.stream_link import start_stream_publisher
from broadcast.publish.mirror_feed import MirrorFeed
from broadcast.publish.redis_publisher import RedisPublisher
from broadcast.publish.stream_format import StreamKeys
from broadcast.service.event_service import EventService
from clocks.timesource import ManualTime
from tests.support.redis_server import RedisProcess
from tests.support.web_app import free_port, make_service, play_moves
from web.app import start_web
from web.keys import HUB

DELAY = 60.0


class Venue:
    def __init__(self, service: EventService, clock: ManualTime, port: int) -> None:
        self.service, self.clock, self.port = service, clock, port
        self.publisher: RedisPublisher | None = None
        self.runner: Any = None

    @property
    def hub(self) -> Any:
        return self.runner.app[HUB]

    def play(self, game: str, sans: list[str]) -> None:
        play_moves(self.service, game, sans)

    def release(self) -> None:
        """Let the broadcast delay pass: what was played becomes public."""
        self.clock.advance(DELAY + 1)

    def game(self, n: int = 0) -> str:
        return sorted(self.service.book.games)[n]


@asynccontextmanager
async def venue(tmp: Path, url: str) -> AsyncIterator[Venue]:
    service, clock = make_service(tmp, delay=DELAY)
    port = free_port()
    runner = await start_web(service, host="127.0.0.1", port=port, credentials=None)
    v = Venue(service, clock, port)
    v.runner = runner
    running = Running(
        service.config, tmp / "journal.sqlite", service.journal, clock, service, web=runner
    )  # type: ignore[arg-type]
    v.publisher, task = start_stream_publisher(running, url)
    try:
        yield v
    finally:
        await task.stop()
        await runner.cleanup()
        service.journal.close()


class Mirror:
    def __init__(self) -> None:
        self.port = free_port()
        self.stop = asyncio.Event()
        self.feed: MirrorFeed | None = None
        self.up = asyncio.Event()
        self.task: asyncio.Task[int] | None = None


@asynccontextmanager
async def mirrors(url: str, event: str, count: int = 1) -> AsyncIterator[list[Mirror]]:
    out = []
    for _ in range(count):
        m = Mirror()

        def ready(feed: MirrorFeed, runner: Any, m: Mirror = m) -> None:
            m.feed = feed
            m.up.set()

        args = argparse.Namespace(
            redis=url, event=event, host="127.0.0.1", port=m.port, trusted_proxy=[], public_url=None
        )
        m.task = asyncio.ensure_future(mirror(args, stop=m.stop, ready=ready))
        out.append(m)
    try:
        for m in out:
            await asyncio.wait_for(m.up.wait(), 20)
        yield out
    finally:
        for m in out:
            m.stop.set()
        for m in out:
            assert m.task is not None
            assert await m.task == 0


async def until(check: Callable[[], bool], what: str, timeout: float = 20.0) -> None:
    """Wait (polling) until `check()`; the timeout only ends a test that would hang."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not check():
        if loop.time() > end:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.02)


def caught_up(v: Venue, *ms: Mirror) -> Callable[[], bool]:
    def check() -> bool:
        seq = v.hub.public.seq
        return all(
            m.feed is not None
            and m.feed.state is not None
            and m.feed.state.seq == seq
            and m.feed.state.epoch == v.hub.epoch
            for m in ms
        )

    return check


async def settled(v: Venue, *ms: Mirror) -> None:
    """The hub has pumped (the delay released what it will), the standings computed off
    the loop are out, and every mirror has everything the venue published."""
    await asyncio.sleep(0.6)  # two of the hub's pumps (every 0.25 s)
    await until(lambda: v.hub.public.frame.tournament is v.hub.public.shown, "standings")
    await until(caught_up(v, *ms), "the mirrors to catch up")


def public_paths(v: Venue) -> list[str]:
    game = v.game()
    return [
        "/",
        "/standings",
        f"/game/{game}",
        "/api/v1/event",
        "/api/v1/standings",
        "/api/v1/pairings",
        "/api/v1/prizes",
        "/api/v1/rounds/1",
        "/api/v1/rounds/1.pgn",
        f"/api/v1/games/{game}",
        f"/api/v1/games/{game}.pgn",
        "/api/v1/event.pgn",
        "/api/v1/openapi.json",
        "/no-such-page",
        "/api/v1/games/nope",
    ]


async def fetch(session: aiohttp.ClientSession, port: int, path: str) -> tuple[int, str, str]:
    async with session.get(f"http://127.0.0.1:{port}{path}") as r:
        return r.status, r.headers.get("Content-Type", ""), await r.text()


async def answers(session: aiohttp.ClientSession, port: int, paths: list[str]) -> dict[str, Any]:
    return {p: await fetch(session, port, p) for p in paths}


async def test_every_public_route_is_the_same_on_the_venue_and_two_mirrors(
    tmp_path: Path, redis_server: RedisProcess
) -> None:
    async with venue(tmp_path, redis_server.url) as v:
        v.play(v.game(0), ["e4", "e5", "Nf3"])
        v.play(v.game(1), ["d4", "d5"])
        v.release()
        async with mirrors(redis_server.url, v.service.config.name, 2) as (a, b):
            await settled(v, a, b)
            paths = public_paths(v)
            async with aiohttp.ClientSession() as session:
                at_venue = await answers(session, v.port, paths)
                assert at_venue["/api/v1/event"][0] == 200
                assert " 2. Nf3" in at_venue[f"/api/v1/games/{v.game()}.pgn"][2]
                for m in (a, b):
                    assert await answers(session, m.port, paths) == at_venue
                # The mirror has no desk, no arbiter API, and no arbiter websocket.
                for path in ("/arbiter", "/api/v1/arbiter/alerts", "/arbiter/ws"):
                    status, _, _ = await fetch(session, a.port, path)
                    assert status == 404, path


async def test_the_delay_is_never_undercut(tmp_path: Path, redis_server: RedisProcess) -> None:
    async with venue(tmp_path, redis_server.url) as v:
        async with mirrors(redis_server.url, v.service.config.name) as (m,):
            game = v.game()
            v.play(game, ["e4", "c5"])
            await settled(v, m)
            assert m.feed is not None and m.feed.state is not None
            assert m.feed.state.public_state().book.get(game).ply == 0
            v.clock.advance(DELAY - 1)  # not yet
            await settled(v, m)
            assert m.feed.state.public_state().book.get(game).ply == 0
            # Nothing of the moves is in Redis either.
            client = aioredis.Redis.from_url(redis_server.url)
            entries = await client.xrange(StreamKeys.of(v.service.config.name).stream)
            assert entries and not any("c7c5" in _entry_text(e[1]) for e in entries)
            v.clock.advance(2)
            await settled(v, m)
            assert m.feed.state.public_state().book.get(game).ply == 2
            await client.aclose()


@pytest.mark.parametrize("persist", [True, False], ids=["redis-keeps-its-data", "redis-loses-it"])
async def test_redis_killed_and_restarted_mid_round_loses_nothing(
    tmp_path: Path, persist: bool
) -> None:
    folder = tmp_path / "redis"
    folder.mkdir()
    server = RedisProcess(folder, persist=persist)
    server.start()
    try:
        async with venue(tmp_path, server.url) as v:
            async with mirrors(server.url, v.service.config.name) as (m,):
                game = v.game()
                v.play(game, ["e4", "e5"])
                v.release()
                await settled(v, m)
                seen: list[int] = []
                assert m.feed is not None
                m.feed.on_delta = _chain(m.feed.on_delta, lambda e: seen.append(e.seq))
                server.kill()
                moves = ["Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6"]
                for san in moves:  # the round goes on while Redis is away
                    v.play(game, [san])
                    v.release()
                    await asyncio.sleep(0.3)
                assert v.publisher is not None
                await until(lambda: v.publisher.state == "down", "the link to be seen down")
                alerts = v.service.health.alerts(None, v.clock.now())
                assert any(a.kind == "publish-behind" for a in alerts)
                waiting = len(v.publisher.outbox)
                assert waiting > 0
                # The desk reads the link's state in words, whatever the alerts say.
                [(name, down)] = v.service.health.links()
                assert name == "Public stream to the mirrors"
                assert down.startswith("DOWN since ") and "update(s) waiting" in down, down
                server.start()  # same port, same folder
                await until(lambda: v.publisher.state == "up", "the link to be back", 30)
                await settled(v, m)
                [(_, up)] = v.service.health.links()
                assert up.startswith("up (Redis at ") and "0 update(s) waiting" in up, up
                assert not [
                    a
                    for a in v.service.health.alerts(None, v.clock.now())
                    if a.kind == "publish-behind"
                ]
                state = m.feed.state
                assert state is not None
                assert state.public_state().book.get(game) == v.service.public_state().book.get(
                    game
                )
                assert state.public_state().book.get(game).ply == 8
                # In order, none twice (a reset after Redis lost its data starts over once).
                assert seen == sorted(set(seen))
    finally:
        server.stop()


def _entry_text(fields: dict[bytes, bytes]) -> str:
    """Everything an entry says, readable (a snapshot's body decompressed)."""
    parts = [v.decode() for k, v in fields.items() if k != b"body"]
    if b"body" in fields:
        parts.append(zlib.decompress(fields[b"body"]).decode())
    return "\n".join(parts)


def _chain(first: Callable[[Any], None], then: Callable[[Any], None]) -> Callable[[Any], None]:
    def both(entry: Any) -> None:
        first(entry)
        then(entry)

    return both


async def test_a_mirror_started_mid_round_converges(
    tmp_path: Path, redis_server: RedisProcess
) -> None:
    async with venue(tmp_path, redis_server.url) as v:
        v.play(v.game(0), ["e4", "e5", "Nf3", "Nc6"])
        v.release()
        await asyncio.sleep(0.6)
        assert v.publisher is not None
        await until(lambda: not v.publisher.outbox, "the outbox to empty")
        v.play(v.game(0), ["Bb5"])
        v.play(v.game(2), ["c4"])
        v.release()
        async with mirrors(redis_server.url, v.service.config.name) as (m,):
            await settled(v, m)
            assert m.feed is not None and m.feed.state is not None
            assert m.feed.state.public_state().book.games == v.service.public_state().book.games
            async with aiohttp.ClientSession() as session:
                paths = public_paths(v)
                assert await answers(session, m.port, paths) == await answers(
                    session, v.port, paths
                )


async def test_websocket_resume_across_mirrors(tmp_path: Path, redis_server: RedisProcess) -> None:
    async with venue(tmp_path, redis_server.url) as v:
        game = v.game()
        v.play(game, ["e4"])
        v.release()
        async with mirrors(redis_server.url, v.service.config.name, 2) as (a, b):
            await settled(v, a, b)
            sub = {"type": "subscribe", "scope": "game", "game": game}
            async with websockets.connect(f"ws://127.0.0.1:{a.port}/ws") as ws:
                await ws.send(json.dumps(sub))
                snap = json.loads(await ws.recv())
            assert snap["type"] == "snapshot" and snap["epoch"] == v.hub.epoch
            assert snap["seq"] == v.hub.public.seq
            v.play(game, ["e5", "Nf3"])
            v.release()
            await settled(v, a, b)
            # The spectator's connection moves to the other mirror: it resumes from its seq.
            async with websockets.connect(f"ws://127.0.0.1:{b.port}/ws") as ws:
                await ws.send(json.dumps({**sub, "since": snap["seq"], "epoch": snap["epoch"]}))
                first = json.loads(await ws.recv())
            assert first["type"] == "move" and first["seq"] == snap["seq"] + 1
            assert [m["san"] for m in first["moves"]] == ["e5", "Nf3"]
            # The same resume at the venue gives the same message.
            async with websockets.connect(f"ws://127.0.0.1:{v.port}/ws") as ws:
                await ws.send(json.dumps({**sub, "since": snap["seq"], "epoch": snap["epoch"]}))
                assert json.loads(await ws.recv()) == first


# Junk in the stream (an unreadable entry, wrong types, a zlib bomb, odd seqs): see
# tests/test_mirror_junk.py.
