"""The Redis password kept out of the process list (the audit's F12): `mirror --redis
redis://:PASS@...` and `serve --publish redis://:PASS@...` put it in /proc/PID/cmdline,
which every user of the machine can read. Both now take it from a file
(`--redis-password-file`) or from BOARDWIRE_REDIS_PASSWORD, and warn about a URL on the
command line that holds one. Real processes, a real redis-server with `requirepass`."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from broadcast.publish.stream_format import StreamKeys
from tests.support.paths import ROOT
from tests.support.redis_server import RedisProcess
from tests.support.web_app import EVENT, free_port

PASSWORD = "correct-horse-battery-staple-7"
EVENT_NAME = "Pamplona Masters"


@pytest.fixture
def locked_redis(tmp_path: Path) -> Iterator[RedisProcess]:
    folder = tmp_path / "redis"
    folder.mkdir()
    server = RedisProcess(folder, persist=False, password=PASSWORD)
    server.start()
    yield server
    server.stop()


def _start(args: list[str], env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    environment = {k: v for k, v in os.environ.items() if k != "BOARDWIRE_REDIS_PASSWORD"}
    environment.update(env or {})
    return subprocess.Popen(
        [sys.executable, "-m", "broadcast.cli", *args],
        cwd=ROOT,
        env=environment,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _until_said(proc: subprocess.Popen[str], words: str, timeout: float = 30.0) -> str:
    """stderr up to the first line holding `words` (the process is stopped if it never
    comes; the timeout only ends a test that would hang)."""
    assert proc.stderr is not None
    seen = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        # poll, not select: a descriptor above 1,024 (a crowded worker) is out of select's range.
        waiting = select.poll()
        waiting.register(proc.stderr, select.POLLIN)
        if not waiting.poll(max(0.0, deadline - time.monotonic()) * 1000):
            break
        line = proc.stderr.readline()
        if not line:
            break
        seen.append(line)
        if words in line:
            return "".join(seen)
    proc.kill()
    out, err = proc.communicate()
    raise AssertionError(f"never said {words!r}:\n{''.join(seen)}{err}\n{out}")


def _stop(proc: subprocess.Popen[str]) -> str:
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=30)
    return out + err


def _cmdline(pid: int) -> bytes:
    return Path(f"/proc/{pid}/cmdline").read_bytes()


def _mirror_args(server: RedisProcess, *extra: str) -> list[str]:
    url = f"redis://127.0.0.1:{server.port}/0"
    return ["mirror", "--redis", url, "--event", EVENT_NAME, "--port", str(free_port()), *extra]


def test_a_mirror_takes_the_password_from_a_file(
    locked_redis: RedisProcess, tmp_path: Path
) -> None:
    secret = tmp_path / "redis-password"
    secret.write_text(PASSWORD + "\n")
    secret.chmod(0o600)
    proc = _start(_mirror_args(locked_redis, "--redis-password-file", str(secret)))
    try:
        # Connected and let in: it waits for the venue's stream, nothing refused.
        said = _until_said(proc, "no public stream for")
        assert PASSWORD.encode() not in _cmdline(proc.pid)
    finally:
        said_at_exit = _stop(proc)
    assert "refuses" not in said + said_at_exit and PASSWORD not in said + said_at_exit


def test_a_mirror_takes_the_password_from_the_environment(locked_redis: RedisProcess) -> None:
    proc = _start(_mirror_args(locked_redis), {"BOARDWIRE_REDIS_PASSWORD": PASSWORD})
    try:
        _until_said(proc, "no public stream for")
        assert PASSWORD.encode() not in _cmdline(proc.pid)
    finally:
        _stop(proc)


def test_a_wrong_password_is_said_with_where_to_put_the_right_one(
    locked_redis: RedisProcess,
) -> None:
    proc = _start(_mirror_args(locked_redis), {"BOARDWIRE_REDIS_PASSWORD": "wrong"})
    try:
        said = _until_said(proc, "refuses the password")
        assert "BOARDWIRE_REDIS_PASSWORD" in said and "wrong" not in said.split("password")[-1]
    finally:
        _stop(proc)


def test_a_password_in_a_command_line_url_is_warned_about_and_never_printed(
    locked_redis: RedisProcess,
) -> None:
    url = f"redis://:{PASSWORD}@127.0.0.1:{locked_redis.port}/0"
    proc = _start(["mirror", "--redis", url, "--event", EVENT_NAME, "--port", str(free_port())])
    said = ""
    try:
        said = _until_said(proc, "no public stream for")  # it still works
    finally:
        said += _stop(proc)
    assert "holds the Redis password" in said and "BOARDWIRE_REDIS_PASSWORD" in said
    assert PASSWORD not in said


def test_a_password_file_that_cannot_be_read_is_a_clear_refusal(tmp_path: Path) -> None:
    proc = _start(
        [
            "mirror",
            "--redis",
            "redis://127.0.0.1:1/0",
            "--event",
            EVENT_NAME,
            "--redis-password-file",
            str(tmp_path / "missing"),
        ]
    )
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 2
    assert "--redis-password-file" in err and "missing" in err and "cannot be read" in err
    assert "Traceback" not in err


def test_serve_publishes_with_the_password_from_the_environment(
    locked_redis: RedisProcess, tmp_path: Path
) -> None:
    url = f"redis://127.0.0.1:{locked_redis.port}/0"
    proc = _start(
        [
            "serve",
            str(EVENT),
            "--db",
            str(tmp_path / "journal.sqlite"),
            "--port",
            str(free_port()),
            "--round",
            "1",
            "--publish",
            url,
        ],
        {"BOARDWIRE_REDIS_PASSWORD": PASSWORD},
    )
    client = redis.Redis(host="127.0.0.1", port=locked_redis.port, password=PASSWORD)
    try:
        deadline = time.monotonic() + 60
        while not client.exists(StreamKeys.of(EVENT_NAME).stream):
            assert proc.poll() is None, _stop(proc)
            assert time.monotonic() < deadline, "the venue never wrote its stream"
            time.sleep(0.1)
        assert PASSWORD.encode() not in _cmdline(proc.pid)
    finally:
        client.close()
        said = _stop(proc)
    assert PASSWORD not in said
