"""A match's score: game points each side from its boards, match points from those.

Every board counts for the game points, whether played over the board, forfeited or
empty: an empty board (a lineup shorter than the match) is a forfeit win for the player
facing it, and a board both teams left empty scores nothing. Match points come from the
game points alone: more game points win the match, equal ones draw it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from broadcast.fide.teams.view import BoardGame, MatchRecord, TeamSectionView

__all__ = [
    "DEFAULT_MATCH_POINTS",
    "MatchScore",
    "TeamRound",
    "board_points",
    "bye_game_points",
    "match_points",
    "match_score",
    "record_score",
    "team_rounds",
]

DEFAULT_MATCH_POINTS: tuple[float, float, float] = (2.0, 1.0, 0.0)


@dataclass(frozen=True, slots=True)
class MatchScore:
    """Game points of the team named first and of its opponent; `complete` once every
    board has a result (until then the score is the boards finished so far)."""

    first: float
    second: float
    complete: bool

    def for_team(self, first: bool) -> tuple[float, float]:
        """(own, opponent's) game points, seen from the first team or the second."""
        return (self.first, self.second) if first else (self.second, self.first)


def board_points(board: BoardGame) -> tuple[float, float] | None:
    """A board's points (first team's, second team's); None while it has no result.

    A board with an empty side and no recorded result is scored from the lineups: the
    player facing the empty chair wins by forfeit, two empty chairs score 0-0.
    """
    if board.first_points is not None and board.second_points is not None:
        return (board.first_points, board.second_points)
    if board.first_player is None or board.second_player is None:
        first = 0.0 if board.first_player is None else 1.0
        second = 0.0 if board.second_player is None else 1.0
        return (first, second)
    return None


def match_score(
    boards: Sequence[BoardGame | tuple[float, float] | None], expected: int | None = None
) -> MatchScore:
    """The score of a match from its boards' results (a BoardGame, a (first, second)
    pair of points, or None for a board not finished yet). `expected`, the number of
    boards the match is played on: fewer boards than that leaves the match incomplete.
    """
    first = second = 0.0
    complete = bool(boards) and (expected is None or len(boards) >= expected)
    for board in boards:
        points = board_points(board) if isinstance(board, BoardGame) else board
        if points is None:
            complete = False
            continue
        first += points[0]
        second += points[1]
    return MatchScore(first, second, complete)


def record_score(record: MatchRecord, boards: int) -> MatchScore:
    """The score of a recorded match of a section played on `boards` boards."""
    return match_score(record.boards, boards)


def match_points(
    score: MatchScore, points: tuple[float, float, float] = DEFAULT_MATCH_POINTS
) -> tuple[float, float]:
    """Match points of (first team, second team) for a won, drawn or lost match
    (`points`: what a win, a draw and a loss are worth; 2/1/0 by default). A complete
    match in which neither team scored a point (every board forfeited by both, as a
    double forfeit game scores nothing) is lost by both: nobody played it to a draw."""
    win, draw, loss = points
    if score.complete and score.first == 0 and score.second == 0:
        return (loss, loss)
    if score.first > score.second:
        return (win, loss)
    if score.first < score.second:
        return (loss, win)
    return (draw, draw)


def bye_game_points(boards: int, configured: float | None) -> float:
    """Game points a team bye is worth: the configured number, else half the boards
    (a drawn match's worth)."""
    return boards / 2 if configured is None else configured


@dataclass(frozen=True, slots=True)
class TeamRound:
    """One counted round of a team: its opponent (None: a bye or no match at all), the
    match and game points it scored and its opponent's game points. `bye`: the round's
    team bye (points awarded); `forfeit`: a match in which no board was played over the
    board (the whole match forfeited)."""

    round: int
    opponent: int | None
    match_points: float
    game_points: float
    opponent_game_points: float = 0.0
    bye: bool = False
    forfeit: bool = False

    @property
    def met(self) -> bool:
        """The team met its opponent over the board (a real encounter)."""
        return self.opponent is not None and not self.forfeit

    def points(self, kind: str) -> float:
        """Match points ("mp") or game points ("gp") scored in the round."""
        return self.match_points if kind == "mp" else self.game_points


def team_rounds(view: TeamSectionView) -> dict[int, tuple[TeamRound, ...]]:
    """Every team's rounds 1..view.rounds, round order. A match without a complete score
    is left out; a team with no match in a round scores nothing that round."""
    by_team: dict[int, dict[int, TeamRound]] = {t.number: {} for t in view.teams}
    bye_gp = bye_game_points(view.boards, view.bye_game_points)
    for record in view.matches:
        r, match = record.round, record.match
        if not 1 <= r <= view.rounds:
            continue
        if match.second is None:
            if match.first in by_team:
                by_team[match.first][r] = TeamRound(
                    r, None, view.bye_match_points, bye_gp, bye=True
                )
            continue
        score = record_score(record, view.boards)
        if not score.complete:
            continue
        first_mp, second_mp = match_points(score, view.match_points)
        forfeit = not any(board.played for board in record.boards)
        if match.first in by_team:
            by_team[match.first][r] = TeamRound(
                r, match.second, first_mp, score.first, score.second, forfeit=forfeit
            )
        if match.second in by_team:
            by_team[match.second][r] = TeamRound(
                r, match.first, second_mp, score.second, score.first, forfeit=forfeit
            )
    return {
        team: tuple(rounds.get(r, TeamRound(r, None, 0.0, 0.0)) for r in range(1, view.rounds + 1))
        for team, rounds in by_team.items()
    }
