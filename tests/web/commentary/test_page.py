"""The commentators' live channel (`web.commentary.page`): who gets in (a commentator, the
arbiter; nobody else), that a commentator can act on nothing, that it shows what the
delay still hides from the public, and that it never reaches a mirror."""

from __future__ import annotations

import json
import re
from base64 import b64encode
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from aiohttp import WSMsgType, web
from aiohttp.test_utils import TestClient, TestServer

from broadcast.service.event_service import EventService
from tests.support.web_app import CREDENTIALS, make_service, play_moves
from web.app import build_app, build_mirror_app
from web.auth import SESSION_COOKIE

COMMENTATOR = ("press", "a quiet voice in the press room")
GAME = "masters-r1-b1"
DELAY = 900.0


def _basic(user: str, password: str) -> dict[str, str]:
    return {"Authorization": "Basic " + b64encode(f"{user}:{password}".encode()).decode()}


@pytest.fixture
async def venue(tmp_path: Path) -> AsyncIterator[tuple[TestClient, EventService]]:
    service, _ = make_service(tmp_path, delay=DELAY)
    app = build_app(service, CREDENTIALS, commentator=COMMENTATOR)
    client = TestClient(TestServer(app))
    await client.start_server()
    yield client, service
    await client.close()


async def _login(client: TestClient, path: str, user: str, password: str) -> str:
    page = await (await client.get(f"{path}/login")).text()
    token = re.search(r'name="login_token" value="([^"]+)"', page)
    assert token is not None
    response = await client.post(
        f"{path}/login",
        data={"login_token": token.group(1), "user": user, "password": password},
        allow_redirects=False,
    )
    assert response.status == 303
    return response.headers["Location"]


async def test_the_public_is_sent_to_the_login_or_refused(
    venue: tuple[TestClient, EventService],
) -> None:
    client, _ = venue
    page = await client.get("/commentary", allow_redirects=False)
    assert page.status == 303 and page.headers["Location"] == "/commentary/login"
    assert page.headers["Cache-Control"] == "no-store"
    api = await client.get(f"/commentary/api/games/{GAME}")
    assert api.status == 401 and api.headers["Cache-Control"] == "no-store"
    ws = await client.get("/commentary/ws")
    assert ws.status == 401
    wrong = await client.get(f"/commentary/api/games/{GAME}", headers=_basic("press", "guess"))
    assert wrong.status == 401


async def test_a_wrong_password_does_not_log_in(venue: tuple[TestClient, EventService]) -> None:
    client, _ = venue
    assert await _login(client, "/commentary", "press", "guess") == "/commentary/login?m=wrong"
    assert (await client.get("/commentary", allow_redirects=False)).status == 303


@pytest.mark.parametrize("who", [COMMENTATOR, CREDENTIALS], ids=["commentator", "arbiter"])
async def test_the_commentator_and_the_arbiter_get_in(
    venue: tuple[TestClient, EventService], who: tuple[str, str]
) -> None:
    client, _ = venue
    assert await _login(client, "/commentary", *who) == "/commentary"
    page = await client.get("/commentary")
    assert page.status == 200 and page.headers["Cache-Control"] == "no-store"
    assert 'data-channel="commentary"' in await page.text()
    by_script = await client.get(f"/commentary/api/games/{GAME}", headers=_basic(*who))
    assert by_script.status == 200


async def test_the_arbiters_desk_session_opens_the_commentary(
    venue: tuple[TestClient, EventService],
) -> None:
    client, _ = venue
    assert await _login(client, "/arbiter", *CREDENTIALS) == "/arbiter"
    assert (await client.get("/commentary")).status == 200


def _arbiter_routes(app: web.Application) -> list[tuple[str, str]]:
    found = []
    for route in app.router.routes():
        info = route.resource.get_info() if route.resource is not None else {}
        path = info.get("path") or info.get("formatter")
        if not path or route.method == "HEAD" or path in ("/arbiter/login", "/arbiter/logout"):
            continue
        if path.startswith(("/arbiter", "/api/v1/arbiter")):
            found.append((route.method, re.sub(r"\{(\w+)\}", "1", path)))
    return found


async def test_a_commentator_can_act_on_nothing(venue: tuple[TestClient, EventService]) -> None:
    client, service = venue
    await _login(client, "/commentary", *COMMENTATOR)
    token = next(c.value for c in client.session.cookie_jar if c.key == "bw_commentary")
    app = client.server.app
    assert app is not None
    routes = _arbiter_routes(app)
    assert len(routes) > 30  # the whole arbiter's side
    before = service.last_seq
    for method, path in routes:
        # The commentator's own session token, in the arbiter's cookie, and the
        # commentator's credentials by Basic: neither is the arbiter.
        # (Basic with the commentator's password is a wrong arbiter password: counted, so
        # after a few it is 429, a refusal too.)
        for headers in (
            {"Cookie": f"{SESSION_COOKIE}={token}"},
            {**_basic(*COMMENTATOR), "Content-Type": "application/json"},
        ):
            answer = await client.request(
                method, path, headers=headers, data=b"{}", allow_redirects=False
            )
            assert answer.status in (303, 401, 403, 429), (method, path, answer.status)
            if answer.status == 303:
                assert answer.headers["Location"] == "/arbiter/login", (method, path)
    assert service.last_seq == before  # nothing journaled


async def test_the_live_view_shows_a_move_the_delay_still_hides(
    venue: tuple[TestClient, EventService],
) -> None:
    client, service = venue
    play_moves(service, GAME, ["e4", "e5"])
    public = await (await client.get(f"/api/v1/games/{GAME}")).json()
    assert public["moves"] == []  # played a moment ago: the public waits DELAY seconds
    live = await (
        await client.get(f"/commentary/api/games/{GAME}", headers=_basic(*COMMENTATOR))
    ).json()
    assert [m["san"] for m in live["moves"]] == ["e4", "e5"]
    # The live websocket says so too, with no delay; the public one does not.
    await _login(client, "/commentary", *COMMENTATOR)
    async with client.ws_connect("/commentary/ws") as ws:
        await ws.send_str(json.dumps({"type": "subscribe", "scope": "game", "game": GAME}))
        snap = json.loads((await ws.receive()).data)
    assert snap["type"] == "snapshot" and snap["delay"] == 0
    assert "e5" in json.dumps(snap["data"])
    async with client.ws_connect("/ws") as ws:
        await ws.send_str(json.dumps({"type": "subscribe", "scope": "game", "game": GAME}))
        snap = json.loads((await ws.receive()).data)
    assert snap["delay"] == DELAY and "e5" not in json.dumps(snap["data"])


async def test_the_channel_is_off_without_a_commentator_login(tmp_path: Path) -> None:
    service, _ = make_service(tmp_path, delay=DELAY)
    client = TestClient(TestServer(build_app(service, CREDENTIALS)))
    await client.start_server()
    try:
        answer = await client.get(f"/commentary/api/games/{GAME}", headers=_basic(*CREDENTIALS))
        assert answer.status == 403 and "BOARDWIRE_COMMENTATOR_PASSWORD" in await answer.text()
    finally:
        await client.close()


async def test_the_channel_never_reaches_a_mirror(tmp_path: Path) -> None:
    service, _ = make_service(tmp_path, delay=DELAY)
    play_moves(service, GAME, ["e4"])
    app = build_mirror_app(service.public_view)
    paths = [
        route.resource.canonical for route in app.router.routes() if route.resource is not None
    ]
    assert not [p for p in paths if p.startswith("/commentary")]
    client = TestClient(TestServer(app))
    await client.start_server()
    try:
        for path in ("/commentary", "/commentary/ws", f"/commentary/api/games/{GAME}"):
            answer = await client.get(path, headers=_basic(*COMMENTATOR))
            assert answer.status == 404, path
        async with client.ws_connect("/ws") as ws:
            await ws.send_str(json.dumps({"type": "subscribe", "scope": "live"}))
            msg = await ws.receive()
            assert msg.type == WSMsgType.TEXT
            assert json.loads(msg.data)["type"] == "error"
            # Asking for the commentators' channel on the public socket gets the public one.
            await ws.send_str(
                json.dumps(
                    {"type": "subscribe", "scope": "game", "game": GAME, "channel": "commentary"}
                )
            )
            snap = json.loads((await ws.receive()).data)
            assert snap["channel"] == "public" and "e4" not in json.dumps(snap["data"])
    finally:
        await client.close()


async def test_the_public_gets_no_live_game_page(venue: tuple[TestClient, EventService]) -> None:
    client, service = venue
    play_moves(service, GAME, ["e4", "e5", "Nf3"])
    page = await client.get(f"/commentary/game/{GAME}", allow_redirects=False)
    assert page.status == 303 and page.headers["Location"] == "/commentary/login"
    assert page.headers["Cache-Control"] == "no-store"
    guess = await client.get(f"/commentary/game/{GAME}", headers=_basic("press", "guess"))
    assert "Nf3" not in await guess.text()


async def test_a_commentator_sees_the_live_game_page(
    venue: tuple[TestClient, EventService],
) -> None:
    client, service = venue
    play_moves(service, GAME, ["e4", "e5", "Nf3"])
    public = await client.get(f"/game/{GAME}")
    assert public.status == 200 and "Nf3" not in await public.text()
    await _login(client, "/commentary", *COMMENTATOR)
    listing = await (await client.get("/commentary")).text()
    assert f'href="/commentary/game/{GAME}"' in listing
    assert f'href="/game/{GAME}"' not in listing
    live = await client.get(f"/commentary/game/{GAME}")
    assert live.status == 200 and live.headers["Cache-Control"] == "no-store"
    text = await live.text()
    assert "Nf3" in text
    assert 'data-scope="game" data-channel="commentary"' in text  # live.js: /commentary/ws
    missing = await client.get("/commentary/game/nobody-r9-b9")
    assert missing.status == 404 and missing.headers["Cache-Control"] == "no-store"


async def test_a_mirror_has_no_live_game_page(tmp_path: Path) -> None:
    service, _ = make_service(tmp_path, delay=DELAY)
    play_moves(service, GAME, ["e4", "e5", "Nf3"])
    client = TestClient(TestServer(build_mirror_app(service.public_view)))
    await client.start_server()
    try:
        answer = await client.get(f"/commentary/game/{GAME}", headers=_basic(*COMMENTATOR))
        assert answer.status == 404 and "Nf3" not in await answer.text()
    finally:
        await client.close()
