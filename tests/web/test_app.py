"""The web app's parts are each closed on their own (aiohttp's `cleanup_ctx`): one that
fails to close leaves none of the others open."""

from __future__ import annotations

from pathlib import Path

import pytest
from aiohttp.test_utils import TestClient, TestServer

from tests.support.web_app import CREDENTIALS, make_service
from web.app import build_app
from web.keys import ANSWERS, HUB, PREVIEWS


def _wrap(part: object, name: str, closed: list[str], failing: str) -> None:
    original = part.close  # type: ignore[attr-defined]

    if name == "hub":

        async def close_async() -> None:
            await original()
            closed.append(name)
            if name == failing:
                raise RuntimeError(f"{name} close bug")

        part.close = close_async  # type: ignore[attr-defined]
        return

    def close() -> None:
        original()
        closed.append(name)
        if name == failing:
            raise RuntimeError(f"{name} close bug")

    part.close = close  # type: ignore[attr-defined]


@pytest.mark.parametrize("failing", ["answers", "previews", "pairer"])
async def test_a_part_that_fails_to_close_leaves_the_others_closed(
    tmp_path: Path, failing: str
) -> None:
    service, _ = make_service(tmp_path, delay=0.0)
    app = build_app(service, CREDENTIALS)
    closed: list[str] = []
    for name, part in {
        "hub": app[HUB],
        "answers": app[ANSWERS],
        "previews": app[PREVIEWS],
        "pairer": service.pairer,
    }.items():
        _wrap(part, name, closed, failing)
    client = TestClient(TestServer(app))
    await client.start_server()
    assert app[HUB].on_commit in service.listeners  # the hub follows the commits
    with pytest.raises(RuntimeError, match=f"{failing} close bug"):  # raised, after all
        await client.close()
    assert {"hub", "answers", "previews", "pairer"} <= set(closed)
    assert app[HUB].on_commit not in service.listeners


@pytest.mark.expected_log(r"the web hub failed to close at shutdown")
async def test_a_hub_that_fails_to_close_leaves_the_others_closed(tmp_path: Path) -> None:
    service, _ = make_service(tmp_path, delay=0.0)
    app = build_app(service, CREDENTIALS)
    closed: list[str] = []
    for name, part in {
        "hub": app[HUB],
        "answers": app[ANSWERS],
        "previews": app[PREVIEWS],
        "pairer": service.pairer,
    }.items():
        _wrap(part, name, closed, "hub")
    client = TestClient(TestServer(app))
    await client.start_server()
    with pytest.raises(RuntimeError, match="hub close bug"):  # its cleanup's turn: raised
        await client.close()
    assert {"answers", "previews", "pairer"} <= set(closed)
