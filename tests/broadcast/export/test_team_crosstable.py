"""The team crosstable as text: columns in standings order, halves, meetings, diagonal."""

from __future__ import annotations

from broadcast.export.team_crosstable import points_text, team_crosstable_text
from broadcast.fide.teams.crosstable import CrosstableRow, Meeting, TeamCrosstable, team_crosstable
from broadcast.fide.teams.match import Match
from broadcast.fide.teams.view import BoardGame, MatchRecord, TeamSectionView, TeamView


def test_points_are_written_with_halves() -> None:
    assert [points_text(p) for p in (0.0, 0.5, 3.0, 4.5, 12.5)] == ["0", "½", "3", "4½", "12½"]


def test_rows_and_columns_in_standings_order() -> None:
    table = TeamCrosstable(
        order=(2, 1, 3),
        rows=(
            CrosstableRow(
                1, 2, "Txantrea", ((1, (Meeting(1, 3.5, 0.5), Meeting(4, 2, 2))),), 3, 5.5
            ),
            CrosstableRow(2, 1, "Irunea", ((2, (Meeting(1, 0.5, 3.5), Meeting(4, 2, 2))),), 1, 2.5),
            CrosstableRow(3, 3, "Ansoain Xake Taldea", (), 0, 0),
        ),
    )
    lines = team_crosstable_text(table, "Liga").splitlines()
    assert lines[0] == "Liga"
    assert lines[1].split() == ["Rk", "No", "Team", "1", "2", "3", "MP", "GP"]
    assert lines[2].split() == ["1", "2", "Txantrea", "*", "3½/2", "3", "5½"]
    assert lines[3].split() == ["2", "1", "Irunea", "½/2", "*", "1", "2½"]
    assert lines[4].split() == ["3", "3", "Ansoain", "Xake", "Taldea", "*", "0", "0"]
    # Fixed columns: every row's match points end where the header's do.
    assert len({len(line) for line in lines[1:]}) == 1


def test_a_section_view_renders_through_the_core() -> None:
    teams = (TeamView(1, "Irunea", (1, 2)), TeamView(2, "Txantrea", (3, 4)))
    boards = (
        BoardGame(1, 1, 3, 1.0, 0.0, first_is_white=True),
        BoardGame(2, 2, 4, 0.5, 0.5, first_is_white=False),
    )
    view = TeamSectionView(
        teams=teams, boards=2, matches=(MatchRecord(1, Match(1, 1, 2), boards),), rounds=1
    )
    text = team_crosstable_text(team_crosstable(view))
    assert text.splitlines()[1].split() == ["1", "1", "Irunea", "*", "1½", "2", "1½"]
    assert text.splitlines()[2].split() == ["2", "2", "Txantrea", "½", "*", "0", "½"]
