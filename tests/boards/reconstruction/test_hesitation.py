"""Hesitating slides: a bishop, rook or queen rests on a square of its path before its real
square. The issue's examples, with and without a clock, then the corpora with the habit.

With a clock the position at the mover's lever press is the truth: a move the board no
longer shows at the press is corrected first. Without one, the same piece moving on from
its landing square before the opponent moves corrects that move. A transposed path through
the resting square (Bd7, Qe4, Be6 for Be6, Qe4) is never preferred to one through every
position seen.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import chess
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from boards.position import CODE_TO_SYMBOL, square_to_index
from boards.reconstruction import MovePlayed, MoveRetracted, Reconstructor
from boardsim.humans import Habits
from clocks.reading import ClockReading
from tests.support.reconstruction import Script, check_clocked_game, read_games, replay

AFTER_D4_D6_QD3 = "rnbqkbnr/ppp1pppp/3p4/8/3P4/3Q4/PPP1PPPP/RNB1KBNR b KQkq - 1 2"
AFTER_D4_D5 = "rnbqkbnr/ppp1pppp/8/3p4/3P4/8/PPP1PPPP/RNBQKBNR w KQkq - 0 2"
ROOK_ENDING = "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1"
RESTS = [0.3, 0.6, 0.9]


class Table(Script):
    """A scripted board with a chess clock: White on the left."""

    def __init__(self, fen: str, clock: bool) -> None:
        super().__init__(fen=fen)
        self.with_clock = clock
        self.turn_white = chess.Board(fen).turn == chess.WHITE
        self.left, self.right = 300, 300
        if clock:
            # The side to move runs: the right lever is up while Black's (right) time runs.
            self.clock(0.1, ClockReading(300, 300, True, not self.turn_white))

    def slide(self, t: float, path: list[str], rest: float) -> float:
        """Lift the piece on path[0] at t, rest `rest` s on each square of path[1:-1], put
        it on path[-1] (0.25 s after leaving the last rest); returns the landing time."""
        index = square_to_index(chess.parse_square(path[0]), self.orientation)
        symbol = CODE_TO_SYMBOL[self.codes[index]]
        self.put(t, path[0], None)
        for square in path[1:-1]:
            t += 0.2
            self.put(t, square, symbol)
            t += rest
            self.put(t, square, None)
        t += 0.25
        self.put(t, path[-1], symbol)
        return t

    def press(self, t: float) -> Table:
        """The side to move presses its lever at t (no-op without a clock)."""
        if self.with_clock:
            if self.turn_white:
                self.left -= 2
            else:
                self.right -= 2
            self.clock(t, ClockReading(self.left, self.right, True, self.turn_white))
        self.turn_white = not self.turn_white
        return self


def sans(events: list[object]) -> list[str]:
    return [e.san for e in events if isinstance(e, MovePlayed)]


def run(table: Table, fen: str) -> tuple[list[str], list[object], Reconstructor]:
    rec = Reconstructor(start_fen=fen)
    events, line = table.run(rec)
    return line.sans, list(events), rec


# The examples: the piece rests on the squares between, lands on the last square,
# the mover presses, the opponent replies 1.5 s later.
SLIDES = {
    "Be6-not-Bd7": (AFTER_D4_D6_QD3, ["c8", "d7", "e6"], ("b1", "c3"), ["Be6", "Nc3"]),
    "Rb1-not-Rc1": (ROOK_ENDING, ["d1", "c1", "b1"], ("h7", "h6"), ["Rb1", "h6"]),
    "Bf4-not-Bd2-Be3": (AFTER_D4_D5, ["c1", "d2", "e3", "f4"], ("g8", "f6"), ["Bf4", "Nf6"]),
}


@pytest.mark.parametrize("clock", [False, True], ids=["no-clock", "clock"])
@pytest.mark.parametrize("rest", RESTS)
@pytest.mark.parametrize("case", SLIDES)
def test_resting_slide_is_recorded_on_its_real_square(case: str, rest: float, clock: bool) -> None:
    fen, path, (frm, to), want = SLIDES[case]
    table = Table(fen, clock)
    landed = table.slide(1.0, path, rest)
    table.press(landed + 0.3)
    table.move(landed + 1.5, frm, to).press(landed + 2.1)
    line, events, rec = run(table, fen)
    assert line == want
    if clock:
        assert all(c is not None for c in rec.clocks)
    # A resting square long enough to be recorded is replaced, never left standing.
    resting = {chess.square_name(chess.parse_square(sq)) for sq in path[1:-1]}
    recorded_there = any(san[-2:] in resting for san in sans(events))
    assert recorded_there == any(isinstance(e, MoveRetracted) for e in events)


@pytest.mark.parametrize("clock", [False, True], ids=["no-clock", "clock"])
@pytest.mark.parametrize("reply", [0.45, 1.5], ids=["fast-reply", "reply"])
@pytest.mark.parametrize("rest", RESTS)
def test_reply_after_a_rest_does_not_transpose_the_game(
    rest: float, reply: float, clock: bool
) -> None:
    # Bd7 (recorded while the bishop rested), Qe4, Bd7-e6 reaches the same position as
    # Be6, Qe4: the positions seen on the way (the bishop on e6 before the queen moved)
    # and the press say which.
    table = Table(AFTER_D4_D6_QD3, clock)
    landed = table.slide(1.0, ["c8", "d7", "e6"], rest)
    table.press(landed + 0.2)
    t = table.slide(landed + reply, ["d3", "e4"], 0.0)
    table.press(t + 0.3)
    table.move(t + 3.0, "g8", "f6").press(t + 3.5)
    line, _events, rec = run(table, AFTER_D4_D6_QD3)
    assert line == ["Be6", "Qe4", "Nf6"]
    if clock:
        assert all(c is not None for c in rec.clocks)


@pytest.mark.parametrize("clock", [False, True], ids=["no-clock", "clock"])
def test_a_piece_really_moving_twice_is_two_moves(clock: bool) -> None:
    # The same squares without a rest: Bd7, Qe4, then Be6 after thinking.
    table = Table(AFTER_D4_D6_QD3, clock)
    table.move(1.0, "c8", "d7").press(1.6)
    table.move(4.0, "d3", "e4").press(4.6)
    table.move(8.0, "d7", "e6").press(8.6)
    line, events, _rec = run(table, AFTER_D4_D6_QD3)
    assert line == ["Bd7", "Qe4", "Be6"]
    assert not any(isinstance(e, MoveRetracted) for e in events)


@pytest.mark.parametrize("clock", [False, True], ids=["no-clock", "clock"])
@pytest.mark.parametrize("rest", RESTS)
def test_final_slide_before_the_kings_signal(rest: float, clock: bool) -> None:
    # The last move rests on a4 on its way to a7, then the kings signal 1-0 (d5, e4).
    fen = "4k3/8/8/8/8/8/8/R3K3 w - - 0 1"
    table = Table(fen, clock)
    landed = table.slide(1.0, ["a1", "a4", "a7"], rest)
    table.press(landed + 0.3)
    t = landed + 2.5
    table.move(t, "e1", "e4").move(t + 1.0, "e8", "d5")
    line, _events, rec = run(table, fen)
    assert line == ["Ra7"]
    assert rec.result == "1-0"


# ---------------------------------------------------------------------------- the corpora

GAMES = Path("/work/shared/testdata/games")
WORLD_CUP = read_games(GAMES / "worldcup2025-rapid-blitz-clk.pgn")
KASPAROV = read_games(GAMES / "kasparov.pgn", 300)


def hesitating(rest: float) -> Habits:
    """The realistic habits with every bishop, rook and queen resting `rest` s on one or
    two squares of its path (think times capped so a game replays in milliseconds)."""
    return dataclasses.replace(
        Habits.realistic(), max_think=8.0, hesitate=1.0, hesitate_rest=(rest, rest)
    )


def check_world_cup(index: int, rest: float, seed: int) -> None:
    check_clocked_game(WORLD_CUP[index], hesitating(rest), seed)


def check_kasparov_without_clock(index: int, rest: float, seed: int) -> None:
    game = KASPAROV[index]
    moves = list(game.mainline_moves())
    perf, _events, line = replay(
        moves,
        habits=hesitating(rest),
        seed=seed,
        result=game.headers.get("Result"),
        with_clock=False,
    )
    assert line.ucis == [m.uci() for m in moves]
    if perf.result_signal is not None:
        assert line.result == perf.result_signal


REST_LENGTHS = [0.0, 0.25, 0.5, 0.75, 1.0]


@pytest.mark.parametrize("rest", REST_LENGTHS)
@pytest.mark.parametrize("chunk", range(0, len(WORLD_CUP), 36))
def test_world_cup_with_hesitating_slides_is_exact(chunk: int, rest: float) -> None:
    for index in range(chunk, min(chunk + 36, len(WORLD_CUP))):
        check_world_cup(index, rest, seed=index)


@pytest.mark.parametrize("rest", REST_LENGTHS)
@pytest.mark.parametrize("chunk", range(0, 100, 50))
def test_kasparov_without_clock_with_hesitating_slides_is_exact(chunk: int, rest: float) -> None:
    for index in range(chunk, chunk + 50):
        check_kasparov_without_clock(index, rest, seed=1000 + index)


# Derandomized: the same 40 draws on every machine, so CI judges the code, not the luck of
# the draw (a rare no-clock case, a repetition walked through a hesitation, is a known gap
# listed in docs/reconstruction.md).
CORPUS_SETTINGS = settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)


@CORPUS_SETTINGS
@given(st.integers(0, len(WORLD_CUP) - 1), st.floats(0.0, 1.0), st.integers(0, 2**32 - 1))
def test_any_world_cup_game_at_any_rest_length_is_exact(index: int, rest: float, seed: int) -> None:
    check_world_cup(index, rest, seed)


@CORPUS_SETTINGS
@given(st.integers(0, len(KASPAROV) - 1), st.floats(0.0, 1.0), st.integers(0, 2**32 - 1))
def test_any_kasparov_game_without_clock_at_any_rest_length_is_exact(
    index: int, rest: float, seed: int
) -> None:
    check_kasparov_without_clock(index, rest, seed)
