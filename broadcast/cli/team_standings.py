"""The final figures of a team section for `boardwire standings`: the team standings
(match and game points, the section's team tie-breaks) and the board prizes (each board's
players by rating performance), as text and as JSON. Pure: the section's config and state
in, text or values out; the core computes both (`broadcast.fide.teams`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from broadcast.config.model import SectionConfig
from broadcast.fide.teams.board_prizes import BoardRanking, board_rankings
from broadcast.fide.teams.standings import TeamStanding, team_standings
from broadcast.tournament.section import SectionRecord
from broadcast.tournament.teams import team_view

__all__ = ["format_board_prizes", "format_team_standings", "team_section_json", "team_text"]


def _fmt(value: float) -> str:
    return str(int(value)) if value == int(value) else f"{value:g}"


def _table(header: list[str], body: list[list[str]], left: set[int]) -> list[str]:
    widths = [max(len(h), *(len(row[i]) for row in body)) for i, h in enumerate(header)]

    def line(cells: list[str]) -> str:
        return "  ".join(
            c.ljust(w) if i in left else c.rjust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        ).rstrip()

    return [line(header), line(["-" * w for w in widths]), *(line(row) for row in body)]


def format_team_standings(rows: Sequence[TeamStanding], rounds: int) -> str:
    """Rank, team number and name, match points, game points, won/drawn/lost and each
    tie-break in the section's order."""
    labels = [name for name, _ in rows[0].tiebreaks] if rows else []
    header = ["Rk", "No", "Team", "MP", "GP", "W", "D", "L", *labels]
    body = [
        [
            str(r.rank),
            str(r.team),
            r.name,
            _fmt(r.match_points),
            _fmt(r.game_points),
            str(r.won),
            str(r.drawn),
            str(r.lost),
            *(_fmt(value) for _, value in r.tiebreaks),
        ]
        for r in rows
    ]
    out = ["Team standings", *_table(header, body, {2})]
    out.append(f"(after {rounds} rounds)" if rounds else "(no round complete yet)")
    return "\n".join(out)


def format_board_prizes(
    rankings: Sequence[BoardRanking], min_games: int, names: dict[int, str], teams: dict[int, str]
) -> str:
    """Each board's ranking: rank, starting number, player, team, games, points and
    performance; the rule for the players left out in one line."""
    out = ["Board prizes"]
    for ranking in rankings:
        out.append(f"Board {ranking.board}")
        if not ranking.players:
            out.append("  (nobody ranked yet)")
            continue
        body = [
            [
                str(r.rank),
                str(r.player),
                names.get(r.player, f"Player {r.player}"),
                teams.get(r.team, str(r.team)),
                str(r.games),
                _fmt(r.points),
                str(r.performance),
            ]
            for r in ranking.players
        ]
        header = ["Rk", "SNo", "Name", "Team", "Games", "Pts", "Perf"]
        out.extend("  " + line for line in _table(header, body, {2, 3}))
    games = "game" if min_games == 1 else "games"
    out.append(
        f"(rating performance over games played over the board against a rated opponent; "
        f"players with fewer than {min_games} such {games} are not ranked)"
    )
    return "\n".join(out)


def team_text(section: SectionConfig, state: SectionRecord, *, edition: int) -> str:
    """A team section's team standings and board prizes, as `boardwire standings` prints;
    `edition`: the C.07 edition the team tie-breaks follow (the event's `tiebreak_edition`)."""
    view = team_view(section, state, edition=edition)
    names = {n: p.name for n, p in state.players.items()}
    teams = {t.number: t.name for t in section.teams}
    return "\n".join(
        (
            format_team_standings(team_standings(view), view.rounds),
            "",
            format_board_prizes(
                board_rankings(view), max(view.board_prize_min_games, 1), names, teams
            ),
        )
    )


def team_section_json(
    section: SectionConfig, state: SectionRecord, *, edition: int
) -> dict[str, Any]:
    """The same as JSON: `rounds`, `team_standings` and `board_prizes` (`min_games`, and
    per board its players with `rank`, `start`, `name`, `team`, `games`, `points`,
    `performance`)."""
    view = team_view(section, state, edition=edition)
    names = {n: p.name for n, p in state.players.items()}
    return {
        "rounds": view.rounds,
        "team_standings": [
            {
                "rank": r.rank,
                "team": r.team,
                "name": r.name,
                "match_points": r.match_points,
                "game_points": r.game_points,
                "played": r.played,
                "won": r.won,
                "drawn": r.drawn,
                "lost": r.lost,
                "tiebreaks": dict(r.tiebreaks),
            }
            for r in team_standings(view)
        ],
        "board_prizes": {
            "min_games": max(view.board_prize_min_games, 1),
            "boards": [
                {
                    "board": ranking.board,
                    "players": [
                        {
                            "rank": r.rank,
                            "start": r.player,
                            "name": names.get(r.player, f"Player {r.player}"),
                            "team": r.team,
                            "games": r.games,
                            "points": r.points,
                            "performance": r.performance,
                        }
                        for r in ranking.players
                    ],
                }
                for ranking in board_rankings(view)
            ],
        },
    }
