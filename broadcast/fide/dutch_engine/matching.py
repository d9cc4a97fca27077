"""Maximum-weight matching on player numbers, and whether a set of players can all be paired
(C.4 completion). Both run our own blossom algorithm (`blossom`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

import networkx as nx

from broadcast.fide.dutch_engine.blossom import BlossomMatching
from broadcast.fide.dutch_engine.context import RoundContext
from clocks.errors import BoardwireError


class CertificateError(BoardwireError, RuntimeError):
    """Our matching failed its own optimality certificate (a bug in `blossom`)."""


def solve(vertices: Sequence[int], edges: Iterable[tuple[int, int, int]]) -> BlossomMatching:
    """A maximum-weight matching of the graph on `vertices` (player numbers, BYE included);
    the result is indexed by the vertices' positions in `vertices`. Every result carries a
    checked dual certificate, so a wrong matching can never pass silently."""
    index = {x: i for i, x in enumerate(vertices)}
    result = BlossomMatching(len(vertices), [(index[a], index[b], w) for a, b, w in edges])
    if not result.certified():
        raise CertificateError("the pairing engine's matching failed its optimality check")
    return result


def max_weight_matching(
    vertices: Sequence[int], edges: Iterable[tuple[int, int, int]]
) -> dict[int, int]:
    """A maximum-weight matching of the graph; returns each matched vertex's partner."""
    edges = list(edges)
    try:
        result = solve(vertices, edges)
    except CertificateError:
        return reference_matching(vertices, edges)
    return {vertices[i]: vertices[j] for i, j in result.partners().items()}


def reference_matching(
    vertices: Sequence[int], edges: Iterable[tuple[int, int, int]]
) -> dict[int, int]:
    """networkx's matching: the fallback should ours ever fail its certificate."""
    g = nx.Graph()
    g.add_nodes_from(vertices)
    for a, b, w in edges:
        g.add_edge(a, b, weight=w)
    partner: dict[int, int] = {}
    for a, b in nx.max_weight_matching(g, maxcardinality=False):
        partner[a], partner[b] = b, a
    return partner


def pairable(vertices: Sequence[int], allowed: Callable[[int, int], bool]) -> bool:
    """Whether every one of `vertices` can be paired with another of them, pairs taken
    only where `allowed` says (the Dutch's players, the team Swiss's teams)."""
    if len(vertices) % 2:
        return False
    # A greedy pass settles most cases without a matching.
    left = list(vertices)
    while left:
        a = left.pop(0)
        for j, b in enumerate(left):
            if allowed(a, b):
                left.pop(j)
                break
        else:
            break
    else:
        return True
    edges = [(a, b, 1) for i, a in enumerate(vertices) for b in vertices[i + 1 :] if allowed(a, b)]
    # with equal weights, a maximum-weight matching is a maximum-cardinality one
    return len(max_weight_matching(vertices, edges)) == len(vertices)


def perfectly_matchable(ctx: RoundContext, ids: Sequence[int]) -> bool:
    """Whether the players in `ids` (the BYE pseudo-player included) can all be paired."""
    return pairable(ids, ctx.compatible)


__all__ = [
    "CertificateError",
    "max_weight_matching",
    "pairable",
    "perfectly_matchable",
    "reference_matching",
    "solve",
]
