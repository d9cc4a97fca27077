"""The team crosstable: rows in standings order, meetings by opponent, totals."""

from __future__ import annotations

from broadcast.fide.teams.crosstable import Meeting, team_crosstable
from broadcast.fide.teams.standings import team_standings
from tests.support.team_view import MatchRow, team_view


def test_rows_follow_the_standings_with_each_meeting() -> None:
    rows: list[MatchRow] = [
        (1, 1, 2, [(1.0, 0.0), (0.5, 0.5)]),
        (1, 3, None, []),
        (2, 3, 1, [(1.0, 0.0), (1.0, 0.0)]),
        (2, 2, None, []),
        (3, 2, 3, [(0.5, 0.5), (0.5, 0.5)]),
        (3, 1, None, []),
        (4, 2, 1, [(1.0, 0.0), (1.0, 0.0)]),  # second cycle: 2 meets 1 again
        (4, 3, None, []),
    ]
    view = team_view(3, 2, rows)
    table = team_crosstable(view)
    standings = team_standings(view)
    assert table.order == tuple(s.team for s in standings)
    assert [(r.team, r.rank, r.match_points, r.game_points) for r in table.rows] == [
        (s.team, s.rank, s.match_points, s.game_points) for s in standings
    ]
    one = next(r for r in table.rows if r.team == 1)
    assert one.against(2) == (Meeting(1, 1.5, 0.5), Meeting(4, 0.0, 2.0))
    assert one.against(3) == (Meeting(2, 0.0, 2.0),)
    assert one.against(1) == ()
    # The totals include the bye: 2 MP and 1 GP (half the boards) by default.
    assert (one.match_points, one.game_points) == (4.0, 2.5)


def test_meetings_add_up_to_the_game_points_without_byes() -> None:
    rows: list[MatchRow] = [
        (1, 1, 2, [(1.0, 0.0), (0.0, 1.0, "+"), "empty-first"]),
        (2, 2, 1, [(0.5, 0.5), (0.5, 0.5), (1.0, 0.0)]),
    ]
    table = team_crosstable(team_view(2, 3, rows))
    for row in table.rows:
        assert sum(m.game_points for _, ms in row.meetings for m in ms) == row.game_points
    assert {r.team: r.game_points for r in table.rows} == {1: 2.0, 2: 4.0}
