"""The hub's fan-out: one channel's sequence of frames, its replay buffer, its clients.

A `Channel` advances from frame to frame (`web.hub.deltas.diff`), gives each delta the
next sequence number, encodes it once (its JSON text and its websocket frame,
`web.hub.wire`), keeps it in a bounded replay buffer (and per scope key, so a
reconnecting client is caught up without a scan) and fans it out to the clients
subscribed to its keys. Standings and pairings are computed off the loop, in an executor.

The fan-out writes the same frame bytes to every client's socket, in slices of the loop
charged to the web's share (`web.limits.LoopBudget`); the deltas that piled up meanwhile
go out to each client in one write. A client whose socket keeps up is written to at once;
one whose socket buffer is full, or whose queue is not empty, gets the frame in its
bounded queue, which its own writer drains. When that queue is full the backlog is
dropped and replaced by a `resync` and a fresh snapshot, so a stalled client costs at most
its queue and never delays anybody else.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable, Iterable, Iterator, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any

from aiohttp import WSCloseCode, web

from broadcast.config.model import EventConfig, SectionConfig
from broadcast.tournament.tournament_state import TournamentState
from web.hub.deltas import Delta, Frame, SectionView, diff, encode, section_news, section_view
from web.hub.wire import Wire
from web.limits import HubLimits, LoopBudget, TokenBucket

__all__ = [
    "FANOUT_SLICE",
    "QUEUE_LIMIT",
    "REPLAY_LIMIT",
    "REPLAY_PER_KEY",
    "Channel",
    "Client",
    "subscribers",
]

log = logging.getLogger(__name__)

QUEUE_LIMIT = 256  # messages waiting for one client before it is resynced
REPLAY_LIMIT = 4096  # deltas kept for reconnecting clients (all scopes)
REPLAY_PER_KEY = 32  # a client further behind than this in its scope gets a snapshot
FANOUT_SLICE = 0.005  # seconds of writes the fan-out does before the loop is served again

# What one client is sent in one go: the (sequence number, message) pairs, and their frames
# joined into the bytes of one socket write.
Batch = tuple[Sequence[tuple[int, Wire]], bytes]


async def _no_drain() -> None:
    return None


@dataclass(eq=False)
class Client:
    """One websocket connection: its scope, its socket and its bounded outgoing queue.

    While the socket keeps up (its write buffer under the transport's high-water mark)
    and nothing waits in the queue, a message is written to the socket at once, as the
    bytes encoded for everybody; otherwise it waits in the queue for the client's writer.
    """

    ws: web.WebSocketResponse
    key: str | None = None
    queue: deque[Wire] = field(default_factory=deque)
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    resyncs: int = 0
    resync_to: Callable[[], list[Wire]] | None = None
    limits: HubLimits = field(default_factory=HubLimits)
    now: Callable[[], float] = time.monotonic
    strikes: int = 0
    arbiter: bool = False  # the desk's socket: never waits for the web's share
    evals: bool = True  # sent the engine's evaluations (a subscribe with `"eval": false`: not)
    closing: int | None = None  # a close code the writer sends once the queue is out
    # The socket, written to directly (None: everything goes through the queue), and how
    # to wait until its buffer has room again (the response's writer's `drain`).
    transport: asyncio.WriteTransport | None = None
    drain: Callable[[], Awaitable[None]] = _no_drain
    # The channel's sequence number this client's snapshot or replay reached: a delta up
    # to it is already in what it was sent (a fan-out begun before it subscribed).
    floor: int = 0

    def __post_init__(self) -> None:
        limits = self.limits
        self.subscribes = TokenBucket(1 / limits.subscribe_every, limits.subscribe_burst, self.now)
        self.messages = TokenBucket(limits.message_rate, limits.message_burst, self.now)
        self.resync_budget = TokenBucket(1 / limits.resync_every, limits.resync_burst, self.now)
        self.high = 0 if self.transport is None else self.transport.get_write_buffer_limits()[1]

    def congested(self) -> bool:
        """The socket's buffer is above its high-water mark (or the socket is gone)."""
        t = self.transport
        return t is None or t.is_closing() or t.get_write_buffer_size() > self.high

    def _direct(self) -> bool:
        # Written at once only when that keeps the order (nothing queued before it).
        return not self.queue and not self.ws.closed and not self.congested()

    def push(self, message: Wire) -> None:
        """Send `message` now if the socket keeps up, else queue it (bounded)."""
        if self.closing is not None:
            return
        if self._direct():
            assert self.transport is not None
            self.transport.write(message.frame)
            return
        self._enqueue(message)
        self.wake.set()

    def deliver(self, batch: Batch) -> int:
        """The fan-out's share for this client: the deltas after its `floor`, in one write
        when the socket keeps up. How many messages were handed over."""
        items, joined = batch
        if self.closing is not None or self.key is None:
            return 0
        if items[0][0] <= self.floor:
            items = [item for item in items if item[0] > self.floor]
            if not items:
                return 0
            joined = b"".join(wire.frame for _, wire in items)
        # `_direct()` written out: this line runs once per client per fan-out.
        t = self.transport
        if (
            t is not None
            and not self.queue
            and not self.ws.closed
            and not t.is_closing()
            and t.get_write_buffer_size() <= self.high
        ):
            t.write(joined)
            return len(items)
        for seq, wire in items:
            if seq > self.floor and self.closing is None:  # a resync moves the floor
                self._enqueue(wire)
        self.wake.set()
        return len(items)

    def fail(self) -> None:
        """Something unexpected broke this client: its writer closes it (1011)."""
        self.queue.clear()
        self.closing = WSCloseCode.INTERNAL_ERROR
        self.wake.set()

    def _enqueue(self, message: Wire) -> None:
        if len(self.queue) >= QUEUE_LIMIT:
            # Stalled: drop the backlog (bounded memory), start again from a snapshot; a
            # client that stalls again and again is told to come back later instead.
            self.queue.clear()
            self.resyncs += 1
            if not self.resync_budget.take():
                self.closing = WSCloseCode.TRY_AGAIN_LATER
            elif self.resync_to is not None:
                self.queue.extend(self.resync_to())
        else:
            self.queue.append(message)

    def flush(self, most: int) -> bool:
        """Write up to `most` queued messages in one write; False when the socket is gone."""
        t = self.transport
        if t is None or t.is_closing() or self.ws.closed:
            return False
        frames = [self.queue.popleft().frame for _ in range(min(most, len(self.queue)))]
        t.write(b"".join(frames))
        return True


@dataclass(slots=True)
class _KeyLog:
    """The recent deltas of one scope key: at most REPLAY_PER_KEY, and `floor`, the
    sequence number of the newest one dropped (a replay from before it is impossible)."""

    entries: deque[tuple[int, Wire]] = field(default_factory=lambda: deque(maxlen=REPLAY_PER_KEY))
    floor: int = 0

    def add(self, seq: int, wire: Wire) -> None:
        if len(self.entries) == REPLAY_PER_KEY:
            self.floor = self.entries[0][0]
        self.entries.append((seq, wire))


class Channel:
    """A sequence of frames, the deltas between them, and who listens to what.

    Its work beside the frames runs on the event loop the hub runs on: the standings
    catch up in a task (computed in `executor`), the deltas fan out in a task. `in_place`
    is the synchronous variant, for an owner without a loop (tests, `bench_uplink`): the
    standings are computed and the deltas delivered before `advance` returns."""

    def __init__(
        self, name: str, config: EventConfig, frame: Frame, epoch: str, *, in_place: bool = False
    ) -> None:
        self.name = name
        self.in_place = in_place
        self.config = config
        self.frame = frame
        self.epoch = epoch
        self.seq = 0
        self.buffer: deque[tuple[int, frozenset[str], str]] = deque(maxlen=REPLAY_LIMIT)
        self._logs: dict[str, _KeyLog] = {}
        self.subscribers: dict[str, set[Client]] = {}
        self._snapshots: dict[str, tuple[int, Wire]] = {}
        self.sent = 0  # messages handed to clients (for the bench)
        self.encoded = 0  # deltas encoded, each once for all its subscribers (tests, bench)
        # The deltas numbered but not yet fanned out, and the task fanning them out (started
        # by the first of a burst, it ends when none is left): its writes are charged to
        # `budget`, the web's share of the loop (None: the desk's channel, never held up).
        self.pending: list[tuple[int, frozenset[str], Wire]] = []
        self.budget: LoopBudget | None = None
        self._fanning: asyncio.Task[None] | None = None
        # Standings and pairings follow the tournament off the loop (see `_catch_up`):
        # `shown` is the tournament whose section views were published last.
        self.shown = frame.tournament
        self._views: dict[str, SectionView] = {}
        self.executor: Executor | None = None
        self._catching_up: asyncio.Task[None] | None = None
        # Told of every delta published (its number, scope keys, wire text, and the frame
        # it leaves the channel at): the Redis publisher of `serve --publish` listens here.
        self.taps: list[Callable[[int, frozenset[str], str, Frame], None]] = []

    def reset(self, frame: Frame, seq: int, epoch: str) -> None:
        """Start over at `frame`, numbered `seq` in `epoch` (a mirror following a venue
        snapshot): the replay buffer and the cached snapshots are forgotten."""
        self.frame = frame
        self.shown = frame.tournament
        self.forget_views()
        self.seq = seq
        self.epoch = epoch
        self.buffer.clear()
        self._logs.clear()
        self._snapshots.clear()
        self.pending.clear()  # older than the clients' resync, which the caller sends

    def advance(self, frame: Frame) -> int:
        """Move to `frame`: compute, number, encode (once) and fan out the deltas."""
        old = self.frame
        if (
            frame.tournament is old.tournament
            and frame.book is old.book
            and frame.boards == old.boards
            and frame.alerts == old.alerts
            and frame.waiting == old.waiting
        ):
            return 0  # identity, not deep equality: frames share their unchanged parts
        deltas = diff(self.config, self.frame, frame, sections=False)
        self.frame = frame
        for delta in deltas:
            self.publish(delta)
        if frame.tournament is not self.shown:
            self._follow_sections()
        return len(deltas)

    # -- standings and pairings, off the loop ----------------------------------------------

    def _follow_sections(self) -> None:
        if self.in_place:
            self._show(self.frame.tournament, self._views_of(self.frame.tournament))
        elif self._catching_up is None or self._catching_up.done():
            self._catching_up = asyncio.get_running_loop().create_task(self._catch_up())

    async def _catch_up(self) -> None:
        """Publish the standings and pairings of the newest tournament, computed in the
        executor; again while the tournament changed meanwhile."""
        loop = asyncio.get_running_loop()
        while self.frame.tournament is not self.shown:
            target = self.frame.tournament
            try:
                fresh = await loop.run_in_executor(self.executor, self._views_of, target)
            except Exception:  # logged once; the next change tries again
                log.exception("standings for the %s channel failed", self.name)
                return
            self._show(target, fresh)

    def _views_of(self, tournament: TournamentState) -> dict[str, SectionView]:
        """The views of the sections that changed since `shown` (and any not known yet)."""
        out: dict[str, SectionView] = {}
        for section in self.config.sections:
            if section.name not in self._views:
                out[f"before:{section.name}"] = section_view(self.config, self.shown, section)
            a = self.shown.sections.get(section.name)
            b = tournament.sections.get(section.name)
            if b is not None and a is not b:
                out[section.name] = section_view(self.config, tournament, section)
        return out

    def _show(self, target: TournamentState, fresh: dict[str, SectionView]) -> None:
        for section in self.config.sections:
            before = fresh.get(f"before:{section.name}") or self._views.get(section.name)
            after = fresh.get(section.name)
            if after is None:
                if before is not None:
                    self._views.setdefault(section.name, before)
                continue
            if before is not None:
                for delta in section_news(section, before, after, target):
                    self.publish(delta)
            self._views[section.name] = after
        self.shown = target

    def forget_views(self) -> None:
        """Standings rows are computed again from `shown` when next asked (a mirror)."""
        self._views.clear()

    def standings_rows(self, section: SectionConfig) -> list[dict[str, Any]]:
        """The standings as last published (computed now the first time)."""
        view = self._views.get(section.name)
        if view is None:
            view = self._views[section.name] = section_view(self.config, self.shown, section)
        return view.rows

    def stop(self) -> None:
        if self._catching_up is not None:
            self._catching_up.cancel()
        if self._fanning is not None:
            self._fanning.cancel()

    def publish(self, delta: Delta) -> None:
        seq = self.seq + 1
        text = encode({**delta.message, "seq": seq})
        self.relay(seq, delta.keys, text)
        for tap in self.taps:
            tap(seq, delta.keys, text, self.frame)

    def push(self, delta: Delta) -> None:
        """A message outside the numbered sequence (an engine evaluation): to the current
        subscribers of its keys only; not kept for resumes, not told to the taps (a
        mirror that evaluates does it for itself, see docs/deployment.md)."""
        wire = Wire.of(encode(delta.message))  # encoded once, like the numbered deltas
        self.encoded += 1
        for key in delta.keys:
            for client in self.subscribers.get(key, ()):
                if client.evals:
                    client.push(wire)
                    self.sent += 1

    def relay(self, seq: int, keys: frozenset[str], text: str) -> None:
        """Number `text` `seq`, keep it for resumes and fan it out to the subscribers of
        `keys` (a mirror calls this with the venue's numbers and text). Its frame is built
        here, once, for every client and every resume."""
        self.seq = seq
        wire = Wire.of(text)
        self.encoded += 1
        self.buffer.append((self.seq, keys, text))
        for key in keys:
            keylog = self._logs.get(key)
            if keylog is None:
                keylog = self._logs[key] = _KeyLog(floor=self.horizon - 1)
            keylog.add(self.seq, wire)
        if self.seq % REPLAY_LIMIT == 0:
            self._sweep()
        if not any(key in self.subscribers for key in keys):
            return
        self.pending.append((seq, keys, wire))
        if self.in_place:
            for client, batch in self._batches():
                self.sent += client.deliver(batch)
        elif self._fanning is None or self._fanning.done():  # else it takes it with the rest
            self._fanning = asyncio.get_running_loop().create_task(self._fan_out())

    async def fan_out_done(self) -> None:
        """Wait until every delta numbered so far has been handed to its subscribers."""
        while self._fanning is not None and not self._fanning.done():
            await asyncio.wait({self._fanning})

    def _batches(self) -> Iterator[tuple[Client, Batch]]:
        """Every subscriber with what it is due of the pending deltas (taken now), the
        frames of one scope key joined once for all its subscribers."""
        pending, self.pending = self.pending, []
        if len(pending) == 1:
            seq, keys, wire = pending[0]
            one: Batch = (((seq, wire),), wire.frame)
            for key in keys:
                for client in tuple(self.subscribers.get(key, ())):
                    yield client, one
            return
        for key in dict.fromkeys(key for _, keys, _ in pending for key in keys):
            clients = tuple(self.subscribers.get(key, ()))
            if not clients:
                continue
            items = [(seq, wire) for seq, keys, wire in pending if key in keys]
            batch: Batch = (items, b"".join(wire.frame for _, wire in items))
            for client in clients:
                yield client, batch

    async def _fan_out(self) -> None:
        # Slices of FANOUT_SLICE seconds, each charged to the web's share of the loop: a
        # delta to 10,000 clients must not hold the boards up for the whole of it.
        budget = self.budget
        clock = time.perf_counter
        while self.pending:
            work = self._batches()
            done = False
            while not done:
                if budget is not None:
                    await budget.turn(refuse=False)
                started = clock()
                deadline = started + FANOUT_SLICE
                sent = 0
                for n, (client, batch) in enumerate(work, 1):
                    try:  # free in 3.11 when nothing raises
                        sent += client.deliver(batch)
                    except Exception:
                        # One socket's failure is that client's end, not the others':
                        # one line with the traceback, and its writer closes it (1011).
                        log.exception("fan-out to a websocket client failed; closing it")
                        client.fail()
                    if not n & 63 and clock() > deadline:
                        break
                else:
                    done = True
                self.sent += sent
                if budget is not None:
                    budget.charge(clock() - started)
                if not done:
                    await asyncio.sleep(0)

    @property
    def horizon(self) -> int:
        """The oldest sequence number still in the replay buffer (seq + 1 when empty)."""
        return self.buffer[0][0] if self.buffer else self.seq + 1

    def _sweep(self) -> None:
        # Key logs hold nothing older than the buffer: forget the ones that went quiet.
        horizon = self.horizon
        for key in [k for k, log in self._logs.items() if log.entries[-1][0] < horizon]:
            del self._logs[key]

    def since(self, seq: int, key: str) -> list[Wire] | None:
        """The deltas for `key` after `seq` (at most REPLAY_PER_KEY of them, found without
        a scan), or None when a snapshot must do: the client is too far behind, or its
        `seq` is not one of this run's."""
        if seq > self.seq or seq < 0:
            return None
        if seq == self.seq:
            return []
        if seq < self.horizon - 1:
            return None
        keylog = self._logs.get(key)
        if keylog is None:
            return []  # nothing for this key since the horizon, so nothing after seq
        if seq < keylog.floor:
            return None
        return [wire for s, wire in keylog.entries if s > seq]

    def subscribe(self, client: Client, key: str) -> None:
        """`client` listens to `key` from now on: what it is sent next (a snapshot or a
        replay, up to `seq`) covers every delta numbered so far."""
        self.unsubscribe(client)
        client.key = key
        client.floor = self.seq
        self.subscribers.setdefault(key, set()).add(client)

    def unsubscribe(self, client: Client) -> None:
        if client.key is not None:
            subs = self.subscribers.get(client.key)
            if subs is not None:
                subs.discard(client)
                if not subs:
                    del self.subscribers[client.key]
            client.key = None

    def cached_snapshot(self, key: str, build: Callable[[], str]) -> Wire:
        """Snapshots are encoded once per scope and sequence number, text and frame (a
        crowd arriving at once costs one encoding)."""
        hit = self._snapshots.get(key)
        if hit is not None and hit[0] == self.seq:
            return hit[1]
        wire = Wire.of(build())
        if len(self._snapshots) > 1024:
            self._snapshots.clear()
        self._snapshots[key] = (self.seq, wire)
        return wire

    @property
    def clients(self) -> int:
        return sum(len(s) for s in self.subscribers.values())


def subscribers(channels: Iterable[Channel]) -> int:
    """How many clients listen on these channels, all scopes together."""
    return sum(c.clients for c in channels)
