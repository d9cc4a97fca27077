"""JSON views of a team section: its teams, each round's matches with their score and
boards, the team standings, the team crosstable and the board prizes. Pure.

They read `TeamSectionView` (`broadcast.tournament.teams.team_view`: the spine builds it
from the section's config and state) and the game book, both the delayed ones on the
public routes. A board's points are the recorded result, else the book's game result (a
game finished on the board before the tournament records it), else nothing yet; the
match score is the core's `match_score` of them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from broadcast.config.model import EventConfig, SectionConfig
from broadcast.fide.results import Result
from broadcast.fide.teams.board_prizes import board_rankings
from broadcast.fide.teams.crosstable import team_crosstable
from broadcast.fide.teams.match import board_of
from broadcast.fide.teams.scores import MatchScore, match_points, match_score
from broadcast.fide.teams.scores import board_points as recorded_points
from broadcast.fide.teams.standings import team_standings
from broadcast.fide.teams.view import BoardGame, MatchRecord, TeamSectionView
from broadcast.games.book import GameBook
from broadcast.games.game_state import GameState
from broadcast.games.ids import GameKey
from broadcast.tournament.teams import team_view
from broadcast.tournament.tournament_state import TournamentState
from web.game_teams import team_json

__all__ = [
    "board_points",
    "board_prizes_json",
    "match_json",
    "matches_json",
    "points_text",
    "score_text",
    "team_crosstable_json",
    "team_standings_json",
    "team_view_of",
    "teams_json",
]


def team_view_of(tournament: TournamentState, section: SectionConfig) -> TeamSectionView:
    """The section's team view (the spine's `team_view`), from the state given; its
    tie-breaks follow the event's C.07 edition."""
    state = tournament.section(section.name)
    return team_view(section, state, edition=tournament.event.tiebreak_edition)


def points_text(points: float) -> str:
    """Game points as people write them: 2½, ½, 3 (and 0 for nothing)."""
    whole = int(points)
    half = points - whole >= 0.5
    if half:
        return f"{whole}½" if whole else "½"
    return str(whole)


def score_text(score: MatchScore) -> str:
    """A match score, "2½–1½" (an en dash between the teams' game points)."""
    return f"{points_text(score.first)}\u2013{points_text(score.second)}"


def _player(players: Mapping[int, Any], number: int | None) -> dict[str, Any] | None:
    if number is None:
        return None
    entry = players.get(number)
    if entry is None:
        return {"start": number, "name": f"Player {number}", "rating": None, "federation": None}
    return {
        "start": number,
        "name": entry.name,
        "rating": entry.rating or None,
        "title": entry.title or None,
        "federation": entry.federation or None,
    }


def board_points(board: BoardGame, game: GameState | None) -> tuple[float, float] | None:
    """The board's points for the team named first and its opponent (None: not decided
    yet): the recorded ones (an empty chair a forfeit), else the game's own result."""
    recorded = recorded_points(board)
    if recorded is not None:
        return recorded
    if game is None or game.result is None:
        return None
    result = Result(game.result)
    white, black = result.white_points, result.black_points
    return (white, black) if board.first_is_white else (black, white)


def _board_json(
    section: SectionConfig, record: MatchRecord, board: BoardGame, book: GameBook, players: Any
) -> dict[str, Any]:
    boards = section.team_rules.boards if section.team_rules else 1
    number = board_of(record.match.number, board.board, boards)
    game_id = GameKey(section.name, record.round, number).id
    game = book.games.get(game_id)
    points = board_points(board, game)
    return {
        "board": board.board,
        "section_board": number,
        "game": game_id if game is not None else None,
        "first_is_white": board.first_is_white,
        "first": _player(players, board.first_player),
        "second": _player(players, board.second_player),
        "played": board.played,
        "first_points": None if points is None else points[0],
        "second_points": None if points is None else points[1],
    }


def match_json(
    section: SectionConfig,
    view: TeamSectionView,
    record: MatchRecord,
    book: GameBook,
    players: Mapping[int, Any],
) -> dict[str, Any]:
    """One match: the teams, the score (game points, whether every board has its result,
    the match points once it has) and the boards."""
    teams = {t.number: t for t in section.teams}
    boards = [_board_json(section, record, b, book, players) for b in record.boards]
    first, second = record.match.first, record.match.second
    out: dict[str, Any] = {
        "round": record.round,
        "match": record.match.number,
        "first": team_json(teams.get(first)),
        "second": team_json(teams.get(second)) if second is not None else None,
        "bye": second is None,
        "boards": boards,
        "score": None,
        "match_points": None,
    }
    if second is None or not boards:
        return out
    score = match_score(
        [
            None if b["first_points"] is None else (b["first_points"], b["second_points"])
            for b in boards
        ],
        view.boards,
    )
    out["score"] = {
        "first": score.first,
        "second": score.second,
        "complete": score.complete,
        "text": score_text(score),
    }
    if score.complete:
        out["match_points"] = list(match_points(score, view.match_points))
    return out


def matches_json(
    tournament: TournamentState,
    section: SectionConfig,
    book: GameBook,
    round_number: int | None = None,
) -> list[dict[str, Any]]:
    """Every paired match of the section (or of one round), round by round, in order."""
    view = team_view_of(tournament, section)
    players = tournament.section(section.name).players
    return [
        match_json(section, view, record, book, players)
        for record in sorted(view.matches, key=lambda r: (r.round, r.match.number))
        if round_number is None or record.round == round_number
    ]


def teams_json(config: EventConfig, section: SectionConfig) -> list[dict[str, Any]]:
    """The section's teams with their rosters in board order (reserves after)."""
    players = {p.number: p for p in section.players}
    out: list[dict[str, Any]] = []
    for team in sorted(section.teams, key=lambda t: t.number):
        entry = team_json(team) or {}
        out.append(
            {
                **entry,
                "club": team.club or None,
                "captain": team.captain or None,
                "roster": [_player(players, n) for n in team.roster],
            }
        )
    return out


def team_standings_json(tournament: TournamentState, section: SectionConfig) -> list[Any]:
    """The team standings (the core's `team_standings`): rank, team, match points, game
    points, matches won, drawn and lost, and the tie-break values by name in order."""
    teams = {t.number: t for t in section.teams}
    return [
        {
            "rank": row.rank,
            "team": team_json(teams.get(row.team)),
            "match_points": row.match_points,
            "game_points": row.game_points,
            "played": row.played,
            "won": row.won,
            "drawn": row.drawn,
            "lost": row.lost,
            "tiebreaks": dict(row.tiebreaks),
        }
        for row in team_standings(team_view_of(tournament, section))
    ]


def team_crosstable_json(tournament: TournamentState, section: SectionConfig) -> dict[str, Any]:
    """The team crosstable (the core's `team_crosstable`): the teams in rank order, each
    with its game points against each opponent, match by match."""
    table = team_crosstable(team_view_of(tournament, section))
    teams = {t.number: t for t in section.teams}
    return {
        "order": list(table.order),
        "rows": [
            {
                "rank": row.rank,
                "team": team_json(teams.get(row.team)),
                "match_points": row.match_points,
                "game_points": row.game_points,
                "meetings": {
                    str(opponent): [
                        {
                            "round": m.round,
                            "game_points": m.game_points,
                            "opponent_game_points": m.opponent_game_points,
                        }
                        for m in meetings
                    ]
                    for opponent, meetings in row.meetings
                },
            }
            for row in table.rows
        ],
    }


def board_prizes_json(tournament: TournamentState, section: SectionConfig) -> dict[str, Any]:
    """The board prizes (the core's `board_rankings`): each board's players ranked by
    rating performance over the complete rounds (`rounds`), counting games played over
    the board against a rated opponent; `min_games` such games are needed to be ranked
    (the players with fewer are not listed)."""
    view = team_view_of(tournament, section)
    teams = {t.number: t for t in section.teams}
    players = tournament.section(section.name).players
    return {
        "rounds": view.rounds,
        "min_games": max(view.board_prize_min_games, 1),
        "boards": [
            {
                "board": ranking.board,
                "players": [
                    {
                        "rank": row.rank,
                        "player": _player(players, row.player),
                        "team": team_json(teams.get(row.team)),
                        "games": row.games,
                        "points": row.points,
                        "performance": row.performance,
                    }
                    for row in ranking.players
                ],
            }
            for ranking in board_rankings(view)
        ],
    }
