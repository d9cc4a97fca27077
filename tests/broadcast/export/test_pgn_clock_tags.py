"""WhiteClock, BlackClock and ReferenceTime: formats, running and stopped clocks, no clock,
and the broadcast delay."""

from __future__ import annotations

import re

from broadcast.export.pgn import game_pgn
from broadcast.export.pgn_clock import clock_tags, reference_time, tag_clock
from broadcast.fide.berger import berger_round
from broadcast.games.book import GameBook
from broadcast.games.game_events import GameClock, ResultConfirmed
from broadcast.games.ids import GameKey
from broadcast.service.delayed import DelayedView
from tests.support.export import T0, event, paired, play, random_line, read_all

MASTERS = "Masters"
GAME = GameKey(MASTERS, 1, 1).id


def _book() -> GameBook:
    cfg = event()
    return GameBook().synced(paired(cfg, MASTERS, 1, list(berger_round(8, 1))))


def _tags(book: GameBook) -> dict[str, str]:
    (game,) = read_all(game_pgn(book.get(GAME), event()))
    return dict(game.headers)


def test_clock_format_is_two_digits_each() -> None:
    assert tag_clock(0) == "00:00:00"
    assert tag_clock(2031) == "00:33:51"
    assert tag_clock(5034.4) == "01:23:54"
    assert tag_clock(36000 + 59) == "10:00:59"
    assert tag_clock(-3) == "00:00:00"  # a clock past zero shows zero
    assert tag_clock(float("nan")) == "00:00:00"


def test_a_running_clock() -> None:
    book = play(_book(), GAME, random_line(3, 3), t0=T0)  # 3 plies: Black to move
    book = book.apply(GameClock(GAME, 5160, 5401, "black", T0 + 180.25))
    tags = _tags(book)
    assert tags["WhiteClock"] == "01:26:00" and tags["BlackClock"] == "01:30:01"
    # 2025-12-22 16:00:00 UTC + 180.25 s, after the side whose clock runs
    assert tags["ReferenceTime"] == "B/2025-12-22T16:03:00.250Z"
    assert re.fullmatch(r"[WB]/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", tags["ReferenceTime"])
    # the per-move clock comments stay
    assert "[%clk" in game_pgn(book.get(GAME), event())


def test_a_stopped_clock_keeps_its_reading_after_the_result() -> None:
    book = play(_book(), GAME, random_line(4, 4), t0=T0)  # 4 plies: White to move
    book = book.apply(GameClock(GAME, 3000, 2900, "white", T0 + 600))
    book = book.apply(ResultConfirmed(GAME, "1-0", "resignation", T0 + 610))
    book = book.apply(GameClock(GAME, 2990, 2900, None, T0 + 620))  # ignored: game over
    tags = _tags(book)
    assert (tags["WhiteClock"], tags["BlackClock"]) == ("00:50:00", "00:48:20")
    assert tags["ReferenceTime"] == "W/2025-12-22T16:10:00.000Z"


def test_a_stopped_clock_names_the_side_to_move() -> None:
    book = play(_book(), GAME, random_line(3, 3), t0=T0)  # Black to move
    book = book.apply(GameClock(GAME, 3000, 2900, None, T0 + 5))  # paused
    assert reference_time(book.get(GAME)) == "B/2025-12-22T16:00:05.000Z"


def test_a_game_without_a_clock_has_no_clock_tags() -> None:
    book = play(_book(), GAME, random_line(5, 6), t0=T0)  # moves, no clock reading
    tags = _tags(book)
    assert not {"WhiteClock", "BlackClock", "ReferenceTime"} & tags.keys()
    assert clock_tags(book.get(GAME)) == []


def test_a_reading_without_a_date_gets_no_reference_time() -> None:
    book = _book().apply(GameClock(GAME, 60, 60, "white", 0.0))  # a replay's clock at 0
    assert clock_tags(book.get(GAME)) == [("WhiteClock", "00:01:00"), ("BlackClock", "00:01:00")]


def test_the_public_pgn_never_shows_a_reading_newer_than_the_delay() -> None:
    delay = 900.0
    view = DelayedView(delay, _book(), T0)
    book = view.at(T0)
    early = book.apply(GameClock(GAME, 5400, 5400, "white", T0 + 10))
    view.record(T0 + 10, early)
    late = early.apply(GameClock(GAME, 5000, 5400, "white", T0 + 410))
    view.record(T0 + 410, late)
    # 15 minutes after the first reading the public sees it, not the later one
    tags = _tags(view.at(T0 + 10 + delay))
    assert tags["WhiteClock"] == "01:30:00"
    assert tags["ReferenceTime"] == "W/2025-12-22T16:00:10.000Z"
    tags = _tags(view.at(T0 + 410 + delay))
    assert tags["WhiteClock"] == "01:23:20"
    assert tags["ReferenceTime"] == "W/2025-12-22T16:06:50.000Z"
