"""Flag fall (Laws 6.9) and "can this side ever checkmate" (Laws 5.2.2, 6.9).

The player whose flag fell loses, unless the opponent cannot checkmate by any possible
series of legal moves: then the game is drawn. Counting material alone (python-chess's
`has_insufficient_material`) is not the rule: K+N against K+P is a LOSS on time, because
a helpmate exists (the pawn side's own pieces can block their king).

What `can_checkmate` decides (documented in docs/arbiter.md, each case tested):

Material (exact, after the known helpmate results):
- a side with a pawn, a rook or a queen can mate (unless the position is blocked, below);
- a bare king cannot;
- two minor pieces (N+N, B+N, bishops on both square colours) can;
- a lone knight (any number of extra same-side kings aside) can mate only if the
  opponent has something other than queens to block with: a pawn, knight, bishop or rook;
- bishops all on one square colour can mate only if the opponent has a pawn or a knight,
  or any bishop stands on the other square colour (a blocker on the right squares).

Blocked positions (sound, not complete): kings and pawns only, every pawn frozen (the
square ahead occupied by a pawn, no pawn can capture another), and neither king can
walk (around the squares enemy pawns attack) to an enemy pawn it could take. Nothing
can ever move but the kings, and kings never give check: no side can mate. Positions
with pieces behind a locked pawn chain are not proven dead (they count as "can mate"),
so a loss on time is proposed there and the arbiter decides.
"""

from __future__ import annotations

import chess

from broadcast.games.game_events import Colour, GameResultText


def _colour(colour: Colour) -> chess.Color:
    return chess.WHITE if colour == "white" else chess.BLACK


def material_can_mate(board: chess.Board, colour: chess.Color) -> bool:
    """Whether `colour`'s material could ever mate, given the opponent's material."""
    own = board.occupied_co[colour]
    them = board.occupied_co[not colour]
    if own & (board.pawns | board.rooks | board.queens):
        return True
    knights = own & board.knights
    bishops = own & board.bishops
    n_knights = chess.popcount(knights)
    if not knights and not bishops:
        return False  # a bare king
    if n_knights >= 2 or (knights and bishops):
        return True
    if bishops & chess.BB_LIGHT_SQUARES and bishops & chess.BB_DARK_SQUARES:
        return True  # own bishops on both square colours
    any_bishops = board.bishops
    both_colours = bool(any_bishops & chess.BB_LIGHT_SQUARES) and bool(
        any_bishops & chess.BB_DARK_SQUARES
    )
    if knights:
        # One knight: mate needs an enemy blocker that is not a queen (a queen next to its
        # king can always take the knight or step out); pawns, minors and rooks will do.
        return bool(them & (board.pawns | board.knights | board.bishops | board.rooks))
    # Bishops on one colour only: the mated king needs blockers on squares of the other
    # colour that the bishop cannot cover: an enemy pawn or knight, or a bishop there.
    return bool(them & (board.pawns | board.knights)) or both_colours


def _frozen_pawns(board: chess.Board) -> bool:
    """Every pawn is blocked by a pawn ahead and none can capture another pawn."""
    for square in chess.scan_forward(board.pawns):
        colour = bool(board.occupied_co[chess.WHITE] & chess.BB_SQUARES[square])
        ahead = square + 8 if colour == chess.WHITE else square - 8
        if not 0 <= ahead < 64 or not board.pawns & chess.BB_SQUARES[ahead]:
            return False
        if chess.BB_PAWN_ATTACKS[colour][square] & board.pawns & board.occupied_co[not colour]:
            return False
    return True


def _king_reaches_enemy_pawn(board: chess.Board, colour: chess.Color) -> bool:
    """Can `colour`'s king walk to an enemy pawn it may take? Squares attacked by enemy
    pawns are off limits (pawns never move here); the enemy king is ignored, which only
    makes the walk easier: an over-estimate, so a "no" is safe."""
    king = board.king(colour)
    if king is None:
        return True
    enemy_pawns = board.pawns & board.occupied_co[not colour]
    attacked = 0
    for square in chess.scan_forward(enemy_pawns):
        attacked |= chess.BB_PAWN_ATTACKS[not colour][square]
    own_pawns = board.pawns & board.occupied_co[colour]
    seen = chess.BB_SQUARES[king]
    frontier = [king]
    while frontier:
        square = frontier.pop()
        for step in chess.scan_forward(chess.BB_KING_ATTACKS[square] & ~seen):
            bit = chess.BB_SQUARES[step]
            seen |= bit
            if bit & attacked or bit & own_pawns:
                continue
            if bit & enemy_pawns:
                return True  # an undefended enemy pawn: taking it unlocks the position
            frontier.append(step)
    return False


def blocked_dead(board: chess.Board) -> bool:
    """Kings and frozen pawns only, and no king can ever take a pawn: nobody can mate."""
    if board.occupied & ~(board.kings | board.pawns):
        return False
    if not board.pawns:
        return False  # bare kings are the material rule's business
    if not _frozen_pawns(board):
        return False
    return not _king_reaches_enemy_pawn(board, chess.WHITE) and not _king_reaches_enemy_pawn(
        board, chess.BLACK
    )


def can_checkmate(board: chess.Board, colour: Colour) -> bool:
    """Could `colour` checkmate by some series of legal moves (see the module notes)?"""
    side = _colour(colour)
    if not material_can_mate(board, side):
        return False
    return not blocked_dead(board)


def is_dead_position(board: chess.Board) -> bool:
    """Neither side can ever checkmate (Laws 5.2.2): the game is drawn."""
    return not can_checkmate(board, "white") and not can_checkmate(board, "black")


def flag_fall_result(board: chess.Board, flagged: Colour) -> tuple[GameResultText, str]:
    """The result a flag fall calls for in `board`, and why (for the proposal's detail)."""
    opponent: Colour = "black" if flagged == "white" else "white"
    if can_checkmate(board, opponent):
        result: GameResultText = "0-1" if flagged == "white" else "1-0"
        return result, f"{flagged} flag fell; {opponent} can still checkmate"
    return "1/2-1/2", f"{flagged} flag fell, but {opponent} cannot checkmate by any legal series"


__all__ = [
    "blocked_dead",
    "can_checkmate",
    "flag_fall_result",
    "is_dead_position",
    "material_can_mate",
]
