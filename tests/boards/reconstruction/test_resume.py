"""A reconstructor resumed mid-game follows the board from there, without replaying."""

from __future__ import annotations

import chess

from boards.position import BoardPosition
from boards.reconstruction import MovePlayed, MoveRetracted, Reconstructor


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
