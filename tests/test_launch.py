"""playground/server/launch.py's tuning of Gradio (its queue, its stub writing); the rest of the start is the end-to-end
suite's."""

from __future__ import annotations

import logging
import os
import subprocess
import sys

import gradio as gr
import pytest

from playground.server import launch
from tests.conftest import ROOT


def test_the_queue_looks_for_work_at_the_apps_pace_and_says_nothing(caplog):
    """The pinned Gradio still has the two settings calm_idle_queue changes; one it lacked would be logged."""
    with gr.Blocks() as demo:
        gr.Markdown("x")
    demo.queue()
    with caplog.at_level(logging.WARNING):
        launch.calm_idle_queue(demo)
    assert demo._queue.sleep_when_free == launch.IDLE_POLL_S
    assert demo._queue.progress_update_sleep_when_free == launch.PROGRESS_POLL_S
    assert not caplog.records, [r.getMessage() for r in caplog.records]


def test_a_gradio_without_the_settings_is_named_in_the_log(caplog):
    class Bare:
        _queue = object()

    with caplog.at_level(logging.WARNING):
        launch.calm_idle_queue(Bare())
    assert [r.getMessage() for r in caplog.records] == [
        "Gradio's queue has no sleep_when_free: it looks for work at its own pace",
        "Gradio's queue has no progress_update_sleep_when_free: it looks for work at its own pace"]


def _in_a_fresh_python(tmp_path, code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(tmp_path)])})


COMPONENT = "import gradio as gr\n\nclass Mine(gr.Textbox):\n    EVENTS = ['change']\n"


@pytest.mark.parametrize("skipped", [True, False], ids=["skipped", "gradio's own"])
def test_gradio_components_write_no_stubs_once_skipped(tmp_path, skipped):
    """A Gradio component defined after skip_gradio_stub_writing leaves no .pyi beside its source; without the
    skip Gradio writes one (so this would see the hook stop working)."""
    (tmp_path / "mine.py").write_text(COMPONENT)
    skip = "from playground.server import launch; launch.skip_gradio_stub_writing()\n" if skipped else ""
    done = _in_a_fresh_python(tmp_path, skip + "import mine\nmine.Mine(value='x')\nprint('built')\n")
    assert done.returncode == 0 and "built" in done.stdout, done.stderr[-2000:]
    assert (tmp_path / "mine.pyi").exists() is not skipped
    assert "create_or_modify_pyi" not in done.stderr


def test_a_gradio_without_the_stub_writer_is_named_in_the_log(tmp_path):
    package = tmp_path / "gradio"
    package.mkdir()
    (package / "__init__.py").write_text("from gradio import component_meta\n")
    (package / "component_meta.py").write_text("WRITES = 'nothing'\n")
    done = _in_a_fresh_python(tmp_path, "from playground.server import launch; launch.skip_gradio_stub_writing()\n"
                                        "import gradio\nprint(gradio.component_meta.WRITES)\n")
    assert done.returncode == 0 and done.stdout.strip() == "nothing", done.stderr[-2000:]
    assert "Gradio has no create_or_modify_pyi: its components write their stubs as before" in done.stderr
