"""A capture station's link to Redis: its outbox's events to its stream, in order.

`Sender.run` (a supervised task) connects, greets (`StationHello`, and the station's
name in the event's set of stations), finds where the stream stopped (the last event of
this outbox's incarnation on it: an XADD that reached Redis just before the link broke
is not sent twice), then sends the committed events in order, a pipelined batch at a
time, marking them sent; every second a `StationBeat` (the clock offset to Redis's TIME,
measured at the midpoint of the round trip) and every few seconds the renewal of the
station's claim on its name. Redis unreachable: one line in the log, the outbox keeps
everything, and the sender tries again (back-off up to `RETRY_LONGEST` seconds) and
resends in order once Redis is back (one line again).

At every (re)connection and every `VENUE_SECONDS` it reads the venue hash again and hands
it to `venue_seen` (the station takes a new venue clock, or stops for a new board list).
A renewal that finds the name held by another station (this one was cut off past the
claim's expiry and another took its place) is said in one line, and nothing more is sent
(the stream is the other's now) until the name is free again.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass

from redis import asyncio as aioredis
from redis.exceptions import RedisError

from broadcast.stations.outbox import Outbox
from broadcast.stations.wire import (
    Refused,
    StationBeat,
    StationEvent,
    StationHello,
    StationKeys,
    Venue,
    decode_entry,
    decode_venue,
    encode_entry,
)
from clocks.timesource import MonotonicTimeSource

__all__ = [
    "BATCH",
    "BEAT_SECONDS",
    "CLAIM_MS",
    "CLAIM_RENEW_SECONDS",
    "KEEP_SENT_SECONDS",
    "RETRY_LONGEST",
    "VENUE_SECONDS",
    "NameClaim",
    "Sender",
    "claim_name",
]

log = logging.getLogger(__name__)

BATCH = 500  # events per pipelined XADD batch
BEAT_SECONDS = 1.0
CLAIM_MS = 15_000  # the name's claim expires this long after the last renewal...
CLAIM_RENEW_SECONDS = 5.0  # ...renewed this often
RETRY_LONGEST = 5.0  # real seconds between attempts while Redis is away, at most
KEEP_SENT_SECONDS = 600.0  # sent events kept this long (the boards' memory stays anyway)
PRUNE_SECONDS = 60.0
VENUE_SECONDS = 3.0  # real seconds between two looks at the venue hash
_RESUME_LOOKBACK = 200  # stream entries read back to find the last event sent

# Renew the claim only while it is ours (a GET and a PEXPIRE would race another station).
_RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) and 1 or 0
"""


def _cancelled_meanwhile() -> None:
    """Raise CancelledError if this task was cancelled and redis-py swallowed it (it can
    return an answer although the task was cancelled as it arrived): a station being
    stopped would send on forever."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError


@dataclass(frozen=True, slots=True)
class NameClaim:
    """The value a station writes on its name's owner key: its outbox's incarnation
    (a restart on the same outbox is the same station), host and pid (to tell the
    organizer where the other one runs)."""

    incarnation: str
    host: str
    pid: int

    @property
    def value(self) -> str:
        return f"{self.incarnation} {self.host} {self.pid}"

    @classmethod
    def parse(cls, text: str) -> NameClaim | None:
        parts = text.split(" ")
        if len(parts) != 3 or not parts[2].isdigit():
            return None
        return cls(parts[0], parts[1], int(parts[2]))


async def claim_name(client: aioredis.Redis, key: str, claim: NameClaim) -> NameClaim | None:
    """Claim the station's name; None when it is ours now, else who holds it. A claim
    left by this same outbox (a station killed and restarted before its claim expired:
    the outbox's lock says the old process is gone) is taken over."""
    if await client.set(key, claim.value, nx=True, px=CLAIM_MS):
        return None
    raw = await client.get(key)
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw or "")
    held = NameClaim.parse(text)
    if held is not None and held.incarnation == claim.incarnation:
        await client.set(key, claim.value, px=CLAIM_MS)
        return None
    if raw is None:  # expired between the two calls
        return await claim_name(client, key, claim)
    return held or NameClaim("?", text[:60] or "?", 0)


class Sender:
    """Sends one station's outbox to its stream (see the module docstring)."""

    def __init__(
        self,
        connect: Callable[[], aioredis.Redis],
        where: str,
        keys: StationKeys,
        station: str,
        outbox: Outbox,
        clock: MonotonicTimeSource,
        *,
        boards: tuple[int, ...],
        connected: Callable[[], tuple[int, ...]],
        claim: NameClaim | None = None,
        problem: Callable[[BaseException], str | None] = lambda exc: None,
        venue_seen: Callable[[Venue], None] = lambda venue: None,
    ) -> None:
        self.connect = connect  # a new client (the CLI's RedisTarget.client: URL, password)
        self.where = where  # HOST:PORT, for the log
        self.problem = problem  # what to tell the organizer of a refusal (a wrong password)
        self.keys = keys
        self.station = station
        self.outbox = outbox
        self.clock = clock
        self.boards = boards
        self.connected = connected
        self.claim = claim or NameClaim(outbox.incarnation, socket.gethostname(), 0)
        self.venue_seen = venue_seen
        self.up = False
        self.displaced: NameClaim | None = None  # another station holds the name now
        self.offset: float | None = None  # the last measured offset to Redis TIME
        self._venue_said: str | None = None
        self._wake = asyncio.Event()
        self._said_down = False

    def wake(self) -> None:
        """New committed events: send them now."""
        self._wake.set()

    async def drain(self, timeout: float) -> bool:
        """Wait (at most `timeout` real seconds, and only while the link is up) until every
        committed event is sent; True when none waits. For a station stopping in order."""
        loop = asyncio.get_running_loop()
        until = loop.time() + timeout
        while self.outbox.durable_seq > self.outbox.sent_seq:
            if not self.up or self.displaced is not None or loop.time() >= until:
                return False
            self.wake()
            await asyncio.sleep(0.02)
        return True

    async def run(self) -> None:
        """Send, reconnecting after every outage, until cancelled."""
        wait = 0.2
        while True:
            client = self.connect()
            try:
                await self._session(client)
            except (RedisError, OSError) as exc:
                self._down(exc)
            finally:
                await client.aclose()
            if self.up:
                wait = 0.2
            self.up = False
            await asyncio.sleep(wait)
            wait = min(wait * 2, RETRY_LONGEST)

    def _down(self, exc: BaseException) -> None:
        if self.up or not self._said_down:
            problem = self.problem(exc)
            log.warning(
                "station %s: Redis at %s cannot be reached (%s): board events are kept in "
                "the outbox %s (%d waiting) and sent when it is back",
                self.station,
                self.where,
                problem or f"{type(exc).__name__}: {str(exc)[:120]}",
                self.outbox.path,
                self.outbox.waiting,
            )
            self._said_down = True

    async def _session(self, client: aioredis.Redis) -> None:
        await client.ping()
        if self.displaced is not None:
            await self._reclaim(client)
        await self._look_venue(client)
        await self._resume(client)
        await self._hello(client)
        self.up = True
        if self._said_down:
            log.info(
                "station %s: Redis at %s is back: sending the %d waiting events",
                self.station,
                self.where,
                self.outbox.waiting,
            )
        else:
            log.info("station %s: sending to Redis at %s", self.station, self.where)
        self._said_down = False
        loop = asyncio.get_running_loop()
        next_beat = next_claim = next_prune = next_venue = loop.time()
        while True:
            _cancelled_meanwhile()
            self._wake.clear()
            while self.outbox.durable_seq > self.outbox.sent_seq:
                await self._send_batch(client)
            now = loop.time()
            if now >= next_beat:
                await self._beat(client)
                next_beat = now + BEAT_SECONDS
            if now >= next_claim:
                renewed = await client.eval(
                    _RENEW, 1, self.keys.owner(self.station), self.claim.value, CLAIM_MS
                )
                if not renewed:
                    await self._lost_name(client)
                    return
                next_claim = now + CLAIM_RENEW_SECONDS
            if now >= next_venue:
                await self._look_venue(client)
                next_venue = now + VENUE_SECONDS
            if now >= next_prune:
                self.outbox.prune(time.time() - KEEP_SENT_SECONDS)
                next_prune = now + PRUNE_SECONDS
            timeout = max(0.0, min(next_beat, next_claim, next_venue) - loop.time())
            try:
                await asyncio.wait_for(self._wake.wait(), timeout)
            except TimeoutError:
                pass

    async def _lost_name(self, client: aioredis.Redis) -> None:
        raw = await client.get(self.keys.owner(self.station))
        text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw or "")
        held = NameClaim.parse(text) or NameClaim("?", text[:60] or "?", 0)
        self.displaced = held
        log.error(
            "station %s: another station now holds this name (on %s, pid %d): this one "
            "stops sending (the stream is the other's; its events stay in the outbox %s). "
            "Stop one of the two: two computers must not read the same boards",
            self.station,
            held.host,
            held.pid,
            self.outbox.path,
        )

    async def _reclaim(self, client: aioredis.Redis) -> None:
        """While displaced: send again only once the name is free (the other stopped)."""
        while True:
            if await claim_name(client, self.keys.owner(self.station), self.claim) is None:
                log.warning(
                    "station %s: the name is this station's again: sending the %d waiting events",
                    self.station,
                    self.outbox.waiting,
                )
                self.displaced = None
                return
            await asyncio.sleep(CLAIM_RENEW_SECONDS)

    async def _look_venue(self, client: aioredis.Redis) -> None:
        fields = await client.hgetall(self.keys.venue)
        if not fields:
            return  # being rewritten, or Redis lost it: the serve writes it again
        venue = decode_venue(fields)
        if isinstance(venue, Refused):
            if self._venue_said != venue.reason:
                self._venue_said = venue.reason
                log.warning(
                    "station %s: the venue in Redis cannot be read (%s): keeping the one "
                    "read before. Are the central serve and this station the same version?",
                    self.station,
                    venue.reason,
                )
            return
        self._venue_said = None
        self.venue_seen(venue)

    async def _resume(self, client: aioredis.Redis) -> None:
        """Mark sent what the stream already holds of this incarnation (sent just before
        the link broke, or before a kill -9 of the station)."""
        entries = await client.xrevrange(self.keys.stream(self.station), count=_RESUME_LOOKBACK)
        for _id, fields in entries or []:
            entry = decode_entry(fields or {})
            if isinstance(entry, StationEvent) and entry.incarnation == self.outbox.incarnation:
                if entry.seq > self.outbox.sent_seq:
                    self.outbox.mark_sent(entry.seq, time.time())
                return

    async def _hello(self, client: aioredis.Redis) -> None:
        hello = StationHello(
            self.station,
            self.outbox.incarnation,
            self.outbox.last_seq,
            self.boards,
            self.claim.host,
            self.claim.pid,
            self.clock.now(),
        )
        async with client.pipeline(transaction=False) as pipe:
            pipe.sadd(self.keys.stations, self.station)
            pipe.xadd(self.keys.stream(self.station), encode_entry(hello))  # type: ignore[arg-type]
            await pipe.execute()

    async def _send_batch(self, client: aioredis.Redis) -> None:
        pending = self.outbox.unsent(BATCH)
        if not pending:
            return
        stream = self.keys.stream(self.station)
        inc = self.outbox.incarnation
        async with client.pipeline(transaction=False) as pipe:
            for p in pending:
                entry = StationEvent(self.station, inc, p.seq, p.port, p.event)
                pipe.xadd(stream, encode_entry(entry))  # type: ignore[arg-type]
            await pipe.execute()
        self.outbox.mark_sent(pending[-1].seq, time.time())

    async def _beat(self, client: aioredis.Redis) -> None:
        before = time.time()
        seconds, micros = await client.time()
        after = time.time()
        rtt = after - before
        self.offset = (before + after) / 2 - (seconds + micros / 1e6)
        beat = StationBeat(
            self.station,
            self.outbox.incarnation,
            self.outbox.last_seq,
            self.clock.now(),
            self.offset,
            rtt,
            self.outbox.waiting,
            self.connected(),
        )
        await client.xadd(self.keys.stream(self.station), encode_entry(beat))  # type: ignore[arg-type]
