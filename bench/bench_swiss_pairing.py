"""Pairing a big Swiss (FIDE Dutch) through the arbiter API while the event loop must go
on serving: in the pairing worker process (now) against in a thread (before).

A 2,000-player Swiss: round 1 is paired through the API (request to published pairings),
results are entered at random, then round 2 is paired, once the old way (the engine in a
thread of the server's process, `asyncio.to_thread(service.dutch_pairings, ...)`) and
once through the API (the engine in `python -m web.pairing_job`). Meanwhile, on the same
loop, a probe sleeps 10 ms over and over: its worst and 99th-percentile late wake-ups are
what every other task (the boards' drivers, the journal, the hub) would have waited, and
its count of wake-ups a second is how much of the loop was left for them.

Round 2 of 2,000 players is slow in the engine (minutes); `--round2-players` pairs round
2 on a smaller Swiss (default 400) unless given 2000. Figures only.

    python bench/bench_swiss_pairing.py [--players 2000] [--round2-players 400]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from base64 import b64encode
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from aiohttp import ClientSession, web

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from big_event import T0, swiss_config  # noqa: E402

from broadcast.journal.store import Journal  # noqa: E402
from broadcast.service.event_service import EventService  # noqa: E402
from broadcast.tournament.events import ResultRecorded  # noqa: E402
from clocks.timesource import ManualTime  # noqa: E402
from web.app import build_app  # noqa: E402

CREDENTIALS = ("bench", "bench-password")
BASIC = {"Authorization": "Basic " + b64encode(":".join(CREDENTIALS).encode()).decode()}


async def _watched(work: Callable[[], Awaitable[Any]]) -> tuple[float, float, float, float]:
    """(seconds, worst late wake-up, p99 late wake-up, wake-ups a second) while `work` runs."""
    loop = asyncio.get_running_loop()
    lags: list[float] = []
    done = asyncio.Event()

    async def probe() -> None:
        while not done.is_set():
            asked = loop.time()
            await asyncio.sleep(0.01)
            lags.append(loop.time() - asked - 0.01)

    watcher = asyncio.ensure_future(probe())
    start = time.perf_counter()
    try:
        await work()
    finally:
        elapsed = time.perf_counter() - start
        done.set()
        await watcher
    p99 = (
        statistics.quantiles(lags, n=100, method="inclusive")[98]
        if len(lags) > 2
        else max(lags, default=0.0)
    )
    return elapsed, max(lags, default=0.0), p99, len(lags) / elapsed


def _results(service: EventService, section: str, number: int, seed: int = 3) -> None:
    rng = random.Random(seed)
    pairings = service.tournament.section(section).rounds[number].pairings
    service.commit(
        [
            ResultRecorded(section, number, p.white, rng.choice(["1-0", "0-1", "1/2-1/2"]))
            for p in pairings
            if p.black is not None
        ]
    )


async def _serve(service: EventService) -> tuple[web.AppRunner, str]:
    runner = web.AppRunner(build_app(service, CREDENTIALS))
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    return runner, f"http://127.0.0.1:{runner.addresses[0][1]}"


async def _pair_via_api(url: str, number: int) -> None:
    async with ClientSession(headers=BASIC) as session:
        path = f"{url}/api/v1/arbiter/sections/open/rounds/{number}/pairings"
        async with session.post(path, json={"engine": "dutch"}) as response:
            body = await response.text()
            if response.status != 200:
                raise SystemExit(f"pairing round {number}: {response.status} {body[:300]}")


def _line(name: str, figures: tuple[float, float, float, float]) -> str:
    seconds, worst, p99, rate = figures
    return (
        f"  {name:44s} {seconds:8.1f} s  worst {worst * 1000:7.0f} ms  p99 {p99 * 1000:6.0f} ms"
        f"  {rate:5.0f} wake-ups/s"
    )


async def main(players: int, round2_players: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        print("FIDE Dutch through the arbiter API; a probe sleeping 10 ms on the same loop")
        service = EventService(
            swiss_config(players), Journal(Path(tmp) / "r1.sqlite"), time=ManualTime(T0), delay=0
        )
        service.load()
        runner, url = await _serve(service)
        try:
            idle = await _watched(lambda: asyncio.sleep(2))
            print(_line("idle loop (reference)", idle))
            r1 = await _watched(lambda: _pair_via_api(url, 1))
            print(_line(f"{players} players, round 1, API (worker process)", r1))
        finally:
            await runner.cleanup()

        service = EventService(
            swiss_config(round2_players),
            Journal(Path(tmp) / "r2.sqlite"),
            time=ManualTime(T0),
            delay=0,
        )
        service.load()
        runner, url = await _serve(service)
        try:
            await _pair_via_api(url, 1)
            _results(service, "Open", 1)
            thread = await _watched(lambda: asyncio.to_thread(service.dutch_pairings, "Open", 2))
            print(_line(f"{round2_players} players, round 2, in a thread (old)", thread))
            worker = await _watched(lambda: _pair_via_api(url, 2))
            print(_line(f"{round2_players} players, round 2, API (worker process)", worker))
            print(
                f"  worst stall thread/worker: {thread[1] / max(worker[1], 1e-6):.1f}x; "
                f"loop left for others: worker {worker[3] / idle[3]:.2f} of idle, "
                f"thread {thread[3] / idle[3]:.2f} of idle"
            )
        finally:
            await runner.cleanup()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=2000)
    parser.add_argument("--round2-players", type=int, default=400)
    args = parser.parse_args()
    asyncio.run(main(args.players, args.round2_players))
