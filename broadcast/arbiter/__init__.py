"""The arbiter's eyes: pure rules over events and an injected time.

`ArbiterRules` (engine.py) is the engine the service drives: `observe(event)` for every
journalled event and `tick(now)` as time passes; both return new events (alerts, result
proposals, confirmations, no-show counts, bye decisions) for the service to journal.
The rule modules (presence, flag, results, trouble) are plain functions it calls.
"""

from broadcast.arbiter.alerts import (
    Alert,
    AlertAcknowledged,
    AlertKind,
    AlertResolved,
    PlayerMarkedPresent,
    Severity,
)
from broadcast.arbiter.engine import ArbiterRules, RulesConfig

__all__ = [
    "Alert",
    "AlertAcknowledged",
    "AlertKind",
    "AlertResolved",
    "ArbiterRules",
    "PlayerMarkedPresent",
    "RulesConfig",
    "Severity",
]
