"""A config changed after the start is reported, never silently ignored: the event keeps
the players its journal registered, and the log and the desk say what differs."""

from __future__ import annotations

import dataclasses
import logging
from pathlib import Path

import pytest
from aiohttp.test_utils import TestClient, TestServer
from test_regulations import service_for
from test_web_regulations import _login
from web_support import CREDENTIALS

from broadcast.config.model import PlayerEntry
from broadcast.service import actions as acts
from broadcast.service.event_service import EventService
from web.app import build_app


async def test_a_player_added_to_the_config_after_the_start_is_reported(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    service, time = service_for(tmp_path, "sestao-2025-swiss.toml", "2025-09-10T12:00:00")
    assert service.config_changes() == ()
    section = service.config.sections[0]
    started = len(section.players)
    late = PlayerEntry(started + 1, "Late, Entry", 1700, federation="ESP")
    first = dataclasses.replace(section.players[0], rating=section.players[0].rating + 12)
    changed = dataclasses.replace(section, players=(first, *section.players[1:], late))
    config = dataclasses.replace(service.config, sections=(changed,))
    with caplog.at_level(logging.WARNING):
        again = EventService(config, service.journal, time=time, delay=0)
        again.load()
    lines = again.config_changes()
    assert len(lines) == 2
    assert f"player {started + 1} (Late, Entry) is in the config but was not registered" in lines[0]
    assert f"the event keeps the {started} players it started with" in lines[0]
    assert "player 1's details differ" in lines[1] and "rating" in lines[1]
    assert sum("config changed after the start" in r.message for r in caplog.records) == 2
    # What it does: the journal's players, not the config's.
    assert len(again.tournament.section("Open").players) == started
    assert len(acts.standings(again.tournament, "Open").rows) == started

    client = TestClient(TestServer(build_app(again, CREDENTIALS)))
    await client.start_server()
    try:
        assert await _login(client)
        desk = await (await client.get("/arbiter")).text()
        assert "Config changed after the start" in desk and "Late, Entry" in desk
    finally:
        await client.close()
