"""The emulated DGT 3000 clock: times, lever, increments, flags, SETNRUN, acks."""

from __future__ import annotations

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from boards.dgt.clock_commands import (
    SETNRUN_LEFT_COUNTS_DOWN,
    SETNRUN_PAUSE,
    SETNRUN_RIGHT_COUNTS_DOWN,
    ClockAscii,
    ClockBeep,
    ClockEnd,
    ClockSetAndRun,
    ClockVersion,
)
from boardsim.clock import EmulatedClock
from clocks.reading import ClockAck, ClockReading, NoClock, decode_bwtime, encode_bwtime


def reading(clock: EmulatedClock, t: float) -> ClockReading:
    r = clock.reading(t)
    assert isinstance(r, ClockReading)
    return r


def test_paused_until_first_press_then_other_side_runs() -> None:
    clock = EmulatedClock(300, 300)
    r = reading(clock, 10.0)
    assert (r.left_seconds, r.right_seconds, r.running) == (300, 300, False)
    # Black (right) presses to start White's (left) clock.
    assert clock.press_lever("right", 10.0) is not None
    r = reading(clock, 12.5)
    assert r.running and r.running_side == "left" and not r.right_lever_high
    assert r.left_seconds == 298  # 297.5 shown rounded up
    assert r.right_seconds == 300


def test_lever_switches_sides_and_is_idempotent() -> None:
    clock = EmulatedClock(100, 100)
    clock.press_lever("right", 0.0)
    result = clock.press_lever("left", 10.0)
    assert result is not None and result.stopped == "left" and result.seconds == 90
    assert clock.press_lever("left", 11.0) is None  # already down
    r = reading(clock, 15.0)
    assert r.running_side == "right" and r.right_lever_high
    assert (r.left_seconds, r.right_seconds) == (90, 95)


def test_increment_added_to_the_side_that_pressed() -> None:
    clock = EmulatedClock(60, 60, increment=30)
    clock.press_lever("right", 0.0)  # start: no increment, right was not running
    assert reading(clock, 0.0).right_seconds == 60
    result = clock.press_lever("left", 5.0)
    assert result is not None and result.seconds == 85  # 55 + 30
    r = reading(clock, 5.0)
    assert r.left_increment_mode and r.right_increment_mode
    assert (r.left_seconds, r.right_seconds) == (85, 60)


def test_sub_second_precision_accumulates() -> None:
    clock = EmulatedClock(10, 10)
    clock.press_lever("right", 0.0)
    for i in range(1, 5):
        clock.press_lever("left", i * 1.0 - 0.75)
        clock.press_lever("right", i * 1.0)
    # Left ran 0.25 s four times: 9.0 s left exactly.
    assert clock.seconds("left", 4.0) == pytest.approx(9.0)
    assert reading(clock, 4.0).left_seconds == 9


def test_final_flag_blocks_at_zero() -> None:
    clock = EmulatedClock(5, 20)
    clock.press_lever("right", 0.0)
    r = reading(clock, 7.0)
    assert r.left_seconds == 0 and r.left_final_flag and r.left_flag
    assert not r.running and not r.right_final_flag
    assert clock.press_lever("left", 8.0) is None  # blocked
    raw = encode_bwtime(r)
    assert raw[3] & 0x10 and raw[3] & 0x40  # final flag and flag shown bits, left side
    assert decode_bwtime(raw) == r


def test_flag_without_blocking_lets_the_clock_run_on() -> None:
    clock = EmulatedClock(5, 20, block_at_flag=False)
    clock.press_lever("right", 0.0)
    r = reading(clock, 7.0)
    assert r.left_seconds == 0 and r.left_flag and not r.left_final_flag and r.running
    clock.press_lever("left", 8.0)
    assert reading(clock, 10.0).right_seconds == 18


def test_setnrun_sets_times_and_counts_down() -> None:
    clock = EmulatedClock(5400, 5400)
    ack = clock.handle_command(
        ClockSetAndRun(125, 3600, SETNRUN_LEFT_COUNTS_DOWN | SETNRUN_RIGHT_COUNTS_DOWN), 1.0
    )
    assert ack == ClockAck(0x10, 0x0A, 0, 0)
    r = reading(clock, 3.0)
    assert r.running and r.running_side == "left" and r.left_seconds == 123
    assert r.right_seconds == 3600


def test_setnrun_pause_and_count_up() -> None:
    clock = EmulatedClock()
    clock.handle_command(ClockSetAndRun(10, 10, SETNRUN_PAUSE), 0.0)
    assert not reading(clock, 5.0).running
    clock.handle_command(ClockSetAndRun(10, 10, 0), 5.0)  # neither side counts down
    assert reading(clock, 8.0).left_seconds == 13


def test_version_and_other_acks() -> None:
    clock = EmulatedClock()
    ack = clock.handle_command(ClockVersion(), 0.0)
    assert ack is not None and ack.ok and ack.version == (2, 2)
    ack = clock.handle_command(ClockAscii("hello", 1), 0.0)
    assert ack is not None and ack.command == 0x0C and clock.text == "hello"
    ack = clock.handle_command(ClockEnd(), 0.0)
    assert ack is not None and ack.command == 0x03 and clock.text is None
    ack = clock.handle_command(ClockBeep(4), 0.0)
    assert ack is not None and ack.command == 0x0B


def test_unplugged_clock_reads_no_clock_and_does_not_ack() -> None:
    clock = EmulatedClock()
    clock.connected = False
    assert clock.reading(0.0) == NoClock()
    assert clock.handle_command(ClockVersion(), 0.0) is None


def test_battery_low_bit() -> None:
    clock = EmulatedClock()
    clock.battery_low = True
    assert reading(clock, 0.0).battery_low
    assert encode_bwtime(clock.reading(0.0))[6] & 0x04


def test_buttons_are_reported_as_clock_acks() -> None:
    ack = EmulatedClock().button("plus")
    assert ack.from_clock and ack.button == 0x32
    with pytest.raises(ValueError, match="unknown clock button"):
        EmulatedClock().button("reset")


def test_time_cannot_go_backwards_and_sides_are_checked() -> None:
    clock = EmulatedClock()
    clock.reading(5.0)
    with pytest.raises(ValueError, match="backwards"):
        clock.reading(4.0)
    with pytest.raises(ValueError, match="'left' or 'right'"):
        clock.press_lever("white", 6.0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="9:59:59"):
        EmulatedClock(10 * 3600, 0)


@given(
    st.integers(0, 9 * 3600 + 59 * 60 + 59),
    st.integers(0, 9 * 3600 + 59 * 60 + 59),
    st.booleans(),
    st.booleans(),
)
def test_reading_round_trips_through_bwtime(left: int, right: int, run: bool, side: bool) -> None:
    clock = EmulatedClock(left, right, increment=2 if side else 0)
    if run:
        clock.press_lever("left" if side else "right", 0.0)
    r = clock.reading(0.0)
    # An all-zero payload is noise by the protocol's rules (a stopped 0:00/0:00 clock).
    assume(any(encode_bwtime(r)))
    assert decode_bwtime(encode_bwtime(r)) == r
