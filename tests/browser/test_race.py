"""The Train tab's race in headless Chromium: desktop and phone, in English, German and Chinese.

The server's device owner has two simulated CPU devices, standing in for the host's CPU and its accelerator
(owner/training/race.py). On a desktop in English a race runs to its end: both curves drawn on one plot, the
comparison said in a sentence; on a phone in German and Chinese the section speaks the reader's language, a race
runs there too, and nothing is wider than the screen.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import blank_tab, reopen_app, save_screenshot
from tests.conftest import stop_server
from tests.mnist_folders import start_training_server

RACE_TIMEOUT_MS = 240_000
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
# tab, section, button, and the comparison's sentence (two simulated devices: either may be the faster one)
WORDS = {"en": ("Train", "Race: this host's CPU", "Race", re.compile(r"trained [\d.]+× (faster|slower) than")),
         "de": ("Training", "Rennen: die CPU", "Rennen", re.compile(r"trainierte [\d,]+× (schneller|langsamer) als")),
         "zh": ("训练", "比赛：本机 CPU", "比赛", re.compile(r"的训练速度(是|只有)本机 CPU 的"))}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    srv = start_training_server(tmp_path_factory, 1000, 250, XLA_FLAGS="--xla_force_host_platform_device_count=2")
    yield srv
    stop_server(srv)


def race_once(page: Page, url: str, lang: str) -> None:
    tab, section, button, said = WORDS[lang]
    reopen_app(page, url)
    page.get_by_role("tab", name=tab, exact=True).click()
    page.locator("#train-epochs input").fill("2")
    page.locator("#train-layers textarea").fill("784, 32, 10")
    page.locator("#race").get_by_text(section).click()  # the accordion opens
    expect(page.locator("#race-intro")).to_contain_text("CPU · cpu 1")
    page.locator("#race-run").click()
    expect(page.locator("#race-said")).to_contain_text(said, timeout=RACE_TIMEOUT_MS)
    expect(page.locator("#race-plot .legend .traces")).to_have_count(2)
    expect(page.locator("#race-run")).to_be_enabled()


@pytest.mark.parametrize("lang, options", [("en", {}), ("de", PHONE), ("zh", PHONE)])
def test_a_race_runs_to_its_comparison(chromium_browser, server, lang, options):
    page = blank_tab(chromium_browser, locale={"en": "en-US", "de": "de-DE", "zh": "zh-CN"}[lang], **options)
    try:
        race_once(page, server.url, lang)
        assert re.search(r"\d", page.locator("#race-said").inner_text())
        if options:
            assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["viewport"]["width"]
        else:  # the documentation's picture (docs/tabs/train.md)
            page.locator("#race").scroll_into_view_if_needed()
            save_screenshot(page, "race.png", full_page=False)
    finally:
        page.context.close()
