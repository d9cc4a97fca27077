"""A small team section for the tests of the team spine (config, fold, lineups, boards):
4 teams of 2 boards with rosters of 3 (the third a reserve), a team round robin of 3
rounds whose lineups are due an hour before each round; players 1-3 play for team 1,
4-6 for team 2, and so on. `section_state` is the section's state with the players
registered and nothing else."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

from broadcast.config import load_event_text
from broadcast.config.model import EventConfig, SectionConfig
from broadcast.tournament.tournament_events import PlayersRegistered
from broadcast.tournament.tournament_state import SectionState, TournamentState

__all__ = ["ROUND_1", "SECTION", "roster", "section_state", "team_section"]

SECTION = "Division"
ROUND_1 = dt.datetime(2026, 3, 7, 17, 0, tzinfo=ZoneInfo("Europe/Madrid"))

_TEXT = """\
[event]
name = "League"
timezone = "Europe/Madrid"

[[section]]
name = "Division"
system = "{system}"
rounds = 3
time_control = "5400+30"

[section.teams]
boards = 2
lineup_deadline_minutes = 60
missing_lineup = "{missing}"
first_team_white = "{colours}"

[[section.schedule]]
round = 1
date = 2026-03-07
time = 17:00:00

[[section.schedule]]
round = 2
date = 2026-03-14
time = 17:00:00

[[section.schedule]]
round = 3
date = 2026-03-21
time = 17:00:00
"""


def roster(team: int) -> tuple[int, int, int]:
    """The team's players in board order (the third a reserve)."""
    first = 3 * (team - 1) + 1
    return (first, first + 1, first + 2)


def team_section(
    *, missing: str = "last", colours: str = "odd", system: str = "round-robin", teams: int = 4
) -> SectionConfig:
    """The section's config, through the loader (so it is a valid one)."""
    text = _TEXT.format(missing=missing, colours=colours, system=system)
    for team in range(1, teams + 1):
        text += f'\n[[section.team]]\nnumber = {team}\nname = "Team {team}"\n'
        text += f"roster = {list(roster(team))}\n"
    for player in range(1, 3 * teams + 1):
        text += f'\n[[section.player]]\nname = "Player, {player:02d}"\n'
        text += f"rating = {2500 - 10 * player}\n"
    return load_event_text(text, "/tmp/league.toml").sections[0]


def section_state(config: SectionConfig | None = None) -> SectionState:
    """The section's state with its players registered and nothing else."""
    section = config or team_section()
    event = EventConfig("League", "", "Europe/Madrid", 0, 2024, "confirm", (section,), ())
    state = TournamentState.new(event).section(section.name)
    return state.apply(PlayersRegistered(section.name, section.players))
