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
the event loop (a probe sleeping 10 ms), moves lost, boards declared lost, the honest
spectators' deltas, peak memory, and the arbiter API's answer time (a script in a process
of its own asking for the boards every 20 ms with HTTP Basic); then the ratio
hostile/quiet. Figures, not a test: the machine is shared, so each hostile run is
compared with a quiet run made just before it, and `--repeat N` makes N such pairs and
prints each ratio's median and min-max over them.

    python bench/bench_hostile.py [--boards 16] [--seconds 30] [--clients 1000] [--repeat 3]

`--behaviours '{"png": 1.0}'` sets another mix of attackers (bench_previews.py uses it).
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
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "bench"), str(ROOT)]  # bench modules, tests.support

import bench_serve  # noqa: E402
from bench_serve import (  # noqa: E402
    Phase,
    _percentile,
    _recv,
    board_plan,
    hall_process,
    in_fresh_process,
    kept,
    latencies,
    ms,
)

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
PROBE_EVERY = 0.02  # seconds between the arbiter API probe's requests
ARBITER = ("bench", "bench-pw")  # bench_serve's credentials


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
    def __init__(
        self,
        port: int,
        clients: int,
        behaviours: dict[str, float] | None = None,
        games: list[str] | None = None,
    ) -> None:
        self.port = port
        self.clients = clients
        self.behaviours = behaviours or BEHAVIOURS
        self.games = games or []
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
        for name, share in self.behaviours.items():
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

    async def png(self, address: str, session: Any) -> None:
        """A link preview's picture of a live game, either side, over keep-alive."""
        game = random.choice(self.games)
        flip = "?flip=1" if random.random() < 0.5 else ""
        async with session.get(f"{self.url}/api/v1/games/{game}.png{flip}") as response:
            await response.read()
            self.count(f"png: {response.status}")
            if response.status == 503:
                await asyncio.sleep(float(response.headers.get("Retry-After", "1")))

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


def attacker_main(port: int, clients: int, behaviours: dict[str, float], games: list[str]) -> None:
    os.nice(10)
    _raise_fd_limit(4 * clients + 256)
    attack = Attack(port, clients, behaviours, games)

    async def main() -> None:
        loop = asyncio.get_running_loop()
        runner = asyncio.ensure_future(attack.run())
        await loop.run_in_executor(None, sys.stdin.read)  # until the bench closes stdin
        attack.stop.set()
        await runner

    asyncio.run(main())
    print(json.dumps(attack.stats), flush=True)


# -- the arbiter API probe's process ------------------------------------------------------------


def probe_main(port: int) -> None:
    """Ask for the arbiter's boards every PROBE_EVERY s until stdin closes; print the answer
    times (seconds) and the statuses as JSON."""
    import aiohttp

    async def main() -> None:
        times: list[float] = []
        statuses: dict[str, int] = {}
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        auth = aiohttp.BasicAuth(*ARBITER)
        url = f"http://127.0.0.1:{port}/api/v1/arbiter/boards"

        async def ask() -> None:
            async with aiohttp.ClientSession(auth=auth) as session:
                while not stop.is_set():
                    started = time.perf_counter()
                    try:
                        async with session.get(url) as response:
                            await response.read()
                            status = str(response.status)
                    except aiohttp.ClientError as exc:
                        status = type(exc).__name__
                    times.append(time.perf_counter() - started)
                    statuses[status] = statuses.get(status, 0) + 1
                    await asyncio.sleep(PROBE_EVERY)

        asker = asyncio.ensure_future(ask())
        await loop.run_in_executor(None, sys.stdin.read)  # until the bench closes stdin
        stop.set()
        await asker
        print(json.dumps({"times": times, "statuses": statuses}), flush=True)

    asyncio.run(main())


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


async def _phase(
    phase: Phase, tmp: Path, conn: Any, clients: int, behaviours: dict[str, float]
) -> dict[str, Any]:
    from boards.driver_events import BoardLost

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
    games = sorted(b.game for b in run.service.hall.values() if b.game)
    attacker = None
    if clients:
        attacker = await asyncio.create_subprocess_exec(
            sys.executable,
            __file__,
            "--attacker",
            str(run.port),
            str(clients),
            json.dumps(behaviours),
            json.dumps(games),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        assert attacker.stdout is not None
        await attacker.stdout.readline()  # "attacking"
        await asyncio.sleep(3)  # let them all connect and get going
    probe = await asyncio.create_subprocess_exec(
        sys.executable,
        __file__,
        "--probe",
        str(run.port),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    await asyncio.sleep(bench_serve.PLAYERS_START)
    lost_boards[0] = 0
    lags.clear()
    run.service.lag.worst = 0.0  # from here on
    conn.send("go")
    done: dict[int, list[float]] = await _recv(conn)
    await asyncio.sleep(bench_serve.SETTLE)
    worst_lag = run.service.lag.worst
    boards_lost = lost_boards[0]  # before the boards' process stops (that loses them all)
    assert probe.stdin is not None and probe.stdout is not None
    probe.stdin.close()
    probed = json.loads(await asyncio.wait_for(probe.stdout.readline(), 60) or b"{}")
    await probe.wait()
    if os.environ.get("BENCH_OBJECTS"):
        import collections
        import gc

        kinds = collections.Counter(type(o).__qualname__ for o in gc.get_objects())
        print("objects", sum(kinds.values()), kinds.most_common(25), file=sys.stderr)
    app = run.runner.app
    guard = run.runner.guard  # type: ignore[attr-defined]
    from web import keys
    from web.app import BUDGET

    # (`getattr`: the same bench measures a commit from before the previews' worker.)
    previews = app.get(getattr(keys, "PREVIEWS", "previews"))
    server_side = {
        "budget_waited": app[BUDGET].waited,
        "budget_refused": app[BUDGET].refused,
        "closed_for_policy": app[keys.HUB].closed_for_policy,
        "connections_refused": guard.refused,
        "idle_evicted": guard.evicted,  # idle connections closed to make room at the cap
        # requests refused for their side's share of the cap (where the guard has shares)
        "requests_refused": {
            getattr(side, "value", str(side)): n
            for side, n in getattr(guard, "refused_requests", {}).items()
        },
        "previews_drawn": previews.renders if previews is not None else None,
        "previews_refused": previews.refused if previews is not None else None,
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
    moves_latency: list[float] = []
    lost = 0
    for n in paths:
        ucis = [m.uci() for m in board_plan(n, phase)[0].mainline_moves()]
        common = kept(lines.get(n, []), ucis)
        lost += len(ucis) - common
        moves_latency += latencies(seen[n], ucis, done[n], common)
    return {
        "clients": clients,
        "moves": len(moves_latency),
        "lost": lost,
        "p50": _percentile(moves_latency, 50),
        "p99": _percentile(moves_latency, 99),
        "max": max(moves_latency, default=None),
        "worst_lag": worst_lag,
        "loop_p99": _percentile(lags, 99),
        "loop_max": max(lags, default=None),
        "boards_lost": boards_lost,
        "rss_mb": bench_serve.peak_rss_mb(),
        "api_p50": _percentile(probed.get("times", []), 50),
        "api_p99": _percentile(probed.get("times", []), 99),
        "api_max": max(probed.get("times", []), default=None),
        "api_statuses": probed.get("statuses", {}),
        "honest": honest,
        "server": server_side,
        "attack": attack,
    }


def phase_process(phase: Phase, clients: int, behaviours: dict[str, float]) -> dict[str, Any]:
    _raise_fd_limit(8192)
    if os.environ.get("BENCH_PROFILE"):  # where the loop's time goes (for the curious)
        import cProfile
        import pstats

        profile = cProfile.Profile()
        profile.enable()
        try:
            return _phase_process(phase, clients, behaviours)
        finally:
            profile.disable()
            pstats.Stats(profile, stream=sys.stderr).sort_stats("tottime").print_stats(40)
    return _phase_process(phase, clients, behaviours)


def _phase_process(phase: Phase, clients: int, behaviours: dict[str, float]) -> dict[str, Any]:
    ctx = mp.get_context("spawn")
    ours, theirs = ctx.Pipe()
    with tempfile.TemporaryDirectory(prefix="bench-hostile-") as tmp:
        hall = ctx.Process(target=hall_process, args=(phase, tmp, theirs), daemon=True)
        hall.start()
        try:
            return asyncio.run(_phase(phase, Path(tmp), ours, clients, behaviours))
        finally:
            hall.join(10)
            if hall.is_alive():
                hall.kill()


def run_phase(
    phase: Phase, clients: int, behaviours: dict[str, float] | None = None
) -> dict[str, Any]:
    """One phase (quiet: no clients) in a process of its own; its figures."""
    return in_fresh_process(
        __file__,
        "--phase",
        json.dumps(phase.__dict__),
        str(clients),
        json.dumps(behaviours or BEHAVIOURS),
    )


def _ms(value: float | None) -> str:
    return ms(value, 6)


def spread(values: list[float]) -> str:
    """`median [min-max]` of a figure over the repeats."""
    if not values:
        return "-"
    ordered = sorted(values)
    mid = len(ordered) // 2
    median = ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2
    return f"{median:.2f} [{ordered[0]:.2f}-{ordered[-1]:.2f}]"


HEADER = (
    "run       moves lost  p50 ms  p99 ms  max ms  lag watch s  loop p99/max ms  boards lost"
    "  honest deltas  peak MB  API p99/max ms"
)


def row(name: str, r: dict[str, Any]) -> str:
    return (
        f"{name:8s} {r['moves']:6d} {r['lost']:4d}  {_ms(r['p50'])}  {_ms(r['p99'])}  {_ms(r['max'])}"
        f"  {r['worst_lag']:10.2f}  {_ms(r['loop_p99'])}/{_ms(r['loop_max'])}"
        f"  {r['boards_lost']:11d}  {min(r['honest']):6d}-{max(r['honest']):<6d}"
        f"  {r['rss_mb']:7.0f}  {_ms(r['api_p99'])}/{_ms(r['api_max'])}"
    )


def ratios(quiet: dict[str, Any], loud: dict[str, Any]) -> dict[str, float]:
    """loud/quiet for the boards' latency and the arbiter API's answer time."""
    out = {}
    for key in ("p50", "p99", "max", "api_p50", "api_p99"):
        if quiet.get(key) and loud.get(key):
            out[key] = loud[key] / quiet[key]
    return out


def compare(
    phase: Phase,
    clients: int,
    behaviours: dict[str, float],
    repeat: int,
    name: str = "hostile",
) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """`repeat` pairs of runs (quiet, then `clients` with `behaviours`), each row printed
    as it comes, then each ratio's median and min-max over the pairs."""
    print(HEADER, flush=True)
    pairs = []
    for _ in range(repeat):
        quiet = run_phase(phase, 0, behaviours)
        print(row("quiet", quiet), flush=True)
        loud = run_phase(phase, clients, behaviours)
        print(row(name, loud), flush=True)
        each = ratios(quiet, loud)
        print(
            f"  ratio {name}/quiet: "
            + "  ".join(f"{k} {v:.2f}" for k, v in each.items())
            + f"   API statuses {loud['api_statuses']}",
            flush=True,
        )
        pairs.append((quiet, loud))
    print(f"\nover {repeat} pair(s): median [min-max]")
    for key, label in (
        ("p50", "boards p50 ratio"),
        ("p99", "boards p99 ratio"),
        ("max", "boards max ratio"),
        ("api_p99", "arbiter API p99 ratio"),
    ):
        print(
            f"  {label:24s} {spread([ratios(q, h)[key] for q, h in pairs if key in ratios(q, h)])}"
        )
    print(f"  {'lag watch s (' + name + ')':24s} {spread([h['worst_lag'] for _, h in pairs])}")
    print(f"  {'peak MB (' + name + ')':24s} {spread([h['rss_mb'] for _, h in pairs])}")
    print(f"  {'peak MB (quiet)':24s} {spread([q['rss_mb'] for q, _ in pairs])}")
    api = [h["api_p99"] * 1000 for _, h in pairs if h["api_p99"]]
    print(f"  {'arbiter API p99 ms':24s} {spread(api)}")
    last = pairs[-1][1]
    print(f"  server (last run): {last['server']}")
    top = sorted(last["attack"].items(), key=lambda kv: -kv[1])
    print("  attackers (last run): " + ", ".join(f"{k} {v}" for k, v in top[:24]))
    return pairs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--boards", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--clients", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=1, help="pairs of runs (quiet, hostile)")
    parser.add_argument("--behaviours", type=json.loads, help="the attackers' mix, as JSON")
    parser.add_argument("--phase", nargs=3, help=argparse.SUPPRESS)
    parser.add_argument("--attacker", nargs=4, help=argparse.SUPPRESS)
    parser.add_argument("--probe", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.attacker:
        port, clients, behaviours, games = args.attacker
        attacker_main(int(port), int(clients), json.loads(behaviours), json.loads(games))
        return
    if args.probe:
        probe_main(args.probe)
        return
    if args.phase:
        phase = Phase(**json.loads(args.phase[0]))
        print(json.dumps(phase_process(phase, int(args.phase[1]), json.loads(args.phase[2]))))
        return
    behaviours = args.behaviours or BEHAVIOURS
    phase = Phase("service", args.boards, 16, 1.0, args.seconds)
    print(
        f"{args.boards} emulated boards (bus lines of 16, 9600 baud, real pace), "
        f"{args.seconds:g} s of play, {HONEST} honest spectators; hostile: {args.clients} "
        f"clients from {len(ADDRESSES)} addresses in a niced process ({behaviours}); "
        f"{args.repeat} pair(s) of runs",
        flush=True,
    )
    compare(phase, args.clients, behaviours, args.repeat)


if __name__ == "__main__":
    main()
