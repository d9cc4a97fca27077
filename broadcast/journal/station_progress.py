"""How far the central serve has applied each station's stream: a journal event.

`StationProgress` is committed in the same transaction as the board events it covers
(the committer writes one per station and batch), so after a crash the journal says
exactly which entries were applied: an entry re-delivered by Redis (never acknowledged
because the transaction was not durable yet) is applied again only if its number is
beyond the journaled one, and skipped otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["StationMark", "StationProgress"]


@dataclass(frozen=True, slots=True)
class StationMark:
    """Where one board event came from: the station, its outbox's incarnation (a new
    outbox file counts from 1 again) and the event's number in that outbox."""

    station: str
    incarnation: str
    seq: int


@dataclass(frozen=True, slots=True)
class StationProgress:
    """Station `station`'s events up to `seq` of `incarnation` are applied (journaled
    in this transaction or before). `t` is the central serve's event time."""

    t: float
    station: str
    incarnation: str
    seq: int
