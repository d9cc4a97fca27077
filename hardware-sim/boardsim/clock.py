"""An emulated DGT 3000 clock: a pure state machine, time passed in as seconds (float).

The clock keeps sub-second times internally and shows whole seconds (rounded up while
counting down, so the display reaches 0:00:00 exactly when the flag falls). It knows
nothing of chess colours: it has a left and a right side. White sits on the left by
default in the scripted games, which is what real captures show.

Lever semantics: pressing the LEFT button stops the left clock and starts the right one
(the right lever is then high). A side's increment is added when that side presses while
its own time was running (Fischer mode, as the DGT 3000 does).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from boards.dgt.clock_commands import (
    ClockAscii,
    ClockBeep,
    ClockCommand,
    ClockDisplay,
    ClockEnd,
    ClockIcons,
    ClockSetAndRun,
    ClockVersion,
)
from clocks.reading import ClockAck, ClockReading, NoClock

Side = Literal["left", "right"]

MAX_SECONDS = 9 * 3600 + 59 * 60 + 59
ACK_OK = 0x10
# The command byte the clock echoes in ack1, per command (DGT's clock command numbers).
CODE_DISPLAY, CODE_ICONS, CODE_END, CODE_VERSION = 0x01, 0x02, 0x03, 0x09
CODE_SETNRUN, CODE_BEEP, CODE_ASCII = 0x0A, 0x0B, 0x0C
# SETNRUN flag bits.
LEFT_COUNTS_DOWN, RIGHT_COUNTS_DOWN, PAUSE = 0x01, 0x02, 0x04
ACK_BUTTON = 0x88
# Button codes the clock reports in ack3 (back, plus, run, minus, ok).
BUTTONS = {"back": 0x31, "plus": 0x32, "run": 0x33, "minus": 0x34, "ok": 0x35}


def _other(side: Side) -> Side:
    return "right" if side == "left" else "left"


def _check_side(side: str) -> Side:
    if side not in ("left", "right"):
        raise ValueError(f"a clock side is 'left' or 'right', not {side!r}")
    return "left" if side == "left" else "right"


def _check_seconds(seconds: float, what: str) -> float:
    if not 0 <= seconds <= MAX_SECONDS:
        raise ValueError(f"{what}: a DGT clock holds 0 to 9:59:59, not {seconds} s")
    return float(seconds)


@dataclass(frozen=True, slots=True)
class LeverResult:
    """What a lever press did: the side that stopped and its displayed time (whole seconds)."""

    stopped: Side
    seconds: int


class EmulatedClock:
    """A DGT 3000 (version 2.x): times, lever, flags, SETNRUN, connection and battery state."""

    def __init__(
        self,
        left_seconds: float = 5400.0,
        right_seconds: float = 5400.0,
        *,
        increment: float = 0.0,
        version: tuple[int, int] = (2, 2),
        block_at_flag: bool = True,
        t: float = 0.0,
    ) -> None:
        self._times: dict[Side, float] = {
            "left": _check_seconds(left_seconds, "left time"),
            "right": _check_seconds(right_seconds, "right time"),
        }
        self._increment: dict[Side, float] = {"left": increment, "right": increment}
        self._counts_down: dict[Side, bool] = {"left": True, "right": True}
        self._flag_shown: dict[Side, bool] = {"left": False, "right": False}
        self._final_flag: dict[Side, bool] = {"left": False, "right": False}
        self._running = False
        # Which side's time runs when the clock runs: the side whose lever is high.
        self._right_lever_high = False
        self._t = t
        self.version = version
        self.block_at_flag = block_at_flag
        self.connected = True
        self.battery_low = False
        self.dead = False  # its batteries ran out: dark, stopped, deaf to levers and commands
        self.text: str | None = None  # what an ASCII command put on the display, if any
        self.commands_received: list[ClockCommand] = []

    # -- time --------------------------------------------------------------------------

    def _advance(self, t: float) -> None:
        """Run the clock from the last update to `t`; flags fall exactly at zero."""
        if t < self._t:
            raise ValueError(f"time cannot go backwards ({t} < {self._t})")
        dt = t - self._t
        self._t = t
        if not self._running or dt == 0:
            return
        side = self.running_side
        assert side is not None
        if not self._counts_down[side]:
            self._times[side] = min(MAX_SECONDS, self._times[side] + dt)
            return
        left = self._times[side] - dt
        if left > 0:
            self._times[side] = left
            return
        self._times[side] = 0.0
        self._flag_shown[side] = True
        if self.block_at_flag:
            self._final_flag[side] = True
            self._running = False

    @property
    def running_side(self) -> Side | None:
        if not self._running:
            return None
        return "right" if self._right_lever_high else "left"

    def seconds(self, side: Side, t: float) -> float:
        """The exact (sub-second) time left on `side` at `t`."""
        self._advance(t)
        return self._times[_check_side(side)]

    def displayed(self, side: Side, t: float) -> int:
        """Whole seconds as the display shows them."""
        self._advance(t)
        value = self._times[_check_side(side)]
        if self._counts_down[side]:
            return min(MAX_SECONDS, math.ceil(value - 1e-9))
        return min(MAX_SECONDS, math.floor(value + 1e-9))

    # -- physical actions --------------------------------------------------------------

    def setup(
        self,
        left_seconds: float,
        right_seconds: float,
        t: float,
        *,
        increment: float = 0.0,
        right_increment: float | None = None,
    ) -> None:
        """The arbiter sets the clock: both times, increment(s), paused, flags cleared."""
        self._advance(t)
        self._times = {
            "left": _check_seconds(left_seconds, "left time"),
            "right": _check_seconds(right_seconds, "right time"),
        }
        self._increment = {
            "left": increment,
            "right": increment if right_increment is None else right_increment,
        }
        self._counts_down = {"left": True, "right": True}
        self._clear_flags()
        self._running = False

    def _clear_flags(self) -> None:
        self._flag_shown = {"left": False, "right": False}
        self._final_flag = {"left": False, "right": False}

    def press_lever(self, side: Side, t: float) -> LeverResult | None:
        """`side` presses its button. Returns what stopped, or None if nothing changed.

        Nothing changes when a final flag has fallen, or when that side's lever is already
        down while the clock runs.
        """
        side = _check_side(side)
        self._advance(t)
        if self.dead or self._final_flag["left"] or self._final_flag["right"]:
            return None
        if self._running and self.running_side != side:
            return None
        if self._running and self._increment[side] > 0:
            self._times[side] = min(MAX_SECONDS, self._times[side] + self._increment[side])
        self._right_lever_high = side == "left"
        self._running = True
        return LeverResult(side, self.displayed(side, t))

    def pause(self, t: float) -> None:
        self._advance(t)
        self._running = False

    def resume(self, t: float) -> None:
        self._advance(t)
        if not (self._final_flag["left"] or self._final_flag["right"]):
            self._running = True

    def die(self, t: float) -> None:
        """The batteries run out at `t`: the display goes dark, the times stop where they
        were, levers and commands do nothing, and the board no longer hears the clock."""
        self._advance(t)
        self._running = False
        self.dead = True

    def revive(self, t: float) -> None:
        """New batteries: the clock shows the times it stopped at, paused (the arbiter
        starts it again, or sets it up)."""
        self._advance(t)
        self.dead = False

    @property
    def reachable(self) -> bool:
        """The board can talk to the clock: its cable is in and its batteries live."""
        return self.connected and not self.dead

    def button(self, name: str) -> ClockAck:
        """A press of one of the five clock buttons, as the clock reports it to the board."""
        if name not in BUTTONS:
            raise ValueError(f"unknown clock button {name!r}; use one of {sorted(BUTTONS)}")
        return ClockAck(ACK_OK, ACK_BUTTON, 0, BUTTONS[name])

    # -- commands from the host --------------------------------------------------------

    def handle_command(self, command: ClockCommand, t: float) -> ClockAck | None:
        """Execute a clock command; the ack the clock sends back (None when unplugged or
        dead)."""
        if not self.reachable:
            return None
        self._advance(t)
        self.commands_received.append(command)
        code: int
        match command:
            case ClockSetAndRun(left, right, flags):
                self._times = {
                    "left": float(min(left, MAX_SECONDS)),
                    "right": float(min(right, MAX_SECONDS)),
                }
                self._counts_down = {
                    "left": bool(flags & LEFT_COUNTS_DOWN),
                    "right": bool(flags & RIGHT_COUNTS_DOWN),
                }
                self._clear_flags()
                self._running = not flags & PAUSE
                code = CODE_SETNRUN
            case ClockAscii(text):
                self.text = text
                code = CODE_ASCII
            case ClockEnd():
                self.text = None
                code = CODE_END
            case ClockVersion():
                major, minor = self.version
                return ClockAck(ACK_OK, CODE_VERSION, (major << 4) | minor, 0)
            case ClockDisplay():
                code = CODE_DISPLAY
            case ClockIcons():
                code = CODE_ICONS
            case ClockBeep():
                code = CODE_BEEP
            case _:
                raise TypeError(f"not a clock command: {command!r}")
        return ClockAck(ACK_OK, code, 0, 0)

    # -- what the board reads ------------------------------------------------------------

    def reading(self, t: float) -> ClockReading | NoClock:
        """The clock's state as the board sends it in BWTIME (what the board does when it
        cannot reach the clock is the board's business: `EmulatedBoard(clock_lost=...)`)."""
        if not self.reachable:
            return NoClock()
        self._advance(t)
        return ClockReading(
            left_seconds=self.displayed("left", t),
            right_seconds=self.displayed("right", t),
            running=self._running,
            right_lever_high=self._right_lever_high,
            left_flag=self._flag_shown["left"],
            right_flag=self._flag_shown["right"],
            left_final_flag=self._final_flag["left"],
            right_final_flag=self._final_flag["right"],
            left_increment_mode=self._increment["left"] > 0,
            right_increment_mode=self._increment["right"] > 0,
            battery_low=self.battery_low,
        )


__all__ = ["ACK_BUTTON", "ACK_OK", "BUTTONS", "MAX_SECONDS", "EmulatedClock", "LeverResult", "Side"]
