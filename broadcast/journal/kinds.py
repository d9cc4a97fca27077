"""Every event class the journal may hold: registered with the codec in one place, and
named together as one type, `JournalEvent`."""

from __future__ import annotations

import dataclasses
from types import ModuleType

from boards.driver_events import DriverEvent
from broadcast.arbiter.alerts import ArbiterEvent
from broadcast.arbiter.decisions import ActionTaken, ActionUndone
from broadcast.games.game_events import GameEvent
from broadcast.journal.codec import register
from broadcast.journal.station_progress import StationProgress
from broadcast.tournament.live_round import RoundStartMoved
from broadcast.tournament.tournament_events import TournamentEvent
from clocks.move_times import FlagFell

JournalEvent = (
    DriverEvent
    | GameEvent
    | TournamentEvent
    | RoundStartMoved
    | ArbiterEvent
    | FlagFell
    | ActionTaken
    | ActionUndone
    | StationProgress
)
"""What the journal holds: what the boards reported, the games and the tournament made of
it, the live-round moves, the arbiter's alerts and actions (each recorded, and undone),
the clocks' flag falls, and how far each capture station's stream is applied."""


def _event_classes(module: ModuleType) -> list[type]:
    return [
        v
        for v in vars(module).values()
        if isinstance(v, type) and dataclasses.is_dataclass(v) and v.__module__ == module.__name__
    ]


def register_all() -> None:
    """Register the event classes of every module that defines journaled events, and of
    the modules whose values events carry (positions, clock readings, players, pairings):
    a fresh process must be able to read back what another one wrote."""
    import boards.driver_events
    import boards.position
    import broadcast.config.model
    import broadcast.fide.pairing
    import broadcast.fide.teams.match
    import broadcast.games.changes
    import broadcast.games.game_events
    import broadcast.games.game_state
    import broadcast.games.ids
    import broadcast.journal.station_progress
    import broadcast.phrases
    import broadcast.tournament.changes
    import broadcast.tournament.live_round
    import broadcast.tournament.team_events
    import broadcast.tournament.team_record
    import broadcast.tournament.tournament_events
    import broadcast.tournament.tournament_state
    import clocks.move_times
    import clocks.reading

    modules: list[ModuleType] = [
        boards.driver_events,
        boards.position,
        broadcast.config.model,
        broadcast.games.game_events,
        # The values an action's record and its undoing carry (parts of the state).
        broadcast.games.changes,
        broadcast.games.ids,
        broadcast.games.game_state,
        broadcast.phrases,  # the alerts' texts for the desk's languages
        broadcast.journal.station_progress,
        broadcast.tournament.changes,
        broadcast.tournament.tournament_state,
        broadcast.tournament.tournament_events,
        broadcast.fide.pairing,
        broadcast.fide.teams.match,
        broadcast.tournament.team_events,
        broadcast.tournament.team_record,  # a section's team rounds, in snapshots
        broadcast.tournament.live_round,
        clocks.move_times,
        clocks.reading,
    ]
    import broadcast.arbiter.alerts
    import broadcast.arbiter.decisions
    import broadcast.arbiter.readers

    modules += [broadcast.arbiter.alerts, broadcast.arbiter.decisions, broadcast.arbiter.readers]
    for module in modules:
        register(*_event_classes(module))


__all__ = ["ArbiterEvent", "JournalEvent", "register_all"]
