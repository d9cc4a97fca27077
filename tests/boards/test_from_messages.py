"""A bus board's change list folded into driver events (`boards.from_messages`), with
the bytes written here from DGT's description of the event stream: a piece change is
0x40 | piece, then the square; a clock time 0x60 | (0x10 for the left side) | hours, then
BCD minutes and seconds."""

from __future__ import annotations

import chess
from hypothesis import given
from hypothesis import strategies as st

from boards.dgt.bus import BusReply
from boards.dgt.codes import BusReplyId
from boards.driver_events import ClockStamped, LogRecovered, LogStep, PositionSeen
from boards.from_messages import BoardStream
from boards.position import BoardPosition
from tests.support.event_log import fen_after, idx

START = BoardPosition.from_fen(chess.STARTING_FEN)


def piece(square: str, code: int) -> bytes:
    return bytes([0x40 | code, idx(square)])


def press(left: bool, seconds: int) -> bytes:
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    bcd = lambda n: (n // 10) << 4 | n % 10  # noqa: E731
    return bytes([0x60 | (0x10 if left else 0) | hours, bcd(minutes), bcd(secs)])


def update(data: bytes) -> BusReply:
    return BusReply(BusReplyId.UPDATE, 10001, data)


def stream() -> BoardStream:
    s = BoardStream("10001")
    s.set_position(0.0, START)
    return s


def test_one_move_in_a_change_list_is_a_position_per_change_and_its_press() -> None:
    s = stream()
    out = s.feed_bus(5.0, update(piece("e2", 0) + piece("e4", 1) + press(True, 5399)))
    assert [type(e) for e in out] == [PositionSeen, PositionSeen, ClockStamped]
    assert out[-1] == ClockStamped(5.0, "10001", "left", 5399, recovered=False)
    assert s.position is not None and s.position.board_fen() == fen_after("e2e4")


def test_several_moves_in_one_change_list_are_one_log_read_back_press_by_press() -> None:
    s = stream()
    data = (
        piece("e2", 0) + piece("e4", 1) + press(True, 5399)
        + piece("e7", 0) + piece("e5", 7) + press(False, 5398)
        + piece("g1", 0)  # White reaches for the knight: no press yet
    )  # fmt: skip
    (got,) = s.feed_bus(7.0, update(data))
    assert isinstance(got, LogRecovered)
    assert (got.t, got.board, got.start, got.seen, got.anchor) == (7.0, "10001", START, -1, "known")
    assert [step.presses for step in got.steps] == [
        (),
        (("left", 5399),),
        (),
        (("right", 5398),),
        (),
    ]
    after = [p.board_fen() for p in got.positions()]
    assert after[1] == fen_after("e2e4") and after[3] == fen_after("e2e4", "e7e5")
    # The stream goes on from the list's last position, and remembers its changes.
    assert s.position == got.final
    assert list(s.recent.as_tuple())[-5:] == [c for step in got.steps for c in step.changes]


def test_a_press_before_any_change_is_a_step_of_its_own() -> None:
    s = stream()
    data = press(False, 5400) + piece("e2", 0) + piece("e4", 1) + press(True, 5399)
    (got,) = s.feed_bus(1.0, update(data))
    assert isinstance(got, LogRecovered)
    assert got.steps[0].changes == () and got.steps[0].presses == (("right", 5400),)
    assert got.final.board_fen() == fen_after("e2e4")


def test_several_moves_are_read_from_the_last_press_with_what_was_seen_since() -> None:
    s = stream()
    s.feed_bus(1.0, update(piece("e2", 0) + piece("e4", 1) + press(True, 5399)))
    s.feed_bus(2.0, update(piece("e7", 0)))  # Black lifts the pawn: seen live
    data = piece("e5", 7) + press(False, 5398) + piece("g1", 0) + piece("f3", 3)
    (got,) = s.feed_bus(9.0, update(data + press(True, 5390)))
    assert isinstance(got, LogRecovered)
    assert got.start.board_fen() == fen_after("e2e4") and got.seen == 0
    assert got.steps[0] == LogStep(((idx("e7"), 0),))
    assert got.final.board_fen() == fen_after("e2e4", "e7e5", "g1f3")
    # The next list of several moves goes on along the same way (three presses are kept).
    (after,) = s.feed_bus(
        12.0, update(piece("b8", 0) + piece("c6", 9) + press(False, 5380) + press(True, 5390))
    )
    assert isinstance(after, LogRecovered)
    assert after.start == got.start and after.seen == len(got.steps) - 1
    assert after.final.board_fen() == fen_after("e2e4", "e7e5", "g1f3", "b8c6")
    # Past three presses, the way begins at the first one kept: after 1...e5.
    assert s.way.start is not None
    assert s.way.start.board_fen() == fen_after("e2e4", "e7e5")


def test_a_move_the_game_has_not_taken_is_on_the_way_of_the_next_list() -> None:
    """A list with a move and the next lift (the reconstruction may not have taken a move
    whose position stood no time), then a list of two moves: read from the press before,
    that move and the lift steps the host saw."""
    s = stream()
    s.feed_bus(1.0, update(piece("e2", 0) + piece("e4", 1) + press(True, 5399)))
    s.feed_bus(2.0, update(piece("e7", 0) + piece("e5", 7) + press(False, 5398) + piece("g1", 0)))
    data = piece("f3", 3) + press(True, 5390) + piece("b8", 0) + piece("c6", 9)
    (burst,) = s.feed_bus(3.0, update(data + press(False, 5380)))
    assert isinstance(burst, LogRecovered)
    assert burst.start.board_fen() == fen_after("e2e4") and burst.seen == 2
    positions = [p.board_fen() for p in burst.positions()]
    assert positions[1] == fen_after("e2e4", "e7e5")  # 1...e5, pressed, seen live
    assert burst.steps[1].presses == (("right", 5398),)
    assert burst.final.board_fen() == fen_after("e2e4", "e7e5", "g1f3", "b8c6")


def test_a_dump_forgets_the_way_from_the_last_press() -> None:
    s = stream()
    s.feed_bus(1.0, update(piece("e2", 0) + piece("e4", 1) + press(True, 5399)))
    s.set_position(2.0, BoardPosition.from_fen(chess.Board(fen_after("e2e4") + " b - - 0 1").fen()))
    (got,) = s.feed_bus(
        3.0, update(piece("e7", 0) + piece("e5", 7) + press(False, 1) + press(True, 1))
    )
    assert isinstance(got, LogRecovered) and got.seen == -1
    assert got.start.board_fen() == fen_after("e2e4")


@given(st.binary(max_size=200))
def test_any_change_list_gives_events_and_a_position(data: bytes) -> None:
    s = stream()
    out = s.feed_bus(1.0, update(data))
    final = s.position
    assert final is not None
    shown = [e.position for e in out if isinstance(e, PositionSeen)]
    shown += [e.final for e in out if isinstance(e, LogRecovered)]
    assert not shown or shown[-1] == final
