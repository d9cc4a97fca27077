"""What a lever press completed: the presser's move the board shows around the press
(or the correction it shows), given the press's clock time; else the press waits for a
move, or goes to a move recorded before it (a late press).
"""

from __future__ import annotations

from dataclasses import replace

import chess

from boards.reconstruction.classify import (
    correction,
    fitter_correction,
    last_piece_moved,
    match_for,
)
from boards.reconstruction.keys import Key, board_key, colour_mask, diff_mask, occupied
from boards.reconstruction.reconstruction_events import MoveClocked, ReconstructionEvent
from boards.reconstruction.reconstruction_state import EPS, Candidate, Match, Press, State
from boards.reconstruction.record import adopt, back_in_sync, correct, play
from boards.reconstruction.search import line_keys, ordered_fit
from clocks.move_times import LeverPressed

__all__ = [
    "move_then_lifted",
    "press_made",
    "resolve_press",
]


def _passes_on(seen: Key, node: Key, later: list[Key]) -> bool:
    """Does a piece that arrived in `seen` (a square changed from `node`) leave it in the
    next position and stand, in a later one, on a square where `seen` had no such piece?"""
    arrived = occupied(seen) & diff_mask(seen, node)
    if not later or not arrived & diff_mask(seen, later[0]):
        return False
    for square in chess.scan_forward(arrived):
        bit = chess.BB_SQUARES[square]
        slot = next(i for i in range(6) if seen[i] & bit)
        white = bool(seen[6] & bit)
        mine = seen[slot] & colour_mask(seen, white)
        if any(key[slot] & colour_mask(key, white) & ~mine for key in later):
            return True
    return False


def press_made(s: State, t: float, event: LeverPressed) -> None:
    """A lever press read at `t`: it settles for `press_settle` among the positions
    shown around it (`resolve_press` then decides what it completed)."""
    s.presses_since_node += 1
    press = Press(t, event.colour == "white", event.time, t + s.config.press_settle)
    for pending in s.presses:
        pending.closed = pending.closed or pending.white != press.white
    # The move may have been completed just before the press while the
    # opponent already reaches for a piece: look back a little.
    back = t - s.config.press_lookback
    press.cands.extend(c for c in s.recent if c.since >= back)
    if s.cand is not None and s.cand not in press.cands:
        press.cands.append(s.cand)
    s.presses.append(press)


def resolve_press(s: State, press: Press, events: list[ReconstructionEvent]) -> None:
    """`press` has settled: play (or correct to) the presser's move the positions shown
    around it give, else give its time to a move recorded before it, else keep it for
    the next move of the presser."""
    window = [c for c in press.cands if c.since <= press.deadline + EPS]
    shown: list[Candidate] = []  # latest first, pieces passing by left out
    passing: list[Candidate] = []
    for k in range(len(window) - 1, -1, -1):
        cand = window[k]
        # A position replaced within one scan by the piece that arrived in it moving on
        # (seen again elsewhere) is a piece passing by (a sliding rook seen on a
        # crossed square), not what the press completed. Replaced by another hand (a
        # fast reply, maybe taking that piece at once) it was a move.
        if (
            cand is not s.cand
            and k + 1 < len(window)
            and window[k + 1].since - cand.since < s.config.press_min_dwell
            and _passes_on(cand.key, s.keys[-1], [w.key for w in window[k + 1 :]])
        ):
            passing.append(cand)
            continue
        shown.append(cand)
    # The position at the press is the truth: a move of the presser that the board no
    # longer shows is corrected before anything else (a slide that rested on a square
    # of its path was recorded there), from the latest position that shows the fix.
    if shown and _unshown_move(s, shown[0].key, press.white):
        # Last, a correction shown only briefly: the opponent may take the piece at
        # once (a capture of the piece just moved, victim lifted first).
        # Latest first, back to the recorded move's own position: shown there at the
        # press, it stood (the opponent's hand already reaching for it); what came
        # before it was the way there (a queen resting on d3 on its way to e2).
        for cand in shown + passing:
            if cand in shown and match_for(s, cand).kind == "same":
                break
            m = _press_correction(s, cand, press.white)
            if m is not None and _press_completes(s, press, m, events):
                return
    if _unpressed_last(s, press.white):
        # The presser's unpressed move still stands, but what the board shows at the
        # press is reached only by replacing it (a rook recorded for castling rook-first
        # after a stall held it still, then the king put beside it; the opponent may
        # already have a piece in the hand): the press completes the correction, never
        # the recorded move. Latest first, while nothing shown matches otherwise, back
        # to the node: a stall may have held the press back past the look-back.
        first = shown[-1].since if shown else press.t
        earlier = [
            Candidate((), seen.since, seen.key)
            for seen in reversed(s.trail)
            if seen.since < first - EPS and seen.key != s.keys[-1]
        ]
        for cand in shown + earlier:
            if match_for(s, cand).kind != "none":
                break
            m = _press_correction(s, cand, press.white)
            if m is not None and _press_completes(s, press, m, events):
                return
    forward: list[tuple[int, Match, bool]] = []  # (index in shown, match, seen whole)
    # The board shows the game's position at the press: the press finished the last
    # move. Positions before it in the window were the way to it (a reader's stall
    # stamps them all alike): a knight lifted, then a bishop lifted, is no capture
    # and recapture to play now.
    settled = bool(shown) and match_for(s, shown[0]).kind == "same"
    for k, cand in enumerate(shown if not settled else ()):
        m = match_for(s, cand)
        whole = m.kind == "forward"
        if m.kind == "none":
            lifted = move_then_lifted(s.board, cand.key, press.white)
            if lifted is not None:
                m = Match("forward", (lifted,), len(s.plies))
        if m.kind == "forward":
            forward.append((k, m, whole))
    # The latest line wins if it passes through every position shown before it;
    # else an earlier single move seen whole that it does not pass through (the
    # presser's move seen complete, then its victim lifted by the opponent's capture
    # under way reads as a capture and recapture elsewhere). An earlier half-made position is never
    # preferred (one that looks like a capture and recapture, or a move with a piece
    # of the opponent's in the hand): the latest line then stands.
    node = s.keys[-1]
    latest = line_keys(s.board, forward[0][1].moves) if forward else []
    for i, (k, m, whole) in enumerate(forward):
        if i > 0 and (len(m.moves) > 1 or not whole or ordered_fit(latest, [shown[k].key]) > 0):
            continue  # not seen whole, or on the latest line's way (a rest, say)
        before = [c.key for c in reversed(shown[k + 1 :]) if c.key != node]
        fit = ordered_fit(line_keys(s.board, m.moves), before) == len(before)
        if fit and _press_completes(s, press, m, events):
            return
    for _k, m, _whole in forward:
        if _press_completes(s, press, m, events):
            return
    # No move waiting: the press belongs to a move confirmed before it (late press),
    # unless its piece is gone from its square: then it waits for the correction (the
    # piece in the hand at the press, put down late), or for the opponent's capture of
    # it (`record.play` gives the press to the move then).
    moved_on = bool(shown) and _unshown_move(s, shown[0].key, press.white)
    for back in (1, 2) if not moved_on else ():
        if len(s.plies) >= back:
            ply = s.plies[-back]
            if ply.white == press.white:
                # (a software clock's reckoning, before any reading, is no clock time)
                unclocked = ply.clock is None or ply.clock.software
                if unclocked and ply.t <= press.t + EPS:
                    ply.clock = press.time
                    ply.by_press = True
                    events.append(MoveClocked(press.t, len(s.plies) - back + 1, press.time))
                    # It finished a move already recorded: no press for what follows.
                    s.presses_since_node = max(0, s.presses_since_node - 1)
                    return
                break
    s.stamps[press.white].append((press.t, press.time))


def _press_completes(s: State, press: Press, m: Match, events: list[ReconstructionEvent]) -> bool:
    """Play (or correct to) `m` up to the presser's last move in it, with the press's
    time; a fast reply after that move waits for its own evidence. False when the
    line has no move of the presser."""
    plies = s.plies
    turn = plies[m.base].white if m.base < len(plies) else s.board.turn == chess.WHITE
    last = None
    for i in range(len(m.moves)):
        if (turn if i % 2 == 0 else not turn) == press.white:
            last = i
    if last is None:
        return False
    s.stamps[press.white].append((press.t, press.time))
    adopt(s, m)
    back_in_sync(s, press.deadline, events)
    m = replace(m, moves=m.moves[: last + 1])
    if m.kind == "correction":
        correct(s, press.deadline, m, "press", events)
    else:
        play(s, press.deadline, m.moves, "press", events)
    return True


def _press_correction(s: State, cand: Candidate, white: bool) -> Match | None:
    """A correction of moves no press confirmed that `cand` shows, for a press by
    `white`: what the board shows (a correction, or a position nothing else explains),
    or a forward line through the presser's moved-on piece when a correction fits
    what was seen as well (at the press, the tie goes to the correction)."""
    m = match_for(s, cand)
    if m.kind == "forward" and len(m.moves) > 1:
        fitter = fitter_correction(s, cand.key, m.moves, presser=white, until=cand.since)
        m = fitter or _lifted_after_correction(s, cand.key, white) or m
    elif m.kind == "none":
        m = correction(s, cand.key) or _lifted_after_correction(s, cand.key, white) or m
    if m.kind != "correction":
        return None
    replaced = s.plies[m.base :]
    if any(p.by_press for p in replaced) or all(p.white != white for p in replaced):
        return None
    return m


def _lifted_after_correction(s: State, key: Key, white: bool) -> Match | None:
    """The presser's last move replaced by another, then one piece lifted by the
    opponent (a fast reply under way at the press): a correction of that move."""
    if not s.plies or s.plies[-1].white != white:
        return None
    board = s.board
    recorded = board.pop()
    try:
        move = move_then_lifted(board, key, white)
    finally:
        board.push(recorded)
    if move is None or move == recorded:
        return None
    return Match("correction", (move,), len(s.plies) - 1, evident=True)


def _unpressed_last(s: State, white: bool) -> bool:
    """Is the last recorded ply a move of `white` that no lever press confirmed?"""
    return bool(s.plies) and s.plies[-1].white == white and not s.plies[-1].by_press


def _unshown_move(s: State, key: Key, white: bool, moved_on: bool = False) -> bool:
    """Is the last recorded ply an unpressed move of `white` whose piece `key` no
    longer shows where that move put it? With `moved_on`, only when one like it also
    stands on a square it did not hold (not just taken off by the opponent to capture
    it)."""
    if not s.plies:
        return False
    last = s.plies[-1]
    if last.white != white or last.by_press:
        return False
    return last_piece_moved(s, key, moved_on)


def move_then_lifted(board: chess.Board, key: Key, white: bool) -> chess.Move | None:
    """The presser's one move from `board` that, with one piece then lifted by the
    opponent (a piece of theirs to move, or one of the presser's to capture), gives
    `key`: the usual sight at a press when the reply is quick. None unless exactly one
    move fits."""
    if (board.turn == chess.WHITE) != white:
        return None
    empty = ~occupied(key)
    fits: list[chess.Move] = []
    for move in board.generate_legal_moves():
        board.push(move)
        try:
            gone = diff_mask(board_key(board), key)
            if gone.bit_count() != 1 or not gone & empty:
                continue
            square = chess.lsb(gone)
            if square == move.to_square or board.is_castling(move):
                continue  # the piece just moved, lifted again: the move is not done
            touched = any(
                reply.from_square == square or reply.to_square == square
                for reply in board.generate_legal_moves()
            )
        finally:
            board.pop()
        if touched:
            fits.append(move)
    return fits[0] if len(fits) == 1 else None
