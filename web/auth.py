"""Arbiter login: sessions, CSRF tokens, a login rate limit, and HTTP Basic for scripts.

- Credentials come from the environment (never a default password); compared in
  constant time.
- A session is a random 256-bit token in an HttpOnly, SameSite=Strict cookie; the server
  keeps the session (user, CSRF token, expiry) in memory, so a restart logs everybody out
  and nothing secret is ever in a page except the session's own CSRF token.
- Every state-changing request from a session needs its CSRF token (form field `csrf` or
  header `X-CSRF-Token`); the login form itself carries a pre-session token
  (double-submit cookie) so nobody can log a victim into their own session.
- HTTP Basic is accepted on the JSON API for scripts; browsers cache Basic credentials,
  so a POST authenticated that way must be `application/json`, which no cross-site form
  can send without a CORS preflight (that we never answer).
- Password guesses, by the login form and by HTTP Basic alike, are limited per client
  address and for the whole server: `LOGIN_ATTEMPTS` failures from one client within
  `LOGIN_WINDOW` seconds lock that client out, and each further lockout doubles (up to
  `MAX_LOCKOUT`); `GLOBAL_ATTEMPTS` failures from everybody within the window lock out every
  password check the same way (a spray from many addresses). A correct password, by either
  way, clears that client's failures and back-off (not the server-wide count). While locked
  out even the right password gets 429 with Retry-After, so a guess can never be confirmed.
  Sessions already open are not affected. Behind a proxy the client is the forwarded one (`web.proxy`).
"""

from __future__ import annotations

import hmac
import json
import secrets
import time
from base64 import b64decode
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from aiohttp import web

from clocks.errors import BoardwireError
from web.proxy import PROXY

SESSION_COOKIE = "bw_session"
LOGIN_COOKIE = "bw_login"
SESSION_SECONDS = 12 * 3600.0
LOGIN_ATTEMPTS = 5
LOGIN_WINDOW = 60.0
GLOBAL_ATTEMPTS = 50
MAX_LOCKOUT = 3600.0
GLOBAL = "*"  # the whole server's key in the limiter
MAX_SESSIONS = 1000
AUTH_FAILED_MESSAGE = "Wrong user or password."


@dataclass
class Session:
    user: str
    csrf: str
    expires: float


class GuessLimit(BoardwireError, web.HTTPTooManyRequests):
    """A password check refused because its client (or the server) is locked out."""

    def __init__(self, wait: float) -> None:
        seconds = int(wait) + 1
        super().__init__(
            text=json.dumps({"error": f"too many failed logins: try again in {seconds} s"}),
            content_type="application/json",
            headers={"Retry-After": str(seconds)},
        )
        self.seconds = seconds


@dataclass
class Strikes:
    """One client's recent failures, its lockouts so far, and when the current one ends."""

    failures: deque[float] = field(default_factory=deque)
    lockouts: int = 0
    locked_until: float = 0.0


class Auth:
    """Sessions and checks for one server. `now` is monotonic seconds (injectable)."""

    def __init__(
        self,
        credentials: tuple[str, str] | None,
        *,
        now: Callable[[], float] = time.monotonic,
    ) -> None:
        self.credentials = credentials
        self.now = now
        self.sessions: dict[str, Session] = {}
        self.strikes: dict[str, Strikes] = {}

    @property
    def enabled(self) -> bool:
        return self.credentials is not None

    def check_password(self, user: str, password: str) -> bool:
        if self.credentials is None:
            return False
        ok_user = hmac.compare_digest(user.encode(), self.credentials[0].encode())
        ok_password = hmac.compare_digest(password.encode(), self.credentials[1].encode())
        return ok_user and ok_password

    # -- rate limit ----------------------------------------------------------------------------

    def retry_after(self, who: str) -> float:
        """Seconds until `who` may try a password again (0: now)."""
        now = self.now()
        waits = [s.locked_until - now for k in (who, GLOBAL) if (s := self.strikes.get(k))]
        return max([0.0, *waits])

    def failed(self, who: str) -> None:
        self._strike(who, LOGIN_ATTEMPTS)
        self._strike(GLOBAL, GLOBAL_ATTEMPTS)
        if len(self.strikes) > 10000:  # bounded memory under a spray of addresses
            now = self.now()
            self.strikes = {
                k: v
                for k, v in self.strikes.items()
                if k == GLOBAL
                or v.locked_until > now - MAX_LOCKOUT  # its back-off still counts
                or (v.failures and v.failures[-1] > now - LOGIN_WINDOW)
            }

    def succeeded(self, who: str) -> None:
        self.strikes.pop(who, None)

    def _strike(self, key: str, limit: int) -> None:
        now = self.now()
        strikes = self.strikes.setdefault(key, Strikes())
        window = strikes.failures
        while window and window[0] <= now - LOGIN_WINDOW:
            window.popleft()
        window.append(now)
        if len(window) >= limit:
            # Back-off: every lockout within the hour is twice as long as the one before.
            if strikes.locked_until < now - MAX_LOCKOUT:
                strikes.lockouts = 0
            strikes.lockouts = min(strikes.lockouts + 1, 16)
            strikes.locked_until = now + min(
                LOGIN_WINDOW * 2 ** (strikes.lockouts - 1), MAX_LOCKOUT
            )
            window.clear()

    def check_guess(self, who: str, user: str, password: str) -> bool:
        """A rate-limited password check; raises `GuessLimit` while `who` is locked out."""
        wait = self.retry_after(who)
        if wait > 0:
            raise GuessLimit(wait)
        if self.check_password(user, password):
            self.succeeded(who)
            return True
        self.failed(who)
        return False

    # -- sessions ------------------------------------------------------------------------------

    def open_session(self, user: str) -> tuple[str, Session]:
        self._expire()
        token = secrets.token_urlsafe(32)
        session = Session(user, secrets.token_urlsafe(32), self.now() + SESSION_SECONDS)
        self.sessions[token] = session
        return token, session

    def _expire(self) -> None:
        now = self.now()
        for token in [t for t, s in self.sessions.items() if s.expires <= now]:
            del self.sessions[token]
        while len(self.sessions) >= MAX_SESSIONS:
            self.sessions.pop(next(iter(self.sessions)))

    def session(self, request: web.Request) -> Session | None:
        token = request.cookies.get(SESSION_COOKIE)
        if not token:
            return None
        session = self.sessions.get(token)
        if session is None or session.expires <= self.now():
            return None
        return session

    def close_session(self, request: web.Request) -> None:
        token = request.cookies.get(SESSION_COOKIE)
        if token:
            self.sessions.pop(token, None)

    def basic_user(self, request: web.Request) -> str | None:
        """The user of a valid Basic header (None: none or wrong; `GuessLimit` when locked)."""
        header = request.headers.get("Authorization", "")
        if not header.startswith("Basic "):
            return None
        try:
            user, _, password = b64decode(header[6:], validate=True).decode("utf-8").partition(":")
        except (ValueError, UnicodeDecodeError):
            user, password = "", ""  # counted as a failed guess like any other
        who = request.remote or "unknown"
        return user if self.check_guess(who, user, password) else None


def csrf_ok(session: Session, supplied: str | None) -> bool:
    return bool(supplied) and hmac.compare_digest(session.csrf.encode(), (supplied or "").encode())


def set_cookie(response: web.StreamResponse, request: web.Request, name: str, value: str) -> None:
    response.set_cookie(
        name,
        value,
        httponly=True,
        samesite="Strict",
        secure=request.secure,
        path="/",
        max_age=int(SESSION_SECONDS),
    )


def same_origin(request: web.Request) -> bool:
    """A browser's Origin header, when present, names this server (websocket handshakes and
    POSTs from another site are refused even if a cookie slipped through)."""
    origin = request.headers.get("Origin")
    if origin is None:
        return True
    settings = request.app.get(PROXY)
    public = settings.public_origin if settings is not None else None
    return origin in (f"{request.scheme}://{request.host}", public)


__all__ = [
    "AUTH_FAILED_MESSAGE",
    "GLOBAL",
    "GLOBAL_ATTEMPTS",
    "LOGIN_ATTEMPTS",
    "LOGIN_COOKIE",
    "LOGIN_WINDOW",
    "MAX_LOCKOUT",
    "MAX_SESSIONS",
    "SESSION_COOKIE",
    "SESSION_SECONDS",
    "Auth",
    "GuessLimit",
    "Session",
    "Strikes",
    "csrf_ok",
    "same_origin",
    "set_cookie",
]
