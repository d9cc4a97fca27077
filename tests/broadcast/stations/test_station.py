"""A station's pieces that need no Redis (`broadcast.stations.station`): the venue's
clock never steps back, and a driver's events on a pseudo-terminal name the venue's
port."""

from __future__ import annotations

from boards.driver_events import BoardConnected, BoardInfo, PositionSeen
from boards.recovery import START
from broadcast.stations.station import VenueClock
from broadcast.stations.wire import Venue, renamed_port


def test_the_venue_clock_runs_at_the_venues_speed_and_never_steps_back() -> None:
    walls = iter([100.0, 101.0, 100.5, 103.0])
    venue = Venue("V", (), start=5000.0, wall0=100.0, speed=10.0, host="h", pid=1)
    clock = VenueClock(venue, wall=lambda: next(walls))
    assert clock.speed == 10.0
    assert [clock.now() for _ in range(4)] == [5000.0, 5010.0, 5010.0, 5030.0]


def test_events_name_the_venues_port() -> None:
    info = BoardInfo("/dev/pts/7", "", (1, 0), "single")
    connected = BoardConnected(1.0, "/dev/pts/7", info)
    renamed = renamed_port(connected, "/dev/pts/7", "/dev/ttyUSB0")
    assert isinstance(renamed, BoardConnected)
    assert renamed.board == "/dev/ttyUSB0" and renamed.info.port == "/dev/ttyUSB0"
    seen = PositionSeen(2.0, "12345", START)
    assert renamed_port(seen, "/dev/pts/7", "/dev/ttyUSB0") is seen
