"""What a board sees: 64 DGT piece codes, and their meaning as a chess placement.

Board index i = (8 - rank) * 8 + file with White sitting normally (index 0 = a8,
63 = h1). A board set up the other way round does not renumber its squares: the
host maps index i to 63 - i.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import chess

Orientation = Literal["normal", "rotated"]

EMPTY = 0
# DGT piece codes (note: king before queen).
CODE_TO_SYMBOL: dict[int, str] = {
    0x01: "P",
    0x02: "R",
    0x03: "N",
    0x04: "B",
    0x05: "K",
    0x06: "Q",
    0x07: "p",
    0x08: "r",
    0x09: "n",
    0x0A: "b",
    0x0B: "k",
    0x0C: "q",
}
SYMBOL_TO_CODE: dict[str, int] = {s: c for c, s in CODE_TO_SYMBOL.items()}
MAGIC_CODES = frozenset({0x0D, 0x0E, 0x0F})  # draw / white wins / black wins pieces


def index_to_square(index: int, orientation: Orientation = "normal") -> chess.Square:
    """The chess square (python-chess numbering, a1 = 0) for a board index."""
    if orientation == "rotated":
        index = 63 - index
    rank = 7 - index // 8
    return chess.square(index % 8, rank)


def square_to_index(square: chess.Square, orientation: Orientation = "normal") -> int:
    index = (7 - chess.square_rank(square)) * 8 + chess.square_file(square)
    return 63 - index if orientation == "rotated" else index


@dataclass(frozen=True, slots=True)
class BoardPosition:
    """The 64 piece codes a board reports, in board index order (not yet oriented)."""

    codes: tuple[int, ...]

    def __post_init__(self) -> None:
        if len(self.codes) != 64:
            raise ValueError(f"a board position has 64 squares, got {len(self.codes)}")

    @classmethod
    def empty(cls) -> BoardPosition:
        return cls((EMPTY,) * 64)

    @classmethod
    def from_bytes(cls, raw: bytes) -> BoardPosition:
        return cls(tuple(raw))

    @classmethod
    def from_board(
        cls, board: chess.BaseBoard, orientation: Orientation = "normal"
    ) -> BoardPosition:
        codes = [EMPTY] * 64
        for square, piece in board.piece_map().items():
            codes[square_to_index(square, orientation)] = SYMBOL_TO_CODE[piece.symbol()]
        return cls(tuple(codes))

    @classmethod
    def from_fen(cls, fen: str, orientation: Orientation = "normal") -> BoardPosition:
        """From a full FEN or just its placement field."""
        return cls.from_board(chess.BaseBoard(fen.split()[0]), orientation)

    def with_piece(self, index: int, code: int) -> BoardPosition:
        codes = list(self.codes)
        codes[index] = code
        return BoardPosition(tuple(codes))

    def to_bytes(self) -> bytes:
        return bytes(self.codes)

    def to_board(self, orientation: Orientation = "normal") -> chess.BaseBoard:
        """The placement as python-chess sees it; magic pieces and unknown codes are ignored."""
        board = chess.BaseBoard.empty()
        for index, code in enumerate(self.codes):
            symbol = CODE_TO_SYMBOL.get(code)
            if symbol is not None:
                board.set_piece_at(
                    index_to_square(index, orientation), chess.Piece.from_symbol(symbol)
                )
        return board

    def board_fen(self, orientation: Orientation = "normal") -> str:
        return self.to_board(orientation).board_fen()

    def orientation_of_start(self) -> Orientation | None:
        """'normal' or 'rotated' when this is the standard start position, else None."""
        if self.board_fen("normal") == chess.STARTING_BOARD_FEN:
            return "normal"
        if self.board_fen("rotated") == chess.STARTING_BOARD_FEN:
            return "rotated"
        return None


__all__ = [
    "CODE_TO_SYMBOL",
    "EMPTY",
    "MAGIC_CODES",
    "SYMBOL_TO_CODE",
    "BoardPosition",
    "Orientation",
    "index_to_square",
    "square_to_index",
]
