"""A station's pieces that need no Redis (`broadcast.stations.station`): the venue's
clock never steps back, and a driver's events on a pseudo-terminal name the venue's
port."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import pytest

from boards.driver_events import BoardConnected, BoardInfo, PositionSeen
from boards.drivers.link import open_serial
from boards.recovery import START
from broadcast.journal.kinds import register_all
from broadcast.service.health import Health
from broadcast.service.supervisor import Supervisor
from broadcast.stations import station as station_module
from broadcast.stations.outbox import Outbox
from broadcast.stations.station import Station, VenueClock
from broadcast.stations.wire import Venue, VenueBoard, renamed_port
from clocks.timesource import ManualTime

register_all()


def test_the_venue_clock_runs_at_the_venues_speed_and_never_steps_back() -> None:
    walls = iter([100.0, 101.0, 100.5, 103.0])
    venue = Venue("V", (), start=5000.0, wall0=100.0, speed=10.0, host="h", pid=1)
    clock = VenueClock(venue, wall=lambda: next(walls))
    assert clock.speed == 10.0
    assert [clock.now() for _ in range(4)] == [5000.0, 5010.0, 5010.0, 5030.0]
    # The central serve restarted: its new clock is taken, never stepping back.
    walls = iter([104.0, 200.0])
    clock.retime(Venue("V", (), start=4000.0, wall0=100.0, speed=20.0, host="h", pid=2))
    assert clock.speed == 20.0
    assert [clock.now() for _ in range(2)] == [5030.0, 6000.0]


def test_events_name_the_venues_port() -> None:
    info = BoardInfo("/dev/pts/7", "", (1, 0), "single")
    connected = BoardConnected(1.0, "/dev/pts/7", info)
    renamed = renamed_port(connected, "/dev/pts/7", "/dev/ttyUSB0")
    assert isinstance(renamed, BoardConnected)
    assert renamed.board == "/dev/ttyUSB0" and renamed.info.port == "/dev/ttyUSB0"
    seen = PositionSeen(2.0, "12345", START)
    assert renamed_port(seen, "/dev/pts/7", "/dev/ttyUSB0") is seen


class _Sender:
    """A sender that only counts its wake-ups (no Redis)."""

    def __init__(self) -> None:
        self.woken = 0

    def wake(self) -> None:
        self.woken += 1

    async def run(self) -> None:
        await asyncio.Event().wait()

    async def drain(self, timeout: float) -> bool:
        return False  # no link: nothing is sent on stopping


@pytest.mark.expected_log(r"station east-1: the outbox .* cannot be written .* kept in memory")
async def test_an_unwritable_outbox_is_said_once_and_written_when_it_can_be(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(station_module, "COMMIT_RETRY", 0.05)
    venue = Venue("V", (VenueBoard(1, "east-1", "/dev/ttyUSB0", None),), 0.0, 0.0, 1.0, "h", 1)
    box = Outbox.open(tmp_path / "o.sqlite")
    sender = _Sender()
    station = Station(
        "east-1",
        venue,
        box,
        sender,  # type: ignore[arg-type]
        Supervisor(Health()),
        clock=ManualTime(10.0),
        opener=open_serial,
        devices={"/dev/ttyUSB0": str(tmp_path / "no-such-device")},
    )
    running = asyncio.ensure_future(station.run())
    pages = box._db.execute("PRAGMA page_count").fetchone()[0]
    box._db.execute(f"PRAGMA max_page_count = {pages}")  # the disk is full
    events = [PositionSeen(float(t), "12345", START, change=(t % 64, 1)) for t in range(300)]
    for e in events[:150]:
        station._emit("/dev/ttyUSB0", "/dev/ttyUSB0", e)
    await asyncio.sleep(0.2)  # several attempts
    for e in events[150:]:
        station._emit("/dev/ttyUSB0", "/dev/ttyUSB0", e)
    await asyncio.sleep(0.1)
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1 and "Free disk space" in errors[0].getMessage()
    assert station.unwritable is not None and box.staged == 300 and box.durable_seq == 0
    woken = sender.woken
    box._db.execute("PRAGMA max_page_count = 1073741823")  # space again
    await asyncio.sleep(0.2)
    assert box.durable_seq == 300 and box.staged == 0 and station.unwritable is None
    assert sender.woken > woken
    assert [p.event for p in box.unsent(1000)] == events
    station.stop()
    await running
    box.close()


def test_a_board_starts_from_whoever_heard_it_last(tmp_path: Path) -> None:
    """A fresh outbox takes what the central serve knows; an outbox that knows the board
    keeps its own memory unless the central serve heard the board later (an old laptop
    brought back after its replacement ran the boards)."""
    from boards.recovery import KnownBoard

    board = VenueBoard(1, "east-1", "/dev/ttyUSB0", None)
    venue = Venue("V", (board,), 0.0, 0.0, 1.0, "h", 1)
    box = Outbox.open(tmp_path / "o.sqlite")

    def station(central: dict[int, KnownBoard]) -> Station:
        return Station(
            "east-1", venue, box, _Sender(), Supervisor(Health()),  # type: ignore[arg-type]
            clock=ManualTime(10.0), opener=open_serial, central=central,
        )  # fmt: skip

    later = KnownBoard("12345", START, (), 500.0)
    assert station({1: later}).known("/dev/ttyUSB0", [board]) == [later]  # fresh outbox
    box.append("/dev/ttyUSB0", PositionSeen(100.0, "12345", START, change=(12, 0)))
    box.commit()
    [mine] = station({}).known("/dev/ttyUSB0", [board])
    assert mine.last_seen == 100.0
    assert station({1: later}).known("/dev/ttyUSB0", [board]) == [later]
    earlier = KnownBoard("12345", START, (), 50.0)
    assert station({1: earlier}).known("/dev/ttyUSB0", [board])[0].last_seen == 100.0
    box.close()


async def test_boards_wanted_by_serial_are_found_on_free_ports_and_read_there(
    tmp_path: Path,
) -> None:
    """A single board and a bus line of two on pseudo-terminals; the venue wants boards
    20003 (any station), 20005 and 20006 (this station only), not 20009 (plugged in
    here too). One look finds the wanted ones and starts a driver for each port; the
    ports it reads are not probed again; the unwanted board is left alone."""
    from boardsim.board import EmulatedBoard
    from boardsim.busline import BusLine
    from boardsim.pty import PtyHost
    from boardsim.timing import ScaledTime
    from broadcast.stations.wire import WantedBoard

    wanted = (WantedBoard(3, "20003"), WantedBoard(5, "12005", "east-1"), WantedBoard(6, "12006"))
    venue = Venue("V", (), 0.0, 0.0, 1.0, "h", 1, wanted)
    clock = ScaledTime(speed=20.0)  # the bus ping's window passes quickly
    async with (
        PtyHost(EmulatedBoard("20003"), tmp_path / "acm0", time_source=clock) as single,
        PtyHost(BusLine.with_serials(["12005", "12006"], seed=1), tmp_path / "usb0",
                time_source=clock) as bus,
        PtyHost(EmulatedBoard("20009"), tmp_path / "acm1", time_source=clock) as other,
    ):  # fmt: skip
        box = Outbox.open(tmp_path / "o.sqlite")
        paths = [str(single.path), str(bus.path), str(other.path)]
        probed: list[list[str]] = []

        async def prober(ports: list[str]) -> list[Any]:
            probed.append(ports)
            from boards.drivers.discovery import probe_ports

            return await probe_ports(ports)

        station = Station(
            "east-1",
            venue,
            box,
            _Sender(),  # type: ignore[arg-type]
            Supervisor(Health()),
            clock=ManualTime(10.0),
            opener=open_serial,
            probe_paths=lambda: paths,
            prober=prober,
        )
        assert not station.all_connected()  # 12005 is this station's to find
        added = await station.discover_once()
        assert sorted((b.number, b.port, b.address) for b in added) == [
            (3, str(single.path), None),
            (5, str(bus.path), 12005),
            (6, str(bus.path), 12006),
        ]
        running = asyncio.ensure_future(station.run())
        for _ in range(200):
            if station.connected() == (3, 5, 6):
                break
            await asyncio.sleep(0.05)
        assert station.connected() == (3, 5, 6) and station.all_connected()
        assert await station.discover_once() == []  # every wanted board is found
        # Events name the port they came from; the central serve places the boards there.
        connected = [p.event for p in box.unsent(1000) if isinstance(p.event, BoardConnected)]
        assert {(c.board, c.info.port) for c in connected} >= {
            ("20003", str(single.path)),
        }
        station.stop()
        await running
        box.close()
    assert probed == [paths]
