"""The DGT result signal: both kings on the centre squares.

d5 and e4 are light, d4 and e5 dark: two light squares = 1-0, two dark = 0-1, one of
each = 1/2-1/2, whichever king stands where. Two kings on the 2x2 centre always touch,
so such a placement is never a legal position and never a move.

A signal shown is acted on here (`signal`): the game is announced if it was not, and
"moves" that were the signal being set up (the first king walking in, the pieces on the
kings' squares taken off) are taken back.
"""

from __future__ import annotations

import chess

from boards.reconstruction.keys import CENTRE, CENTRE_LIGHT, Key, board_key, kings_on_centre
from boards.reconstruction.reconstruction_events import ReconstructionEvent, Result, ResultSignalled
from boards.reconstruction.reconstruction_state import EPS, Match, State
from boards.reconstruction.record import announce, play, retract

__all__ = [
    "king_heading_for_centre",
    "kings_only",
    "node_stood",
    "result_of_kings",
    "signal",
    "signal_in",
]


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


def signal(s: State, t: float, m: Match, key: Key, events: list[ReconstructionEvent]) -> None:
    """The board shows the result signal `m` (`ResultSignalled`)."""
    assert m.result is not None
    announce(s, t, events)
    white_king, black_king = m.kings
    undone = s.signal_undone
    if undone is not None and undone[0] == s.keys[-1]:
        _node, move, t_move = undone
        mover_king = white_king if s.board.turn == chess.WHITE else black_king
        if mover_king != move.to_square and s.board.is_legal(move):
            # That king left its square again for this signal: it was the game's last
            # move after all, not the first king of the signal. Put the move back.
            s.signal_undone = None
            after = s.board.copy(stack=False)
            after.push(move)
            s.seen_at[board_key(after)] = t_move
            play(s, t, (move,), "stable", events)
    base = signal_setup(s, t, key, white_king, black_king)
    if base is not None:
        # The "moves" were this signal being set up: the first king walking in, or
        # the pieces on the kings' squares taken off (which can look like a capture
        # and a recapture). Not moves.
        last = s.plies[-1]
        retract(s, t, base, events)
        if last.centre_king:
            s.signal_undone = (s.keys[-1], last.move, last.t)
    s.signalled = m.result
    s.out_since = None
    s.unmatched_since = None
    events.append(
        ResultSignalled(t, m.result, chess.square_name(white_king), chess.square_name(black_king))
    )


def signal_setup(
    s: State, t: float, key: Key, white_king: chess.Square, black_king: chess.Square
) -> int | None:
    """The node from which the signal `key` is made by the kings alone (whatever stood
    on their squares taken off) when the plies after it, recorded without a press
    within `signal_lookback`, were that set-up: the first king stepping onto its
    signal square (one ply) unless it stood there the whole centre wait (then it was
    the game's last move, kept for the signal), or the pieces taken off the kings'
    squares read as a capture and a recapture (two plies, both leaving a king's
    square)."""
    targets = chess.BB_SQUARES[white_king] | chess.BB_SQUARES[black_king]
    n = len(s.plies)
    for back in (1, 2):
        plies = s.plies[n - back :] if back <= n else []
        if not plies or any(p.by_press or t - p.t > s.config.signal_lookback for p in plies):
            return None
        if back == 1:
            last = plies[0]
            own_king = white_king if last.white else black_king
            fits = (
                last.centre_king
                and last.move.to_square == own_king
                and not node_stood(s, s.config.centre_king_stable)
            )
        else:
            fits = all(chess.BB_SQUARES[p.move.from_square] & targets for p in plies)
        if fits and kings_only(s.keys[n - back], key, targets):
            return n - back
    return None


def node_stood(s: State, seconds: float) -> bool:
    """Did the current node's position stand unchanged `seconds` or more once seen?"""
    first = s.trail[0] if s.trail else None
    if first is None or first.key != s.keys[-1] or first.until is None:
        return False
    return first.until - first.since + EPS >= seconds
