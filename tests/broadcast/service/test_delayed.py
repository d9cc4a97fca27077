"""The public view never shows anything younger than the delay."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from broadcast.service.delayed import DelayedView


def test_boundaries() -> None:
    view = DelayedView(900.0, "empty", t0=0.0)
    view.record(1000.0, "e4")
    view.record(1005.0, "e4 e5")
    assert view.at(1899.999) == "empty"
    assert view.at(1900.0) == "e4"  # exactly the delay old: may be shown
    assert view.at(1904.0) == "e4"
    assert view.at(1905.0) == "e4 e5"
    assert len(view) == 1  # older snapshots are gone


def test_zero_delay_is_live() -> None:
    view = DelayedView(0.0, 0)
    view.record(5.0, 1)
    assert view.at(5.0) == 1


@given(
    st.lists(st.floats(0, 10_000), min_size=1, max_size=40),
    st.floats(0, 3600),
    st.floats(0, 20_000),
)
def test_never_younger_than_the_delay(times: list[float], delay: float, now: float) -> None:
    times.sort()
    view: DelayedView[float | None] = DelayedView(delay, None)
    for t in times:
        view.record(t, t)
    shown = view.at(now)
    if shown is not None:
        assert shown <= now - delay
        # and it is the newest such snapshot
        assert shown == max(t for t in times if t <= now - delay)
    else:
        assert all(t > now - delay for t in times)
