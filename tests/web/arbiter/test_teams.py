"""A team section at the arbiter's side over HTTP (issue 33): the API pairs the teams (with
a preview), takes lineups (each rule refused with 422 in words, a replacement asked first
with 409, a late one only with the override), lists them, and pairs the boards; the
desk's lineup form does the same through plain forms."""

from __future__ import annotations

import re
from base64 import b64encode
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest
from aiohttp.test_utils import TestClient, TestServer

from broadcast.service.event_service import EventService
from clocks.timesource import ManualTime
from tests.support.league_service import HOUR, LEAGUE, league_service, pair_teams, roster
from tests.support.web_app import CREDENTIALS
from web.app import build_app

BASIC = {"Authorization": "Basic " + b64encode(":".join(CREDENTIALS).encode()).decode()}
ROUND = "/api/v1/arbiter/sections/league/rounds/1"


@pytest.fixture
async def api(tmp_path: Path) -> AsyncIterator[tuple[TestClient, EventService]]:
    service = league_service(tmp_path)
    client = TestClient(TestServer(build_app(service, CREDENTIALS)))
    await client.start_server()
    try:
        yield client, service
    finally:
        await client.close()


async def _post(
    client: TestClient, path: str, body: dict[str, Any] | None, status: int = 200
) -> dict[str, Any]:
    response = await client.post(ROUND + path, json=body, headers=BASIC)
    assert response.status == status, await response.text()
    answer: dict[str, Any] = await response.json()
    return answer


async def test_the_teams_are_paired_after_a_preview(api: tuple[TestClient, EventService]) -> None:
    client, service = api
    preview = await _post(client, "/matches", {"preview": True})
    assert "2 matches paired (berger)" in preview["preview"]["summary"]
    assert len(preview["matches"]) == 2
    assert service.tournament.section(LEAGUE).team_rounds.round_matches(1) == ()
    paired = await _post(client, "/matches", {})
    assert [m["number"] for m in paired["matches"]] == [1, 2]
    assert paired["action"]["seq"] > 0 and not paired["paired"]
    again = await _post(client, "/matches", {}, 422)
    assert "already paired" in again["error"]
    early = await client.post(
        "/api/v1/arbiter/sections/league/rounds/3/matches", json={}, headers=BASIC
    )
    assert early.status == 422 and "round 2 is not paired" in (await early.json())["error"]


async def test_matches_given_by_hand(api: tuple[TestClient, EventService]) -> None:
    client, _ = api
    bad = await client.post(ROUND + "/matches", json={"matches": [[1]]}, headers=BASIC)
    assert bad.status == 400
    twice = await _post(client, "/matches", {"matches": [[1, 2], [2, 3]]}, 422)
    assert "plays twice" in twice["error"]
    done = await _post(client, "/matches", {"matches": [[1, 4], [3, 2]]})
    assert done["matches"][1] == {"number": 2, "first": 3, "second": 2}


async def test_lineups_refused_in_words_and_accepted(
    api: tuple[TestClient, EventService],
) -> None:
    client, service = api
    team = pair_teams(service)[0].first
    r = roster(team)
    order = await _post(client, "/lineups", {"team": team, "players": [r[1], r[0]]}, 422)
    assert "order" in order["error"]
    other = roster(team % 4 + 1)[0]
    stranger = await _post(client, "/lineups", {"team": team, "players": [r[0], other]}, 422)
    assert stranger["error"]
    malformed = await client.post(
        ROUND + "/lineups", json={"team": team, "players": ["one"]}, headers=BASIC
    )
    assert malformed.status == 400
    done = await _post(client, "/lineups", {"team": team, "players": [*r[:3], None]})
    [lineup] = done["lineups"]
    assert lineup["players"] == [*r[:3], None] and lineup["team"] == team
    # A second lineup replaces the first once confirmed.
    asked = await _post(client, "/lineups", {"team": team, "players": list(r[:4])}, 409)
    token = asked["confirm"]["token"]
    replaced = await _post(
        client, "/lineups", {"team": team, "players": list(r[:4]), "confirm": token}
    )
    assert replaced["lineups"][0]["players"] == list(r[:4])
    listed = await client.get(ROUND + "/lineups", headers=BASIC)
    assert (await listed.json())["lineups"][0]["players"] == list(r[:4])


async def test_a_late_lineup_needs_the_override(api: tuple[TestClient, EventService]) -> None:
    client, service = api
    team = pair_teams(service)[0].first
    assert isinstance(service.time_source, ManualTime)
    service.time_source.advance(1.5 * HOUR)
    players = list(roster(team)[:4])
    late = await _post(client, "/lineups", {"team": team, "players": players}, 422)
    assert "late" in late["error"]
    done = await _post(
        client, "/lineups", {"team": team, "players": players, "override": "the bus was late"}
    )
    assert done["lineups"][0]["override"] == "the bus was late"


async def test_the_boards_are_paired_from_the_lineups(
    api: tuple[TestClient, EventService],
) -> None:
    client, service = api
    no_matches = await client.post(ROUND + "/boards", headers=BASIC)
    assert no_matches.status == 422
    pair_teams(service)
    done = await _post(client, "/boards", None)
    assert done["paired"] and len(done["pairings"]) == 8
    assert {lineup["fallback"] for lineup in done["lineups"]} != {""}  # none sent: fallbacks
    individuals = await client.get("/api/v1/arbiter/sections/nope/rounds/1/lineups", headers=BASIC)
    assert individuals.status == 404


# -- the desk's lineup form --------------------------------------------------------------------


@pytest.fixture
async def desk(tmp_path: Path) -> AsyncIterator[tuple[TestClient, EventService, str]]:
    service = league_service(tmp_path)
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


async def _form(client: TestClient, csrf: str, action: str, **fields: str) -> str:
    """The lineup page's message after the form (what the redirect carries)."""
    response = await client.post(
        f"/arbiter/teams/act/{action}", data={**fields, "csrf": csrf}, allow_redirects=False
    )
    assert response.status == 303, await response.text()
    location = response.headers["Location"]
    assert location.startswith("/arbiter/teams?")
    found = re.search(r"[&?]([me])=([^&]*)", location)
    assert found is not None
    said = unquote(found.group(2))
    assert (found.group(1) == "e") == said.startswith("Not done: ")
    return said


async def test_the_desk_pairs_the_teams_takes_lineups_and_pairs_the_boards(
    desk: tuple[TestClient, EventService, str],
) -> None:
    client, service, csrf = desk
    page = await (await client.get("/arbiter/teams")).text()
    assert "Pair round 1" in page and LEAGUE in page
    said = await _form(client, csrf, "pair", section="league", round="1")
    assert "2 matches paired" in said
    match = service.tournament.section(LEAGUE).team_rounds.round_matches(1)[0]
    team = match.first
    page = await (await client.get("/arbiter/teams?section=league&round=1")).text()
    assert 'name="board4"' in page and "Save lineup" in page
    r = roster(team)
    boards = {f"board{i}": str(p) for i, p in enumerate((r[1], r[0], r[2], r[3]), start=1)}
    refused = await _form(
        client, csrf, "lineup", section="league", round="1", team=str(team), **boards
    )
    assert refused.startswith("Not done: ") and "order" in refused
    boards = {f"board{i}": str(p) for i, p in enumerate(r[:3], start=1)} | {"board4": ""}
    said = await _form(
        client, csrf, "lineup", section="league", round="1", team=str(team), **boards
    )
    assert "lineup for round 1" in said
    assert service.tournament.section(LEAGUE).team_rounds.lineup(1, team) is not None
    said = await _form(client, csrf, "boards", section="league", round="1")
    assert "paired board by board" in said
    page = await (await client.get("/arbiter/teams?section=league&round=1")).text()
    assert "its lineups are public" in page


async def test_the_desk_asks_before_replacing_a_lineup(
    desk: tuple[TestClient, EventService, str],
) -> None:
    client, service, csrf = desk
    team = pair_teams(service)[0].first
    r = roster(team)
    fields = {"section": "league", "round": "1", "team": str(team)}
    await _form(client, csrf, "lineup", **fields, board1=str(r[0]), board2=str(r[1]))
    asked = await client.post(
        "/arbiter/teams/act/lineup",
        data={**fields, "board1": str(r[0]), "board2": str(r[2]), "csrf": csrf},
        allow_redirects=False,
    )
    assert asked.status == 200
    page = await asked.text()
    token = re.search(r'name="confirm" value="([^"]+)"', page)
    assert token is not None and "This removes:" in page
    said = await _form(
        client,
        csrf,
        "lineup",
        **fields,
        board1=str(r[0]),
        board2=str(r[2]),
        confirm=token.group(1),
    )
    assert "lineup for round 1" in said
    lineup = service.tournament.section(LEAGUE).team_rounds.lineup(1, team)
    assert lineup is not None and lineup.players == (r[0], r[2])


async def test_the_desk_links_to_the_lineups(desk: tuple[TestClient, EventService, str]) -> None:
    client, _, _ = desk
    assert 'href="/arbiter/teams"' in await (await client.get("/arbiter")).text()


# -- a lineup taken back; a team round is not paired player by player ------------------------------


async def test_a_lineup_is_taken_back_over_the_api_once_confirmed(
    api: tuple[TestClient, EventService],
) -> None:
    client, service = api
    team = pair_teams(service)[0].first
    none = await _post(client, f"/lineups/{team}/withdraw", None, 422)
    assert "no lineup for round 1 to take back" in none["error"]
    assert (await client.post(ROUND + "/lineups/first/withdraw", headers=BASIC)).status == 400
    await _post(client, "/lineups", {"team": team, "players": list(roster(team)[:4])})
    asked = await _post(client, f"/lineups/{team}/withdraw", None, 409)
    assert "taken back" in asked["confirm"]["summary"]
    assert service.tournament.section(LEAGUE).team_rounds.lineup(1, team) is not None
    response = await client.post(
        ROUND + f"/lineups/{team}/withdraw",
        params={"confirm": asked["confirm"]["token"]},
        headers=BASIC,
    )
    assert response.status == 200, await response.text()
    answer = await response.json()
    assert answer["lineups"] == [] and answer["action"]["seq"] > 0
    assert service.tournament.section(LEAGUE).team_rounds.lineup(1, team) is None


async def test_the_desk_takes_a_lineup_back_after_asking(
    desk: tuple[TestClient, EventService, str],
) -> None:
    client, service, csrf = desk
    team = pair_teams(service)[0].first
    r = roster(team)
    fields = {"section": "league", "round": "1", "team": str(team)}
    page = await (await client.get("/arbiter/teams?section=league&round=1")).text()
    assert "withdraw-lineup" not in page  # nothing to take back yet
    await _form(client, csrf, "lineup", **fields, board1=str(r[0]), board2=str(r[1]))
    page = await (await client.get("/arbiter/teams?section=league&round=1")).text()
    assert page.count('action="/arbiter/teams/act/withdraw-lineup"') == 1
    asked = await client.post(
        "/arbiter/teams/act/withdraw-lineup",
        data={**fields, "csrf": csrf},
        allow_redirects=False,
    )
    assert asked.status == 200
    page = await asked.text()
    token = re.search(r'name="confirm" value="([^"]+)"', page)
    assert token is not None and "This removes:" in page
    said = await _form(client, csrf, "withdraw-lineup", **fields, confirm=token.group(1))
    assert "taken back" in said
    assert service.tournament.section(LEAGUE).team_rounds.lineup(1, team) is None


async def test_a_team_round_is_not_paired_player_by_player_over_the_api(
    api: tuple[TestClient, EventService],
) -> None:
    client, service = api
    for body in ({"engine": "dutch"}, {"pairs": [[1, 6], [7, 2]]}):
        response = await client.post(ROUND + "/pairings", json=body, headers=BASIC)
        assert response.status == 422, await response.text()
        said = (await response.json())["error"]
        assert "is a team section" in said and "Pair the teams" in said and "team TRF" in said
    assert 1 not in service.tournament.section(LEAGUE).rounds


async def test_the_desks_dutch_pairing_refuses_a_team_round(
    desk: tuple[TestClient, EventService, str],
) -> None:
    client, service, csrf = desk
    response = await client.post(
        "/arbiter/act/pair",
        data={"section": "league", "round": "1", "trf": "", "csrf": csrf},
        allow_redirects=False,
    )
    assert response.status == 303, await response.text()
    said = unquote(response.headers["Location"])
    assert "is a team section" in said and "Lineups page" in said
    assert 1 not in service.tournament.section(LEAGUE).rounds
