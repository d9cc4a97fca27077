"""Schema-driven fuzz of the whole JSON API (schemathesis), public and arbiter (logged in
with HTTP Basic, so bodies reach the service): no 5xx, and every answer conforms to the
OpenAPI description (documented status, content type and body schema; 405 for methods a
route does not have; invalid input refused with a 4xx).

A bounded number of examples per operation keeps it well under a minute. The one check
left out is "a schema-valid request is accepted": the state can refuse a valid request
(no such alert, a result the regulations refuse), which the description documents as 422.
"""

from __future__ import annotations

from base64 import b64encode
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import positive_data_acceptance

from tests.support.web_app import CREDENTIALS, ServerThread
from web.keys import AUTH
from web.limits import WebLimits
from web.openapi import document

schema = schemathesis.openapi.from_dict(document())
BASIC = {"Authorization": "Basic " + b64encode(":".join(CREDENTIALS).encode()).decode()}
EXAMPLES = 25


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerThread]:
    tmp: Path = tmp_path_factory.mktemp("fuzz")
    # One address at full speed, some checks on fresh connections: no connection limit.
    limits = WebLimits(new_per_address_rate=1e6, new_per_address_burst=1_000_000)
    with ServerThread(tmp, delay=0.0, limits=limits) as s:
        yield s


@pytest.fixture(scope="module")
def session() -> Iterator[requests.Session]:
    with requests.Session() as s:  # keep-alive, as a script or a relay would
        yield s


@schema.parametrize()
# The server's loop runs in a thread of this process, which shares the GIL with
# schemathesis making the next case: a request's step waits for it while it computes.
@pytest.mark.blocks_loop(3)
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
def test_every_answer_conforms(
    case: schemathesis.Case, server: ServerThread, session: requests.Session
) -> None:
    headers = BASIC if "/arbiter/" in case.path else None
    # The checks send wrong passwords on purpose (they must get 401): forget those strikes,
    # or the guess limit would lock the right password out of the next examples (429).
    auth = server.runner.app[AUTH]
    server.loop.call_soon_threadsafe(auth.strikes.clear)
    case.call_and_validate(
        base_url=server.url,
        headers=headers,
        session=session,
        timeout=10,
        additional_checks=[not_a_server_error],
        excluded_checks=[positive_data_acceptance],
    )
