"""A team section's actions through the service (issue 33): each lineup rule refused in
words and a good lineup accepted, a late one only with the arbiter's override; a team
round paired from the Berger table with the individuals' guards; the round's boards
composed from the lineups (a fallback for a team that sent none); every action undone.

The event is tests/data/teams-league.toml: 4 clubs of 4 boards, rosters of 5 (team 1 is
players 1-5, team 2 players 6-10, ...), lineups due an hour before each round.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from broadcast.actions import (
    ComposeTeamRound,
    ConfirmationNeeded,
    PairTeamRound,
    PublishPairings,
    SubmitLineup,
    Undo,
    WithdrawLineup,
    act,
    plan_of,
)
from broadcast.actions.pairings import dutch_pairings
from broadcast.actions.undo import record_of
from broadcast.fide.pairing import Pairing
from broadcast.fide.teams.match import Match, board_of
from broadcast.journal.store import Journal
from broadcast.service.event_service import ActionError, EventService
from broadcast.tournament.changes import TeamPart, put_back_tournament
from broadcast.tournament.section import StateError
from broadcast.tournament.team_events import LineupSubmitted, MatchesPaired
from broadcast.tournament.tournament_events import RoundPaired
from clocks.timesource import ManualTime
from tests.support import acting
from tests.support.league_service import HOUR, LEAGUE, league_service, pair_teams, roster

BY = "arbiter:ana"


@pytest.fixture
def league(tmp_path: Path) -> EventService:
    """The league two hours before round 1: lineups are still in time."""
    return league_service(tmp_path)


def _paired(service: EventService, round_number: int = 1) -> tuple[Match, ...]:
    return pair_teams(service, round_number)


def _roster(team: int) -> tuple[int, ...]:
    return roster(team)


def _refused(service: EventService, command: object, *words: str) -> str:
    with pytest.raises(ActionError) as caught:
        act(service, command, BY, confirm=True)  # type: ignore[arg-type]
    said = str(caught.value)
    for word in words:
        assert word in said, said
    return said


# -- pairing the teams ----------------------------------------------------------------------------


def test_a_round_robin_round_is_paired_from_the_berger_table_with_a_preview(
    league: EventService,
) -> None:
    preview = plan_of(league, PairTeamRound(LEAGUE, 1), BY)
    assert "2 matches paired (berger)" in preview.summary
    assert all(" - " in note for note in preview.notes)  # the matches in words, named
    assert league.tournament.section(LEAGUE).team_rounds.round_matches(1) == ()  # nothing done
    matches = _paired(league)
    assert [m.number for m in matches] == [1, 2]
    assert sorted(t for m in matches for t in m.teams()) == [1, 2, 3, 4]
    _refused(league, PairTeamRound(LEAGUE, 1), "already paired")


def test_round_n_plus_1_waits_for_round_n(league: EventService) -> None:
    _refused(league, PairTeamRound(LEAGUE, 2), "round 1 is not paired")
    _paired(league)
    acting.do(league, PairTeamRound(LEAGUE, 2))  # a round robin's table follows from nothing
    assert league.tournament.section(LEAGUE).team_rounds.round_matches(2)


def test_matches_given_by_hand_are_checked(league: EventService) -> None:
    _refused(
        league,
        PairTeamRound(LEAGUE, 1, (Match(1, 1, 2), Match(2, 2, 3)), source="arbiter"),
        "plays twice",
    )
    _refused(league, PairTeamRound(LEAGUE, 1, (Match(1, 1, 9),), source="arbiter"), "team 9")
    done = acting.do(
        league, PairTeamRound(LEAGUE, 1, (Match(1, 4, 1), Match(2, 2, 3)), source="arbiter")
    )
    assert acting.journaled(done, MatchesPaired).source == "arbiter"


def test_pairing_the_teams_is_undone(league: EventService) -> None:
    done = acting.do(league, PairTeamRound(LEAGUE, 1))
    acting.do(league, Undo(done.seq))
    assert league.tournament.section(LEAGUE).team_rounds.round_matches(1) == ()
    assert _paired(league)  # and paired again


# -- lineups --------------------------------------------------------------------------------------


def _team_and_first(service: EventService) -> tuple[Match, int]:
    match = _paired(service)[0]
    return match, match.first


def test_a_lineup_in_roster_order_is_accepted_and_journaled(league: EventService) -> None:
    _, team = _team_and_first(league)
    players = _roster(team)[:4]
    done = acting.do(league, SubmitLineup(LEAGUE, 1, team, players))
    event = acting.journaled(done, LineupSubmitted)
    assert (event.players, event.by, event.override, event.fallback) == (players, acting.BY, "", "")
    assert league.tournament.section(LEAGUE).team_rounds.lineup(1, team) == event
    assert "public once the round is paired" in " ".join(done.plan.notes)


def test_a_reserve_may_play_and_empty_boards_are_at_the_bottom(league: EventService) -> None:
    _, team = _team_and_first(league)
    r = _roster(team)
    acting.do(league, SubmitLineup(LEAGUE, 1, team, (r[0], r[1], r[4], None)))
    _refused(league, SubmitLineup(LEAGUE, 1, team, (r[0], None, r[1], r[2])), "empty")


def test_a_lineup_out_of_roster_order_is_refused_in_words(league: EventService) -> None:
    _, team = _team_and_first(league)
    r = _roster(team)
    _refused(league, SubmitLineup(LEAGUE, 1, team, (r[1], r[0], r[2], r[3])), "order")
    assert league.tournament.section(LEAGUE).team_rounds.lineup(1, team) is None


def test_a_player_of_another_team_is_refused(league: EventService) -> None:
    _, team = _team_and_first(league)
    other = 1 if team != 1 else 2
    r = _roster(team)
    _refused(league, SubmitLineup(LEAGUE, 1, team, (r[0], r[1], r[2], _roster(other)[0])))


def test_too_many_players_and_unknown_teams_are_refused(league: EventService) -> None:
    _, team = _team_and_first(league)
    _refused(league, SubmitLineup(LEAGUE, 1, team, _roster(team)), "4 boards")
    _refused(league, SubmitLineup(LEAGUE, 1, 7, (1,)), "no team 7")


def test_a_late_lineup_needs_the_arbiters_override(league: EventService) -> None:
    _, team = _team_and_first(league)
    r = _roster(team)
    assert isinstance(league.time_source, ManualTime)
    league.time_source.advance(1.5 * HOUR)  # half an hour before the round: past the deadline
    _refused(league, SubmitLineup(LEAGUE, 1, team, r[:4]), "late")
    # The override lets it in late, and flags it; it does not pass another rule.
    _refused(league, SubmitLineup(LEAGUE, 1, team, (r[1], r[0]), override="traffic"), "order")
    done = acting.do(league, SubmitLineup(LEAGUE, 1, team, r[:4], override="traffic jam"))
    assert acting.journaled(done, LineupSubmitted).override == "traffic jam"
    assert "late" in done.summary


def test_a_second_lineup_replaces_the_first_after_asking_and_undo_brings_it_back(
    league: EventService,
) -> None:
    _, team = _team_and_first(league)
    r = _roster(team)
    first = acting.do(league, SubmitLineup(LEAGUE, 1, team, r[:4]))
    with pytest.raises(ConfirmationNeeded) as asked:
        act(league, SubmitLineup(LEAGUE, 1, team, (r[0], r[1], r[2], r[4])), BY)
    assert "replaces" in " ".join(asked.value.plan.removes)
    second = acting.do(league, SubmitLineup(LEAGUE, 1, team, (r[0], r[1], r[2], r[4])))
    rounds = league.tournament.section(LEAGUE).team_rounds
    assert rounds.lineup(1, team).players[3] == r[4]  # type: ignore[union-attr]
    acting.do(league, Undo(second.seq))
    back = league.tournament.section(LEAGUE).team_rounds.lineup(1, team)
    assert back == acting.journaled(first, LineupSubmitted)
    acting.do(league, Undo(first.seq))
    assert league.tournament.section(LEAGUE).team_rounds.lineup(1, team) is None


def test_a_lineup_is_taken_back_and_that_is_undone(league: EventService) -> None:
    _, team = _team_and_first(league)
    _refused(league, WithdrawLineup(LEAGUE, 1, team), "no lineup")
    acting.do(league, SubmitLineup(LEAGUE, 1, team, _roster(team)[:4]))
    gone = acting.do(league, WithdrawLineup(LEAGUE, 1, team))
    assert league.tournament.section(LEAGUE).team_rounds.lineup(1, team) is None
    acting.do(league, Undo(gone.seq))
    assert league.tournament.section(LEAGUE).team_rounds.lineup(1, team) is not None


# -- the round's boards ---------------------------------------------------------------------------


def test_the_round_is_composed_from_lineups_and_a_fallback_for_a_team_without(
    league: EventService,
) -> None:
    _refused(league, ComposeTeamRound(LEAGUE, 1), "pair the teams first")
    matches = _paired(league)
    sent = [t for m in matches for t in m.teams()][:-1]  # the last team sends none
    for team in sent:
        acting.do(league, SubmitLineup(LEAGUE, 1, team, _roster(team)[:4]))
    done = acting.do(league, ComposeTeamRound(LEAGUE, 1))
    missing = matches[-1].teams()[-1]
    fallback = acting.journaled(done, LineupSubmitted)
    assert fallback.team == missing and fallback.fallback
    assert len(fallback.players) <= 4
    paired = acting.journaled(done, RoundPaired)
    boards = {p.board for p in paired.pairings}
    assert boards == {board_of(m.number, b, 4) for m in matches for b in range(1, 5)}
    section = league.tournament.section(LEAGUE)
    assert 1 in section.rounds and len(league.book.round_games(LEAGUE, 1)) == 8
    # The lineups are the round's pairings now: they cannot change any more.
    _refused(league, SubmitLineup(LEAGUE, 1, sent[0], _roster(sent[0])[:3]), "already paired")
    _refused(league, ComposeTeamRound(LEAGUE, 1), "already paired")


def test_composing_the_round_is_undone_with_its_fallbacks(league: EventService) -> None:
    matches = _paired(league)
    team = matches[0].first
    acting.do(league, SubmitLineup(LEAGUE, 1, team, _roster(team)[:4]))
    done = acting.do(league, ComposeTeamRound(LEAGUE, 1))
    acting.do(league, Undo(done.seq))
    section = league.tournament.section(LEAGUE)
    assert 1 not in section.rounds and league.book.round_games(LEAGUE, 1) == []
    assert set(section.team_rounds.round_lineups(1)) == {team}  # the fallbacks went too


def test_the_actions_and_their_undoing_replay_after_a_restart(
    league: EventService, tmp_path: Path
) -> None:
    matches = _paired(league)
    team = matches[0].first
    acting.do(league, SubmitLineup(LEAGUE, 1, team, _roster(team)[:4]))
    done = acting.do(league, ComposeTeamRound(LEAGUE, 1))
    acting.do(league, Undo(done.seq))
    acting.do(league, ComposeTeamRound(LEAGUE, 1))
    again = EventService(
        league.config,
        Journal(tmp_path / "j.sqlite"),
        time_source=ManualTime(league.time_source.now()),
        delay=0,
    )
    again.load()
    assert again.tournament == league.tournament
    assert again.book.round_games(LEAGUE, 1) == league.book.round_games(LEAGUE, 1)


def test_the_matches_are_not_undone_under_their_lineups(league: EventService) -> None:
    paired = acting.do(league, PairTeamRound(LEAGUE, 1))
    team = league.tournament.section(LEAGUE).team_rounds.round_matches(1)[0].first
    lineup = acting.do(league, SubmitLineup(LEAGUE, 1, team, _roster(team)[:4]))
    _refused(league, Undo(paired.seq), "has a lineup for round 1")
    acting.do(league, Undo(lineup.seq))
    acting.do(league, Undo(paired.seq))
    assert league.tournament.section(LEAGUE).team_rounds.round_matches(1) == ()


# -- a team round is not paired player by player --------------------------------------------------


def test_an_individual_pairing_of_a_team_round_is_refused_saying_what_to_do(
    league: EventService,
) -> None:
    """By hand or from the Dutch engine, an ordinary RoundPaired would leave the round
    without matches, its boards matching no lineup: refused, naming the team steps."""
    by_hand = (Pairing(1, 1, 6), Pairing(2, 7, 2))
    for source in ("arbiter", "dutch"):
        said = _refused(
            league,
            PublishPairings(LEAGUE, 1, by_hand, source),
            "is a team section",
            "Pair the teams",
            "lineups",
            "team TRF",
        )
        assert "round 1" in said
    with pytest.raises(ActionError, match="team section"):
        dutch_pairings(league.tournament.section(LEAGUE), 1)
    assert 1 not in league.tournament.section(LEAGUE).rounds
    assert not list(league.journal.read_kinds(0, league.journal.last_seq(), ("RoundPaired",)))
    # Once composed, its pairings are not edited by hand either.
    _paired(league)
    acting.do(league, ComposeTeamRound(LEAGUE, 1))
    _refused(league, PublishPairings(LEAGUE, 1, by_hand, "arbiter"), "is a team section")


# -- a paired round's lineups stay ----------------------------------------------------------------


def test_a_lineup_is_not_undone_under_its_rounds_boards(league: EventService) -> None:
    matches = _paired(league)
    team = matches[0].first
    lineup = acting.do(league, SubmitLineup(LEAGUE, 1, team, _roster(team)[:4]))
    boards = acting.do(league, ComposeTeamRound(LEAGUE, 1))
    said = _refused(league, Undo(lineup.seq), "paired board by board", "boards first")
    assert f"action {boards.seq}" in said  # the action to undo first, named
    assert league.tournament.section(LEAGUE).team_rounds.lineup(1, team) is not None
    acting.do(league, Undo(boards.seq))
    acting.do(league, Undo(lineup.seq))  # boards first, then the lineup
    assert league.tournament.section(LEAGUE).team_rounds.lineup(1, team) is None


def test_a_replaced_lineup_does_not_come_back_under_the_boards(league: EventService) -> None:
    """The lineup undone would bring back the one it replaced: the boards would match
    neither."""
    matches = _paired(league)
    team = matches[0].first
    r = _roster(team)
    acting.do(league, SubmitLineup(LEAGUE, 1, team, r[:4]))
    second = acting.do(league, SubmitLineup(LEAGUE, 1, team, (r[0], r[1], r[2], r[4])))
    acting.do(league, ComposeTeamRound(LEAGUE, 1))
    _refused(league, Undo(second.seq), "boards first")
    assert league.tournament.section(LEAGUE).team_rounds.lineup(1, team).players[3] == r[4]  # type: ignore[union-attr]


def test_a_withdrawal_is_not_undone_under_the_boards(league: EventService) -> None:
    """The team's lineup taken back, the boards paired with its fallback: undoing the
    withdrawal would put the lineup back beside boards made without it."""
    matches = _paired(league)
    team = matches[0].first
    acting.do(league, SubmitLineup(LEAGUE, 1, team, _roster(team)[:4]))
    gone = acting.do(league, WithdrawLineup(LEAGUE, 1, team))
    acting.do(league, ComposeTeamRound(LEAGUE, 1))
    _refused(league, Undo(gone.seq), "boards first")


def test_the_state_keeps_a_paired_rounds_lineups(league: EventService) -> None:
    """The rule is the state's too (`put_back_tournament`): whatever asks, a lineup of a
    round paired board by board is not put back while the boards stay."""
    matches = _paired(league)
    team = matches[0].first
    lineup = acting.do(league, SubmitLineup(LEAGUE, 1, team, _roster(team)[:4]))
    acting.do(league, ComposeTeamRound(LEAGUE, 1))
    record = record_of(league, lineup.seq)
    parts = [c for c in record.changes if isinstance(c, TeamPart)]
    assert parts
    with pytest.raises(StateError, match="lineup stays"):
        put_back_tournament(league.tournament, parts)
