"""The emulated board as a pure state machine: single-mode replies, update modes, EEPROM log."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from boards.dgt.bus import BusRequest
from boards.dgt.clock_commands import ClockSetAndRun, ClockVersion, encode_clock_command
from boards.dgt.codes import BusCommand, Command
from boards.dgt.decoder import BoardStreamDecoder, HostStreamDecoder, SetLeds, SingleCommand
from boards.dgt.eeprom import ClockTime, PieceChange, Tag, TagEvent, decode_events
from boards.dgt.messages import (
    BatteryStatus,
    BoardDump,
    BoardMessage,
    BusAddress,
    BWTime,
    EEMoves,
    FieldUpdate,
    LongSerialNumber,
    SerialNumber,
    Trademark,
    Version,
)
from boards.position import BoardPosition
from boardsim.board import EEPROM_SIZE, START_POSITION, EmulatedBoard, Mode, UpdateMode
from boardsim.clock import EmulatedClock
from clocks.reading import ClockAck, ClockReading, NoClock, decode_bwtime


def send(board: EmulatedBoard, raw: bytes, t: float = 0.0) -> list[BoardMessage]:
    """Feed host bytes through the real host decoder; decode what the board answers."""
    out = b"".join(board.handle(item, t) for item in HostStreamDecoder().feed(raw))
    return list(BoardStreamDecoder().feed(out))


def mode_of(board: EmulatedBoard) -> Mode:
    """Read the mode afresh (keeps mypy from narrowing it across calls)."""
    return board.mode


def cmd(code: Command) -> bytes:
    return bytes([code])


POWER_UP_EVENTS = [
    TagEvent(Tag.POWERUP),
    *(PieceChange(i, c) for i, c in enumerate(START_POSITION.codes) if c),
    TagEvent(Tag.BEGINPOS),
]


def test_powers_up_in_bus_mode_with_powerup_pieces_and_beginpos_logged() -> None:
    board = EmulatedBoard("10001")
    assert mode_of(board) is Mode.BUS and board.update_mode is UpdateMode.IDLE
    assert board.eeprom.events() == POWER_UP_EVENTS


def test_every_single_mode_command_reply() -> None:
    board = EmulatedBoard("10001", battery_percent=77, download_rate=None)
    assert send(board, cmd(Command.SEND_VERSION)) == [Version(1, 7)]
    assert mode_of(board) is Mode.SINGLE and board.update_mode is UpdateMode.IDLE
    assert send(board, cmd(Command.RETURN_SERIALNR)) == [SerialNumber("10001")]
    assert send(board, cmd(Command.RETURN_LONG_SERIALNR)) == [LongSerialNumber("0000010001")]
    assert send(board, cmd(Command.RETURN_BUSADRES)) == [BusAddress(10001)]
    [tm] = send(board, cmd(Command.SEND_TRADEMARK))
    assert isinstance(tm, Trademark) and "Digital Game Technology" in tm.text
    assert send(board, cmd(Command.SEND_BRD)) == [BoardDump(START_POSITION)]
    [clk] = send(board, cmd(Command.SEND_CLK))
    assert isinstance(clk, BWTime)
    assert decode_bwtime(clk.raw) == ClockReading(5400, 5400, False, False)
    [bat] = send(board, cmd(Command.SEND_BATTERY_STATUS))
    assert isinstance(bat, BatteryStatus) and bat.percent == 77 and not bat.charging
    [ee] = send(board, cmd(Command.SEND_EE_MOVES))
    assert isinstance(ee, EEMoves)
    assert ee.events() == POWER_UP_EVENTS
    assert ee.data.endswith(bytes([Tag.EOF])) and len(ee.data) == EEPROM_SIZE + 1
    for silent in (Command.RESET, Command.SEND_UPDATE_NICE, Command.TO_BUSMODE):
        assert send(board, cmd(silent)) == []
    assert mode_of(board) is Mode.BUS


def test_wired_board_without_battery_does_not_answer_battery_status() -> None:
    assert send(EmulatedBoard("10001"), cmd(Command.SEND_BATTERY_STATUS)) == []


def test_board_without_clock_reports_no_clock() -> None:
    board = EmulatedBoard("10001", has_clock=False)
    [clk] = send(board, cmd(Command.SEND_CLK))
    assert isinstance(clk, BWTime) and decode_bwtime(clk.raw) == NoClock()
    assert board.press_lever("left", 1.0) == b""


def test_dangerous_commands_are_counted_and_never_acted_on() -> None:
    board = EmulatedBoard("10001")
    for code in (Command.STARTBOOTLOADER, Command.SCAN_50B, Command.SCAN_50W, Command.SCAN_100):
        assert send(board, cmd(code)) == []
    assert board.dangerous_commands_received == 4
    assert mode_of(board) is Mode.BUS  # not even a mode switch
    assert send(board, cmd(Command.SEND_VERSION)) == [Version(1, 7)]


def test_field_updates_only_in_update_modes() -> None:
    board = EmulatedBoard("10001")
    send(board, cmd(Command.SEND_VERSION))
    assert board.set_square(52, 0, 1.0) == b""  # IDLE: logged, not sent
    for mode in (Command.SEND_UPDATE, Command.SEND_UPDATE_BRD, Command.SEND_UPDATE_NICE):
        send(board, cmd(mode))
        out = board.set_square(36, 1, 2.0) + board.set_square(36, 0, 3.0)
        assert BoardStreamDecoder().feed(out) == [FieldUpdate(36, 1), FieldUpdate(36, 0)]
    assert board.set_square(36, 0, 4.0) == b""  # no change, nothing to say


def test_update_nice_sends_clock_only_when_it_changes() -> None:
    board = EmulatedBoard("10001")
    send(board, cmd(Command.SEND_UPDATE_NICE))
    first = BoardStreamDecoder().feed(board.tick(0.0))
    assert len(first) == 1 and isinstance(first[0], BWTime)
    assert board.tick(0.5) == b"" and board.tick(3.0) == b""  # paused: no change
    lever = BoardStreamDecoder().feed(board.press_lever("right", 3.0))
    assert len(lever) == 1
    assert board.tick(3.5) == b""  # 5399.5 still shows 1:30:00
    [msg] = BoardStreamDecoder().feed(board.tick(4.01))
    assert isinstance(msg, BWTime)
    reading = decode_bwtime(msg.raw)
    assert isinstance(reading, ClockReading) and reading.left_seconds == 5399


def test_update_sends_clock_at_least_once_a_second() -> None:
    board = EmulatedBoard("10001")
    send(board, cmd(Command.SEND_UPDATE))
    sent = [t / 10 for t in range(0, 35) if board.tick(t / 10)]
    assert sent == [0.0, 1.0, 2.0, 3.0]


def test_update_brd_never_sends_the_clock() -> None:
    board = EmulatedBoard("10001")
    send(board, cmd(Command.SEND_UPDATE_BRD))
    assert board.tick(0.0) == b"" and board.press_lever("right", 1.0) == b""


def test_clock_commands_acked_only_in_update_modes() -> None:
    board = EmulatedBoard("10001")
    version = encode_clock_command(ClockVersion())
    assert send(board, version) == []  # IDLE: the clock obeys but no ack comes back
    send(board, cmd(Command.SEND_UPDATE_NICE))
    [ack] = send(board, version)
    assert isinstance(ack, BWTime)
    decoded = decode_bwtime(ack.raw)
    assert isinstance(decoded, ClockAck) and decoded.ok and decoded.version == (2, 2)
    [ack] = send(board, encode_clock_command(ClockSetAndRun(60, 120, 0x03)))
    assert isinstance(ack, BWTime)
    decoded = decode_bwtime(ack.raw)
    assert isinstance(decoded, ClockAck) and decoded.command == 0x0A
    [times] = BoardStreamDecoder().feed(board.tick(2.0))  # the times again after the ack
    assert isinstance(times, BWTime)
    reading = decode_bwtime(times.raw)
    assert isinstance(reading, ClockReading)
    assert (reading.left_seconds, reading.right_seconds) == (58, 120)


def test_leds_switch_to_single_mode_without_reply() -> None:
    board = EmulatedBoard("10001")
    assert board.handle(SetLeds(b"\x04\x01\x0c\x1c\x00"), 0.0) == b""
    assert mode_of(board) is Mode.SINGLE and board.leds == b"\x04\x01\x0c\x1c\x00"


def test_eeprom_log_of_a_move_with_fast_bit_and_clock_time() -> None:
    board = EmulatedBoard("10001")
    board.press_lever("right", 0.0)  # Black starts White's clock
    board.set_square(52, 0, 10.0)
    board.set_square(36, 1, 10.1)  # 100 ms later: fast
    board.press_lever("left", 12.0)
    events = board.eeprom.events()[len(POWER_UP_EVENTS) :]
    assert events == [
        ClockTime(left=False, seconds=5400),
        PieceChange(52, 0, fast=False),
        PieceChange(36, 1, fast=True),
        ClockTime(left=True, seconds=5388),
    ]


def test_eeprom_tags_for_start_rotated_and_empty() -> None:
    board = EmulatedBoard("10001", position=BoardPosition.empty())
    assert board.eeprom.events() == [TagEvent(Tag.POWERUP), TagEvent(Tag.EMPTYBOARD)]
    board.set_position(START_POSITION.with_piece(3, 0x0B).with_piece(4, 0x0C), 0.5)
    assert board.eeprom.events()[-1] == TagEvent(Tag.FOURROWS)  # black king and queen swapped
    board.set_position(BoardPosition.from_fen("8/8/8/8/8/8/8/8"), 1.0)
    rotated = BoardPosition.from_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR", "rotated")
    board.set_position(rotated, 2.0)
    assert board.eeprom.events()[-1] == TagEvent(Tag.BEGINPOS_ROT)
    board.set_position(BoardPosition.empty(), 3.0)
    assert board.eeprom.events()[-1] == TagEvent(Tag.EMPTYBOARD)
    board.set_position(START_POSITION, 4.0)
    assert board.eeprom.events()[-1] == TagEvent(Tag.BEGINPOS)


def test_eeprom_is_a_byte_ring() -> None:
    board = EmulatedBoard("10001", eeprom_size=100)
    for i in range(200):
        board.set_square(40 + i % 2, 1 if i % 4 < 2 else 0, float(i))
    assert len(board.eeprom) == 100 and len(board.eeprom.data()) == 100
    events, _ = decode_events(board.eeprom.data())
    assert events[-3:] == [PieceChange(40, 0), PieceChange(41, 0), TagEvent(Tag.BEGINPOS)]


def test_physical_changes_are_checked() -> None:
    board = EmulatedBoard("10001")
    with pytest.raises(ValueError, match=r"0\.\.63"):
        board.set_square(64, 1, 0.0)
    with pytest.raises(ValueError, match="5 digits"):
        EmulatedBoard("123")
    with pytest.raises(ValueError, match="broadcast"):
        EmulatedBoard("00000")


def test_bus_command_switches_back_to_bus_mode() -> None:
    board = EmulatedBoard("10001")
    send(board, cmd(Command.SEND_UPDATE_NICE))
    assert mode_of(board) is Mode.SINGLE
    board.handle(BusRequest(BusCommand.PING, 10001), 1.0)
    assert mode_of(board) is Mode.BUS and board.update_mode is UpdateMode.IDLE
    assert board.set_square(52, 0, 2.0) == b"" and board.tick(3.0) == b""


def test_reset_returns_to_idle() -> None:
    board = EmulatedBoard("10001")
    send(board, cmd(Command.SEND_UPDATE))
    board.handle(SingleCommand(Command.RESET), 1.0)
    assert board.update_mode is UpdateMode.IDLE and board.tick(5.0) == b""


def test_external_clock_is_used() -> None:
    clock = EmulatedClock(60, 30)
    board = EmulatedBoard("10001", clock=clock)
    reading = decode_bwtime(board.clock_payload(0.0))
    assert isinstance(reading, ClockReading) and reading.right_seconds == 30


@given(st.lists(st.tuples(st.integers(0, 63), st.integers(0, 12)), max_size=60))
def test_field_updates_replay_to_the_board_dump(changes: list[tuple[int, int]]) -> None:
    """Applying the streamed FIELD_UPDATEs to the first dump gives the final dump."""
    board = EmulatedBoard("10001")
    [dump] = send(board, cmd(Command.SEND_BRD))
    send(board, cmd(Command.SEND_UPDATE_BRD))
    assert isinstance(dump, BoardDump)
    seen = list(dump.position.codes)
    stream = b"".join(board.set_square(i, c, n * 0.3) for n, (i, c) in enumerate(changes))
    for msg in BoardStreamDecoder().feed(stream):
        assert isinstance(msg, FieldUpdate)
        seen[msg.index] = msg.code
    assert tuple(seen) == board.position.codes
    # And the EEPROM log replays to the same position.
    codes = list(START_POSITION.codes)
    for event in board.eeprom.events():
        if isinstance(event, PieceChange):
            codes[event.index] = event.code
    assert tuple(codes) == board.position.codes


def test_unplugged_clock_still_runs_but_the_board_logs_nothing() -> None:
    board = EmulatedBoard("10001")
    board.unplug_clock()
    before = board.eeprom.events()
    assert board.press_lever("right", 1.0) == b""
    assert board.eeprom.events() == before
    board.plug_clock()
    reading = decode_bwtime(board.clock_payload(3.0))
    assert isinstance(reading, ClockReading) and reading.running_side == "left"
    assert reading.left_seconds == 5398
