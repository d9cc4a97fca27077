"""Late entries and replacements over HTTP: the arbiter API (200 with what was done, 400
for a body of the wrong shape, 422 with the reason when refused) and the desk's forms
(Tournament: Late entry, Replace player), and what the public JSON shows after them."""

from __future__ import annotations

import asyncio
import re
from base64 import b64encode
from pathlib import Path
from urllib.parse import unquote

import pytest
from aiohttp import ClientResponse
from aiohttp.test_utils import TestClient

from broadcast.games.ids import GameKey
from broadcast.phrases import say
from clocks.timesource import ManualTime
from tests.broadcast.tournament.test_regulations_applied import at
from tests.support import acting
from tests.support.web_app import CREDENTIALS
from tests.web.test_regulations_pages import _client, _confirmed, _desk_confirmed, _login

BASIC = {"Authorization": "Basic " + b64encode(":".join(CREDENTIALS).encode()).decode()}
LATE = "/api/v1/arbiter/late-entries"
REPLACE = "/api/v1/arbiter/replacements"


async def test_late_entries_and_replacements_over_the_api(tmp_path: Path) -> None:
    client, service = await _client(tmp_path, "sestao-2025-swiss.toml", "2025-09-10T12:00:00")
    try:
        pairings = acting.dutch_pairings(service, "Open", 1)
        acting.publish_pairings(service, "Open", 1, pairings, "dutch", "arbiter:ana")
        body = {
            "section": "open",
            "name": "Etxeberria, Lara",
            "rating": 1880,
            "fide_id": "22999999",
            "federation": "ESP",
            "sex": "F",
            "birth": "2004",
            "missed_round_points": 0.5,
        }
        answer = await client.post(LATE, json=body, headers=BASIC)
        assert answer.status == 200, await answer.text()
        assert (await answer.json())["entered"] == {
            "section": "Open",
            "player": 25,
            "name": "Etxeberria, Lara",
            "from_round": 2,
            "missed_round_points": 0.5,
            "start_points": 0.5,
        }
        for bad, why in (
            ({**body, "rating": "1880"}, "field 'rating' must be a int"),
            ({**body, "name": 5}, "field 'name' must be a str"),
            ({**body, "missed_round_points": 1}, "missed_round_points must be 0 or 0.5"),
            ({**body, "from_round": "2"}, "field 'from_round' must be a int"),
        ):
            refused = await client.post(LATE, json=bad, headers=BASIC)
            assert refused.status == 400 and (await refused.json())["error"].startswith(why)
        duplicate = await client.post(LATE, json=body, headers=BASIC)
        assert duplicate.status == 422
        assert "FIDE id 22999999 of player 25" in (await duplicate.json())["error"]
        unnamed = await client.post(LATE, json={"section": "open", "rating": 1500}, headers=BASIC)
        assert unnamed.status == 422 and "needs a name" in (await unnamed.json())["error"]

        # Player 3 has not played: the newcomer takes number 3 and its round-1 game.
        sub = {"section": "open", "player": 3, "name": "Ordezko, Miren", "rating": 1990}
        answer = await _confirmed(client, REPLACE, sub)
        assert answer.status == 200, await answer.text()
        done = (await answer.json())["replaced"]
        assert done["newcomer"] == {"player": 3, "name": "Ordezko, Miren"}
        assert done["from_round"] == 1 and done["override"] == ""
        board = next(p for p in pairings if 3 in p.players()).board
        games = (await (await client.get("/api/v1/rounds/1")).json())["games"]
        game = next(g for g in games if g["board"] == board)
        assert "Ordezko, Miren" in (game["white"]["name"], game["black"]["name"])

        # Round 1 is played; round 2, paired over the API by FIDE Dutch, pairs the late
        # entry, and the public pairings name her.
        assert isinstance(service.time_source, ManualTime)
        service.time_source.set(at("2025-09-12T21:00:00"))
        for p in pairings:
            if p.black is not None:
                game_id = GameKey("Open", 1, p.board).id
                acting.set_result(service, game_id, "1-0", "arbiter:ana", "resignation")
        # The public standings after round 1 list her with the half point of her missed
        # round (a round's points count from its first game result on: issue 30, M1).
        rows = await (await client.get("/api/v1/standings")).json()
        assert next(r for r in rows if r["start"] == 25)["points"] == 0.5
        answer = await client.post(
            "/api/v1/arbiter/sections/open/rounds/2/pairings",
            json={"engine": "dutch"},
            headers=BASIC,
        )
        assert answer.status == 200, await answer.text()
        assert any(25 in (p["white"], p["black"]) for p in (await answer.json())["pairings"])
        published = await (await client.get("/api/v1/pairings")).json()
        second = next(r for r in published if r["round"] == 2)["pairings"]
        names = {side["name"] for row in second for side in (row["white"], row["black"]) if side}
        assert "Etxeberria, Lara" in names

        # Player 1 has played; replacing them needs a withdrawal and the override. Their
        # round-2 game, paired and not begun, is then a forfeit (a Swiss withdrawal): the
        # newcomer plays from round 3.
        jon = {**sub, "player": 1, "name": "Ordezko, Jon"}
        refused = await client.post(REPLACE, json=jon, headers=BASIC)
        assert refused.status == 422
        assert "only the arbiter's override" in (await refused.json())["error"]
        withdrawal = {"section": "open", "player": 1, "from_round": 2}
        withdrawn = await _confirmed(client, "/api/v1/arbiter/withdrawals", withdrawal)
        assert withdrawn.status == 200, await withdrawn.text()
        forced = {**jon, "override": "chief arbiter"}
        answer = await _confirmed(client, REPLACE, forced)
        assert answer.status == 200, await answer.text()
        done = (await answer.json())["replaced"]
        assert done["newcomer"] == {"player": 26, "name": "Ordezko, Jon"}
        assert done["override"] == "chief arbiter" and done["from_round"] == 3
        games = (await (await client.get("/api/v1/rounds/2")).json())["games"]
        ones = [g for g in games if 1 in (g["white"]["start"], g["black"]["start"])]
        assert [g["result_reason"] for g in ones] == ["withdrawal"]
        assert all("Ordezko, Jon" not in (g["white"]["name"], g["black"]["name"]) for g in games)
        missing = await client.post(REPLACE, json={**jon, "player": 99}, headers=BASIC)
        assert missing.status == 422 and "no player 99" in (await missing.json())["error"]
    finally:
        await client.close()


async def test_a_round_robin_refuses_a_late_entry_over_the_api(tmp_path: Path) -> None:
    client, _ = await _client(tmp_path, "pamplona-masters.toml", "2025-12-22T12:00:00")
    try:
        body = {"section": "masters", "name": "Late, Comer", "rating": 2400}
        answer = await client.post(LATE, json=body, headers=BASIC)
        assert answer.status == 422
        assert "Berger tables are fixed" in (await answer.json())["error"]
        body = {"section": "masters", "player": 4, "name": "Ordezko, Unai"}
        answer = await _confirmed(client, REPLACE, body)
        assert answer.status == 200 and (await answer.json())["replaced"]["from_round"] == 1
    finally:
        await client.close()


def _message(response: ClientResponse) -> str:
    """The desk's message in its redirect: what was done (`?m=`), or "Not done: " and
    why (`?e=`)."""
    location = response.headers["Location"]
    assert location.startswith(("/arbiter?m=", "/arbiter?e="))
    done = unquote(location[len("/arbiter?m=") :])
    assert location.startswith("/arbiter?e=") == done.startswith("Not done: ")
    return done


async def _form(client: TestClient, csrf: str, path: str, **fields: str) -> str:
    response = await client.post(path, data={**fields, "csrf": csrf}, allow_redirects=False)
    assert response.status == 303, await response.text()
    return _message(response)


async def _confirmed_form(client: TestClient, csrf: str, path: str, **fields: str) -> str:
    """A form that asks first (its confirmation box), posted again confirmed."""
    response = await _desk_confirmed(client, path, {**fields, "csrf": csrf})
    assert response.status == 303, await response.text()
    return _message(response)


async def test_the_desk_forms_enter_and_replace(tmp_path: Path) -> None:
    client, service = await _client(tmp_path, "sestao-2025-swiss.toml", "2025-09-10T12:00:00")
    try:
        assert await _login(client)
        desk = await (await client.get("/arbiter")).text()
        assert 'action="/arbiter/regs/late-entry"' in desk and 'id="late-entry"' in desk
        assert 'action="/arbiter/regs/replace"' in desk
        token = re.search(r'name="csrf" value="([^"]+)"', desk)
        assert token is not None
        csrf = token.group(1)
        late = "/arbiter/regs/late-entry"
        acting.pair_dutch(service, "Open", 1, "arbiter:ana")
        done = await _form(
            client,
            csrf,
            late,
            section="open",
            name="Etxeberria, Lara",
            rating="1880",
            federation="ESP",
            sex="F",
            birth="2004",
            from_round="3",
            missed_round_points="0.5",
        )
        assert done == "late entry: Etxeberria, Lara (25), paired from round 3, starts with 1 point"
        entry = service.tournament.section("Open").players[25]
        assert (entry.rating, entry.sex, entry.birth) == (1880, "w", "2004")
        assert await _form(client, csrf, late, section="open", name="X", rating="high") == (
            "Not done: rating 'high' is not a rating: a number such as 1850"
        )
        assert await _form(
            client, csrf, late, section="open", name="X", missed_round_points="1"
        ) == ("Not done: points per missed round must be 0 or 0.5")
        assert await _form(client, csrf, late, section="open", config_player="30") == (
            "Not done: the config lists no player 30 in Open"
        )
        assert await _form(client, csrf, late, section="open", config_player="26", name="X") == (
            "Not done: give either the newcomer's particulars or their number in the config, "
            "not both"
        )
        replace = "/arbiter/regs/replace"
        assert await _confirmed_form(
            client, csrf, replace, section="open", player="5", name="Ordezko, Ane"
        ) == ("Arrieta, Garazi (5) replaced by Ordezko, Ane from round 1")
        assert service.tournament.section("Open").players[5].name == "Ordezko, Ane"
        # A player by number or by name: a name nobody has, or several have, is refused.
        assert await _form(client, csrf, replace, section="open", player="Nobody") == (
            "Not done: no player of Open is called 'Nobody'"
        )
        several = await _form(client, csrf, replace, section="open", player="Goikoetxea")
        assert several.startswith("Not done: 'Goikoetxea' names several players")
        # The log of the journal's actions names both (the desk's history reads the journal).
        kinds = [type(e.event).__name__ for e in service.journal.read(0)]
        assert kinds.count("PlayerEntered") == 1 and kinds.count("PlayerReplaced") == 1
    finally:
        await client.close()


@pytest.mark.expected_log("the clock tick stopped")
async def test_a_spanish_desk_reads_system_alerts_and_refusals_in_spanish(tmp_path: Path) -> None:
    """Issue 30: the service's own alerts and the refusals of a late entry, said by the
    core as phrases, reach a Spanish desk in Spanish (English stays in the API's
    `message` and the journal)."""
    client, service = await _client(tmp_path, "sestao-2025-swiss.toml", "2025-09-10T12:00:00")
    try:

        async def broken() -> None:
            raise RuntimeError("boom")

        service.supervisor.start(
            say("the clock tick"),
            broken,
            stops=say("Lichess is not sent new moves until it runs again."),
            restart=False,
        )
        for _ in range(20):  # the task fails on its first turns of the loop
            await asyncio.sleep(0)
        alerts = await (await client.get("/api/v1/arbiter/alerts", headers=BASIC)).json()
        failed = next(a for a in alerts if a["kind"] == "task-failed")
        assert failed["message"].startswith("the clock tick stopped on a software error")
        assert failed["messages"]["es"] == (
            "el pulso del reloj se ha detenido por un error de software (RuntimeError: boom); "
            "no se reinicia. No se envían jugadas nuevas a Lichess hasta que vuelva a "
            "funcionar. El registro tiene la traza."
        )
        assert failed["messages"]["eu"].startswith("erlojuaren taupada gelditu egin da")

        assert await _login(client)
        desk = await (await client.get("/arbiter?lang=es")).text()
        assert "el pulso del reloj se ha detenido por un error de software" in desk
        token = re.search(r'name="csrf" value="([^"]+)"', desk)
        assert token is not None
        late = "/arbiter/regs/late-entry"
        fields = {"section": "open", "name": "X", "rating": "high", "csrf": token.group(1)}
        response = await client.post(late, data=fields, allow_redirects=False)
        assert response.status == 303
        said_es = unquote(response.headers["Location"])
        assert said_es.endswith("elo 'high' no es un elo: un número como 1850"), said_es
        fields = {"section": "open", "config_player": "30", "csrf": token.group(1)}
        response = await client.post(late, data=fields, allow_redirects=False)
        said_es = unquote(response.headers["Location"])
        assert said_es.endswith("la configuración no tiene ningún jugador 30 en Open"), said_es
    finally:
        await client.close()
