"""Counting tie-breaks: WIN, WON, BPG, BWG, and the progressive score PS and Koya KS."""

from __future__ import annotations

from broadcast.fide.tiebreaks.context import Context
from broadcast.fide.tiebreaks.spec import TiebreakSpec


def wins(ctx: Context) -> dict[int, float]:
    """WIN: rounds worth a win's points, played or not (forfeit wins, full/pairing byes)."""
    win = ctx.crosstable.scoring.win
    return {s: float(sum(1 for v in vs if v.points == win)) for s, vs in ctx.views.items()}


def won(ctx: Context) -> dict[int, float]:
    """WON: games won over the board."""
    win = ctx.crosstable.scoring.win
    return {
        s: float(sum(1 for v in vs if v.played and v.points == win)) for s, vs in ctx.views.items()
    }


def black_played(ctx: Context) -> dict[int, float]:
    """BPG: games played over the board with Black."""
    return {
        s: float(sum(1 for v in vs if v.played and v.colour == "b")) for s, vs in ctx.views.items()
    }


def black_won(ctx: Context) -> dict[int, float]:
    """BWG: games won over the board with Black."""
    win = ctx.crosstable.scoring.win
    return {
        s: float(sum(1 for v in vs if v.played and v.colour == "b" and v.points == win))
        for s, vs in ctx.views.items()
    }


def progressive(ctx: Context, spec: TiebreakSpec) -> dict[int, float]:
    """PS: sum of the running score after each round; PS-C1 leaves out the first round."""
    out: dict[int, float] = {}
    for start, vs in ctx.views.items():
        by_round = {v.round: v.points for v in vs}
        running = total = 0.0
        for r in range(1, ctx.rounds + 1):
            running += by_round.get(r, 0.0)
            if r > spec.cut_low:
                total += running
        out[start] = total
    return out


def koya(ctx: Context, spec: TiebreakSpec) -> dict[int, float]:
    """KS: points scored against opponents with at least ``koya_limit`` % of the maximum.

    Games against a scheduled opponent count, forfeits included. In a round robin with
    an odd number of players everyone sits out once per cycle, which lowers the maximum.
    """
    ct = ctx.crosstable
    max_games = ctx.rounds
    if not ctx.swiss:
        players = len(ct.players)
        if players and ctx.rounds % players == 0:
            max_games -= ctx.rounds // players
        max_games -= sum(
            1 for vs in ctx.views.values() if not any(v.opponent is not None for v in vs)
        )
    limit = spec.koya_limit / 100 * ct.scoring.win * max_games
    out: dict[int, float] = {}
    for start, vs in ctx.views.items():
        out[start] = sum(
            (
                v.points
                for v in vs
                if v.opponent is not None and ctx.score.get(v.opponent, 0.0) >= limit - 1e-9
            ),
            0.0,
        )
    return out


__all__ = ["black_played", "black_won", "koya", "progressive", "wins", "won"]
