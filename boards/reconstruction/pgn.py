"""One reconstructed line as PGN text, with [%clk] and [%emt] after every move that has them.

For a board followed on its own (`watch`, `replay`); an event's games are written by
`broadcast.export.pgn` from their journaled state."""

from __future__ import annotations

import chess
import chess.pgn

from boards.reconstruction import GameLine


def line_pgn(line: GameLine, headers: dict[str, str] | None = None) -> str:
    """PGN of the game in `line`; a non-standard start gets SetUp/FEN headers."""
    game = chess.pgn.Game()
    for key, value in (headers or {}).items():
        game.headers[key] = value
    board = chess.Board(line.fen) if line.fen else chess.Board()
    if line.fen and line.fen != chess.STARTING_FEN:
        game.setup(board)
    node: chess.pgn.GameNode = game
    for uci, clock in zip(line.ucis, line.clocks, strict=True):
        node = node.add_variation(chess.Move.from_uci(uci))
        if clock is not None:
            node.set_clock(round(clock.remaining))
            if clock.spent is not None:
                node.set_emt(round(clock.spent))
    game.headers["Result"] = line.result or "*"
    return str(game) + "\n"


__all__ = ["line_pgn"]
