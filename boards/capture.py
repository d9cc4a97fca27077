"""Capture files: raw serial traffic as JSON Lines, for forensics and offline replay.

Line 1 (optional): {"meta": {"started_at": ISO-8601, ...}}
Then one object per chunk: {"t": seconds since start, "dir": "in" | "out", "hex": "..."}.
A plain file of board-to-host bytes is accepted too (every byte "in" at t = 0).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any, Literal

from clocks.timesource import TimeSource

Direction = Literal["in", "out"]


class CaptureError(ValueError):
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
        value = self.meta.get("started_at")
        if not isinstance(value, str):
            return None
        return datetime.fromisoformat(value.replace("Z", "+00:00"))


@dataclass
class CaptureWriter:
    """Appends chunks with times relative to when it was opened; flushed line by line so a
    crash loses at most the chunk being written."""

    stream: IO[str]
    time: TimeSource
    meta: dict[str, Any] = field(default_factory=dict)
    _t0: float = 0.0

    def __post_init__(self) -> None:
        self._t0 = self.time.now()
        meta = {"started_at": datetime.now(UTC).isoformat(timespec="milliseconds"), **self.meta}
        self.stream.write(json.dumps({"meta": meta}) + "\n")
        self.stream.flush()

    @classmethod
    def open(cls, path: str | Path, time: TimeSource, **meta: Any) -> CaptureWriter:
        return cls(open(path, "w", encoding="utf-8"), time, dict(meta))

    def record(self, direction: Direction, data: bytes) -> None:
        if not data:
            return
        t = round(self.time.now() - self._t0, 6)
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
            raise CaptureError(f"{name}:{number}: not JSON ({exc.msg})") from exc
        if not isinstance(obj, dict):
            raise CaptureError(f"{name}:{number}: expected an object, got {type(obj).__name__}")
        if "meta" in obj:
            if not isinstance(obj["meta"], dict):
                raise CaptureError(f"{name}:{number}: 'meta' must be an object")
            meta.update(obj["meta"])
            continue
        try:
            t = float(obj["t"])
            direction = obj["dir"]
            data = bytes.fromhex(obj["hex"])
        except (KeyError, TypeError, ValueError) as exc:
            raise CaptureError(
                f'{name}:{number}: expected {{"t": seconds, "dir": "in"|"out", "hex": "..."}}, got {line[:80]!r}'
            ) from exc
        if direction not in ("in", "out"):
            raise CaptureError(f'{name}:{number}: "dir" must be "in" or "out", got {direction!r}')
        chunks.append(CaptureChunk(t, direction, data))
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
