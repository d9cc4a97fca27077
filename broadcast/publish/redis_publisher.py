"""`serve --publish redis://...`: the delayed public stream, written to Redis.

The venue's hub tells the publisher of every public delta it sends (already delayed, as
numbered and encoded for spectators) through `offer()`; the publisher keeps them in its
outbox, in order, until Redis has acknowledged them, and a supervised task (`run`)
writes them with XADD, a batch at a time (see `stream_format` for the entries). It also
writes a snapshot now and then (the snapshot key) so a new mirror needs no replay.

Redis or the uplink away never holds up the event: `offer()` only appends. The task
retries with back-off and, once the link is back, asks Redis for the last entry it holds
and goes on from the one after it, so nothing is lost or written twice and the order is
kept. The outbox is bounded (`OUTBOX_LIMIT` entries: about an hour of a big hall's
deltas): past it, the backlog is replaced by one snapshot entry, from which mirrors start
over (nothing of the state is lost; spectators of a mirror resync once).

The desk sees the link: its state in words at all times (`status`, through
`Health.watch_link`), a warning while Redis cannot be reached, a critical alert when the
oldest entry not yet acknowledged is more than `BEHIND_ALERT_SECONDS` old, and a critical
alert naming the key when Redis refuses the writes because something else stored
another type of value under the stream's key (or a wrong password: which setting).

Anyone with write access to Redis can add entries to the stream. The resume after an
outage therefore finds its place by the id of the last entry Redis acknowledged to us,
and takes as ours only the entries after it that are the outbox's next ones; anything
else there is skipped (said once), never read as a number it must trust.

The event loop is the boards': entries are encoded in a worker thread of the
publisher's own (the states they read are immutable), snapshots by a `SnapshotEncoder`
that encodes again only the games and sections that changed since the last one.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from redis import asyncio as aioredis
from redis.exceptions import RedisError

from broadcast.config.model import EventConfig
from broadcast.phrases import say
from broadcast.publish.redis_link import (
    PublishUrlError,
    RedisTarget,
    check_redis_url,
    is_wrong_type,
    redis_problem,
    where,
    wrong_type,
)
from broadcast.publish.stream_format import (
    Fields,
    Header,
    SnapshotEncoder,
    StreamKeys,
    Venue,
    delta_fields,
    read_header,
)
from broadcast.service.event_state import PublicState
from broadcast.service.health import Health
from clocks.timesource import EpochTimeSource

__all__ = [
    "BEHIND_ALERT_SECONDS",
    "LINK_ALERT",
    "LINK_NAME",
    "OUTBOX_LIMIT",
    "Outgoing",
    "PublishUrlError",
    "RedisPublisher",
    "check_redis_url",
]

log = logging.getLogger(__name__)

OUTBOX_LIMIT = 200_000
BATCH = 500  # entries per round trip
STREAM_MAXLEN = 200_000  # entries kept in the stream (approximately); older ones are trimmed
SNAPSHOT_SECONDS = 30.0  # real seconds between snapshots while deltas flow
RESUME_SCAN = 4 * BATCH  # entries after our last one a resume looks through, at most
RETRY_FIRST = 0.5
RETRY_MAX = 10.0
BEHIND_ALERT_SECONDS = 60.0
LINK_ALERT = "publish"
LINK_NAME = "Public stream to the mirrors"


@dataclass(frozen=True, slots=True)
class Outgoing:
    """One public delta waiting for Redis, with the state it leaves the public view at."""

    epoch: str
    seq: int
    keys: frozenset[str]
    text: str
    state: PublicState
    venue: Venue


Current = Callable[[], tuple[str, int, PublicState]]  # the hub's epoch, seq and public state


class RedisPublisher:
    """The outbox of public deltas and the task that writes them to Redis."""

    def __init__(
        self,
        url: str,
        config: EventConfig,
        time_source: EpochTimeSource,
        health: Health,
        *,
        delay: float,
        current: Current,
        live: Callable[[], dict[str, int | None]],
        unpaired: Callable[[], dict[str, int]],
        wall: Callable[[], float] = time.time,
        outbox_limit: int = OUTBOX_LIMIT,
        snapshot_seconds: float = SNAPSHOT_SECONDS,
        password: str | None = None,
    ) -> None:
        self.url = check_redis_url(url)
        self.target = RedisTarget(self.url, password)
        self.config = config
        self.time_source = time_source
        self.health = health
        self.delay = delay
        self.current = current
        self.live = live
        self.unpaired = unpaired
        self.wall = wall
        self.outbox_limit = outbox_limit
        self.snapshot_seconds = snapshot_seconds
        self.keys = StreamKeys.of(config.name)
        self.outbox: deque[Outgoing] = deque()
        self.whole_due = True  # the next entry is a whole snapshot (a start, an overflow)
        self.rewrite_acked = False  # Redis lost our entries: write the acknowledged state whole
        self.state = "connecting"  # "connecting" | "up" | "down" (for the desk and tests)
        self.problem: str | None = None  # what Redis refuses, in words (a key's type, auth)
        self.acked: tuple[str, int] | None = None  # (epoch, seq) Redis holds last
        self.written = 0  # entries acknowledged (for tests and the bench)
        self.foreign = 0  # entries found after ours that the venue did not write (tests)
        self.encoder = SnapshotEncoder()
        self._acked_state: PublicState | None = None  # the state after the last acked entry
        self._acked_id: str | None = None
        self._overflows = 0  # outbox overflows so far (a write in flight checks it)
        self._last_snapshot = float("-inf")
        self._down_since: float | None = None
        self._wake = asyncio.Event()
        self._pool: ThreadPoolExecutor | None = None  # the encoding worker, while running
        health.watch_link(LINK_NAME, self.status)

    # -- the hub's side: never blocks, never fails --------------------------------------------

    def venue(self) -> Venue:
        return Venue(
            self.live(),
            self.unpaired(),
            self.time_source.now(),
            self.wall(),
            self.time_source.speed,
            self.delay,
        )

    def offer(
        self, epoch: str, seq: int, keys: frozenset[str], text: str, state: PublicState
    ) -> None:
        """A public delta the hub just sent (the hub's tap)."""
        if len(self.outbox) >= self.outbox_limit:
            # Bounded memory: the backlog becomes one snapshot entry of the state now.
            self.outbox.clear()
            self.whole_due = True
            self._overflows += 1
        else:
            self.outbox.append(Outgoing(epoch, seq, keys, text, state, self.venue()))
        self._wake.set()

    def behind(self) -> float:
        """Event seconds since the oldest delta Redis has not acknowledged (0: none)."""
        if not self.outbox:
            return 0.0
        return max(0.0, self.time_source.now() - self.outbox[0].venue.t)

    # -- the task -----------------------------------------------------------------------------

    async def run(self) -> None:
        """Write the outbox to Redis until cancelled; a Redis outage is retried inside."""
        wait = RETRY_FIRST
        client = self.target.client(socket_timeout=5, socket_connect_timeout=5)
        # The encoding happens here, an entry or a batch at a time, off the boards' loop.
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="publish-encode")
        try:
            while True:
                try:
                    await self._resume(client)
                    self._link_up()
                    wait = RETRY_FIRST
                    while True:
                        _cancelled_meanwhile()
                        await self._write_some(client)
                        self._watch_behind()
                        if not self.outbox and not self.whole_due:
                            self._wake.clear()
                            try:
                                await asyncio.wait_for(self._wake.wait(), 1.0)
                            except TimeoutError:
                                pass
                except (RedisError, OSError) as exc:
                    await self._link_down(client, exc)
                    self._watch_behind()
                    await asyncio.sleep(wait)
                    wait = min(wait * 2, RETRY_MAX)
        finally:
            self._pool.shutdown(wait=False, cancel_futures=True)
            await client.aclose()

    async def _in_worker(self, function: Callable[..., Any], *args: Any) -> Any:
        assert self._pool is not None, "only while running"
        return await asyncio.get_running_loop().run_in_executor(self._pool, function, *args)

    async def _resume(self, client: aioredis.Redis) -> None:
        """Where Redis is: drop from the outbox what it already holds (an XADD whose answer
        the outage swallowed), so the next entry written is the one after it."""
        if self.whole_due or self.acked is None or self._acked_id is None:
            return
        stream = self.keys.stream
        last_id = self._acked_id
        mine = await client.xrange(stream, min=last_id, max=last_id, count=1)
        header = read_header(mine[0][1]) if mine else None
        if not isinstance(header, Header) or (header.epoch, header.seq) != self.acked:
            # Redis lost what it had acknowledged (restarted without persistence, flushed):
            # write the acknowledged state whole, then the outbox after it, in order.
            self.rewrite_acked = True
            return
        scanned = 0
        while self.outbox and scanned < RESUME_SCAN:
            entries = await client.xrange(stream, min=f"({last_id}", count=BATCH)
            if not entries:
                return
            for entry_id, fields in entries:
                last_id = _str(entry_id) or last_id
                scanned += 1
                header = read_header(fields)
                if (
                    isinstance(header, Header)
                    and self.outbox
                    and header.kind == "delta"
                    and (header.epoch, header.seq) == (self.outbox[0].epoch, self.outbox[0].seq)
                ):
                    done = self.outbox.popleft()
                    self._acked(done.epoch, done.seq, done.state, last_id)
                else:
                    self._not_ours(last_id, header)

    def _not_ours(self, entry_id: str, header: object) -> None:
        # Mirrors skip such an entry too; the venue carries on after it.
        self.foreign += 1
        if self.foreign == 1:
            why = getattr(header, "reason", "not the next of the venue's entries")
            log.warning(
                "the public stream %s in Redis holds an entry the venue did not write (%s: "
                "%s); mirrors skip it. Something else writes into the stream: check who "
                "can write to this Redis",
                self.keys.stream,
                entry_id,
                why,
            )

    async def _write_some(self, client: aioredis.Redis) -> None:
        overflows = self._overflows
        if self.whole_due:
            epoch, seq, state = self.current()
            # Deltas already offered up to `seq` are in the snapshot's state.
            while self.outbox and self.outbox[0].epoch == epoch and self.outbox[0].seq <= seq:
                self.outbox.popleft()
            fields = await self._in_worker(
                self.encoder.fields, self.config, epoch, seq, state, self.venue()
            )
            entry_id = await client.xadd(
                self.keys.stream, fields, maxlen=STREAM_MAXLEN, approximate=True
            )
            if self._overflows == overflows:  # else the next snapshot is due already
                self.whole_due = False
            self._acked(epoch, seq, state, _str(entry_id))
            await self._store_snapshot(client, fields, _str(entry_id))
            return
        if self.rewrite_acked and self.acked is not None and self._acked_state is not None:
            epoch, seq = self.acked
            fields = await self._in_worker(
                self.encoder.fields, self.config, epoch, seq, self._acked_state, self.venue()
            )
            entry_id = await client.xadd(
                self.keys.stream, fields, maxlen=STREAM_MAXLEN, approximate=True
            )
            self.rewrite_acked = False
            self._acked_id = _str(entry_id)  # the acknowledged state's entry, from now on
            await self._store_snapshot(client, fields, _str(entry_id))
            return
        batch = [self.outbox[i] for i in range(min(BATCH, len(self.outbox)))]
        if not batch:
            return
        encoded = await self._in_worker(_encode_batch, batch, self._acked_state)
        pipe = client.pipeline(transaction=False)
        for fields in encoded:
            pipe.xadd(self.keys.stream, fields, maxlen=STREAM_MAXLEN, approximate=True)
        ids = await pipe.execute()
        if self._overflows != overflows:
            return  # the outbox was dropped meanwhile: a snapshot entry comes next
        for _ in batch:
            self.outbox.popleft()
        last = batch[-1]
        self._acked(last.epoch, last.seq, last.state, _str(ids[-1]))
        self.written += len(batch) - 1  # _acked counted one
        now = asyncio.get_running_loop().time()
        if now - self._last_snapshot >= self.snapshot_seconds:
            fields = await self._in_worker(
                self.encoder.fields, self.config, last.epoch, last.seq, last.state, last.venue
            )
            await self._store_snapshot(client, fields, _str(ids[-1]))

    def _acked(self, epoch: str, seq: int, state: PublicState, entry_id: str | None) -> None:
        self.acked = (epoch, seq)
        self._acked_state = state
        self._acked_id = entry_id
        self.written += 1

    async def _store_snapshot(
        self, client: aioredis.Redis, fields: Fields, entry_id: str | None
    ) -> None:
        # The snapshot key: the entry's fields and the stream id it is the state after.
        await client.hset(self.keys.snapshot, mapping={**fields, "after": entry_id or "0-0"})
        self._last_snapshot = asyncio.get_running_loop().time()

    # -- the desk -----------------------------------------------------------------------------

    def status(self) -> str:
        """The link in words, for the desk: up or down, since when, what waits."""
        place = where(self.url)
        waiting = f"{len(self.outbox)} update(s) waiting"
        if self.state == "down" and self._down_since is not None:
            since = dt.datetime.fromtimestamp(self._down_since, dt.UTC).strftime("%H:%M:%S")
            if self.problem is not None:
                return f"DOWN since {since} UTC: {self.problem}. {waiting}"
            return (
                f"DOWN since {since} UTC (Redis at {place}): {waiting}, sent in order once "
                "it is back"
            )
        if self.state == "up":
            behind = self.behind()
            late = f", the oldest {behind:.0f} s old" if self.outbox else ""
            return f"up (Redis at {place}): {self.written} update(s) written, {waiting}{late}"
        return f"connecting to Redis at {place}: {waiting}"

    def _link_up(self) -> None:
        if self.state != "up" and self._down_since is not None:
            log.warning("the public stream to Redis is back; catching up")
        self.state = "up"
        self.problem = None
        self._down_since = None
        self.health.clear(LINK_ALERT)

    async def _refusal(self, client: aioredis.Redis, exc: BaseException) -> str | None:
        """Redis's refusal in words (a key of another type, a password), or None."""
        place = where(self.url)
        if not is_wrong_type(exc):
            return redis_problem(exc, place)
        try:
            for key, wanted in ((self.keys.stream, "stream"), (self.keys.snapshot, "hash")):
                held = _str(await client.type(key)) or "?"
                if held not in (wanted, "none"):
                    return wrong_type(place, key, held, wanted)
        except (RedisError, OSError):
            pass
        return wrong_type(place, self.keys.stream, "value of another type", "stream")

    async def _link_down(self, client: aioredis.Redis, exc: BaseException) -> None:
        now = self.time_source.now()
        problem = await self._refusal(client, exc)
        if self._down_since is None or problem != self.problem:
            if problem is not None:
                log.warning("the public stream cannot be written: %s", problem)
            else:
                log.warning(
                    "the public stream to Redis cannot be written: %s; retrying", str(exc)[:200]
                )
        if self._down_since is None:
            self._down_since = now
        self.state = "down"
        self.problem = problem
        waiting = say(
            "%(count)s update(s) wait and are sent, in order, once it is back",
            count=len(self.outbox),
        )
        if problem is not None:
            message = say(
                "%(problem)s. Mirrors show the event as of then; %(waiting)s",
                problem=problem,
                waiting=waiting,
            )
        else:
            message = say(
                "Redis at %(place)s cannot be reached (%(error)s); mirrors show the event as "
                "of then. %(waiting)s: check the venue's uplink and the Redis server",
                place=where(self.url),
                error=type(exc).__name__,
                waiting=waiting,
            )
        self.health.report(
            LINK_ALERT,
            "publish-behind",
            "critical" if problem is not None else "warning",
            message,
            now,
        )

    def _watch_behind(self) -> None:
        behind = self.behind()
        if behind > BEHIND_ALERT_SECONDS:
            self.health.report(
                f"{LINK_ALERT}-behind",
                "publish-behind",
                "critical",
                say(
                    "the public stream to Redis is %(seconds)s s behind (%(count)s update(s) "
                    "waiting): spectators on the mirrors see old moves",
                    seconds=f"{behind:.0f}",
                    count=len(self.outbox),
                ),
                self.time_source.now(),
            )
        else:
            self.health.clear(f"{LINK_ALERT}-behind")


def _cancelled_meanwhile() -> None:
    # A cancellation a library swallowed (see mirror_feed._cancelled_meanwhile) still stops.
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError


def _encode_batch(batch: list[Outgoing], before: PublicState | None) -> list[Fields]:
    """The entries of `batch`, each a delta from the state before it (in the worker)."""
    out = []
    for item in batch:
        out.append(
            delta_fields(item.epoch, item.seq, item.keys, item.text, before, item.state, item.venue)
        )
        before = item.state
    return out


def _str(value: object) -> str | None:
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return value if isinstance(value, str) else None
