"""Unit tests of the Dutch engine's parts (colours E.1-E.5, board order, bye, errors) and a
property: any valid field gives a complete pairing without repeats, or a DutchError."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from broadcast.fide.dutch_engine import DutchError, DutchRound, SwissPlayer, pair
from broadcast.fide.dutch_engine.blossom import BlossomMatching
from broadcast.fide.dutch_engine.board_order import board_order
from broadcast.fide.dutch_engine.colours import allocate
from broadcast.fide.dutch_engine.context import RoundContext
from broadcast.fide.dutch_engine.preferences import ABSOLUTE, MILD, STRONG, preference


def player(
    number: int,
    score: float = 0.0,
    colours: str = "",
    *,
    floats: str = "",
    opponents: tuple[int, ...] = (),
    bye_ineligible: bool = False,
) -> SwissPlayer:
    """A player from compact strings: colours "wb-" ("-" no game), floats "du." per round."""
    cols = tuple(None if c == "-" else c for c in colours)
    fl = tuple(None if f == "." else f for f in floats.ljust(len(cols), "."))
    return SwissPlayer(
        number=number,
        score=score,
        colours=cols,
        floats=fl,
        unplayed=tuple(c is None for c in cols),
        opponents=frozenset(opponents),
        bye_ineligible=bye_ineligible,
    )


def colours_of(a: SwissPlayer, b: SwissPlayer, init: str = "w") -> tuple[int, int]:
    ctx = RoundContext([a, b], len(a.colours) + 1, 9, init)
    return allocate(ctx, a.number, b.number)


# ---------------------------------------------------------------- preferences (A.6)
def test_preferences() -> None:
    assert preference(()).strength == 0
    assert preference(("w",)) == preference(("w",)).__class__("b", STRONG, 1)
    assert preference(("w", "b")).colour == "w"
    assert preference(("w", "b")).strength == MILD
    assert preference(("b", "b")).colour == "w"
    assert preference(("b", "b")).strength == ABSOLUTE
    # an unplayed round does not break "the two latest rounds he played"
    assert preference(("w", None, "w")).strength == ABSOLUTE


# ---------------------------------------------------------------- allocation (E.1-E.5)
def test_e1_both_preferences_met() -> None:
    assert colours_of(player(1, 1, "w"), player(2, 1, "b")) == (2, 1)


def test_e2_the_stronger_preference_wins() -> None:
    # 1 has a mild preference for white (wb), 2 a strong one for white (b)
    assert colours_of(player(1, 2, "wb"), player(2, 2, "bwb")) == (2, 1)


def test_e2_between_absolutes_the_wider_difference_wins() -> None:
    # both want white absolutely; 2 has colour difference -2, 1 only two blacks in a row
    assert colours_of(player(1, 2, "wbb"), player(2, 2, "wbbb")) == (2, 1)


def test_e3_alternate_from_the_last_different_round() -> None:
    # same preference (white, mild); in the last round where they differed 1 had white,
    # so 1 gets black
    assert colours_of(player(1, 1, "bwwb"), player(2, 1, "wbwb")) == (2, 1)


def test_e4_same_history_the_higher_score_gets_its_preference() -> None:
    # the complaint: identical colour histories, different scores: the higher score
    # (here the higher pairing number) gets what it wants
    hi, lo = player(7, 3.0, "wbw"), player(2, 2.5, "wbw")
    assert colours_of(hi, lo) == (2, 7)  # both want black: 7 (3.0) gets it
    assert colours_of(lo, hi) == (2, 7)


def test_e5_no_preference_initial_colour_by_place() -> None:
    assert colours_of(player(1), player(2)) == (1, 2)
    assert colours_of(player(1), player(2), init="b") == (2, 1)
    # with player 1 absent, player 2 is the first paired player and gets the initial colour
    ctx = RoundContext([player(2), player(3)], 1, 9, "w")
    assert allocate(ctx, 2, 3) == (2, 3)


# ---------------------------------------------------------------- board order
def test_board_order_by_the_higher_score_in_the_pair() -> None:
    players = [player(1, 9.5), player(2, 5.0), player(3, 9.0), player(4, 9.0)]
    ctx = RoundContext(players, 11, 11, "w")
    # the pair led by 9.5 (sum 14.5) goes above the pair of two 9.0 (sum 18.0)
    assert board_order(ctx, [(3, 4), (2, 1)]) == [(2, 1), (3, 4)]


# ---------------------------------------------------------------- byes
def test_bye_goes_to_the_lowest_eligible_player() -> None:
    players = [
        player(1, 1.0, "w", opponents=(2,)),
        player(2, 0.0, "b", opponents=(1,)),
        player(3, 1.0, "-", floats="d", bye_ineligible=True),
    ]
    r = pair(players, 2, 5)
    assert r.bye == 2
    assert {frozenset(g) for g in r.games} == {frozenset((1, 3))}


def test_bye_skips_an_ineligible_lowest_player() -> None:
    players = [
        player(1, 1.0, "w", opponents=(4,)),
        player(2, 1.0, "b", opponents=(5,)),
        player(3, 0.0, "-", bye_ineligible=True),  # lost by forfeit, had a bye before
        player(4, 0.0, "b", opponents=(1,)),
        player(5, 0.0, "w", opponents=(2,)),
    ]
    r = pair(players, 2, 5)
    assert r.bye in (4, 5)
    assert r.bye != 3


def test_bye_to_the_candidate_with_fewest_unplayed_games() -> None:
    # 3 and 4 are both at 0: 4 did not play round 1 (forfeit loss), so 3 gets the bye
    players = [
        player(1, 2.0, "wb", opponents=(2, 3)),
        player(2, 1.0, "bw", opponents=(1, 5)),
        player(3, 0.0, "bw", opponents=(1, 5)),
        player(4, 0.0, "-w", opponents=(5,)),
        player(5, 1.0, "ww", opponents=(2, 3, 4)),
    ]
    r = pair(players, 3, 5)
    assert r.bye == 3


# ---------------------------------------------------------------- errors
def test_impossible_round_raises_with_a_message() -> None:
    players = [player(1, 1.0, "w", opponents=(2,)), player(2, 0.0, "b", opponents=(1,))]
    with pytest.raises(DutchError, match=r"\[1, 2\]"):
        pair(players, 2, 3)


def test_odd_field_without_bye_candidates_raises() -> None:
    players = [player(n, 1.0, "-", bye_ineligible=True) for n in (1, 2, 3)]
    with pytest.raises(DutchError, match="bye"):
        pair(players, 2, 3)


def test_duplicate_numbers_are_refused() -> None:
    with pytest.raises(DutchError, match="more than once"):
        pair([player(1), player(1)], 1, 3)


# ---------------------------------------------------------------- property
@st.composite
def fields(draw: st.DrawFn) -> tuple[list[SwissPlayer], int, int]:
    n = draw(st.integers(1, 14))
    rounds = draw(st.integers(0, 5))
    numbers = draw(st.lists(st.integers(1, 60), min_size=n, max_size=n, unique=True))
    met: dict[int, set[int]] = {x: set() for x in numbers}
    for a, b in draw(st.lists(st.tuples(st.sampled_from(numbers), st.sampled_from(numbers)))):
        if a != b:
            met[a].add(b)
            met[b].add(a)
    out = []
    for x in numbers:
        cols = draw(st.lists(st.sampled_from(["w", "b", None]), min_size=rounds, max_size=rounds))
        fl = draw(st.lists(st.sampled_from(["d", "u", None]), min_size=rounds, max_size=rounds))
        out.append(
            SwissPlayer(
                number=x,
                score=draw(st.integers(0, 2 * rounds)) / 2,
                colours=tuple(cols),
                floats=tuple(fl),
                unplayed=tuple(c is None for c in cols),
                opponents=frozenset(met[x]),
                bye_ineligible=draw(st.booleans()),
            )
        )
    return out, rounds + 1, rounds + 1 + draw(st.integers(0, 3))


@settings(max_examples=150, deadline=None)
@given(fields(), st.sampled_from(["w", "b"]))
def test_any_field_is_paired_completely_or_refused(
    field: tuple[list[SwissPlayer], int, int], init: str
) -> None:
    players, rnd, total = field
    try:
        r = pair(players, rnd, total, "w" if init == "w" else "b")
    except DutchError as e:
        assert str(e)
        return
    assert isinstance(r, DutchRound)
    seen = [x for g in r.games for x in g] + ([r.bye] if r.bye is not None else [])
    assert sorted(seen) == sorted(p.number for p in players)
    by = {p.number: p for p in players}
    for w, b in r.games:
        assert b not in by[w].opponents and w not in by[b].opponents
    if r.bye is not None:
        assert not by[r.bye].bye_ineligible
    assert (r.bye is None) == (len(players) % 2 == 0)


# ---------------------------------------------------------------- our blossom matching
def _reference_weight(n: int, edges: list[tuple[int, int, int]]) -> int:
    import networkx as nx

    g = nx.Graph()
    g.add_nodes_from(range(n))
    for u, v, w in edges:
        g.add_edge(u, v, weight=w)
    return sum(g[a][b]["weight"] for a, b in nx.max_weight_matching(g))


def _weight_of(m: BlossomMatching, edges: list[tuple[int, int, int]]) -> int:
    w = {frozenset((u, v)): wt for u, v, wt in edges}
    return sum(w[frozenset((a, b))] for a, b in m.partners().items() if a < b)


def test_blossom_expanding_a_t_blossom_keeps_reached_vertices() -> None:
    # a T blossom expanded mid-stage whose off-path single-vertex child was already reached
    # by a tight edge from an S vertex (found by the corpus; wrong before the fix)
    edges = [
        (0, 2, 146), (0, 4, 196), (2, 7, 35), (2, 10, 35), (3, 5, 127), (3, 9, 35), (4, 5, 66),
        (7, 9, 31), (7, 14, 17), (7, 15, 17), (8, 9, 31), (8, 10, 31), (8, 14, 17),
        (10, 12, 17), (11, 13, 17),
    ]  # fmt: skip
    m = BlossomMatching(16, edges)
    assert m.certified()
    assert _weight_of(m, edges) == _reference_weight(16, edges)


@st.composite
def graphs(draw: st.DrawFn) -> tuple[int, list[tuple[int, int, int]]]:
    n = draw(st.integers(1, 12))
    pairs = [(u, v) for u in range(n) for v in range(u + 1, n)]
    chosen = draw(st.lists(st.sampled_from(pairs), unique=True)) if pairs else []
    weights = st.integers(0, 40) | st.integers(0, 10**40)
    return n, [(u, v, draw(weights)) for u, v in chosen]


@settings(max_examples=300, deadline=None)
@given(graphs())
def test_blossom_matches_the_reference_and_certifies(
    graph: tuple[int, list[tuple[int, int, int]]],
) -> None:
    n, edges = graph
    m = BlossomMatching(n, edges)
    assert m.certified()
    assert _weight_of(m, edges) == _reference_weight(n, edges)
    for u, v, w in edges:
        assert m.reduced_cost(u, v, w) >= 0
