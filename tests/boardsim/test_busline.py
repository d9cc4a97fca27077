"""Bus mode on the pure board and the bus line: replies, checksums, pings, changes."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from boards.dgt.bus import BusReply, BusRequest, checksum
from boards.dgt.codes import BusCommand, BusReplyId, Command
from boards.dgt.decoder import BusStreamDecoder, HostStreamDecoder, SingleCommand
from boards.dgt.eeprom import ClockTime, PieceChange, Tag, TagEvent, decode_events
from boardsim.board import START_POSITION, EmulatedBoard, Mode
from boardsim.busline import BusLine
from clocks.reading import ClockReading, decode_bwtime

ADDR = 10001


def ask(board: EmulatedBoard | BusLine, command: BusCommand, t: float = 0.0) -> bytes:
    raw = BusRequest(command, ADDR).encode()
    return b"".join(board.handle(item, t) for item in HostStreamDecoder().feed(raw))


def mode_of(board: EmulatedBoard) -> Mode:
    return board.mode


def replies(raw: bytes) -> list[BusReply]:
    out = BusStreamDecoder().feed(raw)
    assert all(isinstance(r, BusReply) for r in out), out
    return [r for r in out if isinstance(r, BusReply)]


def test_reply_frames_have_lengths_and_checksums() -> None:
    board = EmulatedBoard("10001")
    lengths = {
        BusCommand.SEND_BRD: 70,
        BusCommand.SEND_CLK: 13,
        BusCommand.PING: 6,
        BusCommand.SEND_VERSION: 8,
    }
    for command, total in lengths.items():
        raw = ask(board, command)
        assert len(raw) == total
        assert raw[1:3] == bytes([total >> 7, total & 0x7F])
        assert raw[3:5] == bytes([ADDR >> 7, ADDR & 0x7F])
        assert raw[-1] == checksum(raw[:-1])


def test_bus_replies_decode() -> None:
    board = EmulatedBoard("10001")
    [dump] = replies(ask(board, BusCommand.SEND_BRD))
    assert dump.reply_id is BusReplyId.BRD_DUMP and dump.data == START_POSITION.to_bytes()
    [clk] = replies(ask(board, BusCommand.SEND_CLK))
    assert isinstance(decode_bwtime(clk.data), ClockReading)
    [version] = replies(ask(board, BusCommand.SEND_VERSION))
    assert version.reply_id is BusReplyId.VERSION and version.data == bytes([1, 7])


def test_other_addresses_are_ignored() -> None:
    board = EmulatedBoard("10001")
    raw = BusRequest(BusCommand.SEND_BRD, 10002).encode()
    assert board.handle(HostStreamDecoder().feed(raw)[0], 0.0) == b""


def test_changes_then_repeat_then_nothing_new() -> None:
    board = EmulatedBoard("10001")
    [first] = replies(ask(board, BusCommand.SEND_CHANGES))
    assert decode_events(first.data)[0] == [
        TagEvent(Tag.POWERUP),
        *(PieceChange(i, c) for i, c in enumerate(START_POSITION.codes) if c),
        TagEvent(Tag.BEGINPOS),
    ]
    board.press_lever("right", 1.0)
    board.set_square(52, 0, 2.0)
    board.set_square(36, 1, 2.1)
    board.press_lever("left", 3.0)
    [update] = replies(ask(board, BusCommand.SEND_CHANGES, 3.5))
    assert update.reply_id is BusReplyId.UPDATE
    assert decode_events(update.data)[0] == [
        ClockTime(False, 5400),
        PieceChange(52, 0),
        PieceChange(36, 1, fast=True),
        ClockTime(True, 5398),
    ]
    [again] = replies(ask(board, BusCommand.REPEAT_CHANGES, 3.6))
    assert again == update
    [empty] = replies(ask(board, BusCommand.SEND_CHANGES, 3.7))
    assert empty.data == b"" and len(empty.encode()) == 6


def test_set_start_game_answers_after_70ms_and_from_start() -> None:
    board = EmulatedBoard("10001")
    assert ask(board, BusCommand.SET_START_GAME, 1.0) == b""
    assert board.tick(1.05) == b""
    [written] = replies(board.tick(1.08))
    assert written.reply_id is BusReplyId.START_GAME_WRITTEN and written.data == b""
    board.set_square(52, 0, 2.0)
    [fs] = replies(ask(board, BusCommand.SEND_FROM_START, 3.0))
    events = decode_events(fs.data)[0]
    assert events[0] == TagEvent(Tag.START_TAG)
    assert sum(isinstance(e, PieceChange) for e in events) == 33  # 32 pieces + the move
    assert events[-1] == PieceChange(52, 0)


def test_send_all_d_gives_changes_clock_and_board() -> None:
    board = EmulatedBoard("10001")
    got = replies(ask(board, BusCommand.SEND_ALL_D))
    assert [r.reply_id for r in got] == [BusReplyId.UPDATE, BusReplyId.BWTIME, BusReplyId.BRD_DUMP]


def test_end_busmode_and_reset() -> None:
    board = EmulatedBoard("10001")
    assert ask(board, BusCommand.END_BUSMODE) == b""
    assert mode_of(board) is Mode.SINGLE
    assert ask(board, BusCommand.RESET, 1.0) == b""
    assert mode_of(board) is Mode.BUS
    assert ask(board, BusCommand.PING, 2.0) == b""  # still rebooting
    assert len(ask(board, BusCommand.PING, 3.5)) == 6
    assert board.eeprom.events().count(TagEvent(Tag.POWERUP)) == 2


def test_broadcast_ping_answered_later_unless_ignored() -> None:
    line = BusLine.with_serials(["10001", "10002", "10003"], seed=7)
    ignore = BusRequest(BusCommand.IGNORE_NEXT_BUS_PING, 10002).encode()
    [immediate] = replies(line.handle(HostStreamDecoder().feed(ignore)[0], 0.0))
    assert immediate.reply_id is BusReplyId.PING and immediate.address == 10002
    ping = HostStreamDecoder().feed(BusRequest(BusCommand.PING, 0).encode())[0]
    assert line.handle(ping, 1.0) == b""
    waiting = line.scheduled()
    assert sorted(r.address for r in waiting) == [10001, 10003]
    assert all(1.0 <= r.due <= 2.1 for r in waiting)
    got = replies(line.tick(2.2))
    assert sorted(r.address for r in got) == [10001, 10003]
    # The ignore lasts one broadcast ping only.
    line.handle(ping, 3.0)
    assert len(replies(line.tick(4.2))) == 3


def test_broadcast_ping_timing_is_seeded() -> None:
    def dues(seed: int) -> list[float]:
        line = BusLine.with_serials([str(10001 + i) for i in range(8)], seed=seed)
        line.handle(BusRequest(BusCommand.PING, 0), 0.0)
        return [r.due for r in line.scheduled()]

    assert dues(1) == dues(1)
    assert dues(1) != dues(2)


def test_single_commands_on_a_shared_line_are_garbled() -> None:
    line = BusLine.with_serials(["10001", "10002"])
    out = line.handle(SingleCommand(Command.RETURN_SERIALNR), 0.0)
    assert len(out) == 16 and out[:2] == b"\x91\x91"  # two answers on top of each other
    alone = BusLine.with_serials(["10001"])
    assert alone.handle(SingleCommand(Command.RETURN_SERIALNR), 0.0) == b"\x91\x00\x0810001"


def test_line_counts_dangerous_commands() -> None:
    line = BusLine.with_serials(["10001", "10002"])
    line.handle(SingleCommand(Command.STARTBOOTLOADER), 0.0)
    assert line.dangerous_commands_received == 2


@given(st.lists(st.tuples(st.integers(0, 63), st.integers(0, 12)), min_size=1, max_size=40))
def test_changes_replay_to_the_bus_board_dump(changes: list[tuple[int, int]]) -> None:
    board = EmulatedBoard("10001")
    ask(board, BusCommand.SEND_CHANGES)
    codes = list(START_POSITION.codes)
    for n, (index, code) in enumerate(changes):
        board.set_square(index, code, float(n))
        if n % 7 == 0:
            [update] = replies(ask(board, BusCommand.SEND_CHANGES, float(n)))
            for e in decode_events(update.data)[0]:
                if isinstance(e, PieceChange):
                    codes[e.index] = e.code
    [update] = replies(ask(board, BusCommand.SEND_CHANGES, 100.0))
    for e in decode_events(update.data)[0]:
        if isinstance(e, PieceChange):
            codes[e.index] = e.code
    [dump] = replies(ask(board, BusCommand.SEND_BRD, 100.0))
    assert tuple(codes) == tuple(dump.data)
