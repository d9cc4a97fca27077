"""The public stream's format on Redis: what `serve --publish` writes and `mirror` reads.

Per event (its name made a slug), two keys:

- `boardwire:EVENT:stream`, a Redis Stream of entries, each a hash of text fields:

  | field    | in       | what |
  |----------|----------|------|
  | `format` | all      | `FORMAT` ("3"); a mirror refuses any other, saying which it reads |
  | `kind`   | all      | `delta` or `snapshot` |
  | `epoch`  | all      | the venue run's token (the hub's): a new one at every venue start |
  | `seq`    | all      | the hub's sequence number (decimal); deltas of an epoch go up by one |
  | `venue`  | all      | JSON: `live`, `unpaired` rounds, event time `t`, `wall`, `speed`, `delay` |
  | `keys`   | delta    | JSON list: the websocket scope keys the delta is for |
  | `text`   | delta    | the delta as the hub sent it to spectators (a JSON object, its `seq` set) |
  | `patch`  | delta    | JSON: what changed in the public state (below) |
  | `body`   | snapshot | zlib of JSON `{"config": ..., "state": {games, removed, sections}}` |

  A delta's `patch` (every part optional): `games` {id: whole game} for games new to the
  stream; `edits` {id: {"base": the ply the mirror's game must have, "keep": moves kept
  (default: base), "moves": [moves after those], "set": {field: value}}} for games the
  mirror has; `gone` [ids]; `removed` {id: game} (all of them, when they changed);
  `sections` [[name, fields]] (the tournament's sections that changed, whole). A game is
  a list of GameState's fields in order, a move a list of MoveRecord's. A clock reading
  is an edit of a few fields: an entry of about 0.3 KB, where format 1 carried the whole
  game (about 10 KB at 72 plies).

  A snapshot entry carries the whole public state: the first entry of each venue run,
  after an outbox overflow, and after Redis lost what it had acknowledged.
- `boardwire:EVENT:snapshot`, a hash: the newest snapshot's fields plus `after`, the id
  of the stream entry it is the state after, so a new mirror starts without replaying.

Only public data is written: the delayed state, the event's config without its file, its
serial ports and its Redis URL, the live and unpaired rounds the public pages show.

Reading is total over whatever Redis hands back, since anyone with write access to Redis
can write there: `read_header`, `decode_entry` and `decode_snapshot` return a value or a
`Rejected` (the reason in words) and never raise. Every value is checked against its
type (`stream_checks`) before a page can see it; a snapshot's body is inflated only up
to `inflate_limit` (a 200 KB zlib bomb cannot take a mirror's memory); fields are at
most `MAX_FIELD_BYTES`; `seq` is a plain decimal below `MAX_SEQ`; a delta's text must be
the hub's message numbered like its entry. Pure: no I/O, no clock.
"""

from __future__ import annotations

import dataclasses
import json
import zlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from broadcast.config.model import EventConfig
from broadcast.games.game_state import GameState
from broadcast.games.ids import slug
from broadcast.journal.codec import register
from broadcast.publish.stream_checks import Unfit, check
from broadcast.publish.stream_values import (
    Mismatch,
    apply_patch,
    config_from,
    config_plain,
    game_plain,
    public_config,
    section_plain,
    state_patch,
    whole_state,
)
from broadcast.service.event_state import PublicState
from broadcast.service.snapshot import STORED_CLASSES
from broadcast.tournament.tournament_state import SectionState

__all__ = [
    "FORMAT",
    "MAX_FIELD_BYTES",
    "MAX_SEQ",
    "MAX_SNAPSHOT_BYTES",
    "Entry",
    "Fields",
    "Header",
    "Rejected",
    "SnapshotEncoder",
    "StreamKeys",
    "Venue",
    "decode_entry",
    "decode_snapshot",
    "delta_fields",
    "entry_bytes",
    "inflate",
    "inflate_limit",
    "public_config",
    "read_header",
    "snapshot_fields",
]

FORMAT = "3"  # 3: sections carry their team rounds, games lost `last_update`; 2: deltas carry edits

# What a mirror reads at most. A delta's text or patch: the biggest real one is a round
# published at once (a 2,000-player Swiss: 1,000 new games and their pairings, < 2 MB).
MAX_FIELD_BYTES = 32 << 20
# A snapshot's body, inflated: 5,000 games of 72 plies are about 55 MB. Real snapshots
# inflate 2.8x (games with moves) to 12x (a fresh 2,000-player Swiss), a zlib bomb about
# 1,000x: a body may inflate to MAX_RATIO times its size (at least MIN_LIMIT).
MAX_SNAPSHOT_BYTES = 256 << 20
MAX_RATIO = 64
MIN_LIMIT = 1 << 20
MAX_SEQ = 1 << 62


@dataclass(frozen=True, slots=True)
class StreamKeys:
    """The Redis keys of one event's public stream."""

    stream: str
    snapshot: str

    @classmethod
    def of(cls, event: str) -> StreamKeys:
        base = f"boardwire:{slug(event) or 'event'}"
        return cls(f"{base}:stream", f"{base}:snapshot")


@dataclass(frozen=True, slots=True)
class Venue:
    """What the venue says with each entry besides the state: the rounds being played and
    the rounds still to pair (the public pages show both), its event time and speed."""

    live: dict[str, int | None]
    unpaired: dict[str, int]
    t: float  # the venue's event time when the entry was made
    wall: float  # the venue's wall clock then (for the latency figures of the bench)
    speed: float
    delay: float


@dataclass(frozen=True, slots=True)
class Header:
    """What every entry says of itself: enough to place it before decoding the rest."""

    kind: Literal["delta", "snapshot"]
    epoch: str
    seq: int


@dataclass(frozen=True, slots=True)
class Entry:
    """One decoded stream entry: a delta (with its `text`) or a snapshot (`config` set)."""

    kind: str  # "delta" | "snapshot"
    epoch: str
    seq: int
    keys: frozenset[str]
    text: str
    venue: Venue
    state: PublicState  # the public state after this entry
    config: EventConfig | None = None


@dataclass(frozen=True, slots=True)
class Rejected:
    """An entry (or snapshot) a mirror does not take, and why, in words.

    `why`: "unreadable" (damaged, wrong types, too big), "format" (another boardwire
    version's stream), "mismatch" (well-formed, but for a state this mirror does not
    have: it needs a newer snapshot)."""

    reason: str
    why: Literal["unreadable", "format", "mismatch"] = "unreadable"


Fields = dict[Any, Any]  # str names to str or bytes values (what redis-py takes)


# -- writing (the venue) ------------------------------------------------------------------


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def _venue_json(venue: Venue) -> str:
    return _dumps(
        {
            "live": venue.live,
            "unpaired": venue.unpaired,
            "t": venue.t,
            "wall": venue.wall,
            "speed": venue.speed,
            "delay": venue.delay,
        }
    )


def delta_fields(
    epoch: str,
    seq: int,
    keys: frozenset[str],
    text: str,
    before: PublicState | None,
    after: PublicState,
    venue: Venue,
) -> Fields:
    """A delta entry: the hub's wire text and the public state's change since `before`
    (the state of the entry before it)."""
    return {
        "format": FORMAT,
        "kind": "delta",
        "epoch": epoch,
        "seq": str(seq),
        "keys": _dumps(sorted(keys)),
        "text": text,
        "patch": "{}" if after is before else _dumps(state_patch(before, after)),
        "venue": _venue_json(venue),
    }


class SnapshotEncoder:
    """Snapshot entries, keeping each game's and section's JSON from the snapshot before
    while it is the same object (states are immutable): a snapshot every 30 s encodes
    again only what changed since. One snapshot at a time (the publisher runs them in
    its one worker thread); the values it reads are frozen, so the loop goes on."""

    def __init__(self) -> None:
        self._games: dict[str, tuple[GameState, bytes]] = {}
        self._sections: dict[str, tuple[SectionState, bytes]] = {}
        self._config: tuple[EventConfig | None, bytes] = (None, b"")

    def fields(
        self, config: EventConfig, epoch: str, seq: int, state: PublicState, venue: Venue
    ) -> Fields:
        """A snapshot entry (also the snapshot key's value): the whole public state."""
        if self._config[0] is not config:
            self._config = (config, _dumps(config_plain(config)).encode("utf-8"))
        # Compressed a piece at a time: no single step holds the interpreter for long, so
        # the loop's thread gets its turn every few milliseconds (zlib lets go of it).
        z = zlib.compressobj(1)
        out = [z.compress(b'{"config":' + self._config[1] + b',"state":{"games":{')]
        out += [z.compress(piece) for piece in self._games_json(state.book.games)]
        removed = _dumps({k: game_plain(g) for k, g in state.book.removed.items()})
        out.append(z.compress(f'}},"removed":{removed},"sections":['.encode()))
        out += [z.compress(piece) for piece in self._sections_json(state.tournament.sections)]
        out.append(z.compress(b"]}}"))
        out.append(z.flush())
        return {
            "format": FORMAT,
            "kind": "snapshot",
            "epoch": epoch,
            "seq": str(seq),
            "body": b"".join(out),
            "venue": _venue_json(venue),
        }

    def _games_json(self, games: Mapping[str, GameState]) -> list[bytes]:
        fresh: dict[str, tuple[GameState, bytes]] = {}
        for k, g in games.items():
            hit = self._games.get(k)
            if hit is not None and hit[0] is g:
                fresh[k] = hit
            else:
                fresh[k] = (g, f"{_dumps(k)}:{_dumps(game_plain(g))}".encode())
        self._games = fresh  # only what this state holds: the cache never grows past it
        return _joined(text for _, text in fresh.values())

    def _sections_json(self, sections: Mapping[str, SectionState]) -> list[bytes]:
        fresh: dict[str, tuple[SectionState, bytes]] = {}
        for name, s in sections.items():
            hit = self._sections.get(name)
            if hit is not None and hit[0] is s:
                fresh[name] = hit
            else:
                fresh[name] = (s, f"[{_dumps(name)},{_dumps(section_plain(s))}]".encode())
        self._sections = fresh
        return _joined(text for _, text in fresh.values())


def _joined(pieces: Iterable[bytes]) -> list[bytes]:
    """`pieces` as the items of a JSON list or object: a comma before each but the first."""
    return [piece if n == 0 else b"," + piece for n, piece in enumerate(pieces)]


def snapshot_fields(
    config: EventConfig, epoch: str, seq: int, state: PublicState, venue: Venue
) -> Fields:
    """One snapshot entry, with no cache (tests, and the odd one-off)."""
    return SnapshotEncoder().fields(config, epoch, seq, state, venue)


def entry_bytes(fields: Mapping[Any, Any]) -> int:
    """What an entry's fields take (names and values, in bytes): its size on the wire."""
    total = 0
    for name, value in fields.items():
        for part in (name, value):
            total += len(part) if isinstance(part, bytes) else len(str(part).encode("utf-8"))
    return total


def _register() -> None:
    # Every dataclass a public state or a config holds, registered by name, so a mirror
    # (which never loaded a config file nor a journal) can decode them. A game holds
    # events too (its pending `ResultProposed`): the journal's kinds, as a venue has them.
    from broadcast.config import model
    from broadcast.journal.kinds import register_all
    from clocks import timecontrol

    register_all()

    classes = [
        obj
        for module in (model, timecontrol)
        for obj in vars(module).values()
        if isinstance(obj, type)
        and dataclasses.is_dataclass(obj)
        and obj.__module__ == module.__name__
    ]
    register(*classes, *STORED_CLASSES)


_register()


# -- reading (a mirror; the venue's resume reads headers) ---------------------------------


class _FormatError(Unfit):
    """Another boardwire version's stream."""


def inflate_limit(compressed: int) -> int:
    """The most bytes a snapshot body of `compressed` bytes may inflate to."""
    return min(MAX_SNAPSHOT_BYTES, max(MIN_LIMIT, MAX_RATIO * compressed))


def inflate(raw: bytes, limit: int) -> bytes:
    """`raw` inflated, never holding more than `limit` bytes of it (Unfit past that)."""
    inflater = zlib.decompressobj()
    out = inflater.decompress(raw, limit + 1)
    if len(out) > limit or inflater.unconsumed_tail:
        raise Unfit(
            f"the snapshot would inflate past {limit >> 20} MB (from {len(raw) >> 10} KB): "
            "not one the venue writes"
        )
    if not inflater.eof:
        raise Unfit("the snapshot's body is cut short")
    return out


def _field(fields: Mapping[Any, Any], name: str) -> Any:
    key = name.encode()
    return fields[key] if key in fields else fields.get(name)


def _text(fields: Mapping[Any, Any], name: str) -> str:
    value = _field(fields, name)
    if isinstance(value, bytes | str) and len(value) > MAX_FIELD_BYTES:
        raise Unfit(f"the entry's {name} is larger than {MAX_FIELD_BYTES >> 20} MB")
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            raise Unfit(f"the entry's {name} is not UTF-8") from None
    if isinstance(value, str):
        return value
    raise Unfit(f"the entry has no {name}")


def _no_constants(name: str) -> Any:
    raise Unfit(f"a number that is {name}")


def _json(fields: Mapping[Any, Any], name: str) -> Any:
    text = _text(fields, name)
    try:
        return json.loads(text, parse_constant=_no_constants)
    except ValueError as exc:  # JSONDecodeError, and Unfit from the NaN hook
        raise Unfit(f"the entry's {name} is not JSON ({str(exc)[:80]})") from None


def _header(fields: Any) -> Header:
    if not isinstance(fields, Mapping):
        raise Unfit("the entry is not a set of fields")
    theirs = _text(fields, "format")
    if theirs != FORMAT:
        raise _FormatError(
            f"the venue writes the public stream in format {theirs[:20]!r} and this "
            f"boardwire reads format {FORMAT!r}: run the same boardwire version at the "
            "venue and on every mirror"
        )
    kind = _text(fields, "kind")
    if kind not in ("delta", "snapshot"):
        raise Unfit(f"unknown entry kind {kind[:40]!r}")
    epoch = _text(fields, "epoch")
    if not 0 < len(epoch) <= 64 or not epoch.isprintable():
        raise Unfit("the entry's epoch is not a venue run's")
    seq_text = _text(fields, "seq")
    if not seq_text.isascii() or not seq_text.isdigit() or len(seq_text) > 19:
        raise Unfit(f"the entry's seq {seq_text[:30]!r} is not a sequence number")
    seq = int(seq_text)
    if seq >= MAX_SEQ:
        raise Unfit(f"the entry's seq {seq} is out of range")
    return Header("delta" if kind == "delta" else "snapshot", epoch, seq)


def _venue(fields: Mapping[Any, Any]) -> Venue:
    data = _json(fields, "venue")
    if type(data) is not dict:
        raise Unfit("the entry's venue is not an object")
    live: Any = data.get("live")
    unpaired: Any = data.get("unpaired")
    check(live, dict[str, int | None], "the venue's live rounds")
    check(unpaired, dict[str, int], "the venue's unpaired rounds")
    numbers: dict[str, Any] = {name: data.get(name) for name in ("t", "wall", "speed", "delay")}
    for name, value in numbers.items():
        check(value, float, f"the venue's {name}")
    t, wall, speed, delay = (float(numbers[n]) for n in ("t", "wall", "speed", "delay"))
    if not 0 < speed <= 10_000 or delay < 0:
        raise Unfit("the venue's speed or delay is out of range")
    return Venue(live, unpaired, t, wall, speed, delay)


def _keys(fields: Mapping[Any, Any]) -> frozenset[str]:
    keys = _json(fields, "keys")
    if (
        type(keys) is not list
        or len(keys) > 10_000
        or not all(type(k) is str and 0 < len(k) <= 300 for k in keys)
    ):
        raise Unfit("the entry's keys are not a list of names")
    return frozenset(keys)


def _wire_text(fields: Mapping[Any, Any], seq: int) -> str:
    # The text goes to spectators' browsers as it is: it must be the hub's message.
    text = _text(fields, "text")
    message = _json(fields, "text")
    if type(message) is not dict or type(message.get("type")) is not str:
        raise Unfit("the entry's text is not a message")
    if message.get("seq") != seq:
        raise Unfit("the entry's text is numbered unlike the entry")
    return text


def _rejection(exc: BaseException, what: str) -> Rejected:
    if isinstance(exc, _FormatError):
        return Rejected(str(exc), "format")
    if isinstance(exc, Mismatch):
        return Rejected(str(exc), "mismatch")
    if isinstance(exc, Unfit):
        return Rejected(str(exc))
    if isinstance(exc, RecursionError):
        return Rejected(f"{what} nested too deep to be the venue's")
    return Rejected(f"{what} that cannot be read ({type(exc).__name__}: {str(exc)[:120]})")


def read_header(fields: Any) -> Header | Rejected:
    """The entry's format, kind, epoch and seq, or why it is not an entry of ours."""
    try:
        return _header(fields)
    except Exception as exc:  # hostile data: whatever it provokes is a rejection
        return _rejection(exc, "an entry")


def _snapshot(fields: Mapping[Any, Any]) -> Entry:
    header = _header(fields)
    if header.kind != "snapshot":
        raise Unfit("a delta where a snapshot was expected")
    raw = _field(fields, "body")
    if not isinstance(raw, bytes):
        raise Unfit("the snapshot has no body")
    if len(raw) > MAX_FIELD_BYTES * 4:
        raise Unfit(f"the snapshot's body is larger than {MAX_FIELD_BYTES * 4 >> 20} MB")
    try:
        text = inflate(raw, inflate_limit(len(raw))).decode("utf-8")
    except (zlib.error, UnicodeDecodeError) as exc:
        raise Unfit(f"the snapshot's body cannot be read ({type(exc).__name__})") from None
    try:
        body = json.loads(text, parse_constant=_no_constants)
    except ValueError as exc:
        raise Unfit(f"the snapshot's body is not JSON ({str(exc)[:80]})") from None
    if type(body) is not dict or not {"config", "state"} <= set(body):
        raise Unfit("the snapshot's body is not a config and a state")
    config = config_from(body["config"])
    state = whole_state(config, body["state"], header.seq)
    return Entry(
        "snapshot", header.epoch, header.seq, frozenset(), "", _venue(fields), state, config
    )


def decode_snapshot(fields: Any) -> Entry | Rejected:
    """A snapshot entry (or the snapshot key's value) to its values, or why not."""
    try:
        return _snapshot(fields)
    except Exception as exc:  # hostile data: whatever it provokes is a rejection
        return _rejection(exc, "a snapshot")


def decode_entry(fields: Any, config: EventConfig, before: PublicState) -> Entry | Rejected:
    """A stream entry to its values (a delta's state is `before` with its patch), or why
    not: unreadable, another format, or a delta that does not apply to `before`."""
    try:
        header = _header(fields)
        if header.kind == "snapshot":
            return _snapshot(fields)
        keys = _keys(fields)
        text = _wire_text(fields, header.seq)
        venue = _venue(fields)
        state = apply_patch(config, before, _json(fields, "patch"), header.seq)
        return Entry("delta", header.epoch, header.seq, keys, text, venue, state)
    except Exception as exc:  # hostile data: whatever it provokes is a rejection
        return _rejection(exc, "an entry")
