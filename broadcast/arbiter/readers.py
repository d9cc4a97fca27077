"""The programs that read boards for the serve: when a capture station is lost, its
boards are not silent, they are unheard.

A board that sends nothing while its clock runs is an alarm (`board-not-responding`,
the silence rule in `board_rules`). When the whole station that reads it is gone, every
one of its boards goes quiet at once, and one station alert says it all (the issue's
"one critical alert naming its boards, not one per board"). The central serve journals
`BoardsUnheard` when a station is lost and again when it is back, so that the rules (a
pure fold of the journal) hold the silence rule for those boards meanwhile, and count
silence again from the moment the station is back.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["BoardsUnheard"]


@dataclass(frozen=True, slots=True)
class BoardsUnheard:
    """The boards `boards` (their DGT names) are read by station `station`, which is
    lost (`unheard` True) or back (False), at event time `t`."""

    t: float
    station: str
    boards: tuple[str, ...]
    unheard: bool
