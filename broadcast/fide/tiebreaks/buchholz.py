"""Buchholz and Sonneborn-Berger, with cuts and medians, and unplayed rounds per C.07 art. 16."""

from __future__ import annotations

from dataclasses import dataclass

from broadcast.fide.tiebreaks.context import Context
from broadcast.fide.tiebreaks.spec import TiebreakSpec
from broadcast.fide.tiebreaks.unplayed import dummy_score


@dataclass(frozen=True)
class Contribution:
    """One round's part of a player's BH/SB: the (opponent or dummy) score and the value."""

    round: int
    score: float  # opponent's adjusted score, or the dummy's score
    value: float  # BH: score; SB: score x points the player made in that round
    vur: bool  # from a voluntary unplayed round (cut first, see art. 16)


def contributions(ctx: Context, start: int, *, sonneborn: bool) -> list[Contribution]:
    """All rounds that count for a player's BH or SB, before cuts."""
    out: list[Contribution] = []
    own = ctx.score[start]
    draw = ctx.crosstable.scoring.draw
    for view in ctx.views[start]:
        if ctx.swiss:
            if view.played and view.opponent is not None:
                score = ctx.adjusted[view.opponent]
                vur = False
            else:
                opp_adj = ctx.adjusted.get(view.opponent) if view.opponent is not None else None
                score = dummy_score(
                    own,
                    view,
                    edition=ctx.edition,
                    opponent_adjusted=opp_adj,
                    draw=draw,
                    rounds=ctx.rounds,
                )
                vur = view.vur
        else:
            # Round robin: forfeits are games against the scheduled opponent; byes of an
            # odd-sized round robin are no games and do not count.
            if view.opponent is None:
                continue
            score = ctx.adjusted[view.opponent]
            vur = False
        value = score * view.points if sonneborn else score
        out.append(Contribution(view.round, score, value, vur))
    return out


def apply_cuts(items: list[Contribution], cut_low: int, cut_high: int, rounds: int) -> float:
    """Sum after cutting the ``cut_low`` least and ``cut_high`` most significant rounds.

    The least significant is the lowest opponent score; a voluntary unplayed round is cut
    instead when its value is not below the least significant one's (art. 16.5).
    """
    low = min(cut_low, rounds)
    high = min(cut_high, rounds - low)
    rest = list(items)
    for _ in range(low):
        if not rest:
            break
        least = min(rest, key=lambda c: (c.score, c.value))
        vurs = [c for c in rest if c.vur]
        if vurs:
            lowest_vur = min(vurs, key=lambda c: (c.value, c.score))
            if least.value <= lowest_vur.value:
                least = lowest_vur
        rest.remove(least)
    for _ in range(high):
        if not rest:
            break
        rest.remove(max(rest, key=lambda c: (c.score, c.value)))
    return sum((c.value for c in rest), 0.0)


def buchholz(ctx: Context, spec: TiebreakSpec) -> dict[int, float]:
    """BH with optional cuts (BH-C1, BH-C2, BH-M1...)."""
    return {
        s: apply_cuts(
            contributions(ctx, s, sonneborn=False), spec.cut_low, spec.cut_high, ctx.rounds
        )
        for s in ctx.views
    }


def sonneborn_berger(ctx: Context, spec: TiebreakSpec) -> dict[int, float]:
    """SB with optional cuts."""
    return {
        s: apply_cuts(
            contributions(ctx, s, sonneborn=True), spec.cut_low, spec.cut_high, ctx.rounds
        )
        for s in ctx.views
    }


__all__ = ["Contribution", "apply_cuts", "buchholz", "contributions", "sonneborn_berger"]
