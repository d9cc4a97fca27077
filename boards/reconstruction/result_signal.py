"""The DGT result signal: both kings on the centre squares.

d5 and e4 are light, d4 and e5 dark: two light squares = 1-0, two dark = 0-1, one of
each = 1/2-1/2, whichever king stands where. Two kings on the 2x2 centre always touch,
so such a placement is never a legal position and never a move.
"""

from __future__ import annotations

import chess

from boards.reconstruction.events import Result
from boards.reconstruction.keys import CENTRE, CENTRE_LIGHT, Key, kings_on_centre


def result_of_kings(white_king: chess.Square, black_king: chess.Square) -> Result | None:
    """The result two king squares signal, or None if either is off the centre."""
    w, b = chess.BB_SQUARES[white_king], chess.BB_SQUARES[black_king]
    if not (w & CENTRE and b & CENTRE):
        return None
    light = bool(w & CENTRE_LIGHT) + bool(b & CENTRE_LIGHT)
    if light == 2:
        return "1-0"
    if light == 0:
        return "0-1"
    return "1/2-1/2"


def signal_in(key: Key) -> tuple[Result, chess.Square, chess.Square] | None:
    """(result, white king square, black king square) if `key` shows a result signal."""
    kings = kings_on_centre(key)
    if kings is None:
        return None
    result = result_of_kings(*kings)
    if result is None:
        return None
    return result, kings[0], kings[1]


def king_heading_for_centre(now: Key, seen: Key) -> bool:
    """True when a king stands on a centre square in `seen` but not in `now`: maybe the
    first king of a result signal (wait longer before calling it out of sync)."""
    return bool(seen[5] & CENTRE & ~now[5])


def kings_only(before: Key, signal: Key, targets: int) -> bool:
    """Is `signal` the placement `before` with only the kings moved onto the squares
    `targets` (whatever stood there taken off)?"""
    keep_before = ~(before[5] | targets)
    keep_signal = ~targets
    return tuple(bb & keep_before for bb in before) == tuple(bb & keep_signal for bb in signal)
