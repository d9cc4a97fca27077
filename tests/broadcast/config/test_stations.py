"""Capture stations in the config (`broadcast.config.stations`): their names, and boards
put on stations from the command line (`serve --station NAME=BOARDS`)."""

from __future__ import annotations

import pytest

from broadcast.config import load_event, load_event_text
from broadcast.config.errors import ConfigError
from broadcast.config.stations import StationAssignmentError, assign_stations, valid_name
from tests.support.paths import EXAMPLES

SESTAO = EXAMPLES / "sestao-2025-swiss.toml"


def test_names_fit_for_redis_keys_and_ports() -> None:
    assert valid_name("east-1") and valid_name("hall_b") and valid_name("7")
    for bad in ("", "East", "east 1", "-east", "a" * 33, "east:1", "éast"):
        assert not valid_name(bad), bad


def test_boards_put_on_stations_for_a_rehearsal() -> None:
    config = load_event(SESTAO)
    split = assign_stations(config, {n: ("east" if n <= 6 else "west") for n in range(1, 13)})
    assert [(b.number, b.station) for b in split.boards][::5] == [
        (1, "east"),
        (6, "east"),
        (11, "west"),
    ]
    assert [b.port for b in split.boards] == [b.port for b in config.boards]  # paths kept
    back = assign_stations(split, {3: None})
    assert back.boards[2].station is None and back.boards[3].station == "east"


def test_impossible_assignments_say_why() -> None:
    config = load_event(SESTAO)
    with pytest.raises(StationAssignmentError, match="no board 13"):
        assign_stations(config, {13: "east"})
    with pytest.raises(StationAssignmentError, match="not a station's name"):
        assign_stations(config, {1: "East Hall"})
    # two single boards on the same path of two computers cannot both move to one
    text = (EXAMPLES / "pamplona-masters.toml").read_text(encoding="utf-8")
    text = text.replace('port = "/dev/ttyACM0"', 'port = "/dev/ttyUSB0"\nstation = "east"')
    text = text.replace('port = "/dev/ttyACM1"', 'port = "/dev/ttyUSB0"\nstation = "west"')
    two = load_event_text(text, EXAMPLES / "pamplona-masters.toml")
    with pytest.raises(StationAssignmentError, match="would carry 2 boards"):
        assign_stations(two, {2: "east"})


def pamplona_with(boards: str) -> str:
    text = (EXAMPLES / "pamplona-masters.toml").read_text(encoding="utf-8")
    return text[: text.index("[[board]]")] + boards


def test_boards_found_by_their_serial_numbers_need_no_port() -> None:
    text = pamplona_with(
        '[[board]]\nnumber = 1\nserial = "12345"\nsection = "Masters"\n\n'
        '[[board]]\nnumber = 2\nserial = "12346"\nstation = "east"\nsection = "Masters"\n\n'
        '[[board]]\nnumber = 3\nport = "/dev/ttyACM0"\nserial = "12347"\nsection = "Masters"\n'
    )
    config = load_event_text(text, EXAMPLES / "pamplona-masters.toml")
    assert [(b.number, b.port, b.serial, b.station, b.found_by_serial) for b in config.boards] == [
        (1, "", "12345", None, True),
        (2, "", "12346", "east", True),
        (3, "/dev/ttyACM0", "12347", None, False),  # a serial beside a port: only a note
    ]
    # two found boards on one station share no port: nothing to check about addresses
    both = assign_stations(config, {1: "east"})
    assert [b.station for b in both.boards[:2]] == ["east", "east"]


@pytest.mark.parametrize(
    ("board", "says"),
    [
        ('number = 1\nsection = "Masters"', r"board\[1\]\.port is missing"),
        ('number = 1\nserial = "12a45"\nsection = "Masters"', "is not a DGT serial number"),
        ('number = 1\nserial = "1"\naddress = 7\nsection = "Masters"', "a bus address without"),
    ],
)
def test_a_board_without_port_or_with_a_bad_serial_says_why(board: str, says: str) -> None:
    with pytest.raises(ConfigError, match=says):
        load_event_text(pamplona_with(f"[[board]]\n{board}\n"), EXAMPLES / "x.toml")


def test_one_serial_number_on_two_boards_is_refused() -> None:
    text = pamplona_with(
        '[[board]]\nnumber = 1\nserial = "12345"\nsection = "Masters"\n\n'
        '[[board]]\nnumber = 2\nserial = "12345"\nsection = "Masters"\n'
    )
    with pytest.raises(ConfigError, match="serial number 12345 is given to two boards"):
        load_event_text(text, EXAMPLES / "pamplona-masters.toml")
