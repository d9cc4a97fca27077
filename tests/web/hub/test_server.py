"""The websocket hub: snapshot then deltas, delayed public channel, reconnect, slow clients."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from aiohttp import ClientWebSocketResponse, WSServerHandshakeError
from aiohttp.test_utils import TestClient

from broadcast.games.game_events import GameFlag, LineCorrected, ResultConfirmed, ResultProposed
from broadcast.service.event_service import EventService
from clocks.timesource import ManualTime
from tests.support.web_app import make_service, play_moves
from web.hub import Client, Frame, Wire, diff, game_deltas
from web.hub import channel as hub_channel
from web.keys import HUB

GAME = "masters-r1-b2"


DELAY = 60.0  # the public view's delay in the `env` fixture


async def recv(ws: ClientWebSocketResponse) -> dict[str, Any]:
    message: dict[str, Any] = json.loads(await ws.receive_str(timeout=5))
    return message


def pump(client: TestClient) -> None:
    client.server.app[HUB].pump()  # type: ignore[union-attr]


async def test_snapshot_then_deltas_after_the_delay(
    env: tuple[TestClient, EventService, ManualTime],
) -> None:
    client, service, clock = env
    async with client.ws_connect("/ws") as ws:
        await ws.send_json({"type": "subscribe", "scope": "game", "game": GAME})
        snap = await recv(ws)
        assert snap["type"] == "snapshot" and snap["data"]["game"]["ply"] == 0
        play_moves(service, GAME, ["e4"])
        pump(client)
        clock.advance(30)
        pump(client)
        # Nothing yet: the public channel only knows the delayed state.
        await ws.send_json({"type": "ping"})
        assert (await recv(ws))["type"] == "pong"
        clock.advance(31)
        pump(client)
        move = await recv(ws)
        assert move["type"] == "move" and move["moves"][0]["san"] == "e4"
        assert move["seq"] > snap["seq"]


async def test_arbiter_channel_is_live_and_needs_login(
    env: tuple[TestClient, EventService, ManualTime],
) -> None:
    client, service, _ = env
    with pytest.raises(WSServerHandshakeError) as refused:
        await client.ws_connect("/arbiter/ws")
    assert refused.value.status == 401
    hub = client.server.app[HUB]  # type: ignore[union-attr]
    before = hub.arbiter.seq
    play_moves(service, GAME, ["d4"])
    pump(client)
    assert hub.arbiter.seq > before
    assert any('"d4"' in text for _, _, text in hub.arbiter.buffer)
    assert not any('"d4"' in text for _, _, text in hub.public.buffer)


async def test_reconnect_gets_what_it_missed(
    env: tuple[TestClient, EventService, ManualTime],
) -> None:
    client, service, clock = env
    async with client.ws_connect("/ws") as ws:
        await ws.send_json(
            {"type": "subscribe", "scope": "round", "section": "masters", "round": 1}
        )
        snap = await recv(ws)
        assert len(snap["data"]["games"]) == 4
    play_moves(service, GAME, ["c4"])
    clock.advance(61)
    pump(client)
    async with client.ws_connect("/ws") as ws:
        await ws.send_json(
            {
                "type": "subscribe",
                "scope": "round",
                "section": "masters",
                "round": 1,
                "since": snap["seq"],
                "epoch": snap["epoch"],
            }
        )
        missed = await recv(ws)
        assert missed["type"] == "move" and missed["game"] == GAME
    async with client.ws_connect("/ws") as ws:
        await ws.send_json(
            {"type": "subscribe", "scope": "event", "since": snap["seq"], "epoch": "other-run"}
        )
        fresh = await recv(ws)
        assert fresh["type"] == "snapshot" and fresh["data"]["live"][0]["round"] == 1


async def test_bad_messages_get_errors(env: tuple[TestClient, EventService, ManualTime]) -> None:
    client, _, _ = env
    async with client.ws_connect("/ws") as ws:
        for bad in (
            "not json",
            "[1]",
            '{"type": "subscribe", "scope": "nope"}',
            '{"type": "subscribe", "scope": "game", "game": "x"}',
            '{"type": "subscribe", "scope": "round", "section": "masters", "round": true}',
        ):
            await ws.send_str(bad)
            assert (await recv(ws))["type"] == "error"


class StalledSocket:
    closed = False


def test_a_stalled_client_is_bounded_and_resynced() -> None:
    client = Client(StalledSocket())  # type: ignore[arg-type]
    client.resync_to = lambda: [Wire.of('{"type":"resync"}'), Wire.of('{"type":"snapshot"}')]
    for i in range(hub_channel.QUEUE_LIMIT * 3):
        client.push(Wire.of(f'{{"seq":{i}}}'))
    assert len(client.queue) <= hub_channel.QUEUE_LIMIT
    assert client.resyncs == 3  # every time the queue fills up again
    assert client.queue[0].text == '{"type":"resync"}'
    assert client.queue[1].text == '{"type":"snapshot"}'


async def test_each_delta_is_encoded_once_for_all_subscribers(
    env: tuple[TestClient, EventService, ManualTime],
) -> None:
    client, service, clock = env
    hub = client.server.app[HUB]  # type: ignore[union-attr]
    sockets = [await client.ws_connect("/ws") for _ in range(5)]
    for ws in sockets:
        await ws.send_json({"type": "subscribe", "scope": "game", "game": GAME})
        await recv(ws)
    play_moves(service, GAME, ["Nf3"])
    clock.advance(61)
    pump(client)
    texts = [await ws.receive_str(timeout=5) for ws in sockets]
    assert len(set(texts)) == 1 and all(t is texts[0] or t == texts[0] for t in texts)
    assert hub.public.sent >= 5
    for ws in sockets:
        await ws.close()


def test_a_correction_replaces_the_line(tmp_path: Path) -> None:
    service, clock = make_service(tmp_path, delay=0.0)
    play_moves(service, GAME, ["e4", "e5"])
    old = service.book.get(GAME)
    new = old.apply(LineCorrected(GAME, ("d2d4",), clock.now()))
    (message,) = game_deltas(old, new)
    assert message["type"] == "game" and [m["san"] for m in message["game"]["moves"]] == ["d4"]
    clocked = replace(new, white_clock=100, black_clock=90, running="white")
    assert [m["type"] for m in game_deltas(new, clocked)] == ["clock"]


def test_result_deltas_carry_flag_pending_result_and_reason(tmp_path: Path) -> None:
    service, clock = make_service(tmp_path, delay=0.0)
    play_moves(service, GAME, ["e4", "e5"])
    old = service.book.get(GAME)
    flagged = old.apply(GameFlag(GAME, "black", clock.now())).apply(
        ResultProposed(GAME, "1-0", "flag-fall", clock.now(), "black flag fell")
    )
    (message,) = game_deltas(old, flagged)
    assert message == {
        "type": "result",
        "game": GAME,
        "result": "*",
        "result_reason": None,
        "flag": "black",
        "pending_result": {"result": "1-0", "reason": "time forfeit"},
        "reason": None,
    }
    decided = flagged.apply(ResultConfirmed(GAME, "1-0", "flag-fall", clock.now()))
    (message,) = game_deltas(flagged, decided)
    assert (message["result"], message["result_reason"], message["pending_result"]) == (
        "1-0",
        "time forfeit",
        None,
    )


def test_diff_of_identical_frames_is_empty(tmp_path: Path) -> None:
    service, _ = make_service(tmp_path)
    frame = Frame(service.tournament, service.book)
    assert diff(service.config, frame, frame) == []
