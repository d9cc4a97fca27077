"""Team round robins (single or double) from the FIDE Berger tables (C.05 Annex 1).

The individual tables of broadcast.fide.berger are applied to team numbers: the table's
White is the team named first in the match, the table's board order the match order, and
with an odd number of teams the team drawn against the dummy has the round's bye (listed
last, as a match without a second team).
"""

from __future__ import annotations

from broadcast.fide.berger import berger_round, total_rounds
from broadcast.fide.teams.match import Match

__all__ = ["team_berger_round", "team_berger_table"]


def team_berger_round(teams: int, round_number: int, cycles: int = 1) -> tuple[Match, ...]:
    """The matches of one round for teams 1..`teams` (cycles 1 or 2)."""
    matches: list[Match] = []
    for pairing in berger_round(teams, round_number, cycles):
        matches.append(Match(len(matches) + 1, pairing.white, pairing.black))
    return tuple(matches)


def team_berger_table(teams: int, cycles: int = 1) -> tuple[tuple[Match, ...], ...]:
    """Every round's matches, round 1 first."""
    return tuple(
        team_berger_round(teams, r, cycles) for r in range(1, total_rounds(teams, cycles) + 1)
    )
