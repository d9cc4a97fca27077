"""Events to JSON and back, for the journal.

Every event class the journal may hold is registered by name. Nested dataclasses carry
their class name, datetimes are ISO strings, tuples come back as tuples, so a decoded
event equals the original.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
from collections.abc import Callable
from typing import Any

from clocks.errors import BoardwireError

# A hook for values of its own (the snapshots' game pool): returns the plain form, or
# NOT_MINE to leave the value to the codec.
PlainHook = Callable[[Any], Any]
ValueHook = Callable[[dict[str, Any]], Any]
NOT_MINE: Any = object()

_REGISTRY: dict[str, type[Any]] = {}


class CodecError(BoardwireError, ValueError):
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


_FIELDS: dict[type, tuple[str, ...]] = {}  # a dataclass's field names (fields() is slow)


def to_plain(value: Any, hook: PlainHook | None = None) -> Any:
    """`value` as JSON-able data (dataclasses by registered name); `hook` sees every value
    first and may give its own form (a dict with a key of its own)."""
    if hook is not None:
        mine = hook(value)
        if mine is not NOT_MINE:
            return mine
    kind = type(value)
    if kind is str or kind is int or kind is float or kind is bool or value is None:
        return value
    names = _FIELDS.get(kind)
    if names is None and dataclasses.is_dataclass(value) and not isinstance(value, type):
        if kind.__name__ not in _REGISTRY:
            register(kind)  # nested values (Pairing, PlayerEntry, ...) register on first use
        names = _FIELDS[kind] = tuple(f.name for f in dataclasses.fields(value))
    if names is not None:
        body: dict[str, Any] = {"__type__": kind.__name__}
        for name in names:
            body[name] = to_plain(getattr(value, name), hook)
        return body
    if isinstance(value, dt.datetime):
        return {"__dt__": value.isoformat()}
    if isinstance(value, dt.date):
        return {"__date__": value.isoformat()}
    if isinstance(value, tuple | list):
        return [to_plain(v, hook) for v in value]
    if isinstance(value, frozenset | set):
        return {"__set__": sorted(to_plain(v, hook) for v in value)}
    if isinstance(value, dict):
        return {"__map__": [[to_plain(k, hook), to_plain(v, hook)] for k, v in value.items()]}
    if isinstance(value, str | int | float | bool):
        return value
    raise CodecError(f"cannot store a {type(value).__name__} in the journal: {value!r}")


def from_plain(data: Any, hook: ValueHook | None = None) -> Any:
    """The value `to_plain` made `data` from (lists come back as tuples); `hook` sees every
    dict first and may decode its own forms (NOT_MINE otherwise)."""
    if isinstance(data, list):
        return tuple(from_plain(v, hook) for v in data)
    if isinstance(data, dict):
        if hook is not None:
            mine = hook(data)
            if mine is not NOT_MINE:
                return mine
        if "__type__" in data:
            cls = registered(data["__type__"])
            fields = {k: from_plain(v, hook) for k, v in data.items() if k != "__type__"}
            return cls(**fields)
        if "__dt__" in data:
            return dt.datetime.fromisoformat(data["__dt__"])
        if "__date__" in data:
            return dt.date.fromisoformat(data["__date__"])
        if "__set__" in data:
            return frozenset(from_plain(v, hook) for v in data["__set__"])
        if "__map__" in data:
            return {from_plain(k, hook): from_plain(v, hook) for k, v in data["__map__"]}
        raise CodecError(f"unexpected object in the journal: {sorted(data)}")
    return data


def encode(event: Any) -> tuple[str, str]:
    """(kind, JSON text) for an event."""
    plain = to_plain(event)
    if not isinstance(plain, dict):
        raise CodecError(f"not an event: {event!r}")
    kind = plain.pop("__type__")
    return kind, json.dumps(plain, separators=(",", ":"), allow_nan=False)


def _tuples(value: Any) -> Any:
    if type(value) is list:
        return tuple(_tuples(v) for v in value)
    return value


def _object(data: dict[str, Any]) -> Any:
    """json's object hook: the parser calls it for every object, innermost first."""
    name = data.get("__type__")
    if name is not None:
        cls = registered(name)
        return cls(**{k: _tuples(v) for k, v in data.items() if k != "__type__"})
    if "__dt__" in data:
        return dt.datetime.fromisoformat(data["__dt__"])
    if "__date__" in data:
        return dt.date.fromisoformat(data["__date__"])
    if "__set__" in data:
        return frozenset(_tuples(v) for v in data["__set__"])
    if "__map__" in data:
        return {_tuples(k): _tuples(v) for k, v in data["__map__"]}
    return data  # the event's own fields (the kind is stored beside them)


_DECODER = json.JSONDecoder(object_hook=_object)


def decode(kind: str, text: str) -> Any:
    """The event `encode` made (kind, text) from. CodecError, ValueError or TypeError
    when it cannot be (an unknown kind, damaged text, fields the class does not have)."""
    cls = registered(kind)
    body = _DECODER.decode(text)
    if type(body) is not dict:
        raise CodecError(f"the body of a {kind} is not an object")
    return cls(**{k: _tuples(v) for k, v in body.items()})


__all__ = [
    "NOT_MINE",
    "CodecError",
    "PlainHook",
    "ValueHook",
    "decode",
    "encode",
    "from_plain",
    "register",
    "registered",
    "to_plain",
]
