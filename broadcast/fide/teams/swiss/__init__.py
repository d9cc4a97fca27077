"""FIDE's Swiss Team Pairing System (handbook C.04.6, effective 1 February 2026): pairs a
round of a team Swiss from the teams' records. Pure: no config, no I/O.

`pair_team_round(teams, round, rules)` gives the round's matches; `floaters_of` tells which
teams of a paired round floated, for the next round's records."""

from broadcast.fide.teams.swiss.model import (
    ColourPreferences,
    NoTeamPairing,
    PrimaryScore,
    TeamRecord,
    TeamSwissRules,
)
from broadcast.fide.teams.swiss.round import floaters_of, pair_team_round

__all__ = [
    "ColourPreferences",
    "NoTeamPairing",
    "PrimaryScore",
    "TeamRecord",
    "TeamSwissRules",
    "floaters_of",
    "pair_team_round",
]
