"""Placement keys: a position as seven bitboards, cheap to build, compare and diff.

A key is (pawns, knights, bishops, rooks, queens, kings, white) in python-chess square
numbering; slot i holds piece type i + 1 (chess.PAWN == 1 ... chess.KING == 6). Two
placements are equal exactly when their keys are equal, so keys index reachable
positions without building FEN strings.
"""

from __future__ import annotations

import chess

from boards.position import CODE_TO_SYMBOL, Orientation, index_to_square

Key = tuple[int, int, int, int, int, int, int]

# code -> (slot, is_white); magic-piece and unknown codes are absent and so ignored.
_CODE_SLOT: dict[int, tuple[int, bool]] = {
    code: (chess.Piece.from_symbol(sym).piece_type - 1, sym.isupper())
    for code, sym in CODE_TO_SYMBOL.items()
}
_BITS: dict[Orientation, tuple[int, ...]] = {
    "normal": tuple(chess.BB_SQUARES[index_to_square(i, "normal")] for i in range(64)),
    "rotated": tuple(chess.BB_SQUARES[index_to_square(i, "rotated")] for i in range(64)),
}
CENTRE_LIGHT = chess.BB_D5 | chess.BB_E4
CENTRE_DARK = chess.BB_D4 | chess.BB_E5
CENTRE = CENTRE_LIGHT | CENTRE_DARK


def board_key(board: chess.BaseBoard) -> Key:
    return (
        board.pawns,
        board.knights,
        board.bishops,
        board.rooks,
        board.queens,
        board.kings,
        board.occupied_co[chess.WHITE],
    )


def codes_key(codes: tuple[int, ...], orientation: Orientation) -> Key:
    """The key of 64 DGT codes read in `orientation`; magic pieces count as empty."""
    bits = _BITS[orientation]
    acc = [0, 0, 0, 0, 0, 0]
    white = 0
    slots = _CODE_SLOT
    for i, code in enumerate(codes):
        if code:
            slot = slots.get(code)
            if slot is not None:
                bit = bits[i]
                acc[slot[0]] |= bit
                if slot[1]:
                    white |= bit
    return (acc[0], acc[1], acc[2], acc[3], acc[4], acc[5], white)


def occupied(key: Key) -> int:
    return key[0] | key[1] | key[2] | key[3] | key[4] | key[5]


def rotate_key(key: Key) -> Key:
    """The same physical board read the other way round (square s -> 63 - s)."""
    r = [chess.flip_vertical(chess.flip_horizontal(bb)) for bb in key]
    return (r[0], r[1], r[2], r[3], r[4], r[5], r[6])


def diff_mask(a: Key, b: Key) -> int:
    """Squares whose content differs between two keys."""
    return (
        (a[0] ^ b[0])
        | (a[1] ^ b[1])
        | (a[2] ^ b[2])
        | (a[3] ^ b[3])
        | (a[4] ^ b[4])
        | (a[5] ^ b[5])
        | (a[6] ^ b[6])
    )


def key_board(key: Key) -> chess.BaseBoard:
    board = chess.BaseBoard.empty()
    for slot in range(6):
        for square in chess.scan_forward(key[slot]):
            colour = bool(key[6] & chess.BB_SQUARES[square])
            board.set_piece_at(square, chess.Piece(slot + 1, colour))
    return board


def key_fen(key: Key) -> str:
    return key_board(key).board_fen()


def colour_mask(key: Key, white: bool) -> int:
    return key[6] if white else occupied(key) & ~key[6]


def material_feasible(now: Key, target: Key) -> bool:
    """Could `target` follow from `now` by legal play at all (pieces never appear except by
    promotion, each side keeps exactly one king)? A fast filter before any search."""
    if target[0] & (chess.BB_RANK_1 | chess.BB_RANK_8):
        return False  # a pawn on its last rank waits for its new piece
    for white in (True, False):
        c_now = colour_mask(now, white)
        c_tgt = colour_mask(target, white)
        if (target[5] & c_tgt).bit_count() != 1:
            return False
        pawns_now = (now[0] & c_now).bit_count()
        pawns_tgt = (target[0] & c_tgt).bit_count()
        if pawns_tgt > pawns_now:
            return False
        excess = 0
        for slot in (1, 2, 3, 4):
            extra = (target[slot] & c_tgt).bit_count() - (now[slot] & c_now).bit_count()
            if extra > 0:
                excess += extra
        if excess > pawns_now - pawns_tgt:
            return False
    return True


def kings_on_centre(key: Key) -> tuple[int, int] | None:
    """The (white, black) king squares when both kings stand on d4/d5/e4/e5."""
    kings = key[5]
    if (kings & CENTRE).bit_count() != 2 or kings.bit_count() != 2:
        return None
    white = kings & key[6]
    black = kings & ~key[6]
    if white.bit_count() != 1 or black.bit_count() != 1:
        return None
    return chess.lsb(white), chess.lsb(black)


def victim_lifted(now: Key, seen: Key, mover_white: bool) -> int:
    """The square (as a mask) of the one piece of the side not to move that `seen` lacks
    when nothing else of theirs changed, else 0: perhaps a capture under way with the
    victim removed first (the capturer may still be sliding, resting on its path)."""
    victim = not mover_white
    v_now, v_seen = colour_mask(now, victim), colour_mask(seen, victim)
    lost = v_now & ~v_seen
    if v_seen & ~v_now or lost.bit_count() != 1:
        return 0
    if any((now[slot] ^ seen[slot]) & v_seen for slot in range(6)):
        return 0
    gone = colour_mask(now, mover_white).bit_count() - colour_mask(seen, mover_white).bit_count()
    return lost if gone in (0, 1) else 0


__all__ = [
    "CENTRE",
    "CENTRE_DARK",
    "CENTRE_LIGHT",
    "Key",
    "board_key",
    "codes_key",
    "colour_mask",
    "diff_mask",
    "key_board",
    "key_fen",
    "kings_on_centre",
    "material_feasible",
    "occupied",
    "rotate_key",
    "victim_lifted",
]
