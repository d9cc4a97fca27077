"""The DGT codec: frames round-trip, and the decoders survive any garbage."""

from __future__ import annotations

import chess
from hypothesis import given, settings
from hypothesis import strategies as st

from boards.dgt.bus import BusReply, BusRequest, address_from_serial, decode_request
from boards.dgt.clock_commands import (
    ClockAscii,
    ClockBeep,
    ClockCommand,
    ClockDisplay,
    ClockEnd,
    ClockIcons,
    ClockSetAndRun,
    ClockVersion,
    encode_clock_command,
)
from boards.dgt.codes import BusCommand, BusReplyId
from boards.dgt.decoder import (
    BoardStreamDecoder,
    BusStreamDecoder,
    ClockCommandFrame,
    HostStreamDecoder,
    SingleCommand,
)
from boards.dgt.eeprom import ClockTime, PieceChange, Tag, TagEvent, decode_events, encode_events
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
    ee_moves,
    encode_message,
)
from boards.position import BoardPosition

seven_bit = st.integers(0, 0x7F)
codes = st.sampled_from([0, *range(1, 13)])
positions = st.lists(codes, min_size=64, max_size=64).map(lambda c: BoardPosition(tuple(c)))
digits = st.text(alphabet="0123456789", min_size=5, max_size=5)

eeprom_events = st.one_of(
    st.builds(PieceChange, st.integers(0, 63), st.integers(0, 15), st.booleans()),
    st.builds(ClockTime, st.booleans(), st.integers(0, 9 * 3600 + 59 * 60 + 59)),
    st.sampled_from([TagEvent(t) for t in Tag if t not in (Tag.EOF, Tag.NOP, Tag.NOP0)]),
)

board_messages: st.SearchStrategy[BoardMessage] = st.one_of(
    st.builds(BoardDump, positions),
    st.builds(BWTime, st.binary(min_size=7, max_size=7).map(lambda b: bytes(x & 0x7F for x in b))),
    st.builds(FieldUpdate, st.integers(0, 63), codes),
    st.builds(EEMoves, st.lists(eeprom_events, max_size=40).map(encode_events)),
    st.builds(BusAddress, st.integers(0, (1 << 14) - 1)),
    st.builds(SerialNumber, digits),
    st.builds(Trademark, st.text(alphabet="Digital Game Technology 0123456789.", max_size=60)),
    st.builds(Version, seven_bit, seven_bit),
    st.builds(
        BatteryStatus, st.binary(min_size=9, max_size=9).map(lambda b: bytes(x & 0x7F for x in b))
    ),
    st.builds(LongSerialNumber, st.text(alphabet="0123456789ABCDEF", min_size=10, max_size=10)),
)


@given(st.lists(board_messages, max_size=8), st.integers(1, 70))
def test_board_messages_round_trip_in_any_chunking(
    messages: list[BoardMessage], chunk: int
) -> None:
    stream = b"".join(encode_message(m) for m in messages)
    decoder = BoardStreamDecoder()
    out: list[BoardMessage] = []
    for i in range(0, len(stream), chunk):
        out += decoder.feed(stream[i : i + chunk])
    assert out == messages
    assert decoder.dropped == 0
    assert decoder.pending == 0


@settings(max_examples=300)
@given(st.binary(max_size=400), st.lists(board_messages, min_size=1, max_size=4))
def test_garbage_never_raises_and_resyncs_on_the_next_frame(
    garbage: bytes, messages: list[BoardMessage]
) -> None:
    decoder = BoardStreamDecoder()
    decoder.feed(garbage)  # anything at all: must not raise
    # Whatever the garbage left half-read, a burst of padding-free frames after it is found
    # once the decoder meets a clean id byte: feed a resync point, then the frames.
    decoder.feed(bytes([0x80]))  # a high byte that is no message id flushes any partial frame
    frames = b"".join(encode_message(m) for m in messages)
    out = decoder.feed(frames)
    assert out == messages


def test_a_cut_frame_is_dropped_and_the_next_one_read() -> None:
    dump = encode_message(BoardDump(BoardPosition.from_fen(chess.STARTING_FEN)))
    update = encode_message(FieldUpdate(12, 0))
    decoder = BoardStreamDecoder()
    out = decoder.feed(dump[:30] + update)
    assert out == [FieldUpdate(12, 0)]
    assert decoder.dropped == 30


def test_impossible_length_is_skipped() -> None:
    decoder = BoardStreamDecoder()
    bogus = bytes([0x8E, 0x00, 0x40, 1, 2])  # FIELD_UPDATE claiming 64 bytes
    out = decoder.feed(bogus + encode_message(Version(3, 1)))
    assert out == [Version(3, 1)]
    assert decoder.dropped == len(bogus)


def test_bad_field_update_square_is_dropped() -> None:
    decoder = BoardStreamDecoder()
    assert decoder.feed(bytes([0x8E, 0x00, 0x05, 70, 1])) == []
    assert decoder.dropped == 5


@given(st.lists(eeprom_events, max_size=60))
def test_eeprom_events_round_trip(events: list[PieceChange | ClockTime | TagEvent]) -> None:
    decoded, bad = decode_events(encode_events(events))
    assert decoded == events
    assert bad == 0


def test_eeprom_stream_stops_at_eof_and_skips_padding() -> None:
    message = ee_moves([PieceChange(52, 0), PieceChange(36, 1, fast=True)])
    data = message.data + b"\x4112"  # after EOF: ignored
    assert decode_events(b"\x00\x7f" + data)[0] == [PieceChange(52, 0), PieceChange(36, 1, True)]


def test_eeprom_clock_time_layout() -> None:
    # 1:05:09 on the left side: 0x70 | 1, BCD 05, BCD 09
    assert encode_events([ClockTime(True, 3909)]) == bytes([0x71, 0x05, 0x09])
    assert decode_events(bytes([0x62, 0x59, 0x58]))[0] == [
        ClockTime(False, 2 * 3600 + 59 * 60 + 58)
    ]


clock_commands: st.SearchStrategy[ClockCommand] = st.one_of(
    st.builds(
        ClockDisplay, st.binary(min_size=6, max_size=6), st.integers(0, 255), st.integers(0, 255)
    ),
    st.builds(ClockIcons, st.binary(min_size=8, max_size=8)),
    st.just(ClockEnd()),
    st.just(ClockVersion()),
    st.builds(ClockSetAndRun, st.integers(0, 35999), st.integers(0, 35999), st.integers(0, 15)),
    st.builds(ClockBeep, st.integers(0, 127)),
    st.builds(
        ClockAscii,
        st.text(alphabet="ABCDEFGH 0123456789", max_size=8).map(str.rstrip),
        st.integers(0, 15),
    ),
)


@given(
    st.lists(
        st.one_of(
            clock_commands.map(ClockCommandFrame),
            st.sampled_from(
                [
                    SingleCommand(c)
                    for c in (
                        0x40,
                        0x41,
                        0x42,
                        0x43,
                        0x44,
                        0x45,
                        0x46,
                        0x47,
                        0x49,
                        0x4B,
                        0x4D,
                        0x55,
                    )
                ]
            ),
        ),
        max_size=10,
    ),
    st.integers(1, 9),
)
def test_host_stream_round_trip(items: list[ClockCommandFrame | SingleCommand], chunk: int) -> None:
    stream = b"".join(
        encode_clock_command(i.command) if isinstance(i, ClockCommandFrame) else bytes([i.code])
        for i in items
    )
    decoder = HostStreamDecoder()
    out = []
    for i in range(0, len(stream), chunk):
        out += decoder.feed(stream[i : i + chunk])
    assert out == items


def test_clock_command_bytes_match_the_reference() -> None:
    assert encode_clock_command(ClockEnd()) == bytes([0x2B, 0x03, 0x03, 0x03, 0x00])
    assert encode_clock_command(ClockVersion()) == bytes([0x2B, 0x03, 0x03, 0x09, 0x00])
    setnrun = encode_clock_command(ClockSetAndRun(5400, 3661, 0x01 | 0x08))
    assert setnrun == bytes([0x2B, 0x0A, 0x03, 0x0A, 1, 30, 0, 1, 1, 1, 0x09, 0x00])
    ascii_ = encode_clock_command(ClockAscii("ROUND 1", 3))
    assert ascii_[:4] == bytes([0x2B, 0x0C, 0x03, 0x0C]) and ascii_[-2:] == bytes([3, 0])


def test_bus_address_from_serial_and_request_checksum() -> None:
    assert address_from_serial("01025") == (0x08 << 7) | 0x01
    frame = BusRequest(BusCommand.PING, address_from_serial("01025")).encode()
    assert frame == bytes([0x87, 0x08, 0x01, (0x87 + 0x08 + 0x01) & 0x7F])
    assert decode_request(frame) == BusRequest(BusCommand.PING, 1025)
    assert decode_request(frame[:3] + bytes([frame[3] ^ 1])) is None


bus_replies = st.builds(
    BusReply,
    st.sampled_from(list(BusReplyId)),
    st.integers(0, (1 << 14) - 1),
    st.binary(max_size=80).map(lambda b: bytes(x & 0x7F for x in b)),
).filter(
    lambda r: (
        {
            BusReplyId.BRD_DUMP: 64,
            BusReplyId.BWTIME: 7,
            BusReplyId.PING: 0,
            BusReplyId.START_GAME_WRITTEN: 0,
            BusReplyId.VERSION: 2,
        }.get(r.reply_id, len(r.data))
        == len(r.data)
    )
)


@given(st.lists(bus_replies, max_size=6), st.integers(1, 40))
def test_bus_replies_round_trip(replies: list[BusReply], chunk: int) -> None:
    stream = b"".join(r.encode() for r in replies)
    decoder = BusStreamDecoder()
    out = []
    for i in range(0, len(stream), chunk):
        out += decoder.feed(stream[i : i + chunk])
    assert out == replies


def test_bus_bad_checksum_is_reported_with_the_address() -> None:
    frame = bytearray(BusReply(BusReplyId.UPDATE, 1025, bytes([0x41, 12])).encode())
    frame[-1] ^= 0x01
    decoder = BusStreamDecoder()
    (item,) = decoder.feed(bytes(frame))
    assert item.address == 1025 and type(item).__name__ == "BusChecksumError"


def test_bad_bus_frame_does_not_swallow_the_single_command_after_it() -> None:
    decoder = HostStreamDecoder()
    bad = bytes([0x83, 0x08, 0x01, 0x00])  # wrong checksum
    assert decoder.feed(bad + bytes([0x45, 0x42])) == [SingleCommand(0x45), SingleCommand(0x42)]
