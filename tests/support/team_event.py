"""A team event for the pages' tests: the league of tests/data/teams-league.toml (4 clubs
of 4 boards, rosters of 5: team t is players 5t-4 .. 5t), its clubs given long names (the
pages must still fit), round 1 paired as the spine pairs it: the Berger matches
(`MatchesPaired`), each team's lineup (its first four), and the boards the spine composes
from them (`compose_round`: board numbers `board_of`, colours from `first_team_white`).

    service, clock = team_service(tmp_path)                  # round 1 paired, nothing played
    service, clock = team_service(tmp_path, colours="even")  # the first team Black on board 1
    pair_round(service, 2)                                   # round 2 paired the same way
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from broadcast.config import load_event_text
from broadcast.config.model import EventConfig, TeamColours
from broadcast.fide.teams.berger import team_berger_round
from broadcast.journal.store import Journal
from broadcast.service.event_service import EventService
from broadcast.tournament.team_events import LineupSubmitted, MatchesPaired
from broadcast.tournament.team_rounds import compose_round
from broadcast.tournament.tournament_events import RoundPaired
from clocks.timesource import ManualTime
from tests.support.paths import ROOT

__all__ = [
    "FIRST",
    "FOURTH",
    "LEAGUE_TOML",
    "SECOND",
    "SECTION",
    "SLUG",
    "THIRD",
    "game_id",
    "pair_round",
    "team_config",
    "team_service",
    "team_toml",
]

LEAGUE_TOML = ROOT / "tests" / "data" / "teams-league.toml"
SECTION = "League"
SLUG = "league"

# The league's clubs by number, with long names; round 1 (Berger) is 1-4 and 2-3.
FIRST = "Arrasate Xake Taldea Txaparrotarrak Gazteak"
SECOND = "Bilboko Xake Kluba Zaharrena Bizkaiko Ligan"
THIRD = "Donostia Kutxa Xake Elkartea Gipuzkoakoa"
FOURTH = "Gasteizko Zuhaitz Xake Taldea Arabakoa"
NAMES = {
    '"Arrasate Xake Taldea"': FIRST,
    '"Bilbo Xake Kluba"': SECOND,
    '"Donostia Kutxa"': THIRD,
    '"Gasteiz Zuhaitz"': FOURTH,
}


def game_id(board: int, round_number: int = 1) -> str:
    """The id of the section board's game (match m's board b is board 4(m-1)+b)."""
    return f"{SLUG}-r{round_number}-b{board}"


def team_config(colours: TeamColours = "odd", *, min_games: int = 0) -> EventConfig:
    """The league with long club names; the team named first has White on the `colours`
    boards of its match; `min_games` games needed for a board prize."""
    return load_event_text(team_toml(colours, min_games=min_games), LEAGUE_TOML)


def team_toml(colours: TeamColours = "odd", *, min_games: int = 0) -> str:
    """The text of `team_config`'s league (to write it where a command reads it)."""
    text = LEAGUE_TOML.read_text(encoding="utf-8")
    for old, new in NAMES.items():
        assert old in text, f"the league no longer has the club {old}"
        text = text.replace(old, f'"{new}"')
    rule = 'first_team_white = "odd"'
    assert rule in text, "the league no longer says which boards the first team has White on"
    chosen = f'first_team_white = "{colours}"'
    return text.replace(rule, f"{chosen}\nboard_prize_min_games = {min_games}")


def team_service(
    tmp: Path, *, delay: float = 0.0, colours: TeamColours = "odd", min_games: int = 0
) -> tuple[EventService, ManualTime]:
    """The league's service on virtual time at round 1's start, its boards paired."""
    config = team_config(colours, min_games=min_games)
    section = config.sections[0]
    clock = ManualTime(section.round_start(1).start.timestamp())
    service = EventService(
        config, Journal(tmp / "journal.sqlite"), time_source=clock, live_round=1, delay=delay
    )
    service.load()
    pair_round(service, 1)
    return service, clock


def pair_round(service: EventService, round_number: int) -> None:
    """Pair the round as the spine does: its Berger matches, every team's lineup (its
    first four, sent before the deadline), the boards composed from them."""
    section = service.config.sections[0]
    matches = team_berger_round(len(section.teams), round_number)
    service.commit([MatchesPaired(SECTION, round_number, matches, "berger")])
    # Sent before the deadline (an hour before the round).
    sent = section.round_start(round_number).start - dt.timedelta(hours=2)
    service.commit(
        [
            LineupSubmitted(SECTION, round_number, team.number, team.roster[:4], sent, "captain")
            for team in section.teams
        ]
    )
    pairings = compose_round(section, service.tournament.section(SECTION), round_number)
    service.commit([RoundPaired(SECTION, round_number, pairings, "lineups")])
