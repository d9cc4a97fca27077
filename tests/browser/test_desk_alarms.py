"""The desk remembers and reaches the arbiter, in a real browser at phone and desktop width:
the sound and alarm choices survive an action and a reload; an action is done in place
(no reload: the scroll position and the open game stay); a critical alert rings again and
again until it is acknowledged (counted through the desk's `window.BWDesk` hook); a
refusal is an alert box unlike the success message, in light and dark; the Spanish desk
shows the rules' alert texts and the refusals in Spanish."""

from __future__ import annotations

from typing import Any

from tests.browser import scene
from tests.browser.scene import Site
from tests.browser.test_layout import log_in, page

__all__ = ["page"]  # the fixture, shared with the layout tests

TONES = "() => window.BWDesk.tones"


async def test_the_sound_choice_and_the_open_game_survive_an_action(page: Any, site: Site) -> None:
    await log_in(page, site)
    toggle = page.locator("#sound-toggle")
    assert await toggle.get_attribute("aria-pressed") == "false"
    await toggle.click()
    assert await toggle.get_attribute("aria-pressed") == "true"
    card = page.locator(f"#g-{scene.GAME_ON}")
    await card.locator(":scope > summary").click()
    form = card.locator("form[action='/arbiter/act/present']")
    await form.scroll_into_view_if_needed()
    await page.evaluate("() => { window.notReloaded = true; }")
    y = await page.evaluate("() => window.scrollY")
    await form.locator("button[type=submit]").click()
    await page.locator("main > .flash").wait_for()
    # Done in place: same page (the marker is there), same place, the game still open.
    assert await page.evaluate("() => window.notReloaded === true")
    assert abs(await page.evaluate("() => window.scrollY") - y) < 80
    assert await card.evaluate("(d) => d.open")
    assert await toggle.get_attribute("aria-pressed") == "true"
    # And a reload remembers it too.
    await page.reload()
    await page.wait_for_selector("#live-status[data-state=live]")
    assert await page.locator("#sound-toggle").get_attribute("aria-pressed") == "true"
    label = await page.locator("#sound-toggle .label").inner_text()
    assert label == "sound on"


async def test_a_critical_alert_rings_until_it_is_acknowledged(page: Any, site: Site) -> None:
    await log_in(page, site)
    alert = page.locator("#alerts li[data-alert='scene-fen']")  # the scene's critical alert
    assert "critical" in (await alert.get_attribute("class") or "")
    await page.evaluate("() => { window.BWDesk.repeatMs = 100; }")
    assert await page.evaluate(TONES) == 0
    await page.locator("#alarm-toggle").click()  # the arbiter's tap: alarm on
    await page.wait_for_function("() => window.BWDesk.tones >= 4")
    assert await page.evaluate("() => window.BWDesk.ringing")
    assert await page.locator("#alarm-silence").is_visible()
    await alert.locator("form[action='/arbiter/act/ack'] button").click()
    await page.wait_for_function("() => !window.BWDesk.ringing")
    rung = await page.evaluate(TONES)
    await page.wait_for_timeout(500)  # five turns of the alarm: none comes
    assert await page.evaluate(TONES) == rung
    assert await page.locator("#alarm-silence").is_hidden()
    # The alarm stays chosen after a reload.
    await page.reload()
    await page.wait_for_selector("#live-status[data-state=live]")
    assert await page.locator("#alarm-toggle").get_attribute("aria-pressed") == "true"


async def test_a_refusal_is_an_alert_unlike_a_success(themed_page: Any, site: Site) -> None:
    page = themed_page
    await log_in(page, site)
    form = page.locator("form[action='/arbiter/regs/withdraw']")
    await form.locator("input[name=player]").fill("Nobody Atall")
    await form.locator("button[type=submit]").click()
    refusal = page.locator("main > .flash.error")
    await refusal.wait_for()
    assert await refusal.get_attribute("role") == "alert"
    assert (await refusal.inner_text()).lstrip("⚠\ufe0e ").startswith("Not done: ")
    refused = await refusal.evaluate(
        "(el) => [getComputedStyle(el).backgroundColor, getComputedStyle(el).borderTopColor]"
    )
    alert = page.locator("#alerts li[data-alert='scene-fen']")
    await alert.locator("form[action='/arbiter/act/ack'] button").click()
    done = page.locator("main > .flash:not(.error)")
    await done.wait_for()
    assert await done.get_attribute("role") == "status"
    assert await page.locator("main > .flash.error").count() == 0
    success = await done.evaluate(
        "(el) => [getComputedStyle(el).backgroundColor, getComputedStyle(el).borderTopColor]"
    )
    assert refused[0] != success[0]  # another colour, in light and in dark
    assert refused[1] != success[1]


async def test_the_spanish_desk_says_alert_texts_and_refusals_in_spanish(
    page: Any, site: Site
) -> None:
    await log_in(page, site)
    await page.goto(f"{site.url}/arbiter?lang=es")
    await page.wait_for_selector("#live-status[data-state=live]")
    proposal = page.locator("#alerts li[data-kind='result-proposed'] .message").first
    assert (await proposal.inner_text()).startswith("resultado propuesto 1-0 por ")
    form = page.locator("form[action='/arbiter/regs/withdraw']")
    await form.locator("input[name=player]").fill("Nadie")
    await form.locator("button[type=submit]").click()
    refusal = page.locator("main > .flash.error")
    await refusal.wait_for()
    assert "No hecho: ningún jugador de Masters se llama 'Nadie'" in await refusal.inner_text()
    # The live list (rebuilt from the socket) keeps the Spanish body.
    await page.evaluate("() => window.BW && window.BW.hooks")
    assert (await proposal.inner_text()).startswith("resultado propuesto")


async def test_desk_buttons_are_big_enough_for_a_thumb(page: Any, site: Site) -> None:
    await log_in(page, site)
    heights = await page.evaluate(
        """() => Array.from(document.querySelectorAll('#alerts button, header button'))
             .filter((b) => b.offsetParent !== null)
             .map((b) => b.getBoundingClientRect().height)"""
    )
    assert heights and min(heights) >= 44
    # Reject stands apart from Confirm.
    li = page.locator("#alerts li.proposal").first
    gap = await li.evaluate(
        """(li) => {
          const c = li.querySelector('form.confirm button').getBoundingClientRect();
          const r = li.querySelector('form.reject button').getBoundingClientRect();
          return Math.max(r.left - c.right, r.top - c.bottom);
        }"""
    )
    assert gap >= 16
