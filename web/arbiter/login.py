"""The desk's login form, login and logout (the session cookie; see `web.auth`)."""

from __future__ import annotations

import secrets
from urllib.parse import quote

from aiohttp import web

from web.arbiter.guard import desk_html
from web.auth import AUTH_FAILED_MESSAGE, LOGIN_COOKIE, SESSION_COOKIE, same_origin, set_cookie
from web.i18n import gettext_of
from web.keys import AUTH, lang_of, service_of
from web.pages import ENV, chrome
from web.words import N_

__all__ = ["EXPIRED", "WRONG", "login", "login_form", "logout", "routes"]

routes = web.RouteTableDef()

EXPIRED = N_("The form expired: try again.")
# web.auth's AUTH_FAILED_MESSAGE, marked here for the catalogs (the extraction needs the
# literal; tests/test_web_i18n.py checks that the two agree).
WRONG = N_("Wrong user or password.")


def _message(text: str, lang: str) -> str:
    """A redirect's `?m=` in the reader's language when it is one of ours (gettext of ""
    would be the catalog's header: nothing is nothing)."""
    return gettext_of(lang)(text) if text else ""


@routes.get("/arbiter/login")
async def login_form(request: web.Request) -> web.Response:
    auth = request.app[AUTH]
    token = secrets.token_urlsafe(24)
    lang = lang_of(request)
    response = desk_html(
        ENV.get_template("arbiter_login.html").render(
            **chrome(lang, "/arbiter/login"),
            event=service_of(request).config,
            login_token=token,
            enabled=auth.enabled,
            # The message is ours (a redirect's ?m=): its translation, or the text as it came.
            message=_message(request.query.get("m", ""), lang),
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
        raise web.HTTPSeeOther("/arbiter/login?m=" + quote(EXPIRED))
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
