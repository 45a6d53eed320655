"""When every worker is busy and the queue is full, the page says so plainly."""

from __future__ import annotations

import re
import subprocess
import sys

from playwright.sync_api import expect

from tests.browser.conftest import VIEWPORT
from tests.conftest import ROOT, start_server, stop_server

# gradio_client's job statuses lag on a loaded machine, so the test does not trust them: it waits
# until the pool has taken the first slow job (/about counts jobs), queues a second, and knows the
# queue is full when the server refuses one more request ("Queue is full").
FILL_THE_QUEUE = """
import concurrent.futures, sys, time
from gradio_client import Client
from gradio_client.utils import QueueError
client = Client(sys.argv[1], verbose=False)
slow = "import time\\ndef f(x):\\n    time.sleep(8)\\n    return x\\n"
jobs = [client.submit(slow, "1.0", api_name="/inspect")]
deadline = time.monotonic() + 30

def jobs_taken():  # /about queues too: while the slow job still holds the one place, it is refused
    try:
        return client.predict(api_name="/about")["sandbox"]["pool"]["jobs"]
    except QueueError:
        return 0

while jobs_taken() < 1:  # the worker has taken it
    assert time.monotonic() < deadline, "the first slow job never started"
    time.sleep(0.1)
jobs.append(client.submit(slow, "1.0", api_name="/inspect"))  # the one place in the queue
for _ in range(10):
    probe = client.submit("def f(x):\\n    return x\\n", "1.0", api_name="/inspect")
    try:
        probe.result(timeout=3)
    except QueueError:
        print("full", flush=True)
        break
    except concurrent.futures.TimeoutError:
        pass  # it was queued: the queue is full now, so the next probe is refused
else:
    print("never full", flush=True)
for job in jobs:
    try:
        job.result(timeout=60)
    except QueueError:
        pass
"""


def test_full_queue_shows_busy_try_again(chromium_browser, tmp_path):
    server = start_server(tmp_path, PLAYGROUND_WORKERS="1", PLAYGROUND_QUEUE_SIZE="1")
    context = chromium_browser.new_context(viewport=VIEWPORT)
    filler = None
    try:
        page = context.new_page()
        page.set_default_timeout(60_000)
        page.goto(server.url)
        page.locator("#inspect-code .cm-content").wait_for()

        filler = subprocess.Popen([sys.executable, "-c", FILL_THE_QUEUE, server.url], cwd=ROOT,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        first_line = filler.stdout.readline().strip()
        assert first_line == "full", first_line + filler.stdout.read()

        page.locator("#inspect-run").click()
        # Gradio's own toast when its queue refuses a request (the API client gets "Queue is full").
        toast = page.get_by_text(re.compile(r"currently busy\. Please try again")).first
        expect(toast).to_be_visible(timeout=10_000)

        assert filler.wait(timeout=60) == 0
        page.locator("#inspect-run").click()  # once the queue drains, the same page works again
        expect(page.locator("#inspect-status")).to_contain_text("Traced", timeout=30_000)
    finally:
        if filler is not None and filler.poll() is None:
            filler.kill()
        context.close()
        stop_server(server)
