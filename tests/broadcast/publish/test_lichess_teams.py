"""Lichess's team format of a team section: "Team; player" lines and the team table."""

from __future__ import annotations

import dataclasses

from broadcast.config.model import SectionConfig, TeamEntry, TeamRules
from broadcast.publish.lichess_teams import lichess_teams_text
from tests.support.export import event


def team_section() -> SectionConfig:
    section = event().sections[0]
    players = tuple(
        dataclasses.replace(p, fide_id=str(2_200_000 + p.number)) if p.number % 2 else p
        for p in section.players
    )
    players = tuple(
        dataclasses.replace(p, name="Semi; colon") if p.number == 8 else p for p in players
    )
    teams = (
        TeamEntry(2, "Txantrea", (4, 3)),
        TeamEntry(1, "Irunea\nB", (1, 2)),
        TeamEntry(3, "Zaldi; Burlada", (7, 8, 99)),
    )
    return dataclasses.replace(
        section, players=players, team_rules=TeamRules(boards=2), teams=teams
    )


def test_one_line_a_player_by_fide_id_else_by_name() -> None:
    section = team_section()
    names = {p.number: p.name for p in section.players}
    assert lichess_teams_text(section).splitlines() == [
        "Irunea B; 2200001",
        f"Irunea B; {names[2]}",
        f"Txantrea; {names[4]}",  # board order, as the roster gives it
        "Txantrea; 2200003",
        "Zaldi, Burlada; 2200007",
        "Zaldi, Burlada; Semi, colon",  # a semicolon would split the line
    ]


def test_every_line_has_exactly_one_semicolon() -> None:
    for line in lichess_teams_text(team_section()).splitlines():
        team, player = line.split(";")
        assert team.strip() and player.strip()


def test_a_section_of_individuals_has_no_team_format() -> None:
    section = event().sections[0]
    assert lichess_teams_text(section) == ""
