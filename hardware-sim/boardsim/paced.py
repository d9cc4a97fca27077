"""A board's serial output while it is busy with a long answer, released at the line's rate.

A real board takes about 8 s to send its EEPROM at 9600 baud (10 bits a byte on the wire),
and a host killed meanwhile gets only part of it. Time is the simulation's (seconds passed
in), so a sped-up simulation downloads faster in real time, as everything else does.
"""

from __future__ import annotations

BYTES_PER_SECOND = 960.0  # 9600 baud, 8N1


class PacedOutput:
    """Bytes queued at `push` leave at `rate` bytes a second from `take(t)` onwards."""

    def __init__(self, rate: float = BYTES_PER_SECOND) -> None:
        if rate <= 0:
            raise ValueError(f"a line rate is positive, not {rate}")
        self.rate = rate
        self._queue = bytearray()
        self._t0 = 0.0  # when the current run of output began
        self._released = 0  # bytes released since _t0

    @property
    def busy(self) -> bool:
        return bool(self._queue)

    @property
    def pending(self) -> int:
        return len(self._queue)

    def push(self, data: bytes, t: float) -> None:
        if not data:
            return
        if not self._queue:
            self._t0, self._released = t, 0
        self._queue += data

    def take(self, t: float) -> bytes:
        """The bytes whose last bit has left the line by `t`."""
        if not self._queue:
            return b""
        due = int((t - self._t0) * self.rate + 1e-9) - self._released
        if due <= 0:
            return b""
        out = bytes(self._queue[:due])
        del self._queue[:due]
        self._released += len(out)
        return out

    def clear(self) -> None:
        self._queue.clear()


__all__ = ["BYTES_PER_SECOND", "PacedOutput"]
