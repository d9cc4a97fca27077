"""Properties: random legal games played by noisy humans are reconstructed exactly."""

from __future__ import annotations

import chess
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from boards.position import BoardPosition
from boards.reconstruction import MovePlayed, Reconstructor
from boards.reconstruction.drive import drive
from boardsim.humans import Habits
from tests.support.reconstruction import replay


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
    check_noisy_game_with_clock(moves, seed, clocks, think)


def check_noisy_game_with_clock(
    moves: list[chess.Move], seed: int, clocks: list[int], think: list[float]
) -> None:
    _perf, _events, line = replay(
        moves, habits=Habits.realistic(), seed=seed, clocks=clocks, think=think
    )
    assert line.ucis == [m.uci() for m in moves]
    for ply, (got, want) in enumerate(zip(line.clocks, clocks, strict=True), 1):
        assert got is not None, f"no clock time for ply {ply}"
        assert abs(got.remaining - want) <= 1


# Examples hypothesis found (5 s on the clock, so replies come fast): a capture whose
# victim is removed first, the knight then lifted, looks like a capture and recapture
# (Nxd3 exd3 for Nxe2) until the press says whose move it was; a reply made before the
# opponent pressed keeps both presses; the piece just moved taken (lifted) by the
# opponent before the press looks like Nxc5 dxc5 for Nxd6.
FOUND = {
    "pawn_taken_first_then_knight_lifted": (
        (
            "g1h3 b8a6 d2d3 a6b8 c1h6 g8f6 a2a3 f6d5 a1a2 c7c5 a2a1 d5f4 "
            "g2g4 a7a5 d1d2 h8g8 d2c1 b8a6 a1a2 d8c7 b1d2 a6b8 a2a1 f4e2 "
            "a1a2 a5a4 a2a1 a8a5 a1a2 a5a6 a2a1 a6a5 a1a2 a5a6 a2a1 a6a5 "
            "a1a2 "
        ),
        2557499448,
        [5] * 37,
        (
            "0.5147078892593169 2.00001 0.8207536149112533 3.0697202319465564 "
            "3.96452769234307 5.461790514526084 4.596954540636384 5.233379184196698 "
            "3.4317411739897468 1.3585038368648534 3.6828071051406592 5.233379184196698 "
            "0.34254745413967774 2.041250216057619 4.628197579995679 0.6694497833030455 "
            "2.8200721401028237 5.5409581616858965 2.6404379193258496 4.197874151089308 "
            "0.22900494196387033 1.8 2.388904933856585 4.3130542287733595 "
            "2.20494728560324 0.99999 0.9046102148642381 1.9 "
            "5.444120239761439 1.6302873200489876 3.0937331243349266 3.906892750229486 "
            "1.0 2.0344011760105905 2.7206948556923196 1.6302873200489876 "
            "0.2 "
        ),
    ),
    "reply_made_before_the_press": (
        (
            "g1h3 b8a6 d2d3 a6b8 c1h6 g8f6 e2e4 f6d5 a2a3 c7c5 h6c1 d5f4 "
            "d3d4 h7h6 c2c3 g7g6 d1a4 b8c6 h3g5 d7d5 a4a7 b7b5 g5h3 d8b6 "
            "g2g3 a8b8 h1g1 b5b4 a1a2 b4a3 a2a1 a3a2 a1a2 b6a5 a2a1 a5a1 "
            "a7a1 "
        ),
        2557499448,
        [5] * 37,
        (
            "1.0 2.5 3.0 1.0 "
            "3.0 3.0 3.0 3.0 "
            "3.0 1.0 3.0 3.0 "
            "0.5 3.0 2.5 3.0 "
            "3.0 1.0 3.0 3.0 "
            "0.5 1.0 2.5 3.0 "
            "1.0 2.5 1.0 1.0 "
            "1.0 1.0 1.0 1.0 "
            "1.0 1.0 1.0 1.0 "
            "1.0 "
        ),
    ),
    "moved_piece_taken_before_the_press": (
        (
            "g1h3 c7c5 h1g1 b8a6 h3f4 a6b8 b1c3 d8a5 b2b3 b7b5 c3b5 e7e5 "
            "f4e6 a5d8 b5c7 d8c7 a2a3 a7a5 e6g5 c7d8 g5e4 d7d6 a1a2 a5a4 "
            "e4d6 d8d6 a2a1 a4b3 a1a2 a8a3 a2a1 "
        ),
        0,
        [5] * 4 + [1649] + [5] * 26,
        (
            "0.2 0.2 1.0 1.0 "
            "1.0 1.0 1.0 1.0 "
            "1.0 1.0 1.0 1.0 "
            "3.0 1.0 3.0 2.5 "
            "3.0 1.0 1.0 3.0 "
            "3.0 3.0 1.0 1.0 "
            "1.0 1.0 1.0 1.0 "
            "1.0 1.0 1.0 "
        ),
    ),
}


@pytest.mark.parametrize("name", sorted(FOUND))
def test_noisy_game_with_clock_found_examples(name: str) -> None:
    ucis, seed, clocks, think = FOUND[name]
    moves = [chess.Move.from_uci(u) for u in ucis.split()]
    check_noisy_game_with_clock(moves, seed, clocks, [float(x) for x in think.split()])


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
