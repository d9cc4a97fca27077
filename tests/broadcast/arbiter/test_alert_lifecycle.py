"""Every proposal is a desk alert with its result and reason; alerts close by themselves
when their cause ends (the result decided, the player moved, the board back)."""

from __future__ import annotations

from boards.driver_events import BoardLost, ClockSeen
from broadcast.arbiter import Alert, AlertResolved, PlayerMarkedPresent, RulesConfig
from broadcast.games.game_events import BoardAttached, GameClock, ResultConfirmed, ResultProposed
from clocks.move_times import FlagFell
from clocks.reading import ClockReading
from tests.support.arbiter import PAMPLONA, SESTAO, engine, gid, moves, start_of

GAME = gid(SESTAO, 1, 1)
START = start_of(SESTAO, 1)
FOOLS_MATE = ["f2f3", "e7e5", "g2g4", "d8h4"]


def _alerts(events: list[object], kind: str) -> list[Alert]:
    return [e for e in events if isinstance(e, Alert) and e.kind == kind]


def _resolved(events: list[object]) -> set[str]:
    return {e.alert for e in events if isinstance(e, AlertResolved)}


def test_flag_fall_is_an_alert_with_result_and_reason_until_confirmed() -> None:
    rules = engine(SESTAO)
    for e in moves(GAME, ["e2e4", "e7e5"], START + 1):
        rules.observe(e)
    out = rules.observe(FlagFell(START + 100, "right", "black"), game=GAME)
    [alert] = _alerts(out, "result-proposed")
    assert (alert.result, alert.reason, alert.game) == ("1-0", "flag-fall", GAME)
    assert "1-0" in alert.message and "time forfeit" in alert.message
    assert alert in rules.open_alerts()
    confirmed = rules.observe(ResultConfirmed(GAME, "1-0", "flag-fall", START + 130))
    assert _resolved(confirmed) == {alert.id}
    assert rules.open_alerts() == []


def test_kings_signal_alert_closes_when_overridden() -> None:
    rules = engine(SESTAO)
    out = rules.observe(ResultProposed(GAME, "1/2-1/2", "kings-signal", START + 50, "kings"))
    [alert] = _alerts(out, "result-proposed")
    assert (alert.result, alert.reason) == ("1/2-1/2", "kings-signal")
    out = rules.observe(ResultConfirmed(GAME, "1-0", "arbiter", START + 60, by="arbiter:a"))
    assert alert.id in _resolved(out)


def test_checkmate_proposal_alert_and_apply_mode_needs_no_alert() -> None:
    rules = engine(SESTAO)
    out: list[object] = []
    for e in moves(GAME, FOOLS_MATE, START + 1):
        out += rules.observe(e)
    [alert] = _alerts(out, "result-proposed")
    assert (alert.result, alert.reason) == ("0-1", "checkmate")

    auto = engine(SESTAO, config=RulesConfig(automatic_results="apply"))
    out = []
    for e in moves(GAME, FOOLS_MATE, START + 1):
        out += auto.observe(e)
    assert _alerts(out, "result-proposed") == []  # applied at once: nothing to confirm
    assert [e.result for e in out if isinstance(e, ResultConfirmed)] == ["0-1"]


def test_newer_proposal_supersedes_the_older_alert() -> None:
    rules = engine(SESTAO)
    [first] = _alerts(
        rules.observe(ResultProposed(GAME, "1/2-1/2", "kings-signal", START + 50)),
        "result-proposed",
    )
    out = rules.observe(ResultProposed(GAME, "1-0", "kings-signal", START + 55))
    assert _resolved(out) == {first.id}
    assert [a.result for a in rules.open_alerts() if a.kind == "result-proposed"] == ["1-0"]


def test_check_presence_stays_open_when_the_late_players_move() -> None:
    # Zero default time (finding M8): moves after the check are the forfeit case, not its
    # end; the alert says when they came and waits for the arbiter.
    rules = engine(PAMPLONA)
    game = gid(PAMPLONA, 1, 1)
    start = start_of(PAMPLONA, 1)
    [alert] = [a for a in _alerts(rules.tick(start + 301), "check-presence") if a.game == game]
    played = moves(game, ["e2e4", "e7e5"], start + 400)
    assert _resolved(rules.observe(played[0])) == set()
    assert _resolved(rules.observe(played[1])) == set()
    [still] = [a for a in rules.open_alerts() if a.game == game]
    assert still.id == alert.id and "first seen 6 min after the start" in still.message
    out = rules.observe(PlayerMarkedPresent(game, "white", start + 500))
    assert _resolved(out) == set()  # Black is not marked yet
    assert _resolved(rules.observe(PlayerMarkedPresent(game, "black", start + 510))) == {alert.id}


def test_late_warning_closes_when_marked_present() -> None:
    rules = engine(SESTAO)
    late = [a for a in _alerts(rules.tick(START + 15 * 60), "late") if a.game == GAME]
    assert late
    rules.observe(PlayerMarkedPresent(GAME, "white", START + 16 * 60))
    assert {a.id for a in late} & {a.id for a in rules.open_alerts()}  # Black still missing
    out = rules.observe(PlayerMarkedPresent(GAME, "black", START + 17 * 60))
    assert {a.id for a in late} <= _resolved(out)


def test_board_not_responding_closes_when_the_board_talks_again() -> None:
    rules = engine(SESTAO)
    rules.observe(BoardAttached(GAME, "10001", START - 600))
    for e in moves(GAME, ["e2e4"], START + 1):
        rules.observe(e)
    [lost] = _alerts(
        rules.observe(BoardLost(START + 20, "10001", "unplugged")), "board-not-responding"
    )
    reading = ClockReading(
        left_seconds=5400, right_seconds=5400, running=True, right_lever_high=False
    )
    out = rules.observe(ClockSeen(START + 40, "10001", reading))
    assert _resolved(out) == {lost.id}


def test_restored_journal_keeps_resolved_alerts_closed() -> None:
    rules = engine(SESTAO)
    journal: list[object] = []
    journal += rules.observe(ResultProposed(GAME, "1/2-1/2", "kings-signal", START + 50))
    journal += rules.observe(GameClock(GAME, 5000, 5000, None, START + 51))
    journal += rules.observe(ResultConfirmed(GAME, "1/2-1/2", "kings-signal", START + 60))
    again = engine(SESTAO)
    again.restore([ResultProposed(GAME, "1/2-1/2", "kings-signal", START + 50), *journal])
    assert [a for a in again.open_alerts() if a.kind == "result-proposed"] == []
    assert [a.kind for a in rules.open_alerts()] == ["early-draw"]  # that one is the arbiter's
