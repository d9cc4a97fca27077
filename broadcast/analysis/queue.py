"""`PositionQueue`: the positions waiting for the engine, bounded, one per game.

A game that moves again before its position was evaluated replaces its waiting position
(keeping its place in line, so a busy game cannot push the quiet ones back), and the
engine never works on a position the game has already left. When the queue is full a
new game's position is refused; the caller remembers the game and offers its newest
position once there is room. No I/O, no asyncio.
"""

from __future__ import annotations

from collections import OrderedDict

__all__ = ["QUEUE_LIMIT", "PositionQueue"]

QUEUE_LIMIT = 16  # positions waiting; a 64-board round moving at once waits in turn


class PositionQueue:
    """Game id -> the FEN waiting for it, oldest waiting game first."""

    def __init__(self, limit: int = QUEUE_LIMIT) -> None:
        if limit < 1:
            raise ValueError("the queue holds at least one position")
        self.limit = limit
        self._waiting: OrderedDict[str, str] = OrderedDict()
        self.longest = 0  # the most positions ever waiting at once (tests, the bench)
        self.replaced = 0  # waiting positions a newer one of the same game replaced

    def __len__(self) -> int:
        return len(self._waiting)

    def __contains__(self, game: object) -> bool:
        return game in self._waiting

    @property
    def full(self) -> bool:
        return len(self._waiting) >= self.limit

    def offer(self, game: str, fen: str) -> bool:
        """Queue `fen` for `game`; False when the queue is full (nothing changes)."""
        if game in self._waiting:
            if self._waiting[game] != fen:
                self.replaced += 1
            self._waiting[game] = fen
            return True
        if self.full:
            return False
        self._waiting[game] = fen
        self.longest = max(self.longest, len(self._waiting))
        return True

    def take(self) -> tuple[str, str] | None:
        """The oldest waiting (game, FEN), or None."""
        if not self._waiting:
            return None
        return self._waiting.popitem(last=False)

    def discard(self, game: str) -> None:
        self._waiting.pop(game, None)
