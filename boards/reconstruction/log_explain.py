"""Explain a stretch of a board's EEPROM log that has no lever presses.

Without presses (a board without a clock, a clock flagged or stopped) the log's positions
themselves, in order, are the evidence: each one is either a legal step (one move, or a
move and a fast reply) from the last position explained, or a transient on the way (a
piece lifted, a slide passing a square, a capture made in two steps) to skip. The log
holds no times, so order stands in for the dwell the live reconstruction uses.

The walk is greedy with a small lookahead: from the last position explained, the next few
logged positions reachable within `max_step` plies are candidates; the one whose
explanation lets the walk go on through the most further logged positions wins, the
earliest on a tie (a player lets go of a piece before the next one is touched).
"""

from __future__ import annotations

from collections.abc import Sequence

import chess

from boards.reconstruction.keys import Key, board_key
from boards.reconstruction.search import Line, find_lines, returns_home

_WINDOW = 6  # logged positions looked at ahead for the next one reached
_WIDE = 20  # ... and when none of those is, so many (a long hesitation)
_LOOKAHEAD = 3  # further steps taken to score a candidate
# A log can miss settled positions (a burst of moves, records merged): when no logged
# position is within `max_step` plies, deeper steps are tried, up to this many more plies.
_DEEPER = 2


def _steps(
    board: chess.Board,
    keys: Sequence[Key],
    i: int,
    max_step: int,
    min_step: int = 1,
    window: int = _WINDOW,
) -> list[tuple[int, Line]]:
    """The logged positions from index `i` on (within the window) reachable from `board`,
    each with its shortest lines, earliest first."""
    node = board_key(board)
    out: list[tuple[int, Line]] = []
    for j in range(i, min(len(keys), i + window)):
        if keys[j] == node:
            continue
        for line in find_lines(board, keys[j], max_step, min_depth=min_step, limit=4):
            # A deeper step that brings a piece home is a shuffle, not what was played.
            if len(line) <= 2 or not returns_home(line):
                out.append((j, line))
    return out


def _reach(board: chess.Board, keys: Sequence[Key], i: int, max_step: int, depth: int) -> int:
    """How many logged positions from `i` on a walk can pass through in `depth` steps (a
    walk at the log's end counts as going on)."""
    if i >= len(keys):
        return depth
    if depth == 0:
        return 0
    best = 0
    for j, line in _steps(board, keys, i, max_step):
        for move in line:
            board.push(move)
        try:
            best = max(best, 1 + _reach(board, keys, j + 1, max_step, depth - 1))
        finally:
            for _ in line:
                board.pop()
        if best == depth:
            break
    return best


def explain_log(board: chess.Board, keys: Sequence[Key], max_step: int = 2) -> tuple[Line, int]:
    """The legal moves from `board` that walk the logged positions `keys` in order, and the
    index of the last position they reach (-1: none). Positions the walk skips were
    transients. `board` is left as it was."""
    played: list[chess.Move] = []
    last = -1
    i = 0
    try:
        while i < len(keys):
            best: tuple[int, int, Line] | None = None  # (score, index, line)
            steps = _steps(board, keys, i, max_step) or _steps(
                board, keys, i, max_step, window=_WIDE
            )
            for extra in range(1, _DEEPER + 1):
                if steps:
                    break
                steps = _steps(board, keys, i, max_step + extra, max_step + extra)
            for j, line in steps:
                for move in line:
                    board.push(move)
                try:
                    score = _reach(board, keys, j + 1, max_step, _LOOKAHEAD)
                finally:
                    for _ in line:
                        board.pop()
                # More logged positions passed through wins; then the earliest; then the
                # line found first (the shortest).
                if best is None or score > best[0]:
                    best = (score, j, line)
            if best is None:
                break
            _, j, line = best
            for move in line:
                board.push(move)
                played.append(move)
            last, i = j, j + 1
    finally:
        for _ in played:
            board.pop()
    return tuple(played), last


def presser_part(board: chess.Board, line: Line, white: bool) -> Line:
    """The moves of `line` (from `board`) up to the presser's last one. A press ends the
    presser's move: an opponent's move after it in the line was begun before the press
    (a rook put on f8 to castle), and is left to the opponent's own press."""
    colours = [board.turn == (i % 2 == 0) for i in range(len(line))]
    last = max((i for i, c in enumerate(colours) if c == white), default=-1)
    return line if last < 0 else line[: last + 1]


__all__ = ["explain_log", "presser_part"]
