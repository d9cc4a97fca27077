"""Drivers never die silently and catch power glitches: a software error in a driver is
logged once with its traceback, reported (a `DriverFault`, the board lost) and retried; a
log that cannot be read is a `LogGap`, not a crash; a board that rebooted (a power cut,
a watchdog reset) and stopped streaming is noticed within seconds and its moves read
back from its log; one board's failure never stops another on its bus line."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from boards.driver_events import (
    BoardConnected,
    BoardLost,
    DriverEvent,
    DriverFault,
    LogGap,
    LogRecovered,
    PositionSeen,
)
from boards.drivers import bus as busdriver
from boards.drivers import session, supervise
from boards.drivers.bus import BusDriver, BusSettings
from boards.drivers.single import DriverSettings, SingleBoardDriver
from boards.from_messages import BoardStream
from boards.reconstruction import MovePlayed
from boards.reconstruction.follow import BoardFollower
from boardsim.board import EmulatedBoard
from boardsim.busline import BusLine
from boardsim.pty import PtyHost
from tests.support.event_log import EventLog, fen_after, idx, running

# Polls often, but the link counts as dead only after 6 s: a board that is back within
# that time is noticed by what it stops sending, not by silence.
SETTINGS = DriverSettings(
    poll_interval=0.3,
    dead_after=6.0,
    backoff=(0.1, 0.2),
    reply_timeout=1.0,
    optional_timeout=0.2,
    verify_every=1.0,
    clock_silent_after=1.5,
    clock_silent_real=0.5,
    clock_probe_after=0.6,
)
BUS = BusSettings(
    reply_timeout=0.15,
    clock_every=0.2,
    verify_every=5,
    retry_lost_every=0.2,
    health_every=0.3,
    min_cycle=0.02,
    backoff=(0.1,),
)
PAWN, KNIGHT, BLACK_PAWN = 0x01, 0x03, 0x07


def play(host: PtyHost, uci: str, code: int, side: str | None, board: int = 0) -> None:
    host.set_square(idx(uci[:2]), 0, board=board)
    host.set_square(idx(uci[2:]), code, board=board)
    if side is not None:
        host.press_lever("left" if side == "left" else "right", board=board)


def moves(events: list[DriverEvent], board: str | None = None) -> list[tuple[str, float | None]]:
    """The game the product makes of these driver events (SAN, clock time left)."""
    follower = BoardFollower(board or "b")
    out = []
    for event in events:
        if board is None or event.board == board:
            out += follower.handle(event)
    out += follower.tick(max((e.t for e in events), default=0.0) + 60.0)
    return [
        (e.san, e.clock.remaining if e.clock else None) for e in out if isinstance(e, MovePlayed)
    ]


def last_fen(log: EventLog, board: str | None = None) -> str | None:
    seen = [p for p in log.of(PositionSeen) if board is None or p.board == board]
    return seen[-1].position.board_fen() if seen else None


def errors(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.levelno >= logging.ERROR]


# -- single board: software errors ---------------------------------------------------------


@pytest.mark.expected_log(r"stopped on a software error \(RuntimeError: a bug in the stream\)")
async def test_a_software_error_is_logged_reported_and_the_driver_reconnects(
    tmp_path: Path,
    event_log: EventLog,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The old Supervised.run retried only link errors: this ended the driver silently.
    real_feed = BoardStream.feed
    broken = {"left": 2}

    def feed(self: BoardStream, t: float, message: object) -> list[DriverEvent]:
        if type(message).__name__ == "FieldUpdate" and broken["left"] > 0:
            broken["left"] -= 1
            raise RuntimeError("a bug in the stream")
        return real_feed(self, t, message)  # type: ignore[arg-type]

    monkeypatch.setattr(BoardStream, "feed", feed)
    monkeypatch.setattr(supervise, "FAULT_BACKOFF", (0.3,))
    board = EmulatedBoard("10001", download_rate=None)
    async with PtyHost(board, tmp_path / "board-1") as host:
        async with running(SingleBoardDriver(str(host.path), event_log, settings=SETTINGS)):
            await event_log.wait_for(lambda: event_log.of(PositionSeen), what="connect")
            host.set_square(idx("e2"), 0)  # the stream fails on this update
            await event_log.wait_for(lambda: event_log.of(DriverFault), what="the fault")
            (fault,) = event_log.of(DriverFault)[:1]
            assert fault.board == "10001" and fault.port == str(host.path)
            assert fault.error == "RuntimeError: a bug in the stream"
            lost = event_log.of(BoardLost)
            assert lost and "software error" in lost[0].reason and "RuntimeError" in lost[0].reason
            await event_log.wait_for(
                lambda: len(event_log.of(BoardConnected)) == 2, what="reconnect", timeout=15
            )
            host.set_square(idx("e4"), PAWN)  # and again
            await event_log.wait_for(
                lambda: len(event_log.of(DriverFault)) == 2, what="the same fault again", timeout=15
            )
            # The same error again is one line, not a second traceback.
            assert len(errors(caplog)) == 1 and errors(caplog)[0].exc_info is not None
            await event_log.wait_for(
                lambda: len(event_log.of(BoardConnected)) == 3, what="reconnect", timeout=15
            )
            play(host, "d7d5", BLACK_PAWN, None)
            await event_log.wait_for(
                lambda: last_fen(event_log) == fen_after("e2e4", "d7d5"), what="d5 after the faults"
            )


@pytest.mark.expected_log(r"reading the log of board .* stopped on a software error \(IndexError")
async def test_a_log_that_fails_to_read_is_a_gap_and_the_dump_is_taken(
    tmp_path: Path,
    event_log: EventLog,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(*args: object, **kw: object) -> None:
        raise IndexError("list index out of range")

    monkeypatch.setattr(session, "recover", broken)
    board = EmulatedBoard("10001", download_rate=None)
    async with PtyHost(board, tmp_path / "board-1") as host:
        async with running(SingleBoardDriver(str(host.path), event_log, settings=SETTINGS)):
            await event_log.wait_for(lambda: event_log.of(PositionSeen), what="connect")
            play(host, "e2e4", PAWN, None)
            await event_log.wait_for(lambda: last_fen(event_log) == fen_after("e2e4"), what="e4")
            host.unplug()
            await event_log.wait_for(lambda: event_log.of(BoardLost), what="loss")
            play(host, "e7e5", BLACK_PAWN, None)
            host.plug()
            await event_log.wait_for(lambda: event_log.of(LogGap), what="the gap", timeout=15)
            (gap,) = event_log.of(LogGap)
            assert gap.board == "10001" and gap.port == str(host.path)
            assert "IndexError" in gap.reason
            await event_log.wait_for(
                lambda: last_fen(event_log) == fen_after("e2e4", "e7e5"), what="the dump"
            )
            assert not event_log.of(LogRecovered)
            assert len(event_log.of(BoardConnected)) == 2  # connected once more, not looping
    assert len(errors(caplog)) == 1


# -- single board: reboots ------------------------------------------------------------------


Cut = Callable[[PtyHost], None]


def power_cut(host: PtyHost) -> None:
    host.lose_power(1.0)


def watchdog(host: PtyHost) -> None:
    host.boards[0].watchdog_reset(host.now())


@pytest.mark.parametrize(
    ("firmware", "cut"),
    [
        ("no-beginpos", power_cut),
        ("start-tag", power_cut),
        ("nop-padding", watchdog),
        ("classic", watchdog),
    ],
    ids=["no-beginpos-power", "start-tag-power", "padding-watchdog", "watchdog"],
)
async def test_a_rebooted_single_board_is_noticed_and_its_moves_recovered(
    tmp_path: Path, event_log: EventLog, firmware: str, cut: Cut
) -> None:
    # A rebooted board answers the polls but streams nothing: the old driver never noticed
    # (it took the dump 20 s later, without the moves' order and clock times).
    board = EmulatedBoard("10001", download_rate=None, firmware=firmware)
    async with PtyHost(board, tmp_path / "board-1") as host:
        host.setup_clock(600, 600, 0)
        async with running(SingleBoardDriver(str(host.path), event_log, settings=SETTINGS)):
            await event_log.wait_for(lambda: event_log.of(PositionSeen), what="connect")
            host.press_lever("right")  # White's clock starts
            await asyncio.sleep(0.3)
            play(host, "e2e4", PAWN, "left")
            await event_log.wait_for(lambda: last_fen(event_log) == fen_after("e2e4"), what="e4")
            await asyncio.sleep(0.3)
            cut(host)
            await asyncio.sleep(1.6)  # off (or restarting), then booted: idle
            play(host, "e7e5", BLACK_PAWN, "right")
            await asyncio.sleep(0.3)
            play(host, "g1f3", KNIGHT, "left")
            cut_at = host.now()
            await event_log.wait_for(
                lambda: last_fen(event_log) == fen_after("e2e4", "e7e5", "g1f3"),
                what="the moves after the reboot",
                timeout=8,
            )
            (lost,) = event_log.of(BoardLost)
            assert "rebooted" in lost.reason
            assert lost.t - cut_at < 4.0  # noticed within seconds
            assert event_log.of(BoardConnected)[-1].reconnect
            assert not event_log.of(LogGap)
    got = moves(event_log.events)
    assert [san for san, _ in got] == ["e4", "e5", "Nf3"]
    assert all(clock is not None for _, clock in got), got


async def test_a_move_made_while_the_board_had_no_power_gets_its_time_from_the_clock(
    tmp_path: Path, event_log: EventLog
) -> None:
    # ...e5 is made and pressed in the dark: no record of it but the reboot's dump. The
    # clock (its own batteries) showed Black's time until White pressed again: the driver
    # reads it before the log's download.
    board = EmulatedBoard("10001", download_rate=None)
    async with PtyHost(board, tmp_path / "board-1") as host:
        host.setup_clock(600, 600, 0)
        async with running(SingleBoardDriver(str(host.path), event_log, settings=SETTINGS)):
            await event_log.wait_for(lambda: event_log.of(PositionSeen), what="connect")
            host.press_lever("right")
            await asyncio.sleep(0.3)
            play(host, "e2e4", PAWN, "left")
            await event_log.wait_for(lambda: last_fen(event_log) == fen_after("e2e4"), what="e4")
            host.lose_power(1.0)
            await asyncio.sleep(0.3)
            play(host, "e7e5", BLACK_PAWN, "right")  # in the dark
            await event_log.wait_for(lambda: event_log.of(LogRecovered), what="the log", timeout=8)
    got = moves(event_log.events)
    black = board.presses[2][1]  # what the clock showed after ...e5
    assert got == [("e4", float(board.presses[1][1])), ("e5", float(black))]


async def test_the_clock_as_the_reboot_left_it_times_the_move_made_in_the_dark(
    tmp_path: Path, event_log: EventLog
) -> None:
    # As above, but White replies as soon as the board is back, before the driver has
    # ended the session: the clock read before the log shows White's time running then.
    # The driver asked the silent board for its clock, and the first answer after the
    # reboot still showed what ...e5's press left.
    board = EmulatedBoard("10001", download_rate=None)
    slow = replace(SETTINGS, clock_silent_after=3.5, verify_every=30.0)  # ended after Nf3
    async with PtyHost(board, tmp_path / "board-1") as host:
        host.setup_clock(600, 600, 0)
        async with running(SingleBoardDriver(str(host.path), event_log, settings=slow)):
            await event_log.wait_for(lambda: event_log.of(PositionSeen), what="connect")
            host.press_lever("right")
            await asyncio.sleep(0.3)
            play(host, "e2e4", PAWN, "left")
            await event_log.wait_for(lambda: last_fen(event_log) == fen_after("e2e4"), what="e4")
            host.lose_power(1.0)
            await asyncio.sleep(0.3)
            play(host, "e7e5", BLACK_PAWN, "right")  # in the dark
            await asyncio.sleep(1.2 + 0.8)  # power back, booted, and asked
            play(host, "g1f3", KNIGHT, "left")
            await event_log.wait_for(lambda: event_log.of(LogRecovered), what="the log", timeout=8)
            await event_log.wait_for(
                lambda: last_fen(event_log) == fen_after("e2e4", "e7e5", "g1f3"), what="Nf3"
            )
    times = [float(seconds) for _, seconds in board.presses[1:]]
    assert moves(event_log.events) == list(zip(["e4", "e5", "Nf3"], times, strict=True))


async def test_a_board_that_rebooted_with_its_clock_stopped_is_caught_by_the_dump_check(
    tmp_path: Path, event_log: EventLog
) -> None:
    board = EmulatedBoard("10001", download_rate=None)
    async with PtyHost(board, tmp_path / "board-1") as host:
        async with running(SingleBoardDriver(str(host.path), event_log, settings=SETTINGS)):
            await event_log.wait_for(lambda: event_log.of(PositionSeen), what="connect")
            host.lose_power(0.5)
            await asyncio.sleep(1.2)
            play(host, "d2d4", PAWN, None)
            await event_log.wait_for(
                lambda: last_fen(event_log) == fen_after("d2d4"), what="d4", timeout=6
            )
            (lost,) = event_log.of(BoardLost)
            assert "dump differs" in lost.reason
            (recovered,) = event_log.of(LogRecovered)
            assert recovered.final.board_fen() == fen_after("d2d4")


# -- the bus ---------------------------------------------------------------------------------


@pytest.mark.expected_log(
    r"board 10001 stopped on a software error \(ValueError: a bug while reading"
)
async def test_one_boards_software_error_never_stops_the_others_on_the_line(
    tmp_path: Path,
    event_log: EventLog,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The old bus driver let it escape: the whole line's driver ended, both boards dark.
    real_feed_bus = BoardStream.feed_bus
    broken = {"left": 1}

    def feed_bus(self: BoardStream, t: float, reply: object) -> list[DriverEvent]:
        got = real_feed_bus(self, t, reply)  # type: ignore[arg-type]
        if (
            self.board == "10001"
            and broken["left"]
            and any(isinstance(e, PositionSeen) and e.change for e in got)
        ):
            broken["left"] -= 1
            raise ValueError("a bug while reading its changes")
        return got

    monkeypatch.setattr(BoardStream, "feed_bus", feed_bus)
    monkeypatch.setattr(busdriver, "FAULT_BACKOFF", (0.5,))
    line = BusLine.with_serials(["10001", "10002"], seed=2)
    async with PtyHost(line, tmp_path / "bus-1") as host:
        async with running(BusDriver(str(host.path), event_log, settings=BUS)):
            await event_log.wait_for(
                lambda: len(event_log.of(BoardConnected)) == 2, what="both boards", timeout=10
            )
            play(host, "e2e4", PAWN, None, board=0)
            await event_log.wait_for(lambda: event_log.of(DriverFault), what="the fault")
            (fault,) = event_log.of(DriverFault)
            assert (fault.board, fault.port) == ("10001", str(host.path))
            assert fault.error == "ValueError: a bug while reading its changes"
            assert [b.board for b in event_log.of(BoardLost)] == ["10001"]
            play(host, "d2d4", PAWN, None, board=1)  # the other board goes on
            await event_log.wait_for(
                lambda: last_fen(event_log, "10002") == fen_after("d2d4"), what="board 2"
            )
            await event_log.wait_for(
                lambda: last_fen(event_log, "10001") == fen_after("e2e4"),
                what="board 1 back, read from its log",
                timeout=10,
            )
    assert len(errors(caplog)) == 1


@pytest.mark.parametrize("firmware", ["classic", "start-tag"])
async def test_a_bus_board_that_lost_power_is_read_again_from_its_log(
    tmp_path: Path, event_log: EventLog, firmware: str
) -> None:
    line = BusLine.with_serials(["10001", "10002"], seed=3, firmware=(firmware,))
    async with PtyHost(line, tmp_path / "bus-1") as host:
        host.setup_clock(600, 600, 0, board=0)
        async with running(BusDriver(str(host.path), event_log, settings=BUS)):
            await event_log.wait_for(
                lambda: len(event_log.of(BoardConnected)) == 2, what="both boards", timeout=10
            )
            play(host, "e2e4", PAWN, None, board=0)
            await event_log.wait_for(
                lambda: last_fen(event_log, "10001") == fen_after("e2e4"), what="e4"
            )
            host.lose_power(1.0, board=0)
            play(host, "e7e5", BLACK_PAWN, None, board=0)  # in the dark
            await asyncio.sleep(1.6)
            play(host, "g1f3", KNIGHT, None, board=0)  # after the reboot
            await event_log.wait_for(
                lambda: last_fen(event_log, "10001") == fen_after("e2e4", "e7e5", "g1f3"),
                what="the moves after the power cut",
                timeout=10,
            )
            assert [b.board for b in event_log.of(BoardLost)] == ["10001"]
            recovered = [r for r in event_log.of(LogRecovered) if r.board == "10001"]
            assert recovered and recovered[-1].final.board_fen() in (
                fen_after("e2e4", "e7e5"),
                fen_after("e2e4", "e7e5", "g1f3"),
            )
            gaps = event_log.of(LogGap)
            # The start-tag firmware sends only what came after its reboot: our place is
            # gone from it, and the arbiter is told which board to check.
            assert [g.board for g in gaps] == (["10001"] if firmware == "start-tag" else [])
    assert [s for s, _ in moves(event_log.events, "10001")] == ["e4", "e5", "Nf3"]


async def test_a_move_made_on_the_bus_while_the_board_had_no_power_is_timed_by_the_clock(
    tmp_path: Path, event_log: EventLog
) -> None:
    line = BusLine.with_serials(["10001"], seed=5)
    board = line.boards[0]
    async with PtyHost(line, tmp_path / "bus-1") as host:
        host.setup_clock(600, 600, 0)
        async with running(BusDriver(str(host.path), event_log, settings=BUS)):
            await event_log.wait_for(lambda: event_log.of(BoardConnected), what="connect")
            host.press_lever("right")
            await asyncio.sleep(0.3)
            play(host, "e2e4", PAWN, "left")
            await event_log.wait_for(lambda: last_fen(event_log) == fen_after("e2e4"), what="e4")
            await asyncio.sleep(0.3)
            host.lose_power(1.0)
            await asyncio.sleep(0.3)
            play(host, "e7e5", BLACK_PAWN, "right")  # in the dark
            await event_log.wait_for(lambda: event_log.of(LogRecovered), what="the log", timeout=8)
            await asyncio.sleep(0.5)
    times = [float(seconds) for _, seconds in board.presses[1:]]
    assert moves(event_log.events) == list(zip(["e4", "e5"], times, strict=True))


async def test_a_bus_board_whose_watchdog_dropped_its_changes_is_read_again(
    tmp_path: Path, event_log: EventLog
) -> None:
    line = BusLine.with_serials(["10001"], seed=4)
    async with PtyHost(line, tmp_path / "bus-1") as host:
        async with running(BusDriver(str(host.path), event_log, settings=BUS)) as driver:
            await event_log.wait_for(lambda: event_log.of(BoardConnected), what="connect")
            # A change, and the reset before the next poll: the change buffer is gone.
            host.set_square(idx("e2"), 0)
            host.boards[0].watchdog_reset(host.now())
            await asyncio.sleep(0.5)
            host.set_square(idx("e4"), PAWN)
            await event_log.wait_for(
                lambda: last_fen(event_log) == fen_after("e2e4"), what="e4", timeout=6
            )
            assert driver.boards[10001].rereads >= 1


def test_impossible_bus_addresses_are_refused_with_one_clear_line() -> None:
    with pytest.raises(ValueError, match=r"bus addresses are 1\.\.16383 \(14 bits\), not 24317"):
        BusDriver("/dev/null", lambda e: None, addresses=[24317])


def test_a_known_board_whose_name_is_no_bus_address_is_skipped(
    caplog: pytest.LogCaptureFixture,
) -> None:
    from boards.recovery import KnownBoard

    known = [KnownBoard("24317", None, (), 0.0), KnownBoard("07933", None, (), 0.0)]
    driver = BusDriver("/dev/null", lambda e: None, addresses=[7933], known=known)
    assert list(driver._known) == [7933]
    assert "'24317' is no bus address" in caplog.text
