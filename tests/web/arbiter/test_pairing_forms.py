"""Pairing a Swiss round from the arbiter API: Dutch engine, by hand, from a TRF."""

from __future__ import annotations

import asyncio
from base64 import b64encode
from collections.abc import Awaitable
from pathlib import Path

import pytest
from aiohttp.test_utils import TestClient, TestServer

from broadcast.config import load_event
from broadcast.fide.crosstable import Bye, Game, Player, ResultCode, build_crosstable
from broadcast.fide.trf import write_trf
from broadcast.journal.store import Journal
from broadcast.service.event_service import EventService
from clocks.timesource import ManualTime
from tests.support.paths import ROOT
from tests.support.web_app import CREDENTIALS
from web.app import build_app

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
    service = EventService(
        config, Journal(tmp_path / "j.sqlite"), time_source=ManualTime(1.8e9), delay=0
    )
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
    service = EventService(
        config, Journal(tmp_path / "j.sqlite"), time_source=ManualTime(1.8e9), delay=0
    )
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
    worker = service.pairer  # the service's one pairing worker
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
        while not worker.busy("Open", 1):
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


@pytest.mark.parametrize("where", ["game", "pairing-bye", "zero-bye"])
async def test_a_trf_naming_a_player_the_event_does_not_know_is_refused_before_journaling(
    tmp_path: Path, where: str
) -> None:
    # Audit D5: the pairing program has a late entry the event has not been told of.
    service = _swiss(tmp_path)
    client = TestClient(TestServer(build_app(service, CREDENTIALS)))
    await client.start_server()
    try:
        section = service.config.sections[0]
        players = [Player(p.number, p.name) for p in section.players]
        starts = [p.start for p in players]
        late = max(starts) + 1
        players.append(Player(late, "Latecomer, Lur"))
        table = [*starts[:-2], late, starts[-1]] if where == "game" else starts
        games = [Game(1, table[i], table[i + 1], None) for i in range(0, len(table) - 1, 2)]
        byes = {
            "game": [Bye(1, starts[-2], ResultCode.PAIRING_BYE)],
            "pairing-bye": [Bye(1, late, ResultCode.PAIRING_BYE)],
            "zero-bye": [Bye(1, late, ResultCode.ZERO_BYE)],
        }[where]
        vega = build_crosstable(players, rounds=9, games=games, byes=byes)
        journaled = service.journal.last_seq()
        answer = await client.post(
            URL, json={"trf": write_trf(vega), "override": True}, headers=BASIC
        )
        assert answer.status == 422, await answer.text()
        error = (await answer.json())["error"]
        assert f"player {late}" in error and "add the late entry" in error
        assert service.journal.last_seq() == journaled  # nothing journaled
        assert 1 not in service.tournament.section(section.name).rounds
    finally:
        await client.close()


async def _heartbeats_while(work: Awaitable[object]) -> tuple[object, int]:
    """What `work` gives, and how many times a task on the same loop ran meanwhile."""
    ticks = 0
    done = False

    async def heartbeat() -> None:
        nonlocal ticks
        while not done:
            await asyncio.sleep(0)
            ticks += 1

    beat = asyncio.ensure_future(heartbeat())
    await asyncio.sleep(0)  # the heartbeat is running before the work starts
    ticks = 0
    try:
        result = await work
        counted = ticks  # before the heartbeat's last turn, which the end itself gives
    finally:
        done = True
        await beat
    return result, counted


async def test_serve_sim_pairs_a_250_player_round_off_the_event_loop(tmp_path: Path) -> None:
    # `serve --sim` pairs the due round itself: on the loop, a 250-player round stopped
    # every board and page while the engine ran.
    from broadcast.actions.pairings import pair_unpaired, pair_unpaired_off_loop
    from broadcast.tournament.tournament_events import ResultRecorded
    from tests.support.big_event import swiss_config

    config = swiss_config(250)
    section = config.sections[0]
    clock = ManualTime(section.round_start(1).start.timestamp() + 60)
    service = EventService(config, Journal(tmp_path / "j.sqlite"), time_source=clock, delay=0)
    service.load()
    assert pair_unpaired(service, "test")[0].startswith("Open round 1 was not paired")
    rnd = service.tournament.section(section.name).rounds[1]
    outcomes = ["1-0", "0-1", "1/2-1/2"]
    service.commit(
        [
            ResultRecorded(section.name, 1, p.white, outcomes[p.board % 3])
            for p in rnd.pairings
            if p.black is not None
        ]
    )
    clock.set(section.round_start(2).start.timestamp() + 60)
    assert service.unpaired_rounds() == {section.name: 2}
    said, ticks = await _heartbeats_while(pair_unpaired_off_loop(service, "serve --sim"))
    assert said == [
        f"{section.name} round 2 was not paired: paired it with the FIDE Dutch "
        "engine from the ratings and results (125 games)"
    ]
    assert 2 in service.tournament.section(section.name).rounds
    assert ticks > 0  # the loop went on while the round was paired


async def test_the_desk_pairs_a_250_player_round_off_the_event_loop(tmp_path: Path) -> None:
    from tests.support.big_event import swiss_config

    config = swiss_config(250)
    service = EventService(
        config, Journal(tmp_path / "j.sqlite"), time_source=ManualTime(1.8e9), delay=0
    )
    service.load()
    client = TestClient(TestServer(build_app(service, CREDENTIALS)))
    await client.start_server()
    try:
        answer, ticks = await _heartbeats_while(
            client.post(URL, json={"engine": "dutch"}, headers=BASIC)
        )
        assert answer.status == 200, await answer.text()  # type: ignore[attr-defined]
        assert len(service.tournament.section("Open").rounds[1].pairings) == 125
        assert ticks > 0
    finally:
        await client.close()
