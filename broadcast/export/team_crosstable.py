"""A team section's crosstable as plain text, for the exports folder and the arbiter's
printout.

The core computes it (`broadcast.fide.teams.crosstable.team_crosstable`): teams in
standings order, each meeting's game points. This module only lays it out in fixed
columns: rank, team number, name, one column per team in the same order (the game
points the row's team scored against that team, "*" on the diagonal, several meetings
of a double round robin separated by "/"), then match points and game points. Halves
are written "½" as on a paper crosstable.
"""

from __future__ import annotations

from broadcast.config.model import SectionConfig
from broadcast.fide.teams.crosstable import CrosstableRow, TeamCrosstable, team_crosstable
from broadcast.tournament.section import SectionRecord
from broadcast.tournament.teams import team_view

__all__ = ["points_text", "section_team_crosstable_text", "team_crosstable_text"]


def points_text(points: float) -> str:
    """4.5 as "4½", 0.5 as "½", 3.0 as "3"."""
    whole = int(points)
    half = points - whole >= 0.5
    if half:
        return "½" if whole == 0 else f"{whole}½"
    return str(whole)


def _cell(row: CrosstableRow, opponent: int) -> str:
    if opponent == row.team:
        return "*"
    return "/".join(points_text(m.game_points) for m in row.against(opponent))


def team_crosstable_text(table: TeamCrosstable, title: str = "") -> str:
    """The crosstable in fixed columns, one line a team, ending with a line break."""
    columns = [str(i) for i in range(1, len(table.order) + 1)]
    cells = [[_cell(row, team) for team in table.order] for row in table.rows]
    name_width = max([len("Team"), *(len(row.name) for row in table.rows)])
    width = max([2, *(len(c) for line in cells for c in line)])
    number_width = max([2, *(len(str(row.team)) for row in table.rows)])
    head = (
        f"{'Rk':>3} {'No':>{number_width}} {'Team':<{name_width}} "
        + " ".join(f"{c:>{width}}" for c in columns)
        + f" {'MP':>5} {'GP':>5}"
    )
    lines = [title] if title else []
    lines.append(head.rstrip())
    for row, line in zip(table.rows, cells, strict=True):
        text = (
            f"{row.rank:>3} {row.team:>{number_width}} {row.name:<{name_width}} "
            + " ".join(f"{c:>{width}}" for c in line)
            + f" {points_text(row.match_points):>5} {points_text(row.game_points):>5}"
        )
        lines.append(text.rstrip())
    return "\n".join(lines) + "\n"


def section_team_crosstable_text(
    config: SectionConfig, state: SectionRecord, *, edition: int = 2024
) -> str:
    """A team section's crosstable after its complete rounds, titled with its name, its
    teams ranked under `edition` of C.07 (the event's `tiebreak_edition`)."""
    view = team_view(config, state, edition=edition)
    return team_crosstable_text(team_crosstable(view), config.name)
