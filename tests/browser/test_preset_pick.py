"""A preset picked while a run is going: the run's results go and do not come back (preset_pick).

The race needs many picks to show, and the real tabs' runs take seconds each, so this drives the same
wiring (run_stopped_by_preset) on a small Blocks of its own whose run yields a table every 40 ms from a
thread, as a sandbox job's updates come. Without the second clearing, a bare ``cancels=`` leaves the old
table behind in some picks (docs/development.md's measurements); this asks for none in 16. test_first_hour
checks that a pick clears the real vmap tab's results at once.

After each pick the test waits for the page to say the old run is over (a counter its own ``.then`` of the run
moves, which Gradio dispatches only once the run has ended in the browser): no update of that run can be drawn
after it, so whatever the page then settles on is for good.
"""

from __future__ import annotations

import re
import time

import gradio as gr
import pytest
from playwright.sync_api import expect

from playground.server.ui.preset_pick import run_stopped_by_preset
from tests.browser.conftest import VIEWPORT
from tests.conftest import free_port

PICKS = 16
CLEARED = "Preset loaded"
# The ceiling of a wait for what the page shows within a second: far beyond it on a loaded machine.
WAIT_MS = 30_000
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
        ended, ended_text = gr.State(0), gr.Markdown("runs over: 0", elem_id="ended")
        running = run_stopped_by_preset(run, preset, _run, [], [status, table], lambda: (CLEARED, ""),
                                        [status, table])
        running.then(lambda n: (n + 1, f"runs over: {n + 1}"), ended, [ended, ended_text], queue=False)
    port = free_port()
    demo.queue().launch(server_name="127.0.0.1", server_port=port, prevent_thread_lock=True, quiet=True)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        demo.close()


ENDED_AFTER_JS = """(before) => {
  const found = (document.querySelector('#ended')?.innerText || '').match(/runs over: (\\d+)/);
  return found !== null && Number(found[1]) > before; }"""


def _runs_over(page) -> int:
    return int(re.search(r"runs over: (\d+)", page.locator("#ended").inner_text()).group(1))


def test_a_pick_during_a_run_clears_its_results_for_good(chromium_browser, app_url):
    context = chromium_browser.new_context(viewport=VIEWPORT)
    try:
        page = context.new_page()
        page.set_default_timeout(WAIT_MS)
        page.goto(app_url)
        for pick in range(PICKS):
            before = _runs_over(page)
            page.locator("#run").click()
            expect(page.locator("#table table")).to_be_visible()
            page.wait_for_timeout(100 + 37 * (pick % 7))  # picks at different points between two updates
            page.locator("#preset input[role=combobox]").click()
            page.get_by_role("option", name=("two", "one")[pick % 2], exact=True).click()
            # Over once the counter moved on (under load it can move by two at one pick: the count of ends is not
            # what is tested, only that this run has ended).
            page.wait_for_function(ENDED_AFTER_JS, arg=before, timeout=WAIT_MS)
            # Nothing of the old run can come now: what it left, if anything, stays unless the page clears it.
            expect(page.locator("#status"), f"pick {pick}: the old run's status stayed").to_contain_text(
                CLEARED, timeout=WAIT_MS)
            expect(page.locator("#table table"), f"pick {pick}: the old run's table stayed").to_have_count(
                0, timeout=WAIT_MS)
    finally:
        context.close()
