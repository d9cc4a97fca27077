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
from collections.abc import Sequence
from dataclasses import dataclass

import chess

from boards.reconstruction.keys import (
    Key,
    board_key,
    colour_mask,
    diff_mask,
    material_feasible,
    occupied,
)

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


_SLIDERS = (chess.PAWN, chess.BISHOP, chess.ROOK, chess.QUEEN)


@dataclass(frozen=True, slots=True)
class Slide:
    """A step that moves one piece along a line: where it leaves, the squares between,
    and the piece (slot and colour), so a rest on its path can be recognised."""

    origin: int
    path: int
    slot: int
    white: bool


def slide_of(a: Key, b: Key) -> Slide | None:
    """The slide from placement `a` to `b`, if the step moves one pawn (a double step),
    bishop, rook or queen over at least one square (captures included), else None."""
    step = diff_mask(a, b)
    occ_a, occ_b = occupied(a), occupied(b)
    origin = step & occ_a & ~occ_b
    target = step & occ_b
    if origin.bit_count() != 1 or target.bit_count() != 1:
        return None  # castling, en passant, or not one move
    path = chess.between(chess.lsb(origin), chess.lsb(target))
    if not path:
        return None
    slot = next(i for i in range(6) if a[i] & origin)
    if slot + 1 not in _SLIDERS:
        return None
    return Slide(origin, path, slot, bool(a[6] & origin))


def resting(seen: Key, slide: Slide | None) -> int:
    """The square (mask) where `seen` shows the sliding piece resting on its path (a
    hesitating slide: let go for a moment on a square it crosses), else 0."""
    if slide is None or occupied(seen) & slide.origin:
        return 0
    colour = seen[6] if slide.white else ~seen[6]
    there = seen[slide.slot] & colour & slide.path
    return there if there.bit_count() == 1 else 0


def halfway(seen: Key, a: Key, b: Key, slide: Slide | None = None) -> bool:
    """Could `seen` be the board during the step from `a` to `b`: each square as in one of
    them, or empty where the step changes it (a piece in the air), or the moving piece
    resting on one square of its path (`slide`, from `slide_of(a, b)`)."""
    fits = ~diff_mask(seen, a) | ~diff_mask(seen, b) | (~occupied(seen) & diff_mask(a, b))
    if fits & chess.BB_ALL == chess.BB_ALL:
        return True
    rest = resting(seen, slide)
    return bool(rest) and (fits | rest) & chess.BB_ALL == chess.BB_ALL


def consistency(keys: list[Key], observed: list[Key]) -> int:
    """How many observed positions fit between two consecutive positions of a line
    (`halfway`). Ranks lines that reach the same placement (bxa4 bxa4 / bxc4 bxc4,
    transpositions)."""
    pairs = [(a, b, slide_of(a, b)) for a, b in itertools.pairwise(keys)]
    return sum(any(halfway(seen, a, b, slide) for a, b, slide in pairs) for seen in observed)


def ordered_fit(keys: Sequence[Key], observed: Sequence[Key]) -> int:
    """How many observed positions, taken in the order they were seen, fit along the line
    through `keys`: each one the position after some ply, or strictly a halfway state of a
    step (`halfway`), never earlier in the line than one seen before it. Unlike
    `consistency`, a transposed order scores less: the bishop seen on e3 before the pawn on
    c6 does not fit `... c6` first. (The longest such subsequence, by dynamic programming
    over the line's 2n-1 slots.)"""
    n = len(keys)
    if n == 0:
        return 0
    slots = 2 * n - 1
    slides = [slide_of(a, b) for a, b in itertools.pairwise(keys)]
    # best[s]: the most observations fitted so far with the last one at slot s or before.
    best = [0] * slots
    for seen in observed:
        off = [diff_mask(seen, k) for k in keys]
        gain = list(best)
        for s in range(slots):
            i, half = divmod(s, 2)
            if half:
                # Strictly halfway: a position of the line itself fits only its own slot.
                ok = bool(off[i] and off[i + 1]) and halfway(seen, keys[i], keys[i + 1], slides[i])
            else:
                ok = off[i] == 0
            if ok:
                gain[s] = best[s] + 1
        running = 0
        for s in range(slots):
            running = max(running, gain[s])
            best[s] = running
    return best[-1]


def fits_step(seen: Key, keys: Sequence[Key]) -> bool:
    """Could `seen` be the board halfway along one step of the line through `keys`
    (`halfway`)? Not anywhere in a burst of two moves: a position seen with the second
    move made and the first not would put them the other way round."""
    return any(halfway(seen, a, b, slide_of(a, b)) for a, b in itertools.pairwise(keys))


@dataclass(frozen=True, slots=True)
class Sighting:
    """One position in a sequence the board showed; `skippable` when it lasted too short
    to matter if nothing explains it (a misread, a sliding piece on a crossed square)."""

    key: Key
    skippable: bool = False


def explain_chain(
    board: chess.Board,
    seen: Sequence[Sighting],
    max_step: int = 2,
    budget: int = 600,
) -> Line | None:
    """The legal moves from `board` that explain a whole sequence of sightings, or None.

    Each sighting is either a position the game reached (a move, or a fast move and reply,
    completed) or a halfway state of the step to the next such position; the last one must
    be a position reached. Skippable sightings may stay unexplained. Positions reached
    are tried earliest first (a player lets go of a piece before the next one is touched),
    with backtracking; `budget` bounds the searches so a hopeless sequence costs little.
    `board` is left as it was.
    """
    n = len(seen)
    if n == 0:
        return None
    failed: set[tuple[int, str]] = set()
    spent = [0]

    def lifted_only(obs: Key, node: Key) -> bool:
        # The node with pieces in the air (a j'adoube, a piece lifted and put back).
        return diff_mask(obs, node) & occupied(obs) == 0

    def walk(i: int) -> Line | None:
        if i == n:
            return ()
        memo = (i, board.fen())
        if memo in failed:
            return None
        # Settled positions are tried as positions reached first; a brief one (a rook
        # seen on b7 for one scan on its way to c7, the opponent replying at once) only
        # when nothing explains the rest without it.
        for settled_only in (True, False):
            found = reach(i, settled_only)
            if found is not None or spent[0] > budget:
                return found
        failed.add(memo)
        return None

    def reach(i: int, settled_only: bool) -> Line | None:
        node = board_key(board)
        pending: list[int] = []
        for j in range(i, n):
            obs = seen[j].key
            if obs == node:
                # Back at the node: what came before was a piece lifted and put back.
                if all(lifted_only(seen[p].key, node) or seen[p].skippable for p in pending):
                    if j == n - 1:
                        return ()
                    pending = []
                    continue
                break
            changed = diff_mask(node, obs)
            # A halfway state of a step of at most max_step plies fills few squares and
            # empties few: past that, nothing further on can be explained from this node.
            if not seen[j].skippable and (
                (changed & occupied(obs)).bit_count() > max_step + 1
                or (changed & ~occupied(obs)).bit_count() > 2 * max_step + 1
            ):
                break
            if material_feasible(node, obs) and not (settled_only and seen[j].skippable):
                spent[0] += 1
                if spent[0] > budget:
                    return None
                lines = find_lines(board, obs, max_step, limit=8)
                between = [seen[p].key for p in pending]
                ranked = sorted(lines, key=lambda ln: -consistency(line_keys(board, ln), between))
                for line in ranked:
                    keys = line_keys(board, line)
                    # A settled position must fit one step: in a burst it would put the
                    # second move before the first (Re7 seen for seconds before Kd4 does
                    # not fit Kd4, Rd7-e7 after a rook that rested on d7).
                    if not all(seen[p].skippable or fits_step(seen[p].key, keys) for p in pending):
                        continue
                    for move in line:
                        board.push(move)
                    try:
                        rest = walk(j + 1)
                    finally:
                        for _ in line:
                            board.pop()
                    if rest is not None:
                        return line + rest
                    if spent[0] > budget:
                        return None
            pending.append(j)
        return None

    return walk(0)


def placement_changes(a: Key, b: Key) -> int:
    """How many squares differ (a cheap distance for hints)."""
    return diff_mask(a, b).bit_count()


__all__ = [
    "Line",
    "Sighting",
    "Slide",
    "consistency",
    "explain_chain",
    "find_line",
    "find_lines",
    "fits_step",
    "halfway",
    "line_keys",
    "ordered_fit",
    "placement_changes",
    "resting",
    "returns_home",
    "slide_of",
]
