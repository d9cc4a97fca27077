"""The venue's public side: the event as spectators may see it (`web.public_source`'s
`PublicSource`, which a mirror's state satisfies too).

Everything here is read from the delayed public view, never from the live state: the
round each section plays is the one the public tournament pairs (a play-off game paired
while the results that make the tie are still hidden is not "live" for spectators, nor a
Swiss round held back with them), and a round not paired yet is the public's.
"""

from __future__ import annotations

from typing import Protocol

from broadcast.config.model import EventConfig
from broadcast.service.event_state import PublicState
from broadcast.service.hall import utc
from broadcast.tournament.live_round import StartOverrides, current_rounds, unpaired_rounds
from clocks.timesource import EpochTimeSource

__all__ = ["PublicView"]


class _Venue(Protocol):
    """What the view reads of the venue's service (`EventService`)."""

    @property
    def config(self) -> EventConfig: ...
    @property
    def delay(self) -> float: ...
    @property
    def time_source(self) -> EpochTimeSource: ...
    @property
    def start_overrides(self) -> StartOverrides: ...
    def public_state(self) -> PublicState: ...


class PublicView:
    """What the public half of the web, the export folder and the public stream read of
    the venue's service."""

    def __init__(self, service: _Venue) -> None:
        self._service = service

    @property
    def config(self) -> EventConfig:
        return self._service.config

    @property
    def delay(self) -> float:
        return self._service.delay

    @property
    def time_source(self) -> EpochTimeSource:
        return self._service.time_source

    def public_state(self) -> PublicState:
        return self._service.public_state()

    def live_rounds(self) -> dict[str, int | None]:
        """Each section's round on the boards now, as the public tournament pairs it."""
        service = self._service
        return current_rounds(
            service.config,
            service.public_state().tournament,
            utc(service.time_source.now()),
            service.start_overrides,
        )

    def unpaired_rounds(self) -> dict[str, int]:
        """Sections with a round due that the public does not see paired yet."""
        service = self._service
        return unpaired_rounds(
            service.config,
            service.public_state().tournament,
            utc(service.time_source.now()),
            service.start_overrides,
        )
