"""The regulations over HTTP: byes through the policy (422 with the reason, override
flagged), withdrawals, results with their reason at the desk, play-off games, and what
the public pages and JSON show (notes, undecided first place, prizes)."""

from __future__ import annotations

import re
from base64 import b64encode
from pathlib import Path
from typing import Any

from aiohttp import ClientResponse
from aiohttp.test_utils import TestClient, TestServer

from broadcast.config import load_event
from broadcast.games.ids import GameKey
from broadcast.journal.store import Journal
from broadcast.service.event_service import EventService
from clocks.timesource import ManualTime
from tests.broadcast.tournament.test_regulations_applied import ARBITER, at
from tests.support import acting
from tests.support.paths import ROOT
from tests.support.web_app import CREDENTIALS
from web.app import build_app

BASIC = {"Authorization": "Basic " + b64encode(":".join(CREDENTIALS).encode()).decode()}


async def _client(tmp_path: Path, example: str, start: str) -> tuple[TestClient, EventService]:
    config = load_event(ROOT / "examples" / example)
    time_source = ManualTime(at(start))
    service = EventService(config, Journal(tmp_path / "j.sqlite"), time_source=time_source, delay=0)
    service.load()
    client = TestClient(TestServer(build_app(service, CREDENTIALS)))
    await client.start_server()
    return client, service


async def _confirmed(
    client: TestClient, url: str, body: dict[str, Any], headers: dict[str, str] = BASIC
) -> ClientResponse:
    """POST an action that asks first: 409 with what it would do, then the answer once
    posted again with the confirmation's token."""
    asked = await client.post(url, json=body, headers=headers)
    assert asked.status == 409, await asked.text()
    token = (await asked.json())["confirm"]["token"]
    return await client.post(url, json={**body, "confirm": token}, headers=headers)


async def _desk_confirmed(client: TestClient, path: str, form: dict[str, str]) -> ClientResponse:
    """POST a desk form that asks first: the page with the confirmation box, then the
    desk's redirect once posted again with the page's token."""
    asked = await client.post(path, data=form, allow_redirects=False)
    assert asked.status == 200, await asked.text()
    token = re.search(r'name="confirm" value="([^"]+)"', await asked.text())
    assert token is not None, (await asked.text())[:400]
    return await client.post(path, data={**form, "confirm": token.group(1)}, allow_redirects=False)


async def test_byes_over_the_api_follow_the_policy(tmp_path: Path) -> None:
    client, service = await _client(tmp_path, "sestao-2025-swiss.toml", "2025-09-10T12:00:00")
    try:
        for rnd in (3, 4, 5):
            body = {"section": "open", "round": rnd, "player": 5}
            answer = await client.post("/api/v1/arbiter/byes", json=body, headers=BASIC)
            assert answer.status == 200, await answer.text()
        fourth = {"section": "open", "round": 6, "player": 5}
        refused = await client.post("/api/v1/arbiter/byes", json=fourth, headers=BASIC)
        assert refused.status == 422
        assert "already has 3 of the 3" in (await refused.json())["error"]
        late = {"section": "open", "round": 8, "player": 7}
        refused = await client.post("/api/v1/arbiter/bye-requests", json=late, headers=BASIC)
        assert refused.status == 422 and "no byes in round 8" in (await refused.json())["error"]
        forced = await client.post(
            "/api/v1/arbiter/bye-requests", json={**fourth, "override": True}, headers=BASIC
        )
        assert forced.status == 200
        assert (await forced.json())["override"].startswith("the player already has 3")
        kinds = {
            a["kind"]
            for a in await (await client.get("/api/v1/arbiter/alerts", headers=BASIC)).json()
        }
        # The refusals were answered to the caller: no alert for them, the override flagged.
        assert "arbiter-override" in kinds and "bye-refused" not in kinds
        cancelled = await _confirmed(client, "/api/v1/arbiter/bye-cancellations", fourth)
        assert cancelled.status == 200
        assert 6 not in service.tournament.section("Open").byes_of(5)
        again = await client.post("/api/v1/arbiter/bye-cancellations", json=fourth, headers=BASIC)
        assert again.status == 422
    finally:
        await client.close()


async def test_withdrawal_and_prizes_on_the_pages(tmp_path: Path) -> None:
    client, service = await _client(tmp_path, "pamplona-masters.toml", "2025-12-22T20:00:00")
    try:
        # Round 1 has begun: from round 1 only when the arbiter says so (its game a forfeit).
        body = {"section": "masters", "player": 3, "reason": "illness", "from_round": 1}
        answer = await _confirmed(client, "/api/v1/arbiter/withdrawals", body)
        assert answer.status == 200, await answer.text()
        assert (await answer.json())["withdrawn"]["from_round"] == 1
        games = (await (await client.get("/api/v1/rounds/1")).json())["games"]
        # 3 had White against 6: a forfeit, in the public result contract
        assert any(g["result"] == "0-1" and g["result_reason"] == "withdrawal" for g in games), (
            games
        )
        rows = await (await client.get("/api/v1/standings")).json()
        row = next(r for r in rows if r["start"] == 3)
        assert row["note"].startswith("withdrawn from round 1 (illness); results left out")
        assert row["points"] == 0 and row["excluded"]  # FIDE's rule: 0 of 7 games played
        prizes = await (await client.get("/api/v1/sections/masters/prizes")).json()
        assert prizes["currency"] == "EUR"
        # 7 forfeit wins so far, all against 3, whose results the rule leaves out
        assert sum(p["pool"] for p in prizes["prizes"]) == 0
        page = await (await client.get("/standings")).text()
        assert "withdrawn from round 1 (illness)" in page
        # no prize money on the page before the section is final
        assert 'id="prizes"' not in page and "EUR" not in page and "500.00" not in page
        assert "The prize list is published here once the section's results are final" in page

        # The desk asks for the reason; a forfeit with a game reason is refused.
        result = f"/api/v1/arbiter/games/{GameKey('Masters', 1, 1).id}/result"
        bad = await client.post(result, json={"result": "+/-", "reason": "arbiter"}, headers=BASIC)
        assert bad.status == 422
        good = await client.post(result, json={"result": "+/-", "reason": "forfeit"}, headers=BASIC)
        assert good.status == 200
        assert service.tournament.section("Masters").no_shows == {8: (1,)}
        assert await _login(client)
        desk = await (await client.get("/arbiter")).text()
        assert (
            '<select name="reason" required>' in desk and 'action="/arbiter/regs/withdraw"' in desk
        )
        csrf = re.search(r'name="csrf" value="([^"]+)"', desk)
        assert csrf is not None
        response = await client.post(
            "/arbiter/regs/withdraw",
            data={"section": "masters", "player": "3", "csrf": csrf.group(1)},
            allow_redirects=False,
        )
        assert "already%20withdrawn" in response.headers["Location"]
    finally:
        await client.close()


async def _login(client: TestClient) -> bool:
    page = await (await client.get("/arbiter/login")).text()
    token = re.search(r'name="login_token" value="([^"]+)"', page)
    assert token is not None
    response = await client.post(
        "/arbiter/login",
        data={"login_token": token.group(1), "user": CREDENTIALS[0], "password": CREDENTIALS[1]},
        allow_redirects=False,
    )
    return response.headers.get("Location") == "/arbiter"


async def test_a_tie_for_first_is_undecided_until_the_playoff(tmp_path: Path) -> None:
    client, service = await _client(
        tmp_path, "donostia-2009-round-robin.toml", "2009-07-16T20:00:00"
    )
    name = "Kutxa"
    try:
        section = service.tournament.section(name)
        for number in range(1, 10):
            for pairing in section.rounds[number].pairings:
                # Everything drawn: all ten players tie for first.
                game_id = GameKey(name, number, pairing.board).id
                acting.set_result(service, game_id, "1/2-1/2", ARBITER)
        rows = await (await client.get("/api/v1/sections/kutxa/standings")).json()
        assert all(r["undecided"] and r["rank"] == 1 for r in rows)
        page = await (await client.get("/standings?section=kutxa")).text()
        assert "First place is undecided" in page
        pair = {"section": "kutxa", "white": 1, "black": 2}
        answer = await client.post("/api/v1/arbiter/playoff-games", json=pair, headers=BASIC)
        assert answer.status == 200, await answer.text()
        game = (await answer.json())["game"]
        assert game == "kutxa-r10-b1" and (await answer.json())["kind"] == "blitz"
        assert (await client.get(f"/api/v1/games/{game}")).status == 200
        games = (await (await client.get("/api/v1/sections/kutxa/rounds/10")).json())["games"]
        assert [g["id"] for g in games] == [game]
        assert (await client.get("/api/v1/sections/kutxa/rounds/11")).status == 404
        event = await (await client.get("/api/v1/event")).json()
        assert next(s for s in event["sections"] if s["slug"] == "kutxa")["live_round"] == 10
        assert (await client.get("/")).status == 200
        page = await (await client.get("/standings?section=kutxa")).text()
        assert f'href="/game/{game}"' in page
        assert await _login(client)
        desk = await (await client.get("/arbiter")).text()
        assert "Kutxa · round 10 · play-off game 1 (blitz) (live)" in desk
        assert f'data-game="{game}"' in desk
        assert service.hall[16].game == game  # Kutxa's first board in the hall
    finally:
        await client.close()


async def test_prize_money_appears_on_the_standings_page_only_once_the_section_is_final(
    tmp_path: Path,
) -> None:
    client, service = await _client(tmp_path, "pamplona-masters.toml", "2025-12-22T20:00:00")
    try:
        before = await (await client.get("/standings")).text()
        assert "437.50" not in before and "EUR" not in before and 'id="prizes"' not in before
        assert 'id="prizes-later"' in before
        games = sorted(service.book.games.values(), key=lambda g: (g.key.round, g.key.board))
        for game in games[:-1]:
            acting.set_result(service, game.id, "1/2-1/2", ARBITER, "agreement")
        one_left = await (await client.get("/standings")).text()
        assert "EUR" not in one_left and 'id="prizes-later"' in one_left
        acting.set_result(service, games[-1].id, "1/2-1/2", ARBITER, "agreement")
        final = await (await client.get("/standings")).text()
        assert 'id="prizes"' in final and "Total (EUR)" in final
        assert 'id="prizes-later"' not in final
    finally:
        await client.close()
