"""What every tie-break needs, computed once: counted rounds, scores, adjusted scores."""

from __future__ import annotations

from dataclasses import dataclass

from broadcast.fide.crosstable import Crosstable
from broadcast.fide.tiebreaks.spec import Edition
from broadcast.fide.tiebreaks.unplayed import RoundView, adjusted_score


@dataclass(frozen=True)
class Context:
    """Per-player rounds 1..``rounds`` whose result is known, scores and adjusted scores.

    ``rounds`` is the number of rounds the standings are for (rounds so far). Entries with
    no result (game in progress, round not played) are left out entirely.
    """

    crosstable: Crosstable
    rounds: int
    edition: Edition
    swiss: bool
    unrated_rating: int | None
    views: dict[int, tuple[RoundView, ...]]
    score: dict[int, float]
    adjusted: dict[int, float]

    def rating(self, start: int) -> int | None:
        """Rating used for ARO/TPR: the player's, else the configured unrated rating."""
        rating = self.crosstable.player(start).rating
        return rating if rating else self.unrated_rating


def make_context(
    crosstable: Crosstable,
    *,
    rounds: int | None = None,
    edition: Edition = 2024,
    unrated_rating: int | None = None,
) -> Context:
    """Build the context for standings after ``rounds`` rounds (default: rounds played)."""
    upto = crosstable.rounds_played if rounds is None else min(rounds, crosstable.rounds)
    scoring = crosstable.scoring
    swiss = crosstable.system == "swiss"
    views: dict[int, tuple[RoundView, ...]] = {}
    for player, row in crosstable:
        views[player.start] = tuple(
            RoundView(r, e.opponent, e.colour, e.result, scoring.points(e.result))
            for r, e in enumerate(row[:upto], start=1)
            if e.result is not None
        )
    score = {s: sum((v.points for v in vs), 0.0) for s, vs in views.items()}
    adjusted = {s: adjusted_score(vs, scoring, swiss=swiss) for s, vs in views.items()}
    return Context(crosstable, upto, edition, swiss, unrated_rating, views, score, adjusted)


__all__ = ["Context", "make_context"]
