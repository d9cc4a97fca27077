"""The result of a game and why it ended: one vocabulary, in both notations, mapped once.

Like python-chess's `Outcome` and `Termination`: `Result` is what a game's result is, with
its notations; `Reason` is how the game ended, with what the rules and exports make of it.

- `Result` values are the game notation the journal's game events, the desk and the JSON
  write: "1-0", "0-1", "1/2-1/2", and "+/-", "-/+", "-/-" for forfeits. A StrEnum member
  equals its string, so journals, JSON and comparisons with plain strings are unchanged.
- `Result.tournament_code` is the tournament notation the tournament's events, TRF-side
  crosstables and standings use ("+-", "-+", "--" for forfeits, otherwise the same);
  `Result.from_tournament` reads it back. `TOURNAMENT_CODES` lists them in the order the
  tournament's messages name them.
- `Result.pgn_tag` / `Result.pgn_movetext`: PGN has no forfeit result. A forfeit is tagged
  as the win it scores; a double forfeit is tagged "0-0" (Lichess's notation) but ends the
  movetext with "*", because "0-0" there reads as castling.
- `Reason` values are the reasons the game events carry ("checkmate", "flag-fall",
  "forfeit", ...): `is_forfeit` (the reasons a forfeit needs), `desk_allowed` (what the
  arbiter may give at the desk), `termination` (the PGN Termination tag), `words`.

Why in `broadcast.fide`: the tournament's fold and the play-off (`broadcast.tournament`)
and the crosstable (`broadcast.fide.crosstable`) need the vocabulary as much as the games
do, and `broadcast.games` sits above them (tests/test_layers.py). `fide` is the lowest
domain floor, so every user can import it; and these are the Laws of Chess' results
(Art. 5, 6.9, 9, 11), FIDE's words before anyone else's.

The journal's events keep their plain-string fields (`GameResultText`, `ResultReason` in
`broadcast.games.game_events`): the journal decodes strings, and tests/broadcast/fide/test_results.py checks
that those Literals and these enums hold the same values.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

__all__ = ["REASON_TEXT", "TOURNAMENT_CODES", "Reason", "Result"]


class Result(StrEnum):
    """A game's result, its value in the game notation ("+/-" a forfeit won by White)."""

    WHITE_WINS = "1-0"
    BLACK_WINS = "0-1"
    DRAW = "1/2-1/2"
    WHITE_WINS_BY_FORFEIT = "+/-"
    BLACK_WINS_BY_FORFEIT = "-/+"
    DOUBLE_FORFEIT = "-/-"

    @property
    def is_forfeit(self) -> bool:
        """A result given without the game being played out: someone did not play."""
        return self in _FORFEITS

    @property
    def tournament_code(self) -> str:
        """The tournament notation: "+-", "-+", "--" for forfeits, otherwise the same."""
        return _TO_TOURNAMENT[self]

    @classmethod
    def from_tournament(cls, code: str) -> Result:
        """The result a tournament code ("1-0", "+-", ...) records; ValueError otherwise."""
        try:
            return _FROM_TOURNAMENT[code]
        except KeyError:
            raise ValueError(
                f"not a game result in the tournament notation: {code!r} "
                f"(one of {', '.join(TOURNAMENT_CODES)})"
            ) from None

    @property
    def points(self) -> tuple[float, float]:
        """White's and Black's points (a double forfeit scores nothing for either)."""
        return _POINTS[self]

    @property
    def white_points(self) -> float:
        return _POINTS[self][0]

    @property
    def black_points(self) -> float:
        return _POINTS[self][1]

    @property
    def winner(self) -> Literal["white", "black"] | None:
        """The colour that scores the point, None for a draw or a double forfeit."""
        white, black = _POINTS[self]
        if white > black:
            return "white"
        if black > white:
            return "black"
        return None

    @property
    def pgn_tag(self) -> str:
        """The PGN Result tag: a forfeit as the win it scores, a double forfeit "0-0"."""
        return _PGN_TAG[self]

    @property
    def pgn_movetext(self) -> str:
        """The result token that ends the movetext: the tag, except "*" for a double
        forfeit ("0-0" in movetext reads as castling)."""
        return "*" if self is Result.DOUBLE_FORFEIT else _PGN_TAG[self]


class Reason(StrEnum):
    """How a game ended, or why it was not played (the game events' `reason`)."""

    # In the order the desk offers them: the played game's reasons, then the forfeit's.
    AGREEMENT = "agreement"
    RESIGNATION = "resignation"
    CHECKMATE = "checkmate"
    STALEMATE = "stalemate"
    DEAD_POSITION = "dead-position"
    REPETITION = "repetition"
    SEVENTY_FIVE_MOVES = "75-moves"
    KINGS_SIGNAL = "kings-signal"
    FLAG_FALL = "flag-fall"
    ARBITER = "arbiter"
    FORFEIT = "forfeit"  # a player did not come (or was not at the board): a no-show
    DEFAULT_TIME = "default-time"
    WITHDRAWAL = "withdrawal"  # not played: a player withdrew or was eliminated

    @property
    def is_forfeit(self) -> bool:
        """A reason a forfeit result needs, and that no played game's result may carry:
        forfeit and default-time count a no-show; withdrawal does not."""
        return self in _FORFEIT_REASONS

    @property
    def desk_allowed(self) -> bool:
        """The arbiter may give it at the desk (the kings' signal comes only from a
        board's proposal)."""
        return self is not Reason.KINGS_SIGNAL

    @property
    def termination(self) -> str:
        """The PGN Termination tag (PGN spec 9.8.1) of a game decided with this reason.
        A forfeit's tag depends on the game, not the reason: the export decides it."""
        return _TERMINATION.get(self, "normal")

    @property
    def words(self) -> str:
        """Short human words (desk alerts, spectator pages, JSON)."""
        return REASON_TEXT[self]


_FORFEITS = frozenset(
    {Result.WHITE_WINS_BY_FORFEIT, Result.BLACK_WINS_BY_FORFEIT, Result.DOUBLE_FORFEIT}
)
_TO_TOURNAMENT: dict[Result, str] = {
    Result.WHITE_WINS: "1-0",
    Result.BLACK_WINS: "0-1",
    Result.DRAW: "1/2-1/2",
    Result.WHITE_WINS_BY_FORFEIT: "+-",
    Result.BLACK_WINS_BY_FORFEIT: "-+",
    Result.DOUBLE_FORFEIT: "--",
}
_FROM_TOURNAMENT: dict[str, Result] = {code: result for result, code in _TO_TOURNAMENT.items()}
_POINTS: dict[Result, tuple[float, float]] = {
    Result.WHITE_WINS: (1.0, 0.0),
    Result.BLACK_WINS: (0.0, 1.0),
    Result.DRAW: (0.5, 0.5),
    Result.WHITE_WINS_BY_FORFEIT: (1.0, 0.0),
    Result.BLACK_WINS_BY_FORFEIT: (0.0, 1.0),
    Result.DOUBLE_FORFEIT: (0.0, 0.0),
}
_PGN_TAG: dict[Result, str] = {
    Result.WHITE_WINS: "1-0",
    Result.BLACK_WINS: "0-1",
    Result.DRAW: "1/2-1/2",
    Result.WHITE_WINS_BY_FORFEIT: "1-0",
    Result.BLACK_WINS_BY_FORFEIT: "0-1",
    Result.DOUBLE_FORFEIT: "0-0",
}

TOURNAMENT_CODES: tuple[str, ...] = tuple(
    r.tournament_code
    for r in (
        Result.WHITE_WINS,
        Result.DRAW,
        Result.BLACK_WINS,
        *(r for r in Result if r.is_forfeit),
    )
)
"""The tournament's game result codes, in the order its messages list them."""

_FORFEIT_REASONS = frozenset({Reason.FORFEIT, Reason.DEFAULT_TIME, Reason.WITHDRAWAL})
# PGN standard Termination values (PGN spec 9.8.1) for results decided at the board.
_TERMINATION: dict[Reason, str] = {
    Reason.CHECKMATE: "normal",
    Reason.STALEMATE: "normal",
    Reason.DEAD_POSITION: "normal",
    Reason.REPETITION: "normal",
    Reason.SEVENTY_FIVE_MOVES: "normal",
    Reason.KINGS_SIGNAL: "normal",
    Reason.AGREEMENT: "normal",
    Reason.RESIGNATION: "normal",
    Reason.FLAG_FALL: "time forfeit",
    Reason.DEFAULT_TIME: "time forfeit",
    Reason.ARBITER: "adjudication",
}

REASON_TEXT: dict[str, str] = {
    Reason.CHECKMATE: "checkmate",
    Reason.STALEMATE: "stalemate",
    Reason.DEAD_POSITION: "dead position",
    # One reason for both: a draw claimed at the desk by threefold repetition (Laws 9.2)
    # and the fivefold one the position rules propose (Laws 9.6.1, its alert counts them).
    Reason.REPETITION: "repetition",
    Reason.SEVENTY_FIVE_MOVES: "75-move rule",
    Reason.KINGS_SIGNAL: "kings signal",
    Reason.FLAG_FALL: "time forfeit",
    Reason.DEFAULT_TIME: "default time",
    Reason.AGREEMENT: "agreement",
    Reason.RESIGNATION: "resignation",
    Reason.ARBITER: "arbiter",
    Reason.FORFEIT: "forfeit",
    Reason.WITHDRAWAL: "withdrawal",
}
"""Short human words for each reason, by its value (look up any string: `.get(text, ...)`)."""
