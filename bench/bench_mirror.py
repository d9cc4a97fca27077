"""Spectators beyond one machine: the venue publishing to Redis, `boardwire mirror`
processes serving websockets, against `websockets.broadcast()` relays, in the same run.

Every part is a real process on this machine, on loopback:

- a `redis-server` (no persistence) on a free port;
- the venue: `EventService` on the Pamplona example with its journal, its web app and the
  Redis publisher wired as `serve --publish` wires them (`broadcast.cli.stream_link`),
  broadcast delay 0; it commits real moves (random legal ones, one journal transaction
  each, as a board batch) or publishes synthetic deltas, when told (`--role venue`);
- M mirrors: `python -m broadcast.cli mirror --redis URL --event NAME --port P
  --trusted-proxy 127.0.0.1` (the clients stand for nginx on the same machine, as
  docs/deployment.md deploys them);
- the reference, per process: a `websockets` server that reads the same Redis stream and
  `websockets.broadcast()`s each entry's text to its connections (`--role reference`);
- the spectators: `bench/ws_load.py` worker processes (two) that count frames, and a
  latency probe (a worker that reads at once and notes each message's arrival), all
  connecting to 127.0.0.1 only.

For each number of processes M (mirrors, then reference relays) and of clients N (in all,
spread evenly): memory per 1,000 clients (the growth of each process's RSS once its
clients joined), deliveries per second (a burst of messages published by the venue as
fast as it goes, until every client has every message), and the latency from the venue's
commit to the spectator's socket (p50/p99 of `--moves` moves committed at `--rate` a
second while all N clients listen; the probe reads at once, the load workers every 5 ms).
Then, once: the venue's CPU for the same moves with and without publishing, and the
catch-up after an uplink outage (Redis stopped with SIGSTOP for `--outage` seconds while
the venue goes on committing: the time from SIGCONT to the mirrors having the venue's
last sequence number).

    python bench/bench_mirror.py            # --quick: 1 mirror, 1,000 clients, 10 s outage
    python bench/bench_mirror.py --full     # 1, 2, 4 processes; 1,000 and 10,000 clients;
                                            # a 60 s outage (about 15 minutes)
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import resource
import signal
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "bench"), str(ROOT)]  # bench modules, tests.support

from ws_load import LoadProcess  # noqa: E402

from tests.support.redis_server import RedisProcess  # noqa: E402
from tests.support.web_app import free_port, make_service, play_moves  # noqa: E402

NAME = "Pamplona Masters"
WORKERS = 2
PROBES = 10  # latency probe sockets per server process
JOIN_RATE = 350.0  # subscribes a second per server (the hub admits 400 from everybody)


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _say(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def _percentile(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


# -- the venue (a process of its own) ------------------------------------------------------


async def venue(url: str | None) -> None:
    from aiohttp import web

    from broadcast.cli.stream_link import start_stream_publisher
    from web.app import build_app
    from web.hub import Delta
    from web.keys import HUB

    with tempfile.TemporaryDirectory() as tmp:
        service, _ = make_service(Path(tmp), delay=0.0)
        app = build_app(service, None)
        runner = web.AppRunner(app)
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", 0).start()
        hub = app[HUB]
        publisher = None
        if url is not None:
            running = SimpleNamespace(web=SimpleNamespace(app=app), service=service)
            publisher, _task = start_stream_publisher(running, url)  # type: ignore[arg-type]
        committed: dict[int, float] = {}
        now_committing = [0.0]
        hub.public.taps.append(lambda seq, *_: committed.__setitem__(seq, now_committing[0]))
        games = sorted(service.book.games)
        rng = random.Random(7)
        loop = asyncio.get_running_loop()

        async def published() -> None:
            while publisher is not None and (
                publisher.outbox or publisher.acked is None or publisher.acked[1] < hub.public.seq
            ):
                await asyncio.sleep(0.01)

        _say({"ready": True})
        while True:
            line = await loop.run_in_executor(None, sys.stdin.readline)
            command = json.loads(line or '{"cmd": "quit"}')
            cmd = command["cmd"]
            if cmd == "quit":
                break
            if cmd == "burst":
                t0 = time.monotonic()
                for i in range(command["n"]):
                    hub.public.publish(Delta(frozenset({"event"}), {"type": "clock", "n": i}))
                    await asyncio.sleep(0)
                _say({"t0": t0, "last": hub.public.seq})
            elif cmd == "moves":
                committed.clear()
                cpu = _cpu()
                started = time.monotonic()
                n, rate = command["n"], command["rate"]
                for i in range(n):
                    due = started + i / rate
                    await asyncio.sleep(max(0.0, due - time.monotonic()))
                    for _ in range(len(games)):
                        game_id = rng.choice(games)
                        board = service.book.get(game_id).board_now()
                        moves = list(board.legal_moves)
                        if moves:
                            break
                    san = board.san(rng.choice(moves))
                    now_committing[0] = time.monotonic()
                    play_moves(service, game_id, [san])
                await asyncio.sleep(0.3)  # the hub's pump and the publisher's write
                _say(
                    {
                        "commits": sorted(committed.items()),
                        "last": hub.public.seq,
                        "cpu": _cpu() - cpu,
                        "seconds": time.monotonic() - started,
                    }
                )
            elif cmd == "published":
                await published()
                _say({"last": hub.public.seq})
        await runner.cleanup()
        service.journal.close()


# -- the reference relay (a process of its own) ---------------------------------------------


async def reference(url: str, port: int) -> None:
    from redis import asyncio as aioredis
    from websockets.asyncio.server import ServerConnection, broadcast, serve

    from broadcast.publish.stream_format import StreamKeys

    connections: set[ServerConnection] = set()

    async def handler(ws: ServerConnection) -> None:
        connections.add(ws)
        try:
            await ws.wait_closed()
        finally:
            connections.discard(ws)

    keys = StreamKeys.of(NAME)
    client = aioredis.Redis.from_url(url)
    async with serve(handler, "127.0.0.1", port, backlog=1024):
        _say({"ready": True})
        last = "$"
        while True:
            answer = await client.xread({keys.stream: last}, count=1000, block=1000)
            for _, entries in answer or ():
                for entry_id, fields in entries:
                    last = entry_id
                    if fields.get(b"kind") == b"delta":
                        broadcast(connections, fields[b"text"].decode())


# -- the benchmark ------------------------------------------------------------------------


class Proc:
    """A child process speaking JSON lines (a venue or a reference) or printing a banner
    (a mirror)."""

    def __init__(self, proc: asyncio.subprocess.Process, port: int = 0) -> None:
        self.proc = proc
        self.port = port

    @classmethod
    async def start(cls, *args: str, port: int = 0) -> Proc:
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            *args,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            cwd=ROOT,
            limit=1 << 26,
        )
        return cls(proc, port)

    async def line(self, timeout: float = 120.0) -> dict[str, Any]:
        assert self.proc.stdout is not None
        while True:
            raw = await asyncio.wait_for(self.proc.stdout.readline(), timeout)
            if not raw:
                raise RuntimeError(f"{self.proc.pid} ended early")
            if raw.startswith(b"{"):
                message: dict[str, Any] = json.loads(raw)
                return message

    async def banner(self, timeout: float = 60.0) -> None:
        assert self.proc.stdout is not None
        while True:
            raw = await asyncio.wait_for(self.proc.stdout.readline(), timeout)
            if not raw:
                raise RuntimeError("a mirror ended early")
            if b" at http://" in raw:
                return

    async def ask(self, **command: Any) -> dict[str, Any]:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(command).encode() + b"\n")
        await self.proc.stdin.drain()
        return await self.line()

    async def stop(self) -> None:
        if self.proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.proc.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(self.proc.wait(), 15)
            except TimeoutError:
                self.proc.kill()
                await self.proc.wait()


async def _servers(kind: str, m: int, url: str) -> list[Proc]:
    servers = []
    for _ in range(m):
        port = free_port()
        if kind == "mirror":
            p = await Proc.start(
                "-m",
                "broadcast.cli",
                "mirror",
                "--redis",
                url,
                "--event",
                NAME,
                "--port",
                str(port),
                "--trusted-proxy",
                "127.0.0.1",
                port=port,
            )
            await p.banner()
        else:
            p = await Proc.start(
                __file__, "--role", "reference", "--redis", url, "--port", str(port)
            )
            p.port = port
            await p.line()
        servers.append(p)
    return servers


async def measure(
    kind: str, m: int, n: int, venue_proc: Proc, url: str, args: argparse.Namespace
) -> dict[str, Any]:
    servers = await _servers(kind, m, url)
    ports = [s.port for s in servers]
    subscribe = kind == "mirror"
    await asyncio.sleep(0.5)
    rss_before = [_rss_mb(s.proc.pid) for s in servers]
    deltas = max(20, args.deliveries // n)
    share = [n // WORKERS + (1 if i < n % WORKERS else 0) for i in range(WORKERS)]
    rate = JOIN_RATE * m / WORKERS if subscribe else 0.0
    loads = []
    try:
        probe = await LoadProcess.start(
            ports, PROBES * m, deltas, subscribe=subscribe, sample=PROBES * m, every=0.0
        )
        loads = [probe]
        loads += [
            await LoadProcess.start(ports, k, deltas, subscribe=subscribe, rate=rate, deadline=120)
            for k in share
        ]
        ready = [await load.line() for load in loads]
        joined = sum(r["ready"] for r in ready[1:])
        await asyncio.sleep(0.5)
        rss_after = [_rss_mb(s.proc.pid) for s in servers]
        # Throughput: a burst of `deltas` messages from the venue, to every client.
        t0 = (await venue_proc.ask(cmd="burst", n=deltas))["t0"]
        done = [await load.line() for load in loads]
        bulk = done[1:]
        delivered = sum(d["count"] for d in bulk)
        seconds = max(d["last"] for d in bulk) - t0 if delivered else float("nan")
        complete = all(d["done"] for d in bulk)
        # Latency: moves committed at a pace while every client is subscribed (the probe
        # reads at once; the load workers let the frames wait in their sockets' buffers).
        await probe.again(until=1 << 40)
        moves = await venue_proc.ask(cmd="moves", n=args.moves, rate=args.rate)
        await probe.again(until=moves["last"])  # the round's goal, now that it is known
        seen = (await probe.line())["samples"]
        commits = {int(s): t for s, t in moves["commits"]}
        latencies = [(t - commits[s]) * 1000 for s, t in seen if s in commits]
    finally:
        for load in loads:
            await load.stop()
        for s in servers:
            await s.stop()
    clients_per = max(1, joined // m)
    growth = [a - b for a, b in zip(rss_after, rss_before, strict=True)]
    return {
        "kind": kind,
        "m": m,
        "n": n,
        "joined": joined,
        "deltas": deltas,
        "rate": delivered / seconds if seconds else 0.0,
        "complete": complete,
        "p50": _percentile(latencies, 50),
        "p99": _percentile(latencies, 99),
        "samples": len(latencies),
        "mb_per_1000": sum(growth) / len(growth) / clients_per * 1000,
        "rss": max(rss_after),
    }


async def outage(venue_proc: Proc, redis: RedisProcess, url: str, seconds: float) -> dict[str, Any]:
    (mirror,) = await _servers("mirror", 1, url)
    probe = await LoadProcess.start(
        [mirror.port], PROBES, 1, subscribe=True, sample=PROBES, every=0, deadline=seconds + 300
    )
    assert redis.proc is not None
    try:
        await probe.line()
        await venue_proc.ask(cmd="moves", n=1, rate=1.0)
        await probe.line()  # every probe socket follows
        await probe.again(until=1 << 40)  # reading on through the outage
        before = (await venue_proc.ask(cmd="published"))["last"]
        redis.proc.send_signal(signal.SIGSTOP)
        try:
            moves = await venue_proc.ask(cmd="moves", n=int(seconds * 5), rate=5.0)
        finally:
            back = time.monotonic()
            redis.proc.send_signal(signal.SIGCONT)
        await probe.again(until=moves["last"])
        seen = (await probe.line())["samples"]
    finally:
        await probe.stop()
        await mirror.stop()
    arrived = [t for s, t in seen if s >= moves["last"]]
    return {
        "outage": seconds,
        "moves": len(moves["commits"]),
        "before": before,
        "last": moves["last"],
        "catch_up": (min(arrived) - back) if arrived else float("nan"),
    }


async def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--role", choices=["bench", "venue", "reference"], default="bench")
    parser.add_argument("--redis")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--no-publish", action="store_true")
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--quick", action="store_true", help="1 mirror, 1,000 clients (default)")
    group.add_argument("--full", action="store_true", help="1, 2, 4 processes; 1,000-10,000")
    parser.add_argument("--processes", help="numbers of server processes, e.g. 1,2,4")
    parser.add_argument("--clients", help="numbers of clients in all, e.g. 1000,10000")
    parser.add_argument("--deliveries", type=int, default=200_000, help="per burst (about)")
    parser.add_argument("--moves", type=int, default=100, help="moves for the latencies")
    parser.add_argument("--rate", type=float, default=10.0, help="moves a second")
    parser.add_argument("--outage", type=float, default=0.0, help="seconds (quick 10, full 60)")
    args = parser.parse_args(argv)
    if args.role == "venue":
        await venue(None if args.no_publish else args.redis)
        return
    if args.role == "reference":
        await reference(args.redis, args.port)
        return
    processes = [1, 2, 4] if args.full else [1]
    clients = [1000, 10000] if args.full else [1000]
    if args.processes:
        processes = [int(x) for x in args.processes.split(",")]
    if args.clients:
        clients = [int(x) for x in args.clients.split(",")]
    seconds = args.outage or (60.0 if args.full else 10.0)
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    print(f"load average before: {os.getloadavg()}", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        redis = RedisProcess(Path(tmp), persist=False)
        redis.start()
        try:
            await _run(redis, processes, clients, seconds, args)
        finally:
            if redis.proc is not None:
                redis.proc.send_signal(signal.SIGCONT)
            redis.stop()
    print(f"load average after: {os.getloadavg()}", flush=True)


async def _run(
    redis: RedisProcess,
    processes: list[int],
    clients: list[int],
    seconds: float,
    args: argparse.Namespace,
) -> None:
    url = redis.url
    # The venue's CPU for the same moves, without and with publishing.
    cpu = {}
    for publish in (False, True):
        extra = ["--redis", url] if publish else ["--no-publish"]
        v = await Proc.start(__file__, "--role", "venue", *extra)
        await v.line()
        await asyncio.sleep(1.0)
        moves = await v.ask(cmd="moves", n=args.moves * 2, rate=args.rate)
        cpu[publish] = moves["cpu"] / moves["seconds"] * 100
        assert v.proc.stdin is not None
        v.proc.stdin.write(b'{"cmd": "quit"}\n')
        await v.stop()
    print(
        f"venue CPU for {args.moves * 2} moves at {args.rate:g}/s (one journal transaction "
        f"each): {cpu[False]:.1f} % of a core without --publish, {cpu[True]:.1f} % with",
        flush=True,
    )
    venue_proc = await Proc.start(__file__, "--role", "venue", "--redis", url)
    await venue_proc.line()
    try:
        print(
            f"{'server':<10} {'procs':>5} {'clients':>7} {'msgs':>5} {'deliveries/s':>13} "
            f"{'p50 ms':>7} {'p99 ms':>7} {'MB/1000':>8} {'RSS MB':>7}",
            flush=True,
        )
        for n in clients:
            for m in processes:
                rows = {}
                for kind in ("mirror", "reference"):
                    r = await measure(kind, m, n, venue_proc, url, args)
                    rows[kind] = r
                    note = "" if r["complete"] else "  (not every client got every message)"
                    if r["joined"] < n:
                        note += f"  (only {r['joined']} joined)"
                    print(
                        f"{kind:<10} {m:>5} {n:>7} {r['deltas']:>5} {r['rate']:>13,.0f} "
                        f"{r['p50']:>7.1f} {r['p99']:>7.1f} {r['mb_per_1000']:>8.1f} "
                        f"{r['rss']:>7.0f}{note}",
                        flush=True,
                    )
                ratio = rows["mirror"]["rate"] / rows["reference"]["rate"]
                print(f"  {m} x {n}: mirror/reference deliveries {ratio:.2f}", flush=True)
        o = await outage(venue_proc, redis, url, seconds)
        print(
            f"outage: Redis stopped {o['outage']:.0f} s while the venue committed {o['moves']} "
            f"moves (seq {o['before']} -> {o['last']}); the mirror had seq {o['last']} "
            f"{o['catch_up']:.2f} s after Redis came back",
            flush=True,
        )
    finally:
        assert venue_proc.proc.stdin is not None
        with contextlib.suppress(ConnectionError):
            venue_proc.proc.stdin.write(b'{"cmd": "quit"}\n')
        await venue_proc.stop()


if __name__ == "__main__":
    asyncio.run(main())
