"""Hardening of the web server: password guess limits (form and Basic, per client and
global, with back-off), deployment behind a TLS-terminating proxy, hostile websocket and
API bodies, security headers on error pages, board numbers checked against the hall."""

from __future__ import annotations

import logging
import re
from base64 import b64encode
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from aiohttp import WSCloseCode, WSMsgType, web
from aiohttp.test_utils import TestClient, TestServer

from broadcast.service.event_service import EventService
from tests.support.web_app import CREDENTIALS, make_service
from web import auth as auth_module
from web.app import build_app
from web.keys import AUTH
from web.proxy import ProxySettings, make_settings

BASIC = {"Authorization": "Basic " + b64encode(":".join(CREDENTIALS).encode()).decode()}
WRONG = {"Authorization": "Basic " + b64encode(b"arbiter:guess").decode()}
BOARDS = "/api/v1/arbiter/boards"
PUBLIC = "https://live.example.org"


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


async def _client(service: EventService, proxy: ProxySettings | None = None) -> TestClient:
    client = TestClient(TestServer(build_app(service, CREDENTIALS, proxy)))
    await client.start_server()
    return client


def _auth(client: TestClient) -> auth_module.Auth:
    app: web.Application = client.server.app  # type: ignore[attr-defined]
    return app[AUTH]


@pytest.fixture
async def plain(tmp_path: Path) -> AsyncIterator[tuple[TestClient, EventService, Clock]]:
    service, _ = make_service(tmp_path)
    client = await _client(service)
    clock = Clock()
    _auth(client).now = clock
    yield client, service, clock
    await client.close()


@pytest.fixture
async def proxied(tmp_path: Path) -> AsyncIterator[tuple[TestClient, Clock]]:
    service, _ = make_service(tmp_path)
    client = await _client(service, make_settings(["127.0.0.1"], PUBLIC))
    clock = Clock()
    _auth(client).now = clock
    yield client, clock
    await client.close()


# -- guess limits --------------------------------------------------------------------------------


async def test_basic_guesses_are_limited_and_back_off(
    plain: tuple[TestClient, EventService, Clock],
) -> None:
    client, _, clock = plain
    for _ in range(auth_module.LOGIN_ATTEMPTS):
        assert (await client.get(BOARDS, headers=WRONG)).status == 401
    locked = await client.get(BOARDS, headers=BASIC)
    assert locked.status == 429  # even the right password is not confirmed while locked
    first_wait = int(locked.headers["Retry-After"])
    assert "too many failed logins" in (await locked.json())["error"]
    clock.t += first_wait
    for _ in range(auth_module.LOGIN_ATTEMPTS):  # the guesser comes back
        assert (await client.get(BOARDS, headers=WRONG)).status == 401
    second_wait = int((await client.get(BOARDS, headers=BASIC)).headers["Retry-After"])
    assert second_wait >= 2 * first_wait - 2  # each lockout twice as long
    clock.t += second_wait
    assert (await client.get(BOARDS, headers=BASIC)).status == 200


async def test_a_garbled_basic_header_counts_as_a_guess(
    plain: tuple[TestClient, EventService, Clock],
) -> None:
    client, _, _ = plain
    for _ in range(auth_module.LOGIN_ATTEMPTS):
        await client.get(BOARDS, headers={"Authorization": "Basic %%%"})
    assert (await client.get(BOARDS, headers=BASIC)).status == 429


async def test_form_and_basic_share_one_limit(
    plain: tuple[TestClient, EventService, Clock],
) -> None:
    client, _, _ = plain
    for _ in range(auth_module.LOGIN_ATTEMPTS):
        await client.get(BOARDS, headers=WRONG)
    assert await _login(client, CREDENTIALS[1]) == 429


@pytest.mark.parametrize("way", ["form", "basic"])
async def test_a_correct_password_clears_the_clients_failures(
    plain: tuple[TestClient, EventService, Clock], way: str
) -> None:
    """The login form and HTTP Basic reset a client's strikes the same way: an arbiter who
    mistypes a few times, then logs in, starts afresh instead of one typo from a lockout."""
    client, _, _ = plain

    async def attempt(password: str) -> int:
        if way == "form":
            return await _login(client, password)
        headers = BASIC if password == CREDENTIALS[1] else WRONG
        return (await client.get(BOARDS, headers=headers)).status

    for _ in range(2):  # without the reset the second round of typos would lock the client out
        for _ in range(auth_module.LOGIN_ATTEMPTS - 1):
            assert await attempt("guess") == 401
        assert await attempt(CREDENTIALS[1]) == 200
    assert _auth(client).retry_after("127.0.0.1") == 0


def test_a_spray_from_many_addresses_locks_every_password_check() -> None:
    clock = Clock()
    auth = auth_module.Auth(CREDENTIALS, now=clock)
    for i in range(auth_module.GLOBAL_ATTEMPTS):
        assert auth.check_guess(f"10.0.{i // 250}.{i % 250}", "arbiter", "guess") is False
    with pytest.raises(auth_module.GuessLimit):
        auth.check_guess("192.0.2.1", *CREDENTIALS)  # a new client, the right password
    clock.t += auth_module.LOGIN_WINDOW
    assert auth.check_guess("192.0.2.1", *CREDENTIALS) is True


# -- behind a TLS-terminating proxy ---------------------------------------------------------------


async def _login(
    client: TestClient,
    password: str,
    headers: dict[str, str] | None = None,
    origin: str | None = None,
) -> int:
    page = await client.get("/arbiter/login", headers=headers)
    token = re.search(r'name="login_token" value="([^"]+)"', await page.text())
    assert token is not None
    post_headers = dict(headers or {})
    if origin is not None:
        post_headers["Origin"] = origin
        # A Secure cookie: the test client (plain http) would not send it back by itself.
        post_headers["Cookie"] = f"{auth_module.LOGIN_COOKIE}={token.group(1)}"
    response = await client.post(
        "/arbiter/login",
        data={"login_token": token.group(1), "user": CREDENTIALS[0], "password": password},
        headers=post_headers,
        allow_redirects=False,
    )
    if response.status != 303:
        return response.status
    return 200 if response.headers["Location"] == "/arbiter" else 401


def _via_proxy(client_ip: str) -> dict[str, str]:
    return {
        "X-Forwarded-Proto": "https",
        "X-Forwarded-For": f"{client_ip}, 127.0.0.1",
        "Host": "live.example.org",
    }


async def test_login_through_a_tls_proxy_sets_a_secure_cookie(
    proxied: tuple[TestClient, Clock],
) -> None:
    client, _ = proxied
    headers = _via_proxy("198.51.100.7")
    page = await client.get("/arbiter/login", headers=headers)
    cookie = next(h for h in page.headers.getall("Set-Cookie") if "bw_login" in h)
    assert "Secure" in cookie
    token = re.search(r'name="login_token" value="([^"]+)"', await page.text())
    assert token is not None
    response = await client.post(
        "/arbiter/login",
        data={"login_token": token.group(1), "user": CREDENTIALS[0], "password": CREDENTIALS[1]},
        headers={
            **headers,
            "Origin": PUBLIC,
            "Cookie": f"{auth_module.LOGIN_COOKIE}={token.group(1)}",
        },
        allow_redirects=False,
    )
    assert response.headers["Location"] == "/arbiter"  # not "the form expired"
    session = next(
        h for h in response.headers.getall("Set-Cookie") if h.startswith(auth_module.SESSION_COOKIE)
    )
    assert "Secure" in session and "HttpOnly" in session


async def test_the_login_limit_counts_the_real_client_behind_the_proxy(
    proxied: tuple[TestClient, Clock],
) -> None:
    client, _ = proxied
    guesser = _via_proxy("203.0.113.66")
    for _ in range(auth_module.LOGIN_ATTEMPTS):
        assert await _login(client, "guess", guesser, PUBLIC) == 401
    assert await _login(client, CREDENTIALS[1], guesser, PUBLIC) == 429
    arbiter = _via_proxy("198.51.100.7")
    assert await _login(client, CREDENTIALS[1], arbiter, PUBLIC) == 200


async def test_forwarded_headers_from_an_untrusted_peer_are_ignored(
    plain: tuple[TestClient, EventService, Clock],
) -> None:
    client, _, _ = plain
    for i in range(auth_module.LOGIN_ATTEMPTS):
        spoof = {"X-Forwarded-For": f"203.0.113.{i}", "X-Forwarded-Proto": "https"}
        await client.get(BOARDS, headers={**WRONG, **spoof})
    fresh = {"X-Forwarded-For": "192.0.2.200"}
    assert (await client.get(BOARDS, headers={**BASIC, **fresh})).status == 429
    page = await client.get("/arbiter/login", headers={"X-Forwarded-Proto": "https"})
    assert all("Secure" not in h for h in page.headers.getall("Set-Cookie"))


def test_proxy_settings_reject_nonsense() -> None:
    with pytest.raises(ValueError, match="not an IP address"):
        make_settings(["proxy.local"], None)
    with pytest.raises(ValueError, match="public URL"):
        make_settings([], "live.example.org")
    with pytest.raises(ValueError, match="no path"):
        make_settings([], "https://live.example.org/desk")


# -- hostile bodies and messages ----------------------------------------------------------------


async def test_deeply_nested_websocket_message_closes_with_one_log_line(
    plain: tuple[TestClient, EventService, Clock], caplog: pytest.LogCaptureFixture
) -> None:
    client, _, _ = plain
    nested = "[" * 2_000 + "]" * 2_000  # under the 4 KiB message limit
    caplog.set_level(logging.WARNING)
    for _ in range(3):
        ws = await client.ws_connect("/ws")
        await ws.send_str(nested)
        msg = await ws.receive(timeout=30)
        assert msg.type in (WSMsgType.CLOSE, WSMsgType.CLOSED, WSMsgType.CLOSING)
        assert ws.close_code == WSCloseCode.POLICY_VIOLATION
        await ws.close()
    lines = [r for r in caplog.records if "nested too deeply" in r.getMessage()]
    assert len(lines) == 1  # rate-limited
    assert not any(r.exc_info for r in caplog.records)


async def test_arbiter_api_answers_400_to_a_nested_body(
    plain: tuple[TestClient, EventService, Clock],
) -> None:
    client, _, _ = plain
    response = await client.post(
        "/api/v1/arbiter/byes",
        data="[" * 100_000 + "]" * 100_000,
        headers={**BASIC, "Content-Type": "application/json"},
    )
    assert response.status == 400
    assert "nested" in (await response.json())["error"]


async def test_error_pages_carry_the_security_headers_and_no_host_echo(
    plain: tuple[TestClient, EventService, Clock],
) -> None:
    client, _, _ = plain
    evil = "evil.example'; script-src *"
    for path in ("/no-such-page", "/static/nothing.js", "/"):
        response = await client.get(path, headers={"Host": evil})
        assert response.headers["X-Content-Type-Options"] == "nosniff", path
        assert response.headers["X-Frame-Options"] == "DENY", path
        csp = response.headers["Content-Security-Policy"]
        assert "evil" not in csp and "connect-src 'self'" in csp, path


async def test_board_assignment_is_checked_against_the_hall(
    plain: tuple[TestClient, EventService, Clock],
) -> None:
    client, service, _ = plain
    pairing = service.tournament.section("Masters").rounds[1].pairings[0]
    body = {"section": "Masters", "round": 1, "white": pairing.white, "board": 999999999999}
    response = await client.post("/api/v1/arbiter/boards/assign", json=body, headers=BASIC)
    assert response.status == 422
    assert "not a board of Masters" in (await response.json())["error"]
    body["board"] = 4
    response = await client.post("/api/v1/arbiter/boards/assign", json=body, headers=BASIC)
    # Board 4 carries a game in play: a swap only on purpose, and confirmed.
    assert response.status == 422 and "swap" in (await response.json())["error"]
    body["swap"] = True
    response = await client.post("/api/v1/arbiter/boards/assign", json=body, headers=BASIC)
    assert response.status == 409, await response.text()
    body["confirm"] = (await response.json())["confirm"]["token"]
    response = await client.post("/api/v1/arbiter/boards/assign", json=body, headers=BASIC)
    assert response.status == 200, await response.text()


async def test_websockets_work_through_the_proxy(proxied: tuple[TestClient, Clock]) -> None:
    client, _ = proxied
    ws = await client.ws_connect("/ws", headers={**_via_proxy("198.51.100.7"), "Origin": PUBLIC})
    await ws.send_json({"type": "ping"})
    assert (await ws.receive_json(timeout=30)) == {"type": "pong"}
    await ws.close()
