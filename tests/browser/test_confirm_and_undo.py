"""The arbiter's word is safe, in a real browser at phone and desktop width: an action
that removes something shows what it removes and asks first (nothing changes until the
arbiter confirms), and the desk lists each action with an Undo that says what goes and
what comes back, and takes it back. Players are picked by name."""

from __future__ import annotations

from typing import Any

from tests.browser import scene
from tests.browser.scene import Site
from tests.browser.test_layout import LAYOUT_PROBLEMS, log_in, page

__all__ = ["page"]  # the fixture, shared with the layout tests

CARDS = "#confirm, #actions, .deskgame"


async def _fits(page: Any) -> None:
    """Nothing sticks out sideways: the confirmation is read on a phone too."""
    assert await page.evaluate(LAYOUT_PROBLEMS, CARDS) == []


async def test_a_takeback_asks_first_and_the_desk_undoes_it(page: Any, site: Site) -> None:
    game = site.service.book.get(scene.GAME_ON)
    plies = game.ply
    await log_in(page, site)
    card = page.locator(f"#g-{scene.GAME_ON}")
    await card.locator(":scope > summary").click()
    takeback = card.locator("form.takeback")
    await takeback.locator("input[name=plies]").fill("2")
    await takeback.locator("button[type=submit]").click()
    # The confirmation comes first, says what goes, and nothing has changed yet.
    box = page.locator("#confirm")
    await box.wait_for()
    removes = await box.locator("ul.removes li").all_inner_texts()
    assert len(removes) == 1 and removes[0].startswith(f"plies {plies - 1}-{plies} (")
    assert site.service.book.get(scene.GAME_ON).ply == plies
    await _fits(page)
    await box.locator("button.danger").click()
    await page.locator(".flash").wait_for()
    assert "2 plies taken back (39 left)" in await page.locator(".flash").inner_text()
    assert site.service.book.get(scene.GAME_ON).ply == plies - 2
    # The recent actions list it first, with an Undo that asks too.
    first = page.locator("#recent-actions li").first
    assert "2 plies taken back" in await first.inner_text()
    await first.locator("form.undo button").click()
    await box.wait_for()
    assert (await box.locator(".summary").inner_text()).startswith("undo action ")
    back = await box.locator("ul.notes li").all_inner_texts()
    assert any(b.startswith("back: ") and f"{plies} plies" in b for b in back)
    await _fits(page)
    await box.locator("button.danger").click()
    await page.locator(".flash").wait_for()
    assert site.service.book.get(scene.GAME_ON).ply == plies
    undone = page.locator("#recent-actions li.undone")
    assert await undone.count() == 1
    assert "undone (action" in await undone.first.inner_text()


async def test_a_withdrawal_by_name_names_the_player_and_cancel_changes_nothing(
    page: Any, site: Site
) -> None:
    await log_in(page, site)
    form = page.locator("form[action='/arbiter/regs/withdraw']")
    player = form.locator("input[name=player]")
    # The picker offers the section's players by name and number.
    options = await page.locator("datalist#players-masters option").count()
    assert options == len(site.service.tournament.section("Masters").players)
    await player.fill("Duda")
    await form.locator("button[type=submit]").click()
    box = page.locator("#confirm")
    await box.wait_for()
    summary = await box.locator(".summary").inner_text()
    assert summary.startswith("Duda, Jan-Krzysztof (")
    assert "participation" in await box.locator("ul.removes").inner_text()
    await _fits(page)
    await box.locator("a.button").click()  # Cancel
    await page.wait_for_selector("#live-status[data-state=live]")
    assert await page.locator("#confirm").count() == 0
    assert not site.service.tournament.section("Masters").withdrawn
    assert len(site.service.action_log) == 0


async def test_an_error_looks_like_an_error(page: Any, site: Site) -> None:
    await log_in(page, site)
    form = page.locator("form[action='/arbiter/regs/withdraw']")
    await form.locator("input[name=player]").fill("Nobody Atall")
    await form.locator("button[type=submit]").click()
    flash = page.locator(".flash.error")
    await flash.wait_for()
    assert (await flash.inner_text()).startswith("Not done: no player of Masters")
    assert await flash.get_attribute("role") == "alert"
