"""Properties: random legal games played by noisy humans are reconstructed exactly."""

from __future__ import annotations

import chess
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reconstruction_support import replay

from boards.position import BoardPosition
from boards.reconstruction import MovePlayed, Reconstructor
from boards.reconstruction.drive import drive
from boardsim.humans import Habits


@st.composite
def games(draw: st.DrawFn, max_plies: int = 40) -> list[chess.Move]:
    board = chess.Board()
    moves: list[chess.Move] = []
    for _ in range(draw(st.integers(1, max_plies))):
        legal = sorted(board.legal_moves, key=lambda m: m.uci())
        if not legal:
            break
        move = legal[draw(st.integers(0, len(legal) - 1))]
        board.push(move)
        moves.append(move)
    return moves


SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(games(), st.integers(0, 2**32 - 1), st.data())
def test_noisy_game_with_clock_is_reconstructed_with_its_times(
    moves: list[chess.Move], seed: int, data: st.DataObject
) -> None:
    clocks = [data.draw(st.integers(5, 5400)) for _ in moves]
    think = [data.draw(st.floats(0.2, 6.0)) for _ in moves]
    _perf, _events, line = replay(
        moves, habits=Habits.realistic(), seed=seed, clocks=clocks, think=think
    )
    assert line.ucis == [m.uci() for m in moves]
    for ply, (got, want) in enumerate(zip(line.clocks, clocks, strict=True), 1):
        assert got is not None, f"no clock time for ply {ply}"
        assert abs(got.remaining - want) <= 1


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games(), st.integers(0, 2**32 - 1))
def test_noisy_game_without_clock_is_reconstructed(moves: list[chess.Move], seed: int) -> None:
    _perf, _events, line = replay(moves, habits=Habits.realistic(), seed=seed, with_clock=False)
    assert line.ucis == [m.uci() for m in moves]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 63), st.integers(0, 15)), max_size=60))
def test_garbage_positions_never_produce_an_illegal_move(changes: list[tuple[int, int]]) -> None:
    rec = Reconstructor()
    codes = list(BoardPosition.from_fen(chess.STARTING_FEN).codes)
    items = [(0.0, BoardPosition(tuple(codes)))]
    for i, (index, code) in enumerate(changes):
        codes[index] = code
        items.append((1.0 + 0.7 * i, BoardPosition(tuple(codes))))
    events = drive(rec, items)
    board = chess.Board()
    for event in events:
        if isinstance(event, MovePlayed):
            while len(board.move_stack) >= event.ply:
                board.pop()
            move = chess.Move.from_uci(event.uci)
            assert move in board.legal_moves
            board.push(move)
