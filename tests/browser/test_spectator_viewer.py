"""The game viewer as a spectator uses it, at a phone's and a laptop's width, in light and
dark mode: two plies a line with clock and time used, check marked, flipping in place,
the viewer's move in the address (a shared link opens there), the round selector, flags;
the theme from the system with a toggle that sticks; an /embed/ page framed by an
allowed site and refused to any other, and the game page refused to every frame."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

from broadcast.config import load_event_text
from broadcast.journal.store import Journal
from broadcast.service.event_service import EventService
from clocks.timesource import ManualTime
from tests.browser import scene
from tests.browser.scene import Site
from tests.browser.test_layout import open_live, problems
from tests.support.web_app import CREDENTIALS, EVENT, T0, free_port, play_moves
from web.app import start_web


@pytest.fixture
def page(themed_page: Any) -> Any:
    """Each test at 390 and 1366 px, light and dark (tests/browser/conftest.py)."""
    return themed_page


async def test_moves_two_plies_a_line_with_time_used(site: Site, page: Any) -> None:
    await open_live(page, f"{site.url}/game/{scene.GAME_ON}")
    rows = await page.evaluate(
        """() => Array.from(document.querySelectorAll('#moves li')).map((li) => [
            Number(li.dataset.ply), Math.round(li.getBoundingClientRect().top),
            li.querySelector('.emt') ? li.querySelector('.emt').textContent : null])"""
    )
    assert len(rows) == 41
    for white, black in zip(rows[0::2], rows[1::2], strict=False):
        assert white[0] % 2 == 1 and black[0] == white[0] + 1
        assert abs(white[1] - black[1]) <= 2, (white, black)  # on one line
    assert rows[1][1] < rows[2][1]  # move 2 below move 1
    assert all(r[2] for r in rows)  # every ply says how long it took
    used = await page.locator(".game .pl .used").all_text_contents()
    assert all(used) and len(used) == 2  # next to each clock: its side's last move
    assert await problems(page) == []
    theme = await page.evaluate("document.documentElement.dataset.theme")
    assert theme == page.theme


async def test_check_is_marked_on_the_board(site: Site, page: Any) -> None:
    await open_live(page, f"{site.url}/game/{scene.GAME_MATE}")
    assert await page.locator("svg.board rect.check").count() == 1  # Qxf7#
    await page.keyboard.press("ArrowLeft")  # 3... Nf6: no check
    assert await page.locator("svg.board rect.check").count() == 0
    await page.keyboard.press("ArrowRight")
    assert await page.locator("svg.board rect.check").count() == 1
    colour = await page.locator("svg.board rect.check").evaluate("(r) => getComputedStyle(r).fill")
    assert colour == "rgb(229, 57, 53)"


async def test_flip_in_place_and_the_move_in_the_address(site: Site, page: Any) -> None:
    await open_live(page, f"{site.url}/game/{scene.GAME_ON}")
    await page.evaluate("window.notReloaded = true")
    top = page.locator(".game .pl.top")
    assert await top.get_attribute("data-colour") == "black"
    await page.click("#flip")
    assert await page.evaluate("window.notReloaded") is True
    assert await top.get_attribute("data-colour") == "white"
    assert "Rameshbabu" in await top.inner_text()  # White's player moved up with the colour
    assert await page.locator("svg.board").get_attribute("data-flip") == "1"
    assert "flip=1" in page.url
    await page.locator("#moves li[data-ply='19'] .san").click()
    assert "ply=19" in page.url
    shared = page.url
    assert await page.locator("#share").get_attribute("href") == shared[len(site.url) :]
    await page.keyboard.press("End")
    assert "ply=" not in page.url  # back to following the game
    # The shared link opens at that move, flipped.
    other = await page.context.new_page()
    await open_live(other, shared)
    assert await other.locator("#moves li.cur").get_attribute("data-ply") == "19"
    assert (await other.locator("#viewer-pos").inner_text()).startswith("10. ")
    assert await other.locator("svg.board").get_attribute("data-flip") == "1"
    await other.close()


async def test_round_selector_and_flags(site: Site, page: Any) -> None:
    await open_live(page, f"{site.url}/game/{scene.GAME_ON}")
    current = page.locator("nav.rounds a.cur")
    assert await current.inner_text() == "1"
    assert await page.locator("nav.rounds a, nav.rounds span.off").count() == 7
    flags = page.locator(".game .fed img.flag")
    assert await flags.count() == 2
    loaded = await flags.evaluate_all("(imgs) => imgs.map((i) => i.complete && i.naturalWidth > 0)")
    assert loaded == [True, True]
    await current.click()
    await page.wait_for_url("**/round/1?section=masters")


async def test_theme_toggle_sticks(site: Site, page: Any) -> None:
    await open_live(page, f"{site.url}/")
    root = "document.documentElement.dataset.theme"
    bg = "getComputedStyle(document.body).backgroundColor"
    first = await page.evaluate(bg)
    await page.click("#theme-toggle")
    other = "light" if page.theme == "dark" else "dark"
    assert await page.evaluate(root) == other
    assert await page.evaluate(bg) != first
    await page.reload()
    assert await page.evaluate(root) == other


@pytest.fixture
async def framed(tmp_path: Path) -> AsyncIterator[tuple[str, str, str]]:
    """The event served with one allowed framer; two parent sites: allowed and not."""
    allowed_port, other_port, port = free_port(), free_port(), free_port()
    text = EVENT.read_text(encoding="utf-8").replace(
        "[event]\n", f'[event]\nembed_origins = ["http://127.0.0.1:{allowed_port}"]\n', 1
    )
    service = EventService(
        load_event_text(text, EVENT),
        Journal(tmp_path / "j.sqlite"),
        time_source=ManualTime(T0),
        live_round=1,
        delay=0.0,
    )
    service.load()
    play_moves(service, "masters-r1-b1", ["e4", "e5"])
    runner = await start_web(service, host="127.0.0.1", port=port, credentials=CREDENTIALS)
    url = f"http://127.0.0.1:{port}"

    async def parent(request: web.Request) -> web.Response:
        src = url + request.query["src"]
        return web.Response(
            text=f'<iframe src="{src}" width="400" height="600"></iframe>', content_type="text/html"
        )

    parents = []
    for p in (allowed_port, other_port):
        app = web.Application()
        app.router.add_get("/", parent)
        r = web.AppRunner(app)
        await r.setup()
        await web.TCPSite(r, "127.0.0.1", p).start()
        parents.append(r)
    try:
        yield url, f"http://127.0.0.1:{allowed_port}", f"http://127.0.0.1:{other_port}"
    finally:
        for r in parents:
            await r.cleanup()
        await runner.cleanup()


async def _framed_text(page: Any, parent: str, src: str) -> str:
    await page.goto(f"{parent}/?src={src}")
    await page.wait_for_timeout(300)  # the frame's own load (blocked frames never load)
    frame = page.frames[-1] if len(page.frames) > 1 else None
    if frame is None:
        return ""
    try:
        text: str = await frame.evaluate("document.body ? document.body.innerText : ''")
    except Exception:  # a blocked frame may be a page we cannot read: none of ours
        return ""
    return text


async def test_embeds_frame_only_on_allowed_sites(framed: tuple[str, str, str], page: Any) -> None:
    _, allowed, other = framed
    await page.goto(f"{allowed}/?src=/embed/game/masters-r1-b1")
    frame = page.frame_locator("iframe")
    await frame.locator("#live-status[data-state=live]").wait_for(timeout=15000)
    assert "1… e5" in await frame.locator(".mini .last").inner_text()
    assert "Pamplona Masters" in await _framed_text(page, allowed, "/embed/round/1")
    # Refused: the browser shows its own error page in the frame, none of ours.
    assert "Pamplona" not in await _framed_text(page, other, "/embed/game/masters-r1-b1")
    assert "Pamplona" not in await _framed_text(page, allowed, "/game/masters-r1-b1")
