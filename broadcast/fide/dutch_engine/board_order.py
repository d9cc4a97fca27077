"""Board order of a round's games (C.04.2 / the endorsed engine's order)."""

from __future__ import annotations

from collections.abc import Sequence

from broadcast.fide.dutch_engine.context import RoundContext


def board_order(ctx: RoundContext, games: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """Sort games by the higher score in the pair (a game led by 9.5 above one led by 9.0),
    then by the sum of the scores, then by the better-ranked player in the pair."""

    def key(game: tuple[int, int]) -> tuple[float, float, tuple[float, int]]:
        w, b = game
        sw, sb = ctx.score(w), ctx.score(b)
        return (-max(sw, sb), -(sw + sb), min(ctx.rank_key(w), ctx.rank_key(b)))

    return sorted(games, key=key)


__all__ = [
    "board_order",
]
