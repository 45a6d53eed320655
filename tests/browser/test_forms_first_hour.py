"""The first hour's frictions in the forms, at a laptop's width (1366 × 800) and a phone's (390 × 844): a setting out
of its range said by the form, the race's plot where a host has no race, and what a screen reader hears after a
run. (A class link that opens at its exercise: test_class_edits.py; the same in German and Chinese:
test_languages.py.)"""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import blank_tab, reopen_app, save_screenshot
from tests.browser.test_class_edits import SCREENS
from tests.browser.test_inspect_ui import RESULT_TIMEOUT_MS, run_inspect
from tests.browser.test_transformation_tabs import open_tab


@pytest.fixture(scope="module", params=list(SCREENS))
def screen(request, chromium_browser):
    page = blank_tab(chromium_browser, **SCREENS[request.param])
    yield page
    page.context.close()


@pytest.fixture
def app(screen: Page, server) -> Page:
    return reopen_app(screen, server.url)


def test_epochs_past_the_limit_are_said_by_the_form_with_the_fields_name(app: Page):
    open_tab(app, "Train")
    epochs = app.locator("#train-epochs input")
    epochs.fill("600")
    epochs.press("Tab")
    said = "“Epochs” must be a whole number from 1 to 500, got 600."
    expect(app.locator("#train-estimate")).to_contain_text(said)  # at once, before Start
    app.locator("#train-start").click()
    expect(app.locator("#train-status")).to_contain_text(said)
    # and no Gradio toast ("Value 600 is greater than maximum value 500.", naming no field)
    expect(app.locator("[data-testid='toast-body']")).to_have_count(0)
    expect(app.locator("#train-start")).to_be_enabled()
    save_screenshot(app, f"train_epochs_600_{app.viewport_size['width']}.png", full_page=False)
    epochs.fill("5")
    epochs.press("Tab")
    expect(app.locator("#train-estimate")).not_to_contain_text("must be")


def test_a_host_without_a_race_says_so_on_the_races_plot(app: Page):
    open_tab(app, "Train")
    app.locator("#race button.label-wrap").click()
    expect(app.locator("#race-run")).to_be_disabled()
    expect(app.locator("#race-plot")).to_contain_text("No race on this host")
    expect(app.locator("#race-plot")).not_to_contain_text("Press Race")


def test_a_screen_reader_hears_words_not_a_key_after_a_run(app: Page):
    run_inspect(app, "def f(x):\n    return x * 2", "jnp.arange(3.0)")
    expect(app.locator("#inspect-status")).to_contain_text("Traced", timeout=RESULT_TIMEOUT_MS)
    # Gradio's status tracker announces a finished event in a live region; its English lacks the word it asks for
    app.wait_for_function("() => [...document.querySelectorAll('.sr-only[role=status]')]"
                          ".some(region => region.textContent.trim() === 'Complete')")
    assert "common.complete" not in app.evaluate("() => document.body.textContent")
