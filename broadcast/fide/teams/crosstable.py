"""The team crosstable: teams in standings order, each opponent's game points per meeting.

A plain value: the pages and the exports render it as they like.
"""

from __future__ import annotations

from dataclasses import dataclass

from broadcast.fide.teams.scores import team_rounds
from broadcast.fide.teams.standings import team_standings
from broadcast.fide.teams.view import TeamSectionView

__all__ = ["CrosstableRow", "Meeting", "TeamCrosstable", "team_crosstable"]


@dataclass(frozen=True, slots=True)
class Meeting:
    """One match against an opponent: the round and the game points of both sides."""

    round: int
    game_points: float
    opponent_game_points: float


@dataclass(frozen=True, slots=True)
class CrosstableRow:
    """A team's row: its rank and number, its meetings with each opponent (by opponent
    number, in round order; none for teams it has not met), match and game points."""

    rank: int
    team: int
    name: str
    meetings: tuple[tuple[int, tuple[Meeting, ...]], ...]
    match_points: float
    game_points: float

    def against(self, opponent: int) -> tuple[Meeting, ...]:
        for team, meetings in self.meetings:
            if team == opponent:
                return meetings
        return ()


@dataclass(frozen=True, slots=True)
class TeamCrosstable:
    """Columns in the rows' order (`order`: team numbers), and the rows."""

    order: tuple[int, ...]
    rows: tuple[CrosstableRow, ...]


def team_crosstable(view: TeamSectionView) -> TeamCrosstable:
    """The crosstable after view.rounds rounds (byes and forfeited matches included as
    scored; a bye has no column)."""
    standings = team_standings(view)
    rounds = team_rounds(view)
    rows = []
    for row in standings:
        met: dict[int, list[Meeting]] = {}
        for r in rounds[row.team]:
            if r.opponent is not None:
                met.setdefault(r.opponent, []).append(
                    Meeting(r.round, r.game_points, r.opponent_game_points)
                )
        rows.append(
            CrosstableRow(
                rank=row.rank,
                team=row.team,
                name=row.name,
                meetings=tuple((t, tuple(m)) for t, m in sorted(met.items())),
                match_points=row.match_points,
                game_points=row.game_points,
            )
        )
    return TeamCrosstable(tuple(s.team for s in standings), tuple(rows))
