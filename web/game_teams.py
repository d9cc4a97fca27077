"""A team section's game as the JSON names it: its match and the teams at White and Black.

A team round's games are ordinary games whose section board is `board_of(match, board in
match, boards)`, so the match and the board in it follow from the board number, and each
player's team from the rosters: no event state is read, only the configuration. Pure.
"""

from __future__ import annotations

from typing import Any

from broadcast.config.model import EventConfig, SectionConfig, TeamEntry
from broadcast.fide.teams.match import first_team_is_white
from broadcast.games.ids import GameKey
from web.sections import section_by_name

__all__ = ["game_teams", "match_place", "team_json"]


def match_place(board: int, boards: int) -> tuple[int, int]:
    """The match and the board in it of a section board (the inverse of `board_of`)."""
    return (board - 1) // boards + 1, (board - 1) % boards + 1


def team_json(team: TeamEntry | None) -> dict[str, Any] | None:
    """A team at a glance: number, name, federation (or club)."""
    if team is None:
        return None
    return {
        "number": team.number,
        "name": team.name,
        "federation": team.federation or team.club or None,
    }


def _team_section(event: EventConfig | None, name: str) -> SectionConfig | None:
    if event is None:
        return None
    section = section_by_name(event, name)
    return section if section is not None and section.team_rules is not None else None


def game_teams(
    event: EventConfig | None, key: GameKey, white: int | None, black: int | None
) -> dict[str, Any]:
    """What a team section's game adds to its JSON: `match` (its number in the round),
    `match_board` (the board in the match), `white_team` and `black_team`, and
    `first_is_white`: whether the team named first in the match (its home team) has White
    on this board, as the section's `first_team_white` says. Nothing for an individual
    section's game (or without the event's configuration)."""
    section = _team_section(event, key.section)
    if section is None or section.team_rules is None:
        return {}
    match, board = match_place(key.board, section.team_rules.boards)
    return {
        "match": match,
        "match_board": board,
        "first_is_white": first_team_is_white(board, section.team_rules.first_team_white),
        "white_team": team_json(section.team_of(white) if white is not None else None),
        "black_team": team_json(section.team_of(black) if black is not None else None),
    }
