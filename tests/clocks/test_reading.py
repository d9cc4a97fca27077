"""BWTIME payloads decoded into clock readings, acks and noise."""

from __future__ import annotations

from hypothesis import assume, given
from hypothesis import strategies as st

from clocks.reading import (
    ClockAck,
    ClockReading,
    NoClock,
    decode_bwtime,
    encode_ack,
    encode_bwtime,
)

hms = st.integers(0, 9 * 3600 + 59 * 60 + 59)
readings = st.builds(
    ClockReading,
    left_seconds=hms,
    right_seconds=hms,
    running=st.booleans(),
    right_lever_high=st.booleans(),
    left_flag=st.booleans(),
    right_flag=st.booleans(),
    left_final_flag=st.booleans(),
    right_final_flag=st.booleans(),
    left_increment_mode=st.booleans(),
    right_increment_mode=st.booleans(),
    battery_low=st.booleans(),
)


@given(readings)
def test_reading_round_trip(reading: ClockReading) -> None:
    # 0:00 / 0:00 stopped with no bits set is byte-for-byte the Bluetooth noise frame.
    assume(any(encode_bwtime(reading)))
    assert decode_bwtime(encode_bwtime(reading)) == reading


@given(
    st.builds(
        ClockAck, st.integers(0, 255), st.integers(0, 255), st.integers(0, 255), st.integers(0, 255)
    )
)
def test_ack_round_trip(ack: ClockAck) -> None:
    assert decode_bwtime(encode_ack(ack)) == ack


def test_real_layout_left_white_running() -> None:
    # right 1:29:58, left 1:30:00 with the left clock running (lever high on the left)
    payload = bytes([0x01, 0x29, 0x58, 0x01, 0x30, 0x00, 0x01 | 0x08])
    reading = decode_bwtime(payload)
    assert isinstance(reading, ClockReading)
    assert (reading.left_seconds, reading.right_seconds) == (5400, 5398)
    assert reading.running_side == "left"


def test_final_flag_on_the_right() -> None:
    reading = decode_bwtime(bytes([0x10, 0, 0, 0x00, 0x12, 0x34, 0x00]))
    assert isinstance(reading, ClockReading)
    assert reading.right_final_flag and reading.right_seconds == 0
    assert reading.running_side is None


def test_noise_is_dropped() -> None:
    assert decode_bwtime(bytes(7)) is None  # all-zero frame from Bluetooth firmware
    assert decode_bwtime(bytes([0x01, 0x6A, 0x00, 0, 0, 0, 1])) is None  # minutes 6A: not BCD
    assert decode_bwtime(bytes([0x01, 0x60, 0x00, 0, 0, 0, 1])) is None  # 60 minutes
    assert decode_bwtime(b"\x00") is None


def test_no_clock_bit() -> None:
    assert decode_bwtime(bytes([0, 0, 0, 0, 0, 0, 0x20])) == NoClock()


def test_version_ack_says_dgt3000() -> None:
    ack = decode_bwtime(encode_ack(ClockAck(0x10, 0x09, 0x21, 0x00)))
    assert isinstance(ack, ClockAck)
    assert ack.ok and ack.version == (2, 1) and not ack.from_clock


def test_button_press_from_the_clock() -> None:
    ack = decode_bwtime(encode_ack(ClockAck(0x10, 0x88, 0x00, 0x33)))
    assert isinstance(ack, ClockAck) and ack.from_clock and ack.button == 0x33
