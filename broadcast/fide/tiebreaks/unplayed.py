"""Unplayed rounds (FIDE C.07 art. 16): categories, the score opponents see, the dummy score.

Swiss categories (2024 and 2026 editions):
1. pairing-allocated or full-point byes (U, F);
2. forfeit wins (+);
3. requested byes (H, Z, blank) followed by a round that is not a voluntary unplayed round
   (VUR = requested bye or forfeit loss);
4. forfeit losses (-);
5. requested byes followed only by VURs, or in the last round.

Opponents see categories 1-4 as awarded and category 5 as a draw. A player's own unplayed
round counts, in BH/SB, as a game against a dummy whose score is the player's own score;
the 2026 edition caps that dummy score at the scheduled opponent's adjusted score
(forfeits) or at draw points x rounds (byes). In round robins forfeits count as games.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

from broadcast.fide.crosstable import Colour, ResultCode, Scoring
from broadcast.fide.tiebreaks.spec import Edition


class Category(enum.IntEnum):
    """The C.07 category of an unplayed round."""

    BYE_AWARDED = 1
    FORFEIT_WIN = 2
    REQUESTED_BYE_THEN_PLAYING = 3
    FORFEIT_LOSS = 4
    REQUESTED_BYE_AT_END = 5


@dataclass(frozen=True)
class RoundView:
    """A round that counts (its result is known), seen from one player."""

    round: int
    opponent: int | None
    colour: Colour | None
    code: ResultCode
    points: float

    @property
    def played(self) -> bool:
        """A game over the board against an opponent."""
        return self.code.is_played and self.opponent is not None

    @property
    def vur(self) -> bool:
        """Voluntary unplayed round: requested bye (H, Z, blank) or forfeit loss."""
        return self.code.is_voluntary_unplayed


def last_non_vur_round(rounds: Sequence[RoundView]) -> int:
    """The last round that is not a VUR (0 if none): later requested byes are category 5."""
    last = 0
    for view in rounds:
        if not view.vur:
            last = max(last, view.round)
    return last


def category(view: RoundView, last_non_vur: int) -> Category | None:
    """The category of an unplayed round, None for a game played over the board."""
    if view.played:
        return None
    code = view.code
    if code in (ResultCode.PAIRING_BYE, ResultCode.FULL_BYE):
        return Category.BYE_AWARDED
    if code is ResultCode.FORFEIT_WIN:
        return Category.FORFEIT_WIN
    if code is ResultCode.FORFEIT_LOSS:
        return Category.FORFEIT_LOSS
    if code.is_played:
        # A "game" without an opponent number: treat like an awarded bye.
        return Category.BYE_AWARDED
    if view.round > last_non_vur:
        return Category.REQUESTED_BYE_AT_END
    return Category.REQUESTED_BYE_THEN_PLAYING


def adjusted_score(rounds: Sequence[RoundView], scoring: Scoring, *, swiss: bool) -> float:
    """The player's score as seen by opponents in BH/SB: category 5 counts as a draw."""
    if not swiss:
        return sum((v.points for v in rounds), 0.0)
    last = last_non_vur_round(rounds)
    total = 0.0
    for view in rounds:
        if category(view, last) is Category.REQUESTED_BYE_AT_END:
            total += scoring.draw
        else:
            total += view.points
    return total


def dummy_score(
    own_score: float,
    view: RoundView,
    *,
    edition: Edition,
    opponent_adjusted: float | None,
    draw: float,
    rounds: int,
) -> float:
    """Score of the dummy opponent for one of the player's own unplayed rounds (Swiss).

    2024: the player's own score. 2026: capped at the scheduled opponent's adjusted score
    for forfeits, otherwise at ``draw`` x ``rounds`` (rounds so far).
    """
    if edition == 2024:
        return own_score
    if view.opponent is not None and opponent_adjusted is not None:
        return min(own_score, opponent_adjusted)
    return min(own_score, draw * rounds)


__all__ = [
    "Category",
    "RoundView",
    "adjusted_score",
    "category",
    "dummy_score",
    "last_non_vur_round",
]
