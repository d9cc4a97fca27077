"""What stations and the central serve say through Redis (`broadcast.stations.wire`):
every entry comes back as written, anything else is refused with a reason, and a
station's ports are named apart from another station's."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from boards.driver_events import (
    BoardConnected,
    BoardInfo,
    ClockSeen,
    DriverEvent,
    LogGap,
    PositionSeen,
)
from boards.position import BoardPosition
from broadcast.journal.kinds import register_all
from broadcast.stations import wire
from broadcast.stations.wire import (
    Refused,
    StationBeat,
    StationEvent,
    StationHello,
    StationKeys,
    Venue,
    VenueBoard,
    WantedBoard,
    decode_entry,
    decode_venue,
    encode_entry,
    encode_venue,
    qualify,
)
from clocks.reading import ClockReading

register_all()

START = BoardPosition.from_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR")
INFO = BoardInfo("/dev/ttyUSB0", "12345", (1, 2), "single", battery_percent=80)
EVENTS: list[DriverEvent] = [
    BoardConnected(10.5, "12345", INFO),
    PositionSeen(11.25, "12345", START, change=(12, 0)),
    ClockSeen(12.0, "12345", ClockReading(5400, 5399, True, False)),
    LogGap(13.0, "/dev/ttyUSB0", "/dev/ttyUSB0", "the board rebooted"),
]


def as_redis(fields: dict[str, str]) -> dict[bytes, bytes]:
    """What redis-py hands a reader: bytes keys and values."""
    return {k.encode(): v.encode() for k, v in fields.items()}


def test_every_kind_of_entry_comes_back_as_written() -> None:
    entries: list[Any] = [
        StationEvent("east-1", "a1b2", n + 1, "/dev/ttyUSB0", event)
        for n, event in enumerate(EVENTS)
    ]
    entries.append(StationHello("east-1", "a1b2", 4, (1, 2, 17), "capture-east", 4242, 99.5))
    entries.append(StationBeat("east-1", "a1b2", 4, 100.25, -0.012, 0.0007, 3, (1, 17)))
    for entry in entries:
        assert decode_entry(as_redis(encode_entry(entry))) == entry
        assert decode_entry(encode_entry(entry)) == entry  # text fields read the same


def test_refused_entries_say_why() -> None:
    good = encode_entry(StationEvent("east-1", "a1b2", 1, "/dev/ttyUSB0", EVENTS[1]))
    cases = {
        "format": {**good, "v": "9"},
        "station's name": {**good, "station": "East 1"},
        "not a board event": {**good, "type": "ResultRecorded"},
        "numbered from 1": {**good, "seq": "0"},
        "whole number": {**good, "seq": "-3"},
        "cannot be read": {**good, "data": "{not json"},
        "unknown kind": {**good, "kind": "shout"},
        "no 'port' field": {k: v for k, v in good.items() if k != "port"},
    }
    for words, fields in cases.items():
        answer = decode_entry(fields)
        assert isinstance(answer, Refused), words
        assert words in answer.reason, (words, answer.reason)


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(
            [
                "v",
                "kind",
                "station",
                "inc",
                "seq",
                "port",
                "type",
                "data",
                "t",
                "boards",
                "offset",
                "rtt",
                "waiting",
                "connected",
                "host",
                "pid",
            ]
        )
        | st.text(max_size=8),
        st.binary(max_size=64)
        | st.sampled_from(
            [b"1", b"event", b"beat", b"hello", b"east-1", b"PositionSeen", b"[1]", b"0.5"]
        ),
        max_size=16,
    )
)
def test_any_fields_give_an_entry_or_a_reason(fields: dict[str, bytes]) -> None:
    answer = decode_entry(fields)
    assert isinstance(answer, Refused | StationEvent | StationHello | StationBeat)


def test_a_station_port_is_named_with_its_station() -> None:
    connected = qualify(EVENTS[0], "east-1", "/dev/ttyUSB0")
    assert isinstance(connected, BoardConnected)
    assert connected.info.port == "east-1:/dev/ttyUSB0" and connected.board == "12345"
    gap = qualify(EVENTS[3], "west", "/dev/ttyUSB0")
    assert isinstance(gap, LogGap)
    assert gap.board == gap.port == "west:/dev/ttyUSB0"
    assert qualify(EVENTS[1], "east-1", "/dev/ttyUSB0") is EVENTS[1]  # nothing to rename


def test_keys_follow_the_event_slug() -> None:
    keys = StationKeys.of("Sestao Open 2025")
    assert keys.stream("east-1") == "boardwire:sestao-open-2025:station:east-1"
    assert keys.owner("east-1").endswith(":station:east-1:owner")
    assert keys.venue == "boardwire:sestao-open-2025:venue"


def test_the_venue_comes_back_as_written_and_gives_each_station_its_boards() -> None:
    venue = Venue(
        "Sestao Open",
        (VenueBoard(1, "east-1", "/dev/ttyUSB0", 11), VenueBoard(2, "west", "/dev/ttyACM0", None)),
        1_760_000_000.0,
        1_759_000_000.5,
        20.0,
        "serve-host",
        77,
    )
    back = decode_venue(as_redis(encode_venue(venue)))
    assert back == venue
    assert venue.boards_of("west") == (VenueBoard(2, "west", "/dev/ttyACM0", None),)
    assert venue.event_time(1_759_000_001.5) == 1_760_000_020.0
    broken = {**encode_venue(venue), "boards": '[[1, "East 1", "/dev/x", null]]'}
    refused = decode_venue(broken)
    assert isinstance(refused, Refused) and "station's name" in refused.reason


def test_the_boards_to_find_by_serial_number_come_back_and_say_who_may_find_them() -> None:
    wanted = (WantedBoard(3, "20003"), WantedBoard(4, "20004", "west"))
    venue = Venue("Sestao Open", (), 1.0, 2.0, 1.0, "serve-host", 7, wanted)
    fields = encode_venue(venue)
    assert decode_venue(as_redis(fields)) == venue
    assert venue.wanted_by("west") == {"20003": wanted[0], "20004": wanted[1]}
    assert venue.wanted_by("east-1") == {"20003": wanted[0]}
    # A serve that finds no board by serial number writes no such field.
    older = {k: v for k, v in fields.items() if k != "wanted"}
    assert decode_venue(older) == Venue("Sestao Open", (), 1.0, 2.0, 1.0, "serve-host", 7)
    for bad, says in (
        ("[[3, 20003, null]]", "not a DGT serial number"),
        ('[[3, "20003", "West"]]', "station's name"),
        ('[[0, "20003", null]]', "whole number from 1"),
        ('{"3": "20003"}', "not a list"),
    ):
        refused = decode_venue({**fields, "wanted": bad})
        assert isinstance(refused, Refused) and says in refused.reason, bad


def _event_fields(kind: str, data: str) -> dict[str, str]:
    entry = StationEvent("east-1", "a1b2", 1, "/dev/ttyUSB0", PositionSeen(1.0, "12345", START))
    return {**encode_entry(entry), "type": kind, "data": data}


def test_a_well_formed_event_with_fields_of_the_wrong_types_is_refused() -> None:
    wrong = [
        ("PositionSeen", '{"t":1.0,"board":"12345","position":7}'),
        ("PositionSeen", '{"t":1.0,"board":12345,"position":null}'),
        ("PositionSeen", '{"t":"soon","board":"12345","position":null}'),
        (
            "PositionSeen",
            '{"t":1.0,"board":"1","position":{"__type__":"BoardPosition","codes":'
            + str(["x"] * 64).replace("'", '"')
            + "}}",
        ),
        ("ClockSilent", '{"t":1.0,"board":"1","answer":"maybe"}'),
        ("BatterySeen", '{"t":1.0,"board":"1","percent":true}'),
        ("BoardLost", '{"t":1.0,"board":"1","reason":["a"]}'),
    ]
    for kind, data in wrong:
        refused = decode_entry(_event_fields(kind, data))
        assert isinstance(refused, Refused), (kind, data)
        assert "not well formed" in refused.reason or "cannot be read" in refused.reason


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(
    kind=st.sampled_from(
        ["PositionSeen", "ClockSeen", "BoardConnected", "LogRecovered", "BatterySeen"]
    ),
    t=_JSON,
    board=_JSON,
    other=st.dictionaries(
        st.sampled_from(
            ["position", "reading", "info", "start", "steps", "seen", "percent", "change"]
        ),
        _JSON,
        max_size=3,
    ),
)
def test_any_field_values_give_a_well_typed_event_or_a_reason(
    kind: str, t: Any, board: Any, other: dict[str, Any]
) -> None:
    import json

    decoded = decode_entry(_event_fields(kind, json.dumps({"t": t, "board": board, **other})))
    if isinstance(decoded, Refused):
        return
    assert isinstance(decoded, StationEvent)
    event = decoded.event
    assert type(event.t) in (float, int) and type(event.board) is str
    assert wire._type_fault(event) is None
