"""A team round imported from the pairing program's TRF (issue 33): the TRF our own export
writes of a played team round imports back, into another event, to the same matches,
lineups and boards; a team of the file that is none of the section's is refused in words;
the import is undone as one action.

The event is tests/data/teams-league.toml: 4 clubs of 4 boards, rosters of 5 (team 1 is
players 1-5, team 2 players 6-10, ...).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from broadcast.actions import PairTeamRound, Undo, act
from broadcast.actions.team_import import ImportTeamRound
from broadcast.service.event_service import ActionError, EventService
from tests.support import acting
from tests.support.league_service import LEAGUE, league_service
from tests.support.team_trf import played_round_trf, unknown_team

BY = "arbiter:ana"


def _folder(tmp_path: Path, name: str) -> Path:
    (tmp_path / name).mkdir()
    return tmp_path / name


@pytest.fixture
def played(tmp_path: Path) -> tuple[EventService, str]:
    return played_round_trf(tmp_path / "played")


def test_our_export_of_a_played_round_imports_back_to_the_same_round(
    tmp_path: Path, played: tuple[EventService, str]
) -> None:
    source, trf = played
    fresh = league_service(_folder(tmp_path, "fresh"))
    done = acting.do(fresh, ImportTeamRound(LEAGUE, 1, trf))
    was, now = source.tournament.section(LEAGUE), fresh.tournament.section(LEAGUE)
    assert now.team_rounds.round_matches(1) == was.team_rounds.round_matches(1)
    for team in (1, 2, 3, 4):
        assert now.team_rounds.lineup(1, team).players == was.team_rounds.lineup(1, team).players  # type: ignore[union-attr]
    assert now.team_rounds.lineup(3, 1) is None
    assert now.rounds[1].pairings == was.rounds[1].pairings
    assert "2 matches" in done.summary and "7 games" in done.summary


def test_a_team_is_matched_by_roster_when_the_program_names_it_otherwise(
    tmp_path: Path, played: tuple[EventService, str]
) -> None:
    _, trf = played
    renamed = trf.replace("Arrasate Xake Taldea", "Arrasate XT renamed".ljust(20))
    fresh = league_service(_folder(tmp_path, "fresh"))
    acting.do(fresh, ImportTeamRound(LEAGUE, 1, renamed))
    assert fresh.tournament.section(LEAGUE).team_rounds.lineup(1, 1).players == (1, 2, 3, 4)  # type: ignore[union-attr]


def test_a_team_the_section_does_not_have_is_refused_in_words(
    tmp_path: Path, played: tuple[EventService, str]
) -> None:
    _, trf = played
    fresh = league_service(_folder(tmp_path, "fresh"))
    with pytest.raises(ActionError) as caught:
        act(fresh, ImportTeamRound(LEAGUE, 1, unknown_team(trf)), BY, confirm=True)
    said = str(caught.value)
    assert "Mondragon Unknown" in said and "none of the section's teams" in said, said
    state = fresh.tournament.section(LEAGUE)
    assert not state.team_rounds.round_matches(1) and 1 not in state.rounds


def test_a_file_without_team_records_is_refused(
    tmp_path: Path, played: tuple[EventService, str]
) -> None:
    _, trf = played
    bare = "\n".join(x for x in trf.splitlines() if not x.startswith("013")) + "\n"
    fresh = league_service(_folder(tmp_path, "fresh"))
    with pytest.raises(ActionError, match="no team record"):
        act(fresh, ImportTeamRound(LEAGUE, 1, bare), BY, confirm=True)


def test_a_round_whose_matches_are_in_already_is_refused(
    tmp_path: Path, played: tuple[EventService, str]
) -> None:
    _, trf = played
    fresh = league_service(_folder(tmp_path, "fresh"))
    acting.do(fresh, PairTeamRound(LEAGUE, 1))
    with pytest.raises(ActionError, match="already paired"):
        act(fresh, ImportTeamRound(LEAGUE, 1, trf), BY, confirm=True)


def test_the_import_is_undone_as_one_action(
    tmp_path: Path, played: tuple[EventService, str]
) -> None:
    _, trf = played
    fresh = league_service(_folder(tmp_path, "fresh"))
    done = acting.do(fresh, ImportTeamRound(LEAGUE, 1, trf))
    acting.do(fresh, Undo(done.seq))
    state = fresh.tournament.section(LEAGUE)
    assert not state.team_rounds.round_matches(1)
    assert all(state.team_rounds.lineup(1, t) is None for t in (1, 2, 3, 4))
    assert 1 not in state.rounds
    # and it can be imported again after the undo
    acting.do(fresh, ImportTeamRound(LEAGUE, 1, trf))
    assert fresh.tournament.section(LEAGUE).rounds[1].pairings
