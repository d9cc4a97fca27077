"""Game events: what happened in one game, as immutable facts for the journal.

`game` is the game id (`GameKey.id`). Times `t` are seconds since the Unix epoch (UTC),
from the service's injected clock.

Results and reasons are `broadcast.fide.results`'s `Result` and `Reason` (the game
notation: 1-0, 0-1, 1/2-1/2, and +/-, -/+, -/- for forfeits). The events hold them as the
plain strings the journal decodes, typed by the two Literals below, which hold exactly the
enums' values (tests/broadcast/fide/test_results.py checks).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Colour = Literal["white", "black"]
# The values of `Result` and `Reason`, as the journal's strings.
GameResultText = Literal["1-0", "0-1", "1/2-1/2", "+/-", "-/+", "-/-"]
ResultReason = Literal[
    "checkmate",
    "stalemate",
    "dead-position",
    "repetition",
    "75-moves",
    "kings-signal",
    "flag-fall",
    "default-time",
    "agreement",
    "resignation",
    "arbiter",
    "forfeit",  # a player did not come (or was not at the board): a no-show
    "withdrawal",  # a game not played because a player withdrew or was eliminated
]


@dataclass(frozen=True, slots=True)
class BoardAttached:
    """Physical board `board` (its serial, or port) follows `game` from now on."""

    game: str
    board: str
    t: float


@dataclass(frozen=True, slots=True)
class BoardReplaced:
    """The arbiter moved `game` from hall board `old_board` to hall board `new_board` (a
    spare, after the old one failed) when it had `ply` plies. The game waits for the new
    board to show its position, then goes on there; the old board no longer touches it.
    `white_seconds`/`black_seconds`: the times the arbiter entered for a spare without a
    clock (a software clock runs from them once the board matches)."""

    game: str
    old_board: int
    new_board: int
    ply: int
    t: float
    by: str = "arbiter"
    white_seconds: float | None = None
    black_seconds: float | None = None


@dataclass(frozen=True, slots=True)
class GameMove:
    """A move of the game (ply 1 = White's first). A move at a ply that already exists
    replaces it and everything after it."""

    game: str
    ply: int
    san: str
    uci: str
    fen_after: str
    t: float
    remaining: float | None = None  # mover's clock after the move ([%clk])
    spent: float | None = None  # think time ([%emt])
    software_clock: bool = False


@dataclass(frozen=True, slots=True)
class GameMoveClocked:
    """The clock time of a move, known after the move itself."""

    game: str
    ply: int
    remaining: float
    spent: float | None
    t: float


@dataclass(frozen=True, slots=True)
class GameTakeback:
    """Moves taken back on the board: the game now has `ply` plies."""

    game: str
    ply: int
    t: float


@dataclass(frozen=True, slots=True)
class GameClock:
    """What the clock shows, by colour."""

    game: str
    white: int
    black: int
    running: Colour | None
    t: float
    white_side: Literal["left", "right"] = "left"  # which half of the clock is White's


@dataclass(frozen=True, slots=True)
class GameSync:
    """The board stopped (or started again) matching the game."""

    game: str
    in_sync: bool
    t: float
    fen: str | None = None  # what the board shows while out of sync
    out_seconds: float = 0.0


@dataclass(frozen=True, slots=True)
class GameFlag:
    """`colour`'s flag fell on the game's clock (the game fact of a clock's `FlagFell`)."""

    game: str
    colour: Colour
    t: float


@dataclass(frozen=True, slots=True)
class ResultProposed:
    """A result the rules or the board suggest; the arbiter confirms or overrides it."""

    game: str
    result: GameResultText
    reason: ResultReason
    t: float
    detail: str = ""


@dataclass(frozen=True, slots=True)
class ResultConfirmed:
    """The game's result stands (confirmed proposal, automatic result, or arbiter's word)."""

    game: str
    result: GameResultText
    reason: ResultReason
    t: float
    by: str = "arbiter"


@dataclass(frozen=True, slots=True)
class ResultCleared:
    """The game has no result any more and goes on (or waits to be played): a forfeit the
    rules entered for a withdrawal, taken back when the player is reinstated."""

    game: str
    t: float
    by: str = "arbiter"
    why: str = ""


@dataclass(frozen=True, slots=True)
class ProposalWithdrawn:
    """The result proposed for the game does not stand and the game goes on: the arbiter
    rejected it, or withdrew a default-time forfeit by marking the player present. `why`
    says which, in words."""

    game: str
    t: float
    by: str = "arbiter"
    why: str = ""


@dataclass(frozen=True, slots=True)
class LineCorrected:
    """The arbiter replaces the game's moves (UCI from `start_fen`) everywhere. `board`:
    the hall board that follows the game; it must show the corrected position before
    anything it shows is read as play again (None: no board follows the game, or a
    journal written before corrections waited for the board)."""

    game: str
    ucis: tuple[str, ...]
    t: float
    by: str = "arbiter"
    board: int | None = None


@dataclass(frozen=True, slots=True)
class StartPositionSet:
    """The game starts from `fen` instead of the standard position. `board`: as for
    `LineCorrected`, the hall board that must show the position before play goes on."""

    game: str
    fen: str
    t: float
    by: str = "arbiter"
    board: int | None = None


GameEvent = (
    BoardAttached
    | BoardReplaced
    | GameMove
    | GameMoveClocked
    | GameTakeback
    | GameClock
    | GameSync
    | GameFlag
    | ResultProposed
    | ResultConfirmed
    | ResultCleared
    | ProposalWithdrawn
    | LineCorrected
    | StartPositionSet
)

__all__ = [
    "BoardAttached",
    "BoardReplaced",
    "Colour",
    "GameClock",
    "GameEvent",
    "GameFlag",
    "GameMove",
    "GameMoveClocked",
    "GameResultText",
    "GameSync",
    "GameTakeback",
    "LineCorrected",
    "ProposalWithdrawn",
    "ResultCleared",
    "ResultConfirmed",
    "ResultProposed",
    "ResultReason",
    "StartPositionSet",
]
