"""When every worker is busy and the queue is full, the page says so plainly."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from tests.browser.conftest import VIEWPORT
from tests.conftest import start_server, stop_server

SLOW = "import time\ndef f(x):\n    time.sleep(6)\n    return x\n"


def test_full_queue_shows_busy_try_again(chromium_browser, tmp_path):
    server = start_server(tmp_path, PLAYGROUND_WORKERS="1", PLAYGROUND_QUEUE_SIZE="1")
    context = chromium_browser.new_context(viewport=VIEWPORT)
    try:
        page = context.new_page()
        page.set_default_timeout(60_000)
        page.goto(server.url)
        page.locator("#inspect-code .cm-content").wait_for()

        client = server.client()
        running = client.submit(SLOW, "1.0", api_name="/inspect")  # takes the only worker
        waiting = client.submit(SLOW, "1.0", api_name="/inspect")  # fills the one queue place
        page.wait_for_timeout(1500)

        page.locator("#inspect-run").click()
        # Gradio's own toast when its queue refuses a request (the API client gets "Queue is full").
        toast = page.get_by_text(re.compile(r"currently busy\. Please try again"))
        expect(toast).to_be_visible(timeout=10_000)

        assert running.result(timeout=30)["ok"] is True
        assert waiting.result(timeout=30)["ok"] is True
    finally:
        context.close()
        stop_server(server)
