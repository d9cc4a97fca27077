"""The team part of the section fold (matches, lineups) and the team view built from it."""

from __future__ import annotations

import dataclasses
import datetime as dt

import pytest

from broadcast.fide.teams.match import Match
from broadcast.journal.codec import decode, encode
from broadcast.journal.kinds import register_all
from broadcast.tournament.section import StateError
from broadcast.tournament.team_events import (
    LineupSubmitted,
    LineupWithdrawn,
    MatchesPaired,
    TeamEvent,
)
from broadcast.tournament.team_rounds import compose_round
from broadcast.tournament.teams import team_view
from broadcast.tournament.tournament_events import ResultRecorded, RoundPaired
from broadcast.tournament.tournament_state import SectionState
from tests.support.team_section import ROUND_1, SECTION, section_state, team_section

AT = ROUND_1 - dt.timedelta(hours=2)
ROUND_ONE = MatchesPaired(SECTION, 1, (Match(1, 1, 2), Match(2, 3, 4)), "berger")


def _lineup(team: int, *players: int | None, round_number: int = 1) -> LineupSubmitted:
    return LineupSubmitted(SECTION, round_number, team, players, AT, "arbiter:ana")


def _paired() -> SectionState:
    return section_state().apply(ROUND_ONE)


def test_matches_and_lineups_fold() -> None:
    state = _paired().apply(_lineup(1, 1, 2)).apply(_lineup(2, 4, None))
    rounds = state.team_rounds
    assert rounds.round_matches(1) == ROUND_ONE.matches and rounds.sources[1] == "berger"
    assert rounds.match_of(1, 4) == Match(2, 3, 4) and rounds.match_of(2, 4) is None
    assert rounds.lineup(1, 2) == _lineup(2, 4, None)
    assert set(rounds.round_lineups(1)) == {1, 2} and rounds.last_paired_round == 1
    replaced = state.apply(_lineup(1, 1, 3))
    assert replaced.team_rounds.lineup(1, 1) == _lineup(1, 1, 3)  # the later one counts
    withdrawn = replaced.apply(LineupWithdrawn(SECTION, 1, 1, "arbiter:ana"))
    assert withdrawn.team_rounds.lineup(1, 1) is None
    assert withdrawn.team_rounds.lineup(1, 2) is not None


def test_the_last_lineup_of_a_team() -> None:
    state = _paired().apply(_lineup(1, 1, 2))
    state = state.apply(MatchesPaired(SECTION, 2, (Match(1, 1, 3), Match(2, 4, 2))))
    assert state.team_rounds.last_lineup(1, 2) == _lineup(1, 1, 2)
    assert state.team_rounds.last_lineup(1, 1) is None


def test_matches_in_a_section_of_individuals_are_refused() -> None:
    state = section_state(dataclasses.replace(team_section(), team_rules=None, teams=()))
    with pytest.raises(StateError, match="not a team section"):
        state.apply(ROUND_ONE)


@pytest.mark.parametrize(
    ("event", "said"),
    [
        (ROUND_ONE, "already paired"),
        (MatchesPaired(SECTION, 3, (Match(1, 1, 2),)), "round 2's matches must be paired"),
        (MatchesPaired(SECTION, 4, (Match(1, 1, 2),)), "outside 1..3"),
    ],
)
def test_a_round_paired_twice_or_out_of_turn(event: MatchesPaired, said: str) -> None:
    with pytest.raises(StateError, match=said):
        _paired().apply(event)


@pytest.mark.parametrize(
    ("matches", "said"),
    [
        ((Match(1, 1, 2), Match(2, 2, 3)), "team 2 is in two matches"),
        ((Match(1, 1, 1),), "team 1 is in two matches"),
        ((Match(1, 1, 9),), "no team 9"),
        ((Match(2, 1, 2),), "numbered 1, 2"),
        ((Match(1, 1, None), Match(2, 2, None)), "only one team may have the bye"),
    ],
)
def test_matches_that_cannot_be(matches: tuple[Match, ...], said: str) -> None:
    with pytest.raises(StateError, match=said):
        section_state().apply(MatchesPaired(SECTION, 1, matches))


@pytest.mark.parametrize(
    ("event", "said"),
    [
        (_lineup(1, 1, 2, round_number=2), "plays no match in round 2"),
        (_lineup(1, 1, 4), "not on the roster of team Team 1"),
        (_lineup(1, 1, 2, 3), "at most 2 players"),
        (_lineup(1, 1, 1), "names a player twice"),
        (LineupWithdrawn(SECTION, 1, 3), "no lineup for round 1 to take back"),
    ],
)
def test_lineups_that_cannot_apply(event: LineupSubmitted | LineupWithdrawn, said: str) -> None:
    with pytest.raises(StateError, match=said):
        _paired().apply(event)


def test_no_lineup_for_a_team_with_the_bye() -> None:
    state = section_state().apply(MatchesPaired(SECTION, 1, (Match(1, 1, 2), Match(2, 3, None))))
    with pytest.raises(StateError, match="has the bye"):
        state.apply(_lineup(3, 7, 8))


def test_no_lineup_change_once_the_boards_are_paired() -> None:
    state = _paired()
    state = state.apply(RoundPaired(SECTION, 1, compose_round(state.config, state, 1)))
    for event in (_lineup(1, 1, 2), LineupWithdrawn(SECTION, 1, 1)):
        with pytest.raises(StateError, match="already paired from the lineups"):
            state.apply(event)


def test_each_team_event_round_trips_through_the_journal_codec() -> None:
    register_all()
    events: list[TeamEvent] = [
        ROUND_ONE,
        MatchesPaired(SECTION, 2, (Match(1, 1, 3), Match(2, 4, None)), "team-swiss", "arbiter:a"),
        LineupSubmitted(SECTION, 1, 1, (1, None), AT, "captain", "last", "late: the bus"),
        LineupWithdrawn(SECTION, 1, 1, "arbiter:ana"),
    ]
    for event in events:
        assert decode(*encode(event)) == event
    state = section_state()
    folded = section_state()
    for event in events[:1] + events[2:]:
        state = state.apply(event)
        decoded = decode(*encode(event))
        assert isinstance(decoded, type(event))
        folded = folded.apply(decoded)
    assert folded.team_rounds == state.team_rounds


def _played() -> SectionState:
    """Round 1 composed: team 1 (1, 2) against team 2 (4 only), team 3 (7, 8) against
    team 4 (10, 11); results on three boards."""
    state = _paired().apply(_lineup(1, 1, 2)).apply(_lineup(2, 4))
    state = state.apply(_lineup(3, 7, 8)).apply(_lineup(4, 10, 11))
    state = state.apply(RoundPaired(SECTION, 1, compose_round(state.config, state, 1)))
    state = state.apply(ResultRecorded(SECTION, 1, 1, "1/2-1/2"))  # board 1: 1 (W) - 4
    state = state.apply(ResultRecorded(SECTION, 1, 7, "0-1"))  # board 3: 7 (W) - 10
    return state.apply(ResultRecorded(SECTION, 1, 11, "+-"))  # board 4: 11 (W) - 8


def test_the_view_says_every_board_by_team() -> None:
    view = team_view(team_section(), _played())
    assert view.boards == 2 and view.rounds == 1 and view.round_robin
    assert [t.roster for t in view.teams][1] == (4, 5, 6)
    first, second = view.matches
    assert first.match == Match(1, 1, 2) and second.round == 1
    draw, empty = first.boards
    assert (draw.first_player, draw.second_player) == (1, 4) and draw.first_is_white
    assert (draw.first_points, draw.second_points, draw.played) == (0.5, 0.5, True)
    # board 2: team 2 sent nobody; team 1's player wins by forfeit, no game
    assert (empty.first_player, empty.second_player) == (2, None)
    assert (empty.first_points, empty.second_points, empty.played) == (1.0, 0.0, False)
    loss, forfeit = second.boards
    assert (loss.first_player, loss.second_player, loss.first_points) == (7, 10, 0.0)
    # board 4: the first team has Black (odd boards White), so White is team 4's 11
    assert not forfeit.first_is_white
    assert (forfeit.first_player, forfeit.second_player) == (8, 11)
    assert (forfeit.first_points, forfeit.second_points, forfeit.played) == (0.0, 1.0, False)
    assert view.ratings[1] == 2490


def test_a_round_is_complete_when_every_board_has_a_result() -> None:
    state = _played().apply(MatchesPaired(SECTION, 2, (Match(1, 1, 3), Match(2, 2, 4))))
    view = team_view(state.config, state)
    assert view.rounds == 1 and len(view.matches) == 4
    assert view.matches[2].boards == ()  # round 2's boards not paired yet
    unfinished = _paired()
    assert team_view(unfinished.config, unfinished).rounds == 0


def test_a_team_bye_has_no_boards() -> None:
    state = section_state().apply(MatchesPaired(SECTION, 1, (Match(1, 1, 2), Match(2, 3, None))))
    state = state.apply(_lineup(1, 1, 2)).apply(_lineup(2, 4, 5))
    state = state.apply(RoundPaired(SECTION, 1, compose_round(state.config, state, 1)))
    state = state.apply(ResultRecorded(SECTION, 1, 1, "1-0"))
    state = state.apply(ResultRecorded(SECTION, 1, 5, "1-0"))
    view = team_view(state.config, state)
    assert view.matches[1].match.is_bye and view.matches[1].boards == ()
    assert view.rounds == 1


def test_no_view_of_a_section_of_individuals() -> None:
    config = dataclasses.replace(team_section(), team_rules=None, teams=())
    with pytest.raises(StateError, match="not a team section"):
        team_view(config, section_state(config))
