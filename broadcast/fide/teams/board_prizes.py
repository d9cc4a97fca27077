"""Board prizes: on each board of a team event, the players ranked by rating performance.

As the Olympiad ranks them: a player belongs to the board they played most often (the
higher board on a tie) and their performance counts only games played over the board
against a rated opponent, never forfeits or empty boards. Performance = the average of
those opponents' ratings (rounded half up) + dp(p), p the percentage score rounded half
up and dp FIDE's rating table (B.02 table 8.1a). A player qualifies with at least
`board_prize_min_games` such games; ties of performance are ranked by more points, then
more games, then starting number, and keep sharing the rank only when all are equal.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from broadcast.fide.teams.view import TeamSectionView
from broadcast.fide.tiebreaks.ratings import performance

__all__ = ["BoardRanking", "BoardStanding", "board_rankings"]


@dataclass(frozen=True, slots=True)
class BoardStanding:
    """A player on a board's ranking: rank, starting number, team, performance, points
    and games over the board counted for it."""

    rank: int
    player: int
    team: int
    performance: int
    points: float
    games: int


@dataclass(frozen=True, slots=True)
class BoardRanking:
    """One board (1 for the top board) and its qualified players, best first."""

    board: int
    players: tuple[BoardStanding, ...]


def board_rankings(view: TeamSectionView) -> tuple[BoardRanking, ...]:
    """Every board's ranking, board 1 first, over rounds 1..view.rounds."""
    boards_played: dict[int, Counter[int]] = {}
    games: dict[int, list[tuple[int, float]]] = {}
    team_of: dict[int, int] = {}
    for record in view.matches:
        if not 1 <= record.round <= view.rounds or record.match.second is None:
            continue
        for game in record.boards:
            board = (game.board - 1) % view.boards + 1  # a section board number works too
            sides = (
                (game.first_player, record.match.first, game.first_points, game.second_player),
                (game.second_player, record.match.second, game.second_points, game.first_player),
            )
            for player, team, points, opponent in sides:
                if player is None:
                    continue
                team_of[player] = team
                boards_played.setdefault(player, Counter())[board] += 1
                if not game.played or points is None or opponent is None:
                    continue
                rating = view.ratings.get(opponent, 0)
                if rating:
                    games.setdefault(player, []).append((rating, points))
    by_board: dict[int, list[tuple[int, float, int, int]]] = {}
    for player, counter in boards_played.items():
        played = games.get(player, [])
        if len(played) < max(view.board_prize_min_games, 1):
            continue
        board = min(counter, key=lambda b: (-counter[b], b))
        perf = performance(played)
        if perf is not None:
            points = sum(p for _, p in played)
            by_board.setdefault(board, []).append((perf, points, len(played), player))
    out: list[BoardRanking] = []
    for board in range(1, view.boards + 1):
        entries = sorted(by_board.get(board, []), key=lambda e: (-e[0], -e[1], -e[2], e[3]))
        rows: list[BoardStanding] = []
        for i, (perf, points, count, player) in enumerate(entries):
            tied = i > 0 and entries[i - 1][:3] == (perf, points, count)
            rank = rows[-1].rank if tied else i + 1
            rows.append(BoardStanding(rank, player, team_of[player], perf, points, count))
        out.append(BoardRanking(board, tuple(rows)))
    return tuple(out)
