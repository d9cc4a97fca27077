"""A team section's round imported over HTTP (issue 33): the pairing program's TRF posted to
the pairings route brings the round's matches, the teams' lineups and the boards (through
`ImportTeamRound`); a TRF whose teams are not the section's is refused with 422 in words."""

from __future__ import annotations

from base64 import b64encode
from pathlib import Path

from aiohttp.test_utils import TestClient, TestServer

from tests.support.league_service import LEAGUE, league_service
from tests.support.team_trf import played_round_trf, unknown_team
from tests.support.web_app import CREDENTIALS
from web.app import build_app

BASIC = {"Authorization": "Basic " + b64encode(":".join(CREDENTIALS).encode()).decode()}
PAIRINGS = "/api/v1/arbiter/sections/league/rounds/1/pairings"


async def test_a_team_trf_posted_to_the_pairings_route_imports_the_round(tmp_path: Path) -> None:
    source, trf = played_round_trf(tmp_path / "played")
    (tmp_path / "fresh").mkdir()
    fresh = league_service(tmp_path / "fresh")
    async with TestClient(TestServer(build_app(fresh, CREDENTIALS))) as client:
        refused = await client.post(PAIRINGS, json={"trf": unknown_team(trf)}, headers=BASIC)
        assert refused.status == 422
        assert "none of the section's teams" in (await refused.json())["error"]
        done = await client.post(PAIRINGS, json={"trf": trf}, headers=BASIC)
        assert done.status == 200, await done.text()
        answer = await done.json()
    was, now = source.tournament.section(LEAGUE), fresh.tournament.section(LEAGUE)
    assert now.team_rounds.round_matches(1) == was.team_rounds.round_matches(1)
    assert now.team_rounds.round_lineups(1).keys() == was.team_rounds.round_lineups(1).keys()
    assert [(p["board"], p["white"], p["black"]) for p in answer["pairings"]] == [
        (p.board, p.white, p.black or 0) for p in was.rounds[1].pairings
    ]
    assert answer["action"]["kind"] == "team-import"
