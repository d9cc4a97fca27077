"""Every event class the journal may hold, registered with the codec in one place."""

from __future__ import annotations

import dataclasses
from types import ModuleType

from broadcast.codec import register


def _event_classes(module: ModuleType) -> list[type]:
    return [
        v
        for v in vars(module).values()
        if isinstance(v, type) and dataclasses.is_dataclass(v) and v.__module__ == module.__name__
    ]


def register_all() -> None:
    """Register the event classes of every module that defines journaled events."""
    import boards.events
    import broadcast.games.events
    import broadcast.live_round
    import broadcast.tournament.events

    modules: list[ModuleType] = [
        boards.events,
        broadcast.games.events,
        broadcast.tournament.events,
        broadcast.live_round,
    ]
    try:
        import broadcast.arbiter.alerts

        modules.append(broadcast.arbiter.alerts)
    except ImportError:  # the arbiter rules are optional in a partial install
        pass
    for module in modules:
        register(*_event_classes(module))
