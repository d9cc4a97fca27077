"""A rehearsal moves the schedule and every deadline to now (issue 30, M12, D5, D6).

`serve --sim` (and `--round R`) moves every round start of the config by one amount, so
that round 1 (or R) starts at the rehearsal's start: bye deadlines, default times, late
entries and the exports' dates follow, because each reads the schedule. One pure
transformation (`broadcast.config.rehearsal`), kept in the journal so that a restart keeps
it, and said in one line at the start and on the desk.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import logging
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from broadcast.cli import serve as cli_serve
from broadcast.cli.rehearsal import bye_window, rehearsal_line, rehearse
from broadcast.config import load_event
from broadcast.config.model import EventConfig
from broadcast.config.rehearsal import (
    META_KEY,
    as_rehearsed,
    rehearsal_config,
    rehearsal_shift,
    shift_words,
)
from broadcast.journal.store import Journal
from broadcast.service.event_service import ActionError, EventService
from broadcast.service.journal_reader import read_event
from broadcast.tournament.bye_policy import bye_deadline
from broadcast.tournament.live_round import start_of
from clocks.timesource import ManualTime
from tests.support import acting
from tests.support.paths import ROOT

EXAMPLES = ROOT / "examples"
SESTAO = load_event(EXAMPLES / "sestao-2025-swiss.toml")
DONOSTIA = load_event(EXAMPLES / "donostia-2009-round-robin.toml")
PAMPLONA = load_event(EXAMPLES / "pamplona-masters.toml")
MADRID = ZoneInfo("Europe/Madrid")
# The tester's moment (finding M12): 2026-12-05 05:39:53 CET.
TESTED = dt.datetime(2026, 12, 5, 5, 39, 53, tzinfo=MADRID)


def _starts(config: EventConfig) -> dict[tuple[str, int], dt.datetime]:
    return {(s.name, r.round): r.start for s in config.sections for r in s.schedule}


# -- the transformation --------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(
    config=st.sampled_from([SESTAO, DONOSTIA, PAMPLONA]),
    seconds=st.integers(-3 * 366 * 86400, 3 * 366 * 86400),
)
def test_every_round_start_moves_by_the_same_amount(config: EventConfig, seconds: int) -> None:
    by = dt.timedelta(seconds=seconds)
    moved = rehearsal_config(config, by)
    before, after = _starts(config), _starts(moved)
    assert before.keys() == after.keys()
    for key, start in before.items():
        # In absolute time (aware + timedelta would move the wall clock), DST included.
        assert after[key].astimezone(dt.UTC) == start.astimezone(dt.UTC) + by, key
        assert after[key].timestamp() - start.timestamp() == seconds
    assert moved.rehearsal is not None and moved.rehearsal.by == by
    # Nothing else of the event changes.
    assert [s.players for s in moved.sections] == [s.players for s in config.sections]
    assert moved.boards == config.boards and moved.name == config.name


@pytest.mark.parametrize("config", [SESTAO, DONOSTIA, PAMPLONA], ids=lambda c: c.name)
@pytest.mark.parametrize("round_number", [1, 2, 3])
def test_the_chosen_round_starts_now_and_the_sections_keep_their_offsets(
    config: EventConfig, round_number: int
) -> None:
    by = rehearsal_shift(config, TESTED, round_number)
    moved = rehearsal_config(config, by, round_number)
    firsts = [s.round_start(round_number).start for s in moved.sections]
    assert min(firsts) == TESTED
    assert moved.rehearsal is not None and moved.rehearsal.at == TESTED
    # Donostia's sections start at different times: they still do, by as much.
    original = [s.round_start(round_number).start for s in config.sections]
    assert [f - min(firsts) for f in firsts] == [o - min(original) for o in original]


def test_a_round_the_event_does_not_have_is_refused() -> None:
    with pytest.raises(ValueError, match="the event has 9 rounds"):
        rehearsal_shift(SESTAO, TESTED, 10)
    with pytest.raises(ValueError, match="no timezone"):
        rehearsal_shift(SESTAO, dt.datetime(2026, 12, 5, 5, 39), 1)


def test_the_move_in_words() -> None:
    assert shift_words(dt.timedelta(days=448, hours=12, minutes=39, seconds=53)) == (
        "448 days 12 h 39 min later"
    )
    assert shift_words(dt.timedelta(hours=-2, minutes=-5)) == "2 h 5 min earlier"
    assert shift_words(dt.timedelta(days=1)) == "1 day later"
    assert shift_words(dt.timedelta(0)) == "not"


# -- what the rules then say (M12) ---------------------------------------------------------


def _service(tmp_path: Path, config: EventConfig, now: dt.datetime) -> EventService:
    time_source = ManualTime(now.timestamp())
    service = EventService(
        config, Journal(tmp_path / "j.sqlite"), time_source=time_source, live_round=1
    )
    service.load()
    return service


def test_a_rehearsal_takes_bye_requests_by_the_moved_deadlines(tmp_path: Path) -> None:
    # Without the move (only round 1's start moved, as before): every request is late.
    (tmp_path / "plain").mkdir()
    plain = _service(tmp_path / "plain", SESTAO, TESTED)
    with pytest.raises(ActionError, match=r"too late.*2025-09-13"):
        acting.request_bye(plain, "Open", 3, 7)
    # The rehearsal: Sestao's art. 5 asks before the previous round, so round 2's byes
    # closed when round 1 started (now), and round 3's are open until round 2 starts.
    journal = Journal(tmp_path / "r.sqlite")
    config = rehearse(SESTAO, journal, TESTED.timestamp(), 1)
    time_source = ManualTime(TESTED.timestamp())
    service = EventService(config, journal, time_source=time_source, live_round=1)
    service.load()
    acting.request_bye(service, "Open", 3, 7)
    assert 3 in service.tournament.section("Open").byes_of(7)
    with pytest.raises(ActionError, match="too late"):
        acting.request_bye(service, "Open", 2, 8)
    section = config.section("Open")
    assert bye_deadline(section, 3) == TESTED + (
        SESTAO.section("Open").round_start(2).start - SESTAO.section("Open").round_start(1).start
    )
    assert bye_window(section, TESTED) == (3, bye_deadline(section, 3))
    # The default time counts from the moved start: round 1 is live now, 30 min to go.
    assert start_of(section, 1, {}) == TESTED
    acting.pair_dutch(service, "Open", 1)
    assert service.live_rounds() == {"Open": 1}


def test_the_move_is_kept_in_the_journal_and_moved_again_by_round(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "j.sqlite")
    first = rehearse(SESTAO, journal, TESTED.timestamp(), None)
    assert first.rehearsal is not None and first.rehearsal.round == 1
    later = TESTED + dt.timedelta(minutes=47)
    # Started again without --round: the same schedule (the journal's games fit it).
    again = rehearse(SESTAO, journal, later.timestamp(), None)
    assert again == first
    # --round 2: round 2 starts now.
    second = rehearse(SESTAO, journal, later.timestamp(), 2)
    assert second.section("Open").round_start(2).start == later
    assert rehearse(SESTAO, journal, later.timestamp() + 600, None) == second
    # Read back afterwards (export, standings): with the schedule it was played under.
    assert as_rehearsed(SESTAO, journal.meta(META_KEY)) == second
    assert as_rehearsed(SESTAO, None) is SESTAO
    assert as_rehearsed(SESTAO, "not json") is SESTAO
    journal.close()


def test_an_export_of_a_rehearsal_reads_its_schedule(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "j.sqlite", event=SESTAO.name)
    journal.set_meta("event", SESTAO.name)
    rehearse(SESTAO, journal, TESTED.timestamp(), 1)
    journal.close()
    record = read_event(EXAMPLES / "sestao-2025-swiss.toml", tmp_path / "j.sqlite")
    assert record.config.section("Open").round_start(1).start == TESTED


def test_the_start_says_it_in_one_line() -> None:
    config = rehearsal_config(SESTAO, rehearsal_shift(SESTAO, TESTED, 1))
    line = rehearsal_line(config, TESTED.timestamp())
    assert line == (
        "rehearsal: the schedule moved 448 days 13 h 39 min later: round 1 at 05:39, "
        "bye requests for round 3 until 22:39"
    )
    assert "\n" not in line
    # A round robin grants no byes: nothing to say about them.
    pamplona = rehearsal_config(PAMPLONA, rehearsal_shift(PAMPLONA, TESTED, 1))
    assert "bye" not in rehearsal_line(pamplona, TESTED.timestamp())
    assert rehearsal_line(SESTAO, TESTED.timestamp()) == ""


# -- serve --sim (D6) ----------------------------------------------------------------------


async def test_serve_sim_moves_the_schedule_says_so_and_raises_no_missing_boards(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    args = argparse.Namespace(
        event=EXAMPLES / "sestao-2025-swiss.toml",
        db=tmp_path / "j.sqlite",
        host="127.0.0.1",
        port=0,
        board=[],
        sim=True,
        speed=20.0,
        games=None,
        round=None,
        delay=0.0,
    )
    up: asyncio.Future[EventService] = asyncio.get_running_loop().create_future()
    serving = asyncio.ensure_future(cli_serve.serve(args, credentials=None, started=up.set_result))
    try:
        service = await asyncio.wait_for(asyncio.shield(up), 60)
        for _ in range(600):  # every emulated board connected
            if cli_serve.all_followed(service):
                break
            await asyncio.sleep(0.05)
        await asyncio.sleep(1.5)  # the ticks after it: nothing is missing
        start = service.config.section("Open").round_start(1).start
        assert abs(start.timestamp() - service.time_source.now()) < 20 * 30  # round 1: now
        assert service.live_rounds() == {"Open": 1}
        system = service.health.alerts(service.journal, service.time_source.now())
        assert not [a for a in system if a.kind == "board-missing"]
        assert "has not connected" not in caplog.text
    finally:
        service.stop() if up.done() else None
        await asyncio.wait_for(serving, 60)
    out = capsys.readouterr().out
    [line] = [x for x in out.splitlines() if "rehearsal:" in x]
    assert line.startswith("boardwire: rehearsal: the schedule moved ")
    assert ": round 1 at " in line and "bye requests for round 3 until" in line


# -- the desk says it ----------------------------------------------------------------------


async def test_the_desk_shows_the_rehearsal_in_the_arbiters_language(tmp_path: Path) -> None:
    from aiohttp.test_utils import TestClient, TestServer

    from tests.support.web_app import CREDENTIALS
    from tests.web.test_regulations_pages import _login
    from web.app import build_app

    journal = Journal(tmp_path / "j.sqlite")
    config = rehearse(SESTAO, journal, TESTED.timestamp(), 1)
    service = EventService(config, journal, time_source=ManualTime(TESTED.timestamp()), delay=0)
    service.load()
    client = TestClient(TestServer(build_app(service, CREDENTIALS)))
    await client.start_server()
    try:
        assert await _login(client)
        page = await (await client.get("/arbiter")).text()
        assert "Rehearsal: the schedule is moved to now (round 1 at 05:39)" in page
        page = await (await client.get("/arbiter?lang=es")).text()
        assert "Ensayo: el calendario se ha trasladado a ahora (ronda 1 a las 05:39)" in page
    finally:
        await client.close()
    # A real event's desk says nothing of it.
    plain = EventService(
        SESTAO, Journal(tmp_path / "p.sqlite"), time_source=ManualTime(TESTED.timestamp()), delay=0
    )
    plain.load()
    client = TestClient(TestServer(build_app(plain, CREDENTIALS)))
    await client.start_server()
    try:
        assert await _login(client)
        assert "rehearsal-banner" not in await (await client.get("/arbiter")).text()
    finally:
        await client.close()
