"""Sestao art. 6 through the service and the arbiter API: a request to continue that
cannot succeed is refused (422, in the regulation's words) and nothing is journaled; one
that succeeds closes the player's `absence-disqualifies` alert with its reason; at a second
no-show the desk shows one state (eliminated), across a restart too."""

from __future__ import annotations

import dataclasses
from base64 import b64encode
from pathlib import Path

import pytest
from aiohttp.test_utils import TestClient, TestServer

from broadcast.arbiter.alerts import AlertResolved
from broadcast.games.ids import GameKey
from broadcast.service.event_service import ActionError, EventService
from broadcast.tournament.eligibility import status_of
from broadcast.tournament.tournament_events import ContinuationRequested
from clocks.timesource import ManualTime
from tests.broadcast.tournament.test_regulations_applied import ARBITER, at, service_for
from tests.rehearsals.test_regulations_everywhere import _sestao_round
from tests.support import acting
from tests.support.web_app import CREDENTIALS
from web.app import build_app

BASIC = {"Authorization": "Basic " + b64encode(":".join(CREDENTIALS).encode()).decode()}
OPEN = "Open"


def _round_one_played(tmp_path: Path) -> tuple[EventService, ManualTime, int]:
    """Sestao round 1 paired by hand; board 1's Black never came (+/-); the others won
    by White. Returns the absent player."""
    service, time_source = service_for(tmp_path, "sestao-2025-swiss.toml", "2025-09-12T12:00:00")
    round1 = _sestao_round(service, 1)
    time_source.set(at("2025-09-12T20:00:00"))
    acting.set_result(service, GameKey(OPEN, 1, 1).id, "+/-", ARBITER, "forfeit")
    for board in range(2, 13):
        acting.set_result(service, GameKey(OPEN, 1, board).id, "1-0", ARBITER, "resignation")
    black = round1[0].black
    assert black is not None
    return service, time_source, black


def _continuations(service: EventService) -> list[ContinuationRequested]:
    return [e.event for e in service.journal.read() if isinstance(e.event, ContinuationRequested)]


def _open_kinds_for(service: EventService, name: str) -> list[str]:
    return [a.kind for a in service.alerts() if name in a.players]


async def test_a_continuation_after_a_round_one_no_show_is_refused_with_the_article(
    tmp_path: Path,
) -> None:
    service, _, absent = _round_one_played(tmp_path)
    assert service.tournament.section(OPEN).withdrawn[absent] == 2
    with pytest.raises(ActionError, match="beginning of the first round is excluded"):
        acting.continue_after_absence(service, OPEN, 1, absent, ARBITER)
    client = TestClient(TestServer(build_app(service, CREDENTIALS)))
    await client.start_server()
    try:
        body = {"section": OPEN, "round": 1, "player": absent}
        response = await client.post("/api/v1/arbiter/continuations", json=body, headers=BASIC)
        assert response.status == 422
        text = (await response.json())["error"]
        assert "does not show up at the beginning of the first round" in text
        assert "excluded from the tournament" in text
        # A round without an absence, and a player who does not exist, are refused too.
        other = {**body, "player": absent + 1}
        response = await client.post("/api/v1/arbiter/continuations", json=other, headers=BASIC)
        assert response.status == 422 and "no absence in round 1" in await response.text()
        nobody = {**body, "player": 99}
        response = await client.post("/api/v1/arbiter/continuations", json=nobody, headers=BASIC)
        assert response.status == 422 and "no player 99" in await response.text()
    finally:
        await client.close()
    assert _continuations(service) == []  # nothing journaled for a refused request
    assert service.tournament.section(OPEN).withdrawn[absent] == 2


def test_a_continuation_closes_the_absence_alert_and_a_second_no_show_eliminates(
    tmp_path: Path,
) -> None:
    service, time_source, _ = _round_one_played(tmp_path)
    round2 = _sestao_round(service, 2)
    time_source.set(at("2025-09-13T10:40:00"))
    absent = round2[0].white
    name = service.tournament.section(OPEN).players[absent].name
    acting.set_result(service, GameKey(OPEN, 2, 1).id, "-/+", ARBITER, "forfeit")
    assert _open_kinds_for(service, name) == ["absence-disqualifies"]

    acting.continue_after_absence(service, OPEN, 2, absent, ARBITER)
    assert _open_kinds_for(service, name) == []
    closing = [
        e.event
        for e in service.journal.read()
        if isinstance(e.event, AlertResolved) and e.event.alert.startswith("absence-disqualifies")
    ]
    assert [c.why for c in closing] == [
        f"the player asked in writing to continue after round 2 (recorded by {ARBITER})"
    ]
    # Once round 3 is paired, a request about round 2 is late.
    for board in range(2, len(round2) + 1):
        if round2[board - 1].black is not None:
            acting.set_result(service, GameKey(OPEN, 2, board).id, "1-0", ARBITER, "resignation")
    round3 = _sestao_round(service, 3)
    assert absent in {p for pair in round3 for p in pair.players()}
    with pytest.raises(ActionError, match="round 3 is already paired"):
        acting.continue_after_absence(service, OPEN, 2, absent, ARBITER)

    # Second no-show: the limit of 2 eliminates; the desk shows that alone.
    time_source.set(at("2025-09-13T18:40:00"))
    board = next(p.board for p in round3 if absent in p.players())
    white = next(p.white for p in round3 if absent in p.players())
    forfeit = "-/+" if white == absent else "+/-"
    acting.set_result(service, GameKey(OPEN, 3, board).id, forfeit, ARBITER, "forfeit")
    state = service.tournament.section(OPEN)
    assert state.no_shows[absent] == (2, 3) and state.withdrawn[absent] == 4
    assert _open_kinds_for(service, name) == ["withdraw-from-pairing"]
    assert status_of(state, absent).startswith("withdrawn from round 4")
    with pytest.raises(ActionError, match=r"withdrawn from round 4 \(2 no-shows\)"):
        acting.continue_after_absence(service, OPEN, 3, absent, ARBITER)

    # A restart replays the same: one alert, the continuation kept.
    again = EventService(service.config, service.journal, time_source=time_source, delay=0)
    again.load()
    assert _open_kinds_for(again, name) == ["withdraw-from-pairing"]
    assert again.tournament.section(OPEN).continuations[absent] == {2}


def test_a_withdrawal_closes_an_absence_alert_still_waiting(tmp_path: Path) -> None:
    service, time_source, _ = _round_one_played(tmp_path)
    round2 = _sestao_round(service, 2)
    time_source.set(at("2025-09-13T10:40:00"))
    absent = round2[0].white
    name = service.tournament.section(OPEN).players[absent].name
    acting.set_result(service, GameKey(OPEN, 2, 1).id, "-/+", ARBITER, "forfeit")
    acting.withdraw(service, OPEN, absent, ARBITER, reason="left the venue")
    assert "absence-disqualifies" not in _open_kinds_for(service, name)
    why = [
        e.event.why
        for e in service.journal.read()
        if isinstance(e.event, AlertResolved) and e.event.alert.startswith("absence-disqualifies")
    ]
    assert why == ["the player is out: withdrawn from round 3 (left the venue)"]


def test_the_arbiters_withdrawal_closes_the_alert_that_asked_for_it(tmp_path: Path) -> None:
    """Pamplona with on_limit = "alert": two no-shows ask the arbiter to withdraw the
    player; withdrawing them at the desk closes that alert, across a restart too."""
    service, time_source = service_for(tmp_path, "pamplona-masters.toml", "2025-12-22T16:00:00")
    masters = service.config.sections[0]
    rules = dataclasses.replace(masters.no_shows, on_limit="alert")
    config = dataclasses.replace(
        service.config, sections=(dataclasses.replace(masters, no_shows=rules),)
    )
    service = EventService(config, service.journal, time_source=time_source, delay=0)
    service.load()
    section = service.tournament.section("Masters")
    absent = 5
    for number in (1, 2):
        time_source.set(at(f"2025-12-{21 + number}T21:00:00"))
        for pairing in section.rounds[number].pairings:
            if absent in pairing.players():
                result = "-/+" if pairing.white == absent else "+/-"
                game = GameKey("Masters", number, pairing.board).id
                acting.set_result(service, game, result, ARBITER, "forfeit")
    name = service.tournament.section("Masters").players[absent].name
    assert _open_kinds_for(service, name) == ["withdraw-from-pairing"]
    acting.withdraw(service, "Masters", absent, ARBITER, reason="two missed games")
    assert _open_kinds_for(service, name) == []
    again = EventService(config, service.journal, time_source=time_source, delay=0)
    again.load()
    assert _open_kinds_for(again, name) == []
