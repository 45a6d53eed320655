"""Ctrl+Enter in headless Chromium: it runs the current tab, the part the focus is in, and adds no new line."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.browser.test_inspect_ui import RESULT_TIMEOUT_MS
from tests.browser.test_transformation_tabs import editor, open_tab


def test_ctrl_enter_in_the_editor_runs_inspect_and_leaves_the_code_alone(page: Page):
    code = editor(page, "inspect-code")
    before = code.inner_text()
    code.click()
    page.keyboard.press("End")
    page.keyboard.press("Control+Enter")
    expect(page.locator("#inspect-result textarea")).to_have_value(re.compile(r"f32\[4\]"), timeout=RESULT_TIMEOUT_MS)
    assert code.inner_text() == before  # the key ran the tab; the editor did not take it as a new line


def test_ctrl_enter_runs_the_part_of_the_tab_that_has_the_focus(page: Page):
    open_tab(page, "Derivatives")
    page.locator("#grad-point textarea, #grad-point input").first.click()
    page.keyboard.press("Control+Enter")
    expect(page.locator("#grad-status")).to_contain_text("OK", timeout=RESULT_TIMEOUT_MS)
    expect(page.locator("#deriv-status")).to_contain_text("Nothing has run yet")  # the upper part did not run

    editor(page, "deriv-code").click()
    page.keyboard.press("Meta+Enter")  # ⌘+Enter, as on a Mac
    expect(page.locator("#deriv-checks")).to_contain_text("f′", timeout=RESULT_TIMEOUT_MS)
