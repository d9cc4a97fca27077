"""What the public half of the web reads: `PublicSource`.

The spectators' pages, JSON API, PGN feeds and websocket read the event through this
protocol only. `EventService` (the venue, `serve` and `demo`) satisfies it; so does a
mirror's state read from Redis (`broadcast.publish.mirror_feed.MirrorState`), which is
why `boardwire mirror` serves the same routes from the same code without a journal,
boards or desk. A mirror's state only ever holds what its feed decoded and checked
(`broadcast.publish.stream_checks`: every value of its declared type, games of the
event's sections): an entry that is not the venue's never becomes what a page reads.
"""

from __future__ import annotations

from typing import Protocol

from broadcast.config.model import EventConfig
from broadcast.service.event_state import PublicState
from clocks.timesource import EpochTimeSource

__all__ = ["PublicSource"]


class PublicSource(Protocol):
    """The delayed public view of one event, and the few facts the pages show with it."""

    @property
    def config(self) -> EventConfig: ...

    @property
    def delay(self) -> float: ...

    @property
    def time_source(self) -> EpochTimeSource: ...

    def public_state(self) -> PublicState: ...

    def live_rounds(self) -> dict[str, int | None]: ...

    def unpaired_rounds(self) -> dict[str, int]: ...
