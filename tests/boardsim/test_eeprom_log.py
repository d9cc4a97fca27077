"""The emulated board's EEPROM log behaves like a real board's, and the product decodes it.

Golden bytes are hand-written from the protocol (tests/data/dgt-eeprom-reference.md);
the property tests drive boards at random and check that `boards.dgt.eeprom` (the
product's decoder) reads the simulator's independently encoded ring back to the records
the simulator wrote, including a ring that wrapped mid-record.
"""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from boards.dgt.bus import BusRequest
from boards.dgt.codes import BusCommand, Command
from boards.dgt.decoder import BoardStreamDecoder, BusStreamDecoder, SingleCommand
from boards.dgt.eeprom import (
    ClockTime,
    EepromEvent,
    PieceChange,
    Tag,
    TagEvent,
    decode_events,
    decode_ring,
)
from boards.dgt.messages import EEMoves, FieldUpdate
from boards.position import BoardPosition
from boardsim.board import EEPROM_SIZE, START_POSITION, EmulatedBoard
from boardsim.eeprom_log import (
    Change,
    ClockRecord,
    EepromRing,
    LogTag,
    Marker,
    Record,
    encode_record,
)
from boardsim.firmware import FIRMWARE_NAMES
from boardsim.paced import BYTES_PER_SECOND


def h(text: str) -> bytes:
    return bytes.fromhex(text)


def tail(board: EmulatedBoard, n: int) -> bytes:
    return board.eeprom.dump()[-n:]


# White king e1 (60), black king e8 (4), white rook a1 (56): a board with room to slide.
ROOK_AND_KINGS = BoardPosition.empty().with_piece(4, 0x0B).with_piece(56, 0x02).with_piece(60, 0x05)


def test_power_up_golden() -> None:
    board = EmulatedBoard("10001", position=ROOK_AND_KINGS)
    assert tail(board, 10) == h("7F 7F 7F 6A 4B 04 42 38 45 3C")


def test_a_lifted_and_replaced_piece_leaves_one_record() -> None:
    board = EmulatedBoard("10001")
    board.set_square(52, 0, 1.0)  # e2 pawn lifted: 40 34
    assert tail(board, 3) == h("6F 40 34")
    board.set_square(52, 1, 2.0)  # and put back: the record becomes 41 34, then BEGINPOS
    assert tail(board, 4) == h("6F 41 34 6F")
    assert board.eeprom.records()[-2:] == [Change(52, 1), Marker(LogTag.BEGINPOS)]


def test_a_slide_keeps_only_the_square_it_ends_on() -> None:
    board = EmulatedBoard("10001", position=ROOK_AND_KINGS)
    t = 1.0
    for square, code in ((56, 0), (48, 2), (48, 0), (40, 2), (40, 0), (32, 2)):
        board.set_square(square, code, t)
        t += 0.5  # slow enough for no fast bit
    # a1 emptied; a2 rook, then a2 emptied (overwrites); a3 likewise; a4 rook stays.
    assert tail(board, 8) == h("40 38 40 30 40 28 42 20")


def test_the_fast_bit_survives_an_overwrite_when_it_is_due() -> None:
    board = EmulatedBoard("10001", position=ROOK_AND_KINGS)
    board.set_square(56, 0, 1.0)
    board.set_square(48, 2, 1.1)  # 100 ms after a1 emptied: 52 30
    board.set_square(48, 0, 1.2)  # same square again: 50 30 replaces it
    assert tail(board, 4) == h("40 38 50 30")


def test_a_change_after_a_clock_record_is_not_an_overwrite() -> None:
    board = EmulatedBoard("10001")
    board.press_lever("right", 0.0)
    board.set_square(52, 0, 5.0)
    board.press_lever("left", 6.0)  # left clock stopped at 1:29:54
    board.set_square(52, 1, 9.0)  # e2 again, but a clock record came in between
    assert tail(board, 11) == h("61 30 00 40 34 71 29 54 41 34 6F")


def test_a_record_fetched_by_the_bus_host_is_not_rewritten() -> None:
    board = EmulatedBoard("10001")
    board.set_square(52, 0, 1.0)
    update = board.handle(BusRequest(BusCommand.SEND_CHANGES, 10001), 1.5)
    [reply] = BusStreamDecoder().feed(update)
    assert decode_events(reply.data)[0][-1] == PieceChange(52, 0)
    board.set_square(52, 1, 2.0)
    assert tail(board, 5) == h("40 34 41 34 6F")
    again = board.handle(BusRequest(BusCommand.SEND_CHANGES, 10001), 2.5)
    [reply] = BusStreamDecoder().feed(again)
    assert reply.data == h("41 34 6F")


def test_set_start_game_and_from_start_use_the_same_records() -> None:
    board = EmulatedBoard("10001", position=ROOK_AND_KINGS)
    board.handle(BusRequest(BusCommand.SET_START_GAME, 10001), 1.0)
    board.set_square(56, 0, 2.0)
    board.set_square(59, 2, 2.1)  # Rd1, fast
    answer = board.handle(BusRequest(BusCommand.SEND_FROM_START, 10001), 3.0)
    [reply] = BusStreamDecoder().feed(answer)
    assert reply.data == h("7B 4B 04 42 38 45 3C 40 38 52 3B")


def test_the_ring_wraps_and_the_download_can_start_mid_record() -> None:
    ring = EepromRing(16)
    ring.append(Marker(LogTag.POWERUP))
    for square in range(10):
        ring.append(Change(square, 0x01))
    ring.append(Marker(LogTag.BEGINPOS))
    # 22 bytes written in a 16-byte ring: the oldest byte is the square of the third change.
    assert ring.dump() == h("02 41 03 41 04 41 05 41 06 41 07 41 08 41 09 6F")
    events, bad = decode_events(ring.dump())
    assert bad == 1  # the stray square byte, skipped
    assert events == [PieceChange(s, 1) for s in range(3, 10)] + [TagEvent(Tag.BEGINPOS)]
    assert ring.records() == [Change(s, 1) for s in range(3, 10)] + [Marker(LogTag.BEGINPOS)]


def test_a_clock_record_cut_by_the_wrap_can_read_as_a_piece_change() -> None:
    """The protocol's one real ambiguity: BCD minutes (or seconds) 40-59 look like a piece
    change head. Nothing in the bytes tells them apart; a decoder can only resync after."""
    ring = EepromRing(16)
    ring.append(ClockRecord(left=True, seconds=3600 + 45 * 60 + 30))  # 71 45 30
    for square in range(7):
        ring.append(Change(square, 0x01))
    assert ring.dump()[:2] == h("45 30")
    events, _ = decode_events(ring.dump())
    assert events == [PieceChange(0x30, 5)] + [PieceChange(s, 1) for s in range(7)]
    assert events == expected_events(ring)


def test_a_fresh_ring_reads_as_nops_before_the_log() -> None:
    ring = EepromRing(16)
    ring.append(Marker(LogTag.POWERUP))
    ring.append(Change(36, 1))
    assert ring.dump() == h("00" * 13 + "6A 41 24")
    assert decode_events(ring.dump()) == ([TagEvent(Tag.POWERUP), PieceChange(36, 1)], 0)


def test_the_download_leaves_at_9600_baud_in_simulated_time() -> None:
    board = EmulatedBoard("10001")
    board.handle(SingleCommand(Command.SEND_UPDATE_BRD), 0.0)
    assert board.handle(SingleCommand(Command.SEND_EE_MOVES), 10.0) == b""
    assert board.downloading
    first = board.tick(11.0)
    assert len(first) == BYTES_PER_SECOND  # one second of line time
    # A move made during the download waits behind it on the line.
    assert board.set_square(52, 0, 12.0) == b""
    rest = board.tick(15.0)
    assert len(first + rest) == 5 * BYTES_PER_SECOND and board.downloading
    frame_length = EEPROM_SIZE + 4  # header, log, EOF
    rest += board.tick(10.0 + (frame_length + 5) / BYTES_PER_SECOND)
    assert not board.downloading
    messages = BoardStreamDecoder().feed(first + rest)
    assert isinstance(messages[0], EEMoves) and len(messages[0].data) == EEPROM_SIZE + 1
    assert messages[1:] == [FieldUpdate(52, 0)]
    # The log was taken when the download began: the move is not in it.
    assert messages[0].events()[-1] == TagEvent(Tag.BEGINPOS)


def test_a_download_cut_short_gives_a_frame_the_host_cannot_use() -> None:
    board = EmulatedBoard("10001")
    board.handle(SingleCommand(Command.SEND_EE_MOVES), 0.0)
    part = board.tick(4.0)
    assert 0 < len(part) < EEPROM_SIZE and BoardStreamDecoder().feed(part) == []
    board.power_up(4.5, reboot_seconds=0.0)  # the line restarts: the rest is never sent
    assert not board.downloading and board.tick(20.0) == b""


# -- the product's decoder against the simulator's log ----------------------------------


def as_product(record: Record) -> EepromEvent | None:
    """What a correct decoder makes of one record (NOPs are padding: nothing)."""
    match record:
        case Change(square, piece, fast):
            return PieceChange(square, piece, fast)
        case ClockRecord(left, seconds):
            return ClockTime(left, seconds)
        case Marker(tag):
            if tag in (LogTag.NOP, LogTag.NOP2):
                return None
            return TagEvent(Tag(int(tag)))
    raise TypeError(record)


def read_cut(ring: EepromRing) -> tuple[list[EepromEvent], int]:
    """What reading the ring from its first byte makes of the cut: the events it reads
    there and the bytes that make no sense.

    The cut: once the ring has wrapped, its first bytes can be the tail of a record the
    wrap cut, the bytes before the first record wholly in the ring. That is the square of
    a piece change (1 byte, 00-3F), a clock time's BCD seconds (1 byte) or its BCD minutes
    and seconds (2 bytes, each 00-59). It holds no record, but it is not always
    recognisable as a tail, because BCD 40-59 are also piece change heads (40 | fast 10 |
    piece 0-9) and every byte below 40 is also a square. So the ambiguity rule, the one
    thing no decoder can tell from the bytes alone:

    - a cut byte 40-59 followed by a byte below 40 is also a whole piece change. That
      following byte is either the next byte of the cut (minutes 40-59, seconds under 40:
      `45 30`) or, for the cut's last byte, the first byte of the first whole record, when
      that record is a NOP 00 (seconds 40-59 then padding: `59 00`, which is also "black
      knight, fast, on a8"; no other record starts below 40);
    - reading from the first byte, each such pair reads as that piece change (a NOP used
      up as its square gave no event anyway), and the reading goes on after it;
    - every other cut byte is nothing: 00 reads as a NOP, anything else makes no sense.
    """
    positioned = ring.positioned_records()
    first = positioned[0][0] if positioned else ring.written
    cut = ring.since(ring.oldest)[: first - ring.oldest] if ring.oldest else b""
    after = ring.since(first)[:1]  # the first byte of the first whole record, if any
    events: list[EepromEvent] = []
    senseless = 0
    i = 0
    while i < len(cut):
        head = cut[i]
        following = cut[i + 1 : i + 2] or after
        if 0x40 <= head <= 0x59 and following and following[0] < 0x40:
            events.append(PieceChange(following[0], head & 0x0F, bool(head & 0x10)))
            i += 2
            continue
        senseless += head != 0x00
        i += 1
    return events, senseless


def whole_records(ring: EepromRing) -> list[tuple[int, EepromEvent]]:
    """The events of the records wholly in the ring, with their positions (NOPs left out)."""
    return [(p, e) for p, r in ring.positioned_records() if (e := as_product(r)) is not None]


def expected_events(ring: EepromRing) -> list[EepromEvent]:
    """What a decoder reading the dump from its first byte must give: what it reads in the
    cut (`read_cut`: nothing, or a piece change the bytes cannot tell from the tail of a
    clock time), then every record wholly in the ring, exactly."""
    return read_cut(ring)[0] + [e for _, e in whole_records(ring)]


squares = st.integers(0, 63)
pieces = st.integers(0, 12)
actions = st.lists(
    st.one_of(
        st.tuples(st.just("set"), squares, pieces, st.sampled_from([0.05, 0.3, 2.0])),
        st.tuples(st.just("press"), st.sampled_from(["left", "right"]), st.just(0), st.just(1.0)),
        st.tuples(st.just("poll"), st.just(0), st.just(0), st.just(0.1)),
        st.tuples(st.just("power"), st.just(0), st.just(0), st.just(0.5)),
        st.tuples(st.just("start"), st.just(0), st.just(0), st.just(0.5)),
        st.tuples(st.just("download"), st.just(0), st.just(0), st.just(0.5)),
    ),
    max_size=150,
)


def run(board: EmulatedBoard, steps: list[tuple[str, object, int, float]]) -> None:
    t = 0.0
    for kind, a, b, dt in steps:
        t += dt
        match kind:
            case "set":
                assert isinstance(a, int)
                board.set_square(a, b, t)
            case "press":
                board.press_lever("left" if a == "left" else "right", t)
            case "poll":
                board.handle(BusRequest(BusCommand.SEND_CHANGES, board.address), t)
            case "power":
                board.power_up(t, reboot_seconds=0.0)
            case "start":
                board.handle(BusRequest(BusCommand.SET_START_GAME, board.address), t)
            case "download":
                board.handle(SingleCommand(Command.SEND_EE_MOVES), t)


# Found by hypothesis: a 16-byte ring whose oldest byte is the seconds (59) of the right
# clock's 1:29:59, followed by a NOP 00. `59 00` is also a whole piece change.
SECONDS_THEN_NOP = (
    [
        ("press", "right", 0, 1.0),
        ("set", 0, 0, 0.05),
        ("press", "left", 0, 1.0),
        ("press", "right", 0, 1.0),
        ("press", "left", 0, 1.0),
        ("press", "right", 0, 1.0),
    ],
    16,
    "nop-padding",
)


def test_a_cut_clock_seconds_byte_and_a_nop_read_as_a_piece_change() -> None:
    board = EmulatedBoard("10001", eeprom_size=16, firmware="nop-padding")
    run(board, SECONDS_THEN_NOP[0])
    ring = board.eeprom
    assert ring.dump() == h("59 00 61 29 59 7F 00 71 29 58 00 00 7F 61 29 58")
    # The wrap cut the right clock's 1:29:59 (61 29 59) after its minutes.
    truth = [ClockTime(False, 5399), ClockTime(True, 5398), ClockTime(False, 5398)]
    assert read_cut(ring) == ([PieceChange(0, 9, True)], 0)
    assert expected_events(ring) == [PieceChange(0, 9, True), *truth]
    assert decode_events(ring.dump()) == ([PieceChange(0, 9, True), *truth], 0)
    # The ring decoder sees both readings (cut 1: seconds then NOP; cut 0: a knight on
    # a8) and keeps only what they agree on.
    assert decode_ring(ring.dump()) == (truth, 1)


@pytest.mark.parametrize(
    ("seconds", "cut", "reads", "senseless"),
    [
        # 71 45 30, cut to `45 30`: minutes 45 and seconds 30 are a white king on a2.
        (3600 + 45 * 60 + 30, "45 30", [PieceChange(0x30, 5)], 0),
        # 71 45 50, cut to `45 50`, then the NOP: 45 makes no sense, `50 00` is a change.
        (3600 + 45 * 60 + 50, "45 50", [PieceChange(0, 0, True)], 1),
        # 71 30 45, cut to `30 45`, then the NOP: 30 makes no sense, `45 00` is a change.
        (3600 + 30 * 60 + 45, "30 45", [PieceChange(0, 5)], 1),
        # 71 29 59, cut to `59`, then the NOP: `59 00` is a black knight on a8, fast.
        (3600 + 29 * 60 + 59, "59", [PieceChange(0, 9, True)], 0),
        # 71 30 25, cut to `25`, then the NOP: nothing to read, one byte of no sense.
        (3600 + 30 * 60 + 25, "25", [], 1),
        # 71 00 45, cut to `00 45`, then the NOP: 00 reads as a NOP, `45 00` as a change.
        (3600 + 45, "00 45", [PieceChange(0, 5)], 0),
    ],
)
def test_every_shape_of_a_cut_clock_time(
    seconds: int, cut: str, reads: list[EepromEvent], senseless: int
) -> None:
    ring = EepromRing(16)
    ring.append(ClockRecord(left=True, seconds=seconds))
    ring.append(Marker(LogTag.NOP2))
    squares = range(6 if len(h(cut)) == 2 else 7)
    for square in squares:
        ring.append(Change(square, 0x01))
    if len(h(cut)) == 2:
        ring.append(Marker(LogTag.BEGINPOS))
    truth: list[EepromEvent] = [PieceChange(s, 1) for s in squares]
    truth += [TagEvent(Tag.BEGINPOS)] if len(h(cut)) == 2 else []
    assert ring.dump().startswith(h(cut) + b"\x00")
    assert read_cut(ring) == (reads, senseless)
    assert decode_events(ring.dump()) == (reads + truth, senseless)
    assert decode_ring(ring.dump())[0] == truth  # the doubtful reading is dropped


@settings(max_examples=300, deadline=None)
@given(actions, st.integers(16, 400), st.sampled_from(FIRMWARE_NAMES))
@example(*SECONDS_THEN_NOP)
def test_product_decoder_reads_the_simulators_ring(
    steps: list[tuple[str, object, int, float]], capacity: int, firmware: str
) -> None:
    # Every firmware variant: NOP padding, DOWNLOADED and WATCHDOG records included.
    board = EmulatedBoard("10001", eeprom_size=capacity, firmware=firmware)
    run(board, steps)
    ring = board.eeprom
    dump = ring.dump()
    assert decode_events(dump) == (expected_events(ring), read_cut(ring)[1])

    # The ring decoder (what the single-board driver uses on a download) never reports a
    # doubtful reading of the cut: it gives the whole records, less at most some piece
    # changes lying before the dump's first byte 60-7F (from there on no byte can be a
    # record's tail, so all readings agree).
    events, _ = decode_ring(dump)
    truth = whole_records(ring)
    dropped = len(truth) - len(events)
    assert dropped >= 0 and events == [e for _, e in truth[dropped:]]
    sure = next((i for i, b in enumerate(dump) if b >= 0x60), len(dump))
    start = ring.written - len(dump)  # where the dump begins (before 0: unwritten NOPs)
    for pos, event in truth[:dropped]:
        assert isinstance(event, PieceChange) and pos - start + 2 <= sure


@settings(max_examples=200, deadline=None)
@given(actions)
def test_replaying_from_the_newest_anchor_gives_the_board(
    steps: list[tuple[str, object, int, float]],
) -> None:
    """Overwritten records lose passing states, never the final one: replaying the piece
    changes after the newest POWERUP (whose snapshot follows it) ends on the board."""
    board = EmulatedBoard("10001")
    run(board, steps)
    events, _ = decode_events(board.eeprom.dump())
    anchor = max(i for i, e in enumerate(events) if e == TagEvent(Tag.POWERUP))
    codes = [0] * 64
    for event in events[anchor:]:
        if isinstance(event, PieceChange):
            codes[event.index] = event.code
    assert tuple(codes) == board.position.codes


def test_every_beginpos_in_the_log_is_a_start_position() -> None:
    board = EmulatedBoard("10001")
    run(
        board,
        [("set", 52, 0, 1.0), ("set", 52, 1, 1.0), ("set", 12, 0, 1.0), ("set", 28, 7, 1.0)],
    )
    events, _ = decode_events(board.eeprom.dump())
    codes = [0] * 64
    for event in events[events.index(TagEvent(Tag.POWERUP)) :]:
        if isinstance(event, PieceChange):
            codes[event.index] = event.code
        if event == TagEvent(Tag.BEGINPOS):
            assert tuple(codes) == START_POSITION.codes
    assert events.count(TagEvent(Tag.BEGINPOS)) == 2


def test_encoded_bytes_are_all_below_0x80() -> None:
    for record in (Change(63, 15, True), ClockRecord(True, 35999), Marker(LogTag.NOP)):
        assert all(b < 0x80 for b in encode_record(record))
