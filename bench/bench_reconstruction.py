"""Reconstruction benchmark: real games through the human noise model, then rebuilt.

Prints, per corpus: games, exact games, plies, clock stamps within 1 s, CPU time per
position update (mean and worst), the worst game, and the cost relative to a reference
measured in the same run: python-chess generating the legal moves of every ply.
Then the same with hesitating slides (every bishop, rook and queen resting on one or two
squares of its path) at several rest lengths: the World Cup with its clock, a Kasparov
sample without a clock. Figures only; nothing here asserts on time.

`python bench/bench_reconstruction.py --quick` runs the hesitation part on fewer games.
"""

from __future__ import annotations

import dataclasses
import sys
import time
from pathlib import Path

import chess
import chess.pgn

from boards.position import BoardPosition
from boards.reconstruction import GameLine, Reconstructor
from boardsim.humans import Habits, perform
from boardsim.readout import timeline

GAMES = Path("/work/shared/testdata/games")
HABITS = dataclasses.replace(Habits.realistic(), max_think=8.0)


def read_games(path: Path) -> list[chess.pgn.Game]:
    games = []
    with open(path, newline=None, encoding="utf-8", errors="replace") as f:
        while (game := chess.pgn.read_game(f)) is not None:
            games.append(game)
    return games


def reference_ns(moves: list[chess.Move]) -> int:
    """python-chess generating all legal moves at every ply of the game."""
    board = chess.Board()
    start = time.perf_counter_ns()
    for move in moves:
        list(board.generate_legal_moves())
        board.push(move)
    return time.perf_counter_ns() - start


def run_corpus(
    name: str, games: list[chess.pgn.Game], habits: Habits = HABITS, with_clock: bool = True
) -> None:
    exact = plies = stamps = stamps_ok = updates = 0
    total_ns = worst_ns = ref_ns = 0
    worst_game = ("", 0.0)
    for index, game in enumerate(games):
        moves = list(game.mainline_moves())
        nodes = list(game.mainline())
        clocks = [round(n.clock()) if n.clock() is not None else None for n in nodes]
        think = [n.emt() for n in nodes]
        perf = perform(
            moves,
            habits=habits,
            seed=index,
            clocks=clocks if any(c is not None for c in clocks) else None,
            think=think,
            result=game.headers.get("Result"),
            clock=with_clock,
        )
        items = timeline(perf, seed=index, with_clock=with_clock)
        rec = Reconstructor()
        line = GameLine()
        game_ns = 0
        for t, item in items:
            while (due := rec.next_deadline()) is not None and due <= t:
                t0 = time.perf_counter_ns()
                events = rec.tick(due)
                game_ns += time.perf_counter_ns() - t0
                line.extend(events)
            t0 = time.perf_counter_ns()
            if isinstance(item, BoardPosition):
                events = rec.feed_position(t, item)
            else:
                events = rec.feed_clock(t, item)
            dt = time.perf_counter_ns() - t0
            game_ns += dt
            worst_ns = max(worst_ns, dt)
            updates += 1
            line.extend(events)
        end = perf.end_t + 30.0
        while (due := rec.next_deadline()) is not None and due <= end:
            line.extend(rec.tick(due))
        line.extend(rec.tick(end))
        total_ns += game_ns
        ref_ns += reference_ns(moves)
        plies += len(moves)
        exact += line.ucis == [m.uci() for m in moves]
        for got, want in zip(line.clocks, clocks, strict=False):
            if want is not None:
                stamps += 1
                stamps_ok += got is not None and abs(got.remaining - want) <= 1
        per_update = game_ns / max(1, len(items))
        if per_update > worst_game[1]:
            label = f"{game.headers.get('White')} - {game.headers.get('Black')} (#{index})"
            worst_game = (label, per_update)
    print(f"== {name}")
    print(f"games            {len(games)}")
    print(f"exact games      {exact} ({100.0 * exact / max(1, len(games)):.1f} %)")
    print(f"plies            {plies}")
    if stamps:
        print(f"clock stamps     {stamps_ok}/{stamps} within 1 s")
    print(f"position updates {updates}")
    print(
        f"CPU per update   mean {total_ns / max(1, updates) / 1000:.1f} us, "
        f"worst {worst_ns / 1000:.1f} us"
    )
    print(f"worst game       {worst_game[0]}: {worst_game[1] / 1000:.1f} us per update")
    ref_per_ply = ref_ns / max(1, plies)
    recon_per_ply = total_ns / max(1, plies)
    print(
        f"reference        python-chess legal move generation {ref_per_ply / 1000:.1f} us per ply"
    )
    print(
        f"ratio            reconstruction / reference = {recon_per_ply / ref_per_ply:.1f}x per ply"
    )


def hesitating(rest: float) -> Habits:
    """Realistic habits, and every sliding piece rests `rest` s on its path."""
    return dataclasses.replace(HABITS, hesitate=1.0, hesitate_rest=(rest, rest))


def main() -> None:
    quick = "--quick" in sys.argv[1:]
    started = time.process_time()
    world_cup = read_games(GAMES / "worldcup2025-rapid-blitz-clk.pgn")
    kasparov = read_games(GAMES / "kasparov.pgn")
    if not quick:
        run_corpus("World Cup 2025 rapid/blitz (noise: realistic)", world_cup)
        run_corpus("Kasparov (noise: realistic, no times)", kasparov)
    sample = kasparov[: 100 if quick else 500]
    for rest in (0.0, 0.3, 0.6, 1.0):
        run_corpus(
            f"World Cup 2025, clock (every slide rests {rest:.1f} s)",
            world_cup[: 40 if quick else None],
            hesitating(rest),
        )
        run_corpus(
            f"Kasparov {len(sample)} games, no clock (every slide rests {rest:.1f} s)",
            sample,
            hesitating(rest),
            with_clock=False,
        )
    print(f"total CPU {time.process_time() - started:.1f} s")


if __name__ == "__main__":
    main()
