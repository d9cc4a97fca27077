"""Hypothesis strategies for team events: complete round robins and Swiss-like schedules
as tables of matches (tests.support.team_view rows)."""

from __future__ import annotations

from hypothesis import strategies as st

from broadcast.fide.teams.berger import team_berger_table
from tests.support.team_view import Board, MatchRow

__all__ = ["Event", "round_robins", "swiss_events"]

Event = tuple[int, int, list[MatchRow], bool]  # teams, boards, matches, round robin
RESULTS: list[Board] = [(1.0, 0.0), (0.5, 0.5), (0.0, 1.0)]


@st.composite
def round_robins(draw: st.DrawFn, max_teams: int = 8) -> Event:
    teams = draw(st.integers(2, max_teams))
    boards = draw(st.integers(1, 4))
    cycles = draw(st.sampled_from([1, 2]))
    rows: list[MatchRow] = []
    for rnd, matches in enumerate(team_berger_table(teams, cycles), start=1):
        for match in matches:
            row = (
                []
                if match.second is None
                else draw(st.lists(st.sampled_from(RESULTS), min_size=boards, max_size=boards))
            )
            rows.append((rnd, match.first, match.second, row))
    return teams, boards, rows, True


@st.composite
def swiss_events(draw: st.DrawFn, max_teams: int = 9) -> Event:
    teams = draw(st.integers(3, max_teams))
    boards = draw(st.integers(1, 4))
    rounds = draw(st.integers(1, 5))
    rows: list[MatchRow] = []
    for rnd in range(1, rounds + 1):
        order = draw(st.permutations(range(1, teams + 1)))
        for i in range(0, teams - 1, 2):
            row = draw(st.lists(st.sampled_from(RESULTS), min_size=boards, max_size=boards))
            rows.append((rnd, order[i], order[i + 1], row))
        if teams % 2:
            rows.append((rnd, order[-1], None, []))
    return teams, boards, rows, False
