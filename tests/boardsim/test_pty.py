"""Emulated boards on REAL pseudo-terminals, read with the host-side decoders."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from boards.dgt.bus import BusReply, BusRequest
from boards.dgt.codes import BusCommand, BusReplyId, Command
from boards.dgt.decoder import BoardStreamDecoder, BusStreamDecoder
from boards.dgt.eeprom import PieceChange, Tag, TagEvent, decode_events
from boards.dgt.messages import (
    BoardDump,
    BoardMessage,
    BWTime,
    EEMoves,
    FieldUpdate,
    SerialNumber,
    Version,
)
from boardsim.board import START_POSITION, EmulatedBoard, Mode
from boardsim.busline import BusLine
from boardsim.pty import PtyHost
from boardsim.timing import ScaledTime
from clocks.reading import ClockReading, NoClock, decode_bwtime

TIMEOUT = 2.0


class Port:
    """A bare host end: raw non-blocking fd on the device path."""

    def __init__(self, path: Path) -> None:
        self.fd = os.open(path, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        self.single = BoardStreamDecoder()
        self.bus = BusStreamDecoder()

    def write(self, data: bytes) -> None:
        os.write(self.fd, data)

    def read_now(self) -> bytes:
        try:
            return os.read(self.fd, 65536)
        except BlockingIOError:
            return b""

    async def messages(self, n: int, timeout: float = TIMEOUT) -> list[BoardMessage]:
        got: list[BoardMessage] = []
        deadline = time.monotonic() + timeout
        while len(got) < n and time.monotonic() < deadline:
            got += self.single.feed(self.read_now())
            await asyncio.sleep(0.005)
        return got

    async def replies(self, n: int, timeout: float = TIMEOUT) -> list[BusReply]:
        got: list[BusReply] = []
        deadline = time.monotonic() + timeout
        while len(got) < n and time.monotonic() < deadline:
            for item in self.bus.feed(self.read_now()):
                assert isinstance(item, BusReply), item
                got.append(item)
            await asyncio.sleep(0.005)
        return got

    async def quiet(self, seconds: float) -> bytes:
        await asyncio.sleep(seconds)
        return self.read_now()

    def close(self) -> None:
        os.close(self.fd)


@pytest.fixture
async def single(tmp_path: Path) -> AsyncIterator[PtyHost]:
    async with PtyHost(EmulatedBoard("10001"), tmp_path / "board-1") as host:
        yield host


def only(kind: type, messages: list[BoardMessage]) -> list[BoardMessage]:
    return [m for m in messages if isinstance(m, kind)]


async def handshake(port: Port) -> list[BoardMessage]:
    port.write(bytes([Command.SEND_VERSION, Command.RETURN_SERIALNR, Command.SEND_BRD]))
    port.write(bytes([Command.SEND_UPDATE_NICE]))
    return await port.messages(4)


async def test_stable_symlink_points_at_a_pty(single: PtyHost) -> None:
    assert single.path.is_symlink()
    assert os.readlink(single.path) == single.tty
    assert single.tty is not None and single.tty.startswith("/dev/pts/")


async def test_handshake_over_a_pty(single: PtyHost) -> None:
    port = Port(single.path)
    got = await handshake(port)
    assert got[:3] == [Version(1, 7), SerialNumber("10001"), BoardDump(START_POSITION)]
    assert isinstance(got[3], BWTime)  # UPDATE_NICE sends the clock once at first
    assert single.boards[0].mode is Mode.SINGLE
    port.close()


async def test_streamed_field_updates_and_clock(single: PtyHost) -> None:
    port = Port(single.path)
    await handshake(port)
    single.press_lever("right")
    single.set_square(52, 0)
    single.set_square(36, 1)
    single.press_lever("left")
    got = await port.messages(4)
    assert only(FieldUpdate, got) == [FieldUpdate(52, 0), FieldUpdate(36, 1)]
    last = got[-1]
    assert isinstance(last, BWTime)
    reading = decode_bwtime(last.raw)
    assert isinstance(reading, ClockReading) and reading.running_side == "right"
    port.close()


async def test_garbage_both_ways_resyncs(single: PtyHost) -> None:
    port = Port(single.path)
    await handshake(port)
    single.inject_garbage(b"\x8e\x00\x05\xff\x13\x99garbage")
    single.set_square(52, 0)
    # Junk the board must survive; the host stream decoder swallows low bytes after a bad
    # bus frame, so the real command follows a moment later, as a retrying host would.
    port.write(b"\x00\x7f\x2b\x99\x13\x00\x00\x00")
    await asyncio.sleep(0.05)
    port.write(bytes([Command.RETURN_SERIALNR]))
    got = await port.messages(2)
    assert FieldUpdate(52, 0) in got and SerialNumber("10001") in got
    assert port.single.dropped > 0
    port.close()


async def test_random_garbage_is_seeded(single: PtyHost) -> None:
    port = Port(single.path)
    await handshake(port)
    single.inject_garbage(length=64, seed=3)
    single.inject_garbage(length=64, seed=3)
    data = b""
    for _ in range(20):
        data += await port.quiet(0.01)
    assert len(data) == 128 and data[:64] == data[64:]
    port.close()


async def test_unplug_plug_repoints_symlink_and_eeprom_keeps_moves(tmp_path: Path) -> None:
    # Sped up 40 times: the paced download (about 8 s of simulated time) takes 0.2 s.
    async with PtyHost(
        EmulatedBoard("10001"), tmp_path / "board-1", time_source=ScaledTime(40.0)
    ) as single:
        await _unplug_plug_and_download(single)


async def _unplug_plug_and_download(single: PtyHost) -> None:
    port = Port(single.path)
    await handshake(port)
    old_tty = single.tty
    single.unplug()
    assert not single.path.exists() and single.tty is None
    with pytest.raises(OSError):
        for _ in range(50):
            if os.read(port.fd, 100) == b"":
                raise OSError("hang-up")  # some kernels report EOF rather than EIO
            await asyncio.sleep(0.005)
    port.close()
    single.set_square(52, 0)  # moves while the cable is out: logged, never sent
    single.set_square(36, 1)
    single.plug()
    assert single.path.is_symlink() and os.readlink(single.path) == single.tty
    assert single.tty != old_tty or single.tty is not None
    port = Port(single.path)
    assert await port.quiet(0.1) == b""  # nothing pending from the time it was out
    port.write(bytes([Command.SEND_EE_MOVES]))
    [ee] = await port.messages(1, timeout=10 * TIMEOUT)
    assert isinstance(ee, EEMoves)
    events = ee.events()
    pieces = [PieceChange(i, c) for i, c in enumerate(single.boards[0].position.codes) if c]
    assert events[-len(pieces) - 3 :] == [
        PieceChange(52, 0),
        PieceChange(36, 1, fast=True),
        TagEvent(Tag.POWERUP),
        *pieces,
    ]
    assert single.bytes_lost > 0 or single.boards[0].mode is Mode.SINGLE
    port.close()


async def test_mute_keeps_port_open_but_silent(single: PtyHost) -> None:
    port = Port(single.path)
    await handshake(port)
    single.mute(True)
    port.write(bytes([Command.RETURN_SERIALNR]))
    single.set_square(52, 0)
    assert await port.quiet(0.15) == b""
    single.mute(False)
    port.write(bytes([Command.RETURN_SERIALNR]))
    assert await port.messages(1) == [SerialNumber("10001")]
    port.close()


async def test_clock_unplugged_and_battery_low(single: PtyHost) -> None:
    port = Port(single.path)
    await handshake(port)
    single.unplug_clock()
    [msg] = await port.messages(1)
    assert isinstance(msg, BWTime) and decode_bwtime(msg.raw) == NoClock()
    single.plug_clock()
    single.set_clock_battery_low(True)
    [msg] = await port.messages(1)
    reading = decode_bwtime(msg.raw)  # type: ignore[union-attr]
    assert isinstance(reading, ClockReading) and reading.battery_low
    port.close()


async def test_nobody_listening_loses_output(single: PtyHost) -> None:
    port = Port(single.path)
    await handshake(port)
    port.close()
    await asyncio.sleep(0.05)
    before = single.bytes_lost
    single.set_square(52, 0)
    assert single.bytes_lost == before + 5
    port = Port(single.path)
    await asyncio.sleep(0.05)
    single.set_square(36, 1)
    assert await port.messages(1) == [FieldUpdate(36, 1)]
    port.close()


async def test_line_speed_throttles_output(tmp_path: Path) -> None:
    host = PtyHost(EmulatedBoard("10001"), tmp_path / "slow", line_speed=True)
    async with host:
        port = Port(host.path)
        start = time.monotonic()
        port.write(bytes([Command.SEND_BRD]) * 3)  # 201 bytes: about 0.21 s at 9600 baud
        got = await port.messages(3)
        elapsed = time.monotonic() - start
        assert len(got) == 3 and elapsed > 0.12
        port.close()


async def ping_all(port: Port, line: BusLine) -> set[int]:
    port.write(BusRequest(BusCommand.PING, 0).encode())
    got = await port.replies(len(line.boards), timeout=0.5)
    return {r.address for r in got if r.reply_id is BusReplyId.PING}


async def test_bus_line_of_16_boards_discovery_and_polls(tmp_path: Path) -> None:
    serials = [str(10001 + i) for i in range(16)]
    line = BusLine.with_serials(serials, seed=1)
    clock = ScaledTime(speed=20.0)  # a 1.1 s ping window takes 55 ms
    async with PtyHost(line, tmp_path / "bus-1", time_source=clock) as host:
        port = Port(host.path)
        found: set[int] = set()
        for _ in range(4):  # discovery: silence the found ones, ping everyone again
            for address in found:
                port.write(BusRequest(BusCommand.IGNORE_NEXT_BUS_PING, address).encode())
                await port.replies(1)
            new = await ping_all(port, line)
            assert not new & found
            found |= new
            if len(found) == 16:
                break
        assert found == {int(s) for s in serials}
        host.set_square(52, 0, board=5)
        for address in sorted(found):
            port.write(BusRequest(BusCommand.SEND_CHANGES, address).encode())
            [reply] = await port.replies(1)
            assert reply.address == address and reply.reply_id is BusReplyId.UPDATE
            if address == 10006:
                assert PieceChange(52, 0) in reply_events(reply)
        port.close()


def reply_events(reply: BusReply) -> list[object]:
    return list(decode_events(reply.data)[0])


async def test_scaled_time_drives_board_clock(tmp_path: Path) -> None:
    clock = ScaledTime(speed=100.0)
    board = EmulatedBoard("10001", t=clock.now())
    async with PtyHost(board, tmp_path / "fast", time_source=clock) as host:
        port = Port(host.path)
        host.press_lever("right")
        started = clock.now()
        await asyncio.sleep(0.1)  # ~10 s of game time
        port.write(bytes([Command.SEND_CLK]))  # IDLE: exactly one answer
        [msg] = await port.messages(1)
        elapsed = clock.now() - started
        assert isinstance(msg, BWTime)
        reading = decode_bwtime(msg.raw)
        assert isinstance(reading, ClockReading) and elapsed >= 9.0
        assert 5400 - elapsed - 1 <= reading.left_seconds <= 5400 - 9
        port.close()


def test_scaled_time_rejects_bad_speed() -> None:
    with pytest.raises(ValueError, match="positive"):
        ScaledTime(0)
