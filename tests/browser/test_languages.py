"""The pages in Spanish and Basque, in a real browser, at a phone's and a laptop's width.

The translated words are longer than the English ones: nothing may stick out of its card
or make a page scroll sideways (the same checks as test_layout.py). The language comes
from the browser (`Accept-Language`, from the context's locale) or from the switcher,
which the next pages remember; the texts live.js writes (the status, the result badge
redrawn from the socket) are in the page's language too.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from tests.browser import scene
from tests.browser.scene import Site
from tests.browser.test_layout import open_live, problems, seen

# The browser's locale (its Accept-Language) for each language.
LOCALES = {"es": "es-ES", "eu": "eu-ES"}
# What the status line says once live.js is connected, and the flag fall's badge.
LIVE = {"es": "en directo", "eu": "zuzenean"}
PENDING_FLAG = {
    "es": "resultado pendiente: 1-0 (por tiempo), a la espera del árbitro "
    "⚑ cayó la bandera de las negras",
    "eu": "emaitza zain: 1-0 (denboragatik), epailearen zain ⚑ beltzen bandera erori da",
}


@pytest.fixture(params=[(lang, size) for lang in scene.LANGUAGES for size in scene.SIZES])
async def page(request: pytest.FixtureRequest, browser: Any) -> AsyncIterator[Any]:
    lang, size = request.param
    width, height = scene.SIZES[size]
    context = await browser.new_context(
        viewport={"width": width, "height": height}, locale=LOCALES[lang]
    )
    tab = await context.new_page()
    tab.lang = lang  # which language this page expects (a plain attribute for the tests)
    yield tab
    await context.close()


@pytest.mark.parametrize("where", scene.TRANSLATED)
async def test_translated_pages_fit_their_cards_and_the_window(
    site: Site, page: Any, where: str
) -> None:
    await open_live(page, site.url + scene.PAGES[where])
    assert await page.get_attribute("html", "lang") == page.lang
    assert await page.locator("#live-status").text_content() == LIVE[page.lang]
    assert await problems(page) == []
    await page.evaluate("() => document.querySelectorAll('details').forEach((d) => d.open = true)")
    assert await problems(page) == []


async def test_the_result_badge_redrawn_by_the_script_is_translated(site: Site, page: Any) -> None:
    await open_live(page, f"{site.url}/game/{scene.GAME_FLAG}")
    assert await seen(page.locator("#result")) == PENDING_FLAG[page.lang]
    # Stepping back in the viewer: the position label says "start" in the page's words.
    await page.keyboard.press("Home")
    start = {"es": "principio", "eu": "hasiera"}[page.lang]
    assert await page.locator("#viewer-pos").text_content() == start
    assert await page.locator("#live-status").text_content() == LIVE[page.lang]


async def test_the_switcher_changes_the_language_and_it_stays(site: Site, page: Any) -> None:
    other = "eu" if page.lang == "es" else "es"
    await open_live(page, f"{site.url}/round/1")
    await page.click(f"header .langs a[hreflang={other}]")
    await page.wait_for_selector(f"html[lang={other}]")
    assert "lang=" in page.url and "section=" in page.url  # the same page, other words
    heading = {"es": "ronda 1", "eu": "1. txanda"}[other]
    assert heading in (await page.locator("h1").text_content() or "")
    await page.click("header nav a[href='/standings']")  # the next page remembers it
    await page.wait_for_selector(f"html[lang={other}]")
    assert await page.locator("header .langs a[aria-current]").get_attribute("hreflang") == other
    assert await problems(page) == []
