"""The results table (/arbiter/results) in a real browser at phone and desktop width: a
table number, then one key or tap for the result, through the arbiter API and the door;
the door's questions (a result replaced, an undo) in place; a refusal shown as an error;
undo of the last entries; the list live when a result is set elsewhere; and results on
every third table of a 300-player event (150 tables), the far ones too, each acknowledged
(bench/bench_results_entry.py enters all 150 and times it).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from broadcast.fide.pairing import Pairing
from broadcast.journal.store import Journal
from broadcast.service.event_service import EventService
from clocks.timesource import ManualTime
from tests.browser import scene
from tests.browser.scene import Site
from tests.browser.test_layout import LAYOUT_PROBLEMS, log_in, page
from tests.support.acting import publish_pairings, set_result
from tests.support.big_event import swiss_config
from tests.support.web_app import CREDENTIALS, free_port
from web.app import start_web

__all__ = ["page"]  # the fixture, shared with the layout tests

CARDS = ".rt-entry, .rt-done-box, .rt-tables li"
KEYS = {"1-0": "1", "1/2-1/2": "=", "0-1": "0", "+/-": "+", "-/+": "-", "-/-": "x"}


def phone(page: Any) -> bool:
    return bool(page.viewport_size["width"] < 600)


async def open_results(page: Any, url: str) -> None:
    await page.goto(f"{url}/arbiter/results")
    await page.wait_for_selector("#live-status[data-state=live]", timeout=15000)
    await page.wait_for_selector(".rt-tables li[data-game]")
    await page.evaluate("window.__sameTable = true")  # a reload would lose it


async def enter(page: Any, table: int, result: str) -> None:
    """Table `table`, result `result`: keys on a desktop, taps on a phone."""
    if phone(page):
        await page.click(f'.rt-tables li[data-table="{table}"] button')
        await page.click(f'.rt-results button[data-result="{result}"]')
    else:
        await page.keyboard.type(str(table))
        await page.keyboard.press("Enter")
        await page.keyboard.press(KEYS[result])


def result_of(site: Site, game: str) -> str | None:
    return site.service.book.get(game).result


async def test_results_by_table_then_undo(page: Any, site: Site) -> None:
    await log_in(page, site)
    await open_results(page, site.url)
    assert await page.evaluate(LAYOUT_PROBLEMS, CARDS) == []
    # Table 1 (in progress): a draw.
    await enter(page, 1, "1/2-1/2")
    await page.wait_for_function("() => document.querySelectorAll('#rt-done li').length === 1")
    assert result_of(site, scene.GAME_ON) == "1/2-1/2"
    assert "Table 1: ½-½" in await page.locator("#rt-status").inner_text()
    # Table 3 waits with a proposed 1-0 (flag fall): choosing 1-0 confirms it, reason kept.
    await enter(page, 3, "1-0")
    await page.wait_for_function("() => document.querySelectorAll('#rt-done li').length === 2")
    game = site.service.book.get(scene.GAME_FLAG)
    assert (game.result, game.result_reason) == ("1-0", "flag-fall")
    # Undo the last entry: the door asks first, in place; confirmed, the proposal is back.
    if phone(page):
        await page.click("#rt-done li >> nth=0 >> button.undo")
    else:
        await page.keyboard.press("u")
    box = page.locator("#rt-confirm")
    await box.wait_for(state="visible")
    assert (await box.locator(".summary").inner_text()).startswith("undo action ")
    assert await page.evaluate(LAYOUT_PROBLEMS, CARDS) == []
    if phone(page):
        await page.click("#rt-confirm-yes")
    else:
        await page.keyboard.press("Enter")
    await page.locator("#rt-done li.undone").wait_for()
    assert result_of(site, scene.GAME_FLAG) is None
    assert site.service.book.get(scene.GAME_FLAG).proposal is not None
    await page.wait_for_selector('.rt-tables li[data-table="3"].state-pending')
    assert await page.evaluate("window.__sameTable") is True


async def test_a_result_that_stands_asks_before_it_is_replaced(page: Any, site: Site) -> None:
    await log_in(page, site)
    await open_results(page, site.url)
    await enter(page, 2, "0-1")  # table 2 has 1-0 (checkmate)
    box = page.locator("#rt-confirm")
    await box.wait_for(state="visible")
    assert "the result 1-0" in await box.locator("ul.removes").inner_text()
    # Cancel: nothing changes.
    if phone(page):
        await page.click("#rt-confirm-no")
    else:
        await page.keyboard.press("Escape")
    await box.wait_for(state="hidden")
    assert result_of(site, scene.GAME_MATE) == "1-0"
    await enter(page, 2, "0-1")
    await box.wait_for(state="visible")
    await page.click("#rt-confirm-yes")
    await page.wait_for_function("() => document.querySelectorAll('#rt-done li').length === 1")
    assert result_of(site, scene.GAME_MATE) == "0-1"


async def test_a_refusal_is_shown_as_an_error(page: Any, site: Site) -> None:
    await log_in(page, site)
    await open_results(page, site.url)
    await enter(page, 4, "1/2-1/2")  # table 4 already has ½-½ by agreement: refused (422)
    status = page.locator("#rt-status.error")
    await status.wait_for()
    assert (await status.inner_text()).startswith("Not done: ")
    assert "already has the result" in await status.inner_text()
    assert await status.get_attribute("role") == "alert"
    assert await page.locator("#rt-done li").count() == 0
    if not phone(page):  # a table the hall does not have
        await page.keyboard.press("Escape")
        await page.keyboard.type("99")
        await page.keyboard.press("Enter")
        await page.wait_for_function(
            "() => document.getElementById('rt-status').textContent === 'There is no table 99.'"
        )


async def test_a_result_set_elsewhere_arrives_without_a_reload(page: Any, site: Site) -> None:
    await log_in(page, site)
    await open_results(page, site.url)
    set_result(site.service, scene.GAME_ON, "0-1", reason="resignation")
    await page.wait_for_function(
        "() => document.querySelector('.rt-tables li[data-table=\"1\"] .res').textContent === '0-1'"
    )
    assert "3 of 4 finished" in await page.locator("#rt-counts").inner_text()
    assert await page.evaluate("window.__sameTable") is True


# -- results across a 300-player event ----------------------------------------------------------

PLAYERS = 300
RESULTS = ("1-0", "1/2-1/2", "0-1")


@dataclasses.dataclass
class BigSite:
    service: EventService
    url: str


async def big_site(tmp: Path) -> tuple[BigSite, Any]:
    """The Sestao example with 300 generated players, round 1 paired (150 tables) and
    live, served; returns the site and its runner (to clean up)."""
    config = swiss_config(PLAYERS)
    start = config.sections[0].round_start(1).start.timestamp()
    service = EventService(
        config,
        Journal(tmp / "big.sqlite"),
        time_source=ManualTime(start + 60),
        live_round=1,
        delay=0.0,
    )
    service.load()
    half = PLAYERS // 2
    pairs = [Pairing(b, b, half + b) for b in range(1, half + 1)]
    publish_pairings(service, config.sections[0].name, 1, pairs)
    port = free_port()
    runner = await start_web(service, host="127.0.0.1", port=port, credentials=CREDENTIALS)
    return BigSite(service, f"http://127.0.0.1:{port}"), runner


async def enter_results(page: Any, big: BigSite, step: int = 1) -> tuple[int, float]:
    """Log in, open the results table and enter a result on every `step`-th of the 150
    tables (all of them by default), each one waited for (its entry listed): how many
    results, and the seconds they took."""
    await page.goto(f"{big.url}/arbiter/login")
    await page.fill("input[name=user]", CREDENTIALS[0])
    await page.fill("input[name=password]", CREDENTIALS[1])
    await page.click("button[type=submit]")
    await page.wait_for_selector("#live-status[data-state=live]", timeout=15000)
    await open_results(page, big.url)
    tables = await page.locator(".rt-tables li[data-table]").count()
    assert tables == PLAYERS // 2
    chosen = range(1, tables + 1, step)
    began = time.perf_counter()
    for n in chosen:
        await enter(page, n, RESULTS[n % 3])
        await page.wait_for_function(
            "(n) => document.getElementById('rt-status').textContent.startsWith('Table ' + n + ':')",
            arg=n,
        )
    return len(chosen), time.perf_counter() - began


@pytest.fixture
async def big(tmp_path: Path) -> AsyncIterator[BigSite]:
    site_, runner = await big_site(tmp_path)
    try:
        yield site_
    finally:
        await runner.cleanup()


async def test_results_across_a_300_player_event(page: Any, big: BigSite) -> None:
    count, seconds = await enter_results(page, big, step=3)
    games = big.service.book.round_games(big.service.config.sections[0].name, 1)
    done = {g.key.board for g in games if g.result is not None}
    assert count == 50 and done == set(range(1, 151, 3))
    how = "taps" if phone(page) else "keys"
    print(
        f"\n{count} results entered by {how} in {seconds:.1f} s ({seconds / count * 1000:.0f} ms each)"
    )
