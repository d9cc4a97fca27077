"""The printed sheets as HTML (web/print): pairings by table and by name, results,
standings and the crosstable, for the public (`/print/...`, the delayed state) and the
desk (`/arbiter/print/...`, live, logged in), through aiohttp's test client.

The multi-section Donostia example checks the hall's table numbers (Kutxa plays on
tables 16-20); the Sestao Swiss checks byes and the players left out of a round.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Iterator
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import quote

import pytest
import requests
from aiohttp.test_utils import TestClient, TestServer
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from markupsafe import Markup

from broadcast.config import load_event
from broadcast.config.tables import table_of
from broadcast.games.ids import GameKey, slug
from broadcast.journal.store import Journal
from broadcast.service.event_service import EventService
from clocks.timesource import ManualTime
from tests.broadcast.tournament.test_regulations_applied import (
    ARBITER,
    at,
    service_for,
    vega_round1,
)
from tests.rehearsals.test_regulations_everywhere import _sestao_round
from tests.support import acting
from tests.support.paths import ROOT
from tests.support.web_app import CREDENTIALS, ServerThread
from web import json_views
from web.app import build_app
from web.i18n import datetime_text
from web.limits import WebLimits
from web.print import routes as print_routes
from web.print.sheets import name_key

DONOSTIA = "donostia-2009-round-robin.toml"
SESTAO = "sestao-2025-swiss.toml"
KUTXA = "kutxa"


class _Tables(HTMLParser):
    """Every <table> of a page: its class, its header cells and its rows' cell texts."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[dict[str, object]] = []
        self._cell: list[str] | None = None
        self._row: list[str] | None = None
        self._head = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self.tables.append({"class": dict(attrs).get("class") or "", "head": [], "rows": []})
        elif tag == "thead":
            self._head = True
        elif tag == "tr":
            self._row = []
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "thead":
            self._head = False
        elif tag in ("td", "th") and self._cell is not None and self._row is not None:
            self._row.append(" ".join("".join(self._cell).split()))
            self._cell = None
        elif tag == "tr" and self._row is not None:
            table = self.tables[-1]
            key = "head" if self._head else "rows"
            if key == "head":
                table["head"] = self._row
            else:
                table["rows"].append(self._row)  # type: ignore[attr-defined]
            self._row = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def tables_of(page: str) -> list[dict[str, object]]:
    parser = _Tables()
    parser.feed(page)
    return parser.tables


def table(page: str, cls: str) -> tuple[list[str], list[list[str]]]:
    """The header and rows of the page's table with class `cls`."""
    found = [t for t in tables_of(page) if cls in str(t["class"]).split()]
    assert len(found) == 1, f"{cls}: {len(found)} tables"
    return found[0]["head"], found[0]["rows"]  # type: ignore[return-value]


async def _client(service: EventService) -> TestClient:
    client = TestClient(TestServer(build_app(service, CREDENTIALS)))
    await client.start_server()
    return client


async def login(client: TestClient) -> None:
    page = await (await client.get("/arbiter/login")).text()
    token = re.search(r'name="login_token" value="([^"]+)"', page)
    assert token is not None
    answer = await client.post(
        "/arbiter/login",
        data={"login_token": token.group(1), "user": CREDENTIALS[0], "password": CREDENTIALS[1]},
        allow_redirects=False,
    )
    assert answer.status == 303


async def get(client: TestClient, path: str, status: int = 200) -> str:
    answer = await client.get(path, allow_redirects=False)
    text = await answer.text()
    assert answer.status == status, (path, answer.status, text[:300])
    return text


@pytest.fixture
async def donostia(tmp_path: Path) -> AsyncIterator[tuple[TestClient, EventService]]:
    service, _time = service_for(tmp_path, DONOSTIA, "2009-07-07T12:00:00")
    client = await _client(service)
    try:
        yield client, service
    finally:
        await client.close()


async def test_pairings_by_table_use_the_hall_tables_of_each_section(
    donostia: tuple[TestClient, EventService],
) -> None:
    client, service = donostia
    config = service.config
    firsts = []
    for section in config.sections:
        page = await get(client, f"/print/round/1/pairings?section={slug(section.name)}")
        head, rows = table(page, "pairings-sheet")
        assert head == ["Table", "No.", "White", "Pts", "Result", "Pts", "Black", "No."]
        pairings = sorted(
            service.tournament.section(section.name).rounds[1].pairings, key=lambda p: p.board
        )
        assert [int(r[0]) for r in rows] == [
            table_of(config, section.name, p.board) for p in pairings
        ]
        assert [(int(r[1]), int(r[7])) for r in rows] == [(p.white, p.black) for p in pairings]
        assert all(r[4] == "" for r in rows)  # the result column: blank, to be filled in
        assert all(r[3] == r[5] == "0" for r in rows)  # nobody has points before round 1
        players = service.tournament.section(section.name).players
        assert rows[0][2].startswith(players[pairings[0].white].name)
        firsts.append(int(rows[0][0]))
        # The round's date and time (the event's zone), the section's name.
        start = datetime_text(section.round_start(1).start, "en", config.zone)
        assert start in page and "Jul 7" in start
        assert section.name in page
    # Four sections of ten players: five tables each, numbered across the hall.
    assert firsts == [1, 6, 11, 16]
    kutxa = await get(client, "/print/round/1/pairings?section=kutxa")
    assert [r[0] for r in table(kutxa, "pairings-sheet")[1]] == ["16", "17", "18", "19", "20"]


async def test_points_before_the_round_and_a_withdrawn_players_forfeits(
    donostia: tuple[TestClient, EventService],
) -> None:
    client, service = donostia
    section = service.config.sections[3]  # Kutxa
    rnd1 = service.tournament.section(section.name).rounds[1]
    for p in rnd1.pairings:
        acting.set_result(service, GameKey(section.name, 1, p.board).id, "1-0", ARBITER)
    winners = {p.white for p in rnd1.pairings}
    out = next(iter(sorted(winners)))
    acting.withdraw(service, section.name, out, ARBITER, from_round=2, reason="ill")

    page = await get(client, "/print/round/2/pairings?section=kutxa")
    _head, rows = table(page, "pairings-sheet")
    for row in rows:
        white, black = int(row[1]), int(row[7])
        assert row[3] == ("1" if white in winners else "0"), row
        assert row[5] == ("1" if black in winners else "0"), row
        if out in (white, black):
            # Out of the event: marked, and the forfeit the withdrawal entered is printed.
            name = row[2] if white == out else row[6]
            assert "(withdrawn)" in name
            assert row[4] == ("-/+" if white == out else "+/-")
        else:
            assert "(withdrawn)" not in row[2] + row[6] and row[4] == ""
    # The results of round 1 by table; round 2's results sheet has the forfeit only.
    _head, results = table(
        await get(client, "/print/round/1/results?section=kutxa"), "results-sheet"
    )
    assert [r[3] for r in results] == ["1-0"] * 5
    results2 = await get(client, "/print/round/2/results?section=kutxa")
    assert "4 games without a result yet" in results2


async def test_pairings_by_name_are_alphabetical_with_table_and_colour(
    donostia: tuple[TestClient, EventService],
) -> None:
    client, service = donostia
    section = service.config.sections[3]
    page = await get(client, "/print/round/1/names?section=kutxa")
    head, rows = table(page, "names-sheet")
    assert head == ["Player", "No.", "Table", "Colour", "Opponent"]
    state = service.tournament.section(section.name)
    names = [r[0] for r in rows]
    assert names == sorted(names, key=name_key)
    assert sorted(names) == sorted(p.name for p in state.players.values())
    seats = {}
    for p in state.rounds[1].pairings:
        where = str(table_of(service.config, section.name, p.board))
        seats[p.white] = (where, "White", state.players[p.black].name)
        seats[p.black] = (where, "Black", state.players[p.white].name)
    for row in rows:
        assert (row[2], row[3], row[4]) == seats[int(row[1])]


def test_names_sort_as_people_read_them() -> None:
    names = ["Zubizarreta, Ane", "Álvarez, Iker", "alonso, Mikel", "Alvarez, Ane", "Ibáñez, Jon"]
    assert sorted(names, key=name_key) == [
        "alonso, Mikel",
        "Alvarez, Ane",
        "Álvarez, Iker",
        "Ibáñez, Jon",
        "Zubizarreta, Ane",
    ]


async def test_byes_and_players_not_paired_are_listed(tmp_path: Path) -> None:
    service, time_source = service_for(tmp_path, SESTAO, "2025-09-10T12:00:00")
    acting.request_bye(service, "Open", 2, 5, ARBITER)  # a half-point bye asked at the desk
    acting.publish_imported(service, "Open", 1, vega_round1(service.config), ARBITER)
    time_source.set(at("2025-09-12T20:00:00"))
    for board in range(1, 12):
        acting.set_result(service, GameKey("Open", 1, board).id, "1-0", ARBITER, "resignation")
    acting.withdraw(service, "Open", 7, ARBITER, from_round=2)
    acting.withdraw(service, "Open", 9, ARBITER, from_round=2)  # 21 left: a pairing bye
    round2 = _sestao_round(service, 2)
    alone = next(p.white for p in round2 if p.black is None)
    players = service.tournament.section("Open").players
    client = await _client(service)
    try:
        page = await get(client, "/print/round/2/pairings")
        _head, rows = table(page, "pairings-sheet")
        assert len(rows) == len([p for p in round2 if p.black is not None])
        _head, byes = table(page, "byes-sheet")
        assert sorted((int(b[0]), b[3]) for b in byes) == sorted([(5, "bye (½)"), (alone, "bye")])
        assert "Not paired" in page and f"{players[7].name} (7), withdrawn" in page

        _head, names = table(await get(client, "/print/round/2/names"), "names-sheet")
        by_start = {int(r[1]): r for r in names}
        assert set(by_start) == set(players)  # everyone finds their name
        assert by_start[5][3] == "bye (½)" and by_start[alone][3] == "bye"
        assert by_start[7][3] == "not paired"
        # Round 1's byes as the pairing program wrote them (H, Z).
        _head, byes1 = table(await get(client, "/print/round/1/pairings"), "byes-sheet")
        assert sorted((int(b[0]), b[3]) for b in byes1) == [(23, "bye (½)"), (24, "bye (0)")]
    finally:
        await client.close()


async def test_the_public_sheets_show_the_delayed_state_the_desk_the_live_one(
    tmp_path: Path,
) -> None:
    config = load_event(ROOT / "examples" / DONOSTIA)
    service = EventService(
        config,
        Journal(tmp_path / "j.sqlite"),
        time_source=ManualTime(at("2009-07-07T17:00:00")),
        delay=900,
    )
    service.load()
    game = GameKey("Kutxa", 1, 1).id
    acting.set_result(service, game, "0-1", ARBITER, "resignation")
    client = await _client(service)
    try:
        public = await get(client, "/print/round/1/results?section=kutxa")
        assert table(public, "results-sheet")[1][0][3] == ""  # the delay hides it
        assert "Public view" in public
        # The desk's sheets need the arbiter's login; then they are live.
        assert (
            await client.get("/arbiter/print/round/1/results?section=kutxa", allow_redirects=False)
        ).status == 303
        await login(client)
        answer = await client.get("/arbiter/print/round/1/results?section=kutxa")
        assert answer.headers["Cache-Control"] == "no-store"
        live = await answer.text()
        assert table(live, "results-sheet")[1][0][3] == "0-1"
        assert "Live state (arbiter)" in live
    finally:
        await client.close()


async def test_the_qr_column_only_where_a_table_has_a_code_and_only_at_the_desk(
    donostia: tuple[TestClient, EventService], monkeypatch: pytest.MonkeyPatch
) -> None:
    client, _service = donostia
    await login(client)
    page = await get(client, "/arbiter/print/round/1/pairings?section=kutxa")
    assert "Check-in" not in table(page, "pairings-sheet")[0]  # every slot None: no column
    asked: list[tuple[str, int, int]] = []

    def code(app: object, section: str, round_number: int, table_number: int) -> Markup | None:
        asked.append((section, round_number, table_number))
        return Markup('<svg class="qr" data-t="{}"></svg>').format(table_number)

    monkeypatch.setattr(print_routes, "table_qr", code)
    page = await get(client, "/arbiter/print/round/1/pairings?section=kutxa")
    head, _rows = table(page, "pairings-sheet")
    assert head[-1] == "Check-in"
    assert asked == [("Kutxa", 1, t) for t in range(16, 21)]
    assert '<svg class="qr" data-t="16"></svg>' in page
    public = await get(client, "/print/round/1/pairings?section=kutxa")
    assert "Check-in" not in public and 'class="qr"' not in public.split("<main>")[1]


async def test_standings_and_crosstable_sheets(donostia: tuple[TestClient, EventService]) -> None:
    client, service = donostia
    section = service.config.sections[3]
    for p in service.tournament.section(section.name).rounds[1].pairings:
        acting.set_result(service, GameKey(section.name, 1, p.board).id, "1/2-1/2", ARBITER)
    acting.set_result(service, GameKey(section.name, 2, 1).id, "1-0", ARBITER)
    expected = json_views.standings_json(service.config, service.tournament, section)
    page = await get(client, "/print/standings?section=kutxa")
    head, rows = table(page, "standings-sheet")
    labels = list(expected[0]["tiebreaks"])  # type: ignore[call-overload]
    assert head == ["Rank", "No.", "Player", "Rtg", "Fed", "Pts", *labels]
    assert [int(r[1]) for r in rows] == [e["start"] for e in expected]
    assert [r[0] for r in rows] == [str(e["rank"]) for e in expected]
    assert "Provisional: round 2 is being played" in page
    assert "Tie-breaks: " + ", ".join(labels) in page

    page = await get(client, "/print/crosstable?section=kutxa")
    head, rows = table(page, "crosstable-sheet")
    players = sorted(service.tournament.section(section.name).players)
    assert head == ["No.", "Player", "Rtg", *map(str, players), "Pts", "Rank"]
    pairing = service.tournament.section(section.name).rounds[2].pairings[0]
    by_start = {int(r[0]): r for r in rows}
    white_row = by_start[pairing.white]
    assert white_row[3 + players.index(pairing.black)] == "1"
    assert by_start[pairing.black][3 + players.index(pairing.white)] == "0"
    assert white_row[-2] == "1½"


async def test_a_swiss_crosstable_is_by_round(tmp_path: Path) -> None:
    service, time_source = service_for(tmp_path, SESTAO, "2025-09-12T12:00:00")
    round1 = _sestao_round(service, 1)
    time_source.set(at("2025-09-12T20:00:00"))
    acting.set_result(service, GameKey("Open", 1, 1).id, "1-0", ARBITER, "resignation")
    client = await _client(service)
    try:
        page = await get(client, "/print/crosstable")
        head, rows = table(page, "crosstable-sheet")
        assert head[:4] == ["Rank", "No.", "Player", "Rtg"] and head[4:13] == [
            str(n) for n in range(1, 10)
        ]
        first = round1[0]
        by_start = {int(r[1]): r for r in rows}
        assert by_start[first.white][4] == f"{first.black}○ 1"
        assert by_start[first.black][4] == f"{first.white}● 0"
        assert rows[0][1] == str(first.white)  # ranked: the only winner first
        assert 'class="sheet crosstable wide"' in page  # nine rounds: across the page
    finally:
        await client.close()


async def test_sheets_are_translated_and_linked(donostia: tuple[TestClient, EventService]) -> None:
    client, _service = donostia
    es = await get(client, "/print/round/1/pairings?section=kutxa&lang=es")
    assert table(es, "pairings-sheet")[0][:3] == ["Mesa", "N.º", "Blancas"]
    eu = await get(client, "/print/round/1/names?section=kutxa&lang=eu")
    assert table(eu, "names-sheet")[0][0] == "Jokalaria"
    assert '<html lang="eu">' in eu
    round_page = await get(client, "/round/1?section=kutxa")
    for kind in ("pairings", "names", "results"):
        assert f'href="/print/round/1/{kind}?section=kutxa"' in round_page
    standings = await get(client, "/standings?section=kutxa")
    assert 'href="/print/standings?section=kutxa"' in standings
    assert 'href="/print/crosstable?section=kutxa"' in standings
    index = await get(client, "/print?section=kutxa")
    assert 'href="/print/round/1/names?section=kutxa"' in index
    await login(client)
    assert 'href="/arbiter/print"' in await get(client, "/arbiter")
    desk_index = await get(client, "/arbiter/print?section=kutxa")
    assert 'href="/arbiter/print/round/1/pairings?section=kutxa"' in desk_index


async def test_a_round_not_paired_or_unknown_is_a_page_not_a_crash(
    donostia: tuple[TestClient, EventService],
) -> None:
    client, _service = donostia
    assert "no round 12" in await get(client, "/print/round/12/pairings?section=kutxa", 404)
    assert "no section" in await get(client, "/print/standings?section=nope", 404)
    assert "positive number" in await get(client, "/print/round/x/names", 400)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerThread]:
    limits = WebLimits(new_per_address_rate=1e6, new_per_address_burst=1_000_000)
    with ServerThread(tmp_path_factory.mktemp("print"), limits=limits) as s:
        yield s


@given(
    section=st.text(max_size=30),
    number=st.one_of(st.text(max_size=12), st.integers(-5, 10**7).map(str)),
    kind=st.sampled_from(["pairings", "names", "results", "standings", "crosstable", ""]),
    lang=st.text(max_size=8),
)
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_whatever_a_client_asks_for_is_answered_without_a_server_error(
    server: ServerThread, section: str, number: str, kind: str, lang: str
) -> None:
    if kind in ("standings", "crosstable", ""):
        path = f"/print/{kind}".rstrip("/")
    else:
        path = f"/print/round/{quote(number, safe='')}/{kind}"
    answer = requests.get(server.url + path, params={"section": section, "lang": lang}, timeout=10)
    assert answer.status_code < 500, (path, section, answer.text[:200])
    assert answer.headers["Content-Type"].startswith("text/html")
