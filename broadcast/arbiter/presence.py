"""Presence and default time (Laws 6.7): warnings before the deadline, forfeits at it.

A player counts as present from their first move or clock press, or when the arbiter
marks them present. The deadline is the round's scheduled start plus the section's
default time (0 when the regulations say nothing: absent at the start loses). The
boundary is exact: at `deadline - 1` a player is only late; at `deadline` they lose.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from broadcast.games.events import Colour, GameResultText

DEFAULT_WARNINGS: tuple[int, ...] = (900, 300, 60)
"""Seconds before the deadline at which the arbiter is told who is still missing."""


@dataclass(frozen=True, slots=True)
class Presence:
    """When each colour was first seen at the board (None: not yet)."""

    white: float | None = None
    black: float | None = None

    def of(self, colour: Colour) -> float | None:
        return self.white if colour == "white" else self.black

    def present_at(self, colour: Colour, t: float) -> bool:
        seen = self.of(colour)
        return seen is not None and seen <= t


def deadline(round_start: float, default_time_minutes: int) -> float:
    """The default time as an epoch second: start + default time."""
    return round_start + 60.0 * default_time_minutes


def warning_marks(round_start: float, due: float, before: Sequence[int]) -> list[float]:
    """The warning moments (epoch seconds), earliest first: `due - s` for each mark that
    falls at or after the round start and before the deadline."""
    marks = {due - s for s in before if s > 0 and due - s >= round_start}
    return sorted(marks)


def absent_colours(presence: Presence, t: float) -> tuple[Colour, ...]:
    colours: tuple[Colour, ...] = ("white", "black")
    return tuple(c for c in colours if not presence.present_at(c, t))


def forfeit_result(absent: Sequence[Colour]) -> GameResultText | None:
    """White absent -/+ (0-1), Black absent +/- (1-0), both -/- (0-0); nobody: None."""
    if "white" in absent and "black" in absent:
        return "-/-"
    if "white" in absent:
        return "-/+"
    if "black" in absent:
        return "+/-"
    return None


def no_show_colours(result: str) -> tuple[Colour, ...]:
    """Who did not show up, read from a forfeit result."""
    return {
        "-/-": ("white", "black"),
        "-/+": ("white",),
        "+/-": ("black",),
    }.get(result, ())  # type: ignore[return-value]


def pressed_by(before: Colour | None, after: Colour | None) -> Colour | None:
    """Who pressed the clock: the running side changing from X to the other means X
    pressed. Starting or stopping the clock (None on either side) is nobody's press:
    the arbiter starts clocks at the scheduled time."""
    if before is None or after is None or before == after:
        return None
    return before


__all__ = [
    "DEFAULT_WARNINGS",
    "Presence",
    "absent_colours",
    "deadline",
    "forfeit_result",
    "no_show_colours",
    "pressed_by",
    "warning_marks",
]
