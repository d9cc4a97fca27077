"""The HTTP server around the application: what happens before a request reaches it.

aiohttp's own server reads requests for as long as a client cares to send them, lets one
address hold every file descriptor, answers what its parser cannot read with the raw
bytes echoed back and no security headers, logs each such request with a full traceback,
and names its version in a `Server` header. Here, on top of it:

- a header timeout: a connection must deliver its request line and headers within
  `header_timeout` seconds (slowloris); idle keep-alive connections are closed after
  `keepalive_timeout`;
- connection limits: at most `per_address` open connections, and `new_per_address_rate`
  new ones a second, from one address (trusted proxies exempt: they speak for many
  clients, see `web.proxy`), and at most `max_connections` in all, below the open-file
  limit (raised to its hard limit at start: `raise_open_file_limit`); at that cap the
  oldest idle connection (waiting for a request: half-open, or kept alive between two)
  is closed to make room, so idle connections can never lock everybody out;
- the arbiters' share: spectators' requests and websockets may hold at most the cap
  less `arbiter_reserve` connections at once, and requests to the arbiter's side from
  nobody known yet (the login form, a 401) at most half the reserve, so whatever the
  crowd does the desk and the arbiter API find a connection (`ConnectionGuard.enter`,
  called by the app once it knows who asks: `web.app.gate`);
- parser errors (bad request line, over-long or duplicate headers, a bad Content-Length,
  an unknown HTTP version) answered with a plain message and the security headers, and
  logged one line a minute with a count;
- accept errors (out of file descriptors: EMFILE) logged one line a minute, not a
  traceback per attempt;
- no `Server` header.

`GuardedRunner` is an `AppRunner` serving the app through these; docs/security.md lists
the limits.
"""

from __future__ import annotations

import asyncio
import errno
import gc
import logging
import resource
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping, MutableMapping
from dataclasses import dataclass, field
from enum import Enum
from http import HTTPStatus
from typing import Any

from aiohttp import hdrs, web
from aiohttp.abc import AbstractStreamWriter
from aiohttp.http_parser import RawRequestMessage
from aiohttp.streams import StreamReader
from aiohttp.web_protocol import RequestHandler

from web.limits import QuietLog, TokenBucket, WebLimits
from web.proxy import ProxySettings

log = logging.getLogger(__name__)

SECURITY_HEADERS: Mapping[str, str] = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "X-Frame-Options": "DENY",
}

ACCEPT_FAILED = "socket.accept() out of system resource"
READ_CHUNK = 16 * 1024  # bytes read from a connection a time


def secure(headers: MutableMapping[str, str], csp: str) -> None:
    """The security headers every answer carries (unless the handler set its own)."""
    for name, value in SECURITY_HEADERS.items():
        headers.setdefault(name, value)
    headers.setdefault("Content-Security-Policy", csp)


GC_THRESHOLDS = (10_000, 50, 100)
_frozen = False


def tune_gc() -> None:
    """Fewer, later runs of the cyclic garbage collector, and what is alive once the
    server is up (modules, the config, the folded journal) moved out of its way for good.

    A crowd of connections allocates fast; with Python's default thresholds the full
    collections came several times a minute and held the loop for up to 0.7 s each,
    the boards included (bench/bench_hostile.py: 12 s of collections in a minute). For
    the `serve` process only: a test suite keeps the defaults."""
    global _frozen
    gc.set_threshold(*GC_THRESHOLDS)
    if not _frozen:
        gc.collect()
        gc.freeze()
        _frozen = True


def open_file_limit() -> int:
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


MAX_OPEN_FILES = 65_536
"""How far `raise_open_file_limit` goes even when the hard limit allows more: the cap of
connections follows the open-file limit, and past some 60,000 sockets memory (about
20 MB per 1,000 clients) is the limit, not files."""


def raise_open_file_limit(ceiling: int = MAX_OPEN_FILES) -> int:
    """The open-file soft limit raised to the hard limit (at most `ceiling`); the new
    soft limit. The usual soft limit of 1,024 would otherwise cap a venue at 896
    connections while the system allows far more (`LimitNOFILE=` raises the hard one)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = ceiling if hard == resource.RLIM_INFINITY else min(hard, ceiling)
    if soft != resource.RLIM_INFINITY and soft < want:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
        except (ValueError, OSError) as exc:  # a container may refuse: keep the soft one
            log.warning("could not raise the open-file limit from %d to %d: %s", soft, want, exc)
            return soft
        return want
    return soft


def default_max_connections(limit: int | None = None) -> int:
    """All connections together: the open-file limit less a reserve for the journal, the
    boards' serial ports, the workers and the export folder."""
    limit = open_file_limit() if limit is None else limit
    return max(16, limit - max(128, limit // 8))


def default_arbiter_reserve(max_connections: int) -> int:
    """The connections spectators cannot take: a sixteenth of the cap, from 8 to 64 (one
    to three arbiters, a browser's half-dozen connections and a websocket each, their
    scripts), never more than half the cap."""
    return min(max_connections // 2, max(8, min(64, max_connections // 16)))


STRANGER_PER_ADDRESS = 2  # strangers' requests in flight from one address


class Side(Enum):
    """Whose request a connection is serving, for the shares of the cap."""

    SPECTATOR = "spectator"  # a public request or websocket
    ARBITER = "arbiter"  # the arbiter's side, from a session, valid Basic or a trusted network
    STRANGER = "stranger"  # the arbiter's side from nobody known yet (login form, a 401)


@dataclass
class _Address:
    open: int
    new: TokenBucket


@dataclass
class ConnectionGuard:
    """Who may open a connection now, and whose requests may hold one. Pure bookkeeping;
    the clock is passed in."""

    limits: WebLimits
    proxy: ProxySettings
    max_connections: int
    now: Callable[[], float] = time.monotonic
    arbiter_reserve: int | None = None  # None: `default_arbiter_reserve`
    open: int = 0
    refused: int = 0  # connections refused (for tests and the bench)
    evicted: int = 0  # idle connections closed to make room
    refused_requests: dict[Side, int] = field(default_factory=lambda: dict.fromkeys(Side, 0))
    _addresses: dict[str, _Address] = field(default_factory=dict)
    # Connections with no request in flight (before their first, or kept alive between
    # two), longest idle first: closed first to make room at the cap.
    _idle: OrderedDict[GuardedHandler, None] = field(default_factory=OrderedDict)
    # Requests in flight (a websocket's lasts as long as it) by side, and strangers' by
    # address.
    _busy: dict[Side, int] = field(default_factory=lambda: dict.fromkeys(Side, 0))
    _strangers: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.arbiter_reserve is None:
            self.arbiter_reserve = default_arbiter_reserve(self.max_connections)
        if not 0 <= self.arbiter_reserve < self.max_connections:
            raise ValueError(
                f"the arbiters' reserve ({self.arbiter_reserve}) must be under the cap of "
                f"connections ({self.max_connections})"
            )

    def share(self, side: Side) -> int | None:
        """How many requests of `side` may be in flight at once (None: no limit)."""
        reserve = self.arbiter_reserve or 0
        if side is Side.SPECTATOR:
            return self.max_connections - reserve
        if side is Side.STRANGER and reserve:
            return max(1, reserve // 2)
        return None

    def in_flight(self, side: Side) -> int:
        return self._busy[side]

    def enter(self, side: Side, address: str = "") -> str | None:
        """None (a request of `side` from `address` counted in until `leave`) or why it is
        refused."""
        limit = self.share(side)
        if limit is not None and self._busy[side] >= limit:
            self.refused_requests[side] += 1
            return f"{self._busy[side]} {side.value}s' requests in flight (limit {limit})"
        if side is Side.STRANGER:
            # A login needs one request at a time: one address cannot take the strangers'
            # share alone.
            held = self._strangers.get(address, 0)
            if held >= STRANGER_PER_ADDRESS:
                self.refused_requests[side] += 1
                return f"{held} requests to the arbiter's side in flight from {address}"
            self._strangers[address] = held + 1
        self._busy[side] += 1
        return None

    def leave(self, side: Side, address: str = "") -> None:
        self._busy[side] -= 1
        if side is Side.STRANGER:
            held = self._strangers.pop(address, 0) - 1
            if held > 0:
                self._strangers[address] = held

    def admit(self, address: str) -> str | None:
        """None (counted in) or why the connection is refused."""
        if self.open >= self.max_connections and not self._evict_one():
            self.refused += 1
            return f"{self.open} connections open (limit {self.max_connections})"
        if self.proxy.trusts(address):
            self.open += 1
            return None
        entry = self._addresses.get(address)
        if entry is None:
            entry = self._addresses[address] = _Address(
                0,
                TokenBucket(
                    self.limits.new_per_address_rate, self.limits.new_per_address_burst, self.now
                ),
            )
        if entry.open >= self.limits.per_address:
            self.refused += 1
            return f"{entry.open} connections open from {address} (limit {self.limits.per_address})"
        if not entry.new.take():
            self.refused += 1
            return f"too many new connections from {address}"
        entry.open += 1
        self.open += 1
        return None

    def release(self, address: str, handler: GuardedHandler) -> None:
        self._idle.pop(handler, None)
        self.open -= 1
        entry = self._addresses.get(address)
        if entry is None:
            return
        entry.open -= 1
        if entry.open <= 0 and entry.new.full:
            del self._addresses[address]  # forget it: the table stays as small as the crowd

    def waiting(self, handler: GuardedHandler) -> None:
        """`handler`'s connection waits for a request (it may be closed to make room)."""
        self._idle[handler] = None
        self._idle.move_to_end(handler)

    def started(self, handler: GuardedHandler) -> None:
        self._idle.pop(handler, None)

    def _evict_one(self) -> bool:
        if not self._idle:
            return False
        oldest, _ = self._idle.popitem(last=False)
        self.evicted += 1
        oldest.drop("closed to make room: idle at the cap of connections")
        return True


def guard_of(request: web.BaseRequest) -> ConnectionGuard | None:
    """The guard of the connection `request` came on (None: not served by a `GuardedRunner`,
    e.g. aiohttp's test server)."""
    protocol = request.protocol
    return protocol.guard if isinstance(protocol, GuardedHandler) else None


def refused_request(request: web.BaseRequest, why: str) -> None:
    """Log (one line a minute, with a count) a request refused for its side's share."""
    protocol = request.protocol
    if isinstance(protocol, GuardedHandler):
        protocol.quiet.connections.warning(
            f"refused a request from {request.remote or 'unknown'}: {why}"
        )


def refusal(csp: str) -> bytes:
    """The whole answer to a connection refused at the door (written before closing)."""
    body = b'{"error": "too many connections: try again in a while"}'
    headers = {
        "Content-Type": "application/json; charset=utf-8",
        "Content-Length": str(len(body)),
        "Retry-After": "10",
        "Connection": "close",
        **SECURITY_HEADERS,
        "Content-Security-Policy": csp,
    }
    head = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
    return f"HTTP/1.1 503 Service Unavailable\r\n{head}\r\n".encode("latin-1") + body


class _Bare(web.Response):
    """A response without aiohttp's `Server` header (for answers made outside the app,
    whose `on_response_prepare` hook does not run)."""

    async def _prepare_headers(self) -> None:
        await super()._prepare_headers()
        self.headers.popall(hdrs.SERVER, None)


class GuardedHandler(RequestHandler):
    """aiohttp's protocol for one connection, with the header timeout, the connection
    limits and quiet, headed parser errors."""

    def __init__(self, manager: GuardedServer, **kwargs: Any) -> None:
        super().__init__(manager, **kwargs)
        self.guard = manager.guard
        self.header_timeout = manager.limits.header_timeout
        self.quiet = manager.quiet
        self.csp = manager.csp
        self.refused_answer = manager.refused_answer
        self._address: str | None = None
        self._header_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        peer = transport.get_extra_info("peername")
        address = str(peer[0]) if isinstance(peer, tuple) and peer else "unknown"
        refusal = self.guard.admit(address)
        if refusal is not None:
            self.quiet.connections.warning(f"refused a connection: {refusal}")
            if isinstance(transport, asyncio.WriteTransport):
                transport.write(self.refused_answer)
            transport.close()
            return
        self._address = address
        if hasattr(transport, "max_size"):
            # asyncio reads up to 256 KiB a time, and aiohttp parses all of it in one go: a
            # client streaming tiny websocket frames made one read cost a tenth of a second.
            transport.max_size = READ_CHUNK
        super().connection_made(transport)
        self.guard.waiting(self)
        self._header_timer = asyncio.get_running_loop().call_later(
            self.header_timeout, self.drop, "no complete request headers in time"
        )

    def request_started(self) -> None:
        """A request's headers are in: the connection is busy, and the header timeout no
        longer applies (idle keep-alive connections are aiohttp's keepalive_timeout's)."""
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None
        self.guard.started(self)

    def request_done(self) -> None:
        """The handler answered: until the next request the connection is idle again.
        (An answer still being written to a client that does not read counts as idle: at
        the cap it is closed before anyone is refused.)"""
        if self._address is not None and not self._force_close:
            self.guard.waiting(self)

    def drop(self, why: str) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None
        self.guard.started(self)
        self.quiet.timeouts.warning(f"closed a connection from {self._address}: {why}")
        self.force_close()

    def connection_lost(self, exc: BaseException | None) -> None:
        if self._address is None:  # refused: aiohttp never saw it
            return
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None
        self.guard.release(self._address, self)
        self._address = None
        super().connection_lost(exc)
        # A websocket leaves its `_on_data_received` here, and the socket's response holds
        # its request, which holds this protocol: a cycle that kept every closed websocket
        # (and the messages still queued on it) alive until a full collection, which the
        # tuned collector runs rarely (bench_hostile: 300 MB, and pauses of half a second).
        self._data_received_cb = None

    def handle_error(
        self,
        request: Any,
        status: int = 500,
        exc: BaseException | None = None,
        message: str | None = None,
    ) -> web.StreamResponse:
        if status == HTTPStatus.INTERNAL_SERVER_ERROR:
            response = super().handle_error(request, status, exc, message)
            secure(response.headers, self.csp)
            return response
        reason = type(exc).__name__ if exc is not None else f"status {status}"
        self.quiet.parser.warning(
            f"could not read an HTTP request from {request.remote or 'unknown'} ({reason})"
        )
        try:
            phrase = HTTPStatus(status).phrase
        except ValueError:
            phrase = "Error"
        # A plain message of our own: the parser's message quotes the raw request bytes.
        text = f"{status} {phrase}: the request could not be read.\n"
        answer = _Bare(status=status, text=text, content_type="text/plain")
        secure(answer.headers, self.csp)
        answer.force_close()
        return answer


@dataclass
class Quiet:
    """The rate-limited log lines of the server (one a minute each, with counts)."""

    every: float
    parser: QuietLog = field(init=False)
    connections: QuietLog = field(init=False)
    timeouts: QuietLog = field(init=False)
    accept: QuietLog = field(init=False)

    def __post_init__(self) -> None:
        self.parser = QuietLog(self.every, logger=log)
        self.connections = QuietLog(self.every, logger=log)
        self.timeouts = QuietLog(self.every, logger=log)
        self.accept = QuietLog(self.every, logger=log)


class GuardedServer(web.Server):
    """aiohttp's `Server` making `GuardedHandler`s."""

    def __init__(
        self,
        handler: Any,
        *,
        limits: WebLimits,
        guard: ConnectionGuard,
        quiet: Quiet,
        csp: str,
        request_factory: Any,
        **kwargs: Any,
    ) -> None:
        self.limits = limits
        self.guard = guard
        self.quiet = quiet
        self.csp = csp
        self.refused_answer = refusal(csp)

        def factory(
            message: RawRequestMessage,
            payload: StreamReader,
            protocol: RequestHandler,
            writer: AbstractStreamWriter,
            task: asyncio.Task[None],
        ) -> web.BaseRequest:
            if isinstance(protocol, GuardedHandler):
                protocol.request_started()
            request: web.BaseRequest = request_factory(message, payload, protocol, writer, task)
            return request

        async def handle(request: web.BaseRequest) -> web.StreamResponse:
            try:
                response: web.StreamResponse = await handler(request)
                return response
            finally:
                if isinstance(request.protocol, GuardedHandler):
                    request.protocol.request_done()

        super().__init__(handle, request_factory=factory, **kwargs)

    def __call__(self) -> RequestHandler:
        return GuardedHandler(self, loop=self._loop, **self._kwargs)


class GuardedRunner(web.AppRunner):
    """An `AppRunner` whose connections go through `GuardedServer`."""

    def __init__(
        self,
        app: web.Application,
        *,
        limits: WebLimits,
        proxy: ProxySettings,
        csp: str,
        **kwargs: Any,
    ) -> None:
        kwargs.setdefault("keepalive_timeout", limits.keepalive_timeout)
        super().__init__(app, **kwargs)
        self.limits = limits
        self.quiet = Quiet(limits.log_every)
        self.guard = ConnectionGuard(
            limits,
            proxy,
            limits.max_connections or default_max_connections(),
            arbiter_reserve=limits.arbiter_reserve,
        )
        self.csp = csp
        self._previous_handler: Any = None
        self._loop: asyncio.AbstractEventLoop | None = None

    async def _make_server(self) -> web.Server:
        plain = await super()._make_server()  # the app started, aiohttp's own settings
        loop = asyncio.get_running_loop()
        self._quiet_accept_errors(loop)
        return GuardedServer(
            plain.request_handler,
            limits=self.limits,
            guard=self.guard,
            quiet=self.quiet,
            csp=self.csp,
            request_factory=plain.request_factory,
            handler_cancellation=plain.handler_cancellation,
            loop=loop,
            **plain._kwargs,
        )

    def _quiet_accept_errors(self, loop: asyncio.AbstractEventLoop) -> None:
        previous = loop.get_exception_handler()
        self._previous_handler, self._loop = previous, loop
        quiet = self.quiet.accept

        def handler(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
            if context.get("message") == ACCEPT_FAILED:
                exc = context.get("exception")
                code = errno.errorcode.get(getattr(exc, "errno", 0) or 0, "?")
                quiet.warning(
                    f"cannot accept connections: {code} ({exc}); open-file limit "
                    f"{open_file_limit()}, {self.guard.open} web connections open"
                )
                return
            if previous is not None:
                previous(loop, context)
            else:
                loop.default_exception_handler(context)

        loop.set_exception_handler(handler)

    async def _cleanup_server(self) -> None:
        await super()._cleanup_server()
        if self._loop is not None:
            self._loop.set_exception_handler(self._previous_handler)
            self._loop = None


__all__ = [
    "ACCEPT_FAILED",
    "GC_THRESHOLDS",
    "MAX_OPEN_FILES",
    "READ_CHUNK",
    "SECURITY_HEADERS",
    "STRANGER_PER_ADDRESS",
    "ConnectionGuard",
    "GuardedHandler",
    "GuardedRunner",
    "GuardedServer",
    "Quiet",
    "Side",
    "default_arbiter_reserve",
    "default_max_connections",
    "guard_of",
    "open_file_limit",
    "raise_open_file_limit",
    "refusal",
    "refused_request",
    "secure",
    "tune_gc",
]
