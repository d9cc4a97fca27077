"""Hosting an emulated board (single mode) or a bus line on a real pseudo-terminal.

The host side of the pty is a normal serial device path (/dev/pts/N) that drivers open
with pyserial. Each device also gets a STABLE path, a symlink in a run directory such as
<rundir>/board-1, like a udev by-id link: pulling the cable closes the pty (the driver's
reads fail), plugging it back creates a new pty and re-points the symlink, so the driver
reopens the same path.

Whether anyone has the port open is learnt from the pty master: reads fail with EIO while
no process holds the device open. Bytes the board sends meanwhile are lost, as on a real
line with nobody listening.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import os
import random
import termios
import tty
from pathlib import Path

from boardsim.board import EmulatedBoard
from boardsim.busline import BusLine
from boardsim.clock import Side
from boardsim.hostwire import HostParser
from clocks.timesource import MonotonicTimeSource, SystemTime

log = logging.getLogger(__name__)

BYTES_PER_SECOND = 960  # 9600 baud, 8N1: ten bits on the wire per byte
MAX_PENDING = 64 * 1024  # output kept while the reader is slow; beyond that it is lost
READ_SIZE = 4096

Device = EmulatedBoard | BusLine


class PtyHost:
    """Serves one `EmulatedBoard` or one `BusLine` on a pty reachable through `link`.

    Use `async with PtyHost(board, rundir / "board-1") as host:` or start()/stop().
    `time_source` is the simulation's clock (the boards see its seconds); `tick_interval`
    is in real seconds. `line_speed` throttles all output to 960 bytes per simulated second
    like 9600 baud (the EEPROM download is paced by the board itself in any case).
    """

    def __init__(
        self,
        device: Device,
        link: Path | str,
        *,
        time_source: MonotonicTimeSource | None = None,
        line_speed: bool = False,
        tick_interval: float = 0.01,
        replug_resets: bool = True,
    ) -> None:
        self.device = device
        self.link = Path(link)
        self.time_source: MonotonicTimeSource = (
            time_source if time_source is not None else SystemTime()
        )
        self.line_speed = line_speed
        self.tick_interval = tick_interval
        self.replug_resets = replug_resets
        self.bytes_in = 0
        self.bytes_out = 0
        self.bytes_lost = 0  # sent while unplugged, muted or with nobody listening
        self._decoder = HostParser()
        self._master: int | None = None
        self._tty: str | None = None
        self._listening = False
        self._reading = False
        self._plugged = False
        self._muted = False
        self._out = bytearray()
        self._line_t = 0.0
        self._task: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self.failure: Exception | None = None  # why the pump stopped, if it failed

    # -- lifecycle ---------------------------------------------------------------------

    async def start(self) -> PtyHost:
        if self._task is not None:
            raise RuntimeError("this PtyHost is already running")
        self._loop = asyncio.get_running_loop()
        self._open()
        self._task = asyncio.create_task(self._run(), name=f"boardsim {self.link.name}")
        return self

    async def stop(self) -> None:
        try:
            if self._task is not None:
                self._task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await self._task  # it never raises: a failure was logged in _run
                self._task = None
        finally:
            self._close()
            with contextlib.suppress(FileNotFoundError):
                self.link.unlink()

    async def __aenter__(self) -> PtyHost:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    @property
    def path(self) -> Path:
        """The stable path a driver should open (the symlink)."""
        return self.link

    @property
    def tty(self) -> str | None:
        """The current pty device (/dev/pts/N), None while unplugged."""
        return self._tty

    @property
    def plugged(self) -> bool:
        return self._plugged

    @property
    def listening(self) -> bool:
        """True while some process has the device open."""
        return self._listening

    @property
    def boards(self) -> list[EmulatedBoard]:
        return self.device.boards if isinstance(self.device, BusLine) else [self.device]

    def now(self) -> float:
        return self.time_source.now()

    def _open(self) -> None:
        master, slave = os.openpty()
        tty.setraw(slave)
        # No echo and no CR/LF translation in either direction: a serial line is raw bytes.
        attrs = termios.tcgetattr(slave)
        attrs[3] &= ~termios.ECHO
        termios.tcsetattr(slave, termios.TCSANOW, attrs)
        self._tty = os.ttyname(slave)
        # Closing our slave end lets the master report EIO while nobody has the port open.
        os.close(slave)
        os.set_blocking(master, False)
        self._master = master
        self._listening = False
        self._plugged = True
        self._decoder = HostParser()
        self._point_link(self._tty)

    def _point_link(self, target: str) -> None:
        self.link.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.link.with_name(f".{self.link.name}.{os.getpid()}.tmp")
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        os.symlink(target, tmp)
        os.replace(tmp, self.link)  # atomic: a driver never sees the link missing half-way

    def _close(self) -> None:
        self._stop_reading()
        if self._master is not None:
            os.close(self._master)
        self._master = None
        self._tty = None
        self._listening = False
        self._plugged = False
        self._out.clear()

    # -- faults ------------------------------------------------------------------------

    def unplug(self) -> None:
        """Pull the cable: the pty disappears, the symlink goes, the driver's reads fail.

        The boards go on living: moves made now are logged to EEPROM and not sent.
        """
        if not self._plugged:
            return
        self._close()
        with contextlib.suppress(FileNotFoundError):
            self.link.unlink()

    def plug(self) -> None:
        """Plug the cable back: a new pty behind the same symlink.

        With `replug_resets` the boards restart their serial session (bus mode, idle,
        POWERUP logged) as a USB board powered by its cable does; the EEPROM keeps its log.
        """
        if self._plugged:
            return
        self._open()
        if self.replug_resets:
            t = self.now()
            for board in self.boards:
                board.power_up(t, reboot_seconds=0.0)

    def mute(self, on: bool = True) -> None:
        """A hung board: the port stays open, but nothing is answered or sent."""
        self._muted = on

    def lose_power(self, seconds: float, board: int = 0) -> None:
        """Board `board` loses power for `seconds` (simulated): it goes deaf and dumb, logs
        nothing, and reboots (see `EmulatedBoard.lose_power`); the port stays open, as a
        serial cable does when the board's own power fails."""
        self.boards[board].lose_power(self.now(), seconds)

    def inject_garbage(self, data: bytes | None = None, *, length: int = 16, seed: int = 0) -> None:
        """Line noise: `data`, or `length` seeded random bytes, written to the host as is."""
        noise = data if data is not None else random.Random(seed).randbytes(length)
        self._write_now(noise)

    def unplug_clock(self, board: int = 0) -> None:
        self.boards[board].unplug_clock()

    def plug_clock(self, board: int = 0) -> None:
        self.boards[board].plug_clock()

    def clock_battery_dies(self, board: int = 0) -> None:
        """The clock's batteries run out: it stops, and the board can no longer reach it
        (what the board says then is its `clock_lost` variant)."""
        self.boards[board].clock_battery_dies(self.now())

    def set_clock_battery_low(self, low: bool = True, board: int = 0) -> None:
        clock = self.boards[board].clock
        if clock is None:
            raise ValueError(f"board {board} has no clock")
        clock.battery_low = low

    def set_battery(self, percent: int | None, board: int = 0) -> None:
        """Bluetooth battery level in percent (None: a wired board without battery)."""
        self.boards[board].battery_percent = percent

    # -- physical actions (what players do) ----------------------------------------------

    def set_square(self, index: int, code: int, board: int = 0) -> None:
        self._emit(self.boards[board].set_square(index, code, self.now()))

    def press_lever(self, side: Side, board: int = 0) -> None:
        self._emit(self.boards[board].press_lever(side, self.now()))

    def setup_clock(
        self, left_seconds: float, right_seconds: float, increment: float = 0.0, board: int = 0
    ) -> None:
        clock = self.boards[board].clock
        if clock is None:
            raise ValueError(f"board {board} has no clock")
        clock.setup(left_seconds, right_seconds, self.now(), increment=increment)

    # -- the pump ----------------------------------------------------------------------

    async def _run(self) -> None:
        try:
            while True:
                await asyncio.sleep(self.tick_interval)
                if self._plugged and not self._listening:
                    self._poll_listener()
                self._emit(self.device.tick(self.now()))
                self._flush()
        except Exception as exc:
            # A bug in the emulated device: logged once with its traceback (not kept for
            # stop() to find), and the port goes dead like a pulled cable, which the
            # driver and the arbiter's desk notice.
            log.exception("emulated port %s stopped: %s", self.link, exc)
            self.failure = exc
            self.unplug()

    def _poll_listener(self) -> None:
        """Try a read: EIO means nobody has the port open yet."""
        assert self._master is not None
        try:
            data = os.read(self._master, READ_SIZE)
        except BlockingIOError:
            data = b""
        except OSError as e:
            if e.errno == errno.EIO:
                return
            raise
        self._listening = True
        self._start_reading()
        if data:
            self._received(data)

    def _start_reading(self) -> None:
        if not self._reading and self._master is not None and self._loop is not None:
            self._loop.add_reader(self._master, self._on_readable)
            self._reading = True

    def _stop_reading(self) -> None:
        if self._reading and self._master is not None and self._loop is not None:
            self._loop.remove_reader(self._master)
        self._reading = False

    def _on_readable(self) -> None:
        assert self._master is not None
        try:
            data = os.read(self._master, READ_SIZE)
        except BlockingIOError:
            return
        except OSError as e:
            if e.errno != errno.EIO:
                raise
            data = b""
        if not data:
            # The driver closed the port: wait for the next open.
            self._stop_reading()
            self._listening = False
            self._out.clear()
            return
        self._received(data)

    def _received(self, data: bytes) -> None:
        self.bytes_in += len(data)
        if self._muted:
            return
        t = self.now()
        for item in self._decoder.feed(data):
            self._emit(self.device.handle(item, t))
        self._flush()

    def _emit(self, data: bytes) -> None:
        if not data:
            return
        if not (self._plugged and self._listening) or self._muted:
            self.bytes_lost += len(data)
            return
        room = MAX_PENDING - len(self._out)
        if room < len(data):
            self.bytes_lost += len(data) - max(room, 0)
            data = data[: max(room, 0)]
        self._out += data
        self._flush()

    def _flush(self) -> None:
        if not self._out or self._master is None:
            return
        chunk = bytes(self._out)
        if self.line_speed:
            now = self.now()  # simulated time: a sped-up simulation sends faster too
            # No credit piles up while the line is idle: at most a 50 ms burst.
            self._line_t = max(self._line_t, now - 0.05)
            allowed = int((now - self._line_t) * BYTES_PER_SECOND)
            if allowed <= 0:
                return
            chunk = chunk[:allowed]
        written = self._write_now(chunk)
        del self._out[:written]
        if self.line_speed:
            self._line_t += written / BYTES_PER_SECOND

    def _write_now(self, data: bytes) -> int:
        if self._master is None or not data:
            return 0
        try:
            written = os.write(self._master, data)
        except BlockingIOError:
            return 0
        except OSError as e:
            if e.errno != errno.EIO:
                raise
            self._listening = False
            return len(data)
        self.bytes_out += written
        return written


__all__ = ["BYTES_PER_SECOND", "Device", "PtyHost"]
