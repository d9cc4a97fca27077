"""Single-board messages, board to host, as values; `encode_message` builds their frames.

Frame: id (bit 7 set), two 7-bit bytes of the TOTAL length (header included), payload
with every byte below 0x80.
"""

from __future__ import annotations

from dataclasses import dataclass

from boards.dgt.codes import MessageId
from boards.dgt.eeprom import EepromEvent, decode_events, encode_events
from boards.position import BoardPosition


@dataclass(frozen=True, slots=True)
class BoardDump:
    position: BoardPosition


@dataclass(frozen=True, slots=True)
class BWTime:
    """Seven raw bytes: clock times or a clock ack; clocks.reading.decode_bwtime reads them."""

    raw: bytes


@dataclass(frozen=True, slots=True)
class FieldUpdate:
    index: int
    code: int


@dataclass(frozen=True, slots=True)
class EEMoves:
    data: bytes

    def events(self) -> list[EepromEvent]:
        return decode_events(self.data)[0]


@dataclass(frozen=True, slots=True)
class BusAddress:
    address: int


@dataclass(frozen=True, slots=True)
class SerialNumber:
    text: str


@dataclass(frozen=True, slots=True)
class Trademark:
    text: str


@dataclass(frozen=True, slots=True)
class Version:
    major: int
    minor: int


@dataclass(frozen=True, slots=True)
class BatteryStatus:
    """Bluetooth boards: percent, then times and status bits (layout not certain; kept raw)."""

    raw: bytes

    @property
    def percent(self) -> int | None:
        if not self.raw or self.raw[0] > 100:
            return None
        return self.raw[0]

    @property
    def charging(self) -> bool:
        return len(self.raw) >= 9 and bool(self.raw[8] & 0x01)


@dataclass(frozen=True, slots=True)
class LongSerialNumber:
    text: str


BoardMessage = (
    BoardDump
    | BWTime
    | FieldUpdate
    | EEMoves
    | BusAddress
    | SerialNumber
    | Trademark
    | Version
    | BatteryStatus
    | LongSerialNumber
)

MAX_LENGTH = (1 << 14) - 1
# Total frame lengths: exact for fixed messages, (min, max) for variable ones.
FIXED_LENGTHS: dict[int, int] = {
    MessageId.BOARD_DUMP: 67,
    MessageId.BWTIME: 10,
    MessageId.FIELD_UPDATE: 5,
    MessageId.BUSADRES: 5,
    MessageId.SERIALNR: 8,
    MessageId.VERSION: 5,
    MessageId.LONG_SERIALNR: 13,
}
VARIABLE_LENGTHS: dict[int, tuple[int, int]] = {
    MessageId.EE_MOVES: (3, MAX_LENGTH),
    MessageId.TRADEMARK: (3, 512),
    MessageId.BATTERY_STATUS: (4, 12),  # the header file says 7, boards send 12
}


def length_ok(message_id: int, total: int) -> bool:
    fixed = FIXED_LENGTHS.get(message_id)
    if fixed is not None:
        return total == fixed
    bounds = VARIABLE_LENGTHS.get(message_id)
    return bounds is not None and bounds[0] <= total <= bounds[1]


def frame(message_id: int, payload: bytes) -> bytes:
    total = len(payload) + 3
    if total > MAX_LENGTH:
        raise ValueError(f"message too long for a DGT frame: {total} bytes")
    if any(b >= 0x80 for b in payload):
        raise ValueError("DGT payload bytes must be below 0x80")
    return bytes([message_id, (total >> 7) & 0x7F, total & 0x7F]) + payload


def _ascii(text: str, size: int) -> bytes:
    raw = text.encode("ascii")
    if len(raw) != size:
        raise ValueError(f"expected {size} ASCII characters, got {text!r}")
    return raw


def encode_message(message: BoardMessage) -> bytes:
    """The frame a board sends for `message` (the simulator and tests use this)."""
    match message:
        case BoardDump(position):
            return frame(MessageId.BOARD_DUMP, position.to_bytes())
        case BWTime(raw):
            if len(raw) != 7:
                raise ValueError("BWTIME payload is 7 bytes")
            return frame(MessageId.BWTIME, raw)
        case FieldUpdate(index, code):
            return frame(MessageId.FIELD_UPDATE, bytes([index, code]))
        case EEMoves(data):
            return frame(MessageId.EE_MOVES, data)
        case BusAddress(address):
            return frame(MessageId.BUSADRES, bytes([(address >> 7) & 0x7F, address & 0x7F]))
        case SerialNumber(text):
            return frame(MessageId.SERIALNR, _ascii(text, 5))
        case Trademark(text):
            return frame(MessageId.TRADEMARK, text.encode("ascii"))
        case Version(major, minor):
            return frame(MessageId.VERSION, bytes([major, minor]))
        case BatteryStatus(raw):
            return frame(MessageId.BATTERY_STATUS, raw)
        case LongSerialNumber(text):
            return frame(MessageId.LONG_SERIALNR, _ascii(text, 10))
    raise TypeError(f"not a board message: {message!r}")


def decode_payload(message_id: int, payload: bytes) -> BoardMessage | None:
    """The message for a complete, length-checked frame; None when the content is impossible."""
    match message_id:
        case MessageId.BOARD_DUMP:
            return BoardDump(BoardPosition.from_bytes(payload))
        case MessageId.BWTIME:
            return BWTime(bytes(payload))
        case MessageId.FIELD_UPDATE:
            if payload[0] >= 64:
                return None
            return FieldUpdate(payload[0], payload[1])
        case MessageId.EE_MOVES:
            return EEMoves(bytes(payload))
        case MessageId.BUSADRES:
            return BusAddress((payload[0] << 7) | payload[1])
        case MessageId.SERIALNR:
            return SerialNumber(payload.decode("ascii"))
        case MessageId.TRADEMARK:
            return Trademark(payload.decode("ascii"))
        case MessageId.VERSION:
            return Version(payload[0], payload[1])
        case MessageId.BATTERY_STATUS:
            return BatteryStatus(bytes(payload))
        case MessageId.LONG_SERIALNR:
            return LongSerialNumber(payload.decode("ascii"))
    return None


def ee_moves(events: list[EepromEvent]) -> EEMoves:
    """An EE_MOVES message carrying `events`, terminated by EOF as boards do."""
    return EEMoves(encode_events(events) + b"\x6b")


__all__ = [
    "FIXED_LENGTHS",
    "MAX_LENGTH",
    "VARIABLE_LENGTHS",
    "BWTime",
    "BatteryStatus",
    "BoardDump",
    "BoardMessage",
    "BusAddress",
    "EEMoves",
    "FieldUpdate",
    "LongSerialNumber",
    "SerialNumber",
    "Trademark",
    "Version",
    "decode_payload",
    "ee_moves",
    "encode_message",
    "frame",
    "length_ok",
]
