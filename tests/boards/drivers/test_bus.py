"""The bus driver against an emulated line of many boards on a real pseudo-terminal."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path

import chess

from boards.dgt.bus import BusReply
from boards.dgt.codes import BusCommand, BusReplyId
from boards.driver_events import (
    BoardConnected,
    BoardHealth,
    BoardLost,
    ClockSeen,
    ClockStamped,
    LogRecovered,
    PositionSeen,
)
from boards.drivers.bus import BusDriver, BusSettings
from boards.drivers.discovery import probe_port
from boards.drivers.link import Link, open_serial
from boards.position import BoardPosition
from boards.reconstruction.follow import BoardFollower
from boards.reconstruction.reconstruction_events import OutOfSync
from boards.recovery import KnownBoard
from boardsim.busline import BusLine
from boardsim.pty import PtyHost
from clocks.reading import ClockReading
from tests.support.event_log import EventLog, FilteredLink, fen_after, idx, running

FAST = BusSettings(
    reply_timeout=0.15,
    ping_window=1.2,  # the boards answer a broadcast ping within 1.1 s
    clock_every=0.2,
    verify_every=5,
    retry_lost_every=0.2,
    health_every=0.3,
    min_cycle=0.02,
    backoff=(0.1,),
)
SERIALS_16 = [f"{10001 + i}" for i in range(16)]


def last_fen(log: EventLog, board: str) -> str | None:
    positions = [p for p in log.of(PositionSeen) if p.board == board]
    return positions[-1].position.board_fen() if positions else None


async def test_sixteen_board_bus_is_discovered_and_polled(
    tmp_path: Path, event_log: EventLog
) -> None:
    async with PtyHost(BusLine.with_serials(SERIALS_16, seed=5), tmp_path / "bus-1") as host:
        for i in range(16):
            host.setup_clock(900, 900, 10, board=i)
        async with running(BusDriver(str(host.path), event_log, settings=FAST)) as driver:
            await event_log.wait_for(
                lambda: len(event_log.of(BoardConnected)) == 16, what="16 boards", timeout=30
            )
            assert sorted(e.board for e in event_log.of(BoardConnected)) == SERIALS_16
            assert all(
                e.info.mode == "bus" and e.info.clock_present for e in event_log.of(BoardConnected)
            )
            # A move on board 7 (serial 10008) reaches us as changes; nothing else moves.
            host.set_square(idx("d2"), 0, board=7)
            host.set_square(idx("d4"), 0x01, board=7)
            host.press_lever("left", board=7)
            await event_log.wait_for(
                lambda: last_fen(event_log, "10008") == fen_after("d2d4"), what="d4 on 10008"
            )
            await event_log.wait_for(
                lambda: any(s.board == "10008" for s in event_log.of(ClockStamped)), what="stamp"
            )
            await event_log.wait_for(
                lambda: any(
                    c.board == "10008"
                    and isinstance(c.reading, ClockReading)
                    and c.reading.running_side == "right"
                    for c in event_log.of(ClockSeen)
                ),
                what="clock of 10008 running on the right",
            )
            others = {last_fen(event_log, s) for s in SERIALS_16 if s != "10008"}
            assert others == {chess.STARTING_BOARD_FEN}
            await event_log.wait_for(lambda: driver.cycles >= 3, what="three poll cycles")
            await event_log.wait_for(lambda: event_log.of(BoardHealth), what="health report")
            assert host.boards[0].dangerous_commands_received == 0
            assert not event_log.of(BoardLost)


async def test_garbled_reply_is_repeated_not_lost(tmp_path: Path, event_log: EventLog) -> None:
    async with PtyHost(
        BusLine.with_serials(["10001", "10002"], seed=1), tmp_path / "bus-1"
    ) as host:
        async with running(BusDriver(str(host.path), event_log, settings=FAST)) as driver:
            await event_log.wait_for(
                lambda: len(event_log.of(BoardConnected)) == 2, what="2 boards", timeout=15
            )
            # Make a move and corrupt the line at once: the UPDATE carrying it may be hit; the
            # driver must ask REPEAT_CHANGES (or read from the start tag), never drop the move.
            for _ in range(5):
                host.inject_garbage(
                    BusReply(BusReplyId.UPDATE, 10001, bytes([0x41, 5])).encode()[:-1] + b"\x00"
                )
            host.set_square(idx("e2"), 0, board=0)
            host.set_square(idx("e4"), 0x01, board=0)
            await event_log.wait_for(
                lambda: last_fen(event_log, "10001") == fen_after("e2e4"), what="e4 on 10001"
            )
            assert driver.dropped_bytes > 0 or driver.boards[10001].bad_checksums > 0


async def test_board_off_the_bus_is_lost_then_recovered_with_its_log(
    tmp_path: Path, event_log: EventLog
) -> None:
    line = BusLine.with_serials(["10001", "10002", "10003"], seed=2)
    async with PtyHost(line, tmp_path / "bus-1") as host:
        async with running(BusDriver(str(host.path), event_log, settings=FAST)):
            await event_log.wait_for(
                lambda: len(event_log.of(BoardConnected)) == 3, what="3 boards", timeout=15
            )
            board = line.boards[1]
            line.boards.remove(board)  # its connector comes loose
            await event_log.wait_for(
                lambda: any(e.board == "10002" for e in event_log.of(BoardLost)), what="lost"
            )
            t = host.now()
            board.set_square(idx("c2"), 0, t)
            board.set_square(idx("c4"), 0x01, t + 0.5)
            board.press_lever("left", t + 1.0)
            board.set_square(idx("c7"), 0, t + 2.0)
            board.set_square(idx("c5"), 0x07, t + 2.5)
            # Back on the bus only once those moments have passed: a board's clock answers
            # for now, and "now" must not be before what it already did (it raised).
            while host.now() <= t + 2.5:
                await asyncio.sleep(0.05)
            line.boards.insert(1, board)
            await event_log.wait_for(
                lambda: sum(e.board == "10002" for e in event_log.of(BoardConnected)) == 2,
                what="back",
                timeout=10,
            )
            (recovered,) = [r for r in event_log.of(LogRecovered) if r.board == "10002"]
            fens = [p.board_fen() for p in recovered.positions()]
            assert fens[-1] == fen_after("c2c4", "c7c5")
            assert fen_after("c2c4") in fens[recovered.seen + 1 :]
            assert last_fen(event_log, "10002") == fen_after("c2c4", "c7c5")


async def test_probe_tells_a_bus_from_a_single_board(tmp_path: Path) -> None:
    from boardsim.board import EmulatedBoard

    async with PtyHost(
        BusLine.with_serials(["01025", "01026", "01027"], seed=3), tmp_path / "bus"
    ) as bus:
        result = await probe_port(str(bus.path), bus_settings=FAST)
        assert result.mode == "bus"
        assert [b.serial for b in result.boards] == ["01025", "01026", "01027"]
        assert [b.bus_address for b in result.boards] == [1025, 1026, 1027]
    async with PtyHost(EmulatedBoard("02001"), tmp_path / "single") as single:
        result = await probe_port(str(single.path), bus_settings=FAST)
        assert result.mode == "single"
        (info,) = result.boards
        assert (info.serial, info.mode, info.clock_present) == ("02001", "single", True)
    result = await probe_port(str(tmp_path / "nothing-here"), bus_settings=FAST)
    assert result.mode is None and result.error


async def test_bus_port_pulled_and_back_reconnects_every_board(
    tmp_path: Path, event_log: EventLog
) -> None:
    async with PtyHost(
        BusLine.with_serials(["10001", "10002"], seed=4), tmp_path / "bus-1"
    ) as host:
        async with running(BusDriver(str(host.path), event_log, settings=FAST)):
            await event_log.wait_for(
                lambda: len(event_log.of(BoardConnected)) == 2, what="2 boards", timeout=15
            )
            host.unplug()
            await event_log.wait_for(lambda: len(event_log.of(BoardLost)) == 2, what="both lost")
            host.boards[1].set_square(idx("g8"), 0, host.now())
            host.boards[1].set_square(idx("f6"), 0x09, host.now() + 0.5)
            host.plug()
            await event_log.wait_for(
                lambda: len(event_log.of(BoardConnected)) == 4, what="both back", timeout=15
            )
            assert all(e.reconnect for e in event_log.of(BoardConnected)[2:])
            board = chess.BaseBoard()
            board.remove_piece_at(chess.G8)
            board.set_piece_at(chess.F6, chess.Piece.from_symbol("n"))
            assert last_fen(event_log, "10002") == board.board_fen()


async def test_a_board_that_fails_after_its_log_is_read_is_read_again(
    tmp_path: Path, event_log: EventLog
) -> None:
    state = {"logs": 0}

    def allow(data: bytes) -> bool:
        if data[:1] == bytes([BusCommand.SEND_FROM_START]):
            state["logs"] += 1
        if data[:1] == bytes([BusCommand.SEND_BRD]) and state["logs"] == 1:
            state["logs"] += 1
            return False  # lost on the line: the log is read, the board not identified yet
        return True

    async def opener(path: str) -> Link:
        return FilteredLink(await open_serial(path), allow)

    line = BusLine.with_serials(["10001"], seed=3)
    board = line.boards[0]
    board.set_square(idx("e2"), 0, 0.0)
    board.set_square(idx("e4"), 0x01, 0.5)
    known = [KnownBoard("10001", BoardPosition.from_fen(chess.STARTING_FEN), (), 0.0)]
    async with PtyHost(line, tmp_path / "bus-1") as host:
        driver = BusDriver(str(host.path), event_log, settings=FAST, opener=opener, known=known)
        async with running(driver):
            await event_log.wait_for(lambda: event_log.of(LogRecovered), what="log", timeout=15)
            assert state["logs"] == 3  # read, dump lost, read again
            (recovered,) = event_log.of(LogRecovered)
            assert recovered.final.board_fen() == fen_after("e2e4")
            assert event_log.of(BoardConnected)[0].reconnect


class LateLink:
    """A link whose first chunk, once `armed`, holding a change list with changes in it
    (DGT's bus UPDATE frame: 0x85, a length above the empty frame's 6, the address)
    reaches the driver `hold` seconds late: a machine too busy to read the port in time."""

    def __init__(self, inner: Link, address: int, hold: float) -> None:
        self._inner, self._hold = inner, hold
        self._frame = bytes([0x85, 0x00])
        self._address = bytes([address >> 7, address & 0x7F])  # two 7-bit halves
        self.held = 0
        self.armed = False

    def _changes_in(self, data: bytes) -> bool:
        at = data.find(self._frame)
        while at >= 0:
            frame = data[at : at + 5]
            if len(frame) == 5 and frame[2] > 6 and frame[3:5] == self._address:
                return True
            at = data.find(self._frame, at + 1)
        return False

    async def read(self) -> bytes:
        data = await self._inner.read()
        if self.armed and not self.held and self._changes_in(data):
            self.held += 1
            await asyncio.sleep(self._hold)
        return data

    def write(self, data: bytes) -> None:
        self._inner.write(data)

    async def close(self) -> None:
        await self._inner.close()


async def test_a_change_list_that_comes_late_is_read_not_lost(
    tmp_path: Path, event_log: EventLog
) -> None:
    """The board empties its change buffer as it answers: an answer read after its poll
    timed out is the only copy of those changes. They are read then, in order, and the
    board is not read again from its log for it."""
    links: list[LateLink] = []

    async def opener(path: str) -> Link:
        # Past the poll's timeout (0.15 s), within the next board's poll: the answer
        # comes while the driver waits for another board's.
        links.append(LateLink(await open_serial(path), 10001, hold=0.25))
        return links[-1]

    # The board is not lost for polls the slow machine missed, and no periodic dump
    # would mend a lost change before the test looks.
    settings = replace(FAST, lost_after_missed=20, verify_every=10_000)
    line = BusLine.with_serials(["10001", "10002"], seed=4)
    async with PtyHost(line, tmp_path / "bus-1") as host:
        driver = BusDriver(str(host.path), event_log, settings=settings, opener=opener)
        async with running(driver):
            await event_log.wait_for(
                lambda: len(event_log.of(BoardConnected)) == 2, what="2 boards", timeout=15
            )
            links[-1].armed = True
            host.set_square(idx("e2"), 0, board=0)
            host.set_square(idx("e4"), 0x01, board=0)
            await event_log.wait_for(
                lambda: last_fen(event_log, "10001") == fen_after("e2e4"), what="e4"
            )
            board = driver.boards[10001]
            polls = board.polls  # a missed poll makes the next good one compare a dump
            await event_log.wait_for(lambda: board.polls >= polls + 5, what="5 more polls")
            assert links[-1].held == 1
            assert board.rereads == 0 and not event_log.of(LogRecovered)
            changes = [p.change for p in event_log.of(PositionSeen) if p.change is not None]
            assert (idx("e2"), 0) in changes and (idx("e4"), 0x01) in changes
            assert board.late >= 1  # the held answer was read when it came


Play = tuple[str, int | None, float]  # a square and its new code, or a side's press; when


async def _off_the_line(host: PtyHost, line: BusLine, driver: BusDriver, plays: list[Play]) -> None:
    """Board 0 off the line while `plays` are made on it (what it logs waits in its change
    buffer), then back: the driver's next poll gets them all in one change list."""
    board = line.boards[0]
    line.boards.remove(board)
    t = host.now()
    for what, code, after in plays:
        if code is None:
            board.press_lever("left" if what == "left" else "right", t + after)
        else:
            board.set_square(idx(what), code, t + after)
    while host.now() <= t + plays[-1][2] + 0.1:
        await asyncio.sleep(0.05)
    polls = driver.boards[10001].polls
    line.boards.insert(0, board)
    while driver.boards[10001].polls < polls + 3:
        await asyncio.sleep(0.05)


def _follow(event_log: EventLog) -> tuple[BoardFollower, list[object]]:
    """Board 10001's events, as they came, through a reconstruction."""
    follower = BoardFollower("10001")
    outs: list[object] = []
    for event in event_log.events:
        if getattr(event, "board", None) == "10001":
            outs += follower.handle(event)
    outs += follower.tick(event_log.events[-1].t + 5.0)
    return follower, outs


async def _started(host: PtyHost, event_log: EventLog) -> None:
    await event_log.wait_for(
        lambda: len(event_log.of(BoardConnected)) == 2, what="2 boards", timeout=15
    )
    host.press_lever("right", board=0)  # Black starts White's clock
    await event_log.wait_for(
        lambda: any(e.board == "10001" for e in event_log.of(ClockStamped)),
        what="the start press",
    )


ONE_LIST = replace(FAST, lost_after_missed=100, verify_every=10_000)


async def test_several_moves_in_one_change_list_are_explained_press_by_press(
    tmp_path: Path, event_log: EventLog
) -> None:
    """Three moves, each with its lever press, reach the driver in one change list (the
    board was off the line for a moment; a loaded machine polls as late). The changes
    carry no times, so the list goes on as one log read back: the reconstruction gets
    each move, in order, with its press's clock time, not three moves stamped alike."""
    line = BusLine.with_serials(["10001", "10002"], seed=6)
    async with PtyHost(line, tmp_path / "bus-1") as host:
        host.setup_clock(900, 900, board=0)
        async with running(BusDriver(str(host.path), event_log, settings=ONE_LIST)) as driver:
            await _started(host, event_log)
            plays: list[Play] = [
                ("e2", 0, 0.3), ("e4", 0x01, 0.6), ("left", None, 1.5),
                ("e7", 0, 1.8), ("e5", 0x07, 2.1), ("right", None, 3.0),
                ("g1", 0, 3.3), ("f3", 0x03, 3.6), ("left", None, 4.5),
            ]  # fmt: skip
            await _off_the_line(host, line, driver, plays)
            assert driver.boards[10001].rereads == 0  # no log was read: the list is whole
            assert not event_log.of(BoardLost)

    follower, outs = _follow(event_log)
    rec = follower.reconstructor
    assert rec.sans == ["e4", "e5", "Nf3"]
    # Each move as it was made: never out of sync, each with its own press's time.
    assert not any(isinstance(out, OutOfSync) for out in outs)
    (burst,) = [e for e in event_log.of(LogRecovered) if e.board == "10001"]
    assert burst.seen == -1 and burst.anchor == "known" and burst.placed
    assert burst.final.board_fen() == fen_after("e2e4", "e7e5", "g1f3")
    presses = [p for step in burst.steps for p in step.presses]
    assert [side for side, _ in presses] == ["left", "right", "left"]
    assert [c.remaining if c else None for c in rec.clocks] == [float(s) for _, s in presses]
    assert presses[0][1] < 900 and presses[2][1] < presses[0][1]  # White's time ran


async def test_a_piece_lifted_before_several_moves_in_one_list_is_on_the_way(
    tmp_path: Path, event_log: EventLog
) -> None:
    """Black had lifted the e-pawn (seen live) when the board's next change list brought
    two moves: the list is read on from the way of the last presses, the lift a step the
    host saw, so it begins where the game stands, not at a half-made move."""
    line = BusLine.with_serials(["10001", "10002"], seed=7)
    async with PtyHost(line, tmp_path / "bus-1") as host:
        host.setup_clock(900, 900, board=0)
        async with running(BusDriver(str(host.path), event_log, settings=ONE_LIST)) as driver:
            await _started(host, event_log)
            host.set_square(idx("e2"), 0, board=0)
            host.set_square(idx("e4"), 0x01, board=0)
            await asyncio.sleep(0.8)
            host.press_lever("left", board=0)
            await event_log.wait_for(
                lambda: sum(e.board == "10001" for e in event_log.of(ClockStamped)) == 2,
                what="White's press",
            )
            host.set_square(idx("e7"), 0, board=0)
            await event_log.wait_for(
                lambda: last_fen(event_log, "10001") != fen_after("e2e4"), what="the lift"
            )
            plays: list[Play] = [
                ("e5", 0x07, 0.3), ("right", None, 1.2),
                ("g1", 0, 1.5), ("f3", 0x03, 1.8), ("left", None, 2.7),
                ("b8", 0, 3.0),
            ]  # fmt: skip
            await _off_the_line(host, line, driver, plays)

    follower, _ = _follow(event_log)
    rec = follower.reconstructor
    assert rec.sans == ["e4", "e5", "Nf3"]
    (burst,) = [e for e in event_log.of(LogRecovered) if e.board == "10001"]
    lifted = chess.Board(fen_after("e2e4") + " b KQkq - 0 1")
    lifted.remove_piece_at(chess.E7)
    assert burst.positions()[burst.seen].board_fen() == lifted.board_fen()  # seen live
    assert burst.steps[burst.seen].changes == ((idx("e7"), 0),)
    presses = [p for step in burst.steps[burst.seen + 1 :] for p in step.presses]
    assert [side for side, _ in presses] == ["right", "left"]
    assert [c.remaining if c else None for c in rec.clocks[1:]] == [float(s) for _, s in presses]
