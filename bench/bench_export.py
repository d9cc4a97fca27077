"""PGN of a 100-board round with 60 moves (120 plies) a game, timed next to python-chess.

Run: .venv/bin/python bench/bench_export.py [--boards 100] [--moves 60] [--repeat 5]

Prints, best of `repeat`:
- ours: `round_pgn` from the GameBook (headers, SAN, [%clk]/[%emt] comments);
- python-chess export: `str(game)` of ready-built `chess.pgn.Game` objects holding the
  same games, headers and clock comments (its exporter alone);
- python-chess build + export: building those objects from the moves, then `str`
  (what an exporter based on python-chess does on every change);
- the folder export (101 files) first, and again with nothing changed.
Ratios are python-chess time / ours. Figures only, no assertions.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import random
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import chess
import chess.pgn

from broadcast.config import load_event
from broadcast.config.model import EventConfig, PlayerEntry, RoundStart
from broadcast.export.pgn import game_headers, round_pgn
from broadcast.fide.pairing import Pairing
from broadcast.games.book import GameBook
from broadcast.games.game_events import GameMove
from broadcast.games.game_state import GameState
from broadcast.publish.folder import export_round_folder
from broadcast.tournament.tournament_events import PlayersRegistered, RoundPaired
from broadcast.tournament.tournament_state import TournamentState

ROOT = Path(__file__).resolve().parent.parent
SECTION = "Open"


def make_event(boards: int) -> EventConfig:
    base = load_event(ROOT / "examples" / "sestao-2025-swiss.toml")
    section = base.sections[0]
    start = RoundStart(1, dt.date(2025, 9, 12), dt.time(17, 0), base.timezone)
    section = dataclasses.replace(section, schedule=(start, *section.schedule[1:]))
    return dataclasses.replace(base, sections=(section,))


def make_book(event: EventConfig, boards: int, plies: int, seed: int = 7) -> GameBook:
    players = tuple(
        PlayerEntry(n, f"Player {n:03d}", 2700 - n, str(24_000_000 + n), "GM" if n < 20 else "")
        for n in range(1, 2 * boards + 1)
    )
    state = TournamentState.new(event).apply(PlayersRegistered(SECTION, players))
    pairs = tuple(Pairing(b, 2 * b - 1, 2 * b) for b in range(1, boards + 1))
    state = state.apply(RoundPaired(SECTION, 1, pairs, "bench"))
    book = GameBook().synced(state)
    rng = random.Random(seed)
    for game in list(book.games.values()):
        book = GameBook({**book.games, game.id: _play(game, plies, rng)})
    return book


def _play(game: GameState, plies: int, rng: random.Random) -> GameState:
    while True:  # a random line that lasts `plies` plies
        board = chess.Board()
        events = []
        clocks = {chess.WHITE: 5400.0, chess.BLACK: 5400.0}
        t = 1_757_689_200.0
        for ply in range(1, plies + 1):
            moves = list(board.legal_moves)
            if not moves:
                break
            move = rng.choice(moves)
            san = board.san(move)
            spent = rng.uniform(2, 300)
            turn = board.turn
            clocks[turn] = max(0.0, clocks[turn] - spent) + 30
            t += spent
            board.push(move)
            events.append(
                GameMove(game.id, ply, san, move.uci(), board.fen(), t, clocks[turn], spent)
            )
        if len(events) == plies:
            for event in events:
                game = game.apply(event)
            return game


def chess_games(book: GameBook, event: EventConfig) -> list[chess.pgn.Game]:
    out = []
    for game in book.round_games(SECTION, 1):
        pgn = chess.pgn.Game()
        for name, value in game_headers(game, event):
            pgn.headers[name] = value
        node: chess.pgn.GameNode = pgn
        for move in game.moves:
            node = node.add_variation(chess.Move.from_uci(move.uci))
            if move.remaining is not None:
                node.set_clock(round(move.remaining))
            if move.spent is not None:
                node.set_emt(round(move.spent))
        out.append(pgn)
    return out


def best(repeat: int, fn: Callable[[], object]) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=100)
    parser.add_argument("--moves", type=int, default=60, help="full moves per game")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    event = make_event(args.boards)
    book = make_book(event, args.boards, 2 * args.moves)
    built = chess_games(book, event)
    text = round_pgn(book, event, SECTION, 1)

    ours = best(args.repeat, lambda: round_pgn(book, event, SECTION, 1))
    pc_export = best(args.repeat, lambda: "\n".join(str(g) + "\n" for g in built))
    pc_build = best(args.repeat, lambda: "\n".join(str(g) + "\n" for g in chess_games(book, event)))
    with tempfile.TemporaryDirectory() as tmp:
        first = best(1, lambda: export_round_folder(tmp, book, event, SECTION, 1))
        again = best(args.repeat, lambda: export_round_folder(tmp, book, event, SECTION, 1))

    plies = 2 * args.moves
    print(f"round PGN: {args.boards} boards x {plies} plies, {len(text) / 1024:.0f} KiB")
    print(f"  ours (round_pgn)                 {ours * 1000:8.1f} ms")
    print(
        f"  python-chess str(game)           {pc_export * 1000:8.1f} ms"
        f"   ratio {pc_export / ours:5.1f}x"
    )
    print(
        f"  python-chess build + str(game)   {pc_build * 1000:8.1f} ms"
        f"   ratio {pc_build / ours:5.1f}x"
    )
    print(f"  folder export, first (101 files) {first * 1000:8.1f} ms")
    print(f"  folder export, nothing changed   {again * 1000:8.1f} ms")


if __name__ == "__main__":
    main()
