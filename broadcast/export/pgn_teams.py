"""The PGN tags of a team section's game: `WhiteTeam` and `BlackTeam`.

A team round's boards are ordinary games; what makes them a match is whose roster each
player is on. The tags carry the team names (the section config's teams) so that any
reader, Lichess's team table first, can put the boards back into matches.
"""

from __future__ import annotations

from broadcast.config.model import SectionConfig
from broadcast.games.game_state import GameState

__all__ = ["team_tags"]


def team_tags(section: SectionConfig, game: GameState) -> list[tuple[str, str]]:
    """WhiteTeam and BlackTeam of `game` in a team section, in that order; none in a
    section of individuals, and none for a side whose player is on no roster."""
    if not section.is_team:
        return []
    tags: list[tuple[str, str]] = []
    for colour, player in (("White", game.white), ("Black", game.black)):
        team = section.team_of(player.start) if player is not None else None
        if team is not None:
            tags.append((f"{colour}Team", team.name))
    return tags
