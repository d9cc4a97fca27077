"""The desk's forms, one by one: each answers Post/Redirect/Get with what was done, or
"Not done: " and why; an unknown action is a 404. Pairing from the desk and from the API
go through the same `pair_round`: a round paired at the desk is edited over the API."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import unquote

import pytest
from aiohttp.test_utils import TestClient, TestServer

from broadcast.config import load_event
from broadcast.journal.store import Journal
from broadcast.service.event_service import EventService
from clocks.timesource import ManualTime
from tests.support.paths import ROOT
from tests.support.web_app import CREDENTIALS
from web.app import build_app


@pytest.fixture
async def desk(tmp_path: Path) -> AsyncIterator[tuple[TestClient, EventService, str]]:
    config = load_event(ROOT / "examples" / "sestao-2025-swiss.toml")
    service = EventService(
        config, Journal(tmp_path / "j.sqlite"), time_source=ManualTime(1.8e9), delay=0
    )
    service.load()
    client = TestClient(TestServer(build_app(service, CREDENTIALS)))
    await client.start_server()
    page = await (await client.get("/arbiter/login")).text()
    token = re.search(r'name="login_token" value="([^"]+)"', page)
    assert token is not None
    await client.post(
        "/arbiter/login",
        data={"login_token": token.group(1), "user": CREDENTIALS[0], "password": CREDENTIALS[1]},
        allow_redirects=False,
    )
    csrf = re.search(r'name="csrf" value="([^"]+)"', await (await client.get("/arbiter")).text())
    assert csrf is not None
    try:
        yield client, service, csrf.group(1)
    finally:
        await client.close()


async def _form(client: TestClient, csrf: str, path: str, **fields: str) -> str:
    """The desk's message after posting the form (what the redirect carries): what was
    done (`?m=`), or "Not done: " and why (`?e=`)."""
    response = await client.post(path, data={**fields, "csrf": csrf}, allow_redirects=False)
    assert response.status == 303, await response.text()
    location = response.headers["Location"]
    assert location.startswith(("/arbiter?m=", "/arbiter?e="))
    done = unquote(location[len("/arbiter?m=") :])
    assert location.startswith("/arbiter?e=") == done.startswith("Not done: ")
    return done


async def _confirmed(client: TestClient, csrf: str, path: str, **fields: str) -> tuple[str, str]:
    """An action that asks first: the confirmation page's words, then the message once
    the same form is posted again with the page's token."""
    asked = await client.post(path, data={**fields, "csrf": csrf}, allow_redirects=False)
    assert asked.status == 200, await asked.text()
    page = await asked.text()
    token = re.search(r'name="confirm" value="([^"]+)"', page)
    summary = re.search(r'<p id="confirm-summary" class="summary">([^<]*)</p>', page)
    assert token is not None and summary is not None, page[:400]
    return summary.group(1), await _form(client, csrf, path, **fields, confirm=token.group(1))


async def test_each_desk_form_says_what_it_did(
    desk: tuple[TestClient, EventService, str],
) -> None:
    client, service, csrf = desk
    section = service.config.sections[0]
    pair = "/arbiter/act/pair"
    assert await _form(client, csrf, pair, section="nope", round="1") == (
        "Not done: no section 'nope'"
    )
    assert await _form(client, csrf, pair, section="open", round="x") == (
        "Not done: round must be a number"
    )
    done = await _form(client, csrf, pair, section="open", round="1")
    games = len(section.players) // 2
    assert done == f"{section.name} round 1 paired (dutch, {games} games)"
    assert 1 in service.tournament.section(section.name).rounds

    # The API edits the round the desk paired (the same pairing path under both): it
    # shows the difference first, and replaces the pairings once confirmed.
    pairings = service.tournament.section(section.name).rounds[1].pairings
    pairs = [[p.white, p.black or 0] for p in pairings]
    pairs[0], pairs[1] = [pairs[0][0], pairs[1][1]], [pairs[1][0], pairs[0][1]]
    url = "/api/v1/arbiter/sections/open/rounds/1/pairings"
    headers = {"X-CSRF-Token": csrf}
    asked = await client.post(url, json={"pairs": pairs}, headers=headers)
    assert asked.status == 409
    notes = (await asked.json())["confirm"]["notes"]
    assert len([n for n in notes if n.startswith("board 1: ")]) == 2  # one goes, one comes
    assert service.tournament.section(section.name).rounds[1].pairings == pairings
    token = (await asked.json())["confirm"]["token"]
    edited = await client.post(url, json={"pairs": pairs, "confirm": token}, headers=headers)
    assert edited.status == 200 and (await edited.json())["source"] == "arbiter"
    assert service.tournament.section(section.name).rounds[1].pairings[0].black == pairs[0][1]

    game = service.book.round_games(section.name, 1)[0]
    where = f"round 1 board 1 ({game.white.name} – {game.black.name})"  # type: ignore[union-attr]
    act = "/arbiter/act/"
    assert await _form(client, csrf, act + "present", game=game.id, colour="white") == (
        f"table 1, round 1: {game.white.name} (white) marked present"  # type: ignore[union-attr]
    )
    fen = "4k3/8/8/8/8/8/8/4K2R w K - 0 1"
    assert await _form(client, csrf, act + "start-fen", game=game.id, fen=fen) == (
        f"{where}: starts from {fen}"
    )
    assert service.book.get(game.id).start_fen == fen
    forfeit = await _form(client, csrf, act + "result", game=game.id, result="-/-")
    # What the rules did because of it comes with it (Sestao art. 6: excluded).
    assert forfeit.startswith(f"{where}: -/- (forfeit) (alert: {game.white.name} did not show up")  # type: ignore[union-attr]
    assert await _form(client, csrf, act + "confirm", game=game.id) == (
        f"Not done: {game.id} has no result waiting for confirmation"
    )
    assert (await _form(client, csrf, act + "ack", alert="no-such-alert")).startswith("Not done: ")
    regs = "/arbiter/regs/"
    # Sestao art. 6: a round-1 absence excludes; no request to continue brings them back.
    refused = await _form(client, csrf, regs + "continue", section="open", round="1", player="1")
    assert refused.startswith(
        "Not done: request to continue refused: the player who does not show up at the "
        "beginning of the first round is excluded from the tournament"
    )
    assert await _form(client, csrf, regs + "withdraw", section="open", player="qq") == (
        "Not done: no player of Open is called 'qq'"
    )
    several = await _form(client, csrf, regs + "withdraw", section="open", player="Goikoetxea")
    assert several.startswith("Not done: 'Goikoetxea' names several players (Goikoetxea, Ander")
    assert await _form(
        client, csrf, regs + "withdraw", section="open", player="3", from_round="y"
    ) == ("Not done: from round must be a number")
    # A player by name: the confirmation names them and what happens to their game.
    third = service.tournament.section(section.name).players[3]
    summary, done = await _confirmed(
        client, csrf, regs + "withdraw", section="open", player=f"3 · {third.name}"
    )
    # From now: the next round to be paired (round 1's game stays, the arbiter's to decide).
    assert summary.startswith(f"{third.name} (3) withdrawn from round 2")
    assert done == summary and 3 in service.tournament.section(section.name).withdrawn

    for path in (act + "nothing", regs + "nothing"):
        response = await client.post(path, data={"csrf": csrf}, allow_redirects=False)
        assert response.status == 404
        assert (await response.json()) == {"error": "no action 'nothing'"}


async def test_the_desk_shows_the_links_it_watches_and_their_state(
    desk: tuple[TestClient, EventService, str],
) -> None:
    """Without --publish no link line; a watched link (the stream to the mirrors) is on the
    page under the boards and in /arbiter/links.json, in its state of the moment."""
    client, service, _ = desk
    assert 'id="links" hidden' in await (await client.get("/arbiter")).text()
    state = ["up (Redis at 127.0.0.1:6379): 3 update(s) written, 0 update(s) waiting"]
    service.health.watch_link("Public stream to the mirrors", lambda: state[0])
    page = await (await client.get("/arbiter")).text()
    assert 'id="links" hidden' not in page
    assert "<strong>Public stream to the mirrors</strong>: " in page and state[0] in page
    state[0] = "DOWN since 18:02:11 UTC (Redis at 127.0.0.1:6379): 40 update(s) waiting"
    assert await (await client.get("/arbiter/links.json")).json() == [
        {"name": "Public stream to the mirrors", "state": state[0]}
    ]
    spanish = await (await client.get("/arbiter?lang=es")).text()
    assert "Emisión pública a los servidores espejo" in spanish
