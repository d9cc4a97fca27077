"""Pairings held back by the broadcast delay, on the desk and the arbiter API: the desk
says which round waits, for which hidden results and until when, and "Publish now"
asks first, naming what it reveals (issue 29, F6)."""

from __future__ import annotations

import html
import re
from base64 import b64encode
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from aiohttp.test_utils import TestClient, TestServer

from broadcast.journal.store import Journal
from broadcast.service.event_service import EventService
from clocks.timesource import ManualTime
from tests.broadcast.actions.test_door import SESTAO, _config, _game
from tests.broadcast.service.test_delay_consequences import _tie_one_and_two
from tests.support import acting
from tests.support.web_app import CREDENTIALS
from web.app import build_app

BASIC = {"Authorization": "Basic " + b64encode(":".join(CREDENTIALS).encode()).decode()}
DELAY = 900.0


@pytest.fixture
async def held(tmp_path: Path) -> AsyncIterator[tuple[TestClient, EventService, ManualTime]]:
    """Sestao with a 15-minute delay: round 1 played, its results entered a minute ago,
    round 2 paired from them (so it waits for them)."""
    config = _config("sestao-2025-swiss.toml")
    start = config.sections[0].schedule[0].start.timestamp()
    time_source = ManualTime(start + 60)
    service = EventService(
        config, Journal(tmp_path / "j.sqlite"), time_source=time_source, delay=DELAY
    )
    service.load()
    acting.pair_dutch(service, SESTAO, 1)
    time_source.advance(4 * 3600)
    for pairing in service.tournament.section(SESTAO).rounds[1].pairings:
        if pairing.black is not None:
            acting.set_result(service, _game(service, SESTAO, 1, pairing.board), "1/2-1/2")
    time_source.advance(60)
    acting.pair_dutch(service, SESTAO, 2)
    client = TestClient(TestServer(build_app(service, CREDENTIALS)))
    await client.start_server()
    try:
        yield client, service, time_source
    finally:
        await client.close()


async def _public_rounds(client: TestClient) -> set[int]:
    rounds = await (await client.get("/api/v1/pairings")).json()
    return {r["round"] for r in rounds}


async def test_the_api_lists_held_pairings_and_releases_them_once_confirmed(
    held: tuple[TestClient, EventService, ManualTime],
) -> None:
    client, service, time_source = held
    games = sum(1 for p in service.tournament.section(SESTAO).rounds[1].pairings if p.black)
    listed = await (await client.get("/api/v1/arbiter/held", headers=BASIC)).json()
    assert [(h["kind"], h["round"]) for h in listed] == [("pairings", 2)]
    assert len(listed[0]["hidden_results"]) == games
    # Public once the last result of round 1 is: 15 minutes after it was entered.
    assert listed[0]["public_at"] == pytest.approx(time_source.now() - 60 + DELAY)
    assert 2 not in await _public_rounds(client)

    url = "/api/v1/arbiter/sections/open/rounds/2/release"
    asked = await client.post(url, headers=BASIC)
    assert asked.status == 409
    words = (await asked.json())["confirm"]
    assert f"{games} results" in words["notes"][0] and "cannot be undone" in words["notes"][-1]
    assert 2 not in await _public_rounds(client)
    done = await client.post(f"{url}?confirm={words['token']}", headers=BASIC)
    assert done.status == 200, await done.text()
    assert (await done.json())["action"]["kind"] == "release-pairings"
    assert 2 in await _public_rounds(client)
    assert await (await client.get("/api/v1/arbiter/held", headers=BASIC)).json() == []
    again = await client.post(f"{url}?confirm=true", headers=BASIC)
    assert again.status == 422 and "already public" in (await again.json())["error"]


async def test_the_desk_shows_what_waits_and_publishes_it_after_asking(
    held: tuple[TestClient, EventService, ManualTime],
) -> None:
    client, _, _ = held
    page = await (await client.get("/arbiter/login")).text()
    token = re.search(r'name="login_token" value="([^"]+)"', page)
    assert token is not None
    await client.post(
        "/arbiter/login",
        data={"login_token": token.group(1), "user": CREDENTIALS[0], "password": CREDENTIALS[1]},
        allow_redirects=False,
    )
    desk = html.unescape(await (await client.get("/arbiter")).text())
    assert "Open: round 2 pairings" in desk
    assert "not public yet: it follows from" in desk and "public at" in desk
    assert "Publish now" in desk
    csrf = re.search(r'name="csrf" value="([^"]+)"', desk)
    assert csrf is not None
    fields = {"csrf": csrf.group(1), "section": "open", "round": "2"}
    asked = await client.post("/arbiter/act/release", data=fields, allow_redirects=False)
    page = html.unescape(await asked.text())
    assert asked.status == 200 and "this reveals, through the score groups" in page
    assert "Every action can be undone afterwards" not in page
    confirm = re.search(r'name="confirm" value="([^"]+)"', page)
    assert confirm is not None and 2 not in await _public_rounds(client)
    fields["confirm"] = confirm.group(1)
    response = await client.post("/arbiter/act/release", data=fields, allow_redirects=False)
    assert response.status == 303
    assert 2 in await _public_rounds(client)
    desk = html.unescape(await (await client.get("/arbiter")).text())
    assert "Open: round 2 pairings" not in desk


async def test_a_held_playoff_is_nowhere_on_the_public_side(tmp_path: Path) -> None:
    """Donostia with a 10-minute delay: every result in (1 and 2 tie), the play-off paired
    at once. The public API and the home page keep the last round as the live one until
    the results are public; the desk and the hall have the play-off."""
    config = _config("donostia-2009-round-robin.toml")
    last_round = config.sections[0].round_start(config.sections[0].rounds).start.timestamp()
    time_source = ManualTime(last_round + 3 * 3600)
    service = EventService(
        config, Journal(tmp_path / "j.sqlite"), time_source=time_source, delay=600
    )
    service.load()
    name = config.sections[0].name
    _tie_one_and_two(service, name)
    last = time_source.now()
    time_source.advance(5)
    acting.pair_playoff_game(service, name, 1, 2)
    rounds = config.sections[0].rounds
    assert service.live_rounds()[name] == rounds + 1
    client = TestClient(TestServer(build_app(service, CREDENTIALS)))
    await client.start_server()
    try:
        event = await (await client.get("/api/v1/event")).json()
        assert event["sections"][0]["live_round"] == rounds
        home = await (await client.get("/")).text()
        assert f"{name}-r{rounds + 1}-b1".lower().replace(" ", "-") not in home
        time_source.set(last + 600)
        event = await (await client.get("/api/v1/event")).json()
        assert event["sections"][0]["live_round"] == rounds + 1
    finally:
        await client.close()
