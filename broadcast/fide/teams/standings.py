"""Team standings: rank by the section's primary score, then its tie-breaks in order.

The primary score is match points or game points (`view.rank_by`); the tie-breaks are
those of broadcast.fide.teams.tiebreaks (C.07 for teams, unplayed rounds by its article
16). Teams still equal after every tie-break share the rank (listed by team number).
"""

from __future__ import annotations

from dataclasses import dataclass

from broadcast.fide.teams.scores import bye_game_points, team_rounds
from broadcast.fide.teams.tiebreaks import (
    TeamScores,
    direct_encounter,
    parse_team_tiebreak,
    tiebreak_values,
)
from broadcast.fide.teams.view import TeamSectionView

__all__ = ["TeamStanding", "team_scores", "team_standings"]


@dataclass(frozen=True, slots=True)
class TeamStanding:
    """One row: rank (shared by teams still tied), team number and name, match and game
    points, matches played (byes not counted), won, drawn, lost, and the tie-break values
    in the section's order as (name, value)."""

    rank: int
    team: int
    name: str
    match_points: float
    game_points: float
    played: int
    won: int
    drawn: int
    lost: int
    tiebreaks: tuple[tuple[str, float], ...] = ()

    def value(self, name: str) -> float:
        """A tie-break's value by name (KeyError if the section does not list it)."""
        for key, value in self.tiebreaks:
            if key == name:
                return value
        raise KeyError(name)


def team_scores(view: TeamSectionView, *, edition: int | None = None) -> TeamScores:
    """The scores the team tie-breaks read, from a section's view, under the view's C.07
    edition (`edition` given: that one instead)."""
    win, draw, _ = view.match_points
    return TeamScores(
        rounds=team_rounds(view),
        primary="gp" if view.rank_by == "game-points" else "mp",
        round_robin=view.round_robin,
        played_rounds=view.rounds,
        draw={"mp": draw, "gp": bye_game_points(view.boards, None)},
        win={"mp": win, "gp": float(view.boards)},
        edition=view.edition if edition is None else edition,
    )


def _split(group: list[int], values: dict[int, float], lower_first: bool) -> list[list[int]]:
    """A tied group cut into sub-groups of equal value, best first."""
    sign = 1.0 if lower_first else -1.0
    out: list[list[int]] = []
    for team in sorted(group, key=lambda t: (sign * values[t], t)):
        if out and values[out[-1][0]] == values[team]:
            out[-1].append(team)
        else:
            out.append([team])
    return out


def team_standings(
    view: TeamSectionView, *, edition: int | None = None
) -> tuple[TeamStanding, ...]:
    """The section's standings after `view.rounds` rounds, best first, by the view's C.07
    edition (`edition` given: that one instead).

    Raises TeamTiebreakError for a tie-break name that is not a team tie-break.
    """
    specs = [parse_team_tiebreak(name) for name in view.tiebreaks]
    scores = team_scores(view, edition=edition)
    teams = sorted(scores.rounds)
    primary = {t: scores.score(t, scores.primary) for t in teams}
    groups = _split(teams, primary, lower_first=False)
    values: dict[str, dict[int, float]] = {}
    for spec in specs:
        if spec.family == "DE":
            de: dict[int, float] = {}
            for group in groups:
                de.update(direct_encounter(scores, group) if len(group) > 1 else {group[0]: 0.0})
            values[spec.name] = de
            groups = [sub for g in groups for sub in _split(g, de, lower_first=True)]
        else:
            values[spec.name] = tiebreak_values(scores, spec)
            groups = [sub for g in groups for sub in _split(g, values[spec.name], False)]
    names = {t.number: t.name for t in view.teams}
    rows: list[TeamStanding] = []
    for group in groups:
        rank = len(rows) + 1
        for team in group:
            matches = [r for r in scores.rounds[team] if r.opponent is not None]
            rows.append(
                TeamStanding(
                    rank=rank,
                    team=team,
                    name=names.get(team, ""),
                    match_points=scores.score(team, "mp"),
                    game_points=scores.score(team, "gp"),
                    played=len(matches),
                    won=sum(1 for r in matches if r.game_points > r.opponent_game_points),
                    drawn=sum(1 for r in matches if r.game_points == r.opponent_game_points),
                    lost=sum(1 for r in matches if r.game_points < r.opponent_game_points),
                    tiebreaks=tuple((s.name, values[s.name][team]) for s in specs),
                )
            )
    return tuple(rows)
