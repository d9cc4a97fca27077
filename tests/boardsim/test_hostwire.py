"""The simulator's own parser of host bytes, against frames written by hand from the
protocol and against what the product's drivers encode."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from boards.dgt.bus import BusRequest
from boards.dgt.clock_commands import (
    ClockAscii,
    ClockBeep,
    ClockEnd,
    ClockSetAndRun,
    ClockVersion,
    encode_clock_command,
)
from boards.dgt.codes import BusCommand
from boards.dgt.decoder import ClockCommandFrame, HostItem, SetLeds, SingleCommand
from boardsim.hostwire import HostParser


def h(text: str) -> bytes:
    return bytes.fromhex(text)


GOLDEN = [
    # bus: command, address 01025 = 08 01, checksum = 83 + 08 + 01 = 140 -> 140 mod 128 = 0C
    ("83 08 01 0C", BusRequest(BusCommand.SEND_CHANGES, 1025)),
    ("87 00 00 07", BusRequest(BusCommand.PING, 0)),  # broadcast ping
    ("86 4E 11 65", BusRequest(BusCommand.SEND_FROM_START, 10001)),  # 134+78+17 = 229 -> 65
    ("49", SingleCommand(0x49)),  # SEND_EE_MOVES
    ("4B", SingleCommand(0x4B)),  # SEND_UPDATE_NICE
    # clock: 2B, N = bytes after N, 03, command, data, 00
    ("2B 03 03 03 00", ClockCommandFrame(ClockEnd())),
    ("2B 03 03 09 00", ClockCommandFrame(ClockVersion())),
    # SETNRUN 1:30:00 each, both count down (01 | 02)
    ("2B 0A 03 0A 01 1E 00 01 1E 00 03 00", ClockCommandFrame(ClockSetAndRun(5400, 5400, 3))),
    ("2B 04 03 0B 08 00", ClockCommandFrame(ClockBeep(8))),
    (
        "2B 0C 03 0C 52 4F 55 4E 44 20 20 20 02 00",  # "ROUND" padded to 8, beep 2
        ClockCommandFrame(ClockAscii("ROUND", 2)),
    ),
    ("60 04 00 0C 1C 00", SetLeds(h("00 0C 1C 00"))),
]


def test_golden_host_frames() -> None:
    for golden, item in GOLDEN:
        assert HostParser().feed(h(golden)) == [item], golden


def test_the_products_host_encoders_give_the_golden_frames() -> None:
    for golden, item in GOLDEN:
        match item:
            case BusRequest():
                assert item.encode() == h(golden)
            case ClockCommandFrame(command):
                assert encode_clock_command(command) == h(golden)


def test_a_bus_frame_with_a_wrong_checksum_is_ignored() -> None:
    parser = HostParser()
    assert parser.feed(h("83 08 01 0D 42")) == [SingleCommand(0x42)]
    assert parser.dropped == 4  # the bad frame byte by byte; 08 01 0D are not commands


def test_frames_split_anywhere_are_kept_until_whole() -> None:
    stream = b"".join(h(g) for g, _ in GOLDEN)
    parser = HostParser()
    got: list[HostItem] = []
    for i in range(0, len(stream), 3):
        got += parser.feed(stream[i : i + 3])
    assert got == [item for _, item in GOLDEN]


items = st.one_of(
    st.builds(
        BusRequest,
        st.sampled_from(list(BusCommand)),
        st.integers(0, (1 << 14) - 1),
    ),
    st.sampled_from([0x40, 0x41, 0x42, 0x43, 0x45, 0x49, 0x4B, 0x4D, 0x55]).map(SingleCommand),
    st.builds(ClockSetAndRun, st.integers(0, 35999), st.integers(0, 35999), st.integers(0, 15)).map(
        ClockCommandFrame
    ),
)


@given(st.lists(items, max_size=30))
def test_whatever_the_product_sends_the_simulator_reads_back(sent: list[HostItem]) -> None:
    wire = b""
    for item in sent:
        match item:
            case BusRequest():
                wire += item.encode()
            case SingleCommand(code):
                wire += bytes([code])
            case ClockCommandFrame(command):
                wire += encode_clock_command(command)
    assert HostParser().feed(wire) == sent
