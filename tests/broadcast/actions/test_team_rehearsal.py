"""A rehearsal's team round (`actions.team_rehearsal`): the teams paired, then the boards
composed from the lineups in and the fallback for the rest, through the door; the Dutch
shortcut for individuals leaves a team section alone."""

from __future__ import annotations

from pathlib import Path

from broadcast.actions import PairTeamRound, SubmitLineup
from broadcast.actions.pairings import pair_unpaired
from broadcast.actions.team_rehearsal import pair_teams_unpaired
from broadcast.fide.teams.berger import team_berger_round
from broadcast.service.event_service import EventService
from tests.support import acting
from tests.support.league_service import LEAGUE, league_service, roster

SAID = (
    f"{LEAGUE} round 1 was not paired: paired the teams with the team Berger table: "
    "2 matches; composed its boards from the teams' lineups, the fallback rule (last) for "
    "those that sent none (8 games)"
)


def _started(tmp: Path) -> EventService:
    return league_service(tmp, before_start=-60.0)  # round 1 started a minute ago


def test_an_unpaired_team_round_is_paired_team_by_team(tmp_path: Path) -> None:
    service = _started(tmp_path)
    assert service.unpaired_rounds() == {LEAGUE: 1}
    assert pair_unpaired(service, "serve --sim") == []  # the Dutch is for individuals
    assert service.unpaired_rounds() == {LEAGUE: 1}

    assert pair_teams_unpaired(service, "serve --sim") == [SAID]
    state = service.tournament.section(LEAGUE)
    assert state.team_rounds.round_matches(1) == team_berger_round(4, 1, 1)
    for team in range(1, 5):
        lineup = state.team_rounds.lineup(1, team)
        assert lineup is not None and lineup.fallback and lineup.by == "serve --sim"
        assert lineup.players == roster(team)[:4]
    assert len(service.book.round_games(LEAGUE, 1)) == 8
    assert service.unpaired_rounds() == {}
    assert pair_teams_unpaired(service, "again") == []  # nothing left to pair


def test_teams_paired_at_the_desk_keep_their_matches_and_lineups(tmp_path: Path) -> None:
    service = _started(tmp_path)
    acting.do(service, PairTeamRound(LEAGUE, 1))
    sent = (roster(1)[0], roster(1)[2], roster(1)[4])  # the reserve on 3, board 4 empty
    acting.do(service, SubmitLineup(LEAGUE, 1, 1, sent, override="came in late"))
    (said,) = pair_teams_unpaired(service, "serve --sim")
    assert said.startswith(f"{LEAGUE} round 1 was not paired: composed its boards")
    state = service.tournament.section(LEAGUE)
    lineup = state.team_rounds.lineup(1, 1)
    assert lineup is not None and lineup.players == sent and not lineup.fallback
    assert sum(1 for p in state.rounds[1].pairings if p.black is not None) == 7


def test_the_pairing_is_undone_like_the_arbiters(tmp_path: Path) -> None:
    service = _started(tmp_path)
    pair_teams_unpaired(service, "serve --sim")
    composed, paired = service.action_log.recent(2)
    assert (composed.kind, paired.kind) == ("team-round", "team-pairings")
    assert composed.by == paired.by == "serve --sim"
    acting.undo(service, composed.seq)  # the boards and the fallback lineups go
    state = service.tournament.section(LEAGUE)
    assert 1 not in state.rounds and state.team_rounds.lineup(1, 1) is None
    assert state.team_rounds.round_matches(1)  # the matches stay until undone too
    assert pair_teams_unpaired(service, "again")[0].startswith(
        f"{LEAGUE} round 1 was not paired: composed its boards"
    )
