"""The aiohttp application: one port for pages, JSON, PGN feeds and websockets.

`build_app(service, credentials)` assembles the routes of `routes_public` (delayed state
only) and `web.arbiter` (live, logged in), the hub and the OpenAPI document;
`start_web(...)` serves it. Malformed requests get a 4xx with a message; an unexpected
error is logged and answered with a bare 500 (no traceback, no state, no secret).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from pathlib import Path
from urllib.parse import quote

from aiohttp import hdrs, web

from broadcast.analysis.evaluator import Evaluator
from broadcast.service.event_service import EventService, NotDurable
from broadcast.service.health import SYSTEM_PREFIX, Health
from web import http_server as server
from web import i18n, openapi, routes_public, routes_teams
from web.answers import Answers
from web.arbiter import api, desk, hall, login
from web.arbiter import teams as arbiter_teams
from web.arbiter.actions import DESK, Desk
from web.arbiter.guard import arbiter_guard, side
from web.auth import Auth
from web.board_png import Previews, cache_size
from web.captains import page as captains
from web.checkin import page as checkin
from web.commentary import page as commentary
from web.http_json import error, json_response
from web.http_server import GuardedRunner, secure
from web.hub import Hub
from web.keys import ANSWERS, AUTH, EVALS, HUB, LANG, PREVIEWS, PUBLIC, SERVICE
from web.limits import MIRROR_LOOP_SHARE, Busy, LoopBudget, WebLimits
from web.print import routes as print_routes
from web.proxy import PROXY, ProxySettings, forwarded
from web.public_source import PublicSource

log = logging.getLogger(__name__)

STATIC = Path(__file__).parent / "static"

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def _csp(public_origin: str | None, framers: tuple[str, ...] | None = None) -> str:
    # Scripts and styles from this server only (no inline script anywhere), sockets to it.
    # CSP 3's 'self' covers ws:/wss: to this origin; nothing from the request (the Host
    # header is the client's to choose) is ever echoed into the policy. `framers`: the
    # origins that may frame this answer (the embeds: the event's `embed_origins`); no
    # other page may be framed at all.
    sockets = ""
    if public_origin is not None:
        sockets = " " + public_origin.replace("https://", "wss://").replace("http://", "ws://")
    ancestors = "'none'" if framers is None else " ".join(("'self'", *framers))
    return (
        "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
        f"connect-src 'self'{sockets}; frame-ancestors {ancestors}; "
        "base-uri 'none'; form-action 'self'"
    )


EMBEDS = "/embed/"


def _secure(headers: MutableMapping[str, str], csp: str) -> None:
    secure(headers, csp)


_NOT_DURABLE_OK = ("/arbiter/login", "/arbiter/logout")


async def _system_ack(request: web.Request) -> bool:
    """Acknowledging a system alert writes nothing, so it works during a journal outage."""
    if request.path.startswith(f"/api/v1/arbiter/alerts/{SYSTEM_PREFIX}"):
        return True
    if request.path == "/arbiter/act/ack":
        alert = (await request.post()).get("alert")
        return isinstance(alert, str) and alert.startswith(SYSTEM_PREFIX)
    return False


def _not_done(request: web.Request, message: str) -> web.StreamResponse:
    if request.path.startswith("/arbiter/act/"):  # a desk form: back to the desk, said why
        raise web.HTTPSeeOther("/arbiter?m=" + quote(f"Not done: {message}"))
    response = error(503, f"not done: {message}")
    response.headers["Retry-After"] = "10"
    return response


@web.middleware
async def durable(request: web.Request, handler: Handler) -> web.StreamResponse:
    """While the journal cannot take an action durably (a full disk, its file deleted),
    refuse arbiter actions (503) instead of acknowledging what a restart could lose; an
    action that meets the problem itself (NotDurable: nothing of it was applied) gets the
    same answer. Every read keeps working."""
    problem = request.app[SERVICE].journal.problem
    if (
        problem is not None
        and request.method not in ("GET", "HEAD", "OPTIONS")
        and (request.path.startswith(("/arbiter", "/api/v1/arbiter")))
        and request.path not in _NOT_DURABLE_OK
        and not await _system_ack(request)
    ):
        return _not_done(request, problem.message)
    try:
        return await handler(request)
    except NotDurable as exc:
        return _not_done(request, str(exc))


@web.middleware
async def safety(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Security headers on every answer (error pages too); JSON errors under /api; no 500
    leaks detail."""
    settings = request.app.get(PROXY)
    embed = request.path.startswith(EMBEDS)
    framers = request.app[PUBLIC].config.embed_origins if embed else None
    csp = _csp(settings.public_origin if settings else None, framers)
    try:
        response = await handler(request)
    except web.HTTPException as exc:
        if exc.status == 404:
            # The router keeps its 404 in the request's match info, and the traceback's
            # frames hold the request: a reference cycle per unknown URL, freed only by a
            # full collection (which the serving process runs rarely). Answered here: the
            # traceback is not needed.
            exc.__traceback__ = None
        if (
            request.path.startswith("/api/")
            and exc.status >= 400
            and exc.content_type != "application/json"
        ):
            response = error(exc.status, exc.reason)
            response.headers.update({k: v for k, v in exc.headers.items() if k == "Allow"})
        elif exc.status == 404 and not request.path.startswith("/api/"):  # branded, a way back
            response = routes_public.not_found_page(request)
        else:
            _secure(exc.headers, csp)
            raise
    except RecursionError:
        # A body nested thousands deep (json's parser recurses): the client's fault.
        response = error(400, "the body is nested too deeply")
    except Exception:
        log.exception("unexpected error on %s %s", request.method, request.path)
        response = error(500, "internal error (logged on the server)")
    if not response.prepared:
        _secure(response.headers, csp)
        if embed:  # frame-ancestors says who may frame it; DENY would refuse them all
            response.headers.popall("X-Frame-Options", None)
    return response


@web.middleware
async def language(request: web.Request, handler: Handler) -> web.StreamResponse:
    """The language of the answer (`web.i18n.choose`: the switcher's `?lang=`, its cookie,
    the browser's `Accept-Language`, English). A `?lang=` is remembered in a cookie, so the
    reader's next pages follow it."""
    asked = request.query.get("lang")
    remembered = request.cookies.get(i18n.COOKIE)
    request[LANG] = lang = i18n.choose(asked, remembered, request.headers.get("Accept-Language"))
    response = await handler(request)
    if asked == lang and remembered != lang and not response.prepared:
        response.set_cookie(
            i18n.COOKIE, lang, max_age=365 * 24 * 3600, path="/", samesite="Lax", httponly=True
        )
    return response


BUDGET = web.AppKey("budget", LoopBudget)
LIMITS = web.AppKey("limits", WebLimits)


def _spectators(request: web.Request) -> bool:
    """Requests that share the web's part of the loop: everything but the arbiters' (never
    held up by a crowd) and the websocket (the hub meters its messages itself)."""
    path = request.path
    return not (path.startswith(("/arbiter", "/api/v1/arbiter")) or path in ("/ws",))


@web.middleware
async def gate(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Each request holds its connection within its side's share (`web.http_server`:
    spectators never take the arbiters' reserve); spectators' requests wait their turn for
    the web's share of the event loop (the boards, the journal and the rules come first);
    a request body must arrive in time."""
    guard = server.guard_of(request)
    if guard is None:  # not behind a GuardedRunner (aiohttp's test server)
        return await _gated(request, handler)
    whose, address = side(request), request.remote or "unknown"
    refused = guard.enter(whose, address)
    if refused is not None:
        server.refused_request(request, refused)
        response = error(503, "too many connections: try again in a while")
        response.headers["Retry-After"] = "10"
        response.force_close()
        return response
    try:
        return await _gated(request, handler)
    finally:
        guard.leave(whose, address)


async def _gated(request: web.Request, handler: Handler) -> web.StreamResponse:
    if request.body_exists and request.method not in ("GET", "HEAD", "OPTIONS"):
        try:
            async with asyncio.timeout(request.app[LIMITS].body_timeout):
                await request.read()
        except TimeoutError:
            return error(408, "the request body did not arrive in time")
        except ConnectionResetError:  # the client left half-way: its fault, no traceback
            response = error(400, "the request body was cut off")
            response.force_close()
            return response
    if not _spectators(request):
        return await handler(request)
    try:
        return await request.app[BUDGET].run(lambda: handler(request))
    except Busy:
        response = error(503, "the server is busy: try again in a few seconds")
        response.headers["Retry-After"] = "5"
        return response


async def _no_server_header(request: web.Request, response: web.StreamResponse) -> None:
    # aiohttp names itself and its version in `Server`: nobody needs to know.
    response.headers.popall(hdrs.SERVER, None)


async def openapi_route(request: web.Request) -> web.Response:
    return json_response(openapi.document())


# -- the app's parts, each started and closed on its own -------------------------------------------
#
# One cleanup context per part: aiohttp runs every context's exit even when another's
# raises (and raises the errors together after), so a hub that fails to close never
# leaves the answers' or the previews' threads, or a pairing process, behind.


async def _hub_part(app: web.Application) -> AsyncIterator[None]:
    """The live hub follows the service's commits while the app runs (a mirror's hub is
    driven by its feed: nothing to attach)."""
    if SERVICE in app:
        app[HUB].attach()
    yield
    await app[HUB].close()  # again after `_close_sockets`: closing twice is nothing


async def _close_sockets(app: web.Application) -> None:
    """The spectators' and the desk's websockets are closed at shutdown, before aiohttp
    waits for the requests still running (aiohttp's advice for long-lived connections: a
    websocket left open holds the shutdown for its whole timeout). Logged, never raised:
    a failure here would skip every cleanup context."""
    try:
        await app[HUB].close()
    except Exception:
        log.exception("the web hub failed to close at shutdown")


async def _answers_part(app: web.Application) -> AsyncIterator[None]:
    yield
    app[ANSWERS].close()


async def _previews_part(app: web.Application) -> AsyncIterator[None]:
    yield
    app[PREVIEWS].close()


async def _pairer_part(app: web.Application) -> AsyncIterator[None]:
    """The service's pairing worker: a round still being paired when the server stops is
    stopped with it."""
    yield
    app[SERVICE].pairer.close()


def _close_each_part(app: web.Application) -> None:
    app.on_shutdown.append(_close_sockets)
    app.cleanup_ctx.extend([_hub_part, _answers_part, _previews_part])


def build_app(
    service: EventService,
    credentials: tuple[str, str] | None,
    proxy: ProxySettings | None = None,
    health: Health | None = None,
    limits: WebLimits | None = None,
    evals: Evaluator | None = None,
    commentator: tuple[str, str] | None = None,
) -> web.Application:
    """The application for `service`; `credentials` (user, password) enable the desk;
    `commentator` (user, password) the commentators' live channel (`web.commentary`);
    `proxy` names the trusted reverse proxies and the public origin (see `web.proxy`);
    `health` carries system alerts (the journal, the export folder, a failed task); by
    default the service's own; `limits` what clients may ask (see `web.limits`);
    `evals` the engine's evaluations of public positions (`--eval`), if any."""
    limits = limits or WebLimits()
    app = web.Application(
        middlewares=[forwarded, language, safety, gate, arbiter_guard, durable],
        client_max_size=1024 * 1024,
    )
    app[PROXY] = proxy or ProxySettings()
    app[SERVICE] = service
    app[PUBLIC] = service.public_view  # every public route: the delayed view only
    app[LIMITS] = limits
    app[BUDGET] = budget = LoopBudget(limits.loop_share, limits.loop_burst)
    app[AUTH] = Auth(credentials, arbiter_networks=app[PROXY].arbiters, commentator=commentator)
    app[DESK] = arbiter_desk = Desk(service, health)
    if evals is not None:
        app[EVALS] = evals
    app[HUB] = Hub(
        service, alerts=arbiter_desk.alerts, limits=limits.hub, budget=budget, evals=evals
    )
    app[ANSWERS] = Answers(service.public_view)
    app[PREVIEWS] = Previews(cache_size(service.config), charge=budget.charge)
    app.on_response_prepare.append(_no_server_header)
    app.router.add_get("/api/v1/openapi.json", openapi_route)
    app.add_routes(routes_public.routes)
    app.add_routes(routes_teams.routes)  # a team section's (web.routes_teams)
    app.add_routes(print_routes.public_routes)  # the printed sheets (web.print)
    for arbiter_routes in (
        login.routes,
        desk.routes,
        api.routes,
        hall.routes,
        arbiter_teams.routes,  # a team section's lineups and matches
    ):
        app.add_routes(arbiter_routes)
    app.add_routes(print_routes.arbiter_routes)  # the same sheets, live, at the desk
    checkin.setup(app)  # the players' table pages /t/N and the round codes (web.checkin)
    captains.setup(app)  # the team captains' lineup pages /captain/S/T (web.captains)
    # The commentators' live channel /commentary (web.commentary): the venue's app only,
    # never a mirror's (build_mirror_app has no such route).
    commentary.setup(app, service, budget=budget, limits=limits.hub)
    app.router.add_static("/static/", STATIC, append_version=False)

    _close_each_part(app)
    app.cleanup_ctx.append(_pairer_part)
    return app


def build_mirror_app(
    source: PublicSource,
    proxy: ProxySettings | None = None,
    limits: WebLimits | None = None,
    evals: Evaluator | None = None,
) -> web.Application:
    """The public half of `build_app` for a mirror (`boardwire mirror`): the same public
    pages, JSON API, PGN feeds and websocket, from `source` (the venue's public stream);
    no desk, no arbiter API. Its hub relays the venue's deltas (`Hub.relay_delta`), and
    adds the evaluations of this mirror's own engine (`evals`, `mirror --eval`)."""
    limits = limits or WebLimits()
    app = web.Application(
        middlewares=[forwarded, language, safety, gate], client_max_size=1024 * 1024
    )
    app[PROXY] = proxy or ProxySettings()
    app[PUBLIC] = source
    app[LIMITS] = limits
    app[BUDGET] = budget = LoopBudget(limits.loop_share, limits.loop_burst)
    if evals is not None:
        app[EVALS] = evals
    app[HUB] = Hub(source, limits=limits.hub, budget=budget, relay=True, evals=evals)
    app[ANSWERS] = Answers(source)
    app[PREVIEWS] = Previews(cache_size(source.config), charge=budget.charge)
    app.on_response_prepare.append(_no_server_header)
    app.router.add_get("/api/v1/openapi.json", openapi_route)
    app.add_routes(routes_public.routes)
    app.add_routes(routes_teams.routes)  # a team section's (web.routes_teams)
    app.add_routes(print_routes.public_routes)  # the printed sheets (web.print)
    app.router.add_static("/static/", STATIC, append_version=False)

    _close_each_part(app)
    return app


async def start_mirror_web(
    source: PublicSource,
    *,
    host: str,
    port: int,
    proxy: ProxySettings | None = None,
    limits: WebLimits | None = None,
    evals: Evaluator | None = None,
) -> web.AppRunner:
    """Serve a mirror's public routes on host:port (see `build_mirror_app`). Its web has
    most of the loop (`MIRROR_LOOP_SHARE`): a mirror has no boards to keep up with."""
    # No arbiters here: no connections kept for them.
    limits = limits or WebLimits(loop_share=MIRROR_LOOP_SHARE, arbiter_reserve=0)
    proxy = proxy or ProxySettings()
    server.raise_open_file_limit()  # the cap of connections is sized from it
    runner = GuardedRunner(
        build_mirror_app(source, proxy, limits, evals),
        limits=limits,
        proxy=proxy,
        csp=_csp(proxy.public_origin),
        access_log=None,
    )
    await runner.setup()
    await web.TCPSite(runner, host, port).start()
    return runner


async def start_web(
    service: EventService,
    *,
    host: str,
    port: int,
    credentials: tuple[str, str] | None,
    proxy: ProxySettings | None = None,
    health: Health | None = None,
    limits: WebLimits | None = None,
    tune_gc: bool = False,
    evals: Evaluator | None = None,
    commentator: tuple[str, str] | None = None,
) -> web.AppRunner:
    """Serve the event on host:port until the runner is cleaned up (through
    `web.http_server`: header timeout, connection limits, quiet parser errors). `tune_gc`:
    for the process that serves the event (`web.http_server.tune_gc`; its open-file limit
    is raised too, and the cap of connections sized from it)."""
    limits = limits or WebLimits()
    proxy = proxy or ProxySettings()
    if tune_gc:
        server.raise_open_file_limit()
    runner = GuardedRunner(
        build_app(service, credentials, proxy, health, limits, evals, commentator),
        limits=limits,
        proxy=proxy,
        csp=_csp(proxy.public_origin),
        access_log=None,
    )
    await runner.setup()
    await web.TCPSite(runner, host, port).start()
    if tune_gc:
        server.tune_gc()
    return runner


__all__ = [
    "BUDGET",
    "EMBEDS",
    "LIMITS",
    "STATIC",
    "Handler",
    "build_app",
    "build_mirror_app",
    "durable",
    "gate",
    "language",
    "openapi_route",
    "safety",
    "start_mirror_web",
    "start_web",
]
