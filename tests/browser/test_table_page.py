"""The table page on a player's phone (390 px) and on a desktop (1366 px), in a real
Chromium: the code from the QR code's address opens the table's game; White checks in,
enters 1-0; Black confirms it on the same page; the page never scrolls sideways, and
every button is big enough for a thumb."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from broadcast.config import load_event
from broadcast.journal.store import Journal
from broadcast.service.event_service import EventService
from clocks.timesource import ManualTime
from tests.support.web_app import CREDENTIALS, EVENT, T0, free_port
from web.checkin.parts import CODES

GAME = "masters-r1-b2"
SIZES = {"phone": (390, 844), "desktop": (1366, 768)}


class Hall:
    """The example event with players' check-in and results, served on its own loop."""

    def __init__(self, tmp: Path) -> None:
        text = EVENT.read_text(encoding="utf-8").replace(
            'automatic_results = "confirm"',
            'automatic_results = "confirm"\nplayer_results = true\ncheck_in = "optional"',
            1,
        )
        (tmp / "event.toml").write_text(text, encoding="utf-8")
        self.tmp = tmp
        self.port = free_port()
        self.loop = asyncio.new_event_loop()
        self.ready = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_until_complete(self._start())
        self.ready.set()
        self.loop.run_forever()

    async def _start(self) -> None:
        from web.app import start_web

        self.service = EventService(
            load_event(self.tmp / "event.toml"),
            Journal(self.tmp / "journal.sqlite"),
            time_source=ManualTime(T0),
            live_round=1,
            delay=900,
        )
        self.service.load()
        self.runner = await start_web(
            self.service, host="127.0.0.1", port=self.port, credentials=CREDENTIALS
        )
        self.code = self.runner.app[CODES].code("Masters", 1)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


@pytest.fixture
def hall(tmp_path: Path) -> Iterator[Hall]:
    served = Hall(tmp_path)
    served.thread.start()
    assert served.ready.wait(20)
    yield served
    asyncio.run_coroutine_threadsafe(served.runner.cleanup(), served.loop).result(10)
    served.loop.call_soon_threadsafe(served.loop.stop)
    served.thread.join(10)


async def _fits(page: Any, width: int) -> None:
    scroll = await page.evaluate("document.documentElement.scrollWidth")
    assert scroll <= width, f"the page scrolls sideways: {scroll} px wide at {width} px"
    small = await page.evaluate(
        """[...document.querySelectorAll('main button')]
            .filter(b => b.offsetParent && b.getBoundingClientRect().height < 40)
            .map(b => b.textContent)"""
    )
    assert small == [], f"buttons too small for a thumb: {small}"


@pytest.mark.parametrize("size", sorted(SIZES))
async def test_check_in_and_a_result_entered_and_confirmed(
    browser: Any, hall: Hall, size: str
) -> None:
    width, height = SIZES[size]
    context = await browser.new_context(viewport={"width": width, "height": height})
    page = await context.new_page()
    # Typed: the code in lower case, with a space, as a player might.
    await page.goto(f"{hall.url}/t/2")
    await _fits(page, width)
    await page.fill("input[name=c]", f"{hall.code[:3].lower()} {hall.code[3:]}")
    await page.click("form.tp-code button")
    await page.wait_for_selector(".tp-players")
    assert "Vallverdú, Clara" in await page.inner_text(".tp-white")
    await _fits(page, width)

    await page.click(".tp-white button.tp-checkin")
    await page.wait_for_selector(".tp-white .tp-in")
    assert "Checked in" in await page.inner_text(".flash")
    assert hall.service.rules.watches[GAME].presence.white is not None

    await page.check("input[name=colour][value=white]")
    await page.click(".tp-buttons button[value='1-0']")
    await page.wait_for_selector(".tp-confirm")
    assert "Vallverdú, Clara entered 1-0." in await page.inner_text(".tp-entered")
    await _fits(page, width)
    await page.screenshot(path=str(hall.tmp / f"table-page-{size}.png"), full_page=True)

    await page.click(".tp-confirm button")
    await page.wait_for_selector(".tp-result")
    assert "1-0" in await page.inner_text(".tp-result")
    game = hall.service.book.get(GAME)
    assert (game.result, game.result_reason) == ("1-0", "resignation")
    await _fits(page, width)
    await context.close()
