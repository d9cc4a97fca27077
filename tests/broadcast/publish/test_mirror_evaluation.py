"""`boardwire mirror --eval` against a real redis-server and the real Stockfish: the
mirror evaluates the public positions it serves (the venue, without `--eval`, spends no
CPU on it), and its spectators get the evaluations on the websocket and in the game JSON;
the venue's spectators and the stream say nothing of them."""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path
from typing import Any

import aiohttp
import websockets

from broadcast.cli.mirror import mirror
from broadcast.games.evaluation import position_key
from broadcast.publish.mirror_feed import MirrorFeed
from tests.broadcast.analysis.test_evaluator import stockfish  # noqa: F401 (the fixture: fails when missing)
from tests.broadcast.cli.test_mirror import Mirror, settled, until, venue
from tests.support.redis_server import RedisProcess
from web.keys import EVALS


async def _subscribe(port: int, game: str) -> Any:
    ws = await websockets.connect(f"ws://127.0.0.1:{port}/ws")
    await ws.send(json.dumps({"type": "subscribe", "scope": "game", "game": game}))
    first = json.loads(await ws.recv())
    assert first["type"] == "snapshot"
    return ws


async def _evals(ws: Any, seconds: float) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    try:
        async with asyncio.timeout(seconds):
            while True:
                msg = json.loads(await ws.recv())
                if msg["type"] == "eval":
                    out.append(msg)
    except TimeoutError:
        pass
    return out


async def test_a_mirror_with_eval_evaluates_what_it_serves(
    tmp_path: Path,
    redis_server: RedisProcess,
    stockfish: str,  # noqa: F811
) -> None:
    async with venue(tmp_path, redis_server.url) as v:
        game = v.game(0)
        m = Mirror()
        runners: list[Any] = []

        def ready(feed: MirrorFeed, runner: Any) -> None:
            m.feed = feed
            runners.append(runner)
            m.up.set()

        args = argparse.Namespace(
            redis=redis_server.url,
            event=v.service.config.name,
            host="127.0.0.1",
            port=m.port,
            trusted_proxy=[],
            public_url=None,
            eval=True,
            eval_depth=8,
            eval_time=None,
        )
        m.task = asyncio.ensure_future(mirror(args, stop=m.stop, ready=ready))
        try:
            await asyncio.wait_for(m.up.wait(), 20)
            evals = runners[0].app[EVALS]
            at_mirror = await _subscribe(m.port, game)
            at_venue = await _subscribe(v.port, game)
            v.play(game, ["e4", "e5", "Nf3"])
            hidden = v.service.book.get(game).fen
            await asyncio.sleep(0.5)
            assert evals.lookup(hidden) is None  # the mirror never has what the delay hides
            v.release()
            await settled(v, m)
            await until(lambda: evals.lookup(hidden) is not None, "the mirror's evaluation")
            seen = await _evals(at_mirror, 2.0)
            assert any(position_key(e["fen"]) == position_key(hidden) for e in seen), seen
            assert all("seq" not in e for e in seen)
            assert await _evals(at_venue, 0.5) == []  # the venue does not evaluate
            async with aiohttp.ClientSession() as session:
                url = f"http://127.0.0.1:{m.port}/api/v1/games/{game}"
                async with session.get(url) as r:
                    assert (await r.json())["eval"]["fen"] == hidden
                async with session.get(f"http://127.0.0.1:{v.port}/api/v1/games/{game}") as r:
                    assert (await r.json())["eval"] is None
            await at_mirror.close()
            await at_venue.close()
        finally:
            m.stop.set()
            assert await m.task == 0
