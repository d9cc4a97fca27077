"""The one door over HTTP: the API answers 409 with what an action removes until it is
confirmed with the words' token, every answer carries the action's record number, the
actions are listed and undone over the API, players are named by name, and the desk's
*Recent actions* undoes with a confirmation (issue 28)."""

from __future__ import annotations

import re
from base64 import b64encode
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer

from broadcast.service.event_service import EventService
from tests.broadcast.actions.test_door import SESTAO, _config, _game, _service, play
from tests.support import acting
from tests.support.web_app import CREDENTIALS
from web.app import build_app

BASIC = {"Authorization": "Basic " + b64encode(":".join(CREDENTIALS).encode()).decode()}


@pytest.fixture
async def api(tmp_path: Path) -> AsyncIterator[tuple[TestClient, EventService]]:
    service = _service(tmp_path, _config("sestao-2025-swiss.toml"))
    acting.pair_dutch(service, SESTAO, 1)
    client = TestClient(TestServer(build_app(service, CREDENTIALS)))
    await client.start_server()
    try:
        yield client, service
    finally:
        await client.close()


async def _asked(
    client: TestClient, url: str, body: dict[str, Any] | None = None
) -> dict[str, Any]:
    """A 409: the words of what the action would do (nothing done yet)."""
    response = (
        await client.post(url, json=body, headers=BASIC)
        if body is not None
        else (await client.post(url, headers=BASIC))
    )
    assert response.status == 409, await response.text()
    words: dict[str, Any] = (await response.json())["confirm"]
    return words


async def _done(client: TestClient, url: str, body: dict[str, Any]) -> dict[str, Any]:
    response = await client.post(url, json=body, headers=BASIC)
    assert response.status == 200, await response.text()
    answer: dict[str, Any] = await response.json()
    return answer


async def test_a_takeback_asks_and_the_api_undoes_it(
    api: tuple[TestClient, EventService],
) -> None:
    client, service = api
    game = _game(service, SESTAO, 1, 3)
    play(service, game, ["e4", "e5", "Nf3", "Nc6"])
    url = f"/api/v1/arbiter/games/{game}/takeback"
    words = await _asked(client, url, {"plies": 2})
    assert words["removes"][0].startswith("plies 3-4 (2.Nf3 to the end) of round 1 board 3")
    assert service.book.get(game).ply == 4
    answer = await _done(client, url, {"plies": 2, "confirm": words["token"]})
    assert answer["ply"] == 2 and answer["action"]["kind"] == "takeback"
    seq = answer["action"]["seq"]
    listed = await (await client.get("/api/v1/arbiter/actions", headers=BASIC)).json()
    assert listed[0]["seq"] == seq and listed[0]["undone_by"] == 0
    undo = f"/api/v1/arbiter/actions/{seq}/undo"
    words = await _asked(client, undo)
    assert words["summary"].startswith(f"undo action {seq} (round 1 board 3")
    assert any(n.startswith("back: the line of round 1 board 3: 4 plies") for n in words["notes"])
    undone = await client.post(f"{undo}?confirm={words['token']}", headers=BASIC)
    assert undone.status == 200, await undone.text()
    assert service.book.get(game).ply == 4
    listed = await (await client.get("/api/v1/arbiter/actions", headers=BASIC)).json()
    assert listed[1]["seq"] == seq and listed[1]["undone_by"] == listed[0]["seq"]
    again = await client.post(f"{undo}?confirm=true", headers=BASIC)
    assert again.status == 422 and "was undone by action" in (await again.json())["error"]
    missing = await client.post("/api/v1/arbiter/actions/999999/undo?confirm=true", headers=BASIC)
    assert missing.status == 422 and "no action 999999" in (await missing.json())["error"]
    bad = await client.post("/api/v1/arbiter/actions/x1/undo", headers=BASIC)
    assert bad.status == 400


async def test_a_move_replaced_keeps_the_later_plies_that_stay_legal(
    api: tuple[TestClient, EventService],
) -> None:
    client, service = api
    game = _game(service, SESTAO, 1, 4)
    play(service, game, ["d4", "Nf6", "c4", "e6", "Nc3"])
    url = f"/api/v1/arbiter/games/{game}/move"
    words = await _asked(client, url, {"ply": 2, "move": "d5"})
    assert words["removes"] == [
        f"plies 2-5 (1...Nf6 to the end) of {words['summary'].split(':')[0]}"
    ]
    answer = await _done(client, url, {"ply": 2, "move": "d5", "confirm": True})
    assert [m["san"] for m in answer["moves"]] == ["d4", "d5", "c4", "e6", "Nc3"]
    illegal = await client.post(url, json={"ply": 3, "move": "Ke2"}, headers=BASIC)
    assert (
        illegal.status == 422
        and "neither legal UCI nor legal SAN" in (await illegal.json())["error"]
    )
    added = await _done(client, url, {"ply": 6, "move": "Be7"})  # the next move: nothing removed
    assert added["ply"] == 6


async def test_players_by_name_a_withdrawal_asks_and_a_reinstatement_undoes_its_forfeit(
    api: tuple[TestClient, EventService],
) -> None:
    client, service = api
    section = service.tournament.section(SESTAO)
    number = 23
    name = section.players[number].name
    surname = name.split(",")[0]
    url = "/api/v1/arbiter/withdrawals"
    # Two Zubizarretas: the surname alone names neither, the picker's words name one.
    several = await client.post(url, json={"section": "open", "player": surname}, headers=BASIC)
    assert several.status == 422
    assert "names several players" in (await several.json())["error"]
    assert section.players[number].name == "Zubizarreta, Mikel"
    surname = f"{number} · {name}"
    # From round 1, already paired: the arbiter says so, and the round-1 game is a forfeit
    # (without a round the withdrawal starts at the next round to be paired).
    body = {"section": "open", "player": surname, "from_round": 1}
    words = await _asked(client, url, body)
    assert words["summary"].startswith(f"{name} ({number}) withdrawn from round 1")
    assert words["removes"][0] == f"{name} ({number})'s participation from round 1 on"
    assert "(withdrawal) instead" in words["removes"][1]  # their round-1 game is a forfeit
    body = {**body, "confirm": words["token"]}
    assert (await _done(client, url, body))["withdrawn"]["player"] == number
    game = next(
        g
        for g in service.book.round_games(SESTAO, 1)
        if number in (g.white.start, g.black.start)  # type: ignore[union-attr]
    )
    assert service.book.get(game.id).result_reason == "withdrawal"
    reinstate = "/api/v1/arbiter/reinstatements"
    words = await _asked(client, reinstate, {"section": "open", "player": number})
    assert words["removes"] == [
        f"the forfeit {service.book.get(game.id).result} (withdrawal) of round 1 board {game.key.board} ({game.white.name} – {game.black.name})"
    ]  # type: ignore[union-attr]
    await _done(client, reinstate, {"section": "open", "player": number, "confirm": True})
    assert number not in service.tournament.section(SESTAO).withdrawn
    assert service.book.get(game.id).result is None


async def test_a_played_round_is_paired_again_only_with_its_drops_confirmed(
    api: tuple[TestClient, EventService],
) -> None:
    client, service = api
    game = _game(service, SESTAO, 1, 1)
    play(service, game, ["e4", "e5"])
    acting.set_result(service, game, "1/2-1/2", reason="agreement")
    pairings = service.tournament.section(SESTAO).rounds[1].pairings
    pairs = [[p.white, p.black or 0] for p in pairings]
    pairs[0], pairs[1] = [pairs[0][0], pairs[1][1]], [pairs[1][0], pairs[0][1]]
    url = "/api/v1/arbiter/sections/open/rounds/1/pairings"
    words = await _asked(client, url, {"pairs": pairs})
    assert len(words["removes"]) == 1 and words["removes"][0].endswith("(2 plies, 1/2-1/2)")
    assert service.book.get(game).result == "1/2-1/2"  # asked: nothing changed
    done = await _done(client, url, {"pairs": pairs, "confirm": words["token"]})
    assert service.book.get(game).result is None and service.book.removed[game].ply == 2
    undo = f"/api/v1/arbiter/actions/{done['action']['seq']}/undo?confirm=true"
    assert (await client.post(undo, headers=BASIC)).status == 200
    assert service.book.get(game).result == "1/2-1/2" and service.book.get(game).ply == 2


async def test_the_desk_undoes_from_its_recent_actions(
    api: tuple[TestClient, EventService],
) -> None:
    client, service = api
    page = await (await client.get("/arbiter/login")).text()
    token = re.search(r'name="login_token" value="([^"]+)"', page)
    assert token is not None
    await client.post(
        "/arbiter/login",
        data={"login_token": token.group(1), "user": CREDENTIALS[0], "password": CREDENTIALS[1]},
        allow_redirects=False,
    )
    desk = await (await client.get("/arbiter")).text()
    csrf = re.search(r'name="csrf" value="([^"]+)"', desk)
    assert csrf is not None
    game = _game(service, SESTAO, 1, 1)
    done = acting.set_result(service, game, "0-1", reason="resignation")
    desk = await (await client.get("/arbiter")).text()
    assert f'data-action="{done.seq}"' in desk and "0-1 (resignation)" in desk
    fields = {"csrf": csrf.group(1), "action": str(done.seq)}
    asked = await client.post("/arbiter/act/undo", data=fields, allow_redirects=False)
    assert asked.status == 200
    page = await asked.text()
    assert "This removes:" in page and "the result 0-1 (resignation) of round 1 board 1" in page
    confirm = re.search(r'name="confirm" value="([^"]+)"', page)
    assert confirm is not None and service.book.get(game).result == "0-1"
    fields["confirm"] = "a stale token"
    stale = await client.post("/arbiter/act/undo", data=fields, allow_redirects=False)
    assert stale.status == 200 and "What it does has changed since you looked" in await stale.text()
    fields["confirm"] = confirm.group(1)
    response = await client.post("/arbiter/act/undo", data=fields, allow_redirects=False)
    assert response.status == 303 and response.headers["Location"].startswith("/arbiter?m=undo")
    assert service.book.get(game).result is None
    desk = await (await client.get("/arbiter")).text()
    assert "undone (action" in desk
