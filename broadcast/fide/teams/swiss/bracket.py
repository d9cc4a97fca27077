"""Pairing one bracket of the team Swiss (FIDE C.04.6 3.6).

In each pair the better-ranked team is the top member. A pairing's identifier is its top
members' ranks in ascending order followed by their opponents' ranks in the same order;
pairings are taken in the identifier's lexicographic order, and the bracket takes the
first that meets [C1] and, as well as any pairing can, [C8], [C9] and [C10] in that
priority. Equivalently: the least identifier among the pairings of least
([C8], [C9], [C10]). We find the least cost with one matching, then fix the identifier
team by team, asking the matching each time whether the least cost is still reachable.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from broadcast.fide.teams.swiss.graph import Edge, min_cost_perfect

__all__ = ["pair_bracket"]


def pair_bracket(
    ranked: Sequence[int],
    allowed: Callable[[int, int], bool],
    cost: Callable[[int, int], int],
) -> list[tuple[int, int]] | None:
    """The bracket's pairs (top member first), `ranked` best rank first; None when the
    bracket cannot be paired at all ([C1])."""
    place = {team: i for i, team in enumerate(ranked)}
    half = len(ranked) // 2
    pairs = [(a, b) for i, a in enumerate(ranked) for b in ranked[i + 1 :] if allowed(a, b)]
    price = {pair: cost(*pair) for pair in pairs}
    # A small pull towards the natural pairing (the i-th team against the (i+half)-th) under
    # the real cost: the matching then usually returns the first identifier straight away.
    scale = 2 * half * half + 1

    def edges(role: dict[int, bool], fixed: dict[int, int]) -> list[Edge]:
        out = []
        for a, b in pairs:
            if role.get(a) is False or role.get(b) is True:
                continue  # a must be a bottom member, or b a top member
            if fixed.get(a, b) != b or fixed.get(b, a) != a:
                continue
            pull = abs(place[b] - place[a] - half)
            out.append((a, b, price[(a, b)] * scale + pull))
        return out

    def solve(role: dict[int, bool], fixed: dict[int, int]) -> tuple[dict[int, int], int] | None:
        found = min_cost_perfect(ranked, edges(role, fixed))
        if found is None:
            return None
        partner, _ = found
        return partner, sum(price[(a, b)] for a, b in partner.items() if place[a] < place[b])

    found = solve({}, {})
    if found is None:
        return None
    partner, least = found
    role: dict[int, bool] = {}
    for team in ranked:  # the top members: each as early as the least cost allows
        if place[partner[team]] > place[team]:
            role[team] = True
            continue
        trial = solve({**role, team: True}, {})
        if trial is not None and trial[1] == least:
            partner, role[team] = trial[0], True
        else:
            role[team] = False
    fixed: dict[int, int] = {}
    for top in (team for team in ranked if role[team]):  # then their opponents, in order
        for bottom in ranked[place[top] + 1 :]:
            if role[bottom] or bottom in fixed or (top, bottom) not in price:
                continue
            if partner[top] == bottom:
                break
            trial = solve(role, {**fixed, top: bottom, bottom: top})
            if trial is not None and trial[1] == least:
                partner = trial[0]
                break
        fixed[top], fixed[partner[top]] = partner[top], top
    return [(top, partner[top]) for top in ranked if role[top]]
