"""What the server writes, in the browser's language: a Chromium asking for de-DE (it sends Accept-Language
de-DE) reads a tracer error's explanation and fix, and the Train tab's status, in German; JAX's own message
stays as JAX wrote it. (tests/browser/test_languages.py checks the static labels.)
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect

from playground.messages import say
from playground.server.ui.translations import text
from tests.browser.conftest import open_app, save_screenshot
from tests.browser.test_inspect_ui import RESULT_TIMEOUT_MS, run_inspect
from tests.browser.test_train_tab import TRAIN_TIMEOUT_MS, set_number

IF = "def f(x):\n    if x > 0:\n        return x\n    return -x\n"
MAIN_TABS = ("inspect", "compiler", "derivatives", "vmap", "jit", "speed", "parallel", "train", "about")


@pytest.fixture
def server(classroom_server):
    """A classroom's folder (the Train status below names its split)."""
    return classroom_server


@pytest.fixture
def german(chromium_browser: Browser, server):
    page = open_app(chromium_browser, server.url, locale="de-DE")
    yield page
    page.context.close()


def test_a_tracer_error_and_the_train_status_in_german(german: Page):
    run_inspect(german, IF, "1.0")
    status = german.locator("#inspect-status")
    expect(status).to_contain_text("Python brauchte True oder False von einem getracten Wert in Zeile 2",
                                   timeout=RESULT_TIMEOUT_MS)
    expect(status).to_contain_text("Unter jax.jit führt JAX deine Funktion nicht mit deinen Zahlen aus")
    expect(status).to_contain_text("So behebst du es:")
    expect(status.locator(".pg-verdict-error")).to_have_text("Fehler")  # a word on a colour, no emoji font needed
    expect(status).to_contain_text("Attempted boolean conversion of traced array")  # JAX's words, as JAX wrote them
    save_screenshot(german, "inspect_error_de.png")

    tab = german.get_by_role("tab", name=text("pg.tab.train", "de"), exact=True)
    tab.click()
    expect(tab).to_have_attribute("aria-selected", "true")
    # The plots' own words too: the empty ones say what to do, the full ones what they show.
    expect(german.locator("#train-accuracy")).to_contain_text("Drücke Start, um zu trainieren")
    german.locator("#train-layers textarea").fill("784, 16, 10")
    set_number(german, "train-epochs", 1)
    german.locator("#train-start").click()
    train_status = german.locator("#train-status")
    expect(train_status).to_contain_text("Fertig.", timeout=TRAIN_TIMEOUT_MS)
    expect(train_status).to_contain_text("Epoche 1,00 von 1")
    expect(train_status).to_contain_text("Testgenauigkeit")
    expect(train_status).to_contain_text("Von MNIST ist hier nur der Testdatensatz: Dieser Lauf trainiert mit 2.000 "
                                         "seiner 2.500 Bilder und testet mit den übrigen 500")  # German numbers
    expect(train_status).to_contain_text("95 % Testgenauigkeit")  # what a class can reach on the test set's part
    expect(train_status.locator(".pg-verdict-ok")).to_have_text("OK")
    expect(german.locator("#train-loss .gtitle")).to_have_text("Trainings-Loss (Kreuzentropie)")
    expect(german.locator("#train-loss .xtitle")).to_have_text("Schritt")
    expect(german.locator("#train-confusion .gtitle")).to_contain_text("Konfusionsmatrix (Testdaten)")
    expect(german.locator("#train-grid .gtitle")).to_contain_text(re.compile("Testziffern"))
    german.locator("#train-loss").scroll_into_view_if_needed()
    save_screenshot(german, "train_de.png")
    expect(german.locator("#train-device")).to_contain_text("Training auf")


def test_a_tracer_error_in_chinese(chromium_browser: Browser, server):
    page = open_app(chromium_browser, server.url, locale="zh-CN")
    try:
        run_inspect(page, IF, "1.0")
        status = page.locator("#inspect-status")
        expect(status).to_contain_text(say("tracer.TracerBoolConversionError.title", "zh"), timeout=RESULT_TIMEOUT_MS)
        expect(status).to_contain_text(say("error.how_to_fix", "zh"))
        expect(status.locator(".pg-verdict-error")).to_have_text(say("verdict.error", "zh"))
        expect(status).to_contain_text("Attempted boolean conversion of traced array")  # JAX's words, as it wrote them
        save_screenshot(page, "inspect_error_zh.png")
    finally:
        page.context.close()


def test_a_language_picked_in_settings_is_the_servers_too(chromium_browser: Browser, server):
    """An English browser switched to Deutsch in the footer's Settings: the server writes German from then on."""
    page = open_app(chromium_browser, server.url, locale="en-US")
    try:
        page.get_by_role("button", name="Settings").click()
        page.get_by_label("Language").click()
        page.get_by_role("option", name="Deutsch", exact=True).click()
        expect(page.locator("#inspect-run")).to_have_text(text("pg.inspect.run", "de"))
        dialog = page.get_by_role("dialog")
        dialog.get_by_role("button").first.click()  # the panel's close button (an icon, no name)
        expect(dialog).to_be_hidden()
        # Every tab's title, the tabs not shown yet too (Gradio rewrites only those shown since the switch).
        main = page.locator("#main-tabs [role=tablist]").first.locator("[role=tab]")
        expect(main).to_have_text([text(f"pg.tab.{name}", "de") if name not in ("vmap", "jit") else name
                                   for name in MAIN_TABS])
        views = page.locator("#inspect-source-map").locator("xpath=ancestor::*[@role='tabpanel']/..")
        for key in ("pg.inspect.source_ir", "pg.field.optimised_hlo", "pg.inspect.costs", "pg.inspect.pytrees"):
            expect(views.get_by_role("tab", name=text(key, "de"), exact=True)).to_have_count(1)
        main.nth(2).click()  # shown now, and Gradio writes the same title
        expect(main.nth(2)).to_have_text(text("pg.tab.derivatives", "de"))
        expect(page.locator("#deriv-run")).to_be_visible()
        main.nth(0).click()
        run_inspect(page, IF, "1.0")
        expect(page.locator("#inspect-status")).to_contain_text("So behebst du es:", timeout=RESULT_TIMEOUT_MS)
    finally:
        page.context.close()
