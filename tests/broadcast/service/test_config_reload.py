"""A config changed after the start is reported, never silently ignored: the event keeps
the players its journal registered, and the log, the desk and `check --db` say what
differs, what the event does about it and how to apply it (a late entry)."""

from __future__ import annotations

import argparse
import dataclasses
import logging
import re
from pathlib import Path

import pytest
from aiohttp.test_utils import TestClient, TestServer

from broadcast.cli import check as cli_check
from broadcast.config import load_event
from broadcast.config.model import PlayerEntry
from broadcast.fide.crosstable import Player, build_crosstable
from broadcast.fide.trf import write_trf
from broadcast.journal.store import Journal
from broadcast.service.event_service import EventService
from clocks.timesource import ManualTime
from tests.broadcast.tournament.test_regulations_applied import service_for, standings_of
from tests.support import acting
from tests.support.paths import ROOT
from tests.support.web_app import CREDENTIALS
from tests.web.test_regulations_pages import _login
from web.app import build_app

JSON = {"Content-Type": "application/json"}


def _csrf(desk: str) -> dict[str, str]:
    """The logged-in desk's token, as its scripts send it to the API."""
    token = re.search(r'name="csrf" value="([^"]+)"', desk)
    assert token is not None
    return {"X-CSRF-Token": token.group(1)}


def _notices(desk: str) -> str:
    """The desk's notice of the config changed after the start."""
    notice = re.search(r'<p class="notice config-change"[^>]*>(.*?)</p>', desk, re.S)
    assert notice is not None and "Config changed after the start" in notice.group(1)
    return notice.group(1)


async def test_a_player_added_to_the_config_after_the_start_is_reported(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    service, time_source = service_for(tmp_path, "sestao-2025-swiss.toml", "2025-09-10T12:00:00")
    assert service.config_changes() == ()
    section = service.config.sections[0]
    started = len(section.players)
    late = PlayerEntry(started + 1, "Late, Entry", 1700, federation="ESP")
    first = dataclasses.replace(section.players[0], rating=section.players[0].rating + 12)
    changed = dataclasses.replace(section, players=(first, *section.players[1:], late))
    config = dataclasses.replace(service.config, sections=(changed,))
    with caplog.at_level(logging.WARNING):
        again = EventService(config, service.journal, time_source=time_source, delay=0)
        again.load()
    lines = again.config_changes()
    assert len(lines) == 2
    assert f"player {started + 1} (Late, Entry) is in the config but not in the event" in lines[0]
    assert f"which keeps the {started} players its journal registered" in lines[0]
    # ...and how to apply it: the desk's form, or the API with the body to send.
    assert "desk Tournament → Late entry (config player 25)" in lines[0]
    body = '{"section": "Open", "config_player": 25}'
    assert f"POST /api/v1/arbiter/late-entries {body}" in lines[0]
    assert "player 1's details differ" in lines[1] and "rating 2446 -> 2458" in lines[1]
    assert "the event keeps the particulars it registered" in lines[1]
    assert sum("config changed after the start" in r.message for r in caplog.records) == 2
    # What it does: the journal's players, not the config's.
    assert len(again.tournament.section("Open").players) == started
    assert len(standings_of(again.tournament, "Open").rows) == started

    client = TestClient(TestServer(build_app(again, CREDENTIALS)))
    await client.start_server()
    try:
        assert await _login(client)
        desk = await (await client.get("/arbiter")).text()
        assert "Late, Entry" in _notices(desk)
        # Doing what the notice says adds them, and the notice ends.
        answer = await client.post(
            "/api/v1/arbiter/late-entries", data=body, headers={**_csrf(desk), **JSON}
        )
        assert answer.status == 200, await answer.text()
        assert (await answer.json())["entered"] == {
            "section": "Open",
            "player": 25,
            "name": "Late, Entry",
            "from_round": 1,
            "missed_round_points": 0.0,
            "start_points": 0.0,
        }
        assert again.tournament.section("Open").players[25] == late
        assert again.config_changes() == (lines[1],)
        desk = await (await client.get("/arbiter")).text()
        # The notice is about player 1's details alone now (the desk's player picker
        # lists her, as it lists every player of the event).
        assert "Late, Entry" not in _notices(desk) and "player 1" in _notices(desk)
        assert "25 · Late, Entry" in desk
        again_answer = await client.post(
            "/api/v1/arbiter/late-entries", data=body, headers={**_csrf(desk), **JSON}
        )
        assert again_answer.status == 422
        assert "already in the event" in (await again_answer.json())["error"]
    finally:
        await client.close()


def _config_with(tmp_path: Path, *added: PlayerEntry) -> Path:
    """The Sestao example in `tmp_path`, its player list with `added` at the end."""
    example = ROOT / "examples" / "sestao-2025-swiss.toml"
    listed = [*load_event(example).sections[0].players, *added]
    players = [
        Player(
            p.number,
            p.name,
            p.rating or None,
            int(p.fide_id) if p.fide_id else None,
            p.federation,
            p.title,
            sex=p.sex,
            birth=p.birth,
        )
        for p in listed
    ]
    (tmp_path / "players.trf").write_text(write_trf(build_crosstable(players, 9, [], [])))
    text = example.read_text(encoding="utf-8")
    text = text.replace('"players/sestao-2025-entries.trf"', '"players.trf"')
    path = tmp_path / "event.toml"
    path.write_text(text, encoding="utf-8")
    return path


def _check(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    parser = argparse.ArgumentParser(prog="boardwire")
    cli_check.add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["check", *argv])
    code = args.handler(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_check_with_the_journal_says_what_serve_says(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    service, _ = service_for(tmp_path, "sestao-2025-swiss.toml", "2025-09-10T12:00:00")
    late = PlayerEntry(25, "Late, Entry", 1700, federation="ESP")
    event = _config_with(tmp_path, late)
    db = str(tmp_path / "j.sqlite")
    service.journal.close()
    code, out, _ = _check([str(event), "--db", db], capsys)
    assert code == 0 and "OK: the config is valid." in out
    assert f"Journal {db}: the config changed after the start (1):" in out
    assert "  - Open: player 25 (Late, Entry) is in the config but not in the event" in out
    assert 'POST /api/v1/arbiter/late-entries {"section": "Open", "config_player": 25}' in out

    # Once the late entry is in the journal, the two agree.
    running = EventService(
        load_event(event), Journal(tmp_path / "j.sqlite"), time_source=ManualTime(0)
    )
    running.load()
    acting.enter_late(running, "Open", {}, "arbiter:ana", config_player=25)
    running.journal.close()
    code, out, _ = _check([str(event), "--db", db], capsys)
    assert code == 0 and "the config's players are the ones the event registered" in out

    code, _, err = _check([str(event), "--db", str(tmp_path / "none.sqlite")], capsys)
    assert code == 1 and "no journal at" in err
    code, _, err = _check([str(event), str(event), "--db", db], capsys)
    assert code == 2 and "give one EVENT.toml" in err
