"""What the public half of the web reads: `PublicSource`.

The spectators' pages, JSON API, PGN feeds and websocket read the event through this
protocol only. `EventService` (the venue, `serve` and `demo`) satisfies it; so does a
mirror's state read from Redis (`broadcast.publish.mirror_state.MirrorState`), which is
why `boardwire mirror` serves the same routes from the same code without a journal,
boards or desk.
"""

from __future__ import annotations

from typing import Protocol

from broadcast.config.model import EventConfig
from broadcast.service.state import PublicState
from clocks.timesource import EpochTimeSource

__all__ = ["PublicSource"]


class PublicSource(Protocol):
    """The delayed public view of one event, and the few facts the pages show with it."""

    @property
    def config(self) -> EventConfig: ...

    @property
    def delay(self) -> float: ...

    @property
    def time(self) -> EpochTimeSource: ...

    def public_state(self) -> PublicState: ...

    def live_rounds(self) -> dict[str, int | None]: ...

    def unpaired_rounds(self) -> dict[str, int]: ...
