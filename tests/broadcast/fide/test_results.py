"""The result vocabulary (broadcast/fide/results.py): both notations, points, forfeits,
PGN, and the reasons; and that the journal's Literals hold exactly the enums' values."""

from __future__ import annotations

import json
from typing import get_args

import pytest
from hypothesis import given
from hypothesis import strategies as st

from broadcast.actions.results import DESK_REASONS
from broadcast.fide.results import REASON_TEXT, TOURNAMENT_CODES, Reason, Result
from broadcast.games.game_events import GameResultText, ResultReason

FORFEITS = {"+/-": "+-", "-/+": "-+", "-/-": "--"}


def test_the_journal_literals_are_the_enums() -> None:
    assert list(get_args(GameResultText)) == [r.value for r in Result]
    assert set(get_args(ResultReason)) == {r.value for r in Reason}
    assert set(REASON_TEXT) == set(Reason)


@pytest.mark.parametrize(
    ("game", "code"),
    [("1-0", "1-0"), ("0-1", "0-1"), ("1/2-1/2", "1/2-1/2"), *FORFEITS.items()],
)
def test_the_two_notations(game: str, code: str) -> None:
    result = Result(game)
    assert result == game  # a member is its string: journals and JSON are unchanged
    assert result.tournament_code == code
    assert Result.from_tournament(code) is result
    assert result.is_forfeit == (game in FORFEITS)


def test_tournament_codes_in_the_order_the_messages_list_them() -> None:
    assert TOURNAMENT_CODES == ("1-0", "1/2-1/2", "0-1", "+-", "-+", "--")
    assert {Result.from_tournament(c).tournament_code for c in TOURNAMENT_CODES} == set(
        TOURNAMENT_CODES
    )


@pytest.mark.parametrize("code", ["+/-", "H", "0-0", "*", "", "1-1"])
def test_from_tournament_refuses_what_is_not_a_games_code(code: str) -> None:
    with pytest.raises(ValueError, match="tournament notation"):
        Result.from_tournament(code)


@pytest.mark.parametrize(
    ("result", "points", "winner", "tag", "movetext"),
    [
        (Result.WHITE_WINS, (1.0, 0.0), "white", "1-0", "1-0"),
        (Result.BLACK_WINS, (0.0, 1.0), "black", "0-1", "0-1"),
        (Result.DRAW, (0.5, 0.5), None, "1/2-1/2", "1/2-1/2"),
        (Result.WHITE_WINS_BY_FORFEIT, (1.0, 0.0), "white", "1-0", "1-0"),
        (Result.BLACK_WINS_BY_FORFEIT, (0.0, 1.0), "black", "0-1", "0-1"),
        # Lichess's double forfeit in the tag; "0-0" in movetext would read as castling
        (Result.DOUBLE_FORFEIT, (0.0, 0.0), None, "0-0", "*"),
    ],
)
def test_points_winner_and_pgn(
    result: Result, points: tuple[float, float], winner: str | None, tag: str, movetext: str
) -> None:
    assert result.points == points == (result.white_points, result.black_points)
    assert result.winner == winner
    assert (result.pgn_tag, result.pgn_movetext) == (tag, movetext)


def test_reasons() -> None:
    assert {r for r in Reason if r.is_forfeit} == {"forfeit", "default-time", "withdrawal"}
    assert [r for r in Reason if not r.desk_allowed] == [Reason.KINGS_SIGNAL]
    desk = ("agreement", "resignation", "checkmate", "stalemate", "dead-position", "repetition")
    desk += ("75-moves", "flag-fall", "arbiter", "forfeit", "default-time", "withdrawal")
    assert desk == DESK_REASONS  # the order the desk offers them, as before
    assert Reason.FLAG_FALL.termination == "time forfeit"
    assert Reason.ARBITER.termination == "adjudication"
    assert Reason.AGREEMENT.termination == "normal"
    assert Reason.SEVENTY_FIVE_MOVES.words == "75-move rule"
    assert REASON_TEXT.get("checkmate") == "checkmate"  # looked up by plain strings


@given(st.sampled_from(Result))
def test_every_result_round_trips_and_scores(result: Result) -> None:
    assert Result(result.value) is result
    assert Result.from_tournament(result.tournament_code) is result
    assert json.loads(json.dumps(result)) == result.value
    white, black = result.points
    # a played game gives out one point; a forfeit gives it to whoever came, or nobody
    assert white + black == (0.0 if result is Result.DOUBLE_FORFEIT else 1.0)
    assert result.is_forfeit == (result.tournament_code != result.value)
    assert result.pgn_tag in ("1-0", "0-1", "1/2-1/2", "0-0")
    if result.winner is not None:
        assert result.pgn_tag == ("1-0" if result.winner == "white" else "0-1")


@given(st.sampled_from(Reason))
def test_every_reason_has_words_and_a_termination(reason: Reason) -> None:
    assert Reason(reason.value) is reason
    assert reason.words and reason.termination in ("normal", "time forfeit", "adjudication")
    assert reason.desk_allowed or not reason.is_forfeit  # the desk gives every forfeit's
