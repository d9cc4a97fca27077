"""The hub's fan-out: one channel's sequence of frames, its replay buffer, its clients.

A `Channel` advances from frame to frame (`web.hub.deltas.diff`), gives each delta the
next sequence number, encodes it once, keeps it in a bounded replay buffer (and per scope
key, so a reconnecting client is caught up without a scan) and pushes it to the clients
subscribed to its keys. Standings and pairings are computed off the loop, in an executor.
A `Client`'s queue is bounded: when it is full the backlog is dropped and replaced by a
`resync` and a fresh snapshot, so a stalled client costs at most its queue.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Callable, Iterable
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any

from aiohttp import WSCloseCode, web

from broadcast.config.model import EventConfig, SectionConfig
from broadcast.tournament.state import TournamentState
from web.hub.deltas import Delta, Frame, SectionView, diff, encode, section_news, section_view
from web.limits import HubLimits, TokenBucket

__all__ = [
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


@dataclass(eq=False)
class Client:
    """One websocket connection: its scope and its bounded outgoing queue."""

    ws: web.WebSocketResponse
    key: str | None = None
    queue: deque[str] = field(default_factory=deque)
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    resyncs: int = 0
    resync_to: Callable[[], list[str]] | None = None
    limits: HubLimits = field(default_factory=HubLimits)
    now: Callable[[], float] = time.monotonic
    strikes: int = 0
    arbiter: bool = False  # the desk's socket: never waits for the web's share
    closing: int | None = None  # a close code the writer sends once the queue is out

    def __post_init__(self) -> None:
        limits = self.limits
        self.subscribes = TokenBucket(1 / limits.subscribe_every, limits.subscribe_burst, self.now)
        self.messages = TokenBucket(limits.message_rate, limits.message_burst, self.now)
        self.resync_budget = TokenBucket(1 / limits.resync_every, limits.resync_burst, self.now)

    def push(self, text: str) -> None:
        if self.closing is not None:
            return
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
            self.queue.append(text)
        self.wake.set()


@dataclass(slots=True)
class _KeyLog:
    """The recent deltas of one scope key: at most REPLAY_PER_KEY, and `floor`, the
    sequence number of the newest one dropped (a replay from before it is impossible)."""

    entries: deque[tuple[int, str]] = field(default_factory=lambda: deque(maxlen=REPLAY_PER_KEY))
    floor: int = 0

    def add(self, seq: int, text: str) -> None:
        if len(self.entries) == REPLAY_PER_KEY:
            self.floor = self.entries[0][0]
        self.entries.append((seq, text))


class Channel:
    """A sequence of frames, the deltas between them, and who listens to what."""

    def __init__(self, name: str, config: EventConfig, frame: Frame, epoch: str) -> None:
        self.name = name
        self.config = config
        self.frame = frame
        self.epoch = epoch
        self.seq = 0
        self.buffer: deque[tuple[int, frozenset[str], str]] = deque(maxlen=REPLAY_LIMIT)
        self._logs: dict[str, _KeyLog] = {}
        self.subscribers: dict[str, set[Client]] = {}
        self._snapshots: dict[str, tuple[int, str]] = {}
        self.sent = 0  # messages handed to client queues (for the bench)
        self.snapshots_built = 0  # snapshot encodings (for tests and the bench)
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
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop (a synchronous caller): at once
            self._show(self.frame.tournament, self._views_of(self.frame.tournament))
            return
        if self._catching_up is None or self._catching_up.done():
            self._catching_up = loop.create_task(self._catch_up())

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
        text = encode(delta.message)
        for key in delta.keys:
            for client in self.subscribers.get(key, ()):
                client.push(text)
                self.sent += 1

    def relay(self, seq: int, keys: frozenset[str], text: str) -> None:
        """Number `text` `seq`, keep it for resumes and push it to the subscribers of
        `keys` (a mirror calls this with the venue's numbers and text)."""
        self.seq = seq
        self.buffer.append((self.seq, keys, text))
        for key in keys:
            keylog = self._logs.get(key)
            if keylog is None:
                keylog = self._logs[key] = _KeyLog(floor=self.horizon - 1)
            keylog.add(self.seq, text)
            for client in self.subscribers.get(key, ()):
                client.push(text)
                self.sent += 1
        if self.seq % REPLAY_LIMIT == 0:
            self._sweep()

    @property
    def horizon(self) -> int:
        """The oldest sequence number still in the replay buffer (seq + 1 when empty)."""
        return self.buffer[0][0] if self.buffer else self.seq + 1

    def _sweep(self) -> None:
        # Key logs hold nothing older than the buffer: forget the ones that went quiet.
        horizon = self.horizon
        for key in [k for k, log in self._logs.items() if log.entries[-1][0] < horizon]:
            del self._logs[key]

    def since(self, seq: int, key: str) -> list[str] | None:
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
        return [text for s, text in keylog.entries if s > seq]

    def subscribe(self, client: Client, key: str) -> None:
        self.unsubscribe(client)
        client.key = key
        self.subscribers.setdefault(key, set()).add(client)

    def unsubscribe(self, client: Client) -> None:
        if client.key is not None:
            subs = self.subscribers.get(client.key)
            if subs is not None:
                subs.discard(client)
                if not subs:
                    del self.subscribers[client.key]
            client.key = None

    def cached_snapshot(self, key: str, build: Callable[[], str]) -> str:
        """Snapshots are encoded once per scope and sequence number (a crowd arriving at
        once costs one encoding)."""
        hit = self._snapshots.get(key)
        if hit is not None and hit[0] == self.seq:
            return hit[1]
        text = build()
        self.snapshots_built += 1
        if len(self._snapshots) > 1024:
            self._snapshots.clear()
        self._snapshots[key] = (self.seq, text)
        return text

    @property
    def clients(self) -> int:
        return sum(len(s) for s in self.subscribers.values())


def subscribers(channels: Iterable[Channel]) -> int:
    """How many clients listen on these channels, all scopes together."""
    return sum(c.clients for c in channels)
