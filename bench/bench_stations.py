"""Capture stations under many boards: the same hall read by one machine and by stations.

Emulated DGT boards on bus lines (`bench_serve`'s hall: lines of 16 at 9600 baud, real
games, a move every 4-8 s per board at real pace, players press the clock; its own
process, noting when each move is complete on the board) are followed two ways, one
after the other in the same run, each measurement in a fresh process:

- one: one `EventService` (journal, web, rules) reading every bus line itself, as a
  plain `serve` does (`bench_serve`'s "service" mode): the reference;
- stations: N station processes, each owning some bus lines (in turn), each running
  `boardwire station --redis URL --event Bench --name sK --outbox PATH` in-process
  (`broadcast.cli.station.station`: the bus drivers, the durable outbox, the `Sender`
  with its name claim, hello and heartbeat), its bus drivers given the reference's
  allowance for a starved emulator (`bench_serve.REPLY_TIMEOUT`), into a redis-server
  the bench starts on a free port (appendonly, appendfsync everysec, as
  docs/deployment.md sets it up), read by the central `EventService` with its journal
  and web and the stations' `Intake` (wired as `serve --stations` wires them: the
  boards' ports named by station, the venue hash written by the intake) in the
  measuring process, so its CPU and memory are the central serve's.

After play and a settle, the bench waits up to DRAIN seconds for what is still on its
way: a move that arrives then is late (its latency counts), one that never does is lost.

Measured: piece down to the desk (the committed move reaching the central state: a
journal listener called once the transaction is durable) p50 and p99; moves lost (the
recorded game against the game played); the central process's CPU (% of one core) and
peak memory; the stations' CPU (sum over the station processes, and the busiest one);
the hall emulation's and redis-server's CPU; board events a second through Redis (what
the intake applied) and journal events a second; the station drivers' bus cycle p99;
the most events waiting at once in the stations' outboxes, unread in Redis, and read
but not yet durable.
`time.monotonic` is one clock for every process.

Printed figures, not a test: the machine is shared (2 cores; other jobs may run), so
read the stations' figures against the one-machine reference of the same run.

    python bench/bench_stations.py                    # 64 boards, 2 stations (make bench)
    python bench/bench_stations.py --boards 256 --stations 4 --seconds 30 --repeat 2
    python bench/bench_stations.py --boards 1000 --stations 8 --paces 1 --seconds 30
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import multiprocessing as mp
import os
import re
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
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
    bus_settings,
    event_toml,
    free_port,
    hall_process,
    in_fresh_process,
    kept,
    latencies,
    ms,
    peak_rss_mb,
)

EVENT = "Bench"  # bench_serve's event_toml names the event so
DRAIN = 90.0  # real seconds at most, after the settle, for late moves to arrive
FOLLOW_TIMEOUT = 240.0  # real seconds for every board to be found (1,000 boards take long)
TICK = os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class Spec:
    mode: str  # "one" or "stations"
    boards: int
    stations: int
    per_line: int
    speed: float
    seconds: float

    def phase(self) -> Phase:
        return Phase("service", self.boards, self.per_line, self.speed, self.seconds)


def station_of(board: int, spec: Spec) -> str:
    """Bus lines go to the stations in turn (a line is never split)."""
    return f"s{(board - 1) // spec.per_line % spec.stations + 1}"


def stations_toml(spec: Spec, paths: dict[int, str]) -> str:
    """bench_serve's event, every board given to a station."""

    def add(m: re.Match[str]) -> str:
        return f'{m.group(0)}station = "{station_of(int(m.group(1)), spec)}"\n'

    return re.sub(r"\[\[board\]\]\nnumber = (\d+)\n", add, event_toml(spec.phase(), paths))


def cpu_seconds(pid: int) -> float:
    """utime + stime of process `pid` (its threads; not its children)."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return float("nan")
    fields = text.rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


# -- Redis -------------------------------------------------------------------------------------------


class Redis:
    """redis-server on a free port in `folder`, set up as docs/deployment.md says."""

    def __init__(self, folder: Path) -> None:
        self.port = free_port()
        server = shutil.which("redis-server") or "/usr/bin/redis-server"
        self.proc = subprocess.Popen(
            [
                server,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--dir",
                str(folder),
                "--save",
                "",
                "--appendonly",
                "yes",
                "--appendfsync",
                "everysec",
                "--loglevel",
                "warning",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while True:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2) as s:
                    s.sendall(b"PING\r\n")
                    if s.recv(16).startswith(b"+PONG"):
                        return
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"redis-server did not start on {self.port}") from None
                time.sleep(0.02)

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)


# -- a station's process -----------------------------------------------------------------------------


def station_process(url: str, name: str, outbox: str, conn: Connection) -> None:
    asyncio.run(_station(url, name, outbox, conn))


async def _station(url: str, name: str, outbox: str, conn: Connection) -> None:
    """`boardwire station --redis URL --event Bench --name NAME --outbox PATH`, run
    in-process (`broadcast.cli.station.station`) with one change: its bus drivers get the
    bench's allowance for a starved emulator (`bench_serve.REPLY_TIMEOUT`), as the
    reference's do. Its drivers' bus cycles are sampled for the report."""
    import broadcast.cli.station as cli
    from broadcast.cli.main import build_parser

    made: list[Any] = []
    product = vars(cli)["Station"]

    def with_bench_bus(*args: Any, **kwargs: Any) -> Any:
        made.append(product(*args, **kwargs, bus_settings=bus_settings()))
        return made[-1]

    vars(cli)["Station"] = with_bench_bus
    args = build_parser().parse_args(
        ["station", "--redis", url, "--event", EVENT, "--name", name, "--outbox", outbox]
    )
    stop = asyncio.Event()
    running = asyncio.ensure_future(cli.station(args, stop=stop))
    cycles: list[float] = []

    async def watch_cycles() -> None:
        while True:
            await asyncio.sleep(0.25)
            for station in made:
                got = (getattr(d, "last_cycle", None) for d in station.drivers)
                cycles.extend(c for c in got if c is not None)

    watcher = asyncio.ensure_future(watch_cycles())
    await _recv(conn)  # "stop"
    watcher.cancel()
    stop.set()
    code = await running
    conn.send({"cycles": cycles, "exit": code})


# -- the measuring process ---------------------------------------------------------------------------


class _StationsRun(_ServiceRun):
    """The central serve of `serve --stations`: EventService + journal + web + Intake."""

    def __init__(self, spec: Spec, tmp: Path, paths: dict[int, str], seen: Any) -> None:
        super().__init__(spec.phase(), tmp, paths, seen, {})
        self.spec = spec

    async def start(self) -> None:
        from broadcast.config import load_event
        from broadcast.games.game_events import GameMove
        from broadcast.journal.store import Journal
        from broadcast.phrases import say
        from broadcast.publish.redis_link import RedisTarget, redis_problem
        from broadcast.service.event_service import EventService
        from broadcast.stations.intake import Intake, station_ports
        from clocks.timesource import EpochTime
        from web.app import start_web

        self.redis = Redis(self.tmp)
        toml = self.tmp / "bench.toml"
        toml.write_text(stations_toml(self.spec, self.paths), encoding="utf-8")
        config = load_event(toml)
        self.journal = Journal(self.tmp / "bench.sqlite")
        self.service = EventService(
            config,
            self.journal,
            time_source=EpochTime(self.phase.speed),
            port_overrides=station_ports(config),
            live_round=1,
            delay=0,
            bus_settings=bus_settings(),
        )
        self.service.load()
        self.game_board = {b.game: n for n, b in self.service.hall.items() if b.game}

        def listener(entries: Sequence[Any]) -> None:
            now = time.monotonic()
            for entry in entries:
                event = entry.event
                if isinstance(event, GameMove) and event.game in self.game_board:
                    self.seen[self.game_board[event.game]].append((event.uci, now))

        self.service.listeners.append(listener)
        self.intake = Intake(self.service, RedisTarget(self.redis.url, None), problem=redis_problem)
        self.intake_task = self.service.supervisor.start(
            say("the capture stations' intake"), self.intake.run
        )
        self.port = free_port()
        self.runner = await start_web(
            self.service, host="127.0.0.1", port=self.port, credentials=("bench", "bench-pw")
        )
        self.tasks.append(asyncio.ensure_future(self.service.run()))
        ctx = mp.get_context("spawn")
        self.station_procs: list[tuple[Any, Connection]] = []
        for k in range(1, self.spec.stations + 1):
            ours, theirs = ctx.Pipe()
            proc = ctx.Process(
                target=station_process,
                args=(self.redis.url, f"s{k}", str(self.tmp / f"s{k}.sqlite"), theirs),
                daemon=True,
            )
            proc.start()
            self.station_procs.append((proc, ours))

    def redis_client(self) -> Any:
        from redis import asyncio as aioredis

        return aioredis.Redis.from_url(self.redis.url, decode_responses=True)

    def station_pids(self) -> list[int]:
        return [p.pid for p, _ in self.station_procs]

    async def stop(self) -> None:
        try:
            await self._stop_stations()
        finally:
            await self.intake_task.stop()
            await super().stop()
            self.redis.stop()

    async def _stop_stations(self) -> None:
        self.station_cycles: list[float] = []
        for _, conn in self.station_procs:
            conn.send("stop")
        for proc, conn in self.station_procs:
            if not await asyncio.get_running_loop().run_in_executor(None, conn.poll, 60):
                raise SystemExit(f"station process {proc.pid} did not stop within 60 s")
            got = await _recv(conn)
            if got["exit"] != 0:
                raise SystemExit(f"a station exited with {got['exit']}")
            self.station_cycles += got["cycles"]
            proc.join(10)
            if proc.is_alive():
                proc.kill()


def measure(spec: Spec) -> dict[str, Any]:
    ctx = mp.get_context("spawn")
    ours, theirs = ctx.Pipe()
    with tempfile.TemporaryDirectory(prefix="bench-stations-") as tmp:
        hall = ctx.Process(target=hall_process, args=(spec.phase(), tmp, theirs), daemon=True)
        hall.start()
        try:
            assert hall.pid is not None
            return asyncio.run(_measure(spec, Path(tmp), ours, hall.pid))
        finally:
            hall.join(10)
            if hall.is_alive():
                hall.kill()


async def _measure(spec: Spec, tmp: Path, conn: Connection, hall_pid: int) -> dict[str, Any]:
    paths: dict[int, str] = await _recv(conn)
    seen: dict[int, list[tuple[str, float]]] = {n: [] for n in paths}
    run: _ServiceRun
    if spec.mode == "stations":
        run = _StationsRun(spec, tmp, paths, seen)
    else:
        run = _ServiceRun(spec.phase(), tmp, paths, seen, {})
    await run.start()
    stations = run if isinstance(run, _StationsRun) else None
    loop = asyncio.get_running_loop()
    t_start = loop.time()
    deadline = t_start + FOLLOW_TIMEOUT
    while not run.followed() and loop.time() < deadline:
        await asyncio.sleep(0.1)
    followed = run.followed()
    follow_seconds = loop.time() - t_start
    await asyncio.sleep(PLAYERS_START)
    others = {"hall": [hall_pid]}
    if stations:
        others["stations"] = stations.station_pids()
        others["redis"] = [stations.redis.proc.pid]
    cpu_before = {k: [cpu_seconds(p) for p in pids] for k, pids in others.items()}
    cpu0 = resource.getrusage(resource.RUSAGE_SELF)
    t0 = time.monotonic()
    stored0 = run.events_stored()
    through0 = stations.intake.applied_events if stations else 0
    conn.send("go")
    cycles: list[float] = []

    async def watch_cycles() -> None:
        while True:
            await asyncio.sleep(0.25)
            cycles.extend(d.last_cycle for d in run.drivers() if d.last_cycle is not None)

    backlog = {
        "outboxes": 0,
        "unread": 0,
        "pending": 0,
    }  # the most waiting at once, summed over stations

    async def watch_backlog() -> None:
        assert stations is not None
        client = stations.redis_client()
        try:
            while True:
                await asyncio.sleep(0.5)
                waiting = sum(int(str(r["waiting"])) for r in stations.intake.rows())
                backlog["outboxes"] = max(backlog["outboxes"], waiting)
                unread = pending = 0
                for k in range(1, spec.stations + 1):
                    for g in await client.xinfo_groups(stations.intake.keys.stream(f"s{k}")):
                        unread += int(g.get("lag") or 0)  # not yet read by the intake
                        pending += int(g.get("pending") or 0)  # read, not yet durable
                backlog["unread"] = max(backlog["unread"], unread)
                backlog["pending"] = max(backlog["pending"], pending)
        finally:
            await client.aclose()

    watchers = [asyncio.ensure_future(watch_cycles())]
    if stations:
        watchers.append(asyncio.ensure_future(watch_backlog()))
    done: dict[int, list[float]] = await _recv(conn)
    watchers[0].cancel()
    await asyncio.sleep(SETTLE)
    elapsed = time.monotonic() - t0
    cpu1 = resource.getrusage(resource.RUSAGE_SELF)
    cpu_after = {k: [cpu_seconds(p) for p in pids] for k, pids in others.items()}
    stored = run.events_stored() - stored0
    through = (stations.intake.applied_events - through0) if stations else 0
    counters = (
        {k: getattr(stations.intake, k) for k in ("skipped", "refused", "gaps")} if stations else {}
    )
    at_settle = run.lines()
    # Then what is still on its way (the stations' outboxes, Redis, the committer): moves
    # that arrive are late, moves that never do are lost.
    drain_end = time.monotonic() + DRAIN
    lines, quiet = at_settle, 0.0
    while time.monotonic() < drain_end and quiet < 5.0:
        await asyncio.sleep(1.0)
        now_lines = run.lines()
        quiet = quiet + 1.0 if now_lines == lines else 0.0
        lines = now_lines
    for w in watchers:
        w.cancel()
    worst_lag = run.worst_lag()
    await run.stop()
    if stations:
        cycles = stations.station_cycles
    conn.send("stop")
    played = {n: [m.uci() for m in board_plan(n, spec.phase())[0].mainline_moves()] for n in paths}
    moves_latency: list[float] = []
    lost = late = 0
    for n, ucis in played.items():
        common = kept(lines.get(n, []), ucis)
        lost += len(ucis) - common
        late += common - kept(at_settle.get(n, []), ucis)
        moves_latency += latencies(seen[n], ucis, done[n], common)
    cpu = (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime)
    percent = {
        k: [100 * (b - a) / elapsed for a, b in zip(cpu_before[k], cpu_after[k], strict=True)]
        for k in others
    }
    return {
        **asdict(spec),
        "followed": followed,
        "follow_seconds": follow_seconds,
        "moves": sum(len(u) for u in played.values()),
        "lost": lost,
        "late": late,
        "backlog_outboxes": backlog["outboxes"],
        "backlog_unread": backlog["unread"],
        "backlog_pending": backlog["pending"],
        "cpu_percent": 100 * cpu / elapsed,
        "rss_mb": peak_rss_mb(),
        "hall_cpu": sum(percent["hall"]),
        "stations_cpu": sum(percent.get("stations", [])),
        "station_cpu_max": max(percent.get("stations", [0.0])),
        "redis_cpu": sum(percent.get("redis", [])),
        "events_per_s": stored / elapsed,
        "redis_events_per_s": through / elapsed,
        "p50": _percentile(moves_latency, 50),
        "p99": _percentile(moves_latency, 99),
        "worst_lag": worst_lag,
        "cycle_p99": _percentile(cycles, 99),
        "seconds": elapsed,
        **counters,
    }


def run_spec(spec: Spec) -> dict[str, Any]:
    """One measurement in a fresh process (its own CPU time and peak memory)."""
    return in_fresh_process(__file__, "--spec", json.dumps(asdict(spec)))


# -- the report --------------------------------------------------------------------------------------


HEADER = (
    "boards pace mode        moves lost late  p50 ms  p99 ms  central cpu%  rss MB"
    "  stations cpu% (max)  hall cpu%  redis cpu%  redis ev/s  journal ev/s  bus cycle p99 ms"
    "  most waiting: outboxes/unread/pending"
)


def row(r: dict[str, Any]) -> str:
    mode = "one" if r["mode"] == "one" else f"{r['stations']} stations"
    st = (
        f"{r['stations_cpu']:6.0f} ({r['station_cpu_max']:3.0f})"
        if r["mode"] == "stations"
        else "           -"
    )
    redis = (
        f"{r['redis_cpu']:10.0f}  {r['redis_events_per_s']:10.0f}"
        if r["mode"] == "stations"
        else f"{'-':>10s}  {'-':>10s}"
    )
    return (
        f"{r['boards']:6d} {r['speed']:3g}x  {mode:10s} {r['moves']:6d} {r['lost']:4d} {r['late']:4d}"
        f"  {ms(r['p50'])}   {ms(r['p99'])}  {r['cpu_percent']:12.0f}  {r['rss_mb']:6.0f}"
        f"         {st}  {r['hall_cpu']:9.0f}  {redis}  {r['events_per_s']:12.0f}"
        f"  {ms(r['cycle_p99']):>16s}"
        + (
            f"  {r['backlog_outboxes']:8d}/{r['backlog_unread']}/{r['backlog_pending']}"
            if r["mode"] == "stations"
            else ""
        )
        + ("" if r["followed"] else "  (not every board was found in time)")
    )


def spread(values: Sequence[float | None], scale: float = 1.0, fmt: str = "{:.0f}") -> str:
    got = [v * scale for v in values if v is not None]
    if not got:
        return "-"
    if len(got) == 1:
        return fmt.format(got[0])
    return f"{fmt.format(statistics.median(got))} [{fmt.format(min(got))}-{fmt.format(max(got))}]"


def summary(results: list[dict[str, Any]]) -> None:
    """Per pace and mode: median [min-max] over the repeats."""
    print("summary (median [min-max] over the repeats):")
    keys = sorted({(r["speed"], r["mode"]) for r in results}, key=lambda k: (k[0], k[1] != "one"))
    for speed, mode in keys:
        rs = [r for r in results if r["speed"] == speed and r["mode"] == mode]
        print(
            f"  {speed:3g}x {mode:8s} n={len(rs)}: p50 {spread([r['p50'] for r in rs], 1000)} ms,"
            f" p99 {spread([r['p99'] for r in rs], 1000)} ms,"
            f" lost {sum(r['lost'] for r in rs)}, late {sum(r['late'] for r in rs)},"
            f" central cpu {spread([r['cpu_percent'] for r in rs])}%,"
            f" rss {spread([r['rss_mb'] for r in rs])} MB"
            + (
                f", stations cpu {spread([r['stations_cpu'] for r in rs])}%,"
                f" redis cpu {spread([r['redis_cpu'] for r in rs])}%,"
                f" {spread([r['redis_events_per_s'] for r in rs])} ev/s through Redis"
                if mode == "stations"
                else ""
            )
            + f", hall cpu {spread([r['hall_cpu'] for r in rs])}%"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--boards", type=int, default=64)
    parser.add_argument("--stations", type=int, default=2)
    parser.add_argument("--paces", default="1,10", help="speeds, comma-separated (1: real pace)")
    parser.add_argument("--seconds", type=float, default=12.0, help="real seconds of play")
    parser.add_argument("--per-line", type=int, default=16, help="boards per bus line")
    parser.add_argument("--repeat", type=int, default=1, help="pairs of measurements per pace")
    parser.add_argument(
        "--modes", default="one,stations", help="which ways of reading (one, stations)"
    )
    parser.add_argument("--spec", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.spec:
        print(json.dumps(measure(Spec(**json.loads(args.spec)))))
        return
    lines = math.ceil(args.boards / args.per_line)
    print(
        f"capture stations: {args.boards} boards on {lines} bus lines of {args.per_line} "
        f"(9600 baud), {args.seconds:g} s of play per run; one = one serve reading every "
        f"line; stations = {args.stations} station processes -> Redis -> the central serve "
        "(EventService + journal + web + intake); each run in its own processes",
        flush=True,
    )
    print(HEADER)
    results = []
    for _ in range(args.repeat):
        for speed in (float(s) for s in args.paces.split(",")):
            for mode in args.modes.split(","):
                spec = Spec(mode, args.boards, args.stations, args.per_line, speed, args.seconds)
                result = run_spec(spec)
                results.append(result)
                print(row(result), flush=True)
    summary(results)


if __name__ == "__main__":
    main()
