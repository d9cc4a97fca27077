"""What `serve --publish` costs the venue (the audit's F8), against a real redis-server:
a clock reading late in a game is an entry of a few hundred bytes, not the whole game
(9.9 KB at 72 plies in format 1), and the snapshots are built off the event loop."""

from __future__ import annotations

import threading
import zlib
from pathlib import Path
from typing import Any

import pytest
from redis import asyncio as aioredis

from broadcast.games.game_events import GameClock
from broadcast.publish.stream_format import StreamKeys
from tests.broadcast.cli.test_mirror import until, venue
from tests.support.redis_server import RedisProcess


def _line(v: Any, game: str, plies: int) -> list[str]:
    board = v.service.book.get(game).board_now()
    sans = []
    for _ in range(plies):
        moves = sorted(board.legal_moves, key=lambda m: m.uci())
        move = moves[len(board.move_stack) * 7 % len(moves)]
        sans.append(board.san(move))
        board.push(move)
    return sans


def _published(v: Any) -> Any:
    publisher = v.publisher
    return lambda: (
        not publisher.outbox
        and publisher.acked is not None
        and publisher.acked == (v.hub.epoch, v.hub.public.seq)
    )


async def test_a_clock_reading_late_in_a_game_is_a_small_entry(
    tmp_path: Path, redis_server: RedisProcess
) -> None:
    async with venue(tmp_path, redis_server.url) as v:
        game = v.game()
        v.play(game, _line(v, game, 72))
        v.release()
        await until(_published(v), "the moves in Redis")
        assert v.service.public_state().book.get(game).ply == 72
        moves_seq = v.hub.public.seq
        with v.service.batch():
            v.service.commit([GameClock(game, 3100, 2900, "white", v.clock.now())])
        v.release()
        await until(lambda: v.service.public_state().book.get(game).white_clock == 3100, "tick")
        # The service's state can show the reading before the hub has sent it out: wait
        # for the hub's next message, then for Redis to have it.
        await until(lambda: v.hub.public.seq > moves_seq, "the reading on the hub")
        await until(_published(v), "the reading in Redis")
        client = aioredis.Redis.from_url(redis_server.url)
        try:
            [(_, fields)] = await client.xrevrange(
                StreamKeys.of(v.service.config.name).stream, count=1
            )
        finally:
            await client.aclose()
        assert fields[b"kind"] == b"delta"
        assert b'"type":"clock"' in fields[b"text"]
        size = sum(len(k) + len(val) for k, val in fields.items())
        assert size < 1000, f"{size} bytes for one clock reading: {fields}"


async def test_snapshots_are_built_off_the_event_loop(
    tmp_path: Path, redis_server: RedisProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The snapshot (JSON of the whole public state, compressed) took 134 ms of the loop
    at 576 games and 1.18 s at 5,000, every 30 s: it is made in a worker thread now."""
    threads: list[threading.Thread] = []
    compress, compressobj = zlib.compress, zlib.compressobj

    def noting(data: Any) -> None:
        if bytes(data[:12]).startswith(b'{"config"'):  # a snapshot's body begins
            threads.append(threading.current_thread())

    def compressing(data: Any, *args: Any, **kwargs: Any) -> bytes:
        noting(data)
        return compress(data, *args, **kwargs)

    class Noted:
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            self.inner = compressobj(*args, **kwargs)

        def compress(self, data: Any) -> bytes:
            noting(data)
            return self.inner.compress(data)

        def flush(self, *args: Any) -> bytes:
            return self.inner.flush(*args)

    monkeypatch.setattr(zlib, "compress", compressing)
    monkeypatch.setattr(zlib, "compressobj", Noted)
    async with venue(tmp_path, redis_server.url) as v:
        assert v.publisher is not None
        v.publisher.snapshot_seconds = 0.0  # one with every batch
        game = v.game()
        for san in ("e4", "e5", "Nf3"):
            v.play(game, [san])
            v.release()
            await until(_published(v), "the move in Redis")
    assert len(threads) >= 2  # the first entry, and the snapshot key after a batch
    assert all(t is not threading.main_thread() for t in threads), threads
