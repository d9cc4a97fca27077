"""The central serve's capacity for capture stations: board events a second it applies,
with nothing else on the machine.

`bench_stations.py` runs everything a venue has on one 2-core machine (the emulated
boards, the stations, Redis, the central serve), so past a few hundred boards it measures
the machine. This bench measures the central side alone. The events of B boards playing
real games (each board connects, shows the start, then for each ply the piece lifted,
the piece set down and a clock reading) are made up front, numbered as N stations'
outboxes number them, and applied two ways, each in a fresh process, in the same run:

- direct (the reference): handed to the committer as the serve's own drivers hand
  theirs (`queue_driver_event`, with the station's mark, 500 a loop turn);
- intake: written to the stations' Redis streams first (a redis-server the bench starts),
  then read by the central `Intake` as `serve --stations` runs it (consumer group,
  acknowledged once durable).

Each with the service's journal, rules, reconstruction and tick loop running. Printed:
events a second (from the start until every station's last event is journaled), the
intake's rate over the direct one, the process's CPU; and what that rate means in boards
at real pace (a board sends about 1.4 events a second there: bench_stations' figure).

    python bench/bench_intake.py                          # 256 boards, 4 stations (make bench)
    python bench/bench_intake.py --boards 1000 --stations 8 --plies 40 --repeat 2
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import chess

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "bench"), str(ROOT)]

from bench_serve import Phase, sample_games, serial  # noqa: E402

PER_LINE = 16
EVENTS_PER_BOARD_SECOND = 1.4  # at real pace (bench_stations: 1,000 boards, ~1,400 a second)
CHUNK = 500


def station_of(board: int, stations: int) -> str:
    return f"s{(board - 1) // PER_LINE % stations + 1}"


def port_of(board: int) -> str:
    return f"/dev/line{(board - 1) // PER_LINE + 1}"


def config_text(boards: int, stations: int) -> str:
    from bench_serve import event_toml

    text = event_toml(
        Phase("service", boards, PER_LINE, 1.0, 10.0), {n: port_of(n) for n in range(1, boards + 1)}
    )
    out = []
    for block in text.split("[[board]]\n"):
        if block.startswith("number = "):
            number = int(block.split("\n", 1)[0].removeprefix("number = "))
            block = block.replace(
                "section =", f'station = "{station_of(number, stations)}"\nsection =', 1
            )
        out.append(block)
    return "[[board]]\n".join(out)


def board_events(board: int, plies: int, t0: float) -> list[Any]:
    from boards.driver_events import BoardConnected, BoardInfo, ClockSeen, PositionSeen
    from boards.position import BoardPosition
    from clocks.reading import ClockReading

    name = serial(board)
    info = BoardInfo(port_of(board), name, (1, 7), "bus", bus_address=1000 + board)
    game = sample_games()[(board - 1) % len(sample_games())]
    position = chess.Board()
    out: list[Any] = [
        BoardConnected(t0, name, info),
        PositionSeen(t0 + 1, name, BoardPosition.from_board(position)),
    ]
    left = right = 900
    t = t0 + 2
    for ply, move in enumerate(list(game.mainline_moves())[:plies]):
        lifted = position.copy()
        lifted.remove_piece_at(move.from_square)
        out.append(PositionSeen(t, name, BoardPosition.from_board(lifted)))
        position.push(move)
        out.append(PositionSeen(t + 0.4, name, BoardPosition.from_board(position)))
        if ply % 2 == 0:
            left -= 4
        else:
            right -= 4
        reading = ClockReading(left, right, True, ply % 2 == 0)
        out.append(ClockSeen(t + 0.6, name, reading))
        t += 5.0
    return out


def station_events(boards: int, stations: int, plies: int, t0: float) -> dict[str, list[Any]]:
    """Each station's events in the order its drivers would read them: its boards
    interleaved by time."""
    from broadcast.stations.wire import StationEvent

    by_station: dict[str, list[tuple[float, int, Any]]] = {}
    for n in range(1, boards + 1):
        for e in board_events(n, plies, t0):
            by_station.setdefault(station_of(n, stations), []).append((e.t, n, e))
    out: dict[str, list[Any]] = {}
    for name, rows in by_station.items():
        rows.sort(key=lambda r: (r[0], r[1]))
        out[name] = [
            StationEvent(name, "bench1", k, port_of(n), e) for k, (_, n, e) in enumerate(rows, 1)
        ]
    return out


async def _measure(mode: str, boards: int, stations: int, plies: int) -> dict[str, Any]:
    from broadcast.config import load_event_text
    from broadcast.journal.kinds import register_all
    from broadcast.journal.station_progress import StationMark
    from broadcast.journal.store import Journal
    from broadcast.service.event_service import EventService
    from broadcast.stations.intake import Intake, station_ports
    from broadcast.stations.wire import StationKeys, encode_entry, qualified_port, qualify
    from clocks.timesource import EpochTime
    from tests.support.redis_server import RedisProcess

    register_all()
    with tempfile.TemporaryDirectory(prefix="bench-intake-") as tmp:
        folder = Path(tmp)
        config = load_event_text(config_text(boards, stations), folder / "bench.toml")
        clock = EpochTime()
        events = station_events(boards, stations, plies, clock.now() - 3600)
        total = sum(len(v) for v in events.values())
        last = {name: evs[-1].seq for name, evs in events.items()}
        journal = Journal(folder / "bench.sqlite")
        service = EventService(
            config, journal, time_source=clock, port_overrides=station_ports(config),
            live_round=1, delay=0,
        )  # fmt: skip
        service.load()
        redis = None
        if mode == "intake":
            (folder / "redis").mkdir()
            redis = RedisProcess(folder / "redis", persist=False)
            redis.start()
            from redis import asyncio as aioredis

            client = aioredis.Redis.from_url(redis.url)
            keys = StationKeys.of(config.name)
            for name, evs in events.items():
                for k in range(0, len(evs), 2000):
                    async with client.pipeline(transaction=False) as pipe:
                        for e in evs[k : k + 2000]:
                            pipe.xadd(keys.stream(name), encode_entry(e))  # type: ignore[arg-type]
                        await pipe.execute()
            await client.aclose()
        running = asyncio.ensure_future(service.run())
        cpu0 = resource.getrusage(resource.RUSAGE_SELF)
        t0 = time.monotonic()
        feeder: asyncio.Future[Any] | None = None
        if mode == "intake":
            from broadcast.publish.redis_link import RedisTarget, redis_problem

            assert redis is not None
            intake = Intake(service, RedisTarget(redis.url, None), problem=redis_problem)
            feeder = asyncio.ensure_future(intake.run())
        else:

            async def feed() -> None:
                rows = [e for evs in events.values() for e in evs]
                rows.sort(key=lambda e: e.event.t)
                for k in range(0, len(rows), CHUNK):
                    for e in rows[k : k + CHUNK]:
                        service.committer.queue_driver_event(
                            qualified_port(e.station, e.port),
                            qualify(e.event, e.station, e.port),
                            StationMark(e.station, e.incarnation, e.seq),
                        )
                    await asyncio.sleep(0)

            feeder = asyncio.ensure_future(feed())
        deadline = t0 + 600
        while time.monotonic() < deadline:
            if all(service.state.stations.get(s) == ("bench1", n) for s, n in last.items()):
                break
            await asyncio.sleep(0.02)
        elapsed = time.monotonic() - t0
        cpu1 = resource.getrusage(resource.RUSAGE_SELF)
        done = all(service.state.stations.get(s) == ("bench1", n) for s, n in last.items())
        moves = sum(len(g.moves) for g in service.book.games.values())
        feeder.cancel()
        await asyncio.gather(feeder, return_exceptions=True)
        service.stop()
        await running
        journal.close()
        if redis is not None:
            redis.stop()
    cpu = (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime)
    return {
        "mode": mode,
        "events": total,
        "seconds": elapsed,
        "per_second": total / elapsed,
        "cpu_percent": 100 * cpu / elapsed,
        "moves": moves,
        "done": done,
    }


def run(mode: str, boards: int, stations: int, plies: int) -> dict[str, Any]:
    spec = json.dumps([mode, boards, stations, plies])
    out = subprocess.run(
        [sys.executable, __file__, "--one", spec], capture_output=True, text=True, check=False
    )
    if out.returncode != 0:
        raise SystemExit(f"bench run {spec} failed:\n{out.stderr[-3000:]}")
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--boards", type=int, default=256)
    parser.add_argument("--stations", type=int, default=4)
    parser.add_argument("--plies", type=int, default=30, help="plies each board plays")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        mode, boards, stations, plies = json.loads(args.one)
        print(json.dumps(asyncio.run(_measure(mode, boards, stations, plies))))
        return
    print(
        f"central intake: {args.boards} boards on {args.stations} stations, {args.plies} plies "
        "each, events made up front; direct = handed to the committer, intake = through Redis",
        flush=True,
    )
    print("mode     events  seconds  events/s  cpu%   moves  complete")
    ratios, rates = [], []
    for _ in range(args.repeat):
        pair = {}
        for mode in ("direct", "intake"):
            r = run(mode, args.boards, args.stations, args.plies)
            pair[mode] = r
            print(
                f"{mode:7s} {r['events']:7d} {r['seconds']:8.1f} {r['per_second']:9.0f}"
                f" {r['cpu_percent']:5.0f} {r['moves']:7d}  {r['done']}",
                flush=True,
            )
        ratios.append(pair["intake"]["per_second"] / pair["direct"]["per_second"])
        rates.append(pair["intake"]["per_second"])
    med = statistics.median(rates)
    print(
        f"intake/direct: {statistics.median(ratios):.2f} [{min(ratios):.2f}-{max(ratios):.2f}];"
        f" the intake's rate is about {med / EVENTS_PER_BOARD_SECOND:,.0f} boards at real pace"
    )


if __name__ == "__main__":
    main()
