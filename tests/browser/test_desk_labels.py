"""Every form control on the arbiter desk has a label: a visible one on the game,
tournament and regulation forms (a dense block of bare selects is unreadable), at least an
accessible name in the alert list (where the button beside it says what it does)."""

from __future__ import annotations

from typing import Any

from tests.browser.test_live_pages import Live
from tests.browser.test_result_alerts import DESKTOP, flag_falls, hall, login, proposal

__all__ = ["hall"]  # the fixture, shared with the result-alert tests

UNLABELLED = """(scope) => [...document.querySelectorAll(scope + " :is(input, select, textarea)")]
  .filter((el) => el.type !== "hidden")
  .filter((el) => ![...el.labels].some((l) => l.innerText.trim()
      .replace(el.tagName === "SELECT" ? el.innerText.trim() : "", "").trim()))
  .map((el) => el.closest("form").getAttribute("action") + " " + el.name)"""


async def test_every_desk_form_control_has_a_label(hall: Live, browser: Any) -> None:
    desk = await login(browser, hall.url, DESKTOP)
    await flag_falls(hall)
    await proposal(desk, "masters-r1-b3").wait_for(timeout=20000)
    for summary in await desk.locator("details.deskgame summary").all():
        await summary.click()
    controls = await desk.locator("main :is(input, select, textarea):not([type=hidden])").count()
    assert controls > 40  # the games', tournament and regulation forms are all there
    assert await desk.evaluate(UNLABELLED, "main section:not(:first-of-type)") == []
    named = """() => [...document.querySelectorAll("#alerts :is(input, select, textarea)")]
      .filter((el) => el.type !== "hidden" && !el.labels.length && !el.getAttribute("aria-label"))
      .map((el) => el.name)"""
    assert await desk.evaluate(named) == []
