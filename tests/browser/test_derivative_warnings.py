"""The Derivatives tab in the reader's language, on a laptop and on a phone: a range the wrong way round is named
by the form's own labels, and a jump between grid points (f′ a flat 1, which autodiff gives and the checks at the
grid points confirm) is said in the status and under the checks, with where it is."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, expect

from playground.server.ui.translations import text
from tests.browser.conftest import open_app, save_screenshot, wait_until_finished
from tests.browser.test_inspect_ui import RESULT_TIMEOUT_MS
from tests.browser.test_train_tab import set_number
from tests.browser.test_transformation_tabs import set_code

STEP = "def f(x):\n    return jnp.where(x < 0, 0., 1.) + x\n"
LAPTOP, PHONE = {"width": 1366, "height": 800}, {"width": 390, "height": 844}

# (browser locale, catalogue language, viewport, the range's error, the status's warning, the checks' warning)
CASES = [
    ("en-US", "en", LAPTOP, "“x from” (201.5) must be below “x to” (3).",
     "f jumps at x = 0: the warnings under the checks say more.", "f jumps at x = 0 (by 1): there it changes"),
    ("en-US", "en", PHONE, "“x from” (201.5) must be below “x to” (3).",
     "f jumps at x = 0: the warnings under the checks say more.", "f jumps at x = 0 (by 1): there it changes"),
    ("de-DE", "de", LAPTOP, "„x von“ (201,5) muss kleiner sein als „x bis“ (3).",
     "f springt bei x = 0: Die Warnungen unter den Prüfungen sagen mehr.", "f springt bei x = 0 (um 1): Dort"),
    ("zh-CN", "zh", PHONE, "“x 起点”（201.5）必须小于 “x 终点”（3）。",
     "f 在 x = 0 处跳跃：检查表下方的警告有详细说明。", "f 在 x = 0（跳变 1） 处跳跃"),
]


@pytest.mark.parametrize(("locale", "language", "viewport", "wrong_way", "status_says", "checks_say"), CASES,
                         ids=["en-laptop", "en-phone", "de-laptop", "zh-phone"])
def test_a_wrong_range_and_a_jump_between_grid_points_are_said_in_the_readers_words(
        chromium_browser: Browser, server, locale, language, viewport, wrong_way, status_says, checks_say):
    page = open_app(chromium_browser, server.url, locale=locale, viewport=viewport)
    try:
        page.get_by_role("tab", name=text("pg.tab.derivatives", language), exact=True).click()
        status, checks = page.locator("#deriv-status"), page.locator("#deriv-checks")
        set_number(page, "deriv-xmin", 201.5)
        page.locator("#deriv-run").click()
        expect(status).to_contain_text(wrong_way, timeout=RESULT_TIMEOUT_MS)
        expect(status).not_to_contain_text("x_min")

        set_number(page, "deriv-xmin", -3)
        set_code(page, "deriv-code", STEP)
        page.locator("#deriv-run").click()
        expect(status).to_contain_text(status_says, timeout=RESULT_TIMEOUT_MS)
        wait_until_finished(checks)
        expect(checks).to_contain_text(checks_say)
        status.scroll_into_view_if_needed()
        save_screenshot(page, f"derivatives_jump_{locale}_{viewport['width']}.png")
    finally:
        page.context.close()
