"""Restart after kill -9: how long until `serve` answers again, against the journal's length.

A journal of a whole event is made first (9 rounds of 64 boards by default): the Sestao
2025 Swiss with 128 players on 64 DGT bus boards (four lines of 16), each round's games
played at the boards by emulated people (`boardsim.humans`: scans and clock readings as
a board and a DGT clock send them, one clock reading a second) and followed by a real
`EventService` in virtual time, the arbiter publishing each round's pairings and
confirming its results. Games last about 3.3 hours of event time (90 min + 30 s), so a
round journals about as many events as a real one (clock and position readings).

Made directly through the service, not over pseudo-terminals: the full simulation runs
at best a few times real speed, and 9 rounds would take days. The generator's SQLite
connection runs with synchronous=OFF (what is measured is the restart, not the
generator's disk), and takes a snapshot every `snapshot.EVERY_EVENTS` events as the
running service does (at a hall's 190 events/s that is about every 50 s; the generator
runs far faster than real time, so the real-time spacing is left out), compacting the
superseded clock readings of finished games behind each (`--no-compact`: all kept). The
generator then dies by SIGKILL, as a power cut or kill -9 would leave the file (its -wal
included).

Then, each in a fresh process, timed from the process's start to the first HTTP answer
of `/api/v1/event` (imports, journal, snapshot, the tail's replay, the boards' followers,
the web server): the restart on that journal, the same with snapshots off (a full
replay), and the reference, a restart on a new, empty journal. Printed: the times, the
ratios against the reference, the journal's size on disk after each round, and what the
snapshots cost (the capture on the event loop, the encoding and storing in the worker
thread, their size) and the compaction.

    python bench/bench_restart.py [--rounds 9] [--boards 64] [--keep DIR] [--no-compact]
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SESTAO = ROOT / "examples" / "sestao-2025-swiss.toml"
PGN = ROOT / "examples" / "games" / "worldcup2025-sample.pgn"
PER_LINE = 16
TICK = 1.0  # event seconds between the service's ticks in the generator
GAME_SECONDS = 12_000.0  # about 3.3 hours of play per game


def bench_config(boards: int, rounds: int) -> Any:
    from broadcast.config.loader import load_event
    from broadcast.config.model import BoardConfig, PlayerEntry

    event = load_event(SESTAO)
    section = event.sections[0]
    players = tuple(
        PlayerEntry(n, f"Player {n:03d}", 2600 - n, title="GM" if n < 20 else "")
        for n in range(1, 2 * boards + 1)
    )
    section = dataclasses.replace(
        section, players=players, rounds=rounds, schedule=section.schedule[:rounds]
    )
    hall = tuple(
        BoardConfig(n, f"/dev/bench-line-{(n - 1) // PER_LINE + 1}", 3000 + n, section.name)
        for n in range(1, boards + 1)
    )
    return dataclasses.replace(event, sections=(section,), boards=hall, source=None)


def _games() -> list[Any]:
    import chess.pgn

    out = []
    with PGN.open(encoding="utf-8") as f:
        while (game := chess.pgn.read_game(f)) is not None:
            if len(list(game.mainline_moves())) >= 20:
                out.append(game)
    return out


def _board_events(game: Any, serial: str, t0: float, seed: int) -> list[Any]:
    from boards.driver_events import ClockSeen, PositionSeen
    from boardsim.humans import Habits, perform
    from boardsim.readout import board_scans, clock_readings

    moves = list(game.mainline_moves())
    think = [
        GAME_SECONDS / len(moves) * random.Random(seed + i).uniform(0.3, 1.7)
        for i in range(len(moves))
    ]
    scale = GAME_SECONDS / sum(think)
    perf = perform(
        moves,
        habits=Habits.realistic(),
        seed=seed,
        think=[t * scale for t in think],
        initial_seconds=(5400 + 30 * 40, 5400 + 30 * 40),  # never a flag in these games
        result=game.headers.get("Result"),
    )
    out: list[Any] = [PositionSeen(t0 + t, serial, p) for t, p in board_scans(perf, seed=seed)]
    readings = clock_readings(perf, increment=30)
    out += [ClockSeen(t0 + t, serial, r) for t, r in readings]
    if readings:
        end = t0 + max(max(t for t, _ in readings), max(e.t - t0 for e in out)) + 2.0
        out.append(ClockSeen(end, serial, dataclasses.replace(readings[-1][1], running=False)))
    return out


def generate(path: Path, boards: int, rounds: int, sizes: Path, compact: bool = True) -> None:
    """Make the journal (run in a child process that is then killed)."""
    import heapq

    from boards.driver_events import BoardConnected, BoardInfo
    from broadcast.actions import ConfirmProposal, PublishPairings, SetResult, act
    from broadcast.fide.pairing import Pairing
    from broadcast.journal.store import Journal
    from broadcast.service.event_service import EventService
    from clocks.timesource import ManualTime

    config = bench_config(boards, rounds)
    section = config.sections[0]
    journal = Journal(path)
    journal._db.execute("PRAGMA synchronous=OFF")  # the generator's disk is not measured
    journal.set_meta("event", config.name)
    first = section.round_start(1).start.timestamp()
    clock = ManualTime(first - 7200)
    service = EventService(
        config, journal, time_source=clock, delay=float(config.broadcast_delay_seconds)
    )
    service.snapshots.min_seconds = 0.0  # every EVERY_EVENTS events, as at a hall's pace
    if not compact:
        service.snapshots.compactor = None
    service.load()
    games = _games()
    rng = random.Random(2025)
    with service.batch():
        for board in config.boards:
            serial = f"{board.address:05d}"
            info = BoardInfo(board.port, serial, (1, 7), "bus", board.address, None, 95, True)
            service.on_driver_event(board.port, BoardConnected(clock.now(), serial, info))
    for r in range(1, rounds + 1):
        start = section.round_start(r).start.timestamp()
        clock.set(max(clock.now(), start - 3600))
        numbers = list(range(1, 2 * boards + 1))
        rng.shuffle(numbers)
        pairings = tuple(
            Pairing(b, numbers[2 * b - 2], numbers[2 * b - 1]) for b in range(1, boards + 1)
        )
        act(service, PublishPairings(section.name, r, pairings, "arbiter"), "arbiter:bench")
        queue: list[tuple[float, int, str, Any]] = []
        n = 0
        for k, board in enumerate(config.boards):
            game = games[(r * 7 + k) % len(games)]
            serial = f"{board.address:05d}"
            for event in _board_events(game, serial, start + rng.uniform(5, 120), r * 1000 + k):
                heapq.heappush(queue, (event.t, n, board.port, event))
                n += 1
        next_tick = clock.now() + TICK
        while queue:
            with service.batch():  # about one second of the hall: one transaction
                while queue and queue[0][0] < next_tick:
                    t, _, port, event = heapq.heappop(queue)
                    clock.set(max(t, clock.now()))
                    service.on_driver_event(port, event)
                clock.set(next_tick)
                service.tick()
            next_tick += TICK
        for _ in range(60):
            clock.set(clock.now() + TICK)
            service.tick()
        for game in service.book.round_games(section.name, r):
            if game.result is not None:
                continue
            if game.proposal is not None:
                act(service, ConfirmProposal(game.id), "arbiter:bench")
            else:
                pgn = games[(r * 7 + game.key.board - 1) % len(games)].headers.get("Result", "*")
                if pgn in ("1-0", "0-1", "1/2-1/2"):
                    act(service, SetResult(game.id, pgn, "arbiter"), "arbiter:bench")
        with sizes.open("a") as f:
            size = sum(p.stat().st_size for p in path.parent.glob(path.name + "*"))
            f.write(f"{r} {service.last_seq} {size} {len(service.snapshots.taken)}\n")
        print(f"round {r}: {service.last_seq} events, {size / 1e6:.0f} MB", flush=True)
    capture = []
    for _ in range(5):
        started = time.perf_counter()
        service.rules.memory()
        capture.append(time.perf_counter() - started)
    with sizes.open("a") as f:
        for seq, seconds, size in service.snapshots.taken:
            f.write(f"snapshot {seq} {seconds:.4f} {size}\n")
        for seq, rows, seconds in service.snapshots.compacted:
            f.write(f"compacted {seq} {rows} {seconds:.4f}\n")
        f.write(f"capture {statistics.median(capture):.5f}\n")
    service.snapshots.close()  # its last one stored (as a running service would have)
    print("done", flush=True)
    time.sleep(3600)  # killed here


ALERT_EVERY = 10  # board events per alert in the troubled hall's journal


def alerts_journal(path: Path, events: int) -> None:
    """The journal of a troubled hall: the clocks of 64 boards report as usual, and every
    ALERT_EVERY board events one of them raises an alert nobody has acknowledged yet (a
    battery low): open alerts pile up with the journal, as in the attack run that made a
    restart quadratic."""
    from boards.driver_events import ClockSeen
    from broadcast.actions import PublishPairings, act
    from broadcast.arbiter.alerts import Alert
    from broadcast.fide.pairing import Pairing
    from broadcast.games.game_events import BoardAttached, GameClock
    from broadcast.journal.store import Journal
    from broadcast.service.event_service import EventService
    from clocks.reading import ClockReading
    from clocks.timesource import ManualTime

    config = bench_config(64, 9)
    section = config.sections[0]
    start = section.round_start(1).start.timestamp()
    journal = Journal(path)
    journal.set_meta("event", config.name)
    clock = ManualTime(start - 600)
    service = EventService(config, journal, time_source=clock, delay=0.0)
    service.load()
    pairings = tuple(Pairing(b, 2 * b - 1, 2 * b) for b in range(1, 65))
    act(service, PublishPairings(section.name, 1, pairings, "arbiter"), "arbiter:bench")
    games = [g.id for g in service.book.round_games(section.name, 1)]
    names = [f"{b.address:05d}" for b in config.boards]
    journal.append([BoardAttached(g, n, start) for g, n in zip(games, names, strict=True)], start)
    batch: list[Any] = []
    t = start
    for k in range(events // 2):
        b = k % 64
        t += 1 / 64
        left = 5400 - int(t - start)
        reading = ClockReading(left, 5400, True, False)
        batch += [ClockSeen(t, names[b], reading), GameClock(games[b], left, 5400, "white", t)]
        if k % ALERT_EVERY == 0:
            alert = f"battery-low:{names[b]}:{k}"
            batch.append(
                Alert(
                    alert,
                    "battery-low",
                    "warning",
                    section.name,
                    1,
                    b + 1,
                    games[b],
                    ("a", "b"),
                    "battery low",
                    t,
                    names[b],
                )
            )
        if len(batch) >= 2000:
            journal.append(batch, t)
            batch = []
    journal.append(batch, t)
    journal.close()


def replay_time(path: Path) -> float:
    """Seconds a full replay of `path` takes in this process (snapshots off)."""
    import inspect

    from broadcast.journal.store import Journal
    from broadcast.service.event_service import EventService
    from clocks.timesource import EpochTime

    journal = Journal(path)
    options = {}
    if "snapshots" in inspect.signature(EventService).parameters:
        options["snapshots"] = False
    service = EventService(
        bench_config(64, 9),
        journal,
        time_source=EpochTime(1.0, start=(journal.last_t() or 0.0) + 1.0),
        **options,  # type: ignore[arg-type]
    )
    started = time.perf_counter()
    service.load()
    seconds = time.perf_counter() - started
    journal.close()
    return seconds


def alerts_series(folder: Path, sizes: list[int]) -> None:
    print("full replay of a troubled hall's journal (one alert every", ALERT_EVERY, "events):")
    first: float | None = None
    for n in sizes:
        path = folder / f"alerts-{n}.sqlite"
        if not path.exists():
            alerts_journal(path, n)
        seconds = replay_time(path)
        per = seconds / n * 1e6
        first = first or per
        print(
            f"  {n:>7} events: {seconds:7.2f} s, {per:6.1f} us/event ({per / first:.2f}x the first)"
        )


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def serve(path: Path, boards: int, rounds: int, port: int, snapshots: bool) -> None:
    """A restarted `serve` (in a child process): journal, load, web, then the boards."""
    import asyncio

    from broadcast.journal.store import Journal
    from broadcast.service.event_service import EventService
    from clocks.timesource import EpochTime
    from web.app import start_web

    async def main() -> None:
        config = bench_config(boards, rounds)
        journal = Journal(path)
        last = journal.last_t() or 0.0
        service = EventService(
            config,
            journal,
            time_source=EpochTime(1.0, start=last + 1.0),
            snapshots=snapshots,
            opener=_no_board,
        )
        service.load()
        await start_web(service, host="127.0.0.1", port=port, credentials=None)
        print(f"replayed {service.replayed}", flush=True)
        await service.run()

    asyncio.run(main())


async def _no_board(port: str) -> Any:
    from boards.drivers.link import LinkError

    raise LinkError(f"{port}: no board here (benchmark)")


def restart(path: Path, boards: int, rounds: int, snapshots: bool = True) -> tuple[float, str]:
    """Seconds from a fresh process's start to its first HTTP answer."""
    port = _free_port()
    started = time.perf_counter()
    proc = subprocess.Popen(
        [
            sys.executable,
            __file__,
            "--serve",
            str(path),
            "--boards",
            str(boards),
            "--rounds",
            str(rounds),
            "--port",
            str(port),
            *([] if snapshots else ["--no-snapshots"]),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v1/event", timeout=5):
                    break
            except OSError:
                if proc.poll() is not None:
                    raise RuntimeError(f"the restarted service ended ({proc.returncode})") from None
                time.sleep(0.02)
        seconds = time.perf_counter() - started
        assert proc.stdout is not None
        line = proc.stdout.readline().strip()
        return seconds, line
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--boards", type=int, default=64)
    parser.add_argument("--keep", type=Path, help="keep (and reuse) the journal in this folder")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--full-replay", action="store_true", help="also time a full replay")
    parser.add_argument(
        "--no-compact", action="store_true", help="keep every clock reading (no compaction)"
    )
    parser.add_argument(
        "--alerts",
        help="only the troubled hall's full replays, of these sizes (e.g. 10000,20000,40000)",
    )
    parser.add_argument("--serve", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--generate", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--no-snapshots", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve is not None:
        serve(args.serve, args.boards, args.rounds, args.port, not args.no_snapshots)
        return
    if args.generate is not None:
        generate(
            args.generate,
            args.boards,
            args.rounds,
            args.generate.with_suffix(".sizes"),
            compact=not args.no_compact,
        )
        return
    folder = args.keep or Path(tempfile.mkdtemp(prefix="bench-restart-"))
    folder.mkdir(parents=True, exist_ok=True)
    if args.alerts:
        alerts_series(folder, [int(n) for n in args.alerts.split(",")])
        return
    path = folder / f"event-{args.rounds}x{args.boards}{'-full' if args.no_compact else ''}.sqlite"
    sizes = path.with_suffix(".sizes")
    if not path.exists():
        sizes.unlink(missing_ok=True)
        print(f"making the journal of {args.rounds} rounds x {args.boards} boards in {path} ...")
        started = time.perf_counter()
        proc = subprocess.Popen(
            [
                sys.executable,
                __file__,
                "--generate",
                str(path),
                "--boards",
                str(args.boards),
                "--rounds",
                str(args.rounds),
                *(["--no-compact"] if args.no_compact else []),
            ],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert proc.stdout is not None
        for line in proc.stdout:
            print("  " + line.rstrip(), flush=True)
            if line.strip() == "done":
                break
        proc.send_signal(signal.SIGKILL)  # kill -9, with the -wal as it is
        proc.wait()
        print(f"  made in {time.perf_counter() - started:.0f} s")
    empty = folder / "empty.sqlite"
    for p in folder.glob("empty.sqlite*"):
        p.unlink()
    rows = [line.split() for line in sizes.read_text().splitlines()]
    print()
    print("journal on disk after each round (events, MB, snapshots taken so far):")
    previous = 0
    for row in rows:
        if row[0].isdigit():
            r, seq, size, taken = (int(x) for x in row)
            print(
                f"  round {r}: {seq:>9} events  {size / 1e6:8.1f} MB  (+{(size - previous) / 1e6:.1f} MB)  {taken}"
            )
            previous = size
    snaps = [row for row in rows if row[0] == "snapshot"]
    if snaps:
        seconds = [float(s[2]) for s in snaps]
        kb = [int(s[3]) / 1e3 for s in snaps]
        print(
            f"snapshots: {len(snaps)} taken, worker thread {statistics.median(seconds):.2f} s "
            f"median / {max(seconds):.2f} s max, {statistics.median(kb):.0f} kB median / "
            f"{max(kb):.0f} kB max"
        )
    compacted = [row for row in rows if row[0] == "compacted"]
    if compacted:
        rows_gone = sum(int(c[2]) for c in compacted)
        busy = [float(c[3]) for c in compacted]
        print(
            f"compaction: {rows_gone} superseded clock readings deleted behind the snapshots, "
            f"{statistics.median(busy):.2f} s median / {max(busy):.2f} s max of the worker thread"
        )
    capture = [row for row in rows if row[0] == "capture"]
    if capture:
        print(
            f"  capture on the event loop (the rules' memory): {float(capture[0][1]) * 1e3:.1f} ms"
        )
    total = max((int(row[1]) for row in rows if row[0].isdigit()), default=0)
    print()
    reference = [restart(empty, args.boards, args.rounds)[0] for _ in range(args.repeat)]
    ref = statistics.median(reference)
    print(f"restart on an empty journal (reference): {ref:.2f} s (median of {args.repeat})")
    timed = [restart(path, args.boards, args.rounds) for _ in range(args.repeat)]
    best = statistics.median(t for t, _ in timed)
    print(
        f"restart after kill -9 on {total} events: {best:.2f} s (median of {args.repeat}; "
        f"{timed[0][1]} after the snapshot), {best / ref:.2f}x the reference"
    )
    if args.full_replay:
        full, line = restart(path, args.boards, args.rounds, snapshots=False)
        print(f"the same with snapshots off (full replay, {line}): {full:.1f} s, {full / ref:.1f}x")
    if args.keep is None:
        for p in folder.iterdir():
            p.unlink()
        folder.rmdir()


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT / "hardware-sim"))
    main()
