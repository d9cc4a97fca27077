"""One followed game as PGN text, with [%clk] and [%emt] after every move that has them."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import chess
import chess.pgn

from boards.reconstruction import GameLine


def game_pgn(line: GameLine, headers: dict[str, str] | None = None) -> str:
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


def write_atomically(path: str | Path, text: str, *, mode: int = 0o644) -> None:
    """Replace `path` in one step, so a reader never sees half a file.

    The file gets `mode` (mkstemp would leave it 0600, unreadable to a web server or an
    uploader running as another user)."""
    target = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent or ".")
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
