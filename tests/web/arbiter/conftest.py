"""Fixtures of the desk's and the arbiter API's tests."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from aiohttp.test_utils import TestClient, TestServer

from tests.support.web_app import CREDENTIALS, make_service
from web.app import build_app


@pytest.fixture
async def client(tmp_path: Path) -> AsyncIterator[TestClient]:
    """The app in-process over the Pamplona example, logged out."""
    service, _ = make_service(tmp_path)
    test_client = TestClient(TestServer(build_app(service, CREDENTIALS)))
    await test_client.start_server()
    yield test_client
    await test_client.close()
