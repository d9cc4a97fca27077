"""An emulated DGT e-board: a pure state machine, time passed in as seconds (float).

It answers what the host sends (decoded by `boards.dgt.decoder.HostStreamDecoder`) with
the bytes a real board would put on the line, in single-board and bus mode, and keeps an
EEPROM event log of everything physical that happens on it, whether a host listens or not.

Output that is not an immediate answer (bus replies sent later, broadcast ping answers at
a random moment, the clock in update modes) comes out of `tick(t)`; `next_due()` says when
the next scheduled reply is due. Nothing here sleeps, reads the wall clock or does I/O.
"""

from __future__ import annotations

import random
from collections import deque
from dataclasses import dataclass
from enum import StrEnum

import chess

from boards.dgt.bus import BusReply, BusRequest, address_from_serial
from boards.dgt.codes import DANGEROUS_COMMANDS, BusCommand, BusReplyId, Command
from boards.dgt.decoder import ClockCommandFrame, HostItem, SetLeds, SingleCommand
from boards.dgt.eeprom import (
    ClockTime,
    EepromEvent,
    PieceChange,
    Tag,
    TagEvent,
    decode_events,
    encode_event,
)
from boards.dgt.messages import (
    BatteryStatus,
    BoardDump,
    BusAddress,
    BWTime,
    EEMoves,
    FieldUpdate,
    LongSerialNumber,
    SerialNumber,
    Trademark,
    Version,
    encode_message,
)
from boards.position import BoardPosition
from boardsim.clock import EmulatedClock, Side
from clocks.reading import NoClock, encode_ack, encode_bwtime

EEPROM_SIZE = 7936  # bytes of event log a board keeps (~7.9 KB); oldest events go first
FAST_CHANGE_SECONDS = 0.25  # a piece change this soon after the previous one gets the fast bit
START_GAME_DELAY = 0.07  # SET_START_GAME answers once the EEPROM write is done
BROADCAST_PING_WINDOW = 1.1  # boards answer a broadcast ping at a random moment in this window
RESET_SECONDS = 2.0  # a bus RESET reboots the board; it hears nothing meanwhile
UPDATE_CLOCK_PERIOD = 1.0  # SEND_UPDATE: the clock at least this often

START_POSITION = BoardPosition.from_fen(chess.STARTING_BOARD_FEN)
START_POSITION_ROTATED = BoardPosition.from_fen(chess.STARTING_BOARD_FEN, "rotated")


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
    Command.SEND_UPDATE: UpdateMode.UPDATE,
    Command.SEND_UPDATE_BRD: UpdateMode.UPDATE_BRD,
    Command.SEND_UPDATE_NICE: UpdateMode.UPDATE_NICE,
}


@dataclass(frozen=True, slots=True)
class ScheduledReply:
    """Bytes a board will put on the line at `due` (seconds, the same scale as `t`)."""

    due: float
    address: int
    data: bytes


class EepromLog:
    """The board's circular event log, kept as whole events so trimming never splits one."""

    def __init__(self, capacity: int = EEPROM_SIZE) -> None:
        if capacity < 16:
            raise ValueError(f"EEPROM capacity too small: {capacity} bytes")
        self.capacity = capacity
        self._entries: deque[tuple[int, bytes]] = deque()
        self._size = 0
        self.next_seq = 0  # sequence number of the next event written

    def append(self, event: EepromEvent) -> int:
        raw = encode_event(event)
        seq = self.next_seq
        self._entries.append((seq, raw))
        self._size += len(raw)
        self.next_seq += 1
        while self._size > self.capacity:
            _, old = self._entries.popleft()
            self._size -= len(old)
        return seq

    def since(self, seq: int) -> bytes:
        """The bytes of every event numbered `seq` or later that is still in the log."""
        return b"".join(raw for s, raw in self._entries if s >= seq)

    def data(self) -> bytes:
        return self.since(0)

    def events(self) -> list[EepromEvent]:
        return decode_events(self.data())[0]

    def last_tag(self, tag: Tag) -> int | None:
        """Sequence number of the newest `tag` still in the log."""
        for seq, raw in reversed(self._entries):
            if raw == bytes([tag]):
                return seq
        return None

    def __len__(self) -> int:
        return self._size


class EmulatedBoard:
    """One DGT e-board with its clock (or none), in bus mode after power-up.

    `serial` is the 5-digit serial number; its value is the bus address. `battery_percent`
    makes it a Bluetooth board that answers SEND_BATTERY_STATUS. `seed` makes the random
    broadcast ping timing reproducible.
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
    ) -> None:
        if len(serial) != 5 or not serial.isdigit():
            raise ValueError(f"a DGT serial number is 5 digits, got {serial!r}")
        self.address = address_from_serial(serial)
        if self.address == 0:
            raise ValueError("serial 00000 is the bus broadcast address; choose another")
        self.serial = serial
        self.long_serial = long_serial if long_serial is not None else f"{self.address:010d}"
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
        self.mode = Mode.BUS
        self.update_mode = UpdateMode.IDLE
        self.power_up(t, reboot_seconds=0.0)

    # -- power and modes -----------------------------------------------------------------

    def power_up(self, t: float, *, reboot_seconds: float = RESET_SECONDS) -> None:
        """Switch on (or reboot): bus mode, idle, POWERUP logged; deaf for `reboot_seconds`."""
        self.mode = Mode.BUS
        self.update_mode = UpdateMode.IDLE
        self._scheduled.clear()
        self._ignore_next_ping = False
        self._busy_until = t + reboot_seconds
        self.eeprom.append(TagEvent(Tag.POWERUP))
        self._log_position_tags()

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
        """The bytes the board answers at once to one decoded host item (often none)."""
        if t < self._busy_until:
            return b""
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
                return encode_message(BWTime(encode_ack(ack)))
            case SetLeds(data):
                self._enter_single()
                self.leds = data
                return b""
        raise TypeError(f"not a host item: {item!r}")

    def _handle_single(self, code: int, t: float) -> bytes:
        if code in DANGEROUS_COMMANDS:
            # Never act on these: a real board would start its bootloader or scan draughts.
            self.dangerous_commands_received += 1
            self.dangerous_codes.append(code)
            return b""
        self._enter_single()
        match code:
            case Command.RESET:
                self.update_mode = UpdateMode.IDLE
                return b""
            case Command.SEND_CLK:
                return encode_message(BWTime(self.clock_payload(t)))
            case Command.SEND_BRD:
                return encode_message(BoardDump(self.position))
            case Command.SEND_UPDATE | Command.SEND_UPDATE_BRD | Command.SEND_UPDATE_NICE:
                self._set_update_mode(_UPDATE_COMMANDS[Command(code)])
                return b""
            case Command.RETURN_SERIALNR:
                return encode_message(SerialNumber(self.serial))
            case Command.RETURN_BUSADRES:
                return encode_message(BusAddress(self.address))
            case Command.SEND_TRADEMARK:
                return encode_message(Trademark(self.trademark))
            case Command.SEND_EE_MOVES:
                return encode_message(EEMoves(self.eeprom.data() + bytes([Tag.EOF])))
            case Command.TO_BUSMODE:
                self._enter_bus()
                return b""
            case Command.SEND_BATTERY_STATUS:
                if self.battery_percent is None:
                    return b""  # wired boards have no battery and do not answer
                return encode_message(BatteryStatus(self.battery_payload()))
            case Command.SEND_VERSION:
                return encode_message(Version(*self.version))
            case Command.RETURN_LONG_SERIALNR:
                return encode_message(LongSerialNumber(self.long_serial))
        return b""

    def _handle_bus(self, request: BusRequest, t: float) -> bytes:
        self._enter_bus()  # any bus frame on the line puts the board (back) in bus mode
        command = request.command
        if request.address == 0:
            self._handle_broadcast(command, t)
            return b""
        if request.address != self.address:
            return b""
        match command:
            case BusCommand.SEND_CLK:
                return self._reply(BusReplyId.BWTIME, self.clock_payload(t))
            case BusCommand.SEND_BRD:
                return self._reply(BusReplyId.BRD_DUMP, self.position.to_bytes())
            case BusCommand.SEND_CHANGES:
                return self._reply(BusReplyId.UPDATE, self._take_changes())
            case BusCommand.REPEAT_CHANGES:
                return self._reply(BusReplyId.UPDATE, self._last_update)
            case BusCommand.SET_START_GAME:
                self._write_start_game()
                self._schedule(t + START_GAME_DELAY, BusReplyId.START_GAME_WRITTEN, b"")
                return b""
            case BusCommand.SEND_FROM_START:
                return self._reply(BusReplyId.FROM_START, self._from_start())
            case BusCommand.PING:
                return self._reply(BusReplyId.PING, b"")
            case BusCommand.IGNORE_NEXT_BUS_PING:
                self._ignore_next_ping = True
                return self._reply(BusReplyId.PING, b"")
            case BusCommand.SEND_VERSION:
                return self._reply(BusReplyId.VERSION, bytes(self.version))
            case BusCommand.SEND_ALL_D:
                return (
                    self._reply(BusReplyId.UPDATE, self._take_changes())
                    + self._reply(BusReplyId.BWTIME, self.clock_payload(t))
                    + self._reply(BusReplyId.BRD_DUMP, self.position.to_bytes())
                )
            case BusCommand.END_BUSMODE:
                self._enter_single()
                return b""
            case BusCommand.RESET:
                self.power_up(t)
                return b""
        return b""

    def _handle_broadcast(self, command: BusCommand, t: float) -> None:
        """Address 0: every board hears it; only pings are answered (later, at random)."""
        match command:
            case BusCommand.PING:
                if self._ignore_next_ping:
                    self._ignore_next_ping = False
                    return
                due = t + self._rng.uniform(0.0, BROADCAST_PING_WINDOW)
                self._schedule(due, BusReplyId.PING, b"")
            case BusCommand.IGNORE_NEXT_BUS_PING:
                self._ignore_next_ping = True
            case BusCommand.SET_START_GAME:
                self._write_start_game()
            case BusCommand.END_BUSMODE:
                self._enter_single()
            case BusCommand.RESET:
                self.power_up(t)
            case _:
                pass  # every board answering at once would only garble the line

    def _reply(self, reply_id: BusReplyId, data: bytes) -> bytes:
        return BusReply(reply_id, self.address, data).encode()

    def _schedule(self, due: float, reply_id: BusReplyId, data: bytes) -> None:
        self._scheduled.append(ScheduledReply(due, self.address, self._reply(reply_id, data)))
        self._scheduled.sort(key=lambda r: r.due)

    def _take_changes(self) -> bytes:
        data = self.eeprom.since(self._changes_mark)
        self._changes_mark = self.eeprom.next_seq
        self._last_update = data
        return data

    def _from_start(self) -> bytes:
        seq = self.eeprom.last_tag(Tag.START_TAG)
        return self.eeprom.data() if seq is None else self.eeprom.since(seq)

    def _write_start_game(self) -> None:
        self.eeprom.append(TagEvent(Tag.START_TAG))
        for index, code in enumerate(self.position.codes):
            if code:
                self.eeprom.append(PieceChange(index, code))

    # -- physical actions ------------------------------------------------------------------

    def set_square(self, index: int, code: int, t: float) -> bytes:
        """A piece lands on (or leaves, code 0) square `index`. Returns what the board sends."""
        if not 0 <= index < 64:
            raise ValueError(f"square index is 0..63, got {index}")
        if not 0 <= code <= 0x0F:
            raise ValueError(f"piece code is 0..15, got {code}")
        if self.position.codes[index] == code:
            return b""
        fast = self._last_change_t is not None and t - self._last_change_t < FAST_CHANGE_SECONDS
        self._last_change_t = t
        self.eeprom.append(PieceChange(index, code, fast))
        self.position = self.position.with_piece(index, code)
        self._log_position_tags()
        if self.mode is Mode.SINGLE and self.update_mode is not UpdateMode.IDLE:
            return encode_message(FieldUpdate(index, code))
        return b""

    def set_position(self, position: BoardPosition, t: float) -> bytes:
        """Several squares change (e.g. the arbiter sets up a position): one change per square."""
        out = b""
        for index, code in enumerate(position.codes):
            out += self.set_square(index, code, t)
        return out

    def _log_position_tags(self) -> None:
        if self.position == START_POSITION:
            self.eeprom.append(TagEvent(Tag.BEGINPOS))
        elif self.position == START_POSITION_ROTATED:
            self.eeprom.append(TagEvent(Tag.BEGINPOS_ROT))
        elif not any(self.position.codes):
            self.eeprom.append(TagEvent(Tag.EMPTYBOARD))

    def press_lever(self, side: Side, t: float) -> bytes:
        """A player presses the clock. Logs the stopped side's time; sends the clock if asked."""
        if self.clock is None:
            return b""
        result = self.clock.press_lever(side, t)
        if result is None or not self.clock.connected:
            # The clock runs on its own batteries; unplugged, the board just cannot see it.
            return b""
        self.eeprom.append(ClockTime(result.stopped == "left", result.seconds))
        if self.mode is Mode.SINGLE and self.update_mode in _CLOCK_MODES:
            return self._send_clock(t)
        return b""

    def unplug_clock(self) -> None:
        if self.clock is not None:
            self.clock.connected = False

    def plug_clock(self) -> None:
        if self.clock is not None:
            self.clock.connected = True

    # -- periodic output -------------------------------------------------------------------

    def tick(self, t: float) -> bytes:
        """Everything due by `t`: scheduled bus replies, and the clock in update modes."""
        return b"".join(r.data for r in self.take_due(t)) + self.periodic_output(t)

    def take_due(self, t: float) -> list[ScheduledReply]:
        """Remove and return the scheduled replies due by `t`, earliest first."""
        due = [r for r in self._scheduled if r.due <= t]
        self._scheduled = [r for r in self._scheduled if r.due > t]
        return due

    def periodic_output(self, t: float) -> bytes:
        """The clock, in UPDATE (every second and on change) and UPDATE_NICE (on change)."""
        if self.mode is not Mode.SINGLE or self.update_mode not in _CLOCK_MODES:
            return b""
        payload = self.clock_payload(t)
        changed = payload != self._last_clock_payload
        periodic = (
            self.update_mode is UpdateMode.UPDATE and t - self._last_clock_t >= UPDATE_CLOCK_PERIOD
        )
        return self._send_clock(t, payload) if changed or periodic else b""

    def scheduled(self) -> list[ScheduledReply]:
        """Replies waiting for their time, earliest first."""
        return list(self._scheduled)

    def next_due(self) -> float | None:
        return self._scheduled[0].due if self._scheduled else None

    def _send_clock(self, t: float, payload: bytes | None = None) -> bytes:
        payload = self.clock_payload(t) if payload is None else payload
        self._last_clock_payload = payload
        self._last_clock_t = t
        return encode_message(BWTime(payload))

    # -- state as the protocol shows it ----------------------------------------------------

    def clock_payload(self, t: float) -> bytes:
        """The 7 BWTIME bytes: the clock's reading, or 'no clock connected'."""
        reading = self.clock.reading(t) if self.clock is not None else NoClock()
        return encode_bwtime(reading)

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
