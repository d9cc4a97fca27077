"""Donostia art. 10: a play-off league among three or more is everyone against everyone
once. A pairing that repeats a pair of the same league is refused (service and API), and a
league with a pair missing is not complete, whatever the number of games; across a
restart too."""

from __future__ import annotations

from base64 import b64encode
from pathlib import Path

import pytest
from aiohttp.test_utils import TestClient, TestServer

from broadcast.games.ids import GameKey
from broadcast.service.event_service import ActionError, EventService
from broadcast.tournament.playoff import playoff_status
from broadcast.tournament.section import PlayoffGame
from broadcast.tournament.tournament_events import PlayoffGamePaired
from tests.broadcast.tournament.test_playoff import AT, RULES, games
from tests.broadcast.tournament.test_regulations_applied import ARBITER, service_for
from tests.support import acting
from tests.support.web_app import CREDENTIALS
from web.app import build_app

BASIC = {"Authorization": "Basic " + b64encode(":".join(CREDENTIALS).encode()).decode()}
NAME = "Kutxa"


def test_a_league_with_a_pair_missing_is_not_complete() -> None:
    # 10-5, 5-10, 5-4: three games, but 4 and 10 never met.
    played = games((10, 5, "1-0"), (5, 10, "1-0"), (5, 4, "1-0"))
    status = playoff_status(RULES, [4, 5, 10], played)
    assert status.winner is None and status.next_kind == "blitz"
    assert status.missing == ((4, 10),) and status.met == ((4, 5), (5, 10))
    # The old count closed the league after any three games: 5 first (2 points). Now it
    # closes when 4 and 10 have met, and the repeat 5-10 does not count: 10 first.
    fourth = PlayoffGame(4, 4, 10, "blitz", AT, 1, "0-1")
    done = playoff_status(RULES, [4, 5, 10], [*played, fourth])
    assert done.winner == 10 and done.missing == ()


def _tie_three(service: EventService) -> None:
    """1, 2 and 3 beat everybody else and draw each other: a tie for first among three."""
    section = service.tournament.section(NAME)
    for number in range(1, section.config.rounds + 1):
        for pairing in section.rounds[number].pairings:
            top = {1, 2, 3} & set(pairing.players())
            result = "1/2-1/2"
            if len(top) == 1:
                result = "1-0" if pairing.white in top else "0-1"
            acting.set_result(service, GameKey(NAME, number, pairing.board).id, result, ARBITER)


async def test_a_repeated_pairing_in_a_league_is_refused(tmp_path: Path) -> None:
    service, _ = service_for(tmp_path, "donostia-2009-round-robin.toml", "2009-07-16T20:00:00")
    _tie_three(service)
    first = acting.journaled(
        acting.pair_playoff_game(service, NAME, 1, 2, ARBITER), PlayoffGamePaired
    )
    rounds = service.config.section(NAME).rounds
    game = GameKey(NAME, first.number + rounds, first.board).id
    acting.set_result(service, game, "1-0", ARBITER)
    with pytest.raises(ActionError, match="already met in this play-off league") as refused:
        acting.pair_playoff_game(service, NAME, 2, 1, ARBITER)
    assert "still to play: 1-3, 2-3" in str(refused.value)

    again = EventService(service.config, service.journal, time_source=service.time_source, delay=0)
    again.load()
    client = TestClient(TestServer(build_app(again, CREDENTIALS)))
    await client.start_server()
    try:
        body = {"section": NAME, "white": 2, "black": 1}
        response = await client.post("/api/v1/arbiter/playoff-games", json=body, headers=BASIC)
        assert response.status == 422
        assert "already met" in (await response.json())["error"]
        body = {"section": NAME, "white": 3, "black": 1}
        response = await client.post("/api/v1/arbiter/playoff-games", json=body, headers=BASIC)
        assert response.status == 200, await response.text()
    finally:
        await client.close()
