"""A team section's events: the round's matches, and each team's lineup for it.

The boards of a round are individual games as in any section (`RoundPaired`, board
numbers `fide.teams.match.board_of`); these events say which teams meet and who plays
for them. A lineup lists the team's players in board order, its empty boards last
(None).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from broadcast.fide.teams.match import Match

__all__ = ["LineupSubmitted", "LineupWithdrawn", "MatchesPaired", "TeamEvent"]


@dataclass(frozen=True, slots=True)
class MatchesPaired:
    """A team round's matches, in board order; `source` says who paired them
    ("berger", "team-swiss", the pairing program's name)."""

    section: str
    round: int
    matches: tuple[Match, ...]
    source: str = ""
    by: str = ""


@dataclass(frozen=True, slots=True)
class LineupSubmitted:
    """A team's lineup for a round: starting numbers in board order, None for an empty
    board (only at the bottom). A later one for the same team and round replaces it.
    `fallback`: the lineup was not sent, and the rules made this one ("last",
    "strongest"); `override`: the arbiter's words when it broke a rule (a late lineup)."""

    section: str
    round: int
    team: int
    players: tuple[int | None, ...]
    at: dt.datetime
    by: str = ""
    fallback: str = ""
    override: str = ""


@dataclass(frozen=True, slots=True)
class LineupWithdrawn:
    """A lineup taken back before the round's pairings were released (its undo)."""

    section: str
    round: int
    team: int
    by: str = ""


TeamEvent = MatchesPaired | LineupSubmitted | LineupWithdrawn
