"""Which squares a board shows differently from the game's position: what the arbiter
must put right on a spare board, or after setting up a position. Pure."""

from __future__ import annotations

import chess

__all__ = ["differing_squares", "placement_of"]


def placement_of(fen: str | None) -> str | None:
    """The piece placement (the FEN's first field) of a FEN or a placement; None for none
    or for text that is not a placement."""
    fields = fen.split() if fen else []
    if not fields:
        return None
    placement = fields[0]
    try:
        chess.BaseBoard(placement)
    except ValueError:
        return None
    return placement


def differing_squares(game_fen: str, shown: str | None) -> tuple[str, ...]:
    """The squares (a1, e4, ...) where `shown` (what the board shows: a FEN or a piece
    placement) differs from the position of `game_fen`, in board order. A board that
    showed nothing yet, or something unreadable, differs nowhere that can be named: ()."""
    expected = placement_of(game_fen)
    seen = placement_of(shown)
    if expected is None or seen is None:
        return ()
    a, b = chess.BaseBoard(expected), chess.BaseBoard(seen)
    return tuple(chess.square_name(sq) for sq in chess.SQUARES if a.piece_at(sq) != b.piece_at(sq))
