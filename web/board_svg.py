"""Chess boards as SVG, server-side, for the first paint. Pure.

The markup is the same as `static/live.js` builds when a move arrives (squares as
rects, pieces as `<use>` of the symbols in `piece_defs()`), so the script and the
server draw identical boards and a page is complete with JavaScript off.
"""

from __future__ import annotations

import re
from collections.abc import Collection

import chess
import chess.svg
from markupsafe import Markup, escape

_ID = re.compile(r'\s(id|class)="[^"]*"')
_STYLE = re.compile(r'style="([^"]*)"')


def _attributes(match: re.Match[str]) -> str:
    # Inline style attributes would need 'unsafe-inline' in the pages' CSP: the same
    # declarations as SVG presentation attributes need nothing.
    pairs = (d.split(":", 1) for d in match.group(1).split(";") if ":" in d)
    return " ".join(f'{k.strip()}="{v.strip()}"' for k, v in pairs)


def _piece(symbol: str) -> str:
    return _STYLE.sub(_attributes, _ID.sub("", chess.svg.PIECES[symbol]))


def piece_defs() -> Markup:
    """The piece symbols (python-chess's SVG pieces), once per page."""
    symbols = "".join(
        f'<symbol id="bw-{"w" if s.isupper() else "b"}{s.upper()}" viewBox="0 0 45 45">'
        f"{_piece(s)}</symbol>"
        for s in "PNBRQKpnbrqk"
    )
    return Markup(
        '<svg xmlns="http://www.w3.org/2000/svg" width="0" height="0" class="defs" '
        f'aria-hidden="true"><defs>{symbols}</defs></svg>'
    )


def board_svg(
    fen: str,
    last_uci: str | None = None,
    *,
    flipped: bool = False,
    differ: Collection[str] = (),
) -> Markup:
    """The position of `fen` (with the last move's squares highlighted, and the squares
    named in `differ` marked: where a board being set up still shows something else)."""
    try:
        board = chess.Board(fen)
    except ValueError:
        board = chess.Board(None)
    marked: set[int] = set()
    if last_uci:
        try:
            move = chess.Move.from_uci(last_uci)
            marked = {move.from_square, move.to_square}
        except ValueError:
            pass
    checked = board.king(board.turn) if board.is_valid() and board.is_check() else None
    parts = []
    for square in chess.SQUARES:
        file, rank = chess.square_file(square), chess.square_rank(square)
        x, y = (7 - file, rank) if flipped else (file, 7 - rank)
        shade = "l" if (file + rank) % 2 else "d"
        mark = " hl" if square in marked else ""
        mark += " check" if square == checked else ""
        mark += " differ" if chess.square_name(square) in differ else ""
        parts.append(f'<rect x="{x}" y="{y}" width="1" height="1" class="{shade}{mark}"/>')
    for square, piece in board.piece_map().items():
        file, rank = chess.square_file(square), chess.square_rank(square)
        x, y = (7 - file, rank) if flipped else (file, 7 - rank)
        colour = "w" if piece.color else "b"
        parts.append(
            f'<use href="#bw-{colour}{piece.symbol().upper()}" x="{x}" y="{y}" width="1" height="1"/>'
        )
    label = escape(f"position {board.board_fen()}")
    return Markup(
        f'<svg class="board" viewBox="0 0 8 8" role="img" aria-label="{label}" '
        f'data-fen="{escape(fen)}" data-last="{escape(last_uci or "")}" '
        f'data-flip="{1 if flipped else 0}">{"".join(parts)}</svg>'
    )


# The colours of a standalone image (no stylesheet reaches it): style.css's light theme.
_FILL = {"l": "#eeeed2", "d": "#769656", "hl": "#f6f669", "check": "#e53935"}


def board_image(fen: str, last_uci: str | None = None, *, flipped: bool = False) -> str:
    """The position as a standalone SVG document (pieces included, colours as attributes),
    for link previews (og:image) and anyone who wants a picture of the board."""
    inner = str(board_svg(fen, last_uci, flipped=flipped))
    start, end = inner.index(">") + 1, inner.rindex("</svg>")
    body = inner[start:end]
    for cls in ("l check", "d check", "l hl", "d hl", "l", "d"):
        fill = _FILL["check" if "check" in cls else "hl" if "hl" in cls else cls]
        body = body.replace(f'class="{cls}"', f'fill="{fill}"')
    defs = str(piece_defs())
    defs = defs[defs.index("<defs>") : defs.index("</defs>") + len("</defs>")]
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
        f'viewBox="0 0 8 8" width="480" height="480">{defs}{body}</svg>'
    )


__all__ = ["board_image", "board_svg", "piece_defs"]
