"""The screenshot set: every page at phone (390x844) and desktop (1366x768) width, the
pages of `scene.DARK` again in dark mode (named PAGE-dark-SIZE.png), and those of
`scene.TRANSLATED` in each of `scene.LANGUAGES` (PAGE-LANG-SIZE.png).

    .venv/bin/python tests/browser/screenshots.py [OUT_DIR]   (default /tmp/boardwire-shots)

Builds the round of `scene.py` (long names, a live game, a checkmate, a flag fall
waiting for the arbiter, a draw), serves it and saves one full-page PNG per page and
size, named PAGE-WIDTHxHEIGHT.png. Uses Debian's chromium like the browser tests.
"""

from __future__ import annotations

import asyncio
import socket
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository: tests.browser

from tests.browser import scene

CHROMIUM = "/usr/bin/chromium"
CREDENTIALS = ("arbiter", "screenshots only")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _serial(board: int) -> str:
    return f"{10000 + board:05d}"


def _shows(service: Any, clock: Any, board: int, fen: str) -> None:
    """Hall board `board` (connected as DGT 1000N) shows the position of `fen`."""
    from boards.driver_events import BoardConnected, BoardInfo, PositionSeen
    from boards.position import BoardPosition

    where = service.hall[board].config.port
    if not service.hall[board].connected:
        info = BoardInfo(where, _serial(board), (1, 7), "single", clock_present=True)
        service.on_driver_event(where, BoardConnected(clock.now(), _serial(board), info))
    position = BoardPosition.from_fen(fen)
    service.on_driver_event(where, PositionSeen(clock.now(), _serial(board), position))


def spare_set_up_wrong(service: Any, clock: Any) -> int:
    """The live game moves to a spare (board 4, or back to board 1 the second time) whose
    pieces are wrong on two squares: a rook stands on an empty square. Returns the spare."""
    import chess

    from broadcast.actions import ReplaceBoard, act

    current = next(n for n, b in service.hall.items() if b.game == scene.GAME_ON)
    spare = 4 if current != 4 else 1
    board = chess.Board(service.book.get(scene.GAME_ON).fen)
    rook = next(s for s in chess.SQUARES if board.piece_type_at(s) == chess.ROOK)
    empty = next(s for s in chess.SQUARES if board.piece_at(s) is None)
    board.set_piece_at(empty, board.remove_piece_at(rook))
    _shows(service, clock, spare, board.fen())
    command = ReplaceBoard(scene.GAME_ON, spare, swap=True)
    act(service, command, "arbiter:screenshots", confirm=True)
    return spare


def spare_put_right(service: Any, clock: Any, spare: int) -> None:
    clock.advance(5)
    _shows(service, clock, spare, service.book.get(scene.GAME_ON).fen)


async def _evaluation_drawn(page: object, name: str) -> None:
    """The live game's evaluation drawn (its bar on the game page, its mini-board bar)."""
    selector = {
        "game-live": "#evalbar:not([hidden])",
        "game-flipped": "#evalbar:not([hidden])",
        "home": ".minibar",
        "round": ".minibar",
        "embed-round": ".minibar",
        "embed-game": ".minibar",
    }.get(name)
    if selector is not None:
        await page.wait_for_selector(selector, timeout=15000)  # type: ignore[attr-defined]


async def shoot(out: Path) -> list[Path]:
    from playwright.async_api import async_playwright

    from web.app import start_web

    out.mkdir(parents=True, exist_ok=True)
    saved: list[Path] = []
    with tempfile.TemporaryDirectory() as tmp:
        service, clock = scene.build(Path(tmp))
        port = _free_port()
        # The pages as `serve --eval` shows them: the engine's bar and line on the game
        # page, a small bar on each mini-board whose game is still on.
        evals = scene.evaluator(service)
        runner = await start_web(
            service, host="127.0.0.1", port=port, credentials=CREDENTIALS, evals=evals
        )
        evaluating = service.supervisor.start("the engine evaluation", evals.run)
        live = service.book.get(scene.GAME_ON)
        for _ in range(600):  # the live game's position evaluated before the first shot
            if evals.current(live) is not None:
                break
            await asyncio.sleep(0.05)
        url = f"http://127.0.0.1:{port}"
        try:
            async with async_playwright() as p:
                browser = await p.chromium.launch(
                    executable_path=CHROMIUM, headless=True, args=["--no-sandbox"]
                )
                for size, (w, h) in scene.SIZES.items():
                    context = await browser.new_context(viewport={"width": w, "height": h})
                    page = await context.new_page()
                    for name, path in scene.PAGES.items():
                        await page.goto(url + path)
                        await page.wait_for_load_state("networkidle")
                        await _evaluation_drawn(page, name)
                        saved.append(out / f"{name}-{size}.png")
                        await page.screenshot(path=str(saved[-1]), full_page=True)
                    await page.goto(url + "/arbiter/login")
                    await page.fill("input[name=user]", CREDENTIALS[0])
                    await page.fill("input[name=password]", CREDENTIALS[1])
                    await page.click("button[type=submit]")
                    await page.wait_for_selector("#live-status[data-state=live]")
                    await page.locator(f"#g-{scene.GAME_FLAG} > summary").click()
                    saved.append(out / f"arbiter-desk-{size}.png")
                    await page.screenshot(path=str(saved[-1]), full_page=True)
                    # the live game moved to a spare set up wrong on two squares: the
                    # desk shows the position to set up there, the wrong squares marked
                    spare = spare_set_up_wrong(service, clock)
                    await page.reload()
                    await page.wait_for_selector("#spares .spare .differs strong")
                    saved.append(out / f"arbiter-desk-spare-{size}.png")
                    await page.screenshot(path=str(saved[-1]), full_page=True)
                    # the pieces put right: the entry says so, live (no reload)
                    spare_put_right(service, clock, spare)
                    await page.wait_for_selector("#spares .spare.matched")
                    saved.append(out / f"arbiter-desk-spare-matched-{size}.png")
                    await page.screenshot(path=str(saved[-1]), full_page=True)
                    # the viewer stepped back to move 10
                    await page.goto(url + f"/game/{scene.GAME_ON}")
                    await page.wait_for_selector("#live-status[data-state=live]")
                    await page.locator("#moves li[data-ply='19'] .san").click()
                    saved.append(out / f"game-viewer-move10-{size}.png")
                    await page.screenshot(path=str(saved[-1]), full_page=True)
                    await context.close()
                    # the pages in the spectators' other languages (PAGE-LANG-SIZE.png)
                    for lang in scene.LANGUAGES:
                        context = await browser.new_context(viewport={"width": w, "height": h})
                        page = await context.new_page()
                        for name in scene.TRANSLATED:
                            await page.goto(f"{url}{scene.with_lang(scene.PAGES[name], lang)}")
                            await page.wait_for_load_state("networkidle")
                            saved.append(out / f"{name}-{lang}-{size}.png")
                            await page.screenshot(path=str(saved[-1]), full_page=True)
                        await context.close()
                    context = await browser.new_context(
                        viewport={"width": w, "height": h}, color_scheme="dark"
                    )
                    page = await context.new_page()
                    for name in scene.DARK:
                        await page.goto(url + scene.PAGES[name])
                        await page.wait_for_load_state("networkidle")
                        await _evaluation_drawn(page, name)
                        saved.append(out / f"{name}-dark-{size}.png")
                        await page.screenshot(path=str(saved[-1]), full_page=True)
                    await context.close()
                await browser.close()
        finally:
            await evaluating.stop()
            await runner.cleanup()
    return saved


def main(argv: list[str]) -> int:
    out = Path(argv[0]) if argv else Path("/tmp/boardwire-shots")
    for path in asyncio.run(shoot(out)):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
