"""Search for the legal move sequence that turns the game's position into a seen placement.

Depth-first with iterative deepening, pruned by cheap bitboard bounds:

- every move fills at most one square with the mover's piece (castling two), so the
  squares where the target holds a side's piece that is not there yet ("fill") bound
  how many moves that side still needs;
- a side that loses pieces needs the other side to capture, and with one move left the
  capturer stays where it captured;
- within two plies the first move's origin always differs from the target, and the last
  move's origin and destination both differ, which lets python-chess generate only
  those moves (from_mask / to_mask).
"""

from __future__ import annotations

import itertools

import chess

from boards.reconstruction.keys import Key, board_key, colour_mask, diff_mask, occupied

Line = tuple[chess.Move, ...]


def _fill(now: Key, target: Key, white: bool) -> int:
    """Squares where the target has one of this side's pieces that `now` lacks there."""
    c_now = colour_mask(now, white)
    c_tgt = colour_mask(target, white)
    mask = 0
    for slot in range(6):
        mask |= target[slot] & c_tgt & ~(now[slot] & c_now)
    return mask


def _bounded(board: chess.Board, now: Key, target: Key, depth: int) -> tuple[bool, int, bool]:
    """(possible, fill mask of the side to move, tight) for `depth` plies left."""
    side = board.turn
    moves_side = (depth + 1) // 2
    moves_other = depth // 2
    fill_side = _fill(now, target, side)
    fill_other = _fill(now, target, not side)
    bonus_side = 1 if board.has_castling_rights(side) else 0
    bonus_other = 1 if board.has_castling_rights(not side) else 0
    n_side = fill_side.bit_count()
    if n_side > moves_side + bonus_side:
        return False, 0, False
    if fill_other.bit_count() > moves_other + bonus_other:
        return False, 0, False
    # Pieces lost by a side are captured by the other side.
    lost_side = colour_mask(now, side).bit_count() - colour_mask(target, side).bit_count()
    lost_other = colour_mask(now, not side).bit_count() - colour_mask(target, not side).bit_count()
    if lost_side > moves_other or lost_other > moves_side:
        return False, 0, False
    # With two plies left, the other side's only move makes any capture of the side's
    # pieces and stays there: that square needs filling, unless the side captured an
    # identical piece of the other side there first (then the other side lost a piece).
    if depth == 2 and lost_side > 0 and not fill_other and lost_other <= 0:
        return False, 0, False
    return True, fill_side, n_side >= moves_side + bonus_side and n_side > 0


def _dfs(board: chess.Board, target: Key, depth: int, found: list[Line], limit: int) -> None:
    """Collect up to `limit` lines of exactly `depth` plies reaching `target`."""
    now = board_key(board)
    if depth == 0:
        if now == target:
            found.append(())
        return
    if now == target:
        return  # reached earlier: iterative deepening already found the shorter line
    ok, fill_side, tight = _bounded(board, now, target, depth)
    if not ok:
        return
    diff = diff_mask(now, target)
    from_mask = diff if depth <= 2 else chess.BB_ALL
    to_mask = diff if depth == 1 else chess.BB_ALL
    white = board.turn
    tgt_side = colour_mask(target, white)
    for move in board.generate_legal_moves(from_mask, to_mask):
        if tight and not board.is_castling(move):
            to_bit = chess.BB_SQUARES[move.to_square]
            if not to_bit & fill_side:
                continue
            piece_type = move.promotion or board.piece_type_at(move.from_square)
            if piece_type is None or not target[piece_type - 1] & tgt_side & to_bit:
                continue
        board.push(move)
        tails: list[Line] = []
        _dfs(board, target, depth - 1, tails, limit - len(found))
        board.pop()
        found.extend((move, *tail) for tail in tails)
        if len(found) >= limit:
            return


def find_lines(
    board: chess.Board, target: Key, max_depth: int, min_depth: int = 1, limit: int = 1
) -> list[Line]:
    """Up to `limit` legal move sequences of the smallest length in min_depth..max_depth
    that take `board` to the placement `target`. `board` is left as it was."""
    for depth in range(min_depth, max_depth + 1):
        found: list[Line] = []
        _dfs(board, target, depth, found, limit)
        if found:
            return found
    return []


def find_line(board: chess.Board, target: Key, max_depth: int, min_depth: int = 1) -> Line | None:
    """The first shortest legal move sequence from `board` to `target`, or None."""
    found = find_lines(board, target, max_depth, min_depth, 1)
    return found[0] if found else None


def returns_home(line: Line) -> bool:
    """True when some piece of the line comes back to the square it left: a shuffle that
    explains a half-made position too easily (a piece in the hand looks "captured")."""
    where: dict[chess.Square, chess.Square] = {}  # current square -> origin square
    for move in line:
        origin = where.pop(move.from_square, move.from_square)
        where.pop(move.to_square, None)
        if move.to_square == origin:
            return True
        where[move.to_square] = origin
    return False


def line_keys(board: chess.Board, line: Line) -> list[Key]:
    """The keys of the positions along `line` (its start included)."""
    keys = [board_key(board)]
    for move in line:
        board.push(move)
        keys.append(board_key(board))
    for _ in line:
        board.pop()
    return keys


def consistency(keys: list[Key], observed: list[Key]) -> int:
    """How many observed positions fit between two consecutive positions of a line: each
    square as in one of them, or empty where the step changes it (a piece in the air).
    Ranks lines that reach the same placement (bxa4 bxa4 / bxc4 bxc4, transpositions)."""
    score = 0
    for seen in observed:
        empty = ~occupied(seen)
        for a, b in itertools.pairwise(keys):
            step = diff_mask(a, b)
            fits = ~diff_mask(seen, a) | ~diff_mask(seen, b) | (empty & step)
            if fits & chess.BB_ALL == chess.BB_ALL:
                score += 1
                break
    return score


def placement_changes(a: Key, b: Key) -> int:
    """How many squares differ (a cheap distance for hints)."""
    return diff_mask(a, b).bit_count()


__all__ = [
    "Line",
    "consistency",
    "find_line",
    "find_lines",
    "line_keys",
    "placement_changes",
    "returns_home",
]
