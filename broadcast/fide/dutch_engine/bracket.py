"""Pairing one score bracket (C.04.3 B): its MDPs and residents, by maximum-weight matching."""

from __future__ import annotations

from collections.abc import Sequence

from broadcast.fide.dutch_engine.colours import colour_costs
from broadcast.fide.dutch_engine.context import BYE, RoundContext
from broadcast.fide.dutch_engine.matching import (
    CertificateError,
    max_weight_matching,
    perfectly_matchable,
    reference_matching,
    solve,
)
from broadcast.fide.dutch_engine.weights import BracketWeights

# Graphs up to this many vertices hold every lower player at once (C.4 completion and C.7
# together in one solve); larger ones first try the bracket and the next one alone, which is
# exact when its result extends to a complete pairing (see `pair_bracket`), and faster.
FULL_LIMIT = 120
# Above this many vertices the graph is first solved on the edges an optimal, first-in-order
# pairing plausibly uses (see `keep`); the dual certificate then proves the result optimal for
# all edges, or the missing edges are added (`_certified_matching`): exact either way.
SPARSE_FROM = 100
SPARSE_BAND = 10
# The remainder's S1/S2 split depends on which residents the MDPs take: re-solve at most this
# many times until the guess is stable.
MAX_SPLIT_SOLVES = 4

Pairs = list[tuple[int, int]]


def pair_bracket(
    ctx: RoundContext, bracket: Sequence[int], m: int, lower: Sequence[int], next_score: float
) -> tuple[Pairs, list[int]]:
    """Pair `bracket` (its `m` MDPs first, then its residents); returns the pairs (upper player
    first) and the players who float down. First the bracket (and the next one) alone; if the
    floaters and the lower players then cannot all be paired, again with every lower player in
    the graph (completion, C.4)."""
    if not bracket:
        return [], []
    nextb = [x for x in lower if x != BYE and ctx.score(x) == next_score]
    nat = _natural(ctx, bracket, m, nextb, any(x != BYE for x in lower))
    if nat is not None and perfectly_matchable(ctx, [*nat[1], *lower]):
        return nat
    residents_score = ctx.score(bracket[m]) if m < len(bracket) else None
    gives_bye = ctx.bye_score_cap is not None and residents_score == ctx.bye_score_cap
    if len(bracket) + len(lower) > FULL_LIMIT and not gives_bye:
        # Bracket and next bracket alone. If the players this solution leaves unpaired (its
        # floaters and the lower players it did not use) can all be paired, the solution extends
        # to a complete pairing with the same value on every criterion, and no complete pairing
        # can do better (its restriction to these players is a candidate here): it is the exact
        # optimum. Otherwise solve again with every lower player in the graph. (Not in the
        # bracket of the bye's score: its bye criterion needs the bye in the graph.)
        got, floaters, used = _solve(ctx, bracket, m, [], next_score, nextb)
        rest = [x for x in floaters if x not in used] + [x for x in lower if x not in used]
        if perfectly_matchable(ctx, rest):
            return got, floaters
    got, floaters, _ = _solve(ctx, bracket, m, lower, next_score, nextb)
    return got, floaters


def _natural(
    ctx: RoundContext,
    bracket: Sequence[int],
    m: int,
    nextb: Sequence[int],
    lower_players: bool,
) -> tuple[Pairs, list[int]] | None:
    """Fast path: the first candidate of a homogeneous bracket (S1[i] - S2[i], the last S2
    player floating when odd), taken when it is provably what the matching would return.

    Why it is exact: it pairs floor(n/2) players (C.5 at its maximum); in a homogeneous bracket
    every choice of floater has the same score (C.6 equal); it is checked to break no colour
    criterion (C.8-C.11) and no float criterion (C.12-C.19: nobody floats within the bracket,
    and the floater did not downfloat in the last two rounds); for C.7 the floater must be
    pairable in the next bracket with that bracket at its maximum number of pairs (no other
    floater can give more pairs or a smaller score difference, since every floater has the same
    score); the caller checks completion (C.4). Being the first candidate in the rules'
    generation order, it is the one the rules choose among equally good ones. In the last
    bracket the floater takes the bye, which the bye criterion (fewest unplayed games) allows
    only if nobody in the bracket has fewer; in a higher bracket whose floater could still end
    up with the bye, the choice is left to the matching.
    """
    if m or len(bracket) < 2:
        return None
    half = len(bracket) // 2
    s1, s2 = list(bracket[:half]), list(bracket[half:])
    pairs = list(zip(s1, s2, strict=False))
    floaters = s2[len(s1) :]
    for a, b in pairs:
        if not ctx.compatible(a, b) or colour_costs(ctx, a, b) != (0, 0, 0):
            return None
    for x in floaters:
        if ctx.last_float(x, 1) == "d" or ctx.last_float(x, 2) == "d":
            return None
        if not lower_players:
            # The last bracket: the floater takes the bye (the caller checks it may). The bye
            # criterion (fewest unplayed games) is at its best if nobody here has fewer.
            if sum(ctx.players[x].unplayed) > min(sum(ctx.players[y].unplayed) for y in bracket):
                return None
        elif ctx.bye_score_cap is not None and ctx.score(x) <= ctx.bye_score_cap:
            return None  # it might end up with the bye: leave that choice to the matching
        elif not _floater_fits_next(ctx, x, nextb):
            return None
    return pairs, floaters


def _floater_fits_next(ctx: RoundContext, floater: int, nextb: Sequence[int]) -> bool:
    """Whether the floater and the next bracket can be paired with the floater paired and the
    next bracket at its largest possible number of pairs (C.7 at its best)."""
    if not nextb:
        return False
    verts = [floater, *nextb]
    # every edge outweighs all bonuses together: a maximum-weight matching has the most pairs,
    # and among those it covers the floater when it can
    heavy = 4 * len(verts)
    edges = [
        (a, b, heavy + (2 if a == floater else 0))
        for i, a in enumerate(verts)
        for b in verts[i + 1 :]
        if ctx.compatible(a, b)
    ]
    partner = max_weight_matching(verts, edges)
    return floater in partner and len(partner) == 2 * (len(verts) // 2)


def _solve(
    ctx: RoundContext,
    bracket: Sequence[int],
    m: int,
    lower: Sequence[int],
    next_score: float,
    nextb: Sequence[int],
) -> tuple[Pairs, list[int], set[int]]:
    """Solve, then re-solve with the remainder split as the solution found it (the MDPs'
    actual partners), until the guess of who pairs the MDPs is stable."""
    got, floaters, c9_active, used = _iterate_split(ctx, bracket, m, lower, next_score, nextb, True)
    if c9_active and len(floaters) != 1:
        # The unplayed-games rule for the bye applies only when the bye assignee is the
        # bracket's single downfloater. C.5 (above it) fixes how many players float, so the
        # first solve tells whether that is the case; if not, solve again without it.
        got, floaters, _, used = _iterate_split(ctx, bracket, m, lower, next_score, nextb, False)
    return got, floaters, used


def _iterate_split(
    ctx: RoundContext,
    bracket: Sequence[int],
    m: int,
    lower: Sequence[int],
    next_score: float,
    nextb: Sequence[int],
    bye_by_unplayed: bool,
) -> tuple[Pairs, list[int], bool, set[int]]:
    residents = list(bracket[m:])
    taken = residents[: min(m, len(residents))]
    mdp = set(bracket[:m])
    got: Pairs = []
    floaters: list[int] = []
    c9 = False
    used: set[int] = set()
    for _ in range(MAX_SPLIT_SOLVES):
        got, floaters, c9, used = _solve_once(
            ctx, bracket, m, lower, next_score, taken, nextb, bye_by_unplayed
        )
        new = [x for x in residents if any(x in pr and set(pr) & mdp for pr in got)]
        if new == taken:
            break
        taken = new
    return got, floaters, c9, used


def _solve_once(
    ctx: RoundContext,
    bracket: Sequence[int],
    m: int,
    lower: Sequence[int],
    next_score: float,
    taken: Sequence[int],
    nextb: Sequence[int],
    bye_by_unplayed: bool,
) -> tuple[Pairs, list[int], bool, set[int]]:
    w = BracketWeights(ctx, bracket, m, lower, next_score, taken, nextb, bye_by_unplayed)
    verts = [*bracket, *(lower if lower else nextb)]
    sparse = len(verts) > SPARSE_FROM
    npos = {x: i for i, x in enumerate(nextb)}
    nhalf = len(nextb) // 2
    n = len(bracket)
    band = SPARSE_BAND

    def keep(a: int, b: int) -> bool:
        # A band around the natural S1-S2 distance, near neighbours, all MDP edges, and the
        # floating zone (the bracket's bottom against the next bracket's top).
        if not sparse or a in w.mdpset or b in w.mdpset:
            return True
        if a in w.pos and b in w.pos:
            d = abs(w.pos[a] - w.pos[b])
            return d <= band or abs(d - w.half) <= band or abs(d - (n // 2)) <= band
        if a in npos and b in npos:
            d = abs(npos[a] - npos[b])
            return d <= band or abs(d - nhalf) <= band
        x = a if a in w.pos else b if b in w.pos else None
        y = b if x == a else a
        if x is not None and y in npos:
            return w.pos[x] >= n - 2 * band and npos[y] < 3 * band
        return True

    kept: list[tuple[int, int, int]] = []
    left_out: list[tuple[int, int]] = []
    for i, a in enumerate(verts):
        for b in verts[i + 1 :]:
            if ctx.compatible(a, b):
                if keep(a, b):
                    kept.append((a, b, w.weight(a, b)))
                else:
                    left_out.append((a, b))
    partner = _certified_matching(verts, kept, left_out, w)
    sc = w.scores
    got = [
        (x, y)
        for x in bracket
        if (y := partner.get(x)) is not None and y in sc and w.pos[x] < w.pos[y]
    ]
    floaters = [x for x in bracket if partner.get(x) is None or partner[x] not in sc]
    # the players this solution pairs outside the bracket's own pairs: lower players, and
    # floaters already paired with them
    used = {x for x in partner if x not in sc or partner[x] not in sc}
    return got, floaters, w.pab_bracket, used


def _certified_matching(
    verts: Sequence[int],
    kept: list[tuple[int, int, int]],
    left_out: list[tuple[int, int]],
    w: BracketWeights,
) -> dict[int, int]:
    """The maximum-weight matching of the graph with the kept and the left-out edges, solved
    on the kept edges only when the dual solution proves that enough: an optimum on a subgraph
    whose duals leave every other edge with a non-negative reduced cost is an optimum of the
    whole graph (LP duality). Left-out edges that break this are added and the graph solved
    again, so the result is always the exact optimum."""
    index = {x: i for i, x in enumerate(verts)}
    weighted = [(a, b, w.weight(a, b)) for a, b in left_out]
    while True:
        try:
            result = solve(verts, kept)
        except CertificateError:
            return reference_matching(verts, kept + weighted)
        broken = []
        rest = []
        for a, b, wt in weighted:
            if result.reduced_cost(index[a], index[b], wt) < 0:
                broken.append((a, b, wt))
            else:
                rest.append((a, b, wt))
        if not broken:
            return {verts[i]: verts[j] for i, j in result.partners().items()}
        kept = kept + broken
        weighted = rest


__all__ = [
    "FULL_LIMIT",
    "MAX_SPLIT_SOLVES",
    "SPARSE_BAND",
    "SPARSE_FROM",
    "pair_bracket",
]
