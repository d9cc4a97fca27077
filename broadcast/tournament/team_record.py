"""A team section's rounds as the fold leaves them: each round's matches and each team's
lineup for it (`SectionRecord.team_rounds`).

A plain value with plain questions; the fold that builds it, and refuses what cannot
apply, is `broadcast.tournament.teams.apply_team_event`. Kept apart from that module so
that the section record can hold it without importing the fold.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from broadcast.fide.teams.match import Match
from broadcast.tournament.team_events import LineupSubmitted

__all__ = ["TeamRounds"]


@dataclass(frozen=True)
class TeamRounds:
    """The matches of each paired team round (in board order), who paired them, and the
    lineups by (round, team): the latest one journaled for each."""

    matches: Mapping[int, tuple[Match, ...]] = field(default_factory=dict)
    sources: Mapping[int, str] = field(default_factory=dict)
    lineups: Mapping[tuple[int, int], LineupSubmitted] = field(default_factory=dict)

    @property
    def last_paired_round(self) -> int:
        """The last round whose matches are paired (0: none yet)."""
        return max(self.matches, default=0)

    def round_matches(self, round_number: int) -> tuple[Match, ...]:
        """The round's matches in board order (none while it is not paired)."""
        return self.matches.get(round_number, ())

    def match_of(self, round_number: int, team: int) -> Match | None:
        """The match `team` plays in the round (its bye too), None if it plays none."""
        for match in self.round_matches(round_number):
            if team in match.teams():
                return match
        return None

    def lineup(self, round_number: int, team: int) -> LineupSubmitted | None:
        """The team's lineup for the round, None while none is in."""
        return self.lineups.get((round_number, team))

    def round_lineups(self, round_number: int) -> dict[int, LineupSubmitted]:
        """The lineups in for the round, by team."""
        return {t: lineup for (r, t), lineup in sorted(self.lineups.items()) if r == round_number}

    def last_lineup(self, team: int, before: int) -> LineupSubmitted | None:
        """The team's latest lineup of a round before `before` (None: it has none)."""
        rounds = [r for (r, t) in self.lineups if t == team and r < before]
        return self.lineups[(max(rounds), team)] if rounds else None
