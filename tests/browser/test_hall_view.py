"""The hall view (/arbiter/hall) in a real browser at phone and desktop width: every table
in table order with its state at a glance, a wired table's clocks and board, the counts
and the filters, and all of it live over the desk's websocket without a reload."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from broadcast.config import load_event
from broadcast.journal.store import Journal
from broadcast.service.event_service import EventService
from clocks.timesource import ManualTime
from tests.browser import scene
from tests.browser.scene import Site
from tests.browser.test_layout import LAYOUT_PROBLEMS, log_in, page
from tests.support.acting import confirm_proposal, pair_dutch, set_result
from tests.support.web_app import CREDENTIALS, free_port, play_moves
from web.app import start_web

__all__ = ["page"]  # the fixture, shared with the layout tests

CARDS = ".htable, .hall-bar"


async def open_hall(page: Any, site: Site) -> None:
    await log_in(page, site)
    await page.goto(f"{site.url}/arbiter/hall")
    await page.wait_for_selector("#live-status[data-state=live]", timeout=15000)
    await page.wait_for_selector(".htable[data-game]")
    # A reload would lose this mark: the page must stay the same page throughout.
    await page.evaluate("window.__sameHall = true")


async def states(page: Any) -> list[str]:
    return [
        f"{await c.get_attribute('data-table')}:{await c.get_attribute('data-state')}"
        for c in await page.locator(".htable").all()
    ]


async def test_the_hall_at_a_glance_then_a_result_set_elsewhere_arrives_live(
    page: Any, site: Site
) -> None:
    await open_hall(page, site)
    assert await states(page) == ["1:trouble", "2:finished", "3:pending", "4:finished"]
    assert await page.locator("#hall-counts").inner_text() == "2 of 4 finished · 2 need you"
    # A wired table: both clocks, whose move it is, and its board drawn by live.js.
    on = page.locator(f'.htable[data-game="{scene.GAME_ON}"]')
    assert await on.locator(".clock[data-side]").count() == 2
    assert await on.locator("svg.board use").count() > 10
    assert await on.get_attribute("data-to-move") == "black"
    assert await on.locator(".hpl.black .tomove").is_visible()
    assert not await on.locator(".hpl.white .tomove").is_visible()
    assert "does not match the game" in await on.locator(".halerts").inner_text()
    assert await page.evaluate(LAYOUT_PROBLEMS, CARDS) == []
    # The arbiter confirms the flag fall on the desk: the hall follows, no reload.
    confirm_proposal(site.service, scene.GAME_FLAG)
    flag = page.locator(f'.htable[data-game="{scene.GAME_FLAG}"]')
    await flag.and_(page.locator("[data-state=finished]")).wait_for()
    await page.wait_for_function(
        "() => document.getElementById('hall-counts').textContent.startsWith('3 of 4 finished')"
    )
    # A move on the wired table is drawn in place, the side to move follows.
    fen_before = await on.locator("svg.board").get_attribute("data-fen")
    play_moves(site.service, scene.GAME_ON, ["Kd8"])
    await page.wait_for_function(
        f"() => document.querySelector('.htable[data-game=\"{scene.GAME_ON}\"]')"
        ".getAttribute('data-to-move') === 'white'"
    )
    assert await on.locator("svg.board").get_attribute("data-fen") != fen_before
    set_result(site.service, scene.GAME_ON, "1-0", reason="resignation")
    await page.wait_for_function(
        "() => document.getElementById('hall-counts').textContent.startsWith('4 of 4 finished')"
    )
    assert "1-0 (resignation)" in await on.locator(".hres").inner_text()
    assert await page.evaluate("window.__sameHall") is True


async def test_filters_still_playing_and_needs_me(page: Any, site: Site) -> None:
    await open_hall(page, site)

    async def visible() -> list[str]:
        return [
            str(await c.get_attribute("data-table"))
            for c in await page.locator(".htable").all()
            if await c.is_visible()
        ]

    assert await visible() == ["1", "2", "3", "4"]
    await page.click(".hall-filters button[data-filter=playing]")
    assert await visible() == ["1", "3"]
    await page.click(".hall-filters button[data-filter=needs]")
    assert await visible() == ["1", "3"]
    assert await page.get_attribute(".hall-filters [data-filter=needs]", "aria-pressed") == "true"
    # The choice is remembered; a table that no longer needs the arbiter leaves the view.
    await page.reload()
    await page.wait_for_selector(".htable[data-game]")
    confirm_proposal(site.service, scene.GAME_FLAG)
    await page.wait_for_function(
        "() => document.querySelector('.htable[data-table=\"3\"]').getAttribute('data-state')"
        " === 'finished'"
    )
    assert await visible() == ["1"]
    await page.click(".hall-filters button[data-filter=all]")
    assert await visible() == ["1", "2", "3", "4"]


async def test_the_hall_in_basque(page: Any, site: Site) -> None:
    await log_in(page, site)
    await page.goto(f"{site.url}/arbiter/hall?lang=eu")
    await page.wait_for_selector(".htable[data-game]")
    first = await page.locator(".htable .hstate").first.inner_text()
    assert first.lower() != "board in trouble"
    assert "finished" not in await page.locator("#hall-counts").inner_text()


@pytest.fixture
async def walk_site(tmp_path: Path) -> AsyncIterator[Site]:
    """Sestao's round 1 with e-boards on tables 1 and 2 only, 40 minutes in (past its
    30-minute default time): the other tables are walked."""
    sestao = load_event(Path(__file__).resolve().parents[2] / "examples/sestao-2025-swiss.toml")
    config = replace(sestao, boards=sestao.boards[:2])
    clock = ManualTime(config.sections[0].schedule[0].start.timestamp() + 60)
    service = EventService(config, Journal(tmp_path / "j.sqlite"), time_source=clock, delay=0)
    service.load()
    pair_dutch(service, "Open", 1)
    clock.advance(40 * 60)
    service.tick()
    port = free_port()
    runner = await start_web(service, host="127.0.0.1", port=port, credentials=CREDENTIALS)
    try:
        yield Site(service, clock, f"http://127.0.0.1:{port}")
    finally:
        await runner.cleanup()


async def test_the_hall_walk_marks_players_table_by_table(page: Any, walk_site: Site) -> None:
    """Past the default time the unanswered tables are outlined and need the arbiter; one
    tap says who is there (through the door), and the card follows without a reload."""
    site = walk_site
    await open_hall(page, site)
    games = [g.id for g in site.service.book.round_games("Open", 1)]
    five = page.locator(f'.htable[data-game="{games[4]}"]')
    assert await five.locator(".hwalk.to-check").count() == 1
    assert await page.locator('.htable[data-game="' + games[0] + '"] .hwalk').count() == 0
    assert await page.evaluate(LAYOUT_PROBLEMS, CARDS) == []
    await five.locator(".hwalk .walk-both").click()
    await page.wait_for_function(
        f"() => !document.querySelector('.htable[data-game=\"{games[4]}\"] .hwalk.to-check')"
    )
    presence = site.service.rules.presence_of(games[4])
    assert presence is not None and presence.how("white") == "arbiter"
    six = page.locator(f'.htable[data-game="{games[5]}"]')
    await six.locator('.walk-row[data-colour="black"] .walk-absent').click()
    await page.wait_for_function(
        f"() => document.querySelector('.htable[data-game=\"{games[5]}\"]')"
        ".getAttribute('data-state') === 'absent'"
    )
    assert await six.locator('.walk-row[data-colour="black"].walk-absent').count() == 1
    assert await page.evaluate("window.__sameHall") is True
