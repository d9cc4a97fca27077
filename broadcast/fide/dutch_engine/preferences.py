"""Colour preferences (C.04.3 A.6) from a player's played colours.

Only games played over the board count: an unplayed round leaves no colour and is skipped.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

NONE, MILD, STRONG, ABSOLUTE = 0, 1, 2, 3


@dataclass(frozen=True)
class Preference:
    """A colour preference: the colour wanted ("w"/"b", None for none), its strength
    (NONE..ABSOLUTE) and the colour difference (whites minus blacks) it comes from."""

    colour: str | None
    strength: int
    difference: int


NO_PREFERENCE = Preference(None, NONE, 0)


def played_colours(colours: Sequence[str | None]) -> list[str]:
    """The colours of the games played over the board, oldest first."""
    return [c for c in colours if c in ("w", "b")]


def preference(colours: Sequence[str | None]) -> Preference:
    """A.6: absolute when the colour difference is beyond 1 or the last two games had the same
    colour; strong when it is 1; mild (alternate) when it is 0; none before the first game."""
    seq = played_colours(colours)
    if not seq:
        return NO_PREFERENCE
    cd = seq.count("w") - seq.count("b")
    twice = len(seq) >= 2 and seq[-1] == seq[-2]
    if cd > 1 or (twice and seq[-1] == "w"):
        return Preference("b", ABSOLUTE, cd)
    if cd < -1 or (twice and seq[-1] == "b"):
        return Preference("w", ABSOLUTE, cd)
    if cd == 1:
        return Preference("b", STRONG, cd)
    if cd == -1:
        return Preference("w", STRONG, cd)
    return Preference("b" if seq[-1] == "w" else "w", MILD, cd)


__all__ = [
    "NO_PREFERENCE",
    "Preference",
    "played_colours",
    "preference",
]
