"""Test helper: the league of tests/support/team_event.py played to its end, White winning
every game, for the board prizes' tests (the pages and `boardwire standings`).

The Berger rounds and the lineups (each team's first four, in roster order) make every
team's board-b player play board b in all three rounds:

    round 1: 1-4 (boards 1-4), 2-3 (5-8)   round 2: 4-3, 1-2   round 3: 2-4, 3-1

The team named first has White on the odd boards of its match.

    service, clock = team_service(tmp_path, min_games=3)
    play_league(service, clock, {(3, 5): "+/-"})   # round 3 board 5: White wins by forfeit
"""

from __future__ import annotations

from collections.abc import Mapping

from broadcast.games.game_events import GameResultText, ResultConfirmed, ResultReason
from broadcast.service.event_service import EventService
from clocks.timesource import ManualTime
from tests.support.team_event import game_id, pair_round

__all__ = ["ROUNDS", "play_league"]

ROUNDS = 3

REASONS: dict[GameResultText, ResultReason] = {
    "1-0": "resignation",
    "0-1": "resignation",
    "1/2-1/2": "agreement",
    "+/-": "forfeit",
    "-/+": "forfeit",
    "-/-": "forfeit",
}


def play_league(
    service: EventService,
    clock: ManualTime,
    results: Mapping[tuple[int, int], GameResultText] | None = None,
) -> None:
    """Play the rounds after round 1 (paired by `team_service`) and give every game its
    result: White wins over the board, except the (round, section board) games `results`
    names ("+/-": White wins by forfeit, not played: no rating performance)."""
    given = results or {}
    for number in range(1, ROUNDS + 1):
        if number > 1:
            pair_round(service, number)
        for board in range(1, 9):
            result = given.get((number, board), "1-0")
            game = game_id(board, number)
            service.commit([ResultConfirmed(game, result, REASONS[result], clock.now())])
