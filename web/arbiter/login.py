"""The desk's login form, login and logout (the session cookie; see `web.auth`)."""

from __future__ import annotations

import secrets
from urllib.parse import quote

from aiohttp import web

from web.arbiter.guard import desk_html
from web.auth import AUTH_FAILED_MESSAGE, LOGIN_COOKIE, SESSION_COOKIE, same_origin, set_cookie
from web.keys import AUTH, service_of
from web.pages import ENV

__all__ = ["login", "login_form", "logout", "routes"]

routes = web.RouteTableDef()


@routes.get("/arbiter/login")
async def login_form(request: web.Request) -> web.Response:
    auth = request.app[AUTH]
    token = secrets.token_urlsafe(24)
    response = desk_html(
        ENV.get_template("arbiter_login.html").render(
            event=service_of(request).config,
            login_token=token,
            enabled=auth.enabled,
            message=request.query.get("m", ""),
        )
    )
    set_cookie(response, request, LOGIN_COOKIE, token)
    return response


@routes.post("/arbiter/login")
async def login(request: web.Request) -> web.StreamResponse:
    auth = request.app[AUTH]
    who = request.remote or "unknown"
    wait = auth.retry_after(who)
    if wait > 0:
        response = web.Response(
            text=f"too many failed logins: try again in {int(wait) + 1} s", status=429
        )
        response.headers["Retry-After"] = str(int(wait) + 1)
        return response
    form = await request.post()
    token = request.cookies.get(LOGIN_COOKIE, "")
    supplied = form.get("login_token")
    if (
        not token
        or not isinstance(supplied, str)
        or not secrets.compare_digest(token, supplied)
        or not same_origin(request)
    ):
        raise web.HTTPSeeOther("/arbiter/login?m=" + quote("The form expired: try again."))
    user, password = form.get("user"), form.get("password")
    if not isinstance(user, str) or not isinstance(password, str):
        user, password = "", ""  # counted as a failed guess like any other
    # The same check as HTTP Basic: a failure counts, a success clears the client's strikes.
    if not auth.check_guess(who, user, password):
        raise web.HTTPSeeOther("/arbiter/login?m=" + quote(AUTH_FAILED_MESSAGE))
    session_token, _session = auth.open_session(user)
    response = web.HTTPSeeOther("/arbiter")
    set_cookie(response, request, SESSION_COOKIE, session_token)
    response.del_cookie(LOGIN_COOKIE, path="/")
    raise response


@routes.post("/arbiter/logout")
async def logout(request: web.Request) -> web.StreamResponse:
    request.app[AUTH].close_session(request)
    response = web.HTTPSeeOther("/arbiter/login")
    response.del_cookie(SESSION_COOKIE, path="/")
    raise response
