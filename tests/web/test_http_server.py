"""The HTTP server in front of the app (web.http_server): slowloris and connection floods,
parser errors answered plainly with the security headers and logged once a minute,
accept errors logged once a minute, and no `Server` header anywhere."""

from __future__ import annotations

import asyncio
import errno
import logging
import subprocess
import sys
import textwrap
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from aiohttp import ClientSession

from tests.support.web_app import CREDENTIALS, ROOT, free_port, make_service
from web.app import start_web
from web.http_server import ACCEPT_FAILED, default_max_connections
from web.limits import WebLimits
from web.proxy import make_settings

Served = tuple[int, object]


async def _serve(tmp: Path, limits: WebLimits | None = None, trusted: list[str] | None = None):  # type: ignore[no-untyped-def]
    service, _ = make_service(tmp)
    port = free_port()
    runner = await start_web(
        service,
        host="127.0.0.1",
        port=port,
        credentials=CREDENTIALS,
        proxy=make_settings(trusted or [], None),
        limits=limits,
    )
    return port, runner


@pytest.fixture
async def served(tmp_path: Path) -> AsyncIterator[tuple[int, object]]:
    port, runner = await _serve(tmp_path)
    yield port, runner
    await runner.cleanup()


async def _raw(port: int, data: bytes, *, source: str = "127.0.0.1") -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
    writer.write(data)
    await writer.drain()
    try:
        return await asyncio.wait_for(reader.read(65536), 5)
    finally:
        writer.close()


def _split(answer: bytes) -> tuple[str, dict[str, str], bytes]:
    head, _, body = answer.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return lines[0], headers, body


MARK = "zq-echo-mark"
BAD_REQUESTS = {
    "bad request line": f"GET /{MARK} HTTP/1.1 extra\r\nHost: x\r\n\r\n",
    "over-long header": f"GET / HTTP/1.1\r\nHost: x\r\nX-{MARK}: {'a' * 9000}\r\n\r\n",
    "duplicate Host": f"GET /{MARK} HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
    "bad Content-Length": f"POST /{MARK} HTTP/1.1\r\nHost: x\r\nContent-Length: 1{MARK}\r\n\r\n",
    "HTTP/9.9": f"GET /{MARK} HTTP/9.9\r\nHost: x\r\n\r\n",
    "space in a header name": f"GET /{MARK} HTTP/1.1\r\nHo st: y\r\nHost: x\r\n\r\n",
}


@pytest.mark.parametrize("kind", sorted(BAD_REQUESTS))
async def test_parser_errors_are_plain_and_carry_the_security_headers(
    served: Served, kind: str
) -> None:
    port, _ = served
    status, headers, body = _split(await _raw(port, BAD_REQUESTS[kind].encode()))
    assert status.split()[1].startswith("4"), status
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["x-frame-options"] == "DENY"
    assert headers["referrer-policy"] == "same-origin"
    assert "frame-ancestors 'none'" in headers["content-security-policy"]
    assert "server" not in headers
    assert MARK.encode() not in body and b"could not be read" in body


async def test_parser_errors_are_logged_once_a_minute_without_traceback(
    served: Served, caplog: pytest.LogCaptureFixture
) -> None:
    port, _ = served
    caplog.set_level(logging.DEBUG)
    for _ in range(60):
        await _raw(port, b"GET / HTTP/1.1\r\nHo st: y\r\nHost: x\r\n\r\n")
    lines = [r for r in caplog.records if "could not read an HTTP request" in r.getMessage()]
    assert len(lines) == 1 and lines[0].levelno == logging.WARNING
    assert not any(r.exc_info for r in caplog.records)
    assert not any(r.levelno >= logging.ERROR for r in caplog.records)


async def test_no_answer_names_the_server(served: Served) -> None:
    port, _ = served
    async with ClientSession() as session:
        for path in ("/", "/api/v1/event", "/static/style.css", "/nope", "/api/v1/nope"):
            async with session.get(f"http://127.0.0.1:{port}{path}") as response:
                assert "Server" not in response.headers, path
        async with session.ws_connect(f"http://127.0.0.1:{port}/ws") as ws:
            assert "Server" not in ws._response.headers  # the 101 of the upgrade
    _, headers, _ = _split(
        await _raw(port, b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    )
    assert "server" not in headers


async def test_half_open_connections_are_closed_after_the_header_timeout(tmp_path: Path) -> None:
    port, runner = await _serve(tmp_path, WebLimits(header_timeout=0.3))
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"GET / HTTP/1.1\r\nHost: x\r\n")  # and never the blank line
        await writer.drain()
        assert await asyncio.wait_for(reader.read(), 5) == b""  # closed by the server
        writer.close()
        # A request that arrives in time is served as always.
        status, _, _ = _split(await _raw(port, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n"))
        assert status.split()[1] == "200"
    finally:
        await runner.cleanup()


async def _half_open(port: int, source: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
    writer.write(b"GET / HTTP/1.1\r\n")
    await writer.drain()
    return reader, writer


async def test_one_address_cannot_hold_every_connection(tmp_path: Path) -> None:
    port, runner = await _serve(tmp_path, WebLimits(per_address=5), trusted=["127.0.0.3"])
    held = []
    try:
        for _ in range(5):
            held.append(await _half_open(port, "127.0.0.1"))
        status, headers, _ = _split(
            await _raw(port, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n", source="127.0.0.1")
        )
        assert status.split()[1] == "503" and headers["retry-after"]
        assert headers["x-content-type-options"] == "nosniff"
        assert headers["content-type"].startswith("application/json")
        status, _, _ = _split(
            await _raw(port, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n", source="127.0.0.2")
        )
        assert status.split()[1] == "200"  # everybody else gets in
        for _ in range(8):  # a trusted proxy speaks for many clients: not limited
            held.append(await _half_open(port, "127.0.0.3"))
        status, _, _ = _split(
            await _raw(port, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n", source="127.0.0.3")
        )
        assert status.split()[1] == "200"
    finally:
        for _, writer in held:
            writer.close()
        await runner.cleanup()


async def test_at_the_cap_the_oldest_half_open_connection_makes_room(tmp_path: Path) -> None:
    port, runner = await _serve(tmp_path, WebLimits(max_connections=6, header_timeout=60))
    held = []
    try:
        for i in range(6):
            held.append(await _half_open(port, f"127.0.1.{i + 1}"))
        status, _, _ = _split(
            await _raw(port, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n", source="127.0.0.2")
        )
        assert status.split()[1] == "200"
        oldest_reader, _ = held[0]
        assert await asyncio.wait_for(oldest_reader.read(), 5) == b""
    finally:
        for _, writer in held:
            writer.close()
        await runner.cleanup()


async def test_accept_errors_are_logged_once_a_minute(
    served: Served, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    loop = asyncio.get_running_loop()
    for _ in range(100):  # what asyncio reports when accept() fails with EMFILE
        loop.call_exception_handler(
            {"message": ACCEPT_FAILED, "exception": OSError(errno.EMFILE, "Too many open files")}
        )
    lines = [r for r in caplog.records if "cannot accept connections" in r.getMessage()]
    assert len(lines) == 1 and "EMFILE" in lines[0].getMessage()
    assert not any(r.exc_info for r in caplog.records)


def test_the_connection_cap_stays_below_the_open_file_limit() -> None:
    assert default_max_connections(1024) == 896
    assert default_max_connections(256) == 128
    assert default_max_connections(100) == 16


SLOWLORIS = textwrap.dedent(
    """
    import asyncio, resource, sys
    sys.path[:0] = [sys.argv[2], sys.argv[2] + "/tests"]
    resource.setrlimit(resource.RLIMIT_NOFILE, (256, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
    from pathlib import Path
    from tests.support.web_app import make_service
    from web.app import start_web

    async def main():
        service, _ = make_service(Path(sys.argv[3]))
        runner = await start_web(service, host="127.0.0.1", port=int(sys.argv[1]), credentials=None)
        print("ready", flush=True)
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)  # until EOF
        await runner.cleanup()

    asyncio.run(main())
    """
)


async def test_half_open_connections_at_the_file_limit_lock_nobody_out(tmp_path: Path) -> None:
    # The attack as reported: at a small open-file limit, far more half-open connections
    # than files, from several addresses (each under its own limit).
    port = free_port()
    script = tmp_path / "serve.py"
    script.write_text(SLOWLORIS, encoding="utf-8")
    server = subprocess.Popen(
        [sys.executable, str(script), str(port), str(ROOT), str(tmp_path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
    )
    held = []
    try:
        assert server.stdout is not None
        line = await asyncio.get_running_loop().run_in_executor(None, server.stdout.readline)
        assert line.strip() == b"ready"
        for i in range(330):
            try:
                held.append(await _half_open(port, f"127.0.2.{i % 6 + 1}"))
            except OSError:
                pass
        status, _, _ = _split(
            await _raw(port, b"GET /api/v1/event HTTP/1.1\r\nHost: x\r\n\r\n", source="127.0.0.9")
        )
        assert status.split()[1] == "200"
    finally:
        for _, writer in held:
            writer.close()
        _, err = await asyncio.get_running_loop().run_in_executor(
            None, lambda: server.communicate(b"", timeout=30)
        )
    assert len(err) < 4000, err[-2000:]
    assert b"Traceback" not in err
