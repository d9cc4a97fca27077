"""The public stream's format on Redis: what `serve --publish` writes and `mirror` reads.

Per event (its name made a slug), two keys:

- `boardwire:EVENT:stream`, a Redis Stream. Each entry is one public delta of the venue's
  hub, already delayed, as the hub numbered and encoded it (`epoch`, `seq`, `keys`, `text`),
  with a `patch`: the public state's parts that changed since the entry before it (games
  by id, the tournament), so a mirror keeps the same `PublicState` the venue's pages read.
  An entry of kind `snapshot` carries the whole public state instead (the first entry of
  each venue run, and after an outbox overflow): a mirror starts over from it.
- `boardwire:EVENT:snapshot`, a string: the newest snapshot and the id of the stream entry
  it is the state after, so a new mirror starts without replaying the day.

Only public data is written: the delayed state, the event's config without its serial
ports, the live and unpaired rounds the public pages show. Pure: no I/O, no clock.
Decoding is total over what Redis hands back: anything malformed is `StreamFormatError`.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from broadcast.config.model import EventConfig
from broadcast.games.book import GameBook
from broadcast.games.game_state import GameState, MoveRecord
from broadcast.games.ids import slug
from broadcast.journal.codec import NOT_MINE, CodecError, from_plain, register, to_plain
from broadcast.service.event_state import PublicState
from broadcast.service.snapshot import STORED_CLASSES
from broadcast.tournament.tournament_state import SectionState, TournamentState
from clocks.errors import BoardwireError

__all__ = [
    "FORMAT",
    "Entry",
    "Fields",
    "StreamFormatError",
    "StreamKeys",
    "Venue",
    "decode_entry",
    "decode_snapshot",
    "delta_fields",
    "public_config",
    "snapshot_fields",
]

FORMAT = "1"  # bumped when the entries change meaning; a mirror refuses another


class StreamFormatError(BoardwireError, ValueError):
    """A stream entry or snapshot this mirror cannot read (another format, damaged)."""


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


# -- values to plain data and back --------------------------------------------------------

_MOVE_FIELDS = [f.name for f in dataclasses.fields(MoveRecord)]
_GAME_FIELDS = [f.name for f in dataclasses.fields(GameState)]
_SECTION_FIELDS = [f.name for f in dataclasses.fields(SectionState) if f.name != "config"]


def _hook(value: Any) -> Any:
    if isinstance(value, dt.time):
        return {"__time__": value.isoformat()}
    return NOT_MINE


def _unhook(data: dict[str, Any]) -> Any:
    if "__time__" in data:
        return dt.time.fromisoformat(data["__time__"])
    return NOT_MINE


def public_config(config: EventConfig) -> EventConfig:
    """The config as it may leave the venue: without its file, the boards' ports and the
    Redis URL (which may hold a password)."""
    boards = tuple(dataclasses.replace(b, port="") for b in config.boards)
    return dataclasses.replace(config, source=None, boards=boards, publish=None)


def _game_plain(game: GameState) -> list[Any]:
    out: list[Any] = []
    for name in _GAME_FIELDS:
        value = getattr(game, name)
        if name == "moves":
            out.append([[getattr(m, f) for f in _MOVE_FIELDS] for m in value])
        else:
            out.append(to_plain(value))
    return out


def _game_from(data: Any) -> GameState:
    fields = dict(zip(_GAME_FIELDS, data, strict=True))
    fields["moves"] = tuple(MoveRecord(*m) for m in fields["moves"])
    for name in _GAME_FIELDS:
        if name != "moves":
            fields[name] = from_plain(fields[name])
    return GameState(**fields)


def _tournament_plain(tournament: TournamentState) -> Any:
    return [
        [name, {f: to_plain(getattr(s, f)) for f in _SECTION_FIELDS}]
        for name, s in tournament.sections.items()
    ]


def _tournament_from(config: EventConfig, data: Any) -> TournamentState:
    configs = {s.name: s for s in config.sections}
    sections = {}
    for name, fields in data:
        values = {f: from_plain(v) for f, v in fields.items()}
        sections[name] = SectionState(configs[name], **values)
    if list(sections) != list(configs):
        raise StreamFormatError("the stream's sections differ from its config's")
    return TournamentState(config, sections)


def _patch(before: PublicState | None, after: PublicState) -> dict[str, Any]:
    """The parts of `after` that are not (by identity) those of `before`."""
    patch: dict[str, Any] = {}
    old_games = before.book.games if before is not None else {}
    games = {k: _game_plain(g) for k, g in after.book.games.items() if old_games.get(k) is not g}
    if games:
        patch["games"] = games
    gone = [k for k in old_games if k not in after.book.games]
    if gone:
        patch["gone"] = gone
    if before is None or after.book.removed is not before.book.removed:
        patch["removed"] = {k: _game_plain(g) for k, g in after.book.removed.items()}
    if before is None or after.tournament is not before.tournament:
        patch["tournament"] = _tournament_plain(after.tournament)
    return patch


def _apply(config: EventConfig, before: PublicState | None, patch: Any, seq: int) -> PublicState:
    if not isinstance(patch, dict):
        raise StreamFormatError("a stream entry's patch is not an object")
    games = dict(before.book.games) if before is not None else {}
    for k in patch.get("gone", ()):
        games.pop(k, None)
    for k, g in patch.get("games", {}).items():
        games[k] = _game_from(g)
    if "removed" in patch:
        removed = {k: _game_from(g) for k, g in patch["removed"].items()}
    elif before is not None:
        removed = dict(before.book.removed)
    else:
        raise StreamFormatError("the first state of a stream must be whole")
    if "tournament" in patch:
        tournament = _tournament_from(config, patch["tournament"])
    elif before is not None:
        tournament = before.tournament
    else:
        raise StreamFormatError("the first state of a stream must be whole")
    if (
        before is not None
        and "games" not in patch
        and "gone" not in patch
        and "removed" not in patch
    ):
        book = before.book  # unchanged parts stay the same objects (the web caches by identity)
    else:
        book = GameBook(games, removed)
    return PublicState(tournament, book, seq)


# -- entries ------------------------------------------------------------------------------

Fields = dict[Any, Any]  # str names to str or bytes values (what redis-py takes)


def _venue_fields(venue: Venue) -> Fields:
    return {
        "venue": json.dumps(
            {
                "live": venue.live,
                "unpaired": venue.unpaired,
                "t": venue.t,
                "wall": venue.wall,
                "speed": venue.speed,
                "delay": venue.delay,
            },
            separators=(",", ":"),
        )
    }


def delta_fields(
    epoch: str,
    seq: int,
    keys: frozenset[str],
    text: str,
    before: PublicState | None,
    after: PublicState,
    venue: Venue,
) -> Fields:
    """A delta entry: the hub's wire text and the public state's change since `before`."""
    return {
        "format": FORMAT,
        "kind": "delta",
        "epoch": epoch,
        "seq": str(seq),
        "keys": json.dumps(sorted(keys)),
        "text": text,
        "patch": json.dumps(_patch(before, after), separators=(",", ":")),
        **_venue_fields(venue),
    }


def snapshot_fields(
    config: EventConfig, epoch: str, seq: int, state: PublicState, venue: Venue
) -> Fields:
    """A snapshot entry (also the snapshot key's value): the whole public state."""
    body = {
        "config": to_plain(public_config(config), _hook),
        "state": _patch(None, state),
    }
    return {
        "format": FORMAT,
        "kind": "snapshot",
        "epoch": epoch,
        "seq": str(seq),
        "body": zlib.compress(json.dumps(body, separators=(",", ":")).encode("utf-8"), 1),
        **_venue_fields(venue),
    }


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


def _text(fields: Mapping[Any, Any], name: str) -> str:
    value = fields.get(name.encode()) if name.encode() in fields else fields.get(name)
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            raise StreamFormatError(f"the entry's {name} is not UTF-8") from None
    if isinstance(value, str):
        return value
    raise StreamFormatError(f"the entry has no {name}")


def _venue(fields: Mapping[Any, Any]) -> Venue:
    data = json.loads(_text(fields, "venue"))
    live = {str(k): (int(v) if v is not None else None) for k, v in dict(data["live"]).items()}
    unpaired = {str(k): int(v) for k, v in dict(data["unpaired"]).items()}
    return Venue(
        live,
        unpaired,
        float(data["t"]),
        float(data["wall"]),
        float(data["speed"]),
        float(data["delay"]),
    )


def decode_snapshot(fields: Mapping[Any, Any]) -> Entry:
    """A snapshot entry (or the snapshot key's value) to its values."""
    try:
        if _text(fields, "format") != FORMAT:
            raise StreamFormatError(
                f"the stream is in format {_text(fields, 'format')!r}, this mirror reads "
                f"{FORMAT!r}: run the same boardwire version as the venue"
            )
        raw = fields.get(b"body", fields.get("body"))
        if not isinstance(raw, bytes):
            raise StreamFormatError("the snapshot has no body")
        body = json.loads(zlib.decompress(raw).decode("utf-8"))
        config = from_plain(body["config"], _unhook)
        if not isinstance(config, EventConfig):
            raise StreamFormatError("the snapshot's config is not an event's")
        seq = int(_text(fields, "seq"))
        state = _apply(config, None, body["state"], seq)
        return Entry(
            "snapshot", _text(fields, "epoch"), seq, frozenset(), "", _venue(fields), state, config
        )
    except StreamFormatError:
        raise
    except (
        CodecError,
        ValueError,
        KeyError,
        TypeError,
        IndexError,
        AttributeError,
        zlib.error,
    ) as exc:
        raise StreamFormatError(
            f"a snapshot that cannot be read ({type(exc).__name__}: {exc})"
        ) from None


def decode_entry(fields: Mapping[Any, Any], config: EventConfig, before: PublicState) -> Entry:
    """A stream entry to its values; a delta's state is `before` with its patch."""
    kind = _text(fields, "kind")
    if kind == "snapshot":
        return decode_snapshot(fields)
    if kind != "delta":
        raise StreamFormatError(f"unknown entry kind {kind[:40]!r}")
    try:
        if _text(fields, "format") != FORMAT:
            raise StreamFormatError(f"the stream is in format {_text(fields, 'format')!r}")
        seq = int(_text(fields, "seq"))
        keys = json.loads(_text(fields, "keys"))
        if not isinstance(keys, list) or not all(isinstance(k, str) for k in keys):
            raise StreamFormatError("an entry's keys are not a list of names")
        state = _apply(config, before, json.loads(_text(fields, "patch")), seq)
        return Entry(
            "delta",
            _text(fields, "epoch"),
            seq,
            frozenset(keys),
            _text(fields, "text"),
            _venue(fields),
            state,
        )
    except StreamFormatError:
        raise
    except (CodecError, ValueError, KeyError, TypeError, IndexError, AttributeError) as exc:
        raise StreamFormatError(
            f"an entry that cannot be read ({type(exc).__name__}: {exc})"
        ) from None
