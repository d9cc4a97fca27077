"""A team round's boards from its matches and lineups: numbers, colours, empty boards,
the team bye, and the fallback lineups to journal first."""

from __future__ import annotations

import datetime as dt

import pytest

from broadcast.fide.crosstable import ResultCode
from broadcast.fide.pairing import Pairing
from broadcast.fide.teams.match import Match
from broadcast.tournament.section import StateError
from broadcast.tournament.team_events import LineupSubmitted, MatchesPaired
from broadcast.tournament.team_rounds import (
    EMPTY_BOARD_CODE,
    bye_codes,
    compose_round,
    empty_board_code,
    fallback_lineups,
    lineup_of,
)
from broadcast.tournament.tournament_events import PlayerWithdrawn, RoundPaired
from broadcast.tournament.tournament_state import SectionState
from tests.support.team_section import ROUND_1, SECTION, section_state, team_section

AT = ROUND_1 - dt.timedelta(hours=2)
MATCHES = MatchesPaired(SECTION, 1, (Match(1, 1, 2), Match(2, 4, 3)))


def _lineups(state: SectionState, **teams: tuple[int | None, ...]) -> SectionState:
    for name, players in teams.items():
        state = state.apply(LineupSubmitted(SECTION, 1, int(name[1:]), players, AT))
    return state


def test_boards_are_numbered_by_match_and_coloured_by_the_rules() -> None:
    state = _lineups(section_state().apply(MATCHES), t1=(1, 2), t2=(4, 5), t3=(7, 8), t4=(10, 11))
    assert compose_round(state.config, state, 1) == (
        Pairing(1, 1, 4),  # match 1 board 1: the first team (1) White on odd boards
        Pairing(2, 5, 2),
        Pairing(3, 10, 7),  # match 2: team 4 named first
        Pairing(4, 8, 11),
    )


def test_even_boards_white() -> None:
    config = team_section(colours="even")
    state = _lineups(section_state(config).apply(MATCHES), t1=(1, 2), t2=(4, 5))
    state = _lineups(state, t3=(7, 8), t4=(10, 11))
    assert compose_round(config, state, 1)[:2] == (Pairing(1, 4, 1), Pairing(2, 2, 5))


def test_an_empty_board_is_a_forfeit_win_with_no_game() -> None:
    state = _lineups(section_state().apply(MATCHES), t1=(1,), t2=(4, 5), t3=(), t4=(10,))
    pairings = compose_round(state.config, state, 1)
    # board 2: team 1 sent one player; team 2's 5 faces nobody. Board 4: nobody either side.
    assert pairings == (Pairing(1, 1, 4), Pairing(2, 5, None), Pairing(3, 10, None))
    paired = state.apply(RoundPaired(SECTION, 1, pairings))
    assert paired.rounds[1].bye_codes == {5: EMPTY_BOARD_CODE, 10: EMPTY_BOARD_CODE}
    table = paired.to_crosstable()
    assert table.entry(5, 1).result is ResultCode.FULL_BYE  # a point, unplayed (TRF "+" in 013)
    assert table.score(5) == 1.0


def test_the_pairing_bye_of_individuals_stays_u() -> None:
    config = team_section()
    assert empty_board_code(config, Pairing(0, 3, None)) == "U"
    assert empty_board_code(config, Pairing(2, 3, None)) == "F"
    assert bye_codes(config, (Pairing(1, 1, 2), Pairing(2, 3, None))) == {3: "F"}


def test_a_team_bye_pairs_none_of_its_players() -> None:
    matches = MatchesPaired(SECTION, 1, (Match(1, 1, 2), Match(2, 3, None)))
    state = _lineups(section_state().apply(matches), t1=(1, 2), t2=(4, 5))
    pairings = compose_round(state.config, state, 1)
    assert pairings == (Pairing(1, 1, 4), Pairing(2, 5, 2))
    paired = state.apply(RoundPaired(SECTION, 1, pairings))
    table = paired.to_crosstable()
    assert table.entry(7, 1).result is ResultCode.ZERO_BYE  # unpaired: Z in the individual record


def test_missing_lineups_fall_back() -> None:
    state = _lineups(section_state().apply(MATCHES), t1=(1, 3))
    assert lineup_of(state.config, state, 1, 1) == (1, 3)
    assert lineup_of(state.config, state, 1, 2) == (4, 5)  # no earlier lineup: strongest
    events = fallback_lineups(state.config, state, 1, AT)
    assert [(e.team, e.players, e.fallback, e.by) for e in events] == [
        (2, (4, 5), "strongest", "rules"),
        (4, (10, 11), "strongest", "rules"),
        (3, (7, 8), "strongest", "rules"),
    ]
    for event in events:
        state = state.apply(event)
    assert fallback_lineups(state.config, state, 1, AT) == ()
    assert compose_round(state.config, state, 1)[0] == Pairing(1, 1, 4)


def test_compose_needs_the_matches_and_only_once() -> None:
    with pytest.raises(StateError, match="round 1's matches are not paired yet"):
        compose_round(team_section(), section_state(), 1)
    state = section_state().apply(MATCHES)
    state = state.apply(RoundPaired(SECTION, 1, compose_round(state.config, state, 1)))
    with pytest.raises(StateError, match="round 1's boards are already paired"):
        compose_round(state.config, state, 1)


def test_a_player_out_since_the_lineup_leaves_the_board_empty() -> None:
    state = _lineups(section_state().apply(MATCHES), t1=(1, 2), t2=(4, 5), t3=(7, 8))
    state = _lineups(state, t4=(10, 11)).apply(PlayerWithdrawn(SECTION, 2, 1, "ill"))
    pairings = compose_round(state.config, state, 1)
    assert pairings[:2] == (Pairing(1, 1, 4), Pairing(2, 5, None))
    state.apply(RoundPaired(SECTION, 1, pairings))  # the fold takes it: nobody out is paired
