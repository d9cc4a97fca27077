"""Public answers are built once per public state and shared; the event PGN is written a
slice at a time from the kept texts of the games that did not change."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer

import broadcast.export.pgn
import web.json_views
from broadcast.export.pgn import event_pgn, round_pgn
from broadcast.service.event_service import EventService
from broadcast.service.event_state import PublicState
from clocks.timesource import ManualTime
from tests.support.big_event import big_service
from tests.support.web_app import CREDENTIALS, play_moves
from web.app import build_app

GAME = "masters-r1-b2"


def _count(monkeypatch: pytest.MonkeyPatch, name: str, on_call: Callable[[], None]) -> None:
    """Count calls of broadcast.export.pgn.`name` wherever the web calls it from."""
    real = getattr(broadcast.export.pgn, name)

    def counting(*args: Any, **kwargs: Any) -> Any:
        on_call()
        return real(*args, **kwargs)

    monkeypatch.setattr(broadcast.export.pgn, name, counting)
    try:
        import web.answers

        monkeypatch.setattr(web.answers, name, counting, raising=False)
    except ImportError:
        pass


async def test_the_event_pgn_is_written_once_per_state_and_then_only_what_changed(
    env: tuple[TestClient, EventService, ManualTime], monkeypatch: pytest.MonkeyPatch
) -> None:
    client, service, _ = env
    written = [0]
    _count(monkeypatch, "game_pgn", lambda: written.__setitem__(0, written[0] + 1))
    public = service.public_state()
    expected = event_pgn(
        public.book, service.config, pairings=public.tournament, live=service.live_rounds()
    )
    games = expected.count("[Event ")  # the games that exist: round 1's
    written[0] = 0
    first = await client.get("/api/v1/event.pgn")
    assert await first.text() == expected
    assert written[0] == games
    again = await client.get("/api/v1/event.pgn")
    assert await again.text() == expected and written[0] == games  # nothing written again
    play_moves(service, GAME, ["e4"])
    after = await client.get("/api/v1/event.pgn")
    assert written[0] == games + 1  # only the game that moved
    public = service.public_state()
    assert await after.text() == event_pgn(
        public.book, service.config, pairings=public.tournament, live=service.live_rounds()
    )


async def test_six_requests_at_once_share_one_build(
    env: tuple[TestClient, EventService, ManualTime], monkeypatch: pytest.MonkeyPatch
) -> None:
    client, service, _ = env
    written = [0]
    _count(monkeypatch, "game_pgn", lambda: written.__setitem__(0, written[0] + 1))
    answers = await asyncio.gather(*(client.get("/api/v1/event.pgn") for _ in range(6)))
    assert {a.status for a in answers} == {200}
    assert written[0] == len(service.public_state().book.round_games("Masters", 1))


async def test_an_unchanged_answer_is_a_bare_304(
    env: tuple[TestClient, EventService, ManualTime],
) -> None:
    client, service, _ = env
    for path in ("/api/v1/rounds/1.pgn", "/api/v1/standings", "/", "/standings"):
        first = await client.get(path)
        tag = first.headers["ETag"]
        same = await client.get(path, headers={"If-None-Match": tag})
        assert same.status == 304 and await same.read() == b"", path
        assert same.headers["X-Content-Type-Options"] == "nosniff"
    tag = (await client.get("/api/v1/rounds/1.pgn")).headers["ETag"]
    play_moves(service, GAME, ["d4"])
    changed = await client.get("/api/v1/rounds/1.pgn", headers={"If-None-Match": tag})
    assert changed.status == 200 and "1. d4" in await changed.text()
    public = service.public_state()
    assert await changed.text() == round_pgn(
        public.book, service.config, "Masters", 1, pairings=public.tournament
    )


async def test_standings_are_not_recomputed_for_a_move(
    env: tuple[TestClient, EventService, ManualTime], monkeypatch: pytest.MonkeyPatch
) -> None:
    client, service, _ = env
    calls = [0]
    real = web.json_views.standings_json

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(web.json_views, "standings_json", counting)
    assert (await client.get("/api/v1/standings")).status == 200
    play_moves(service, GAME, ["c4"])
    assert (await client.get("/api/v1/standings")).status == 200
    assert calls[0] == 1


@pytest.fixture
def big_event(tmp_path: Path) -> tuple[EventService, PublicState]:
    """Built outside the event loop: a second of CPU that would block the test's loop."""
    return big_service(tmp_path, players=200, rounds=9, plies=20)


async def test_the_loop_is_served_while_a_big_event_pgn_is_written(
    big_event: tuple[EventService, PublicState], monkeypatch: pytest.MonkeyPatch
) -> None:
    service, state = big_event
    client = TestClient(TestServer(build_app(service, CREDENTIALS)))
    await client.start_server()
    turns = [0]
    seen: list[int] = []  # the loop turn each game was written in
    _count(monkeypatch, "game_pgn", lambda: seen.append(turns[0]))
    running = True

    def probe() -> None:
        turns[0] += 1
        if running:
            asyncio.get_running_loop().call_soon(probe)

    try:
        probe()
        response = await client.get("/api/v1/event.pgn")
        running = False
        assert response.status == 200
        assert len(seen) == len(state.book.games) == 900
        # The old route wrote every game in one go: one loop turn for all 900.
        assert len(set(seen)) >= 5
    finally:
        running = False
        await client.close()
