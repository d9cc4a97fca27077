"""Real games replayed through the noise model ("realistic" habits) come back exactly."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from boardsim.humans import Habits
from tests.support.reconstruction import check_clocked_game, read_games, replay

GAMES = Path("/work/shared/testdata/games")
# Think times are capped so a 90-minute game replays in milliseconds; the [%clk] values
# are shown at each press as the PGN gives them.
HABITS = dataclasses.replace(Habits.realistic(), max_think=8.0)

WORLD_CUP = read_games(GAMES / "worldcup2025-rapid-blitz-clk.pgn")


def test_world_cup_corpus_is_complete() -> None:
    assert len(WORLD_CUP) == 143


@pytest.mark.parametrize("index", range(len(WORLD_CUP)))
def test_world_cup_game_reconstructs_exactly(index: int) -> None:
    check_clocked_game(WORLD_CUP[index], HABITS, seed=index)


KASPAROV_SAMPLE = read_games(GAMES / "kasparov.pgn", 100)


@pytest.mark.parametrize("index", range(0, 100, 5))
def test_kasparov_sample_reconstructs_exactly(index: int) -> None:
    # Five games per case keeps the report short; 100 games in all.
    for game in KASPAROV_SAMPLE[index : index + 5]:
        moves = list(game.mainline_moves())
        _perf, _events, line = replay(
            moves, habits=HABITS, seed=1000 + index, result=game.headers.get("Result")
        )
        assert line.ucis == [m.uci() for m in moves], game.headers.get("White")
