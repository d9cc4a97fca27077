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
oldest entry not yet acknowledged is more than `BEHIND_ALERT_SECONDS` old.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import time as wall_time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

from redis import asyncio as aioredis
from redis.exceptions import RedisError

from broadcast.config.model import EventConfig
from broadcast.publish.stream_format import (
    Fields,
    StreamKeys,
    Venue,
    delta_fields,
    snapshot_fields,
)
from broadcast.service.health import Health
from broadcast.service.state import PublicState
from clocks.errors import BoardwireError
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
RETRY_FIRST = 0.5
RETRY_MAX = 10.0
BEHIND_ALERT_SECONDS = 60.0
LINK_ALERT = "publish"
LINK_NAME = "Public stream to the mirrors"


class PublishUrlError(BoardwireError, ValueError):
    """A --publish / mirror --redis URL that is not a Redis URL."""


def check_redis_url(url: str) -> str:
    """`url` if it is a redis:// (or rediss://) URL, else PublishUrlError saying why."""
    parts = urlsplit(url)
    if parts.scheme not in ("redis", "rediss") or not parts.hostname:
        raise PublishUrlError(
            f"{url[:100]!r} is not a Redis URL: write redis://HOST:PORT/DB "
            "(e.g. redis://127.0.0.1:6379/0)"
        )
    try:
        parts.port  # noqa: B018 (a port that is not a number raises here)
    except ValueError:
        raise PublishUrlError(f"{url[:100]!r}: the port is not a number") from None
    return url


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
        time: EpochTimeSource,
        health: Health,
        *,
        delay: float,
        current: Current,
        live: Callable[[], dict[str, int | None]],
        unpaired: Callable[[], dict[str, int]],
        wall: Callable[[], float] = wall_time.time,
        outbox_limit: int = OUTBOX_LIMIT,
        snapshot_seconds: float = SNAPSHOT_SECONDS,
    ) -> None:
        self.url = check_redis_url(url)
        self.config = config
        self.time = time
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
        self.acked: tuple[str, int] | None = None  # (epoch, seq) Redis holds last
        self.written = 0  # entries acknowledged (for tests and the bench)
        self._acked_state: PublicState | None = None  # the state after the last acked entry
        self._acked_id: str | None = None
        self._last_snapshot = float("-inf")
        self._down_since: float | None = None
        self._wake = asyncio.Event()
        health.watch_link(LINK_NAME, self.status)

    # -- the hub's side: never blocks, never fails --------------------------------------------

    def venue(self) -> Venue:
        return Venue(
            self.live(), self.unpaired(), self.time.now(), self.wall(), self.time.speed, self.delay
        )

    def offer(
        self, epoch: str, seq: int, keys: frozenset[str], text: str, state: PublicState
    ) -> None:
        """A public delta the hub just sent (the hub's tap)."""
        if len(self.outbox) >= self.outbox_limit:
            # Bounded memory: the backlog becomes one snapshot entry of the state now.
            self.outbox.clear()
            self.whole_due = True
        else:
            self.outbox.append(Outgoing(epoch, seq, keys, text, state, self.venue()))
        self._wake.set()

    def behind(self) -> float:
        """Event seconds since the oldest delta Redis has not acknowledged (0: none)."""
        if not self.outbox:
            return 0.0
        return max(0.0, self.time.now() - self.outbox[0].venue.t)

    # -- the task -----------------------------------------------------------------------------

    async def run(self) -> None:
        """Write the outbox to Redis until cancelled; a Redis outage is retried inside."""
        wait = RETRY_FIRST
        client = aioredis.Redis.from_url(self.url, socket_timeout=5, socket_connect_timeout=5)
        try:
            while True:
                try:
                    await self._resume(client)
                    self._link_up()
                    wait = RETRY_FIRST
                    while True:
                        await self._write_some(client)
                        self._watch_behind()
                        if not self.outbox and not self.whole_due:
                            self._wake.clear()
                            try:
                                await asyncio.wait_for(self._wake.wait(), 1.0)
                            except TimeoutError:
                                pass
                except (RedisError, OSError) as exc:
                    self._link_down(exc)
                    self._watch_behind()
                    await asyncio.sleep(wait)
                    wait = min(wait * 2, RETRY_MAX)
        finally:
            await client.aclose()

    async def _resume(self, client: aioredis.Redis) -> None:
        """Where Redis is: drop from the outbox what it already holds (an XADD whose answer
        the outage swallowed), so the next entry written is the one after it."""
        if self.whole_due or self.acked is None:
            return
        last = await client.xrevrange(self.keys.stream, count=1)
        epoch: str | None = None
        seq = -1
        entry_id: object = None
        fields = last[0][1] if last else None
        if fields is not None:
            entry_id = last[0][0] if last else None
            epoch = _str(fields.get(b"epoch"))
            seq = int(_str(fields.get(b"seq")) or -1)
        if epoch != self.acked[0] or seq < self.acked[1]:
            # Redis lost what it had acknowledged (restarted without persistence, flushed):
            # write the acknowledged state whole, then the outbox after it, in order.
            self.rewrite_acked = True
            return
        while self.outbox and self.outbox[0].epoch == epoch and self.outbox[0].seq <= seq:
            done = self.outbox.popleft()
            self._acked_state = done.state
            self.acked = (done.epoch, done.seq)
            self._acked_id = _str(entry_id)

    async def _write_some(self, client: aioredis.Redis) -> None:
        if self.whole_due:
            epoch, seq, state = self.current()
            # Deltas already offered up to `seq` are in the snapshot's state.
            while self.outbox and self.outbox[0].epoch == epoch and self.outbox[0].seq <= seq:
                self.outbox.popleft()
            fields = snapshot_fields(self.config, epoch, seq, state, self.venue())
            entry_id = await client.xadd(
                self.keys.stream, fields, maxlen=STREAM_MAXLEN, approximate=True
            )
            self.whole_due = False
            self._acked(epoch, seq, state, _str(entry_id))
            await self._store_snapshot(client, fields, _str(entry_id))
            return
        if self.rewrite_acked and self.acked is not None and self._acked_state is not None:
            epoch, seq = self.acked
            fields = snapshot_fields(self.config, epoch, seq, self._acked_state, self.venue())
            entry_id = await client.xadd(
                self.keys.stream, fields, maxlen=STREAM_MAXLEN, approximate=True
            )
            self.rewrite_acked = False
            await self._store_snapshot(client, fields, _str(entry_id))
            return
        batch = [self.outbox[i] for i in range(min(BATCH, len(self.outbox)))]
        if not batch:
            return
        pipe = client.pipeline(transaction=False)
        before = self._acked_state
        for item in batch:
            pipe.xadd(
                self.keys.stream,
                delta_fields(
                    item.epoch, item.seq, item.keys, item.text, before, item.state, item.venue
                ),
                maxlen=STREAM_MAXLEN,
                approximate=True,
            )
            before = item.state
        ids = await pipe.execute()
        for _ in batch:
            self.outbox.popleft()
        last = batch[-1]
        self._acked(last.epoch, last.seq, last.state, _str(ids[-1]))
        self.written += len(batch) - 1  # _acked counted one
        now = asyncio.get_running_loop().time()
        if now - self._last_snapshot >= self.snapshot_seconds:
            fields = snapshot_fields(self.config, last.epoch, last.seq, last.state, last.venue)
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
        where = _where(self.url)
        waiting = f"{len(self.outbox)} update(s) waiting"
        if self.state == "down" and self._down_since is not None:
            since = dt.datetime.fromtimestamp(self._down_since, dt.UTC).strftime("%H:%M:%S")
            return (
                f"DOWN since {since} UTC (Redis at {where}): {waiting}, sent in order once "
                "it is back"
            )
        if self.state == "up":
            behind = self.behind()
            late = f", the oldest {behind:.0f} s old" if self.outbox else ""
            return f"up (Redis at {where}): {self.written} update(s) written, {waiting}{late}"
        return f"connecting to Redis at {where}: {waiting}"

    def _link_up(self) -> None:
        if self.state != "up" and self._down_since is not None:
            log.warning("the public stream to Redis is back; catching up")
        self.state = "up"
        self._down_since = None
        self.health.clear(LINK_ALERT)

    def _link_down(self, exc: BaseException) -> None:
        now = self.time.now()
        if self._down_since is None:
            self._down_since = now
            log.warning("the public stream to Redis cannot be written: %s; retrying", exc)
        self.state = "down"
        self.health.report(
            LINK_ALERT,
            "publish-behind",
            "warning",
            f"Redis at {_where(self.url)} cannot be reached ({type(exc).__name__}); mirrors "
            f"show the event as of then. {len(self.outbox)} update(s) wait and are sent, "
            "in order, once it is back: check the venue's uplink and the Redis server",
            now,
        )

    def _watch_behind(self) -> None:
        behind = self.behind()
        if behind > BEHIND_ALERT_SECONDS:
            self.health.report(
                f"{LINK_ALERT}-behind",
                "publish-behind",
                "critical",
                f"the public stream to Redis is {behind:.0f} s behind ({len(self.outbox)} "
                "update(s) waiting): spectators on the mirrors see old moves",
                self.time.now(),
            )
        else:
            self.health.clear(f"{LINK_ALERT}-behind")


def _str(value: object) -> str | None:
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return value if isinstance(value, str) else None


def _where(url: str) -> str:
    parts = urlsplit(url)  # never the password, if the URL has one
    return f"{parts.hostname}:{parts.port or 6379}"
