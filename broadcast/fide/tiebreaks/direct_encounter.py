"""Direct encounter (DE): the mini-table of tied players' games against each other.

If all tied players met, they are ranked by their mini-table score (average per opponent
when they met more than once) and the rule is re-applied to each sub-group still tied. In
a Swiss where not all met, a player ranks first only if their mini-table score beats the
best any other could reach by winning all their missing games; this is repeated down the
list while it holds, then the rest is re-examined as a smaller group. Round robins count
forfeits as games and rank by the mini-table even before it is complete.
"""

from __future__ import annotations

from collections.abc import Sequence

from broadcast.fide.tiebreaks.context import Context


def _mini_table(ctx: Context, group: Sequence[int]) -> dict[int, tuple[float, int]]:
    """start -> (score against the others of the group, number of distinct opponents met)."""
    members = set(group)
    out: dict[int, tuple[float, int]] = {}
    for start in group:
        per_opponent: dict[int, list[float]] = {}
        for v in ctx.views[start]:
            if v.opponent is None or v.opponent not in members:
                continue
            if ctx.swiss and not v.played:
                continue  # a Swiss forfeit is no encounter
            per_opponent.setdefault(v.opponent, []).append(v.points)
        score = sum((sum(p) / len(p) for p in per_opponent.values()), 0.0)
        out[start] = (score, len(per_opponent))
    return out


def _split(ctx: Context, group: list[int]) -> list[list[int]]:
    """One application of DE to a group: its tiers, best first (one tier: no separation)."""
    table = _mini_table(ctx, group)
    others = len(group) - 1
    all_met = not ctx.swiss or all(met == others for _, met in table.values())
    if all_met:
        ordered = sorted(group, key=lambda s: (-table[s][0], s))
        tiers: list[list[int]] = []
        for s in ordered:
            if tiers and table[tiers[-1][0]][0] == table[s][0]:
                tiers[-1].append(s)
            else:
                tiers.append([s])
        return tiers
    win = ctx.crosstable.scoring.win
    best = {s: table[s][0] + (others - table[s][1]) * win for s in group}
    ordered = sorted(group, key=lambda s: (-table[s][0], -best[s], s))
    tiers = []
    i = 0
    # Peel players off the top while each one's score beats every later player's maximum.
    while i < len(ordered) - 1 and table[ordered[i]][0] > max(best[s] for s in ordered[i + 1 :]):
        tiers.append([ordered[i]])
        i += 1
    tiers.append(ordered[i:])
    return tiers


def resolve(ctx: Context, group: Sequence[int]) -> list[list[int]]:
    """Tiers of a tied group after DE applied recursively to every sub-group."""
    members = list(group)
    if len(members) < 2:
        return [members]
    tiers = _split(ctx, members)
    if len(tiers) == 1:
        return tiers
    out: list[list[int]] = []
    for tier in tiers:
        out.extend(resolve(ctx, tier))
    return out


def direct_encounter(ctx: Context, group: Sequence[int]) -> dict[int, float]:
    """DE values for a tied group: 0 if DE separates nobody, else the place in the group.

    Places are 1 for the best tier, then 1 + the number of players in better tiers.
    Lower is better (0 only occurs when the whole group stays tied).
    """
    tiers = resolve(ctx, group)
    if len(tiers) == 1:
        return {s: 0.0 for s in group}
    out: dict[int, float] = {}
    place = 1
    for tier in tiers:
        for s in tier:
            out[s] = float(place)
        place += len(tier)
    return out


__all__ = ["direct_encounter", "resolve"]
