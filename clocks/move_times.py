"""From clock readings to move times: who is White, [%clk] and [%emt] per move, flag falls.

A DGT clock does not know colours: it has a left and a right side. `ClockTimes` decides
which side is White (left by default; the side whose time runs first after the start; or
what the arbiter sets), turns every lever press (the running side changing) into the
mover's remaining time and the time they spent, and reports flag falls once per side.

`SoftwareClock` does the same job from a time control and move timestamps for boards
without a clock; its times are marked `software=True`.
"""

from __future__ import annotations

from dataclasses import dataclass

from clocks.reading import ClockReading, NoClock, Side
from clocks.timecontrol import Colour, TimeControl


def other_side(side: Side) -> Side:
    return "right" if side == "left" else "left"


def other_colour(colour: Colour) -> Colour:
    return "black" if colour == "white" else "white"


@dataclass(frozen=True, slots=True)
class MoveTime:
    """Clock facts for one move: the mover's time left after it ([%clk], increment
    included) and the time they spent on it ([%emt]), in seconds."""

    remaining: float
    spent: float | None
    software: bool = False


@dataclass(frozen=True, slots=True)
class ClockStarted:
    """The clock started running for the first time in this game: `side` is the first
    mover's side, which fixes the colours unless the arbiter set them."""

    t: float
    side: Side
    white_side: Side


@dataclass(frozen=True, slots=True)
class LeverPressed:
    """A player completed a move and pressed the lever: their clock stopped."""

    t: float
    side: Side
    colour: Colour
    time: MoveTime


@dataclass(frozen=True, slots=True)
class FlagFell:
    """A player's time ran out (final flag, or zero while their clock was running)."""

    t: float
    side: Side | None
    colour: Colour
    software: bool = False


ClockEvent = ClockStarted | LeverPressed | FlagFell


def format_clock(seconds: float) -> str:
    """H:MM:SS as used in PGN [%clk]/[%emt] comments (negative clamps to 0)."""
    whole = max(0, round(seconds))
    h, rest = divmod(whole, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}"


class ClockTimes:
    """Follows one clock through a game. Feed readings in time order."""

    def __init__(self, white_side: Side | None = None, first_mover: Colour = "white") -> None:
        self._arbiter_side = white_side
        self._white_side: Side = white_side or "left"
        self._first_mover: Colour = first_mover
        self.reset(first_mover)

    def reset(self, first_mover: Colour | None = None) -> None:
        """A new game on the same clock: forget the runs; keep an arbiter-set side."""
        if first_mover is not None:
            self._first_mover = first_mover
        self._started = False
        self._last_side: Side | None = None  # last side that was running
        self._run_start: float | None = None
        self._spent = 0.0  # running time of _last_side in the current turn
        self._spent_unknown = False  # the turn began while nobody listened
        self._flagged: set[Side] = set()
        self.present = False
        self.last_reading: ClockReading | None = None
        self.last_t: float | None = None

    @property
    def white_side(self) -> Side:
        return self._white_side

    @property
    def decided(self) -> bool:
        """True once the colours are known from the start or from the arbiter."""
        return self._arbiter_side is not None or self._started

    def expect_first(self, colour: Colour) -> None:
        """Until the clock first runs: the colour whose time will run first. A game joined
        late (after a restart, or with moves read back from the board's log) has its side
        to move, not White, on the clock that starts."""
        if not self._started:
            self._first_mover = colour

    def set_white_side(self, side: Side) -> None:
        """The arbiter's word: White's time is on `side`."""
        self._arbiter_side = side
        self._white_side = side

    def pressed_in_log(self, side: Side) -> None:
        """The board's log (read back after an outage) says `side` pressed last, so the
        other side's clock runs: a reading that shows `side` running again is a press.
        How long the runner has spent on this turn is not known."""
        if not self.decided:
            self.set_white_side(self._white_side)  # a game joined late keeps the convention
        self._started = True
        self._last_side, self._run_start, self._spent = other_side(side), None, 0.0
        self._spent_unknown = True

    def resume_running(self, side: Side) -> None:
        """Take over a game under way whose clock last showed `side` running (the game's
        record, after a restart): a reading that shows the other side running is that
        side's press, made while nobody listened. How long this turn has lasted is not
        known."""
        self.pressed_in_log(other_side(side))

    def colour_of(self, side: Side) -> Colour:
        return "white" if side == self._white_side else "black"

    def side_of(self, colour: Colour) -> Side:
        return self._white_side if colour == "white" else other_side(self._white_side)

    def seconds(self, colour: Colour) -> int | None:
        """The last displayed time for a colour, if a clock is present."""
        if self.last_reading is None:
            return None
        return self.last_reading.seconds(self.side_of(colour))

    def feed(self, t: float, reading: ClockReading | NoClock) -> list[ClockEvent]:
        if isinstance(reading, NoClock):
            self.present = False
            return []
        self.present = True
        events: list[ClockEvent] = []
        running = reading.running_side
        if running is not None:
            if not self._started:
                self._started = True
                if self._arbiter_side is None:
                    # The first clock to run belongs to the first mover.
                    first = running if self._first_mover == "white" else other_side(running)
                    self._white_side = first
                events.append(ClockStarted(t, running, self._white_side))
                self._last_side, self._run_start, self._spent = running, t, 0.0
            elif running != self._last_side:
                pressed = self._last_side
                assert pressed is not None
                if self._run_start is not None:
                    self._spent += t - self._run_start
                events.append(
                    LeverPressed(
                        t,
                        pressed,
                        self.colour_of(pressed),
                        MoveTime(
                            float(reading.seconds(pressed)),
                            None if self._spent_unknown else self._spent,
                        ),
                    )
                )
                self._last_side, self._run_start, self._spent = running, t, 0.0
                self._spent_unknown = False
            elif self._run_start is None:
                self._run_start = t  # resumed after a pause
        elif self._run_start is not None:
            self._spent += t - self._run_start  # paused: keep what was spent so far
            self._run_start = None
        for side in ("left", "right"):
            events.extend(self._flag(t, reading, side))
        self.last_reading = reading
        self.last_t = t
        return events

    def _flag(self, t: float, reading: ClockReading, side: Side) -> list[ClockEvent]:
        if side in self._flagged:
            return []
        final = reading.left_final_flag if side == "left" else reading.right_final_flag
        zero_running = reading.seconds(side) == 0 and reading.running_side == side
        if final or zero_running:
            self._flagged.add(side)
            return [FlagFell(t, side, self.colour_of(side))]
        return []


class SoftwareClock:
    """A clock kept in software from a time control and move timestamps (no DGT clock).

    Call `start(t)` when White's (the first mover's) time starts, `move(t)` at each
    completed move, and `flag(t)` to learn whether the player to move has run out."""

    def __init__(self, time_control: TimeControl, first_mover: Colour = "white") -> None:
        if time_control.untimed:
            raise ValueError("a software clock needs a timed control, not '-'")
        self.time_control = time_control
        self._remaining: dict[Colour, float] = {
            "white": float(time_control.initial_seconds("white")),
            "black": float(time_control.initial_seconds("black")),
        }
        self._moves_made: dict[Colour, int] = {"white": 0, "black": 0}
        self.to_move: Colour = first_mover
        self._turn_start: float | None = None
        self._flagged = False

    @property
    def started(self) -> bool:
        return self._turn_start is not None

    def start(self, t: float) -> None:
        if self._turn_start is None:
            self._turn_start = t

    def resume(
        self, white: float, black: float, white_moves: int, black_moves: int, t: float
    ) -> None:
        """Take over a game under way at `t`: each side's time left and moves made (for the
        periods of a multi-period control); the side to move's time runs from `t`."""
        self._remaining = {"white": float(white), "black": float(black)}
        self._moves_made = {"white": white_moves, "black": black_moves}
        self._turn_start = t
        self._flagged = False

    def remaining(self, colour: Colour, t: float | None = None) -> float:
        """Time left for `colour` at `t` (the running side's time keeps falling)."""
        left = self._remaining[colour]
        if t is not None and colour == self.to_move and self._turn_start is not None:
            left -= self._charged(colour, t - self._turn_start)
        return left

    def _charged(self, colour: Colour, spent: float) -> float:
        move_number = self._moves_made[colour] + 1
        period = self.time_control.period(colour, move_number)
        if period.delay and period.delay_kind == "simple":
            return max(0.0, spent - period.delay)
        return spent

    def move(self, t: float) -> MoveTime:
        """The player to move completed a move at `t`: returns their MoveTime."""
        if self._turn_start is None:
            self._turn_start = t
        colour = self.to_move
        spent = max(0.0, t - self._turn_start)
        move_number = self._moves_made[colour] + 1
        period = self.time_control.period(colour, move_number)
        left = self._remaining[colour] - self._charged(colour, spent)
        if period.delay and period.delay_kind == "bronstein":
            left += min(spent, float(period.delay))
        if left > 0:
            left += self.time_control.added_after_move(colour, move_number)
        self._remaining[colour] = left
        self._moves_made[colour] = move_number
        self.to_move = other_colour(colour)
        self._turn_start = t
        return MoveTime(max(0.0, left), spent, software=True)

    def undo(self, colour: Colour, remaining_before: float, t: float) -> None:
        """A move by `colour` was taken back: restore its time and make it their turn."""
        self._remaining[colour] = remaining_before
        self._moves_made[colour] = max(0, self._moves_made[colour] - 1)
        self.to_move = colour
        self._turn_start = t

    def flag(self, t: float) -> FlagFell | None:
        """A FlagFell the first time the player to move has no time left at `t`."""
        if self._flagged or self._turn_start is None:
            return None
        if self.remaining(self.to_move, t) <= 0:
            self._flagged = True
            return FlagFell(t, None, self.to_move, software=True)
        return None

    def flag_deadline(self) -> float | None:
        """When the player to move will run out, if nothing happens before."""
        if self._flagged or self._turn_start is None:
            return None
        colour = self.to_move
        period = self.time_control.period(colour, self._moves_made[colour] + 1)
        delay = period.delay if period.delay_kind == "simple" else 0
        return self._turn_start + self._remaining[colour] + delay


__all__ = [
    "ClockEvent",
    "ClockStarted",
    "ClockTimes",
    "FlagFell",
    "LeverPressed",
    "MoveTime",
    "SoftwareClock",
    "format_clock",
    "other_colour",
    "other_side",
]
