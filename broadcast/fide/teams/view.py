"""A team section as the FIDE core reads it: plain values, no config and no event state.

`broadcast.tournament.teams.team_view` builds it from a section's config and state; the
team standings, tie-breaks, board prizes and crosstable read only this.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from broadcast.fide.teams.match import Match

__all__ = ["BoardGame", "MatchRecord", "TeamSectionView", "TeamView"]


@dataclass(frozen=True, slots=True)
class BoardGame:
    """One board of a match. `first_player` plays for the team named first (None: an
    empty board); the points are None until the board has a result. `played`: the game
    was played over the board (False for a forfeit or an empty board: it counts for the
    teams' game points, never for ratings or performances)."""

    board: int
    first_player: int | None
    second_player: int | None
    first_points: float | None = None
    second_points: float | None = None
    played: bool = True
    first_is_white: bool = True

    @property
    def has_result(self) -> bool:
        return self.first_points is not None and self.second_points is not None


@dataclass(frozen=True, slots=True)
class MatchRecord:
    """A round's match with its boards (none yet while the lineups are not in)."""

    round: int
    match: Match
    boards: tuple[BoardGame, ...] = ()


@dataclass(frozen=True, slots=True)
class TeamView:
    """A team: number (its starting number), name, federation or club, roster in order."""

    number: int
    name: str
    roster: tuple[int, ...]
    federation: str = ""


@dataclass(frozen=True, slots=True)
class TeamSectionView:
    """What a team section's standings need. `rank_by` "match-points" or "game-points";
    `match_points` for a won, drawn and lost match; `tiebreaks` the section's tie-break
    names in order; `ratings` each player's rating (0: unrated); `rounds` the rounds
    whose matches are all complete (standings after them); `round_robin` a Berger
    schedule rather than a Swiss."""

    teams: tuple[TeamView, ...]
    boards: int
    matches: tuple[MatchRecord, ...]
    rounds: int
    match_points: tuple[float, float, float] = (2.0, 1.0, 0.0)
    rank_by: str = "match-points"
    tiebreaks: tuple[str, ...] = ()
    bye_match_points: float = 2.0
    bye_game_points: float | None = None
    board_prize_min_games: int = 0
    ratings: Mapping[int, int] = field(default_factory=dict)
    # A round robin (Berger) rather than a Swiss: C.07 leaves the bye of an odd-sized
    # round robin out of a team's Buchholz and Sonneborn-Berger (a Swiss bye meets a dummy).
    round_robin: bool = False
    # The C.07 edition the tie-breaks follow (2024 or 2026: they differ on the dummy
    # opponent of an unplayed round). The spine's `team_view` gives the event's
    # `tiebreak_edition`; a view built by hand gets the latest.
    edition: int = 2026
