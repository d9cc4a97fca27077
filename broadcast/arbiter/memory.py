"""What the arbiter rules remember beyond the folded state: per game (`Watch`: who is
at the board, what was proposed, which flags fell, the out-of-sync episodes) and per
physical board (`BoardWatch`: last heard, its clock, lost and fault episodes).

Both are mutable while the engine runs and have an immutable twin (`WatchMemory`,
`BoardWatchMemory`) for `ArbiterRules.memory()`/`recall()` and the snapshots.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import cast

from broadcast.arbiter.presence import Presence
from broadcast.games.game_events import Colour
from broadcast.games.game_state import GameState

__all__ = ["BoardWatch", "BoardWatchMemory", "Watch", "WatchMemory"]


@dataclass(frozen=True, slots=True)
class WatchMemory:
    """A `Watch` as an immutable value."""

    presence: Presence
    proposed: frozenset[tuple[str, str, int]]
    flagged: frozenset[str]
    out_episode: int
    press_out: tuple[float, str, int] | None


@dataclass(frozen=True, slots=True)
class BoardWatchMemory:
    """A `BoardWatch` as an immutable value."""

    game: str | None
    last_seen: float | None
    has_clock: bool
    no_clock_episode: int
    clock_missing: bool
    lost_episode: int
    silent: bool


@dataclass
class Watch:
    """What the engine tracks for one game beyond its `GameState`."""

    presence: Presence = field(default_factory=Presence)
    proposed: set[tuple[str, str, int]] = field(default_factory=set)  # (reason, result, ply)
    flagged: set[Colour] = field(default_factory=set)
    out_episode: int = 0
    # A clock press while the board was out of sync: (t, who pressed, out episode). It is an
    # illegal move that stood only if the board is still out of step a while later: the
    # reconstruction confirms a legal move only once the position has stayed still, which
    # can be after the press (a piece held long, then put down and the clock pressed).
    press_out: tuple[float, Colour, int] | None = None

    @classmethod
    def of(cls, game: GameState) -> Watch:
        """A new watch of `game`: whoever has moved in it is at the board (a game the
        rules see again, its moves made meanwhile, is no game of absent players)."""
        white = game.moves[0].t if game.moves else None
        black = game.moves[1].t if len(game.moves) > 1 else None
        return cls(Presence(white, black))

    def memory(self) -> WatchMemory:
        return WatchMemory(
            self.presence,
            frozenset(self.proposed),
            frozenset(self.flagged),
            self.out_episode,
            self.press_out,
        )

    @classmethod
    def recalled(cls, memory: WatchMemory) -> Watch:
        # The memory's colours are plain strings (a snapshot reads them back so).
        return cls(
            memory.presence,
            set(memory.proposed),
            cast(set[Colour], set(memory.flagged)),
            memory.out_episode,
            cast(tuple[float, Colour, int] | None, memory.press_out),
        )


@dataclass
class BoardWatch:
    """One physical board's health, for the game it carries."""

    game: str | None = None
    last_seen: float | None = None
    has_clock: bool = False
    no_clock_episode: int = 0
    clock_missing: bool = False
    lost_episode: int = 0
    silent: bool = False
    # Not in the memory (as before the cut): a fault episode does not outlive a restart.
    fault_alert: str | None = None  # the open driver-fault alert
    fault_episode: int = 0
    back_since: float | None = None  # connected again since, with no new fault
    gap_episode: int = 0

    def memory(self) -> BoardWatchMemory:
        return BoardWatchMemory(
            self.game,
            self.last_seen,
            self.has_clock,
            self.no_clock_episode,
            self.clock_missing,
            self.lost_episode,
            self.silent,
        )

    @classmethod
    def recalled(cls, memory: BoardWatchMemory) -> BoardWatch:
        return cls(
            memory.game,
            memory.last_seen,
            memory.has_clock,
            memory.no_clock_episode,
            memory.clock_missing,
            memory.lost_episode,
            memory.silent,
        )
