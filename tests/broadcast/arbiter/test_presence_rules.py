"""Presence at tables without an e-board (issue 30): the hall walk's one alert at the
default time, check-in where the event requires it, the arbiter's absent marks, the late
alert that says who came, and the zero-default check that waits for the arbiter (M8).

Virtual time: the rules are fed events and ticks stamped in the event's own seconds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import pytest

from broadcast.arbiter import Alert, AlertResolved
from broadcast.arbiter.alerts import AlertUpdated, PlayerMarkedAbsent, PlayerMarkedPresent
from broadcast.arbiter.presence import PlayerPresence, forfeit_moment
from broadcast.arbiter.presence_rules import game_presence, unchecked_tables
from broadcast.config.model import EventConfig
from broadcast.games.game_events import ResultConfirmed, ResultProposed
from tests.support.arbiter import PAMPLONA, SESTAO, engine, gid, moves, start_of

# Sestao with e-boards on tables 1 and 2 only: round 1's tables 3 and 4 have none.
HALL = replace(SESTAO, boards=SESTAO.boards[:2])
START = start_of(SESTAO, 1)
DUE = START + 30 * 60
PASSED = DUE + 0.001  # the default time has passed ("a maximum delay of 30 minutes")


def _hall(event: EventConfig = HALL):  # type: ignore[no-untyped-def]
    return engine(event)


def _game(board: int) -> str:
    return gid(SESTAO, 1, board)


def _proposals(events: Sequence[object]) -> dict[str, str]:
    return {e.game: e.result for e in events if isinstance(e, ResultProposed)}


def _tables_alerts(rules) -> list[Alert]:  # type: ignore[no-untyped-def]
    return [a for a in rules.open_alerts() if a.kind == "check-tables"]


def test_unwired_tables_get_one_alert_and_no_forfeit_at_the_default_time() -> None:
    rules = _hall()
    assert not [e for e in rules.tick(DUE - 1) if isinstance(e, Alert) and e.kind != "late"]
    # No late warnings for tables no board sees: nobody could have been seen there.
    assert {a.game for a in rules.open_alerts() if a.kind == "late"} == {_game(1), _game(2)}
    out = rules.tick(DUE)
    # The arbiter is asked to walk at the default time; nobody loses at 30:00.0 itself.
    assert _proposals(out) == {}
    [alert] = [e for e in out if isinstance(e, Alert) and e.kind == "check-tables"]
    assert alert.t == DUE and alert.section == "Open" and alert.round == 1
    assert alert.message.startswith("check tables 3, 4: ")
    assert "(30 min)" in alert.message
    assert unchecked_tables(rules.rules, "Open", 1) == [3, 4]
    # Once it has passed, the wired tables lose by forfeit; the unwired ones are for the arbiter.
    assert _proposals(rules.tick(PASSED)) == {_game(1): "-/-", _game(2): "-/-"}


def test_the_alert_follows_the_marks_and_closes_when_every_table_is_marked() -> None:
    rules = _hall()
    rules.tick(PASSED)
    [alert] = _tables_alerts(rules)
    out = rules.observe(PlayerMarkedAbsent(_game(3), "white", DUE + 60))
    # Black is not known yet: the table stays listed, and no forfeit yet.
    assert _proposals(out) == {}
    assert not [e for e in out if isinstance(e, AlertUpdated)]
    out = rules.observe(PlayerMarkedPresent(_game(3), "black", DUE + 70))
    assert _proposals(out) == {_game(3): "-/+"}  # White absent: Black wins by forfeit
    [update] = [e for e in out if isinstance(e, AlertUpdated)]
    assert update.alert == alert.id and update.message.startswith("check tables 4: ")
    [still] = _tables_alerts(rules)
    assert still.id == alert.id and still.message == update.message  # the same alert, new words
    out = rules.observe(PlayerMarkedPresent(_game(4), "white", DUE + 80))
    assert _tables_alerts(rules)  # one player of table 4 is not enough
    out = rules.observe(PlayerMarkedPresent(_game(4), "black", DUE + 90))
    assert [e.alert for e in out if isinstance(e, AlertResolved)] == [alert.id]
    assert _tables_alerts(rules) == [] and _proposals(out) == {}


def test_tables_marked_before_the_default_time_are_not_listed() -> None:
    rules = _hall()
    rules.observe(PlayerMarkedPresent(_game(3), "white", START + 60, by="player:x", how="check-in"))
    rules.observe(PlayerMarkedPresent(_game(3), "black", START + 90, by="player:y", how="check-in"))
    rules.observe(PlayerMarkedPresent(_game(4), "white", START + 120))
    [alert] = [e for e in rules.tick(DUE) if isinstance(e, Alert) and e.kind == "check-tables"]
    assert alert.message.startswith("check tables 4: ")


def test_a_check_in_after_the_default_time_leaves_the_table_to_the_arbiter() -> None:
    rules = _hall(replace(HALL, check_in="optional"))
    rules.tick(DUE)
    for colour in ("white", "black"):
        rules.observe(PlayerMarkedPresent(_game(3), colour, DUE + 30, how="check-in"))
    assert unchecked_tables(rules.rules, "Open", 1) == [3, 4]


def test_a_result_takes_the_table_off_the_list() -> None:
    rules = _hall()
    rules.tick(DUE)
    out = rules.observe(ResultConfirmed(_game(3), "1-0", "resignation", DUE + 5))
    assert any(isinstance(e, AlertUpdated) and "check tables 4: " in e.message for e in out)


def test_check_in_required_makes_unwired_tables_judged_like_wired_ones() -> None:
    rules = _hall(replace(HALL, check_in="required"))
    rules.observe(PlayerMarkedPresent(_game(3), "white", START + 30, by="player:a", how="check-in"))
    out = rules.tick(PASSED)
    proposals = _proposals(out)
    assert proposals[_game(3)] == "+/-"  # checked in: White wins; no check-in, no move: Black loses
    assert proposals[_game(4)] == "-/-"
    assert not [e for e in out if isinstance(e, Alert) and e.kind == "check-tables"]


def test_section_setting_overrides_the_event() -> None:
    sections = (replace(HALL.sections[0], check_in="required"),)
    rules = _hall(replace(HALL, check_in="optional", sections=sections))
    assert _proposals(rules.tick(PASSED))[_game(4)] == "-/-"


def test_without_the_change_the_board_never_saw_them_forfeits() -> None:
    # Wired tables keep today's rule: no move, no press, no mark at the default time loses.
    rules = engine(SESTAO)
    assert set(_proposals(rules.tick(PASSED)).values()) == {"-/-"}


def test_late_alert_names_only_who_is_still_missing_once_one_is_marked() -> None:
    rules = engine(SESTAO)
    game = _game(1)
    [late] = [a for a in rules.tick(DUE - 900) if isinstance(a, Alert) and a.game == game]
    assert len(late.players) == 2
    out = rules.observe(PlayerMarkedPresent(game, "black", DUE - 800))
    [update] = [e for e in out if isinstance(e, AlertUpdated)]
    [now] = [a for a in rules.open_alerts() if a.id == late.id]
    assert now.players == (late.players[0],)  # White only
    assert now.message.startswith("white (") and "black (" in now.message
    assert "is at the board now (marked by the arbiter)" in now.message
    assert update.phrase is not None and now.phrase == update.phrase


def test_zero_default_check_waits_for_the_arbiter_and_an_absent_mark_is_the_forfeit() -> None:
    rules = engine(PAMPLONA)
    game = gid(PAMPLONA, 1, 1)
    start = start_of(PAMPLONA, 1)
    [check] = [a for a in rules.tick(start + 301) if isinstance(a, Alert) and a.game == game]
    for e in moves(game, ["e2e4"], start + 600):
        assert not [r for r in rules.observe(e) if isinstance(r, AlertResolved)]
    assert check.id in {a.id for a in rules.open_alerts()}
    out = rules.observe(PlayerMarkedAbsent(game, "white", start + 620))
    # The board saw White move, so the mark is no absence: nothing happens.
    assert _proposals(out) == {}
    out = rules.observe(PlayerMarkedAbsent(game, "black", start + 630))
    assert _proposals(out) == {game: "+/-"}
    assert check.id in {e.alert for e in out if isinstance(e, AlertResolved)}


def test_a_wired_player_marked_absent_after_the_default_time_is_proposed_at_once() -> None:
    rules = engine(SESTAO)
    game = _game(1)
    rules.observe(PlayerMarkedPresent(game, "white", START + 10))
    rules.observe(PlayerMarkedPresent(game, "black", START + 10))
    assert _game(1) not in _proposals(rules.tick(PASSED))
    out = rules.observe(PlayerMarkedAbsent(game, "white", DUE + 100))
    assert _proposals(out) == {game: "-/+"}
    assert [e.t for e in out if isinstance(e, ResultProposed)] == [DUE + 100]


@pytest.mark.parametrize("check_in", ["off", "optional", "required"])
def test_game_presence_says_how_each_player_is_known(check_in: str) -> None:
    rules = _hall(replace(HALL, check_in=check_in))  # type: ignore[arg-type]
    for e in moves(_game(1), ["e2e4"], START + 5):
        rules.observe(e)
    rules.observe(PlayerMarkedPresent(_game(3), "white", START + 6, by="player:a", how="check-in"))
    rules.observe(PlayerMarkedAbsent(_game(3), "black", START + 7))
    rules.tick(DUE + 1)
    book = rules.book
    wired = game_presence(rules.rules, book.get(_game(1)))
    assert wired.wired and wired.white == PlayerPresence("present", "board", START + 5)
    assert wired.black == PlayerPresence("absent", "board", DUE)
    walked = game_presence(rules.rules, book.get(_game(3)))
    assert not walked.wired
    assert walked.white == PlayerPresence("present", "check-in", START + 6)
    assert walked.black == PlayerPresence("absent", "arbiter", START + 7)
    other = game_presence(rules.rules, book.get(_game(4)))
    expected = "absent" if check_in == "required" else "unknown"
    assert other.white.state == other.black.state == expected


def test_a_walked_table_marked_absent_early_loses_only_once_the_default_time_has_passed() -> None:
    rules = _hall()
    rules.observe(PlayerMarkedAbsent(_game(3), "white", START + 60))
    rules.observe(PlayerMarkedPresent(_game(3), "black", START + 70))
    assert _game(3) not in _proposals(rules.tick(DUE))  # White may still come at 30:00.0
    out = [e for e in rules.tick(PASSED) if isinstance(e, ResultProposed) and e.game == _game(3)]
    assert [(e.result, e.t) for e in out] == [("-/+", forfeit_moment(DUE))]
