"""Time control syntax: FIDE-style, PGN tag forms, delays, Armageddon, clear errors."""

from __future__ import annotations

import pytest

from clocks.timecontrol import Period, format_time_control, parse_time_control


def test_base_plus_increment() -> None:
    tc = parse_time_control("5400+30")
    assert tc.white == (Period(5400, None, 30),) and tc.symmetric
    assert tc.initial_seconds("black") == 5400
    assert tc.added_after_move("white", 1) == 30


def test_two_periods_add_time_after_move_40() -> None:
    tc = parse_time_control("40/5400+30:1800+30")
    assert tc.period_index("white", 40) == 0 and tc.period_index("white", 41) == 1
    assert tc.added_after_move("white", 39) == 30
    assert tc.added_after_move("white", 40) == 30 + 1800
    assert tc.added_after_move("black", 41) == 30


def test_pgn_forms() -> None:
    assert parse_time_control("40/7200:3600").added_after_move("white", 40) == 3600
    assert parse_time_control("900+10").white[0].increment == 10
    assert parse_time_control("-").untimed
    assert parse_time_control("600").white == (Period(600),)


def test_repeating_period_in_pgn_form() -> None:
    tc = parse_time_control("40/7200")
    assert tc.added_after_move("white", 40) == 7200
    assert tc.added_after_move("white", 80) == 7200
    assert tc.added_after_move("white", 60) == 0


def test_units() -> None:
    assert parse_time_control("90m+30s") == parse_time_control("5400+30")
    assert parse_time_control("1h30m").white[0].seconds == 5400


@pytest.mark.parametrize("text", ["5400d30", "5400+d30"])
def test_simple_delay(text: str) -> None:
    period = parse_time_control(text).white[0]
    assert period.delay == 30 and period.delay_kind == "simple" and period.increment == 0


def test_bronstein_delay() -> None:
    period = parse_time_control("5400b10").white[0]
    assert (period.delay, period.delay_kind) == (10, "bronstein")


def test_armageddon_different_times() -> None:
    tc = parse_time_control("w:300+2,b:240+2")
    assert not tc.symmetric
    assert tc.initial_seconds("white") == 300 and tc.initial_seconds("black") == 240
    assert format_time_control(tc) == "w:300+2,b:240+2"


def test_increment_from_a_later_move() -> None:
    tc = parse_time_control("w:300+2@61,b:240+2@61")
    assert tc.added_after_move("white", 60) == 0
    assert tc.added_after_move("white", 61) == 2


@pytest.mark.parametrize(
    "text", ["5400+30", "40/5400+30:1800+30", "600", "5400d30", "300+2@61", "-"]
)
def test_round_trip(text: str) -> None:
    assert parse_time_control(format_time_control(parse_time_control(text))) == (
        parse_time_control(text)
    )


@pytest.mark.parametrize(
    ("text", "hint"),
    [
        ("", "write e.g."),
        ("?", "unknown"),
        ("90 min", "units h/m/s"),
        ("5400:1800", "move count"),
        ("x/5400", "number of moves"),
        ("0", "zero time"),
        ("w:300+2", "both sides"),
        ("w:300,w:200", "given twice"),
        ("*180", "sandclock"),
        ("300+2@x", "move number"),
    ],
)
def test_errors_say_what_to_write(text: str, hint: str) -> None:
    with pytest.raises(ValueError, match=hint):
        parse_time_control(text)
