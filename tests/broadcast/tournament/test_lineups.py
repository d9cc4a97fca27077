"""A team's lineup: each rule refused in words and kept, and the fallback lineups."""

from __future__ import annotations

import dataclasses
import datetime as dt

import pytest

from broadcast.fide.teams.match import Match
from broadcast.tournament.lineups import (
    LineupRefused,
    available,
    check_lineup,
    fallback_lineup,
    lineup_deadline,
)
from broadcast.tournament.section import StateError
from broadcast.tournament.team_events import LineupSubmitted, MatchesPaired
from broadcast.tournament.team_rounds import compose_round
from broadcast.tournament.tournament_events import ByeGranted, PlayerWithdrawn, RoundPaired
from broadcast.tournament.tournament_state import SectionState
from tests.support.team_section import ROUND_1, SECTION, section_state, team_section

EARLY = ROUND_1 - dt.timedelta(hours=2)


def _state(*more: MatchesPaired) -> SectionState:
    state = section_state().apply(MatchesPaired(SECTION, 1, (Match(1, 1, 2), Match(2, 3, 4))))
    for event in more:
        state = state.apply(event)
    return state


def _check(
    players: tuple[int | None, ...],
    *,
    team: int = 1,
    at: dt.datetime = EARLY,
    state: SectionState | None = None,
    override: str = "",
    round_number: int = 1,
) -> None:
    here = state or _state()
    check_lineup(here.config, here, round_number, team, players, at, override=override)


@pytest.mark.parametrize(
    "players",
    [(1, 2), (1, 3), (2, 3), (1, None), (3,), (), (None, None)],
)
def test_lineups_in_roster_order_are_accepted(players: tuple[int | None, ...]) -> None:
    _check(players)


@pytest.mark.parametrize(
    ("players", "said"),
    [
        ((1, 4), "player 4 plays for team Team 2, not for Team 1: a player may play for one"),
        ((1, 13), "player 13 is not on the roster of team Team 1"),
        ((1, 1), "player 1 is named twice"),
        ((2, 1), "breaks the roster's order: player 1 is above player 2"),
        ((3, 2), "breaks the roster's order: player 2 is above player 3"),
        ((None, 2), "board 1 is empty above board 2"),
        ((1, 2, 3), "names 3 players for 2 boards"),
    ],
)
def test_each_rule_is_refused_in_words(players: tuple[int | None, ...], said: str) -> None:
    with pytest.raises(LineupRefused, match=said) as refused:
        _check(players)
    assert refused.value.phrase is not None  # said as a phrase, for the desk's languages
    assert isinstance(refused.value, StateError)  # the door refuses it like any state error


def test_a_late_lineup_is_refused_unless_the_arbiter_passes_it() -> None:
    due = lineup_deadline(team_section(), 1)
    assert due == ROUND_1 - dt.timedelta(minutes=60)
    _check((1, 2), at=due)  # on the deadline: in time
    with pytest.raises(LineupRefused, match="late: round 1's lineups were due by 2026-03-07 16:00"):
        _check((1, 2), at=due + dt.timedelta(seconds=1))
    with pytest.raises(LineupRefused, match="late"):
        _check((1, 2), at=due + dt.timedelta(minutes=5), override="   ")
    _check((1, 2), at=due + dt.timedelta(minutes=5), override="the captain's bus was late")
    # the other rules have no override
    with pytest.raises(LineupRefused, match="roster's order"):
        _check((2, 1), override="please")


def test_the_deadline_follows_a_moved_round() -> None:
    moved = {(SECTION, 1): ROUND_1 + dt.timedelta(hours=1)}
    assert lineup_deadline(team_section(), 1, moved) == ROUND_1
    state = _state()
    check_lineup(state.config, state, 1, 1, (1, 2), ROUND_1, moved=moved)


def test_a_withdrawn_player_is_refused() -> None:
    state = _state().apply(PlayerWithdrawn(SECTION, 2, 1, "illness"))
    with pytest.raises(LineupRefused, match="player 2 cannot play in round 1: "):
        _check((1, 2), state=state)
    _check((1, 3), state=state)
    assert not available(state, 1, 2) and available(state, 1, 3)


def test_a_player_on_a_bye_is_refused() -> None:
    state = _state().apply(ByeGranted(SECTION, 1, 2, EARLY))
    with pytest.raises(LineupRefused, match="player 2 has a bye in round 1"):
        _check((1, 2), state=state)


def test_no_lineup_once_the_round_is_released() -> None:
    state = _state()
    state = state.apply(RoundPaired(SECTION, 1, compose_round(state.config, state, 1)))
    with pytest.raises(LineupRefused, match="already paired and released"):
        _check((1, 2), state=state)


def test_no_lineup_without_a_match() -> None:
    with pytest.raises(LineupRefused, match="plays no match in round 2"):
        _check((1, 2), round_number=2)
    state = section_state().apply(MatchesPaired(SECTION, 1, (Match(1, 1, 2), Match(2, 3, None))))
    with pytest.raises(LineupRefused, match="has the bye"):
        _check((7, 8), team=3, state=state)
    with pytest.raises(LineupRefused, match="no team 9"):
        _check((1, 2), team=9)
    plain = dataclasses.replace(team_section(), team_rules=None, teams=())
    with pytest.raises(LineupRefused, match="not a team section"):
        check_lineup(plain, section_state(plain), 1, 1, (1, 2), EARLY)


def test_the_fallback_is_the_last_lineup() -> None:
    state = _state().apply(LineupSubmitted(SECTION, 1, 1, (1, 3), EARLY))
    state = state.apply(MatchesPaired(SECTION, 2, (Match(1, 1, 3), Match(2, 4, 2))))
    assert fallback_lineup(state.config, state, 2, 1) == ((1, 3), "last")
    # a player of the last lineup who is out leaves the board to the one below
    out = state.apply(PlayerWithdrawn(SECTION, 1, 2, "left"))
    assert fallback_lineup(out.config, out, 2, 1) == ((3,), "last")


def test_without_a_last_lineup_the_strongest_play() -> None:
    state = _state()
    assert fallback_lineup(state.config, state, 1, 2) == ((4, 5), "strongest")
    out = state.apply(PlayerWithdrawn(SECTION, 4, 1, "left"))
    assert fallback_lineup(out.config, out, 1, 2) == ((5, 6), "strongest")


def test_the_strongest_rule() -> None:
    config = team_section(missing="strongest")
    state = section_state(config).apply(MatchesPaired(SECTION, 1, (Match(1, 1, 2),)))
    state = state.apply(LineupSubmitted(SECTION, 1, 1, (2, 3), EARLY))
    state = state.apply(MatchesPaired(SECTION, 2, (Match(1, 2, 1),)))
    assert fallback_lineup(config, state, 2, 1) == ((1, 2), "strongest")
