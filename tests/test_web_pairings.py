"""Pairing a Swiss round from the arbiter API: Dutch engine, by hand, from a TRF."""

from __future__ import annotations

from base64 import b64encode
from pathlib import Path

from aiohttp.test_utils import TestClient, TestServer
from web_support import CREDENTIALS

from broadcast.config import load_event
from broadcast.journal import Journal
from broadcast.service import EventService
from broadcast.tournament.crosstable import Game, Player, build_crosstable
from broadcast.tournament.trf import write_trf
from clocks.timesource import ManualTime
from web.app import build_app

ROOT = Path(__file__).resolve().parent.parent
BASIC = {"Authorization": "Basic " + b64encode(":".join(CREDENTIALS).encode()).decode()}
URL = "/api/v1/arbiter/sections/open/rounds/1/pairings"


async def test_pair_import_and_edit_a_swiss_round(tmp_path: Path) -> None:
    config = load_event(ROOT / "examples" / "sestao-2025-swiss.toml")
    service = EventService(config, Journal(tmp_path / "j.sqlite"), time=ManualTime(1.8e9), delay=0)
    service.load()
    client = TestClient(TestServer(build_app(service, CREDENTIALS)))
    await client.start_server()
    try:
        assert (await client.post(URL, json={"engine": "dutch"})).status == 401
        answer = await client.post(URL, json={"engine": "dutch"}, headers=BASIC)
        assert answer.status == 200, await answer.text()
        body = await answer.json()
        players = len(config.sections[0].players)
        assert body["source"] == "dutch" and len(body["pairings"]) == (players + 1) // 2
        first = body["pairings"][0]
        assert {first["white"], first["black"]} & {
            1,
            players // 2 + 1,
        }  # top half meets bottom half
        games = (await (await client.get("/api/v1/rounds/1")).json())["games"]
        assert len(games) == players // 2

        # The arbiter swaps two pairings by hand: an edit of the paired round.
        pairs = [[p["white"], p["black"]] for p in body["pairings"]]
        pairs[0], pairs[1] = [pairs[0][0], pairs[1][1]], [pairs[1][0], pairs[0][1]]
        edited = await client.post(URL, json={"pairs": pairs}, headers=BASIC)
        assert edited.status == 200
        section = service.tournament.section(config.sections[0].name)
        assert section.rounds[1].pairings[0].black == pairs[0][1]

        # Vega's file for round 1: what it says is what the round becomes.
        starts = [p.number for p in config.sections[0].players]
        vega = build_crosstable(
            [Player(p.number, p.name) for p in config.sections[0].players],
            rounds=9,
            games=[Game(1, starts[i], starts[i + 1], None) for i in range(0, len(starts) - 1, 2)],
        )
        imported = await client.post(URL, json={"trf": write_trf(vega)}, headers=BASIC)
        assert imported.status == 200, await imported.text()
        assert [(p["white"], p["black"]) for p in (await imported.json())["pairings"]][:2] == [
            (starts[0], starts[1]),
            (starts[2], starts[3]),
        ]

        bad = await client.post(URL, json={"pairs": [[1, "x"]]}, headers=BASIC)
        assert bad.status == 400
        nothing = await client.post(URL, json={}, headers=BASIC)
        assert nothing.status == 400
        garbage = await client.post(URL, json={"trf": "not a trf"}, headers=BASIC)
        assert garbage.status == 422
        missing = await client.post(
            "/api/v1/arbiter/sections/blitz/rounds/1/pairings", json={}, headers=BASIC
        )
        assert missing.status == 404
    finally:
        await client.close()
