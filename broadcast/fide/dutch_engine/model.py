"""The Dutch engine's values: what the caller passes in and what it gets back.

Pure values, no behaviour: the adapter (``broadcast/fide/dutch.py``) fills them from the
crosstable, the engine never reads results itself.
"""

from __future__ import annotations

from dataclasses import dataclass

from clocks.errors import BoardwireError


@dataclass(frozen=True)
class SwissPlayer:
    """One player to be paired this round, as the pairing rules see them.

    The per-round tuples run from round 1 to the last round played; they have the same length.
    """

    number: int  # pairing number: lower ranks higher at equal score
    score: float  # pairing score (acceleration's virtual points already added)
    colours: tuple[str | None, ...]  # per past round: "w", "b", None (no game over the board)
    floats: tuple[str | None, ...]  # per past round: "d", "u", None (A.4, as the adapter reads it)
    unplayed: tuple[bool, ...]  # per past round: True when no game was played over the board
    opponents: frozenset[int]  # met over the board (a forfeited game does not count)
    bye_ineligible: bool = False  # had a pairing bye, a full-point bye or a forfeit win (C.2)


@dataclass(frozen=True)
class DutchRound:
    """A round's pairing: games as (white, black) in board order, and the pairing-allocated bye."""

    games: tuple[tuple[int, int], ...]
    bye: int | None


class DutchError(BoardwireError, ValueError):
    """No pairing meets the absolute criteria (C.1-C.3), or the input is not a valid field.

    The message names the players concerned, so the arbiter can act (e.g. pair by hand)."""


__all__ = [
    "DutchError",
    "DutchRound",
    "SwissPlayer",
]
