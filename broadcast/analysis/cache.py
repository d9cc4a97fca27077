"""`EvalCache`: evaluations by position, bounded, the least recently used going first.

Keyed by `position_key` (placement, side to move, castling, en passant), so a
transposition or a repetition is not evaluated twice. No I/O; the event loop's thread
only (a worker that needs evaluations takes a `snapshot`).
"""

from __future__ import annotations

from collections import OrderedDict

from broadcast.games.evaluation import Evaluation, position_key

__all__ = ["CACHE_LIMIT", "EvalCache"]

CACHE_LIMIT = 50_000  # positions (about 300 bytes each): every move of a long event's rounds


class EvalCache:
    """At most `limit` evaluations; `get` counts as a use, `peek` does not."""

    def __init__(self, limit: int = CACHE_LIMIT) -> None:
        if limit < 1:
            raise ValueError("the cache holds at least one position")
        self.limit = limit
        self._kept: OrderedDict[str, Evaluation] = OrderedDict()
        self.hits = 0

    def __len__(self) -> int:
        return len(self._kept)

    def get(self, fen: str) -> Evaluation | None:
        key = position_key(fen)
        ev = self._kept.get(key)
        if ev is None:
            return None
        self.hits += 1
        self._kept.move_to_end(key)
        return ev

    def peek(self, fen: str) -> Evaluation | None:
        return self._kept.get(position_key(fen))

    def put(self, ev: Evaluation) -> None:
        key = position_key(ev.fen)
        self._kept[key] = ev
        self._kept.move_to_end(key)
        while len(self._kept) > self.limit:
            self._kept.popitem(last=False)

    def snapshot(self) -> dict[str, Evaluation]:
        """A copy by position key, for a reader in another thread (the PGN feeds)."""
        return dict(self._kept)
