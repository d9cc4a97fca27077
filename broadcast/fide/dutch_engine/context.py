"""What every part of the engine asks about the round being paired: players by number, their
preferences, rank, topscorer status and the absolute criteria (C.1-C.3)."""

from __future__ import annotations

from collections.abc import Sequence

from broadcast.fide.dutch_engine.model import SwissPlayer
from broadcast.fide.dutch_engine.preferences import ABSOLUTE, Preference, preference

# The pseudo-player that stands for the pairing-allocated bye: being "paired" with it is
# receiving the bye. Pairing numbers are positive, so 0 cannot clash with a player.
BYE = 0


class RoundContext:
    """The field of one round, with the questions the criteria ask about a player or a pair."""

    def __init__(
        self,
        players: Sequence[SwissPlayer],
        round_number: int,
        total_rounds: int,
        initial_colour: str,
    ) -> None:
        self.round_number = round_number
        self.total_rounds = total_rounds
        self.initial_colour = initial_colour
        self.players = {p.number: p for p in players}
        self.preferences: dict[int, Preference] = {p.number: preference(p.colours) for p in players}
        # E.5 uses the parity of a player's place among the players paired this round, not the
        # raw pairing number: with player 1 absent in round 1, player 2 gets the initial colour.
        self.position = {n: i + 1 for i, n in enumerate(sorted(self.players))}
        last = round_number == total_rounds
        # A.7: topscorers (more than half the maximum score) exist only in the last round.
        self.topscorer = {p.number: last and p.score > (round_number - 1) / 2 for p in players}
        # The highest score the pairing-allocated bye may go to (set by the driver once it knows
        # the lowest score at which the bye can be given at all); None: no limit.
        self.bye_score_cap: float | None = None

    def score(self, n: int) -> float:
        return self.players[n].score

    def rank_key(self, n: int) -> tuple[float, int]:
        """A.2: higher score first, then lower pairing number."""
        return (-self.players[n].score, n)

    def compatible(self, a: int, b: int) -> bool:
        """C.1-C.3: not met before, the bye only to an eligible player, and two
        non-topscorers with the same absolute colour preference do not meet."""
        if a == BYE:
            a, b = b, a
        if b == BYE:
            p = self.players[a]
            cap = self.bye_score_cap
            return not p.bye_ineligible and (cap is None or p.score <= cap)
        pa, pb = self.players[a], self.players[b]
        if b in pa.opponents or a in pb.opponents:
            return False
        qa, qb = self.preferences[a], self.preferences[b]
        return not (
            qa.strength == ABSOLUTE
            and qb.strength == ABSOLUTE
            and qa.colour == qb.colour
            and not (self.topscorer[a] or self.topscorer[b])
        )

    def last_float(self, n: int, k: int) -> str | None:
        """The float of `n` k rounds ago (1: the last round)."""
        f = self.players[n].floats
        return f[-k] if len(f) >= k else None

    def unplayed_ago(self, n: int, k: int) -> bool:
        """Whether `n` had no game over the board k rounds ago."""
        u = self.players[n].unplayed
        return len(u) >= k and u[-k]


__all__ = [
    "BYE",
    "RoundContext",
]
