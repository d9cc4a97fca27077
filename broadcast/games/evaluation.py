"""An engine's evaluation of one position, and how spectators read it. Pure.

`Evaluation` is a value: the position (FEN), the score from White's side (centipawns,
or mate in N moves: positive when White mates), the depth searched, and the engine's best
line in SAN (a few plies). Evaluations are derived, spectator-only data: they are never
journal events (docs/architecture.md). The engine that makes them lives in
`broadcast.analysis`; these functions only format and check, and never raise on any
input a caller can hand them (a property test holds them to it).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import chess

__all__ = [
    "PV_PLIES",
    "EvalLookup",
    "Evaluation",
    "eval_json",
    "evaluable",
    "pgn_eval",
    "position_key",
    "pv_line",
    "pv_san",
    "score_text",
    "white_share",
]

PV_PLIES = 6  # plies of the best line shown and sent: enough to read the idea, no more

# Centipawns to White's winning chances (the logistic curve Lichess draws its bar with):
# the bar moves a lot between 0 and 3 pawns and little beyond.
_CHANCES_SLOPE = 0.00368208


@dataclass(frozen=True, slots=True)
class Evaluation:
    """One position's evaluation: exactly one of `cp` and `mate`, both from White's side."""

    fen: str
    depth: int
    cp: int | None = None
    mate: int | None = None  # moves to mate: > 0 White mates, < 0 Black mates
    pv: tuple[str, ...] = ()  # the best line in SAN, from `fen`

    def __post_init__(self) -> None:
        if (self.cp is None) == (self.mate is None):
            raise ValueError("an evaluation has a centipawn score or a mate, not both or none")


# How callers hand evaluations to the PGN writer: the evaluation of a FEN, if known.
EvalLookup = Callable[[str], Evaluation | None]


def position_key(fen: str) -> str:
    """What makes two FENs the same position for an engine: placement, side to move,
    castling and en passant; the move counters do not change the evaluation, so a
    transposition or a repetition reuses it."""
    return " ".join(fen.split()[:4])


def evaluable(fen: str) -> bool:
    """Whether an engine has something to say: a legal position with a move to make
    (a mate or stalemate on the board is the result's to show, not the engine's)."""
    try:
        board = chess.Board(fen)
    except ValueError:
        return False
    if not board.is_valid():
        return False
    return any(True for _ in board.legal_moves)


def pv_san(fen: str, moves: Iterable[str], plies: int = PV_PLIES) -> tuple[str, ...]:
    """The first `plies` moves of a line given in UCI, as SAN from `fen`; it stops at the
    first move that is not legal there (never raises)."""
    try:
        board = chess.Board(fen)
    except ValueError:
        return ()
    if not board.is_valid():  # no kings, pawns on the back rank: SAN means nothing there
        return ()
    out: list[str] = []
    for uci in moves:
        if len(out) >= plies:
            break
        try:
            move = chess.Move.from_uci(uci)
        except (ValueError, TypeError):
            break
        if not board.is_legal(move):
            break
        out.append(board.san(move))
        board.push(move)
    return tuple(out)


def score_text(ev: Evaluation) -> str:
    """The score as spectators read it: `+0.35`, `-1.20`, `0.00`, `#3` (White mates in
    3), `#-2` (Black mates in 2)."""
    if ev.mate is not None:
        return f"#{ev.mate}"
    cp = ev.cp or 0
    return "0.00" if cp == 0 else f"{cp / 100:+.2f}"


def pgn_eval(ev: Evaluation) -> str:
    """The PGN comment command (the form Lichess and ChessBase read): `[%eval 0.35]`,
    `[%eval -1.20]`, `[%eval #3]`, `[%eval #-2]`."""
    if ev.mate is not None:
        return f"[%eval #{ev.mate}]"
    return f"[%eval {(ev.cp or 0) / 100:.2f}]"


def white_share(ev: Evaluation) -> float:
    """How much of the evaluation bar is White's, from 0 to 1 (0.5: level)."""
    if ev.mate is not None:
        return 1.0 if ev.mate > 0 else 0.0 if ev.mate < 0 else 0.5
    cp = max(-10_000, min(10_000, ev.cp or 0))
    return 1 / (1 + math.exp(-_CHANCES_SLOPE * cp))


def pv_line(ev: Evaluation) -> str:
    """The best line with move numbers, as written under the board: `21. Nf5 Qd7 22. Re3`,
    or `21... Qd7 22. Re3` when Black is to move."""
    fields = ev.fen.split()
    white = len(fields) < 2 or fields[1] != "b"
    try:
        number = max(1, int(fields[5])) if len(fields) > 5 else 1
    except ValueError:
        number = 1
    tokens: list[str] = []
    for i, san in enumerate(ev.pv):
        if white:
            tokens.append(f"{number}. {san}")
        elif i == 0:
            tokens.append(f"{number}... {san}")
        else:
            tokens.append(san)
        if not white:
            number += 1
        white = not white
    return " ".join(tokens)


def eval_json(ev: Evaluation) -> dict[str, Any]:
    """The evaluation as the API and the websocket carry it: `fen`, `depth`, `pv` (SAN)
    and one of `cp` (centipawns) or `mate`, from White's side."""
    out: dict[str, Any] = {"fen": ev.fen, "depth": ev.depth}
    if ev.mate is not None:
        out["mate"] = ev.mate
    else:
        out["cp"] = ev.cp
    out["pv"] = list(ev.pv)
    return out
