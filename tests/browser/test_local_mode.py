"""The local process mode as a student on a Mac or Windows laptop sees it (run here with PLAYGROUND_SANDBOX=process).

The page says plainly, above everything, that the code runs with process
isolation only; About says it too and lists what bounds a job; the code runs.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import open_app, save_screenshot
from tests.browser.test_inspect_ui import RESULT_TIMEOUT_MS, run_inspect
from tests.conftest import start_server, stop_server

WORDS = "Local mode: your code runs on your machine with process isolation only — do not expose it publicly."


@pytest.fixture(scope="module")
def local_server(tmp_path_factory):
    server = start_server(tmp_path_factory.mktemp("local-mode"), PLAYGROUND_SANDBOX="process", PLAYGROUND_WORKERS="1")
    yield server
    stop_server(server)


def test_the_page_and_about_say_local_mode_and_the_code_runs(chromium_browser, local_server):
    page = open_app(chromium_browser, local_server.url)
    try:
        banner = page.locator("#local-mode")
        expect(banner).to_have_text(WORDS)
        top = page.locator("#inspect-code").bounding_box()["y"]
        assert banner.bounding_box()["y"] < top  # above the editor, seen before anything is run
        assert "locked-down" not in page.locator("body").inner_text()  # the full sandbox's words are not claimed

        run_inspect(page, "def f(x):\n    return jnp.sin(x) * 2", "jnp.linspace(0, 1, 5)")
        expect(page.locator("#inspect-status")).to_contain_text("Traced", timeout=RESULT_TIMEOUT_MS)
        save_screenshot(page, "local_mode.png", full_page=False)

        page.get_by_role("tab", name="About").click()
        summary = page.locator("#about-summary")
        expect(summary).to_contain_text(WORDS.rstrip("."), timeout=RESULT_TIMEOUT_MS)
        expect(summary).to_contain_text("process isolation only: each job is a fresh interpreter")
    finally:
        page.context.close()


def test_the_banner_is_in_german_for_a_german_browser(chromium_browser, local_server):
    page = open_app(chromium_browser, local_server.url, locale="de-DE")
    try:
        expect(page.locator("#local-mode")).to_contain_text("Lokaler Modus: Dein Code läuft auf deinem Rechner")
    finally:
        page.context.close()
