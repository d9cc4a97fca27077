"""The boards' latency while 1,000 hostile web clients do their worst, against the same
run without them.

Emulated DGT boards on a bus line (9600 baud, real pace: a move every 4-8 s a board) are
followed by `EventService` with its journal and the web, as `serve` runs them (the
machinery of bench_serve.py). Ten honest spectators follow the event over websockets in
both runs. In the hostile run, a second process (niced: the attackers would be on other
machines) opens 1,000 clients from 32 loopback addresses (each under the per-address
limit, as a botnet would), and they, as fast as they can:

- replay: subscribe with `since: 0` again and again (the amplification of issue 17);
- flood: pings, garbage, binary frames, deep nesting, oversized messages;
- stall: subscribe and never read (raw sockets, tiny receive buffers);
- churn: connect, subscribe, disconnect;
- http: GET the event PGN, standings, pages, round PGN, 404s on keep-alive connections;
- slowloris: half-open HTTP requests, a byte a second.

Printed: move latency (the last piece set down on the board to the move in the arbiter's
state) p50/p99/max, the service's own lag watch (worst delay), the worst late wake-up of
the event loop (a probe sleeping 10 ms), moves lost, boards declared lost, and the honest
spectators' deltas; then the ratio hostile/quiet. Figures, not a test: the machine is
shared, read the ratio.

    python bench/bench_hostile.py [--boards 16] [--seconds 30] [--clients 1000]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing as mp
import os
import random
import resource
import socket
import struct
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "bench"), str(ROOT / "tests")]

import bench_serve  # noqa: E402
from bench_serve import Phase, _percentile, _recv, board_plan, hall_process  # noqa: E402

ADDRESSES = [f"127.0.0.{i}" for i in range(10, 42)]  # 32 sources
HONEST = 10
BEHAVIOURS = {  # share of the hostile clients
    "replay": 0.30,
    "flood": 0.15,
    "stall": 0.15,
    "churn": 0.10,
    "http": 0.20,
    "slowloris": 0.10,
}


def _raise_fd_limit(want: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, want)), hard))


# -- the attackers' process ------------------------------------------------------------------------


def _frame(text: bytes, opcode: int = 1) -> bytes:
    """A masked client frame (RFC 6455), written by hand for the raw-socket attackers."""
    mask = os.urandom(4)
    n = len(text)
    head = bytes([0x80 | opcode])
    if n < 126:
        head += bytes([0x80 | n])
    elif n < 65536:
        head += bytes([0x80 | 126]) + struct.pack("!H", n)
    else:
        head += bytes([0x80 | 127]) + struct.pack("!Q", n)
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(text))


UPGRADE = (
    b"GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
)


class Attack:
    def __init__(self, port: int, clients: int) -> None:
        self.port = port
        self.clients = clients
        self.url = f"http://127.0.0.1:{port}"
        self.stats: dict[str, int] = {}
        self.stop = asyncio.Event()

    def count(self, what: str, n: int = 1) -> None:
        self.stats[what] = self.stats.get(what, 0) + n

    async def run(self) -> None:
        import aiohttp

        sessions = {
            a: aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(limit=0, local_addr=(a, 0), force_close=False)
            )
            for a in ADDRESSES
        }
        plan: list[str] = []
        for name, share in BEHAVIOURS.items():
            plan += [name] * round(share * self.clients)
        tasks = []
        for i, name in enumerate(plan[: self.clients]):
            address = ADDRESSES[i % len(ADDRESSES)]
            tasks.append(asyncio.ensure_future(self._forever(name, address, sessions[address])))
        print("attacking", flush=True)
        await self.stop.wait()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for session in sessions.values():
            await session.close()

    async def _forever(self, name: str, address: str, session: Any) -> None:
        behaviour = getattr(self, name)
        while not self.stop.is_set():
            try:
                await behaviour(address, session)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # refused, closed, reset: try again, as an attacker would
                self.count(f"{name}: {type(exc).__name__}")
                await asyncio.sleep(0.05)

    async def replay(self, address: str, session: Any) -> None:
        import aiohttp

        async with session.ws_connect(f"{self.url}/ws", max_msg_size=0) as ws:
            await ws.send_json({"type": "subscribe", "scope": "event"})
            first = await ws.receive(timeout=10)
            snap = json.loads(first.data) if first.type == aiohttp.WSMsgType.TEXT else {}
            epoch = snap.get("epoch", "")

            async def read() -> None:
                async for msg in ws:
                    self.count(f"replay: got {json.loads(msg.data).get('type', '?')}")

            reader = asyncio.ensure_future(read())
            try:
                while not ws.closed:
                    await ws.send_json(
                        {"type": "subscribe", "scope": "event", "since": 0, "epoch": epoch}
                    )
                    self.count("replay: sent")
                    await asyncio.sleep(0)
            finally:
                reader.cancel()
            self.count(f"replay: closed {ws.close_code}")

    async def flood(self, address: str, session: Any) -> None:
        junk = [
            json.dumps({"type": "ping"}),
            "not json at all",
            "[" * 1500 + "]" * 1500,
            json.dumps({"type": "subscribe", "scope": "game", "game": "x" * 3000}),
            json.dumps({"type": "subscribe", "scope": "round", "section": "s", "round": 1}),
        ]
        async with session.ws_connect(f"{self.url}/ws", max_msg_size=0) as ws:
            i = 0
            while not ws.closed:
                i += 1
                if i % 50 == 0:
                    await ws.send_bytes(b"\x00" * 100)
                elif i % 97 == 0:
                    await ws.send_str("x" * 20_000)  # over the message size limit
                else:
                    await ws.send_str(junk[i % len(junk)])
                self.count("flood: sent")
                await asyncio.sleep(0)
            self.count(f"flood: closed {ws.close_code}")

    async def stall(self, address: str, session: Any) -> None:
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
        sock.bind((address, 0))
        sock.setblocking(False)
        loop = asyncio.get_running_loop()
        try:
            await loop.sock_connect(sock, ("127.0.0.1", self.port))
            await loop.sock_sendall(sock, UPGRADE + _frame(b'{"type":"subscribe","scope":"event"}'))
            self.count("stall: subscribed")
            # Never read: the server's writes fill our tiny buffer, then its own.
            while True:
                await asyncio.sleep(1)
                try:
                    sock.getpeername()
                except OSError:
                    break
                if sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b"":
                    break  # closed by the server
        except BlockingIOError:
            await asyncio.sleep(1)
        finally:
            sock.close()
        self.count("stall: closed")

    async def churn(self, address: str, session: Any) -> None:
        async with session.ws_connect(f"{self.url}/ws") as ws:
            await ws.send_json(
                {"type": "subscribe", "scope": "round", "section": "s001", "round": 1}
            )
            await ws.receive(timeout=10)
            self.count("churn: cycles")

    async def http(self, address: str, session: Any) -> None:
        paths = [
            "/api/v1/event.pgn",
            "/api/v1/standings?section=s001",
            "/",
            "/standings?section=s001",
            "/api/v1/sections/s001/rounds/1.pgn",
            "/api/v1/event",
            "/no/such/page",
        ]
        path = random.choice(paths)
        async with session.get(f"{self.url}{path}") as response:
            await response.read()
            self.count(f"http: {response.status}")

    async def slowloris(self, address: str, session: Any) -> None:
        reader, writer = await asyncio.open_connection(
            "127.0.0.1", self.port, local_addr=(address, 0)
        )
        try:
            for byte in b"GET / HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 1000:
                writer.write(bytes([byte]))
                await writer.drain()
                with contextlib.suppress(TimeoutError):
                    data = await asyncio.wait_for(reader.read(1), 1.0)
                    if data == b"":
                        self.count("slowloris: closed by the server")
                        return
        finally:
            writer.close()


def attacker_main(port: int, clients: int) -> None:
    os.nice(10)
    _raise_fd_limit(4 * clients + 256)
    attack = Attack(port, clients)

    async def main() -> None:
        loop = asyncio.get_running_loop()
        runner = asyncio.ensure_future(attack.run())
        await loop.run_in_executor(None, sys.stdin.read)  # until the bench closes stdin
        attack.stop.set()
        await runner

    asyncio.run(main())
    print(json.dumps(attack.stats), flush=True)


# -- the service's process --------------------------------------------------------------------------


async def _honest(url: str, counts: list[int], stop: asyncio.Event) -> None:
    import aiohttp

    async with aiohttp.ClientSession() as session:

        async def one(i: int) -> None:
            while not stop.is_set():
                with contextlib.suppress(aiohttp.ClientError, asyncio.TimeoutError):
                    async with session.ws_connect(f"{url}/ws", max_msg_size=0) as ws:
                        await ws.send_json({"type": "subscribe", "scope": "event"})
                        async for _ in ws:
                            counts[i] += 1
                await asyncio.sleep(0.5)

        tasks = [asyncio.ensure_future(one(i)) for i in range(HONEST)]
        await stop.wait()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def _loop_probe(lags: list[float], stop: asyncio.Event) -> None:
    loop = asyncio.get_running_loop()
    while not stop.is_set():
        asked = loop.time()
        await asyncio.sleep(0.01)
        lags.append(loop.time() - asked - 0.01)


async def _phase(phase: Phase, tmp: Path, conn: Any, clients: int) -> dict[str, Any]:
    from boards.events import BoardLost

    paths: dict[int, str] = await _recv(conn)
    seen: dict[int, list[tuple[str, float]]] = {n: [] for n in paths}
    run = bench_serve._ServiceRun(phase, tmp, paths, seen, {})
    await run.start()
    from web.http_server import tune_gc

    tune_gc()  # as `serve` does
    lost_boards = [0]
    run.service.listeners.append(
        lambda entries: lost_boards.__setitem__(
            0, lost_boards[0] + sum(isinstance(e.event, BoardLost) for e in entries)
        )
    )
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 120
    while not run.followed() and loop.time() < deadline:
        await asyncio.sleep(0.1)
    url = f"http://127.0.0.1:{run.port}"
    stop = asyncio.Event()
    honest = [0] * HONEST
    lags: list[float] = []
    background = [
        asyncio.ensure_future(_honest(url, honest, stop)),
        asyncio.ensure_future(_loop_probe(lags, stop)),
    ]
    attacker = None
    if clients:
        attacker = await asyncio.create_subprocess_exec(
            sys.executable,
            __file__,
            "--attacker",
            str(run.port),
            str(clients),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        assert attacker.stdout is not None
        await attacker.stdout.readline()  # "attacking"
        await asyncio.sleep(3)  # let them all connect and get going
    await asyncio.sleep(bench_serve.PLAYERS_START)
    lost_boards[0] = 0
    lags.clear()
    run.service.lag.worst = 0.0  # from here on
    conn.send("go")
    done: dict[int, list[float]] = await _recv(conn)
    await asyncio.sleep(bench_serve.SETTLE)
    worst_lag = run.service.lag.worst
    boards_lost = lost_boards[0]  # before the boards' process stops (that loses them all)
    if os.environ.get("BENCH_OBJECTS"):
        import collections
        import gc

        kinds = collections.Counter(type(o).__qualname__ for o in gc.get_objects())
        print("objects", sum(kinds.values()), kinds.most_common(25), file=sys.stderr)
    app = run.runner.app
    guard = run.runner.guard  # type: ignore[attr-defined]
    from web.app import BUDGET
    from web.keys import HUB

    server_side = {
        "budget_waited": app[BUDGET].waited,
        "budget_refused": app[BUDGET].refused,
        "closed_for_policy": app[HUB].closed_for_policy,
        "connections_refused": guard.refused,
        "half_open_evicted": guard.evicted,
    }
    attack: dict[str, int] = {}
    if attacker is not None:
        assert attacker.stdin is not None and attacker.stdout is not None
        attacker.stdin.close()
        line = await asyncio.wait_for(attacker.stdout.readline(), 60)
        attack = json.loads(line or b"{}")
        await attacker.wait()
    stop.set()
    await asyncio.gather(*background, return_exceptions=True)
    lines = run.lines()
    await run.stop()
    conn.send("stop")
    latencies, lost = [], 0
    for n in paths:
        ucis = [m.uci() for m in board_plan(n, phase)[0].mainline_moves()]
        line = lines.get(n, [])
        common = 0
        while common < min(len(line), len(ucis)) and line[common] == ucis[common]:
            common += 1
        lost += len(ucis) - common
        for ply, on_board in enumerate(done[n][:common]):
            shown = [t for u, t in seen[n] if u == ucis[ply]]
            visible = min((t for t in shown if t >= on_board - 0.001), default=None)
            if visible is not None:
                latencies.append(visible - on_board)
    return {
        "clients": clients,
        "moves": len(latencies),
        "lost": lost,
        "p50": _percentile(latencies, 50),
        "p99": _percentile(latencies, 99),
        "max": max(latencies, default=None),
        "worst_lag": worst_lag,
        "loop_p99": _percentile(lags, 99),
        "loop_max": max(lags, default=None),
        "boards_lost": boards_lost,
        "rss_mb": bench_serve.peak_rss_mb(),
        "honest": honest,
        "server": server_side,
        "attack": attack,
    }


def phase_process(phase: Phase, clients: int) -> dict[str, Any]:
    _raise_fd_limit(8192)
    if os.environ.get("BENCH_PROFILE"):  # where the loop's time goes (for the curious)
        import cProfile
        import pstats

        profile = cProfile.Profile()
        profile.enable()
        try:
            return _phase_process(phase, clients)
        finally:
            profile.disable()
            pstats.Stats(profile, stream=sys.stderr).sort_stats("tottime").print_stats(40)
    return _phase_process(phase, clients)


def _phase_process(phase: Phase, clients: int) -> dict[str, Any]:
    ctx = mp.get_context("spawn")
    ours, theirs = ctx.Pipe()
    with tempfile.TemporaryDirectory(prefix="bench-hostile-") as tmp:
        hall = ctx.Process(target=hall_process, args=(phase, tmp, theirs), daemon=True)
        hall.start()
        try:
            return asyncio.run(_phase(phase, Path(tmp), ours, clients))
        finally:
            hall.join(10)
            if hall.is_alive():
                hall.kill()


def run_phase(phase: Phase, clients: int) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, __file__, "--phase", json.dumps(phase.__dict__), str(clients)],
        capture_output=True,
        text=True,
        check=False,
    )
    if out.returncode != 0:
        raise SystemExit(f"bench phase failed:\n{out.stderr[-3000:]}")
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def _ms(value: float | None) -> str:
    return "    -" if value is None else f"{value * 1000:6.0f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--boards", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--clients", type=int, default=1000)
    parser.add_argument("--phase", nargs=2, help=argparse.SUPPRESS)
    parser.add_argument("--attacker", nargs=2, type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.attacker:
        attacker_main(*args.attacker)
        return
    if args.phase:
        phase = Phase(**json.loads(args.phase[0]))
        print(json.dumps(phase_process(phase, int(args.phase[1]))))
        return
    phase = Phase("service", args.boards, 16, 1.0, args.seconds)
    print(
        f"{args.boards} emulated boards (bus lines of 16, 9600 baud, real pace), "
        f"{args.seconds:g} s of play, {HONEST} honest spectators; hostile: {args.clients} "
        f"clients from {len(ADDRESSES)} addresses in a niced process",
        flush=True,
    )
    print(
        "run       moves lost  p50 ms  p99 ms  max ms  lag watch s  loop p99/max ms  boards lost  honest deltas"
    )
    rows = {}
    for name, clients in (("quiet", 0), ("hostile", args.clients)):
        r = run_phase(phase, clients)
        rows[name] = r
        print(
            f"{name:8s} {r['moves']:6d} {r['lost']:4d}  {_ms(r['p50'])}  {_ms(r['p99'])}  {_ms(r['max'])}"
            f"  {r['worst_lag']:10.2f}  {_ms(r['loop_p99'])}/{_ms(r['loop_max'])}"
            f"  {r['boards_lost']:11d}  {min(r['honest']):6d}-{max(r['honest']):<6d}"
            f"  {r['rss_mb']:7.0f}",
            flush=True,
        )
    quiet, hostile = rows["quiet"], rows["hostile"]
    for key in ("p50", "p99", "max"):
        if quiet[key] and hostile[key]:
            print(f"  ratio hostile/quiet {key}: {hostile[key] / quiet[key]:.2f}")
    print(f"  server: {hostile['server']}")
    top = sorted(hostile["attack"].items(), key=lambda kv: -kv[1])
    print("  attackers: " + ", ".join(f"{k} {v}" for k, v in top[:24]))


if __name__ == "__main__":
    main()
