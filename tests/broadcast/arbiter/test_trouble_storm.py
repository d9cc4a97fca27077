"""False alarms in storms (issue 30): a board whose clock goes quiet is not a lost board.

A running DGT clock that stops reporting while the position stands still was taken for a
reboot: the driver ended the session every few seconds, the arbiter got a critical
"board not responding" each time (closed again at the reconnect), and the board's log was
read each time. It happens when a clock's batteries die or its cable is pulled while a
player thinks, and on boards whose game has ended with the clock left running.

Each scenario runs the real driver against an emulated board for minutes of virtual time,
over every reading of what a board says once it cannot reach its clock
(`boardsim.board.CLOCK_LOST_VARIANTS`), and counts what the arbiter raised and closed:

- the clock stopped reporting while the board answers: one warning, raised once, closed
  when the clock reports again; never a critical, never a log read;
- a board that rebooted (a power glitch) is seen in what it says (its clock runs on and
  it no longer reports it; its dump, its log): its log is read once, no critical;
- a board that answers nothing is lost: one critical per episode, closed when it is back.
"""

from __future__ import annotations

import asyncio

import pytest

from boards.driver_events import BoardLost, ClockSilent, LogRecovered
from boardsim.board import CLOCK_LOST_VARIANTS
from boardsim.virtual import MemoryLine
from tests.support.board_trouble import Outcome, run_board
from tests.support.event_log import idx

PAWN, QUEEN, BLACK_PAWN, BLACK_QUEEN = 0x01, 0x06, 0x07, 0x0C


def move(line: MemoryLine, uci: str, code: int) -> None:
    line.set_square(idx(uci[:2]), 0)
    line.set_square(idx(uci[2:]), code)


async def opening(line: MemoryLine) -> None:
    """1.e4 e5, the clock started and pressed as players do."""
    line.setup_clock(900, 900)
    line.press_lever("right")  # Black starts White's clock
    await asyncio.sleep(5)
    move(line, "e2e4", PAWN)
    line.press_lever("left")
    await asyncio.sleep(8)
    move(line, "e7e5", BLACK_PAWN)
    line.press_lever("right")
    await asyncio.sleep(3)


async def finished_then_silent(line: MemoryLine) -> None:
    """Fool's mate: the game is over on the board, the loser's clock left running; later
    the clock goes quiet (its batteries, left running for the next hour)."""
    line.setup_clock(900, 900)
    line.press_lever("right")
    for uci, code, side in (
        ("f2f3", PAWN, "left"),
        ("e7e5", BLACK_PAWN, "right"),
        ("g2g4", PAWN, "left"),
        ("d8h4", BLACK_QUEEN, "right"),
    ):
        await asyncio.sleep(4)
        move(line, uci, code)
        line.press_lever(side)  # type: ignore[arg-type]
    await asyncio.sleep(30)  # mate: nobody touches anything, White's clock runs
    line.clock_battery_dies()


async def battery_dies_mid_think(line: MemoryLine) -> None:
    await opening(line)
    await asyncio.sleep(20)  # White thinks
    line.clock_battery_dies()


async def clock_cable_pulled_mid_think(line: MemoryLine) -> None:
    await opening(line)
    await asyncio.sleep(20)
    line.unplug_clock()


SCENARIOS = {
    "finished": finished_then_silent,
    "battery": battery_dies_mid_think,
    "cable": clock_cable_pulled_mid_think,
}


def board_alarms(out: Outcome) -> int:
    return len(out.of("board-not-responding"))


@pytest.mark.parametrize("variant", CLOCK_LOST_VARIANTS)
@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_a_clock_that_stops_reporting_is_one_warning_not_a_storm(
    scenario: str, variant: str
) -> None:
    out = run_board(SCENARIOS[scenario], minutes=7, clock_lost=variant)
    assert board_alarms(out) == 0, out.counts()
    assert not [e for e in out.events if isinstance(e, BoardLost)], out.counts()
    assert out.log_reads == 0, out.counts()  # the board has nothing the host missed
    warnings = out.of("clock-not-connected")
    assert len(warnings) == 1, out.counts()
    (warning,) = warnings
    assert warning.severity == "warning"
    assert [a.id for a in out.open()] == [warning.id]  # still open: the clock is still dead
    if variant == "no-clock":
        return  # the board said "no clock connected" itself
    assert "table 1" in warning.message and "stopped reporting" in warning.message
    assert len([e for e in out.events if isinstance(e, ClockSilent)]) == 1


async def _clock_back(line: MemoryLine) -> None:
    await opening(line)
    await asyncio.sleep(20)
    line.unplug_clock()
    await asyncio.sleep(60)
    line.plug_clock()  # the arbiter plugs it back in
    await asyncio.sleep(10)
    move(line, "g1f3", 0x03)
    line.press_lever("left")


@pytest.mark.parametrize("variant", CLOCK_LOST_VARIANTS)
def test_the_warning_closes_when_the_clock_reports_again(variant: str) -> None:
    out = run_board(_clock_back, minutes=4, clock_lost=variant)
    assert out.counts() == {"clock-not-connected": 1, "closed": 1, "log reads": 0}
    assert out.open() == []


async def _power_glitch(line: MemoryLine) -> None:
    await opening(line)
    await asyncio.sleep(20)
    line.lose_power(2.0)  # White is thinking: the position stands still
    await asyncio.sleep(30)
    move(line, "g1f3", 0x03)
    line.press_lever("left")


@pytest.mark.parametrize("variant", CLOCK_LOST_VARIANTS)
def test_a_reboot_is_seen_in_what_the_board_says_and_read_once(variant: str) -> None:
    out = run_board(_power_glitch, minutes=4, clock_lost=variant)
    assert board_alarms(out) == 0, out.counts()
    assert out.of("clock-not-connected") == []
    assert out.log_reads == 1, out.counts()
    (recovered,) = [e for e in out.events if isinstance(e, LogRecovered)]
    assert recovered.rebooted  # the log shows the power-up after what the host saw


async def _board_dies(line: MemoryLine) -> None:
    await opening(line)
    await asyncio.sleep(20)
    line.muted = True  # the board answers nothing at all (its power supply failed)
    await asyncio.sleep(120)
    line.muted = False


def test_a_board_that_answers_nothing_is_lost_once_per_episode() -> None:
    out = run_board(_board_dies, minutes=5)
    (lost,) = out.of("board-not-responding")
    assert lost.severity == "critical"
    assert out.of("clock-not-connected") == []
    assert out.open() == []  # closed once the board answered again
    assert len(out.resolved) == 1
