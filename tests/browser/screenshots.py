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

sys.path.insert(0, str(Path(__file__).resolve().parent))

import scene

CHROMIUM = "/usr/bin/chromium"
CREDENTIALS = ("arbiter", "screenshots only")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def shoot(out: Path) -> list[Path]:
    from playwright.async_api import async_playwright

    from web.app import start_web

    out.mkdir(parents=True, exist_ok=True)
    saved: list[Path] = []
    with tempfile.TemporaryDirectory() as tmp:
        service, _ = scene.build(Path(tmp))
        port = _free_port()
        runner = await start_web(service, host="127.0.0.1", port=port, credentials=CREDENTIALS)
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
                        saved.append(out / f"{name}-{size}.png")
                        await page.screenshot(path=str(saved[-1]), full_page=True)
                    await page.goto(url + "/arbiter/login")
                    await page.fill("input[name=user]", CREDENTIALS[0])
                    await page.fill("input[name=password]", CREDENTIALS[1])
                    await page.click("button[type=submit]")
                    await page.wait_for_selector("#live-status[data-state=live]")
                    await page.locator(f"#g-{scene.GAME_FLAG} summary").click()
                    saved.append(out / f"arbiter-desk-{size}.png")
                    await page.screenshot(path=str(saved[-1]), full_page=True)
                    # the live game moved to a spare (board 4, its game finished): the
                    # desk shows the position to set up there
                    if not service.book.get(scene.GAME_ON).awaiting_board:
                        service.replace_board(scene.GAME_ON, 4, "arbiter:screenshots")
                    await page.reload()
                    await page.wait_for_selector("#spares .spare")
                    saved.append(out / f"arbiter-desk-spare-{size}.png")
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
                        saved.append(out / f"{name}-dark-{size}.png")
                        await page.screenshot(path=str(saved[-1]), full_page=True)
                    await context.close()
                await browser.close()
        finally:
            await runner.cleanup()
    return saved


def main(argv: list[str]) -> int:
    out = Path(argv[0]) if argv else Path("/tmp/boardwire-shots")
    for path in asyncio.run(shoot(out)):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
