"""The hall's JSON (web/arbiter/hall.py): every table of the live round(s) in table order,
its state at a glance and the counts, as a pure function of the service's state."""

from __future__ import annotations

import dataclasses
from base64 import b64encode
from pathlib import Path
from typing import Any

from aiohttp.test_utils import TestClient, TestServer

from broadcast.arbiter.alerts import Alert
from broadcast.arbiter.presence import Presence
from broadcast.config.model import EventConfig
from broadcast.fide.pairing import Pairing
from broadcast.games.book import GameBook
from broadcast.games.game_events import ResultProposed
from broadcast.journal.store import Journal
from broadcast.service.event_service import EventService
from broadcast.tournament.tournament_events import PlayersRegistered, RoundPaired
from broadcast.tournament.tournament_state import TournamentState
from clocks.timesource import ManualTime
from tests.support.acting import confirm_proposal, mark_present, set_result
from tests.support.arbiter import DONOSTIA, PAMPLONA, start_of
from tests.support.paths import ROOT
from tests.support.web_app import CREDENTIALS, make_service, play_moves
from web.app import build_app
from web.arbiter.hall import Wired, hall_json, hall_of, table_state

GAMES = [f"masters-r1-b{n}" for n in range(1, 5)]


def _alert(kind: str, game: str = "", t: float = 0.0, hall_board: str = "") -> Alert:
    board = int(game.rsplit("b", 1)[1]) if game else 0
    severity = "critical" if kind == "board-not-responding" else "warning"
    return Alert(
        f"test-{kind}-{game or hall_board}",
        kind,  # type: ignore[arg-type]
        severity,
        "Masters",
        1,
        board,
        game,
        (),
        "what to do",
        t,
        hall_board,
    )


def _hall(service: EventService) -> dict[str, Any]:
    return hall_of(service, service.alerts(), lambda s: s)


def _by_game(hall: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {t["game"]: t for t in hall["tables"]}


def test_each_state_at_a_glance_and_the_counts(tmp_path: Path) -> None:
    service, clock = make_service(tmp_path, delay=0.0)
    clock.advance(60)
    play_moves(service, GAMES[0], ["e4", "e5"])  # playing
    set_result(service, GAMES[1], "0-1", reason="resignation")  # finished
    service.commit([ResultProposed(GAMES[2], "1-0", "flag-fall", clock.now())])  # pending
    service.commit([_alert("late", GAMES[3], clock.now())])  # absent
    hall = _hall(service)
    tables = _by_game(hall)
    assert [tables[g]["state"] for g in GAMES] == ["playing", "finished", "pending", "absent"]
    assert [tables[g]["needs_me"] for g in GAMES] == [False, False, True, True]
    assert tables[GAMES[1]]["result"] == "0-1"
    assert tables[GAMES[1]]["result_reason"] == "resignation"
    assert tables[GAMES[2]]["proposal"] == {"result": "1-0", "reason": "time forfeit"}
    assert [a["kind"] for a in tables[GAMES[3]]["alerts"]] == ["late"]
    assert tables[GAMES[0]]["to_move"] == "white"
    assert tables[GAMES[0]]["last_move"] == {"san": "e5", "uci": "e7e5"}
    assert tables[GAMES[0]]["presence"] == {"white": True, "black": True}
    assert tables[GAMES[3]]["presence"] == {"white": False, "black": False}
    assert hall["counts"] == {
        "tables": 4,
        "playing": 1,
        "pending": 1,
        "finished": 1,
        "absent": 1,
        "trouble": 0,
        "needs_me": 2,
    }
    # The proposal confirmed and the late player marked present: both are done with.
    confirm_proposal(service, GAMES[2])
    mark_present(service, GAMES[3], "white")
    mark_present(service, GAMES[3], "black")
    service.commit([_alert("board-not-responding", GAMES[0], clock.now())])
    tables = _by_game(_hall(service))
    assert tables[GAMES[2]]["state"] == "finished" and tables[GAMES[2]]["result"] == "1-0"
    assert tables[GAMES[3]]["presence"] == {"white": True, "black": True}
    assert tables[GAMES[0]]["state"] == "trouble" and tables[GAMES[0]]["needs_me"]


def test_a_finished_game_is_finished_whatever_its_board_says() -> None:
    """The state's order: a result first, then a proposal, trouble, absence."""
    game = _pamplona_book().get(GAMES[0])
    trouble, late = _alert("out-of-sync", GAMES[0]), _alert("late", GAMES[0])
    assert table_state(game, []) == ("playing", False)
    assert table_state(game, [late]) == ("absent", True)
    assert table_state(game, [late, trouble]) == ("trouble", True)
    assert table_state(game, [_alert("early-draw", GAMES[0])]) == ("playing", True)
    proposed = game.apply(ResultProposed(game.id, "0-1", "flag-fall", 1.0))
    assert table_state(proposed, [trouble]) == ("pending", True)


def _pamplona_book() -> GameBook:
    """Round 1 of the Pamplona example, paired, nothing played: the book as values."""
    section = PAMPLONA.sections[0]
    state = TournamentState.new(PAMPLONA).apply(PlayersRegistered(section.name, section.players))
    pairs = (Pairing(1, 1, 8), Pairing(2, 2, 7), Pairing(3, 3, 6), Pairing(4, 4, 5))
    state = state.apply(RoundPaired(section.name, 1, pairs, "test"))
    return GameBook().synced(state)


def test_pure_values_a_board_alert_reaches_its_table_through_the_hall_board() -> None:
    """No service: the JSON is a function of values. A board alert raised before the
    board knew its game names the board's serial only; the table still shows it."""
    book = _pamplona_book()
    boards = [Wired(1, "DGT-111", GAMES[0], True), Wired(2, None, None, False)]
    alerts = [_alert("battery-low", hall_board="DGT-111")]
    presence = {GAMES[1]: Presence(white=5.0)}
    hall = hall_json(PAMPLONA, book, {"Masters": 1}, alerts, boards, presence)
    tables = _by_game(hall)
    assert tables[GAMES[0]]["state"] == "trouble"
    assert tables[GAMES[0]]["wired"] and tables[GAMES[0]]["hall_board"] == 1
    assert tables[GAMES[0]]["clock"] == {"white": None, "black": None, "running": None}
    assert not tables[GAMES[1]]["wired"] and tables[GAMES[1]]["clock"] is None
    assert tables[GAMES[1]]["presence"] == {"white": True, "black": False}
    # No live round: no tables, and nothing breaks.
    empty = hall_json(PAMPLONA, book, {"Masters": None}, alerts, boards)
    assert empty["tables"] == [] and empty["counts"]["tables"] == 0 and empty["rounds"] == []


def _donostia(tmp: Path, event: EventConfig) -> EventService:
    start = start_of(event, 1, "Diputacion Foral")
    service = EventService(
        event,
        Journal(tmp / "j.sqlite"),
        time_source=ManualTime(start - 600),
        live_round=1,
        delay=0.0,
    )
    service.load()
    return service


def test_donostia_four_sections_one_hall_numbered_by_table(tmp_path: Path) -> None:
    service = _donostia(tmp_path, DONOSTIA)
    hall = _hall(service)
    assert [t["table"] for t in hall["tables"]] == list(range(1, 21))
    assert [r["section"] for r in hall["rounds"]] == [s.name for s in DONOSTIA.sections]
    kutxa2 = next(t for t in hall["tables"] if t["section"] == "Kutxa" and t["board"] == 2)
    assert kutxa2["table"] == 17 and kutxa2["hall_board"] == 17 and kutxa2["wired"]
    assert hall["counts"]["tables"] == 20 and hall["counts"]["playing"] == 20


def test_donostia_tables_in_table_order_not_section_order(tmp_path: Path) -> None:
    """Sections placed in the hall in another order than the event lists them: the hall
    follows the tables (Kutxa on tables 1-5, Diputacion Foral on 16-20)."""
    firsts = {"Kutxa": 1, "Donostia Capital Cultural 2016": 6, "Euskal Xake Eskola": 11}
    sections = tuple(
        dataclasses.replace(s, first_table=firsts.get(s.name, 16)) for s in DONOSTIA.sections
    )
    event = dataclasses.replace(DONOSTIA, sections=sections, boards=())
    service = _donostia(tmp_path, event)
    tables = _hall(service)["tables"]
    assert [t["table"] for t in tables] == list(range(1, 21))
    assert [t["section"] for t in tables[::5]] == [
        "Kutxa",
        "Donostia Capital Cultural 2016",
        "Euskal Xake Eskola",
        "Diputacion Foral",
    ]
    assert [t["board"] for t in tables[:5]] == [1, 2, 3, 4, 5]
    assert not any(t["wired"] for t in tables)


async def test_the_api_serves_it_live_to_the_arbiter_only(tmp_path: Path) -> None:
    service, _clock = make_service(tmp_path, delay=60.0)
    client = TestClient(TestServer(build_app(service, CREDENTIALS)))
    await client.start_server()
    try:
        assert (await client.get("/api/v1/arbiter/hall")).status == 401
        basic = {"Authorization": "Basic " + b64encode(":".join(CREDENTIALS).encode()).decode()}
        set_result(service, GAMES[0], "1-0", reason="resignation")
        answer = await client.get("/api/v1/arbiter/hall", headers=basic)
        assert answer.status == 200
        data = await answer.json()
        # Live: the result the broadcast delay still hides from the public is there.
        assert data["tables"][0]["result"] == "1-0"
        assert data["counts"]["finished"] == 1
        for page in ("/arbiter/hall", "/arbiter/results"):
            assert (await client.get(page, headers=basic)).status == 200
    finally:
        await client.close()


def _walk_service(folder: Path, after: float) -> tuple[EventService, ManualTime]:
    """Sestao's round 1 with e-boards on tables 1 and 2 only: the rest are walked."""
    from dataclasses import replace

    from broadcast.config import load_event
    from tests.support import acting

    sestao = load_event(ROOT / "examples/sestao-2025-swiss.toml")
    config = replace(sestao, boards=sestao.boards[:2])
    start = config.sections[0].schedule[0].start.timestamp()
    clock = ManualTime(start + after)
    service = EventService(config, Journal(folder / "j.sqlite"), time_source=clock, delay=0)
    service.load()
    acting.pair_dutch(service, "Open", 1)
    return service, clock


def test_the_hall_walk_shows_who_is_known_and_the_tables_left_to_check(tmp_path: Path) -> None:
    """At a table without an e-board the hall says each player's presence and how it is
    known; a player marked absent makes the table `absent`; past the default time the
    tables nobody has answered for are `to_check` and need the arbiter."""
    from broadcast.actions import MarkAbsent, MarkPresent, act

    service, clock = _walk_service(tmp_path, after=60)
    games = [g.id for g in service.book.round_games("Open", 1)]
    tables = _by_game(_hall(service))
    assert tables[games[0]]["walk"]["white"]["state"] == "unknown"
    assert tables[games[4]]["walk"] == {
        "white": {"state": "unknown", "how": ""},
        "black": {"state": "unknown", "how": ""},
    }
    assert not any(t["to_check"] for t in tables.values())  # before the default time
    assert tables[games[4]]["state"] == "playing" and not tables[games[4]]["needs_me"]
    act(service, MarkAbsent(games[4], "white"), "arbiter:ana")
    act(service, MarkPresent(games[4], "black"), "arbiter:ana")
    act(service, MarkPresent(games[5], "both"), "arbiter:ana")
    tables = _by_game(_hall(service))
    assert tables[games[4]]["walk"]["white"] == {"state": "absent", "how": "arbiter"}
    assert tables[games[4]]["walk"]["black"] == {"state": "present", "how": "arbiter"}
    assert tables[games[4]]["state"] == "absent" and tables[games[4]]["needs_me"]
    # Past the default time (Sestao: 30 minutes) the unanswered walked tables are to check.
    clock.advance(31 * 60)
    service.tick()
    tables = _by_game(_hall(service))
    to_check = {g for g, t in tables.items() if t["to_check"]}
    walked = set(games[2:]) - {games[4], games[5]}
    assert to_check == walked
    assert all(tables[g]["needs_me"] for g in to_check)
    assert not tables[games[5]]["to_check"] and not tables[games[0]]["to_check"]


async def test_the_hall_walk_marks_through_the_api(tmp_path: Path) -> None:
    """The hall view's buttons: POST .../absent and .../present (both) through the door;
    replacing a present mark by an absence asks first (409 with the door's words)."""
    service, _ = _walk_service(tmp_path, after=60)
    games = [g.id for g in service.book.round_games("Open", 1)]
    client = TestClient(TestServer(build_app(service, CREDENTIALS)))
    await client.start_server()
    try:
        basic = {
            "Authorization": "Basic " + b64encode(b"arbiter:" + CREDENTIALS[1].encode()).decode()
        }
        path = f"/api/v1/arbiter/games/{games[6]}"
        answer = await client.post(f"{path}/present", json={"colour": "both"}, headers=basic)
        assert answer.status == 200, await answer.text()
        asked = await client.post(f"{path}/absent", json={"colour": "white"}, headers=basic)
        assert asked.status == 409
        token = (await asked.json())["confirm"]["token"]
        done = await client.post(
            f"{path}/absent", json={"colour": "white", "confirm": token}, headers=basic
        )
        assert done.status == 200, await done.text()
        walk = _by_game(_hall(service))[games[6]]["walk"]
        assert walk["white"]["state"] == "absent" and walk["black"]["state"] == "present"
        wrong = await client.post(f"{path}/absent", json={"colour": "green"}, headers=basic)
        assert wrong.status == 422
    finally:
        await client.close()
