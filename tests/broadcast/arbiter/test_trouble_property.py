"""Board trouble alerts never flap (issue 30): whatever a board and its clock do, in any
order (a player thinking, moves, a clock that dies and comes back, a board that answers
nothing for a while, a power glitch), over every reading of what a board says once it
cannot reach its clock, the arbiter never has two open alerts of one kind about a board,
raises a lost board only for an episode in which the board answered nothing, a clock
warning only for an episode in which the clock was gone, and reads the board's log only
after an outage in which it could have moves the host missed."""

from __future__ import annotations

import asyncio
from collections import Counter

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from boardsim.board import CLOCK_LOST_VARIANTS
from boardsim.virtual import MemoryLine
from tests.support.board_trouble import Outcome, run_board
from tests.support.event_log import idx

KNIGHT, BLACK_KNIGHT = 0x03, 0x09
# A knight each, back and forth: always legal, always a new position for the board.
SHUTTLES = ((("g1", "f3"), KNIGHT, "left"), (("b8", "c6"), BLACK_KNIGHT, "right"))

Segment = tuple[str, float]
segments = st.lists(
    st.tuples(
        st.sampled_from(["think", "move", "clock-gone", "board-mute", "glitch"]),
        st.floats(min_value=0.5, max_value=60.0),
    ),
    min_size=1,
    max_size=8,
)


def script_for(plan: list[Segment]):  # type: ignore[no-untyped-def]
    async def script(line: MemoryLine) -> None:
        line.setup_clock(1800, 1800)
        line.press_lever("right")  # White's clock runs
        moved = [0, 0]  # moves made by each knight
        ply = 0
        for kind, seconds in plan:
            if kind == "move":
                (a, b), code, side = SHUTTLES[ply % 2]
                here, there = (a, b) if moved[ply % 2] % 2 == 0 else (b, a)
                line.set_square(idx(here), 0)
                line.set_square(idx(there), code)
                line.press_lever(side)  # type: ignore[arg-type]
                moved[ply % 2] += 1
                ply += 1
                await asyncio.sleep(seconds)
            elif kind == "clock-gone":
                line.unplug_clock()
                await asyncio.sleep(seconds)
                line.plug_clock()
            elif kind == "board-mute":
                line.muted = True
                await asyncio.sleep(seconds)
                line.muted = False
            elif kind == "glitch":
                line.lose_power(min(seconds, 3.0))
                await asyncio.sleep(seconds)
            else:
                await asyncio.sleep(seconds)
        await asyncio.sleep(30)  # time for the last alerts to close

    return script


def back_to_back_glitches(plan: list[Segment]) -> int:
    """Runs of two or more power glitches in a row: a board dark for up to 3 s, on again
    for less than its reboot and a poll, then dark again, has answered nothing for longer
    than the driver waits (6 s), and is lost for that episode, rightly."""
    runs, length = 0, 0
    for kind, _ in plan:
        length = length + 1 if kind == "glitch" else 0
        runs += length == 2
    return runs


def never_two_open(out: Outcome) -> None:
    kinds = Counter(a.kind for a in out.open())
    assert all(n == 1 for n in kinds.values()), kinds


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(plan=segments, variant=st.sampled_from(CLOCK_LOST_VARIANTS))
@example(plan=[("clock-gone", 1.0), ("glitch", 4.0), ("glitch", 3.0)], variant="frozen")
def test_board_alerts_follow_the_episodes_and_never_flap(plan: list[Segment], variant: str) -> None:
    minutes = (sum(s for _, s in plan) + 60) / 60
    out = run_board(script_for(plan), minutes=minutes, watch=never_two_open, clock_lost=variant)
    count = Counter(kind for kind, _ in plan)
    raised = Counter(a.kind for a in out.raised)
    # A lost board: only for an episode in which it answered nothing, and once each.
    dark = count["board-mute"] + back_to_back_glitches(plan)
    assert raised["board-not-responding"] <= dark, (plan, out.counts())
    assert all(a.severity == "critical" for a in out.of("board-not-responding"))
    # A clock that went quiet: one warning per episode, never a critical.
    assert raised["clock-not-connected"] <= count["clock-gone"], (plan, out.counts())
    # The log: only after an outage in which the board could have moves the host missed.
    assert out.log_reads <= count["board-mute"] + count["glitch"], (plan, out.counts())
    # What was raised is closed once the board and its clock are back.
    assert out.open() == [], (plan, out.counts())
