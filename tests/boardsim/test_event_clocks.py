"""The rehearsal's emulated clocks (`serve --sim --games`) follow the event's time control,
not the clocks of the PGN the players replay: a 15-minute rapid game replayed under
90'+30" must not flag, nor make a first move so late it is a default-time forfeit."""

from __future__ import annotations

import itertools

import chess
import pytest

from boardsim.script import ClockSetup, LeverPress
from boardsim.sim import load_games
from broadcast.cli.simboards import board_time_controls, event_clock_actions
from broadcast.config import load_event
from tests.support.paths import ROOT

SESTAO = load_event(ROOT / "examples" / "sestao-2025-swiss.toml")
GAMES = load_games(ROOT / "examples" / "games" / "worldcup2025-sample.pgn")
CONTROL = SESTAO.sections[0].time_control


def test_every_board_gets_its_sections_time_control() -> None:
    controls = board_time_controls(SESTAO)
    assert set(controls) == {b.number for b in SESTAO.boards} and len(controls) >= 12
    assert set(controls.values()) == {CONTROL}


@pytest.mark.parametrize("number", range(len(GAMES)))
def test_replayed_games_neither_flag_nor_default(number: int) -> None:
    actions = event_clock_actions(GAMES[number], CONTROL)
    setup = [a for a in actions if isinstance(a, ClockSetup)]
    assert [(s.left_seconds, s.increment) for s in setup] == [(5400.0, 30.0)]
    presses = sorted(a.t for a in actions if isinstance(a, LeverPress))
    # presses[0] starts White's clock; then one press per move, White first.
    remaining = {chess.WHITE: 5400.0, chess.BLACK: 5400.0}
    mover = chess.WHITE
    for ply, (before, press) in enumerate(itertools.pairwise(presses)):
        remaining[mover] -= press - before
        assert remaining[mover] > 0, f"game {number}: a flag falls at ply {ply + 1}"
        remaining[mover] += 30.0
        if ply < 2:  # each player's first move comes well within the default time (30 min)
            assert press - presses[0] < SESTAO.sections[0].default_time_minutes * 60
        mover = not mover


@pytest.mark.parametrize("number", range(len(GAMES)))
def test_without_a_time_control_the_pgns_own_clocks_and_no_hour_long_first_move(
    number: int,
) -> None:
    """A capture station's rehearsal (`station --sim`) has no time control to set: the
    clocks start from the PGN's own, even for a game whose first move has no [%clk] (the
    sample's fifth: Black thought 4,480 s before it starts from the second clock)."""
    actions = event_clock_actions(GAMES[number], None)
    (setup,) = [a for a in actions if isinstance(a, ClockSetup)]
    assert setup.left_seconds < 1000  # the sample's rapid games: 15 minutes
    presses = sorted(a.t for a in actions if isinstance(a, LeverPress))
    assert presses[2] - presses[0] < 60, f"game {number}: the first moves take too long"
