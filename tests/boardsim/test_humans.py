"""The human noise model: seeded, pure, and each habit does what it says."""

from __future__ import annotations

import dataclasses

import chess
import pytest

from boards.position import BoardPosition, square_to_index
from boardsim.humans import ClockStart, Habits, LeverPress, PieceChange, perform
from boardsim.readout import board_scans, clock_readings

MOVES = [chess.Move.from_uci(u) for u in ["e2e4", "d7d5", "e4d5", "d8d5", "b1c3", "d5a5"]]


def physical_end(perf_start: BoardPosition, changes: list[PieceChange]) -> BoardPosition:
    codes = list(perf_start.codes)
    for c in changes:
        codes[c.index] = c.code
    return BoardPosition(tuple(codes))


def final_board(moves: list[chess.Move]) -> chess.Board:
    board = chess.Board()
    for m in moves:
        board.push(m)
    return board


def test_same_seed_same_performance() -> None:
    a = perform(MOVES, habits=Habits.realistic(), seed=7)
    b = perform(MOVES, habits=Habits.realistic(), seed=7)
    c = perform(MOVES, habits=Habits.realistic(), seed=8)
    assert a == b and a.actions != c.actions


@pytest.mark.parametrize("seed", range(20))
def test_the_board_ends_in_the_game_position(seed: int) -> None:
    perf = perform(MOVES, habits=Habits.realistic(), seed=seed)
    end = physical_end(perf.start, perf.changes)
    assert end.board_fen(perf.orientation) == final_board(MOVES).board_fen()


def test_no_habits_means_one_lift_and_one_put_per_move() -> None:
    perf = perform(MOVES, habits=Habits.none(), seed=1)
    assert len(perf.changes) == 2 * len(MOVES)
    assert len(perf.presses) == len(MOVES)
    assert isinstance(perf.actions[0], ClockStart)


def test_actions_are_in_time_order() -> None:
    perf = perform(MOVES, habits=Habits.realistic(), seed=3)
    times = [a.t for a in perf.actions]
    assert times == sorted(times)


def test_castling_rook_first() -> None:
    moves = [
        chess.Move.from_uci(u) for u in ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6", "e1g1"]
    ]
    habits = Habits(castle_rook_first=1.0, slide_shown=0.0, capture_remove_first=0.0)
    perf = perform(moves, habits=habits, seed=1, clock=False)
    last = perf.changes[-4:]
    # h1 (index 63) lifted first, then the rook on f1 (61), then the king.
    assert [c.index for c in last] == [63, 61, 60, 62]


def test_en_passant_captured_pawn_removed_last() -> None:
    moves = [chess.Move.from_uci(u) for u in ["e2e4", "a7a6", "e4e5", "d7d5", "e5d6"]]
    perf = perform(moves, habits=Habits(en_passant_captured_last=1.0), seed=2, clock=False)
    assert perf.changes[-1] == PieceChange(perf.changes[-1].t, 27, 0)  # d5 emptied last


def test_promotion_pawn_placed_first_then_swapped() -> None:
    fen = "8/4P1k1/8/8/8/8/6K1/8 w - - 0 1"
    perf = perform(
        [chess.Move.from_uci("e7e8n")],
        start_fen=fen,
        habits=Habits(promotion_pawn_first=1.0),
        seed=1,
        clock=False,
    )
    codes = [c.code for c in perf.changes if c.index == 4]
    assert codes == [1, 0, 3]  # white pawn, emptied, white knight


def test_sliding_piece_seen_on_crossed_squares() -> None:
    fen = "6k1/8/8/8/8/8/8/R5K1 w - - 0 1"
    perf = perform(
        [chess.Move.from_uci("a1a8")], start_fen=fen, habits=Habits(slide_shown=1.0), seed=4
    )
    visited = {c.index for c in perf.changes if c.code == 2}
    assert {8, 16, 24, 32, 40, 48} <= visited


def test_result_signal_puts_both_kings_in_the_centre() -> None:
    perf = perform(MOVES, habits=Habits(result_signal=1.0), seed=5, result="0-1")
    end = physical_end(perf.start, perf.changes).to_board(perf.orientation)
    kings = {end.king(chess.WHITE), end.king(chess.BLACK)}
    assert kings == {chess.D4, chess.E5}
    assert perf.result_signal == "0-1"


def test_rotated_board() -> None:
    perf = perform(MOVES, habits=Habits(rotated_board=1.0), seed=1)
    assert perf.orientation == "rotated"
    assert perf.start.orientation_of_start() == "rotated"


def test_scans_merge_changes_and_end_in_the_final_position() -> None:
    perf = perform(MOVES, habits=Habits.realistic(), seed=9)
    scans = board_scans(perf, seed=9)
    assert scans[0] == (0.0, perf.start)
    assert scans[-1][1] == physical_end(perf.start, perf.changes)
    times = [t for t, _ in scans]
    assert times == sorted(times)
    assert len(scans) <= len(perf.changes) + 1


def test_clock_readings_show_the_given_times_at_each_press() -> None:
    clocks = [290, 295, 280, 285, 270, 275]
    perf = perform(MOVES, habits=Habits.none(), seed=1, clocks=clocks, initial_seconds=(300, 300))
    readings = clock_readings(perf)
    presses = perf.presses
    for press, want in zip(presses, clocks, strict=True):
        after = next(r for t, r in readings if t > press.t)
        assert after.seconds(press.side) == want


def test_flag_fall_at_the_end() -> None:
    perf = perform(MOVES[:2], habits=Habits.none(), seed=1, clocks=[10, 5], flag=True)
    readings = clock_readings(perf)
    assert perf.flag_side == "left"
    assert readings[-1][1].left_final_flag and readings[-1][1].left_seconds == 0


def test_habit_probabilities_are_checked() -> None:
    with pytest.raises(ValueError, match="probability"):
        Habits(jadoube=1.5)


def test_lever_press_sides_alternate() -> None:
    perf = perform(MOVES, habits=Habits.none(), seed=1, white_side="right")
    sides = [p.side for p in perf.presses]
    assert sides == ["right", "left"] * 3
    assert all(isinstance(p, LeverPress) for p in perf.presses)


def _rests(
    perf_changes: list[PieceChange], code: int, home: int, land: int
) -> list[tuple[int, float]]:
    """(index, seconds) of each square other than `home` and `land` where `code` was put
    and taken off again."""
    put: dict[int, float] = {}
    rests = []
    for c in perf_changes:
        if c.index in (home, land):
            continue
        if c.code == code:
            put[c.index] = c.t
        elif c.code == 0 and c.index in put:
            rests.append((c.index, c.t - put.pop(c.index)))
    return rests


@pytest.mark.parametrize("rest", [0.0, 0.35, 1.0])
def test_hesitating_slide_rests_on_one_or_two_squares_of_its_path(rest: float) -> None:
    fen = "6k1/8/8/8/8/8/8/R5K1 w - - 0 1"
    habits = dataclasses.replace(Habits.none(), hesitate=1.0, hesitate_rest=(rest, rest))
    counts = set()
    for seed in range(20):
        perf = perform([chess.Move.from_uci("a1a8")], start_fen=fen, habits=habits, seed=seed)
        rook = 2  # white rook's code
        home, land = perf.changes[0].index, perf.changes[-1].index
        rests = _rests(perf.changes, rook, home, land)
        path = {square_to_index(sq, perf.orientation) for sq in range(chess.A2, chess.A8, 8)}
        assert {index for index, _ in rests} <= path
        assert all(seconds == pytest.approx(rest) for _, seconds in rests)
        assert perf.changes[-1].code == rook and perf.habits_used["hesitate"] == 1
        counts.add(len(rests))
    assert counts == {1, 2}


def test_only_sliding_pieces_hesitate() -> None:
    habits = dataclasses.replace(Habits.none(), hesitate=1.0, hesitate_rest=(0.5, 0.5))
    knight = perform([chess.Move.from_uci("g1f3")], habits=habits, seed=1)
    assert len(knight.changes) == 2 and "hesitate" not in knight.habits_used
    bishop = perform(
        [chess.Move.from_uci(u) for u in ("e2e4", "e7e5", "f1c4")], habits=habits, seed=1
    )
    assert bishop.habits_used["hesitate"] == 1  # f1-c4 crosses e2 and d3; e4, e5 do not


def test_realistic_habits_hesitate_up_to_a_second() -> None:
    h = Habits.realistic()
    assert 0.0 < h.hesitate < 1.0 and h.hesitate_rest == (0.0, 1.0)
    assert Habits.none().hesitate == 0.0


@pytest.mark.parametrize("bounds", [(-0.1, 0.5), (0.8, 0.2)])
def test_hesitation_rest_range_is_checked(bounds: tuple[float, float]) -> None:
    with pytest.raises(ValueError, match="hesitate_rest"):
        Habits(hesitate_rest=bounds)
