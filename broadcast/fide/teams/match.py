"""A match between two teams, and the board numbers and colours its games take.

A match is two teams on N boards; the team named first (`first`) has White on the odd
boards (1, 3, ...) or the even ones, as the event's rules say. A match whose `second` is
None is the round's team bye. Teams are team numbers within a section.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["Match", "board_of", "first_team_is_white"]


@dataclass(frozen=True, slots=True)
class Match:
    """One match of a round: `number` is its place in the round's order (1 for the top
    match), `first` the team named first, `second` its opponent (None: a team bye)."""

    number: int
    first: int
    second: int | None

    @property
    def is_bye(self) -> bool:
        return self.second is None

    def teams(self) -> tuple[int, ...]:
        return (self.first,) if self.second is None else (self.first, self.second)


def board_of(match_number: int, board_in_match: int, boards: int) -> int:
    """The section's board number of a match's board (match 2, board 1 of 4 is board 5):
    the number a game id and the hall's tables use."""
    return (match_number - 1) * boards + board_in_match


def first_team_is_white(board_in_match: int, colours: Literal["odd", "even"]) -> bool:
    """Whether the team named first has White on this board of its match."""
    odd = board_in_match % 2 == 1
    return odd if colours == "odd" else not odd
