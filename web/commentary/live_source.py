"""`LiveSource`: the venue's live state shaped as the public pages read it (`PublicSource`).

The public pages, their JSON and the hub read a `PublicSource`; the venue's public view
is the delayed one. The commentators' channel reads this one instead: the same games,
clocks and rounds, without the broadcast delay (`delay` is 0). Only the commentary
routes (`web.commentary.page`) ever hold it, behind the commentator's or the arbiter's
login; nothing public and no stream to a mirror is built from it.
"""

from __future__ import annotations

from typing import Protocol

from broadcast.config.model import EventConfig
from broadcast.games.book import GameBook
from broadcast.service.event_state import PublicState
from broadcast.service.hall import utc
from broadcast.tournament.live_round import StartOverrides, unpaired_rounds
from broadcast.tournament.tournament_state import TournamentState
from clocks.timesource import EpochTimeSource

__all__ = ["LiveSource", "Venue"]


class Venue(Protocol):
    """What the live source reads of the venue's service (`EventService`)."""

    @property
    def config(self) -> EventConfig: ...
    @property
    def time_source(self) -> EpochTimeSource: ...
    @property
    def tournament(self) -> TournamentState: ...
    @property
    def book(self) -> GameBook: ...
    @property
    def start_overrides(self) -> StartOverrides: ...
    @property
    def last_seq(self) -> int: ...
    def live_rounds(self) -> dict[str, int | None]: ...


class LiveSource:
    """The live state as a `PublicSource`: what the commentators see, with no delay."""

    def __init__(self, venue: Venue) -> None:
        self._venue = venue
        self._last: PublicState | None = None

    @property
    def config(self) -> EventConfig:
        return self._venue.config

    @property
    def delay(self) -> float:
        return 0.0  # the point of the channel: nothing held back

    @property
    def time_source(self) -> EpochTimeSource:
        return self._venue.time_source

    def public_state(self) -> PublicState:
        """The live tournament and games (one value per state: the answers and the hub
        compare states by identity, so an unchanged state is the same object)."""
        venue = self._venue
        last = self._last
        if last is None or last.tournament is not venue.tournament or last.book is not venue.book:
            last = self._last = PublicState(venue.tournament, venue.book, venue.last_seq)
        return last

    def live_rounds(self) -> dict[str, int | None]:
        """Each section's round on the boards now, as the hall and the desk see it."""
        return self._venue.live_rounds()

    def unpaired_rounds(self) -> dict[str, int]:
        venue = self._venue
        return unpaired_rounds(
            venue.config, venue.tournament, utc(venue.time_source.now()), venue.start_overrides
        )
