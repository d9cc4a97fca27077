"""Event config: every kind of mistake is reported with its line and a hint, all at
once; a valid file loads into frozen dataclasses."""

from __future__ import annotations

import dataclasses
import datetime as dt
import textwrap
from pathlib import Path

import pytest

from broadcast.config import ConfigError, load_event, load_event_text
from broadcast.config.locate import key_lines

GOOD = textwrap.dedent(
    """\
    [event]
    name = "Test Open"
    site = "Somewhere"
    timezone = "Europe/Madrid"
    broadcast_delay_seconds = 600
    tiebreak_edition = 2026
    automatic_results = "apply"

    [[section]]
    name = "Open"
    system = "swiss"
    rounds = 3
    time_control = "5400+30"
    default_time_minutes = 30
    tiebreaks = ["BH-C1", "SB"]
    no_show_limit = 2

    [section.byes]
    max = 1
    not_in_last_rounds = 1
    request_deadline = "before-previous-round"

    [section.early_draw]
    min_moves = 30
    min_minutes = 60

    [[section.schedule]]
    round = 1
    date = 2025-09-12
    time = 17:00:00

    [[section.schedule]]
    round = 2
    date = 2025-09-13
    time = 10:00:00

    [[section.schedule]]
    round = 3
    date = 2025-09-13
    time = 17:00:00
    timezone = "Europe/Lisbon"

    [[section.player]]
    name = "Alpha, Ann"
    rating = 2400

    [[section.player]]
    name = "Beta, Bob"
    rating = 2300
    fide_id = "123456"

    [[board]]
    number = 1
    port = "/dev/ttyUSB0"
    address = 11
    section = "Open"

    [[board]]
    number = 2
    port = "/dev/ttyUSB0"
    address = 12
    section = "Open"
    """
)


def _errors(text: str, tmp_path: Path | None = None) -> list[tuple[int | None, str, str]]:
    path = (tmp_path or Path("/nonexistent")) / "event.toml"
    with pytest.raises(ConfigError) as info:
        load_event_text(text, path)
    return [(i.line, i.message, i.hint) for i in info.value.issues]


def _line_of(text: str, needle: str) -> int:
    for number, line in enumerate(text.splitlines(), start=1):
        if needle in line:
            return number
    raise AssertionError(f"{needle!r} not in the text")


def test_good_config_loads_into_frozen_dataclasses() -> None:
    event = load_event_text(GOOD, "/tmp/event.toml")
    assert event.name == "Test Open" and event.tiebreak_edition == 2026
    assert event.automatic_results == "apply" and event.broadcast_delay_seconds == 600
    open_ = event.section("Open")
    assert open_.byes.max_byes == 1 and open_.byes.excluded_rounds == frozenset({3})
    assert open_.byes.deadline == "before-previous-round" and open_.byes.points == 0.5
    assert open_.early_draw is not None and open_.early_draw.min_moves == 30
    assert open_.time_control.initial_seconds("white") == 5400
    assert [p.number for p in open_.players] == [1, 2] and open_.players[1].fide_id == "123456"
    assert open_.pairing.kind == "dutch"
    # Round 3 is given in Lisbon time: 17:00 WEST is 18:00 in Madrid.
    start = open_.round_start(3).start.astimezone(event.zone)
    assert start == dt.datetime(2025, 9, 13, 18, 0, tzinfo=event.zone)
    assert [b.address for b in event.boards] == [11, 12]
    with pytest.raises(dataclasses.FrozenInstanceError):
        event.name = "x"  # type: ignore[misc]


def test_key_lines_follow_arrays_of_tables_and_inline_values() -> None:
    lines = key_lines(GOOD)
    assert lines[("event", "timezone")] == 4
    assert lines[("section", 0, "byes", "max")] == _line_of(GOOD, "max = 1")
    assert lines[("section", 0, "schedule", 2, "timezone")] == _line_of(GOOD, "Europe/Lisbon")
    assert lines[("section", 0, "player", 1, "fide_id")] == _line_of(GOOD, "123456")
    assert lines[("section", 0, "tiebreaks", 1)] == _line_of(GOOD, "tiebreaks")
    assert lines[("board", 1, "address")] == _line_of(GOOD, "address = 12")
    text = 'a = [\n  "x",\n  { b = "]", c = """\nq\n""" },\n]\nd = 1\n'
    found = key_lines(text)
    assert found[("a", 1, "b")] == 3 and found[("d",)] == 7


@pytest.mark.parametrize(
    ("old", "new", "needle", "message", "hint"),
    [
        (
            'timezone = "Europe/Madrid"',
            'timezone = "Europe/Madird"',
            "Europe/Madird",
            "unknown timezone",
            "Europe/Madrid",
        ),
        (
            "tiebreak_edition = 2026",
            "tiebreak_edition = 2023",
            "tiebreak_edition",
            "not a FIDE C.07 edition",
            "2024",
        ),
        (
            'automatic_results = "apply"',
            'automatic_results = "auto"',
            "automatic_results",
            "not valid",
            "'apply'",
        ),
        ('system = "swiss"', 'system = "swis"', "system =", "not valid", "did you mean 'swiss'"),
        ("rounds = 3", 'rounds = "3"', "rounds =", "whole number", "no quotes"),
        (
            'time_control = "5400+30"',
            'time_control = "90 min"',
            "time_control",
            "time control",
            "5400+30",
        ),
        ('"BH-C1", "SB"', '"BH-C1", "SBX"', "tiebreaks", "unknown tie-break code", "BH-C1"),
        (
            "default_time_minutes = 30",
            "default_time_minutes = -5",
            "default_time_minutes",
            "out of range",
            "between 0 and",
        ),
        ("no_show_limit = 2", "no_show_limit = 0", "no_show_limit", "out of range", "at least 1"),
        ("max = 1", "max = 1\npoints = 0.25", "points = 0.25", "not a FIDE bye value", "0.5"),
        (
            'request_deadline = "before-previous-round"',
            'request_deadline = "yesterday"',
            "request_deadline",
            "not valid",
            "before-round",
        ),
        (
            "not_in_last_rounds = 1",
            "not_in_last_rounds = 5",
            "not_in_last_rounds",
            "exceeds",
            "0..3",
        ),
        (
            "min_moves = 30",
            "min_moves = 30\nmin_minuts = 60",
            "min_minuts",
            "unknown key",
            "did you mean 'min_minutes'",
        ),
        (
            "date = 2025-09-13\ntime = 10:00:00",
            'date = "2025-09-13"\ntime = 10:00:00',
            '"2025-09-13"',
            "is not a date",
            "no quotes",
        ),
        ("round = 3", "round = 4", "round = 4", "round 4 is scheduled", "1..3"),
        ("address = 12", "address = 11", "address = 11\n", "used by two boards", "own address"),
        (
            "address = 12",
            "address = 24317",
            "address = 24317",
            "address = 24317 does not fit a bus address (14 bits: 1..16383)",
            "`boardwire boards --port PORT`",
        ),
        ("address = 12", "address = 0", "address = 0", "is not a bus address", "1..16383"),
        (
            'section = "Open"\n\n[[board]]',
            'section = "Opne"\n\n[[board]]',
            '"Opne"',
            "no section named",
            "did you mean 'Open'",
        ),
        ("rating = 2300", "rating = 99999", "rating = 99999", "rating 99999 is not valid", "2450"),
        ('fide_id = "123456"', 'fide_id = "12x"', "12x", "FIDE id", "2200140"),
        (
            'site = "Somewhere"',
            'site = "Somewhere"\nsponsor = "ACME"',
            "sponsor",
            "unknown key",
            "known keys",
        ),
    ],
)
def test_each_mistake_is_reported_with_line_and_hint(
    old: str, new: str, needle: str, message: str, hint: str
) -> None:
    assert old in GOOD
    text = GOOD.replace(old, new, 1)
    errors = _errors(text)
    matching = [e for e in errors if message in e[1]]
    assert matching, errors
    line, _, got_hint = matching[0]
    assert line == _line_of(text, needle.rstrip("\n").split("\n")[0]) or (
        # a value spanning a new line: the message points at its first line
        needle.endswith("\n") and line is not None
    )
    assert hint in got_hint


def test_missing_required_keys_point_at_their_table() -> None:
    text = GOOD.replace('name = "Test Open"\n', "").replace('time_control = "5400+30"\n', "")
    errors = _errors(text)
    messages = {m: (line, h) for line, m, h in errors}
    assert messages["event.name is missing"] == (1, 'add name = "Sestao Open 2025"')
    assert messages["section[1].time_control is missing"][0] == _line_of(text, "[[section]]")


def test_all_problems_are_reported_at_once() -> None:
    text = GOOD.replace("rounds = 3", "rounds = 0").replace("max = 1", "max = -1")
    text = text.replace('port = "/dev/ttyUSB0"\naddress = 12', 'port = "/dev/ttyUSB0"')
    errors = _errors(text)
    assert len(errors) >= 3
    assert any(
        "out of range" in m and line == _line_of(text, "rounds = 0") for line, m, _ in errors
    )
    assert any("needs its bus address" in m for _, m, _ in errors)
    with pytest.raises(ConfigError) as info:
        load_event_text(text, "x/event.toml")
    message = str(info.value)
    assert message.startswith(f"{len(errors)} problems in the event config:")
    assert "x/event.toml:" in message and "(hint:" in message


def test_toml_syntax_errors_have_their_line() -> None:
    text = GOOD.replace('site = "Somewhere"', "site = Somewhere")
    [(line, message, hint)] = _errors(text)
    assert line == 3 and message.startswith("TOML syntax") and "quotes" in hint


def test_round_robin_rounds_must_fit_the_players() -> None:
    text = GOOD.replace('system = "swiss"', 'system = "round-robin"')
    text = text.replace('tiebreaks = ["BH-C1", "SB"]', 'tiebreaks = ["SB"]')
    text = text.replace(
        "[section.byes]\nmax = 1\nnot_in_last_rounds = 1\n"
        'request_deadline = "before-previous-round"\n',
        "",
    )
    errors = _errors(text)
    assert any("round-robin of 2 players has 1 rounds, not 3" in m for _, m, _ in errors)
    text2 = text.replace('tiebreaks = ["SB"]', 'tiebreaks = ["BH"]')
    assert any("Buchholz" in m for _, m, _ in _errors(text2))


def test_swiss_import_needs_its_program_and_berger_is_for_round_robins() -> None:
    errors = _errors(GOOD.replace('system = "swiss"', 'system = "swiss"\npairing = "import"'))
    assert any("needs the program" in m and "Vega" in h for _, m, h in errors)
    errors = _errors(GOOD.replace('system = "swiss"', 'system = "swiss"\npairing = "berger"'))
    assert any("cannot use Berger" in m for _, m, _ in errors)


def test_players_from_csv_with_errors_name_the_csv_line(tmp_path: Path) -> None:
    (tmp_path / "players.csv").write_text(
        "number,name,rating,club\n1,Alpha,2400,X\n2,,2300,Y\n2,Gamma,abc,Z\n", encoding="utf-8"
    )
    text = GOOD.replace(
        GOOD[GOOD.index("[[section.player]]") : GOOD.index("[[board]]")],
        'players_csv = "players.csv"\n\n',
    )
    text = text.replace('players_csv = "players.csv"\n\n', "")
    text = text.replace("no_show_limit = 2\n", 'no_show_limit = 2\nplayers_csv = "players.csv"\n')
    path = tmp_path / "event.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_event(path)
    csv_issues = [i for i in info.value.issues if i.file.name == "players.csv"]
    found = {(i.line, i.message.split(":")[0]) for i in csv_issues}
    assert (1, "unknown column 'club'") in found
    assert any(line == 3 and "no name" in m for line, m in found)
    assert any(line == 4 and "rating" in m for line, m in found)


def test_missing_player_file_and_missing_config(tmp_path: Path) -> None:
    text = GOOD.replace("no_show_limit = 2\n", 'no_show_limit = 2\nplayers_csv = "nope.csv"\n')
    errors = _errors(text, tmp_path)
    assert any("players are given twice" in m for _, m, _ in errors)
    with pytest.raises(ConfigError, match="file not found"):
        load_event(tmp_path / "absent.toml")


def test_schedule_in_wrong_order_is_refused() -> None:
    text = GOOD.replace("date = 2025-09-13\ntime = 10:00:00", "date = 2025-09-11\ntime = 10:00:00")
    errors = _errors(text)
    assert any("not after round 1" in m for _, m, _ in errors)


_TRF_PLAYERS = (
    "012 Rapid\n"
    "001    1 m  g Mirzoev Azer                      2527 AZE    13400304 1978        0.0    1\n"
    "001    2 m  m Argandona Riveiro Inigo           {rating} ESP     2212072 1981        0.0    2\n"
)
_TRF_SECTION = """\
[[section]]
name = "Rapid"
system = "swiss"
rounds = 1
time_control = "900+10"
players_trf = "rapid.trf"

[[section.schedule]]
round = 1
date = 2025-09-14
time = 10:00:00

"""


def test_players_from_trf_after_inline_players_name_the_trf_line(tmp_path: Path) -> None:
    # The section before gives its players inline; their key lines must not leak into
    # the TRF rows of the next section (they once did: the TRF issue got a TOML line).
    path = tmp_path / "event.toml"
    path.write_text(GOOD.replace("[[board]]", _TRF_SECTION + "[[board]]", 1), encoding="utf-8")
    (tmp_path / "rapid.trf").write_text(_TRF_PLAYERS.format(rating="2408"), encoding="utf-8")
    rapid = load_event(path).sections[1]
    assert [(p.number, p.name, p.rating, p.federation) for p in rapid.players] == [
        (1, "Mirzoev Azer", 2527, "AZE"),
        (2, "Argandona Riveiro Inigo", 2408, "ESP"),
    ]
    (tmp_path / "rapid.trf").write_text(_TRF_PLAYERS.format(rating="5000"), encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_event(path)
    assert [(i.file.name, i.line, i.message) for i in info.value.issues] == [
        ("rapid.trf", 3, "Argandona Riveiro Inigo: rating 5000 is not valid")
    ]


def test_boards_on_capture_stations_are_named_by_station_and_port() -> None:
    """A port is a path on one computer: two stations may each have a /dev/ttyUSB1 with
    one board, but one station's port carrying two boards still needs their addresses;
    a station's name must be fit for Redis keys."""
    stations = GOOD.replace(
        'address = 11\nsection = "Open"', 'section = "Open"\nstation = "east-1"'
    ).replace('address = 12\nsection = "Open"', 'section = "Open"\nstation = "west"')
    event = load_event_text(stations, "/tmp/event.toml")
    assert [(b.number, b.port, b.station) for b in event.boards] == [
        (1, "/dev/ttyUSB0", "east-1"),
        (2, "/dev/ttyUSB0", "west"),
    ]
    assert load_event_text(GOOD, "/tmp/event.toml").boards[0].station is None
    same = stations.replace('station = "west"', 'station = "east-1"')
    assert any("carries 2 boards" in message for _, message, _ in _errors(same))
    bad = stations.replace('station = "west"', 'station = "West Hall"')
    assert any("'West Hall' is not a station's name" in m for _, m, _ in _errors(bad))
