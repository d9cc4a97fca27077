"""A bare websocket client over a plain socket, for tests and load generators that must see
the exact bytes a server wrote (or must cost as little as possible per connection).

It does the opening handshake (no extensions offered: no per-message compression), sends
masked text frames, and reads the server's frames as they arrive on the socket.
"""

from __future__ import annotations

import asyncio
import base64
import os
import socket
import struct

from web.hub.wire import frames_in

__all__ = ["RawSocket", "connect", "masked_text"]


def masked_text(text: str) -> bytes:
    """A client's text frame (clients must mask theirs, RFC 6455 5.3)."""
    payload = text.encode()
    mask = os.urandom(4)
    body = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    n = len(payload)
    if n < 126:
        header = struct.pack("!BB", 0x81, 0x80 | n)
    elif n < 1 << 16:
        header = struct.pack("!BBH", 0x81, 0x80 | 126, n)
    else:
        header = struct.pack("!BBQ", 0x81, 0x80 | 127, n)
    return header + mask + body


class RawSocket:
    """One connection after the handshake: `send` a text message, read `frames`."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.raw = bytearray()  # every byte the server wrote after the handshake
        self._read = 0  # how much of `raw` `frame()` has handed out

    async def send(self, text: str) -> None:
        self.writer.write(masked_text(text))
        await self.writer.drain()

    async def frame(self, timeout: float = 5.0) -> tuple[int, bytes]:
        """The next whole frame: its first byte (FIN, RSV, opcode) and its payload."""
        async with asyncio.timeout(timeout):
            while True:
                for first, payload in frames_in(bytes(self.raw[self._read :])):
                    self._read += _frame_length(len(payload)) + len(payload)
                    return first, payload
                chunk = await self.reader.read(65536)
                if not chunk:
                    raise ConnectionError("the server closed the connection")
                self.raw += chunk

    async def text(self, timeout: float = 5.0) -> str:
        """The next text message's payload (control frames skipped)."""
        while True:
            first, payload = await self.frame(timeout)
            if first & 0x0F == 0x1:
                return payload.decode()
            if first & 0x0F == 0x8:
                raise ConnectionError(f"closed by the server: {payload[:2].hex()}")

    def close(self) -> None:
        self.writer.close()


def _frame_length(n: int) -> int:
    return 2 if n < 126 else 4 if n < 1 << 16 else 10


async def connect(
    host: str, port: int, path: str = "/ws", *, receive_buffer: int | None = None
) -> RawSocket:
    """Open a websocket to `host:port` `path`; `receive_buffer` shrinks the socket's
    receive buffer (a client that reads slowly fills the server's side sooner)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if receive_buffer is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
    sock.setblocking(False)
    await asyncio.get_running_loop().sock_connect(sock, (host, port))
    reader, writer = await asyncio.open_connection(sock=sock)
    key = base64.b64encode(os.urandom(16)).decode()
    writer.write(
        (
            f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
            "Sec-WebSocket-Version: 13\r\n\r\n"
        ).encode()
    )
    await writer.drain()
    head = await reader.readuntil(b"\r\n\r\n")
    if not head.startswith(b"HTTP/1.1 101"):
        writer.close()
        raise ConnectionError(f"no websocket: {head.splitlines()[0]!r}")
    return RawSocket(reader, writer)
