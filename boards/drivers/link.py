"""Byte links to boards: a serial port opened with pyserial-asyncio-fast, or anything alike.

Drivers talk to a `Link`, so tests and replays can give them any byte source.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
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


async def open_serial(path: str) -> Link:
    """Open `path` at the DGT line settings; LinkError with the reason if it cannot be opened."""
    _port_errors_to_the_driver(asyncio.get_running_loop())
    try:
        reader, writer = await serial_asyncio_fast.open_serial_connection(
            url=path,
            baudrate=BAUDRATE,
            bytesize=serial.EIGHTBITS,
            parity=serial.PARITY_NONE,
            stopbits=serial.STOPBITS_ONE,
            rtscts=False,
            xonxoff=False,
        )
    except (OSError, serial.SerialException, ValueError) as exc:
        raise LinkError(f"cannot open {path}: {exc}") from exc
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
