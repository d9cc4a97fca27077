"""Team round robins from the Berger tables: every pair meets once a cycle, the table's
White is the team named first, an odd field's bye is listed last."""

from __future__ import annotations

from itertools import combinations

import pytest

from broadcast.fide.berger import berger_round
from broadcast.fide.teams.berger import team_berger_round, team_berger_table


@pytest.mark.parametrize("teams", [2, 3, 4, 7, 10])
@pytest.mark.parametrize("cycles", [1, 2])
def test_every_pair_meets_once_a_cycle(teams: int, cycles: int) -> None:
    table = team_berger_table(teams, cycles)
    meetings: dict[frozenset[int], int] = {}
    for matches in table:
        seen = [t for m in matches for t in m.teams()]
        assert sorted(seen) == list(range(1, teams + 1))  # everyone once a round
        assert [m.number for m in matches] == list(range(1, len(matches) + 1))
        for m in matches:
            if m.second is not None:
                key = frozenset((m.first, m.second))
                meetings[key] = meetings.get(key, 0) + 1
    assert meetings == {frozenset(p): cycles for p in combinations(range(1, teams + 1), 2)}


def test_the_tables_white_is_the_team_named_first() -> None:
    for r in range(1, 10):
        games = berger_round(10, r)
        matches = team_berger_round(10, r)
        assert [(m.first, m.second) for m in matches] == [(g.white, g.black) for g in games]


def test_second_cycle_reverses_who_is_named_first() -> None:
    first = {frozenset(m.teams()): m.first for r in team_berger_table(4)[:3] for m in r}
    second = team_berger_table(4, 2)[3:]
    for matches in second:
        for m in matches:
            assert first[frozenset(m.teams())] != m.first


def test_an_odd_field_has_one_bye_a_round_listed_last() -> None:
    for matches in team_berger_table(5):
        assert matches[-1].is_bye
        assert sum(1 for m in matches if m.is_bye) == 1
    assert sorted(r[-1].first for r in team_berger_table(5)) == [1, 2, 3, 4, 5]


def test_a_round_outside_the_table_is_refused() -> None:
    with pytest.raises(ValueError, match="outside"):
        team_berger_round(4, 4)
