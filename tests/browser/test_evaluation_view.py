"""The engine's evaluation as a spectator sees it (a server started with `--eval`, the
real Stockfish), at a phone's and a laptop's width, in light and dark mode: the game page
shows the bar beside the board, the score and the best line; stepping back to a position
the engine has not seen greys them, and the live move brings them back; flipping turns
the bar with the board; each mini-board of a game still on gets its small bar on the
round page. Without an engine, no bar and no line at all."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from typing import Any

import pytest

from broadcast.service.event_service import EventService
from clocks.timesource import ManualTime
from tests.browser import scene
from tests.browser.scene import Site
from tests.browser.test_layout import open_live, problems
from tests.support.web_app import CREDENTIALS, free_port
from web.app import start_web

SCORE = re.compile(r"^([+-]\d+\.\d\d|0\.00|#-?\d+)$")


@pytest.fixture
async def site(built_scene: tuple[EventService, ManualTime]) -> AsyncIterator[Site]:
    service, clock = built_scene  # tests/browser/conftest.py
    evals = scene.evaluator(service)
    port = free_port()
    runner = await start_web(
        service, host="127.0.0.1", port=port, credentials=CREDENTIALS, evals=evals
    )
    task = service.supervisor.start("the engine evaluation", evals.run)
    try:
        yield Site(service, clock, f"http://127.0.0.1:{port}")
    finally:
        await task.stop()
        await runner.cleanup()


@pytest.fixture
def page(themed_page: Any) -> Any:
    """Each test at 390 and 1366 px, light and dark (tests/browser/conftest.py)."""
    return themed_page


async def test_the_game_page_shows_the_bar_the_score_and_the_line(site: Site, page: Any) -> None:
    await open_live(page, f"{site.url}/game/{scene.GAME_ON}")
    await page.wait_for_selector("#evalbar:not([hidden])", timeout=30000)
    score = await page.locator("#evalline .evalscore").text_content()
    assert SCORE.match(score or ""), score
    line = await page.locator("#evalline .evalpv").text_content()
    assert line and line.startswith("21... "), line  # Black to move after 21. Rxg5
    assert "depth 12" in (await page.locator("#evalline .evaldepth").text_content() or "")
    bar, board = await page.evaluate(
        """() => [document.getElementById('evalbar').getBoundingClientRect().toJSON(),
                  document.querySelector('.game svg.board').getBoundingClientRect().toJSON()]"""
    )
    assert bar["right"] <= board["left"] + 1  # beside the board, as tall as it
    assert abs(bar["height"] - board["height"]) <= 2 and 6 <= bar["width"] <= 20
    fill = await page.locator("#evalbar .evalfill").evaluate("(f) => f.style.height")
    assert 0 < float(fill.rstrip("%")) < 100
    assert await problems(page) == []
    assert await page.evaluate("document.documentElement.dataset.theme") == page.theme
    # An earlier move the engine never saw: the bar and the score wait, greyed.
    await page.keyboard.press("ArrowLeft")
    assert await page.locator("#evalbar.stale").count() == 1
    assert await page.locator("#evalline .evalscore").text_content() == "…"
    await page.keyboard.press("End")
    assert await page.locator("#evalbar.stale").count() == 0
    assert await page.locator("#evalline .evalscore").text_content() == score
    # Flipped, White's share fills the bar from the top, as the board turns.
    await page.keyboard.press("f")
    assert await page.locator("#evalbar.flip").count() == 1


async def test_each_mini_board_of_a_game_on_gets_a_small_bar(site: Site, page: Any) -> None:
    await open_live(page, f"{site.url}/round/1")
    live = page.locator(f'.mini[data-game="{scene.GAME_ON}"] .minibar')
    await live.wait_for(timeout=30000)
    width = await live.locator(".evalfill").evaluate("(f) => f.style.width")
    assert 0 < float(width.rstrip("%")) < 100
    assert SCORE.match(await live.get_attribute("data-score") or "")
    # The checkmate is over: the result says it, no bar.
    assert await page.locator(f'.mini[data-game="{scene.GAME_MATE}"] .minibar').count() == 0
    box = await page.locator(f'.mini[data-game="{scene.GAME_ON}"]').bounding_box()
    bar = await live.bounding_box()
    assert bar["width"] > 0.8 * (box["width"] - 20)  # across the board, inside the card
    assert await problems(page) == []


async def test_without_an_engine_the_pages_say_nothing_of_it(
    built_scene: tuple[EventService, ManualTime], browser: Any
) -> None:
    service, _ = built_scene
    port = free_port()
    runner = await start_web(service, host="127.0.0.1", port=port, credentials=CREDENTIALS)
    context = await browser.new_context(viewport={"width": 390, "height": 844})
    try:
        page = await context.new_page()
        await open_live(page, f"http://127.0.0.1:{port}/game/{scene.GAME_ON}")
        assert await page.locator("#evalbar, #evalline, .minibar").count() == 0
        await open_live(page, f"http://127.0.0.1:{port}/round/1")
        await page.wait_for_timeout(300)
        assert await page.locator(".minibar").count() == 0
    finally:
        await context.close()
        await runner.cleanup()
