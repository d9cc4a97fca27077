"""Snapshots of the folded state: a restart replays the journal's tail, not all of it.

A snapshot holds, as of journal event `seq`: the `EventState` (without the config, which
comes from the event's file), the arbiter rules' memory (`RulesMemory`), and the public
(delayed) state of that moment. It lives in the journal file's `snapshots` table (the
newest two are kept) and is checked before use:

- `format`: SNAPSHOT_FORMAT (bumped by hand whenever a fold changes meaning) and a digest
  of the stored classes' fields (a class that changed shape makes it not fit);
- `fingerprint`: the event's config and the rules' settings it was folded with;
- `digest`: of the journal's row `seq`, so it belongs to this journal and this history;
- `checksum`: of the body, so a damaged one is not read.

A snapshot that does not fit is ignored with one log line, and the journal is replayed in
full: a snapshot is never needed for correctness, only for speed.

Taking one: the service captures its state (an immutable value: free) and the rules'
memory (a copy of their sets and dicts) on the event loop, at a moment when everything
folded is durable in the journal; encoding, compressing and storing run in a worker
thread. Encoding is incremental: games are encoded once per distinct value and cached by
identity, so a game that is over costs nothing after its first snapshot; the state's and
the public books share one pool of games (the rules keep none: they read the state).

The body is JSON (the journal codec's conventions for dataclasses), zlib-compressed.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import threading
import time
import zlib
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from boards.position import BoardPosition
from broadcast.arbiter.alerts import Alert
from broadcast.arbiter.context import RulesConfig
from broadcast.arbiter.dispatch import RulesMemory
from broadcast.arbiter.memory import BoardWatchMemory, WatchMemory
from broadcast.arbiter.presence import Presence
from broadcast.config.model import EventConfig, PlayerEntry
from broadcast.fide.pairing import Pairing
from broadcast.games.book import GameBook
from broadcast.games.game_state import GameState, MoveRecord, PlayerRef
from broadcast.games.ids import GameKey
from broadcast.journal.codec import NOT_MINE, from_plain, register, to_plain
from broadcast.journal.compaction import Compactor
from broadcast.journal.snapshot_table import StoredSnapshot
from broadcast.journal.store import Journal, JournalError
from broadcast.phrases import Phrase
from broadcast.service.event_state import BoardMemory, BoardStatus, EventState, PublicState
from broadcast.tournament.section import GameResult, PlayoffGame, RoundState
from broadcast.tournament.tournament_state import SectionState, TournamentState
from clocks.errors import BoardwireError

if TYPE_CHECKING:
    from broadcast.arbiter.dispatch import ArbiterRules
    from broadcast.journal.store import Journal
    from broadcast.service.delayed import DelayedView
    from clocks.timesource import EpochTimeSource


class Snapshotted(Protocol):
    """What a snapshot is taken of: the committer (or the service over it)."""

    @property
    def state(self) -> EventState: ...
    @property
    def rules(self) -> ArbiterRules: ...
    @property
    def public(self) -> DelayedView[PublicState]: ...
    @property
    def journal(self) -> Journal: ...
    @property
    def syncing(self) -> bool: ...
    @property
    def time_source(self) -> EpochTimeSource: ...


log = logging.getLogger(__name__)

# 2: the rules fold GameMoveClocked and GameFlag too; 3: they read the state; 4: actions
# are undone (ActionUndone), granted byes kept canonical, who withdrew a player kept;
# 5: the capture stations' progress and where each board last connected are kept (a
# snapshot without them made a restart apply a station's durable entries again).
SNAPSHOT_FORMAT = "5"
# When to take one: this many events since the last one, and at least this many real
# seconds apart (a snapshot of a big event costs a few hundred ms of a worker thread).
EVERY_EVENTS = 10_000
MIN_SECONDS = 30.0
# A replay longer than this at start takes one as soon as the service runs.
LONG_REPLAY = 5_000

# Every class a snapshot stores the fields of (a change of any of them changes SCHEMA).
STORED_CLASSES: tuple[type, ...] = (
    EventState,
    BoardStatus,
    BoardMemory,
    BoardPosition,
    TournamentState,
    SectionState,
    RoundState,
    GameResult,
    PlayoffGame,
    PlayerEntry,
    Pairing,
    GameBook,
    GameState,
    MoveRecord,
    PlayerRef,
    GameKey,
    RulesMemory,
    WatchMemory,
    BoardWatchMemory,
    Presence,
    Alert,
    Phrase,  # an alert's text for the desk's languages
)


def _schema() -> str:
    parts = [
        f"{cls.__module__}.{cls.__qualname__}("
        + ",".join(f"{f.name}:{f.type}" for f in dataclasses.fields(cls))
        + ")"
        for cls in STORED_CLASSES
    ]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]


SCHEMA = _schema()
FORMAT = f"{SNAPSHOT_FORMAT}:{SCHEMA}"


def fingerprint(config: EventConfig, rules: RulesConfig | None) -> str:
    """What the state was folded with: the event's config (not where its file was), then
    the rules' settings (`config:rules`; the state alone needs only the first part)."""
    event = hashlib.sha256(repr(dataclasses.replace(config, source=None)).encode()).hexdigest()
    if rules is None:
        return event[:32]
    return f"{event[:32]}:{hashlib.sha256(repr(rules).encode()).hexdigest()[:32]}"


@dataclass(frozen=True)
class Capture:
    """What a snapshot stores, captured on the event loop (all immutable values)."""

    state: EventState
    rules: RulesMemory | None
    public: PublicState
    t: float  # service time of the capture


@dataclass(frozen=True)
class Restored:
    """A snapshot that fits: the state as of `state.seq` and the rest."""

    state: EventState
    rules: RulesMemory
    public: PublicState
    t: float


class SnapshotMismatch(BoardwireError, ValueError):
    """A stored snapshot that does not fit this journal, config or boardwire."""


_MOVE_FIELDS = [f.name for f in dataclasses.fields(MoveRecord)]
_GAME_FIELDS = [f.name for f in dataclasses.fields(GameState)]
_SECTION_FIELDS = [f.name for f in dataclasses.fields(SectionState) if f.name != "config"]


class Encoder:
    """Snapshots to text; keeps the encoded games between snapshots (one thread only)."""

    def __init__(self) -> None:
        self._games: dict[int, tuple[GameState, str]] = {}  # id(game) -> (game, its text)
        self._pool: dict[str, int] = {}
        self._pool_texts: list[str] = []
        self._seen: dict[int, tuple[GameState, str]] = {}

    def encode(self, capture: Capture) -> bytes:
        self._pool, self._pool_texts, self._seen = {}, [], {}
        body = {
            "state": self._state(capture.state),
            "rules": self._rules(capture.rules) if capture.rules is not None else None,
            "public": {
                "tournament": self._tournament(capture.public.tournament),
                "book": self._book(capture.public.book),
                "seq": capture.public.seq,
            },
            "t": capture.t,
        }
        head = json.dumps(body, separators=(",", ":"), allow_nan=True)
        text = '{"games":[' + ",".join(self._pool_texts) + '],"body":' + head + "}"
        self._games = self._seen  # forget games no longer in any book
        return zlib.compress(text.encode("utf-8"), 1)

    # -- parts -------------------------------------------------------------------------------

    def _hook(self, value: Any) -> Any:
        if type(value) is GameState:
            return {"__game__": self._game(value)}
        if type(value) is TournamentState:
            return self._tournament(value)
        return NOT_MINE

    def _plain(self, value: Any) -> Any:
        return to_plain(value, self._hook)

    def _game(self, game: GameState) -> int:
        cached = self._games.get(id(game)) or self._seen.get(id(game))
        if cached is not None and cached[0] is game:
            text = cached[1]
        else:
            fields: list[Any] = []
            for name in _GAME_FIELDS:
                value = getattr(game, name)
                if name == "moves":
                    fields.append([[getattr(m, f) for f in _MOVE_FIELDS] for m in value])
                else:
                    fields.append(to_plain(value))
            text = json.dumps(fields, separators=(",", ":"), allow_nan=True)
        self._seen[id(game)] = (game, text)
        index = self._pool.get(text)
        if index is None:
            index = self._pool[text] = len(self._pool_texts)
            self._pool_texts.append(text)
        return index

    def _book(self, book: GameBook) -> Any:
        return {
            "games": [[k, self._game(g)] for k, g in book.games.items()],
            "removed": [[k, self._game(g)] for k, g in book.removed.items()],
        }

    def _tournament(self, tournament: TournamentState) -> Any:
        return {
            "__tournament__": [
                [name, {f: self._plain(getattr(s, f)) for f in _SECTION_FIELDS}]
                for name, s in tournament.sections.items()
            ]
        }

    def _state(self, state: EventState) -> Any:
        return {
            "tournament": self._tournament(state.tournament),
            "book": self._book(state.book),
            "start_overrides": self._plain(dict(state.start_overrides)),
            "boards": self._plain(dict(state.boards)),
            "on_port": self._plain(dict(state.on_port)),
            "on_bus": self._plain(dict(state.on_bus)),
            "memory": self._plain(dict(state.memory)),
            "white_sides": self._plain(dict(state.white_sides)),
            "stations": self._plain(dict(state.stations)),
            "connected_at": self._plain(dict(state.connected_at)),
            "seq": state.seq,
        }

    def _rules(self, rules: RulesMemory) -> Any:
        return {
            "now": rules.now,
            "alerts": [
                [to_plain(getattr(a, f.name)) for f in dataclasses.fields(Alert)]
                for a in rules.alerts
            ],
            "acknowledged": sorted(rules.acknowledged),
            "resolved": sorted(rules.resolved),
            "watch": self._plain(dict(rules.watch)),
            "boards": self._plain(dict(rules.boards)),
            "closed": self._plain(dict(rules.closed)),
            "counted": [list(c) for c in sorted(rules.counted)],
            "replaced": self._plain(dict(rules.replaced)),
        }


class Decoder:
    """Text to a snapshot's values, for one config."""

    def __init__(self, config: EventConfig, text: bytes) -> None:
        self.config = config
        data = json.loads(zlib.decompress(text).decode("utf-8"))
        self._texts: list[Any] = data["games"]
        self._games: list[GameState | None] = [None] * len(self._texts)
        self.body: dict[str, Any] = data["body"]

    def _game(self, index: int) -> GameState:
        game = self._games[index]
        if game is None:
            fields = dict(zip(_GAME_FIELDS, self._texts[index], strict=True))
            fields["moves"] = tuple(MoveRecord(*m) for m in fields["moves"])
            for name in _GAME_FIELDS:
                if name != "moves":
                    fields[name] = from_plain(fields[name])
            game = self._games[index] = GameState(**fields)
        return game

    def _hook(self, data: dict[str, Any]) -> Any:
        if "__tournament__" in data:
            return self._tournament(data)
        if "__game__" in data:
            return self._game(data["__game__"])
        return NOT_MINE

    def _value(self, data: Any) -> Any:
        return from_plain(data, self._hook)

    def _book(self, data: dict[str, Any]) -> GameBook:
        return GameBook(
            {k: self._game(i) for k, i in data["games"]},
            {k: self._game(i) for k, i in data["removed"]},
        )

    def _tournament(self, data: dict[str, Any]) -> TournamentState:
        sections = {}
        configs = {s.name: s for s in self.config.sections}
        for name, fields in data["__tournament__"]:
            values = {f: self._value(v) for f, v in fields.items()}
            sections[name] = SectionState(configs[name], **values)
        if list(sections) != list(configs):
            raise SnapshotMismatch("the sections differ from the config's")
        return TournamentState(self.config, sections)

    def state(self) -> EventState:
        d = self.body["state"]
        return EventState(
            tournament=self._tournament(d["tournament"]),
            book=self._book(d["book"]),
            start_overrides=self._value(d["start_overrides"]),
            boards=self._value(d["boards"]),
            on_port=self._value(d["on_port"]),
            on_bus=self._value(d["on_bus"]),
            memory=self._value(d["memory"]),
            white_sides=self._value(d["white_sides"]),
            stations=self._value(d["stations"]),
            connected_at=self._value(d["connected_at"]),
            seq=int(d["seq"]),
        )

    def rules(self) -> RulesMemory | None:
        d = self.body["rules"]
        if d is None:
            return None
        return RulesMemory(
            now=float(d["now"]),
            alerts=tuple(_alert(row) for row in d["alerts"]),
            acknowledged=frozenset(d["acknowledged"]),
            resolved=frozenset(d["resolved"]),
            watch=self._value(d["watch"]),
            boards=self._value(d["boards"]),
            closed=self._value(d["closed"]),
            counted=frozenset(tuple(c) for c in d["counted"]),
            replaced=self._value(d["replaced"]),
        )

    def public(self) -> PublicState:

        d = self.body["public"]
        return PublicState(self._tournament(d["tournament"]), self._book(d["book"]), int(d["seq"]))


def _alert(row: list[Any]) -> Alert:
    fields = dict(zip([f.name for f in dataclasses.fields(Alert)], row, strict=True))
    fields["players"] = tuple(fields["players"])
    fields["phrase"] = from_plain(fields["phrase"])
    return Alert(**fields)


def _register() -> None:
    register(*STORED_CLASSES)


def stored(capture: Capture, body: bytes, digest: str, print_: str) -> StoredSnapshot:
    return StoredSnapshot(
        capture.state.seq,
        capture.t,
        FORMAT,
        print_,
        digest,
        hashlib.sha256(body).hexdigest(),
        body,
    )


def check(snapshot: StoredSnapshot, journal: Journal, config: EventConfig, print_: str) -> Decoder:
    """The snapshot's decoder if it fits (SnapshotMismatch saying why otherwise). A
    `print_` without the rules' part (a reader of the state alone) checks the config's."""
    if snapshot.format != FORMAT:
        raise SnapshotMismatch(f"it is of another format ({snapshot.format}, this is {FORMAT})")
    if snapshot.fingerprint != print_ and snapshot.fingerprint.split(":")[0] != print_:
        raise SnapshotMismatch("the event's config or the rules' settings changed since")
    if hashlib.sha256(snapshot.body).hexdigest() != snapshot.checksum:
        raise SnapshotMismatch("it is damaged (its checksum does not match)")
    if journal.row_digest(snapshot.seq) != snapshot.digest:
        raise SnapshotMismatch(f"the journal's event {snapshot.seq} is not the one it folded")
    try:
        return Decoder(config, snapshot.body)
    except (ValueError, KeyError, TypeError, zlib.error) as exc:
        raise SnapshotMismatch(f"it cannot be read ({exc!s:.80})") from None


class Snapshots:
    """The service's snapshots: finding one that fits at start, taking new ones."""

    def __init__(
        self,
        journal: Journal,
        config: EventConfig,
        rules: RulesConfig,
        *,
        enabled: bool = True,
        every_events: int = EVERY_EVENTS,
        min_seconds: float = MIN_SECONDS,
        compact: bool = True,
    ) -> None:
        _register()
        self.journal = journal
        self.config = config
        self.print = fingerprint(config, rules)
        self.enabled = enabled and not journal.readonly  # used and taken
        self.every_events = every_events
        self.min_seconds = min_seconds
        self._last_seq = 0
        self._last_real = -float("inf")
        self._busy = False
        self._executor: ThreadPoolExecutor | None = None
        self._encoder = Encoder()
        self._taking = threading.Lock()  # one snapshot at a time (the encoder's cache)
        self.taken: list[tuple[int, float, int]] = []  # (seq, seconds, bytes): for benchmarks
        # Behind each snapshot, the superseded clock readings of finished games go.
        self.compactor: Compactor | None = Compactor(journal) if compact and self.enabled else None
        self.compacted: list[tuple[int, int, float]] = []  # (seq, rows, seconds)

    # -- at start ----------------------------------------------------------------------------

    def restore(self) -> Restored | None:
        """The newest stored snapshot that fits, decoded; None (and a log line for each
        that does not fit) for a full replay. None when snapshots are off."""
        if not self.enabled:
            return None
        for snapshot in _newest(self.journal):
            try:
                decoder = check(snapshot, self.journal, self.config, self.print)
                state = decoder.state()
                rules = decoder.rules()
                public = decoder.public()
            except SnapshotMismatch as exc:
                log.warning(
                    "journal %s: snapshot at event %d ignored: %s; replaying the journal",
                    self.journal.path,
                    snapshot.seq,
                    exc,
                )
                continue
            except Exception as exc:  # whatever it holds, a snapshot is never needed
                log.warning(
                    "journal %s: snapshot at event %d ignored: it cannot be read (%s: %s); "
                    "replaying the journal",
                    self.journal.path,
                    snapshot.seq,
                    type(exc).__name__,
                    exc,
                )
                continue
            if rules is None or state.seq != snapshot.seq:
                continue
            self._last_seq = snapshot.seq
            return Restored(state, rules, public, snapshot.t)
        return None

    def loaded(self, seq: int, replayed: int) -> None:
        """The service is up at `seq` after replaying `replayed` events: a long replay
        asks for a snapshot soon."""
        if replayed >= LONG_REPLAY:
            self._last_seq = 0
            self._last_real = -float("inf")
        else:
            self._last_seq = max(self._last_seq, seq - replayed)
        if self.compactor is not None:
            # Rows before the snapshot were compacted by the run that took it, up to what
            # it had seen; the few it had not stay.
            self.compactor.scanned = seq - replayed

    # -- while running -------------------------------------------------------------------------

    def due(self, seq: int) -> bool:
        return (
            self.enabled
            and not self._busy
            and seq - self._last_seq >= self.every_events
            and time.monotonic() - self._last_real >= self.min_seconds
        )

    def consider(self, service: Snapshotted) -> None:
        """After a batch is durable: take a snapshot if one is due and everything folded is
        in the file (nothing held, queued or open). Capture here, the rest in a thread."""
        state = service.state
        if not self.due(state.seq):
            return
        if service.syncing or self.journal.unwritten or self.journal.written_seq != state.seq:
            return
        capture = Capture(
            state,
            service.rules.memory(),
            service.public.at(service.time_source.now()),
            service.time_source.now(),
        )
        self._busy = True
        self._last_real = time.monotonic()
        if self._executor is None:
            self._executor = ThreadPoolExecutor(1, thread_name_prefix="journal-snapshot")
        self._executor.submit(self._take, capture)

    def take_now(self, service: Snapshotted) -> bool:
        """A snapshot of the service as it is, in this thread (tests, benchmarks, `close`)."""
        if service.journal.unwritten or self.journal.written_seq != service.state.seq:
            return False
        capture = Capture(
            service.state,
            service.rules.memory(),
            service.public.at(service.time_source.now()),
            service.time_source.now(),
        )
        self._busy = True
        return self._take(capture)

    def _take(self, capture: Capture) -> bool:
        with self._taking:
            return self._take_locked(capture)

    def _take_locked(self, capture: Capture) -> bool:
        started = time.perf_counter()
        try:
            body = self._encoder.encode(capture)
            digest = self.journal.row_digest(capture.state.seq)
            if digest is None:
                return False
            done = self.journal.store_snapshot(stored(capture, body, digest, self.print))
            if done:
                self._last_seq = capture.state.seq
                seconds = time.perf_counter() - started
                self.taken.append((capture.state.seq, seconds, len(body)))
                log.info(
                    "journal %s: snapshot at event %d (%.0f kB, %.2f s)",
                    self.journal.path,
                    capture.state.seq,
                    len(body) / 1e3,
                    seconds,
                )
                self._compact(capture.state.seq)
            return done
        except Exception:  # a snapshot is never needed: log it, and go on without
            log.exception(
                "journal %s: snapshot at event %d failed", self.journal.path, capture.state.seq
            )
            return False
        finally:
            self._busy = False

    def _compact(self, seq: int) -> None:
        if self.compactor is None:
            return
        started = time.perf_counter()
        try:
            gone = self.compactor.run(seq, self.journal.snapshot_seqs())
        except JournalError as exc:  # an unreadable row: compaction is never needed
            log.warning("journal %s: compaction off (%s)", self.journal.path, exc)
            self.compactor = None
            return
        self.compacted.append((seq, gone, time.perf_counter() - started))

    def close(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=True)
            self._executor = None


def _newest(journal: Journal) -> Iterable[StoredSnapshot]:
    try:
        yield from journal.snapshots()
    except JournalError as exc:
        log.warning("journal %s: snapshots cannot be read (%s)", journal.path, exc)


def read_state(journal: Journal, config: EventConfig) -> EventState | None:
    """The newest snapshot's state that fits (the rules' part not needed), for readers of
    a journal that do not run the event (standings, export)."""
    _register()
    for snapshot in _newest(journal):
        try:
            state = check(snapshot, journal, config, fingerprint(config, None)).state()
        except Exception as exc:  # a snapshot is never needed: the events are all there
            log.info("snapshot at event %d not used: %s", snapshot.seq, exc)
            continue
        if state.seq == snapshot.seq:
            return state
    return None


__all__ = ["Capture", "Restored", "SnapshotMismatch", "Snapshots", "fingerprint", "read_state"]
