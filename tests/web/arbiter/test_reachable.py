"""No crowd locks the arbiter out of the connections (issue 29, F3): spectators' requests
and websockets hold at most the cap less the arbiters' reserve, strangers on the
arbiter's side (the login form, wrong passwords) at most half the reserve, and idle
connections (kept alive between requests) make room at the cap. The open-file limit is
raised at start and the cap sized from it."""

from __future__ import annotations

import asyncio
import re
import resource
import subprocess
import sys
import textwrap
from base64 import b64encode
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest

from tests.support.web_app import CREDENTIALS, ROOT, free_port, make_service
from web import http_server
from web.app import start_web
from web.limits import WebLimits
from web.proxy import ProxySettings

BASIC = {"Authorization": "Basic " + b64encode(":".join(CREDENTIALS).encode()).decode()}
CAP = 24  # connections in all, for these tests
RESERVE = 8  # of them kept for the arbiter's side (a sixteenth of the cap, at least 8)


@pytest.fixture
async def port(tmp_path: Path) -> AsyncIterator[int]:
    service, _ = make_service(tmp_path)
    number = free_port()
    runner = await start_web(
        service,
        host="127.0.0.1",
        port=number,
        credentials=CREDENTIALS,
        limits=WebLimits(max_connections=CAP, header_timeout=60),
    )
    yield number
    await runner.cleanup()


def _session() -> aiohttp.ClientSession:
    # One connection per request or websocket, as a crowd of clients would have.
    return aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0, force_close=True))


def _browser() -> aiohttp.ClientSession:
    # Cookies from a numeric host (127.0.0.1), as a browser keeps them.
    return aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True))


async def _fill_with_websockets(
    session: aiohttp.ClientSession, url: str
) -> list[aiohttp.ClientWebSocketResponse]:
    """Spectators' websockets until the server refuses one (at most the whole cap)."""
    held = []
    for _ in range(CAP + 4):
        try:
            ws = await session.ws_connect(f"{url}/ws")
        except (aiohttp.WSServerHandshakeError, aiohttp.ClientConnectionError):
            break
        await ws.send_json({"type": "subscribe", "scope": "event"})
        await ws.receive(timeout=5)  # its snapshot: the socket is really being served
        held.append(ws)
    return held


async def _log_in(session: aiohttp.ClientSession, url: str) -> int:
    page = await session.get(f"{url}/arbiter/login")
    assert page.status == 200, page.status
    token = re.search(r'name="login_token" value="([^"]+)"', await page.text())
    assert token is not None
    answer = await session.post(
        f"{url}/arbiter/login",
        data={"login_token": token.group(1), "user": CREDENTIALS[0], "password": CREDENTIALS[1]},
        allow_redirects=False,
    )
    return answer.status


async def _slow_post(
    port: int, path: str, source: str
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A stranger's POST whose body never finishes arriving (it holds its connection for
    the body timeout)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
    writer.write(
        f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded"
        "\r\nContent-Length: 100\r\n\r\nuser=".encode()
    )
    await writer.drain()
    return reader, writer


async def test_spectators_websockets_leave_the_desk_and_the_api_reachable(port: int) -> None:
    url = f"http://127.0.0.1:{port}"
    async with _session() as crowd, _browser() as arbiter:
        assert await _log_in(arbiter, url) == 303  # the arbiter was at the desk already
        held = await _fill_with_websockets(crowd, url)
        try:
            async with aiohttp.ClientSession() as script:
                boards = await script.get(f"{url}/api/v1/arbiter/boards", headers=BASIC)
                assert boards.status == 200
            desk = await arbiter.get(f"{url}/arbiter", allow_redirects=False)
            assert desk.status == 200 and "Arbiter" in await desk.text()
            async with _browser() as newcomer:  # a fresh login works too
                assert await _log_in(newcomer, url) == 303
            # The spectators got their share, and no more: the reserve is the arbiters'.
            assert len(held) == CAP - RESERVE
            # Spectators still get an answer, and a plain one: busy, try again.
            async with crowd.get(f"{url}/api/v1/event") as refused:
                assert refused.status == 503 and "Retry-After" in refused.headers
        finally:
            for ws in held:
                await ws.close()


async def test_strangers_take_half_the_reserve_at_most(port: int) -> None:
    url = f"http://127.0.0.1:{port}"
    async with _session() as crowd, _browser() as arbiter:
        assert await _log_in(arbiter, url) == 303
        held = await _fill_with_websockets(crowd, url)
        # Then strangers on the arbiter's side, from several addresses: half-sent logins
        # and API calls, as many as the rest of the cap.
        slow = [
            await _slow_post(
                port,
                "/arbiter/login" if i % 2 else "/api/v1/arbiter/results",
                f"127.0.3.{i % 4 + 1}",
            )
            for i in range(CAP - len(held))
        ]
        try:
            async with aiohttp.ClientSession() as script:
                boards = await script.get(f"{url}/api/v1/arbiter/boards", headers=BASIC)
                assert boards.status == 200
            desk = await arbiter.get(f"{url}/arbiter", allow_redirects=False)
            assert desk.status == 200
            refused = 0
            for reader, _ in slow:
                try:
                    head = await asyncio.wait_for(reader.read(100), 0.25)
                except TimeoutError:
                    continue  # held: waiting for its body
                assert head.startswith(b"HTTP/1.1 503"), head
                refused += 1
            assert len(slow) - refused == RESERVE // 2  # held; the others were refused
        finally:
            for _, writer in slow:
                writer.close()
            for ws in held:
                await ws.close()


async def test_idle_kept_alive_connections_make_room_for_the_arbiter(port: int) -> None:
    url = f"http://127.0.0.1:{port}"
    idle = []
    try:
        for _ in range(CAP):  # every connection has had its answer and waits, kept alive
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(b"GET /api/v1/event HTTP/1.1\r\nHost: x\r\n\r\n")
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
            assert head.startswith(b"HTTP/1.1 200"), head
            length = int(re.search(rb"Content-Length: (\d+)", head).group(1))  # type: ignore[union-attr]
            await reader.readexactly(length)
            idle.append((reader, writer))
        async with aiohttp.ClientSession() as script:
            boards = await script.get(f"{url}/api/v1/arbiter/boards", headers=BASIC)
            assert boards.status == 200
        oldest, _ = idle[0]
        assert await asyncio.wait_for(oldest.read(), 5) == b""  # closed to make room
    finally:
        for _, writer in idle:
            writer.close()


def test_the_shares_of_the_cap() -> None:
    Side = http_server.Side
    guard = http_server.ConnectionGuard(WebLimits(), ProxySettings(), 100, arbiter_reserve=10)
    for _ in range(90):
        assert guard.enter(Side.SPECTATOR) is None
    assert "limit 90" in (guard.enter(Side.SPECTATOR) or "")
    for i in range(4):
        assert guard.enter(Side.STRANGER, f"10.0.0.{i // 2}") is None
    assert "from 10.0.0.1" in (guard.enter(Side.STRANGER, "10.0.0.1") or "")  # 2 a client
    assert guard.enter(Side.STRANGER, "10.0.0.9") is None
    assert "limit 5" in (guard.enter(Side.STRANGER, "10.0.0.8") or "")  # half the reserve
    guard.leave(Side.STRANGER, "10.0.0.1")
    assert guard.enter(Side.STRANGER, "10.0.0.1") is None
    for _ in range(10):  # the arbiter's own requests are never refused for a share
        assert guard.enter(Side.ARBITER) is None
    guard.leave(Side.SPECTATOR)
    assert guard.enter(Side.SPECTATOR) is None
    assert guard.refused_requests == {Side.SPECTATOR: 1, Side.STRANGER: 2, Side.ARBITER: 0}
    assert http_server.default_arbiter_reserve(896) == 56
    assert http_server.default_arbiter_reserve(CAP) == RESERVE
    assert http_server.default_arbiter_reserve(57_344) == 64
    with pytest.raises(ValueError, match="reserve"):
        http_server.ConnectionGuard(WebLimits(), ProxySettings(), 10, arbiter_reserve=10)


RAISED = textwrap.dedent(
    """
    import resource, sys
    sys.path[:0] = [sys.argv[1]]
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (256, hard))
    from web.http_server import MAX_OPEN_FILES, default_max_connections, raise_open_file_limit
    want = MAX_OPEN_FILES if hard == resource.RLIM_INFINITY else min(hard, MAX_OPEN_FILES)
    assert raise_open_file_limit() == want
    assert resource.getrlimit(resource.RLIMIT_NOFILE) == (want, hard)
    print(default_max_connections())
    """
)


def test_the_open_file_limit_is_raised_to_the_hard_limit_and_the_cap_follows() -> None:
    out = subprocess.run(
        [sys.executable, "-c", RAISED, str(ROOT)], capture_output=True, text=True, check=False
    )
    assert out.returncode == 0, out.stderr
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]  # the child's too
    if hard == resource.RLIM_INFINITY or hard > 1024:  # more than the usual soft limit
        assert int(out.stdout) > http_server.default_max_connections(1024)


async def test_a_body_cut_off_by_its_client_is_no_server_error(port: int) -> None:
    # Anybody can start a POST and hang up half-way: that is the client's doing, not an
    # "unexpected error" with a traceback in the log (the conftest fails a test on any
    # ERROR record), and the server goes on.
    for path in ("/arbiter/login", "/api/v1/arbiter/results", "/api/v1/event"):
        _, writer = await _slow_post(port, path, "127.0.0.1")
        await asyncio.sleep(0.05)  # the server is reading the body
        writer.close()
        await writer.wait_closed()
    await asyncio.sleep(0.1)
    async with aiohttp.ClientSession() as script:
        boards = await script.get(f"http://127.0.0.1:{port}/api/v1/arbiter/boards", headers=BASIC)
        assert boards.status == 200
