"""A mirror's side of the public stream: the venue's public state, read from Redis.

`MirrorFeed` loads the newest snapshot (the snapshot key), then follows the stream from
the entry that snapshot is the state after, applying each delta in order. It tells its
listener of each start-over (`on_reset`: a snapshot entry, a venue restart, a gap) and
each delta (`on_delta`), with the state after it. A mirror started mid-round, or
restarted, catches up by itself: the snapshot, then the entries after it.

What it does with each entry is `mirror_follow`'s judgement: an entry that is not the
venue's is skipped (said at once, then at most once a minute with a count; counted in
`rejected`) and the mirror keeps serving its last good state. It loads the snapshot key
again only when that snapshot is newer than its state, so nothing in the stream can make
it reload in a loop or turn its pages back. Snapshots are decoded in a worker thread.

`MirrorState` is what the public web reads on a mirror (it satisfies
`web.public_source.PublicSource`): the public state, the venue's live and unpaired
rounds, and the venue's event time (`MirrorTime`), as of the newest entry. It has no
journal, no boards and no live state: only what the venue published, already delayed.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Any

from redis import asyncio as aioredis
from redis.exceptions import RedisError

from broadcast.config.model import EventConfig
from broadcast.publish.mirror_follow import (
    Outcome,
    Position,
    Reset,
    Resync,
    Skip,
    Take,
    judge,
    settle,
)
from broadcast.publish.redis_link import (
    RedisTarget,
    check_redis_url,
    is_wrong_type,
    redis_problem,
    where,
    wrong_type,
)
from broadcast.publish.stream_format import (
    Entry,
    Header,
    Rejected,
    StreamKeys,
    decode_entry,
    decode_snapshot,
    read_header,
)
from broadcast.service.event_state import PublicState

__all__ = ["MirrorFeed", "MirrorState", "MirrorTime"]

log = logging.getLogger(__name__)

READ_COUNT = 1000  # entries per XREAD
BLOCK_MS = 1000
RETRY_FIRST = 0.5
RETRY_MAX = 10.0
REPORT_EVERY = 60.0  # seconds between warnings about skipped entries (the first at once)
SNAPSHOT_CHECK_EVERY = 1.0  # seconds between looks at the snapshot key when one is wanted


class MirrorTime:
    """The venue's event time as of its newest entry, run on by this machine's monotonic
    clock at the venue's speed; it never steps back."""

    def __init__(self, t: float, speed: float, mono: Callable[[], float] = time.monotonic) -> None:
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

    def __init__(self, first: Entry, entry_id: str | None = None) -> None:
        assert first.config is not None, "a mirror starts from a snapshot"
        self._config = first.config
        self.epoch = first.epoch
        self.seq = first.seq
        self.text = ""  # the text of the delta that made `seq` ("" after a snapshot)
        self.entry_id = entry_id  # the stream entry the state is as of
        self._state = first.state
        self._live = first.venue.live
        self._unpaired = first.venue.unpaired
        self._delay = first.venue.delay
        self._time_source = MirrorTime(first.venue.t, first.venue.speed)

    @property
    def config(self) -> EventConfig:
        return self._config

    @property
    def delay(self) -> float:
        return self._delay

    @property
    def time_source(self) -> MirrorTime:
        return self._time_source

    def public_state(self) -> PublicState:
        return self._state

    def live_rounds(self) -> dict[str, int | None]:
        return dict(self._live)

    def unpaired_rounds(self) -> dict[str, int]:
        return dict(self._unpaired)

    def position(self) -> Position:
        return Position(self._config, self.epoch, self.seq, self._state, self.text)

    def take(self, entry: Entry, entry_id: str | None = None) -> None:
        self.epoch, self.seq, self._state = entry.epoch, entry.seq, entry.state
        self.text = entry.text
        self.entry_id = entry_id
        self._live, self._unpaired, self._delay = (
            entry.venue.live,
            entry.venue.unpaired,
            entry.venue.delay,
        )
        self._time_source.follow(entry.venue.t, entry.venue.speed)


Listener = Callable[[Entry], None]


class MirrorFeed:
    """Follows one event's public stream on Redis (see the module's docstring)."""

    def __init__(
        self,
        url: str,
        event: str,
        *,
        password: str | None = None,
        mono: Callable[[], float] = time.monotonic,
    ) -> None:
        self.url = check_redis_url(url)
        self.target = RedisTarget(self.url, password)
        self.event = event
        self.keys = StreamKeys.of(event)
        self.state: MirrorState | None = None
        self.after: str | None = None  # the stream id read last (None: load the snapshot)
        self.on_reset: Listener = lambda entry: None
        self.on_delta: Listener = lambda entry: None
        self.ready = asyncio.Event()  # set once the first snapshot is loaded
        self.link = "connecting"  # "connecting" | "up" | "down"
        self.resets = 0
        self.rejected = 0  # entries skipped: not the venue's, damaged, another format
        self.old = 0  # entries skipped as already applied
        self.problem: str | None = None  # why the mirror cannot follow, in words (or None)
        self._mono = mono
        self._said: set[str] = set()  # problems already logged (each once)
        self._reported_at: float | None = None
        self._unreported = 0
        self._want_snapshot = False
        self._next_check = 0.0
        self._bad_snapshot: tuple[object, ...] | None = None  # the unreadable one seen last

    async def run(self) -> None:
        """Follow the stream until cancelled; Redis away is retried inside."""
        wait = RETRY_FIRST
        client = self.target.client(socket_connect_timeout=5)
        try:
            while True:
                _cancelled_meanwhile()
                try:
                    if (self.state is None or self.after is None) and not await self._load(client):
                        await asyncio.sleep(wait)
                        wait = min(wait * 2, RETRY_MAX)
                        continue
                    if self._want_snapshot and self._mono() >= self._next_check:
                        self._next_check = self._mono() + SNAPSHOT_CHECK_EVERY
                        await self._load(client)
                    after = self.after or "0-0"
                    answer: Any = await client.xread(
                        {self.keys.stream: after}, count=READ_COUNT, block=BLOCK_MS
                    )
                    if self.link != "up":
                        log.info("mirror: following %s on %s", self.keys.stream, where(self.url))
                    self.link = "up"
                    wait = RETRY_FIRST
                    for _stream, entries in answer or ():
                        for entry_id, fields in entries:
                            await self._take(_text(entry_id), fields)
                except (RedisError, OSError) as exc:
                    await self._down(client, exc)
                    await asyncio.sleep(wait)
                    wait = min(wait * 2, RETRY_MAX)
        finally:
            await client.aclose()

    # -- the snapshot key ---------------------------------------------------------------------

    async def _load(self, client: aioredis.Redis) -> bool:
        """Start over from the snapshot key if it can be read and is newer than the state
        (any, while there is none); True if it was taken."""
        names = ("format", "kind", "epoch", "seq", "after")
        values = await client.hmget(self.keys.snapshot, list(names))
        self.link = "up"
        if all(v is None for v in values):
            self._say(
                "none",
                f"no public stream for {self.event!r} on {where(self.url)} yet (is "
                "`serve --publish` running for this event?); waiting",
            )
            return False
        head = dict(zip(names, values, strict=True))
        header = read_header(head)
        after = _text(head["after"]) or "0-0"
        if isinstance(header, Rejected):
            self._say(header.reason, f"the snapshot cannot be used: {header.reason}")
            self.problem = header.reason
            return False
        state = self.state
        if state is not None and not _newer(header, after, state):
            return False
        seen = (after, header.epoch, header.seq)
        if seen == self._bad_snapshot:
            return False  # the same unreadable snapshot: not decoded again
        fields = await client.hgetall(self.keys.snapshot)
        entry = await asyncio.to_thread(decode_snapshot, fields)
        if isinstance(entry, Rejected):
            self._bad_snapshot = seen
            self._say(
                entry.reason,
                f"the snapshot cannot be used: {entry.reason}; waiting for a newer one",
            )
            self.problem = entry.reason
            return False
        self._reset(entry, after)
        self.after = after
        return True

    # -- the stream ---------------------------------------------------------------------------

    async def _take(self, entry_id: str, fields: Any) -> None:
        self.after = entry_id
        state = self.state
        if state is None:
            return
        at = state.position()
        header = read_header(fields)
        verdict: Outcome | None = judge(fields, header, at)
        if verdict is None:
            assert isinstance(header, Header)
            if header.kind == "snapshot":
                decoded = await asyncio.to_thread(decode_snapshot, fields)
            else:
                decoded = decode_entry(fields, at.config, at.state)
            verdict = settle(decoded, at)
        if isinstance(verdict, Take):
            state.take(verdict.entry, entry_id)
            self._want_snapshot = False  # in step again (a stray entry is behind us)
            self.on_delta(verdict.entry)
        elif isinstance(verdict, Reset):
            self._reset(verdict.entry, entry_id)
        elif isinstance(verdict, Skip) and verdict.quiet:
            self.old += 1
        elif isinstance(verdict, Skip):
            self.rejected += 1
            if verdict.why == "format":
                self._say(verdict.reason, f"stream entry {entry_id} skipped: {verdict.reason}")
            else:
                self._report(entry_id, verdict.reason, "this mirror keeps its state and reads on")
        else:
            assert isinstance(verdict, Resync)
            self.rejected += 1
            self._want_snapshot = True
            self._report(
                entry_id,
                verdict.reason,
                "this mirror keeps its state, reads on, and takes the venue's next snapshot",
            )

    def _reset(self, entry: Entry, entry_id: str | None) -> None:
        if self.state is None:
            self.state = MirrorState(entry, entry_id)
        else:
            self.state.take(entry, entry_id)
        self._want_snapshot = False
        self.problem = None
        self.resets += 1
        self.on_reset(entry)
        self.ready.set()

    # -- telling ------------------------------------------------------------------------------

    def _say(self, key: str, message: str) -> None:
        """Log `message` once (per `key`) for this mirror's run."""
        if key not in self._said:
            self._said.add(key)
            log.warning("mirror: %s", message)

    def _report(self, entry_id: str, reason: str, then: str) -> None:
        """A skipped entry: the first at once, then at most once every REPORT_EVERY
        seconds with how many more there were (a flood of junk is a few lines)."""
        self._unreported += 1
        now = self._mono()
        if self._reported_at is not None and now - self._reported_at < REPORT_EVERY:
            return
        more = self._unreported - 1
        since = f" ({more} more since the last report)" if more else ""
        log.warning("mirror: stream entry %s skipped: %s; %s%s", entry_id, reason, then, since)
        self._reported_at = now
        self._unreported = 0

    async def _down(self, client: aioredis.Redis, exc: BaseException) -> None:
        place = where(self.url)
        problem = redis_problem(exc, place)
        if problem is None and is_wrong_type(exc):
            problem = wrong_type(place, self.keys.stream, "value of another type", "stream")
            try:
                for key, wanted in ((self.keys.stream, "stream"), (self.keys.snapshot, "hash")):
                    held = _text(await client.type(key))
                    if held not in (wanted, "none"):
                        problem = wrong_type(place, key, held, wanted)
                        break
            except (RedisError, OSError):
                pass
        if problem is not None:
            self._say(problem, problem)
        elif self.link != "down":
            log.warning("mirror: Redis cannot be read (%s); retrying", exc)
        self.problem = problem
        self.link = "down"


def _cancelled_meanwhile() -> None:
    """Raise CancelledError if this task was cancelled and a library swallowed it: redis-py
    (8.2) can return an XREAD's answer although the task was cancelled as it arrived, and
    a mirror being stopped would then read on forever."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError


def _id(entry_id: str) -> tuple[int, int]:
    ms, _, n = entry_id.partition("-")
    try:
        return int(ms), int(n or 0)
    except ValueError:
        return (-1, -1)


def _newer(header: Header, after: str, state: MirrorState) -> bool:
    """The snapshot key is a later state than the mirror's: written after the entry the
    mirror is at, and of another venue run or numbered higher."""
    if state.entry_id is not None and _id(after) <= _id(state.entry_id):
        return False
    return header.epoch != state.epoch or header.seq > state.seq


def _text(value: object) -> str:
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return value if isinstance(value, str) else ""
