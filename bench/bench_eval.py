"""Engine evaluation (`--eval`): Stockfish's pace, and what it costs the venue at 64 boards.

1. Positions per second at the default depth (16) and at a lighter one (12): real
   positions (the sample games' middlegames, one Stockfish, one thread, niced as
   `--eval` runs it).
2. The venue with and without `--eval`: the service (journal, rules, public view), the
   web app and its hub with 20 spectators on websockets, fed a synthetic round of 64
   games (the 128-player Sestao Swiss, round 1 paired by FIDE Dutch) in which every board
   moves every 4-8 s, a busy rapid pace (about 10 moves a second in the hall). Each phase
   runs `PHASE_SECONDS` in its own process; printed: that process's CPU time (the
   engine's own process apart), the event loop's lag (how late a 20 ms timer fires: what
   a board's bytes would wait), the moves committed, and the positions the engine
   evaluated. The ratio of the venue's CPU with and without `--eval` is the figure to
   read; absolute numbers depend on the machine and its load (printed with `uptime`).

    python bench/bench_eval.py [--seconds 30]

Printed figures, never a test: the machine is shared.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing as mp
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import chess
import chess.pgn

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the tests.support helpers

SAMPLE = ROOT / "examples" / "games" / "worldcup2025-sample.pgn"
PHASE_SECONDS = 30.0
BOARDS = 64
THINK = (4.0, 8.0)  # wall seconds between one board's moves
SPECTATORS = 20
POSITIONS = 24  # positions timed for positions per second (each depth)


def _sample_games() -> list[chess.pgn.Game]:
    games = []
    with SAMPLE.open(encoding="utf-8") as f:
        while (g := chess.pgn.read_game(f)) is not None:
            games.append(g)
    return games


def _positions(count: int) -> list[str]:
    """Middlegame positions of the sample games (plies 16 to 60), distinct."""
    out: list[str] = []
    for game in _sample_games():
        board = game.board()
        for ply, move in enumerate(game.mainline_moves(), 1):
            board.push(move)
            if 16 <= ply <= 60 and ply % 5 == 0:
                out.append(board.fen())
    random.Random(7).shuffle(out)
    return out[:count]


async def _pace(depth: int, fens: list[str]) -> tuple[float, float]:
    from broadcast.analysis.engine import Engine, EngineSettings, find_engine

    command = find_engine()
    assert command is not None, "Stockfish is missing: apt-get install stockfish"
    engine = Engine(EngineSettings(command, depth=depth))
    await engine.start()
    try:
        await engine.evaluate(chess.STARTING_FEN)  # warmed up: the first search loads tables
        times = []
        for fen in fens:
            start = time.perf_counter()
            await engine.evaluate(fen)
            times.append(time.perf_counter() - start)
    finally:
        await engine.close()
    return len(times) / sum(times), statistics.median(times)


# -- the venue at 64 boards --------------------------------------------------------------------


def _lines(games: int, plies: int, seed: int) -> list[list[chess.Move]]:
    """One line a board: a sample game's opening, then seeded legal moves (each board its
    own positions, as in a real round: no two boards share the engine's cache)."""
    samples = _sample_games()
    rng = random.Random(seed)
    out = []
    for b in range(games):
        board = samples[b % len(samples)].board()
        main = list(samples[b % len(samples)].mainline_moves())
        book = 4 + b // len(samples) * 2
        line: list[chess.Move] = []
        for ply in range(plies):
            moves = list(board.legal_moves)
            if not moves:
                break
            move = main[ply] if ply < min(book, len(main)) else rng.choice(moves)
            board.push(move)
            line.append(move)
        out.append(line)
    return out


def _engine_cpu(pid: int | None) -> float:
    if pid is None:
        return 0.0
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def _venue(evaluate: bool, seconds: float) -> dict[str, Any]:
    from aiohttp import ClientSession

    from broadcast.actions.pairings import pair_unpaired
    from broadcast.analysis.engine import EngineSettings, find_engine
    from broadcast.analysis.evaluator import Evaluator
    from broadcast.games.game_events import GameClock, GameMove
    from broadcast.journal.store import Journal
    from broadcast.service.event_service import EventService
    from clocks.timesource import EpochTime
    from tests.support.big_event import swiss_config
    from tests.support.web_app import free_port
    from web.app import start_web

    with tempfile.TemporaryDirectory() as tmp:
        clock = EpochTime(1.0)
        service = EventService(
            swiss_config(2 * BOARDS),
            Journal(Path(tmp) / "bench.sqlite"),
            time_source=clock,
            live_round=1,
            delay=0.0,
        )
        service.load()
        pair_unpaired(service, "bench")
        games = sorted(g.id for g in service.book.games.values() if g.key.round == 1)
        assert len(games) == BOARDS, len(games)
        evals = None
        if evaluate:
            command = find_engine()
            assert command is not None, "Stockfish is missing: apt-get install stockfish"
            evals = Evaluator(service.public_state, EngineSettings(command))
        port = free_port()
        runner = await start_web(
            service, host="127.0.0.1", port=port, credentials=None, evals=evals
        )
        task = service.supervisor.start("the engine evaluation", evals.run) if evals else None
        session = ClientSession()
        sockets = []
        for i in range(SPECTATORS):
            ws = await session.ws_connect(f"http://127.0.0.1:{port}/ws")
            scope = (
                {"scope": "event"} if i % 2 else {"scope": "round", "section": "Open", "round": 1}
            )
            await ws.send_json({"type": "subscribe", **scope})
            sockets.append(ws)
        received = [0]

        kinds: dict[str, int] = {}

        async def read(ws: Any) -> None:
            async for msg in ws:
                received[0] += 1
                kind = msg.data.split('"type":"', 1)[-1].split('"', 1)[0]
                kinds[kind] = kinds.get(kind, 0) + 1

        readers = [asyncio.ensure_future(read(ws)) for ws in sockets]
        lines = _lines(BOARDS, 400, seed=11)
        boards = [chess.Board() for _ in games]
        clocks = [[5400.0, 5400.0] for _ in games]
        rng = random.Random(3)
        loop = asyncio.get_running_loop()
        due = [loop.time() + rng.uniform(0, THINK[1]) for _ in games]
        lags: list[float] = []
        moves = 0
        await asyncio.sleep(1.0)  # settled: spectators subscribed, engine started
        cpu0 = time.process_time()
        engine_cpu0 = _engine_cpu(evals.engine.pid if evals and evals.engine else None)
        end = loop.time() + seconds
        while loop.time() < end:
            asked = loop.time()
            await asyncio.sleep(0.02)
            lags.append(loop.time() - asked - 0.02)
            now = loop.time()
            for i, gid in enumerate(games):
                if now < due[i] or len(boards[i].move_stack) >= len(lines[i]):
                    continue
                board = boards[i]
                move = lines[i][len(board.move_stack)]
                san = board.san(move)
                side = 0 if board.turn == chess.WHITE else 1
                think = rng.uniform(*THINK)
                clocks[i][side] = clocks[i][side] - think + 10
                board.push(move)
                ply = len(board.move_stack)
                with service.batch():
                    service.commit(
                        [
                            GameMove(
                                gid,
                                ply,
                                san,
                                move.uci(),
                                board.fen(),
                                clock.now(),
                                clocks[i][side],
                                think,
                            ),
                            GameClock(
                                gid,
                                round(clocks[i][0]),
                                round(clocks[i][1]),
                                "black" if side == 0 else "white",
                                clock.now(),
                            ),
                        ]
                    )
                moves += 1
                due[i] = now + think
        cpu = time.process_time() - cpu0
        engine_pid = evals.engine.pid if evals and evals.engine else None
        engine_cpu = _engine_cpu(engine_pid) - engine_cpu0
        evaluated = evals.evaluated if evals else 0
        longest = evals.queue.longest if evals else 0
        for r in readers:
            r.cancel()
        for ws in sockets:
            await ws.close()
        await session.close()
        if task is not None:
            await task.stop()
        await runner.cleanup()
        service.journal.close()
        lags.sort()
        return {
            "cpu": cpu,
            "seconds": seconds,
            "engine_cpu": engine_cpu,
            "lag_p99": lags[int(len(lags) * 0.99)] * 1000,
            "lag_max": lags[-1] * 1000,
            "moves": moves,
            "evaluated": evaluated,
            "queue_longest": longest,
            "messages": received[0],
            "kinds": kinds,
            "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        }


def _phase(evaluate: bool, seconds: float, conn: Any) -> None:
    conn.send(asyncio.run(_venue(evaluate, seconds)))
    conn.close()


def run_phase(evaluate: bool, seconds: float) -> dict[str, Any]:
    ctx = mp.get_context("spawn")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_phase, args=(evaluate, seconds, child))
    proc.start()
    result: dict[str, Any] = parent.recv()
    proc.join()
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=PHASE_SECONDS)
    args = parser.parse_args()
    print(f"load: {subprocess.run(['uptime'], capture_output=True, text=True).stdout.strip()}")
    fens = _positions(POSITIONS)
    for depth in (16, 12):
        rate, median = asyncio.run(_pace(depth, fens))
        print(
            f"stockfish depth {depth}: {rate:.2f} positions/s "
            f"(median {median * 1000:.0f} ms a position, {len(fens)} middlegame positions)"
        )
    rows = {}
    for evaluate in (False, True):
        r = rows[evaluate] = run_phase(evaluate, args.seconds)
        name = "with --eval   " if evaluate else "without --eval"
        print(
            f"venue {name}: CPU {r['cpu']:.2f} s in {r['seconds']:.0f} s "
            f"({100 * r['cpu'] / r['seconds']:.1f}% of a core); loop lag p99 "
            f"{r['lag_p99']:.1f} ms, max {r['lag_max']:.1f} ms; {r['moves']} moves; "
            f"{r['messages']} websocket messages to {SPECTATORS} spectators "
            f"({r['kinds'].get('eval', 0)} of them evaluations); "
            f"peak RSS {r['rss_mb']:.0f} MB"
            + (
                f"; engine (its own process, niced) CPU {r['engine_cpu']:.2f} s, "
                f"{r['evaluated']} positions evaluated, queue at most {r['queue_longest']}"
                if evaluate
                else ""
            )
        )
    base, with_eval = rows[False], rows[True]
    print(
        f"ratio venue CPU with/without --eval: {with_eval['cpu'] / max(base['cpu'], 1e-9):.2f} "
        f"(loop lag p99 {with_eval['lag_p99']:.1f} vs {base['lag_p99']:.1f} ms)"
    )
    print(f"load: {subprocess.run(['uptime'], capture_output=True, text=True).stdout.strip()}")


if __name__ == "__main__":
    main()
