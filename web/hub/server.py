"""The hub's server: both channels of one service, and the websocket protocol.

`Hub` follows the service (a pump after each burst of commits, and every
`PUMP_SECONDS`, since the delay releases news as time passes) and moves its two channels:

- public: frames come from `service.public_state()` only, so a delta can never carry
  what the broadcast delay still hides (DESIGN: "Spectators never see what the delay
  hides");
- arbiter: frames come from the live state, plus the hall boards, the open alerts and
  the boards still to be set up (a spare, or a board after a correction).

Protocol (JSON text messages; see docs/web.md):

    client -> {"type": "subscribe", "scope": "event" | "round" | "game",
               "section": slug?, "round": N?, "game": id?, "since": seq?, "epoch": str?}
    server -> {"type": "snapshot", "seq": N, "epoch": E, "scope": ..., "data": {...}}
    server -> {"type": "move" | "clock" | "result" | "game" | "removed" | "sync"
               | "standings" | "pairings" | "boards" | "alerts" | "waiting", "seq": N, ...}
    server -> {"type": "eval", "game": id, "fen": ..., "cp" | "mate": ..., "depth": N,
               "pv": [SAN...]}  (no seq: outside the sequence; after each snapshot and
               resume the current evaluations of the scope's games follow)
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
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from aiohttp import WSCloseCode, WSMsgType, web, web_ws

from broadcast.analysis.evaluator import Evaluator
from broadcast.arbiter.alerts import Alert
from broadcast.config.model import SectionConfig
from broadcast.games.evaluation import Evaluation
from broadcast.games.game_state import GameState
from broadcast.journal.store import Entry
from broadcast.phrases import say
from broadcast.service.event_service import EventService
from broadcast.service.supervisor import SupervisedTask
from web import json_views
from web.hub.channel import Channel, Client
from web.hub.deltas import Frame, encode, eval_delta, scope_key, snapshot_data
from web.hub.wire import Wire
from web.limits import Busy, HubLimits, LoopBudget, QuietLog, TokenBucket
from web.public_source import PublicSource
from web.sections import section_by_name

__all__ = [
    "CLOSE_TIMEOUT",
    "DRAIN_POLL",
    "PUMP_SECONDS",
    "READ_QUEUE",
    "WRITE_BATCH",
    "AlertSource",
    "Hub",
    "bound_read_queues",
]

log = logging.getLogger(__name__)

WRITE_BATCH = 8  # messages one client's writer sends before the loop is served again
DRAIN_POLL = 0.05  # a congested socket whose transport did not pause: look again after this
PUMP_SECONDS = 0.25  # how often the public channel looks whether the delay released news
BAD_MESSAGE_LOG_SECONDS = 60.0  # at most one log line per this many seconds for bad messages
# Seconds a client has to answer our close frame. Until it does, aiohttp reads (and drops)
# whatever it sends, outside the web's budget: a flooder that never reads made each
# socket closed for breaking the limits cost ten seconds of reading its garbage.
CLOSE_TIMEOUT = 1.0
# How much a websocket may have read but not yet handed to the hub: aiohttp stops reading
# a socket whose queue of parsed messages passes twice its `DEFAULT_CHUNK_SIZE`. Since
# aiohttp 3.11 that is 512 KiB: thousands of message objects per socket for clients whose
# messages are at most `HubLimits.max_message_bytes`, all parsed ahead of the hub, which
# takes one a turn within the web's budget. 1,000 hostile clients made that 300 MB and
# 1.5 x the boards' p99 (bench_hostile.py). 16 KiB: a few dozen messages per socket.
READ_QUEUE = 16 * 1024


def bound_read_queues() -> None:
    """Bound the read queue of every websocket started from now on (`READ_QUEUE`).

    aiohttp has no parameter for it: its `web_ws` module reads the size from that module's
    `DEFAULT_CHUNK_SIZE` each time a websocket starts (and for nothing else once imported),
    so that is where it is set (tests/web/hub/test_hostile_costs.py checks what a socket gets)."""
    web_ws.DEFAULT_CHUNK_SIZE = READ_QUEUE  # type: ignore[attr-defined]


AlertSource = Callable[[], Sequence[Alert]]


class Hub:
    """Both channels for one service. `attach()` starts following the service, on the
    running loop. `in_place` is the synchronous variant for an owner without a loop
    (tests): it calls `pump` itself, and the channels work in place (see `Channel`)."""

    def __init__(
        self,
        service: PublicSource,
        alerts: AlertSource | None = None,
        *,
        limits: HubLimits | None = None,
        budget: LoopBudget | None = None,
        now: Callable[[], float] = time.monotonic,
        relay: bool = False,
        evals: Evaluator | None = None,
        in_place: bool = False,
    ) -> None:
        self.service = service
        # The engine's evaluations of public positions (`--eval`), sent to spectators
        # outside the numbered sequence (so a mirror can add its own to the venue's).
        self.evals = evals
        if evals is not None:
            evals.listeners.append(self.on_eval)
        # The venue's service has a live side (the arbiter channel); a mirror's state has not.
        self.live = service if isinstance(service, EventService) else None
        # What spectators read: the venue's public view (its live rounds are the public
        # tournament's), or the mirror's state.
        self.seen: PublicSource = self.live.public_view if self.live is not None else service
        # A mirror relays the venue's numbered deltas (`relay_delta`) instead of diffing:
        # the sequence numbers and the epoch are the venue's, so a resume works anywhere.
        self.relay = relay
        self.config = service.config
        self.alerts = alerts or (lambda: ())
        self.bad_messages = QuietLog(BAD_MESSAGE_LOG_SECONDS, logger=log)
        bound_read_queues()
        self.limits = limits or HubLimits()
        # Spectators' messages share the web's part of the loop; the arbiters' do not.
        self.budget = budget or LoopBudget()
        self.now = now
        self.subscribes = TokenBucket(self.limits.global_rate, self.limits.global_burst, now)
        self.handled = 0  # messages handled (for tests and the bench)
        self.closed_for_policy = 0  # sockets closed for breaking the limits (the bench)
        self.epoch = secrets.token_hex(6)
        self.public = Channel(
            "public", self.config, self.public_frame(), self.epoch, in_place=in_place
        )
        self.public.budget = self.budget  # the fan-out to spectators is web work too
        self.arbiter: Channel | None = None
        # One thread for both channels' standings: a big Swiss's take a tenth of a second.
        self.executor = ThreadPoolExecutor(1, thread_name_prefix="hub-standings")
        self.public.executor = self.executor
        if self.live is not None:
            self.arbiter = Channel(
                "arbiter", self.config, self.arbiter_frame(), self.epoch, in_place=in_place
            )
            self.arbiter.executor = self.executor
        self._scheduled = False
        self._task: SupervisedTask | None = None
        self._pump_failing = False  # log a failing pump once, not at every commit

    # Frames: the public one from the delayed state only.
    def public_frame(self) -> Frame:
        public = self.service.public_state()
        return Frame(public.tournament, public.book)

    def arbiter_frame(self) -> Frame:
        service = self.live
        assert service is not None, "a mirror has no arbiter channel"
        boards = tuple(
            json_views.desk_board_json(b, service.book, service.config)
            for b in sorted(service.hall.values(), key=lambda b: b.number)
        )
        waiting = tuple(
            json_views.waiting_json(service.hall.values(), service.book, service.config)
        )
        return Frame(service.tournament, service.book, boards, tuple(self.alerts()), waiting)

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
        if not self.relay:
            self.public.advance(self.public_frame())
        if self.arbiter is not None:
            self.arbiter.advance(self.arbiter_frame())
        self._pump_failing = False

    # -- a mirror: the venue's deltas, as numbered there ------------------------------------

    def relay_state(self, epoch: str, seq: int, frame: Frame) -> None:
        """Start over from a venue snapshot (a mirror's start, a venue restart, a gap):
        every client is resynced, and resumes use the venue's `epoch` from now on."""
        self.epoch = epoch
        self.public.reset(frame, seq, epoch)
        for subs in list(self.public.subscribers.values()):
            for client in list(subs):
                client.queue.clear()
                if client.resync_to is not None:
                    for wire in client.resync_to():
                        client.push(wire)

    def relay_delta(self, seq: int, keys: frozenset[str], text: str, frame: Frame) -> None:
        """One venue delta (its number, scope keys and wire text) and the state after it."""
        channel = self.public
        if frame.tournament is not channel.shown:
            channel.shown = frame.tournament  # standings rows follow the venue's tournament
            channel.forget_views()
        channel.frame = frame
        channel.relay(seq, keys, text)

    # -- engine evaluations (`--eval`) --------------------------------------------------------

    def on_eval(self, game_id: str, ev: Evaluation) -> None:
        """Evaluator listener: a new evaluation goes to the public subscribers of its game."""
        game = self.public.frame.book.games.get(game_id)
        if game is not None:
            self.public.push(eval_delta(game, ev))

    def eval_texts(
        self, scope: str, section: SectionConfig | None, rnd: int, game: str
    ) -> list[Wire]:
        """The known evaluations of the games a public scope shows (after its snapshot)."""
        evals = self.evals
        if evals is None:
            return []
        book = self.public.frame.book
        games: list[GameState] = []
        if scope == "game":
            one = book.games.get(game)
            games = [one] if one is not None else []
        elif scope == "round" and section is not None:
            games = book.round_games(section.name, rnd)
        elif scope == "event":
            for name, number in self.seen.live_rounds().items():
                if number is not None:
                    games += book.round_games(name, number)
        out = []
        for g in games:
            ev = evals.current(g)
            if ev is not None:
                out.append(Wire.of(encode(eval_delta(g, ev).message)))
        return out

    def on_commit(self, entries: Sequence[Entry]) -> None:
        """Service listener (`attach`, on the loop): coalesce a burst of commits into one
        pump on the loop's next turn."""
        if self._scheduled:
            return
        self._scheduled = True
        asyncio.get_running_loop().call_soon(self.pump)

    async def _pump_loop(self) -> None:
        # Unguarded: a failing frame ends the loop, and its supervisor logs it, alerts the
        # desk and starts it again (the commit-driven pump() only logs).
        while True:
            await asyncio.sleep(PUMP_SECONDS)
            self._scheduled = False
            self._advance()  # the delay releases news as time passes, without a commit

    def attach(self) -> None:
        if self.live is None:
            return  # a mirror's hub is driven by its feed (`relay_state`, `relay_delta`)
        self.live.listeners.append(self.on_commit)
        self._task = self.live.supervisor.start(
            say("the live web updates"),
            self._pump_loop,
            stops=say("Spectator pages and the desk do not get new moves until it runs again."),
        )

    async def close(self) -> None:
        if self.evals is not None:
            with contextlib.suppress(ValueError):
                self.evals.listeners.remove(self.on_eval)
        if self.live is not None:
            with contextlib.suppress(ValueError):
                self.live.listeners.remove(self.on_commit)
        if self._task is not None:
            await self._task.stop()
        channels = [c for c in (self.public, self.arbiter) if c is not None]
        for channel in channels:
            channel.stop()
        self.executor.shutdown(wait=False, cancel_futures=True)
        for channel in channels:
            for subs in list(channel.subscribers.values()):
                for client in list(subs):
                    await client.ws.close()

    # -- one connection --------------------------------------------------------------------------

    def clock_rate(self) -> float:
        """Event seconds per wall second (the demo runs fast): clients tick clocks at it."""
        return json_views.speed_of(self.service)

    def snapshot_text(
        self, channel: Channel, scope: str, section: SectionConfig | None, rnd: int, game: str
    ) -> Wire | None:
        key = scope_key(scope, section.name if section else "", rnd, game)

        def build() -> str:
            data = snapshot_data(
                self.config,
                channel.frame,
                (self.live if channel is self.arbiter and self.live else self.seen).live_rounds(),
                scope,
                section,
                rnd,
                game,
                arbiter=channel is self.arbiter,
                delay=self.service.delay,
                standings=channel.standings_rows(section) if scope == "round" and section else None,
            )
            return encode(
                {
                    "type": "snapshot",
                    "channel": channel.name,
                    "scope": scope,
                    "key": key,
                    "seq": channel.seq,
                    "epoch": self.epoch,
                    "clock_rate": self.clock_rate(),
                    "now": self.service.time_source.now(),
                    "delay": self.service.delay if channel is self.public else 0,
                    "data": data,
                }
            )

        if scope == "game" and game not in channel.frame.book.games:
            return None
        return channel.cached_snapshot(key, build)

    async def serve(self, request: web.Request, *, arbiter: bool) -> web.StreamResponse:
        channel = self.arbiter if arbiter else self.public
        if channel is None:
            raise web.HTTPNotFound(reason="no arbiter channel here")
        limits = self.limits
        if not arbiter:
            try:
                await self.budget.turn()  # the handshake is web work like any other
            except Busy:
                return _busy()
        # No per-message compression: a server's frame is then the same bytes for every
        # client, encoded once and written as is (`web.hub.wire`); compressing per client
        # cost CPU per send and a compressor's memory per socket, for messages of a few
        # hundred bytes (docs/web.md).
        ws = web.WebSocketResponse(
            heartbeat=30.0,
            max_msg_size=limits.max_message_bytes,
            compress=False,
            timeout=CLOSE_TIMEOUT,
        )
        try:
            payload = await ws.prepare(request)
        except ConnectionResetError:
            # The client left during the handshake (a page closed as it loaded): nothing
            # to serve and nothing wrong here.
            return ws
        transport = request.transport
        if transport is None:  # gone during the handshake
            return ws
        client = Client(
            ws,
            limits=limits,
            now=self.now,
            arbiter=arbiter,
            transport=transport,
            drain=payload.drain,
        )
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
            _let_go(client)
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
            client.push(_error("messages must be JSON text"))
            return await self._strike(client, "binary message")
        self.handled += 1
        try:
            if arbiter:
                await self._answer(channel, client, msg.data)
            else:
                # The answer's writes too are web work (a snapshot is kilobytes, written
                # at once while the socket keeps up): within the budget.
                await self.budget.run(lambda: self._answer(channel, client, msg.data))
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
        if client.strikes >= self.limits.strikes:
            await self._close(client, WSCloseCode.POLICY_VIOLATION, b"too many requests")
            return False
        if client.closing is not None:
            await self._close(client, client.closing, _why(client.closing))
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

    async def _answer(self, channel: Channel, client: Client, text: str) -> None:
        for wire in await self._handle(channel, client, text):
            client.push(wire)

    async def _handle(self, channel: Channel, client: Client, text: str) -> list[Wire]:
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
            section = section_by_name(self.config, _str(msg.get("section")))
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
        # `"eval": false` (an embed or page with `?eval=0`): no evaluations for this client.
        client.evals = msg.get("eval") is not False

        def evals() -> list[Wire]:
            if channel is not self.public or not client.evals:
                return []
            return self.eval_texts(scope, section, rnd, game)

        def resync() -> list[Wire]:
            client.floor = channel.seq  # the snapshot covers everything numbered so far
            snap = self.snapshot_text(channel, scope, section, rnd, game)
            return [_RESYNC, *evals()] if snap is None else [_RESYNC, snap, *evals()]

        client.resync_to = resync
        since = msg.get("since")
        if (
            isinstance(since, int)
            and not isinstance(since, bool)
            and msg.get("epoch") == self.epoch
        ):
            missed = channel.since(since, key)
            if missed is not None:
                return [*missed, *evals()]
        snap = self.snapshot_text(channel, scope, section, rnd, game)
        return [snap, *evals()] if snap is not None else [_error(f"no game {game[:80]!r}")]

    async def _writer(self, client: Client) -> None:
        try:
            await self._write(client)
        except Exception:
            # Never a client left with a dead writer and a live reader: one line with the
            # traceback, and that connection ends (the others go on).
            log.exception("websocket writer failed; closing that client")
            await client.ws.close(code=WSCloseCode.INTERNAL_ERROR, message=b"writer failed")

    async def _write(self, client: Client) -> None:
        # What the socket could not take at once waits in the client's bounded queue; this
        # writer sends it once the socket has room (the transport's own flow control),
        # while only this client waits and its queue absorbs (and resyncs) the backlog; the
        # heartbeat closes a connection that stays dead.
        # A spectator's sends are web work like any other: a few a turn, within the web's
        # share of the loop (a delta to 1,000 clients is 1,000 sends: all in one loop turn
        # they held the boards up for a quarter of a second).
        budget = None if client.arbiter else self.budget
        while not client.ws.closed:
            await client.wake.wait()
            client.wake.clear()
            while client.queue:
                if client.congested():
                    await client.drain()
                    if client.congested():
                        t = client.transport
                        if t is None or t.is_closing():
                            await client.ws.close()
                            return
                        await asyncio.sleep(DRAIN_POLL)
                    continue
                if budget is not None:
                    await budget.turn(refuse=False)
                started = time.perf_counter()
                if not client.flush(WRITE_BATCH):
                    await client.ws.close()
                    return
                if budget is not None:
                    budget.charge(time.perf_counter() - started)
                await asyncio.sleep(0)
            if client.closing is not None:  # resynced too often, or its fan-out failed
                await client.ws.close(code=client.closing, message=_why(client.closing))
                return


def _let_go(client: Client) -> None:
    """Let a finished socket go at once. Left alone it lingered: aiohttp re-arms its
    heartbeat when data comes in during the close handshake, so the loop's timer held the
    closed socket (and its queue) for up to 45 s, and then reference cycles held it until
    a full collection: its resync closure holds the client, the heartbeat's timers hold
    the socket, the exception aiohttp kept (a reset, a timed-out close) holds the frames
    that hold the socket. Called once the socket is closed (no more data can come in)."""
    client.resync_to = None
    ws = client.ws
    # aiohttp has no public way to stop the heartbeat of a closed socket; without this
    # method (another aiohttp) the timer only lingers: tests/web/hub/test_hostile_costs.py says so.
    stop_heartbeat = getattr(ws, "_cancel_heartbeat", None)
    if stop_heartbeat is not None:
        stop_heartbeat()
    exc = ws.exception()
    for _ in range(8):  # its __context__ chain: a close that failed while closing for cause
        if exc is None:
            break
        exc.__traceback__ = None
        exc = exc.__context__ or exc.__cause__


def _why(code: int) -> bytes:
    if code == WSCloseCode.INTERNAL_ERROR:
        return b"server error"
    return b"too slow: reconnect later"


def _str(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _error(message: str) -> Wire:
    return Wire.of(encode({"type": "error", "message": message}))


_PONG = Wire.of(encode({"type": "pong"}))
_RESYNC = Wire.of(encode({"type": "resync"}))


def _busy() -> web.Response:
    response = web.json_response({"error": "the server is busy: try again in a few seconds"})
    response.set_status(503)
    response.headers["Retry-After"] = "5"
    return response
