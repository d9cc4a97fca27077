"""The single-board driver against emulated boards on real pseudo-terminals."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import chess
import pytest

from boards.capture import CaptureWriter, read_capture
from boards.dgt.clock_commands import ClockAscii, ClockVersion
from boards.dgt.codes import Command
from boards.driver_events import BoardConnected, BoardLost, ClockSeen, LogRecovered, PositionSeen
from boards.drivers.link import Link, LinkError, open_serial, recording_opener
from boards.drivers.single import DriverSettings, SingleBoardDriver
from boards.position import BoardPosition
from boards.recovery import KnownBoard
from boardsim.board import EmulatedBoard
from boardsim.pty import PtyHost
from clocks.reading import ClockReading, NoClock
from clocks.timesource import SystemTime
from tests.support.event_log import EventLog, FilteredLink, fen_after, idx, running

FAST = DriverSettings(
    poll_interval=0.2, dead_after=0.8, backoff=(0.1, 0.2), reply_timeout=1.0, optional_timeout=0.2
)
WHITE_PAWN, BLACK_PAWN, WHITE_KNIGHT = 0x01, 0x07, 0x03


async def test_handshake_streams_positions_and_clock(tmp_path: Path, event_log: EventLog) -> None:
    async with PtyHost(EmulatedBoard("01025"), tmp_path / "board-1") as host:
        host.setup_clock(5400, 5400, 30)
        async with running(SingleBoardDriver(str(host.path), event_log, settings=FAST)) as driver:
            await event_log.wait_for(lambda: event_log.of(BoardConnected), what="connect")
            info = event_log.of(BoardConnected)[0].info
            assert (info.serial, info.mode, info.clock_present) == ("01025", "single", True)
            assert info.version == (1, 7)
            await event_log.wait_for(lambda: event_log.of(PositionSeen), what="first position")
            assert event_log.of(PositionSeen)[0].position.board_fen() == chess.STARTING_BOARD_FEN

            host.set_square(idx("e2"), 0)
            host.set_square(idx("e4"), WHITE_PAWN)
            host.press_lever("left")
            await event_log.wait_for(
                lambda: event_log.of(PositionSeen)[-1].position.board_fen() == fen_after("e2e4"),
                what="e4",
            )
            await event_log.wait_for(
                lambda: any(
                    isinstance(c.reading, ClockReading) and c.reading.running_side == "right"
                    for c in event_log.of(ClockSeen)
                ),
                what="black's clock running",
            )
            times = [e.t for e in event_log.events]
            assert times == sorted(times)
            assert driver.info is not None and driver.info.serial == "01025"
            assert host.boards[0].dangerous_commands_received == 0


async def test_garbage_in_the_stream_is_skipped(tmp_path: Path, event_log: EventLog) -> None:
    async with PtyHost(EmulatedBoard("10001"), tmp_path / "board-1") as host:
        async with running(SingleBoardDriver(str(host.path), event_log, settings=FAST)) as driver:
            await event_log.wait_for(lambda: event_log.of(PositionSeen), what="connect")
            host.inject_garbage(bytes([0x8E, 0x00, 0x05, 0x12, 0x99, 0x41, 0x7F, 0x86, 0x00]))
            host.inject_garbage(length=200, seed=3)
            host.set_square(idx("g1"), 0)
            host.set_square(idx("f3"), WHITE_KNIGHT)
            await event_log.wait_for(
                lambda: event_log.of(PositionSeen)[-1].position.board_fen() == fen_after("g1f3"),
                what="Nf3 after garbage",
            )
            assert driver.dropped_bytes > 0
            assert not event_log.of(BoardLost)


async def test_cable_out_and_back_recovers_moves_from_the_eeprom(
    tmp_path: Path, event_log: EventLog
) -> None:
    # The log at once (the paced 8 s download is covered in test_sim_log_recovery).
    async with PtyHost(EmulatedBoard("10001", download_rate=None), tmp_path / "board-1") as host:
        host.setup_clock(600, 600, 0)
        async with running(SingleBoardDriver(str(host.path), event_log, settings=FAST)):
            await event_log.wait_for(lambda: event_log.of(PositionSeen), what="connect")
            for square, code in (("e2", 0), ("e4", WHITE_PAWN)):
                host.set_square(idx(square), code)
            host.press_lever("left")
            await event_log.wait_for(
                lambda: event_log.of(PositionSeen)[-1].position.board_fen() == fen_after("e2e4"),
                what="e4",
            )
            host.unplug()
            await event_log.wait_for(lambda: event_log.of(BoardLost), what="loss noticed")
            # Played while the cable is out: ...e5 2.Nf3
            for square, code in (("e7", 0), ("e5", BLACK_PAWN)):
                host.set_square(idx(square), code)
            host.press_lever("right")
            for square, code in (("g1", 0), ("f3", WHITE_KNIGHT)):
                host.set_square(idx(square), code)
            host.press_lever("left")
            host.plug()
            await event_log.wait_for(
                lambda: len(event_log.of(BoardConnected)) == 2, what="reconnect", timeout=15
            )
            assert event_log.of(BoardConnected)[1].reconnect
            (recovered,) = event_log.of(LogRecovered)
            fens = [p.board_fen() for p in recovered.positions()]
            unseen = fens[recovered.seen + 1 :]
            assert fen_after("e2e4", "e7e5") in unseen
            assert fens[-1] == fen_after("e2e4", "e7e5", "g1f3")
            # Each press is logged after the move it completed; no time is invented.
            presses = [
                (fens[i], step.presses) for i, step in enumerate(recovered.steps) if step.presses
            ]
            assert presses[-2:] == [
                (fen_after("e2e4", "e7e5"), (("right", 600),)),
                (fen_after("e2e4", "e7e5", "g1f3"), (("left", 600),)),
            ]
            assert recovered.t >= event_log.of(BoardLost)[0].t
            assert event_log.of(PositionSeen)[-1].position.board_fen() == fen_after(
                "e2e4", "e7e5", "g1f3"
            )


async def test_a_board_that_stops_answering_is_reported_lost(
    tmp_path: Path, event_log: EventLog
) -> None:
    async with PtyHost(EmulatedBoard("10001", download_rate=None), tmp_path / "board-1") as host:
        async with running(SingleBoardDriver(str(host.path), event_log, settings=FAST)):
            await event_log.wait_for(lambda: event_log.of(BoardConnected), what="connect")
            host.mute(True)
            await event_log.wait_for(lambda: event_log.of(BoardLost), what="loss", timeout=5)
            assert "no answer" in event_log.of(BoardLost)[0].reason
            host.mute(False)
            await event_log.wait_for(
                lambda: len(event_log.of(BoardConnected)) == 2, what="back", timeout=10
            )


async def test_clock_unplugged_is_reported(tmp_path: Path, event_log: EventLog) -> None:
    async with PtyHost(EmulatedBoard("10001"), tmp_path / "board-1") as host:
        async with running(SingleBoardDriver(str(host.path), event_log, settings=FAST)) as driver:
            await event_log.wait_for(lambda: event_log.of(BoardConnected), what="connect")
            host.unplug_clock()
            await event_log.wait_for(
                lambda: any(isinstance(c.reading, NoClock) for c in event_log.of(ClockSeen)),
                what="no clock",
            )
            assert driver.info is not None and driver.info.clock_present is False


async def test_clock_commands_are_acknowledged(tmp_path: Path, event_log: EventLog) -> None:
    async with PtyHost(EmulatedBoard("10001"), tmp_path / "board-1") as host:
        async with running(SingleBoardDriver(str(host.path), event_log, settings=FAST)) as driver:
            await event_log.wait_for(lambda: event_log.of(BoardConnected), what="connect")
            ack = await driver.send_clock_command(ClockVersion())
            assert ack is not None and ack.ok and ack.version is not None and ack.version[0] == 2
            assert await driver.send_clock_command(ClockAscii("BOARD 1")) is not None


async def test_raw_traffic_is_recorded_to_a_capture(tmp_path: Path, event_log: EventLog) -> None:
    capture_path = tmp_path / "capture.jsonl"
    writer = CaptureWriter.open(capture_path, SystemTime(), port="board-1")
    async with PtyHost(EmulatedBoard("10001"), tmp_path / "board-1") as host:
        opener = recording_opener(open_serial, writer)
        async with running(
            SingleBoardDriver(str(host.path), event_log, opener=opener, settings=FAST)
        ):
            await event_log.wait_for(lambda: event_log.of(PositionSeen), what="connect")
    writer.close()
    first = json.loads(capture_path.read_text().splitlines()[0])
    assert "started_at" in first["meta"]
    capture = read_capture(capture_path)
    outgoing = b"".join(c.data for c in capture.chunks if c.direction == "out")
    incoming = b"".join(c.data for c in capture.chunks if c.direction == "in")
    assert bytes([0x4D]) in outgoing and bytes([0x4B]) in outgoing  # version, update-nice
    assert bytes([0x86, 0x00, 0x43]) in incoming  # the board dump frame header
    assert BoardPosition.from_fen(chess.STARTING_FEN).to_bytes() in incoming
    assert [c.t for c in capture.chunks] == sorted(c.t for c in capture.chunks)


@pytest.mark.parametrize("bad", ["/nonexistent/port"])
async def test_opening_a_missing_port_keeps_retrying_without_crashing(
    bad: str, event_log: EventLog
) -> None:
    driver = SingleBoardDriver(bad, event_log, settings=FAST)
    task = asyncio.ensure_future(driver.run())
    await asyncio.sleep(0.4)
    assert not task.done()
    driver.stop()
    await asyncio.wait_for(task, 2)
    assert event_log.events == []


async def test_bluetooth_battery_is_reported_and_polled(
    tmp_path: Path, event_log: EventLog
) -> None:
    from dataclasses import replace

    from boards.driver_events import BatterySeen

    settings = replace(FAST, battery_every=0.3)
    async with PtyHost(EmulatedBoard("10001", battery_percent=80), tmp_path / "board-1") as host:
        async with running(SingleBoardDriver(str(host.path), event_log, settings=settings)):
            await event_log.wait_for(lambda: event_log.of(BoardConnected), what="connect")
            assert event_log.of(BoardConnected)[0].info.battery_percent == 80
            host.set_battery(35)
            await event_log.wait_for(
                lambda: any(b.percent == 35 for b in event_log.of(BatterySeen)),
                what="battery at 35%",
            )


async def test_a_lost_field_update_is_healed_by_the_periodic_board_check(
    tmp_path: Path, event_log: EventLog
) -> None:
    from dataclasses import replace

    settings = replace(FAST, verify_every=0.3)
    async with PtyHost(EmulatedBoard("10001", download_rate=None), tmp_path / "board-1") as host:
        async with running(SingleBoardDriver(str(host.path), event_log, settings=settings)):
            await event_log.wait_for(lambda: event_log.of(PositionSeen), what="connect")
            # The board changes without telling us (as if the update were lost on the line).
            host.boards[0].position = BoardPosition.from_fen(fen_after("d2d4"))
            await event_log.wait_for(
                lambda: event_log.of(PositionSeen)[-1].position.board_fen() == fen_after("d2d4"),
                what="the dump check",
            )
            seen = [p.position.board_fen() for p in event_log.of(PositionSeen)]
            assert seen.count(fen_after("d2d4")) == 1  # reported once, not at every check


async def test_a_handshake_that_fails_after_the_log_reads_it_again(
    tmp_path: Path, event_log: EventLog
) -> None:
    # A restarted service knows the board showed the start; 1.e4 was played since. The
    # first handshake reads the log and then fails: the retry must read it again, not
    # skip the outage.
    state = {"logs": 0}

    def allow(data: bytes) -> bool:
        if data == bytes([Command.SEND_EE_MOVES]):
            state["logs"] += 1
        if data == bytes([Command.SEND_BRD]) and state["logs"] == 1:
            state["logs"] += 1
            raise LinkError("cable pulled")  # the log is read, the board not identified yet
        return True

    async def opener(path: str) -> Link:
        return FilteredLink(await open_serial(path), allow)

    board = EmulatedBoard("10001", download_rate=None)
    async with PtyHost(board, tmp_path / "board-1") as host:
        host.set_square(idx("e2"), 0)
        host.set_square(idx("e4"), WHITE_PAWN)
        known = KnownBoard("10001", BoardPosition.from_fen(chess.STARTING_FEN), (), 0.0)
        driver = SingleBoardDriver(
            str(host.path), event_log, settings=FAST, opener=opener, known=known
        )
        async with running(driver):
            await event_log.wait_for(lambda: event_log.of(LogRecovered), what="log", timeout=10)
            assert state["logs"] == 3  # read, failed, read again
            (connected,) = event_log.of(BoardConnected)
            assert connected.reconnect
            (recovered,) = event_log.of(LogRecovered)
            unseen = [p.board_fen() for p in recovered.positions()[recovered.seen + 1 :]]
            assert unseen[-1] == fen_after("e2e4")
