"""Board trouble to the second: lost and silent boards, bus polls, battery, missing clock,
out of sync too long, and a move that stood though illegal."""

from __future__ import annotations

from boards.driver_events import BatterySeen, BoardHealth, BoardLost, ClockSeen
from broadcast.arbiter import Alert, AlertResolved
from broadcast.arbiter.standalone import StandaloneRules
from broadcast.games.game_events import BoardAttached, GameClock, GameSync, ResultConfirmed
from clocks.reading import ClockReading, NoClock
from tests.support.arbiter import SESTAO, engine, gid, moves, start_of

BOARD = "10001"
START = start_of(SESTAO, 1)
GAME = gid(SESTAO, 1, 1)


def attached() -> StandaloneRules:
    rules = engine(SESTAO)
    rules.observe(BoardAttached(GAME, BOARD, START - 600))
    for e in moves(GAME, ["e2e4", "e7e5"], START + 1):
        rules.observe(e)
    return rules


def alerts(events: list[object], kind: str) -> list[Alert]:
    return [e for e in events if isinstance(e, Alert) and e.kind == kind]


def reading(left: int = 5400, right: int = 5400) -> ClockReading:
    return ClockReading(
        left_seconds=left, right_seconds=right, running=True, right_lever_high=False
    )


def test_board_lost_alerts_once_per_loss() -> None:
    rules = attached()
    out = rules.observe(BoardLost(START + 100, BOARD, "port closed"))
    [alert] = alerts(out, "board-not-responding")
    assert alert.severity == "critical" and alert.hall_board == BOARD and alert.game == GAME
    assert alert.players and alert.round == 1 and alert.board == 1 and alert.section == "Open"
    assert "port closed" in alert.message
    assert rules.observe(BoardLost(START + 101, BOARD, "port closed")) != []  # a new episode
    assert rules.observe(alert) == []  # replayed: nothing new


def test_silent_board_with_clock_more_than_the_limit() -> None:
    rules = attached()
    rules.observe(ClockSeen(START + 200, BOARD, reading()))
    assert alerts(rules.tick(START + 260), "board-not-responding") == []  # exactly 60 s
    [alert] = alerts(rules.tick(START + 261), "board-not-responding")
    assert alert.t == START + 261
    assert alerts(rules.tick(START + 400), "board-not-responding") == []  # once
    rules.observe(ClockSeen(START + 500, BOARD, reading(5300)))  # back
    assert len(alerts(rules.tick(START + 561), "board-not-responding")) == 1  # silent again


def test_silence_without_a_clock_is_normal() -> None:
    rules = attached()
    rules.observe(BatterySeen(START + 200, BOARD, 90))
    assert alerts(rules.tick(START + 2000), "board-not-responding") == []


def test_bus_polls_missed_threshold() -> None:
    rules = attached()
    assert (
        alerts(rules.observe(BoardHealth(START + 10, BOARD, START + 9, 4, 0)), "bus-polls-missed")
        == []
    )
    [alert] = alerts(
        rules.observe(BoardHealth(START + 20, BOARD, START + 9, 5, 2)), "bus-polls-missed"
    )
    assert "5 bus polls" in alert.message


def test_battery_low_then_critical_once_each() -> None:
    rules = attached()
    assert rules.observe(BatterySeen(START + 10, BOARD, 21)) == []
    [low] = alerts(rules.observe(BatterySeen(START + 20, BOARD, 20)), "battery-low")
    assert low.severity == "warning"
    assert rules.observe(BatterySeen(START + 30, BOARD, 19)) == []
    # charging: the cause has ended, the warning closes by itself
    [closed] = rules.observe(BatterySeen(START + 35, BOARD, 10, charging=True))
    assert isinstance(closed, AlertResolved) and closed.alert == low.id
    assert low not in rules.open_alerts()
    [critical] = alerts(rules.observe(BatterySeen(START + 40, BOARD, 5)), "battery-low")
    assert critical.severity == "critical"


def test_clock_not_connected_per_episode() -> None:
    rules = attached()
    [alert] = alerts(rules.observe(ClockSeen(START + 10, BOARD, NoClock())), "clock-not-connected")
    assert alert.severity == "warning"
    assert rules.observe(ClockSeen(START + 11, BOARD, NoClock())) == []
    rules.observe(ClockSeen(START + 12, BOARD, reading()))
    assert (
        len(alerts(rules.observe(ClockSeen(START + 13, BOARD, NoClock())), "clock-not-connected"))
        == 1
    )


def test_out_of_sync_more_than_limit() -> None:
    rules = attached()
    rules.observe(GameSync(GAME, False, START + 100, fen="8/8/8/8/8/8/8/8"))
    assert alerts(rules.tick(START + 130), "out-of-sync") == []
    [alert] = alerts(rules.tick(START + 131), "out-of-sync")
    assert "31 s" in alert.message
    rules.observe(GameSync(GAME, True, START + 140))
    rules.observe(GameSync(GAME, False, START + 200))
    assert alerts(rules.tick(START + 230), "out-of-sync") == []
    assert len(alerts(rules.tick(START + 231), "out-of-sync")) == 1  # a second episode


def test_illegal_move_stood_when_clock_pressed_out_of_sync() -> None:
    rules = attached()
    rules.observe(GameClock(GAME, 5390, 5390, "white", START + 50))
    rules.observe(
        GameSync(GAME, False, START + 60, fen="rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR")
    )
    # the press itself is not yet proof: a legal move is confirmed once the board is still
    assert (
        alerts(
            rules.observe(GameClock(GAME, 5380, 5390, "black", START + 62)), "illegal-move-stood"
        )
        == []
    )
    assert alerts(rules.tick(START + 71), "illegal-move-stood") == []
    [alert] = alerts(rules.tick(START + 72), "illegal-move-stood")
    assert alert.severity == "critical" and "white pressed" in alert.message
    assert alert.t == START + 72
    assert rules.observe(GameClock(GAME, 5380, 5380, "white", START + 80)) == []  # once
    # the board matches the game again: the alert closes by itself
    [closed] = rules.observe(GameSync(GAME, True, START + 90))
    assert isinstance(closed, AlertResolved) and closed.alert == alert.id


def test_press_that_ends_a_short_out_of_sync_is_no_illegal_move() -> None:
    """A piece held a few seconds (out of sync), then put down and the clock pressed before
    the reconstruction saw the position still: the board is back in sync just after."""
    rules = attached()
    rules.observe(GameClock(GAME, 5390, 5390, "white", START + 50))
    rules.observe(
        GameSync(GAME, False, START + 60, fen="rnbqkbnr/pppppppp/8/8/8/8/PPP1PPPP/RNBQKBNR")
    )
    assert rules.observe(GameClock(GAME, 5380, 5390, "black", START + 62)) == []
    rules.observe(GameSync(GAME, True, START + 62.3))
    assert alerts(rules.tick(START + 200), "illegal-move-stood") == []


def test_no_trouble_alerts_after_the_result() -> None:
    rules = attached()
    rules.observe(ResultConfirmed(GAME, "1-0", "resignation", START + 300))
    assert rules.observe(BoardLost(START + 400, BOARD, "unplugged")) == []
    assert rules.observe(BatterySeen(START + 400, BOARD, 3)) == []


# -- the driver's own troubles ------------------------------------------------------------


def test_a_driver_fault_raises_one_critical_alert_until_the_board_is_back_a_while() -> None:
    from boards.driver_events import BoardConnected, BoardInfo, DriverFault

    rules = attached()
    port = "/dev/ttyUSB3"
    fault = DriverFault(START + 100, BOARD, port, "IndexError: list index out of range")
    out = rules.observe(fault)
    [alert] = alerts(out, "driver-fault")
    assert alert.severity == "critical" and alert.hall_board == BOARD and alert.game == GAME
    assert BOARD in alert.message and port in alert.message and "IndexError" in alert.message
    # Its BoardLost does not raise a second alert; the same fault again neither.
    assert (
        alerts(
            rules.observe(BoardLost(START + 100, BOARD, "software error")), "board-not-responding"
        )
        == []
    )
    assert rules.observe(DriverFault(START + 103, BOARD, port, "IndexError: x")) == []
    info = BoardInfo(port, BOARD, (1, 7), "single")
    rules.observe(BoardConnected(START + 110, BOARD, info, reconnect=True))
    assert [e for e in rules.tick(START + 139) if isinstance(e, AlertResolved)] == []
    # A fault at the next reconnect keeps it open: it closes only after 30 quiet seconds.
    rules.observe(DriverFault(START + 139, BOARD, port, "IndexError: x"))
    rules.observe(BoardConnected(START + 150, BOARD, info, reconnect=True))
    assert [e for e in rules.tick(START + 170) if isinstance(e, AlertResolved)] == []
    [resolved] = [e for e in rules.tick(START + 181) if isinstance(e, AlertResolved)]
    assert resolved.alert == alert.id and rules.open_alerts() == []
    # A new fault later is a new episode, and a lost board alerts again as usual.
    [again] = alerts(
        rules.observe(DriverFault(START + 900, BOARD, port, "KeyError: 3")), "driver-fault"
    )
    assert again.id != alert.id and "KeyError" in again.message


def test_a_driver_fault_on_a_board_without_a_game_still_alerts() -> None:
    from boards.driver_events import DriverFault

    rules = engine(SESTAO)
    [alert] = alerts(
        rules.observe(DriverFault(START, "10002", "/dev/x", "ValueError: y")), "driver-fault"
    )
    assert alert.game == "" and alert.hall_board == "10002"


def test_a_log_gap_names_the_board_and_the_moves_to_check() -> None:
    from boards.driver_events import LogGap

    rules = attached()  # 1.e4 e5 recorded
    gap = LogGap(START + 300, BOARD, "/dev/ttyACM1", "what it showed last is not in its log")
    [alert] = alerts(rules.observe(gap), "moves-to-check")
    assert alert.severity == "critical" and alert.game == GAME and alert.hall_board == BOARD
    assert "board 10001 on /dev/ttyACM1: what it showed last is not in its log" in alert.message
    assert "after 1...e5 (ply 2" in alert.message
    # Another gap later is another alert; a gap on a board with no game is nothing to check.
    assert (
        len(
            alerts(rules.observe(LogGap(START + 900, BOARD, "/dev/ttyACM1", "x")), "moves-to-check")
        )
        == 1
    )
    assert rules.observe(LogGap(START + 900, "10009", "/dev/x", "x")) == []
