"""Byte links to boards: a serial port opened with pyserial-asyncio-fast, or anything alike.

Drivers talk to a `Link`, so tests and replays can give them any byte source.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

import serial
import serial_asyncio_fast

from boards.capture import CaptureWriter
from clocks.errors import BoardwireError

log = logging.getLogger(__name__)

BAUDRATE = 9600


class LinkError(BoardwireError):
    """The port is gone or failed: the cable was pulled, the device vanished, access denied."""


class Link(Protocol):
    async def read(self) -> bytes:
        """Some bytes (at least one); raises LinkError when the port fails or closes."""
        ...

    def write(self, data: bytes) -> None: ...

    async def close(self) -> None: ...


Opener = Callable[[str], Awaitable[Link]]


class SerialLink:
    """A real serial port (USB CDC-ACM, FTDI, RFCOMM or a pseudo-terminal) at 9600 8N1."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._reader = reader
        self._writer = writer

    async def read(self) -> bytes:
        try:
            data = await self._reader.read(4096)
        except (OSError, serial.SerialException) as exc:
            raise LinkError(str(exc) or type(exc).__name__) from exc
        if not data:
            raise LinkError("port closed")
        return data

    def write(self, data: bytes) -> None:
        if self._writer.is_closing():
            raise LinkError("port closed")
        try:
            self._writer.write(data)
        except (OSError, serial.SerialException) as exc:
            raise LinkError(str(exc) or type(exc).__name__) from exc

    async def close(self) -> None:
        self._writer.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self._writer.wait_closed(), 1.0)


def _port_errors_to_the_driver(loop: asyncio.AbstractEventLoop) -> None:
    """pyserial-asyncio-fast reports a failed write (the cable pulled: EIO) to the loop's
    exception handler, which logs it as an ERROR with a traceback, and also ends the
    stream, so that the driver's read raises LinkError and the driver reports the board
    lost. Once is enough: the loop's report of a port error is a debug line here. Anything
    else goes to the handler that was there."""
    previous = loop.get_exception_handler()
    if getattr(previous, "boardwire_serial", False):
        return

    def handler(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        exc = context.get("exception")
        if isinstance(context.get("transport"), serial_asyncio_fast.SerialTransport) and (
            isinstance(exc, OSError | serial.SerialException)
        ):
            log.debug("%s: %s (the driver sees the port fail)", context.get("message"), exc)
        elif previous is not None:
            previous(loop, context)
        else:
            loop.default_exception_handler(context)

    handler.boardwire_serial = True  # type: ignore[attr-defined]
    loop.set_exception_handler(handler)


class _EventLoopSerial(serial.Serial):  # type: ignore[misc]  # pyserial has no types
    """A serial port read by the event loop: pyserial's `read` waits in `select()`, which
    cannot take a file descriptor at or above 1024, and `serve` raises its open-file
    limit for thousands of spectators' connections, so a board reconnecting during the
    event can get such a descriptor (the loop's callback then failed on every byte).
    The transport reads only when the loop says the port is readable and with a zero
    timeout (the port is opened non-blocking), so one plain `os.read` is the same read
    without `select`. Blocking reads (a timeout set) stay pyserial's."""

    def read(self, size: int = 1) -> bytes:
        if self.timeout != 0:
            return bytes(super().read(size))
        if not self.is_open:
            raise serial.PortNotOpenError()
        try:
            data = os.read(self.fileno(), size)
        except (BlockingIOError, InterruptedError):
            return b""
        except OSError as exc:
            raise serial.SerialException(f"read failed: {exc}") from exc
        if not data:
            # What a disconnected device does on Linux: readable, and nothing to read.
            raise serial.SerialException(
                "device reports readiness to read but returned no data "
                "(device disconnected or multiple access on port?)"
            )
        return data


async def open_serial(path: str) -> Link:
    """Open `path` at the DGT line settings; LinkError with the reason if it cannot be opened."""
    loop = asyncio.get_running_loop()
    _port_errors_to_the_driver(loop)

    def open_port() -> serial.Serial:
        return _EventLoopSerial(
            port=path,
            baudrate=BAUDRATE,
            bytesize=serial.EIGHTBITS,
            parity=serial.PARITY_NONE,
            stopbits=serial.STOPBITS_ONE,
            rtscts=False,
            xonxoff=False,
        )

    try:
        port = await loop.run_in_executor(None, open_port)
    except (OSError, serial.SerialException, ValueError) as exc:
        raise LinkError(f"cannot open {path}: {exc}") from exc
    reader = asyncio.StreamReader(loop=loop)
    protocol = asyncio.StreamReaderProtocol(reader, loop=loop)
    transport, _ = await serial_asyncio_fast.connection_for_serial(loop, lambda: protocol, port)
    writer = asyncio.StreamWriter(transport, protocol, reader, loop)
    return SerialLink(reader, writer)


class RecordingLink:
    """Wraps a link and writes every chunk, both directions, to a capture file."""

    def __init__(self, inner: Link, capture: CaptureWriter) -> None:
        self._inner = inner
        self._capture = capture

    async def read(self) -> bytes:
        data = await self._inner.read()
        self._capture.record("in", data)
        return data

    def write(self, data: bytes) -> None:
        self._capture.record("out", data)
        self._inner.write(data)

    async def close(self) -> None:
        await self._inner.close()


def recording_opener(opener: Opener, capture: CaptureWriter | None) -> Opener:
    if capture is None:
        return opener

    async def open_recorded(path: str) -> Link:
        return RecordingLink(await opener(path), capture)

    return open_recorded


__all__ = [
    "BAUDRATE",
    "Link",
    "LinkError",
    "Opener",
    "RecordingLink",
    "SerialLink",
    "open_serial",
    "recording_opener",
]
