"""Scripted games: a PGN game turned into a timeline of physical actions, and a player.

The timeline is plain data (`SquareSet`, `LeverPress`, `ClockSetup`, each with a time `t`
in seconds from the start of the game), so any producer of actions can drive a board:
this module's simple, tidy hands, or a noisier model of human habits.

Times: the clock is set from the TimeControl header (first period) or the first [%clk];
each move is played so that the lever press falls when the mover's [%clk] says it did
(time spent = previous clock + increment - this clock); without [%clk], `default_think`.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

import chess
import chess.pgn

from boards.position import SYMBOL_TO_CODE, BoardPosition, Orientation, square_to_index
from boardsim import humans
from boardsim.clock import Side
from clocks.timecontrol import parse_time_control as clock_time_control
from clocks.timesource import MonotonicTimeSource

HAND_STEP = 0.3  # seconds between two touches of the board by one hand
PRESS_AFTER = 0.25  # from the last piece placed to the lever press
START_DELAY = 2.0  # from setting the clock to Black starting White's clock
MIN_MOVE = 0.6  # the quickest a move (hand steps and press) can be made
DEFAULT_BASE = 5400.0  # clock setting when the PGN says nothing


@dataclass(frozen=True, slots=True)
class SquareSet:
    """At `t`, square `index` becomes `code` (0: the square is emptied)."""

    t: float
    index: int
    code: int


@dataclass(frozen=True, slots=True)
class LeverPress:
    """At `t`, the player on `side` presses the clock."""

    t: float
    side: Side


@dataclass(frozen=True, slots=True)
class ClockSetup:
    """At `t`, the arbiter sets both times (seconds) and the increment; the clock waits."""

    t: float
    left_seconds: float
    right_seconds: float
    increment: float = 0.0


Action = SquareSet | LeverPress | ClockSetup

HabitsName = Literal["realistic", "none"]
HABITS: tuple[HabitsName, ...] = ("realistic", "none")


class ActionTarget(Protocol):
    """What the player acts on: a `PtyHost` has these methods."""

    def set_square(self, index: int, code: int, board: int = 0) -> None: ...

    def press_lever(self, side: Side, board: int = 0) -> None: ...

    def setup_clock(
        self, left_seconds: float, right_seconds: float, increment: float = 0.0, board: int = 0
    ) -> None: ...


@dataclass(frozen=True, slots=True)
class TimeControl:
    """What the emulated clock is set to: the first period's base time and increment."""

    base: float
    increment: float


def parse_time_control(text: str | None) -> TimeControl | None:
    """The first period of a PGN TimeControl tag ('5400+30', '40/5400+30:1800+30'), or None
    when the tag is missing, '?'/'-', or not a time control (real files have prose there)."""
    if not text:
        return None
    try:
        tc = clock_time_control(text.strip())
    except ValueError:
        return None
    if tc.untimed:
        return None
    first = tc.periods("white")[0]
    return TimeControl(float(first.seconds), float(first.increment))


def hand_moves(board: chess.Board, move: chess.Move) -> list[tuple[chess.Square, str | None]]:
    """The square changes a tidy hand makes for `move`: (square, piece symbol or None)."""
    piece = board.piece_at(move.from_square)
    if piece is None:
        raise ValueError(f"no piece on {chess.square_name(move.from_square)} for {move}")
    if board.is_castling(move):
        rank = chess.square_rank(move.from_square)
        kingside = board.is_kingside_castling(move)
        king_to = chess.square(6 if kingside else 2, rank)
        rook_from = chess.square(7 if kingside else 0, rank)
        # python-chess may encode castling as king-takes-rook: take the rook square from it.
        if board.piece_at(move.to_square) == chess.Piece(chess.ROOK, piece.color):
            rook_from = move.to_square
        rook_to = chess.square(5 if kingside else 3, rank)
        rook = chess.Piece(chess.ROOK, piece.color).symbol()
        return [
            (move.from_square, None),
            (king_to, piece.symbol()),
            (rook_from, None),
            (rook_to, rook),
        ]
    placed = piece.symbol()
    if move.promotion is not None:
        placed = chess.Piece(move.promotion, piece.color).symbol()
    steps: list[tuple[chess.Square, str | None]] = []
    if board.is_en_passant(move):
        victim = chess.square(
            chess.square_file(move.to_square), chess.square_rank(move.from_square)
        )
        return [(move.from_square, None), (move.to_square, placed), (victim, None)]
    if board.piece_at(move.to_square) is not None:
        steps.append((move.to_square, None))  # the victim comes off first
    steps += [(move.from_square, None), (move.to_square, placed)]
    return steps


def actions_for_game(
    game: chess.pgn.Game,
    *,
    white_side: Side = "left",
    orientation: Orientation = "normal",
    default_think: float = 5.0,
    base: float | None = None,
    increment: float | None = None,
    max_think: float | None = None,
) -> list[Action]:
    """The timeline of one game, t = 0 at the clock setup.

    `max_think` caps every think time (for lively demos); capped games no longer match
    their [%clk] comments.
    """
    tc = parse_time_control(game.headers.get("TimeControl"))
    inc = increment if increment is not None else (tc.increment if tc else 0.0)
    moves = list(game.mainline())
    first_clk = moves[0].clock() if moves else None
    if base is None:
        base = tc.base if tc else (first_clk + inc if first_clk is not None else DEFAULT_BASE)
    black_side: Side = "right" if white_side == "left" else "left"
    actions: list[Action] = [ClockSetup(0.0, base, base, inc)]
    t = START_DELAY
    actions.append(LeverPress(t, black_side))  # Black starts White's clock
    board = game.board()
    remaining = {chess.WHITE: base, chess.BLACK: base}
    for node in moves:
        mover = board.turn
        clk = node.clock()
        if clk is not None:
            # The increment is added on every press, the first one included.
            spent = remaining[mover] + inc - clk
            remaining[mover] = clk
        else:
            spent = default_think
        spent = max(MIN_MOVE, spent)
        if max_think is not None:
            spent = min(spent, max(MIN_MOVE, max_think))
        press = t + spent
        steps = hand_moves(board, node.move)
        step = min(HAND_STEP, (spent - 0.1) / (len(steps) + 1))
        first = press - PRESS_AFTER * (step / HAND_STEP) - step * (len(steps) - 1)
        for i, (square, symbol) in enumerate(steps):
            code = SYMBOL_TO_CODE[symbol] if symbol else 0
            actions.append(SquareSet(first + i * step, square_to_index(square, orientation), code))
        side = white_side if mover == chess.WHITE else black_side
        actions.append(LeverPress(press, side))
        board.push(node.move)
        t = press
    return actions


def _pgn_times(
    game: chess.pgn.Game, base: float, inc: float
) -> tuple[list[int | None], list[float | None]]:
    """Per ply: the mover's [%clk] (whole seconds) and the seconds the move took ([%emt],
    else the [%clk] difference with the increment, else unknown)."""
    clocks: list[int | None] = []
    think: list[float | None] = []
    remaining = {chess.WHITE: base, chess.BLACK: base}
    board = game.board()
    for node in game.mainline():
        mover = board.turn
        clk, emt = node.clock(), node.emt()
        clocks.append(round(clk) if clk is not None else None)
        if emt is not None:
            think.append(max(0.0, emt))
        elif clk is not None:
            think.append(max(0.0, remaining[mover] + inc - clk))
        else:
            think.append(None)
        if clk is not None:
            remaining[mover] = clk
        board.push(node.move)
    return clocks, think


def human_actions_for_game(
    game: chess.pgn.Game,
    *,
    habits: humans.Habits,
    seed: int = 0,
    white_side: Side = "left",
    max_think: float | None = None,
) -> list[Action]:
    """The timeline of one game played by people with `habits` (see `boardsim.humans`):
    sliding pieces, captures in either order, j'adoube, fast replies, takebacks, rotated
    boards, result signals... as actions for an emulated board, t = 0 at the clock setup.

    The board starts in the standard position: a game on a rotated board (or from another
    start) begins with the arbiter setting the pieces up, square by square, at t = 0.
    """
    tc = parse_time_control(game.headers.get("TimeControl"))
    inc = tc.increment if tc else 0.0
    moves = list(game.mainline_moves())
    first_clk = next(iter(game.mainline()), None)
    first = first_clk.clock() if first_clk is not None else None
    base = tc.base if tc else (first + inc if first is not None else DEFAULT_BASE)
    clocks, think = _pgn_times(game, base, inc)
    if max_think is not None:
        cap = habits.max_think if habits.max_think is not None else max_think
        habits = dataclasses.replace(habits, max_think=min(cap, max_think))
    perf = humans.perform(
        moves,
        start_fen=game.board().fen(),
        chess960=game.board().chess960,
        habits=habits,
        seed=seed,
        # Capped think times no longer fit the [%clk] values: let the clock show its own.
        clocks=clocks if max_think is None else None,
        think=think,
        initial_seconds=(round(base), round(base)),
        white_side=white_side,
        result=game.headers.get("Result"),
    )
    actions: list[Action] = []
    standard = BoardPosition.from_fen(chess.STARTING_BOARD_FEN)
    for index, (now, wanted) in enumerate(zip(standard.codes, perf.start.codes, strict=True)):
        if now != wanted:
            actions.append(SquareSet(0.0, index, wanted))
    for action in perf.actions:
        if isinstance(action, humans.PieceChange):
            actions.append(SquareSet(action.t, action.index, action.code))
        elif isinstance(action, humans.LeverPress):
            actions.append(LeverPress(action.t, action.side))
        else:
            # Set the clock, then the first mover's opponent presses to start it.
            actions.append(ClockSetup(0.0, action.left_seconds, action.right_seconds, inc))
            other: Side = "right" if action.side == "left" else "left"
            actions.append(LeverPress(action.t, other))
    return actions


def habits_named(name: HabitsName) -> humans.Habits | None:
    """The noise model called `name`: "realistic" habits, or None for the tidy hands."""
    if name == "realistic":
        return humans.Habits.realistic()
    if name == "none":
        return None
    raise ValueError(f"unknown habits {name!r}: choose one of {', '.join(HABITS)}")


class TimedAction(Protocol):
    """Anything with a time: our actions, or another model's (duck-typed, see `perform`)."""

    @property
    def t(self) -> float: ...


def perform(target: ActionTarget, action: TimedAction, board: int = 0) -> None:
    """Do one action now. Foreign actions work too when shaped like ours: (t, index, code)
    for a square, (t, side) for a lever press, (t, left_seconds, right_seconds[, increment])
    for a clock setup."""
    match action:
        case SquareSet(_, index, code):
            target.set_square(index, code, board=board)
        case LeverPress(_, side):
            target.press_lever(side, board=board)
        case ClockSetup(_, left, right, inc):
            target.setup_clock(left, right, inc, board=board)
        case _:
            _perform_foreign(target, action, board)


def _perform_foreign(target: ActionTarget, action: object, board: int) -> None:
    index, code = getattr(action, "index", None), getattr(action, "code", None)
    side = getattr(action, "side", None)
    left, right = getattr(action, "left_seconds", None), getattr(action, "right_seconds", None)
    if isinstance(index, int) and isinstance(code, int):
        target.set_square(index, code, board=board)
    elif side == "left" or side == "right":
        target.press_lever(side, board=board)
    elif isinstance(left, int | float) and isinstance(right, int | float):
        target.setup_clock(left, right, float(getattr(action, "increment", 0.0)), board=board)
    else:
        raise TypeError(
            f"cannot perform {action!r}: expected a square change (index, code), "
            "a lever press (side) or a clock setup (left_seconds, right_seconds)"
        )


async def play(
    target: ActionTarget,
    actions: Sequence[TimedAction],
    time_source: MonotonicTimeSource,
    *,
    board: int = 0,
    speed: float = 1.0,
) -> None:
    """Perform `actions` on `target`, action.t seconds after the start of play.

    `time_source` is the simulation clock the boards read (a `ScaledTime` runs `speed`
    times faster than the wall clock; pass the same factor as `speed` so the player sleeps
    the right real time). Returns when the last action is done.
    """
    if not speed > 0:
        raise ValueError(f"speed must be a positive factor, got {speed}")
    start = time_source.now()
    for action in sorted(actions, key=lambda a: a.t):
        wait = (start + action.t - time_source.now()) / speed
        if wait > 0:
            await asyncio.sleep(wait)
        perform(target, action, board)


__all__ = [
    "DEFAULT_BASE",
    "HABITS",
    "HAND_STEP",
    "MIN_MOVE",
    "PRESS_AFTER",
    "START_DELAY",
    "Action",
    "ActionTarget",
    "ClockSetup",
    "HabitsName",
    "LeverPress",
    "SquareSet",
    "TimeControl",
    "TimedAction",
    "actions_for_game",
    "habits_named",
    "hand_moves",
    "human_actions_for_game",
    "parse_time_control",
    "perform",
    "play",
]
