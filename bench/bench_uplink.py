"""What `serve --publish` costs the venue (the audit's F8): uplink bytes per board-hour,
and how long snapshot building holds the event loop, for the stream's format 2 against
format 1 (HEAD's encoder, kept verbatim in bench/stream_format_v1.py), in the same run.

Uplink. Each run plays whole games on B boards at the real pace of a DGT clock: a
clock reading every second per board (the clock's own rate: BWTIME each second while it
runs), a move every 2-300 s (as tests/support/big_event.py plays them), 80 plies a game. The
public frames go through the hub's real channel (`web.hub.channel.Channel`: its real
deltas, numbers and wire texts), and each delta the channel tells its taps is encoded by
both formats' `delta_fields`, from the state of the entry before it, as the publisher
does. Counted: the bytes of each XADD command as Redis receives it (RESP framing,
`MAXLEN ~ 200000`, every field), and, separately, the snapshot key's HSET every 30 s of
real time while deltas flow (the publisher's `SNAPSHOT_SECONDS`). Figures are per
board-hour, min / median / max over the runs (each its own seed).

Loop. A synthetic book of 72-ply games (tests/support/big_event.py) at 576 and 5,000 games:
format 1's `snapshot_fields` ran in the publisher's coroutine, so the loop was blocked
for all of it (timed directly). Format 2's `SnapshotEncoder.fields` runs in the
publisher's one worker thread; a ticker on the loop (sleeping 1 ms at a time) notes the
longest gap between its wake-ups while it runs: the loop's longest stall. Two cases: the
first snapshot (nothing cached) and the next one, 30 s later, with a tenth of the games
changed (their JSON made again, the rest reused). The ticker's gap with no work at all
is printed as the floor.

    python bench/bench_uplink.py             # 5 runs of 2 boards; 576 and 5,000 games, 3 times
    python bench/bench_uplink.py --runs 3 --boards 4 --games 576,2000,5000 --repeat 5
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import os
import random
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import chess

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "bench"), str(ROOT)]  # bench modules, tests.support

import stream_format_v1 as v1  # noqa: E402  (HEAD's format 1, verbatim)

from broadcast.games.book import GameBook  # noqa: E402
from broadcast.games.game_events import GameClock, GameMove  # noqa: E402
from broadcast.publish import stream_format as v2  # noqa: E402
from broadcast.publish.redis_publisher import SNAPSHOT_SECONDS, STREAM_MAXLEN  # noqa: E402
from broadcast.service.event_state import PublicState  # noqa: E402
from tests.support.big_event import T0, paired, played, swiss_config  # noqa: E402
from web.hub.channel import Channel  # noqa: E402
from web.hub.deltas import Frame  # noqa: E402

PLIES = 80
KEY = "boardwire:bench:stream"
SNAPSHOT_KEY = "boardwire:bench:snapshot"


def _resp(*args: Any) -> int:
    """Bytes of one Redis command in RESP (what goes up the venue's line)."""
    total = len(f"*{len(args)}\r\n")
    for arg in args:
        data = arg if isinstance(arg, bytes) else str(arg).encode("utf-8")
        total += len(f"${len(data)}\r\n") + len(data) + 2
    return total


def _xadd_bytes(fields: dict[Any, Any]) -> int:
    flat = [x for pair in fields.items() for x in pair]
    return _resp("XADD", KEY, "MAXLEN", "~", STREAM_MAXLEN, "*", *flat)


def _hset_bytes(fields: dict[Any, Any]) -> int:
    flat = [x for pair in {**fields, "after": "1765000000000-0"}.items() for x in pair]
    return _resp("HSET", SNAPSHOT_KEY, *flat)


@dataclasses.dataclass
class Uplink:
    board_hours: float = 0.0
    entries: int = 0
    old_deltas: int = 0
    new_deltas: int = 0
    old_snapshots: int = 0
    new_snapshots: int = 0


def uplink_run(boards: int, seed: int) -> Uplink:
    """Whole games on `boards` boards at real pace, both formats encoding every delta."""
    rng = random.Random(seed)
    config = swiss_config(max(2 * boards, 4))
    tournament = paired(config, 1)
    book = GameBook().synced(tournament)
    games = sorted(book.games)[:boards]
    state = PublicState(tournament, book, 0)
    channel = Channel("public", config, Frame(tournament, book), "bench-run", in_place=True)
    out = Uplink()
    venue = v2.Venue({config.sections[0].name: 1}, {}, T0, T0, 1.0, 0.0)
    old_venue = v1.Venue({config.sections[0].name: 1}, {}, T0, T0, 1.0, 0.0)
    before: list[PublicState] = [state]

    def tap(seq: int, keys: frozenset[str], text: str, frame: Frame) -> None:
        after = PublicState(frame.tournament, frame.book, seq)
        out.entries += 1
        out.new_deltas += _xadd_bytes(
            v2.delta_fields("bench-run", seq, keys, text, before[0], after, venue)
        )
        out.old_deltas += _xadd_bytes(
            v1.delta_fields("bench-run", seq, keys, text, before[0], after, old_venue)
        )
        before[0] = after

    channel.taps.append(tap)
    boards_now = {g: chess.Board() for g in games}
    clocks = {g: [5400.0, 5400.0] for g in games}
    next_move = {g: T0 + rng.uniform(2, 300) for g in games}
    finished: set[str] = set()
    encoder = v2.SnapshotEncoder()
    t = T0
    last_snapshot = T0
    while len(finished) < len(games):
        t += 1.0
        current = dict(book.games)
        for g in games:
            if g in finished:
                continue
            board = boards_now[g]
            game = current[g]
            turn = 0 if board.turn == chess.WHITE else 1
            if t >= next_move[g]:
                move = rng.choice(list(board.legal_moves))
                san = board.san(move)
                spent = t - (game.moves[-1].t if game.moves else T0)
                clocks[g][turn] = max(0.0, clocks[g][turn] - 1) + 30
                board.push(move)
                game = game.apply(
                    GameMove(
                        g, game.ply + 1, san, move.uci(), board.fen(), t, clocks[g][turn], spent
                    )
                )
                next_move[g] = t + rng.uniform(2, 300)
                if game.ply >= PLIES or board.is_game_over():
                    finished.add(g)
                running = "black" if turn == 0 else "white"
            else:
                clocks[g][turn] = max(0.0, clocks[g][turn] - 1)
                running = "white" if turn == 0 else "black"
            game = game.apply(
                GameClock(g, int(clocks[g][0]), int(clocks[g][1]), running, t)  # type: ignore[arg-type]
            )
            current[g] = game
            out.board_hours += 1 / 3600
        book = GameBook(current, book.removed)
        channel.advance(Frame(tournament, book))
        if t - last_snapshot >= SNAPSHOT_SECONDS:
            last_snapshot = t
            snap = PublicState(tournament, book, channel.seq)
            out.new_snapshots += _hset_bytes(
                encoder.fields(config, "bench-run", channel.seq, snap, venue)
            )
            out.old_snapshots += _hset_bytes(
                v1.snapshot_fields(config, "bench-run", channel.seq, snap, old_venue)
            )
    return out


# -- the loop -------------------------------------------------------------------------------


def _book(games: int) -> tuple[Any, PublicState]:
    config = swiss_config(2 * games)
    tournament = paired(config, 1)
    return config, PublicState(tournament, played(tournament, 72), 1)


def _changed(state: PublicState, share: float, seed: int) -> PublicState:
    """`state` with a share of its games changed (a clock reading each)."""
    rng = random.Random(seed)
    games = dict(state.book.games)
    for g in rng.sample(sorted(games), max(1, int(len(games) * share))):
        games[g] = dataclasses.replace(games[g], white_clock=rng.randint(0, 5400))
    return PublicState(state.tournament, GameBook(games, state.book.removed), state.seq + 1)


async def _stall_while(work: Any, pool: ThreadPoolExecutor) -> tuple[float, float]:
    """(the loop's longest gap between 1 ms ticks, the work's own time) while `work` runs
    in `pool` (None: no work, the floor)."""
    loop = asyncio.get_running_loop()
    longest = 0.0
    running = True

    async def ticker() -> None:
        nonlocal longest
        last = time.perf_counter()
        while running:
            await asyncio.sleep(0.001)
            now = time.perf_counter()
            longest = max(longest, now - last)
            last = now

    tick = asyncio.ensure_future(ticker())
    await asyncio.sleep(0.05)
    longest = 0.0
    started = time.perf_counter()
    if work is None:
        await asyncio.sleep(0.5)
    else:
        await loop.run_in_executor(pool, work)
    took = time.perf_counter() - started
    running = False
    await tick
    return longest, took


def _spread(values: list[float], unit: float = 1.0, digits: int = 0) -> str:
    fmt = f"{{:,.{digits}f}}"
    parts = [fmt.format(v * unit) for v in (min(values), statistics.median(values), max(values))]
    return " / ".join(parts)


async def loop_figures(sizes: list[int], repeat: int) -> None:
    print(
        f"\nloop blocked by snapshot building (ms, min / median / max of {repeat}); format 1 "
        "ran on the loop, format 2 runs in the publisher's worker thread",
        flush=True,
    )
    print(
        f"{'games':>6} {'format 1: loop blocked':>24} {'format 2 first: loop stall':>28} "
        f"{'(worker)':>20} {'format 2 next: loop stall':>27} {'(worker)':>18}",
        flush=True,
    )
    pool = ThreadPoolExecutor(1, thread_name_prefix="publish-encode")
    floor = [(await _stall_while(None, pool))[0] for _ in range(3)]
    venue = v2.Venue({}, {}, T0, T0, 1.0, 0.0)
    old_venue = v1.Venue({}, {}, T0, T0, 1.0, 0.0)
    for games in sizes:
        config, state = _book(games)
        old, first, first_took, nxt, next_took = [], [], [], [], []
        for r in range(repeat):
            started = time.perf_counter()
            v1.snapshot_fields(config, "e", 1, state, old_venue)
            old.append(time.perf_counter() - started)
            encoder = v2.SnapshotEncoder()
            stall, took = await _stall_while(
                lambda e=encoder, c=config, s=state: e.fields(c, "e", 1, s, venue), pool
            )
            first.append(stall)
            first_took.append(took)
            later = _changed(state, 0.1, r)
            stall, took = await _stall_while(
                lambda e=encoder, c=config, s=later: e.fields(c, "e", 2, s, venue), pool
            )
            nxt.append(stall)
            next_took.append(took)
        print(
            f"{games:>6} {_spread(old, 1000):>24} {_spread(first, 1000, 1):>28} "
            f"{_spread(first_took, 1000):>20} {_spread(nxt, 1000, 1):>27} "
            f"{_spread(next_took, 1000):>18}",
            flush=True,
        )
    print(f"(the ticker's longest gap with no work at all: {_spread(floor, 1000, 1)} ms)")
    pool.shutdown()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="uplink runs (seeds)")
    parser.add_argument("--boards", type=int, default=2, help="boards per uplink run")
    parser.add_argument("--games", default="576,5000", help="book sizes for the loop figures")
    parser.add_argument("--repeat", type=int, default=3, help="snapshots per book size")
    args = parser.parse_args(argv)
    print(f"load average before: {os.getloadavg()}", flush=True)
    runs = [uplink_run(args.boards, seed) for seed in range(1, args.runs + 1)]
    hours = [r.board_hours for r in runs]
    print(
        f"uplink: {args.runs} runs of {args.boards} boards playing whole games ({PLIES} plies, "
        f"a clock reading a second), {_spread(hours, 1, 1)} board-hours a run, "
        f"{_spread([r.entries / r.board_hours for r in runs])} entries per board-hour",
        flush=True,
    )
    print("bytes per board-hour (min / median / max over the runs):")
    rows = [
        ("deltas, format 1", [r.old_deltas / r.board_hours for r in runs]),
        ("deltas, format 2", [r.new_deltas / r.board_hours for r in runs]),
        ("  format 1 / format 2", [r.old_deltas / r.new_deltas for r in runs]),
        (
            "with the snapshot key, format 1",
            [(r.old_deltas + r.old_snapshots) / r.board_hours for r in runs],
        ),
        (
            "with the snapshot key, format 2",
            [(r.new_deltas + r.new_snapshots) / r.board_hours for r in runs],
        ),
        (
            "  format 1 / format 2",
            [(r.old_deltas + r.old_snapshots) / (r.new_deltas + r.new_snapshots) for r in runs],
        ),
    ]
    for name, values in rows:
        ratio = "/" in name
        print(f"  {name:<34} {_spread(values, 1, 1 if ratio else 0):>32}", flush=True)
    asyncio.run(loop_figures([int(x) for x in args.games.split(",")], args.repeat))
    print(f"load average after: {os.getloadavg()}", flush=True)


if __name__ == "__main__":
    main()
