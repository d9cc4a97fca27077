"""Junk in the public stream, written by anyone with write access to Redis (the audit's
F7, reproduced as its `junk.py` did): a real venue, a real redis-server, real mirrors.

- An unreadable entry is skipped and said once; the mirror never reloads the snapshot
  before it (which resynced every spectator every 10 s while the venue was idle).
- A well-formed entry holding values of the wrong types never reaches the pages (they
  answered 500, and PGN feeds too, until a later delta for that game).
- A zlib bomb is refused without being inflated (a 204 KB entry took a mirror from 89 MB
  to 512 MB).
- An entry's seq is not believed blindly: an absurd one does not wedge the mirror, an old
  snapshot entry does not turn its pages back.
"""

from __future__ import annotations

import asyncio
import json
import logging
import tracemalloc
import zlib
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import websockets
from redis import asyncio as aioredis

from broadcast.journal.codec import to_plain
from broadcast.publish import stream_format
from broadcast.publish.stream_format import StreamKeys
from tests.broadcast.cli.test_mirror import (
    Mirror,
    Venue,
    answers,
    mirrors,
    public_paths,
    settled,
    venue,
)
from tests.support.redis_server import RedisProcess


async def _add(url: str, stream: str, fields: dict[str, Any]) -> str:
    client = aioredis.Redis.from_url(url)
    try:
        entry_id = await client.xadd(stream, fields)
        return entry_id.decode() if isinstance(entry_id, bytes) else str(entry_id)
    finally:
        await client.aclose()


def _venue_json(v: Venue) -> str:
    t = v.clock.now()
    return json.dumps(
        {"live": {"Masters": 1}, "unpaired": {}, "t": t, "wall": t, "speed": 1.0, "delay": 60.0}
    )


def _next_delta(
    v: Venue, m: Mirror, patch: dict[str, Any], *, seq: int | None = None
) -> dict[str, Any]:
    """A well-formed delta numbered next after the mirror's state, in the venue's run."""
    assert m.feed is not None and m.feed.state is not None
    number = m.feed.state.seq + 1 if seq is None else seq
    return {
        "format": stream_format.FORMAT,
        "kind": "delta",
        "epoch": m.feed.state.epoch,
        "seq": str(number),
        "keys": json.dumps(["event", f"game:{v.game()}"]),
        "text": json.dumps({"type": "clock", "game": v.game(), "seq": number}),
        "patch": json.dumps(patch),
        "venue": _venue_json(v),
    }


def _stream(v: Venue) -> str:
    return StreamKeys.of(v.service.config.name).stream


def _ply(m: Mirror, game: str) -> int:
    assert m.feed is not None and m.feed.state is not None
    return m.feed.state.public_state().book.get(game).ply


async def _messages_until(ws: Any, done: Any, timeout: float = 20.0) -> list[dict[str, Any]]:
    """What a spectator's socket receives until `done(message)`."""
    out: list[dict[str, Any]] = []
    async with asyncio.timeout(timeout):
        while True:
            message = json.loads(await ws.recv())
            out.append(message)
            if done(message):
                return out


async def test_an_unreadable_entry_is_skipped_once_and_spectators_are_not_resynced(
    tmp_path: Path, redis_server: RedisProcess, caplog: pytest.LogCaptureFixture
) -> None:
    async with venue(tmp_path, redis_server.url) as v:
        async with mirrors(redis_server.url, v.service.config.name) as (m,):
            game = v.game()
            v.play(game, ["e4", "e5"])
            v.release()
            await settled(v, m)
            assert m.feed is not None
            resets = m.feed.resets
            sub = {"type": "subscribe", "scope": "game", "game": game}
            async with websockets.connect(f"ws://127.0.0.1:{m.port}/ws") as ws:
                await ws.send(json.dumps(sub))
                assert json.loads(await ws.recv())["type"] == "snapshot"
                caplog.clear()
                for junk in (
                    {b"kind": b"delta", b"junk": b"\xff\x00"},  # the audit's `junk.py missing`
                    {
                        b"format": stream_format.FORMAT.encode(),
                        b"kind": b"delta",
                        b"epoch": b"zzz",
                        b"seq": b"abc",
                    },
                    {b"hello": b"world"},
                ):
                    await _add(redis_server.url, _stream(v), junk)
                await asyncio.sleep(1.5)  # the mirror reads the junk (and, before, reloaded)
                # The venue goes on after the junk: its next delta is taken as it comes.
                v.play(game, ["Nf3"])
                v.release()
                await settled(v, m)
                seen = await _messages_until(ws, lambda msg: msg.get("ply") == 3)
            assert _ply(m, game) == 3
            assert m.feed.resets == resets, "the mirror started over because of junk"
            assert [s["type"] for s in seen if s["type"] in ("resync", "snapshot")] == []
            skipped = [
                r
                for r in caplog.records
                if r.levelno == logging.WARNING and "skipped" in r.getMessage()
            ]
            assert len(skipped) == 1, [r.getMessage() for r in skipped]
            assert m.feed.rejected == 3


async def test_an_entry_of_wrong_types_never_reaches_the_pages(
    tmp_path: Path, redis_server: RedisProcess
) -> None:
    """The audit's `junk.py badfen`: a decodable entry with the next seq and a game of
    wrong types. Every public page and feed stays as it was, and the venue's own next
    delta (with the same seq) is taken."""
    async with venue(tmp_path, redis_server.url) as v:
        async with mirrors(redis_server.url, v.service.config.name) as (m,):
            game = v.game()
            v.play(game, ["e4", "e5"])
            v.release()
            await settled(v, m)
            assert m.feed is not None and m.feed.state is not None
            real = m.feed.state.public_state().book.get(game)
            plain = [to_plain(getattr(real, name)) for name in real.__dataclass_fields__]
            names = list(real.__dataclass_fields__)
            moves = names.index("moves")
            plain[moves] = [
                [mv.san, mv.uci, 12345, "noon", mv.remaining, mv.spent, "yes"] for mv in real.moves
            ]
            plain[names.index("white_clock")] = "zzz"
            plain[names.index("start_fen")] = None
            await _add(redis_server.url, _stream(v), _next_delta(v, m, {"games": {game: plain}}))
            await asyncio.sleep(1.0)
            async with aiohttp.ClientSession() as session:
                paths = public_paths(v)
                at_mirror = await answers(session, m.port, paths)
                bad = {p: a[0] for p, a in at_mirror.items() if a[0] >= 500}
                assert bad == {}, bad
                assert at_mirror == await answers(session, v.port, paths)
                v.play(game, ["Nf3"])
                v.release()
                await settled(v, m)
                assert _ply(m, game) == 3
                assert await answers(session, m.port, paths) == await answers(
                    session, v.port, paths
                )
            assert m.feed.rejected >= 1


async def test_a_zlib_bomb_is_refused_without_being_inflated(
    tmp_path: Path, redis_server: RedisProcess
) -> None:
    """The audit's `junk.py bomb 200`: a 204 KB snapshot entry inflating to ~200 MB."""
    bomb = zlib.compress(b"\0" * (200 << 20), 9)
    async with venue(tmp_path, redis_server.url) as v:
        async with mirrors(redis_server.url, v.service.config.name) as (m,):
            game = v.game()
            v.play(game, ["d4"])
            v.release()
            await settled(v, m)
            assert m.feed is not None and m.feed.state is not None
            resets = m.feed.resets
            fields = {
                "format": stream_format.FORMAT,
                "kind": "snapshot",
                "epoch": m.feed.state.epoch,
                "seq": str(m.feed.state.seq + 1),
                "body": bomb,
                "venue": _venue_json(v),
            }
            tracemalloc.start()
            try:
                await _add(redis_server.url, _stream(v), fields)
                v.play(game, ["d5"])
                v.release()
                await settled(v, m)
                _, peak = tracemalloc.get_traced_memory()
            finally:
                tracemalloc.stop()
            assert _ply(m, game) == 2
            assert m.feed.resets == resets
            assert peak < 100 << 20, f"{peak >> 20} MB held while the bomb was read"


async def test_an_absurd_seq_does_not_wedge_the_mirror(
    tmp_path: Path, redis_server: RedisProcess
) -> None:
    async with venue(tmp_path, redis_server.url) as v:
        async with mirrors(redis_server.url, v.service.config.name) as (m,):
            game = v.game()
            v.play(game, ["c4"])
            v.release()
            await settled(v, m)
            assert m.feed is not None and m.feed.state is not None
            resets = m.feed.resets
            absurd = m.feed.state.seq + 10**12
            await _add(redis_server.url, _stream(v), _next_delta(v, m, {}, seq=absurd))
            v.play(game, ["e5", "Nc3"])
            v.release()
            await settled(v, m)
            assert _ply(m, game) == 3
            assert m.feed.state.seq == v.hub.public.seq < absurd
            assert m.feed.resets == resets


async def test_an_old_snapshot_entry_does_not_turn_the_pages_back(
    tmp_path: Path, redis_server: RedisProcess
) -> None:
    """The venue's own first entry (a snapshot of the state before any move), written
    again: the mirror does not go back to it."""
    async with venue(tmp_path, redis_server.url) as v:
        async with mirrors(redis_server.url, v.service.config.name) as (m,):
            game = v.game()
            v.play(game, ["e4", "c5", "Nf3"])
            v.release()
            await settled(v, m)
            assert m.feed is not None and _ply(m, game) == 3
            resets = m.feed.resets
            client = aioredis.Redis.from_url(redis_server.url)
            try:
                [(_, first)] = await client.xrange(_stream(v), count=1)
                assert first[b"kind"] == b"snapshot"
                await client.xadd(_stream(v), first)
            finally:
                await client.aclose()
            await asyncio.sleep(1.0)
            assert _ply(m, game) == 3
            v.play(game, ["d6"])
            v.release()
            await settled(v, m)
            assert _ply(m, game) == 4
            assert m.feed.resets == resets


async def test_two_entries_with_one_number_are_settled_by_the_venues_next_snapshot(
    tmp_path: Path, redis_server: RedisProcess
) -> None:
    """A forged entry with the next seq comes first, so the venue's own entry of that
    number looks old: the mirror notices the two differ and takes the venue's next
    snapshot, so it ends up with the venue's state, not the forger's."""
    async with venue(tmp_path, redis_server.url) as v:
        assert v.publisher is not None
        v.publisher.snapshot_seconds = 0.0  # every batch refreshes the snapshot key
        async with mirrors(redis_server.url, v.service.config.name) as (m,):
            game = v.game()
            v.play(game, ["e4"])
            v.release()
            await settled(v, m)
            await _add(redis_server.url, _stream(v), _next_delta(v, m, {}))
            v.play(game, ["e5"])
            v.release()
            await settled(v, m)
            v.play(game, ["Nf3"])
            v.release()
            await settled(v, m)
            assert m.feed is not None and m.feed.state is not None
            assert m.feed.state.public_state().book.games == v.service.public_state().book.games


async def test_a_venue_of_another_format_is_said_once_with_what_to_do(
    redis_server: RedisProcess, caplog: pytest.LogCaptureFixture
) -> None:
    """A mirror of this version against a venue writing format 1 (an older boardwire):
    one warning that names both formats and what to do, and no page served from it."""
    from broadcast.config import load_event
    from broadcast.publish.mirror_feed import MirrorFeed
    from broadcast.publish.stream_format import snapshot_fields
    from tests.broadcast.publish.test_stream_format import PUBLIC, VENUE
    from tests.support.web_app import EVENT

    fields = snapshot_fields(load_event(EVENT), "old-run", 3, PUBLIC, VENUE)
    fields["format"] = "1"
    keys = StreamKeys.of(EVENT_NAME)
    client = aioredis.Redis.from_url(redis_server.url)
    try:
        await client.hset(keys.snapshot, mapping={**fields, "after": "0-0"})
    finally:
        await client.aclose()
    feed = MirrorFeed(redis_server.url, EVENT_NAME)
    task = asyncio.ensure_future(feed.run())
    try:
        loop = asyncio.get_running_loop()
        end = loop.time() + 20
        while feed.problem is None:
            assert loop.time() < end, "the mirror never said what is wrong"
            await asyncio.sleep(0.05)
        await asyncio.sleep(2.0)  # a few more looks at the snapshot key
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
    assert not feed.ready.is_set() and feed.state is None
    said = [r.getMessage() for r in caplog.records if "format" in r.getMessage()]
    assert len(said) == 1, said
    assert (
        "'1'" in said[0]
        and f"'{stream_format.FORMAT}'" in said[0]
        and "same boardwire version" in said[0]
    )


EVENT_NAME = "Pamplona Masters"
