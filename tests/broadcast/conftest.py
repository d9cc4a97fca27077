"""Fixtures of the broadcast package's tests: a real redis-server for the publishers, the
mirror and the stream (Debian's package, on a free port, one per test)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.redis_server import RedisProcess


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[RedisProcess]:
    """A persisting redis-server for one test, stopped after it."""
    folder = tmp_path / "redis"
    folder.mkdir()
    server = RedisProcess(folder)
    server.start()
    yield server
    server.stop()
