"""The desk's boards to set up, live, on emulated boards at phone and desktop width.

- "Replace the board": board 1 is unplugged, a spare (hall board 4) stands with four
  squares wrong, the arbiter picks the spare for the game; the desk's "Spare boards"
  section shows the position to set up (a picture with the wrong squares marked, and a
  FEN) and the squares that still differ, which shrink as the pieces are put right,
  without reloading the page; once the board matches the entry says so, and the game goes
  on there.
- "Correct the line": the arbiter takes back a move the board recorded; the game waits
  for its board to show the corrected position, the same section follows the board, and
  play goes on from the corrected position.
- In Spanish: the desk's words for the section, and the entry desk.js rebuilds from the
  socket, come from the page's word table, not English.
"""

from __future__ import annotations

import asyncio
from typing import Any

import chess
import pytest

from boards.position import SYMBOL_TO_CODE, square_to_index
from tests.browser.test_live_pages import Live
from tests.browser.test_result_alerts import (
    DESKTOP,
    PHONE,
    emulated,
    hall,
    login,
    no_sideways_scroll,
)

__all__ = ["hall"]  # the fixture, shared with the result-alert tests

GAME = "masters-r1-b1"


def put(live: Live, board: int, square: str, piece: str | None) -> None:
    """Set one square of emulated hall board `board` (None: empty it)."""
    host, index = emulated(live, board)
    code = SYMBOL_TO_CODE[piece] if piece else 0
    host.set_square(square_to_index(chess.parse_square(square)), code, board=index)


async def until(check: Any, seconds: float = 15.0) -> None:
    for _ in range(int(seconds / 0.05)):
        if check():
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the service did not get there in time")


async def differs(entry: Any, squares: str) -> None:
    """Wait until the entry lists exactly `squares` as still differing, and its picture
    marks as many squares."""
    strong = entry.locator(".differs strong")
    for _ in range(300):
        if await strong.count() and await strong.inner_text() == squares:
            break
        await asyncio.sleep(0.05)
    else:
        shown = await entry.locator(".differs").inner_text()
        raise AssertionError(f"the desk shows {shown!r}, not {squares!r}")
    assert await entry.locator("svg.board rect.differ").count() == len(squares.split())


async def mark_the_page(desk: Any) -> None:
    """A mark on the loaded page: still there at the end means it was never reloaded."""
    await desk.evaluate("window.__sameLoad = true")


async def same_page(desk: Any) -> bool:
    return bool(await desk.evaluate("window.__sameLoad === true"))


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
async def test_the_desk_follows_the_spare_as_it_is_set_up(
    hall: Live, browser: Any, viewport: dict[str, int]
) -> None:
    service = hall.service
    await until(lambda: service.hall[4].connected)
    host, _ = emulated(hall, 1)
    host.unplug()  # board 1 fails
    # The spare is set up wrong: White's pawn on e4 instead of e2, Black's on d5, not d7.
    put(hall, 4, "e2", None)
    put(hall, 4, "e4", "P")
    put(hall, 4, "d7", None)
    put(hall, 4, "d5", "p")
    desk = await login(browser, hall.url, viewport)
    assert await desk.locator("#spares").is_hidden()  # nothing to set up yet
    game = desk.locator(f"#g-{GAME}")
    await game.locator(":scope > summary").click()
    form = game.locator("form.replace")
    # Board 4's own game is still in play: a swap, chosen from its own list on purpose.
    assert "4" not in await form.locator("select[name=spare]").inner_text()
    await form.locator("select[name=swap_with]").select_option("4")
    await form.locator("button[type=submit]").click()
    # The game leaves its board: the desk says so and waits for Confirm.
    await desk.wait_for_selector("#confirm ul.removes li:has-text('board 1 from')", timeout=10000)
    await desk.click("#confirm button.danger")
    await desk.wait_for_selector(".flash:has-text('moved from board 1 to board 4')", timeout=10000)
    await desk.wait_for_selector("#live-status[data-state=live]", timeout=10000)
    await mark_the_page(desk)
    assert service.hall[4].game == GAME and service.book.get(GAME).awaiting_board

    entry = desk.locator(f"#spares .spare[data-waiting={GAME}]")
    await entry.wait_for(timeout=5000)
    assert await entry.locator("svg.board").count() == 1  # the picture of the position
    assert chess.STARTING_BOARD_FEN in (await entry.locator(".must-show").inner_text())
    assert "from board 1" in await entry.locator(".why").inner_text()
    await differs(entry, "e2 e4 d5 d7")  # in board order, a1 to h8
    assert await no_sideways_scroll(desk), "the desk scrolls sideways"

    put(hall, 4, "e4", None)  # the arbiter puts White's pawn back...
    put(hall, 4, "e2", "P")
    await differs(entry, "d5 d7")
    put(hall, 4, "d5", None)  # ...and Black's
    put(hall, 4, "d7", "p")
    matched = desk.locator(f"#spares .spare.matched[data-waiting={GAME}]")
    await matched.wait_for(timeout=10000)
    assert "the game goes on on board 4" in await matched.inner_text()
    assert await matched.locator("svg.board").count() == 0
    assert service.book.get(GAME).in_sync

    put(hall, 4, "e2", None)  # and the game goes on on the spare: 1. e4
    put(hall, 4, "e4", "P")
    await until(lambda: service.book.get(GAME).ply == 1)
    assert service.book.get(GAME).moves[0].san == "e4"
    assert service.book.get(GAME).board == service.hall[4].name
    await desk.wait_for_selector(f"#g-{GAME} .ply:text-is('1')", timeout=5000)
    assert await same_page(desk), "the desk was reloaded"


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
async def test_a_corrected_line_waits_for_the_board_on_the_desk(
    hall: Live, browser: Any, viewport: dict[str, int]
) -> None:
    service = hall.service
    put(hall, 1, "e2", None)  # 1. e4 on board 1
    put(hall, 1, "e4", "P")
    await until(lambda: service.book.get(GAME).ply == 1)
    desk = await login(browser, hall.url, viewport)
    game = desk.locator(f"#g-{GAME}")
    await game.locator(":scope > summary").click()
    # The arbiter takes the move back (it was not played); an empty line is refused.
    await game.locator("form[action='/arbiter/act/line'] textarea").fill("")
    await game.locator("form[action='/arbiter/act/line'] button[type=submit]").click()
    await desk.wait_for_selector(
        ".flash.error:has-text('an empty line would remove')", timeout=10000
    )
    assert service.book.get(GAME).ply == 1
    game = desk.locator(f"#g-{GAME}")
    assert await game.evaluate("(d) => d.open")  # the desk acted in place: still open
    await game.locator("form.takeback input[name=plies]").fill("1")
    await game.locator("form.takeback button[type=submit]").click()
    await desk.wait_for_selector("#confirm ul.removes li:has-text('ply 1 (1.e4)')", timeout=10000)
    await desk.click("#confirm button.danger")
    await desk.wait_for_selector(".flash:has-text('1 ply taken back (0 left)')", timeout=10000)
    await desk.wait_for_selector("#live-status[data-state=live]", timeout=10000)
    await mark_the_page(desk)
    assert service.book.get(GAME).ply == 0 and service.book.get(GAME).awaiting_correction

    entry = desk.locator(f"#spares .spare[data-waiting={GAME}]")
    await entry.wait_for(timeout=5000)
    assert "Corrected" in await entry.locator(".why").inner_text()
    await differs(entry, "e2 e4")
    assert await no_sideways_scroll(desk), "the desk scrolls sideways"
    # The alert comes at once, live too, and names the squares to put right.
    alert = desk.locator("#alerts li[data-kind=out-of-sync]")
    await alert.wait_for(timeout=10000)
    message = await alert.locator(".message").inner_text()
    assert "corrected" in message and "squares that differ: e2 e4" in message

    put(hall, 1, "e4", None)  # the pawn goes back, one square at a time
    await differs(entry, "e2")
    assert service.book.get(GAME).ply == 0  # an empty e4 is no takeback of a move
    put(hall, 1, "e2", "P")
    matched = desk.locator(f"#spares .spare.matched[data-waiting={GAME}]")
    await matched.wait_for(timeout=10000)
    assert "the game goes on on board 1" in await matched.inner_text()

    put(hall, 1, "d2", None)  # play goes on from the corrected position: 1. d4
    put(hall, 1, "d4", "P")
    await until(lambda: service.book.get(GAME).ply == 1)
    assert service.book.get(GAME).moves[0].san == "d4"
    assert await same_page(desk), "the desk was reloaded"


async def test_the_spare_entry_is_in_the_desk_language(hall: Live, browser: Any) -> None:
    service = hall.service
    await until(lambda: service.hall[4].connected)
    host, _ = emulated(hall, 1)
    host.unplug()
    put(hall, 4, "e2", None)  # the spare shows White's pawn on e4, not e2
    put(hall, 4, "e4", "P")
    desk = await login(browser, hall.url, DESKTOP)
    await desk.goto(f"{hall.url}/arbiter?lang=es")  # the switcher: remembered in the cookie
    await desk.wait_for_selector("#live-status[data-state=live]", timeout=10000)
    assert await desk.get_attribute("html", "lang") == "es"
    game = desk.locator(f"#g-{GAME}")
    await game.locator(":scope > summary").click()
    form = game.locator("form.replace")
    # Board 4's own game is still in play: a swap, chosen from its own list on purpose.
    assert "4" not in await form.locator("select[name=spare]").inner_text()
    await form.locator("select[name=swap_with]").select_option("4")
    await form.locator("button[type=submit]").click()
    await desk.click("#confirm button.danger")  # the box's buttons are in Spanish too
    await desk.wait_for_selector(
        ".flash:has-text('trasladada del tablero 1 al tablero 4')", timeout=10000
    )
    await desk.wait_for_selector("#live-status[data-state=live]", timeout=10000)
    await mark_the_page(desk)
    assert "Tableros de reserva" in await desk.locator("#spares h2").inner_text()
    entry = desk.locator(f"#spares .spare[data-waiting={GAME}]")
    await entry.wait_for(timeout=5000)
    await differs(entry, "e2 e4")

    put(hall, 4, "e4", None)  # one square put right: desk.js rebuilds the entry, live
    await differs(entry, "e2")
    text = await entry.inner_text()
    for words in (
        f"Tablero 4: {service.book.get(GAME).white.name}",
        "tras la media jugada 0",
        "Trasladada aquí desde el tablero 1.",
        "Debe mostrar:",
        "Casillas que aún difieren: e2",
    ):
        assert words in text, f"{words!r} not in {text!r}"
    assert "differ" not in text and "Must show" not in text

    put(hall, 4, "e2", "P")
    matched = desk.locator(f"#spares .spare.matched[data-waiting={GAME}]")
    await matched.wait_for(timeout=10000)
    assert "Coincide: la partida sigue en el tablero 4." in await matched.inner_text()
    assert await same_page(desk), "the desk was reloaded"
