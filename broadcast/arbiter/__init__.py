"""The arbiter's eyes: pure rules over events and an injected time.

`ArbiterRules` (engine.py) is the engine the service drives: `observe(event, state)` for
every journalled event and `tick(now, state)` as time passes, `state` being the service's
fold (`EventView`); both return new events (alerts, result proposals, confirmations,
no-show counts, bye decisions) for the service to journal. The rules are one module per
family (`presence_rules`, `board_rules`, `result_rules`, `tournament_rules`) over the
pure helpers (presence, flag, results, trouble, withdrawal); `watch.py` is their memory
per game and per board, `StandaloneRules` runs them without a service.
"""

from broadcast.arbiter.alerts import (
    Alert,
    AlertAcknowledged,
    AlertKind,
    AlertResolved,
    PlayerMarkedPresent,
    Severity,
)
from broadcast.arbiter.context import EventView, RulesConfig
from broadcast.arbiter.dispatch import ArbiterRules

__all__ = [
    "Alert",
    "AlertAcknowledged",
    "AlertKind",
    "AlertResolved",
    "ArbiterRules",
    "EventView",
    "PlayerMarkedPresent",
    "RulesConfig",
    "Severity",
]
