"""The event PGN of a 2,000-player Swiss (9 rounds, 9,000 games): rebuilt for every
request (the old route) against kept and shared (web.answers), and the event loop's
longest stall while six requests arrive at once.

For each way, in this process, on loopback, with a probe sleeping 5 ms on the same loop
(its worst late wake-up is the stall everything else on the loop, the boards included,
would have seen):

- rebuilt: the old handler, `event_pgn(...)` inside the request, six requests at once;
- answers, cold: the app's route, nothing kept yet (every game written, in slices);
- answers, warm: the same six again (nothing changed: the kept answer);
- answers, one move: one game moved (only it is written again), six at once.

Between the answers rows the bench waits until the web's share of the loop has been
earned back (a cold build of 9,000 games uses most of a second of loop time, in slices:
the spectators' next requests wait about twice that, the boards do not); the wait is
printed.

Figures only; ratios against the rebuilt way of the same run.

    python bench/bench_event_pgn.py [--players 2000] [--rounds 9] [--plies 4]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import chess
from aiohttp import ClientSession, web

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the tests.support helpers

from broadcast.export.pgn import event_pgn  # noqa: E402
from broadcast.games.game_events import GameMove  # noqa: E402
from broadcast.service.event_service import EventService  # noqa: E402
from broadcast.service.event_state import PublicState  # noqa: E402
from tests.support.big_event import T0, big_service  # noqa: E402
from web.app import BUDGET, build_app  # noqa: E402
from web.http_server import tune_gc  # noqa: E402

CONCURRENT = 6


async def _probe(gaps: list[float], stop: asyncio.Event) -> None:
    loop = asyncio.get_running_loop()
    while not stop.is_set():
        asked = loop.time()
        await asyncio.sleep(0.005)
        gaps.append(loop.time() - asked - 0.005)


async def _measure(url: str) -> tuple[float, float, int]:
    """Six GETs at once: (seconds until all answered, worst loop stall, bytes)."""
    gaps: list[float] = []
    stop = asyncio.Event()
    probe = asyncio.ensure_future(_probe(gaps, stop))
    await asyncio.sleep(0.02)
    async with ClientSession() as session:

        async def one() -> int:
            async with session.get(url) as response:
                return len(await response.read())

        start = time.perf_counter()
        sizes = await asyncio.gather(*(one() for _ in range(CONCURRENT)))
        elapsed = time.perf_counter() - start
    stop.set()
    await probe
    return elapsed, max(gaps, default=0.0), sizes[0]


async def _serve(app: web.Application) -> tuple[web.AppRunner, str]:
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    return runner, f"http://127.0.0.1:{port}/api/v1/event.pgn"


def _old_app(service: EventService) -> web.Application:
    async def old_route(request: web.Request) -> web.Response:
        public = service.public_state()
        live = service.live_rounds()  # the same games the new route serves
        text = event_pgn(public.book, service.config, pairings=public.tournament, live=live)
        return web.Response(text=text, content_type="application/x-chess-pgn", charset="utf-8")

    app = web.Application()
    app.router.add_get("/api/v1/event.pgn", old_route)
    return app


def _one_move(service: EventService, state: PublicState) -> PublicState:
    """The public state after one more move in one game."""
    game_id = next(iter(state.book.games))
    game = state.book.games[game_id]
    board = chess.Board(game.fen)
    move = next(iter(board.legal_moves))
    san = board.san(move)
    board.push(move)
    event = GameMove(game_id, game.ply + 1, san, move.uci(), board.fen(), T0 + 9999, 5000.0, 5.0)
    book = state.book.apply(event)
    new = PublicState(state.tournament, book, state.seq + 1)
    service.public.record(service.time_source.now(), new)
    return new


async def main(players: int, rounds: int, plies: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        service, state = big_service(Path(tmp), players, rounds, plies)
        made = time.perf_counter() - start
        tune_gc()  # as `serve` does once the event is loaded
        print(
            f"event PGN: {players} players, {rounds} rounds, {len(state.book.games)} games of "
            f"{plies} plies (made in {made:.0f} s); {CONCURRENT} requests at once, loopback"
        )
        rows: list[tuple[str, float, float, int]] = []

        async def run(
            name: str, app: web.Application, steps: list[Callable[[], Awaitable[None]] | None]
        ) -> None:
            runner, url = await _serve(app)
            budget = app.get(BUDGET)
            try:
                for label, step in zip(
                    [name] if len(steps) == 1 else ["cold", "warm", "one move"], steps, strict=True
                ):
                    if step is not None:
                        await step()
                    elapsed, stall, size = await _measure(url)
                    if budget is not None and budget.recovered_in() > 0:
                        wait = budget.recovered_in()
                        print(f"  (the web's share earned back in {wait:.2f} s after: {label})")
                        await asyncio.sleep(wait + 0.05)
                    rows.append(
                        (f"{name}, {label}" if len(steps) > 1 else name, elapsed, stall, size)
                    )
            finally:
                await runner.cleanup()

        await run("rebuilt (old route)", _old_app(service), [None])

        async def moved() -> None:
            _one_move(service, state)

        await run("answers", build_app(service, None), [None, None, moved])
        base = rows[0]
        print(f"{'':28s} {'all six answered':>17s} {'worst loop stall':>17s}   size")
        for name, elapsed, stall, size in rows:
            print(
                f"  {name:26s} {elapsed * 1000:12.0f} ms {stall * 1000:12.1f} ms"
                f"   {size / 1e6:.1f} MB   stall ratio {stall / base[2] if base[2] else 0:.3f},"
                f" time ratio {elapsed / base[1]:.3f}"
            )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--plies", type=int, default=4)
    args = parser.parse_args()
    asyncio.run(main(args.players, args.rounds, args.plies))
