"""Test helper: the team league of tests/data/teams-league.toml run by a service on virtual
time (4 clubs of 4 boards, rosters of 5: team t is players 5t-4 .. 5t), for the tests of the
team actions, the team rules at runtime and the arbiter's team routes.

    service = league_service(tmp_path)                 # two hours before round 1
    matches = pair_teams(service)                      # round 1's matches (Berger)
    compose(service, {team: lineup, ...})              # lineups in, the boards paired
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from broadcast.actions import ComposeTeamRound, PairTeamRound, SubmitLineup
from broadcast.config import load_event
from broadcast.config.model import EventConfig
from broadcast.fide.teams.match import Match
from broadcast.journal.store import Journal
from broadcast.service.event_service import EventService
from clocks.timesource import ManualTime
from tests.support import acting
from tests.support.paths import ROOT

__all__ = [
    "HOUR",
    "LEAGUE",
    "LEAGUE_TOML",
    "compose",
    "league_config",
    "league_service",
    "pair_teams",
    "roster",
    "round_start",
]

LEAGUE_TOML = ROOT / "tests" / "data" / "teams-league.toml"
LEAGUE = "League"
HOUR = 3600.0


def league_config() -> EventConfig:
    return load_event(LEAGUE_TOML)


def round_start(service: EventService, round_number: int = 1) -> float:
    return service.config.sections[0].round_start(round_number).start.timestamp()


def league_service(
    folder: Path, *, before_start: float = 2 * HOUR, config: EventConfig | None = None
) -> EventService:
    """The league `before_start` seconds before round 1 (lineups due an hour before)."""
    config = config or league_config()
    start = config.sections[0].schedule[0].start.timestamp()
    service = EventService(
        config,
        Journal(folder / "j.sqlite"),
        time_source=ManualTime(start - before_start),
        delay=0,
    )
    service.load()
    return service


def roster(team: int) -> tuple[int, ...]:
    return tuple(range(5 * team - 4, 5 * team + 1))


def pair_teams(
    service: EventService, round_number: int = 1, *, section: str = LEAGUE
) -> tuple[Match, ...]:
    """Round `round_number`'s matches by the section's own pairing (PairTeamRound)."""
    acting.do(service, PairTeamRound(section, round_number))
    return service.tournament.section(section).team_rounds.round_matches(round_number)


def compose(
    service: EventService,
    lineups: Mapping[int, tuple[int | None, ...]],
    round_number: int = 1,
    *,
    section: str = LEAGUE,
) -> None:
    """The teams' lineups (the others fall back), then the round's boards."""
    for team, players in lineups.items():
        acting.do(service, SubmitLineup(section, round_number, team, players))
    acting.do(service, ComposeTeamRound(section, round_number))
