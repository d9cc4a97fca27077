"""Automatic results from the position (Laws 5.1.2, 5.2.1, 5.2.2, 9.6) and the early-draw
rule of the section. Pure functions of a board and its history.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass

import chess

from broadcast.arbiter.flag import is_dead_position
from broadcast.config.model import EarlyDrawRule
from broadcast.games.game_events import GameResultText, ResultReason
from broadcast.phrases import Value
from broadcast.tournament.bye_policy import check_draw_offer

FIVEFOLD = 5
SEVENTY_FIVE_MOVES_PLIES = 150


@dataclass(frozen=True, slots=True)
class PositionResult:
    """A result the position itself decides, with a sentence for the arbiter."""

    result: GameResultText
    reason: ResultReason
    detail: str


def repetition_key(fen: str) -> str:
    """What makes positions "the same" (Laws 9.2.3): placement, side to move, castling
    rights and en passant; the move counters do not count."""
    return " ".join(fen.split()[:4])


def position_result(fen: str, history: Iterable[str] = ()) -> PositionResult | None:
    """The result `fen` decides, if any. `history`: the FENs of every earlier position of
    the game (start included), for the fivefold repetition.

    Checkmate comes first: a mate on the move that also completes 75 moves or a fifth
    repetition stands (Laws 9.6.2)."""
    board = chess.Board(fen)
    if board.is_checkmate():
        winner = "black" if board.turn == chess.WHITE else "white"
        return PositionResult(
            "0-1" if winner == "black" else "1-0", "checkmate", f"{winner} checkmates"
        )
    if board.is_stalemate():
        side = "white" if board.turn == chess.WHITE else "black"
        return PositionResult("1/2-1/2", "stalemate", f"{side} to move has no legal move")
    if is_dead_position(board):
        return PositionResult(
            "1/2-1/2", "dead-position", "neither side can checkmate by any legal series of moves"
        )
    key = repetition_key(fen)
    count = 1 + sum(1 for earlier in history if repetition_key(earlier) == key)
    if count >= FIVEFOLD:
        return PositionResult(
            "1/2-1/2", "repetition", f"the same position has appeared {count} times"
        )
    if board.halfmove_clock >= SEVENTY_FIVE_MOVES_PLIES:
        return PositionResult(
            "1/2-1/2",
            "75-moves",
            "75 moves by each side without a capture or a pawn move",
        )
    return None


def early_draw_breach(
    rule: EarlyDrawRule | None, *, plies: int, elapsed_seconds: float
) -> Value | None:
    """Why a draw by agreement after `plies` plies and `elapsed_seconds` of play breaks the
    section's early-draw rule, or None. White's 30th move (59 plies) reaches move 30, the
    usual reading of "no draw before move 30" (`bye_policy.move_reached`)."""
    decision = check_draw_offer(
        rule,
        plies=plies,
        elapsed=dt.timedelta(seconds=max(0.0, elapsed_seconds)),
    )
    return None if decision.allowed else decision.why


__all__ = [
    "FIVEFOLD",
    "SEVENTY_FIVE_MOVES_PLIES",
    "PositionResult",
    "early_draw_breach",
    "position_result",
    "repetition_key",
]
