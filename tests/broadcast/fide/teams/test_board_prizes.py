"""Board prizes: players by board, ranked by rating performance over games played over
the board, with a minimum number of games; checked against the FIDE formula by hand."""

from __future__ import annotations

from dataclasses import replace

from broadcast.fide.teams.board_prizes import board_rankings
from broadcast.fide.teams.match import Match
from broadcast.fide.teams.view import BoardGame, MatchRecord
from tests.support.team_view import MatchRow, player, team_view

RATINGS = {player(t, b): 2000 + 100 * t - 10 * b for t in (1, 2, 3) for b in (1, 2)}


def test_performance_over_games_played_only() -> None:
    rows: list[MatchRow] = [
        (1, 1, 2, [(1.0, 0.0), (0.5, 0.5)]),
        (2, 3, 1, [(0.5, 0.5), (1.0, 0.0, "+")]),  # board 2: a forfeit, not counted
        (3, 2, 3, [(0.0, 1.0), "empty-second"]),  # board 2: an empty chair, not counted
    ]
    view = team_view(3, 2, rows, ratings=RATINGS, board_prize_min_games=1)
    board1, board2 = board_rankings(view)
    assert board1.board == 1 and board2.board == 2
    by_player = {s.player: s for s in board1.players}
    # 101: beat 201 (2190) and drew 301 (2290): ARO 2240, 75% -> dp 193.
    assert (by_player[101].performance, by_player[101].games) == (2240 + 193, 2)
    # 301: drew 101 (2090), beat 201 (2190): ARO 2140, 75% -> 2333.
    assert by_player[301].performance == 2140 + 193
    assert [s.player for s in board1.players][:2] == [101, 301]
    assert board1.players[0].rank == 1 and board1.players[0].team == 1
    # Board 2: only 102 and 202 played one game over the board (a draw).
    assert {s.player: (s.performance, s.games) for s in board2.players} == {
        102: (2180, 1),
        202: (2080, 1),
    }


def test_a_minimum_of_games_and_unrated_opponents_left_out() -> None:
    rows: list[MatchRow] = [
        (1, 1, 2, [(1.0, 0.0), (1.0, 0.0)]),
        (2, 1, 3, [(1.0, 0.0), (1.0, 0.0)]),
    ]
    ratings = {**RATINGS, player(3, 2): 0}
    view = team_view(3, 2, rows, ratings=ratings, board_prize_min_games=2)
    board1, board2 = board_rankings(view)
    assert [s.player for s in board1.players] == [101]  # the others played one game
    assert board1.players[0].performance == (2190 + 2290) // 2 + 800
    assert board2.players == ()  # 102's win over an unrated player does not count


def test_a_player_belongs_to_the_board_played_most() -> None:
    # Player 102 plays board 2 twice, then board 1 once, when 101 sits out round 3.
    base = team_view(3, 2, [(1, 1, 2, [(0.5, 0.5), (0.5, 0.5)])], ratings=RATINGS)
    moved = MatchRecord(
        3,
        Match(1, 1, 3),
        (BoardGame(1, 102, 301, 1.0, 0.0), BoardGame(2, 103, 302, 0.5, 0.5)),
    )
    second = MatchRecord(
        2, Match(1, 1, 3), (BoardGame(1, 101, 301, 0.5, 0.5), BoardGame(2, 102, 302, 0.5, 0.5))
    )
    view = replace(base, matches=(*base.matches, second, moved), rounds=3)
    board1, board2 = board_rankings(view)
    assert 102 in {s.player for s in board2.players}
    assert 102 not in {s.player for s in board1.players}
    mine = next(s for s in board2.players if s.player == 102)
    assert mine.games == 3  # the board-1 game counts for the performance
    assert mine.points == 2.0
