"""What a hostile websocket client may cost the venue (issue 29, F11): bench_hostile's
"1,000 hostile clients" had grown to 300 MB and 1.5 x the boards' p99 because

- aiohttp parses up to 512 KiB of a socket's messages ahead of the hub (which takes one
  a turn, within the web's budget): thousands of message objects per flooding socket;
- every closed websocket stayed in reference cycles (aiohttp's protocol and response,
  the hub's resync closure, a kept exception's frames) until a full collection, which
  the serving process's tuned collector runs rarely.

Held here: a socket whose messages the hub cannot take yet has only `READ_AHEAD` of them
read; a finished websocket, closed by its client or by the server for breaking the
limits, is freed at once by reference counting (no cyclic garbage collection needed).
"""

from __future__ import annotations

import asyncio
import gc
import weakref
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from aiohttp import ClientSession, WSMsgType, web

from tests.support.web_app import CREDENTIALS, free_port, make_service
from web.app import start_web
from web.hub import Hub
from web.hub.channel import Client
from web.keys import HUB

Served = tuple[str, web.Application]

# At most this much read from a socket and not yet taken by the hub: web.hub.server's
# READ_QUEUE twice (where aiohttp stops reading), one read (web.http_server's READ_CHUNK)
# parsed whole, and room for a message in parts. aiohttp's own default: 512 KiB.
READ_AHEAD = 64 * 1024


@pytest.fixture
async def served(tmp_path: Path) -> AsyncIterator[Served]:
    service, _ = make_service(tmp_path)
    port = free_port()
    runner = await start_web(service, host="127.0.0.1", port=port, credentials=CREDENTIALS)
    yield f"http://127.0.0.1:{port}", runner.app
    await runner.cleanup()


async def until(condition: Callable[[], bool], what: str) -> None:
    for _ in range(1000):
        if condition():
            return
        await asyncio.sleep(0.01)
    pytest.fail(f"never happened: {what}")


def _clients(hub: Hub) -> list[Client]:
    return [c for subs in hub.public.subscribers.values() for c in subs]


def _queued(client: Client) -> int:
    """Bytes (as aiohttp counts them) read from the socket and not yet taken by the hub."""
    reader: Any = client.ws._reader  # type: ignore[attr-defined]
    return int(reader._size)


async def test_a_socket_reads_little_ahead_of_the_hub(served: Served) -> None:
    url, app = served
    hub = app[HUB]
    handle = hub._handle
    held = asyncio.Event()

    async def slow_handle(*args: Any) -> Any:  # the hub busy elsewhere (its budget spent)
        await held.wait()
        return await handle(*args)

    async with ClientSession() as session, session.ws_connect(f"{url}/ws") as ws:
        await ws.send_json({"type": "subscribe", "scope": "event"})
        assert (await ws.receive()).type == WSMsgType.TEXT
        await until(lambda: len(_clients(hub)) == 1, "the subscription")
        (client,) = _clients(hub)
        hub._handle = slow_handle  # type: ignore[method-assign]
        try:
            flood = '{"type": "ping", "pad": "' + "x" * 40 + '"}'
            for _ in range(20_000):  # about 1.3 MB, far beyond what may be read ahead
                await ws.send_str(flood)
            # Whatever the kernel still holds, the server's queue never passes the bound:
            # it would reach aiohttp's own 512 KiB by now (the reads come in 16 KiB).
            for _ in range(50):
                await asyncio.sleep(0.02)
                assert _queued(client) <= READ_AHEAD
            assert _queued(client) > 0  # it did read, and stopped
        finally:
            held.set()
            hub._handle = handle  # type: ignore[method-assign]


async def _finished_server_socket(
    url: str, hub: Hub, client_side: Callable[[Any], Any]
) -> weakref.ref[Any]:
    """Open a websocket, subscribe, run `client_side(ws)` to finish it; a weak reference
    to the server's side of it, taken while it was open."""
    async with ClientSession() as session, session.ws_connect(f"{url}/ws") as ws:
        await ws.send_json({"type": "subscribe", "scope": "event"})
        assert (await ws.receive()).type == WSMsgType.TEXT
        await until(lambda: len(_clients(hub)) == 1, "the subscription")
        (client,) = _clients(hub)
        server_ws = weakref.ref(client.ws)
        del client
        await client_side(ws)
    await until(lambda: not _clients(hub), "the server let the client go")
    return server_ws


async def _client_closes(ws: Any) -> None:
    await ws.close()


async def _breaks_the_limits(ws: Any) -> None:
    for _ in range(40):  # binary frames: a strike each, closed with 1008 at the tenth
        await ws.send_bytes(b"\x00" * 10)
    while (await ws.receive()).type not in (WSMsgType.CLOSE, WSMsgType.CLOSED):
        pass


@pytest.mark.parametrize(
    "finish", [_client_closes, _breaks_the_limits], ids=["client closes", "closed for policy"]
)
@pytest.mark.blocks_loop(3)  # its own gc.collect() of the worker's whole heap, on the loop
async def test_a_finished_websocket_is_freed_without_the_cycle_collector(
    served: Served, finish: Callable[[Any], Any]
) -> None:
    url, app = served
    gc.collect()
    gc.disable()  # only reference counting from here: what is left is in a cycle
    try:
        server_ws = await _finished_server_socket(url, app[HUB], finish)
        for _ in range(100):  # the connection's last callbacks run on the loop
            if server_ws() is None:
                break
            await asyncio.sleep(0.01)
        assert server_ws() is None, "the closed websocket is still held (a reference cycle)"
    finally:
        gc.enable()
