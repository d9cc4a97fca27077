"""Team section views for tests, from a plain table of matches.

A match is (round, first, second, boards): `second` None for a team bye; each board a
(first points, second points) pair, or a (first points, second points, "+") triple for a
board not played over the board (forfeit), or "empty-first" / "empty-second" for a board
a lineup left empty. Team t's players are 100*t + 1 .. 100*t + boards, in board order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from broadcast.fide.teams.match import Match
from broadcast.fide.teams.view import BoardGame, MatchRecord, TeamSectionView, TeamView

__all__ = ["Board", "MatchRow", "player", "team_view"]

Board = tuple[float, float] | tuple[float, float, str] | str
MatchRow = tuple[int, int, int | None, Sequence[Board]]


def player(team: int, board: int) -> int:
    return 100 * team + board


def _board(index: int, first: int, second: int, board: Board) -> BoardGame:
    if board == "empty-first":
        return BoardGame(index, None, player(second, index), played=False)
    if board == "empty-second":
        return BoardGame(index, player(first, index), None, played=False)
    assert not isinstance(board, str)
    return BoardGame(
        index,
        player(first, index),
        player(second, index),
        board[0],
        board[1],
        played=len(board) == 2,
        first_is_white=index % 2 == 1,
    )


def team_view(
    teams: int,
    boards: int,
    matches: Sequence[MatchRow],
    rounds: int | None = None,
    *,
    ratings: Mapping[int, int] | None = None,
    **options: object,
) -> TeamSectionView:
    """A view of teams 1..teams; `rounds` defaults to the last round of `matches`."""
    numbered: dict[int, int] = {}
    records = []
    for rnd, first, second, row in matches:
        numbered[rnd] = numbered.get(rnd, 0) + 1
        match = Match(numbered[rnd], first, second)
        games = (
            ()
            if second is None
            else tuple(_board(i, first, second, b) for i, b in enumerate(row, start=1))
        )
        records.append(MatchRecord(rnd, match, games))
    return TeamSectionView(
        teams=tuple(
            TeamView(t, f"Team {t}", tuple(player(t, b) for b in range(1, boards + 1)))
            for t in range(1, teams + 1)
        ),
        boards=boards,
        matches=tuple(records),
        rounds=max((m[0] for m in matches), default=0) if rounds is None else rounds,
        ratings=dict(ratings or {}),
        **options,  # type: ignore[arg-type]
    )
