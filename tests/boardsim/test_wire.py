"""The simulator's own encoders against byte strings written by hand from the DGT protocol.

Every expected value here is spelt out from the published protocol (see
tests/data/dgt-eeprom-reference.md), never produced by the product's codec: these tests
are what makes the emulated wire a second, independent reading of the protocol. The
product's decoders are then checked against the same bytes.
"""

from __future__ import annotations

import chess
import pytest

from boards.dgt.bus import BusReply
from boards.dgt.codes import BusReplyId as ProductBusReplyId
from boards.dgt.decoder import BoardStreamDecoder, BusStreamDecoder
from boards.dgt.eeprom import ClockTime, PieceChange, Tag, TagEvent, decode_events
from boards.dgt.messages import BoardDump, BusAddress, BWTime, FieldUpdate, SerialNumber, Version
from boards.position import SYMBOL_TO_CODE, BoardPosition, square_to_index
from boardsim import wire
from boardsim.eeprom_log import (
    START_CODES,
    Change,
    ClockRecord,
    LogTag,
    Marker,
    encode_record,
    encode_records,
    position_tag,
    power_up_records,
)
from clocks.reading import ClockAck, ClockReading, NoClock, decode_bwtime


def h(text: str) -> bytes:
    return bytes.fromhex(text)


# The start position as a board reports it, index 0 = a8 ... 63 = h1, typed out by hand:
# r n b q k b n r / p x8 / 32 empty / P x8 / R N B Q K B N R.
START_HEX = (
    "08 09 0A 0C 0B 0A 09 08" + " 07" * 8 + " 00" * 32 + " 01" * 8 + " 02 03 04 06 05 04 03 02"
)

# -- EEPROM records ----------------------------------------------------------------------

RECORDS = [
    # piece change: 0x40 | piece, then the square
    (Change(36, 0x01), "41 24"),  # white pawn lands on e4 (index 36)
    (Change(52, 0x00), "40 34"),  # e2 (index 52) emptied
    (Change(3, 0x0C), "4C 03"),  # black queen on d8
    (Change(63, 0x0B), "4B 3F"),  # black king on h1
    (Change(36, 0x01, fast=True), "51 24"),  # under 250 ms after the previous change
    (Change(0, 0x00, fast=True), "50 00"),
    # clock: 0x60 | 0x10 for the left side | hours, BCD minutes, BCD seconds
    (ClockRecord(left=True, seconds=3909), "71 05 09"),  # left, 1:05:09
    (ClockRecord(left=False, seconds=5400), "61 30 00"),  # right, 1:30:00
    (ClockRecord(left=False, seconds=3599), "60 59 59"),  # right, 0:59:59
    (ClockRecord(left=True, seconds=0), "70 00 00"),
    (ClockRecord(left=False, seconds=9 * 3600 + 59 * 60 + 59), "69 59 59"),
    (ClockRecord(left=True, seconds=2 * 3600 + 45 * 60 + 7), "72 45 07"),
    # one-byte tags
    (Marker(LogTag.POWERUP), "6A"),
    (Marker(LogTag.EOF), "6B"),
    (Marker(LogTag.FOURROWS), "6C"),
    (Marker(LogTag.EMPTYBOARD), "6D"),
    (Marker(LogTag.DOWNLOADED), "6E"),
    (Marker(LogTag.BEGINPOS), "6F"),
    (Marker(LogTag.BEGINPOS_ROT), "7A"),
    (Marker(LogTag.START_TAG), "7B"),
    (Marker(LogTag.WATCHDOG), "7C"),
    (Marker(LogTag.NOP), "7F"),
    (Marker(LogTag.NOP2), "00"),
]


@pytest.mark.parametrize(("record", "golden"), RECORDS)
def test_record_bytes(record: Change | ClockRecord | Marker, golden: str) -> None:
    assert encode_record(record) == h(golden)


# What the product's decoder must make of the same golden bytes.
PRODUCT_READING = [
    ("41 24", PieceChange(36, 1)),
    ("51 24", PieceChange(36, 1, fast=True)),
    ("40 34", PieceChange(52, 0)),
    ("4C 03", PieceChange(3, 0x0C)),
    ("71 05 09", ClockTime(left=True, seconds=3909)),
    ("61 30 00", ClockTime(left=False, seconds=5400)),
    ("69 59 59", ClockTime(left=False, seconds=35999)),
    ("72 45 07", ClockTime(left=True, seconds=9907)),
    ("6A", TagEvent(Tag.POWERUP)),
    ("6C", TagEvent(Tag.FOURROWS)),
    ("6D", TagEvent(Tag.EMPTYBOARD)),
    ("6E", TagEvent(Tag.DOWNLOADED)),
    ("6F", TagEvent(Tag.BEGINPOS)),
    ("7A", TagEvent(Tag.BEGINPOS_ROT)),
    ("7B", TagEvent(Tag.START_TAG)),
    ("7C", TagEvent(Tag.WATCHDOG)),
]


@pytest.mark.parametrize(("golden", "event"), PRODUCT_READING)
def test_product_decoder_reads_the_golden_records(golden: str, event: object) -> None:
    assert decode_events(h(golden)) == ([event], 0)


def test_product_decoder_skips_nops_and_stops_at_eof() -> None:
    assert decode_events(h("7F 7F 00 41 24 6B 42 38")) == ([PieceChange(36, 1)], 0)


def test_power_up_writes_nops_powerup_every_piece_then_beginpos() -> None:
    pieces = " ".join(
        f"{0x40 | code:02X} {index:02X}" for index, code in enumerate(START_CODES) if code
    )
    assert pieces.startswith("48 00 49 01 4A 02 4C 03 4B 04 4A 05 49 06 48 07 47 08")
    assert pieces.endswith("42 38 43 39 44 3A 46 3B 45 3C 44 3D 43 3E 42 3F")
    assert encode_records(power_up_records(START_CODES)) == h(f"7F 7F 7F 6A {pieces} 6F")


def test_position_tags() -> None:
    assert tuple(h(START_HEX)) == START_CODES
    assert position_tag(h(START_HEX)) is LogTag.BEGINPOS
    assert position_tag(bytes(reversed(h(START_HEX)))) is LogTag.BEGINPOS_ROT
    assert position_tag(bytes(64)) is LogTag.EMPTYBOARD
    swapped = bytearray(h(START_HEX))
    swapped[59], swapped[60] = swapped[60], swapped[59]  # white king on d1, queen on e1
    assert position_tag(swapped) is LogTag.FOURROWS
    swapped[8] = 0  # a black pawn missing: no longer four full rows
    assert position_tag(swapped) is None
    one_more = bytearray(h(START_HEX))
    one_more[28] = 0x01  # an extra pawn in the middle: not four rows
    assert position_tag(one_more) is None


# -- single-board message framing ----------------------------------------------------------


def test_board_dump_frame() -> None:
    frame = wire.board_dump(START_CODES)
    assert frame == h("86 00 43" + START_HEX)  # 67 bytes in all
    assert BoardStreamDecoder().feed(frame) == [BoardDump(BoardPosition(START_CODES))]


def test_small_frames() -> None:
    cases = [
        (wire.field_update(36, 1), "8E 00 05 24 01", FieldUpdate(36, 1)),
        (wire.serial_number("01025"), "91 00 08 30 31 30 32 35", SerialNumber("01025")),
        (wire.version(1, 7), "93 00 05 01 07", Version(1, 7)),
        (wire.bus_address(10001), "90 00 05 4E 11", BusAddress(10001)),  # 78 * 128 + 17
    ]
    for frame, golden, message in cases:
        assert frame == h(golden)
        assert BoardStreamDecoder().feed(frame) == [message]


def test_ee_moves_length_is_split_across_two_seven_bit_bytes() -> None:
    ring = bytes(0x1F00)
    frame = wire.ee_moves(ring)
    # 7936 bytes of log + EOF + 3 header bytes = 7940 = 62 * 128 + 4
    assert frame[:3] == h("8F 3E 04") and frame[-1] == 0x6B and len(frame) == 7940
    assert wire.ee_moves(h("6A 41 24")) == h("8F 00 07 6A 41 24 6B")


def test_bwtime_payloads() -> None:
    # right 1:30:00, left 1:29:58, running, right lever high (the right clock runs):
    # p6 = 01 running | 02 right lever | 10 right's turn (2012/2014 turn bits)
    running_right = wire.clock_times(
        left_seconds=5398, right_seconds=5400, running=True, right_lever_high=True
    )
    assert wire.bwtime(running_right) == h("8D 00 0A 01 30 00 01 29 58 13")
    assert decode_bwtime(running_right) == ClockReading(5398, 5400, True, True)
    running_left = wire.clock_times(
        left_seconds=65, right_seconds=600, running=True, right_lever_high=False
    )
    assert running_left == h("00 10 00 00 01 05 09")
    # flags: final 10 and shown 40 on the side's hour byte, increment mode 20
    fallen = wire.clock_times(
        left_seconds=0,
        right_seconds=300,
        running=False,
        right_lever_high=False,
        left_flag=True,
        left_final_flag=True,
        right_increment_mode=True,
        battery_low=True,
    )
    assert fallen == h("20 05 00 50 00 00 04")
    reading = decode_bwtime(fallen)
    assert isinstance(reading, ClockReading)
    assert reading.left_final_flag and reading.left_flag and reading.right_increment_mode
    assert wire.bwtime(wire.NO_CLOCK) == h("8D 00 0A 00 00 00 00 00 00 20")
    assert decode_bwtime(wire.NO_CLOCK) == NoClock()


def test_clock_ack_payloads() -> None:
    setnrun = wire.clock_ack(0x10, 0x0A, 0x00, 0x00)
    assert setnrun == h("0A 10 0A 0A 00 00 00")
    assert decode_bwtime(setnrun) == ClockAck(0x10, 0x0A, 0, 0)
    # a button on the clock: ack1 = 88 (top bit folded into p3 as 20), ack3 = 31 (back)
    button = wire.clock_ack(0x10, 0x88, 0x00, 0x31)
    assert button == h("0A 10 08 2A 00 31 00")
    assert decode_bwtime(button) == ClockAck(0x10, 0x88, 0, 0x31)
    version = wire.clock_ack(0x10, 0x09, 0x22, 0x00)
    assert version == h("0A 10 09 0A 22 00 00")
    assert decode_bwtime(BWTime(version).raw) == ClockAck(0x10, 0x09, 0x22, 0)


# -- bus frames ------------------------------------------------------------------------------


def test_bus_reply_frames_with_checksum() -> None:
    # address 01025 = 8 * 128 + 1 -> 08 01; length counts the whole frame
    # checksum: 85 + 00 + 08 + 08 + 01 + 41 + 24 = 251 -> 251 mod 128 = 7B
    changes = wire.bus_reply(wire.BusReplyId.UPDATE, 1025, h("41 24"))
    assert changes == h("85 00 08 08 01 41 24 7B")
    ping = wire.bus_reply(wire.BusReplyId.PING, 1025, b"")
    assert ping == h("87 00 06 08 01 16")  # 87 + 06 + 08 + 01 = 150 -> 22
    dump = wire.bus_reply(wire.BusReplyId.BRD_DUMP, 1025, h(START_HEX))
    assert dump[:5] == h("83 00 46 08 01") and len(dump) == 70
    assert dump[-1] == sum(dump[:-1]) % 128
    decoded = BusStreamDecoder().feed(changes + ping + dump)
    assert decoded == [
        BusReply(ProductBusReplyId.UPDATE, 1025, h("41 24")),
        BusReply(ProductBusReplyId.PING, 1025, b""),
        BusReply(ProductBusReplyId.BRD_DUMP, 1025, h(START_HEX)),
    ]


def test_bus_reply_ids_and_host_commands_match_the_reference() -> None:
    assert [int(r) for r in wire.BusReplyId] == [0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89]
    assert wire.HostCommand.SEND_EE_MOVES == 0x49 and wire.HostCommand.SEND_UPDATE_NICE == 0x4B
    assert wire.BusHostCommand.SEND_CHANGES == 0x83
    assert wire.BusHostCommand.SEND_FROM_START == 0x86


# -- the square and piece mapping the scripted players share with the product -----------


def test_square_and_piece_mapping_matches_the_protocol() -> None:
    """The scripted players (`boardsim.script`, `boardsim.humans`) place pieces with the
    product's mapping, so it is pinned here to the protocol's numbering."""
    assert [square_to_index(s) for s in (chess.A8, chess.H8, chess.E4, chess.E2, chess.A1)] == [
        0,
        7,
        36,
        52,
        56,
    ]
    assert square_to_index(chess.H1) == 63 and square_to_index(chess.H1, "rotated") == 0
    assert SYMBOL_TO_CODE == {
        "P": 1, "R": 2, "N": 3, "B": 4, "K": 5, "Q": 6,
        "p": 7, "r": 8, "n": 9, "b": 10, "k": 11, "q": 12,
    }  # fmt: skip
    assert BoardPosition.from_fen(chess.STARTING_BOARD_FEN).codes == tuple(h(START_HEX))
    rotated = BoardPosition.from_fen(chess.STARTING_BOARD_FEN, "rotated")
    assert rotated.codes == tuple(reversed(h(START_HEX)))
