"""Which driver reads a port (`boards.drivers.for_port`): a bus line for several boards or
any bus address, one board's driver otherwise, with what was known of its boards."""

from __future__ import annotations

from collections.abc import Sequence

from boards.drivers.bus import BusDriver
from boards.drivers.for_port import driver_for
from boards.drivers.link import Link
from boards.drivers.single import SingleBoardDriver
from boards.recovery import KnownBoard
from clocks.timesource import ManualTime


async def _never(port: str) -> Link:
    raise OSError("not opened in this test")


def _driver(
    boards: int, addresses: Sequence[int], known: Sequence[KnownBoard] = ()
) -> BusDriver | SingleBoardDriver:
    return driver_for(
        "/dev/x",
        lambda e: None,
        boards=boards,
        addresses=addresses,
        known=known,
        time_source=ManualTime(),
        opener=_never,
    )


def test_bus_lines_and_single_boards() -> None:
    older, newer = KnownBoard("1", None, (), 10.0), KnownBoard("1", None, (), 20.0)
    assert isinstance(_driver(1, [7]), BusDriver)  # an address: a bus line, if of one
    assert isinstance(_driver(2, []), BusDriver)
    single = _driver(1, [], [older, newer])
    assert isinstance(single, SingleBoardDriver)
    assert single._known is newer  # the board heard from last
