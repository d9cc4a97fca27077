"""Capture files: raw serial traffic as JSON Lines, for forensics and offline replay.

Line 1 (optional): {"meta": {"started_at": ISO-8601, ...}}
Then one object per chunk: {"t": seconds since start, "dir": "in" | "out", "hex": "..."}.
A plain file of board-to-host bytes is accepted too (every byte "in" at t = 0).

Reading checks what replay relies on: `t` finite, not negative and never going back,
`started_at` a real ISO-8601 time, no nesting beyond what JSON's parser survives.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any, Literal

from clocks.errors import BoardwireError
from clocks.timesource import MonotonicTimeSource

Direction = Literal["in", "out"]


class CaptureError(BoardwireError, ValueError):
    """A capture file that cannot be read; the message names the line and what is wrong."""


@dataclass(frozen=True, slots=True)
class CaptureChunk:
    t: float
    direction: Direction
    data: bytes


@dataclass(frozen=True, slots=True)
class Capture:
    meta: dict[str, Any]
    chunks: tuple[CaptureChunk, ...]

    @property
    def started_at(self) -> datetime | None:
        return parse_started_at(self.meta.get("started_at"))


def parse_started_at(value: object) -> datetime | None:
    """The meta line's start time; None if absent, ValueError if not ISO-8601."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise ValueError(f"started_at must be an ISO-8601 time string, got {value!r:.40}")
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


@dataclass
class CaptureWriter:
    """Appends chunks with times relative to when it was opened; flushed line by line so a
    crash loses at most the chunk being written."""

    stream: IO[str]
    time_source: MonotonicTimeSource
    meta: dict[str, Any] = field(default_factory=dict)
    _t0: float = 0.0

    def __post_init__(self) -> None:
        self._t0 = self.time_source.now()
        meta = {"started_at": datetime.now(UTC).isoformat(timespec="milliseconds"), **self.meta}
        self.stream.write(json.dumps({"meta": meta}) + "\n")
        self.stream.flush()

    @classmethod
    def open(cls, path: str | Path, time_source: MonotonicTimeSource, **meta: Any) -> CaptureWriter:
        return cls(open(path, "w", encoding="utf-8"), time_source, dict(meta))

    def record(self, direction: Direction, data: bytes) -> None:
        if not data:
            return
        t = round(self.time_source.now() - self._t0, 6)
        self.stream.write(json.dumps({"t": t, "dir": direction, "hex": data.hex()}) + "\n")
        self.stream.flush()

    def close(self) -> None:
        self.stream.close()


def _parse_jsonl(text: str, name: str) -> Capture:
    meta: dict[str, Any] = {}
    chunks: list[CaptureChunk] = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise CaptureError(f"{name}:{number}: not JSON ({exc.msg})") from None
        except RecursionError:
            raise CaptureError(f"{name}:{number}: JSON nested too deeply") from None
        if not isinstance(obj, dict):
            raise CaptureError(f"{name}:{number}: expected an object, got {type(obj).__name__}")
        if "meta" in obj:
            if not isinstance(obj["meta"], dict):
                raise CaptureError(f"{name}:{number}: 'meta' must be an object")
            try:
                parse_started_at(obj["meta"].get("started_at"))
            except ValueError as exc:
                raise CaptureError(f"{name}:{number}: bad started_at: {exc}") from None
            meta.update(obj["meta"])
            continue
        try:
            t = obj["t"]
            if isinstance(t, bool) or not isinstance(t, int | float):
                raise TypeError
            t = float(t)
            direction = obj["dir"]
            data = bytes.fromhex(obj["hex"])
        except (KeyError, TypeError, ValueError, OverflowError):
            raise CaptureError(
                f'{name}:{number}: expected {{"t": seconds, "dir": "in"|"out", "hex": "..."}}, '
                f"got {line[:80]!r}"
            ) from None
        if not math.isfinite(t) or t < 0:
            raise CaptureError(f"{name}:{number}: t must be seconds since the start, got {t}")
        if chunks and t < chunks[-1].t:
            raise CaptureError(
                f"{name}:{number}: t goes back in time ({chunks[-1].t} then {t}); "
                "a capture's lines must be in time order"
            )
        if direction == "in" or direction == "out":
            chunks.append(CaptureChunk(t, direction, data))
        else:
            raise CaptureError(
                f'{name}:{number}: "dir" must be "in" or "out", got {direction!r:.40}'
            )
    return Capture(meta, tuple(chunks))


def read_capture(path: str | Path) -> Capture:
    """Read a JSON Lines capture, or a plain file of board-to-host message bytes."""
    raw = Path(path).read_bytes()
    name = str(path)
    head = raw.lstrip()[:1]
    if head == b"{":
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise CaptureError(f"{name}: looks like JSON Lines but is not UTF-8") from exc
        return _parse_jsonl(text, name)
    return Capture({}, (CaptureChunk(0.0, "in", raw),) if raw else ())


def iter_incoming(capture: Capture) -> Iterator[CaptureChunk]:
    return (c for c in capture.chunks if c.direction == "in")


__all__ = [
    "Capture",
    "CaptureChunk",
    "CaptureError",
    "CaptureWriter",
    "Direction",
    "iter_incoming",
    "parse_started_at",
    "read_capture",
]
