"""Evaluations reach spectators (with the real Stockfish): `eval` messages on the public
websocket (after each snapshot, and as they are made), the game JSON's `eval` as OpenAPI
describes it, `[%eval]` in the PGN feeds when asked for (`?eval=1`), the game page's
bar and line. Without `--eval` everything is as before and says nothing of evaluation."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import requests
import schemathesis
from aiohttp import WSMsgType
from aiohttp.test_utils import TestClient, TestServer
from schemathesis.core.transport import Response

from broadcast.analysis.engine import EngineSettings
from broadcast.analysis.evaluator import Evaluator
from broadcast.games.evaluation import position_key
from broadcast.service.event_service import EventService
from tests.broadcast.analysis.test_evaluator import stockfish, until  # noqa: F401 (the fixture)
from tests.support.web_app import CREDENTIALS, make_service, play_moves
from web import routes_public
from web.app import build_app
from web.openapi import document

GAME = "masters-r1-b1"
SCHEMA = schemathesis.openapi.from_dict(document())


class Env:
    def __init__(self, client: TestClient, service: EventService, evals: Evaluator | None):
        self.client = client
        self.service = service
        self.evals = evals


@pytest.fixture
async def evaluating(tmp_path: Path, stockfish: str) -> AsyncIterator[Env]:  # noqa: F811
    service, _ = make_service(tmp_path, delay=0.0)
    evals = Evaluator(service.public_state, EngineSettings(stockfish, depth=8), poll=0.02)
    client = TestClient(TestServer(build_app(service, CREDENTIALS, evals=evals)))
    await client.start_server()
    task = service.supervisor.start("the engine evaluation", evals.run)
    try:
        yield Env(client, service, evals)
    finally:
        await task.stop()
        await client.close()


@pytest.fixture
async def plain(tmp_path: Path) -> AsyncIterator[Env]:
    service, _ = make_service(tmp_path, delay=0.0)
    client = TestClient(TestServer(build_app(service, CREDENTIALS)))
    await client.start_server()
    try:
        yield Env(client, service, None)
    finally:
        await client.close()


async def _messages(ws: Any, until_type: str, timeout: float = 30.0) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    async with asyncio.timeout(timeout):
        while True:
            msg = await ws.receive()
            assert msg.type == WSMsgType.TEXT, msg
            out.append(json.loads(msg.data))
            if out[-1]["type"] == until_type:
                return out


def _conforms(path: str, template: str, body: bytes) -> None:
    """`body` is what OpenAPI describes for GET `template` (raises if not)."""
    request = requests.Request("GET", f"http://test{path}").prepare()
    response = Response(
        status_code=200,
        headers={"Content-Type": ["application/json"]},
        content=body,
        request=request,
        elapsed=0.0,
        verify=False,
    )
    SCHEMA[template]["GET"].validate_response(response)


async def test_spectators_get_evaluations_live_and_after_a_snapshot(evaluating: Env) -> None:
    client, service, evals = evaluating.client, evaluating.service, evaluating.evals
    assert evals is not None
    ws = await client.ws_connect("/ws")
    await ws.send_json({"type": "subscribe", "scope": "game", "game": GAME})
    await _messages(ws, "snapshot")
    play_moves(service, GAME, ["e4", "c5"])
    fen = service.book.get(GAME).fen
    seen = await _messages(ws, "eval")
    while position_key(seen[-1]["fen"]) != position_key(fen):
        seen += await _messages(ws, "eval")
    ev = seen[-1]
    assert ev["game"] == GAME and "seq" not in ev  # outside the numbered sequence
    assert ("cp" in ev) != ("mate" in ev) and ev["depth"] >= 8
    assert ev["pv"] and isinstance(ev["pv"][0], str)
    await ws.close()
    # A spectator arriving now gets the known evaluations right after the snapshot, on
    # every scope that shows the game.
    for sub in (
        {"scope": "game", "game": GAME},
        {"scope": "round", "section": "masters", "round": 1},
        {"scope": "event"},
    ):
        ws = await client.ws_connect("/ws")
        await ws.send_json({"type": "subscribe", **sub})
        first = await _messages(ws, "snapshot")
        assert len(first) == 1
        after = await _messages(ws, "eval", timeout=2.0)
        assert after[0]["type"] == "eval" and after[0]["fen"] == fen, sub
        await ws.close()


async def test_the_game_json_and_the_pgn_feeds_carry_the_evaluation(
    evaluating: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    client, service, evals = evaluating.client, evaluating.service, evaluating.evals
    assert evals is not None
    play_moves(service, GAME, ["d4", "d5", "c4"])
    fen = service.book.get(GAME).fen
    await until(lambda: evals.lookup(fen) is not None, "the evaluation")
    response = await client.get(f"/api/v1/games/{GAME}")
    body = await response.read()
    data = json.loads(body)
    assert data["eval"]["fen"] == fen and data["eval"]["depth"] >= 8
    _conforms(f"/api/v1/games/{GAME}", "/api/v1/games/{game}", body)
    for path in (
        f"/api/v1/games/{GAME}.pgn",
        "/api/v1/rounds/1.pgn",
        "/api/v1/sections/masters/rounds/1.pgn",
        "/api/v1/event.pgn",
    ):
        plain = await (await client.get(path)).text()
        assert "[%eval" not in plain, path  # only when asked for
        annotated = await (await client.get(path, params={"eval": "1"})).text()
        assert re.search(r"2\. c4\s+\{\[%eval -?\d+\.\d\d\]", annotated), (path, annotated)
    # A feed with evaluations is written again at most every ROUND_EVAL_SECONDS (each
    # evaluation changes it); after that, a new evaluation gives a new text.
    play_moves(service, GAME, ["e6"])
    after = service.book.get(GAME).fen
    await until(lambda: evals.lookup(after) is not None, "the next evaluation")
    text = await (await client.get("/api/v1/rounds/1.pgn", params={"eval": "1"})).text()
    assert "e6" not in text.split("\n\n")[1]  # the one written a moment ago
    monkeypatch.setattr(routes_public, "ROUND_EVAL_SECONDS", 0.0)
    text = await (await client.get("/api/v1/rounds/1.pgn", params={"eval": "1"})).text()
    assert re.search(r"2\.\.\. e6\s+\{\[%eval ", text), text
    page = await (await client.get(f"/game/{GAME}")).text()
    assert 'id="evalbar"' in page and 'id="evalline"' in page


async def test_without_an_engine_nothing_is_said_of_evaluation(plain: Env) -> None:
    client, service = plain.client, plain.service
    play_moves(service, GAME, ["e4", "e5"])
    data = await (await client.get(f"/api/v1/games/{GAME}")).json()
    assert data["eval"] is None
    text = await (await client.get(f"/api/v1/games/{GAME}.pgn", params={"eval": "1"})).text()
    assert "[%eval" not in text and "1. e4" in text
    bad = await client.get("/api/v1/rounds/1.pgn", params={"eval": "yes"})
    assert bad.status == 400 and "eval must be 0 or 1" in (await bad.json())["error"]
    page = await (await client.get(f"/game/{GAME}")).text()
    assert "evalbar" not in page and "evalline" not in page
    ws = await client.ws_connect("/ws")
    await ws.send_json({"type": "subscribe", "scope": "game", "game": GAME})
    await _messages(ws, "snapshot")
    play_moves(service, GAME, ["Nf3"])
    got = await _messages(ws, "move")
    with pytest.raises(TimeoutError):
        got += await _messages(ws, "eval", timeout=0.5)
    assert all(m["type"] != "eval" for m in got)
    await ws.close()
