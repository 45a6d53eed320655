"""playground/launch.py's tuning of Gradio's queue (the rest of the start is the end-to-end suite's)."""

from __future__ import annotations

import logging

import gradio as gr

from playground import launch


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
