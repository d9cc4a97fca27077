"""Every answer of the arbiter's side is `Cache-Control: no-store` (issue 29, F12): the
arbiter API's JSON and the desk's JSON carry the live state the broadcast delay still
hides, so no cache (a browser's, a proxy's) may keep them; errors and redirects too."""

from __future__ import annotations

import re
from base64 import b64encode

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient

from tests.support.web_app import CREDENTIALS

BASIC = {"Authorization": "Basic " + b64encode(":".join(CREDENTIALS).encode()).decode()}
WRONG = {"Authorization": "Basic " + b64encode(b"arbiter:guess").decode()}
GAME = "masters-r1-b1"
PARAMETERS = {
    "game": GAME,
    "action": "nope",
    "alert": "nope",
    "seq": "1",
    "section": "masters",
    "round": "1",
    "team": "1",
}


def _arbiter_routes(app: web.Application) -> list[tuple[str, str]]:
    """(method, path with its parameters filled in) of every route of the arbiter's side."""
    found = []
    for route in app.router.routes():
        info = route.resource.get_info() if route.resource is not None else {}
        path = info.get("path") or info.get("formatter")
        if (
            not path
            or route.method == "HEAD"
            or not path.startswith(("/arbiter", "/api/v1/arbiter"))
        ):
            continue
        if path in ("/arbiter/ws", "/arbiter/logout"):
            continue  # a websocket's upgrade; logout ends the session the loop uses
        found.append((route.method, re.sub(r"\{(\w+)\}", lambda m: PARAMETERS[m.group(1)], path)))
    return found


async def _desk_session(client: TestClient) -> str:
    """Logs the test client in (its cookie jar keeps the session); the desk's CSRF token."""
    page = await client.get("/arbiter/login")
    token = re.search(r'name="login_token" value="([^"]+)"', await page.text())
    assert token is not None
    await client.post(
        "/arbiter/login",
        data={"login_token": token.group(1), "user": CREDENTIALS[0], "password": CREDENTIALS[1]},
        allow_redirects=False,
    )
    desk = await client.get("/arbiter")
    csrf = re.search(r'name="csrf" value="([^"]+)"', await desk.text())
    assert csrf is not None
    return csrf.group(1)


async def test_every_answer_of_the_arbiter_api_and_the_desk_is_no_store(
    client: TestClient,
) -> None:
    app = client.server.app
    assert app is not None
    routes = _arbiter_routes(app)
    assert len(routes) > 30  # the test sees the whole arbiter's side
    csrf = await _desk_session(client)
    statuses: dict[int, int] = {}
    for method, path in routes:
        if path.startswith("/api/"):
            # As the desk's script asks (the session and its token), with a body no route
            # accepts: each route answers, without acting.
            answer = await client.request(
                method,
                path,
                headers={"X-CSRF-Token": csrf, "Content-Type": "application/json"},
                data=b"[" if method == "POST" else None,
            )
        else:
            answer = await client.request(
                method,
                path,
                data={"csrf": csrf} if method == "POST" else None,
                allow_redirects=False,
            )
        statuses[answer.status] = statuses.get(answer.status, 0) + 1
        assert answer.headers.get("Cache-Control") == "no-store", (method, path, answer.status)
    # Real answers among them, and the routes' own refusals, not only the guard's.
    assert statuses.get(200, 0) >= 6 and statuses.get(400, 0) >= 20, statuses


@pytest.mark.parametrize(
    ("path", "headers"),
    [
        ("/api/v1/arbiter/boards", {}),  # 401: no credentials
        ("/api/v1/arbiter/boards", WRONG),  # 401: wrong ones
        ("/api/v1/arbiter/games/no-such-game", BASIC),  # 404
        ("/arbiter/closed.json", {}),  # 401 on the desk's JSON without a session
        ("/arbiter", {}),  # 303 to the login form
    ],
)
async def test_refusals_and_redirects_of_the_arbiters_side_are_no_store(
    client: TestClient, path: str, headers: dict[str, str]
) -> None:
    answer = await client.get(path, headers=headers, allow_redirects=False)
    assert answer.status in (303, 401, 404), answer.status
    assert answer.headers.get("Cache-Control") == "no-store"


async def test_public_answers_keep_their_own_caching(client: TestClient) -> None:
    # The public side is cached by its ETags (no-cache: revalidate), never no-store.
    answer = await client.get("/api/v1/standings")
    assert answer.status == 200 and answer.headers.get("Cache-Control") != "no-store"
