"""Capture stations in the config (`broadcast.config.stations`): their names, and boards
put on stations from the command line (`serve --station NAME=BOARDS`)."""

from __future__ import annotations

import pytest

from broadcast.config import load_event, load_event_text
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
