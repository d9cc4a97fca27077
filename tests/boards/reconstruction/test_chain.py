"""Chain resync: a stretch the live search fell behind on is explained move by move.

When the board gets more plies ahead than the live search reaches (a blitz finish faster
than the stability waits, a piece held in the hand, an outage replayed from the EEPROM
log), the positions seen since the last game node are explained as a chain of legal
moves, so the exact game comes back instead of staying out of sync.
"""

from __future__ import annotations

import chess

from boards.dgt.eeprom import PieceChange
from boards.position import SYMBOL_TO_CODE, BoardPosition, square_to_index
from boards.reconstruction import (
    BackInSync,
    GameLine,
    MovePlayed,
    MoveRetracted,
    OutOfSync,
    Reconstructor,
)
from boards.reconstruction.drive import Input, drive
from boards.recovery import recover
from tests.support.reconstruction import Script

OPENING = ["e4", "e5", "Nf3", "Nc6"]
# Twelve plies of a blitz finish: captures, checks, a recapture with the knight.
SCRAMBLE = ["Bc4", "Bc5", "c3", "Nf6", "d4", "exd4", "cxd4", "Bb4+", "Bd2", "Bxd2+", "Nbxd2", "d5"]


def _play_by_hand(script: Script, board: chess.Board, san: str, t: float) -> float:
    """Make one move on the script's board the way a hurried hand does (victim off first,
    lift, land 0.3 s later); returns when the piece has landed."""
    move = board.parse_san(san)
    frm, to = chess.square_name(move.from_square), chess.square_name(move.to_square)
    if board.is_capture(move) and not board.is_en_passant(move):
        script.put(t, to, None)
        t += 0.2
    script.move(t, frm, to)
    board.push(move)
    return t + 0.3


def test_blitz_finish_of_12_plies_while_out_of_sync_is_recovered_exactly() -> None:
    script = Script()
    board = chess.Board()
    t = 1.0
    for san in OPENING:  # calm moves, each left standing for seconds
        t = _play_by_hand(script, board, san, t) + 3.0
    # The scramble: every lift and landing is seen, none stays put for the 0.5 s
    # stability wait; after 4 plies White holds the d-pawn in the hand for 4 s (the board
    # goes out of sync), then both play on.
    for i, san in enumerate(SCRAMBLE):
        if i == 4:
            script.put(t, "d2", None)
            t += 4.0
            script.put(t, "d4", "P")
            board.push_san(san)
            t += 0.3
            continue
        t = _play_by_hand(script, board, san, t) + 0.05
    events, line = script.run(until=t + 10.0)
    assert any(isinstance(e, OutOfSync) for e in events)
    assert any(isinstance(e, BackInSync) for e in events)
    assert not any(isinstance(e, MoveRetracted) for e in events)
    assert line.sans == OPENING + SCRAMBLE
    resynced = [e for e in events if isinstance(e, MovePlayed) and e.evidence == "resync"]
    assert len(resynced) >= len(SCRAMBLE) - 2


def test_unexplained_settled_position_in_a_stretch_stays_out_of_sync() -> None:
    # A spare queen laid on the board for two seconds in the middle of a fast stretch:
    # no chain of legal moves explains it, so nothing is guessed.
    script = Script()
    board = chess.Board()
    t = 1.0
    for san in OPENING:
        t = _play_by_hand(script, board, san, t) + 3.0
    for i, san in enumerate(SCRAMBLE[:8]):
        if i == 3:
            script.put(t, "a3", "Q")
            t += 2.0
            script.put(t, "a3", None)
        t = _play_by_hand(script, board, san, t) + 0.05
    events, line = script.run(until=t + 10.0)
    assert line.sans[: len(OPENING)] == OPENING
    assert any(isinstance(e, OutOfSync) for e in events)
    rec_board = chess.Board()
    for san in line.sans:
        rec_board.push_san(san)  # whatever was recorded is legal
    assert len(line.sans) <= len(OPENING) + 2


def _eeprom_changes(board: chess.Board, sans: list[str]) -> list[PieceChange]:
    """What a board logs while nobody listens: each square change, a fast reply's changes
    flagged fast (< 250 ms apart)."""
    out: list[PieceChange] = []
    for i, san in enumerate(sans):
        move = board.parse_san(san)
        fast = i == 3  # the fourth ply is a quick recapture
        piece = board.piece_at(move.from_square)
        assert piece is not None

        def put(square: chess.Square, symbol: str | None, quick: bool = fast) -> None:
            code = SYMBOL_TO_CODE[symbol] if symbol else 0
            out.append(PieceChange(square_to_index(square), code, quick))

        if board.is_castling(move):
            rank = chess.square_rank(move.from_square)
            king_to = chess.square(6 if board.is_kingside_castling(move) else 2, rank)
            rook_from = chess.square(7 if board.is_kingside_castling(move) else 0, rank)
            rook_to = chess.square(5 if board.is_kingside_castling(move) else 3, rank)
            put(move.from_square, None)
            put(king_to, piece.symbol())
            put(rook_from, None)
            put(rook_to, "R" if piece.color else "r")
        else:
            if board.is_capture(move):
                put(move.to_square, None)
            put(move.from_square, None)
            put(move.to_square, piece.symbol())
        board.push(move)
    return out


def test_eeprom_recovered_stretch_of_6_plies_is_replayed_exactly() -> None:
    # Four plies live, then the cable is out while six plies are played (one of them a
    # quick recapture) on a board without a clock; on reconnect the driver reads the log
    # back as one burst without times, then reports the live board.
    board = chess.Board()
    items: list[tuple[float, Input]] = [(0.0, BoardPosition.from_board(board))]
    t = 2.0
    live = ["d4", "d5", "c4", "e6"]
    for san in live:
        board.push_san(san)
        items.append((t, BoardPosition.from_board(board)))
        t += 3.0
    missed = ["Nc3", "Nf6", "cxd5", "exd5", "Bg5", "Be7"]
    seen = _eeprom_changes(chess.Board(), live)
    changes = _eeprom_changes(board.copy(), missed)
    t_back = t + 40.0
    recent = [(c.index, c.code) for c in seen]
    recovered = recover(seen + changes, recent, BoardPosition.from_board(board), t_back, "10001")
    assert recovered is not None and recovered.anchor == "known"
    rec = Reconstructor()
    events = drive(rec, items, t_back)
    positions = [(recovered.start, ())] + [
        (p, step.presses) for p, step in zip(recovered.positions(), recovered.steps, strict=True)
    ]
    events += rec.feed_log(t_back, positions, recovered.seen + 1)
    for san in missed:
        board.push_san(san)
    events += drive(rec, [(t_back + 0.05, BoardPosition.from_board(board))], t_back + 30.0)
    line = GameLine()
    line.extend(events)
    assert line.sans == live + missed
    assert not any(isinstance(e, OutOfSync | MoveRetracted) for e in events)
    replayed = [e for e in events if isinstance(e, MovePlayed) and e.ply > len(live)]
    assert all(e.evidence == "resync" for e in replayed)
