"""What reconstruction reports: immutable, timestamped events (t in TimeSource seconds)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from boards.position import Orientation
from clocks.move_times import ClockStarted, FlagFell, MoveTime

Result = Literal["1-0", "0-1", "1/2-1/2"]
Evidence = Literal["press", "stable", "resync"]


@dataclass(frozen=True, slots=True)
class NewGame:
    """A game starts from `fen` (the start position was set up, or the first position
    matched); `orientation` says how the board is turned."""

    t: float
    fen: str
    orientation: Orientation
    chess960: bool = False


@dataclass(frozen=True, slots=True)
class MovePlayed:
    """A legal move, ply 1 = White's first move from the standard start."""

    t: float
    ply: int
    san: str
    uci: str
    fen_after: str
    clock: MoveTime | None = None
    evidence: Evidence = "stable"


@dataclass(frozen=True, slots=True)
class MoveClocked:
    """The clock time for a move that was confirmed before its lever press arrived."""

    t: float
    ply: int
    clock: MoveTime


@dataclass(frozen=True, slots=True)
class MoveRetracted:
    """Plies taken back (a takeback, or a move replaced by a correction); the game now
    has `ply` plies."""

    t: float
    plies: tuple[int, ...]
    sans: tuple[str, ...]
    ply: int


@dataclass(frozen=True, slots=True)
class OutOfSync:
    """The board matches no position of the game nor any reachable one, or (`ambiguous`
    not empty) it is a few moves on but more than one line gets there and nothing seen on
    the way tells which was played: the candidate lines, in SAN, for the arbiter."""

    t: float
    fen: str
    ply: int
    since: float
    ambiguous: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class BackInSync:
    t: float
    out_seconds: float
    ply: int


@dataclass(frozen=True, slots=True)
class ResultSignalled:
    """Both kings were put on the centre squares (DGT convention): a result proposal."""

    t: float
    result: Result
    white_king: str
    black_king: str


ReconstructionEvent = (
    NewGame
    | MovePlayed
    | MoveClocked
    | MoveRetracted
    | OutOfSync
    | BackInSync
    | ResultSignalled
    | FlagFell
    | ClockStarted
)

__all__ = [
    "BackInSync",
    "Evidence",
    "MoveClocked",
    "MovePlayed",
    "MoveRetracted",
    "NewGame",
    "OutOfSync",
    "ReconstructionEvent",
    "Result",
    "ResultSignalled",
]
