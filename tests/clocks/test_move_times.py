"""Clock readings to move times: colours, [%clk], [%emt], flags, software clock."""

from __future__ import annotations

import pytest

from clocks.move_times import (
    ClockStarted,
    ClockTimes,
    FlagFell,
    LeverPressed,
    SoftwareClock,
    format_clock,
)
from clocks.reading import ClockReading, NoClock
from clocks.timecontrol import parse_time_control


def r(
    left: int, right: int, running: bool = True, right_high: bool = False, **kw: bool
) -> ClockReading:
    return ClockReading(left, right, running, right_high, **kw)


def test_white_is_left_by_default_and_press_gives_clk_and_emt() -> None:
    ct = ClockTimes()
    assert ct.feed(0.0, r(300, 300, running=False)) == []
    started = ct.feed(1.0, r(300, 300))
    assert started == [ClockStarted(1.0, "left", "left")]
    ct.feed(2.0, r(299, 300))
    pressed = ct.feed(6.0, r(297, 300, right_high=True))
    assert len(pressed) == 1 and isinstance(pressed[0], LeverPressed)
    assert pressed[0].colour == "white" and pressed[0].time.remaining == 297
    assert pressed[0].time.spent == pytest.approx(5.0)


def test_white_is_the_side_that_runs_first() -> None:
    ct = ClockTimes()
    ct.feed(1.0, r(300, 300, right_high=True))
    assert ct.white_side == "right" and ct.colour_of("left") == "black"


def test_arbiter_sets_the_white_side() -> None:
    ct = ClockTimes(white_side="right")
    ct.feed(1.0, r(300, 300, right_high=False))  # black started first? the arbiter knows
    assert ct.white_side == "right"


def test_pause_does_not_count_as_time_spent() -> None:
    ct = ClockTimes()
    ct.feed(0.0, r(300, 300))
    ct.feed(2.0, r(298, 300, running=False))
    ct.feed(10.0, r(298, 300))
    pressed = ct.feed(11.0, r(297, 300, right_high=True))
    assert isinstance(pressed[0], LeverPressed)
    assert pressed[0].time.spent == pytest.approx(3.0)


def test_flag_fall_by_final_flag_or_zero_while_running() -> None:
    ct = ClockTimes()
    ct.feed(0.0, r(3, 5))
    assert ct.feed(3.0, r(0, 5)) == [FlagFell(3.0, "left", "white")]
    assert ct.feed(4.0, r(0, 5)) == []  # reported once
    ct2 = ClockTimes()
    ct2.feed(0.0, r(3, 5, right_high=True))
    events = ct2.feed(1.0, r(3, 0, running=False, right_final_flag=True))
    assert events == [FlagFell(1.0, "right", "white")]


def test_zero_on_a_stopped_clock_is_no_flag() -> None:
    ct = ClockTimes()
    ct.feed(0.0, r(5, 0))
    assert not any(isinstance(e, FlagFell) for e in ct.feed(1.0, r(4, 0)))


def test_no_clock() -> None:
    ct = ClockTimes()
    assert ct.feed(0.0, NoClock()) == [] and not ct.present


def test_software_clock_with_increment_and_period() -> None:
    soft = SoftwareClock(parse_time_control("2/100+5:50+5"))
    soft.start(0.0)
    white = soft.move(10.0)
    assert white.software and white.remaining == pytest.approx(95.0)
    black = soft.move(30.0)
    assert black.remaining == pytest.approx(85.0) and black.spent == pytest.approx(20.0)
    white2 = soft.move(40.0)  # second move completes the period: +5 and +50
    assert white2.remaining == pytest.approx(95 - 10 + 5 + 50)


def test_software_clock_flag() -> None:
    soft = SoftwareClock(parse_time_control("60"))
    soft.start(0.0)
    assert soft.flag(59.0) is None
    assert soft.flag_deadline() == pytest.approx(60.0)
    flag = soft.flag(60.5)
    assert flag is not None and flag.colour == "white" and flag.software
    assert soft.flag(61.0) is None


def test_software_clock_simple_delay() -> None:
    soft = SoftwareClock(parse_time_control("60d5"))
    soft.start(0.0)
    assert soft.move(4.0).remaining == pytest.approx(60.0)
    assert soft.move(14.0).remaining == pytest.approx(55.0)


def test_software_clock_needs_a_timed_control() -> None:
    with pytest.raises(ValueError, match="timed control"):
        SoftwareClock(parse_time_control("-"))


def test_format_clock() -> None:
    assert format_clock(3725.4) == "1:02:05" and format_clock(-3) == "0:00:00"


def test_a_game_joined_late_takes_the_side_to_move_as_the_first_running_clock() -> None:
    from clocks.move_times import ClockTimes
    from clocks.reading import ClockReading

    times = ClockTimes()
    times.expect_first("black")  # four plies already known, then the first reading
    times.feed(10.0, ClockReading(900, 905, running=True, right_lever_high=True))
    assert times.white_side == "left" and times.colour_of("right") == "black"
    other = ClockTimes()
    other.expect_first("white")
    other.feed(10.0, ClockReading(900, 905, running=True, right_lever_high=True))
    assert other.white_side == "right"
