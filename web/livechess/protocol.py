"""The WebSocket protocol's frames, read and written. Pure and total: whatever a client
sends (any text, any bytes, any JSON) is read into a `Request` or a `Refusal` that says
what is wrong, never an exception.

A request is `{"id": N, "call": NAME, "param": ...}`; a reply is `{"response": "call" |
"feed" | "error", "id": N, "param": ..., "time": ms}`, an error's param `{"message": ...}`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

__all__ = [
    "CALLS",
    "MAX_FRAME",
    "Refusal",
    "Request",
    "call_reply",
    "error_reply",
    "feed_reply",
    "read_request",
]

CALLS = ("eboards", "sources", "subscribe", "unsubscribe", "call")
MAX_FRAME = 64 * 1024  # a request is a few hundred bytes; a FEN is under 100


@dataclass(frozen=True, slots=True)
class Request:
    id: int
    call: str
    param: Any


@dataclass(frozen=True, slots=True)
class Refusal:
    """A frame that is no request: `id` when one could be read (the reply carries it)."""

    id: int | None
    message: str


def _id_of(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return value if -(2**53) < value < 2**53 else None


def read_request(frame: str | bytes) -> Request | Refusal:
    """One frame as a request, or why not."""
    if isinstance(frame, bytes):
        try:
            frame = frame.decode("utf-8")
        except UnicodeDecodeError:
            return Refusal(None, "a request is JSON text in UTF-8")
    if len(frame) > MAX_FRAME:
        return Refusal(None, f"a request is at most {MAX_FRAME} characters")
    try:
        data = json.loads(frame)
    except (ValueError, RecursionError):
        return Refusal(None, 'not JSON: a request is {"id": N, "call": NAME, "param": ...}')
    if not isinstance(data, dict):
        return Refusal(None, 'a request is a JSON object: {"id": N, "call": NAME, "param": ...}')
    rid = _id_of(data.get("id"))
    if rid is None:
        return Refusal(None, "the request has no id (a whole number)")
    call = data.get("call")
    if not isinstance(call, str) or call not in CALLS:
        known = ", ".join(CALLS)
        return Refusal(rid, f"unknown call {str(call)[:40]!r}: the calls are {known}")
    return Request(rid, call, data.get("param"))


def _frame(response: str, rid: int | None, param: Any, time_ms: int) -> str:
    return json.dumps(
        {"response": response, "id": rid, "param": param, "time": time_ms},
        separators=(",", ":"),
    )


def call_reply(rid: int, param: Any, time_ms: int) -> str:
    return _frame("call", rid, param, time_ms)


def feed_reply(feed_id: int, param: Any, time_ms: int) -> str:
    return _frame("feed", feed_id, param, time_ms)


def error_reply(rid: int | None, message: str, time_ms: int) -> str:
    return _frame("error", rid, {"message": message}, time_ms)
