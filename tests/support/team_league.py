"""Test helper: a small team league as a section config and a folded state (the tournament
tests of lineups, team rounds and the team view).

4 teams of 2 boards, rosters of 3 (team t is players 3t-2 .. 3t, in board order), a round
robin of 3 rounds; lineups due an hour before each round; round 1 starts at `ROUND_1`.

    config = league(colours="even", missing="strongest")
    state = league_state(config).apply(MatchesPaired(SECTION, 1, ...))

(Rewritten by the "actions" helper of issue 33, who overwrote the spine helper's file of
the same name by mistake: the names the tests import are as before.)
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from zoneinfo import ZoneInfo

from broadcast.config.loader import load_event_text
from broadcast.config.model import MissingLineup, SectionConfig, TeamColours
from broadcast.tournament.tournament_events import PlayersRegistered
from broadcast.tournament.tournament_state import SectionState

__all__ = ["ROUND_1", "SECTION", "league", "league_state"]

SECTION = "League"
ROUND_1 = dt.datetime(2026, 3, 7, 17, 0, tzinfo=ZoneInfo("Europe/Madrid"))

_TEAMS = ("Arrasate", "Bilbo", "Donostia", "Gasteiz")

_TOML = (
    """
[event]
name = "Team league (tests)"
site = "Bilbao"
timezone = "Europe/Madrid"
broadcast_delay_seconds = 0

[[section]]
name = "League"
system = "round-robin"
rounds = 3
time_control = "5400+30"
default_time_minutes = 30
tiebreaks = []

[section.teams]
boards = 2
lineup_deadline_minutes = 60

"""
    + "".join(
        f"""
[[section.schedule]]
round = {r}
date = 2026-03-{7 * r:02d}
time = 17:00:00
"""
        for r in (1, 2, 3)
    )
    + "".join(
        f"""
[[section.team]]
number = {t}
name = "{name}"
federation = "ESP"
roster = [{3 * t - 2}, {3 * t - 1}, {3 * t}]
"""
        for t, name in enumerate(_TEAMS, start=1)
    )
    + "".join(
        f"""
[[section.player]]
number = {n}
name = "Player {n:02d}"
rating = {2300 - 10 * n}
"""
        for n in range(1, 13)
    )
)


def league(
    *, colours: TeamColours = "odd", missing: MissingLineup = "last", min_players: int = 0
) -> SectionConfig:
    """The league's section, with the team rules a test asks for."""
    section = load_event_text(_TOML, "team-league.toml").sections[0]
    rules = section.team_rules
    assert rules is not None
    rules = dataclasses.replace(
        rules, first_team_white=colours, missing_lineup=missing, min_players=min_players
    )
    return dataclasses.replace(section, team_rules=rules)


def league_state(config: SectionConfig | None = None) -> SectionState:
    """The section's state with its players registered, nothing paired."""
    config = config or league()
    return SectionState(config).apply(PlayersRegistered(config.name, config.players))
