"""The aiohttp application: one port for pages, JSON, PGN feeds and websockets.

`build_app(service, credentials)` assembles the routes of `routes_public` (delayed state
only) and `routes_arbiter` (live, logged in), the hub and the OpenAPI document;
`start_web(...)` serves it. Malformed requests get a 4xx with a message; an unexpected
error is logged and answered with a bare 500 (no traceback, no state, no secret).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path
from urllib.parse import quote

from aiohttp import web

from broadcast.health import SYSTEM_PREFIX, Health
from broadcast.service import EventService
from web import openapi, routes_arbiter, routes_public
from web.auth import Auth
from web.common import AUTH, DESK, HUB, SERVICE, error, json_response
from web.desk import Desk
from web.hub import Hub
from web.proxy import PROXY, ProxySettings, forwarded

log = logging.getLogger(__name__)

STATIC = Path(__file__).parent / "static"

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def _csp(public_origin: str | None) -> str:
    # Scripts and styles from this server only (no inline script anywhere), sockets to it.
    # CSP 3's 'self' covers ws:/wss: to this origin; nothing from the request (the Host
    # header is the client's to choose) is ever echoed into the policy.
    sockets = ""
    if public_origin is not None:
        sockets = " " + public_origin.replace("https://", "wss://").replace("http://", "ws://")
    return (
        "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
        f"connect-src 'self'{sockets}; frame-ancestors 'none'; "
        "base-uri 'none'; form-action 'self'"
    )


def _secure(headers: MutableMapping[str, str], csp: str) -> None:
    headers.setdefault("X-Content-Type-Options", "nosniff")
    headers.setdefault("Referrer-Policy", "same-origin")
    headers.setdefault("X-Frame-Options", "DENY")
    headers.setdefault("Content-Security-Policy", csp)


_NOT_DURABLE_OK = ("/arbiter/login", "/arbiter/logout")


async def _system_ack(request: web.Request) -> bool:
    """Acknowledging a system alert writes nothing, so it works during a journal outage."""
    if request.path.startswith(f"/api/v1/arbiter/alerts/{SYSTEM_PREFIX}"):
        return True
    if request.path == "/arbiter/act/ack":
        alert = (await request.post()).get("alert")
        return isinstance(alert, str) and alert.startswith(SYSTEM_PREFIX)
    return False


@web.middleware
async def durable(request: web.Request, handler: Handler) -> web.StreamResponse:
    """While the journal cannot be written, refuse arbiter actions (503) instead of
    acknowledging what a restart could lose; every read keeps working."""
    failure = request.app[SERVICE].journal.failure
    if (
        failure is not None
        and request.method not in ("GET", "HEAD", "OPTIONS")
        and (request.path.startswith(("/arbiter", "/api/v1/arbiter")))
        and request.path not in _NOT_DURABLE_OK
        and not await _system_ack(request)
    ):
        if request.path.startswith("/arbiter/act/"):  # a desk form: back to the desk, said why
            raise web.HTTPSeeOther("/arbiter?m=" + quote(f"Not done: {failure.message}"))
        response = error(503, f"not done: {failure.message}")
        response.headers["Retry-After"] = "10"
        return response
    return await handler(request)


@web.middleware
async def safety(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Security headers on every answer (error pages too); JSON errors under /api; no 500
    leaks detail."""
    settings = request.app.get(PROXY)
    csp = _csp(settings.public_origin if settings else None)
    try:
        response = await handler(request)
    except web.HTTPException as exc:
        if (
            request.path.startswith("/api/")
            and exc.status >= 400
            and exc.content_type != "application/json"
        ):
            response = error(exc.status, exc.reason)
            response.headers.update({k: v for k, v in exc.headers.items() if k == "Allow"})
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
    return response


async def openapi_route(request: web.Request) -> web.Response:
    return json_response(openapi.document())


def build_app(
    service: EventService,
    credentials: tuple[str, str] | None,
    proxy: ProxySettings | None = None,
    health: Health | None = None,
) -> web.Application:
    """The application for `service`; `credentials` (user, password) enable the desk;
    `proxy` names the trusted reverse proxies and the public origin (see `web.proxy`);
    `health` carries system alerts (the journal, the export folder, a failed task); by
    default the service's own."""
    app = web.Application(
        middlewares=[forwarded, safety, routes_arbiter.arbiter_guard, durable],
        client_max_size=1024 * 1024,
    )
    app[PROXY] = proxy or ProxySettings()
    app[SERVICE] = service
    app[AUTH] = Auth(credentials)
    app[DESK] = desk = Desk(service, health)
    app[HUB] = Hub(service, alerts=desk.alerts)
    app.router.add_get("/api/v1/openapi.json", openapi_route)
    app.add_routes(routes_public.routes)
    app.add_routes(routes_arbiter.routes)
    app.router.add_static("/static/", STATIC, append_version=False)

    async def start_hub(app: web.Application) -> None:
        app[HUB].attach()

    async def stop_hub(app: web.Application) -> None:
        await app[HUB].close()

    app.on_startup.append(start_hub)
    app.on_shutdown.append(stop_hub)
    return app


async def start_web(
    service: EventService,
    *,
    host: str,
    port: int,
    credentials: tuple[str, str] | None,
    proxy: ProxySettings | None = None,
    health: Health | None = None,
) -> web.AppRunner:
    """Serve the event on host:port until the runner is cleaned up."""
    runner = web.AppRunner(build_app(service, credentials, proxy, health), access_log=None)
    await runner.setup()
    await web.TCPSite(runner, host, port).start()
    return runner
