"""Event config: one TOML file per event, loaded into frozen dataclasses.

`load_event(path)` is the entry point; every mistake is reported with its file,
line and a hint, all at once, in one `ConfigError`. See docs/config.md.
"""

from broadcast.config.errors import ConfigError, ConfigIssue
from broadcast.config.loader import load_event, load_event_text
from broadcast.config.model import (
    BoardConfig,
    ByePolicy,
    EarlyDrawRule,
    EventConfig,
    PairingSource,
    PlayerEntry,
    RoundStart,
    SectionConfig,
)

__all__ = [
    "BoardConfig",
    "ByePolicy",
    "ConfigError",
    "ConfigIssue",
    "EarlyDrawRule",
    "EventConfig",
    "PairingSource",
    "PlayerEntry",
    "RoundStart",
    "SectionConfig",
    "load_event",
    "load_event_text",
]
