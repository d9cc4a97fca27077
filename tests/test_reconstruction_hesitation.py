"""Hesitating slides: a bishop, rook or queen rests on a square of its path before its real
square. The issue's examples, with and without a clock, then the corpora with the habit.

With a clock the position at the mover's lever press is the truth: a move the board no
longer shows at the press is corrected first. Without one, the same piece moving on from
its landing square before the opponent moves corrects that move. A transposed path through
the resting square (Bd7, Qe4, Be6 for Be6, Qe4) is never preferred to one through every
position seen.
"""

from __future__ import annotations

import chess
import pytest
from reconstruction_support import Script

from boards.position import CODE_TO_SYMBOL, square_to_index
from boards.reconstruction import MovePlayed, MoveRetracted, Reconstructor
from clocks.reading import ClockReading

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


@pytest.mark.parametrize("clock", [False, True], ids=["no-clock", "clock"])
@pytest.mark.parametrize("rest", RESTS)
def test_bishop_resting_on_d7_is_recorded_on_e6(rest: float, clock: bool) -> None:
    table = Table(AFTER_D4_D6_QD3, clock)
    landed = table.slide(1.0, ["c8", "d7", "e6"], rest)
    table.press(landed + 0.3)
    table.move(landed + 1.5, "b1", "c3").press(landed + 2.1)
    line, events, rec = run(table, AFTER_D4_D6_QD3)
    assert line == ["Be6", "Nc3"]
    if clock:
        assert all(c is not None for c in rec.clocks)
    # A rest long enough to be recorded is replaced, never left standing.
    assert ("Bd7" in sans(events)) == any(isinstance(e, MoveRetracted) for e in events)


@pytest.mark.parametrize("clock", [False, True], ids=["no-clock", "clock"])
@pytest.mark.parametrize("rest", RESTS)
def test_rook_resting_on_c1_is_recorded_on_b1(rest: float, clock: bool) -> None:
    table = Table(ROOK_ENDING, clock)
    landed = table.slide(1.0, ["d1", "c1", "b1"], rest)
    table.press(landed + 0.25)
    table.move(landed + 1.5, "h7", "h6").press(landed + 2.0)
    line, _events, _rec = run(table, ROOK_ENDING)
    assert line == ["Rb1", "h6"]


@pytest.mark.parametrize("clock", [False, True], ids=["no-clock", "clock"])
@pytest.mark.parametrize("rest", RESTS)
def test_bishop_resting_on_d2_and_e3_is_recorded_on_f4(rest: float, clock: bool) -> None:
    table = Table(AFTER_D4_D5, clock)
    landed = table.slide(1.0, ["c1", "d2", "e3", "f4"], rest)
    table.press(landed + 0.2)
    table.move(landed + 2.0, "g8", "f6").press(landed + 2.5)
    line, _events, rec = run(table, AFTER_D4_D5)
    assert line == ["Bf4", "Nf6"]
    if clock:
        assert all(c is not None for c in rec.clocks)


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
