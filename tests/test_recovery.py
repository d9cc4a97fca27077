"""Placing ourselves in a board's EEPROM log after a disconnect, and replaying what we missed."""

from __future__ import annotations

import itertools

import chess

from boards.dgt.eeprom import ClockTime, PieceChange, Tag, TagEvent
from boards.events import ClockStamped, PositionSeen
from boards.position import BoardPosition, square_to_index
from boards.recovery import RecentChanges, missed_events, replay

START = BoardPosition.from_fen(chess.STARTING_FEN)


def move_changes(board: chess.Board, uci: str) -> list[PieceChange]:
    """The square changes a simple move makes: origin emptied, piece placed."""
    move = chess.Move.from_uci(uci)
    piece = board.piece_at(move.from_square)
    assert piece is not None
    code = BoardPosition.from_board(chess.BaseBoard(f"8/8/8/8/8/8/8/{piece.symbol()}7")).codes[56]
    board.push(move)
    return [
        PieceChange(square_to_index(move.from_square), 0),
        PieceChange(square_to_index(move.to_square), code),
    ]


def test_repeated_position_is_not_mistaken_for_our_place() -> None:
    # Nf3 Nf6 Ng1 Ng8 returns to the start position: a position match alone would skip
    # everything; matching the run of changes we saw live does not.
    board = chess.Board()
    log: list[PieceChange | ClockTime | TagEvent] = [TagEvent(Tag.POWERUP), TagEvent(Tag.BEGINPOS)]
    seen = RecentChanges()
    for uci in ["e2e4", "e7e5"]:
        for change in move_changes(board, uci):
            log.append(change)
            seen.add(change.index, change.code)
    last_known = BoardPosition.from_board(board)
    missed_part: list[PieceChange | ClockTime | TagEvent] = []
    for uci in ["g1f3", "g8f6", "f3g1", "f6g8"]:
        missed_part += move_changes(board, uci)
        missed_part.append(ClockTime(left=len(missed_part) % 2 == 0, seconds=5000))
    missed = missed_events(log + missed_part, seen.as_tuple(), last_known)
    assert missed == missed_part


def test_without_live_changes_the_last_anchor_places_us() -> None:
    board = chess.Board()
    log: list[PieceChange | ClockTime | TagEvent] = [TagEvent(Tag.BEGINPOS)]
    missed_part = move_changes(board, "d2d4")
    missed = missed_events(log + list(missed_part), (), START)
    assert missed == missed_part


def test_unplaceable_log_gives_none() -> None:
    assert missed_events([PieceChange(1, 2)], ((5, 5),) * 6, START) is None


def test_replay_positions_and_clock_stamps_in_order_inside_the_outage() -> None:
    board = chess.Board()
    changes = move_changes(board, "e2e4")
    events = [*changes, ClockTime(left=True, seconds=5395)]
    out = replay(events, START, t_lost=100.0, t_back=110.0, board="10001")
    assert [type(o) for o in out] == [PositionSeen, PositionSeen, ClockStamped]
    assert all(o.board == "10001" and o.recovered for o in out)
    final = out[1]
    assert isinstance(final, PositionSeen)
    assert final.position.board_fen() == board.board_fen()
    times = [o.t for o in out]
    assert times == sorted(times) and times[0] > 100.0 and times[-1] < 110.0
    clock = out[2]
    assert isinstance(clock, ClockStamped) and clock.side == "left" and clock.seconds == 5395


def test_fast_changes_stay_close_together() -> None:
    events = [
        PieceChange(56, 0),
        PieceChange(57, 2, fast=True),
        PieceChange(57, 0, fast=True),
        PieceChange(58, 2),
    ]
    out = replay(events, START, 0.0, 60.0, "10001")
    gaps = [b.t - a.t for a, b in itertools.pairwise(out)]
    assert gaps[0] < 0.2 and gaps[1] < 0.2 and gaps[2] > 1.0
