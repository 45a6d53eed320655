"""The Parallel tab's glue: its fields read and named, the settings' device count, a run that clears the last one.

Replies are real: ``playground.worker.jobs.shard.shard`` runs in this process (one CPU
device, so a one-device mesh) and is checked against the shard schema by the API.
"""

from __future__ import annotations

import gradio as gr
import pytest

from playground.server.api import PlaygroundAPI
from playground.server.config import Settings
from playground.server.ui import parallel_tab
from playground.server.ui.markdown import verdict
from playground.server.ui.parallel_fields import mesh_axis_names, mesh_sizes, shard_arguments
from playground.server.ui.translations import shown
from playground.worker.jobs import shard as parallel
from tests.pool_doubles import ScriptedPool
from tests.tab_context import tab_context

ERROR, OK = verdict("error"), verdict("ok")  # the labels that replaced emoji

FIELDS = ("def f(x, w):\n    return jnp.tanh(x @ w)\n", "(jnp.arange(32.0).reshape(8, 4) / 32, jnp.ones((4, 4)))",
          "1", "data", "(P('data', None), P())", "P('data', None)")


class InProcessPool(ScriptedPool):
    """Runs shard jobs in this process, as a worker would, and keeps them."""

    def answer(self, job: dict) -> dict:
        return parallel.shard(job["code"], job["args"], job["mesh_shape"], job["axis_names"], job["in_specs"],
                              job["out_specs"])


def build_tab(pool: InProcessPool, cpu_devices: int = 8) -> gr.Blocks:
    with gr.Blocks() as demo:
        api = PlaygroundAPI(pool=pool, settings=Settings())
        parallel_tab.build(tab_context(api, Settings(cpu_devices=cpu_devices)))
    return demo


def handler(demo: gr.Blocks, name: str):
    (fn,) = [f for f in demo.fns.values() if f.name == name]
    return fn


def test_the_device_count_in_the_header_is_the_settings():
    demo = build_tab(InProcessPool(), cpu_devices=5)
    texts = [shown(block.value) for block in demo.blocks.values() if isinstance(block, gr.Markdown) and block.value]
    assert any("workers get 5 simulated CPU devices" in text for text in texts)
    assert not any("8 simulated" in text for text in texts)


def test_a_run_first_clears_what_the_last_one_showed():
    demo = build_tab(InProcessPool())
    run = handler(demo, "on_run")
    clears = [f for f in demo.fns.values() if f.outputs == run.outputs and f.name != "on_run"]
    assert len(clears) == 1 and clears[0].fn() == ("", "", "")
    assert [block.elem_id for block in run.outputs] == ["shard-status", "shard-placement", "shard-details"]


def test_a_run_shows_the_verdict_its_numbers_and_the_grids():
    pool = InProcessPool()
    status, grids, details = list(handler(build_tab(pool), "on_run").fn(*FIELDS))[-1]
    assert pool.jobs[0]["mesh_shape"] == [1] and pool.jobs[0]["axis_names"] == ["data"]
    assert status.startswith(f"{OK} On 1 device the result equals the single-device one within rounding: largest "
                             "difference 0, tolerance ")
    assert grids.count('class="placement"') == 3 and "**Tolerance** " in details


@pytest.mark.parametrize(("position", "text", "words"), [
    (0, "  ", "“Your function” is empty: define a function"),
    (1, "", "“Arguments” is empty"),
    (2, "", "“Mesh shape” is empty: give one size per mesh axis"),
    (2, "2, x", "“Mesh shape” must be whole numbers separated by commas, such as 2, 4; 'x' is not one."),
    (2, "2.5", "'2.5' is not one"),
    (2, "0", "“Mesh shape”: each size must be at least 1"),
    (3, " ", "“Axis names” is empty"),
    (3, "data, 1x", "“Axis names” must be names like data or model"),
    (3, "data, model", "“Mesh shape” has 1 size(s) but “Axis names” has 2 name(s)"),
    (4, "", "“in_specs (one PartitionSpec per argument)” is empty"),
    (5, "\n", "`out_specs` is empty"),
])
def test_a_field_that_cannot_be_read_is_named_and_no_job_runs(position, text, words):
    pool = InProcessPool()
    fields = list(FIELDS)
    fields[position] = text
    status, grids, details = list(handler(build_tab(pool), "on_run").fn(*fields))[-1]
    assert status.startswith(f"{ERROR}") and words in status and (grids, details) == ("", "")
    assert pool.jobs == []


def test_fields_read_as_the_api_takes_them():
    assert mesh_sizes(" 2,4 ") == [2, 4] and mesh_axis_names("'data' \"model\"") == ["data", "model"]
    assert shard_arguments(*FIELDS) == {"code": FIELDS[0], "args": FIELDS[1], "mesh_shape": [1],
                                        "axis_names": ["data"], "in_specs": FIELDS[4], "out_specs": FIELDS[5]}
