"""What a websocket client may ask of the hub: replays from a snapshot, subscribes limited
per client and overall, one message a loop turn, bounded resyncs and message sizes."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp import ClientWebSocketResponse, WSCloseCode, WSMsgType
from aiohttp.test_utils import TestClient, TestServer

from broadcast.service.event_service import EventService
from clocks.timesource import ManualTime
from tests.support import acting
from tests.support.web_app import CREDENTIALS, make_service, play_moves
from web.app import build_app
from web.hub import Channel, Client, Delta, Frame, Hub, Wire
from web.hub import channel as hub_channel
from web.hub import server as hub_server
from web.hub.wire import frames_in
from web.keys import HUB
from web.limits import HubLimits, WebLimits

GAME = "masters-r1-b2"
EVENT = {"type": "subscribe", "scope": "event"}


async def _env(
    tmp: Path, hub: HubLimits | None = None
) -> tuple[TestClient, EventService, ManualTime]:
    service, clock = make_service(tmp, delay=0.0)
    limits = WebLimits(hub=hub or HubLimits())
    client = TestClient(TestServer(build_app(service, CREDENTIALS, limits=limits)))
    await client.start_server()
    return client, service, clock


@pytest.fixture
async def env(tmp_path: Path) -> AsyncIterator[tuple[TestClient, EventService, ManualTime]]:
    client, service, clock = await _env(tmp_path)
    yield client, service, clock
    await client.close()


def _hub(client: TestClient) -> Hub:
    return client.server.app[HUB]  # type: ignore[union-attr,no-any-return]


async def recv(ws: ClientWebSocketResponse) -> dict[str, Any]:
    message: dict[str, Any] = json.loads(await ws.receive_str(timeout=5))
    return message


async def _rest(ws: ClientWebSocketResponse) -> list[dict[str, Any]]:
    """Every message up to the answer to a ping (all the server queued before it)."""
    await ws.send_json({"type": "ping"})
    out = []
    while (message := await recv(ws))["type"] != "pong":
        out.append(message)
    return out


def _flood(hub: Hub, n: int, key: str = "event") -> None:
    for i in range(n):
        hub.public.publish(Delta(frozenset({key}), {"type": "clock", "n": i}))


async def test_a_replay_from_far_behind_is_one_snapshot(
    env: tuple[TestClient, EventService, ManualTime],
) -> None:
    client, _, _ = env
    hub = _hub(client)
    _flood(hub, 1000)  # within the 4,096 of the buffer: the old hub replayed them one by one
    async with client.ws_connect("/ws") as ws:
        await ws.send_json({**EVENT, "since": 0, "epoch": hub.epoch})
        answer = await _rest(ws)
    assert [m["type"] for m in answer] == ["snapshot"]
    assert answer[0]["seq"] == hub.public.seq


async def test_a_replay_from_close_behind_is_exactly_what_was_missed(
    env: tuple[TestClient, EventService, ManualTime],
) -> None:
    client, _, _ = env
    hub = _hub(client)
    _flood(hub, 10)
    seen = hub.public.seq
    _flood(hub, 5)
    _flood(hub, 5, key="game:other")  # another scope's: not this client's
    async with client.ws_connect("/ws") as ws:
        await ws.send_json({**EVENT, "since": seen, "epoch": hub.epoch})
        answer = await _rest(ws)
    assert [m["n"] for m in answer] == [0, 1, 2, 3, 4]
    assert [m["seq"] for m in answer] == list(range(seen + 1, seen + 6))


def test_replays_are_found_without_a_scan(tmp_path: Path) -> None:
    service, _ = make_service(tmp_path)
    channel = Channel("public", service.config, Frame(service.tournament, service.book), "e")
    for i in range(hub_channel.REPLAY_LIMIT * 2):
        channel.publish(Delta(frozenset({"event", f"game:{i % 3}"}), {"n": i}))
    assert len(channel.buffer) == hub_channel.REPLAY_LIMIT
    top = channel.seq
    assert channel.since(top, "event") == []
    assert [json.loads(w.text)["n"] for w in channel.since(top - 3, "event") or []] == [
        top - 3,
        top - 2,
        top - 1,
    ]
    assert channel.since(top - hub_channel.REPLAY_PER_KEY - 1, "event") is None  # snapshot
    assert channel.since(top - 6, "game:0") is not None
    assert channel.since(0, "event") is None  # before the buffer
    assert channel.since(top + 1, "event") is None  # not this run's
    assert channel.since(top - 5, "game:never") == []  # nothing for it since


async def test_subscribes_are_limited_per_client(
    env: tuple[TestClient, EventService, ManualTime],
) -> None:
    client, _, _ = env
    limits = HubLimits()
    async with client.ws_connect("/ws") as ws:
        for _ in range(40):
            await ws.send_json(EVENT)
        kinds: list[str] = []
        while True:
            msg = await ws.receive(timeout=5)
            if msg.type != WSMsgType.TEXT:
                break
            kinds.append(json.loads(msg.data)["type"])
        assert ws.close_code == WSCloseCode.POLICY_VIOLATION
    assert kinds.count("snapshot") == limits.subscribe_burst
    # The last error may be overtaken by the close (its reason says the same).
    assert limits.strikes - 1 <= kinds.count("error") <= limits.strikes


async def test_a_message_flood_closes_the_socket(
    env: tuple[TestClient, EventService, ManualTime],
) -> None:
    client, _, _ = env
    async with client.ws_connect("/ws") as ws:
        for _ in range(200):
            await ws.send_json({"type": "ping"})
        pongs = 0
        while (await ws.receive(timeout=5)).type == WSMsgType.TEXT:
            pongs += 1
        assert ws.close_code == WSCloseCode.POLICY_VIOLATION
    assert pongs <= HubLimits().message_burst + 1


async def test_subscribes_from_everybody_wait_their_turn(tmp_path: Path) -> None:
    limits = HubLimits(global_rate=20, global_burst=2, global_wait=0.12)
    client, _, _ = await _env(tmp_path, limits)
    try:
        sockets = [await client.ws_connect("/ws") for _ in range(6)]
        for ws in sockets:
            await ws.send_json(EVENT)
        outcomes = []
        for ws in sockets:
            msg = await ws.receive(timeout=5)
            outcomes.append(
                json.loads(msg.data)["type"] if msg.type == WSMsgType.TEXT else "closed"
            )
        # Two at once, two more within the wait (20 a second), the rest told to come back.
        assert outcomes.count("snapshot") == 4
        assert outcomes.count("closed") == 2
        assert {ws.close_code for ws in sockets if ws.closed} == {WSCloseCode.TRY_AGAIN_LATER}
        for ws in sockets:
            await ws.close()
    finally:
        await client.close()


async def test_a_burst_in_one_packet_is_handled_one_message_a_loop_turn(tmp_path: Path) -> None:
    client, _, _ = await _env(tmp_path, HubLimits(message_rate=1000, message_burst=1000))
    hub = _hub(client)
    handled = 0
    handle = hub._handle

    def counting(*args: Any) -> Any:
        nonlocal handled
        handled += 1
        return handle(*args)

    hub._handle = counting  # type: ignore[method-assign]
    per_turn: list[int] = []
    last = 0
    running = True

    def probe() -> None:
        nonlocal last
        per_turn.append(handled - last)
        last = handled
        if running:
            asyncio.get_running_loop().call_soon(probe)

    try:
        async with client.ws_connect("/ws") as ws:
            await ws.send_json({"type": "ping"})
            await recv(ws)
            last = handled
            probe()
            # 300 pings written before the server reads: they arrive in a read or two.
            for _ in range(300):
                await ws.send_str('{"type":"ping"}')
            for _ in range(300):
                await recv(ws)
            running = False
        assert sum(per_turn) == 300
        assert max(per_turn) <= 2  # the old hub handled a whole packet's worth in one turn
    finally:
        running = False
        await client.close()


async def test_big_messages_are_refused(env: tuple[TestClient, EventService, ManualTime]) -> None:
    client, _, _ = env
    async with client.ws_connect("/ws") as ws:
        await ws.send_str(json.dumps({"type": "ping", "pad": "x" * 10_000}))
        msg = await ws.receive(timeout=5)
        assert msg.type in (WSMsgType.CLOSE, WSMsgType.CLOSED)
        assert ws.close_code == WSCloseCode.MESSAGE_TOO_BIG


class StalledSocket:
    closed = False


def test_a_client_that_stalls_again_and_again_is_told_to_come_back_later() -> None:
    client = Client(StalledSocket(), limits=HubLimits(resync_burst=2))  # type: ignore[arg-type]
    client.resync_to = lambda: [Wire.of('{"type":"resync"}'), Wire.of('{"type":"snapshot"}')]
    for i in range(hub_channel.QUEUE_LIMIT * 4):
        client.push(Wire.of(f'{{"seq":{i}}}'))
    assert client.closing == WSCloseCode.TRY_AGAIN_LATER
    assert len(client.queue) <= hub_channel.QUEUE_LIMIT


async def test_the_arbiter_is_not_held_up_by_the_crowd(tmp_path: Path) -> None:
    # Everybody's subscribe budget spent: spectators wait or are turned away, the desk not.
    limits = HubLimits(global_rate=0.01, global_burst=1, global_wait=0.0)
    client, service, _ = await _env(tmp_path, limits)
    try:
        async with client.ws_connect("/ws") as ws:
            await ws.send_json(EVENT)
            assert (await recv(ws))["type"] == "snapshot"
        async with client.ws_connect("/ws") as ws:
            await ws.send_json(EVENT)
            assert (await ws.receive(timeout=5)).type == WSMsgType.CLOSE
        login = await client.get("/arbiter/login")
        token = login.cookies["bw_login"].value
        await client.post(
            "/arbiter/login",
            data={"user": CREDENTIALS[0], "password": CREDENTIALS[1], "login_token": token},
            allow_redirects=False,
        )
        async with client.ws_connect("/arbiter/ws") as ws:
            await ws.send_json(EVENT)
            assert (await recv(ws))["type"] == "snapshot"
        play_moves(service, GAME, ["e4"])
    finally:
        await client.close()


async def test_standings_follow_a_result_computed_off_the_loop(
    env: tuple[TestClient, EventService, ManualTime], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A 2,000-player Swiss's standings take a tenth of a second, twice per channel per
    # change in the old hub: the loop stalled for every result entered.
    import threading

    import web.json_views

    client, service, _ = env
    threads: list[str] = []
    real = web.json_views.standings_json

    def recording(*args: Any, **kwargs: Any) -> Any:
        threads.append(threading.current_thread().name)
        return real(*args, **kwargs)

    monkeypatch.setattr(web.json_views, "standings_json", recording)
    async with client.ws_connect("/ws") as ws:
        await ws.send_json(
            {"type": "subscribe", "scope": "round", "section": "masters", "round": 1}
        )
        assert (await recv(ws))["type"] == "snapshot"
        threads.clear()
        play_moves(service, GAME, ["e4", "e5"])
        acting.set_result(service, GAME, "1-0", "arbiter:test")
        _hub(client).pump()
        kinds = []
        while "standings" not in kinds:
            kinds.append((await recv(ws))["type"])
    assert threads and threading.main_thread().name not in threads


class RecordingSocket:
    closed = False

    async def close(self, **kwargs: Any) -> None:
        self.closed = True


class RecordingTransport(asyncio.WriteTransport):
    """A socket that notes the loop turn of every message written to it."""

    def __init__(self, turns: list[int]) -> None:
        super().__init__()
        self.turns = turns
        self.sent: list[int] = []

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self.sent += [self.turns[0]] * len(list(frames_in(bytes(data))))

    def get_write_buffer_size(self) -> int:
        return 0

    def get_write_buffer_limits(self) -> tuple[int, int]:
        return (16384, 65536)

    def is_closing(self) -> bool:
        return False


async def test_a_writer_sends_a_few_messages_a_loop_turn(tmp_path: Path) -> None:
    # A delta to 1,000 clients is 1,000 sends; a burst of deltas, all of them in one turn
    # of the loop, held the boards up for a quarter of a second.
    service, _ = make_service(tmp_path)
    hub = Hub(service)
    turns = [0]
    running = True

    def probe() -> None:
        turns[0] += 1
        if running:
            asyncio.get_running_loop().call_soon(probe)

    ws = RecordingSocket()
    transport = RecordingTransport(turns)
    client = Client(ws, transport=transport)  # type: ignore[arg-type]
    probe()
    client.queue.extend(Wire.of(f'{{"seq":{i}}}') for i in range(40))  # a backlog
    client.wake.set()
    writer = asyncio.ensure_future(hub._writer(client))
    while len(transport.sent) < 40:
        await asyncio.sleep(0)
    running = False
    ws.closed = True
    client.wake.set()
    await writer
    per_turn = [transport.sent.count(t) for t in set(transport.sent)]
    assert max(per_turn) <= hub_server.WRITE_BATCH < 40
    hub.executor.shutdown()


def test_the_serving_process_tunes_the_garbage_collector() -> None:
    import subprocess
    import sys

    code = (
        "import gc; from web.http_server import tune_gc, GC_THRESHOLDS; tune_gc(); "
        "print(gc.get_threshold() == GC_THRESHOLDS, gc.get_freeze_count() > 0)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True", "True"]
