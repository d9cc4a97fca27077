"""Run a recorded or simulated timeline through a Reconstructor (virtual time).

Between inputs the reconstructor's own deadlines are ticked exactly when due, as a live
driver sleeping until `next_deadline()` would; nothing here sleeps.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from boards.driver_events import PositionSeen
from boards.position import BoardPosition
from boards.reconstruction.reconstruction_events import ReconstructionEvent
from boards.reconstruction.reconstructor import Reconstructor
from clocks.reading import ClockReading, NoClock

# A driver's PositionSeen carries the `recovered` mark of positions replayed from the EEPROM.
Input = BoardPosition | PositionSeen | ClockReading | NoClock


def deadlines_until(next_deadline: Callable[[], float | None], t: float) -> Iterator[float]:
    """The times to tick at to fire every deadline due up to and including `t`, in order:
    each deadline as it falls due (the caller ticks at it, which moves it on). A deadline
    that does not move on would spin forever: then `t` once, and no more (let the input
    time decide). The one "tick deadlines up to t" of the live service, the offline
    replays and this driver."""
    previous: float | None = None
    while (due := next_deadline()) is not None and due <= t:
        if previous is not None and due <= previous:
            yield t
            return
        yield due
        previous = due


def tick_until(rec: Reconstructor, t: float) -> list[ReconstructionEvent]:
    """Fire every deadline due up to and including `t`."""
    events: list[ReconstructionEvent] = []
    for due in deadlines_until(rec.next_deadline, t):
        events.extend(rec.tick(due))
    return events


def drive(
    rec: Reconstructor, inputs: Iterable[tuple[float, Input]], until: float | None = None
) -> list[ReconstructionEvent]:
    """Feed time-ordered (t, position or clock reading) pairs; tick to `until` at the end
    (default: 30 s after the last input, long enough for every wait to expire)."""
    events: list[ReconstructionEvent] = []
    last = 0.0
    for t, item in inputs:
        events.extend(tick_until(rec, t))
        if isinstance(item, BoardPosition):
            events.extend(rec.feed_position(t, item))
        elif isinstance(item, PositionSeen):
            # A recovered position carries its own (estimated) time of the outage.
            at = item.t if item.recovered else t
            events.extend(rec.feed_position(at, item.position, recovered=item.recovered))
        else:
            events.extend(rec.feed_clock(t, item))
        last = t
    end = last + 30.0 if until is None else until
    events.extend(tick_until(rec, end))
    events.extend(rec.tick(end))
    return events


__all__ = ["Input", "deadlines_until", "drive", "tick_until"]
