"""A withdrawal that removes the player's games (`remaining_games = "remove"`) takes
their cards off an open round page at once, through the websocket."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from aiohttp.test_utils import TestServer

from broadcast.games.ids import GameKey
from tests.broadcast.tournament.test_regulations_applied import ARBITER
from tests.rehearsals.test_regulations_everywhere import _removing_service
from tests.support import acting
from tests.support.web_app import CREDENTIALS
from web.app import build_app


async def test_a_removed_game_leaves_the_open_round_page(tmp_path: Path, browser: Any) -> None:
    service, _ = _removing_service(tmp_path)
    server = TestServer(build_app(service, CREDENTIALS))
    await server.start_server()
    try:
        page = await browser.new_page()
        await page.goto(str(server.make_url("/round/3")))
        await page.wait_for_selector("#live-status[data-state=live]", timeout=10000)
        pairing = service.tournament.section("Masters").rounds[3].game_of(8)
        assert pairing is not None
        removed = GameKey("Masters", 3, pairing.board).id
        assert await page.locator(f'[data-game="{removed}"]').count() == 1
        acting.withdraw(service, "Masters", 8, ARBITER, reason="illness")
        await page.wait_for_selector(f'[data-game="{removed}"]', state="detached", timeout=20000)
        assert await page.locator("a.mini[data-game]").count() == 3
    finally:
        await server.close()
