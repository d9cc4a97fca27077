"""Rating tie-breaks: ARO (with cuts), TPR and APRO (FIDE rating table 8.1a)."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

from broadcast.fide.tiebreaks.context import Context
from broadcast.fide.tiebreaks.spec import TiebreakSpec

# FIDE rating regulations, table 8.1a: rating difference dp for a percentage score p
# (p = 50..100); below 50 the values are the negatives of the mirror percentage.
_DP_UPPER = (
    0, 7, 14, 21, 29, 36, 43, 50, 57, 65, 72, 80, 87, 95, 102, 110, 117, 125, 133, 141,
    149, 158, 166, 175, 184, 193, 202, 211, 220, 230, 240, 251, 262, 273, 284, 296, 309,
    322, 336, 351, 366, 383, 401, 422, 444, 470, 501, 538, 589, 677, 800,
)  # fmt: skip


def dp(percent: int) -> int:
    """Rating difference for an integer percentage score 0..100."""
    if not 0 <= percent <= 100:
        raise ValueError(f"percentage must be 0..100, got {percent}")
    if percent >= 50:
        return _DP_UPPER[percent - 50]
    return -_DP_UPPER[50 - percent]


def round_half_up(value: Decimal | float) -> int:
    """Round to the nearest integer, halves away from zero for positives (FIDE)."""
    return int(Decimal(str(value)).quantize(Decimal("1"), rounding=ROUND_HALF_UP))


def _opponents(ctx: Context, start: int) -> list[tuple[int, float]]:
    """(rating, rated points) for each game played over the board against a rated opponent.

    Rated points are 1 / 0.5 / 0 whatever the event's scoring (performance is FIDE's).
    """
    out = []
    for v in ctx.views[start]:
        if not v.played or v.opponent is None:
            continue
        rating = ctx.rating(v.opponent)
        if rating is None:
            continue  # unrated opponent without a configured rating: left out
        outcome = v.code.outcome
        out.append((rating, 1.0 if outcome == "win" else 0.5 if outcome == "draw" else 0.0))
    return out


def _cut(games: list[tuple[int, float]], low: int, high: int) -> list[tuple[int, float]]:
    ordered = sorted(games, key=lambda g: g[0])
    low = min(low, len(ordered))
    high = min(high, len(ordered) - low)
    return ordered[low : len(ordered) - high]


def average_rating(games: list[tuple[int, float]]) -> int | None:
    """Average opponent rating, rounded half up; None without games."""
    if not games:
        return None
    return round_half_up(Decimal(sum(r for r, _ in games)) / len(games))


def performance(games: list[tuple[int, float]]) -> int | None:
    """TPR = ARO + dp(p), p the percentage score rounded half up; None without games."""
    aro = average_rating(games)
    if aro is None:
        return None
    points = Decimal(str(sum(p for _, p in games)))
    percent = round_half_up(points * 100 / len(games))
    return aro + dp(percent)


def aro(ctx: Context, spec: TiebreakSpec) -> dict[int, float | None]:
    """ARO (ARO-C1 cuts the lowest-rated opponent)."""
    out: dict[int, float | None] = {}
    for s in ctx.views:
        value = average_rating(_cut(_opponents(ctx, s), spec.cut_low, spec.cut_high))
        out[s] = None if value is None else float(value)
    return out


def tpr_values(ctx: Context) -> dict[int, int | None]:
    """TPR of every player (integers, None without rated games)."""
    return {s: performance(_opponents(ctx, s)) for s in ctx.views}


def tpr(ctx: Context) -> dict[int, float | None]:
    """TPR as tie-break values."""
    return {s: None if v is None else float(v) for s, v in tpr_values(ctx).items()}


def apro(ctx: Context) -> dict[int, float | None]:
    """APRO: average of the TPRs of the opponents played over the board, rounded half up."""
    perf = tpr_values(ctx)
    out: dict[int, float | None] = {}
    for s, vs in ctx.views.items():
        values = [
            perf[v.opponent]
            for v in vs
            if v.played and v.opponent is not None and perf.get(v.opponent) is not None
        ]
        nums = [x for x in values if x is not None]
        out[s] = float(round_half_up(Decimal(sum(nums)) / len(nums))) if nums else None
    return out


__all__ = [
    "apro",
    "aro",
    "average_rating",
    "dp",
    "performance",
    "round_half_up",
    "tpr",
    "tpr_values",
]
