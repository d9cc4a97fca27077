"""What the OpenAPI description promises, the server does: round numbers of 1 to 6 digits,
POST routes without a body taking no body, 405 (not 415) for a method a route lacks."""

from __future__ import annotations

from base64 import b64encode
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from broadcast.arbiter.alerts import Alert
from broadcast.games.game_events import ResultProposed
from broadcast.service.event_service import EventService
from clocks.timesource import ManualTime
from tests.support.web_app import CREDENTIALS, play_moves
from web.openapi import document

BASIC = {"Authorization": "Basic " + b64encode(":".join(CREDENTIALS).encode()).decode()}
GAME = "masters-r1-b1"


def _parameters(name: str) -> list[dict[str, Any]]:
    out = []
    for item in document()["paths"].values():
        for op in item.values():
            out += [p for p in op.get("parameters", []) if p["name"] == name]
    return out


async def test_round_numbers_are_one_to_six_digits_as_described(
    env: tuple[TestClient, EventService, ManualTime],
) -> None:
    client, _, _ = env
    rounds = _parameters("round")
    # 6, and a team round's lineups (GET, POST), a lineup taken back, matches, boards
    assert len(rounds) == 11
    assert all(p["schema"] == {"type": "integer", "minimum": 1, "maximum": 999_999} for p in rounds)
    assert (await client.get("/api/v1/rounds/999999")).status == 404  # valid, not paired
    assert (await client.get("/api/v1/rounds/1000000")).status == 400
    path = "/api/v1/arbiter/sections/masters/rounds/{}/pairings"
    for bad in ("1000000", "9" * 5000, "²"):
        response = await client.post(path.format(bad), json={"engine": "dutch"}, headers=BASIC)
        assert response.status == 400, bad
        release = f"/api/v1/arbiter/sections/masters/rounds/{bad}/release"
        assert (await client.post(release, headers=BASIC)).status == 400, bad


async def test_confirm_and_acknowledge_take_no_body(
    env: tuple[TestClient, EventService, ManualTime],
) -> None:
    client, service, clock = env
    play_moves(service, GAME, ["e4", "e5"])
    service.commit([ResultProposed(GAME, "1/2-1/2", "kings-signal", clock.now(), "kings")])
    service.commit(
        [Alert("a1", "battery-low", "warning", "Masters", 1, 1, GAME, (), "9%", clock.now())]
    )
    confirmed = await client.post(f"/api/v1/arbiter/games/{GAME}/confirm", headers=BASIC)
    assert confirmed.status == 200, await confirmed.text()
    assert (await confirmed.json())["result"] == "1/2-1/2"
    acked = await client.post("/api/v1/arbiter/alerts/a1/ack", headers=BASIC)
    assert acked.status == 200
    answer = await acked.json()
    assert answer["acknowledged"] == "a1" and answer["action"]["kind"] == "acknowledge"
    missing = await client.post("/api/v1/arbiter/games/nope/confirm", headers=BASIC)
    assert missing.status == 404


async def test_a_bodiless_post_from_another_site_is_still_refused(
    env: tuple[TestClient, EventService, ManualTime],
) -> None:
    # A browser caches Basic credentials; a page on another site can POST without a body
    # (fetch no-cors, an empty form), but the browser says where it comes from.
    client, _, _ = env
    url = f"/api/v1/arbiter/games/{GAME}/confirm"
    foreign = {**BASIC, "Origin": "https://evil.example"}
    response = await client.post(url, headers=foreign)
    assert response.status == 403
    assert "another site" in (await response.json())["error"]
    cross = {**BASIC, "Sec-Fetch-Site": "cross-site", "Content-Type": "text/plain"}
    assert (await client.post(url, headers=cross)).status == 403
    form = await client.post(url, data={"x": "1"}, headers=BASIC)
    assert form.status == 415  # a body that is not JSON: what a cross-site form sends


@pytest.mark.parametrize(
    "content_type",
    [None, "application/x-www-form-urlencoded", "text/plain", "application/octet-stream"],
)
async def test_a_post_without_a_body_is_accepted_whatever_type_the_client_adds(
    env: tuple[TestClient, EventService, ManualTime], content_type: str | None
) -> None:
    # docs/api.md: confirm and ack take no body. urllib and `curl -d ''` add a form's
    # Content-Type to the empty body; the body is still empty, and no other site sent it.
    client, service, clock = env
    play_moves(service, GAME, ["e4", "e5"])
    service.commit([ResultProposed(GAME, "1/2-1/2", "kings-signal", clock.now(), "kings")])
    service.commit(
        [Alert("a1", "battery-low", "warning", "Masters", 1, 1, GAME, (), "9%", clock.now())]
    )
    headers = {**BASIC, "Sec-Fetch-Site": "none"}
    if content_type is not None:
        headers["Content-Type"] = content_type
    confirmed = await client.post(f"/api/v1/arbiter/games/{GAME}/confirm", headers=headers)
    assert confirmed.status == 200, await confirmed.text()
    assert (await confirmed.json())["result"] == "1/2-1/2"
    acked = await client.post("/api/v1/arbiter/alerts/a1/ack", data=b"", headers=headers)
    assert acked.status == 200 and (await acked.json())["acknowledged"] == "a1"


async def test_a_method_a_route_lacks_is_405(
    env: tuple[TestClient, EventService, ManualTime],
) -> None:
    client, _, _ = env
    for path in (
        "/api/v1/arbiter/boards",
        f"/api/v1/arbiter/games/{GAME}/confirm",
        "/api/v1/event",
    ):
        for headers in (BASIC, {}):
            response = await client.request("TRACE", path, headers=headers)
            assert response.status == 405, (path, response.status)
            assert response.headers["Allow"]
            assert response.content_type == "application/json"
