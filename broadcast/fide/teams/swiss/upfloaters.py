"""Choosing the upfloaters of a bracket in the team Swiss (FIDE C.04.6 3.5).

The bracket is the top scoregroup (the best score among the teams not yet paired) and,
when it cannot be paired alone, some lower teams pulled up into it. The choice, in the
rules' priority: a legal pairing of the bracket and of everyone left ([C1], [C3]); as few
upfloaters as possible ([C4]); the smallest score differences, the largest first ([C5]);
leaving the next scoregroup as few upfloaters to need as possible ([C6]); as few
upfloaters who floated in the previous round as possible ([C7], not in the last two
rounds); and then the first set in the rules' order (3.5.4: each set's teams by score,
then rank; sets compared team by team).

[C3], [C4] and [C5] are settled at once by one least-cost perfect matching of all the
teams left, where pairing a top-group team with a lower one costs one upfloater (weighted
above everything else) plus a weight that grows steeply with the score gap; only the sets
with that best size and score profile are then walked in order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from itertools import combinations, product

from broadcast.fide.teams.swiss.graph import min_cost_perfect, pairable

__all__ = ["choose_upfloaters"]


def choose_upfloaters(
    ranked: Sequence[int],
    score: Callable[[int], float],
    allowed: Callable[[int, int], bool],
    floated_last: Callable[[int], bool],
) -> tuple[int, ...] | None:
    """The upfloaters to join the top scoregroup of `ranked` (the teams left to pair, best
    rank first; an even number of them); None when everyone left cannot be paired ([C3]).
    `floated_last` is the [C7] test (always False in the last two rounds)."""
    levels = sorted({score(t) for t in ranked}, reverse=True)
    depth = {s: d for d, s in enumerate(levels)}
    top = [t for t in ranked if score(t) == levels[0]]
    lower = [t for t in ranked if score(t) != levels[0]]
    base = len(ranked) + 1
    one_upfloater: int = base ** len(levels)  # more than any sum of score-gap weights
    in_top = set(top)

    def cost(a: int, b: int) -> int:
        if (a in in_top) == (b in in_top):
            return 0
        low = b if a in in_top else a
        gap: int = base ** depth[score(low)]
        return one_upfloater + gap

    edges = [
        (a, b, cost(a, b)) for i, a in enumerate(ranked) for b in ranked[i + 1 :] if allowed(a, b)
    ]
    found = min_cost_perfect(ranked, edges)
    if found is None:
        return None
    partner, _ = found
    best = [partner[t] for t in top if partner[t] not in in_top]
    if not best:
        return ()
    need = {s: sum(1 for t in best if score(t) == s) for s in levels[1:]}
    groups = [([t for t in lower if score(t) == s], need[s]) for s in levels[1:] if need[s]]
    following = [t for t in lower if score(t) == levels[1]]
    # the best [C6] and [C7] any set of this profile can reach: stop there
    left_next = len(following) - need[levels[1]]
    c6_floor = left_next % 2 if left_next else 0
    c7_floor = sum(max(0, k - sum(1 for t in g if not floated_last(t))) for g, k in groups)
    chosen: tuple[int, ...] | None = None
    chosen_key = (0, 0)
    for candidate in _sets(groups):
        key = _judge(candidate, ranked, top, following, allowed, floated_last)
        if key is None:
            continue
        if chosen is None or key < chosen_key:
            chosen, chosen_key = candidate, key
            if key == (c6_floor, c7_floor):
                break
    return chosen if chosen is not None else tuple(best)


def _sets(groups: list[tuple[list[int], int]]) -> Iterator[tuple[int, ...]]:
    """The sets of the profile, in the rules' order (score level by level, best first)."""
    for parts in product(*(combinations(teams, k) for teams, k in groups)):
        yield tuple(t for part in parts for t in part)


def _judge(
    candidate: tuple[int, ...],
    ranked: Sequence[int],
    top: list[int],
    following: list[int],
    allowed: Callable[[int, int], bool],
    floated_last: Callable[[int], bool],
) -> tuple[int, int] | None:
    """([C6], [C7]) of a set, or None when it leaves no legal pairing ([C1], [C3])."""
    pulled = set(candidate)
    bracket = [t for t in ranked if t in pulled or t in top]
    if not pairable(bracket, allowed):
        return None
    rest = [t for t in ranked if t not in pulled and t not in top]
    group = {t for t in following if t not in pulled}
    edges = [
        (a, b, int((a in group) != (b in group)))
        for i, a in enumerate(rest)
        for b in rest[i + 1 :]
        if allowed(a, b)
    ]
    found = min_cost_perfect(rest, edges)
    if found is None:
        return None
    c6 = found[1] if group else 0
    return c6, sum(1 for t in candidate if floated_last(t))
