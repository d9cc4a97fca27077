"""The central serve's side of the capture stations: the venue hash, and the intake that
reads every station's stream into the one journal.

At start (and at every reconnection) the intake writes the venue (`StationKeys.venue`:
the boards on stations, the venue clock) and makes sure each station's stream has the
consumer group `GROUP`. Then it reads the streams with XREADGROUP: first its own
pending entries (read before a crash or an outage and never acknowledged), then new
ones. Each board event is handed to the committer with its mark (`StationMark`); the
committer journals a `StationProgress` with the batch, and once that is durable (a
committer listener sees it) the entries it covers are acknowledged (XACK). An entry is
applied once: one already covered by the journal's `EventState.stations` is
acknowledged and skipped, whatever Redis re-delivers. Junk, and events for a port the
venue does not give that station, are refused (said once per station, on the desk and
in the log) and acknowledged. Each stream is trimmed (XTRIM MINID) below what waits for
acknowledgement, keeping `TRIM_MARGIN_MS` of it.

What the journal knows of each station's boards (`Hall.known_board`, or `first_start`
for a game under way on a board never seen) is kept in `StationKeys.known` (written at
every (re)connection, then the boards that changed, soon after a change and every few
seconds): a replacement computer with a fresh outbox reads its boards' logs from there.

Greetings and heartbeats feed `StationHealth` (up, lag, clock offset, boards), whose
conditions become desk alerts; the desk's Stations section reads `rows()`.

Boards found by their serial numbers (`[[board]] serial` with no port) are placed where a
station's `BoardConnected` for that serial comes from (`placement.decide`: placed, moved
from a station that no longer holds it, or refused), and after a restart where the journal
last saw them connect. While any such board may be found on any station, the intake also
reads the stream of every station that greets Redis (`StationKeys.stations`).
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import Any, Protocol

from redis import asyncio as aioredis
from redis.exceptions import RedisError, ResponseError

from boards.driver_events import BoardConnected
from broadcast.arbiter.readers import BoardsUnheard
from broadcast.config.model import EventConfig
from broadcast.config.stations import valid_name
from broadcast.journal.station_progress import StationMark, StationProgress
from broadcast.journal.store import Entry
from broadcast.phrases import english, say
from broadcast.service.event_service import EventService
from broadcast.stations.placement import Place, decide, found_boards, from_journal, unplaced_port
from broadcast.stations.station_health import StationHealth
from broadcast.stations.wire import (
    GROUP,
    Refused,
    StationBeat,
    StationEvent,
    StationHello,
    StationKeys,
    Venue,
    VenueBoard,
    WantedBoard,
    decode_entry,
    encode_known,
    encode_venue,
    qualified_port,
    qualify,
)

__all__ = [
    "CONSUMER",
    "LINK_NAME",
    "TRIM_MARGIN_MS",
    "Intake",
    "Problem",
    "RedisLink",
    "station_ports",
    "stations_of",
    "venue_of",
]

log = logging.getLogger(__name__)

CONSUMER = "central"  # one consumer: a restarted serve reads its own pending entries again
LINK_NAME = "capture stations"
LINK_ALERT = "stations-link"
READ_COUNT = 500  # entries per stream per read
TRIM_MARGIN_MS = 60_000  # stream time kept below the oldest entry not yet acknowledged
TRIM_SECONDS = 10.0  # real seconds between two trims
OFFSET_SECONDS = 10.0  # real seconds between two measures of the serve's own clock offset
HEALTH_SECONDS = 0.25  # real seconds between two looks at the stations' health
KNOWN_SECONDS = 3.0  # real seconds between two refreshes of the stations' known boards...
KNOWN_SOON = 0.5  # ...or this soon after a station's events became durable
ADOPT_SECONDS = 2.0  # real seconds between two looks for stations that joined
RETRY_FIRST = 0.5
RETRY_MAX = 10.0


class RedisLink(Protocol):
    """Where the stations' Redis is (`broadcast.publish.redis_link.RedisTarget`, handed
    in by the CLI: the publishers' room is beside this one, not below)."""

    @property
    def where(self) -> str:
        """HOST:PORT, never the password."""

    def client(self, **options: Any) -> aioredis.Redis:
        """A client of that Redis, with the password."""


Problem = Callable[[BaseException, str], "str | None"]


def _no_problem(exc: BaseException, place: str) -> str | None:
    return None


def station_ports(config: EventConfig) -> dict[int, str]:
    """Hall board -> its port as the central serve names it, for the boards on stations
    and the boards found by their serial numbers (`Hall`'s port overrides; a found board
    is placed when a station reports it, `Intake`)."""
    out = {
        b.number: qualified_port(b.station, b.port)
        for b in config.boards
        if b.station is not None and b.port
    }
    out.update({b.number: unplaced_port(b) for b in config.boards if b.found_by_serial})
    return out


def stations_of(config: EventConfig) -> dict[str, tuple[int, ...]]:
    """Each station the config names, and the hall boards it gives it a port on, in
    config order (a station named only for boards found by their serial numbers has
    none yet)."""
    out: dict[str, list[int]] = {}
    for b in config.boards:
        if b.station is not None:
            numbers = out.setdefault(b.station, [])
            if b.port:
                numbers.append(b.number)
    return {name: tuple(numbers) for name, numbers in out.items()}


def venue_of(
    config: EventConfig, *, start: float, wall0: float, speed: float, host: str, pid: int
) -> Venue:
    """What the central serve tells the stations (see `broadcast.stations.wire`)."""
    boards = tuple(
        VenueBoard(b.number, b.station, b.port, b.address)
        for b in config.boards
        if b.station is not None and b.port
    )
    wanted = tuple(
        WantedBoard(b.number, serial, b.station) for serial, b in found_boards(config).items()
    )
    return Venue(config.name, boards, start, wall0, speed, host, pid, wanted)


@dataclass
class _Waiting:
    """A board event handed to the committer, not yet acknowledged in Redis."""

    entry_id: str
    incarnation: str
    seq: int


def _running_loop() -> asyncio.AbstractEventLoop | None:
    """The running loop (None: called outside one, as a test may)."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def _cancelled_meanwhile() -> None:
    """Raise CancelledError if this task was cancelled and redis-py swallowed it (it can
    return an XREADGROUP's answer although the task was cancelled as it arrived; see
    `broadcast.publish.mirror_feed`): a serve being stopped would read on forever."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError


def _covers(reached: tuple[str, int] | None, mark: tuple[str, int]) -> bool:
    """`reached` (an incarnation and seq) includes the event numbered `mark`."""
    return reached is not None and reached[0] == mark[0] and mark[1] <= reached[1]


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes | bytearray) else str(value)


def _millis(entry_id: str) -> int:
    head, _, _ = entry_id.partition("-")
    return int(head) if head.isdigit() else 0


def _streams(reply: Any) -> list[tuple[str, list[tuple[str, Any]]]]:
    """XREADGROUP's answer (RESP2 list or RESP3 map) as (stream, [(id, fields)])."""
    if not reply:
        return []
    pairs = reply.items() if isinstance(reply, dict) else reply
    out = []
    for name, entries in pairs:
        if isinstance(entries, list) and len(entries) == 1 and isinstance(entries[0], list):
            entries = entries[0]  # RESP3 wraps the entries once more
        out.append((_text(name), [(_text(i), f) for i, f in entries]))
    return out


class Intake:
    """Reads the stations' streams into `service` (see the module docstring). `run` is
    the supervised task; `venue` is what it writes at every (re)connection."""

    def __init__(
        self,
        service: EventService,
        target: RedisLink,
        *,
        problem: Problem = _no_problem,
        wall: Callable[[], float] = time.time,
        block_ms: int = 100,
        host: str | None = None,
        pid: int | None = None,
        health: StationHealth | None = None,
    ) -> None:
        self.service = service
        self.target = target
        self.describe = problem  # Redis's refusal (a password) in words, or None
        self.wall = wall
        self.block_ms = block_ms
        config = service.config
        self.keys = StationKeys.of(config.name)
        self.assigned = stations_of(config)
        ts = service.time_source
        self.venue = venue_of(
            config,
            start=ts.now(),
            wall0=wall(),
            speed=ts.speed,
            host=host or socket.gethostname(),
            pid=os.getpid() if pid is None else pid,
        )
        self.ports: dict[tuple[str, str], tuple[VenueBoard, ...]] = {}
        for b in self.venue.boards:
            self.ports[(b.station, b.port)] = (*self.ports.get((b.station, b.port), ()), b)
        self.health = health or StationHealth(self.assigned, ts.speed, since=ts.now())
        # Boards found by their serial numbers (`placement`): where each is now.
        self.wanted = found_boards(config)
        self.placed: dict[int, Place] = {}
        # A found board refused because another station held it: the report, kept until
        # that station lets go of it (the board moves then) or the claimant does.
        self._claims: dict[int, tuple[Place, BoardConnected]] = {}
        self._new_streams: set[str] = set()  # adopted stations: group and pending to do
        self._adopted_at = 0.0
        durable = dict(service.state.stations)
        self.applied: dict[str, tuple[str, int]] = durable  # durable in the journal
        self.queued: dict[str, tuple[str, int]] = dict(durable)  # handed to the committer
        self._waiting: dict[str, deque[_Waiting]] = {s: deque() for s in self.assigned}
        self._ids: set[str] = set()  # entry ids in `_waiting`
        self._ackable: dict[str, list[str]] = {s: [] for s in self.assigned}
        self._last_id: dict[str, str] = {}
        self._refused_said: set[str] = set()
        self._alerts: set[str] = set()
        self._lost: set[str] = set()  # stations whose boards are journaled unheard
        self._reread: set[str] = set()  # stations whose own pending entries to read again
        self.state = "connecting"  # "connecting" | "up" | "down"
        self.problem: str | None = None
        self._down_since: float | None = None
        self._trimmed = 0.0
        self._measured = 0.0
        self._known_at = 0.0
        self._known_dirty = True
        self._known_sent: dict[str, dict[str, str]] = {}  # Redis key -> fields in Redis
        self._known_cache: dict[int, tuple[object, str]] = {}  # board -> (what, encoded)
        self._looked = 0.0
        # counters, for tests and the benchmark
        self.applied_events = 0
        self.skipped = 0
        self.refused = 0
        self.acked = 0
        self.gaps = 0  # holes in a station's numbering (entries Redis lost)
        for serial, board in self.wanted.items():
            self.health.want(board.number, serial)
        for place in from_journal(config, service.state.connected_at):
            self._place(place)
        service.listeners.append(self.on_durable)
        service.health.watch_link(LINK_NAME, self.status)
        service.health.watch_stations(self.rows)

    # -- boards found by their serial numbers ---------------------------------------------------

    def _adopt(self, station: str) -> None:
        """Read `station`'s stream too: a station the config does not name, which may
        find boards by their serial numbers."""
        if station in self.assigned:
            return
        self.assigned[station] = ()
        self._waiting[station] = deque()
        self._ackable[station] = []
        self.health.add(station)
        self._new_streams.add(station)
        log.info("capture station %s joined: it may find boards by their serial numbers", station)

    def _place(self, place: Place) -> None:
        """Hall board `place.number` is on `place.station`'s `place.port` from now on."""
        old = self.placed.get(place.number)
        if old is not None:
            key = (old.station, old.port)
            left = tuple(b for b in self.ports.get(key, ()) if b.number != place.number)
            if left:
                self.ports[key] = left
            else:
                self.ports.pop(key, None)
            self.assigned[old.station] = tuple(
                n for n in self.assigned.get(old.station, ()) if n != place.number
            )
        self._adopt(place.station)
        key = (place.station, place.port)
        board = VenueBoard(place.number, place.station, place.port, place.address)
        self.ports[key] = (*self.ports.get(key, ()), board)
        self.assigned[place.station] = (*self.assigned[place.station], place.number)
        self.placed[place.number] = place
        port = qualified_port(place.station, place.port)
        self.service.committer.hall.place(place.number, place.station, port, place.address)
        self.health.place(place.number, place.station)
        self._known_dirty = True

    def _found(self, station: str, port: str, event: BoardConnected) -> str | None:
        """A board found by its serial number reports on `station`'s `port`: placed there
        (or moved there), or why not."""
        board = self.wanted[event.board]
        found = Place(board.number, station, port, event.info.bus_address)
        now = self.service.time_source.now()
        current = self.placed.get(board.number)
        decision = decide(board, found, current, partial(self.health.holds, now=now))
        if isinstance(decision, str):
            if current is not None and board.station in (None, station):
                self._claims[board.number] = (found, event)  # held elsewhere: it may move
            return decision
        self._claims.pop(board.number, None)
        if decision is not None:
            before = self.placed.get(board.number)
            log.info(
                "board %d (serial %s) found on capture station %s at %s%s",
                board.number,
                event.board,
                station,
                port,
                "" if before is None else f" (it was on {before.station} at {before.port})",
            )
            self._place(decision)
        return None

    def _claims_due(self, now: float) -> None:
        """A found board refused on a station because another held it moves there once
        the other lets go of it while the claimant still holds it (its report, journaled
        now, connects it there; what its board said meanwhile was refused, and the
        position it shows now is where its game goes on from)."""
        for number, (found, event) in list(self._claims.items()):
            if not self.health.holds(found.station, number, now=now):
                del self._claims[number]  # the claimant let go of it too
                continue
            board = self.wanted[event.board]
            holds = partial(self.health.holds, now=now)
            decision = decide(board, found, self.placed.get(number), holds)
            if isinstance(decision, str):
                continue  # still held where it is
            del self._claims[number]
            if decision is None:
                continue
            before = self.placed.get(number)
            log.info(
                "board %d (serial %s) moves to capture station %s at %s: %s no longer reads it",
                number,
                event.board,
                found.station,
                found.port,
                before.station if before is not None else "no station",
            )
            self._place(decision)
            self.service.committer.queue_driver_event(
                qualified_port(found.station, found.port),
                qualify(replace(event, t=now), found.station, found.port),
            )

    async def _open_streams(self, client: aioredis.Redis) -> None:
        """The consumer group and the pending entries of stations adopted meanwhile; the
        stations that greeted, looked at every few seconds while boards wait to be found
        on any station."""
        real = time.monotonic()
        if any(b.station is None for b in self.wanted.values()) and (
            real - self._adopted_at >= ADOPT_SECONDS
        ):
            self._adopted_at = real
            for raw in await client.smembers(self.keys.stations):
                name = _text(raw)
                if valid_name(name):
                    self._adopt(name)
        for station in sorted(self._new_streams):
            await self._group(client, station)
            self._new_streams.discard(station)
            await self._pending(client, station)

    async def _group(self, client: aioredis.Redis, station: str) -> None:
        """The consumer group on `station`'s stream (made with the stream if need be)."""
        try:
            await client.xgroup_create(self.keys.stream(station), GROUP, id="0", mkstream=True)
        except ResponseError as exc:
            if "BUSYGROUP" not in str(exc):
                raise

    # -- the desk -------------------------------------------------------------------------------

    def rows(self) -> list[dict[str, object]]:
        return [v.json() for v in self.health.views(self.service.time_source.now())]

    def status(self) -> str:
        place = self.target.where
        n = len(self.assigned)
        if self.state == "up":
            return f"up (Redis at {place}): {n} station(s), {self.applied_events} event(s) read"
        if self.state == "down":
            why = self.problem or f"Redis at {place} cannot be reached"
            return f"DOWN: {why}; the stations keep their events meanwhile"
        return f"connecting to Redis at {place}"

    # -- the task -------------------------------------------------------------------------------

    async def run(self) -> None:
        """Read the stations until cancelled; a Redis outage is retried inside."""
        wait = RETRY_FIRST
        client = self.target.client(socket_timeout=5, socket_connect_timeout=5)
        try:
            while True:
                try:
                    await self.prepare(client)
                    self._link_up()
                    wait = RETRY_FIRST
                    for station in list(self.assigned):
                        await self._pending(client, station)
                    while True:
                        _cancelled_meanwhile()
                        await self._open_streams(client)
                        for station in sorted(self._reread):
                            self._reread.discard(station)
                            await self._pending(client, station)
                        await self._read_new(client)
                        await self._maintain(client)
                except (RedisError, OSError) as exc:
                    self._link_down(exc)
                    loop = asyncio.get_running_loop()
                    deadline = loop.time() + wait
                    while (left := deadline - loop.time()) > 0:
                        self.look()  # the desk keeps up while Redis is away
                        await asyncio.sleep(min(1.0, left))
                    wait = min(wait * 2, RETRY_MAX)
        finally:
            await client.aclose()

    async def prepare(self, client: aioredis.Redis) -> None:
        """The venue hash, and the consumer group on every station's stream."""
        async with client.pipeline(transaction=True) as pipe:
            pipe.delete(self.keys.venue)
            venue: dict[Any, Any] = dict(encode_venue(self.venue))
            pipe.hset(self.keys.venue, mapping=venue)
            await pipe.execute()
        self._known_sent.clear()  # written whole again: Redis may have lost it
        await self.publish_known(client)
        self._new_streams.clear()  # every station's group is made here
        for station in list(self.assigned):
            await self._group(client, station)
        await self._measure(client)

    async def _measure(self, client: aioredis.Redis) -> None:
        """The serve's own wall clock minus Redis's TIME, as the stations measure theirs."""
        before = self.wall()
        seconds, micros = await client.time()
        after = self.wall()
        self.health.own_offset = (before + after) / 2 - (seconds + micros / 1e6)
        self._measured = time.monotonic()

    async def _pending(self, client: aioredis.Redis, station: str) -> None:
        """The entries read before (a crash, an outage) and never acknowledged, in order:
        what the journal covers is acknowledged, the rest applied."""
        stream = self.keys.stream(station)
        entries: list[tuple[str, Any]] = []
        last = "0"
        while True:
            _cancelled_meanwhile()
            reply = _streams(
                await client.xreadgroup(GROUP, CONSUMER, {stream: last}, count=READ_COUNT)
            )
            got = reply[0][1] if reply else []
            if not got:
                break
            entries += got
            last = got[-1][0]
        if not entries:
            return
        decoded = [(i, None if f is None else decode_entry(f)) for i, f in entries]
        # Everything up to the last entry the journal covers was applied before it (the
        # stream is in order): acknowledged, whatever its outbox incarnation.
        applied = self.applied.get(station)
        cut = -1
        for k, (_, d) in enumerate(decoded):
            if isinstance(d, StationEvent) and _covers(applied, (d.incarnation, d.seq)):
                cut = k
        acks = []
        for k, (entry_id, d) in enumerate(decoded):
            if entry_id in self._ids:
                continue  # handed over before the outage: acknowledged once durable
            if k <= cut and isinstance(d, StationEvent):
                self.skipped += 1
                acks.append(entry_id)
            elif self._one(station, entry_id, d):
                acks.append(entry_id)
        await self._ack(client, station, acks)

    async def _read_new(self, client: aioredis.Redis) -> None:
        """One round trip: the acknowledgements due (durable events, heartbeats, junk)
        and the next read of every stream, pipelined. A round trip per station and
        read held the intake to about a thousand events a second beside a busy loop."""
        streams: dict[Any, Any] = {self.keys.stream(s): ">" for s in self.assigned}
        due = self._take_acks()
        async with client.pipeline(transaction=False) as pipe:
            for station, ids in due.items():
                pipe.xack(self.keys.stream(station), GROUP, *ids)
            pipe.xreadgroup(GROUP, CONSUMER, streams, count=READ_COUNT, block=self.block_ms)
            results = await pipe.execute()
        self.acked += sum(len(ids) for ids in due.values())
        by_stream = {self.keys.stream(s): s for s in self.assigned}
        for stream, entries in _streams(results[-1]):
            name = by_stream.get(stream)
            if name is None:
                continue
            ackable = self._ackable[name]
            for entry_id, fields in entries:
                if self._one(name, entry_id, decode_entry(fields), accept_gap=False):
                    ackable.append(entry_id)

    def _one(
        self,
        station: str,
        entry_id: str,
        entry: StationEvent | StationHello | StationBeat | Refused | None,
        *,
        accept_gap: bool = True,
    ) -> bool | None:
        """Take one entry of `station`'s stream; True: acknowledge it now (nothing of it
        waits for the journal); None: not taken yet (a gap before it: left pending, and
        the station's own pending entries are read again, in order, before going on)."""
        if not accept_gap and self._gap_before(station, entry):
            self._reread.add(station)
            return None
        self._last_id[station] = entry_id
        now = self.service.time_source.now()
        if entry is None:
            return True  # trimmed away before it was acknowledged: nothing to read
        if isinstance(entry, Refused):
            self._refuse(station, entry.reason)
            return True
        if entry.station != station:
            self._refuse(station, f"an entry signed by station {entry.station!r}")
            return True
        if isinstance(entry, StationHello):
            self.health.hello(entry, now)
            return True
        if isinstance(entry, StationBeat):
            self.health.beat(entry, now)
            return True
        mark = (entry.incarnation, entry.seq)
        if _covers(self.applied.get(station), mark):
            self.skipped += 1
            return True  # applied and durable: a re-delivery, or a copy the station resent
        if _covers(self.queued.get(station), mark):
            # handed over, not durable yet (a copy the station resent): acknowledged with it
            self.skipped += 1
            self._wait(station, entry_id, mark)
            return False
        if isinstance(entry.event, BoardConnected) and entry.event.board in self.wanted:
            why = self._found(station, entry.port, entry.event)
            if why is not None:
                self._refuse(station, why)
                return True
        boards = self.ports.get((station, entry.port))
        if boards is None:
            self._refuse(
                station,
                f"an event for port {entry.port[:80]!r}, which the event's config does not "
                "give this station",
            )
            return True
        if any(self.health.refuses(station, b.number) for b in boards):
            self._refuse(station, f"an event for board(s) of another station on {entry.port}")
            return True
        queued = self.queued.get(station)
        if queued is not None and queued[0] == entry.incarnation and entry.seq > queued[1] + 1:
            # Not refused: what is here is applied; the boards' logs may fill the moves.
            log.warning(
                "capture station %s: events %d to %d of its outbox %s never reached this "
                "serve (Redis lost them?); going on from %d",
                station,
                queued[1] + 1,
                entry.seq - 1,
                entry.incarnation,
                entry.seq,
            )
            self.gaps += 1
        self.service.committer.queue_driver_event(
            qualified_port(station, entry.port),
            qualify(entry.event, station, entry.port),
            StationMark(station, entry.incarnation, entry.seq),
        )
        self.queued[station] = mark
        self.applied_events += 1
        self._wait(station, entry_id, mark)
        return False

    def _gap_before(
        self, station: str, entry: StationEvent | StationHello | StationBeat | Refused | None
    ) -> bool:
        """`entry` comes after a hole in the station's numbering (entries delivered to this
        serve whose reply was lost, say: still pending, read again by `_pending`)."""
        if station in self._reread:
            return True  # everything after the hole waits for the re-read too
        if not isinstance(entry, StationEvent):
            return False
        queued = self.queued.get(station)
        return queued is not None and queued[0] == entry.incarnation and entry.seq > queued[1] + 1

    def _wait(self, station: str, entry_id: str, mark: tuple[str, int]) -> None:
        self._waiting[station].append(_Waiting(entry_id, *mark))
        self._ids.add(entry_id)

    def _refuse(self, station: str, reason: str) -> None:
        self.refused += 1
        if station in self._refused_said:
            return
        self._refused_said.add(station)
        message = say(
            "Capture station %(station)s's stream holds what cannot be applied (%(reason)s): "
            "skipped. Is every station running this boardwire version, with the event's "
            "config? Later refusals from it are counted, not said again",
            station=station,
            reason=reason[:200],
        )
        log.warning("%s", english(message))
        self.service.health.report(
            f"station-refused-{station}",
            "station-refused",
            "warning",
            message,
            self.service.time_source.now(),
            on_acknowledge=lambda: None,
        )

    # -- durable: acknowledge -------------------------------------------------------------------

    def on_durable(self, entries: Sequence[Entry]) -> None:
        """A committer listener: the StationProgress entries say what is durable now;
        everything a station's stream gave up to that mark may be acknowledged."""
        for entry in entries:
            event = entry.event
            if not isinstance(event, StationProgress) or event.station not in self._waiting:
                continue
            self.applied[event.station] = (event.incarnation, event.seq)
            self._known_dirty = True
            waiting = self._waiting[event.station]
            last = -1
            for k, w in enumerate(waiting):
                if w.incarnation == event.incarnation and w.seq <= event.seq:
                    last = k
            for _ in range(last + 1):
                w = waiting.popleft()
                self._ids.discard(w.entry_id)
                self._ackable[event.station].append(w.entry_id)

    def _take_acks(self) -> dict[str, list[str]]:
        """The entries due for acknowledgement, by station (taken: sent with the next read)."""
        due = {s: list(ids) for s, ids in self._ackable.items() if ids}
        for station in due:
            self._ackable[station].clear()
        return due

    async def _ack(self, client: aioredis.Redis, station: str, ids: list[str]) -> None:
        if ids:
            await client.xack(self.keys.stream(station), GROUP, *ids)
            self.acked += len(ids)

    # -- upkeep ---------------------------------------------------------------------------------

    async def _maintain(self, client: aioredis.Redis) -> None:
        real = time.monotonic()
        if real - self._measured >= OFFSET_SECONDS:
            await self._measure(client)
        if real - self._looked >= HEALTH_SECONDS:
            self._looked = real
            self.look()
        since = real - self._known_at
        if since >= KNOWN_SECONDS or (self._known_dirty and since >= KNOWN_SOON):
            await self.publish_known(client)
        if real - self._trimmed >= TRIM_SECONDS:
            self._trimmed = real
            await self.trim(client)

    async def trim(self, client: aioredis.Redis) -> None:
        """Each stream loses what lies over TRIM_MARGIN_MS below its oldest entry not yet
        acknowledged (or below the last entry read)."""
        for station in self.assigned:
            waiting = self._waiting[station]
            floor = waiting[0].entry_id if waiting else self._last_id.get(station)
            if floor is None:
                continue
            minid = _millis(floor) - TRIM_MARGIN_MS
            if minid > 0:
                # exact: every ten seconds, and a small stream is trimmed too
                await client.xtrim(self.keys.stream(station), minid=f"{minid}-0", approximate=False)

    def known_fields(self) -> dict[str, dict[str, str]]:
        """The fields of each station's `StationKeys.known`, and of `StationKeys.found`
        (the boards found by their serial numbers, wherever they are found next), by
        Redis key: the hall boards the journal knows (`Hall.known_board`), or whose game
        is under way although never seen (`Hall.first_start`)."""
        hall = self.service.committer.hall
        out: dict[str, dict[str, str]] = {self.keys.known(s): {} for s in self.assigned}
        found = self.keys.found
        out[found] = {}
        placed = [(b.number, self.keys.known(b.station)) for bs in self.ports.values() for b in bs]
        wanted = [(b.number, found) for b in self.wanted.values()]
        for number, key in [*placed, *wanted]:
            board = hall.boards.get(number)
            if board is None:
                continue
            serial = board.config.serial
            known = hall.known_board(board.name or serial) or hall.first_start(board)
            if known is None:
                continue
            if not known.serial and serial:
                known = replace(known, serial=serial)  # not connected yet: its config's
            # A first start's last_seen is "now": not a change worth writing again.
            what = (known.serial, known.position, known.recent)
            cached = self._known_cache.get(number)
            if cached is None or cached[0] != what:
                cached = (what, encode_known(known))
                self._known_cache[number] = cached
            out.setdefault(key, {})[str(number)] = cached[1]
        return out

    async def publish_known(self, client: aioredis.Redis) -> None:
        """Write what changed in each station's known boards since the last time."""
        self._known_at = time.monotonic()
        self._known_dirty = False
        fields = self.known_fields()
        async with client.pipeline(transaction=True) as pipe:
            writes = 0
            for key, now in fields.items():
                before = self._known_sent.get(key)
                if before is None:
                    pipe.delete(key)
                    before = {}
                changed: dict[Any, Any] = {k: v for k, v in now.items() if before.get(k) != v}
                gone = [k for k in before if k not in now]
                if changed:
                    pipe.hset(key, mapping=changed)
                if gone:
                    pipe.hdel(key, *gone)
                writes += len(changed) + len(gone) + (key not in self._known_sent)
            if writes:
                await pipe.execute()
        self._known_sent = fields

    def look(self) -> None:
        """The stations' conditions onto the desk: new ones reported (and logged once),
        ended ones cleared."""
        now = self.service.time_source.now()
        health = self.service.health
        if self._claims:
            self._claims_due(now)
        conditions = self.health.conditions(now)
        lost = {
            k.removeprefix("station-lost-") for k in conditions if k.startswith("station-lost-")
        }
        if self.state == "down":
            # Redis is away: the link's alert says it; every station is unheard, and none
            # is "lost" on its own account.
            conditions = {k: c for k, c in conditions.items() if not k.startswith("station-lost-")}
            lost = set(self.assigned)
        self._unheard(lost, now)
        for key, c in conditions.items():
            if health.report(key, c.kind, c.severity, c.message, now):
                log.warning("%s", english(c.message))
        for key in self._alerts - conditions.keys():
            if health.clear(key):
                log.warning("station alert ended: %s", key)
        self._alerts = set(conditions)

    def _unheard(self, lost: set[str], now: float) -> None:
        """Journal which stations' boards are unheard (lost, or Redis away) and heard again:
        the rules hold the per-board silence alarm for them meanwhile
        (`broadcast.arbiter.readers`)."""
        changed = (lost - self._lost) | (self._lost - lost)
        events = []
        for station in sorted(changed):
            names = tuple(
                name
                for n in self.assigned.get(station, ())
                if n in self.service.hall and (name := self.service.hall[n].name) is not None
            )
            if names:
                events.append(BoardsUnheard(now, station, names, station in lost))
        self._lost = set(lost)
        if events:
            # Into the next board batch: the read loop must not wait for a sync.
            self.service.committer.add_system(events, _running_loop())

    # -- the link -------------------------------------------------------------------------------

    def _link_up(self) -> None:
        if self.state == "down":
            log.warning("the capture stations' Redis is back; reading their streams")
        self.state = "up"
        self.problem = None
        self._down_since = None
        self.service.health.clear(LINK_ALERT)

    def _link_down(self, exc: BaseException) -> None:
        now = self.service.time_source.now()
        place = self.target.where
        problem = self.describe(exc, place)
        if self.state != "down" or problem != self.problem:
            log.warning(
                "the capture stations' Redis at %s cannot be read: %s; retrying",
                place,
                problem or str(exc)[:200],
            )
        self.state = "down"
        self.problem = problem
        if self._down_since is None:
            self._down_since = now
        self.service.health.report(
            LINK_ALERT,
            "stations-unreachable",
            "critical" if problem is not None else "warning",
            say(
                "The capture stations' Redis at %(place)s cannot be read (%(error)s): their "
                "boards' moves wait on the stations and arrive once it is back. Check the "
                "network and the Redis server",
                place=place,
                error=problem or type(exc).__name__,
            ),
            now,
        )
