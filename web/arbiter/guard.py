"""Who may enter the arbiter's side: the middleware in front of /arbiter and /api/v1/arbiter.

The desk (HTML forms, its websocket) takes a session cookie and, on every POST, the
session's CSRF token from the same origin; the JSON API takes the session with an
`X-CSRF-Token` header, or HTTP Basic with a JSON body, which no cross-site form can send,
or with none (confirm, acknowledge) from no other site's page. The login form is open to everybody; a 405 is answered whoever asks.
Every answer of the arbiter's side is `Cache-Control: no-store`: it carries the live
state the broadcast delay still hides, and the desk's CSRF token.

`side` tells the connection guard (`web.http_server`) whose request this is before its
body is read: the arbiter's (an open session, a remembered desk browser, the arbiters'
networks, valid Basic credentials) or a stranger's (the login form, a wrong password).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from aiohttp import web
from multidict import MultiDictProxy

from web.auth import Session, csrf_ok, same_origin
from web.http_json import error
from web.http_server import Side
from web.keys import ARBITER, AUTH, lang_of, service_of
from web.pages import ENV

__all__ = ["FORM", "SESSION", "acting", "arbiter_guard", "arbiter_path", "desk_html", "side"]

SESSION = web.RequestKey("session", Session)
FORM = web.RequestKey("form", MultiDictProxy)


@dataclass(frozen=True)
class _Basic:
    user: str | None  # the user of valid Basic credentials (None: wrong)


_BASIC = web.RequestKey("basic_checked", _Basic)

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def acting(request: web.Request) -> str:
    """Who acts, as the journal records it: `arbiter:<user>`."""
    return f"arbiter:{request[ARBITER]}"


def arbiter_path(path: str) -> bool:
    """A path of the arbiter's side (the desk, its login, the arbiter API)."""
    return path.startswith(("/arbiter", "/api/v1/arbiter"))


def side(request: web.Request) -> Side:
    """Whose request this is, for the shares of the connections (`web.http_server`): read
    from its headers only, before its body. Valid Basic credentials are checked here, once
    for the request (a counted password check, as in the guard below)."""
    if not arbiter_path(request.path):
        return Side.SPECTATOR
    auth = request.app.get(AUTH)
    if auth is None or not auth.enabled:
        return Side.STRANGER  # a mirror (no arbiter's side), or answered 403 at once
    caller = auth.caller(request)
    if caller.session or caller.device is not None or auth.trusted(caller.address):
        return Side.ARBITER
    if request.path.startswith("/api/v1/arbiter") and request.headers.get(
        "Authorization", ""
    ).startswith("Basic "):
        return Side.ARBITER if _basic_user(request) is not None else Side.STRANGER
    return Side.STRANGER


def _basic_user(request: web.Request) -> str | None:
    """`Auth.basic_user`, checked (and counted) once however often it is asked."""
    checked = request.get(_BASIC)
    if checked is None:
        checked = request[_BASIC] = _Basic(request.app[AUTH].basic_user(request))
    return checked.user


@web.middleware
async def arbiter_guard(request: web.Request, handler: Handler) -> web.StreamResponse:
    path = request.path
    if not arbiter_path(path):
        return await handler(request)
    try:
        response = await _guarded(request, handler)
    except web.HTTPException as exc:  # redirects and errors are answers too
        exc.headers["Cache-Control"] = "no-store"
        raise
    if not response.prepared:  # a websocket's upgrade is written already
        response.headers["Cache-Control"] = "no-store"
    return response


async def _guarded(request: web.Request, handler: Handler) -> web.StreamResponse:
    path = request.path
    if isinstance(request.match_info.http_exception, web.HTTPMethodNotAllowed):
        return await handler(request)  # 405 with Allow, whoever asks (TRACE, ...)
    if path.startswith("/api/v1/arbiter"):
        return await _guard_api(request, handler)
    if path == "/arbiter" or (path.startswith("/arbiter/") and path != "/arbiter/login"):
        return await _guard_desk(request, handler)
    return await handler(request)


async def _guard_api(request: web.Request, handler: Handler) -> web.StreamResponse:
    auth = request.app[AUTH]
    if not auth.enabled:
        return error(
            403, "the arbiter API is disabled: start boardwire with BOARDWIRE_ARBITER_PASSWORD set"
        )
    session = auth.session(request)
    unsafe = request.method not in ("GET", "HEAD", "OPTIONS")
    if session is not None:
        if unsafe and not (
            same_origin(request) and csrf_ok(session, request.headers.get("X-CSRF-Token"))
        ):
            return error(403, "missing or wrong X-CSRF-Token header")
        request[ARBITER] = session.user
        return await handler(request)
    user = _basic_user(request)
    if user is None:
        response = error(401, "arbiter login required")
        response.headers["WWW-Authenticate"] = 'Basic realm="boardwire arbiter"'
        return response
    if unsafe and not request.body_exists:
        # A bare POST (confirm, acknowledge): whatever Content-Type a client library adds to
        # an empty body (urllib and `curl -d ''` add a form's), it carries no data; what a
        # cross-site page could send is told by the browser's Origin and Sec-Fetch-Site.
        if not _from_this_site(request):
            return error(403, "a POST from another site's page is refused")
    elif unsafe and request.content_type != "application/json":
        # Browsers cache Basic credentials; only a JSON body proves this is no cross-site form.
        return error(415, "send the body as application/json")
    request[ARBITER] = user
    return await handler(request)


# What a browser says of a request made by a page of this site, or typed in by the user.
_OWN_FETCH_SITES = frozenset({"same-origin", "none"})


def _from_this_site(request: web.Request) -> bool:
    """Not sent by another site's page: its Origin (every current browser sends one on a
    POST) and Sec-Fetch-Site, when present, name this server. Scripts send neither."""
    fetch_site = request.headers.get("Sec-Fetch-Site")
    return same_origin(request) and (fetch_site is None or fetch_site in _OWN_FETCH_SITES)


async def _guard_desk(request: web.Request, handler: Handler) -> web.StreamResponse:
    auth = request.app[AUTH]
    if not auth.enabled:
        return desk_html(
            ENV.get_template("arbiter_off.html").render(
                event=service_of(request).config, lang=lang_of(request)
            ),
            status=403,
        )
    session = auth.session(request)
    if session is None:
        if request.method == "GET" and request.path != "/arbiter/ws":
            raise web.HTTPSeeOther("/arbiter/login")
        return error(401, "arbiter login required")
    if request.method == "POST":
        form = await request.post()
        supplied = form.get("csrf")
        if not same_origin(request) or not csrf_ok(
            session, supplied if isinstance(supplied, str) else None
        ):
            return error(403, "the form is stale or not from this desk: reload the page")
        request[FORM] = form
    request[ARBITER] = session.user
    request[SESSION] = session
    return await handler(request)


def desk_html(text: str, status: int = 200) -> web.Response:
    response = web.Response(text=text, content_type="text/html", charset="utf-8", status=status)
    response.headers["Cache-Control"] = "no-store"  # the desk's CSRF token is not for caches
    return response
