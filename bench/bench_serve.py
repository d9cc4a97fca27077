"""The service under many boards: CPU, memory, journal events/s, and move latency.

Emulated DGT boards on bus lines (16 boards a line by default, 9600 baud: the simulator
throttles what the boards send to 960 bytes/s) play real games. Each measurement runs in
its own process so that CPU and peak memory are its own; the boards run in a second
process. Two ways of following the same boards, one after the other in the same run:

- service: `EventService` with its journal (SQLite, synchronous=FULL) in a temp dir and the
  web app, as `serve` runs it;
- bare: the bus drivers feeding one `BoardFollower` each, no journal, no rules, no web.

Latency is from the moment the simulator puts a move on the board (the last piece set
down) to the moment the move is visible: for the service, when the committed move reaches
the state the arbiter API serves (a listener called once the journal transaction is
durable), and for a sample of games through the real HTTP API (`/api/v1/arbiter/games/ID`,
polled every 50 ms, so up to 50 ms of that figure is the polling); for bare drivers, when
the follower emits the move. A move is lost when the recorded game does not have it.

"Real pace" is a busy stretch of rapid play (every board moves every 4-8 s, players
press the clock); "10x" is the same games ten times faster on real-speed lines. Printed
figures, not a test: the machine is shared (2 cores; other jobs may run at the same
time), so read the service figures against the bare drivers' of the same run.

    python bench/bench_serve.py [--sizes 16,64,128,256] [--seconds 40] [--paces 1,10]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import json
import math
import multiprocessing as mp
import random
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import chess.pgn

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "examples" / "games" / "worldcup2025-sample.pgn"
TIME_CONTROL = "900+10"
THINK = (4.0, 8.0)  # sim seconds per move, per board
PLAYERS_START = 3.0  # real seconds after every board is followed
SETTLE = 4.0  # real seconds after the last move for the last ones to show
HTTP_SAMPLE = 8  # games polled through the real HTTP API
HTTP_EVERY = 0.05
# A real board answers a bus poll within milliseconds; the emulated ones share a loaded
# machine with everything else, and a starved emulator must not pass for a dead board
# (both ways of following get the same allowance).
REPLY_TIMEOUT = 0.5


def bus_settings() -> Any:
    from boards.drivers.bus import BusSettings

    return BusSettings(reply_timeout=REPLY_TIMEOUT)


@dataclass(frozen=True)
class Phase:
    mode: str  # "service" or "bare"
    boards: int
    per_line: int
    speed: float
    seconds: float


def serial(board: int) -> str:
    return f"{1000 + board:05d}"


@functools.cache
def sample_games() -> list[chess.pgn.Game]:
    games = []
    with SAMPLE.open(encoding="utf-8") as f:
        while (game := chess.pgn.read_game(f)) is not None:
            short = chess.pgn.Game()  # no [%clk]: the think times are the benchmark's
            short.headers["TimeControl"] = TIME_CONTROL
            short.add_line(list(game.mainline_moves()))
            games.append(short)
    return games


def board_plan(board: int, phase: Phase) -> tuple[chess.pgn.Game, float, float]:
    """The game board `board` plays (cut to fit the run), its think time and start offset."""
    games = sample_games()
    rng = random.Random(board)
    think = rng.uniform(*THINK)
    plies = max(2, min(80, math.ceil(phase.seconds * phase.speed / think)))
    full = games[(board - 1) % len(games)]
    game = chess.pgn.Game()
    game.headers["TimeControl"] = TIME_CONTROL
    game.add_line(list(full.mainline_moves())[:plies])
    return game, think, rng.uniform(0, think)


# -- the boards' process -------------------------------------------------------------------------


class MoveClock:
    """Passes actions to the board and notes when each move is complete on it: the last
    piece set down before the mover's lever press (monotonic clock, shared by processes)."""

    def __init__(self, host: Any, index: int) -> None:
        self.host, self.index = host, index
        self.pending: float | None = None
        self.done: list[float] = []

    def set_square(self, index: int, code: int, board: int = 0) -> None:
        self.host.set_square(index, code, board=board)
        self.pending = time.monotonic()

    def press_lever(self, side: Any, board: int = 0) -> None:
        self.host.press_lever(side, board=board)
        if self.pending is not None:
            self.done.append(self.pending)
            self.pending = None

    def setup_clock(
        self, left: float, right: float, increment: float = 0.0, board: int = 0
    ) -> None:
        self.host.setup_clock(left, right, increment, board=board)


def hall_process(phase: Phase, rundir: str, conn: Connection) -> None:
    asyncio.run(_hall(phase, Path(rundir), conn))


async def _hall(phase: Phase, rundir: Path, conn: Connection) -> None:
    from boardsim.board import EmulatedBoard
    from boardsim.busline import BusLine
    from boardsim.pty import PtyHost
    from boardsim.script import actions_for_game, play
    from clocks.timesource import EpochTime

    clock = EpochTime(phase.speed)
    hosts, where = [], {}
    for line in range(math.ceil(phase.boards / phase.per_line)):
        numbers = range(
            line * phase.per_line + 1, min(phase.boards, (line + 1) * phase.per_line) + 1
        )
        boards = [EmulatedBoard(serial(n), seed=n, t=clock.now()) for n in numbers]
        host = PtyHost(
            BusLine(boards), rundir / f"line-{line + 1}", time_source=clock, line_speed=True
        )
        await host.start()
        hosts.append(host)
        for index, n in enumerate(numbers):
            where[n] = (host, index)
    conn.send({n: str(host.path) for n, (host, _) in where.items()})
    await asyncio.get_running_loop().run_in_executor(None, conn.recv)  # "go"
    notes: dict[int, MoveClock] = {}
    players = []
    for n, (host, index) in where.items():
        game, think, offset = board_plan(n, phase)
        notes[n] = MoveClock(host, index)
        actions = actions_for_game(game, default_think=think)

        async def run(
            target: MoveClock = notes[n], actions: Any = actions, offset: float = offset
        ) -> None:
            await asyncio.sleep(offset / phase.speed)
            await play(target, actions, clock, board=target.index, speed=phase.speed)

        players.append(asyncio.ensure_future(run()))
    await asyncio.gather(*players)
    conn.send({n: note.done for n, note in notes.items()})
    await asyncio.get_running_loop().run_in_executor(None, conn.recv)  # "stop"
    for host in hosts:
        await host.stop()


# -- the following process -------------------------------------------------------------------------


def event_toml(phase: Phase, paths: dict[int, str]) -> str:
    """Sections of 8 players (round robins, 4 boards each), as many as the boards need."""
    schedule = "".join(
        f"[[section.schedule]]\nround = {r}\ndate = 2030-01-0{r}\ntime = 10:00:00\n\n"
        for r in range(1, 8)
    )
    sections, boards = [], []
    for k, n in enumerate(sorted(paths)):
        s = k // 4 + 1
        if k % 4 == 0:
            players = "".join(
                f'[[section.player]]\nname = "Player {s:03d}-{i}"\n\n' for i in range(1, 9)
            )
            sections.append(
                f'[[section]]\nname = "S{s:03d}"\nsystem = "round-robin"\nrounds = 7\n'
                f'time_control = "{TIME_CONTROL}"\ndefault_time_minutes = 60\n\n'
                + schedule
                + players
            )
        boards.append(
            f'[[board]]\nnumber = {n}\nport = "{paths[n]}"\naddress = {1000 + n}\n'
            f'section = "S{s:03d}"\n\n'
        )
    return (
        '[event]\nname = "Bench"\nsite = "here"\ntimezone = "UTC"\n'
        "broadcast_delay_seconds = 0\n\n" + "".join(sections) + "".join(boards)
    )


def peak_rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def follow_phase(phase: Phase) -> dict[str, Any]:
    ctx = mp.get_context("spawn")
    ours, theirs = ctx.Pipe()
    with tempfile.TemporaryDirectory(prefix="bench-serve-") as tmp:
        hall = ctx.Process(target=hall_process, args=(phase, tmp, theirs), daemon=True)
        hall.start()
        try:
            return asyncio.run(_follow(phase, Path(tmp), ours))
        finally:
            hall.join(10)
            if hall.is_alive():
                hall.kill()


async def _recv(conn: Connection) -> Any:
    return await asyncio.get_running_loop().run_in_executor(None, conn.recv)


async def _follow(phase: Phase, tmp: Path, conn: Connection) -> dict[str, Any]:
    paths: dict[int, str] = await _recv(conn)
    seen: dict[int, list[tuple[str, float]]] = {n: [] for n in paths}  # (uci, visible at)
    http_seen: dict[int, list[float]] = {}
    run: _ServiceRun | _BareRun
    if phase.mode == "service":
        run = _ServiceRun(phase, tmp, paths, seen, http_seen)
    else:
        run = _BareRun(phase, paths, seen)
    await run.start()
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 120
    while not run.followed() and loop.time() < deadline:
        await asyncio.sleep(0.1)
    followed = run.followed()
    await asyncio.sleep(PLAYERS_START)
    cpu0 = resource.getrusage(resource.RUSAGE_SELF)
    t0 = time.monotonic()
    stored0 = run.events_stored()
    conn.send("go")
    cycles: list[float] = []

    async def watch_cycles() -> None:
        while True:
            await asyncio.sleep(0.25)
            cycles.extend(d.last_cycle for d in run.drivers() if d.last_cycle is not None)

    watcher = asyncio.ensure_future(watch_cycles())
    done: dict[int, list[float]] = await _recv(conn)
    watcher.cancel()
    await asyncio.sleep(SETTLE)
    elapsed = time.monotonic() - t0
    cpu1 = resource.getrusage(resource.RUSAGE_SELF)
    stored = run.events_stored() - stored0
    lines = run.lines()
    worst_lag = run.worst_lag()
    await run.stop()
    conn.send("stop")
    played = {n: [m.uci() for m in board_plan(n, phase)[0].mainline_moves()] for n in paths}
    moves_latency: list[float] = []
    http_latencies, lost = [], 0
    for n, ucis in played.items():
        common = kept(lines.get(n, []), ucis)
        lost += len(ucis) - common
        moves_latency += latencies(seen[n], ucis, done[n], common)
        for ply, at in enumerate(http_seen.get(n, [])):
            if ply < common and at is not None:
                http_latencies.append(at - done[n][ply])
    cpu = (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime)
    return {
        "mode": phase.mode,
        "boards": phase.boards,
        "speed": phase.speed,
        "followed": followed,
        "moves": sum(len(u) for u in played.values()),
        "lost": lost,
        "cpu_percent": 100 * cpu / elapsed,
        "rss_mb": peak_rss_mb(),
        "events_per_s": stored / elapsed,
        "p50": _percentile(moves_latency, 50),
        "p99": _percentile(moves_latency, 99),
        "http_p50": _percentile(http_latencies, 50),
        "http_p99": _percentile(http_latencies, 99),
        "http_n": len(http_latencies),
        "worst_lag": worst_lag,
        "cycle_p50": _percentile(cycles, 50),
        "cycle_p99": _percentile(cycles, 99),
        "seconds": elapsed,
    }


def kept(line: Sequence[str], ucis: Sequence[str]) -> int:
    """How many of the moves played (`ucis`) the recorded `line` has, from the first."""
    common = 0
    while common < min(len(line), len(ucis)) and line[common] == ucis[common]:
        common += 1
    return common


def latencies(
    seen: Sequence[tuple[str, float]], ucis: Sequence[str], done: Sequence[float], common: int
) -> list[float]:
    """For each kept move, from when it was complete on the board (`done`) to when it was
    first seen (`seen`: (uci, time) as they showed)."""
    out = []
    for ply, on_board in enumerate(done[:common]):
        shown = [t for u, t in seen if u == ucis[ply]]
        visible = min((t for t in shown if t >= on_board - 0.001), default=None)
        if visible is not None:
            out.append(visible - on_board)
    return out


def _percentile(values: Sequence[float], p: float) -> float | None:
    if not values:
        return None
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[min(98, max(0, int(p) - 1))]


class _ServiceRun:
    def __init__(
        self,
        phase: Phase,
        tmp: Path,
        paths: dict[int, str],
        seen: dict[int, list[tuple[str, float]]],
        http_seen: dict[int, list[float]],
    ) -> None:
        self.phase, self.tmp, self.paths, self.seen, self.http_seen = (
            phase,
            tmp,
            paths,
            seen,
            http_seen,
        )
        self.tasks: list[asyncio.Task[Any]] = []

    async def start(self) -> None:
        from broadcast.config import load_event
        from broadcast.games.game_events import GameMove
        from broadcast.journal.store import Journal
        from broadcast.service.event_service import EventService
        from clocks.timesource import EpochTime
        from web.app import start_web

        toml = self.tmp / "bench.toml"
        toml.write_text(event_toml(self.phase, self.paths), encoding="utf-8")
        config = load_event(toml)
        self.journal = Journal(self.tmp / "bench.sqlite")
        self.service = EventService(
            config,
            self.journal,
            time_source=EpochTime(self.phase.speed),
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
        self.port = free_port()
        self.runner = await start_web(
            self.service, host="127.0.0.1", port=self.port, credentials=("bench", "bench-pw")
        )
        self.tasks.append(asyncio.ensure_future(self.service.run()))
        sample = sorted(self.paths)[:: max(1, len(self.paths) // HTTP_SAMPLE)][:HTTP_SAMPLE]
        self.tasks.append(asyncio.ensure_future(self._poll_http(sample)))

    async def _poll_http(self, boards: list[int]) -> None:
        import aiohttp

        auth = {"Authorization": aiohttp.BasicAuth("bench", "bench-pw").encode()}
        async with aiohttp.ClientSession(headers=auth) as session:
            while True:
                for n in boards:
                    game = self.service.hall[n].game
                    url = f"http://127.0.0.1:{self.port}/api/v1/arbiter/games/{game}"
                    with contextlib.suppress(aiohttp.ClientError):
                        async with session.get(url) as response:
                            data = await response.json()
                        known = self.http_seen.setdefault(n, [])
                        now = time.monotonic()
                        while len(known) < len(data["moves"]):
                            known.append(now)
                await asyncio.sleep(HTTP_EVERY)

    def followed(self) -> bool:
        return all(b.connected and b.to_game is not None for b in self.service.hall.values())

    def events_stored(self) -> int:
        return self.service.events_stored

    def worst_lag(self) -> float:
        return self.service.lag.worst

    def drivers(self) -> list[Any]:
        return list(self.service.drivers)

    def lines(self) -> dict[int, list[str]]:
        return {
            n: [m.uci for m in self.service.book.get(game).moves]
            for game, n in self.game_board.items()
        }

    async def stop(self) -> None:
        self.service.stop()
        for task in self.tasks[1:]:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        await self.runner.cleanup()
        self.journal.close()


class _BareRun:
    def __init__(
        self, phase: Phase, paths: dict[int, str], seen: dict[int, list[tuple[str, float]]]
    ) -> None:
        self.phase, self.paths, self.seen = phase, paths, seen
        self.tasks: list[asyncio.Task[Any]] = []

    async def start(self) -> None:
        from boards.drivers.bus import BusDriver
        from boards.reconstruction import MovePlayed, Reconstructor
        from boards.reconstruction.follow import BoardFollower
        from clocks.timecontrol import parse_time_control
        from clocks.timesource import EpochTime

        self.time_source = EpochTime(self.phase.speed)
        tc = parse_time_control(TIME_CONTROL)
        self.followers = {
            n: BoardFollower(serial(n), Reconstructor(time_control=tc)) for n in self.paths
        }
        by_serial = {serial(n): n for n in self.paths}

        def note(n: int, out: Sequence[Any]) -> None:
            now = time.monotonic()
            for event in out:
                if isinstance(event, MovePlayed):
                    self.seen[n].append((event.uci, now))

        due: dict[int, float] = {}

        def refresh(n: int) -> None:
            deadline = self.followers[n].reconstructor.next_deadline()
            if deadline is None:
                due.pop(n, None)
            else:
                due[n] = deadline

        def emit(event: Any) -> None:
            n = by_serial.get(event.board)
            if n is not None:
                note(n, self.followers[n].handle(event))
                refresh(n)

        ports: dict[str, list[int]] = {}
        for n, path in self.paths.items():
            ports.setdefault(path, []).append(1000 + n)
        self._drivers = [
            BusDriver(
                port,
                emit,
                time_source=self.time_source,
                addresses=addresses,
                settings=bus_settings(),
            )
            for port, addresses in ports.items()
        ]
        self.tasks = [asyncio.ensure_future(d.run()) for d in self._drivers]

        async def ticks() -> None:
            # As the service does: a full tick every 0.2 s, and each board at its deadline.
            loop = asyncio.get_running_loop()
            next_full = loop.time() + 0.2
            while True:
                wait = next_full - loop.time()
                if due:
                    soonest = (min(due.values()) - self.time_source.now()) / self.phase.speed
                    wait = min(wait, max(soonest, 0.01))
                await asyncio.sleep(max(wait, 0.0))
                now = self.time_source.now()
                full = loop.time() >= next_full
                if full:
                    next_full = loop.time() + 0.2
                for n in list(self.followers) if full else [n for n, t in due.items() if t <= now]:
                    note(n, self.followers[n].tick(now))
                    refresh(n)
                    if not full and due.get(n, now + 1) <= now:
                        del due[n]

        self.tasks.append(asyncio.ensure_future(ticks()))
        self.note = note

    def followed(self) -> bool:
        return all(f.connected for f in self.followers.values())

    def events_stored(self) -> int:
        return 0

    def worst_lag(self) -> float:
        return float("nan")

    def drivers(self) -> list[Any]:
        return list(self._drivers)

    def lines(self) -> dict[int, list[str]]:
        return {n: list(f.line.ucis) for n, f in self.followers.items()}

    async def stop(self) -> None:
        for d in self._drivers:
            d.stop()
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)


# -- the report -------------------------------------------------------------------------------------


def in_fresh_process(script: str, *args: str) -> dict[str, Any]:
    """One measurement: `script` run again with `args` in a process of its own (its own
    CPU time and peak memory), which prints its figures as JSON on its last line."""
    out = subprocess.run(
        [sys.executable, script, *args], capture_output=True, text=True, check=False
    )
    if out.returncode != 0:
        raise SystemExit(f"bench run {' '.join(args)[:300]} failed:\n{out.stderr[-3000:]}")
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def ms(value: float | None, width: int = 5) -> str:
    """Seconds as whole milliseconds in `width` columns; "-" for none."""
    return f"{'-':>{width}s}" if value is None else f"{value * 1000:{width}.0f}"


def run_phase(phase: Phase) -> dict[str, Any]:
    """One measurement in a fresh process (its own CPU time and peak memory)."""
    return in_fresh_process(__file__, "--phase", json.dumps(phase.__dict__))


HEADER = (
    "boards pace mode     moves lost  cpu%   rss MB  events/s  p50 ms  p99 ms"
    "  http p50/p99 ms (n)  bus cycle p50/p99 ms  worst lag s"
)


def _ratio(service: dict[str, Any], bare: dict[str, Any], key: str) -> str:
    a, b = service[key], bare[key]
    return f"{a / b:.1f}x" if a and b else "-"


def report(rows: list[tuple[dict[str, Any], dict[str, Any]]]) -> None:
    for service, bare in rows:
        for r in (bare, service):
            http = (
                f"  {ms(r['http_p50'])}/{ms(r['http_p99'])} ({r['http_n']:3d})"
                if r["mode"] == "service"
                else " " * 21
            )
            lag = f"  {ms(r['cycle_p50'])}/{ms(r['cycle_p99'])}"
            lag += f"  {r['worst_lag']:6.2f}" if r["mode"] == "service" else ""
            print(
                f"{r['boards']:6d} {r['speed']:3g}x  {r['mode']:7s} {r['moves']:6d} {r['lost']:4d}"
                f" {r['cpu_percent']:5.0f} {r['rss_mb']:8.0f} {r['events_per_s']:9.0f}"
                f"  {ms(r['p50'])}   {ms(r['p99'])}{http}{lag}"
                + ("" if r["followed"] else "  (not every board was found in time)")
            )
        print(
            f"{'':12s} service/bare: cpu {_ratio(service, bare, 'cpu_percent')},"
            f" rss {_ratio(service, bare, 'rss_mb')}, p50 {_ratio(service, bare, 'p50')},"
            f" p99 {_ratio(service, bare, 'p99')}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="16,64,128,256", help="board counts, comma-separated")
    parser.add_argument("--paces", default="1,10", help="speeds, comma-separated (1: real pace)")
    parser.add_argument(
        "--seconds", type=float, default=15.0, help="real seconds of play per measurement"
    )
    parser.add_argument("--per-line", type=int, default=16, help="boards per bus line")
    parser.add_argument("--phase", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.phase:
        print(json.dumps(follow_phase(Phase(**json.loads(args.phase)))))
        return
    print(
        f"serve under load: boards on bus lines of {args.per_line} at 9600 baud, "
        f"{args.seconds:g} s of play per measurement, a move every {THINK[0]:g}-{THINK[1]:g} s"
        " per board at real pace; service = EventService + journal + web, bare = drivers"
        " + followers only (same run, each in its own process)",
        flush=True,
    )
    print(HEADER)
    rows = []
    for size in (int(s) for s in args.sizes.split(",")):
        for speed in (float(s) for s in args.paces.split(",")):
            phases = [
                Phase(mode, size, args.per_line, speed, args.seconds)
                for mode in ("bare", "service")
            ]
            bare, service = (run_phase(p) for p in phases)
            rows.append((service, bare))
            report([(service, bare)])
            sys.stdout.flush()


if __name__ == "__main__":
    main()
