"""`?eval=0` on an embed or a page (the venue's own screens) switches the engine's
evaluation off: the subscribe says `"eval": false` and the hub sends that client no
evaluation (neither after the snapshot nor as they are made); the game page has no bar."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from aiohttp import WSMsgType
from aiohttp.test_utils import TestClient, TestServer

from broadcast.analysis.engine import EngineSettings
from broadcast.analysis.evaluator import Evaluator
from broadcast.games.evaluation import Evaluation
from tests.support.paths import ROOT
from tests.support.web_app import CREDENTIALS, make_service
from web.app import build_app
from web.keys import HUB

GAME = "masters-r1-b1"


async def _next(ws: Any) -> dict[str, Any]:
    async with asyncio.timeout(5):
        msg = await ws.receive()
    assert msg.type == WSMsgType.TEXT
    return dict(json.loads(msg.data))


async def test_eval_0_gets_no_evaluations_and_no_bar(tmp_path: Path) -> None:
    service, _ = make_service(tmp_path, delay=0.0)
    evals = Evaluator(service.public_state, EngineSettings("stockfish", depth=8))
    start = service.book.get(GAME)
    ev = Evaluation(start.fen, 12, cp=20, pv=("e4",))
    evals.cache.put(ev)
    app = build_app(service, CREDENTIALS, evals=evals)
    client = TestClient(TestServer(app))
    await client.start_server()
    try:
        subscribe = {"type": "subscribe", "scope": "game", "game": GAME}
        async with (
            client.ws_connect("/ws") as with_evals,
            client.ws_connect("/ws") as without,
        ):
            await with_evals.send_str(json.dumps(subscribe))
            assert (await _next(with_evals))["type"] == "snapshot"
            assert (await _next(with_evals))["type"] == "eval"  # the known one, at once
            await without.send_str(json.dumps({**subscribe, "eval": False}))
            assert (await _next(without))["type"] == "snapshot"
            # A new evaluation: to the first client only; the second hears only its pong.
            app[HUB].on_eval(GAME, ev)
            assert (await _next(with_evals))["type"] == "eval"
            await without.send_str(json.dumps({"type": "ping"}))
            assert (await _next(without))["type"] == "pong"
        assert 'id="evalbar"' in await (await client.get(f"/game/{GAME}")).text()
        assert 'id="evalbar"' not in await (await client.get(f"/game/{GAME}?eval=0")).text()
    finally:
        await client.close()


def test_the_pages_script_asks_for_no_evaluation_under_eval_0() -> None:
    # Embeds and pages share live.js: it reads `?eval=0` and says so in its subscribe.
    script = (ROOT / "web" / "static" / "live.js").read_text()
    assert 'get("eval") === "0"' in script and "msg.eval = false" in script
