"""Browser tests: a real Chromium (Debian's `chromium`) driven by Playwright.

They never download a browser. Without /usr/bin/chromium they FAIL with a message
saying how to install it (`scripts/system-deps`, which make test runs, does), never skip
silently.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from broadcast.service.event_service import EventService
from clocks.timesource import ManualTime
from tests.browser import scene
from tests.browser.scene import SIZES, Site
from tests.support.web_app import CREDENTIALS, free_port
from web.app import start_web

CHROMIUM = os.environ.get("BOARDWIRE_CHROMIUM", "/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "browser: drives a real Chromium through Playwright")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if Path(str(item.fspath)).is_relative_to(here):
            item.add_marker(pytest.mark.browser)


@pytest.fixture
async def browser() -> AsyncIterator[object]:
    if not Path(CHROMIUM).exists():
        pytest.fail(
            f"{CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium; "
            "scripts/system-deps does it) or point BOARDWIRE_CHROMIUM at a Chromium binary",
            pytrace=False,
        )
    try:
        from playwright.async_api import async_playwright
    except ImportError:
        pytest.fail("playwright is not installed: pip install playwright", pytrace=False)
    async with async_playwright() as p:
        b = await p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        yield b
        await b.close()


THEMES = ("light", "dark")


@pytest.fixture(
    params=[(size, theme) for size in SIZES for theme in THEMES], ids=lambda p: "-".join(p)
)
async def themed_page(request: pytest.FixtureRequest, browser: Any) -> AsyncIterator[Any]:
    """A page at each of the scene's sizes (390 and 1366 px), in light and dark mode (the
    browser's prefers-color-scheme); `page.theme` says which."""
    size, theme = request.param
    width, height = SIZES[size]
    context = await browser.new_context(
        viewport={"width": width, "height": height}, color_scheme=theme
    )
    page = await context.new_page()
    page.theme = theme
    yield page
    await context.close()


@pytest.fixture
def built_scene(tmp_path: Path) -> tuple[EventService, ManualTime]:
    """The scene's service and clock, built outside the event loop: committing the round
    takes a CPU-bound 0.15 s, over a second on a loaded machine (a blocked loop fails the
    test: tests/conftest.py)."""
    return scene.build(tmp_path)


@pytest.fixture
async def site(built_scene: tuple[EventService, ManualTime]) -> AsyncIterator[Site]:
    """The scene (scene.py) served on a free port, with the arbiter's credentials."""
    service, clock = built_scene
    port = free_port()
    runner = await start_web(service, host="127.0.0.1", port=port, credentials=CREDENTIALS)
    try:
        yield Site(service, clock, f"http://127.0.0.1:{port}")
    finally:
        await runner.cleanup()
