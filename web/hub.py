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
from dataclasses import dataclass, field
from typing import Any

from aiohttp import WSCloseCode, WSMsgType, web

from broadcast.arbiter.alerts import Alert
from broadcast.config.model import EventConfig, SectionConfig
from broadcast.games.book import GameBook
from broadcast.games.ids import slug
from broadcast.games.state import GameState
from broadcast.journal import Entry
from broadcast.service import EventService
from broadcast.supervisor import SupervisedTask
from broadcast.tournament.state import TournamentState
from web import views

log = logging.getLogger(__name__)

QUEUE_LIMIT = 256  # messages waiting for one client before it is resynced
REPLAY_LIMIT = 4096  # deltas kept for reconnecting clients
PUMP_SECONDS = 0.25  # how often the public channel looks whether the delay released news
BAD_MESSAGE_LOG_SECONDS = 60.0  # at most one log line per this many seconds for bad messages


class QuietLog:
    """One warning per `every` seconds; the ones in between are counted, not written."""

    def __init__(self, every: float, now: Callable[[], float] = time.monotonic) -> None:
        self.every = every
        self.now = now
        self.last = -every
        self.suppressed = 0

    def warning(self, message: str) -> bool:
        t = self.now()
        if t - self.last < self.every:
            self.suppressed += 1
            return False
        extra = f" ({self.suppressed} more since the last report)" if self.suppressed else ""
        log.warning("%s%s", message, extra)
        self.last, self.suppressed = t, 0
        return True


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


def diff(config: EventConfig, old: Frame, new: Frame) -> list[Delta]:
    """The deltas from `old` to `new`, in a stable order. Pure."""
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
    if new.tournament is not old.tournament:
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


def _section_deltas(
    config: EventConfig, section: SectionConfig, old: TournamentState, new: TournamentState
) -> list[Delta]:
    out: list[Delta] = []
    before = views.standings_json(config, old, section)
    after = views.standings_json(config, new, section)
    state = new.section(section.name)
    # Every paired round's page, the play-off games' rounds included.
    rounds = [*state.rounds, *(state.playoff_round(n) for n in state.playoff)]
    round_keys = {scope_key("round", section.name, r) for r in rounds}
    if before != after:
        out.append(
            Delta(
                frozenset({"event", *round_keys}),
                {"type": "standings", "section": slug(section.name), "rows": after},
            )
        )
    p_before = views.pairings_json(old, section)
    p_after = views.pairings_json(new, section)
    if p_before != p_after:
        out.append(
            Delta(
                frozenset({"event", *round_keys}),
                {"type": "pairings", "section": slug(section.name), "rounds": p_after},
            )
        )
    return out


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
) -> dict[str, Any] | None:
    """The full state a scope starts from; None when the scope names nothing. Pure."""
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
            "standings": views.standings_json(config, frame.tournament, section),
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

    def push(self, text: str) -> None:
        if len(self.queue) >= QUEUE_LIMIT:
            # Stalled: drop the backlog (bounded memory), start again from a snapshot.
            self.queue.clear()
            self.resyncs += 1
            if self.resync_to is not None:
                self.queue.extend(self.resync_to())
        else:
            self.queue.append(text)
        self.wake.set()


class Channel:
    """A sequence of frames, the deltas between them, and who listens to what."""

    def __init__(self, name: str, config: EventConfig, frame: Frame, epoch: str) -> None:
        self.name = name
        self.config = config
        self.frame = frame
        self.epoch = epoch
        self.seq = 0
        self.buffer: deque[tuple[int, frozenset[str], str]] = deque(maxlen=REPLAY_LIMIT)
        self.subscribers: dict[str, set[Client]] = {}
        self._snapshots: dict[str, tuple[int, str]] = {}
        self.sent = 0  # messages handed to client queues (for the bench)

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
        deltas = diff(self.config, self.frame, frame)
        self.frame = frame
        for delta in deltas:
            self.publish(delta)
        return len(deltas)

    def publish(self, delta: Delta) -> None:
        self.seq += 1
        text = _encode({**delta.message, "seq": self.seq})
        self.buffer.append((self.seq, delta.keys, text))
        for key in delta.keys:
            for client in self.subscribers.get(key, ()):
                client.push(text)
                self.sent += 1

    def since(self, seq: int, key: str) -> list[str] | None:
        """The deltas for `key` after `seq`, or None when the buffer no longer has them."""
        if seq > self.seq:
            return None
        if seq == self.seq:
            return []
        if not self.buffer or self.buffer[0][0] > seq + 1:
            return None
        return [text for s, keys, text in self.buffer if s > seq and key in keys]

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

    def __init__(self, service: EventService, alerts: AlertSource | None = None) -> None:
        self.service = service
        self.config = service.config
        self.alerts = alerts or (lambda: ())
        self.bad_messages = QuietLog(BAD_MESSAGE_LOG_SECONDS)
        self.epoch = secrets.token_hex(6)
        self.public = Channel("public", self.config, self.public_frame(), self.epoch)
        self.arbiter = Channel("arbiter", self.config, self.arbiter_frame(), self.epoch)
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

    async def serve(self, request: web.Request, *, arbiter: bool) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(heartbeat=30.0, max_msg_size=64 * 1024)
        await ws.prepare(request)
        channel = self.arbiter if arbiter else self.public
        client = Client(ws)
        writer = asyncio.ensure_future(self._writer(client))
        try:
            async for msg in ws:
                if msg.type != WSMsgType.TEXT:
                    continue
                try:
                    reply = self._handle(channel, client, msg.data)
                except RecursionError:
                    self.bad_messages.warning(
                        f"websocket client {request.remote}: message nested too deeply; closed"
                    )
                    await ws.close(code=WSCloseCode.POLICY_VIOLATION, message=b"nested too deeply")
                    break
                except Exception as exc:  # one client's bad message must not flood the log
                    self.bad_messages.warning(
                        f"websocket client {request.remote}: message failed "
                        f"({type(exc).__name__}); closed"
                    )
                    await ws.close(code=WSCloseCode.INTERNAL_ERROR, message=b"message failed")
                    break
                for text in reply:
                    client.push(text)
        finally:
            channel.unsubscribe(client)
            writer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await writer
        return ws

    def _handle(self, channel: Channel, client: Client, text: str) -> list[str]:
        try:
            msg = json.loads(text)
        except (json.JSONDecodeError, UnicodeDecodeError):
            return [_encode({"type": "error", "message": "messages must be JSON objects"})]
        if not isinstance(msg, dict):
            return [_encode({"type": "error", "message": "messages must be JSON objects"})]
        if msg.get("type") == "ping":
            return [_encode({"type": "pong"})]
        if msg.get("type") != "subscribe":
            return [_encode({"type": "error", "message": "unknown message type"})]
        scope = msg.get("scope", "event")
        section: SectionConfig | None = None
        rnd = 0
        game = ""
        if scope == "round":
            section = views.section_by_name(self.config, _str(msg.get("section")))
            r = msg.get("round")
            if section is None or not isinstance(r, int) or isinstance(r, bool) or r < 1:
                return [
                    _encode({"type": "error", "message": "round scope needs section and round"})
                ]
            rnd = r
        elif scope == "game":
            game = _str(msg.get("game")) or ""
        elif scope != "event":
            return [_encode({"type": "error", "message": "scope must be event, round or game"})]
        snap = self.snapshot_text(channel, scope, section, rnd, game)
        if snap is None:
            return [_encode({"type": "error", "message": f"no game {game!r}"})]
        key = scope_key(scope, section.name if section else "", rnd, game)
        channel.subscribe(client, key)
        client.resync_to = lambda: [
            _encode({"type": "resync"}),
            self.snapshot_text(channel, scope, section, rnd, game) or "",
        ]
        since = msg.get("since")
        if (
            isinstance(since, int)
            and not isinstance(since, bool)
            and msg.get("epoch") == self.epoch
        ):
            missed = channel.since(since, key)
            if missed is not None:
                return missed
        return [snap]

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
        while not client.ws.closed:
            await client.wake.wait()
            client.wake.clear()
            while client.queue:
                text = client.queue.popleft()
                if not text:
                    continue
                try:
                    await client.ws.send_str(text)
                except (ConnectionError, RuntimeError):
                    await client.ws.close()
                    return


def _str(value: object) -> str | None:
    return value if isinstance(value, str) else None


def subscribers(channels: Iterable[Channel]) -> int:
    return sum(c.clients for c in channels)
