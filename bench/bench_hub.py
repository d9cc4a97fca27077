"""Websocket fan-out: deltas per second to 1000 clients on loopback, hub vs a reference.

The reference is the simplest correct broadcast (one aiohttp handler awaiting `send_str`
to every socket in turn); the hub adds scopes, sequence numbers, bounded queues and
one writer task per client. Both run in this process, in the same run, so the printed
ratio (hub / reference) is comparable across machines; absolute numbers are not.
Bounded in time: each side stops after `BUDGET` seconds even if deliveries lag.
"""

from __future__ import annotations

import asyncio
import resource
import sys
import tempfile
import time
from pathlib import Path

from aiohttp import ClientSession, TCPConnector, WSMsgType, web

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from web_support import make_service  # noqa: E402

from web.app import build_app  # noqa: E402
from web.hub import Delta  # noqa: E402
from web.keys import HUB  # noqa: E402

CLIENTS = 1000
DELTAS = 200
BUDGET = 30.0
TEXT = '{"type":"clock","game":"masters-r1-b1","white":5400,"black":5399,"running":"white"}'


def _raise_fd_limit() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = min(hard, max(soft, 4 * CLIENTS + 256))
    resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))


async def _clients(
    url: str, subscribe: str | None, counts: list[int]
) -> tuple[ClientSession, list[asyncio.Task[None]]]:
    session = ClientSession(connector=TCPConnector(limit=0))  # the default caps at 100
    ready = asyncio.Event()
    joined = 0

    async def one(i: int) -> None:
        nonlocal joined
        async with session.ws_connect(url, max_msg_size=0) as ws:
            if subscribe:
                await ws.send_str(subscribe)
                await ws.receive()  # the snapshot
            joined += 1
            if joined == CLIENTS:
                ready.set()
            async for msg in ws:
                if msg.type == WSMsgType.TEXT:
                    counts[i] += 1

    tasks = [asyncio.ensure_future(one(i)) for i in range(CLIENTS)]
    await asyncio.wait_for(ready.wait(), BUDGET)
    return session, tasks


async def _wait_all(counts: list[int], want: int, start: float) -> float:
    while min(counts) < want and time.perf_counter() - start < BUDGET:
        await asyncio.sleep(0.005)
    return time.perf_counter() - start


async def bench_hub() -> float:
    with tempfile.TemporaryDirectory() as tmp:
        service, _ = make_service(Path(tmp), delay=0.0)
        app = build_app(service, None)
        runner = web.AppRunner(app)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port = runner.addresses[0][1]
        counts = [0] * CLIENTS
        session, tasks = await _clients(
            f"http://127.0.0.1:{port}/ws", '{"type":"subscribe","scope":"event"}', counts
        )
        hub = app[HUB]
        start = time.perf_counter()
        for _ in range(DELTAS):
            hub.public.publish(Delta(frozenset({"event"}), {"type": "clock"}))
            await asyncio.sleep(0)
        elapsed = await _wait_all(counts, DELTAS, start)
        delivered = sum(counts)
        for t in tasks:
            t.cancel()
        await session.close()
        await runner.cleanup()
    return delivered / CLIENTS / elapsed


async def bench_reference() -> float:
    sockets: list[web.WebSocketResponse] = []

    async def handler(request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        sockets.append(ws)
        async for _ in ws:
            pass
        return ws

    app = web.Application()
    app.router.add_get("/ws", handler)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    counts = [0] * CLIENTS
    session, tasks = await _clients(f"http://127.0.0.1:{port}/ws", None, counts)
    while len(sockets) < CLIENTS:
        await asyncio.sleep(0.01)
    start = time.perf_counter()
    for _ in range(DELTAS):
        for ws in list(sockets):
            await ws.send_str(TEXT)
    elapsed = await _wait_all(counts, DELTAS, start)
    delivered = sum(counts)
    for t in tasks:
        t.cancel()
    await session.close()
    await runner.cleanup()
    return delivered / CLIENTS / elapsed


async def main() -> None:
    _raise_fd_limit()
    reference = await bench_reference()
    hub = await bench_hub()
    print(f"fan-out to {CLIENTS} websocket clients on loopback, {DELTAS} deltas:")
    print(f"  reference (await send_str to each): {reference:8.0f} deltas/s")
    print(f"  hub (scopes, seq, bounded queues):  {hub:8.0f} deltas/s")
    print(f"  ratio hub/reference: {hub / reference:.2f}")


if __name__ == "__main__":
    asyncio.run(main())
