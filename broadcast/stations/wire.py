"""What a station and the central serve say to each other through Redis. Pure.

Keys (EVENT is the event's slug, as the public stream's):

- `boardwire:EVENT:station:NAME` — the station's Redis Stream, in the order the station
  read things: its board events (`StationEvent`, numbered by its outbox), its greeting
  (`StationHello`, at every (re)connection) and its heartbeat (`StationBeat`, every
  second). Written by the station only; read by the central serve's consumer group
  `GROUP`, which acknowledges an entry once what it carries is durable in the journal.
- `boardwire:EVENT:stations` — a set: the names of the stations that ever greeted.
- `boardwire:EVENT:station:NAME:owner` — the running station's claim on its name (SET NX
  with an expiry, renewed): a second process with the same name is refused.
- `boardwire:EVENT:venue` — a hash the central serve writes at start (`Venue`): the
  event's name, every hall board on a station (number, station, port, bus address), the
  boards found by their serial numbers (`wanted`: number, serial, the one station that
  may find it or none), the venue clock (event time = `start` + (wall clock - `wall0`) * `speed`) and where the
  serve runs. A station reads its boards and its clock from it (at start, at every
  reconnection and every few seconds: a restarted serve writes a new clock).
- `boardwire:EVENT:station:NAME:known` — a hash the central serve keeps up to date: one
  field per hall board of that station (its number), what the journal knows of it
  (`encode_known`: a `KnownBoard`). A replacement computer with a fresh outbox gives it
  to its drivers, so its first connection to each board reads the board's log.
- `boardwire:EVENT:found:known` — the same for the boards found by their serial numbers,
  wherever they are found next: a station reads it before its first connection to a
  board it has just found (plugged in mid-round, or carried over from another computer).

Every entry is a flat hash of short text fields, with `v` (this format's version) and
`kind`. `decode_entry` is total: any fields in, a value or a `Refused` with a reason
out, never an exception (a hostile or damaged entry is skipped and reported once, never
applied). A board event travels as the journal's own codec writes it (kind and JSON),
and only a driver event's kind is accepted.
"""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from boards.driver_events import DriverEvent
from boards.position import BoardPosition
from boards.recovery import RECENT_CHANGES, KnownBoard
from broadcast.config.stations import valid_name
from broadcast.games.ids import slug
from broadcast.journal import codec

__all__ = [
    "FORMAT",
    "GROUP",
    "MAX_DATA_BYTES",
    "Refused",
    "StationBeat",
    "StationEntry",
    "StationEvent",
    "StationHello",
    "StationKeys",
    "Venue",
    "VenueBoard",
    "WantedBoard",
    "decode_entry",
    "decode_known",
    "decode_venue",
    "encode_entry",
    "encode_known",
    "encode_venue",
    "qualified_port",
    "qualify",
    "renamed_port",
]

FORMAT = "1"
GROUP = "boardwire-serve"
MAX_DATA_BYTES = 4 << 20  # a LogRecovered of a whole round's log is well under this
MAX_FIELD_BYTES = 256  # every other field
_DRIVER_KINDS = frozenset(cls.__name__ for cls in typing.get_args(DriverEvent))
_SEQ_MAX = 1 << 62


@dataclass(frozen=True, slots=True)
class StationKeys:
    """The Redis keys of one event's stations."""

    base: str

    @classmethod
    def of(cls, event: str) -> StationKeys:
        return cls(f"boardwire:{slug(event) or 'event'}")

    def stream(self, station: str) -> str:
        return f"{self.base}:station:{station}"

    def owner(self, station: str) -> str:
        return f"{self.base}:station:{station}:owner"

    def known(self, station: str) -> str:
        return f"{self.base}:station:{station}:known"

    @property
    def found(self) -> str:
        return f"{self.base}:found:known"

    @property
    def stations(self) -> str:
        return f"{self.base}:stations"

    @property
    def venue(self) -> str:
        return f"{self.base}:venue"


@dataclass(frozen=True, slots=True)
class StationEvent:
    """One board event, as the station's driver read it on `port` (the station's own
    path), numbered `seq` in outbox `incarnation`."""

    station: str
    incarnation: str
    seq: int
    port: str
    event: DriverEvent


@dataclass(frozen=True, slots=True)
class StationHello:
    """A station (re)connected: which hall boards it reads (config numbers), how far its
    outbox has numbered (`seq`), and where it runs."""

    station: str
    incarnation: str
    seq: int
    boards: tuple[int, ...]
    host: str
    pid: int
    t: float  # the station's event time when it said so


@dataclass(frozen=True, slots=True)
class StationBeat:
    """A station's heartbeat: its event time when sent (`t`), its wall clock's offset to
    Redis's TIME (`offset`, seconds, station minus Redis, measured over `rtt`), how far
    its outbox has numbered and how many events still wait to be sent, and the hall
    boards its drivers hold connected now."""

    station: str
    incarnation: str
    seq: int
    t: float
    offset: float
    rtt: float
    waiting: int
    connected: tuple[int, ...]


StationEntry = StationEvent | StationHello | StationBeat


@dataclass(frozen=True, slots=True)
class Refused:
    """An entry that is not one of ours, or damaged: why, in words."""

    reason: str


def qualified_port(station: str, port: str) -> str:
    """How the central serve names a station's port: ports are the station's own paths,
    and two stations may each have a /dev/ttyUSB0."""
    return f"{station}:{port}"


def renamed_port(event: DriverEvent, old: str, new: str) -> DriverEvent:
    """`event` with every field that names port `old` (a board's `port`, a board still
    named by its port) naming `new` instead."""
    if old == new:
        return event

    def fix(value: Any) -> Any:
        if not dataclasses.is_dataclass(value) or isinstance(value, type):
            return value
        changes: dict[str, Any] = {}
        for f in dataclasses.fields(value):
            inner = getattr(value, f.name)
            if f.name in ("port", "board") and inner == old:
                changes[f.name] = new
            elif dataclasses.is_dataclass(inner) and not isinstance(inner, type):
                fixed = fix(inner)
                if fixed is not inner:
                    changes[f.name] = fixed
        return dataclasses.replace(value, **changes) if changes else value

    return typing.cast(DriverEvent, fix(event))


def qualify(event: DriverEvent, station: str, port: str) -> DriverEvent:
    """`event` as the central serve keeps it: the station's port `port` qualified."""
    return renamed_port(event, port, qualified_port(station, port))


# -- encoding ---------------------------------------------------------------------------------------


def _ints(values: tuple[int, ...]) -> str:
    return json.dumps(list(values))


def encode_entry(entry: StationEntry) -> dict[str, str]:
    """The fields of a stream entry for `entry`."""
    head = {
        "v": FORMAT,
        "station": entry.station,
        "inc": entry.incarnation,
        "seq": str(entry.seq),
    }
    if isinstance(entry, StationEvent):
        kind, data = codec.encode(entry.event)
        return {**head, "kind": "event", "port": entry.port, "type": kind, "data": data}
    if isinstance(entry, StationHello):
        return {
            **head,
            "kind": "hello",
            "boards": _ints(entry.boards),
            "host": entry.host,
            "pid": str(entry.pid),
            "t": repr(entry.t),
        }
    return {
        **head,
        "kind": "beat",
        "t": repr(entry.t),
        "offset": repr(entry.offset),
        "rtt": repr(entry.rtt),
        "waiting": str(entry.waiting),
        "connected": _ints(entry.connected),
    }


# -- decoding (total) -------------------------------------------------------------------------------


class _Bad(Exception):
    pass


def _text(fields: Mapping[Any, Any], name: str, limit: int = MAX_FIELD_BYTES) -> str:
    raw = fields.get(name, fields.get(name.encode()))
    if raw is None:
        raise _Bad(f"no {name!r} field")
    if isinstance(raw, bytes | bytearray):
        if len(raw) > limit:
            raise _Bad(f"field {name!r} is {len(raw)} bytes (at most {limit})")
        try:
            return bytes(raw).decode("utf-8")
        except UnicodeDecodeError:
            raise _Bad(f"field {name!r} is not UTF-8") from None
    if isinstance(raw, str):
        if len(raw) > limit:
            raise _Bad(f"field {name!r} is {len(raw)} characters (at most {limit})")
        return raw
    raise _Bad(f"field {name!r} is not text")


def _int(fields: Mapping[Any, Any], name: str, low: int = 0, high: int = _SEQ_MAX) -> int:
    text = _text(fields, name, 32)
    if not text.isdigit() or not low <= int(text) <= high:
        raise _Bad(f"field {name!r} is not a whole number in {low}..{high}: {text[:20]!r}")
    return int(text)


def _float(fields: Mapping[Any, Any], name: str) -> float:
    text = _text(fields, name, 32)
    try:
        value = float(text)
    except ValueError:
        raise _Bad(f"field {name!r} is not a number: {text[:20]!r}") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise _Bad(f"field {name!r} is not a finite number")
    return value


def _boards(fields: Mapping[Any, Any], name: str) -> tuple[int, ...]:
    text = _text(fields, name, 64 * 1024)
    try:
        value = json.loads(text)
    except ValueError:
        raise _Bad(f"field {name!r} is not JSON") from None
    if not isinstance(value, list) or len(value) > 10_000:
        raise _Bad(f"field {name!r} is not a list of board numbers")
    if not all(type(v) is int and 0 < v < 1 << 31 for v in value):
        raise _Bad(f"field {name!r} holds something other than board numbers")
    return tuple(value)


_HINTS: dict[type[Any], dict[str, Any]] = {}


def _hints(cls: type[Any]) -> dict[str, Any]:
    if cls not in _HINTS:
        _HINTS[cls] = typing.get_type_hints(cls)
    return _HINTS[cls]


def _fits(value: Any, hint: Any) -> bool:
    """`value` is of the annotated type `hint` (as the driver events use them: scalars,
    None, Literal, unions, tuples, nested frozen dataclasses). The journal's codec builds
    whatever the JSON says: a position that is a number must not reach the hall."""
    if hint is Any:
        return True
    if hint is type(None) or hint is None:
        return value is None
    if hint is bool:
        return type(value) is bool
    if hint is int:
        return type(value) is int
    if hint is float:
        return type(value) in (float, int) and value == value and abs(value) != float("inf")
    if hint is str:
        return type(value) is str
    origin = typing.get_origin(hint)
    if origin is typing.Literal:
        return any(type(value) is type(a) and value == a for a in typing.get_args(hint))
    if origin in (typing.Union, types.UnionType):
        return any(_fits(value, a) for a in typing.get_args(hint))
    if origin is tuple:
        args = typing.get_args(hint)
        if type(value) is not tuple:
            return False
        if len(args) == 2 and args[1] is Ellipsis:
            return all(_fits(v, args[0]) for v in value)
        return len(args) == len(value) and all(
            _fits(v, a) for v, a in zip(value, args, strict=True)
        )
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return type(value) is hint and _type_fault(value) is None
    return False  # a type the driver events do not use: refused, never guessed


def _type_fault(value: Any) -> str | None:
    """The first field of dataclass `value` whose value is not of its annotated type."""
    for name, hint in _hints(type(value)).items():
        if name.startswith("_") or typing.get_origin(hint) is typing.ClassVar:
            continue
        if not _fits(getattr(value, name), hint):
            return f"{type(value).__name__}.{name} is not a {_named(hint)}"
    return None


def _named(hint: Any) -> str:
    return getattr(hint, "__name__", None) or str(hint).replace("typing.", "")


def _decode(fields: Mapping[Any, Any]) -> StationEntry:
    version = _text(fields, "v", 8)
    if version != FORMAT:
        raise _Bad(f"format {version[:8]!r}, this serve reads format {FORMAT}")
    station = _text(fields, "station", 64)
    if not valid_name(station):
        raise _Bad(f"station name {station[:40]!r} is not a station's name")
    incarnation = _text(fields, "inc", 64)
    if not incarnation or not incarnation.isalnum():
        raise _Bad("the outbox's incarnation is not letters and digits")
    seq = _int(fields, "seq")
    kind = _text(fields, "kind", 16)
    if kind == "event":
        if seq < 1:
            raise _Bad("a board event is numbered from 1")
        port = _text(fields, "port", 1024)
        if not port:
            raise _Bad("a board event with no port")
        type_name = _text(fields, "type", 64)
        if type_name not in _DRIVER_KINDS:
            raise _Bad(f"{type_name[:40]!r} is not a board event")
        data = _text(fields, "data", MAX_DATA_BYTES)
        try:
            event = codec.decode(type_name, data)
        except (codec.CodecError, ValueError, TypeError, RecursionError, KeyError) as exc:
            raise _Bad(f"its {type_name} cannot be read: {str(exc)[:120]}") from None
        if type(event).__name__ != type_name or not isinstance(event.t, float | int):
            raise _Bad(f"its {type_name} cannot be read")
        wrong = _type_fault(event)
        if wrong is not None:
            raise _Bad(f"its {type_name} is not well formed: {wrong}")
        return StationEvent(station, incarnation, seq, port, event)
    if kind == "hello":
        return StationHello(
            station,
            incarnation,
            seq,
            _boards(fields, "boards"),
            _text(fields, "host", 256),
            _int(fields, "pid", 0, 1 << 31),
            _float(fields, "t"),
        )
    if kind == "beat":
        return StationBeat(
            station,
            incarnation,
            seq,
            _float(fields, "t"),
            _float(fields, "offset"),
            _float(fields, "rtt"),
            _int(fields, "waiting"),
            _boards(fields, "connected"),
        )
    raise _Bad(f"unknown kind {kind[:20]!r}")


def decode_entry(fields: Mapping[Any, Any]) -> StationEntry | Refused:
    """The entry these stream fields hold (keys and values bytes or text), or why not."""
    try:
        return _decode(fields)
    except _Bad as exc:
        return Refused(str(exc))
    except Exception as exc:  # a total function: anything else is a damaged entry too
        return Refused(f"unreadable ({type(exc).__name__})")


# -- the venue (central serve -> stations) ----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class VenueBoard:
    """A hall board on a station: its config number, the station, the port (a path on
    that station's computer) and its bus address (None: alone on its port)."""

    number: int
    station: str
    port: str
    address: int | None


@dataclass(frozen=True, slots=True)
class WantedBoard:
    """A hall board found by its DGT serial number wherever it is plugged in: on any
    station, or only on `station` when the config names one."""

    number: int
    serial: str
    station: str | None = None


@dataclass(frozen=True, slots=True)
class Venue:
    """What the central serve tells the stations (see the module docstring)."""

    name: str
    boards: tuple[VenueBoard, ...]
    start: float
    wall0: float
    speed: float
    host: str
    pid: int
    wanted: tuple[WantedBoard, ...] = ()

    def event_time(self, wall: float) -> float:
        """The venue's event time at wall-clock second `wall`."""
        return self.start + (wall - self.wall0) * self.speed

    def boards_of(self, station: str) -> tuple[VenueBoard, ...]:
        return tuple(b for b in self.boards if b.station == station)

    def wanted_by(self, station: str) -> dict[str, WantedBoard]:
        """The boards `station` may find, by serial number."""
        return {w.serial: w for w in self.wanted if w.station in (None, station)}


def encode_venue(venue: Venue) -> dict[str, str]:
    boards = [[b.number, b.station, b.port, b.address] for b in venue.boards]
    wanted = [[w.number, w.serial, w.station] for w in venue.wanted]
    return {
        "v": FORMAT,
        "name": venue.name,
        "boards": json.dumps(boards),
        "wanted": json.dumps(wanted),
        "start": repr(venue.start),
        "wall0": repr(venue.wall0),
        "speed": repr(venue.speed),
        "host": venue.host,
        "pid": str(venue.pid),
    }


def _board_rows(text: str, field: str, shape: str) -> list[tuple[int, list[Any]]]:
    """The rows of venue field `field`: a JSON list of lists shaped like `shape`
    ("[number, ...]"), each starting with a hall board's number: (number, the rest)."""
    try:
        rows = json.loads(text)
    except ValueError:
        raise _Bad(f"'{field}' is not JSON") from None
    if not isinstance(rows, list):
        raise _Bad(f"'{field}' is not a list")
    width = shape.count(",") + 1
    out = []
    for row in rows:
        if not (isinstance(row, list) and len(row) == width):
            raise _Bad(f"a row of '{field}' is not {shape}")
        number = row[0]
        if type(number) is not int or number < 1:
            raise _Bad(f"a row of '{field}': its number is not a whole number from 1")
        out.append((number, row[1:]))
    return out


def _venue_boards(text: str) -> tuple[VenueBoard, ...]:
    out = []
    for number, (station, port, address) in _board_rows(
        text, "boards", "[number, station, port, address]"
    ):
        if not isinstance(station, str) or not valid_name(station):
            raise _Bad(f"board {number}: its station is not a station's name")
        if not isinstance(port, str) or not port or len(port) > 1024:
            raise _Bad(f"board {number}: its port is not a path")
        if address is not None and (type(address) is not int or not 0 < address < 1 << 14):
            raise _Bad(f"board {number}: its address is not a bus address")
        out.append(VenueBoard(number, station, port, address))
    return tuple(out)


def _wanted(fields: Mapping[Any, Any]) -> tuple[WantedBoard, ...]:
    if fields.get("wanted", fields.get(b"wanted")) is None:
        return ()  # a serve that finds no board by its serial number
    text = _text(fields, "wanted", MAX_DATA_BYTES)
    out = []
    for number, (serial, station) in _board_rows(text, "wanted", "[number, serial, station]"):
        if not isinstance(serial, str) or not serial.isdigit() or len(serial) > 10:
            raise _Bad(f"board {number}: its serial is not a DGT serial number")
        if station is not None and (not isinstance(station, str) or not valid_name(station)):
            raise _Bad(f"board {number}: its station is not a station's name")
        out.append(WantedBoard(number, serial, station))
    return tuple(out)


def decode_venue(fields: Mapping[Any, Any]) -> Venue | Refused:
    """The venue these hash fields hold, or why not (total)."""
    try:
        version = _text(fields, "v", 8)
        if version != FORMAT:
            raise _Bad(f"format {version[:8]!r}, this station reads format {FORMAT}")
        speed = _float(fields, "speed")
        if speed <= 0:
            raise _Bad("the venue's speed is not positive")
        return Venue(
            _text(fields, "name", 1024),
            _venue_boards(_text(fields, "boards", MAX_DATA_BYTES)),
            _float(fields, "start"),
            _float(fields, "wall0"),
            speed,
            _text(fields, "host", 256),
            _int(fields, "pid", 0, 1 << 31),
            _wanted(fields),
        )
    except _Bad as exc:
        return Refused(str(exc))
    except Exception as exc:
        return Refused(f"unreadable ({type(exc).__name__})")


# -- what the journal knows of a station's boards (central serve -> stations) ------------------------


def encode_known(known: KnownBoard) -> str:
    """One field of `StationKeys.known`: a `KnownBoard` as JSON (position: 64 piece codes,
    or null for a first start mid-round)."""
    position = list(known.position.codes) if known.position is not None else None
    return json.dumps(
        {
            "serial": known.serial,
            "position": position,
            "recent": [list(c) for c in known.recent],
            "last_seen": known.last_seen,
        },
        separators=(",", ":"),
    )


def _known(text: str) -> KnownBoard:
    try:
        value = json.loads(text)
    except ValueError:
        raise _Bad("not JSON") from None
    if not isinstance(value, dict):
        raise _Bad("not an object")
    serial, position, recent, seen = (
        value.get(k) for k in ("serial", "position", "recent", "last_seen")
    )
    if not isinstance(serial, str) or len(serial) > 64:
        raise _Bad("its serial is not text")
    codes: BoardPosition | None = None
    if position is not None:
        if not (
            isinstance(position, list)
            and len(position) == 64
            and all(type(c) is int and 0 <= c < 256 for c in position)
        ):
            raise _Bad("its position is not 64 piece codes")
        codes = BoardPosition(tuple(position))
    if not isinstance(recent, list) or len(recent) > RECENT_CHANGES:
        raise _Bad(f"its recent changes are not a list of at most {RECENT_CHANGES}")
    changes = []
    for c in recent:
        if not (
            isinstance(c, list)
            and len(c) == 2
            and all(type(x) is int for x in c)
            and 0 <= c[0] < 64
            and 0 <= c[1] < 256
        ):
            raise _Bad("a recent change is not [square, piece code]")
        changes.append((c[0], c[1]))
    if (
        not isinstance(seen, int | float)
        or isinstance(seen, bool)
        or seen != seen
        or abs(seen) == float("inf")
    ):
        raise _Bad("its last_seen is not a number")
    return KnownBoard(serial, codes, tuple(changes), float(seen))


def decode_known(fields: Mapping[Any, Any]) -> tuple[dict[int, KnownBoard], list[str]]:
    """The boards a `StationKeys.known` hash holds (hall board number -> `KnownBoard`),
    and why each field that is not one was left out (total: never an exception)."""
    out: dict[int, KnownBoard] = {}
    refused: list[str] = []
    for raw_key, raw in fields.items():
        try:
            key = raw_key.decode() if isinstance(raw_key, bytes | bytearray) else str(raw_key)
            if not key.isdigit() or not 0 < int(key) < 1 << 31:
                raise _Bad(f"field {key[:20]!r} is not a board number")
            text = _text({key: raw}, key, 64 * 1024)
            out[int(key)] = _known(text)
        except _Bad as exc:
            refused.append(str(exc))
        except Exception as exc:
            refused.append(f"unreadable ({type(exc).__name__})")
    return out, refused
