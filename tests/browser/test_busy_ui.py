"""When every worker is busy, a page says where its job stands in line; when the line is full, it says busy."""

from __future__ import annotations

import subprocess
import sys
import uuid

from playwright.sync_api import expect

from tests.browser.conftest import VIEWPORT, save_screenshot
from tests.browser.test_inspect_ui import set_code
from tests.conftest import ROOT, start_server, stop_server
from tests.held_jobs import held_job, release

# The ceiling of the first job's hold of the only worker while the pages join the line behind it (a few seconds):
# the test releases it once the line is full (held_jobs.py), so the line stays as the test built it however loaded
# the machine, and nobody waits the hold out. The server's wall clock is well past it.
HOLD_S = 120
WAIT_S = 60  # the ceiling of a wait for what takes a few seconds at most: far beyond it on a loaded machine
HOLDER = f"busy-ui-{uuid.uuid4().hex}"
# The held job takes the only worker, a second waits in the line; the script says "queued" once the second has
# heard its place, then waits for both.
FILL_THE_WORKER = f"""
import sys, time
from gradio_client import Client
client = Client(sys.argv[1], verbose=False, ssl_verify=False)  # plain HTTP on loopback: see conftest's client
client.predict("def f(x):\\n    return x\\n", "1.0", api_name="/inspect")  # one job measured: estimates
slow = "import time\\ndef f(x):\\n    time.sleep({{}})\\n    return x  # {{}}\\n"
running = client.submit({held_job(HOLDER, HOLD_S)!r}, "1.0", api_name="/inspect")
while client.predict(api_name="/about")["queue"]["lines"]["sandbox"]["running"] < 1:
    time.sleep(0.1)  # until it has the worker
waiting = client.submit(slow.format(1, 2), "1.0", api_name="/inspect")
for update in waiting:
    if update.get("phase") == "queued":
        print("queued", flush=True)
        break
running.result(timeout={HOLD_S + WAIT_S})
waiting.result(timeout={HOLD_S + WAIT_S})
"""


def test_a_waiting_job_shows_its_place_and_a_full_line_says_busy(chromium_browser, tmp_path):
    server = start_server(tmp_path, PLAYGROUND_WORKERS="1", PLAYGROUND_QUEUE_SIZE="2",
                          PLAYGROUND_TIMEOUT_S=str(HOLD_S + WAIT_S))
    context = chromium_browser.new_context(viewport=VIEWPORT)
    filler = None
    try:
        pages = [context.new_page() for _ in range(2)]
        for page in pages:
            page.set_default_timeout(WAIT_S * 1000)
            page.goto(server.url)
            page.locator("#inspect-code .cm-content").wait_for()
        filler = subprocess.Popen([sys.executable, "-c", FILL_THE_WORKER, server.url], cwd=ROOT,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        first_line = filler.stdout.readline().strip()
        assert first_line == "queued", first_line + filler.stdout.read()

        waiting, refused = pages
        set_code(waiting, "def f(x):\n    return x * 3  # waits\n")
        waiting.locator("#inspect-run").click()
        status = waiting.locator("#inspect-status")
        expect(status).to_contain_text("Waiting for a sandbox worker: number 2 in line, about", timeout=WAIT_S * 1000)
        save_screenshot(waiting, "inspect_waiting.png", full_page=False)

        set_code(refused, "def f(x):\n    return x * 4  # refused\n")
        refused.locator("#inspect-run").click()  # the line's two places are taken
        expect(refused.locator("#inspect-status")).to_contain_text("The server is busy: 2 jobs are waiting for 1 "
                                                                   "worker", timeout=WAIT_S * 1000)
        expect(refused.locator("#inspect-status")).to_contain_text("Please try again in")
        release(server, HOLDER)

        # the waiting job ran after all
        expect(status).to_contain_text("Traced", timeout=(HOLD_S + WAIT_S) * 1000)
        assert filler.wait(timeout=WAIT_S) == 0
        refused.locator("#inspect-run").click()  # once the line drains, the same page works again
        expect(refused.locator("#inspect-status")).to_contain_text("Traced", timeout=WAIT_S * 1000)
    finally:
        if filler is not None and filler.poll() is None:
            filler.kill()
        context.close()
        stop_server(server)
