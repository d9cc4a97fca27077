"""What the team Swiss (FIDE C.04.6) pairs from: a team's record so far, the event's
pairing rules, and the error raised when no legal pairing exists.

A team's "colour" in C.04.6 is the colour of its first board; in our model that is
whether the team was named first in the match (`Match.first`), since the event's rules
fix which boards the first-named team has White on. So throughout this package a team
"had White" in a round when it was named first in a match that was actually played.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from clocks.errors import BoardwireError

__all__ = [
    "ColourPreferences",
    "NoTeamPairing",
    "PrimaryScore",
    "TeamRecord",
    "TeamSwissRules",
]

PrimaryScore = Literal["match-points", "game-points"]
# C.04.6 1.7: Type A (the default), Type B (strong and mild), or no colour preferences.
ColourPreferences = Literal["A", "B", "none"]


class NoTeamPairing(BoardwireError, ValueError):
    """No pairing of the round meets C.04.6's absolute criteria (3.3.3: the chief arbiter
    decides). The message says which rule cannot be met."""


@dataclass(frozen=True, slots=True)
class TeamRecord:
    """One team as the pairing sees it before the round.

    `rank` is the team's pairing number (C.04.6 1.1: from the initial ranking the event's
    regulations give, for example by the rating average of the top boards); 1 is the
    strongest; its parity names the first match's colour in round 1 (4.3.1), so ranks
    should number the teams that have arrived, 1 to N. `opponents[r]` is the opponent of round r+1 (None: bye or absent), and
    `first_named[r]` whether the team was named first in that round's match (None: no
    match played, which gives no colour, C.04.6 1.6.1). `floated[r]` is whether the team
    met an opponent with another score in round r+1 (C.04.6 1.5); `floaters_of` tells it
    when a round is paired. `had_bye` and `won_by_forfeit` bar the pairing bye (C2)."""

    number: int
    rank: int
    match_points: float
    game_points: float
    opponents: tuple[int | None, ...] = ()
    first_named: tuple[bool | None, ...] = ()
    floated: tuple[bool, ...] = ()
    had_bye: bool = False
    won_by_forfeit: bool = False

    @property
    def played(self) -> int:
        """The matches actually played (the bye's tie-break, C.04.6 3.4.3)."""
        return sum(1 for colour in self.first_named if colour is not None)

    def floated_last(self, round: int) -> bool:
        """Whether the team was a floater in the round before `round`."""
        return len(self.floated) >= round - 1 >= 1 and self.floated[round - 2]


@dataclass(frozen=True, slots=True)
class TeamSwissRules:
    """The event's choices C.04.6 leaves open.

    `primary` ranks teams into score groups; the other score is the secondary one, used to
    name the first team of a pair (4.2.2) when `secondary_for_colour`. `colours` is the
    colour preference variant (1.7). `rounds` is the event's number of rounds: [C7] and
    [C10] are dropped in the last two, Type B's mild preference of an even team in the
    last. `initial_first` is the colour drawn by lot before round 1 (4.1): True when it is
    "named first" (White on board 1 with odd-board colours)."""

    rounds: int
    primary: PrimaryScore = "match-points"
    colours: ColourPreferences = "A"
    secondary_for_colour: bool = True
    initial_first: bool = True

    def score(self, team: TeamRecord) -> float:
        return team.match_points if self.primary == "match-points" else team.game_points

    def secondary(self, team: TeamRecord) -> float:
        return team.game_points if self.primary == "match-points" else team.match_points

    def late(self, round: int) -> bool:
        """One of the last two rounds, where [C7] and [C10] do not apply."""
        return round >= self.rounds - 1
