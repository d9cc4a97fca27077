"""Sestao art. 5 for the byes a pairing program's TRF brings: they go through the same
bye policy as byes asked at the desk. One that breaks it (over the maximum, in the last
two rounds, past the deadline) raises a `bye-refused` alert and scores nothing until the
arbiter decides; accepting the file as it is, is an override on the record. Through the
arbiter API, and across a restart."""

from __future__ import annotations

from base64 import b64encode
from pathlib import Path
from typing import Any

from aiohttp.test_utils import TestClient, TestServer

from broadcast.fide.crosstable import Bye, Game, Player, ResultCode, build_crosstable
from broadcast.fide.trf import write_trf
from broadcast.service.event_service import EventService
from broadcast.tournament.tournament_events import ByeGranted
from tests.broadcast.tournament.test_regulations_applied import ARBITER, at, service_for
from tests.support import acting
from tests.support.web_app import CREDENTIALS
from web.app import build_app

BASIC = {"Authorization": "Basic " + b64encode(":".join(CREDENTIALS).encode()).decode()}
OPEN = "Open"
PAIR = "/api/v1/arbiter/sections/open/rounds/{}/pairings"


def vega_round(service: EventService, number: int, half: set[int]) -> str:
    """Vega's TRF for round `number`: players in `half` with an H bye, the others paired
    in order (the last one alone: the pairing bye)."""
    section = service.config.sections[0]
    players = [Player(p.number, p.name) for p in section.players]
    rest = [p.number for p in section.players if p.number not in half]
    games = [Game(number, w, b, None) for w, b in zip(rest[::2], rest[1::2], strict=False)]
    byes = [Bye(number, p, ResultCode.HALF_BYE) for p in sorted(half)]
    if len(rest) % 2:
        byes.append(Bye(number, rest[-1], ResultCode.PAIRING_BYE))
    return write_trf(build_crosstable(players, section.rounds, games, byes))


def refused_alerts(service: EventService) -> dict[tuple[int, str], str]:
    """Open bye-refused alerts by (round, player name): their messages."""
    return {(a.round, a.players[0]): a.message for a in service.alerts() if a.kind == "bye-refused"}


async def test_byes_in_the_pairing_programs_file_go_through_the_policy(tmp_path: Path) -> None:
    service, time_source = service_for(tmp_path, "sestao-2025-swiss.toml", "2025-09-10T12:00:00")
    state = service.tournament.section(OPEN)
    name23, name7 = state.players[23].name, state.players[7].name
    # Player 23 asked the chief arbiter in time for byes in rounds 2 and 3.
    for number in (2, 3):
        acting.request_bye(service, OPEN, number, 23, ARBITER)
    client = TestClient(TestServer(build_app(service, CREDENTIALS)))
    await client.start_server()

    async def pair(number: int, half: set[int], **extra: Any) -> Any:
        body = {"trf": vega_round(service, number, half), **extra}
        response = await client.post(PAIR.format(number), json=body, headers=BASIC)
        assert response.status == 200, await response.text()
        return await response.json()

    try:
        # Round 1, imported before it starts: a third bye for 23 is within the policy.
        await pair(1, {23})
        # Rounds 2 and 3: the byes granted at the desk, as Vega has them.
        time_source.set(at("2025-09-12T21:00:00"))
        await pair(2, {23})
        time_source.set(at("2025-09-13T14:00:00"))
        await pair(3, {23})
        assert refused_alerts(service) == {}
        # Round 4: a fourth bye for 23 (over the maximum of 3) and one for 7 that nobody
        # asked for before round 3 started (the deadline).
        time_source.set(at("2025-09-13T21:00:00"))
        await pair(4, {7, 23})
        alerts = refused_alerts(service)
        assert set(alerts) == {(4, name7), (4, name23)}
        assert "the player already has 3 of the 3 byes allowed" in alerts[(4, name23)]
        assert "pairing program's TRF" in alerts[(4, name23)]
        assert "too late" in alerts[(4, name7)]
        section = service.tournament.section(OPEN)
        assert 23 not in section.rounds[4].bye_codes and 7 not in section.rounds[4].bye_codes
        listed = (await (await client.get("/api/v1/pairings")).json())[3]["pairings"]
        assert {r["white"]["start"] for r in listed if r["bye"]} & {7, 23} == set()

        # The arbiter grants 7's bye anyway (the request came by mail in time).
        body = {"section": OPEN, "round": 4, "player": 7, "override": True}
        response = await client.post("/api/v1/arbiter/bye-requests", json=body, headers=BASIC)
        assert response.status == 200
        assert (await response.json())["override"].startswith("too late")
        assert set(refused_alerts(service)) == {(4, name23)}
        assert any(a.kind == "arbiter-override" and name7 in a.players for a in service.alerts())

        # Rounds 5 to 7 with no byes, then round 8 with 23's bye (no byes in the last two
        # rounds), accepted as the file has it: an override on the record.
        for number in (5, 6, 7):
            await pair(number, set())
        await pair(8, {23}, override=True)
        assert service.tournament.section(OPEN).rounds[8].bye_codes[23] == "H"
        overrides = [
            e.event
            for e in service.journal.read()
            if isinstance(e.event, ByeGranted) and e.event.override
        ]
        assert [(g.round, g.player, g.by) for g in overrides] == [
            (4, 7, "arbiter:" + CREDENTIALS[0]),
            (8, 23, "arbiter:" + CREDENTIALS[0]),
        ]
        assert overrides[1].override.startswith("no byes in round 8")
        response = await client.post(
            PAIR.format(8), json={"trf": "x", "override": "yes"}, headers=BASIC
        )
        assert response.status == 400  # override is a boolean
    finally:
        await client.close()

    def bye_points(svc: EventService) -> dict[tuple[int, int], str]:
        sec = svc.tournament.section(OPEN)
        return {(r, p): sec.round_byes(r).get(p, "") for r in range(1, 9) for p in (7, 23)}

    expected = bye_points(service)
    assert [expected[(r, 23)] for r in range(1, 9)] == ["H", "H", "H", "", "", "", "", "H"]
    assert expected[(4, 7)] == "H"
    # A restart replays the same decisions: the alert for 23's round 4 still waits.
    again = EventService(service.config, service.journal, time_source=time_source, delay=0)
    again.load()
    assert bye_points(again) == expected
    assert set(refused_alerts(again)) == {(4, name23)}
