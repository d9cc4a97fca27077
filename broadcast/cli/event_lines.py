"""The `--events` lines of `watch` and `replay`: `{"type": "move-played", "t": ..., ...}`.

A format for people and scripts, one way only: the type is the event class name in kebab
case, positions are FEN placements, clock readings plain objects. The journal has its
own exact, two-way encoding (`broadcast.journal.codec`); the web its own views
(`web.json_views`).
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from boards.position import BoardPosition

_CAMEL = re.compile(r"(?<!^)(?=[A-Z])")


def event_type(event: object) -> str:
    return _CAMEL.sub("-", type(event).__name__).lower()


def _value(value: Any) -> Any:
    if isinstance(value, BoardPosition):
        return value.board_fen()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out = {f.name: _value(getattr(value, f.name)) for f in dataclasses.fields(value)}
        if type(value).__name__ in ("NoClock",):
            out["kind"] = "no-clock"
        return out
    if isinstance(value, tuple | list):
        return [_value(v) for v in value]
    if isinstance(value, float):
        return round(value, 6)
    return value


def to_json(event: object, **extra: Any) -> dict[str, Any]:
    """A JSON-ready dict with at least `type` and `t` (when the event has a time)."""
    if not dataclasses.is_dataclass(event) or isinstance(event, type):
        raise TypeError(f"not an event: {event!r}")
    body = _value(event)
    assert isinstance(body, dict)
    return {"type": event_type(event), **body, **extra}


__all__ = ["event_type", "to_json"]
