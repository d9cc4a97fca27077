"""Helpers shared by the reconstruction tests: scripted boards and noisy replays."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import chess
import chess.pgn

from boards.position import SYMBOL_TO_CODE, BoardPosition, Orientation, square_to_index
from boards.reconstruction import GameLine, ReconstructionEvent, Reconstructor
from boards.reconstruction.drive import Input, drive
from boardsim.humans import Habits, Performance, perform
from boardsim.readout import timeline
from clocks.reading import ClockReading


@dataclass
class Script:
    """A hand-written board: each change is reported as its own position at time t."""

    orientation: Orientation = "normal"
    fen: str = chess.STARTING_FEN
    items: list[tuple[float, Input]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.codes = list(BoardPosition.from_fen(self.fen, self.orientation).codes)
        self.items.append((0.0, BoardPosition(tuple(self.codes))))

    def put(self, t: float, square: str, symbol: str | None) -> Script:
        index = square_to_index(chess.parse_square(square), self.orientation)
        self.codes[index] = SYMBOL_TO_CODE[symbol] if symbol else 0
        self.items.append((t, BoardPosition(tuple(self.codes))))
        return self

    def raw(self, t: float, index: int, code: int) -> Script:
        self.codes[index] = code
        self.items.append((t, BoardPosition(tuple(self.codes))))
        return self

    def move(self, t: float, frm: str, to: str, symbol: str | None = None) -> Script:
        """Lift from `frm` at t, put on `to` 0.3 s later (the piece found on frm unless
        `symbol`)."""
        index = square_to_index(chess.parse_square(frm), self.orientation)
        code = self.codes[index]
        self.codes[index] = 0
        self.items.append((t, BoardPosition(tuple(self.codes))))
        to_index = square_to_index(chess.parse_square(to), self.orientation)
        self.codes[to_index] = SYMBOL_TO_CODE[symbol] if symbol else code
        self.items.append((t + 0.3, BoardPosition(tuple(self.codes))))
        return self

    def clock(self, t: float, reading: ClockReading) -> Script:
        self.items.append((t, reading))
        return self

    def run(
        self, rec: Reconstructor | None = None, until: float | None = None
    ) -> tuple[list[ReconstructionEvent], GameLine]:
        rec = rec or Reconstructor()
        items = sorted(self.items, key=lambda x: x[0])
        events = drive(rec, items, until)
        line = GameLine()
        line.extend(events)
        return events, line


def sans(fen: str, moves: Sequence[str]) -> list[chess.Move]:
    board = chess.Board(fen)
    out = []
    for san in moves:
        move = board.parse_san(san)
        out.append(move)
        board.push(move)
    return out


def replay(
    moves: Sequence[chess.Move],
    *,
    habits: Habits,
    seed: int,
    start_fen: str = chess.STARTING_FEN,
    chess960: bool = False,
    clocks: Sequence[int | None] | None = None,
    think: Sequence[float | None] | None = None,
    result: str | None = None,
    with_clock: bool = True,
    flag: bool = False,
) -> tuple[Performance, list[ReconstructionEvent], GameLine]:
    perf = perform(
        moves,
        start_fen=start_fen,
        chess960=chess960,
        habits=habits,
        seed=seed,
        clocks=clocks,
        think=think,
        result=result,
        clock=with_clock,
        flag=flag,
    )
    rec = Reconstructor(
        start_fen=None if start_fen == chess.STARTING_FEN else start_fen, chess960=chess960
    )
    events = drive(rec, timeline(perf, seed=seed, with_clock=with_clock), perf.end_t + 30.0)
    line = GameLine()
    line.extend(events)
    return perf, events, line


def read_games(path: Path, limit: int | None = None) -> list[chess.pgn.Game]:
    """The first `limit` games (all by default) of a PGN file."""
    with open(path, newline=None, encoding="utf-8", errors="replace") as f:
        return list(itertools.islice(iter(lambda: chess.pgn.read_game(f), None), limit))


def check_clocked_game(game: chess.pgn.Game, habits: Habits, seed: int) -> None:
    """Replay a PGN game with its [%clk] shown at each press and [%emt] think times:
    every move, every clock time within 1 s, and the result signal come back."""
    moves = list(game.mainline_moves())
    clocks = [round(n.clock()) if n.clock() is not None else None for n in game.mainline()]
    think = [n.emt() for n in game.mainline()]
    perf, _events, line = replay(
        moves,
        habits=habits,
        seed=seed,
        clocks=clocks,
        think=think,
        result=game.headers.get("Result"),
    )
    assert line.ucis == [m.uci() for m in moves]
    for ply, (got, want) in enumerate(zip(line.clocks, clocks, strict=True), 1):
        if want is not None:
            assert got is not None, f"ply {ply}: no clock time"
            assert abs(got.remaining - want) <= 1, f"ply {ply}: {got.remaining} != {want}"
    if perf.result_signal is not None:
        assert line.result == perf.result_signal
