"""A mirror's side of the public stream: the venue's public state, read from Redis.

`MirrorFeed` loads the newest snapshot (the snapshot key), then follows the stream from
the entry that snapshot is the state after, applying each delta in order. It tells its
listener of each start-over (`on_reset`: a snapshot entry, a venue restart, a gap) and
each delta (`on_delta`), with the state after it. A mirror started mid-round, or
restarted, catches up by itself: the snapshot, then the entries after it.

`MirrorState` is what the public web reads on a mirror (it satisfies
`web.public_source.PublicSource`): the public state, the venue's live and unpaired
rounds, and the venue's event time (`MirrorTime`), as of the newest entry. It has no
journal, no boards and no live state: only what the venue published, already delayed.
"""

from __future__ import annotations

import asyncio
import logging
import time as _time
from collections.abc import Callable
from typing import Any

from redis import asyncio as aioredis
from redis.exceptions import RedisError

from broadcast.config.model import EventConfig
from broadcast.publish.redis_publisher import check_redis_url
from broadcast.publish.stream_format import (
    Entry,
    StreamFormatError,
    StreamKeys,
    decode_entry,
    decode_snapshot,
)
from broadcast.service.state import PublicState

__all__ = ["MirrorFeed", "MirrorState", "MirrorTime"]

log = logging.getLogger(__name__)

READ_COUNT = 1000  # entries per XREAD
BLOCK_MS = 1000
RETRY_FIRST = 0.5
RETRY_MAX = 10.0


class MirrorTime:
    """The venue's event time as of its newest entry, run on by this machine's monotonic
    clock at the venue's speed; it never steps back."""

    def __init__(self, t: float, speed: float, mono: Callable[[], float] = _time.monotonic) -> None:
        self.speed = speed
        self._mono = mono
        self._t = t
        self._at = mono()
        self._last = t

    def follow(self, t: float, speed: float) -> None:
        self.speed = speed
        self._t, self._at = t, self._mono()

    def now(self) -> float:
        self._last = max(self._last, self._t + (self._mono() - self._at) * self.speed)
        return self._last


class MirrorState:
    """The public view a mirror serves (a `PublicSource`)."""

    def __init__(self, first: Entry) -> None:
        assert first.config is not None, "a mirror starts from a snapshot"
        self._config = first.config
        self.epoch = first.epoch
        self.seq = first.seq
        self._state = first.state
        self._live = first.venue.live
        self._unpaired = first.venue.unpaired
        self._delay = first.venue.delay
        self._time = MirrorTime(first.venue.t, first.venue.speed)

    @property
    def config(self) -> EventConfig:
        return self._config

    @property
    def delay(self) -> float:
        return self._delay

    @property
    def time(self) -> MirrorTime:
        return self._time

    def public_state(self) -> PublicState:
        return self._state

    def live_rounds(self) -> dict[str, int | None]:
        return dict(self._live)

    def unpaired_rounds(self) -> dict[str, int]:
        return dict(self._unpaired)

    def take(self, entry: Entry) -> None:
        self.epoch, self.seq, self._state = entry.epoch, entry.seq, entry.state
        self._live, self._unpaired, self._delay = (
            entry.venue.live,
            entry.venue.unpaired,
            entry.venue.delay,
        )
        self._time.follow(entry.venue.t, entry.venue.speed)


Listener = Callable[[Entry], None]


class MirrorFeed:
    """Follows one event's public stream on Redis (see the module's docstring)."""

    def __init__(self, url: str, event: str) -> None:
        self.url = check_redis_url(url)
        self.event = event
        self.keys = StreamKeys.of(event)
        self.state: MirrorState | None = None
        self.after: str | None = None  # the stream id read last (None: load the snapshot)
        self.on_reset: Listener = lambda entry: None
        self.on_delta: Listener = lambda entry: None
        self.ready = asyncio.Event()  # set once the first snapshot is loaded
        self.link = "connecting"  # "connecting" | "up" | "down"
        self.applied = 0  # deltas applied (tests, the bench)
        self.resets = 0
        self._waiting_said = False
        self._troubled = False  # reloading after an unreadable entry: say it once

    async def run(self) -> None:
        """Follow the stream until cancelled; Redis away is retried inside."""
        wait = RETRY_FIRST
        client = aioredis.Redis.from_url(self.url, socket_connect_timeout=5)
        try:
            while True:
                try:
                    if self.after is None:
                        await self._load(client)
                        if self.after is None:
                            await asyncio.sleep(wait)
                            wait = min(wait * 2, RETRY_MAX)
                            continue
                    answer: Any = await client.xread(
                        {self.keys.stream: self.after}, count=READ_COUNT, block=BLOCK_MS
                    )
                    if self.link != "up":
                        log.info("mirror: following %s on %s", self.keys.stream, _where(self.url))
                    self.link = "up"
                    for _stream, entries in answer or ():
                        for entry_id, fields in entries:
                            self._take(_text(entry_id), fields)
                            if self.after is None:
                                break  # start over from the snapshot key
                    if self.after is None:
                        # An entry that cannot be read or placed: the snapshot again, after
                        # a back-off (the venue writes a newer one every 30 s while deltas
                        # flow), never a tight loop of reloads and warnings.
                        self._troubled = True
                        await asyncio.sleep(wait)
                        wait = min(wait * 2, RETRY_MAX)
                    else:
                        self._troubled = False
                        wait = RETRY_FIRST
                except (RedisError, OSError) as exc:
                    if self.link != "down":
                        log.warning("mirror: Redis cannot be read (%s); retrying", exc)
                    self.link = "down"
                    await asyncio.sleep(wait)
                    wait = min(wait * 2, RETRY_MAX)
        finally:
            await client.aclose()

    async def _load(self, client: aioredis.Redis) -> None:
        fields = await client.hgetall(self.keys.snapshot)
        self.link = "up"
        if not fields:
            if not self._waiting_said:
                log.warning(
                    "mirror: no public stream for %r on %s yet (is `serve --publish` running "
                    "for this event?); waiting",
                    self.event,
                    _where(self.url),
                )
                self._waiting_said = True
            return
        try:
            entry = decode_snapshot(fields)
        except StreamFormatError as exc:
            log.warning("mirror: the snapshot cannot be read: %s; waiting for a newer one", exc)
            return
        self._reset(entry)
        self.after = _text(fields.get(b"after")) or "0-0"

    def _take(self, entry_id: str, fields: dict[bytes, bytes]) -> None:
        self.after = entry_id
        state = self.state
        if state is None:
            return
        try:
            entry = decode_entry(fields, state.config, state.public_state())
        except StreamFormatError as exc:
            if not self._troubled:
                log.warning(
                    "mirror: stream entry %s skipped: %s; reloading the snapshot", entry_id, exc
                )
            self.after = None
            return
        if entry.kind == "snapshot":
            self._reset(entry)
        elif entry.epoch == state.epoch and entry.seq == state.seq + 1:
            state.take(entry)
            self.applied += 1
            self.on_delta(entry)
        elif entry.epoch == state.epoch and entry.seq <= state.seq:
            pass  # already applied (the snapshot we started from holds it)
        else:
            log.log(
                logging.DEBUG if self._troubled else logging.WARNING,
                "mirror: stream entry %s is %s:%d after %s:%d; reloading the snapshot",
                entry_id,
                entry.epoch,
                entry.seq,
                state.epoch,
                state.seq,
            )
            self.after = None

    def _reset(self, entry: Entry) -> None:
        if self.state is None:
            self.state = MirrorState(entry)
        else:
            self.state.take(entry)
        self.resets += 1
        self.on_reset(entry)
        self.ready.set()


def _text(value: object) -> str:
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return value if isinstance(value, str) else ""


def _where(url: str) -> str:
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    return f"{parts.hostname}:{parts.port or 6379}"
