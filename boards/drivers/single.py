"""Driver for one board in single-board mode (USB, serial or Bluetooth port).

Connects, shakes hands (version, serial, UPDATE_NICE, board dump, clock), then streams
timestamped positions and clock readings. A port error or a board that stops answering
the periodic serial-number poll ends the session: the driver reports the loss, reopens
the port with backoff, and on reconnect reads the board's EEPROM log so that moves made
while the cable was out are recovered.

A board that rebooted (a power glitch, a watchdog reset) comes back idle: it answers the
polls but sends no field updates. The driver notices within seconds by what the board
says, never by silence alone: asked for its clock when a running clock stops reporting
(a board in UPDATE_NICE reports a running clock every second), it shows the clock running
on unreported; or a periodic board dump differs from what the updates said. It then ends
the session (`BoardLost(answering=True)`: the board is not lost), and the reconnect puts
the board back in update mode and reads the moves in between from its log (the reboot's
POWERUP and piece dump are an anchor there). A clock that went quiet while the board
answers (no answer, "no clock", or its last reading again: batteries, cable, a finished
game's clock) is one `ClockSilent`; the session goes on and the log is not read.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, replace
from typing import Literal, TypeVar

from boards.dgt.clock_commands import ClockCommand, encode_clock_command
from boards.dgt.codes import DANGEROUS_COMMANDS, Command
from boards.dgt.decoder import BoardStreamDecoder
from boards.dgt.eeprom import decode_ring
from boards.dgt.messages import (
    BatteryStatus,
    BoardDump,
    BoardMessage,
    BWTime,
    EEMoves,
    FieldUpdate,
    LongSerialNumber,
    SerialNumber,
    Version,
)
from boards.driver_events import (
    BatterySeen,
    BoardConnected,
    BoardInfo,
    BoardLost,
    ClockSeen,
    ClockSilent,
    DriverFault,
    Emit,
    LogGap,
    LogRecovered,
)
from boards.drivers.link import Link, LinkError, Opener, open_serial
from boards.drivers.session import LinkDriver
from boards.from_messages import BoardStream
from boards.position import BoardPosition
from boards.recovery import (
    KnownBoard,
    RecoveryPlan,
    continued,
    nothing_played,
    plan,
    unlogged_since_reboot,
    with_reading_after_reboot,
)
from clocks.errors import BoardwireError
from clocks.reading import ClockAck, ClockReading, NoClock, decode_bwtime
from clocks.timesource import MonotonicTimeSource

log = logging.getLogger(__name__)

M = TypeVar("M", bound=BoardMessage)


def _monotonic() -> float:
    """Real elapsed time for the driver's own timers (liveness, polls). The injected
    time source only stamps events: a fast-forward simulation must not make a healthy
    board look silent."""
    return asyncio.get_running_loop().time()


class BoardError(BoardwireError):
    """The port answered, but not like a DGT board (or not in time)."""


class BoardRestarted(BoardError):
    """The board answers but no longer streams: it rebooted (update mode lost) or its
    updates and its dump disagree. The session ends; the reconnect reads its log."""


@dataclass(frozen=True, slots=True)
class DriverSettings:
    reply_timeout: float = 2.0  # a handshake answer
    optional_timeout: float = 0.4  # answers only some boards give (long serial, battery)
    poll_interval: float = 2.0  # serial-number poll that proves the board is alive
    # The link counts as dead when the board has answered nothing this long after a
    # serial-number poll: not after this long without bytes, since a board with a quiet
    # clock rightly sends nothing between polls.
    dead_after: float = 6.0
    backoff: tuple[float, ...] = (0.5, 1.0, 2.0, 4.0, 8.0)
    recover_log: bool = True
    log_timeout: float = 15.0  # the whole EEPROM log takes ~8 s at 9600 baud
    battery_every: float = 60.0  # Bluetooth boards: how often to ask for the battery
    verify_every: float = 5.0  # compare with a board dump this often (a reboot, a lost update)
    check_every: float = 0.1  # how often the driver's own timers look
    # A running clock in UPDATE_NICE reports every second: this long without a report (in
    # event time, and at least `clock_silent_real` real seconds) means the board rebooted.
    clock_silent_after: float = 3.0
    clock_silent_real: float = 0.5
    # Before that, from this much silence on, the driver asks the clock itself: a board
    # that rebooted answers (idle), and its first answer shows the display as the reboot
    # left it, which times a move completed while it had no power.
    clock_probe_after: float = 1.2
    clock_probe_real: float = 0.25
    clock_probe_timeout: float = 0.1  # a board with power answers within milliseconds
    clock_ack_timeout: float = 2.0
    clock_retries: int = 3


class SingleBoardDriver(LinkDriver):
    """Follows one board on one port, forever, until `stop()`."""

    def __init__(
        self,
        port: str,
        emit: Emit,
        *,
        time_source: MonotonicTimeSource | None = None,
        opener: Opener = open_serial,
        settings: DriverSettings | None = None,
        known: KnownBoard | None = None,
    ) -> None:
        self.settings = settings or DriverSettings()
        super().__init__(
            port, emit, time_source=time_source, opener=opener, backoff=self.settings.backoff
        )
        self._known = known
        self.info: BoardInfo | None = None
        self._stream = BoardStream(port)
        self.connected = False
        self._decoder = BoardStreamDecoder()
        self._waiters: list[tuple[type, asyncio.Future[BoardMessage]]] = []
        self._last_rx = 0.0
        self._asked: float | None = None  # (real time) the first poll since the last answer
        self._early: list[BoardMessage] | None = None
        self._lost_at: float | None = None
        self._clock_lock = asyncio.Lock()
        self._clock_rx = (0.0, 0.0)  # (event time, real time) of the last clock report
        self._probing = False  # asking the clock of a board that stopped reporting it
        self._woke: ClockReading | None = None  # the first answer after it stopped
        self._clock_quiet = False  # a running clock went quiet: reported (`ClockSilent`)
        self._quiet_asked = 0.0  # (real time) the clock was last asked for
        self._unanswered: float | None = None  # (real time) since the clock goes unanswered
        self._unreported: float | None = None  # (event time) a probe first showed it unreported

    @property
    def position(self) -> BoardPosition | None:
        return self._stream.position

    @property
    def name(self) -> str:
        return self.info.serial if self.info else self.port

    @property
    def dropped_bytes(self) -> int:
        return self._decoder.dropped

    @property
    def describe(self) -> str:
        return f"driver of board {self.name} on {self.port}"

    retry_on = (LinkError, BoardError)
    retry_now_on = (BoardRestarted,)

    def _failed(self, exc: Exception) -> bool:
        if self.connected:
            # A board that stopped streaming still answers: the session ends only so that
            # the reconnect reads what its log holds. It is not lost.
            self._lose(str(exc), answering=isinstance(exc, BoardRestarted))
            return True
        log.debug("%s: %s", self.port, exc)
        return False

    def _faulted(self, exc: Exception, error: str) -> None:
        self._emit(DriverFault(self._time_source.now(), self.name, self.port, error))
        if self.connected:
            self._lose(f"software error in the driver ({error}); reconnecting")

    async def _stopped(self) -> None:
        if self.connected:
            self._lose("stopped")

    def _lose(self, reason: str, *, answering: bool = False) -> None:
        self.connected = False
        self._lost_at = self._time_source.now()
        log.info("board %s on %s lost: %s", self.name, self.port, reason)
        self._emit(BoardLost(self._lost_at, self.name, reason, answering=answering))

    def _abandon(self) -> None:
        for _, fut in self._waiters:
            if not fut.done():
                fut.cancel()
        self._waiters.clear()

    # -- one connection -------------------------------------------------------------------

    def _new_connection(self) -> None:
        self._decoder = BoardStreamDecoder()
        self._last_rx = _monotonic()
        self._asked = None
        self._clock_quiet, self._unanswered, self._unreported = False, None, None

    async def _work(self) -> None:
        await self._handshake()
        await self._poll_loop()

    async def _read_loop(self, link: Link) -> None:
        while True:
            data = await link.read()
            self._last_rx = _monotonic()
            self._asked = None
            for message in self._decoder.feed(data):
                self._dispatch(message)

    async def _poll_loop(self) -> None:
        s = self.settings
        last_poll = last_battery = last_check = _monotonic()
        self._clock_rx = (self._time_source.now(), last_poll)
        while True:
            await asyncio.sleep(min(s.check_every, s.poll_interval))
            now = _monotonic()
            asked = self._asked
            if asked is not None and now - asked > s.dead_after:
                raise LinkError(f"no answer for {now - asked:.1f} s")
            await self._check_streaming(now)
            if now - last_poll < s.poll_interval:
                continue
            last_poll = now
            self._send(Command.RETURN_SERIALNR)
            if self._asked is None:
                # The question every board answers (a quiet clock may not): the link is
                # dead when it goes unanswered for `dead_after`.
                self._asked = now
            if now - last_check >= s.verify_every:
                # A lost field update, or a board that rebooted and stopped streaming,
                # would leave our picture wrong for good: compare with the board itself.
                last_check = now
                self._send(Command.SEND_BRD)
            has_battery = self.info is not None and self.info.battery_percent is not None
            if has_battery and now - last_battery >= s.battery_every:
                last_battery = now
                self._send(Command.SEND_BATTERY_STATUS)

    async def _check_streaming(self, real: float) -> None:
        """A clock that was running and stopped reporting. Silence alone proves nothing
        (its batteries died, its cable was pulled, the game ended with it running): the
        driver asks the clock itself and goes by what the board says.

        - It shows the clock running on (or back) although the board has reported none
          of it, and goes on not reporting it for `clock_probe_after` more: the board no
          longer streams (a reboot puts it back idle), so the session ends and the
          reconnect reads its log (`BoardRestarted`).
        - No answer while the board answers its polls, "no clock", or the very reading it
          reported last: the clock went quiet. One `ClockSilent`, then a question every
          `poll_interval` only, to see it come back; the board is not lost and its log is
          not read. A board that reported "no clock" is asked as rarely.
        - No answer and nothing else from the board either: it has no power yet, or is
          gone; wait (the link's `dead_after` ends a wait that lasts)."""
        clock = self._stream.clock
        if isinstance(clock, ClockReading):
            side = clock.running_side
            if side is None or clock.seconds(side) <= 0:
                return  # stopped: it reports only on change, silence is normal
            if clock.left_final_flag or clock.right_final_flag:
                return  # a fallen flag: the display stands still
        elif not isinstance(clock, NoClock):
            return
        expecting = isinstance(clock, ClockReading)  # a running clock reports every second
        s = self.settings
        event_t, real_t = self._clock_rx
        quiet = self._time_source.now() - event_t
        if quiet <= s.clock_probe_after or real - real_t <= s.clock_probe_real:
            return
        rare = (self._clock_quiet or not expecting) and self._unreported is None
        if rare and real - self._quiet_asked < s.poll_interval:
            return  # nothing expected: asked now and then, to see the clock come back
        asked = self._quiet_asked = _monotonic()
        self._probing = True
        try:
            answer: BWTime | None = await self._ask(Command.SEND_CLK, BWTime, s.clock_probe_timeout)
        except BoardError:
            answer = None
        finally:
            self._probing = False
        reading = decode_bwtime(answer.raw) if answer is not None else None
        if answer is None:
            if self._unanswered is None:
                self._unanswered = asked
        else:
            self._unanswered = None
        now = self._time_source.now()
        if isinstance(reading, ClockReading) and reading != clock:
            # The clock runs on (or is back), and the board has not reported it.
            if self._woke is None:
                self._woke = reading  # a rebooted board's first answer: a press in the dark
            if self._unreported is None:
                self._unreported = now
            if now - self._unreported > s.clock_probe_after and (
                now - self._clock_rx[0] > s.clock_silent_after
                and _monotonic() - self._clock_rx[1] > s.clock_silent_real
            ):
                raise BoardRestarted(
                    "the board answers and its clock runs, but it has reported nothing for "
                    f"{now - self._clock_rx[0]:.0f} s: it stopped streaming (rebooted? a "
                    "power glitch?); reading its log"
                )
            return
        self._unreported = None
        if not expecting or self._clock_quiet:
            return
        if reading is not None and not isinstance(reading, ClockReading | NoClock):
            return  # an ack
        if answer is None and self._last_rx <= (self._unanswered or asked):
            return  # the board says nothing at all: no power yet, or gone
        event_t, real_t = self._clock_rx
        if now - event_t <= s.clock_silent_after or _monotonic() - real_t <= s.clock_silent_real:
            return  # too soon to say
        self._clock_quiet = True
        what: Literal["none", "frozen", "no-clock"] = (
            "none" if answer is None else "no-clock" if isinstance(reading, NoClock) else "frozen"
        )
        log.info(
            "board %s on %s: its running clock stopped reporting (asked: %s); battery or cable?",
            self.name,
            self.port,
            what,
        )
        self._emit(ClockSilent(now, self.name, what))

    def _send(self, command: Command | bytes) -> None:
        data = bytes([command]) if isinstance(command, Command) else command
        if data and data[0] in DANGEROUS_COMMANDS:
            raise ValueError(f"refusing to send dangerous DGT command {data[0]:#04x}")
        self._write(data)

    async def _ask(self, command: Command, kind: type[M], timeout: float) -> M:
        fut: asyncio.Future[BoardMessage] = asyncio.get_running_loop().create_future()
        self._waiters.append((kind, fut))
        self._send(command)
        try:
            async with asyncio.timeout(timeout):  # not wait_for: it can swallow a cancel
                message = await fut
        except TimeoutError as exc:
            raise BoardError(
                f"no {kind.__name__} answer from {self.port} within {timeout} s"
            ) from exc
        finally:
            self._waiters = [(k, f) for k, f in self._waiters if f is not fut]
        assert isinstance(message, kind)
        return message

    async def _ask_optional(self, command: Command, kind: type[M]) -> M | None:
        try:
            return await self._ask(command, kind, self.settings.optional_timeout)
        except BoardError:
            return None

    async def _handshake(self) -> None:
        s = self.settings
        version = await self._ask(Command.SEND_VERSION, Version, s.reply_timeout)
        serial = await self._ask(Command.RETURN_SERIALNR, SerialNumber, s.reply_timeout)
        seen = self.info is not None and self.info.serial == serial.text
        # Questions only some boards answer cost a timeout each on the others: a board
        # met before is not asked again what it did not answer then (a reconnect after a
        # reboot is a race against the moves being made meanwhile).
        ask_long = not seen or (self.info is not None and self.info.long_serial is not None)
        ask_battery = not seen or (self.info is not None and self.info.battery_percent is not None)
        long_serial = (
            await self._ask_optional(Command.RETURN_LONG_SERIALNR, LongSerialNumber)
            if ask_long
            else None
        )
        battery = (
            await self._ask_optional(Command.SEND_BATTERY_STATUS, BatteryStatus)
            if ask_battery
            else None
        )
        known = self._known
        if self.info is not None or known is None or known.serial not in ("", serial.text):
            known = None  # the journal's knowledge is for this board's first connection only
        how = plan(seen, self.position, self._stream.recent.as_tuple(), known)
        reconnect = how.reconnect
        # Update mode first: what changes while the log and the dump come in arrives as
        # field updates and clock readings, replayed in order once the board is identified.
        self._send(Command.SEND_UPDATE_NICE)
        self._early = []
        outage = s.recover_log and how.outage
        woke, self._woke = self._woke, None
        before_log = None
        if outage:
            # The clock now, before the log's 8 s: a move completed while the board had
            # no power is in no log, and its time is on the display only until the
            # opponent presses. It continues the log when the board rebooted unseen.
            before_log = await self._ask_optional(Command.SEND_CLK, BWTime)
        recovered, gap = await self._read_log(serial.text, how) if outage else (None, None)
        dump = await self._ask(Command.SEND_BRD, BoardDump, s.reply_timeout)
        clock = await self._ask_optional(Command.SEND_CLK, BWTime)
        clock_msg = decode_bwtime(clock.raw) if clock else None
        now = self._time_source.now()
        self.info = BoardInfo(
            port=self.port,
            serial=serial.text,
            version=(version.major, version.minor),
            mode="single",
            long_serial=long_serial.text if long_serial else None,
            battery_percent=battery.percent if battery else None,
            clock_present=None if clock_msg is None else isinstance(clock_msg, ClockReading),
        )
        self.connected = True
        # Only now: a handshake that fails before this point tries again with the journal's
        # knowledge, and reads the log again, instead of silently skipping the outage.
        self._known = None
        self._stream.board = self.name
        log.info(
            "board %s on %s %s (version %d.%d)",
            self.name,
            self.port,
            "reconnected" if reconnect else "connected",
            version.major,
            version.minor,
        )
        self._emit(BoardConnected(now, self.name, self.info, reconnect=reconnect))
        early, self._early = self._early or [], None
        if outage and gap is not None:
            log.warning(
                "board %s on %s: %s; going on from the board as it stands",
                self.name,
                self.port,
                gap,
            )
            self._emit(LogGap(now, self.name, self.port, gap))
        if recovered is not None and woke is not None:
            recovered = with_reading_after_reboot(recovered, woke)
        if recovered is not None:
            # What the board sent while its log was downloading (queued behind it, before
            # the answer to the dump) continues the log; what came after is live.
            cut = next((i for i, m in enumerate(early) if m is dump), len(early))
            meanwhile, early = early[:cut], early[cut:]
            if before_log is not None and not unlogged_since_reboot(recovered):
                # Taken before the log: it may be older than the log's last press.
                meanwhile = [m for m in meanwhile if m is not before_log]
            later: list[tuple[int, int] | ClockReading] = []
            for message in meanwhile:
                if isinstance(message, FieldUpdate):
                    later.append((message.index, message.code))
                elif isinstance(message, BWTime):
                    reading = decode_bwtime(message.raw)
                    if isinstance(reading, ClockReading):
                        later.append(reading)
            recovered = continued(recovered, later)
            self._stream.position = recovered.final
            self._emit(recovered)
            log.info(
                "board %s: recovered %d logged steps from the EEPROM",
                self.name,
                len(recovered.steps) - recovered.seen - 1,
            )
            # The clock's last reading then (its presses are in the log now), the dump.
            readings = [m for m in meanwhile if isinstance(m, BWTime)]
            early = [*readings[-1:], *early]
        else:
            self._stream.position = how.position
        self._stream.recent.clear()
        # Everything that arrived since update mode began, in order: square changes, clock
        # readings and the dump itself (a square change is absolute, so one the dump
        # already shows changes nothing).
        for message in early if dump in early else [*early, dump]:
            if isinstance(message, FieldUpdate | BWTime | BoardDump):
                self._emit_all(self._stream.feed(now, message))

    async def _read_log(
        self, serial: str, how: RecoveryPlan
    ) -> tuple[LogRecovered | None, str | None]:
        """The board's EEPROM log as one `LogRecovered`, for an outage to fill: after a
        reconnect or a restart, or at a first start mid-round unless the board still
        shows the start position; and what went wrong filling it (None: nothing)."""
        s = self.settings
        if how.first_start:
            shown = await self._ask(Command.SEND_BRD, BoardDump, s.reply_timeout)
            if nothing_played(shown.position):
                return None, None
        log_msg = await self._ask(Command.SEND_EE_MOVES, EEMoves, s.log_timeout)
        return self._recovered(serial, log_msg.data, decode_ring, how)

    # -- incoming messages ------------------------------------------------------------------

    def _dispatch(self, message: BoardMessage) -> None:
        answered = False
        for kind, fut in self._waiters:
            if isinstance(message, kind) and not fut.done():
                fut.set_result(message)
                answered = True
                break
        if not self.connected:
            if self._early is not None:
                self._early.append(message)
            return  # handshake answers; the handshake itself reports what it learned
        if isinstance(message, BWTime):
            if answered and self._probing:
                return  # asked for: it proves the board is there, not that it streams
            self._clock_rx = (self._time_source.now(), _monotonic())
            self._woke = None
            self._clock_quiet, self._unanswered, self._unreported = False, None, None
        if isinstance(message, BoardDump) and message.position == self.position:
            return  # the periodic check found the board as we know it
        if isinstance(message, BoardDump):
            # Updates lost, or the board rebooted and stopped streaming: what happened in
            # between is in its log, which the reconnect reads (the dump alone would drop
            # the order and the clock times of the moves).
            raise BoardRestarted(
                "the board dump differs from its updates (rebooted? an update lost?); "
                "reading its log"
            )
        for event in self._stream.feed(self._time_source.now(), message):
            if isinstance(event, ClockSeen):
                present = isinstance(event.reading, ClockReading)
                if self.info is not None and self.info.clock_present != present:
                    self.info = replace(self.info, clock_present=present)
            elif isinstance(event, BatterySeen) and self.info is not None:
                self.info = replace(self.info, battery_percent=event.percent)
            self._emit(event)
        while self._stream.acks:
            self._on_ack(self._stream.acks.pop(0))

    # -- clock commands -----------------------------------------------------------------------

    _ack_future: asyncio.Future[ClockAck] | None = None

    def _on_ack(self, ack: ClockAck) -> None:
        fut = self._ack_future
        if fut is not None and not fut.done() and not ack.from_clock:
            fut.set_result(ack)

    async def send_clock_command(self, command: ClockCommand) -> ClockAck | None:
        """Send a clock command and wait for its ack, retrying as the protocol asks.
        Returns None when the clock never acknowledged it."""
        async with self._clock_lock:
            for _ in range(self.settings.clock_retries):
                self._ack_future = asyncio.get_running_loop().create_future()
                self._send(encode_clock_command(command))
                try:
                    async with asyncio.timeout(self.settings.clock_ack_timeout):
                        return await self._ack_future
                except TimeoutError:
                    continue
                finally:
                    self._ack_future = None
            return None

    async def probe(self) -> BoardInfo:
        """Open the port once, shake hands, close: who is there? Raises BoardError/LinkError."""
        try:
            return await self._probe_once(self._probe_work)
        finally:
            self.connected = False

    async def _probe_work(self) -> BoardInfo:
        await self._handshake()
        assert self.info is not None
        self._send(Command.RESET)  # leave the board idle, as we found it
        return self.info


__all__ = ["BoardError", "BoardRestarted", "DriverSettings", "SingleBoardDriver"]
