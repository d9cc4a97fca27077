"""The web server: public JSON and PGN feeds from the delayed state, pages, the arbiter
API and desk (auth, CSRF, rate limit), the OpenAPI document. In-process, virtual time."""

from __future__ import annotations

import re
from base64 import b64encode
from pathlib import Path

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from broadcast.arbiter.alerts import Alert
from broadcast.arbiter.decisions import ActionTaken
from broadcast.games.game_events import ResultProposed
from broadcast.service.event_service import EventService
from clocks.timesource import ManualTime
from tests.support.web_app import CREDENTIALS, make_service, play_moves
from web import auth as auth_module
from web.app import build_app
from web.openapi import document

BASIC = {"Authorization": "Basic " + b64encode(":".join(CREDENTIALS).encode()).decode()}
GAME = "masters-r1-b1"


DELAY = 60.0  # the public view's delay in the `env` fixture


async def test_public_json_routes(env: tuple[TestClient, EventService, ManualTime]) -> None:
    client, _, _ = env
    event = await (await client.get("/api/v1/event")).json()
    assert event["name"] == "Pamplona Masters"
    assert event["sections"][0]["live_round"] == 1
    rnd = await (await client.get("/api/v1/rounds/1")).json()
    assert [g["id"] for g in rnd["games"]] == [f"masters-r1-b{b}" for b in (1, 2, 3, 4)]
    same = await (await client.get("/api/v1/sections/masters/rounds/1")).json()
    assert same == rnd
    standings = await (await client.get("/api/v1/standings")).json()
    assert len(standings) == 8 and set(standings[0]["tiebreaks"]) >= {"SB"}
    pairings = await (await client.get("/api/v1/pairings?section=Masters")).json()
    assert len(pairings) == 7 and len(pairings[0]["pairings"]) == 4


@pytest.mark.parametrize("delay", [0.0, 60.0])
async def test_event_shows_the_delay_in_force(tmp_path: Path, delay: float) -> None:
    # The example config says 900 s; `serve --delay` overrides it and the answer follows.
    service, _ = make_service(tmp_path, delay=delay)
    client = TestClient(TestServer(build_app(service, CREDENTIALS)))
    await client.start_server()
    try:
        event = await (await client.get("/api/v1/event")).json()
        assert event["broadcast_delay_seconds"] == delay
        assert service.config.broadcast_delay_seconds == 900
    finally:
        await client.close()


@pytest.mark.parametrize(
    ("path", "status"),
    [
        ("/api/v1/rounds/0", 400),
        ("/api/v1/rounds/x", 400),
        ("/api/v1/rounds/²", 400),  # a digit to str.isdigit, not to int()
        ("/api/v1/rounds/99", 404),
        ("/api/v1/sections/nope/rounds/1", 404),
        ("/api/v1/games/nope", 404),
        ("/api/v1/games/nope.pgn", 404),
        ("/api/v1/rounds/99.pgn", 404),
        ("/api/v1/standings?section=nope", 404),
        ("/api/v1/nothing", 404),
    ],
)
async def test_bad_requests_get_a_json_4xx(
    env: tuple[TestClient, EventService, ManualTime], path: str, status: int
) -> None:
    client, _, _ = env
    response = await client.get(path)
    assert response.status == status
    assert "error" in await response.json()


async def test_public_outputs_wait_for_the_delay(
    env: tuple[TestClient, EventService, ManualTime],
) -> None:
    client, service, clock = env
    play_moves(service, GAME, ["e4", "c5"])
    clock.advance(59)
    assert (await (await client.get(f"/api/v1/games/{GAME}")).json())["ply"] == 0
    assert "c5" not in await (await client.get(f"/api/v1/games/{GAME}.pgn")).text()
    assert "c5" not in await (await client.get("/api/v1/rounds/1.pgn")).text()
    assert "c5" not in await (await client.get("/api/v1/event.pgn")).text()
    assert 'class="san">c5<' not in await (await client.get(f"/game/{GAME}")).text()
    # The arbiter sees it at once.
    live = await (await client.get(f"/api/v1/arbiter/games/{GAME}", headers=BASIC)).json()
    assert live["ply"] == 2
    clock.advance(2)
    assert (await (await client.get(f"/api/v1/games/{GAME}")).json())["ply"] == 2
    pgn = await (await client.get("/api/v1/sections/masters/rounds/1.pgn")).text()
    assert "1. e4" in pgn and "c5" in pgn and '[GameId "masters-r1-b1"]' in pgn
    assert 'class="san">c5<' in await (await client.get(f"/game/{GAME}")).text()


async def test_pgn_feeds_are_pgn(env: tuple[TestClient, EventService, ManualTime]) -> None:
    client, _, _ = env
    response = await client.get("/api/v1/rounds/1.pgn")
    assert response.content_type == "application/x-chess-pgn"
    text = await response.text()
    assert text.count("[Event ") == 4
    # The event PGN holds the games that exist: round 1's (live), not the six future rounds'
    # games the round robin paired ahead (28 in all).
    assert (await (await client.get("/api/v1/event.pgn")).text()).count("[Event ") == 4


async def test_the_event_pgn_holds_only_games_that_exist(
    env: tuple[TestClient, EventService, ManualTime],
) -> None:
    client, service, _ = env
    assert len(service.book.games) == 28 and service.live_rounds() == {"Masters": 1}
    text = await (await client.get("/api/v1/event.pgn")).text()
    assert text.count("[Event ") == 4 and '[Round "2' not in text
    # offline (no live round): only games with a move or a result
    from broadcast.export.pgn import event_pgn

    assert event_pgn(service.book, service.config).count("[Event ") == 0
    play_moves(service, GAME, ["d4"])
    assert event_pgn(service.book, service.config).count("[Event ") == 1


async def test_pages_render_with_javascript_off(
    env: tuple[TestClient, EventService, ManualTime],
) -> None:
    client, service, clock = env
    play_moves(service, GAME, ["d4", "Nf6"])
    clock.advance(120)
    home = await (await client.get("/")).text()
    assert home.count('class="mini"') == 4 and "Errazkin, Mikel" in home
    game = await (await client.get(f"/game/{GAME}")).text()
    assert "Nf6" in game and 'class="board"' in game and "GM" in game and "2612" in game
    assert 'data-last="g8f6"' in game and "[GameId" in game
    flipped = await (await client.get(f"/game/{GAME}?flip=1")).text()
    assert 'data-flip="1"' in flipped
    standings = await (await client.get("/standings")).text()
    assert "Crosstable" in standings and "SB" in standings
    assert (await client.get("/round/1")).status == 200
    assert (await client.get("/game/nope")).status == 404
    # A section or round named wrongly: an error page that says what was wrong, not JSON.
    for path, status, says in (
        ("/round/x", 400, "round must be a positive number, not &#39;x&#39;"),
        ("/round/1?section=nope", 404, "no section &#39;nope&#39;"),
        ("/standings?section=nope", 404, "no section &#39;nope&#39;"),
    ):
        response = await client.get(path)
        assert response.status == status, path
        assert response.content_type == "text/html"
        assert says in await response.text(), path
    response = await client.get("/")
    assert "script-src 'self'" in response.headers["Content-Security-Policy"]


async def test_every_unknown_url_gets_the_branded_404(
    env: tuple[TestClient, EventService, ManualTime],
) -> None:
    """An unknown page, and a round beyond the section's rounds, is the event's own 404
    page with a way back; an unknown API path stays a JSON error."""
    client, service, _ = env
    rounds = service.config.sections[0].rounds
    assert (await client.get(f"/round/{rounds}")).status == 200
    for path, says in (
        ("/no/such/page", "There is no page &#39;/no/such/page&#39;"),
        ("/round/99", f"has {rounds} rounds: there is no round 99"),
        (f"/round/{rounds + 1}", f"there is no round {rounds + 1}"),
    ):
        response = await client.get(path)
        assert response.status == 404, path
        assert response.content_type == "text/html", path
        text = await response.text()
        assert says in text and '<a href="/">Back to the event</a>' in text, path
        assert service.config.name in text, path  # branded: the event's own page
        assert "script-src 'self'" in response.headers["Content-Security-Policy"], path
    response = await client.get("/api/v1/nothing")
    assert response.status == 404 and response.content_type == "application/json"


async def test_names_are_escaped(tmp_path: Path) -> None:
    from web import pages

    service, _ = make_service(tmp_path)
    game = service.book.get(GAME)
    from dataclasses import replace

    evil = replace(game, white=replace(game.white, name="<script>alert(1)</script>"))  # type: ignore[type-var]
    html = pages.game_page(service.config, evil, 0.0, flipped=False)
    assert "<script>alert(1)" not in html and "&lt;script&gt;" in html


async def test_openapi_describes_every_json_route(
    env: tuple[TestClient, EventService, ManualTime],
) -> None:
    client, _, _ = env
    doc = await (await client.get("/api/v1/openapi.json")).json()
    assert doc == document() and doc["openapi"].startswith("3.")
    app: web.Application = client.server.app  # type: ignore[attr-defined]
    routes = set()
    for resource in app.router.resources():
        info = resource.get_info()
        path = info.get("path") or info.get("formatter", "")
        if path.startswith("/api/v1/") and path != "/api/v1/openapi.json":
            routes.add(re.sub(r"\{(\w+):[^}]*\}", r"{\1}", path))
    assert routes == set(doc["paths"])


# -- arbiter API -------------------------------------------------------------------------------


async def test_arbiter_api_needs_login(env: tuple[TestClient, EventService, ManualTime]) -> None:
    client, _, _ = env
    response = await client.get("/api/v1/arbiter/boards")
    assert response.status == 401 and "Basic" in response.headers["WWW-Authenticate"]
    bad = {"Authorization": "Basic " + b64encode(b"arbiter:wrong").decode()}
    assert (await client.get("/api/v1/arbiter/boards", headers=bad)).status == 401
    boards = await (await client.get("/api/v1/arbiter/boards", headers=BASIC)).json()
    assert [b["number"] for b in boards] == [1, 2, 3, 4]


async def test_arbiter_api_disabled_without_password(tmp_path: Path) -> None:
    service, _ = make_service(tmp_path)
    async with TestClient(TestServer(build_app(service, None))) as client:
        assert (await client.get("/api/v1/arbiter/boards", headers=BASIC)).status == 403
        assert (await client.get("/arbiter")).status == 403


async def test_arbiter_actions_are_journaled_with_who(
    env: tuple[TestClient, EventService, ManualTime],
) -> None:
    client, service, _ = env
    play_moves(service, GAME, ["e4", "e5"])
    line = {"moves": ["d4", "d5", "c4"]}
    asked = await client.post(f"/api/v1/arbiter/games/{GAME}/line", json=line, headers=BASIC)
    # It removes the two plies played: 409 says so, and nothing changed yet.
    assert asked.status == 409, await asked.text()
    words = (await asked.json())["confirm"]
    assert words["removes"] == [
        "plies 1-2 (1.e4 to the end) of round 1 board 1 (Errazkin, Mikel – Sarasola, Iñigo)"
    ]
    assert [m.san for m in service.book.get(GAME).moves] == ["e4", "e5"]
    response = await client.post(
        f"/api/v1/arbiter/games/{GAME}/line",
        json={**line, "confirm": words["token"]},
        headers=BASIC,
    )
    assert response.status == 200, await response.text()
    assert [m["san"] for m in (await response.json())["moves"]] == ["d4", "d5", "c4"]
    response = await client.post(
        f"/api/v1/arbiter/games/{GAME}/result", json={"result": "1-0"}, headers=BASIC
    )
    assert (await response.json())["result"] == "1-0"
    bys = [getattr(e.event, "by", None) for e in service.journal.read()]
    assert bys.count("arbiter:arbiter") == 4  # each action's event, and its record
    records = [e.event for e in service.journal.read() if isinstance(e.event, ActionTaken)]
    assert [(r.kind, r.by) for r in records] == [
        ("line", "arbiter:arbiter"),
        ("result", "arbiter:arbiter"),
    ]
    response = await client.post(
        f"/api/v1/arbiter/games/{GAME}/result", json={"result": "2-0"}, headers=BASIC
    )
    assert response.status == 422 and "result must be" in (await response.json())["error"]
    response = await client.post(
        f"/api/v1/arbiter/games/{GAME}/line", json={"moves": ["e5"]}, headers=BASIC
    )
    assert response.status == 422


async def test_basic_auth_posts_must_be_json(
    env: tuple[TestClient, EventService, ManualTime],
) -> None:
    client, _, _ = env
    response = await client.post(
        f"/api/v1/arbiter/games/{GAME}/result", data={"result": "1-0"}, headers=BASIC
    )
    assert response.status == 415


async def test_alerts_and_acknowledgement(
    env: tuple[TestClient, EventService, ManualTime],
) -> None:
    client, service, clock = env
    alert = Alert(
        "a1", "battery-low", "warning", "Masters", 1, 1, GAME, (), "battery 9%", clock.now()
    )
    service.commit([alert])
    alerts = await (await client.get("/api/v1/arbiter/alerts", headers=BASIC)).json()
    assert [a["id"] for a in alerts] == ["a1"]
    response = await client.post("/api/v1/arbiter/alerts/a1/ack", json={}, headers=BASIC)
    assert response.status == 200
    assert await (await client.get("/api/v1/arbiter/alerts", headers=BASIC)).json() == []


async def test_arbiter_api_rejects_a_proposal_and_the_game_goes_on(
    env: tuple[TestClient, EventService, ManualTime],
) -> None:
    client, service, clock = env
    play_moves(service, GAME, ["e4", "e5"])
    service.commit([ResultProposed(GAME, "1/2-1/2", "kings-signal", clock.now(), "kings on e4/e5")])
    asked = await client.post(f"/api/v1/arbiter/games/{GAME}/reject", headers=BASIC)
    assert asked.status == 409  # a rejected proposal may be a right result lost: it asks
    token = (await asked.json())["confirm"]["token"]
    url = f"/api/v1/arbiter/games/{GAME}/reject?confirm={token}"
    response = await client.post(url, headers=BASIC)
    assert response.status == 200, await response.text()
    live = await response.json()
    assert (live["result"], live["proposal"], live["pending_result"]) == ("*", None, None)
    alerts = await (await client.get("/api/v1/arbiter/alerts", headers=BASIC)).json()
    assert [a for a in alerts if a["kind"] == "result-proposed"] == []
    again = await client.post(f"/api/v1/arbiter/games/{GAME}/reject", headers=BASIC)
    assert again.status == 422
    assert "no result waiting" in (await again.json())["error"]


async def test_arbiter_api_shows_the_proposal_and_its_alert_and_confirm_closes_it(
    env: tuple[TestClient, EventService, ManualTime],
) -> None:
    client, service, clock = env
    play_moves(service, GAME, ["e4", "e5"])
    service.commit([ResultProposed(GAME, "1/2-1/2", "kings-signal", clock.now(), "kings on e4/e5")])
    live = await (await client.get(f"/api/v1/arbiter/games/{GAME}", headers=BASIC)).json()
    assert live["result"] == "*" and live["result_code"] is None
    assert live["proposal"]["result"] == "1/2-1/2" and live["proposal"]["reason"] == "kings-signal"
    assert live["pending_result"] == {"result": "1/2-1/2", "reason": "kings signal"}
    alerts = await (await client.get("/api/v1/arbiter/alerts", headers=BASIC)).json()
    [alert] = [a for a in alerts if a["kind"] == "result-proposed"]
    assert (alert["game"], alert["result"], alert["reason_text"]) == (
        GAME,
        "1/2-1/2",
        "kings signal",
    )
    response = await client.post(f"/api/v1/arbiter/games/{GAME}/confirm", json={}, headers=BASIC)
    assert response.status == 200
    alerts = await (await client.get("/api/v1/arbiter/alerts", headers=BASIC)).json()
    assert [a for a in alerts if a["kind"] == "result-proposed"] == []
    live = await (await client.get(f"/api/v1/arbiter/games/{GAME}", headers=BASIC)).json()
    assert (live["result"], live["result_reason"], live["proposal"]) == (
        "1/2-1/2",
        "kings signal",
        None,
    )
    public = await (await client.get(f"/api/v1/games/{GAME}")).json()
    assert public["result"] == "*"  # the delay hides it
    clock.advance(61)
    public = await (await client.get(f"/api/v1/games/{GAME}")).json()
    assert (public["result"], public["result_reason"]) == ("1/2-1/2", "kings signal")


# -- the desk: sessions, CSRF, rate limit -----------------------------------------------------


async def _login(client: TestClient, password: str = CREDENTIALS[1]) -> int:
    page = await (await client.get("/arbiter/login")).text()
    token = re.search(r'name="login_token" value="([^"]+)"', page)
    assert token is not None
    response = await client.post(
        "/arbiter/login",
        data={"login_token": token.group(1), "user": CREDENTIALS[0], "password": password},
        allow_redirects=False,
    )
    return (
        response.status
        if response.status != 303
        else (200 if response.headers["Location"] == "/arbiter" else 401)
    )


async def test_desk_login_csrf_and_actions(
    env: tuple[TestClient, EventService, ManualTime],
) -> None:
    client, service, _ = env
    response = await client.get("/arbiter", allow_redirects=False)
    assert response.status == 303 and response.headers["Location"] == "/arbiter/login"
    assert await _login(client) == 200
    desk = await (await client.get("/arbiter")).text()
    assert CREDENTIALS[1] not in desk
    csrf = re.search(r'name="csrf" value="([^"]+)"', desk)
    assert csrf is not None
    # Without the token: refused, nothing journaled.
    before = service.journal.last_seq()
    response = await client.post(
        "/arbiter/act/result", data={"game": GAME, "result": "0-1"}, allow_redirects=False
    )
    assert response.status == 403 and service.journal.last_seq() == before
    response = await client.post(
        "/arbiter/act/result",
        data={"game": GAME, "result": "0-1", "csrf": csrf.group(1)},
        allow_redirects=False,
    )
    assert response.status == 303
    assert service.book.get(GAME).result == "0-1"
    # Moves typed as on a scoresheet.
    await client.post(
        "/arbiter/act/line",
        data={"game": GAME, "moves": "1. e4 e5 2. Nf3", "csrf": csrf.group(1)},
        allow_redirects=False,
    )
    assert [m.san for m in service.book.get(GAME).moves] == ["e4", "e5", "Nf3"]
    # The session's cookie with a JSON API POST needs the header token too.
    response = await client.post(f"/api/v1/arbiter/games/{GAME}/confirm", json={})
    assert response.status == 403
    white = service.tournament.section("Masters").rounds[2].pairings[0].white
    fields = {
        "section": "masters",
        "round": "2",
        "white": str(white),
        "board": "4",
        "csrf": csrf.group(1),
    }
    # A game's table taken away: the desk shows what changes and asks first.
    asked = await client.post("/arbiter/act/board", data=fields, allow_redirects=False)
    assert asked.status == 200
    page = await asked.text()
    assert "Confirm this action" in page and "moves to table 4" in page
    assert service.tournament.section("Masters").rounds[2].game_of(white).board == 1
    token = re.search(r'name="confirm" value="([^"]+)"', page)
    assert token is not None
    response = await client.post(
        "/arbiter/act/board", data={**fields, "confirm": token.group(1)}, allow_redirects=False
    )
    assert "moves%20to%20table%204" in response.headers["Location"]
    moved = service.tournament.section("Masters").rounds[2].game_of(white)
    assert moved is not None and moved.board == 4
    cookie = response.cookies  # nothing new set on actions
    assert auth_module.SESSION_COOKIE not in cookie
    await client.post("/arbiter/logout", data={"csrf": csrf.group(1)}, allow_redirects=False)
    assert (await client.get("/arbiter", allow_redirects=False)).status == 303


async def test_login_is_rate_limited(env: tuple[TestClient, EventService, ManualTime]) -> None:
    client, _, _ = env
    for _ in range(auth_module.LOGIN_ATTEMPTS):
        assert await _login(client, "wrong") == 401
    assert await _login(client) == 429  # even the right password waits
    app: web.Application = client.server.app  # type: ignore[attr-defined]
    from web.keys import AUTH

    limiter = app[AUTH]
    limiter.now = lambda: 1e12  # the window has passed
    assert await _login(client) == 200


async def test_session_cookie_flags(env: tuple[TestClient, EventService, ManualTime]) -> None:
    client, _, _ = env
    page = await client.get("/arbiter/login")
    token = re.search(r'name="login_token" value="([^"]+)"', await page.text())
    assert token is not None
    response = await client.post(
        "/arbiter/login",
        data={"login_token": token.group(1), "user": CREDENTIALS[0], "password": CREDENTIALS[1]},
        allow_redirects=False,
    )
    header = response.headers.getall("Set-Cookie")
    session = next(h for h in header if h.startswith(auth_module.SESSION_COOKIE))
    assert "HttpOnly" in session and "SameSite=Strict" in session


async def test_login_form_token_is_required(
    env: tuple[TestClient, EventService, ManualTime],
) -> None:
    client, _, _ = env
    response = await client.post(
        "/arbiter/login",
        data={"user": CREDENTIALS[0], "password": CREDENTIALS[1]},
        allow_redirects=False,
    )
    assert "expired" in response.headers["Location"]
