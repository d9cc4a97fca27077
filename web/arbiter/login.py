"""The desk's login form, login and logout (the session cookie; see `web.auth`)."""

from __future__ import annotations

import secrets

from aiohttp import web

from web.arbiter.guard import desk_html
from web.auth import (
    DEVICE_COOKIE,
    DEVICE_SECONDS,
    LOGIN_COOKIE,
    SESSION_COOKIE,
    same_origin,
    set_cookie,
)
from web.i18n import gettext_of
from web.keys import AUTH, lang_of, service_of
from web.words import N_

__all__ = ["EXPIRED", "MESSAGES", "WRONG", "login", "login_form", "logout", "routes"]

routes = web.RouteTableDef()

EXPIRED = N_("The form expired: try again.")
# web.auth's AUTH_FAILED_MESSAGE, marked here for the catalogs (the extraction needs the
# literal; tests/web/test_i18n.py checks that the two agree).
WRONG = N_("Wrong user or password.")

# What the login page may say: `?m=` is a key into this table, never the text itself (a
# link could otherwise make the desk's own page say "the desk moved: log in at ..."). An
# unknown key says nothing.
MESSAGES = {"expired": EXPIRED, "wrong": WRONG}


def _message(key: str, lang: str) -> str:
    """The message a redirect's `?m=` names, in the reader's language ("" for none)."""
    text = MESSAGES.get(key)
    return gettext_of(lang)(text) if text else ""


@routes.get("/arbiter/login")
async def login_form(request: web.Request) -> web.Response:
    from web.pages import ENV, chrome

    auth = request.app[AUTH]
    token = secrets.token_urlsafe(24)
    lang = lang_of(request)
    response = desk_html(
        ENV.get_template("login.html").render(
            **chrome(lang, "/arbiter/login"),
            event=service_of(request).config,
            login_token=token,
            enabled=auth.enabled,
            message=_message(request.query.get("m", ""), lang),
        )
    )
    set_cookie(response, request, LOGIN_COOKIE, token)
    return response


@routes.post("/arbiter/login")
async def login(request: web.Request) -> web.StreamResponse:
    auth = request.app[AUTH]
    who = auth.caller(request)
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
        raise web.HTTPSeeOther("/arbiter/login?m=expired")
    user, password = form.get("user"), form.get("password")
    if not isinstance(user, str) or not isinstance(password, str):
        user, password = "", ""  # counted as a failed guess like any other
    # The same check as HTTP Basic: a failure counts, a success clears the client's strikes.
    if not auth.check_guess(who, user, password):
        raise web.HTTPSeeOther("/arbiter/login?m=wrong")
    session_token, _session = auth.open_session(user)
    response = web.HTTPSeeOther("/arbiter")
    set_cookie(response, request, SESSION_COOKIE, session_token)
    # This browser is remembered: a spray of wrong passwords from elsewhere never locks it
    # out of its next login, and only its own typos count against it (web.auth).
    set_cookie(
        response,
        request,
        DEVICE_COOKIE,
        auth.remember_device(who),
        path="/arbiter",
        max_age=DEVICE_SECONDS,
    )
    response.del_cookie(LOGIN_COOKIE, path="/")
    raise response


@routes.post("/arbiter/logout")
async def logout(request: web.Request) -> web.StreamResponse:
    request.app[AUTH].close_session(request)
    response = web.HTTPSeeOther("/arbiter/login")
    response.del_cookie(SESSION_COOKIE, path="/")
    raise response
