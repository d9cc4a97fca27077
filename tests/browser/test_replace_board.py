"""The desk's "Replace the board" on emulated boards, at phone and desktop width: board 1
is unplugged, a spare (hall board 4) stands with two squares wrong, the arbiter picks the
spare for the game; the desk shows the position the spare must show, as a picture and a
FEN, with the squares that still differ; once the pieces are right the game goes on there
and the desk no longer asks for it."""

from __future__ import annotations

import asyncio
from typing import Any

import chess
import pytest
from test_live_pages import Live
from test_result_alerts import DESKTOP, PHONE, emulated, hall, login, no_sideways_scroll

from boards.position import SYMBOL_TO_CODE, square_to_index

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


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
async def test_the_desk_replaces_a_failed_board_with_a_spare(
    hall: Live, browser: Any, viewport: dict[str, int]
) -> None:
    service = hall.service
    await until(lambda: service.hall[4].connected)
    host, _ = emulated(hall, 1)
    host.unplug()  # board 1 fails
    put(hall, 4, "e2", None)  # the spare is set up wrong: a pawn on e4 instead of e2
    put(hall, 4, "e4", "P")
    desk = await login(browser, hall.url, viewport)
    game = desk.locator(f"#g-{GAME}")
    await game.locator("summary").click()
    form = game.locator("form.replace")
    await form.locator("select[name=spare]").select_option("4")
    await form.locator("button[type=submit]").click()
    await desk.wait_for_selector(".flash:has-text('moved from board 1 to board 4')", timeout=10000)
    assert service.hall[4].game == GAME and service.book.get(GAME).awaiting_board

    spare = desk.locator(f"#spares .spare[data-game={GAME}]")
    await spare.wait_for(timeout=5000)
    assert await spare.locator("svg.board").count() == 1  # the picture of the position
    assert chess.STARTING_BOARD_FEN in (await spare.locator(".must-show").inner_text())
    await until(lambda: service.book.get(GAME).board_fen is not None)
    await desk.reload()
    assert (await spare.locator(".differs strong").inner_text()).split() == ["e2", "e4"]
    assert await no_sideways_scroll(desk), "the desk scrolls sideways"

    put(hall, 4, "e4", None)  # the arbiter puts the pawn back
    put(hall, 4, "e2", "P")
    await until(lambda: service.book.get(GAME).in_sync)
    await desk.reload()
    assert await spare.count() == 0
    put(hall, 4, "e2", None)  # and the game goes on on the spare: 1. e4
    put(hall, 4, "e4", "P")
    await until(lambda: service.book.get(GAME).ply == 1)
    assert service.book.get(GAME).moves[0].san == "e4"
    assert service.book.get(GAME).board == service.hall[4].name
