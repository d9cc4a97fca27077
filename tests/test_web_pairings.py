"""Pairing a Swiss round from the arbiter API: Dutch engine, by hand, from a TRF."""

from __future__ import annotations

import asyncio
from base64 import b64encode
from pathlib import Path

import pytest
from aiohttp.test_utils import TestClient, TestServer
from web_support import CREDENTIALS

from broadcast.config import load_event
from broadcast.fide.crosstable import Game, Player, build_crosstable
from broadcast.fide.trf import write_trf
from broadcast.journal.store import Journal
from broadcast.service.event_service import EventService
from clocks.timesource import ManualTime
from web.app import build_app
from web.keys import PAIRER

ROOT = Path(__file__).resolve().parent.parent
BASIC = {"Authorization": "Basic " + b64encode(":".join(CREDENTIALS).encode()).decode()}
URL = "/api/v1/arbiter/sections/open/rounds/1/pairings"


async def _replace(client: TestClient, body: dict[str, object]) -> dict[str, object]:
    """Replacing a round's published pairings: 409 with the difference first, then done
    with the token of those words. The answer, and the difference's words."""
    asked = await client.post(URL, json=body, headers=BASIC)
    assert asked.status == 409, await asked.text()
    words = (await asked.json())["confirm"]
    done = await client.post(URL, json={**body, "confirm": words["token"]}, headers=BASIC)
    assert done.status == 200, await done.text()
    return {**(await done.json()), "words": words}


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
        edited = await _replace(client, {"pairs": pairs})
        assert edited["words"]["removes"] == []  # no game had begun: nothing dropped
        section = service.tournament.section(config.sections[0].name)
        assert section.rounds[1].pairings[0].black == pairs[0][1]

        # Vega's file for round 1: what it says is what the round becomes.
        starts = [p.number for p in config.sections[0].players]
        vega = build_crosstable(
            [Player(p.number, p.name) for p in config.sections[0].players],
            rounds=9,
            games=[Game(1, starts[i], starts[i + 1], None) for i in range(0, len(starts) - 1, 2)],
        )
        imported = await _replace(client, {"trf": write_trf(vega)})
        assert [(p["white"], p["black"]) for p in imported["pairings"]][:2] == [
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


def _swiss(tmp_path: Path) -> EventService:
    config = load_event(ROOT / "examples" / "sestao-2025-swiss.toml")
    service = EventService(config, Journal(tmp_path / "j.sqlite"), time=ManualTime(1.8e9), delay=0)
    service.load()
    return service


async def test_dutch_pairs_in_a_worker_process_never_in_the_servers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Pairing a big Swiss takes tens of seconds of pure Python: in the server's process
    # (on the loop, or in a thread holding the interpreter lock) it stalls the venue.
    import broadcast.actions.pairings
    import broadcast.fide.dutch

    def not_here(*args: object, **kwargs: object) -> None:
        raise AssertionError("paired in the server's own process")

    monkeypatch.setattr(broadcast.fide.dutch, "pair_round", not_here)
    monkeypatch.setattr(broadcast.actions.pairings, "pair_round", not_here)
    service = _swiss(tmp_path)
    client = TestClient(TestServer(build_app(service, CREDENTIALS)))
    await client.start_server()
    try:
        answer = await client.post(URL, json={"engine": "dutch"}, headers=BASIC)
        assert answer.status == 200, await answer.text()
        assert 1 in service.tournament.section("Open").rounds
    finally:
        await client.close()


async def test_a_round_being_paired_is_not_paired_twice(tmp_path: Path) -> None:
    service = _swiss(tmp_path)
    client = TestClient(TestServer(build_app(service, CREDENTIALS)))
    await client.start_server()
    try:
        first, second = await asyncio.gather(
            client.post(URL, json={"engine": "dutch"}, headers=BASIC),
            client.post(URL, json={"engine": "dutch"}, headers=BASIC),
        )
        assert sorted([first.status, second.status]) == [200, 409]
        refused = first if first.status == 409 else second
        assert "being paired already" in (await refused.json())["error"]
    finally:
        await client.close()


async def test_pairings_made_from_results_that_changed_meanwhile_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = _swiss(tmp_path)
    app = build_app(service, CREDENTIALS)
    worker = app[PAIRER]
    gate = asyncio.Event()
    run = worker._run

    async def held(key: tuple[str, int], job: bytes) -> tuple[str, object]:
        await gate.wait()  # the worker is busy until the test says so
        return await run(key, job)

    monkeypatch.setattr(worker, "_run", held)
    client = TestClient(TestServer(app))
    await client.start_server()
    try:
        dutch = asyncio.ensure_future(client.post(URL, json={"engine": "dutch"}, headers=BASIC))
        while ("Open", 1) not in worker._running:
            await asyncio.sleep(0.01)
        players = [p.number for p in service.config.sections[0].players]
        pairs = [[players[i], players[i + 1]] for i in range(0, len(players) - 1, 2)]
        by_hand = await client.post(URL, json={"pairs": pairs}, headers=BASIC)
        assert by_hand.status == 200, await by_hand.text()
        gate.set()
        late = await dutch
        assert late.status == 409 and "changed while" in (await late.json())["error"]
        round_1 = service.tournament.section("Open").rounds[1]
        assert round_1.pairings[0].white == pairs[0][0]  # the hand pairing stands
    finally:
        await client.close()
