"""The two kinds of time source: the event's (epoch, with a declared speed) and the
drivers' (monotonic only)."""

from __future__ import annotations

import time

import pytest

from boardsim.timing import ScaledTime
from clocks.timesource import EpochTime, ManualTime, SystemTime


def test_epoch_sources_declare_their_speed_as_a_float() -> None:
    assert EpochTime(3).speed == 3.0 and isinstance(EpochTime(3).speed, float)
    assert ManualTime(1_766_419_000.0).speed == 1.0  # virtual: it never runs on its own
    assert ScaledTime(40).speed == 40.0


def test_epoch_time_starts_at_the_wall_clock_and_never_steps_back() -> None:
    before = time.time()
    clock = EpochTime(10.0)
    first = clock.now()
    assert before - 1 <= first <= time.time() + 1
    assert clock.now() >= first


def test_the_monotonic_clock_has_no_speed_and_no_epoch() -> None:
    # The service reads `speed` from its time source: a monotonic one has none to give.
    assert not hasattr(SystemTime(), "speed")
    assert SystemTime().now() == pytest.approx(time.monotonic(), abs=1.0)


def test_manual_time_refuses_to_go_back() -> None:
    clock = ManualTime(10.0)
    clock.advance(5)
    assert clock.now() == 15.0
    with pytest.raises(ValueError, match="backwards"):
        clock.set(14.0)
