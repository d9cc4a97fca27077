"""A team Swiss paired through the service (issue 33): round 1 from the initial ranking,
round 2 only once round 1's games all have results (or with the override), from the teams'
records made of the section's matches and results; no two teams meet twice.

The event is tests/data/teams-swiss.toml: 6 teams of 2 boards (team t is players 3t-2 ..
3t), 3 rounds.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from broadcast.actions import ComposeTeamRound, PairTeamRound, SetResult, act
from broadcast.actions.team_swiss import swiss_records
from broadcast.config import load_event
from broadcast.fide.teams.match import Match
from broadcast.journal.store import Journal
from broadcast.service.event_service import ActionError, EventService
from clocks.timesource import ManualTime
from tests.support import acting
from tests.support.paths import ROOT

SWISS = "Swiss"


@pytest.fixture
def swiss(tmp_path: Path) -> EventService:
    config = load_event(ROOT / "tests" / "data" / "teams-swiss.toml")
    start = config.sections[0].schedule[0].start.timestamp()
    service = EventService(
        config, Journal(tmp_path / "j.sqlite"), time_source=ManualTime(start - 7200), delay=0
    )
    service.load()
    return service


def _round(service: EventService, number: int, **options: bool) -> tuple[Match, ...]:
    acting.do(service, PairTeamRound(SWISS, number, **options))  # type: ignore[arg-type]
    acting.do(service, ComposeTeamRound(SWISS, number))
    return service.tournament.section(SWISS).team_rounds.round_matches(number)


def _first_teams_win(service: EventService, number: int) -> None:
    """Every board of the round won by the team named first (White on the odd boards)."""
    for game in service.book.round_games(SWISS, number):
        result = "1-0" if game.key.board % 2 else "0-1"
        acting.do(service, SetResult(game.id, result, "resignation"))


def test_round_1_pairs_the_top_half_against_the_bottom_half(swiss: EventService) -> None:
    matches = _round(swiss, 1)
    assert sorted(tuple(sorted(m.teams())) for m in matches) == [(1, 4), (2, 5), (3, 6)]
    assert len(swiss.book.round_games(SWISS, 1)) == 6


def test_round_2_waits_for_round_1s_results_then_pairs_the_winners(swiss: EventService) -> None:
    first = _round(swiss, 1)
    with pytest.raises(ActionError, match="no result yet"):
        act(swiss, PairTeamRound(SWISS, 2), acting.BY, confirm=True)
    _first_teams_win(swiss, 1)
    records = {r.number: r for r in swiss_records(swiss.tournament.section(SWISS), 2)}
    winners = {m.first for m in first}
    assert {n for n, r in records.items() if r.match_points == 2.0} == winners
    assert all(r.first_named == (n in winners,) for n, r in records.items())
    second = _round(swiss, 2)
    met = {frozenset(m.teams()) for m in first}
    assert not met & {frozenset(m.teams()) for m in second}  # nobody meets twice
    # The top match is between two teams that won round 1.
    top = second[0]
    assert records[top.first].match_points == records[top.second or 0].match_points == 2.0


def test_the_override_pairs_before_the_results(swiss: EventService) -> None:
    _round(swiss, 1)
    done = acting.do(swiss, PairTeamRound(SWISS, 2, override=True))
    assert "team-swiss" in done.summary
