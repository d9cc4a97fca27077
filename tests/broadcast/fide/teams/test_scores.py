"""Match scores: game points from every board (forfeits and empty boards count), match
points from the game points, the bye's points, and each team's counted rounds."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from broadcast.fide.teams.scores import (
    MatchScore,
    bye_game_points,
    match_points,
    match_score,
    team_rounds,
)
from broadcast.fide.teams.view import BoardGame
from tests.support.team_view import team_view


def test_pairs_of_points_sum_per_side() -> None:
    score = match_score([(1.0, 0.0), (0.5, 0.5), (0.0, 1.0), (1.0, 0.0)])
    assert score == MatchScore(2.5, 1.5, True)
    assert match_points(score) == (2.0, 0.0)
    assert match_points(score, (3.0, 1.0, 0.0)) == (3.0, 0.0)


def test_unfinished_boards_leave_the_match_incomplete() -> None:
    score = match_score([(1.0, 0.0), None, (0.5, 0.5), None])
    assert score == MatchScore(1.5, 0.5, False)


def test_a_match_with_fewer_boards_than_expected_is_incomplete() -> None:
    assert not match_score([(1.0, 0.0)], 4).complete
    assert not match_score([]).complete


def test_forfeit_and_empty_boards_count_for_game_points() -> None:
    boards = [
        BoardGame(1, 11, 21, 1.0, 0.0, played=False),  # forfeit win for the first team
        BoardGame(2, 12, None),  # empty board: a forfeit win for the player facing it
        BoardGame(3, None, 23),
        BoardGame(4, None, None),  # both chairs empty: nothing for anybody
    ]
    assert match_score(boards) == MatchScore(2.0, 1.0, True)


def test_a_board_in_progress_has_no_points_yet() -> None:
    assert match_score([BoardGame(1, 11, 21)]) == MatchScore(0.0, 0.0, False)


def test_equal_game_points_draw_the_match() -> None:
    assert match_points(MatchScore(2.0, 2.0, True)) == (1.0, 1.0)
    assert match_points(MatchScore(1.0, 3.0, True), (2.0, 1.0, 0.0)) == (0.0, 2.0)


def test_bye_game_points_default_to_half_the_boards() -> None:
    assert bye_game_points(4, None) == 2.0
    assert bye_game_points(6, None) == 3.0
    assert bye_game_points(4, 4.0) == 4.0


def test_team_rounds_of_a_round_with_a_bye_and_a_forfeited_match() -> None:
    view = team_view(
        3,
        2,
        [
            (1, 1, 2, [(1.0, 0.0), (0.5, 0.5)]),
            (1, 3, None, []),
            (2, 3, 1, [(1.0, 0.0, "+"), (1.0, 0.0, "+")]),
            (2, 2, None, []),
        ],
    )
    rounds = team_rounds(view)
    one, two, three = rounds[1], rounds[2], rounds[3]
    assert (one[0].opponent, one[0].match_points, one[0].game_points) == (2, 2.0, 1.5)
    assert (two[0].match_points, two[0].game_points, two[0].opponent_game_points) == (
        0.0,
        0.5,
        1.5,
    )
    assert three[0].bye and three[0].match_points == 2.0 and three[0].game_points == 1.0
    assert three[1].forfeit and not three[1].met and three[1].game_points == 2.0
    assert one[1].forfeit and one[1].match_points == 0.0


def test_rounds_after_the_counted_ones_are_left_out() -> None:
    view = team_view(2, 1, [(1, 1, 2, [(1.0, 0.0)]), (2, 2, 1, [(1.0, 0.0)])], rounds=1)
    assert [len(r) for r in team_rounds(view).values()] == [1, 1]


RESULTS = st.sampled_from([(1.0, 0.0), (0.5, 0.5), (0.0, 1.0)])


@given(st.lists(RESULTS, min_size=1, max_size=10))
def test_game_points_always_total_the_boards(boards: list[tuple[float, float]]) -> None:
    score = match_score(boards)
    assert score.first + score.second == len(boards)
    first, second = match_points(score)
    assert first + second == 2.0
    assert (first > second) == (score.first > score.second)


@given(st.lists(RESULTS, min_size=1, max_size=10))
def test_swapping_the_teams_swaps_the_score(boards: list[tuple[float, float]]) -> None:
    score = match_score(boards)
    swapped = match_score([(b, a) for a, b in boards])
    assert (swapped.first, swapped.second) == (score.second, score.first)
    assert match_points(swapped) == match_points(score)[::-1]
