"""The table page `/t/{table}` (web/checkin/page.py) through aiohttp's test client.

With the round's code a player checks in (a presence mark journaled with the player as
`by`) and, where the event lets players enter results, enters the result; the other
player confirms it on the same page, or the arbiter on the desk (the proposal reaches the
desk as a `result-proposed` alert, like a board's). A wrong code, a code of an earlier
round and a confirmation by the player who entered the result are refused with a
message; wrong codes are limited. No form a client can send gets a 500.
"""

from __future__ import annotations

import asyncio
import base64
import re
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import aiohttp
import pytest
from aiohttp.test_utils import TestClient, TestServer
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from broadcast.arbiter.alerts import PlayerMarkedPresent
from broadcast.config import load_event
from broadcast.games.game_events import ResultConfirmed, ResultProposed
from broadcast.journal.store import Journal
from broadcast.service.event_service import EventService
from clocks.timesource import ManualTime
from tests.support.web_app import CREDENTIALS, EVENT, T0
from web.app import build_app
from web.checkin.limits import PER_CLIENT_BURST, CodeLimits
from web.checkin.parts import CODES, LIMITS, table_qr

GAME = "masters-r1-b2"  # table 2 of round 1: Vallverdú (White) - Moreau (Black)
WHITE_BY = "player:Masters:2 Vallverdú, Clara"
BLACK_BY = "player:Masters:7 Moreau, Hélène"


def _event(tmp: Path, extra: str) -> Path:
    text = EVENT.read_text(encoding="utf-8").replace(
        'automatic_results = "confirm"', f'automatic_results = "confirm"\n{extra}', 1
    )
    path = tmp / "event.toml"
    path.write_text(text, encoding="utf-8")
    return path


BOTH = 'player_results = true\ncheck_in = "optional"'


def _service(tmp: Path, extra: str = BOTH) -> tuple[EventService, ManualTime]:
    clock = ManualTime(T0)
    service = EventService(
        load_event(_event(tmp, extra)),
        Journal(tmp / "journal.sqlite"),
        time_source=clock,
        live_round=1,
        delay=900,
    )
    service.load()
    return service, clock


@pytest.fixture
async def hall(tmp_path: Path) -> AsyncIterator[tuple[TestClient, EventService, ManualTime]]:
    service, clock = _service(tmp_path)
    async with TestClient(TestServer(build_app(service, CREDENTIALS))) as client:
        yield client, service, clock


def _code(client: TestClient, round_number: int = 1) -> str:
    app = client.server.app
    assert app is not None
    return app[CODES].code("Masters", round_number)


async def _post(client: TestClient, **form: str) -> aiohttp.ClientResponse:
    return await client.post("/t/2", data=form, allow_redirects=False)


def _entries(service: EventService, kind: type) -> list[object]:
    return [
        e for _, e in service.journal.read_kinds(0, service.journal.last_seq(), (kind.__name__,))
    ]


async def test_without_a_code_the_page_asks_for_it_and_shows_no_game(hall: tuple) -> None:
    client, _, _ = hall
    page = await client.get("/t/2")
    text = await page.text()
    assert page.status == 200
    assert 'name="c"' in text and "Vallverdú" not in text
    assert page.headers["Cache-Control"] == "no-store"


async def test_with_the_code_the_page_shows_the_tables_game_and_nothing_else(
    hall: tuple,
) -> None:
    client, _, _ = hall
    page = await client.get(f"/t/2?c={_code(client).lower()}")
    text = await page.text()
    assert page.status == 200
    assert "Vallverdú, Clara" in text and "Moreau, Hélène" in text
    assert "Round 1" in text
    # Only this table's pairing: no other game's players, no moves, no clocks, no live feed.
    assert "Errazkin" not in text and "live.js" not in text and "/ws" not in text


async def test_check_in_marks_presence_by_the_player(hall: tuple) -> None:
    client, service, _ = hall
    code = _code(client)
    answer = await _post(client, c=code, do="checkin", colour="white")
    assert answer.status == 303
    assert answer.headers["Location"] == f"/t/2?c={code}&m=checked-in"
    assert service.rules.watches[GAME].presence.white is not None
    marks = [e for e in _entries(service, PlayerMarkedPresent) if e.game == GAME]  # type: ignore[attr-defined]
    assert [(m.colour, m.by) for m in marks] == [("white", WHITE_BY)]  # type: ignore[attr-defined]
    assert service.action_log.recent(1)[0].by == WHITE_BY
    page = await client.get(answer.headers["Location"])
    assert "checked in" in await page.text()
    again = await _post(client, c=code, do="checkin", colour="white")
    assert again.status == 409 and "already" in await again.text()


async def test_a_result_by_white_confirmed_by_black_becomes_the_result(hall: tuple) -> None:
    client, service, _ = hall
    code = _code(client)
    entered = await _post(client, c=code, do="enter", colour="white", result="1-0")
    assert entered.status == 303
    game = service.book.get(GAME)
    assert game.result is None and game.proposal is not None
    assert game.proposal.result == "1-0"
    # It waits on the desk as any proposal does.
    assert any(a.kind == "result-proposed" and a.game == GAME for a in service.alerts())
    page = await (await client.get(f"/t/2?c={code}")).text()
    assert "Vallverdú, Clara entered 1-0." in page
    # The player who entered it cannot confirm it.
    own = await _post(client, c=code, do="confirm", colour="white")
    assert own.status == 409 and "You entered this result" in await own.text()
    confirmed = await _post(client, c=code, do="confirm", colour="black")
    assert confirmed.status == 303
    game = service.book.get(GAME)
    assert (game.result, game.result_reason) == ("1-0", "resignation")
    results = [e for e in _entries(service, ResultConfirmed) if e.game == GAME]  # type: ignore[attr-defined]
    assert [r.by for r in results] == [BLACK_BY]  # type: ignore[attr-defined]
    assert [a.by for a in service.action_log.recent(2)] == [BLACK_BY, WHITE_BY]
    assert not any(a.kind == "result-proposed" and a.game == GAME for a in service.alerts())
    assert "<strong>1-0</strong>" in await (await client.get(f"/t/2?c={code}")).text()


async def test_a_result_by_white_confirmed_by_the_arbiter(hall: tuple) -> None:
    client, service, _ = hall
    code = _code(client)
    assert (await _post(client, c=code, do="enter", colour="white", result="1/2-1/2")).status == 303
    proposals = [e for e in _entries(service, ResultProposed) if e.game == GAME]  # type: ignore[attr-defined]
    assert [p.detail for p in proposals] == ["entered at the table by white"]  # type: ignore[attr-defined]
    basic = base64.b64encode(":".join(CREDENTIALS).encode()).decode()
    answer = await client.post(
        f"/api/v1/arbiter/games/{GAME}/confirm", headers={"Authorization": f"Basic {basic}"}
    )
    assert answer.status == 200, await answer.text()
    game = service.book.get(GAME)
    assert (game.result, game.result_reason) == ("1/2-1/2", "agreement")
    results = [e for e in _entries(service, ResultConfirmed) if e.game == GAME]  # type: ignore[attr-defined]
    assert [r.by for r in results] == ["arbiter:arbiter"]  # type: ignore[attr-defined]
    late = await _post(client, c=code, do="confirm", colour="black")
    assert late.status == 409 and "has its result already" in await late.text()


async def test_players_who_disagree_leave_it_to_the_arbiter(hall: tuple) -> None:
    client, service, _ = hall
    code = _code(client)
    await _post(client, c=code, do="enter", colour="white", result="1-0")
    await _post(client, c=code, do="enter", colour="black", result="0-1")
    game = service.book.get(GAME)
    assert game.proposal is not None and game.proposal.result == "0-1"
    assert "disagree" in game.proposal.detail
    again = await _post(client, c=code, do="enter", colour="white", result="1-0")
    assert again.status == 409 and "the arbiter decides" in await again.text()
    assert service.book.get(GAME).result is None


async def test_a_wrong_code_is_refused_and_counted(hall: tuple) -> None:
    client, service, _ = hall
    code = _code(client)
    wrong = "ZZZZZZ" if code != "ZZZZZZ" else "YYYYYY"
    page = await client.get(f"/t/2?c={wrong}")
    assert page.status == 403 and "Wrong code" in await page.text()
    posted = await _post(client, c=wrong, do="checkin", colour="white")
    assert posted.status == 403
    assert service.rules.watches[GAME].presence.white is None
    for _ in range(PER_CLIENT_BURST):
        await client.get(f"/t/2?c={wrong}")
    held = await client.get(f"/t/2?c={code}")  # even the right code, while held
    assert held.status == 429 and "Too many wrong codes" in await held.text()
    assert int(held.headers["Retry-After"]) > 0


async def test_a_code_of_a_past_round_is_refused(hall: tuple) -> None:
    client, service, clock = hall
    old = _code(client, 1)
    start = service.config.section("Masters").round_start(2).start.timestamp()
    clock.advance(start - clock.now() + 60)
    assert service.live_rounds()["Masters"] == 2
    page = await client.get(f"/t/2?c={old}")
    text = await page.text()
    assert page.status == 403 and "This is the code of round 1" in text
    posted = await _post(client, c=old, do="enter", colour="white", result="1-0")
    assert posted.status == 403
    fresh = await client.get(f"/t/2?c={_code(client, 2)}")
    assert fresh.status == 200 and "Round 2" in await fresh.text()


async def test_the_page_speaks_spanish_and_basque(hall: tuple) -> None:
    client, _, _ = hall
    es = await (await client.get("/t/2?c=ZZZZZ9&lang=es")).text()
    assert "Código incorrecto" in es
    eu = await (await client.get(f"/t/2?c={_code(client)}&lang=eu")).text()
    assert "2. mahaia" in eu and "Nor zara?" in eu


async def test_an_event_without_player_results_takes_check_in_only(tmp_path: Path) -> None:
    service, _ = _service(tmp_path, 'check_in = "optional"')
    async with TestClient(TestServer(build_app(service, CREDENTIALS))) as client:
        code = _code(client)
        page = await (await client.get(f"/t/2?c={code}")).text()
        assert "check in" in page and 'name="result"' not in page
        refused = await _post(client, c=code, do="enter", colour="white", result="1-0")
        assert refused.status == 403 and "the arbiter enters the results" in await refused.text()
        assert (await _post(client, c=code, do="checkin", colour="black")).status == 303


async def test_an_event_without_check_in_takes_results_only(tmp_path: Path) -> None:
    service, _ = _service(tmp_path, "player_results = true")
    async with TestClient(TestServer(build_app(service, CREDENTIALS))) as client:
        code = _code(client)
        page = await (await client.get(f"/t/2?c={code}")).text()
        assert 'value="checkin"' not in page and 'name="result"' in page
        refused = await _post(client, c=code, do="checkin", colour="white")
        assert refused.status == 403
        assert service.rules.watches[GAME].presence.white is None


async def test_an_event_without_table_pages_has_none(tmp_path: Path) -> None:
    service, _ = _service(tmp_path, "")
    async with TestClient(TestServer(build_app(service, CREDENTIALS))) as client:
        page = await client.get("/t/2")
        assert page.status == 404
        app = client.server.app
        assert app is not None
        assert table_qr(app, "Masters", 1, 2) is None


async def test_unknown_tables_are_404(hall: tuple) -> None:
    client, _, _ = hall
    for path in ("/t/999", "/t/0", "/t/abc", "/t/99999", "/t/%C2%B2"):
        assert (await client.get(path)).status == 404, path


async def test_the_pairing_sheet_slot_gives_the_tables_qr_code(hall: tuple) -> None:
    client, _, _ = hall
    app = client.server.app
    assert app is not None
    from web.checkin.parts import table_qr as slot

    qr = slot(app, "Masters", 1, 2)
    assert qr is not None and "<svg" in qr and _code(client) in qr


async def test_the_arbiter_sees_and_renews_the_code(hall: tuple) -> None:
    client, _, _ = hall
    login = await client.get("/arbiter/login")
    token = re.search(r'name="login_token" value="([^"]+)"', await login.text())
    assert token is not None
    await client.post(
        "/arbiter/login",
        data={"login_token": token.group(1), "user": CREDENTIALS[0], "password": CREDENTIALS[1]},
        allow_redirects=False,
    )
    before = _code(client)
    page = await client.get("/arbiter/checkin")
    text = await page.text()
    assert page.status == 200 and before in text
    csrf = re.search(r'name="csrf" value="([^"]+)"', text)
    assert csrf is not None
    form = {"csrf": csrf.group(1), "section": "Masters", "round": "1"}
    asked = await client.post("/arbiter/checkin/renew", data=form, allow_redirects=False)
    asked_text = await asked.text()
    assert asked.status == 200 and "pairing sheets" in asked_text
    assert _code(client) == before  # nothing done until confirmed
    confirm = re.search(r'name="confirm" value="([^"]+)"', asked_text)
    assert confirm is not None
    done = await client.post(
        "/arbiter/checkin/renew", data={**form, "confirm": confirm.group(1)}, allow_redirects=False
    )
    assert done.status == 303
    assert _code(client) != before
    assert (await client.get(f"/t/2?c={before}")).status == 403


# -- arbitrary forms: never a 500 -------------------------------------------------------------


@pytest.fixture(scope="module")
def fuzzed(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[asyncio.AbstractEventLoop, TestClient, str]]:
    loop = asyncio.new_event_loop()
    service, _ = _service(tmp_path_factory.mktemp("fuzz"))
    client = TestClient(TestServer(build_app(service, CREDENTIALS)), loop=loop)
    loop.run_until_complete(client.start_server())
    yield loop, client, _code(client)
    loop.run_until_complete(client.close())
    loop.close()


FIELD = st.one_of(
    st.text(max_size=40),
    st.sampled_from(["white", "black", "checkin", "enter", "confirm", "1-0", "0-1", "1/2-1/2"]),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    table=st.one_of(st.integers(-5, 12000).map(str), st.text(min_size=1, max_size=8)),
    form=st.dictionaries(
        st.sampled_from(["c", "do", "colour", "result", "x", "confirm"]), FIELD, max_size=5
    ),
    right_code=st.booleans(),
)
def test_no_form_gives_a_500(
    fuzzed: tuple[asyncio.AbstractEventLoop, TestClient, str],
    table: str,
    form: dict[str, str],
    right_code: bool,
) -> None:
    loop, client, code = fuzzed
    app = client.server.app
    assert app is not None
    app[LIMITS].clients.clear()
    app[LIMITS].everyone = CodeLimits().everyone
    if right_code:
        form = {**form, "c": code}
    path = "/t/" + "".join(c if c.isalnum() else "-" for c in table)

    async def go() -> tuple[int, int]:
        posted = await client.post(path, data=form, allow_redirects=False)
        await posted.read()
        fetched = await client.get(path, params={k: v for k, v in form.items() if k in ("c", "m")})
        await fetched.read()
        return posted.status, fetched.status

    posted, fetched = loop.run_until_complete(go())
    assert posted < 500 or posted == 503, (path, form)
    assert fetched < 500, (path, form)
