"""A capture station's name: how the config, the station and the central serve spell it
(it is part of Redis keys and of a board's qualified port)."""

from __future__ import annotations

import re

__all__ = ["NAME_PATTERN", "NAME_RULE", "valid_name"]

NAME_PATTERN = re.compile(r"[a-z0-9][a-z0-9_-]{0,31}")
NAME_RULE = "lower-case letters, digits, '-' and '_', at most 32 (e.g. \"east-1\")"


def valid_name(name: str) -> bool:
    """`name` can name a station."""
    return NAME_PATTERN.fullmatch(name) is not None
