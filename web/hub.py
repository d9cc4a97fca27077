"""The websocket hub: snapshots and deltas to spectators (delayed) and arbiters (live).

Two channels, each a sequence of *frames* (immutable views of the event at one moment):

- public: frames come from `service.public_state()` only, so a delta can never carry
  what the broadcast delay still hides (DESIGN: "Spectators never see what the delay
  hides");
- arbiter: frames come from the live state, plus the hall boards and the open alerts.

`diff(old, new)` (pure) turns two frames into deltas; each delta gets the channel's next
sequence number, is encoded once, kept in a bounded replay buffer and pushed to the
subscribers of the scopes it concerns (event, round, game). A client queue is bounded:
when it is full the client's backlog is dropped and replaced by a `resync` and a fresh
snapshot, so a stalled client costs at most its queue and never slows anybody else.

Protocol (JSON text messages; see docs/web.md):

    client -> {"type": "subscribe", "scope": "event" | "round" | "game",
               "section": slug?, "round": N?, "game": id?, "since": seq?, "epoch": str?}
    server -> {"type": "snapshot", "seq": N, "epoch": E, "scope": ..., "data": {...}}
    server -> {"type": "move" | "clock" | "result" | "game" | "removed" | "sync"
               | "standings" | "pairings" | "boards" | "alerts", "seq": N, ...}
    server -> {"type": "resync"}  (followed by a snapshot)
    server -> {"type": "error", "message": ...}

A message the server cannot even parse safely (nested too deeply) closes the socket with
1008 (policy violation); any other failure handling a message closes it with 1011. Either
way the log gets one line, at most one a minute for all clients (anyone can send these).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import time
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Executor, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from aiohttp import WSCloseCode, WSMsgType, web

from broadcast.arbiter.alerts import Alert
from broadcast.config.model import EventConfig, SectionConfig
from broadcast.games.book import GameBook
from broadcast.games.ids import slug
from broadcast.games.state import GameState
from broadcast.journal.store import Entry
from broadcast.service.event_service import EventService
from broadcast.service.supervisor import SupervisedTask
from broadcast.tournament.state import TournamentState
from web import views
from web.limits import Busy, HubLimits, LoopBudget, QuietLog, TokenBucket

log = logging.getLogger(__name__)

QUEUE_LIMIT = 256  # messages waiting for one client before it is resynced
REPLAY_LIMIT = 4096  # deltas kept for reconnecting clients (all scopes)
REPLAY_PER_KEY = 32  # a client further behind than this in its scope gets a snapshot
WRITE_BATCH = 8  # messages one client's writer sends before the loop is served again
PUMP_SECONDS = 0.25  # how often the public channel looks whether the delay released news
BAD_MESSAGE_LOG_SECONDS = 60.0  # at most one log line per this many seconds for bad messages


def _encode(message: dict[str, Any]) -> str:
    return json.dumps(message, ensure_ascii=False, separators=(",", ":"))


# -- frames and diffs (pure) ---------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Frame:
    """What one channel shows at one moment."""

    tournament: TournamentState
    book: GameBook
    boards: tuple[dict[str, Any], ...] = ()
    alerts: tuple[Alert, ...] = ()


@dataclass(frozen=True, slots=True)
class Delta:
    """One message to the subscribers of `keys` (scope keys, see `scope_key`)."""

    keys: frozenset[str]
    message: dict[str, Any]


def scope_key(scope: str, section: str = "", round_number: int = 0, game: str = "") -> str:
    if scope == "game":
        return f"game:{game}"
    if scope == "round":
        return f"round:{slug(section)}:{round_number}"
    return "event"


def _game_keys(game: GameState) -> frozenset[str]:
    return frozenset(
        {
            "event",
            scope_key("round", game.key.section, game.key.round),
            scope_key("game", game=game.id),
        }
    )


def _move_json(ply: int, game: GameState) -> dict[str, Any]:
    m = game.moves[ply - 1]
    return {"ply": ply, "san": m.san, "uci": m.uci, "fen": m.fen_after, "clock": m.remaining}


def game_deltas(old: GameState | None, new: GameState) -> list[dict[str, Any]]:
    """Messages that take a client from `old` to `new` (one game)."""
    if old is None:
        return [{"type": "game", "game": views.game_json(new)}]
    out: list[dict[str, Any]] = []
    line_same = old.moves == new.moves[: old.ply] and old.start_fen == new.start_fen
    if (not line_same) or (old.white, old.black) != (new.white, new.black):
        # A takeback, a correction, a new start position or new players: the whole game,
        # so the client's line is replaced, never patched into a stale variation.
        return [{"type": "game", "game": views.game_json(new)}]
    if new.ply > old.ply or new.moves != old.moves:
        out.append(
            {
                "type": "move",
                "game": new.id,
                "moves": [_move_json(p, new) for p in range(old.ply + 1, new.ply + 1)],
                "fen": new.fen,
                "ply": new.ply,
                "clock": {
                    "white": new.white_clock,
                    "black": new.black_clock,
                    "running": new.running,
                },
            }
        )
    elif (old.white_clock, old.black_clock, old.running) != (
        new.white_clock,
        new.black_clock,
        new.running,
    ):
        out.append(
            {
                "type": "clock",
                "game": new.id,
                "white": new.white_clock,
                "black": new.black_clock,
                "running": new.running,
            }
        )
    if views.result_json(old) != views.result_json(new):
        fields = views.result_json(new)
        # `reason` repeats `result_reason` for clients written before the contract grew.
        out.append({"type": "result", "game": new.id, **fields, "reason": fields["result_reason"]})
    if (old.in_sync, old.out_since) != (new.in_sync, new.out_since):
        out.append(
            {"type": "sync", "game": new.id, "in_sync": new.in_sync, "out_since": new.out_since}
        )
    return out


def diff(config: EventConfig, old: Frame, new: Frame, *, sections: bool = True) -> list[Delta]:
    """The deltas from `old` to `new`, in a stable order. Pure. Without `sections`, no
    standings or pairings deltas (the hub makes those off the loop)."""
    out: list[Delta] = []
    if new.book is not old.book:
        for game_id, game in new.book.games.items():
            before = old.book.games.get(game_id)
            if before is game:
                continue
            keys = _game_keys(game)
            out.extend(Delta(keys, m) for m in game_deltas(before, game))
        for game_id, gone in old.book.games.items():
            if game_id not in new.book.games:  # its pairing was taken away (a withdrawal)
                out.append(Delta(_game_keys(gone), {"type": "removed", "game": game_id}))
    if sections and new.tournament is not old.tournament:
        for section in config.sections:
            a = old.tournament.sections.get(section.name)
            b = new.tournament.sections.get(section.name)
            if a is b or b is None:
                continue
            out.extend(_section_deltas(config, section, old.tournament, new.tournament))
    if new.boards != old.boards:
        out.append(Delta(frozenset({"event"}), {"type": "boards", "boards": list(new.boards)}))
    if new.alerts != old.alerts:
        known = {a.id for a in old.alerts}
        out.append(
            Delta(
                frozenset({"event"}),
                {
                    "type": "alerts",
                    "alerts": [views.alert_json(a) for a in new.alerts],
                    "new": [a.id for a in new.alerts if a.id not in known],
                },
            )
        )
    return out


@dataclass(frozen=True, slots=True)
class SectionView:
    """What spectators are shown of one section: its standings rows and pairings."""

    rows: list[dict[str, Any]]
    pairings: list[dict[str, Any]]


def section_view(
    config: EventConfig, tournament: TournamentState, section: SectionConfig
) -> SectionView:
    """The standings and pairings of `section` (a 2,000-player Swiss: a tenth of a
    second; the hub computes them off the loop). Pure."""
    return SectionView(
        views.standings_json(config, tournament, section),
        views.pairings_json(tournament, section),
    )


def section_news(
    section: SectionConfig, before: SectionView, after: SectionView, new: TournamentState
) -> list[Delta]:
    """The standings and pairings deltas from `before` to `after`. Pure."""
    out: list[Delta] = []
    state = new.section(section.name)
    # Every paired round's page, the play-off games' rounds included.
    rounds = [*state.rounds, *(state.playoff_round(n) for n in state.playoff)]
    round_keys = {scope_key("round", section.name, r) for r in rounds}
    if before.rows != after.rows:
        out.append(
            Delta(
                frozenset({"event", *round_keys}),
                {"type": "standings", "section": slug(section.name), "rows": after.rows},
            )
        )
    if before.pairings != after.pairings:
        out.append(
            Delta(
                frozenset({"event", *round_keys}),
                {"type": "pairings", "section": slug(section.name), "rounds": after.pairings},
            )
        )
    return out


def _section_deltas(
    config: EventConfig, section: SectionConfig, old: TournamentState, new: TournamentState
) -> list[Delta]:
    before = section_view(config, old, section)
    return section_news(section, before, section_view(config, new, section), new)


def snapshot_data(
    config: EventConfig,
    frame: Frame,
    live: dict[str, int | None],
    scope: str,
    section: SectionConfig | None,
    round_number: int,
    game: str,
    *,
    arbiter: bool,
    standings: list[dict[str, Any]] | None = None,
) -> dict[str, Any] | None:
    """The full state a scope starts from; None when the scope names nothing. Pure.
    `standings`: the round scope's rows when already at hand (else computed)."""
    data: dict[str, Any]
    if scope == "game":
        state = frame.book.games.get(game)
        if state is None:
            return None
        data = {"game": views.game_json(state)}
    elif scope == "round":
        assert section is not None
        data = {
            **views.round_json(frame.book, section.name, round_number),
            "standings": standings
            if standings is not None
            else views.standings_json(config, frame.tournament, section),
        }
    else:
        data = {
            "event": views.event_json(config, frame.tournament, live),
            "live": views.live_json(frame.book, config, live),
        }
    if arbiter and scope == "event":
        data["boards"] = list(frame.boards)
        data["alerts"] = [views.alert_json(a) for a in frame.alerts]
    return data


# -- clients and channels ------------------------------------------------------------------------


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

    def advance(self, frame: Frame) -> int:
        """Move to `frame`: compute, number, encode (once) and fan out the deltas."""
        old = self.frame
        if (
            frame.tournament is old.tournament
            and frame.book is old.book
            and frame.boards == old.boards
            and frame.alerts == old.alerts
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
        self.seq += 1
        text = _encode({**delta.message, "seq": self.seq})
        self.buffer.append((self.seq, delta.keys, text))
        for key in delta.keys:
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


AlertSource = Callable[[], Sequence[Alert]]


class Hub:
    """Both channels for one service. `attach()` starts following the service."""

    def __init__(
        self,
        service: EventService,
        alerts: AlertSource | None = None,
        *,
        limits: HubLimits | None = None,
        budget: LoopBudget | None = None,
        now: Callable[[], float] = time.monotonic,
    ) -> None:
        self.service = service
        self.config = service.config
        self.alerts = alerts or (lambda: ())
        self.bad_messages = QuietLog(BAD_MESSAGE_LOG_SECONDS, logger=log)
        self.limits = limits or HubLimits()
        # Spectators' messages share the web's part of the loop; the arbiters' do not.
        self.budget = budget or LoopBudget()
        self.now = now
        self.subscribes = TokenBucket(self.limits.global_rate, self.limits.global_burst, now)
        self.handled = 0  # messages handled (for tests and the bench)
        self.closed_for_policy = 0  # sockets closed for breaking the limits (the bench)
        self.epoch = secrets.token_hex(6)
        self.public = Channel("public", self.config, self.public_frame(), self.epoch)
        self.arbiter = Channel("arbiter", self.config, self.arbiter_frame(), self.epoch)
        # One thread for both channels' standings: a big Swiss's take a tenth of a second.
        self.executor = ThreadPoolExecutor(1, thread_name_prefix="hub-standings")
        self.public.executor = self.arbiter.executor = self.executor
        self._scheduled = False
        self._task: SupervisedTask | None = None
        self._pump_failing = False  # log a failing pump once, not at every commit

    # Frames: the public one from the delayed state only.
    def public_frame(self) -> Frame:
        public = self.service.public_state()
        return Frame(public.tournament, public.book)

    def arbiter_frame(self) -> Frame:
        service = self.service
        boards = tuple(
            views.desk_board_json(b, service.book)
            for b in sorted(service.hall.values(), key=lambda b: b.number)
        )
        return Frame(service.tournament, service.book, boards, tuple(self.alerts()))

    def pump(self) -> None:
        """Bring both channels up to date (cheap when nothing changed)."""
        self._scheduled = False
        try:
            self._advance()
        except Exception:  # the hub must outlive a bad frame; the next pump retries
            if not self._pump_failing:
                log.exception("hub pump failed")
            self._pump_failing = True

    def _advance(self) -> None:
        self.public.advance(self.public_frame())
        self.arbiter.advance(self.arbiter_frame())
        self._pump_failing = False

    def on_commit(self, entries: Sequence[Entry]) -> None:
        """Service listener: coalesce a burst of commits into one pump."""
        if self._scheduled:
            return
        self._scheduled = True
        try:
            asyncio.get_running_loop().call_soon(self.pump)
        except RuntimeError:  # no loop (a synchronous caller): pump now
            self.pump()

    async def _pump_loop(self) -> None:
        # Unguarded: a failing frame ends the loop, and its supervisor logs it, alerts the
        # desk and starts it again (the commit-driven pump() only logs).
        while True:
            await asyncio.sleep(PUMP_SECONDS)
            self._scheduled = False
            self._advance()  # the delay releases news as time passes, without a commit

    def attach(self) -> None:
        self.service.listeners.append(self.on_commit)
        self._task = self.service.supervisor.start(
            "the live web updates",
            self._pump_loop,
            stops="Spectator pages and the desk do not get new moves until it runs again.",
        )

    async def close(self) -> None:
        with contextlib.suppress(ValueError):
            self.service.listeners.remove(self.on_commit)
        if self._task is not None:
            await self._task.stop()
        for channel in (self.public, self.arbiter):
            channel.stop()
        self.executor.shutdown(wait=False, cancel_futures=True)
        for channel in (self.public, self.arbiter):
            for subs in list(channel.subscribers.values()):
                for client in list(subs):
                    await client.ws.close()

    # -- one connection --------------------------------------------------------------------------

    def clock_rate(self) -> float:
        """Event seconds per wall second (the demo runs fast): clients tick clocks at it."""
        return views.speed_of(self.service)

    def snapshot_text(
        self, channel: Channel, scope: str, section: SectionConfig | None, rnd: int, game: str
    ) -> str | None:
        key = scope_key(scope, section.name if section else "", rnd, game)

        def build() -> str:
            data = snapshot_data(
                self.config,
                channel.frame,
                self.service.live_rounds(),
                scope,
                section,
                rnd,
                game,
                arbiter=channel is self.arbiter,
                standings=channel.standings_rows(section) if scope == "round" and section else None,
            )
            return _encode(
                {
                    "type": "snapshot",
                    "channel": channel.name,
                    "scope": scope,
                    "key": key,
                    "seq": channel.seq,
                    "epoch": self.epoch,
                    "clock_rate": self.clock_rate(),
                    "now": self.service.time.now(),
                    "delay": self.service.delay if channel is self.public else 0,
                    "data": data,
                }
            )

        if scope == "game" and game not in channel.frame.book.games:
            return None
        return channel.cached_snapshot(key, build)

    async def serve(self, request: web.Request, *, arbiter: bool) -> web.StreamResponse:
        channel = self.arbiter if arbiter else self.public
        limits = self.limits
        if not arbiter:
            try:
                await self.budget.turn()  # the handshake is web work like any other
            except Busy:
                return _busy()
        ws = web.WebSocketResponse(heartbeat=30.0, max_msg_size=limits.max_message_bytes)
        await ws.prepare(request)
        client = Client(ws, limits=limits, now=self.now, arbiter=arbiter)
        writer = asyncio.ensure_future(self._writer(client))
        try:
            async for msg in ws:
                if not await self._one_message(request, channel, client, msg, arbiter=arbiter):
                    break
                # One message a loop turn: a burst in one packet never holds the loop.
                await asyncio.sleep(0)
        finally:
            channel.unsubscribe(client)
            writer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await writer
        return ws

    async def _one_message(
        self, request: web.Request, channel: Channel, client: Client, msg: Any, *, arbiter: bool
    ) -> bool:
        """Handle one message; False when the socket was closed."""
        ws = client.ws
        if msg.type not in (WSMsgType.TEXT, WSMsgType.BINARY):
            return True
        if not client.messages.take():
            return await self._strike(client, "too many messages")
        if msg.type != WSMsgType.TEXT:
            client.push(_encode({"type": "error", "message": "messages must be JSON text"}))
            return await self._strike(client, "binary message")
        self.handled += 1
        try:
            if arbiter:
                reply = await self._handle(channel, client, msg.data)
            else:
                reply = await self.budget.run(lambda: self._handle(channel, client, msg.data))
        except Busy:
            await self._close(client, WSCloseCode.TRY_AGAIN_LATER, b"server busy")
            return False
        except RecursionError:
            self.bad_messages.warning(
                f"websocket client {request.remote}: message nested too deeply; closed"
            )
            await self._close(client, WSCloseCode.POLICY_VIOLATION, b"nested too deeply")
            return False
        except Exception as exc:  # one client's bad message must not flood the log
            self.bad_messages.warning(
                f"websocket client {request.remote}: message failed ({type(exc).__name__}); closed"
            )
            await ws.close(code=WSCloseCode.INTERNAL_ERROR, message=b"message failed")
            return False
        for text in reply:
            client.push(text)
        if client.strikes >= self.limits.strikes:
            await self._close(client, WSCloseCode.POLICY_VIOLATION, b"too many requests")
            return False
        if client.closing is not None:
            await self._close(client, client.closing, b"try again later")
            return False
        return True

    async def _strike(self, client: Client, why: str) -> bool:
        client.strikes += 1
        if client.strikes < self.limits.strikes:
            return True
        await self._close(client, WSCloseCode.POLICY_VIOLATION, f"{why}".encode())
        return False

    async def _close(self, client: Client, code: int, message: bytes) -> None:
        self.closed_for_policy += 1
        await client.ws.close(code=code, message=message)

    async def _handle(self, channel: Channel, client: Client, text: str) -> list[str]:
        try:
            msg = json.loads(text)
        except (json.JSONDecodeError, UnicodeDecodeError):
            return [_error("messages must be JSON objects")]
        if not isinstance(msg, dict):
            return [_error("messages must be JSON objects")]
        if msg.get("type") == "ping":
            return [_PONG]
        if msg.get("type") != "subscribe":
            return [_error("unknown message type")]
        scope = msg.get("scope", "event")
        section: SectionConfig | None = None
        rnd = 0
        game = ""
        if scope == "round":
            section = views.section_by_name(self.config, _str(msg.get("section")))
            r = msg.get("round")
            if section is None or not isinstance(r, int) or isinstance(r, bool) or r < 1:
                return [_error("round scope needs section and round")]
            rnd = r
        elif scope == "game":
            game = _str(msg.get("game")) or ""
            if game not in channel.frame.book.games:
                return [_error(f"no game {game[:80]!r}")]
        elif scope != "event":
            return [_error("scope must be event, round or game")]
        if not client.subscribes.take():
            client.strikes += 1
            return [
                _error(f"too many subscribes: at most one every {self.limits.subscribe_every:g} s")
            ]
        if channel is self.public:
            wait = self.subscribes.reserve(self.limits.global_wait)
            if wait is None:
                raise Busy("too many subscribes from everybody")
            if wait > 0:
                await asyncio.sleep(wait)  # its turn among everybody's subscribes
        key = scope_key(scope, section.name if section else "", rnd, game)
        channel.subscribe(client, key)

        def resync() -> list[str]:
            return [_RESYNC, self.snapshot_text(channel, scope, section, rnd, game) or ""]

        client.resync_to = resync
        since = msg.get("since")
        if (
            isinstance(since, int)
            and not isinstance(since, bool)
            and msg.get("epoch") == self.epoch
        ):
            missed = channel.since(since, key)
            if missed is not None:
                return missed
        snap = self.snapshot_text(channel, scope, section, rnd, game)
        return [snap] if snap is not None else [_error(f"no game {game[:80]!r}")]

    async def _writer(self, client: Client) -> None:
        try:
            await self._write(client)
        except Exception:
            # Never a client left with a dead writer and a live reader: one line with the
            # traceback, and that connection ends (the others go on).
            log.exception("websocket writer failed; closing that client")
            await client.ws.close(code=WSCloseCode.INTERNAL_ERROR, message=b"writer failed")

    async def _write(self, client: Client) -> None:
        # No per-send timeout: a send only waits when the socket's buffer is full, and then
        # only this client's writer waits while its bounded queue absorbs (and resyncs) the
        # backlog; the heartbeat closes a connection that stays dead.
        # A spectator's sends are web work like any other: a few a turn, within the web's
        # share of the loop (a delta to 1,000 clients is 1,000 sends: all in one loop turn
        # they held the boards up for a quarter of a second).
        budget = None if client.arbiter else self.budget
        while not client.ws.closed:
            await client.wake.wait()
            client.wake.clear()
            while client.queue:
                if budget is not None:
                    await budget.turn(refuse=False)
                started = time.perf_counter()
                for _ in range(WRITE_BATCH):
                    if not client.queue:
                        break
                    text = client.queue.popleft()
                    if not text:
                        continue
                    try:
                        await client.ws.send_str(text)
                    except (ConnectionError, RuntimeError):
                        await client.ws.close()
                        return
                if budget is not None:
                    budget.charge(time.perf_counter() - started)
                await asyncio.sleep(0)
            if client.closing is not None:  # resynced too often: come back later
                await client.ws.close(code=client.closing, message=b"too slow: reconnect later")
                return


def _str(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _error(message: str) -> str:
    return _encode({"type": "error", "message": message})


_PONG = _encode({"type": "pong"})
_RESYNC = _encode({"type": "resync"})


def _busy() -> web.Response:
    response = web.json_response({"error": "the server is busy: try again in a few seconds"})
    response.set_status(503)
    response.headers["Retry-After"] = "5"
    return response


def subscribers(channels: Iterable[Channel]) -> int:
    return sum(c.clients for c in channels)
