"""A hub message as it goes out: its JSON text and the websocket frame that carries it.

A server's websocket frame is not masked (RFC 6455, 5.1), so with per-message compression
off the frame of a message is the same bytes for every client. `Wire.of` builds it once
(FIN, text opcode, the length, the UTF-8 payload) and the hub writes those very bytes to
every socket, instead of asking the websocket library to frame (and compress) the same
text once per client. Pure: no I/O.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from dataclasses import dataclass

__all__ = ["Wire", "frames_in", "text_frame"]

_FIN_TEXT = 0x81  # FIN bit and opcode 1 (text); RSV bits clear: not compressed


def text_frame(payload: bytes) -> bytes:
    """One unmasked, unfragmented, uncompressed text frame carrying `payload`."""
    n = len(payload)
    if n < 126:
        header = struct.pack("!BB", _FIN_TEXT, n)
    elif n < 1 << 16:
        header = struct.pack("!BBH", _FIN_TEXT, 126, n)
    else:
        header = struct.pack("!BBQ", _FIN_TEXT, 127, n)
    return header + payload


@dataclass(frozen=True, slots=True, eq=False)
class Wire:
    """One message, encoded once: `text` (for taps, resumes and tests) and `frame`, the
    bytes written to every client's socket."""

    text: str
    frame: bytes

    @classmethod
    def of(cls, text: str) -> Wire:
        return cls(text, text_frame(text.encode("utf-8")))


def frames_in(data: bytes) -> Iterator[tuple[int, bytes]]:
    """The (first byte, payload) of each whole unmasked frame in `data`, as a client reads
    them (tests and benchmarks count what reached a socket with it). A partial frame at
    the end is left out."""
    i, end = 0, len(data)
    while i + 2 <= end:
        first, second = data[i], data[i + 1]
        n, at = second & 0x7F, i + 2
        if n == 126:
            if at + 2 > end:
                return
            (n,) = struct.unpack_from("!H", data, at)
            at += 2
        elif n == 127:
            if at + 8 > end:
                return
            (n,) = struct.unpack_from("!Q", data, at)
            at += 8
        if at + n > end:
            return
        yield first, data[at : at + n]
        i = at + n
