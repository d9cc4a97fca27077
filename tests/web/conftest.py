"""Fixtures of the web package's tests: the app in-process (aiohttp's test client) over a
service on virtual time. A test module sets `DELAY` for a public view behind the delay."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from aiohttp.test_utils import TestClient, TestServer

from broadcast.service.event_service import EventService
from clocks.timesource import ManualTime
from tests.support.web_app import CREDENTIALS, make_service
from web.app import build_app


@pytest.fixture
async def env(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[tuple[TestClient, EventService, ManualTime]]:
    """The app's client, its service and its clock; the delay is the module's `DELAY` (0)."""
    service, clock = make_service(tmp_path, delay=getattr(request.module, "DELAY", 0.0))
    client = TestClient(TestServer(build_app(service, CREDENTIALS)))
    await client.start_server()
    yield client, service, clock
    await client.close()
