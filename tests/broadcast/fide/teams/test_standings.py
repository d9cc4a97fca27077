"""Team standings: ranked by the primary score then the tie-breaks, checked against the
independent computation of tests.support.team_oracle, and properties of any schedule."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from broadcast.fide.teams.berger import team_berger_table
from broadcast.fide.teams.standings import team_standings
from broadcast.fide.teams.tiebreaks import TeamTiebreakError
from tests.support.team_oracle import oracle_ranks, oracle_rounds, oracle_value
from tests.support.team_schedules import Event, round_robins, swiss_events
from tests.support.team_view import Board, MatchRow, team_view

LIST = ("BH", "SB", "OSB", "GP", "BH:GP-C1", "EGGSB")


def league(seed: int) -> list[MatchRow]:
    """A 10-team round robin of 4 boards with seeded results, draws more common."""
    rng = random.Random(seed)
    results: list[Board] = [(1.0, 0.0), (0.5, 0.5), (0.5, 0.5), (0.0, 1.0)]
    rows: list[MatchRow] = []
    for rnd, matches in enumerate(team_berger_table(10), start=1):
        for m in matches:
            rows.append((rnd, m.first, m.second, [rng.choice(results) for _ in range(4)]))
    return rows


def oracle_standings(event: Event, rank_by: str, names: tuple[str, ...]) -> dict[int, int]:
    teams, boards, rows, rr = event
    rounds = max(r[0] for r in rows)
    table = oracle_rounds(teams, boards, rows, rounds)
    primary = "gp" if rank_by == "game-points" else "mp"
    keys = {
        t: tuple(
            oracle_value(table, t, n, primary=primary, boards=boards, rounds=rounds, round_robin=rr)
            for n in (primary.upper(), *names)
        )
        for t in range(1, teams + 1)
    }
    return oracle_ranks(keys)


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("rank_by", ["match-points", "game-points"])
def test_ten_team_league_of_four_boards_matches_the_oracle(seed: int, rank_by: str) -> None:
    rows = league(seed)
    view = team_view(10, 4, rows, round_robin=True, rank_by=rank_by, tiebreaks=LIST)
    standings = team_standings(view)
    assert {s.team: s.rank for s in standings} == oracle_standings(
        (10, 4, rows, True), rank_by, LIST
    )
    assert sum(s.played for s in standings) == 10 * 9
    assert all(s.won + s.drawn + s.lost == 9 for s in standings)
    assert sum(s.game_points for s in standings) == 45 * 4


def test_swiss_with_a_team_bye() -> None:
    rows: list[MatchRow] = [
        (1, 1, 2, [(1.0, 0.0), (0.5, 0.5), (1.0, 0.0), (0.5, 0.5)]),  # 1 beats 2 3-1
        (1, 3, 4, [(0.5, 0.5)] * 4),  # 2-2
        (1, 5, None, []),  # bye: 2 MP, 2 GP
        (2, 5, 1, [(0.0, 1.0), (0.5, 0.5), (0.5, 0.5), (0.5, 0.5)]),  # 1 wins 2.5-1.5
        (2, 3, 2, [(1.0, 0.0)] * 4),  # 3 wins 4-0
        (2, 4, None, []),
    ]
    view = team_view(5, 4, rows, tiebreaks=("GP", "BH"))
    standings = team_standings(view)
    assert [(s.team, s.rank, s.match_points, s.game_points) for s in standings] == [
        (1, 1, 4.0, 5.5),
        (3, 2, 3.0, 6.0),
        (4, 3, 3.0, 4.0),
        (5, 4, 2.0, 3.5),
        (2, 5, 0.0, 1.0),
    ]
    five = next(s for s in standings if s.team == 5)
    assert five.played == 1 and five.lost == 1
    # Team 5's bye meets a dummy of min(own 2 MP, a draw a round: 2); team 1 has 4 MP.
    assert five.value("BH") == 4.0 + 2.0
    assert oracle_standings((5, 4, rows, False), "match-points", ("GP", "BH")) == {
        s.team: s.rank for s in standings
    }


def test_forfeits_and_empty_boards_count_for_the_standings() -> None:
    rows: list[MatchRow] = [
        # Team 2 brought three players: board 4 is empty, a forfeit win for team 1.
        (1, 1, 2, [(0.0, 1.0), (0.5, 0.5), (0.5, 0.5), "empty-second"]),
        # A no-show on board 1 (forfeit), the rest played.
        (1, 3, 4, [(0.0, 1.0, "+"), (1.0, 0.0), (0.5, 0.5), (1.0, 0.0)]),
    ]
    standings = team_standings(team_view(4, 4, rows, tiebreaks=("GP",)))
    assert {s.team: (s.match_points, s.game_points) for s in standings} == {
        1: (1.0, 2.0),
        2: (1.0, 2.0),
        3: (2.0, 2.5),
        4: (0.0, 1.5),
    }
    assert [s.rank for s in standings] == [1, 2, 2, 4]  # 1 and 2 stay tied and share 2nd


def test_rank_by_game_points() -> None:
    rows: list[MatchRow] = [
        (1, 1, 2, [(1.0, 0.0), (1.0, 0.0), (1.0, 0.0), (0.0, 1.0)]),  # 3-1
        (1, 3, 4, [(1.0, 0.0), (1.0, 0.0), (1.0, 0.0), (1.0, 0.0)]),  # 4-0
        (2, 1, 3, [(1.0, 0.0), (0.0, 1.0), (0.5, 0.5), (0.5, 0.5)]),  # 2-2
        (2, 2, 4, [(1.0, 0.0), (0.0, 1.0), (0.0, 1.0), (0.0, 1.0)]),  # 1-3 for 4
    ]
    by_gp = team_standings(team_view(4, 4, rows, rank_by="game-points", tiebreaks=("MP",)))
    assert [(s.team, s.game_points) for s in by_gp] == [(3, 6.0), (1, 5.0), (4, 3.0), (2, 2.0)]
    by_mp = team_standings(team_view(4, 4, rows, tiebreaks=("GP",)))
    assert [(s.team, s.match_points) for s in by_mp] == [(3, 3.0), (1, 3.0), (4, 2.0), (2, 0.0)]


def test_direct_encounter_breaks_a_tie_in_the_standings() -> None:
    rows: list[MatchRow] = [
        (1, 1, 2, [(0.0, 1.0), (0.0, 1.0)]),  # 2 beats 1
        (1, 3, 4, [(1.0, 0.0), (1.0, 0.0)]),
        (2, 1, 4, [(1.0, 0.0), (1.0, 0.0)]),
        (2, 3, 2, [(1.0, 0.0), (1.0, 0.0)]),
        (3, 1, 3, [(1.0, 0.0), (1.0, 0.0)]),
        (3, 2, 4, [(1.0, 0.0), (1.0, 0.0)]),
    ]
    view = team_view(4, 2, rows, round_robin=True, tiebreaks=("DE",))
    standings = team_standings(view)
    # 1, 2 and 3 have 4 MP each and beat each other in a circle: DE leaves them tied.
    assert [(s.team, s.rank) for s in standings] == [(1, 1), (2, 1), (3, 1), (4, 4)]
    two = team_view(4, 2, rows[:4], round_robin=True, tiebreaks=("DE",))
    assert [(s.team, s.rank) for s in team_standings(two)][:2] == [(3, 1), (2, 2)]


def test_an_unknown_tiebreak_is_refused() -> None:
    with pytest.raises(TeamTiebreakError):
        team_standings(team_view(2, 1, [(1, 1, 2, [(1.0, 0.0)])], tiebreaks=("KS",)))


EVENTS = st.one_of(round_robins(), swiss_events())


@settings(max_examples=60, deadline=None)
@given(EVENTS, st.sampled_from(["match-points", "game-points"]))
def test_ranks_are_a_permutation_with_ties_matching_the_oracle(event: Event, rank_by: str) -> None:
    teams, boards, rows, rr = event
    names = ("BH-C1", "SB", "GP", "MP")
    view = team_view(teams, boards, rows, round_robin=rr, rank_by=rank_by, tiebreaks=names)
    standings = team_standings(view)
    assert sorted(s.team for s in standings) == list(range(1, teams + 1))
    for i, row in enumerate(standings):
        assert row.rank == i + 1 or row.rank == standings[i - 1].rank
    assert {s.team: s.rank for s in standings} == oracle_standings(event, rank_by, names)


@settings(max_examples=60, deadline=None)
@given(EVENTS, st.randoms(use_true_random=False))
def test_standings_do_not_depend_on_team_numbers(event: Event, rng: random.Random) -> None:
    teams, boards, rows, rr = event
    names = ("DE", "BH", "OSB", "ESB-C1")
    renumber = list(range(1, teams + 1))
    rng.shuffle(renumber)
    new = dict(zip(range(1, teams + 1), renumber, strict=True))
    moved = [(r, new[a], None if b is None else new[b], row) for r, a, b, row in rows]
    before = team_standings(team_view(teams, boards, rows, round_robin=rr, tiebreaks=names))
    after = team_standings(team_view(teams, boards, moved, round_robin=rr, tiebreaks=names))
    by_team = {s.team: s for s in after}
    for s in before:
        other = by_team[new[s.team]]
        assert (other.rank, other.match_points, other.game_points) == (
            s.rank,
            s.match_points,
            s.game_points,
        )
        assert [v for _, v in other.tiebreaks] == pytest.approx([v for _, v in s.tiebreaks])


@settings(max_examples=60, deadline=None)
@given(EVENTS)
def test_match_points_are_conserved(event: Event) -> None:
    teams, boards, rows, rr = event
    standings = team_standings(team_view(teams, boards, rows, round_robin=rr))
    matches = sum(1 for r in rows if r[2] is not None)
    byes = len(rows) - matches
    assert sum(s.match_points for s in standings) == 2.0 * matches + 2.0 * byes
    assert sum(s.won for s in standings) == sum(s.lost for s in standings)
    assert sum(s.game_points for s in standings) == boards * matches + boards / 2 * byes
