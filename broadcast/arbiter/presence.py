"""Presence and default time (Laws 6.7): warnings before the deadline, forfeits at it.

A player counts as present from their first move or clock press, their check-in at the
table, or when the arbiter marks them present; the arbiter may mark them absent too (a
hall walk at tables without an e-board). The deadline is the round's scheduled start plus the section's
default time (0 when the regulations say nothing: absent at the start loses). The
boundary is exact and strict: the regulations forfeit a player "more than 60 minutes" late
and allow "a maximum delay of 30 minutes", so a player who arrives at the deadline itself
is in time; the forfeit is proposed only once it has passed (`forfeit_moment`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal, cast

from broadcast.games.game_events import Colour, GameResultText

DEFAULT_WARNINGS: tuple[int, ...] = (900, 300, 60)
"""Seconds before the deadline at which the arbiter is told who is still missing."""


PresenceState = Literal["present", "absent", "unknown"]
How = Literal["board", "check-in", "arbiter", ""]
"""How a player's presence is known: a move or clock press on the e-board, the player's
check-in at the table, the arbiter's mark ("" while unknown)."""


@dataclass(frozen=True, slots=True)
class Presence:
    """When each colour was first seen at the board (None: not yet), how (`*_how`), and
    when the arbiter marked them absent (`*_absent`; None: not marked)."""

    white: float | None = None
    black: float | None = None
    white_how: str = ""
    black_how: str = ""
    white_absent: float | None = None
    black_absent: float | None = None

    def of(self, colour: Colour) -> float | None:
        return self.white if colour == "white" else self.black

    def how(self, colour: Colour) -> How:
        how = self.white_how if colour == "white" else self.black_how
        if self.of(colour) is None:
            return ""
        # A presence from before marks were told apart (an old snapshot) is the board's.
        return cast(How, how or "board")

    def absent_since(self, colour: Colour) -> float | None:
        return self.white_absent if colour == "white" else self.black_absent

    def present_at(self, colour: Colour, t: float) -> bool:
        """Present at `t`: seen on the board or checked in by then, or on the arbiter's
        word whenever given (the arbiter answers for the moment asked about)."""
        seen = self.of(colour)
        if seen is None:
            return False
        return seen <= t or self.how(colour) == "arbiter"

    def seen(self, colour: Colour, t: float, how: How) -> Presence:
        """`colour` present from `t` (`how`); an absent mark is overtaken."""
        if colour == "white":
            return replace(self, white=t, white_how=how, white_absent=None)
        return replace(self, black=t, black_how=how, black_absent=None)

    def unseen(self, colour: Colour) -> Presence:
        if colour == "white":
            return replace(self, white=None, white_how="")
        return replace(self, black=None, black_how="")

    def absent(self, colour: Colour, t: float | None) -> Presence:
        """`colour` marked absent at `t` (None: the mark taken back). A presence the
        board saw stays: a move is no mark to overrule."""
        if t is None:
            if colour == "white":
                return replace(self, white_absent=None)
            return replace(self, black_absent=None)
        if self.how(colour) == "board":
            return self
        if colour == "white":
            return replace(self, white=None, white_how="", white_absent=t)
        return replace(self, black=None, black_how="", black_absent=t)


@dataclass(frozen=True, slots=True)
class PlayerPresence:
    """One player's presence as the hall shows it: `state`, `how` it is known (board,
    check-in, arbiter; "" while unknown) and `since` when (None while unknown)."""

    state: PresenceState
    how: How
    since: float | None


UNKNOWN = PlayerPresence("unknown", "", None)


@dataclass(frozen=True, slots=True)
class GamePresence:
    """Both players' presence at one game's table, and whether an e-board stands there."""

    white: PlayerPresence
    black: PlayerPresence
    wired: bool

    def of(self, colour: Colour) -> PlayerPresence:
        return self.white if colour == "white" else self.black


def player_presence(
    presence: Presence, colour: Colour, *, now: float, due: float | None, absent_unseen: bool
) -> PlayerPresence:
    """`colour`'s presence as known at `now`. `due` is the moment presence is judged at (the
    default time; None: unknown); `absent_unseen`: a player not seen by then is absent (an
    e-board's table, or check-in required), otherwise unknown until marked."""
    marked = presence.absent_since(colour)
    if marked is not None:
        return PlayerPresence("absent", "arbiter", marked)
    seen = presence.of(colour)
    if seen is not None and (due is None or now <= due or presence.present_at(colour, due)):
        return PlayerPresence("present", presence.how(colour), seen)
    if due is not None and default_time_passed(now, due) and absent_unseen:
        return PlayerPresence("absent", "board" if seen is None else presence.how(colour), due)
    if seen is not None:  # checked in (or seen) after the default time: the arbiter says
        return PlayerPresence("present", presence.how(colour), seen)
    return UNKNOWN


def unknown_colours(presence: Presence, due: float) -> tuple[Colour, ...]:
    """At a table without an e-board: the colours nobody has said anything of for the
    default time `due` (no check-in by then, no mark of the arbiter)."""
    colours: tuple[Colour, ...] = ("white", "black")
    return tuple(
        c for c in colours if presence.absent_since(c) is None and not presence.present_at(c, due)
    )


def marked_absent(presence: Presence) -> tuple[Colour, ...]:
    colours: tuple[Colour, ...] = ("white", "black")
    return tuple(c for c in colours if presence.absent_since(c) is not None)


def deadline(round_start: float, default_time_minutes: int) -> float:
    """The default time as an epoch second: start + default time. A player at the board
    by then (at it included) is in time."""
    return round_start + 60.0 * default_time_minutes


def default_time_passed(now: float, due: float) -> bool:
    """Whether the default time `due` has passed at `now`: strictly after it ("more than
    60 minutes" late; at 60:00.0 a player is still in time)."""
    return now > due


def forfeit_moment(due: float) -> float:
    """The first moment the default time `due` has passed (the next representable
    second after it): when a default-time forfeit is proposed, and when the rules look."""
    return math.nextafter(due, math.inf)


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
    "UNKNOWN",
    "GamePresence",
    "How",
    "PlayerPresence",
    "Presence",
    "PresenceState",
    "absent_colours",
    "deadline",
    "default_time_passed",
    "forfeit_moment",
    "forfeit_result",
    "marked_absent",
    "no_show_colours",
    "player_presence",
    "pressed_by",
    "unknown_colours",
    "warning_marks",
]
