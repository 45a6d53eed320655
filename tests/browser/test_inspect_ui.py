"""The Inspect and About tabs in a real headless Chromium, against the real server."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.browser.conftest import save_screenshot

RESULT_TIMEOUT_MS = 60_000


def set_code(page: Page, code: str) -> None:
    """Replace the editor's text with ``code``, exactly.

    ``insert_text`` inserts the whole text as one input (no key presses), so
    CodeMirror's auto-indent on Enter does not add to the indentation we give.
    """
    editor = page.locator("#inspect-code .cm-content")
    editor.click()
    page.keyboard.press("Control+A")
    page.keyboard.press("Delete")
    page.keyboard.insert_text(code)
    expect(editor).to_have_text(code.replace("\n", ""))  # .cm-content text joins lines
    lines = [line.rstrip("\n") for line in editor.locator(".cm-line").all_inner_texts()]
    assert lines == code.split("\n"), lines


def run_inspect(page: Page, code: str, args: str) -> None:
    set_code(page, code)
    page.locator("#inspect-args textarea").fill(args)
    page.locator("#inspect-run").click()


def test_inspect_shows_result_and_jaxpr(page: Page):
    expect(page.get_by_role("tab", name="Inspect")).to_be_visible()
    run_inspect(page, "def f(x):\n    return jnp.sin(x) * 2", "jnp.linspace(0, 1, 5)")

    expect(page.locator("#inspect-status")).to_contain_text("Traced", timeout=RESULT_TIMEOUT_MS)
    page.get_by_role("tab", name="jaxpr", exact=True).click()  # "Source ↔ IR" is the tab shown first
    expect(page.locator("#inspect-jaxpr")).to_contain_text("sin")
    expect(page.locator("#inspect-jaxpr")).to_contain_text("mul")
    expect(page.locator("#inspect-result textarea")).to_have_value(re.compile(r"f32\[5\]"))
    expect(page.locator("#inspect-status")).not_to_contain_text("Still running", timeout=RESULT_TIMEOUT_MS)
    save_screenshot(page, "inspect.png")


def test_syntax_error_shows_its_line(page: Page):
    run_inspect(page, "def f(x):\n    return (x +", "1.0")

    status = page.locator("#inspect-status")
    expect(status).to_contain_text("Syntax error", timeout=RESULT_TIMEOUT_MS)
    expect(status).to_contain_text("line 2")
    expect(page.locator("#inspect-result textarea")).to_have_value("")


def test_about_tab_lists_sandbox_layers(page: Page):
    page.get_by_role("tab", name="About").click()
    intro = page.locator("#about-intro")  # what the app is for, and where to start
    expect(intro).to_contain_text("What this is for: seeing what JAX does with a small function of yours")
    expect(intro).to_contain_text("Where to start: the Inspect tab")

    summary = page.locator("#about-summary")
    expect(summary).to_contain_text("Sandbox layers", timeout=RESULT_TIMEOUT_MS)
    expect(summary).to_contain_text("landlock")

    save_screenshot(page, "about.png")
