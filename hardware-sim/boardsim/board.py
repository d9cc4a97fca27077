"""An emulated DGT e-board: a pure state machine, time passed in as seconds (float).

It answers what the host sends (parsed by `boardsim.hostwire.HostParser`) with
the bytes a real board would put on the line, in single-board and bus mode, and keeps an
EEPROM event log of everything physical that happens on it, whether a host listens or not.
Every byte it sends is built by the simulator's own encoders (`boardsim.wire`,
`boardsim.eeprom_log`), not by the product's codec, so tests compare two readings of the
protocol. The EEPROM download leaves at the line's rate (`download_rate`, 960 bytes a
second of simulated time), so a host can be stopped half-way through it.

Output that is not an immediate answer (bus replies sent later, broadcast ping answers at
a random moment, the clock in update modes) comes out of `tick(t)`; `next_due()` says when
the next scheduled reply is due. Nothing here sleeps, reads the wall clock or does I/O.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

from boards.dgt.bus import BusRequest
from boards.dgt.decoder import ClockCommandFrame, HostItem, SetLeds, SingleCommand
from boards.position import BoardPosition
from boardsim import wire
from boardsim.clock import EmulatedClock, Side
from boardsim.eeprom_log import (
    FAST_CHANGE_SECONDS,
    RING_SIZE,
    START_CODES,
    START_CODES_ROTATED,
    Change,
    ClockRecord,
    EepromRing,
    LogTag,
    Marker,
    Record,
    position_tag,
    power_up_records,
    start_game_records,
)
from boardsim.firmware import (
    DEFAULT_FIRMWARE,
    PADDING_CYCLE,
    WATCHDOG_DEAF,
    WATCHDOG_MIN,
    Firmware,
    firmware_named,
)
from boardsim.paced import BYTES_PER_SECOND, PacedOutput
from boardsim.wire import BusHostCommand, BusReplyId, HostCommand
from clocks.reading import ClockReading, NoClock

if TYPE_CHECKING:
    from boards.dgt.eeprom import EepromEvent

EEPROM_SIZE = RING_SIZE  # bytes of event log a board keeps (0x1F00); the oldest go first
START_GAME_DELAY = 0.07  # SET_START_GAME answers once the EEPROM write is done
BROADCAST_PING_WINDOW = 1.1  # boards answer a broadcast ping at a random moment in this window
# What a board says once it cannot reach its clock (the clock cable pulled, the clock's
# batteries dead). DGT documents only the "no clock connected" bit of BWTIME, not when a
# board sets it; each reading below is one a board (or another emulator) may have:
#   no-clock        says "no clock connected" at once (in update mode) and when asked
#   frozen          says nothing; asked, it repeats the last reading it had (still running)
#   mute            says nothing, and does not answer SEND_CLK either
#   asked-no-clock  says nothing on its own; asked, it answers "no clock connected"
CLOCK_LOST_VARIANTS: tuple[str, ...] = ("no-clock", "frozen", "mute", "asked-no-clock")
RESET_SECONDS = 2.0  # a bus RESET reboots the board; it hears nothing meanwhile
UPDATE_CLOCK_PERIOD = 1.0  # SEND_UPDATE: the clock at least this often
POWER_ON_SECONDS = 0.5  # after power comes back, the board boots before it hears anything
MAX_ADDRESS = (1 << 14) - 1

START_POSITION = BoardPosition(START_CODES)
START_POSITION_ROTATED = BoardPosition(START_CODES_ROTATED)

__all__ = [
    "EEPROM_SIZE",
    "FAST_CHANGE_SECONDS",
    "START_POSITION",
    "START_POSITION_ROTATED",
    "EepromLog",
    "EmulatedBoard",
    "Mode",
    "ScheduledReply",
    "UpdateMode",
]


class Mode(StrEnum):
    SINGLE = "single"
    BUS = "bus"


class UpdateMode(StrEnum):
    """What a single-mode board sends on its own."""

    IDLE = "idle"
    UPDATE = "update"  # field updates + clock at least once a second
    UPDATE_BRD = "update_brd"  # field updates only
    UPDATE_NICE = "update_nice"  # field updates + clock when it changes


_CLOCK_MODES = frozenset({UpdateMode.UPDATE, UpdateMode.UPDATE_NICE})
_UPDATE_COMMANDS = {
    HostCommand.SEND_UPDATE: UpdateMode.UPDATE,
    HostCommand.SEND_UPDATE_BRD: UpdateMode.UPDATE_BRD,
    HostCommand.SEND_UPDATE_NICE: UpdateMode.UPDATE_NICE,
}


@dataclass(frozen=True, slots=True)
class ScheduledReply:
    """Bytes a board will put on the line at `due` (seconds, the same scale as `t`)."""

    due: float
    address: int
    data: bytes


class EepromLog(EepromRing):
    """The board's EEPROM ring, with the views tests and older callers use."""

    def data(self) -> bytes:
        """What SEND_EE_MOVES carries before its EOF: the whole ring, oldest byte first."""
        return self.dump()

    def events(self) -> list[EepromEvent]:
        """The download as the product's decoder reads it (for tests; not on the wire path)."""
        from boards.dgt.eeprom import decode_events

        return decode_events(self.dump())[0]


class EmulatedBoard:
    """One DGT e-board with its clock (or none), in bus mode after power-up.

    `serial` is the 5-digit serial number. The bus address is the serial's value as a
    14-bit number; a serial above 16383 does not fit, and the board answers at its low 14
    bits (our reading: DGT says only that the address is the serial as a 14-bit value),
    unless `bus_address` says otherwise. A host learns the address from the board (the
    BUSADRES reply, or a bus ping), never from the serial. `battery_percent`
    makes it a Bluetooth board that answers SEND_BATTERY_STATUS. `seed` makes the random
    broadcast ping timing reproducible. `download_rate` (bytes per second of simulated
    time) paces the EEPROM download like 9600 baud; None sends it at once. `firmware`
    names the variant (`boardsim.firmware`) whose log and habits the board has.
    `clock_lost` is what the board says once it cannot reach its clock
    (`CLOCK_LOST_VARIANTS`).
    """

    def __init__(
        self,
        serial: str = "10001",
        *,
        clock: EmulatedClock | None = None,
        has_clock: bool = True,
        position: BoardPosition = START_POSITION,
        version: tuple[int, int] = (1, 7),
        trademark: str | None = None,
        long_serial: str | None = None,
        battery_percent: int | None = None,
        seed: int = 0,
        t: float = 0.0,
        eeprom_size: int = EEPROM_SIZE,
        download_rate: float | None = BYTES_PER_SECOND,
        firmware: str | Firmware = DEFAULT_FIRMWARE,
        bus_address: int | None = None,
        clock_lost: str = "no-clock",
    ) -> None:
        if clock_lost not in CLOCK_LOST_VARIANTS:
            raise ValueError(
                f"no clock-lost variant {clock_lost!r}; choose from {', '.join(CLOCK_LOST_VARIANTS)}"
            )
        self.clock_lost = clock_lost
        if len(serial) != 5 or not serial.isdigit():
            raise ValueError(f"a DGT serial number is 5 digits, got {serial!r}")
        self.address = int(serial) & MAX_ADDRESS if bus_address is None else bus_address
        if not 0 < self.address <= MAX_ADDRESS:
            raise ValueError(
                f"serial {serial} gives bus address {self.address}, which is not 1..{MAX_ADDRESS}"
                " (0 is the broadcast address); choose another serial or bus_address"
            )
        self.serial = serial
        self.firmware = firmware_named(firmware)
        self.long_serial = long_serial if long_serial is not None else f"{int(serial):010d}"
        if len(self.long_serial) != 10 or not self.long_serial.isascii():
            raise ValueError(f"a long serial number is 10 ASCII characters: {self.long_serial!r}")
        self.version = version
        self.trademark = trademark if trademark is not None else _default_trademark(serial, version)
        self.battery_percent = battery_percent
        self.charging = False
        if clock is None and has_clock:
            clock = EmulatedClock(t=t)
        self.clock = clock
        self.position = position
        self.eeprom = EepromLog(eeprom_size)
        self.download_rate = download_rate
        self._line = PacedOutput(download_rate if download_rate is not None else BYTES_PER_SECOND)
        self.leds = b""
        self.dangerous_commands_received = 0
        self.dangerous_codes: list[int] = []
        self._rng = random.Random(seed)
        self._scheduled: list[ScheduledReply] = []
        self._last_change_t: float | None = None
        self._changes_mark = 0
        self._last_update: bytes = b""
        self._ignore_next_ping = False
        self._busy_until = t
        self._last_clock_payload: bytes | None = None
        self._last_clock_t = float("-inf")
        self._clock_heard: bytes | None = None  # the last reading the clock gave the board
        self.mode = Mode.BUS
        self.update_mode = UpdateMode.IDLE
        # Firmware habits: their own random stream, so the default board is unchanged.
        self._fw_rng = random.Random(f"firmware-{seed}-{serial}")
        self._padding = 0
        self._off_until: float | None = None  # no power until then
        self.power_losses = 0
        self.watchdog_resets = 0
        # The truth about the clock, for tests: (side that stopped, the time it showed) at
        # every press that changed the clock, logged or not (the clock has its own power).
        self.presses: list[tuple[Side, int]] = []
        self._watchdog_due = self._next_watchdog(t)
        self.power_up(t, reboot_seconds=0.0)
        self._changes_mark = 0  # the first SEND_CHANGES after switching on has it all

    # -- power and modes -----------------------------------------------------------------

    def power_up(self, t: float, *, reboot_seconds: float = RESET_SECONDS) -> None:
        """Switch on (or reboot): bus mode, idle; deaf for `reboot_seconds`.

        The log gets 3 NOPs, POWERUP, a piece change per occupied square and the
        position's tag, as a real board writes them (or as its firmware variant does).
        What the bus change buffer held is gone: it starts after the power-up records.
        """
        fw = self.firmware
        self._restart(t, reboot_seconds)
        self._log_all(
            power_up_records(
                self.position.codes,
                start_tag=fw.start_tag_at_power_up,
                tag_after=fw.tag_after_dump,
            )
        )
        self._forget_changes()

    def _restart(self, t: float, deaf_seconds: float) -> None:
        self.mode = Mode.BUS
        self.update_mode = UpdateMode.IDLE
        self._scheduled.clear()
        self._line.clear()
        self._ignore_next_ping = False
        self._busy_until = t + deaf_seconds

    def _forget_changes(self) -> None:
        self._changes_mark = self.eeprom.written
        self._last_update = b""

    def lose_power(self, t: float, seconds: float) -> None:
        """A power cut of `seconds` from `t`: the board hears, sends and logs nothing (the
        pieces still move and the clock, on its own batteries, still runs); then it boots
        as at any power-up (POWERUP and its pieces in the log, bus mode, idle, its bus
        change buffer lost) and is deaf for `POWER_ON_SECONDS` more."""
        if seconds <= 0:
            raise ValueError(f"a power cut lasts a positive time, not {seconds}")
        self._awake(t)
        self._restart(t, seconds)
        self._off_until = t + seconds
        self.power_losses += 1

    @property
    def powered(self) -> bool:
        return self._off_until is None

    def _awake(self, t: float) -> bool:
        """Power and watchdog at `t`: False while the board has no power."""
        if self._off_until is not None:
            if t < self._off_until:
                return False
            back = self._off_until
            self._off_until = None
            self.power_up(back, reboot_seconds=POWER_ON_SECONDS)
            self._watchdog_due = self._next_watchdog(back)
        if self._watchdog_due is not None and t >= self._watchdog_due:
            self.watchdog_reset(self._watchdog_due)
        return True

    def _next_watchdog(self, t: float) -> float | None:
        every = self.firmware.watchdog_every
        if every is None:
            return None
        return t + WATCHDOG_MIN + self._fw_rng.expovariate(1.0 / max(every - WATCHDOG_MIN, 1.0))

    def watchdog_reset(self, t: float) -> None:
        """The firmware hung and its watchdog restarted it: WATCHDOG and the pieces in the
        log (no POWERUP: the power never went), bus mode, idle, the change buffer lost,
        deaf for `WATCHDOG_DEAF` seconds. The `watchdog` firmware does this on its own;
        tests may call it on any board."""
        self._restart(t, WATCHDOG_DEAF)
        self._log_all(
            power_up_records(self.position.codes, first=LogTag.WATCHDOG, nops=0, tag_after=False)
        )
        self._forget_changes()
        self.watchdog_resets += 1
        self._watchdog_due = self._next_watchdog(t)

    def _log(self, record: Record) -> None:
        """One record into the EEPROM, NOP padding first on firmware that pads."""
        padding = isinstance(record, Marker) and record.tag in (LogTag.NOP, LogTag.NOP2)
        if self.firmware.padding and not padding and not self.eeprom.replaces(record):
            for b in PADDING_CYCLE[self._padding % len(PADDING_CYCLE)]:
                self.eeprom.append(Marker(LogTag(b)))
            self._padding += 1
        self.eeprom.write(record)

    def _log_all(self, records: list[Record]) -> None:
        for record in records:
            self._log(record)

    def _enter_single(self) -> None:
        if self.mode is Mode.BUS:
            self.mode = Mode.SINGLE
            self.update_mode = UpdateMode.IDLE

    def _enter_bus(self) -> None:
        self.mode = Mode.BUS
        self.update_mode = UpdateMode.IDLE

    def _set_update_mode(self, mode: UpdateMode) -> None:
        self.update_mode = mode
        # The first tick in a clock mode sends the clock, whatever was sent before.
        self._last_clock_payload = None
        self._last_clock_t = float("-inf")

    # -- host input ------------------------------------------------------------------------

    def handle(self, item: HostItem, t: float) -> bytes:
        """The bytes the board sends at once for one decoded host item (often none)."""
        if not self._awake(t) or t < self._busy_until:
            return b""
        return self._out(self._answer(item, t), t)

    def _answer(self, item: HostItem, t: float) -> bytes:
        match item:
            case BusRequest():
                return self._handle_bus(item, t)
            case SingleCommand(code):
                return self._handle_single(code, t)
            case ClockCommandFrame(command):
                self._enter_single()
                if self.clock is None:
                    return b""
                ack = self.clock.handle_command(command, t)
                if ack is None or self.update_mode not in _CLOCK_MODES:
                    return b""
                # The ack replaced the time display for a moment: send the times again next.
                self._last_clock_payload = None
                return wire.bwtime(wire.clock_ack(ack.ack0, ack.ack1, ack.ack2, ack.ack3))
            case SetLeds(data):
                self._enter_single()
                self.leds = data
                return b""
        raise TypeError(f"not a host item: {item!r}")

    def _out(self, data: bytes, t: float) -> bytes:
        """Output waits behind a download still on the line: one serial port, one byte at a
        time."""
        if self._line.busy:
            self._line.push(data, t)
            return b""
        return data

    def _handle_single(self, code: int, t: float) -> bytes:
        if code in wire.DANGEROUS:
            # Never act on these: a real board would start its bootloader or scan draughts.
            self.dangerous_commands_received += 1
            self.dangerous_codes.append(code)
            return b""
        self._enter_single()
        match code:
            case HostCommand.RESET:
                self.update_mode = UpdateMode.IDLE
                return b""
            case HostCommand.SEND_CLK:
                answer = self.clock_answer(t)
                return b"" if answer is None else wire.bwtime(answer)
            case HostCommand.SEND_BRD:
                return wire.board_dump(self.position.codes)
            case (
                HostCommand.SEND_UPDATE | HostCommand.SEND_UPDATE_BRD | HostCommand.SEND_UPDATE_NICE
            ):
                self._set_update_mode(_UPDATE_COMMANDS[HostCommand(code)])
                return b""
            case HostCommand.RETURN_SERIALNR:
                return wire.serial_number(self.serial)
            case HostCommand.RETURN_BUSADRES:
                return wire.bus_address(self.address)
            case HostCommand.SEND_TRADEMARK:
                return wire.trademark(self.trademark)
            case HostCommand.SEND_EE_MOVES:
                return self._download(t)
            case HostCommand.TO_BUSMODE:
                self._enter_bus()
                return b""
            case HostCommand.SEND_BATTERY_STATUS:
                if self.battery_percent is None:
                    return b""  # wired boards have no battery and do not answer
                return wire.battery_status(self.battery_payload())
            case HostCommand.SEND_VERSION:
                return wire.version(*self.version)
            case HostCommand.RETURN_LONG_SERIALNR:
                return wire.long_serial_number(self.long_serial)
        return b""

    def _download(self, t: float) -> bytes:
        frame = wire.ee_moves(self.eeprom.dump())
        if self.firmware.downloaded_tag:
            # Marks what the host has: the next download shows where this one ended.
            self._log(Marker(LogTag.DOWNLOADED))
        if self.download_rate is None:
            return frame
        # Queued even behind nothing: it leaves byte by byte from now on, through tick().
        self._line.push(frame, t)
        return b""

    @property
    def downloading(self) -> bool:
        """True while a paced download (and what queued behind it) is still leaving."""
        return self._line.busy

    def _handle_bus(self, request: BusRequest, t: float) -> bytes:
        self._enter_bus()  # any bus frame on the line puts the board (back) in bus mode
        command = request.command
        if request.address == 0:
            self._handle_broadcast(command, t)
            return b""
        if request.address != self.address:
            return b""
        match command:
            case BusHostCommand.SEND_CLK:
                answer = self.clock_answer(t)
                return b"" if answer is None else self._reply(BusReplyId.BWTIME, answer)
            case BusHostCommand.SEND_BRD:
                return self._reply(BusReplyId.BRD_DUMP, bytes(self.position.codes))
            case BusHostCommand.SEND_CHANGES:
                return self._reply(BusReplyId.UPDATE, self._take_changes())
            case BusHostCommand.REPEAT_CHANGES:
                return self._reply(BusReplyId.UPDATE, self._last_update)
            case BusHostCommand.SET_START_GAME:
                self._write_start_game()
                self._schedule(t + START_GAME_DELAY, BusReplyId.START_GAME_WRITTEN, b"")
                return b""
            case BusHostCommand.SEND_FROM_START:
                return self._reply(BusReplyId.FROM_START, self._from_start())
            case BusHostCommand.PING:
                return self._reply(BusReplyId.PING, b"")
            case BusHostCommand.IGNORE_NEXT_BUS_PING:
                self._ignore_next_ping = True
                return self._reply(BusReplyId.PING, b"")
            case BusHostCommand.SEND_VERSION:
                return self._reply(BusReplyId.VERSION, bytes(self.version))
            case BusHostCommand.SEND_ALL_D:
                return (
                    self._reply(BusReplyId.UPDATE, self._take_changes())
                    + self._reply(BusReplyId.BWTIME, self.clock_answer(t) or wire.NO_CLOCK)
                    + self._reply(BusReplyId.BRD_DUMP, bytes(self.position.codes))
                )
            case BusHostCommand.END_BUSMODE:
                self._enter_single()
                return b""
            case BusHostCommand.RESET:
                self.power_up(t)
                return b""
        return b""

    def _handle_broadcast(self, command: int, t: float) -> None:
        """Address 0: every board hears it; only pings are answered (later, at random)."""
        match command:
            case BusHostCommand.PING:
                if self._ignore_next_ping:
                    self._ignore_next_ping = False
                    return
                due = t + self._rng.uniform(0.0, BROADCAST_PING_WINDOW)
                self._schedule(due, BusReplyId.PING, b"")
            case BusHostCommand.IGNORE_NEXT_BUS_PING:
                self._ignore_next_ping = True
            case BusHostCommand.SET_START_GAME:
                self._write_start_game()
            case BusHostCommand.END_BUSMODE:
                self._enter_single()
            case BusHostCommand.RESET:
                self.power_up(t)
            case _:
                pass  # every board answering at once would only garble the line

    def _reply(self, reply_id: BusReplyId, data: bytes) -> bytes:
        return wire.bus_reply(reply_id, self.address, data)

    def _schedule(self, due: float, reply_id: BusReplyId, data: bytes) -> None:
        self._scheduled.append(ScheduledReply(due, self.address, self._reply(reply_id, data)))
        self._scheduled.sort(key=lambda r: r.due)

    def _take_changes(self) -> bytes:
        data = self.eeprom.since(self._changes_mark)
        self._changes_mark = self.eeprom.written
        # Fetched records are not rewritten later, or a host polling the changes would never
        # learn that a square it saw changed again.
        self.eeprom.seal()
        self._last_update = data
        return data

    def _from_start(self) -> bytes:
        start = self.eeprom.start_tag()
        return self.eeprom.since(self.eeprom.oldest if start is None else start)

    def _write_start_game(self) -> None:
        self._log_all(start_game_records(self.position.codes))

    # -- physical actions ------------------------------------------------------------------

    def set_square(self, index: int, code: int, t: float) -> bytes:
        """A piece lands on (or leaves, code 0) square `index`. Returns what the board sends."""
        if not 0 <= index < 64:
            raise ValueError(f"square index is 0..63, got {index}")
        if not 0 <= code <= 0x0F:
            raise ValueError(f"piece code is 0..15, got {code}")
        if self.position.codes[index] == code:
            return b""
        if not self._awake(t):
            self.position = self.position.with_piece(index, code)  # nobody sees it
            return b""
        fast = self._last_change_t is not None and t - self._last_change_t < FAST_CHANGE_SECONDS
        self._last_change_t = t
        self._log(Change(index, code, fast))
        self.position = self.position.with_piece(index, code)
        tag = position_tag(self.position.codes)
        if tag is not None:
            self._log(Marker(tag))
        if self.mode is Mode.SINGLE and self.update_mode is not UpdateMode.IDLE:
            return self._out(wire.field_update(index, code), t)
        return b""

    def set_position(self, position: BoardPosition, t: float) -> bytes:
        """Several squares change (e.g. the arbiter sets up a position): one change per square."""
        out = b""
        for index, code in enumerate(position.codes):
            out += self.set_square(index, code, t)
        return out

    def press_lever(self, side: Side, t: float) -> bytes:
        """A player presses the clock. Logs the stopped side's time; sends the clock if asked."""
        if self.clock is None:
            return b""
        result = self.clock.press_lever(side, t)
        if result is not None:
            self.presses.append((result.stopped, result.seconds))
        if not self._awake(t):
            return b""  # the clock runs on its own batteries; the board logs nothing
        if result is None or not self.clock.reachable:
            # The clock runs on its own batteries; unplugged, the board just cannot see it.
            return b""
        self._log(ClockRecord(result.stopped == "left", result.seconds))
        if self.mode is Mode.SINGLE and self.update_mode in _CLOCK_MODES:
            return self._out(self._send_clock(t), t)
        return b""

    def unplug_clock(self) -> None:
        if self.clock is not None:
            self.clock.connected = False

    def plug_clock(self) -> None:
        if self.clock is not None:
            self.clock.connected = True

    def clock_battery_dies(self, t: float) -> None:
        """The clock's batteries run out: it stops and the board can no longer reach it."""
        if self.clock is not None:
            self.clock_payload(t)  # what the board last heard from it
            self.clock.die(t)

    # -- periodic output -------------------------------------------------------------------

    def tick(self, t: float) -> bytes:
        """Everything due by `t`: scheduled bus replies, the download, the clock."""
        return b"".join(r.data for r in self.take_due(t)) + self.periodic_output(t)

    def take_due(self, t: float) -> list[ScheduledReply]:
        """Remove and return the scheduled replies due by `t`, earliest first."""
        if not self._awake(t):
            return []
        due = [r for r in self._scheduled if r.due <= t]
        self._scheduled = [r for r in self._scheduled if r.due > t]
        return due

    def periodic_output(self, t: float) -> bytes:
        """What leaves on its own: the next bytes of a download, and the clock in UPDATE
        (every second and on change) and UPDATE_NICE (on change) once the line is free."""
        if not self._awake(t):
            return b""
        out = self._line.take(t)
        if self._line.busy:
            return out  # the clock waits; the reading sent afterwards is the current one
        if self.mode is not Mode.SINGLE or self.update_mode not in _CLOCK_MODES:
            return out
        payload = self.clock_report(t)
        if payload is None:
            return out
        changed = payload != self._last_clock_payload
        periodic = (
            self.update_mode is UpdateMode.UPDATE and t - self._last_clock_t >= UPDATE_CLOCK_PERIOD
        )
        return out + self._send_clock(t, payload) if changed or periodic else out

    def scheduled(self) -> list[ScheduledReply]:
        """Replies waiting for their time, earliest first."""
        return list(self._scheduled)

    def next_due(self) -> float | None:
        return self._scheduled[0].due if self._scheduled else None

    def _send_clock(self, t: float, payload: bytes | None = None) -> bytes:
        payload = self.clock_payload(t) if payload is None else payload
        self._last_clock_payload = payload
        self._last_clock_t = t
        return wire.bwtime(payload)

    # -- state as the protocol shows it ----------------------------------------------------

    def _clock_lost(self) -> bool:
        return self.clock is not None and not self.clock.reachable

    def clock_report(self, t: float) -> bytes | None:
        """What the board reports of its clock on its own in update mode (None: nothing):
        the reading, "no clock" for a board without one, and for a clock it lost what its
        `clock_lost` variant says."""
        if self._clock_lost() and self.clock_lost != "no-clock":
            return None
        return self.clock_payload(t)

    def clock_answer(self, t: float) -> bytes | None:
        """What the board answers SEND_CLK with (None: no answer at all)."""
        if self._clock_lost():
            match self.clock_lost:
                case "frozen":
                    return self._clock_heard or wire.NO_CLOCK
                case "mute":
                    return None
        return self.clock_payload(t)

    def clock_payload(self, t: float) -> bytes:
        """The 7 BWTIME bytes: the clock's reading, or 'no clock connected'."""
        reading = self.clock.reading(t) if self.clock is not None else NoClock()
        if not isinstance(reading, ClockReading):
            return wire.NO_CLOCK
        self._clock_heard = wire.clock_times(
            left_seconds=reading.left_seconds,
            right_seconds=reading.right_seconds,
            running=reading.running,
            right_lever_high=reading.right_lever_high,
            left_flag=reading.left_flag,
            right_flag=reading.right_flag,
            left_final_flag=reading.left_final_flag,
            right_final_flag=reading.right_final_flag,
            left_increment_mode=reading.left_increment_mode,
            right_increment_mode=reading.right_increment_mode,
            battery_low=reading.battery_low,
        )
        return self._clock_heard

    def battery_payload(self) -> bytes:
        """Percent, time left h m, on-time h m, standby d h m, status bits (bit 0 charging)."""
        percent = max(0, min(100, self.battery_percent or 0))
        hours_left = percent * 20 // 100
        return bytes([percent, hours_left, 0, 1, 0, 0, 0, 0, 0x01 if self.charging else 0x00])


def _default_trademark(serial: str, version: tuple[int, int]) -> str:
    major, minor = version
    return (
        "Digital Game Technology\r\n"
        "boardsim emulated e-board\r\n"
        f"software version: {major}.{minor:02d}, serial no: {serial}\r\n"
    )
