"""Moves as an arbiter types them from a scoresheet: SAN or UCI, move numbers and all."""

from __future__ import annotations

from collections.abc import Sequence

import chess

from broadcast.service.event_service import ActionError

__all__ = ["split_moves", "to_ucis"]


def to_ucis(start_fen: str, moves: Sequence[str]) -> list[str]:
    """Moves in UCI or SAN (an arbiter types what the scoresheet says) as UCI."""
    try:
        board = chess.Board(start_fen)
    except ValueError as exc:
        raise ActionError(f"the game's start position is not valid: {exc}") from None
    out: list[str] = []
    for ply, text in enumerate(moves, 1):
        token = text.strip()
        if not token:
            continue
        try:
            move = chess.Move.from_uci(token)
            if move not in board.legal_moves:
                raise ValueError(token)
        except ValueError:
            try:
                move = board.parse_san(token)
            except ValueError:
                raise ActionError(
                    f"move {ply} ({token!r}) is neither legal UCI nor legal SAN here"
                ) from None
        out.append(move.uci())
        board.push(move)
    return out


def split_moves(text: str) -> list[str]:
    """'1. e4 e5 2. Nf3' -> ['e4', 'e5', 'Nf3'] (move numbers and results dropped)."""
    out = []
    for token in text.replace(".", ". ").split():
        bare = token.rstrip(".")
        if not bare or bare.isdigit() or token in ("1-0", "0-1", "1/2-1/2", "*"):
            continue
        out.append(token)
    return out
