"""The LiveChess API's feed under load: programs subscribed to many boards at real pace.

Emulated DGT boards on bus lines play real games (`bench_serve`'s hall: a move every 4-8 s
per board at real pace, players press the clock) into `EventService` with its journal and
web, as `serve` runs it, with the LiveChess API (`web.livechess.server`) on a port of its
own. Subscribers (a separate process, plain aiohttp as a venue's script would be) list
the boards with `eboards` and each subscribes to `eboardevent` for up to 64 of them (a
connection's limit), spread so that every board has as many subscribers as the others.

Two measurements in the same run, each in its own process (its own CPU time):

- reference: the same boards and games with the API listening and nobody subscribed;
- feed: N subscribers.

Latency is from the moment the simulator puts a move on the board (the last piece set
down) to the moment it is seen: for the desk, when the committed move reaches the state
the arbiter sees (a listener called once the journal transaction is durable; the
reference's figure and the feed run's own), and for a subscriber, when the feed message
whose `san` ends with that move arrives (every subscriber of every move counts).
`time.monotonic` is one clock for the three processes. Also printed: feed messages a
second received by all subscribers, the service's CPU (% of one core) with and without
them, the worst loop lag, moves lost by the service, and feed faults: a subscriber whose
`san` list, built as a client builds it (append the last SAN, cut when it shrinks), is not
the recorded game at the end, or that was told a move twice or skipped one.

    python bench/bench_livechess.py                     # 32 boards, 10 subscribers (make bench)
    python bench/bench_livechess.py --boards 256 --subscribers 50 --seconds 40 --repeat 3
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing as mp
import resource
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "bench"), str(ROOT)]

from bench_serve import (  # noqa: E402
    PLAYERS_START,
    SETTLE,
    Phase,
    _percentile,
    _recv,
    _ServiceRun,
    board_plan,
    free_port,
    hall_process,
    in_fresh_process,
    kept,
    latencies,
    ms,
    peak_rss_mb,
)

PER_CONNECTION = 64  # the API's subscriptions per connection


# -- the subscribers' process ------------------------------------------------------------------------


def subscribers_process(port: int, clients: int, conn: Connection) -> None:
    asyncio.run(_subscribers(port, clients, conn))


async def _subscribers(port: int, clients: int, conn: Connection) -> None:
    import aiohttp

    url = f"http://127.0.0.1:{port}/api/v1.0"
    async with aiohttp.ClientSession() as session:
        async with session.get(f"{url}/eboards") as response:
            serials = sorted(b["serialnr"] for b in await response.json())
        per = min(PER_CONNECTION, len(serials))
        # arrival[client][serial][k]: when that client first held a line of k+1 moves
        arrival: list[dict[str, list[float]]] = [{} for _ in range(clients)]
        lines: list[dict[str, list[str]]] = [{} for _ in range(clients)]
        faults = [0]
        messages = [0]
        ready = asyncio.Event()
        subscribed = [0]

        async def client(index: int) -> None:
            mine = [serials[(index * per + k) % len(serials)] for k in range(per)]
            async with session.ws_connect(url.replace("http", "ws", 1)) as ws:
                for k, serial in enumerate(mine):
                    request = {
                        "id": k + 1,
                        "call": "subscribe",
                        "param": {
                            "feed": "eboardevent",
                            "id": k + 1,
                            "param": {"serialnr": serial},
                        },
                    }
                    await ws.send_str(json.dumps(request))
                    arrival[index][serial] = []
                    lines[index][serial] = []
                feeds = {k + 1: s for k, s in enumerate(mine)}
                acked = 0
                async for msg in ws:
                    data = json.loads(msg.data)
                    if data["response"] == "call":
                        acked += 1
                        if acked == len(mine):
                            subscribed[0] += 1
                            if subscribed[0] == clients:
                                ready.set()
                        continue
                    if data["response"] != "feed":
                        faults[0] += 1
                        continue
                    messages[0] += 1
                    serial = feeds[data["id"]]
                    san = data["param"]["san"]
                    held = lines[index][serial]
                    now = time.monotonic()
                    if len(san) < len(held):
                        del held[len(san) :]
                    elif len(san) == len(held) + 1:
                        held.append(san[-1])
                    elif len(san) != len(held) or san != held:
                        if held:  # the first message may carry the game so far
                            faults[0] += 1
                        held[:] = san
                    times = arrival[index][serial]
                    while len(times) < len(held):
                        times.append(now)

        tasks = [asyncio.ensure_future(client(i)) for i in range(clients)]
        await ready.wait()
        conn.send("ready")
        await asyncio.get_running_loop().run_in_executor(None, conn.recv)  # "stop"
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    conn.send({"arrival": arrival, "lines": lines, "faults": faults[0], "messages": messages[0]})


# -- the service's process ---------------------------------------------------------------------------


def measure(phase: Phase, subscribers: int) -> dict[str, Any]:
    ctx = mp.get_context("spawn")
    ours, theirs = ctx.Pipe()
    with tempfile.TemporaryDirectory(prefix="bench-livechess-") as tmp:
        hall = ctx.Process(target=hall_process, args=(phase, tmp, theirs), daemon=True)
        hall.start()
        try:
            return asyncio.run(_measure(phase, subscribers, Path(tmp), ours, ctx))
        finally:
            hall.join(10)
            if hall.is_alive():
                hall.kill()


async def _loop_probe(lags: list[float]) -> None:
    loop = asyncio.get_running_loop()
    while True:
        t = loop.time()
        await asyncio.sleep(0.05)
        lags.append(max(0.0, loop.time() - t - 0.05))


async def _measure(
    phase: Phase, subscribers: int, tmp: Path, conn: Connection, ctx: Any
) -> dict[str, Any]:
    from web.livechess.server import LiveChessApi, LiveChessSettings

    paths: dict[int, str] = await _recv(conn)
    seen: dict[int, list[tuple[str, float]]] = {n: [] for n in paths}
    run = _ServiceRun(phase, tmp, paths, seen, {})
    await run.start()
    api = LiveChessApi(run.service, LiveChessSettings("127.0.0.1", free_port()), None)
    await api.start()
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 120
    while not run.followed() and loop.time() < deadline:
        await asyncio.sleep(0.1)
    followed = run.followed()
    subs_conn = sub = None
    if subscribers:
        subs_conn, theirs = ctx.Pipe()
        sub = ctx.Process(
            target=subscribers_process,
            args=(api.settings.port, subscribers, theirs),
            daemon=True,
        )
        sub.start()
        await _recv(subs_conn)  # "ready"
    await asyncio.sleep(PLAYERS_START)
    lags: list[float] = []
    probe = asyncio.ensure_future(_loop_probe(lags))
    cpu0 = resource.getrusage(resource.RUSAGE_SELF)
    t0 = time.monotonic()
    conn.send("go")
    done: dict[int, list[float]] = await _recv(conn)
    await asyncio.sleep(SETTLE)
    elapsed = time.monotonic() - t0
    cpu1 = resource.getrusage(resource.RUSAGE_SELF)
    probe.cancel()
    lines = run.lines()
    sans = {
        run.service.hall[n].name: [m.san for m in run.service.book.get(game).moves]
        for game, n in run.game_board.items()
    }
    got: dict[str, Any] = {"arrival": [], "lines": [], "faults": 0, "messages": 0}
    if subs_conn is not None and sub is not None:
        subs_conn.send("stop")
        got = await _recv(subs_conn)
        sub.join(10)
    await api.close()
    await run.stop()
    conn.send("stop")
    played = {n: [m.uci() for m in board_plan(n, phase)[0].mainline_moves()] for n in paths}
    desk, feed, lost = [], [], 0
    serial_of = {n: run.service.hall[n].name for n in paths}
    for n, ucis in played.items():
        common = kept(lines.get(n, []), ucis)
        lost += len(ucis) - common
        desk += latencies(seen[n], ucis, done[n], common)
        for ply, on_board in enumerate(done[n][:common]):
            for client in got["arrival"]:
                times = client.get(serial_of[n])
                if times is not None and ply < len(times) and times[ply] >= on_board - 0.001:
                    feed.append(times[ply] - on_board)
    faults = got["faults"]
    for client in got["lines"]:
        faults += sum(1 for serial, held in client.items() if held != sans.get(serial))
    cpu = (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime)
    return {
        "boards": phase.boards,
        "speed": phase.speed,
        "subscribers": subscribers,
        "followed": followed,
        "moves": sum(len(u) for u in played.values()),
        "lost": lost,
        "cpu_percent": 100 * cpu / elapsed,
        "rss_mb": peak_rss_mb(),
        "desk_p50": _percentile(desk, 50),
        "desk_p99": _percentile(desk, 99),
        "feed_p50": _percentile(feed, 50),
        "feed_p99": _percentile(feed, 99),
        "feed_n": len(feed),
        "messages_per_s": got["messages"] / elapsed,
        "faults": faults,
        "lag_p99": _percentile(lags, 99),
        "lag_max": max(lags, default=None),
    }


def run_phase(phase: Phase, subscribers: int) -> dict[str, Any]:
    """One measurement in a fresh process (its own CPU time and peak memory)."""
    spec = json.dumps({"phase": phase.__dict__, "subscribers": subscribers})
    return in_fresh_process(__file__, "--phase", spec)


# -- the report ---------------------------------------------------------------------------------------


def spread(values: Sequence[float], fmt: str = "{:.2f}") -> str:
    if not values:
        return "-"
    if len(values) == 1:
        return fmt.format(values[0])
    low, high = min(values), max(values)
    return f"{fmt.format(statistics.median(values))} [{fmt.format(low)}-{fmt.format(high)}]"


HEADER = (
    "boards subs moves lost  cpu%  rss MB  desk p50/p99 ms  feed p50/p99 ms (n)"
    "  msgs/s  faults  lag p99/max ms"
)


def row(r: dict[str, Any]) -> str:
    return (
        f"{r['boards']:6d} {r['subscribers']:4d} {r['moves']:5d} {r['lost']:4d}"
        f" {r['cpu_percent']:5.0f} {r['rss_mb']:7.0f}   {ms(r['desk_p50'])}/{ms(r['desk_p99'])}"
        f"      {ms(r['feed_p50'])}/{ms(r['feed_p99'])} ({r['feed_n']:5d})"
        f" {r['messages_per_s']:7.0f} {r['faults']:7d}   {ms(r['lag_p99'])}/{ms(r['lag_max'])}"
        + ("" if r["followed"] else "  (not every board was found in time)")
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--boards", type=int, default=32)
    parser.add_argument("--subscribers", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=20.0, help="real seconds of play")
    parser.add_argument("--pace", type=float, default=1.0, help="speed (1: real pace)")
    parser.add_argument("--per-line", type=int, default=16, help="boards per bus line")
    parser.add_argument("--repeat", type=int, default=1, help="pairs of measurements")
    parser.add_argument("--phase", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.phase:
        spec = json.loads(args.phase)
        print(json.dumps(measure(Phase(**spec["phase"]), spec["subscribers"])))
        return
    phase = Phase("service", args.boards, args.per_line, args.pace, args.seconds)
    print(
        f"LiveChess API feed: {args.boards} boards on bus lines of {args.per_line}, "
        f"{args.pace:g}x pace, {args.seconds:g} s of play; reference: nobody subscribed; "
        f"feed: {args.subscribers} subscribers of up to {PER_CONNECTION} boards each",
        flush=True,
    )
    print(HEADER)
    pairs = []
    for _ in range(args.repeat):
        reference = run_phase(phase, 0)
        print(row(reference), flush=True)
        loaded = run_phase(phase, args.subscribers)
        print(row(loaded), flush=True)
        pairs.append((reference, loaded))
    cpu = [b["cpu_percent"] - a["cpu_percent"] for a, b in pairs]
    p99 = [b["feed_p99"] / b["desk_p99"] for _, b in pairs if b["feed_p99"] and b["desk_p99"]]
    p50 = [b["feed_p50"] / b["desk_p50"] for _, b in pairs if b["feed_p50"] and b["desk_p50"]]
    desk = [b["desk_p99"] / a["desk_p99"] for a, b in pairs if a["desk_p99"] and b["desk_p99"]]
    print(
        f"feed/desk latency (same run): p50 {spread(p50)}x, p99 {spread(p99)}x; "
        f"desk p99 with/without subscribers {spread(desk)}x; "
        f"CPU the subscribers cost: {spread(cpu, '{:.1f}')} % of a core; "
        f"feed faults {sum(b['faults'] for _, b in pairs)}, moves lost "
        f"{sum(a['lost'] + b['lost'] for a, b in pairs)}"
    )


if __name__ == "__main__":
    main()
