"""A reconstructor resumed mid-game follows the board from there, without replaying."""

from __future__ import annotations

import chess

from boards.position import BoardPosition
from boards.reconstruction import MoveClocked, MovePlayed, MoveRetracted, Reconstructor
from clocks.reading import ClockReading


def position_after(*ucis: str) -> BoardPosition:
    board = chess.Board()
    for uci in ucis:
        board.push_uci(uci)
    return BoardPosition.from_board(board)


def test_resumed_game_continues_and_takes_back_into_the_known_moves() -> None:
    rec = Reconstructor()
    rec.resume(["e2e4", "e7e5", "g1f3"])
    assert rec.ply == 3
    out = rec.feed_position(10.0, position_after("e2e4", "e7e5", "g1f3"))
    out += rec.tick(11.0)
    assert not [e for e in out if isinstance(e, MovePlayed)]
    out = rec.feed_position(12.0, position_after("e2e4", "e7e5", "g1f3", "b8c6")) + rec.tick(14.0)
    played = [e for e in out if isinstance(e, MovePlayed)]
    assert [(e.ply, e.san) for e in played] == [(4, "Nc6")]
    # Back into the resumed part: Nc6 taken back (going back two plies here would be
    # ambiguous with Ng1 Nb8 played forward, which reconstruction rightly prefers).
    out = rec.feed_position(20.0, position_after("e2e4", "e7e5", "g1f3")) + rec.tick(25.0)
    assert any(isinstance(e, MoveRetracted) and e.ply == 3 for e in out)


def test_resume_refuses_an_illegal_line() -> None:
    rec = Reconstructor()
    try:
        rec.resume(["e2e5"])
    except ValueError as exc:
        assert "illegal" in str(exc)
    else:
        raise AssertionError("an illegal line must be refused")


def test_a_resumed_game_knows_its_clock_times_so_a_press_read_again_is_not_recounted() -> None:
    # A restart: 1.e4 e5 were recorded with their presses. The board's log, read back,
    # ends with Black's press after 1...e5: that press was counted already.
    shown = position_after("e2e4", "e7e5")
    log = [(shown, (("right", 893),))]
    rec = Reconstructor()
    rec.resume(["e2e4", "e7e5"], clocks=[895.0, 893.0])
    assert rec.feed_log(50.0, log, 0) == []
    assert [c.remaining if c else None for c in rec.clocks] == [895.0, 893.0]
    # Without the recorded times the same press completes the move that lacks one.
    bare = Reconstructor()
    bare.resume(["e2e4", "e7e5"], clocks=[895.0, None])
    out = bare.feed_log(50.0, log, 0)
    assert [(type(e).__name__, getattr(e, "ply", None)) for e in out] == [("MoveClocked", 2)]


def pressed(left: int, right: int, right_running: bool) -> ClockReading:
    return ClockReading(left, right, running=True, right_lever_high=right_running)


LINE = ["e2e4", "e7e5", "g1f3"]


def after_nf3(ran: bool = True) -> Reconstructor:
    """A restart between 2.Nf3 and White's press, the board showing 2.Nf3; `ran`: the
    record saw White's clock running last."""
    rec = Reconstructor()
    rec.resume(LINE, clocks=[895.0, 893.0, None], white_side="left")
    if ran:
        rec.clock_was_running("white", "left")
    rec.feed_position(10.0, position_after(*LINE))
    return rec


def test_a_press_read_only_after_a_restart_gives_the_last_move_its_time() -> None:
    # The first reading after the restart shows Black's clock running: White pressed.
    rec = after_nf3()
    out = rec.feed_clock(10.2, pressed(880, 893, right_running=True)) + rec.tick(15.0)
    assert [(type(e).__name__, getattr(e, "ply", None)) for e in out] == [("MoveClocked", 3)]
    assert [c.remaining if c else None for c in rec.clocks] == [895.0, 893.0, 880.0]
    # Not knowing which clock ran, the same reading only starts the clock: no time.
    bare = after_nf3(ran=False)
    bare.feed_clock(10.2, pressed(880, 893, right_running=True))
    bare.tick(15.0)
    assert [c.remaining if c else None for c in bare.clocks] == [895.0, 893.0, None]


def test_after_a_restart_the_mover_still_thinking_presses_later() -> None:
    rec = after_nf3()
    out = rec.feed_clock(10.2, pressed(882, 893, right_running=False)) + rec.tick(12.0)
    assert not [e for e in out if isinstance(e, MoveClocked)]
    out = rec.feed_clock(13.0, pressed(880, 893, right_running=True)) + rec.tick(18.0)
    assert [(type(e).__name__, getattr(e, "ply", None)) for e in out] == [("MoveClocked", 3)]
    assert rec.clocks[2] is not None and rec.clocks[2].remaining == 880.0
