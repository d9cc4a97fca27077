"""A team section's pages in a real Chromium at a phone's and a laptop's width, in light and
dark: the round by match, a match with its boards side by side, the team standings and the
team crosstable. Nothing sticks out of its card, no page scrolls sideways, a match's teams
and score never overlap, and the score reads whole, inside the window, in a colour that
stands out from its background. A result committed on the service moves the match's score
on an open round page and match page without a reload (web/static/teams.js); the desk's
hall names each match's teams in the match's order whichever boards the first team has
White on (web/static/hall.js).

The event is the league of tests/data/teams-league.toml with long club names
(tests/support/team_event.py): round 1 played, round 2 under way. Round 2 is match 1,
FOURTH - THIRD (boards 1-4, FOURTH White on the odd ones), and match 2, FIRST - SECOND
(boards 5-8).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from broadcast.config.model import TeamColours
from broadcast.games.game_events import GameClock, GameResultText, ResultConfirmed, ResultReason
from broadcast.service.event_service import EventService
from clocks.timesource import ManualTime
from tests.browser.scene import Site
from tests.browser.test_layout import LAYOUT_PROBLEMS, log_in, open_live, page
from tests.support.team_event import (
    FIRST,
    FOURTH,
    SECOND,
    SLUG,
    THIRD,
    game_id,
    pair_round,
    team_service,
)
from tests.support.web_app import CREDENTIALS, free_port, play_moves
from web.app import start_web

__all__ = ["page"]  # the layout tests' page at each size, one theme

PAGES = {
    "round": "/round/2",
    "match": "/match/2/1",
    "standings": f"/teams?section={SLUG}",
    "crosstable": f"/team-crosstable?section={SLUG}",
}
# The layout tests' cards, and a match's head and boards.
CARDS = ".mini, .scroll, table, .mhead, .mboard, section.team"

ROUND_1: dict[int, GameResultText] = {  # match 1 FIRST 2½-1½ FOURTH, match 2 SECOND 2-2 THIRD
    1: "1/2-1/2",
    2: "0-1",
    3: "1-0",
    4: "1-0",
    **{board: "1/2-1/2" for board in range(5, 9)},
}
ON = (1, 6)  # round 2's games in progress
OPENING = ["e4", "c5", "Nf3", "d6", "d4", "cxd4", "Nxd4", "Nf6", "Nc3", "a6"]


def _result(
    service: EventService, clock: ManualTime, board: int, result: GameResultText, rnd: int
) -> None:
    reason: ResultReason = "agreement" if result == "1/2-1/2" else "resignation"
    service.commit([ResultConfirmed(game_id(board, rnd), result, reason, clock.now())])


def _build(tmp: Path) -> tuple[EventService, ManualTime]:
    service, clock = team_service(tmp)
    for board, result in ROUND_1.items():
        _result(service, clock, board, result, 1)
    pair_round(service, 2)
    for board in ON:
        play_moves(service, game_id(board, 2), OPENING)
        service.commit([GameClock(game_id(board, 2), 4980, 5105, "white", clock.now())])
    # Match 1: THIRD wins board 2 (White there), board 3 drawn: ½-1½; board 4 not begun.
    _result(service, clock, 2, "1-0", 2)
    _result(service, clock, 3, "1/2-1/2", 2)
    _result(service, clock, 5, "0-1", 2)  # match 2: SECOND wins board 1 (Black)
    return service, clock


@pytest.fixture
def built_league(tmp_path: Path) -> tuple[EventService, ManualTime]:
    """Built outside the event loop, as the layout scene is (tests/browser/conftest.py)."""
    return _build(tmp_path)


async def _serve(service: EventService, clock: ManualTime) -> AsyncIterator[Site]:
    port = free_port()
    runner = await start_web(service, host="127.0.0.1", port=port, credentials=CREDENTIALS)
    try:
        yield Site(service, clock, f"http://127.0.0.1:{port}")
    finally:
        await runner.cleanup()


@pytest.fixture
async def league(built_league: tuple[EventService, ManualTime]) -> AsyncIterator[Site]:
    async for site in _serve(*built_league):
        yield site


# Per match head: its teams and score overlapping one another, and the score cut, outside
# the window, or too faint on its background (WCAG contrast under 4.5:1).
MATCH_PROBLEMS = """() => {
  const out = [];
  const rgb = (s) => (s.match(/[\\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const background = (el) => {
    for (; el; el = el.parentElement) {
      const c = rgb(getComputedStyle(el).backgroundColor);
      if (c.length === 3 || (c.length === 4 && c[3] > 0.5)) return c;
    }
    return [255, 255, 255];
  };
  const heads = document.querySelectorAll(".mhead");
  if (!heads.length) out.push("no match on the page");
  for (const head of heads) {
    const parts = [head.querySelector(".mteam.first"), head.querySelector("[data-score]"), head.querySelector(".mteam.second")];
    if (parts.some((p) => !p)) { out.push("a match head lacks its teams or score"); continue; }
    const boxes = parts.map((p) => p.getBoundingClientRect());
    for (let i = 0; i < 2; i++) {
      if (boxes[i].right > boxes[i + 1].left + 0.5) out.push("match " + head.closest(".match").dataset.match + ": part " + i + " overlaps part " + (i + 1));
    }
    const score = parts[1], r = boxes[1];
    if (r.width < 1 || r.height < 1 || !score.checkVisibility()) out.push("the score is hidden");
    if (score.scrollWidth > score.clientWidth + 1) out.push("the score " + JSON.stringify(score.textContent) + " is cut");
    if (r.left < 0 || r.right > innerWidth) out.push("the score is outside the window");
    const size = parseFloat(getComputedStyle(score).fontSize);
    if (size < 14) out.push("the score is " + size + "px");
    const [a, b] = [lum(rgb(getComputedStyle(score).color)), lum(background(score))];
    const contrast = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    if (contrast < 4.5) out.push("the score's contrast is " + contrast.toFixed(2));
    for (const name of head.querySelectorAll(".tname")) {
      if (name.getBoundingClientRect().width < 40) out.push("a team name is squeezed to nothing");
    }
  }
  return out;
}"""


async def _layout(page: Any, cards: str = CARDS) -> list[str]:
    found: list[str] = await page.evaluate(LAYOUT_PROBLEMS, cards)
    return found


async def test_the_team_pages_fit_and_the_score_reads(league: Site, themed_page: Any) -> None:
    page = themed_page
    for name, path in PAGES.items():
        await open_live(page, league.url + path)
        theme = await page.evaluate("() => document.documentElement.dataset.theme || 'light'")
        assert theme == page.theme, name
        assert await _layout(page) == [], name
        if name in ("round", "match"):
            assert await page.evaluate(MATCH_PROBLEMS) == [], name
    # What each page says, read on the last theme and size.
    await open_live(page, league.url + PAGES["round"])
    scores = await page.locator(".match [data-score]").all_inner_texts()
    assert scores == ["½–1½", "0–1"]
    heads = page.locator(".mhead")
    assert await heads.nth(0).locator(".tname").all_text_contents() == [FOURTH, THIRD]
    assert await heads.nth(1).locator(".tname").all_text_contents() == [FIRST, SECOND]
    await open_live(page, league.url + PAGES["match"])
    assert await page.locator(".mboard").count() == 4
    assert await page.locator(".mini[data-game]").count() == 4
    await open_live(page, league.url + PAGES["standings"])
    rows = page.locator("#team-standings tbody tr")
    assert await rows.count() == 4
    assert FIRST in await rows.nth(0).inner_text()
    await open_live(page, league.url + PAGES["crosstable"])
    table = await page.locator("#team-crosstable tbody").inner_text()
    assert "2½" in table and "1½" in table


async def test_a_result_moves_the_match_score_without_a_reload(league: Site, page: Any) -> None:
    round_page = page
    match_page = await round_page.context.new_page()
    await open_live(round_page, league.url + PAGES["round"])
    await open_live(match_page, league.url + PAGES["match"])
    for each in (round_page, match_page):
        await each.evaluate("window.__samePage = true")
    score = '.match[data-match="1"] [data-score]'
    assert await round_page.locator(score).inner_text() == "½–1½"
    # Board 4: FOURTH has Black; 0-1 is its point.
    _result(league.service, league.clock, 4, "0-1", 2)
    for each in (round_page, match_page):
        await each.wait_for_function(
            f"() => document.querySelector('{score}').textContent === '1½–1½'", timeout=15000
        )
        assert "final" not in (await each.locator(score).get_attribute("class") or "")
    # Board 1, the last: FOURTH wins with White, the match is over, 2½-1½.
    _result(league.service, league.clock, 1, "1-0", 2)
    for each in (round_page, match_page):
        await each.wait_for_function(
            f"() => document.querySelector('{score}').textContent === '2½–1½'", timeout=15000
        )
        assert "final" in (await each.locator(score).get_attribute("class") or "")
        assert await each.evaluate("window.__samePage === true")
    # The other match did not move.
    assert await round_page.locator('.match[data-match="2"] [data-score]').inner_text() == "0–1"


@pytest.mark.parametrize("colours", ["odd", "even"])
async def test_the_hall_names_the_teams_in_the_matchs_order(
    tmp_path: Path, browser: Any, colours: TeamColours
) -> None:
    service, clock = team_service(tmp_path, colours=colours)
    context = await browser.new_context(viewport={"width": 1366, "height": 768})
    page = await context.new_page()
    try:
        async for site in _serve(service, clock):
            await log_in(page, site)
            await page.goto(f"{site.url}/arbiter/hall")
            await page.wait_for_selector("#live-status[data-state=live]", timeout=15000)
            await page.wait_for_selector(".hmatch")
            heads = await page.locator(".hmatch").all_inner_texts()
            assert heads == [f"{FIRST} – {FOURTH}", f"{SECOND} – {THIRD}"]
            assert await _layout(page, ".htable, .hall-bar") == []
    finally:
        await context.close()
