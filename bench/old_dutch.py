"""The FIDE Dutch adapter as it was before issue 31, through the `caissify_pairings`
engine: kept for bench/bench_pairings.py only, to measure the engine it replaced in the
same run (caissify-pairings is a dev extra). Not part of the product.

This adapter turns a Crosstable (from our state or from a TRF) into the engine's
input and its output into `Pairing`s. The choices follow bbpPairings, the
FIDE-endorsed engine our tests compare with:

- pairing numbers are the starting numbers (the engine would otherwise re-sort by
  rating; we hand it the starting rank as its sort key instead);
- only games played over the board give colours, opponents not to meet again, and
  up/down floats; a forfeit lets the two meet again;
- an unplayed round that scored more than a loss (bye, forfeit win) counts as a
  downfloat; a pairing bye, full-point bye or forfeit win makes the player
  ineligible for another pairing bye;
- players absent in the round to pair (withdrawn, over the no-show limit, a granted
  bye, or a bye/absence already entered for that round) are left out.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from typing import Any, Literal

from caissify_pairings import generate_pairings

from broadcast.fide.crosstable import Crosstable, ResultCode
from broadcast.fide.dutch import (
    PairingError,
    infer_initial_colour,
    next_round_number,
    pre_entered_absent,  # the same reading in both engines
)
from broadcast.fide.pairing import Pairing

InitialColour = Literal["white", "black"]

# The engine sorts by rating; a rank-derived key keeps starting numbers as pairing numbers.
_RANK_KEY_BASE = 1_000_000


def engine_players(
    crosstable: Crosstable, round_number: int, absent: Iterable[int] = ()
) -> tuple[list[dict[str, Any]], set[tuple[int, int]]]:
    """The engine's player dicts and previous (played) pairings for `round_number`."""
    left_out = set(absent) | pre_entered_absent(crosstable, round_number)
    scoring = crosstable.scoring
    before = round_number - 1
    score_after: dict[int, list[float]] = {}
    for start in crosstable.starts():
        running = [0.0]
        for r in range(1, before + 1):
            result = crosstable.entry(start, r).result
            running.append(running[-1] + (scoring.points(result) if result else 0.0))
        score_after[start] = running

    players: list[dict[str, Any]] = []
    previous: set[tuple[int, int]] = set()
    for rank, start in enumerate(sorted(crosstable.starts()), start=1):
        colours: list[str] = []
        floats: list[str] = []
        byes = 0
        forfeit_wins = 0
        for r in range(1, before + 1):
            entry = crosstable.entry(start, r)
            result = entry.result
            if result is None:
                floats.append("none")
                continue
            if result.is_played and entry.opponent is not None:
                colours.append("white" if entry.colour == "w" else "black")
                previous.add((min(start, entry.opponent), max(start, entry.opponent)))
                mine = score_after[start][r - 1]
                theirs = score_after[entry.opponent][r - 1]
                floats.append("down" if mine > theirs else "up" if mine < theirs else "none")
                continue
            points = scoring.points(result)
            floats.append("down" if points > scoring.loss else "none")
            if result in (ResultCode.PAIRING_BYE, ResultCode.FULL_BYE):
                byes += 1
            elif result == ResultCode.FORFEIT_WIN:
                forfeit_wins += 1
        if start in left_out:
            continue
        players.append(
            {
                "id": start,
                "name": crosstable.player(start).name,
                "score": score_after[start][before],
                "rating": _RANK_KEY_BASE - rank,
                "starting_number": start,
                "title": "",
                "color_hist": colours,
                "float_history": floats,
                "bye_count": byes,
                "forfeit_win_count": forfeit_wins,
            }
        )
    return players, previous


def pair_round(
    crosstable: Crosstable,
    round_number: int,
    *,
    total_rounds: int | None = None,
    absent: Iterable[int] = (),
    initial_colour: InitialColour | None = None,
) -> tuple[Pairing, ...]:
    """Dutch pairings for `round_number` from the rounds before it.

    Games come first in board order, then the pairing-allocated bye (board 0).
    """
    rounds = total_rounds or max(crosstable.rounds, round_number)
    if round_number < 1 or round_number > rounds:
        raise PairingError(f"round {round_number} is outside 1..{rounds}")
    players, previous = engine_players(crosstable, round_number, absent)
    if len(players) < 2:
        raise PairingError(f"round {round_number}: fewer than two players to pair")
    colour = initial_colour or infer_initial_colour(crosstable)
    with warnings.catch_warnings():
        # Float histories are passed; the engine's warning about them cannot apply.
        warnings.simplefilter("ignore")
        try:
            raw = generate_pairings(
                "dutch",
                players,
                previous,
                round_number,
                rounds,
                initial_color=colour,
            )
        except Exception as exc:  # the engine raises plain exceptions on impossible rounds
            raise PairingError(f"round {round_number} cannot be paired: {exc}") from exc
    games: list[Pairing] = []
    bye: list[Pairing] = []
    for item in sorted(raw, key=lambda p: int(p.get("table") or 0)):
        white = int(item["white_id"])
        black = item.get("black_id")
        if black is None or item.get("bye"):
            bye.append(Pairing(0, white, None))
        else:
            games.append(Pairing(len(games) + 1, white, int(black)))
    return (*games, *bye)


__all__ = [
    "InitialColour",
    "PairingError",
    "engine_players",
    "infer_initial_colour",
    "next_round_number",
    "pair_round",
]
