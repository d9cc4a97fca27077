"""Schema-driven fuzz of the JSON API (schemathesis): no request may get a 5xx.

The arbiter routes are fuzzed logged in (HTTP Basic), so their bodies reach the service.
"""

from __future__ import annotations

from base64 import b64encode
from collections.abc import Iterator
from pathlib import Path

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from web_support import CREDENTIALS, ServerThread

from web.openapi import document

schema = schemathesis.openapi.from_dict(document())
BASIC = {"Authorization": "Basic " + b64encode(":".join(CREDENTIALS).encode()).decode()}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerThread]:
    tmp: Path = tmp_path_factory.mktemp("fuzz")
    with ServerThread(tmp, delay=0.0) as s:
        yield s


@schema.parametrize()
@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
def test_no_server_errors(case: schemathesis.Case, server: ServerThread) -> None:
    headers = BASIC if "/arbiter/" in case.path else None
    response = case.call(base_url=server.url, headers=headers, timeout=10)
    assert response.status_code < 500, f"{case.method} {case.formatted_path}: {response.text}"
