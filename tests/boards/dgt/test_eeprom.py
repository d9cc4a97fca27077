"""The product's EEPROM decoder against the golden byte strings of the reference page
(tests/data/dgt-eeprom-reference.md), worked out by hand from DGT's description, not
produced by our encoder or the simulator's."""

from __future__ import annotations

from boards.dgt.eeprom import ClockTime, PieceChange, Tag, TagEvent, decode_events, decode_ring


def hx(text: str) -> bytes:
    return bytes.fromhex(text.replace(" ", ""))


def test_records() -> None:
    assert decode_events(hx("41 24 40 34 4C 03 51 24")) == (
        [
            PieceChange(0x24, 1),
            PieceChange(0x34, 0),
            PieceChange(0x03, 0x0C),
            PieceChange(0x24, 1, True),
        ],
        0,
    )
    clocks = "71 05 09 61 30 00 60 59 59 69 59 59 72 45 07"
    assert decode_events(hx(clocks))[0] == [
        ClockTime(True, 3909),
        ClockTime(False, 5400),
        ClockTime(False, 3599),
        ClockTime(False, 9 * 3600 + 3599),
        ClockTime(True, 2 * 3600 + 45 * 60 + 7),
    ]
    tags = "6A 6C 6D 6E 6F 7A 7B 7C 7F 00"
    assert [e.tag for e in decode_events(hx(tags))[0] if isinstance(e, TagEvent)] == [
        Tag.POWERUP,
        Tag.FOURROWS,
        Tag.EMPTYBOARD,
        Tag.DOWNLOADED,
        Tag.BEGINPOS,
        Tag.BEGINPOS_ROT,
        Tag.START_TAG,
        Tag.WATCHDOG,
    ]
    assert decode_events(hx("41 24 6B 41 34"))[0] == [PieceChange(0x24, 1)]  # EOF ends it


def test_power_up_and_overwritten_records() -> None:
    assert decode_events(hx("7F 7F 7F 6A 4B 04 42 38 45 3C"))[0] == [
        TagEvent(Tag.POWERUP),
        PieceChange(0x04, 0x0B),
        PieceChange(0x38, 2),
        PieceChange(0x3C, 5),
    ]
    # The rook slid a1-a4 over a2 and a3: only "emptied" records are left of them.
    assert decode_events(hx("40 38 40 30 40 28 42 20"))[0] == [
        PieceChange(0x38, 0),
        PieceChange(0x30, 0),
        PieceChange(0x28, 0),
        PieceChange(0x20, 2),
    ]


def test_a_ring_that_starts_inside_a_change_reads_every_whole_record() -> None:
    # The reference's 16-byte ring: the first byte is the square of a change.
    events, _ = decode_ring(hx("02 41 03 41 04 41 05 41 06 41 07 41 08 41 09 6F"))
    assert events == [PieceChange(i, 1) for i in range(3, 10)] + [TagEvent(Tag.BEGINPOS)]
    events, bad = decode_ring(bytes(13) + hx("6A 41 24"))
    assert (events, bad) == ([TagEvent(Tag.POWERUP), PieceChange(0x24, 1)], 0)


def test_a_cut_clock_time_is_never_read_as_a_phantom_change() -> None:
    # Left 1:45:30 is 71 45 30; cut after 71, "45 30" also reads as a white king on a2.
    # Both readings agree from the next record on; the doubtful change is dropped.
    events, bad = decode_ring(hx("45 30 41 24 6F"))
    assert events == [PieceChange(0x24, 1), TagEvent(Tag.BEGINPOS)]
    assert bad == 2
    assert decode_events(hx("45 30 41 24 6F"))[0][0] == PieceChange(0x30, 5)
