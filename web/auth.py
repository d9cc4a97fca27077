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
- Password guesses, by the login form and by HTTP Basic alike, are limited so that
  guessing stays hopeless and yet no anonymous party can lock the arbiter out:
  - per client: `LOGIN_ATTEMPTS` failures within `LOGIN_WINDOW` seconds lock that client
    out, each further lockout twice as long (up to `MAX_LOCKOUT`). The client is the
    address, or a desk browser that logged in before (its remembered-device cookie,
    `DEVICE_COOKIE`): nobody else's guesses count against that browser.
  - a spray from many addresses: `GLOBAL_ATTEMPTS` failures within the window from
    *unknown* clients lock out unknown clients the same way. Known clients never count
    towards it and are never held by it: a request with an open session, a remembered
    desk browser, an address that logged in within `KNOWN_SECONDS`, and the arbiters'
    own networks (`serve --arbiter-network`).
  - the arbiters' networks are never locked out at all (their wrong passwords are logged,
    one line a minute): they are the organizer's declaration that only arbiters use them.
  A correct password clears that client's failures and back-off (not the spray count).
  While a client is locked out even the right password gets 429 with Retry-After, so a
  guess can never be confirmed by the party that is locked out. Sessions already open are
  not affected. Behind a proxy the client is the forwarded one (`web.proxy`).
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import logging
import secrets
import time
from base64 import b64decode
from collections import OrderedDict, deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from aiohttp import web

from clocks.errors import BoardwireError
from web.limits import QuietLog
from web.proxy import PROXY, Network

log = logging.getLogger(__name__)

SESSION_COOKIE = "bw_session"
LOGIN_COOKIE = "bw_login"
DEVICE_COOKIE = "bw_device"
SESSION_SECONDS = 12 * 3600.0
LOGIN_ATTEMPTS = 5
LOGIN_WINDOW = 60.0
GLOBAL_ATTEMPTS = 50
MAX_LOCKOUT = 3600.0
KNOWN_SECONDS = SESSION_SECONDS  # an address that logged in stays known this long
DEVICE_SECONDS = 30 * 24 * 3600.0  # a desk browser that logged in is remembered this long
GLOBAL = "*"  # the spray count's key in the limiter (unknown clients together)
MAX_SESSIONS = 1000
MAX_KNOWN = 1000  # known addresses, and remembered devices, kept (the oldest go first)
AUTH_FAILED_MESSAGE = "Wrong user or password."


ARBITER_ROLE = "arbiter"
COMMENTATOR_ROLE = "commentator"  # read-only: the commentators' live channel (web.commentary)
COMMENTARY_COOKIE = "bw_commentary"  # a commentator's session, sent to /commentary only


def basic_credentials(request: web.Request) -> tuple[str, str] | None:
    """The user and password of an HTTP Basic header (None: no such header). A header
    that cannot be read gives empty ones: a failed guess like any other, counted."""
    header = request.headers.get("Authorization", "")
    if not header.startswith("Basic "):
        return None
    try:
        user, _, password = b64decode(header[6:], validate=True).decode("utf-8").partition(":")
    except (ValueError, UnicodeDecodeError):
        return "", ""
    return user, password


@dataclass
class Session:
    user: str
    csrf: str
    expires: float
    role: str = ARBITER_ROLE  # what it may do: only an arbiter's session acts


@dataclass(frozen=True)
class Caller:
    """Who asks for a password check, as the limits see it: the address (behind a trusted
    proxy, the forwarded client), a remembered desk browser's token (checked: None when
    the cookie is missing, unknown or expired), and whether an open session came along."""

    address: str
    device: str | None = None
    session: bool = False

    @property
    def key(self) -> str:
        """Whose failures these are: a remembered browser's own, else the address's."""
        return f"device:{self.device}" if self.device is not None else self.address


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
    """Sessions and checks for one server. `now` is monotonic seconds (injectable);
    `arbiter_networks`: the arbiters' own networks, never locked out."""

    def __init__(
        self,
        credentials: tuple[str, str] | None,
        *,
        now: Callable[[], float] = time.monotonic,
        arbiter_networks: Sequence[Network] = (),
        commentator: tuple[str, str] | None = None,
    ) -> None:
        self.credentials = credentials
        # The commentators' read-only login (`BOARDWIRE_COMMENTATOR_PASSWORD`): its
        # guesses share the arbiter's limits below, its sessions never act.
        self.commentator = commentator
        self.now = now
        self.arbiter_networks = tuple(arbiter_networks)
        self.sessions: dict[str, Session] = {}
        self.strikes: dict[str, Strikes] = {}
        # Who logged in lately: addresses (form or Basic) and desk browsers (the device
        # cookie), each with the time it is forgotten; oldest first.
        self.known: OrderedDict[str, float] = OrderedDict()
        self.devices: OrderedDict[str, float] = OrderedDict()
        self.trusted_failures = QuietLog(60.0, now, log)

    @property
    def enabled(self) -> bool:
        return self.credentials is not None

    def check_password(self, user: str, password: str, role: str = ARBITER_ROLE) -> bool:
        credentials = self.commentator if role == COMMENTATOR_ROLE else self.credentials
        if credentials is None:
            return False
        ok_user = hmac.compare_digest(user.encode(), credentials[0].encode())
        ok_password = hmac.compare_digest(password.encode(), credentials[1].encode())
        return ok_user and ok_password

    def role_of(self, user: str, password: str) -> str | None:
        """Whose credentials these are: the arbiter's, a commentator's, or nobody's (both
        compared, so the time taken does not tell which one matched)."""
        arbiter = self.check_password(user, password)
        commentator = self.check_password(user, password, COMMENTATOR_ROLE)
        return ARBITER_ROLE if arbiter else COMMENTATOR_ROLE if commentator else None

    # -- who asks ------------------------------------------------------------------------------

    def caller(self, request: web.Request) -> Caller:
        """The caller of `request`: its address, its remembered-device cookie if valid, and
        whether it holds an open session."""
        token = request.cookies.get(DEVICE_COOKIE)
        device = token if token and self._remembered(self.devices, token) else None
        return Caller(request.remote or "unknown", device, self.session(request) is not None)

    def trusted(self, address: str) -> bool:
        """In one of the arbiters' own networks (`serve --arbiter-network`)."""
        if not self.arbiter_networks:
            return False
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            return False
        return any(ip in net for net in self.arbiter_networks)

    def is_known(self, who: Caller | str) -> bool:
        """Held by no spray lock: an open session, a remembered desk browser, an address
        that logged in lately, the arbiters' networks."""
        caller = _as_caller(who)
        return (
            caller.session
            or caller.device is not None
            or self._remembered(self.known, caller.address)
            or self.trusted(caller.address)
        )

    def _remembered(self, table: OrderedDict[str, float], key: str) -> bool:
        until = table.get(key)
        if until is None:
            return False
        if until <= self.now():
            del table[key]
            return False
        return True

    def _remember(self, table: OrderedDict[str, float], key: str, seconds: float) -> None:
        table[key] = self.now() + seconds
        table.move_to_end(key)
        while len(table) > MAX_KNOWN:
            table.popitem(last=False)

    def remember_device(self, who: Caller | str) -> str:
        """The remembered-device token for a desk browser that just logged in (its own,
        renewed, when it had one): the login sets it as `DEVICE_COOKIE`."""
        caller = _as_caller(who)
        token = caller.device or secrets.token_urlsafe(32)
        self._remember(self.devices, token, DEVICE_SECONDS)
        return token

    # -- rate limit ----------------------------------------------------------------------------

    def retry_after(self, who: Caller | str) -> float:
        """Seconds until `who` may try a password again (0: now)."""
        caller = _as_caller(who)
        if self.trusted(caller.address):
            return 0.0
        keys = [caller.key] if self.is_known(caller) else [caller.key, GLOBAL]
        now = self.now()
        waits = [s.locked_until - now for k in keys if (s := self.strikes.get(k))]
        return max([0.0, *waits])

    def failed(self, who: Caller | str) -> None:
        caller = _as_caller(who)
        if self.trusted(caller.address):
            # Never locked out, so never counted; but the organizer should hear of it.
            self.trusted_failures.warning(
                f"wrong arbiter password from {caller.address}, in the arbiters' network "
                "(never locked out there)"
            )
            return
        self._strike(caller.key, LOGIN_ATTEMPTS)
        if not self.is_known(caller):
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

    def succeeded(self, who: Caller | str) -> None:
        caller = _as_caller(who)
        self.strikes.pop(caller.key, None)
        self._remember(self.known, caller.address, KNOWN_SECONDS)

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

    def check_guess(self, who: Caller | str, user: str, password: str) -> bool:
        """A rate-limited password check; raises `GuessLimit` while `who` is locked out.
        `who`: a `Caller`, or an address (a client without cookies)."""
        return self.guess_role(who, user, password, (ARBITER_ROLE,)) is not None

    def guess_role(
        self, who: Caller | str, user: str, password: str, roles: Sequence[str]
    ) -> str | None:
        """`check_guess` for any of `roles`: the role the credentials are (None: wrong,
        counted as a failure like any other); the same limits whichever login asks."""
        wait = self.retry_after(who)
        if wait > 0:
            raise GuessLimit(wait)
        role = self.role_of(user, password)
        if role is not None and role in roles:
            self.succeeded(who)
            return role
        self.failed(who)
        return None

    # -- sessions ------------------------------------------------------------------------------

    def open_session(self, user: str, role: str = ARBITER_ROLE) -> tuple[str, Session]:
        self._expire()
        token = secrets.token_urlsafe(32)
        session = Session(user, secrets.token_urlsafe(32), self.now() + SESSION_SECONDS, role)
        self.sessions[token] = session
        return token, session

    def _expire(self) -> None:
        now = self.now()
        for token in [t for t, s in self.sessions.items() if s.expires <= now]:
            del self.sessions[token]
        while len(self.sessions) >= MAX_SESSIONS:
            self.sessions.pop(next(iter(self.sessions)))

    def session(self, request: web.Request) -> Session | None:
        """The arbiter's open session (a commentator's is never one, whatever cookie
        carries its token: it can enter no desk and act on nothing)."""
        return self._open(request.cookies.get(SESSION_COOKIE), ARBITER_ROLE)

    def commentary_session(self, request: web.Request) -> Session | None:
        """A commentator's open session (`COMMENTARY_COOKIE`)."""
        return self._open(request.cookies.get(COMMENTARY_COOKIE), COMMENTATOR_ROLE)

    def _open(self, token: str | None, role: str) -> Session | None:
        if not token:
            return None
        session = self.sessions.get(token)
        if session is None or session.expires <= self.now() or session.role != role:
            return None
        return session

    def close_session(self, request: web.Request, cookie: str = SESSION_COOKIE) -> None:
        token = request.cookies.get(cookie)
        if token:
            self.sessions.pop(token, None)

    def basic_user(self, request: web.Request) -> str | None:
        """The user of a valid Basic header (None: none or wrong; `GuessLimit` when locked)."""
        given = basic_credentials(request)
        if given is None:
            return None
        user, password = given
        return user if self.check_guess(self.caller(request), user, password) else None


def _as_caller(who: Caller | str) -> Caller:
    return who if isinstance(who, Caller) else Caller(who)


def csrf_ok(session: Session, supplied: str | None) -> bool:
    return bool(supplied) and hmac.compare_digest(session.csrf.encode(), (supplied or "").encode())


def set_cookie(
    response: web.StreamResponse,
    request: web.Request,
    name: str,
    value: str,
    *,
    path: str = "/",
    max_age: float = SESSION_SECONDS,
) -> None:
    response.set_cookie(
        name,
        value,
        httponly=True,
        samesite="Strict",
        secure=request.secure,
        path=path,
        max_age=int(max_age),
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
    "ARBITER_ROLE",
    "AUTH_FAILED_MESSAGE",
    "COMMENTARY_COOKIE",
    "COMMENTATOR_ROLE",
    "DEVICE_COOKIE",
    "DEVICE_SECONDS",
    "GLOBAL",
    "GLOBAL_ATTEMPTS",
    "KNOWN_SECONDS",
    "LOGIN_ATTEMPTS",
    "LOGIN_COOKIE",
    "LOGIN_WINDOW",
    "MAX_KNOWN",
    "MAX_LOCKOUT",
    "MAX_SESSIONS",
    "SESSION_COOKIE",
    "SESSION_SECONDS",
    "Auth",
    "Caller",
    "GuessLimit",
    "Session",
    "Strikes",
    "basic_credentials",
    "csrf_ok",
    "same_origin",
    "set_cookie",
]
