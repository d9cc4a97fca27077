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
- Login attempts are limited per client address: `LOGIN_ATTEMPTS` failures per
  `LOGIN_WINDOW` seconds, then 429 until the window has passed.
"""

from __future__ import annotations

import hmac
import secrets
import time
from base64 import b64decode
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from aiohttp import web

SESSION_COOKIE = "bw_session"
LOGIN_COOKIE = "bw_login"
SESSION_SECONDS = 12 * 3600.0
LOGIN_ATTEMPTS = 5
LOGIN_WINDOW = 60.0
MAX_SESSIONS = 1000
AUTH_FAILED_MESSAGE = "Wrong user or password."


@dataclass
class Session:
    user: str
    csrf: str
    expires: float


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
        self.failures: dict[str, deque[float]] = {}

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

    def _recent(self, who: str) -> deque[float]:
        window = self.failures.setdefault(who, deque())
        cutoff = self.now() - LOGIN_WINDOW
        while window and window[0] <= cutoff:
            window.popleft()
        return window

    def retry_after(self, who: str) -> float:
        """Seconds until `who` may try again (0: now)."""
        window = self._recent(who)
        if len(window) < LOGIN_ATTEMPTS:
            return 0.0
        return max(0.0, window[0] + LOGIN_WINDOW - self.now())

    def failed(self, who: str) -> None:
        self._recent(who).append(self.now())
        if len(self.failures) > 10000:  # bounded memory under a spray of addresses
            self.failures = {k: v for k, v in self.failures.items() if v}

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
        header = request.headers.get("Authorization", "")
        if not header.startswith("Basic "):
            return None
        try:
            user, _, password = b64decode(header[6:], validate=True).decode("utf-8").partition(":")
        except (ValueError, UnicodeDecodeError):
            return None
        return user if self.check_password(user, password) else None


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
    return origin in (f"{request.scheme}://{request.host}",)
