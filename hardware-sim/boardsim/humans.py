"""Human players at a DGT board: a pure, seeded noise model.

`perform` turns a chess game into what the hardware would experience: a timed list of
square changes (`PieceChange`: board index, new piece code or 0) and clock events
(`ClockStart`, `LeverPress`), with the habits of real players, each with a probability
in `Habits`: capture orders, castling king- or rook-first, en passant with the captured
pawn removed last, sliding pieces seen on the squares they cross (and slowly dragged
ones), hesitating slides (the piece rests on one or two squares of its path before its
real square), j'adoube, knocked-over pieces put back, single-scan misreads, promotions with the
pawn placed first, fast replies, takebacks, illegal moves corrected, rotated boards,
result signals with the kings, and flag falls.

What a scanning board and a DGT clock report of that history is in `boardsim.readout`.
Nothing here does I/O or reads the wall clock: the same seed gives the same output.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

import chess

from boards.position import SYMBOL_TO_CODE, BoardPosition, Orientation, square_to_index
from clocks.reading import Side

Result = Literal["1-0", "0-1", "1/2-1/2", "*"]


@dataclass(frozen=True, slots=True)
class PieceChange:
    """At `t` the square at board `index` starts holding `code` (0 = emptied)."""

    t: float
    index: int
    code: int


@dataclass(frozen=True, slots=True)
class LeverPress:
    """At `t` the player on `side` presses their lever (their clock stops). `shows`, when
    known, is what their display reads after the press (increment included)."""

    t: float
    side: Side
    shows: int | None = None


@dataclass(frozen=True, slots=True)
class ClockStart:
    """The arbiter starts the clock at `t` with these displays; `side` runs first."""

    t: float
    side: Side
    left_seconds: int
    right_seconds: int


Action = PieceChange | LeverPress | ClockStart


@dataclass(frozen=True, slots=True)
class Habits:
    """Probabilities (per move unless stated) and timings of human habits."""

    capture_remove_first: float = 0.5  # else the mover lands on the captured piece at once
    castle_rook_first: float = 0.2
    en_passant_captured_last: float = 0.5
    slide_shown: float = 0.3  # a sliding piece is seen on the squares it crosses
    slide_dwell: tuple[float, float] = (0.03, 0.12)  # seconds on each crossed square
    drag: float = 0.0  # a slow drag: the piece rests on each crossed square
    drag_dwell: tuple[float, float] = (0.2, 0.35)
    # A hesitating slide: a bishop, rook or queen rests on one or two squares of its path
    # (each for a time drawn from `hesitate_rest`) before it is put on its real square.
    hesitate: float = 0.0
    hesitate_rest: tuple[float, float] = (0.0, 1.0)
    jadoube: float = 0.03
    knock_over: float = 0.01
    misread: float = 0.02
    promotion_pawn_first: float = 0.5
    fast_reply: float = 0.08  # the reply lands 300-450 ms after the move
    takeback: float = 0.01  # move, take it back, play it again
    illegal_then_corrected: float = 0.01
    rotated_board: float = 0.0  # per game
    result_signal: float = 0.0  # per game with a decisive or drawn result
    press_clock: float = 1.0
    lift: tuple[float, float] = (0.2, 0.7)  # seconds a piece is in the air
    press_delay: tuple[float, float] = (0.1, 0.5)
    think: tuple[float, float] = (1.0, 12.0)  # when the game gives no times
    max_think: float | None = None  # cap given think times (keeps simulations short)

    @classmethod
    def none(cls) -> Habits:
        """Perfect players: one clean change per square, no mistakes."""
        return cls(
            capture_remove_first=0.0,
            castle_rook_first=0.0,
            en_passant_captured_last=0.0,
            slide_shown=0.0,
            jadoube=0.0,
            knock_over=0.0,
            misread=0.0,
            promotion_pawn_first=0.0,
            fast_reply=0.0,
            takeback=0.0,
            illegal_then_corrected=0.0,
            rotated_board=0.0,
            result_signal=0.0,
        )

    @classmethod
    def realistic(cls) -> Habits:
        """A mix seen at real events."""
        return cls(
            capture_remove_first=0.5,
            castle_rook_first=0.25,
            en_passant_captured_last=0.5,
            slide_shown=0.35,
            drag=0.03,
            hesitate=0.15,
            jadoube=0.04,
            knock_over=0.01,
            misread=0.03,
            promotion_pawn_first=0.5,
            fast_reply=0.1,
            takeback=0.01,
            illegal_then_corrected=0.01,
            rotated_board=0.1,
            result_signal=0.7,
        )

    def __post_init__(self) -> None:
        for name in (
            "capture_remove_first",
            "castle_rook_first",
            "en_passant_captured_last",
            "slide_shown",
            "drag",
            "hesitate",
            "jadoube",
            "knock_over",
            "misread",
            "promotion_pawn_first",
            "fast_reply",
            "takeback",
            "illegal_then_corrected",
            "rotated_board",
            "result_signal",
            "press_clock",
        ):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"habit {name} is a probability in [0, 1], got {value}")
        low, high = self.hesitate_rest
        if not 0.0 <= low <= high:
            raise ValueError(f"hesitate_rest is a range of seconds, got {self.hesitate_rest}")


@dataclass(frozen=True, slots=True)
class Performance:
    """A game as played at the board: the start, the timed actions, and what to expect."""

    start: BoardPosition
    orientation: Orientation
    white_side: Side
    actions: tuple[Action, ...]
    moves: tuple[chess.Move, ...]
    start_fen: str
    end_t: float
    result_signal: str | None = None
    flag_side: Side | None = None
    habits_used: dict[str, int] = field(default_factory=dict)

    @property
    def changes(self) -> list[PieceChange]:
        return [a for a in self.actions if isinstance(a, PieceChange)]

    @property
    def presses(self) -> list[LeverPress]:
        return [a for a in self.actions if isinstance(a, LeverPress)]


def _code(piece: chess.Piece) -> int:
    return SYMBOL_TO_CODE[piece.symbol()]


class _Table:
    """The physical board while the performance is written: codes by board index."""

    def __init__(self, board: chess.BaseBoard, orientation: Orientation) -> None:
        self.orientation = orientation
        self.codes = list(BoardPosition.from_board(board, orientation).codes)
        self.actions: list[Action] = []

    def idx(self, square: chess.Square) -> int:
        return square_to_index(square, self.orientation)

    def set(self, t: float, square: chess.Square, code: int) -> None:
        i = self.idx(square)
        self.codes[i] = code
        self.actions.append(PieceChange(t, i, code))

    def code_at(self, square: chess.Square) -> int:
        return self.codes[self.idx(square)]


def _between(a: chess.Square, b: chess.Square) -> list[chess.Square]:
    """Squares strictly between a and b on a line, in travel order."""
    df = chess.square_file(b) - chess.square_file(a)
    dr = chess.square_rank(b) - chess.square_rank(a)
    steps = max(abs(df), abs(dr))
    if steps < 2 or (df and dr and abs(df) != abs(dr)):
        return []
    sf, sr = (df > 0) - (df < 0), (dr > 0) - (dr < 0)
    return [
        chess.square(chess.square_file(a) + sf * k, chess.square_rank(a) + sr * k)
        for k in range(1, steps)
    ]


class _Player:
    def __init__(self, rng: random.Random, habits: Habits, table: _Table) -> None:
        self.rng = rng
        self.h = habits
        self.table = table
        self.used: dict[str, int] = {}
        self.quick = False  # a fast reply: no hesitation, no sliding

    def chance(self, name: str) -> bool:
        p: float = getattr(self.h, name)
        hit = p > 0 and self.rng.random() < p
        if hit:
            self.used[name] = self.used.get(name, 0) + 1
        return hit

    def span(self, bounds: tuple[float, float]) -> float:
        return self.rng.uniform(*bounds)

    def carry(
        self, t: float, frm: chess.Square, to: chess.Square, code: int, lift: bool = True
    ) -> float:
        """Lift the piece on `frm` (unless already lifted) and put `code` on `to`, maybe
        passing over the squares between. Returns the release time."""
        if lift:
            self.table.set(t, frm, 0)
        piece_code = code
        crossed = _between(frm, to) if piece_code % 6 in (2, 4, 0) else []
        travel = self.span((0.15, 0.3) if self.quick else self.h.lift)
        if self.quick:
            crossed = []
        if crossed and self.chance("hesitate"):
            t = self.hesitate(t, crossed, piece_code)
        elif crossed and self.chance("drag"):
            for sq in crossed:
                if self.table.code_at(sq) == 0:
                    t += self.span(self.h.drag_dwell) / 2
                    self.table.set(t, sq, piece_code)
                    t += self.span(self.h.drag_dwell)
                    self.table.set(t, sq, 0)
        elif crossed and self.chance("slide_shown"):
            for sq in crossed:
                if self.table.code_at(sq) == 0:
                    t += self.span(self.h.slide_dwell)
                    self.table.set(t, sq, piece_code)
                    t += self.span(self.h.slide_dwell)
                    self.table.set(t, sq, 0)
        t += travel
        self.table.set(t, to, code)
        return t

    def hesitate(self, t: float, crossed: list[chess.Square], code: int) -> float:
        """Slide over `crossed` (in travel order), resting on one or two of its squares:
        the piece stands there, let go, long enough for the board to see it (or not, at
        a rest near 0 s). Returns when it leaves the last one."""
        free = [sq for sq in crossed if self.table.code_at(sq) == 0]  # 960 castling: the king
        if not free:
            return t
        count = 2 if len(free) > 1 and self.rng.random() < 0.5 else 1
        for k in sorted(self.rng.sample(range(len(free)), count)):
            t += self.span((0.1, 0.25))  # the hand slides on to the square
            self.table.set(t, free[k], code)
            t += self.span(self.h.hesitate_rest)
            self.table.set(t, free[k], 0)
        return t

    def make_move(self, t: float, board: chess.Board, move: chess.Move) -> float:
        """The physical changes for one legal move starting at `t`; returns release time."""
        table = self.table
        piece = board.piece_at(move.from_square)
        assert piece is not None
        mover = _code(piece)
        placed = _code(chess.Piece(move.promotion, piece.color)) if move.promotion else mover
        if board.is_castling(move):
            rank = chess.square_rank(move.from_square)
            kingside = board.is_kingside_castling(move)
            king_to = chess.square(6 if kingside else 2, rank)
            rook_to = chess.square(5 if kingside else 3, rank)
            after = board.copy(stack=False)
            after.push(move)
            own_rooks = board.rooks & board.occupied_co[piece.color]
            gone = own_rooks & ~after.rooks
            rook_from = chess.msb(gone) if gone else rook_to
            rook_code = _code(chess.Piece(chess.ROOK, piece.color))
            king_from = move.from_square
            if rook_to != king_from and self.chance("castle_rook_first"):
                t = self.carry(t, rook_from, rook_to, rook_code) if rook_from != rook_to else t
                t += self.span((0.2, 0.8))
                if king_from != king_to:
                    t = self.carry(t, king_from, king_to, mover)
            else:
                if king_from != king_to:
                    table.set(t, king_from, 0)
                    t += self.span(self.h.lift)
                    if table.code_at(king_to) == 0:
                        table.set(t, king_to, mover)
                        t += self.span((0.2, 0.6))
                if rook_from != rook_to:
                    t = self.carry(t, rook_from, rook_to, rook_code)
                if king_from != king_to and table.code_at(king_to) != mover:
                    t += self.span((0.1, 0.3))
                    table.set(t, king_to, mover)  # 960: the rook was on the king's target
            return t
        if board.is_en_passant(move):
            down = -8 if piece.color == chess.WHITE else 8
            captured_sq = move.to_square + down
            if self.chance("en_passant_captured_last"):
                t = self.carry(t, move.from_square, move.to_square, mover)
                t += self.span((0.2, 0.8))
                table.set(t, captured_sq, 0)
            else:
                table.set(t, captured_sq, 0)
                t += self.span((0.2, 0.6))
                t = self.carry(t, move.from_square, move.to_square, mover)
            return t
        capture = board.piece_at(move.to_square) is not None
        if capture and self.chance("capture_remove_first"):
            table.set(t, move.to_square, 0)
            t += self.span((0.15, 0.5))
        if move.promotion and self.chance("promotion_pawn_first"):
            t = self.carry(t, move.from_square, move.to_square, mover)
            t += self.span((0.5, 3.0))
            table.set(t, move.to_square, 0)
            t += self.span((0.3, 1.0))
            table.set(t, move.to_square, placed)
            return t
        return self.carry(t, move.from_square, move.to_square, placed)

    def take_back(self, t: float, before: list[int]) -> float:
        """Put the board back to the codes `before` (a takeback): the moved piece comes
        off its new square first, then everything returns. Returns when done."""
        table = self.table
        changed = [i for i in range(64) if table.codes[i] != before[i]]
        for index in changed:
            if before[index] == 0:
                t += self.span((0.1, 0.3))
                table.codes[index] = 0
                table.actions.append(PieceChange(t, index, 0))
        for index in changed:
            if table.codes[index] != before[index]:
                t += self.span((0.2, 0.5))
                table.codes[index] = before[index]
                table.actions.append(PieceChange(t, index, before[index]))
        return t


REACTION = 0.2  # extra seconds before a fast reply can take the piece that just landed


def _takes_last_mover(board: chess.Board, move: chess.Move, last: chess.Move) -> bool:
    """Does `move` capture the piece `last` (the previous ply) just put down?"""
    if board.is_en_passant(move):
        return True  # en passant only ever takes the pawn that just moved two squares
    return move.to_square == last.to_square and board.is_capture(move)


def _king_targets(
    rng: random.Random, result: str, white_king: chess.Square, black_king: chess.Square
) -> tuple[chess.Square, chess.Square]:
    light = [chess.D5, chess.E4]
    dark = [chess.D4, chess.E5]
    if result == "1-0":
        pools = (light, light)
    elif result == "0-1":
        pools = (dark, dark)
    elif white_king in dark or black_king in light:
        pools = (dark, light)  # keep a king that already stands on the centre
    elif white_king in light or black_king in dark:
        pools = (light, dark)
    else:
        pools = (light, dark) if rng.random() < 0.5 else (dark, light)
    w_pool, b_pool = pools
    w = white_king if white_king in w_pool else rng.choice(w_pool)
    b_choices = [s for s in b_pool if s != w]
    b = black_king if black_king in b_choices else rng.choice(b_choices)
    if w == b:  # cannot happen with the pools above; keep the two kings apart anyway
        raise AssertionError("kings on one square")
    return w, b


def perform(
    moves: Sequence[chess.Move],
    *,
    start_fen: str = chess.STARTING_FEN,
    chess960: bool = False,
    habits: Habits | None = None,
    seed: int = 0,
    clocks: Sequence[int | None] | None = None,
    think: Sequence[float | None] | None = None,
    initial_seconds: tuple[int, int] | None = None,
    white_side: Side = "left",
    orientation: Orientation | None = None,
    result: str | None = None,
    flag: bool = False,
    clock: bool = True,
) -> Performance:
    """Play `moves` (legal from `start_fen`) at a board the way people do.

    `clocks[i]`: the mover's displayed time after ply i (as in [%clk]); `think[i]`: the
    seconds ply i took (as in [%emt]); both optional. `initial_seconds` = (White, Black)
    at the start. `result` enables the kings' result signal at the end (per
    `habits.result_signal`); `flag=True` makes the player to move at the end lose on time.
    `clock=False`: no clock at all (no lever presses).
    """
    h = habits or Habits.realistic()
    rng = random.Random(seed)
    board = chess.Board(start_fen, chess960=chess960)
    if orientation is None:
        orientation = "rotated" if h.rotated_board and rng.random() < h.rotated_board else "normal"
    table = _Table(board, orientation)
    start = BoardPosition(tuple(table.codes))
    player = _Player(rng, h, table)
    black_side: Side = "right" if white_side == "left" else "left"

    def side_of(white: bool) -> Side:
        return white_side if white else black_side

    n = len(moves)
    thinks: list[float] = []
    for i in range(n):
        given = think[i] if think is not None and i < len(think) else None
        value = float(given) if given is not None else rng.uniform(*h.think)
        if h.max_think is not None:
            value = min(value, h.max_think)
        thinks.append(max(0.0, value))
    if initial_seconds is None:
        firsts = [c for c in (clocks or []) if c is not None]
        base = (max(firsts[:2]) + 60) if firsts else 5400
        initial_seconds = (base, base)
    t = 1.0
    if clock:
        white_first = board.turn == chess.WHITE
        left = initial_seconds[0] if white_side == "left" else initial_seconds[1]
        right = initial_seconds[1] if white_side == "left" else initial_seconds[0]
        table.actions.append(ClockStart(t, side_of(white_first), left, right))
    last_press = t
    last_release = t
    prev_fast = False
    for i, move in enumerate(moves):
        white = board.turn == chess.WHITE
        think_i = thinks[i]
        # A burst holds two plies at most: after a fast reply the next move takes a second.
        fast = i > 0 and not prev_fast and (think_i < 0.6 or player.chance("fast_reply"))
        prev_fast = fast
        player.quick = fast
        if fast:
            begin = last_release + rng.uniform(0.1, 0.15)
            if i > 0 and _takes_last_mover(board, move, moves[i - 1]):
                # Nobody grabs a piece before seeing it land: taking the piece just moved
                # waits for a human reaction (> one board scan), so the board saw it.
                begin += REACTION
        else:
            begin = max(last_press, last_release) + max(think_i, 1.0)
        # Habits that happen while thinking (never during a fast reply).
        if not fast and begin - max(last_press, last_release) > 2.5:
            quiet_from = max(last_press, last_release) + 0.6
            if player.chance("knock_over"):
                pieces = [s for s, p in board.piece_map().items() if p.piece_type != chess.KING]
                if pieces:
                    sq = rng.choice(pieces)
                    code = table.code_at(sq)
                    t0 = quiet_from
                    table.set(t0, sq, 0)
                    table.set(min(t0 + rng.uniform(0.5, 1.5), begin - 0.5), sq, code)
            elif player.chance("misread"):
                index = rng.randrange(64)
                old = table.codes[index]
                wrong = rng.choice([c for c in range(0, 13) if c != old])
                t0 = quiet_from + rng.uniform(0.0, 1.0)
                table.actions.append(PieceChange(t0, index, wrong))
                table.actions.append(PieceChange(t0 + rng.uniform(0.05, 0.15), index, old))
        if not fast and begin - max(last_press, last_release) > 2.0 and player.chance("jadoube"):
            own = [s for s, p in board.piece_map().items() if p.color == board.turn]
            sq = rng.choice(own)
            code = table.code_at(sq)
            t0 = begin - 1.4
            table.set(t0, sq, 0)
            table.set(t0 + rng.uniform(0.2, 0.6), sq, code)
        t = begin
        if not fast and player.chance("illegal_then_corrected"):
            t = _illegal(player, board, t)
        before = list(table.codes)
        release = player.make_move(t, board, move)
        if i < n - 1 and not fast and player.chance("takeback"):
            t = release + rng.uniform(1.2, 2.5)
            t = player.take_back(t, before)
            t += rng.uniform(1.5, 2.5)
            release = player.make_move(t, board, move)
        board.push(move)
        last_release = release
        if clock and (player.chance("press_clock") or (clocks and i < len(clocks))):
            press_t = max(release + rng.uniform(*h.press_delay), last_press + 0.05)
            shows = clocks[i] if clocks is not None and i < len(clocks) else None
            table.actions.append(LeverPress(press_t, side_of(white), shows))
            last_press = press_t
    end = max(last_press, last_release) + 1.0
    flag_side: Side | None = None
    signal: str | None = None
    if flag and clock:
        flag_side = side_of(board.turn == chess.WHITE)
    if result in ("1-0", "0-1", "1/2-1/2") and h.result_signal and rng.random() < h.result_signal:
        player.used["result_signal"] = 1
        signal = result
        t = end + rng.uniform(2.0, 6.0)
        wk, bk = board.king(chess.WHITE), board.king(chess.BLACK)
        assert wk is not None and bk is not None
        w_to, b_to = _king_targets(rng, result, wk, bk)
        for target in (w_to, b_to):
            occupant = board.piece_at(target)
            if occupant is not None and occupant.piece_type != chess.KING:
                table.set(t, target, 0)
                t += rng.uniform(0.3, 0.8)
        order = [(wk, w_to, chess.WHITE), (bk, b_to, chess.BLACK)]
        if w_to == bk or (b_to != wk and rng.random() < 0.5):
            order.reverse()  # a king whose target the other king holds goes second
        for frm, to, colour in order:
            if frm == to:
                continue
            code = _code(chess.Piece(chess.KING, colour))
            if table.code_at(to) != 0:  # the other king still stands there
                continue
            table.set(t, frm, 0)
            t += rng.uniform(0.3, 0.9)
            table.set(t, to, code)
            t += rng.uniform(0.5, 2.5)
        end = t + 1.0
    actions = sorted(table.actions, key=lambda a: a.t)
    return Performance(
        start=start,
        orientation=orientation,
        white_side=white_side,
        actions=tuple(actions),
        moves=tuple(moves),
        start_fen=start_fen,
        end_t=end,
        result_signal=signal,
        flag_side=flag_side,
        habits_used=dict(player.used),
    )


def _illegal(player: _Player, board: chess.Board, t: float) -> float:
    """Put one of the mover's pieces on a square it cannot legally reach, hold it there,
    then put it back. Returns when the hand is free again."""
    rng = player.rng
    legal_to: dict[chess.Square, set[chess.Square]] = {}
    for m in board.legal_moves:
        legal_to.setdefault(m.from_square, set()).add(m.to_square)
    own = [
        s
        for s, p in board.piece_map().items()
        if p.color == board.turn and p.piece_type not in (chess.KING, chess.PAWN)
    ]
    empty = [s for s in chess.SQUARES if board.piece_at(s) is None]
    rng.shuffle(own)
    for frm in own:
        targets = [s for s in empty if s not in legal_to.get(frm, set())]
        if not targets:
            continue
        to = rng.choice(targets)
        piece = board.piece_at(frm)
        assert piece is not None
        code = _code(piece)
        player.table.set(t, frm, 0)
        t += rng.uniform(0.2, 0.5)
        player.table.set(t, to, code)
        t += rng.uniform(0.8, 1.8)
        player.table.set(t, to, 0)
        t += rng.uniform(0.2, 0.5)
        player.table.set(t, frm, code)
        return t + rng.uniform(0.3, 0.8)
    return t


__all__ = [
    "REACTION",
    "Action",
    "ClockStart",
    "Habits",
    "LeverPress",
    "Performance",
    "PieceChange",
    "Result",
    "perform",
]
