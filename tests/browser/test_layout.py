"""Every page at a phone's and a laptop's width, with long real-world names.

Nothing may stick out of its card (a mini-board, the board or moves column, a table, an
alert, a desk game), no page may scroll sideways, and every clock must be readable whole.
Results, flag falls and pending results read on the pages; the game viewer steps through
the moves by click, buttons and keys, and the live game is followed unless the viewer
stepped back. The round is `scene.py`'s: a game on, a checkmate, a flag fall waiting for
the arbiter, a draw, and an alert with a long position string on the desk.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from typing import Any

import pytest

from broadcast.games.game_events import GameClock, GameMove, ResultConfirmed
from broadcast.service.event_service import EventService
from clocks.timesource import ManualTime
from tests.browser import scene
from tests.browser.scene import Site
from tests.support.web_app import CREDENTIALS, free_port
from web.app import start_web

STATIC = ("arbiter-login", "not-found")  # pages without a live connection
# What counts as a card: a box whose content must stay inside it.
CARDS = ".mini, .boardcol, .movecol, .scroll, table, li.alert, details.deskgame, main form"
CLOCK = re.compile(r"^(⚑ )?\d+:\d\d:\d\d$")

# Returns one line per problem: a descendant outside its card, a card or clock that would
# need scrolling, a page wider than the window.
LAYOUT_PROBLEMS = """(cards) => {
  const out = [];
  const name = (el) => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "")
    + (el.className && typeof el.className === "string" ? "." + el.className.trim().split(/\\s+/).join(".") : "");
  const visible = (r) => r.width > 0 && r.height > 0;
  for (const card of document.querySelectorAll(cards)) {
    const c = card.getBoundingClientRect();
    if (!visible(c)) continue;
    if (card.scrollWidth > card.clientWidth + 1) out.push(name(card) + " scrolls sideways: " + card.scrollWidth + " > " + card.clientWidth);
    for (const el of card.querySelectorAll("*")) {
      const r = el.getBoundingClientRect();
      if (!visible(r) || !el.checkVisibility() || el.closest("svg.defs")) continue;
      if (r.left < c.left - 1 || r.right > c.right + 1 || r.top < c.top - 1 || r.bottom > c.bottom + 1) {
        out.push(name(el) + " " + JSON.stringify((el.textContent || "").slice(0, 40)) + " outside " + name(card)
          + ": " + [r.left, r.right, r.top, r.bottom].map(Math.round) + " vs " + [c.left, c.right, c.top, c.bottom].map(Math.round));
      }
    }
  }
  for (const el of document.querySelectorAll(".clock, .mini .sub, .result")) {
    const r = el.getBoundingClientRect();
    if (!visible(r)) continue;
    if (el.scrollWidth > el.clientWidth + 1) out.push(name(el) + " " + JSON.stringify(el.textContent) + " is cut");
    if (r.left < 0 || r.right > innerWidth) out.push(name(el) + " is outside the window");
  }
  const doc = document.scrollingElement;
  if (doc.scrollWidth > innerWidth) out.push("the page scrolls sideways: " + doc.scrollWidth + " > " + innerWidth);
  return out;
}"""


@pytest.fixture(params=list(scene.SIZES))
async def page(request: pytest.FixtureRequest, browser: Any) -> AsyncIterator[Any]:
    width, height = scene.SIZES[request.param]
    context = await browser.new_context(viewport={"width": width, "height": height})
    yield await context.new_page()
    await context.close()


async def open_live(page: Any, url: str) -> None:
    await page.goto(url)
    await page.wait_for_selector("#live-status[data-state=live]", timeout=15000)


async def log_in(page: Any, site: Site) -> None:
    await page.goto(f"{site.url}/arbiter/login")
    await page.fill("input[name=user]", CREDENTIALS[0])
    await page.fill("input[name=password]", CREDENTIALS[1])
    await page.click("button[type=submit]")
    await page.wait_for_selector("#live-status[data-state=live]", timeout=15000)


async def problems(page: Any) -> list[str]:
    found: list[str] = await page.evaluate(LAYOUT_PROBLEMS, CARDS)
    return found


# An element's text as it reads on screen: with the text that CSS adds (`::before`/`::after`,
# e.g. the parentheses around a result's reason), whitespace collapsed.
SEEN = """(root) => {
  const pseudo = (el, which) => {
    const c = getComputedStyle(el, which).content;
    return /^".*"$/.test(c) ? JSON.parse(c) : "";
  };
  const walk = (node) => node.nodeType === Node.TEXT_NODE ? node.textContent
    : node.nodeType !== Node.ELEMENT_NODE ? ""
    : pseudo(node, "::before") + Array.from(node.childNodes).map(walk).join("") + pseudo(node, "::after");
  return walk(root).replace(/\\s+/g, " ").trim();
}"""


async def seen(locator: Any) -> str:
    text: str = await locator.evaluate(SEEN)
    return text


async def clock_texts(page: Any) -> list[str]:
    texts: list[str] = await page.evaluate(
        """() => Array.from(document.querySelectorAll('.clock')).map(
            (el) => (getComputedStyle(el, '::before').content.replace(/^"|"$/g, '')
                     .replace(/^none$/, '') + el.textContent).trim())"""
    )
    return texts


@pytest.mark.parametrize("where", list(scene.PAGES))
async def test_public_pages_fit_their_cards_and_the_window(
    site: Site, page: Any, where: str
) -> None:
    if where in STATIC:
        await page.goto(site.url + scene.PAGES[where])
    else:
        await open_live(page, site.url + scene.PAGES[where])
    assert await problems(page) == []
    await page.evaluate("() => document.querySelectorAll('details').forEach((d) => d.open = true)")
    assert await problems(page) == []
    for text in await clock_texts(page):
        assert CLOCK.match(text), f"clock reads {text!r}"


async def test_the_arbiter_desk_fits_with_a_long_position_in_an_alert(
    site: Site, page: Any
) -> None:
    await log_in(page, site)
    await page.wait_for_selector("li.alert[data-alert=scene-fen]")
    await page.evaluate("() => document.querySelectorAll('details').forEach((d) => d.open = true)")
    assert await problems(page) == []


async def test_the_disabled_desk_page_fits(
    built_scene: tuple[EventService, ManualTime], page: Any
) -> None:
    service, _ = built_scene
    port = free_port()
    runner = await start_web(service, host="127.0.0.1", port=port, credentials=None)
    try:
        await page.goto(f"http://127.0.0.1:{port}/arbiter")
        assert "disabled" in (await page.locator("h1").text_content() or "")
        assert await problems(page) == []
    finally:
        await runner.cleanup()


async def test_every_board_shows_both_clocks_whole_and_its_result(site: Site, page: Any) -> None:
    for path in ("/", "/round/1"):
        await open_live(page, site.url + path)
        minis = page.locator(".mini")
        assert await minis.count() == 4
        for game in (scene.GAME_ON, scene.GAME_MATE, scene.GAME_FLAG, scene.GAME_DRAW):
            mini = page.locator(f".mini[data-game='{game}']")
            for side in ("white", "black"):
                clock = mini.locator(f".clock[data-side={side}]")
                assert await clock.is_visible()
                assert re.fullmatch(r"\d+:\d\d:\d\d", (await clock.text_content() or "").strip())
            feds = await mini.locator(".fed").all_text_contents()
            assert len(feds) == 2 and all(len(f) == 3 for f in feds)
        results = {
            game: await seen(page.locator(f".mini[data-game='{game}'] .result"))
            for game in (scene.GAME_ON, scene.GAME_MATE, scene.GAME_FLAG, scene.GAME_DRAW)
        }
        assert results == {
            scene.GAME_ON: "",
            scene.GAME_MATE: "1-0 (checkmate)",
            scene.GAME_FLAG: "result pending: 1-0 (time forfeit) ⚑ black's flag fell",
            scene.GAME_DRAW: "1/2-1/2 (agreement)",
        }
        flagged = page.locator(".mini .clock.flagged")
        assert await flagged.count() == 1
        assert await flagged.get_attribute("data-side") == "black"
        assert await flagged.evaluate("(el) => el.closest('.mini').dataset.game") == scene.GAME_FLAG


async def test_a_flag_fall_then_the_confirmed_result_on_the_game_page(
    site: Site, page: Any
) -> None:
    await open_live(page, f"{site.url}/game/{scene.GAME_FLAG}")
    assert await seen(page.locator("#result")) == (
        "result pending: 1-0 (time forfeit), awaiting the arbiter ⚑ black's flag fell"
    )
    black = page.locator(".game .clock[data-side=black]")
    assert "flagged" in (await black.get_attribute("class") or "")
    assert await black.get_attribute("title") == "flag fell"
    assert "⚑" in await black.evaluate("(el) => getComputedStyle(el, '::before').content")
    white = page.locator(".game .clock[data-side=white]")
    assert "flagged" not in (await white.get_attribute("class") or "")
    home = await page.context.new_page()
    await open_live(home, f"{site.url}/")
    # The arbiter confirms: the pages say so without a reload.
    site.service.commit([ResultConfirmed(scene.GAME_FLAG, "1-0", "flag-fall", site.clock.now())])
    await page.wait_for_selector("#result.final .resultbadge", timeout=15000)
    assert await seen(page.locator("#result")) == "1-0 (time forfeit) ⚑ black's flag fell"
    mini = home.locator(f".mini[data-game='{scene.GAME_FLAG}'] .result")
    await home.wait_for_selector(
        f".mini[data-game='{scene.GAME_FLAG}'] .result.final .resultbadge", timeout=15000
    )
    assert await seen(mini) == "1-0 (time forfeit) ⚑ black's flag fell"
    assert "flagged" in (await black.get_attribute("class") or "")


# -- the game viewer ---------------------------------------------------------------------------


async def shown(page: Any) -> dict[str, Any]:
    state: dict[str, Any] = await page.evaluate(
        """() => ({
            fen: document.querySelector('.game svg.board').getAttribute('data-fen'),
            last: document.querySelector('.game svg.board').getAttribute('data-last'),
            cur: Array.from(document.querySelectorAll('#moves li.cur')).map((li) => Number(li.dataset.ply)),
            pos: document.getElementById('viewer-pos').textContent,
            white: document.querySelector('.game .clock[data-side=white]').textContent,
            black: document.querySelector('.game .clock[data-side=black]').textContent,
            running: Array.from(document.querySelectorAll('.game .clock.run')).map((el) => el.dataset.side),
        })"""
    )
    return state


def fmt(seconds: float) -> str:
    s = int(seconds)
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"


def expected(service: EventService, ply: int) -> dict[str, Any]:
    """What the viewer must show at `ply` (0 = the start) of the live game."""
    game = service.book.get(scene.GAME_ON)
    moves = game.moves[:ply]
    white = next((m.remaining for m in reversed(moves[0::2]) if m.remaining is not None), 7200)
    black = next((m.remaining for m in reversed(moves[1::2]) if m.remaining is not None), 7200)
    return {
        "fen": moves[-1].fen_after if moves else game.start_fen,
        "last": moves[-1].uci if moves else "",
        "cur": [ply] if ply else [],
        "white": fmt(white),
        "black": fmt(black),
        "running": [],
    }


def matches(state: dict[str, Any], want: dict[str, Any]) -> bool:
    return all(state[k] == v for k, v in want.items())


def next_move(site: Site, game_id: str) -> GameMove:
    service = site.service
    game = service.book.get(game_id)
    board = game.board_now()
    move = sorted(board.legal_moves, key=lambda m: m.uci())[0]
    san = board.san(move)
    board.push(move)
    return GameMove(
        game_id, game.ply + 1, san, move.uci(), board.fen(), site.clock.now(), 3600.0, 12.0
    )


async def test_the_viewer_steps_by_click_buttons_and_keys(site: Site, page: Any) -> None:
    service = site.service
    await open_live(page, f"{site.url}/game/{scene.GAME_ON}")
    last = service.book.get(scene.GAME_ON).ply
    state = await shown(page)
    assert state["cur"] == [last] and state["pos"].endswith("live")
    assert state["running"], "the live game's clock runs"

    await page.locator("#moves li[data-ply='19'] .san").click()
    state = await shown(page)
    assert matches(state, expected(service, 19)), state
    assert state["pos"] == "10. O-O"
    await page.keyboard.press("ArrowLeft")
    assert matches(await shown(page), expected(service, 18))
    await page.keyboard.press("Home")
    start = await shown(page)
    assert matches(start, expected(service, 0)) and start["pos"] == "start"
    assert start["white"] == start["black"] == "2:00:00"  # the time control's base
    await page.keyboard.press("ArrowRight")
    assert matches(await shown(page), expected(service, 1))
    await page.click("#viewer button[data-go=next]")
    assert matches(await shown(page), expected(service, 2))
    await page.click("#viewer button[data-go=prev]")
    assert matches(await shown(page), expected(service, 1))
    await page.click("#viewer button[data-go=start]")
    assert matches(await shown(page), expected(service, 0))
    await page.keyboard.press("ArrowLeft")  # nothing before the start
    assert matches(await shown(page), expected(service, 0))

    await page.keyboard.press("End")
    state = await shown(page)
    game = service.book.get(scene.GAME_ON)
    assert state["fen"] == game.fen and state["cur"] == [last]
    assert state["pos"].endswith("live") and state["running"]
    await page.click("#viewer button[data-go=end]")
    await page.keyboard.press("ArrowRight")  # nothing after the latest move
    assert (await shown(page))["fen"] == game.fen
    await page.click("#viewer button[data-go=prev]")
    await page.click("#viewer button[data-go=next]")  # back at the latest: following again
    assert (await shown(page))["pos"].endswith("live")


async def test_the_live_game_is_followed_unless_the_viewer_stepped_back(
    site: Site, page: Any
) -> None:
    service = site.service
    await open_live(page, f"{site.url}/game/{scene.GAME_ON}")
    last = service.book.get(scene.GAME_ON).ply

    # Following: a new move shows at once.
    move = next_move(site, scene.GAME_ON)
    service.commit([move])
    await page.wait_for_function(
        f"() => document.querySelector('.game svg.board').getAttribute('data-fen') === {move.fen_after!r}",
        timeout=15000,
    )
    assert (await shown(page))["cur"] == [last + 1]

    # Stepped back: the list grows, the board stays where the viewer is.
    await page.locator("#moves li[data-ply='10'] .san").click()
    move = next_move(site, scene.GAME_ON)
    service.commit([move, GameClock(scene.GAME_ON, 3500, 3599, "white", site.clock.now())])
    await page.wait_for_selector(f"#moves li[data-ply='{last + 2}']", timeout=15000)
    await page.wait_for_function(
        "() => window.BW.liveGame && window.BW.liveGame.clock.black === 3599", timeout=15000
    )
    assert matches(await shown(page), expected(service, 10))
    await page.keyboard.press("End")
    state = await shown(page)
    assert state["fen"] == move.fen_after and state["cur"] == [last + 2]
    assert state["running"] == ["white"]
    assert state["black"] == "0:59:59"
