"""A flag fall and a kings signal, made on emulated boards, reach the arbiter desk as
alerts stating result and reason; one click confirms; the spectator page then shows the
flag and the result with its reason, after the broadcast delay, at phone and desktop
width; the desk does not scroll sideways on a phone."""

from __future__ import annotations

import asyncio
import time as wall
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import chess
import pytest

from boards.position import SYMBOL_TO_CODE, square_to_index
from broadcast.cli.demo import kings_signal
from broadcast.games.game_events import ResultConfirmed
from tests.browser.test_live_pages import Live, start_live
from tests.support import acting
from tests.support.web_app import CREDENTIALS

DELAY = 3.0
FLAG_GAME = "masters-r1-b3"
SIGNAL_GAME = "masters-r1-b1"
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1366, "height": 768}


@pytest.fixture
async def hall(tmp_path: Path) -> AsyncIterator[Live]:
    async for live in start_live(tmp_path, delay=DELAY):
        for _ in range(200):  # board 3 too (start_live waits for board 1)
            if live.service.hall[3].connected:
                break
            await asyncio.sleep(0.05)
        yield live


def emulated(live: Live, board: int) -> tuple[Any, int]:
    return live.hall.where[board]


async def login(browser: Any, url: str, viewport: dict[str, int]) -> Any:
    desk = await browser.new_page(viewport=viewport)
    await desk.goto(f"{url}/arbiter")
    await desk.fill("input[name=user]", CREDENTIALS[0])
    await desk.fill("input[name=password]", CREDENTIALS[1])
    await desk.click("button[type=submit]")
    await desk.wait_for_selector("#live-status[data-state=live]", timeout=10000)
    return desk


async def flag_falls(hall: Live, board: int = 3) -> None:
    """White's clock (board 3 unless told) set to 2 s and started; nobody moves."""
    host, index = emulated(hall, board)
    host.setup_clock(2.0, 600.0, 0.0, board=index)
    host.press_lever("right", board=index)


async def kings_signal_after_e4_e5(hall: Live) -> None:
    host, index = emulated(hall, 1)
    host.setup_clock(600.0, 600.0, 0.0, board=index)
    host.press_lever("right", board=index)
    board = chess.Board()
    for uci, side in (("e2e4", "left"), ("e7e5", "right")):
        move = chess.Move.from_uci(uci)
        piece = board.piece_at(move.from_square)
        assert piece is not None
        host.set_square(square_to_index(move.from_square), 0, board=index)
        await asyncio.sleep(0.3)
        host.set_square(
            square_to_index(move.to_square), SYMBOL_TO_CODE[piece.symbol()], board=index
        )
        await asyncio.sleep(0.4)
        host.press_lever(side, board=index)
        board.push(move)
        await asyncio.sleep(0.6)
    for square, code in kings_signal(board, "1/2-1/2"):
        host.set_square(square_to_index(square), code, board=index)
        await asyncio.sleep(0.3)


def proposal(desk: Any, game: str) -> Any:
    return desk.locator(f"li.alert.proposal:has(a[href='#g-{game}'])")


async def no_sideways_scroll(page: Any) -> bool:
    return bool(
        await page.evaluate("() => document.scrollingElement.scrollWidth <= window.innerWidth + 1")
    )


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
async def test_flag_fall_and_kings_signal_reach_the_desk_and_one_click_confirms(
    hall: Live, browser: Any, viewport: dict[str, int]
) -> None:
    desk = await login(browser, hall.url, viewport)
    spectator = await browser.new_page(viewport=viewport)
    await spectator.goto(f"{hall.url}/game/{FLAG_GAME}")
    await spectator.wait_for_selector("#live-status[data-state=live]", timeout=10000)

    await flag_falls(hall)
    await kings_signal_after_e4_e5(hall)

    flag_alert = proposal(desk, FLAG_GAME)
    await flag_alert.wait_for(timeout=20000)
    assert (await flag_alert.locator(".proposed").text_content()) == "0-1 · time forfeit"
    game = hall.service.book.get(FLAG_GAME)
    names = " \u2013 ".join(p.name if p else "?" for p in (game.white, game.black))
    assert (await flag_alert.locator(".title").text_content()) == (
        f"Table 3 · {names}: White's flag fell; propose 0-1"
    )
    shown = await flag_alert.inner_text()  # what the arbiter reads: no codes, no game ids
    assert FLAG_GAME not in shown and "result-proposed" not in shown, shown
    assert "white flag fell" in (await flag_alert.locator(".message").text_content() or "")
    signal_alert = proposal(desk, SIGNAL_GAME)
    await signal_alert.wait_for(timeout=30000)
    assert (await signal_alert.locator(".proposed").text_content()) == "1/2-1/2 · kings signal"
    assert await no_sideways_scroll(desk), "the desk scrolls sideways"

    # The spectators see the flag (and the pending result) only after the delay.
    await spectator.wait_for_selector("#result .flagbadge", timeout=20000)
    assert "white's flag fell" in (await spectator.locator("#result").text_content() or "")
    assert "awaiting the arbiter" in (await spectator.locator("#result").text_content() or "")

    await flag_alert.locator("form.confirm button").click()
    await desk.wait_for_selector(".flash:has-text('0-1 (time forfeit)')", timeout=10000)
    confirmed_at = wall.monotonic()
    await desk.wait_for_selector("li.alert.proposal", timeout=10000)  # the signal's is left
    assert await proposal(desk, FLAG_GAME).count() == 0
    stood = [e.event for e in hall.service.journal.read() if isinstance(e.event, ResultConfirmed)]
    assert [(c.game, c.result, c.reason, c.by) for c in stood] == [
        (FLAG_GAME, "0-1", "flag-fall", f"arbiter:{CREDENTIALS[0]}")
    ]

    badge = spectator.locator("#result .resultbadge")
    await badge.wait_for(timeout=20000)
    assert wall.monotonic() - confirmed_at >= DELAY - 0.5  # delayed like everything public
    assert (await badge.text_content() or "").split() == ["0-1", "time", "forfeit"]
    assert await no_sideways_scroll(spectator)

    round_page = await browser.new_page(viewport=viewport)
    await round_page.goto(f"{hall.url}/round/1")
    mini = round_page.locator(f"a.mini[data-game={FLAG_GAME}] .result")
    assert "0-1" in (await mini.text_content() or "")
    assert "time forfeit" in (await mini.text_content() or "")


async def test_override_sets_another_result(hall: Live, browser: Any) -> None:
    desk = await login(browser, hall.url, DESKTOP)
    await flag_falls(hall)
    alert = proposal(desk, FLAG_GAME)
    await alert.wait_for(timeout=20000)
    await alert.locator("form.override select").select_option("1/2-1/2")
    await alert.locator("form.override button").click()
    await desk.wait_for_selector(".flash:has-text(': 1/2-1/2 (')", timeout=10000)
    assert hall.service.book.get(FLAG_GAME).result == "1/2-1/2"
    assert await proposal(desk, FLAG_GAME).count() == 0


async def test_set_instead_keeps_the_choice_when_another_alert_arrives(
    hall: Live, browser: Any
) -> None:
    desk = await login(browser, hall.url, DESKTOP)
    await flag_falls(hall)
    alert = proposal(desk, FLAG_GAME)
    await alert.wait_for(timeout=20000)
    select = alert.locator("form.override select")
    assert await select.input_value() == ""  # a neutral "choose…", never a result
    await alert.locator("form.override button").click()  # nothing chosen: nothing recorded
    assert hall.service.book.get(FLAG_GAME).result != "1/2-1/2"
    await select.select_option("1/2-1/2")
    await select.focus()
    before = await desk.locator("li.alert").count()

    await flag_falls(hall, board=1)  # another alert arrives: the list is rebuilt
    await proposal(desk, SIGNAL_GAME).wait_for(timeout=20000)
    assert await desk.locator("li.alert").count() > before
    select = proposal(desk, FLAG_GAME).locator("form.override select")
    assert await select.input_value() == "1/2-1/2"
    assert await select.evaluate("el => el === document.activeElement")
    fresh = proposal(desk, SIGNAL_GAME).locator("form.override select")
    assert await fresh.input_value() == ""

    await proposal(desk, FLAG_GAME).locator("form.override button").click()
    await desk.wait_for_selector(".flash:has-text(': 1/2-1/2 (')", timeout=10000)
    assert hall.service.book.get(FLAG_GAME).result == "1/2-1/2"
    assert hall.service.book.get(SIGNAL_GAME).result != "1/2-1/2"


async def test_closed_alerts_stay_on_the_desk_with_when_why_and_who(
    hall: Live, browser: Any
) -> None:
    desk = await login(browser, hall.url, DESKTOP)
    await flag_falls(hall)
    await proposal(desk, FLAG_GAME).wait_for(timeout=20000)
    await proposal(desk, FLAG_GAME).locator("form.confirm button").click()  # resolves it
    await desk.wait_for_selector(".flash:has-text('0-1 (time forfeit)')", timeout=10000)
    await flag_falls(hall, board=1)
    signal = proposal(desk, SIGNAL_GAME)
    await signal.wait_for(timeout=20000)
    # Rejected elsewhere (the API, another desk): this desk's Closed section follows live.
    # (A pending proposal cannot be merely acknowledged: it is confirmed, replaced or rejected.)
    acting.reject_proposal(hall.service, SIGNAL_GAME, "arbiter:api")

    closed = desk.locator("#closed li.alert.closed")
    await closed.nth(1).wait_for(timeout=10000)
    texts = await closed.all_inner_texts()
    assert len(texts) == 2, texts
    newest, older = texts  # newest first
    assert "White's flag fell; propose 0-1" in older
    assert "resolved at " in older and "by the rules: result 0-1" in older, older
    assert "Table 1 · " in newest and "White's flag fell; propose 0-1" in newest
    assert "resolved at " in newest, newest
    assert await proposal(desk, SIGNAL_GAME).count() == 0
    body = await (await desk.request.get(f"{hall.url}/arbiter/closed.json")).json()
    assert [c["closed"]["how"] for c in body] == ["resolved", "resolved"]


async def test_reject_lets_the_game_go_on(hall: Live, browser: Any) -> None:
    desk = await login(browser, hall.url, DESKTOP)
    await flag_falls(hall)
    alert = proposal(desk, FLAG_GAME)
    await alert.wait_for(timeout=20000)
    # A proposal has three ways out and no "Acknowledge" (it would leave it pending).
    assert await alert.locator("form[action='/arbiter/act/ack']").count() == 0
    await alert.locator("form.reject button").click()
    # A rejected flag fall is a right result lost if by mistake: the desk asks first.
    box = desk.locator("#confirm")
    await box.wait_for(timeout=10000)
    assert "the game goes on" in (await box.locator("#confirm-summary").text_content() or "")
    assert hall.service.book.get(FLAG_GAME).proposal is not None
    await box.locator("form.confirm-form button").click()
    await desk.wait_for_selector(".flash:has-text('the game goes on')", timeout=10000)
    game = hall.service.book.get(FLAG_GAME)
    assert (game.proposal, game.result) == (None, None)
    assert await proposal(desk, FLAG_GAME).count() == 0
    closed = desk.locator("#closed li.alert.closed")
    await closed.first.wait_for(timeout=10000)
    assert "the game goes on" in (await closed.first.inner_text())
