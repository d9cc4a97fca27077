"""Each round's byes listed once, whatever made them: the pairing bye, the pairing
program's H and Z, and a half-point bye granted through boardwire; on /api/v1/pairings
and the standings page, and the same after a restart."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from aiohttp.test_utils import TestClient, TestServer

from broadcast.games.ids import GameKey
from broadcast.service.event_service import EventService
from tests.broadcast.tournament.test_regulations_applied import (
    ARBITER,
    at,
    service_for,
    vega_round1,
)
from tests.rehearsals.test_regulations_everywhere import _sestao_round
from tests.support import acting
from tests.support.web_app import CREDENTIALS
from web.app import build_app

OPEN = "Open"


def _byes(rounds: list[dict[str, Any]], number: int) -> list[tuple[int, str]]:
    rows = next(r for r in rounds if r["round"] == number)["pairings"]
    return [(row["white"]["start"], row["result"]) for row in rows if row["bye"]]


async def _get(service: EventService, path: str) -> tuple[Any, str]:
    client = TestClient(TestServer(build_app(service, CREDENTIALS)))
    await client.start_server()
    try:
        pairings = await (await client.get(path)).json()
        page = await (await client.get("/standings")).text()
    finally:
        await client.close()
    return pairings, page


async def test_every_bye_is_listed_once(tmp_path: Path) -> None:
    service, time_source = service_for(tmp_path, "sestao-2025-swiss.toml", "2025-09-10T12:00:00")
    acting.request_bye(service, OPEN, 2, 5, ARBITER)  # a half-point bye asked at the desk
    acting.publish_imported(service, OPEN, 1, vega_round1(service.config), ARBITER)
    time_source.set(at("2025-09-12T20:00:00"))
    for board in range(1, 12):
        acting.set_result(service, GameKey(OPEN, 1, board).id, "1-0", ARBITER, "resignation")
    round2 = _sestao_round(service, 2)  # 23 players: one pairing bye
    alone = next(p.white for p in round2 if p.black is None)

    rounds, page = await _get(service, "/api/v1/pairings")
    assert _byes(rounds, 1) == [(23, "H"), (24, "Z")]  # Vega's, once each
    assert _byes(rounds, 2) == sorted([(5, "H"), (alone, "U")])
    games2 = [r for r in rounds[1]["pairings"] if not r["bye"]]
    assert len(games2) == 11 and all(r["board"] > 0 for r in games2)
    # The page lists the same rows: each bye player's row once per round.
    tables = re.findall(r'<table class="pairings">(.*?)</table>', page, re.S)
    assert len(tables) == 2
    name5 = service.tournament.section(OPEN).players[5].name
    assert tables[1].count(f"<td>{name5}</td>") == 1 and "bye (½)" in tables[1]
    name_alone = service.tournament.section(OPEN).players[alone].name
    assert tables[1].count(f"<td>{name_alone}</td>") == 1
    assert tables[0].count("bye (½)") == 1 and tables[0].count("bye (0)") == 1

    again = EventService(service.config, service.journal, time_source=time_source, delay=0)
    again.load()
    replayed, _ = await _get(again, "/api/v1/pairings")
    assert replayed == rounds
