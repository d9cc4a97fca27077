"""How the game record changes once a decision is made: a game announced, moves played,
corrected and retracted, press times given to moves, the orientation adopted.

Every decision (`decide`, `press`, `log_feed`, `result_signal`) ends here; nothing here
decides anything: what to play and when is the caller's. Each step appends the events it
makes to `events`.
"""

from __future__ import annotations

from dataclasses import replace

import chess

from boards.reconstruction.keys import CENTRE, board_key, codes_key, rotate_key
from boards.reconstruction.reconstruction_events import (
    BackInSync,
    Evidence,
    MoveClocked,
    MovePlayed,
    MoveRetracted,
    NewGame,
    ReconstructionEvent,
)
from boards.reconstruction.reconstruction_state import Match, Ply, State
from boards.reconstruction.search import Line, line_keys
from clocks.move_times import MoveTime, SoftwareClock
from clocks.timecontrol import Colour

__all__ = [
    "adopt",
    "announce",
    "back_in_sync",
    "clock_waiting",
    "correct",
    "play",
    "rebuild_soft_clock",
    "retract",
]


def announce(s: State, t: float, events: list[ReconstructionEvent]) -> None:
    """Announce the game (`NewGame`) once, and start the software clock if there is one."""
    if s.announced:
        return
    s.announced = True
    s.announce_t = t
    if s.orientation is None:
        s.orientation = "normal"
    events.append(NewGame(t, s.root.fen(), s.orientation, s.chess960))
    if s.time_control is not None:
        first: Colour = "white" if s.root.turn == chess.WHITE else "black"
        s.soft = SoftwareClock(s.time_control, first)
        s.soft.start(t)


def adopt(s: State, m: Match) -> None:
    """Take the orientation `m` was found in, if none was known: what was read the other
    way round so far is turned round too."""
    if s.orientation is None and m.orientation is not None:
        s.orientation = m.orientation
        cand = s.cand
        if cand is not None:
            cand.key = codes_key(cand.codes, m.orientation)
            cand.match = None
        if m.orientation == "rotated":
            # Positions read so far were read as "normal": turn them round too (the
            # times they were first seen stamp the moves).
            s.seen_at = {rotate_key(k): v for k, v in s.seen_at.items()}
            s.observed = [rotate_key(k) for k in s.observed]
            s.trail = [replace(seen, key=rotate_key(seen.key)) for seen in s.trail]
            for recent in s.recent:
                if recent is not cand:
                    recent.key = codes_key(recent.codes, m.orientation)
                    recent.match = None


def play(
    s: State, t: float, moves: Line, evidence: Evidence, events: list[ReconstructionEvent]
) -> None:
    """Play `moves` from the current node (`MovePlayed` each), stamped when their
    positions were first seen, with the press times waiting for them."""
    announce(s, t, events)
    board = s.board
    # Pending press times go to the latest plies of each colour in the line.
    stamp_for: dict[int, MoveTime] = {}
    turn = board.turn
    for colour in (True, False):
        mine = [i for i in range(len(moves)) if (turn if i % 2 == 0 else not turn) == colour]
        stamps = s.fresh_stamps(colour, t)
        if stamps and not mine:
            clock_waiting(s, t, colour, stamps[-1], events)
        for i, stamp in zip(reversed(mine), reversed(stamps), strict=False):
            stamp_for[i] = stamp
        s.stamps[colour] = []
    # Each move is stamped when its position was first seen; one never seen (merged
    # into a fast reply's scan) was made no later than the move after it.
    times = [t] * len(moves)
    later = t
    for i, key in reversed(list(enumerate(line_keys(board, moves)[1:]))):
        later = times[i] = min(later, s.seen_at.get(key, later))
    for i, move in enumerate(moves):
        white = board.turn == chess.WHITE
        san = board.san(move)
        centre_king = (
            board.piece_type_at(move.from_square) == chess.KING
            and not board.is_castling(move)
            and bool(chess.BB_SQUARES[move.to_square] & CENTRE)
        )
        board.push(move)
        key = board_key(board)
        node = len(s.keys)
        s.keys.append(key)
        s.key_nodes.setdefault(key, []).append(node)
        t_ply = times[i]
        clock: MoveTime | None = None
        clock = stamp_for.get(i)
        if clock is None and s.soft is not None and not s.clock.present:
            clock = s.soft.move(t_ply)
        ply = Ply(move, san, t_ply, white, clock, evidence == "press", centre_king)
        s.plies.append(ply)
        events.append(MovePlayed(t_ply, node, san, move.uci(), board.fen(), clock, evidence))
    s.signalled = None
    s.node_changed()


def correct(
    s: State, t: float, m: Match, evidence: Evidence, events: list[ReconstructionEvent]
) -> None:
    """Take the game back to node `m.base` and play `m.moves` from there."""
    replaced = s.plies[m.base :]
    waiting = s.stamps
    retract(s, t, m.base, events)
    if m.moves:
        # A correction keeps the clock times of the moves it replaces, and the presses
        # still waiting for a move (a press that came while the board showed the wrong
        # line had no move to go to): the replacing moves get them, oldest first, per
        # colour.
        for colour in (True, False):
            carried = [(t, p.clock) for p in replaced if p.white == colour and p.clock is not None]
            s.stamps[colour] = carried + waiting[colour]
        play(s, t, m.moves, evidence, events)


def retract(s: State, t: float, to_ply: int, events: list[ReconstructionEvent]) -> None:
    """Take the game back to `to_ply` plies (`MoveRetracted`); press times waiting go."""
    if to_ply >= len(s.plies):
        return
    removed = s.plies[to_ply:]
    for _ in removed:
        key = s.keys.pop()
        nodes = s.key_nodes[key]
        nodes.pop()
        if not nodes:
            del s.key_nodes[key]
        s.board.pop()
    del s.plies[to_ply:]
    s.stamps = {True: [], False: []}
    events.append(
        MoveRetracted(
            t,
            tuple(range(to_ply + 1, to_ply + len(removed) + 1)),
            tuple(p.san for p in removed),
            to_ply,
        )
    )
    rebuild_soft_clock(s)
    s.node_changed()


def back_in_sync(s: State, t: float, events: list[ReconstructionEvent]) -> None:
    """The board matches the game again (`BackInSync` if it was out of sync)."""
    if s.out_since is not None:
        events.append(BackInSync(t, t - s.out_since, len(s.plies)))
        s.out_since = None
    s.unmatched_since = None


def clock_waiting(
    s: State, t: float, white: bool, time: MoveTime, events: list[ReconstructionEvent]
) -> None:
    """A press of `white` waited for a correction that did not come (the opponent
    took the piece): it finished `white`'s last move, if that has no time yet."""
    for back in (1, 2):
        if len(s.plies) >= back and s.plies[-back].white == white:
            ply = s.plies[-back]
            if ply.clock is None:
                ply.clock = time
                ply.by_press = True
                events.append(MoveClocked(t, len(s.plies) - back + 1, time))
            return


def rebuild_soft_clock(s: State) -> None:
    """The software clock replayed over the moves as they now stand (after a retraction)."""
    if s.soft is None or s.time_control is None:
        return
    first: Colour = "white" if s.root.turn == chess.WHITE else "black"
    soft = SoftwareClock(s.time_control, first)
    soft.start(s.announce_t)
    for p in s.plies:
        soft.move(p.t)
    s.soft = soft
