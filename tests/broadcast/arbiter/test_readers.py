"""A lost capture station's boards are unheard, not silent (`broadcast.arbiter.readers`):
no `board-not-responding` per board while the station is lost (its own alert names
them); once it is back, silence counts again from that moment."""

from __future__ import annotations

from boards.driver_events import ClockSeen
from broadcast.arbiter import Alert
from broadcast.arbiter.readers import BoardsUnheard
from broadcast.arbiter.standalone import StandaloneRules
from broadcast.games.game_events import BoardAttached
from clocks.reading import ClockReading
from tests.support.arbiter import SESTAO, engine, gid, moves, start_of

BOARDS = ("10001", "10002")
START = start_of(SESTAO, 1)


def playing() -> StandaloneRules:
    rules = engine(SESTAO)
    for number, board in enumerate(BOARDS, 1):
        game = gid(SESTAO, 1, number)
        rules.observe(BoardAttached(game, board, START - 600))
        for e in moves(game, ["e2e4", "e7e5"], START + 1):
            rules.observe(e)
        reading = ClockReading(5400, 5400, True, False)
        rules.observe(ClockSeen(START + 200, board, reading))
    return rules


def silent(out: list[object]) -> list[str]:
    return [
        e.hall_board or "" for e in out if isinstance(e, Alert) and e.kind == "board-not-responding"
    ]


def test_a_lost_stations_boards_raise_nothing_until_it_is_back_and_quiet() -> None:
    rules = playing()
    rules.observe(BoardsUnheard(START + 205, "east", BOARDS, True))
    assert silent(rules.tick(START + 600)) == []  # minutes without a word: the station's
    rules.observe(BoardsUnheard(START + 700, "east", BOARDS, False))
    assert silent(rules.tick(START + 760)) == []  # back: 60 s of silence is allowed
    assert sorted(silent(rules.tick(START + 761))) == list(BOARDS)  # then it is the boards'


def test_without_the_station_being_lost_the_boards_alarm_as_ever() -> None:
    rules = playing()
    assert sorted(silent(rules.tick(START + 261))) == list(BOARDS)
