"""Tables: one number names a table of the hall everywhere (broadcast.config.tables).

The config's `first_table` and `[[board]] table`, and what it refuses (two boards on one
table, a board on another section's table, sections whose tables overlap); the hall
boards found by table (a section whose e-boards stand on tables 3 and 5 only); Donostia,
where Kutxa's board 2 is table 17 in the alert, the game's JSON, the desk and the PGN;
and the round trip table_of / board_at_table for every config the loader accepts."""

from __future__ import annotations

import dataclasses
import datetime as dt
import io
import re
from base64 import b64encode
from pathlib import Path
from zoneinfo import ZoneInfo

import chess.pgn
import pytest
from aiohttp.test_utils import TestClient, TestServer
from hypothesis import given, settings
from hypothesis import strategies as st

from broadcast.arbiter.alerts import Alert
from broadcast.config import load_event, load_event_text
from broadcast.config.model import BoardConfig, EventConfig, PlayerEntry
from broadcast.config.tables import (
    board_at_table,
    board_table,
    first_tables,
    hall_board_at,
    section_tables,
    table_label,
    table_of,
    table_problems,
    tables_are_boards,
)
from broadcast.export.pgn import round_pgn
from broadcast.fide.berger import berger_round
from broadcast.games.book import GameBook, hall_board_for, pairing_board_of, section_boards
from broadcast.games.ids import GameKey
from broadcast.journal.store import Journal
from broadcast.service.event_service import EventService
from broadcast.tournament.tournament_events import RoundPaired
from broadcast.tournament.tournament_state import fold, registration_events
from clocks.timesource import ManualTime
from tests.broadcast.config.test_loader import _errors, _line_of
from tests.support.paths import ROOT
from tests.support.web_app import CREDENTIALS
from web import json_views
from web.app import build_app

DONOSTIA = ROOT / "examples" / "donostia-2009-round-robin.toml"
MADRID = ZoneInfo("Europe/Madrid")
ROUND_1 = dt.datetime(2009, 7, 7, 17, 5, tzinfo=MADRID).timestamp()
BASIC = {"Authorization": "Basic " + b64encode(":".join(CREDENTIALS).encode()).decode()}


def _section(name: str, players: int, *, first_table: int | None = None, rounds: int = 1) -> str:
    system = "round-robin" if rounds > 1 else "swiss"
    lines = [
        "[[section]]",
        f'name = "{name}"',
        f'system = "{system}"',
        f"rounds = {rounds}",
        'time_control = "5400+30"',
        "default_time_minutes = 30",
        'tiebreaks = ["SB"]',
    ]
    if first_table is not None:
        lines.append(f"first_table = {first_table}")
    for r in range(1, rounds + 1):
        lines += [
            "[[section.schedule]]",
            f"round = {r}",
            f"date = 2025-09-{r:02d}",
            "time = 17:00:00",
        ]
    for n in range(1, players + 1):
        lines += ["[[section.player]]", f'name = "{name} {n:02d}, Player"']
    return "\n".join(lines) + "\n"


def _board(number: int, section: str, table: int | None = None) -> str:
    where = "" if table is None else f"table = {table}\n"
    return (
        f'[[board]]\nnumber = {number}\nport = "/dev/ttyUSB{number}"\n'
        f'section = "{section}"\n{where}'
    )


def _event(*parts: str) -> str:
    return '[event]\nname = "Tables"\ntimezone = "Europe/Madrid"\n\n' + "\n".join(parts)


# -- the config --------------------------------------------------------------------------------


def test_sections_follow_each_other_and_first_table_moves_one(tmp_path: Path) -> None:
    text = _event(
        _section("A", 10),  # 5 games: tables 1..5
        _section("B", 9),  # 4 games (the bye has no table): 6..9
        _section("C", 6, first_table=21),  # 3 games: 21..23
        _section("D", 4),  # after C: 24..25
        _board(1, "A"),
        _board(2, "A"),
        _board(3, "B"),
        _board(4, "C", table=23),
        _board(5, "D"),
    )
    event = load_event_text(text, tmp_path / "e.toml")
    assert event.section("C").first_table == 21 and event.section("A").first_table is None
    assert first_tables(event) == {"A": 1, "B": 6, "C": 21, "D": 24}
    assert [board_table(event, b) for b in event.boards] == [1, 2, 6, 23, 24]
    assert event.boards[3].table == 23 and event.boards[0].table is None
    assert table_of(event, "B", 2) == 7 and table_label(event, "C", 3) == "Table 23"
    assert board_at_table(event, 7) == ("B", 2) and board_at_table(event, 23) == ("C", 3)
    assert section_tables(event, "D", 2) == range(24, 26)
    assert hall_board_at(event, 23) == event.boards[3] and hall_board_at(event, 22) is None
    assert not tables_are_boards(event)


def test_a_single_section_plays_on_its_boards(tmp_path: Path) -> None:
    # Its boards numbered from 101 (a bus's labels) still carry tables 1, 2: tables are boards.
    text = _event(_section("Open", 8), _board(101, "Open"), _board(102, "Open"))
    event = load_event_text(text, tmp_path / "e.toml")
    assert [board_table(event, b) for b in event.boards] == [1, 2]
    assert tables_are_boards(event) and table_of(event, "Open", 4) == 4
    moved = load_event_text(text.replace("rounds = 1", "rounds = 1\nfirst_table = 5"), "e.toml")
    assert not tables_are_boards(moved) and table_of(moved, "Open", 1) == 5


def test_two_boards_on_one_table_are_refused_on_the_line_of_the_second(tmp_path: Path) -> None:
    text = _event(_section("Open", 20), _board(1, "Open", table=4), _board(2, "Open", table=4))
    (problem,) = _errors(text, tmp_path)
    lines = [n for n, line in enumerate(text.splitlines(), 1) if line == "table = 4"]
    assert problem[0] == lines[1]
    assert problem[1] == "board 2 and board 1 both stand on table 4"
    assert "another `table = N`" in problem[2]


def test_a_default_board_on_a_written_table_is_refused(tmp_path: Path) -> None:
    # Board 2 has no table: it is the section's first board without one, so table 1.
    text = _event(_section("Open", 20), _board(1, "Open", table=1), _board(2, "Open"))
    (problem,) = _errors(text, tmp_path)
    assert problem[1] == "board 2 and board 1 both stand on table 1"
    assert problem[0] == _line_of(text, "number = 2")


def test_a_board_on_another_sections_table_is_refused(tmp_path: Path) -> None:
    text = _event(_section("A", 10), _section("B", 10), _board(1, "A"), _board(2, "A", table=7))
    (problem,) = _errors(text, tmp_path)
    assert problem[0] == _line_of(text, "table = 7")
    assert problem[1] == "board 2 of 'A' stands on table 7, which is 'B''s (its board 2)"
    assert "'A' plays from table 1 (tables 1..5)" in problem[2]


def test_a_board_before_its_sections_first_table_is_refused(tmp_path: Path) -> None:
    text = _event(_section("Open", 10, first_table=11), _board(1, "Open", table=3))
    (problem,) = _errors(text, tmp_path)
    assert "stands on table 3, which is no section's" in problem[1]


def test_a_table_past_the_sections_games_is_still_its_own(tmp_path: Path) -> None:
    # A Swiss with late entries grows into its spare tables: a board may wait there.
    text = _event(
        _section("A", 10),
        _section("B", 10, first_table=11),
        _board(1, "A", table=8),
        _board(2, "B", table=40),
    )
    event = load_event_text(text, tmp_path / "e.toml")
    assert board_at_table(event, 8) == ("A", 8) and board_at_table(event, 40) == ("B", 30)


def test_sections_whose_tables_overlap_are_refused(tmp_path: Path) -> None:
    text = _event(_section("A", 10), _section("B", 10, first_table=4))
    (problem,) = _errors(text, tmp_path)
    assert problem[0] == _line_of(text, "first_table = 4")
    assert problem[1] == "section 'B' plays on tables 4..8, which overlap 'A''s tables 1..5"
    assert "first_table = 6" in problem[2]


@pytest.mark.parametrize("value", ["0", "10000", '"3"', "2.5"])
def test_a_table_that_is_no_table_number_is_refused(tmp_path: Path, value: str) -> None:
    text = _event(
        _section("Open", 10), _board(1, "Open").replace("section", f"table = {value}\nsection")
    )
    (problem,) = _errors(text, tmp_path)
    assert problem[0] == _line_of(text, f"table = {value}") and "board[1].table" in problem[1]


# -- the hall boards, found by table -----------------------------------------------------------

WIRED_3_AND_5 = _event(
    _section("Open", 10, rounds=9), _board(1, "Open", table=5), _board(2, "Open", table=3)
)


def test_a_section_wired_on_tables_3_and_5_only(tmp_path: Path) -> None:
    event = load_event_text(WIRED_3_AND_5, tmp_path / "e.toml")
    assert [b.number for b in section_boards(event, "Open")] == [2, 1]  # in table order
    assert [pairing_board_of(event, b) for b in event.boards] == [5, 3]
    state = fold(event, registration_events(event))
    state = state.apply(RoundPaired("Open", 1, tuple(berger_round(10, 1)), "berger"))
    book = GameBook().synced(state)
    wired = {
        g.key.board: (hall.number if (hall := hall_board_for(event, g.key)) else None)
        for g in book.round_games("Open", 1)
    }
    assert wired == {1: None, 2: None, 3: 2, 4: None, 5: 1}


def test_the_service_puts_each_e_board_on_the_game_of_its_table(tmp_path: Path) -> None:
    event = load_event_text(WIRED_3_AND_5, tmp_path / "e.toml")
    start = event.sections[0].round_start(1).start.timestamp()
    service = EventService(
        event, Journal(tmp_path / "j.sqlite"), time_source=ManualTime(start), live_round=1, delay=0
    )
    service.load()
    assert {n: b.game for n, b in service.hall.items()} == {
        1: GameKey("Open", 1, 5).id,
        2: GameKey("Open", 1, 3).id,
    }
    boards = {
        b["number"]: b["table"]
        for b in (json_views.board_json(b, event) for b in service.hall.values())
    }
    assert boards == {1: 5, 2: 3}


# -- Donostia: one number for Kutxa's board 2 -------------------------------------------------


def test_donostia_says_table_17_for_kutxa_board_2(tmp_path: Path) -> None:
    event = load_event(DONOSTIA)
    service = EventService(
        event, Journal(tmp_path / "j.sqlite"), time_source=ManualTime(ROUND_1), delay=0
    )
    service.load()
    game = service.book.get(GameKey("Kutxa", 1, 2).id)
    hall = hall_board_for(event, game.key)
    assert hall is not None and hall.number == 17 and board_table(event, hall) == 17
    names = [p.name if p else "?" for p in (game.white, game.black)]
    late = Alert(
        f"late:{game.id}", "late", "warning", "Kutxa", 1, 2, game.id, (names[1],),
        "not at the board", ROUND_1, hall_board="17",
    )  # fmt: skip
    body = json_views.alert_json(late, service.book, event)
    assert body["title"].startswith(f"Table 17 · {names[0]} \u2013 {names[1]}: ")
    assert body["titles"]["es"].startswith("Mesa 17 · ")
    assert body["table"] == 17 and body["board"] == 2
    shown = json_views.game_json(game, event)
    assert (shown["table"], shown["board"]) == (17, 2)
    # The first section's tables are its boards; the last one's follow the others.
    assert (
        json_views.game_json(service.book.get(GameKey("Diputacion Foral", 1, 2).id), event)["table"]
        == 2
    )


async def test_donostia_over_http_pages_desk_and_pgn(tmp_path: Path) -> None:
    event = load_event(DONOSTIA)
    service = EventService(
        event, Journal(tmp_path / "j.sqlite"), time_source=ManualTime(ROUND_1), delay=0
    )
    service.load()
    client = TestClient(TestServer(build_app(service, CREDENTIALS)))
    await client.start_server()
    try:
        game_id = GameKey("Kutxa", 1, 2).id
        public = await (await client.get(f"/api/v1/games/{game_id}")).json()
        assert (public["table"], public["board"]) == (17, 2)
        games = (await (await client.get("/api/v1/sections/kutxa/rounds/1")).json())["games"]
        assert [g["table"] for g in games] == [16, 17, 18, 19, 20]
        page = await (await client.get("/round/1?section=kutxa")).text()
        assert "Table 17" in page and "Board 2" not in page
        arbiter = await client.get(f"/api/v1/arbiter/games/{game_id}", headers=BASIC)
        assert (await arbiter.json())["table"] == 17
        boards = await (await client.get("/api/v1/arbiter/boards", headers=BASIC)).json()
        assert {b["number"]: b["table"] for b in boards}[17] == 17
        page = await (await client.get("/arbiter/login")).text()
        token = re.search(r'name="login_token" value="([^"]+)"', page)
        assert token is not None
        user, password = CREDENTIALS
        login = {"login_token": token.group(1), "user": user, "password": password}
        await client.post("/arbiter/login", data=login, allow_redirects=False)
        desk = await (await client.get("/arbiter")).text()
        assert "<summary>Table 17: " in desk and "<summary>Board 2: " not in desk
    finally:
        await client.close()
    pgn = round_pgn(service.book, event, "Kutxa", 1, tournament=service.tournament)
    first = chess.pgn.read_game(io.StringIO(pgn))
    assert first is not None
    assert first.headers["Board"] == "1" and first.headers["Table"] == "16"


# -- the round trip, for every config the loader accepts ----------------------------------------

_TEMPLATE = load_event_text(_event(_section("T", 2)), "template.toml")


@st.composite
def events(draw: st.DrawFn) -> EventConfig:
    template = _TEMPLATE.sections[0]
    sections = []
    for i in range(draw(st.integers(1, 4))):
        players = tuple(PlayerEntry(n, f"P{n}") for n in range(1, draw(st.integers(0, 30)) + 1))
        first = draw(st.none() | st.integers(1, 60))
        sections.append(
            dataclasses.replace(template, name=f"S{i}", players=players, first_table=first)
        )
    boards = []
    for number in range(1, draw(st.integers(0, 8)) + 1):
        section = draw(st.sampled_from(sections)).name
        table = draw(st.none() | st.integers(1, 80))
        boards.append(BoardConfig(number, f"/dev/b{number}", None, section, table))
    return dataclasses.replace(_TEMPLATE, sections=tuple(sections), boards=tuple(boards))


@settings(max_examples=300, deadline=None)
@given(events())
def test_table_of_and_board_at_table_round_trip(event: EventConfig) -> None:
    if table_problems(event):
        return  # the loader refuses it
    for section in event.sections:
        games = max(len(section.players) // 2, 1)
        for number in range(1, games + 1):
            table = table_of(event, section.name, number)
            assert board_at_table(event, table) == (section.name, number)
    tables = [board_table(event, b) for b in event.boards]
    assert len(set(tables)) == len(tables)  # one e-board per table
    for hall in event.boards:
        place = board_at_table(event, board_table(event, hall))
        assert place == (hall.section, pairing_board_of(event, hall))  # its own section's
        assert hall_board_at(event, board_table(event, hall)) == hall
