"""The hub's fan-out on real sockets: each delta encoded once, the same frame bytes on
every client's socket, bursts in order, and a slow client resynced without holding up
the others."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp import WSCloseCode
from aiohttp.test_utils import TestServer

from broadcast.service.event_service import EventService
from tests.support.raw_ws import RawSocket, connect
from tests.support.web_app import make_service
from web.app import build_app
from web.hub import Delta, Hub
from web.hub import channel as hub_channel
from web.hub.wire import Wire, frames_in, text_frame
from web.keys import HUB

EVENT = json.dumps({"type": "subscribe", "scope": "event"})


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[tuple[TestServer, EventService]]:
    service, _ = make_service(tmp_path, delay=0.0)
    srv = TestServer(build_app(service, None))
    await srv.start_server()
    yield srv, service
    await srv.close()


def _hub(srv: TestServer) -> Hub:
    return srv.app[HUB]


async def _subscribed(srv: TestServer, n: int, **kwargs: int) -> list[RawSocket]:
    sockets = []
    for _ in range(n):
        ws = await connect("127.0.0.1", srv.port or 0, **kwargs)
        await ws.send(EVENT)
        assert json.loads(await ws.text())["type"] == "snapshot"
        sockets.append(ws)
    return sockets


def test_a_frame_is_what_a_websocket_library_reads() -> None:
    for size in (0, 125, 126, 65535, 65536):
        text = "x" * size
        frame = text_frame(text.encode())
        assert list(frames_in(frame)) == [(0x81, text.encode())]
        assert list(frames_in(frame[:-1])) == []  # a partial frame is not one


async def test_every_client_gets_the_very_bytes_encoded_once(
    server: tuple[TestServer, EventService],
) -> None:
    srv, _ = server
    hub = _hub(srv)
    sockets = await _subscribed(srv, 6)
    for ws in sockets:
        ws.raw.clear()
        ws._read = 0
    encoded = hub.public.encoded
    for i in range(3):
        hub.public.publish(Delta(frozenset({"event"}), {"type": "clock", "n": i}))
    texts = [[await ws.text() for _ in range(3)] for ws in sockets]
    # Three encodings for six clients, and on every socket exactly those frames' bytes.
    assert hub.public.encoded - encoded == 3
    wires = hub.public.since(hub.public.seq - 3, "event")
    assert wires is not None and len(wires) == 3
    expected = b"".join(w.frame for w in wires)
    assert all(bytes(ws.raw) == expected for ws in sockets)
    assert all(t == [w.text for w in wires] for t in texts)
    for ws in sockets:
        ws.close()


async def test_a_burst_reaches_each_client_whole_and_in_order(
    server: tuple[TestServer, EventService],
) -> None:
    srv, _ = server
    hub = _hub(srv)
    sockets = await _subscribed(srv, 20)
    first = hub.public.seq + 1
    for i in range(500):
        hub.public.publish(Delta(frozenset({"event"}), {"type": "clock", "n": i}))
    for ws in sockets:
        seqs = [json.loads(await ws.text())["seq"] for _ in range(500)]
        assert seqs == list(range(first, first + 500))
    assert hub.public.sent >= 20 * 500
    for ws in sockets:
        ws.close()


async def test_a_client_subscribed_mid_fan_out_gets_nothing_its_snapshot_has(
    server: tuple[TestServer, EventService],
) -> None:
    srv, _ = server
    hub = _hub(srv)
    (early,) = await _subscribed(srv, 1)
    late = await connect("127.0.0.1", srv.port or 0)
    for i in range(5):
        hub.public.publish(Delta(frozenset({"event"}), {"type": "clock", "n": i}))
    # Not fanned out yet (the fan-out runs on the next loop turn) when this one subscribes.
    await late.send(EVENT)
    snap = json.loads(await late.text())
    assert snap["type"] == "snapshot" and snap["seq"] == hub.public.seq
    hub.public.publish(Delta(frozenset({"event"}), {"type": "clock", "n": 5}))
    after = json.loads(await late.text())
    assert after["seq"] == snap["seq"] + 1  # nothing at or before its snapshot
    assert [json.loads(await early.text())["n"] for _ in range(6)] == list(range(6))
    early.close()
    late.close()


async def test_a_slow_client_is_resynced_and_the_others_get_everything(
    server: tuple[TestServer, EventService],
) -> None:
    srv, _ = server
    hub = _hub(srv)
    fast = await _subscribed(srv, 3)
    (slow,) = await _subscribed(srv, 1, receive_buffer=4096)  # subscribes, then stops reading
    clients = list(hub.public.subscribers["event"])
    pad = "p" * 16_000  # 600 of them: far more than the kernel's and the transport's buffers
    first = hub.public.seq + 1
    got: list[list[int]] = [[] for _ in fast]

    async def read(i: int, ws: RawSocket) -> None:
        while len(got[i]) < 600:
            got[i].append(json.loads(await ws.text(timeout=20))["seq"])

    readers = [asyncio.ensure_future(read(i, ws)) for i, ws in enumerate(fast)]
    for i in range(600):
        hub.public.publish(Delta(frozenset({"event"}), {"type": "clock", "n": i, "pad": pad}))
        if i % 50 == 0:
            await asyncio.sleep(0.01)
    await asyncio.wait_for(asyncio.gather(*readers), 30)
    assert all(seqs == list(range(first, first + 600)) for seqs in got)
    behind = [c for c in clients if c.resyncs > 0]
    assert len(behind) == 1  # only the one that stopped reading
    assert len(behind[0].queue) <= hub_channel.QUEUE_LIMIT
    # It reads again: what it gets after its backlog is a resync and a fresh snapshot.
    kinds = []
    while "resync" not in kinds:
        message = json.loads(await slow.text(timeout=10))
        kinds.append(message.get("type"))
    assert json.loads(await slow.text(timeout=10))["type"] == "snapshot"
    for ws in [*fast, slow]:
        ws.close()


def test_a_wire_is_the_text_framed() -> None:
    wire = Wire.of('{"type":"pong","é":1}')
    ((first, payload),) = frames_in(wire.frame)
    assert first == 0x81 and payload.decode() == wire.text


class BrokenTransport:
    """A socket whose writes raise something nobody expected."""

    def __init__(self, real: Any) -> None:
        self.real = real

    def write(self, data: bytes) -> None:
        raise ValueError("broken on purpose")

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)


@pytest.mark.expected_log("fan-out to a websocket client failed")
async def test_a_client_whose_socket_fails_is_closed_and_the_others_go_on(
    server: tuple[TestServer, EventService],
) -> None:
    srv, _ = server
    hub = _hub(srv)
    good, bad = await _subscribed(srv, 2)
    clients = sorted(hub.public.subscribers["event"], key=id)
    victim = clients[0]
    victim.transport = BrokenTransport(victim.transport)  # type: ignore[assignment]
    hub.public.publish(Delta(frozenset({"event"}), {"type": "clock", "n": 1}))
    await hub.public.fan_out_done()
    assert victim.closing == WSCloseCode.INTERNAL_ERROR
    # Whichever socket was the victim, the other one got the delta.
    texts = []
    for ws in (good, bad):
        try:
            texts.append(json.loads(await ws.text(timeout=5))["n"])
        except ConnectionError:
            texts.append("closed")
    assert sorted(map(str, texts)) == ["1", "closed"]
    good.close()
    bad.close()
