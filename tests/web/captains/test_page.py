"""A team captain's lineup page `/captain/{section}/{team}` (web/captains/page.py) through
aiohttp's test client, on the league of tests/data/teams-league.toml (4 clubs of 4 boards,
rosters of 5: team 1 is players 1-5, team 2 players 6-10; lineups due an hour before).

With the team's captain code a captain sees the roster and the lineup in, and sends a
lineup through the same door as the desk (journaled with `by` "captain:<team>"); each
lineup rule is refused with the desk's words; the code opens its own team only; wrong
codes are refused and limited; the lineup is not public before the round's boards are
paired; the desk's lineup page hands the codes out.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest
from aiohttp.test_utils import TestClient, TestServer

from broadcast.actions import ComposeTeamRound, SubmitLineup, Undo
from broadcast.service.event_service import EventService
from tests.support import acting
from tests.support.league_service import HOUR, LEAGUE, league_service, pair_teams
from tests.support.web_app import CREDENTIALS
from web.app import build_app
from web.captains.parts import CAPTAIN_CODES
from web.checkin.limits import PER_CLIENT_BURST

PAGE = "/captain/league/1"
CAPTAIN = "captain:Arrasate Xake Taldea"


@pytest.fixture
async def league(tmp_path: Path) -> AsyncIterator[tuple[TestClient, EventService]]:
    """The league two hours before round 1, its teams paired."""
    service = league_service(tmp_path)
    pair_teams(service)
    async with TestClient(TestServer(build_app(service, CREDENTIALS))) as client:
        yield client, service


def _code(client: TestClient, team: int = 1) -> str:
    app = client.server.app
    assert app is not None
    return app[CAPTAIN_CODES].code(LEAGUE, team)


async def _send(
    client: TestClient, players: list[int | str], *, team: int = 1, code: str | None = None
) -> aiohttp.ClientResponse:
    form = {f"board{i}": str(p) for i, p in enumerate(players, start=1)}
    form |= {"c": code if code is not None else _code(client, team), "round": "1"}
    return await client.post(f"/captain/league/{team}", data=form, allow_redirects=False)


def _lineup(service: EventService, team: int = 1) -> tuple[int | None, ...] | None:
    lineup = service.tournament.section(LEAGUE).team_rounds.lineup(1, team)
    return lineup.players if lineup is not None else None


async def test_a_captain_sees_the_roster_and_sends_a_lineup(
    league: tuple[TestClient, EventService],
) -> None:
    client, service = league
    page = await client.get(f"{PAGE}?c={_code(client).lower()}")
    text = await page.text()
    assert page.status == 200 and page.headers["Cache-Control"] == "no-store"
    assert "Agirre, Jon" in text and "Ibarra, Nerea" in text  # the roster
    assert "No lineup yet." in text
    sent = await _send(client, [1, 2, 3, 5])
    assert sent.status == 303 and "m=sent" in sent.headers["Location"]
    lineup = service.tournament.section(LEAGUE).team_rounds.lineup(1, 1)
    assert lineup is not None and lineup.players == (1, 2, 3, 5) and lineup.by == CAPTAIN
    shown = await (await client.get(sent.headers["Location"])).text()
    assert "Lineup sent." in shown and f"Sent by {CAPTAIN}." in shown
    # A second lineup replaces the first; the desk can undo it (the first comes back).
    again = await _send(client, [1, 2, 3, 4])
    assert again.status == 303 and _lineup(service) == (1, 2, 3, 4)
    last = service.action_log.recent(1)[0]
    acting.do(service, Undo(last.seq))
    assert _lineup(service) == (1, 2, 3, 5)


@pytest.mark.parametrize(
    ("players", "words"),
    [
        ([2, 1, 3, 4], "breaks the roster&#39;s order"),
        ([1, 2, 6, 4], "plays for team"),
        ([1, "", 3, 4], "board 2 is empty above board 3"),
        ([1, 1, 3, 4], "named twice"),
        ([1, 2, 3, 999], "is not on the roster"),
    ],
)
async def test_each_lineup_rule_is_refused_with_the_desks_words(
    league: tuple[TestClient, EventService], players: list[int | str], words: str
) -> None:
    client, service = league
    refused = await _send(client, players)
    text = await refused.text()
    assert refused.status == 422, text
    assert "Not done:" in text and words in text, text
    assert _lineup(service) is None


async def test_a_late_lineup_is_refused_the_arbiter_may_still_accept_it(
    league: tuple[TestClient, EventService],
) -> None:
    client, service = league
    service.time_source.advance(1.5 * HOUR)  # type: ignore[attr-defined]
    refused = await _send(client, [1, 2, 3, 4])
    assert refused.status == 422
    assert "the lineup is late" in await refused.text()
    assert _lineup(service) is None


async def test_a_captain_cannot_touch_another_teams_lineup(
    league: tuple[TestClient, EventService],
) -> None:
    client, service = league
    acting.do(service, SubmitLineup(LEAGUE, 1, 2, (6, 7, 8, 9)))
    # Team 1's code on team 2's page is a wrong code: nothing shown, nothing sent.
    shown = await client.get(f"/captain/league/2?c={_code(client, 1)}")
    text = await shown.text()
    assert shown.status == 403 and "Larrañaga, Unai" not in text
    sent = await _send(client, [6, 7, 8, 10], team=2, code=_code(client, 1))
    assert sent.status == 403 and _lineup(service, 2) == (6, 7, 8, 9)
    # On its own page the code sends only its own team's lineup: team 2's players are
    # refused there, and team 2's lineup stays as it was.
    own = await _send(client, [6, 7, 8, 9])
    assert own.status == 422 and _lineup(service, 1) is None
    assert _lineup(service, 2) == (6, 7, 8, 9)


async def test_a_wrong_code_is_refused_then_limited(
    league: tuple[TestClient, EventService],
) -> None:
    client, service = league
    empty = await client.get(PAGE)
    assert empty.status == 200 and "Captain code" in await empty.text()
    for _ in range(PER_CLIENT_BURST):
        wrong = await client.get(f"{PAGE}?c=ZZZZZZ")
        assert wrong.status == 403
        assert "Wrong code" in await wrong.text()
    held = await client.get(f"{PAGE}?c={_code(client)}")  # even the right one, while held
    assert held.status == 429 and int(held.headers["Retry-After"]) > 0
    posted = await _send(client, [1, 2, 3, 4])
    assert posted.status == 429 and _lineup(service) is None


async def test_unknown_sections_and_teams_are_404(
    league: tuple[TestClient, EventService],
) -> None:
    client, _ = league
    for path in (
        "/captain/league/9",
        "/captain/nowhere/1",
        "/captain/league/x1",
        "/captain/league/99999",
    ):
        assert (await client.get(f"{path}?c=ABCDEF")).status == 404


async def test_the_lineup_is_not_public_before_the_boards_are_paired(
    league: tuple[TestClient, EventService],
) -> None:
    client, service = league
    assert (await _send(client, [1, 2, 3, 5])).status == 303
    reserve = "Ibarra, Nerea"  # player 5, on board 4 of the captain's lineup
    before = await client.get("/api/v1/matches")
    assert before.status == 200 and reserve not in await before.text()
    assert reserve not in await (await client.get(PAGE)).text()  # no code: no lineup
    acting.do(service, ComposeTeamRound(LEAGUE, 1))
    after = await client.get("/api/v1/matches")
    assert reserve in await after.text()
    # Once the boards are paired the page shows the lineup and no form.
    text = await (await client.get(f"{PAGE}?c={_code(client)}&r=1")).text()
    assert "cannot change any more" in text and "Send lineup" not in text


async def test_the_desk_hands_out_the_captain_codes(
    league: tuple[TestClient, EventService],
) -> None:
    client, _ = league
    login = await (await client.get("/arbiter/login")).text()
    token = re.search(r'name="login_token" value="([^"]+)"', login)
    assert token is not None
    await client.post(
        "/arbiter/login",
        data={"login_token": token.group(1), "user": CREDENTIALS[0], "password": CREDENTIALS[1]},
        allow_redirects=False,
    )
    desk = await client.get("/arbiter/teams")
    text = await desk.text()
    assert desk.status == 200
    for team in (1, 2, 3, 4):
        assert _code(client, team) in text
        assert re.search(rf"/captain/league/{team}\?c={_code(client, team)}", text)
