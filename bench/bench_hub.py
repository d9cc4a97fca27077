"""Websocket fan-out on loopback: the hub's deliveries per second against
`websockets.broadcast()`, from 1,000 to 10,000 clients, in the same run.

Each size runs twice in this process, on the same machine and the same load:

- reference: a `websockets` server (`websockets.asyncio.server.serve`) whose handler keeps
  its connections, and `websockets.broadcast(connections, text)` for each message;
- hub: `boardwire`'s web app (`web.app.build_app`) with its hub as `serve` runs it: the
  clients subscribe to the event (a snapshot each), then each message is a `Delta`
  published on the public channel (numbered, encoded once, fanned out in slices charged
  to the web's share of the loop, bounded queues behind it).

Both get the same messages (a clock update of about 90 bytes), `--deltas` of them, in two
modes: *burst*, one message per loop turn (`await asyncio.sleep(0)` between two) as fast
as they go (the hub's fan-out then writes what piled up in one write per client); and
*one by one*, each message handed to every client before the next is published (nothing
piles up: the cost of one fan-out). The clients are
`bench/ws_load.py` worker processes (two: one per core of the development machine) that
count frames; a size ends when every client has every message, or after `--budget`
seconds. Printed: deliveries per second (messages times clients, over the time from the
first publish to the last frame received), the server's CPU seconds per 100,000
deliveries, and the ratios hub / reference. Only the ratios are comparable across
machines. The hub's fan-out is web work: it yields to the rest of the loop and stays
within the web's share of it (`--loop-share`, serve's 0.5 by default), which the
reference does not; on a loaded machine that share is also charged for the time the
process was not scheduled, so read the CPU ratio next to the deliveries ratio.

The hub's admission limits (subscribes a second from everybody) are raised for the run:
they pace a crowd's arrival, which is not what is measured here.

    python bench/bench_hub.py            # --quick: 1,000 clients (make bench)
    python bench/bench_hub.py --full     # 1,000, 2,000, 5,000 and 10,000 clients
    python bench/bench_hub.py --sizes 1000,3000 --deltas 200
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "bench"), str(ROOT)]  # bench modules, tests.support

from aiohttp import web  # noqa: E402
from websockets.asyncio.server import ServerConnection, broadcast, serve  # noqa: E402
from ws_load import LoadProcess  # noqa: E402

from tests.support.web_app import make_service  # noqa: E402
from web.app import build_app  # noqa: E402
from web.hub import Delta  # noqa: E402
from web.keys import HUB  # noqa: E402
from web.limits import HubLimits, WebLimits  # noqa: E402

QUICK = [1000]
FULL = [1000, 2000, 5000, 10000]
WORKERS = 2
JOIN_RATE = 800.0  # connections a second, all workers together
MESSAGE = {"type": "clock", "game": "masters-r1-b1", "white": 5400, "black": 5399}


def _raise_fd_limit(clients: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = min(hard, max(soft, clients + 1024))
    resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    if want < clients + 256:
        raise SystemExit(f"open-file limit {hard} is too low for {clients} clients")


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


class Result:
    def __init__(self, clients: int, delivered: int, seconds: float, cpu: float, ok: bool):
        self.clients = clients
        self.delivered = delivered
        self.seconds = seconds
        self.cpu = cpu
        self.ok = ok

    @property
    def rate(self) -> float:
        return self.delivered / self.seconds if self.seconds > 0 else 0.0


async def _measure(
    port: int,
    clients: int,
    deltas: int,
    budget: float,
    *,
    subscribe: bool,
    joined: Callable[[], int],
    publish: Callable[[int], Awaitable[None]],
) -> Result:
    share = [clients // WORKERS + (1 if i < clients % WORKERS else 0) for i in range(WORKERS)]
    loads = [
        # Joining at a pace the web admits (its loop budget answers "busy" past 4,096
        # handshakes waiting at once): the arrival is not what is measured.
        await LoadProcess.start(
            [port], n, deltas, subscribe=subscribe, deadline=budget, rate=JOIN_RATE / WORKERS
        )
        for n in share
    ]
    try:
        ready = [await load.line() for load in loads]
        deadline = time.monotonic() + budget
        while joined() < clients and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        if sum(r["ready"] for r in ready) < clients or joined() < clients:
            raise SystemExit(f"only {joined()} of {clients} clients joined: {ready}")
        cpu = _cpu()
        start = time.monotonic()
        await publish(deltas)
        done = [await load.line() for load in loads]
        cpu = _cpu() - cpu
    finally:
        for load in loads:
            await load.stop()
    last = max(d["last"] for d in done)
    delivered = sum(d["count"] for d in done)
    return Result(clients, delivered, last - start, cpu, all(d["done"] for d in done))


async def bench_reference(clients: int, deltas: int, budget: float, one: bool) -> Result:
    connections: set[ServerConnection] = set()

    async def handler(ws: ServerConnection) -> None:
        connections.add(ws)
        try:
            await ws.wait_closed()
        finally:
            connections.discard(ws)

    async def publish(n: int) -> None:
        for i in range(n):
            # Synchronous: every connection has the message when it returns (both modes).
            broadcast(connections, json.dumps({**MESSAGE, "seq": i + 1}, separators=(",", ":")))
            await asyncio.sleep(0)

    async with serve(handler, "127.0.0.1", 0, backlog=1024) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        return await _measure(
            port,
            clients,
            deltas,
            budget,
            subscribe=False,
            joined=lambda: len(connections),
            publish=publish,
        )


async def bench_hub(
    clients: int, deltas: int, budget: float, one: bool, share: float = 0.5
) -> Result:
    with tempfile.TemporaryDirectory() as tmp:
        service, _ = make_service(Path(tmp), delay=0.0)
        limits = WebLimits(
            hub=HubLimits(global_rate=1e6, global_burst=1_000_000),
            loop_share=share,
        )
        app = build_app(service, None, limits=limits)
        runner = web.AppRunner(app)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0, backlog=1024)
        await site.start()
        port = runner.addresses[0][1]
        hub = app[HUB]

        async def publish(n: int) -> None:
            for _ in range(n):
                hub.public.publish(Delta(frozenset({"event"}), MESSAGE))
                await asyncio.sleep(0)
                if one:
                    await hub.public.fan_out_done()

        try:
            return await _measure(
                port,
                clients,
                deltas,
                budget,
                subscribe=True,
                joined=lambda: hub.public.clients,
                publish=publish,
            )
        finally:
            await runner.cleanup()
            service.journal.close()


def _row(name: str, r: Result) -> str:
    cpu = r.cpu / r.delivered * 100_000 if r.delivered else float("nan")
    note = "" if r.ok else "  (budget ran out: not every message reached every client)"
    return (
        f"  {name:<10} {r.clients:>7} {r.delivered:>10} {r.seconds:8.2f} s {r.rate:>12,.0f}/s"
        f" {cpu:8.2f} s{note}"
    )


async def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--quick", action="store_true", help="1,000 clients (the default)")
    group.add_argument("--full", action="store_true", help="1,000 to 10,000 clients")
    group.add_argument("--sizes", help="numbers of clients, comma-separated")
    parser.add_argument("--deltas", type=int, default=0, help="messages (default: by size)")
    parser.add_argument("--budget", type=float, default=60.0, help="seconds per measurement")
    parser.add_argument(
        "--loop-share",
        type=float,
        default=WebLimits().loop_share,
        help="the web's share of the hub's loop (default: serve's)",
    )
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")] if args.sizes else FULL if args.full else QUICK
    _raise_fd_limit(max(sizes))
    print("websocket fan-out on loopback: deliveries per second, hub vs websockets.broadcast")
    print(f"  {'server':<10} {'clients':>7} {'delivered':>10} {'time':>10} {'rate':>14}")
    print(f"  {'':<10} {'':>7} {'':>10} {'':>10} {'':>14} cpu/100k")
    out: dict[str, Any] = {}
    for clients in sizes:
        # About 400,000 deliveries a size (at least 40 messages): long enough to measure,
        # short enough that 10,000 clients take seconds, not minutes.
        deltas = args.deltas or max(40, 400_000 // clients)
        for mode, one in (("burst", False), ("one by one", True)):
            reference = await bench_reference(clients, deltas, args.budget, one)
            print(_row("reference", reference), flush=True)
            hub = await bench_hub(clients, deltas, args.budget, one, args.loop_share)
            print(_row("hub", hub), flush=True)
            ratio = hub.rate / reference.rate if reference.rate else float("nan")
            cpu = (hub.cpu / hub.delivered) / (reference.cpu / reference.delivered)
            print(
                f"  {clients} clients, {deltas} messages {mode}: ratio hub/reference "
                f"{ratio:.2f} (deliveries/s), cpu per delivery {cpu:.2f}",
                flush=True,
            )
            out[f"{clients} {mode}"] = {
                "reference": reference.rate,
                "hub": hub.rate,
                "ratio": ratio,
                "cpu": cpu,
            }
    return out


if __name__ == "__main__":
    asyncio.run(main())
