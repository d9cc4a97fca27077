"""Perfect matchings of teams at least cost, on the Dutch engine's blossom algorithm
(`broadcast.fide.dutch_engine.matching`): the one tool behind the team Swiss's completion
test ([C3]), its choice of upfloaters ([C4], [C5]) and its bracket pairings ([C8]-[C10])."""

from __future__ import annotations

from collections.abc import Sequence

from broadcast.fide.dutch_engine.matching import max_weight_matching, pairable

__all__ = ["Edge", "min_cost_perfect", "pairable"]

Edge = tuple[int, int, int]  # two team numbers and the cost of pairing them


def min_cost_perfect(
    vertices: Sequence[int], edges: Sequence[Edge]
) -> tuple[dict[int, int], int] | None:
    """A perfect matching of `vertices` on `edges` of least total cost, with that cost;
    None when no perfect matching exists."""
    if len(vertices) % 2:
        return None
    if not vertices:
        return {}, 0
    top = max((cost for _, _, cost in edges), default=0)
    # each matched pair is worth more than any cost can take away: the heaviest matching
    # is a perfect one whenever one exists, and among those the cheapest
    base = (len(vertices) // 2 + 1) * top + 1
    partner = max_weight_matching(vertices, [(a, b, base + top - cost) for a, b, cost in edges])
    if len(partner) != len(vertices):
        return None
    cost = {(a, b): c for a, b, c in edges}
    total = sum(cost.get((a, b), cost.get((b, a), 0)) for a, b in partner.items() if a < b)
    return partner, total
