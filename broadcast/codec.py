"""Events to JSON and back, for the journal.

Every event class the journal may hold is registered by name. Nested dataclasses carry
their class name, datetimes are ISO strings, tuples come back as tuples, so a decoded
event equals the original.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
from typing import Any

_REGISTRY: dict[str, type[Any]] = {}


class CodecError(ValueError):
    """An event that cannot be stored or read back."""


def register(*classes: type[Any]) -> None:
    for cls in classes:
        if not dataclasses.is_dataclass(cls):
            raise CodecError(f"{cls.__name__} is not a dataclass")
        existing = _REGISTRY.get(cls.__name__)
        if existing is not None and existing is not cls:
            raise CodecError(f"two event classes named {cls.__name__}: {existing} and {cls}")
        _REGISTRY[cls.__name__] = cls


def registered(name: str) -> type[Any]:
    try:
        return _REGISTRY[name]
    except KeyError:
        raise CodecError(
            f"unknown event kind {name!r}: was the module that defines it imported?"
        ) from None


def _plain(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        name = type(value).__name__
        if name not in _REGISTRY:
            register(type(value))  # nested values (Pairing, PlayerEntry, ...) register on first use
        body = {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
        return {"__type__": name, **body}
    if isinstance(value, dt.datetime):
        return {"__dt__": value.isoformat()}
    if isinstance(value, dt.date):
        return {"__date__": value.isoformat()}
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    if isinstance(value, frozenset | set):
        return {"__set__": sorted(_plain(v) for v in value)}
    if isinstance(value, dict):
        return {"__map__": [[_plain(k), _plain(v)] for k, v in value.items()]}
    if value is None or isinstance(value, str | int | float | bool):
        return value
    raise CodecError(f"cannot store a {type(value).__name__} in the journal: {value!r}")


def _value(data: Any) -> Any:
    if isinstance(data, list):
        return tuple(_value(v) for v in data)
    if isinstance(data, dict):
        if "__type__" in data:
            cls = registered(data["__type__"])
            fields = {k: _value(v) for k, v in data.items() if k != "__type__"}
            return cls(**fields)
        if "__dt__" in data:
            return dt.datetime.fromisoformat(data["__dt__"])
        if "__date__" in data:
            return dt.date.fromisoformat(data["__date__"])
        if "__set__" in data:
            return frozenset(_value(v) for v in data["__set__"])
        if "__map__" in data:
            return {_value(k): _value(v) for k, v in data["__map__"]}
        raise CodecError(f"unexpected object in the journal: {sorted(data)}")
    return data


def encode(event: Any) -> tuple[str, str]:
    """(kind, JSON text) for an event."""
    plain = _plain(event)
    if not isinstance(plain, dict):
        raise CodecError(f"not an event: {event!r}")
    kind = plain.pop("__type__")
    return kind, json.dumps(plain, separators=(",", ":"), allow_nan=False)


def decode(kind: str, text: str) -> Any:
    cls = registered(kind)
    body = json.loads(text)
    return cls(**{k: _value(v) for k, v in body.items()})
