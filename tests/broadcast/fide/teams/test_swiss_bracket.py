"""The bracket pairing of the team Swiss (C.04.6 3.6) against its definition: every
pairing of a small bracket enumerated, the least ([C8], [C9], [C10]) kept, and of those
the first identifier (top members' ranks ascending, then their opponents')."""

from __future__ import annotations

from collections.abc import Callable

from hypothesis import given, settings
from hypothesis import strategies as st

from broadcast.fide.teams.swiss.bracket import pair_bracket


def all_pairings(teams: list[int]) -> list[list[tuple[int, int]]]:
    if not teams:
        return [[]]
    first, rest = teams[0], teams[1:]
    out = []
    for i, other in enumerate(rest):
        for tail in all_pairings(rest[:i] + rest[i + 1 :]):
            out.append([(first, other), *tail])
    return out


def by_definition(
    teams: list[int], allowed: Callable[[int, int], bool], cost: Callable[[int, int], int]
) -> list[tuple[int, int]] | None:
    legal = [p for p in all_pairings(teams) if all(allowed(a, b) for a, b in p)]
    if not legal:
        return None

    def key(pairing: list[tuple[int, int]]) -> tuple[int, list[int]]:
        pairs = sorted(pairing)
        return sum(cost(a, b) for a, b in pairing), [a for a, _ in pairs] + [b for _, b in pairs]

    return sorted(min(legal, key=key))


@st.composite
def brackets(draw: st.DrawFn) -> tuple[list[int], set[frozenset[int]], dict[frozenset[int], int]]:
    size = draw(st.sampled_from([2, 4, 6, 8]))
    teams = list(range(1, size + 1))
    pairs = [frozenset((a, b)) for a in teams for b in teams if a < b]
    met = {p for p in pairs if draw(st.integers(0, 9)) < 3}
    cost = {p: draw(st.sampled_from([0, 0, 0, 1, 9, 10, 81])) for p in pairs}
    return teams, met, cost


@settings(max_examples=150, deadline=None)
@given(brackets())
def test_the_bracket_takes_the_first_identifier_of_least_cost(
    case: tuple[list[int], set[frozenset[int]], dict[frozenset[int], int]],
) -> None:
    teams, met, cost = case

    def allowed(a: int, b: int) -> bool:
        return frozenset((a, b)) not in met

    def price(a: int, b: int) -> int:
        return cost[frozenset((a, b))]

    expected = by_definition(teams, allowed, price)
    got = pair_bracket(teams, allowed, price)
    assert (sorted(got) if got is not None else None) == expected


def test_a_bracket_with_no_new_opponents_cannot_be_paired() -> None:
    assert pair_bracket([1, 2], lambda a, b: False, lambda a, b: 0) is None


def test_the_natural_pairing_when_nothing_stands_in_its_way() -> None:
    assert pair_bracket(list(range(1, 9)), lambda a, b: True, lambda a, b: 0) == [
        (1, 5),
        (2, 6),
        (3, 7),
        (4, 8),
    ]
