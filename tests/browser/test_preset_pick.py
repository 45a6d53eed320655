"""A preset picked while a run is going: the run's results go and do not come back (preset_pick).

The race needs many picks to show, and the real tabs' runs take seconds each, so this drives the same
wiring (run_stopped_by_preset) on a small Blocks of its own whose run yields a table every 40 ms from a
thread, as a sandbox job's updates come. Without the second clearing, a bare ``cancels=`` left the old
table in 7 of 24 picks here; this asks for none in 16. The real tabs are checked once each in
test_first_hour.
"""

from __future__ import annotations

import time

import gradio as gr
import pytest
from playwright.sync_api import expect

from playground.ui.preset_pick import run_stopped_by_preset
from tests.browser.conftest import VIEWPORT
from tests.conftest import free_port

PICKS = 16
CLEARED = "Preset loaded"
# Gradio's own queue statistics (gradio/queueing.py) use pandas options that pandas 3 deprecates.
pytestmark = pytest.mark.filterwarnings("ignore::Warning:gradio.queueing")


def _run():
    yield "running", ""
    for step in range(500):
        time.sleep(0.04)
        yield f"now measuring {step}", f"| step | value |\n|---|---|\n| {step} | x |"


@pytest.fixture(scope="module")
def app_url():
    with gr.Blocks() as demo:
        preset = gr.Dropdown(["one", "two"], value="one", interactive=True, elem_id="preset")
        run = gr.Button("Run", elem_id="run")
        status = gr.Markdown("idle", elem_id="status")
        table = gr.Markdown(elem_id="table")
        run_stopped_by_preset(run, preset, _run, [], [status, table], lambda: (CLEARED, ""), [status, table])
    port = free_port()
    demo.queue().launch(server_name="127.0.0.1", server_port=port, prevent_thread_lock=True, quiet=True)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        demo.close()


def test_a_pick_during_a_run_clears_its_results_for_good(chromium_browser, app_url):
    context = chromium_browser.new_context(viewport=VIEWPORT)
    try:
        page = context.new_page()
        page.set_default_timeout(30_000)
        page.goto(app_url)
        stale = []
        for pick in range(PICKS):
            page.locator("#run").click()
            expect(page.locator("#table table")).to_be_visible()
            page.wait_for_timeout(100 + 37 * (pick % 7))  # picks at different points between two updates
            page.locator("#preset input[role=combobox]").click()
            page.get_by_role("option", name=("two", "one")[pick % 2], exact=True).click()
            page.wait_for_timeout(1500)  # the old run yielded every 40 ms: whatever of it is left has come
            status, tables = page.locator("#status").inner_text(), page.locator("#table table").count()
            if CLEARED not in status or tables:
                stale.append(f"pick {pick}: status {status!r}, {tables} table(s)")
        assert not stale, f"{len(stale)} of {PICKS} picks left the old run's results:\n" + "\n".join(stale)
    finally:
        context.close()
