"""The listener of the LiveChess API (`serve --livechess-api`): its own aiohttp app and
runner on its own port, never the public one (this is the venue's live view, with no
broadcast delay; nothing here reaches the public routes, the Redis stream or a mirror).

`LiveChessApi.start()` binds the port and starts the feed's pump as a supervised task
(told of each durable commit, as the hub is); `close()` stops the pump, closes every
client and cleans up the runner. Each client has a bounded queue and a writer of its
own, so a slow client never stalls the others: one whose queue fills is closed.
What a subscriber is told comes from `feed.feed_steps` (pure).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from aiohttp import WSMsgType, web

from broadcast.actions import ConfirmationNeeded, SetStartPosition, act
from broadcast.games.game_state import GameError
from broadcast.journal.store import JournalError
from broadcast.phrases import say
from broadcast.service.committer import ActionError
from broadcast.service.event_service import EventService
from broadcast.service.supervisor import SupervisedTask
from clocks.errors import BoardwireError
from web.auth import Auth, GuessLimit
from web.livechess import protocol, views
from web.livechess.access import api_token, is_loopback, token_ok
from web.livechess.feed import BoardView, feed_steps

log = logging.getLogger(__name__)

__all__ = [
    "DEFAULT_PORT",
    "LINK_NAME",
    "LiveChessApi",
    "LiveChessSettings",
    "address",
    "allowed_origin",
]

DEFAULT_PORT = 1982
LINK_NAME = "LiveChess API (live, no delay)"  # on the desk's list of links
QUEUE_FRAMES = 1024  # frames waiting for one client; beyond, it is too slow and closed
MAX_SUBSCRIPTIONS = 64
# Web pages that may open the API from the operator's browser without a token: the
# tools that talk to LiveChess from a page. Any other site the operator visits must not
# read the live view (a WebSocket is not held back by the browser's same-origin rules).
ORIGINS = ("https://lichess.org", "http://localhost", "http://127.0.0.1", "http://[::1]")
EXTENSIONS = ("chrome-extension://", "moz-extension://")  # DgtAngel and its kind


def allowed_origin(origin: str | None) -> bool:
    """A request from this page's origin may use the API without a token (None: not a
    browser page: a script, a program)."""
    if origin is None:
        return True
    if origin.startswith(EXTENSIONS):
        return True
    return any(origin == o or origin.startswith(o + ":") for o in ORIGINS)


@dataclass(frozen=True, slots=True)
class LiveChessSettings:
    """Where the API listens."""

    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT

    @property
    def loopback(self) -> bool:
        return is_loopback(self.host)

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"ws://{host}:{self.port}/api/v1.0"


def address(settings: LiveChessSettings, credentials: tuple[str, str] | None, event: str) -> str:
    """Where LAN tools connect, in words: the URL, with the token they need beyond
    loopback (for the operator's terminal and the arbiter's desk, never a public page)."""
    if settings.loopback:
        return f"{settings.url}, this computer only"
    if credentials is None:  # refused by LiveChessApi; said plainly all the same
        return f"{settings.url}, closed: no arbiter login is set"
    token = api_token(credentials, event)
    return f"{settings.url}?token={token} (or the arbiter's login)"


@dataclass
class _Subscription:
    serialnr: str
    sent: BoardView | None = None


@dataclass(eq=False)
class _Client:
    ws: web.WebSocketResponse
    subs: dict[int, _Subscription] = field(default_factory=dict)
    queue: asyncio.Queue[str] = field(default_factory=lambda: asyncio.Queue(QUEUE_FRAMES))
    slow: bool = False

    def send(self, frame: str) -> None:
        if self.slow:
            return
        try:
            self.queue.put_nowait(frame)
        except asyncio.QueueFull:
            self.slow = True  # the writer closes it


class LiveChessApi:
    """The API over one service (see the module docstring)."""

    def __init__(
        self,
        service: EventService,
        settings: LiveChessSettings,
        credentials: tuple[str, str] | None,
    ) -> None:
        if not settings.loopback and credentials is None:
            raise ValueError(
                f"the LiveChess API on {settings.host} (beyond this computer) needs the "
                "arbiter's login: set BOARDWIRE_ARBITER_PASSWORD"
            )
        self.service = service
        self.settings = settings
        self.credentials = credentials
        self.auth = Auth(credentials)
        self.clients: set[_Client] = set()
        self.runner: web.AppRunner | None = None
        self._changed = asyncio.Event()
        self._seen: dict[str, tuple[tuple[object, object, object], BoardView]] = {}
        self._task: SupervisedTask | None = None

    # -- the app ----------------------------------------------------------------------------------

    def app(self) -> web.Application:
        app = web.Application(middlewares=[self._guard], client_max_size=protocol.MAX_FRAME)
        app.router.add_get("/api/v1.0", self._socket)
        rest: Sequence[tuple[str, Callable[[web.Request], Awaitable[web.Response]]]] = (
            ("/api/v1.0/eboards", self._eboards),
            ("/api/v1.0/tournaments", self._tournaments),
            ("/api/v1.0/tournament/{tid}", self._tournament),
            ("/api/v1.0/round/{tid}/{n}", self._round),
            ("/api/v1.0/game/{gid}", self._game),
        )
        for path, handler in rest:
            app.router.add_get(path, handler)
        return app

    def now(self) -> float:
        return self.service.time_source.now()

    def _ms(self) -> int:
        return int(self.now() * 1000)

    @web.middleware
    async def _guard(
        self, request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
    ) -> web.StreamResponse:
        if self._authorized(request):
            return await handler(request)
        return web.json_response(
            {"message": "this API needs the arbiter's login (HTTP Basic) or ?token=..."},
            status=401,
            headers={"WWW-Authenticate": 'Basic realm="boardwire LiveChess API"'},
        )

    def _authorized(self, request: web.Request) -> bool:
        """Loopback: any program, and the pages `allowed_origin` names. Beyond loopback
        (or another site's page): the arbiter's Basic login or the API's token."""
        if self.settings.loopback and allowed_origin(request.headers.get("Origin")):
            return True
        if self.credentials is None:
            return False
        token = request.query.get("token")
        if token is not None:
            caller = self.auth.caller(request)
            if self.auth.retry_after(caller) > 0:
                return False
            if token_ok(token, self.credentials, self.service.config.name):
                self.auth.succeeded(caller)
                return True
            self.auth.failed(caller)
            return False
        try:
            return self.auth.basic_user(request) is not None
        except GuessLimit:
            return False

    # -- REST -------------------------------------------------------------------------------------

    def _json(self, data: Any, what: str) -> web.Response:
        if data is None:
            return web.json_response({"message": f"no such {what}"}, status=404)
        return web.json_response(data)

    async def _eboards(self, request: web.Request) -> web.Response:
        return web.json_response(self.eboards())

    async def _tournaments(self, request: web.Request) -> web.Response:
        return web.json_response(views.tournaments_json(self.service))

    async def _tournament(self, request: web.Request) -> web.Response:
        tid = request.match_info["tid"]
        return self._json(views.tournament_json(self.service, tid), "tournament")

    async def _round(self, request: web.Request) -> web.Response:
        text = request.match_info["n"]
        number = int(text) if text.isdigit() and len(text) < 6 else 0
        data = views.round_json(self.service, request.match_info["tid"], number)
        return self._json(data, "round")

    async def _game(self, request: web.Request) -> web.Response:
        data = views.game_json(self.service, request.match_info["gid"], self.now())
        return self._json(data, "game")

    def eboards(self) -> list[dict[str, Any]]:
        return [
            views.eboard_json(self.service, board, view)
            for board, view in views.board_views(self.service, self.now()).values()
        ]

    # -- the socket -------------------------------------------------------------------------------

    async def _socket(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(heartbeat=30.0, max_msg_size=protocol.MAX_FRAME)
        await ws.prepare(request)
        client = _Client(ws)
        self.clients.add(client)
        writer = asyncio.get_running_loop().create_task(self._write(client))
        by = f"LiveChess API ({request.remote or 'unknown'})"
        try:
            async for msg in ws:
                if msg.type in (WSMsgType.TEXT, WSMsgType.BINARY):
                    self._answer(client, msg.data, by)
                elif msg.type == WSMsgType.ERROR:
                    break
        finally:
            self.clients.discard(client)
            writer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await writer
        return ws

    async def _write(self, client: _Client) -> None:
        ws = client.ws
        try:
            while not ws.closed:
                if client.slow:
                    await ws.close(code=1008, message=b"too slow: frames were left unread")
                    return
                frame = await client.queue.get()
                await ws.send_str(frame)
        except (ConnectionError, RuntimeError):
            return  # the client went away
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("a LiveChess API client's writer failed; closing it")
            await ws.close(code=1011)

    def _answer(self, client: _Client, data: str | bytes, by: str) -> None:
        """One frame from a client: a reply (and, for a subscription, its first feed)."""
        request = protocol.read_request(data)
        if isinstance(request, protocol.Refusal):
            client.send(protocol.error_reply(request.id, request.message, self._ms()))
            return
        try:
            reply = self._call(client, request, by)
        except _Refused as exc:
            client.send(protocol.error_reply(request.id, exc.message, self._ms()))
            return
        client.send(protocol.call_reply(request.id, reply, self._ms()))
        if request.call == "subscribe":
            self._push_client(client)  # the first feed message follows the acknowledgement

    def _call(self, client: _Client, request: protocol.Request, by: str) -> Any:
        param = request.param
        if request.call == "eboards":
            return self.eboards()
        if request.call == "sources":
            return views.sources_json(self.service)
        if request.call == "subscribe":
            return self._subscribe(client, request)
        if request.call == "unsubscribe":
            feed_id = _field(param, "id", int, 'unsubscribe needs the feed\'s id: {"id": N}')
            if client.subs.pop(feed_id, None) is None:
                raise _Refused(f"no feed {feed_id} to unsubscribe")
            return {"id": feed_id}
        return self._method(param, by)

    def _subscribe(self, client: _Client, request: protocol.Request) -> Any:
        param = request.param
        feed = _field(param, "feed", str, 'subscribe needs {"feed": "eboardevent", ...}')
        if feed != "eboardevent":
            raise _Refused(f"unknown feed {feed[:40]!r}: the feed is eboardevent")
        feed_id = param.get("id", request.id)
        if isinstance(feed_id, bool) or not isinstance(feed_id, int):
            raise _Refused("the feed's id is a whole number")
        serialnr = _field(
            param.get("param"),
            "serialnr",
            str,
            'subscribe needs the board: {"param": {"serialnr": "..."}}',
        )
        if serialnr not in views.board_views(self.service, self.now()):
            raise _Refused(f"no e-board {serialnr[:40]!r}: the eboards call lists them")
        if feed_id not in client.subs and len(client.subs) >= MAX_SUBSCRIPTIONS:
            raise _Refused(f"at most {MAX_SUBSCRIPTIONS} feeds per connection")
        client.subs[feed_id] = _Subscription(serialnr)
        return {"id": feed_id, "feed": feed, "serialnr": serialnr}

    def _method(self, param: Any, by: str) -> Any:
        serialnr = _field(param, "id", str, 'call needs the board: {"id": SERIALNR, ...}')
        method = _field(param, "method", str, 'call needs a method: "setup" or "flip"')
        found = views.board_views(self.service, self.now()).get(serialnr)
        if found is None:
            raise _Refused(f"no e-board {serialnr[:40]!r}: the eboards call lists them")
        board, _ = found
        if method == "flip":
            raise _Refused(
                "boardwire reads each board's orientation from its start position; to turn "
                "it, set the pieces up from the other side (or send setup)"
            )
        if method != "setup":
            raise _Refused(f"unknown method {method[:40]!r}: the methods are setup and flip")
        arg = param.get("param")
        fen = arg.get("fen") if isinstance(arg, dict) else arg
        if not isinstance(fen, str) or not fen.strip():
            raise _Refused('setup needs a FEN: {"param": {"fen": "..."}}')
        if board.game is None:
            raise _Refused(f"e-board {serialnr} carries no game now: nothing to set up")
        # Through the arbiter's door, as the desk's start position: checked, said in
        # words, journaled with who did it, undoable. The caller asked for exactly this.
        command = SetStartPosition(board.game, fen.strip()[:200], on_purpose=True)
        try:
            act(self.service, command, by, confirm=True)
        except (ActionError, ConfirmationNeeded, GameError, JournalError) as exc:
            raise _Refused(str(exc)) from None
        self._changed.set()
        return {"id": serialnr, "method": "setup", "fen": fen.strip()}

    # -- the feed ---------------------------------------------------------------------------------

    def on_commit(self, entries: Sequence[object]) -> None:
        """Service listener: the pump looks at the boards on its next turn."""
        self._changed.set()

    async def _pump_loop(self) -> None:
        while True:
            await self._changed.wait()
            self._changed.clear()
            self.push()

    def push(self) -> None:
        """Every subscriber is told what changed on its board."""
        if not self.clients:
            return
        wanted = {sub.serialnr for c in self.clients for sub in c.subs.values()}
        current = self._views(wanted)
        for client in list(self.clients):
            self._push_client(client, current)

    def _views(self, wanted: set[str]) -> dict[str, BoardView]:
        """The views of the boards subscribed to. A board whose memory, game and
        orientation are the very objects of the last look keeps its view (they are
        immutable), so a commit costs the boards it changed, not every board's line."""
        now = self.now()
        out: dict[str, BoardView] = {}
        for board in self.service.hall.values():
            name = board.name
            if name is None or name not in wanted:
                continue
            follower = board.to_game
            key = (
                self.service.state.memory.get(name),
                self.service.book.games.get(board.game) if board.game is not None else None,
                follower.reconstructor.orientation if follower is not None else None,
            )
            seen = self._seen.get(name)
            if seen is not None and all(a is b for a, b in zip(seen[0], key, strict=True)):
                out[name] = seen[1]
                continue
            view = views.board_view(self.service, board, now)
            if view is not None:
                self._seen[name] = (key, view)
                out[name] = view
        return out

    def _push_client(self, client: _Client, current: dict[str, BoardView] | None = None) -> None:
        if current is None:
            current = self._views({sub.serialnr for sub in client.subs.values()})
        ms = self._ms()
        for feed_id, sub in client.subs.items():
            view = current.get(sub.serialnr)
            if view is None or view is sub.sent:
                continue
            for step in feed_steps(sub.sent, view):
                client.send(protocol.feed_reply(feed_id, step.param, ms))
            sub.sent = view

    # -- start and stop ---------------------------------------------------------------------------

    async def start(self) -> web.AppRunner:
        """Bind the port (OSError when it cannot) and start the feed."""
        runner = web.AppRunner(self.app(), access_log=None)
        await runner.setup()
        try:
            await web.TCPSite(runner, self.settings.host, self.settings.port).start()
        except BaseException:
            await runner.cleanup()
            raise
        self.runner = runner
        self.service.listeners.append(self.on_commit)
        self.service.health.watch_link(LINK_NAME, self.status)
        self._task = self.service.supervisor.start(
            say("the LiveChess API's feed"),
            self._pump_loop,
            stops=say("Programs subscribed to the LiveChess API get no new moves meanwhile."),
        )
        return runner

    def status(self) -> str:
        """The API on the desk: where tools connect (with the token), who is connected."""
        feeds = sum(len(c.subs) for c in self.clients)
        return (
            f"{address(self.settings, self.credentials, self.service.config.name)}; "
            f"{len(self.clients)} program(s) connected, {feeds} board feed(s)"
        )

    async def close(self) -> None:
        with contextlib.suppress(ValueError):
            self.service.listeners.remove(self.on_commit)
        if self._task is not None:
            await self._task.stop()
        for client in list(self.clients):
            await client.ws.close()
        if self.runner is not None:
            await self.runner.cleanup()


class _Refused(BoardwireError):
    """A request answered with an error reply (never leaves this module)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def _field(param: Any, name: str, kind: type, message: str) -> Any:
    value = param.get(name) if isinstance(param, dict) else None
    if isinstance(value, bool) or not isinstance(value, kind):
        raise _Refused(message)
    return value
