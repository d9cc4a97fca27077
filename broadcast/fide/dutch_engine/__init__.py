"""FIDE Dutch Swiss pairings (C.04.3, 2025 edition), our own engine.

Pure: the caller passes the players to be paired with their histories (see `SwissPlayer`) and
gets the games in board order and the pairing-allocated bye. Score brackets are paired from the
top down, each by one maximum-weight matching whose edge weights encode the criteria in order.

Modules: `model` (values), `preferences` (A.6), `context` (the round and the absolute criteria
C.1-C.3), `colours` (E.1-E.5), `weights` (the criteria as edge weights), `blossom` (our
maximum-weight matching with its dual certificate), `matching`, `bracket` (one bracket),
`board_order`, `driver` (the round, the bye's score).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from broadcast.fide.dutch_engine.driver import pair_field
from broadcast.fide.dutch_engine.model import DutchError, DutchRound, SwissPlayer

__all__ = ["DutchError", "DutchRound", "SwissPlayer", "pair"]


def pair(
    players: Sequence[SwissPlayer],
    round_number: int,
    total_rounds: int,
    initial_colour: Literal["w", "b"] = "w",
) -> DutchRound:
    """Pair one round by the Dutch system. Raises DutchError when no pairing meets the
    absolute criteria (the message says why)."""
    return pair_field(players, round_number, total_rounds, initial_colour)
