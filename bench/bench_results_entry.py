"""How long an arbiter takes to enter 150 results on the results table (/arbiter/results).

The flow of tests/browser/test_results_table.py (`enter_results`, on every table), in Debian's Chromium
through Playwright: the Sestao example with 300 generated players, round 1 paired (150
tables) and live; the arbiter logs in, opens the results table and, for each table, types
its number, Enter and the result's key (desktop, 1366 px) or taps the table and the
result (phone, 390 px), waiting each time until the page says it is done. Every result
goes through the arbiter API and the door (its own durable journal transaction), and the
table list follows on the desk's websocket. This is the machine's share of the time: a
person adds their own reading and typing.

Prints, per way of entering, the median and the spread (min-max) of N runs, each on a
fresh event: `python bench/bench_results_entry.py` (`--runs N`, default 3; `--way keys`
or `taps` for one of them). Needs /usr/bin/chromium (or BOARDWIRE_CHROMIUM).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]  # tests.browser, tests.support

from tests.browser.test_results_table import big_site, enter_results  # noqa: E402

CHROMIUM = os.environ.get("BOARDWIRE_CHROMIUM", "/usr/bin/chromium")
SIZES = {"keys": (1366, 768), "taps": (390, 844)}


async def one_run(browser: object, way: str) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        site, runner = await big_site(Path(tmp))
        try:
            width, height = SIZES[way]
            context = await browser.new_context(viewport={"width": width, "height": height})  # type: ignore[attr-defined]
            try:
                _, seconds = await enter_results(await context.new_page(), site)
                return seconds
            finally:
                await context.close()
        finally:
            await runner.cleanup()


async def main(runs: int, ways: list[str]) -> None:
    from playwright.async_api import async_playwright

    async with async_playwright() as p:
        browser = await p.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=["--headless", "--no-sandbox"]
        )
        try:
            for way in ways:
                times = [await one_run(browser, way) for _ in range(runs)]
                med = statistics.median(times)
                print(
                    f"150 results by {way} ({SIZES[way][0]} px): median {med:.1f} s "
                    f"({med / 150 * 1000:.0f} ms a result), min {min(times):.1f} s, "
                    f"max {max(times):.1f} s, {runs} runs"
                )
        finally:
            await browser.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--way", choices=sorted(SIZES), action="append")
    args = parser.parse_args()
    asyncio.run(main(args.runs, args.way or ["keys", "taps"]))
