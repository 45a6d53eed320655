"""The UI tabs' glue: /inspect and /about responses turned into component values, files and markdown.

Ok responses are real: ``playground.worker.jobs.inspect.inspect`` (the worker-side function) run in this process.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
import time
from pathlib import Path

import gradio as gr
import pytest

from playground.errors import error_dict
from playground.gallery import EXAMPLES
from playground.ipc.limits import Limits
from playground.server.api import PlaygroundAPI, final
from playground.server.config import Settings
from playground.server.links import sharing
from playground.server.ui import about_tab, derivatives_tab, inspect_tab
from playground.server.ui import inspect_views as views
from playground.server.ui.call_fields import parse_argnums
from playground.server.ui.inspect_tab import DownloadFolder, render
from playground.server.ui.markdown import verdict
from playground.server.ui.translations import GRADIO_GAPS, shown
from playground.worker.jobs import inspect as staging
from tests.pool_doubles import ScriptedPool
from tests.tab_context import tab_context

ERROR, OK, WARNING = (verdict("error"), verdict("ok"), verdict("warning"))  # the labels that replaced emoji

DEFAULT = EXAMPLES[0]
TRACER_CODE = "def f(x):\n    if x > 0:\n        return x\n    return -x"
# Component order of the Run button's outputs in inspect_tab.build.
OUTPUTS = ("status", "result", "source_map", "jaxpr", "stablehlo", "hlo", "hlo_locations", "costs", "pytrees",
           "stdout", "files", "raw")
DOWNLOAD_NAMES = ("jaxpr.txt", "stablehlo.mlir", "optimised_hlo.txt")


def last(updates):
    """What a streaming handler shows in the end."""
    return list(updates)[-1]


def _update(value) -> dict:
    assert isinstance(value, dict) and value.get("__type__") == "update", value
    return value


def _named(values: tuple) -> dict:
    assert len(values) == len(OUTPUTS), values
    return dict(zip(OUTPUTS, values, strict=True))


@pytest.fixture(scope="module")
def ok_response() -> dict:
    response = staging.inspect(DEFAULT.code, DEFAULT.args, 200_000)
    assert response["ok"], response
    return response


@pytest.fixture(scope="module")
def tracer_response() -> dict:
    response = staging.inspect(TRACER_CODE, "2.0", 200_000)
    assert not response["ok"], response
    return response


@pytest.fixture
def downloads():
    folder = DownloadFolder()
    yield folder
    shutil.rmtree(folder.path, ignore_errors=True)


class FakePool(ScriptedPool):
    """Runs inspect jobs in this process, as a worker would (worker/jobs/handlers.py), without a sandbox."""

    def answer(self, job: dict) -> dict:
        return staging.inspect(job["code"], job["args"], 200_000, tuple(job["static_argnums"]), job["second_args"])


@pytest.fixture(autouse=True)
def _temp_dir_per_test(tmp_path, monkeypatch):
    """The tab's own DownloadFolder (made in build) goes under tmp_path, not into /tmp for good."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))


def _build_inspect_tab(pool) -> gr.Blocks:
    with gr.Blocks() as demo:
        inspect_tab.build(tab_context(PlaygroundAPI(pool=pool, settings=Settings())))
    return demo


def _run_handler(demo: gr.Blocks):
    (fn,) = [f for f in demo.fns.values() if f.name == "on_run"]
    return fn


# --- render -------------------------------------------------------------------------------------------------------


def test_render_returns_one_value_per_output_component_in_build_order(ok_response):
    fn = _run_handler(_build_inspect_tab(FakePool()))
    kinds = [(type(block).__name__, block.elem_id) for block in fn.outputs]
    assert kinds == [
        ("Markdown", "inspect-status"), ("Textbox", "inspect-result"), ("HTML", "inspect-source-map"),
        ("Code", "inspect-jaxpr"), ("Code", "inspect-stablehlo"), ("Code", "inspect-hlo"),
        ("Code", "inspect-hlo-locations"), ("Markdown", "inspect-costs"), ("Markdown", "inspect-pytrees"),
        ("Textbox", None), ("File", "inspect-files"), ("JSON", None),
    ]
    assert shown(fn.outputs[9].label).startswith("Output")
    assert len(render(DEFAULT.code, ok_response)) == len(fn.outputs)
    assert len(render("", error_dict("syntax", "SyntaxError: x", 1))) == len(fn.outputs)


def test_render_ok(ok_response, downloads):
    out = _named(render(DEFAULT.code, ok_response, downloads))
    assert out["status"].startswith(f"{OK} Traced, lowered and compiled `f` for cpu.")
    assert out["result"] == ok_response["result"] == "f32[4] [ 0.  3. 14. 39.]"
    assert out["source_map"] == views.source_ir_html(DEFAULT.code, ok_response)
    assert 'class="source-ir"' in out["source_map"]
    assert out["jaxpr"] == ok_response["jaxpr"] and "mul a a" in out["jaxpr"]
    assert out["stablehlo"] == ok_response["stablehlo"] and "stablehlo.multiply" in out["stablehlo"]
    assert out["hlo"] == ok_response["hlo"] and "HloModule" in out["hlo"]
    assert out["costs"] == views.stages_markdown(ok_response) and "#### Stages" in out["costs"]
    assert out["pytrees"] == views.pytree_markdown(ok_response["pytree"]) and "#### Inputs" in out["pytrees"]
    assert _update(out["stdout"])["visible"] is False
    assert out["stdout"]["value"] == ""
    assert out["raw"] is ok_response


def test_render_ok_writes_the_whole_texts_as_files(ok_response, downloads):
    update = _named(render(DEFAULT.code, ok_response, downloads))["files"]
    assert update["visible"] is True
    files = update["value"]
    assert [os.path.basename(p) for p in files] == list(DOWNLOAD_NAMES)
    for path, key in zip(files, ("jaxpr", "stablehlo", "hlo"), strict=True):
        assert Path(path).is_file()
        assert Path(path).is_relative_to(downloads.path)
        if key != "hlo":
            assert Path(path).read_text() == ok_response[key]
    # The optimised HLO as XLA printed it: the header, the location tables, then the program shown in the tab.
    header, _, program = ok_response["hlo"].partition("\n")
    whole = Path(files[2]).read_text()
    assert whole.startswith(header + "\n\nFileNames\n") and whole.endswith(program.lstrip("\n"))
    assert ok_response["hlo_locations"] in whole and "FileNames" not in ok_response["hlo"]


def test_render_ok_without_a_download_folder_offers_no_files(ok_response):
    assert _named(render(DEFAULT.code, ok_response))["files"] == {"__type__": "update", "visible": False}


def test_render_ok_with_stdout_and_warnings(ok_response):
    response = {**ok_response, "stdout": "hi Traced<f32[]>\n", "warnings": ["use jax.debug.print", "UserWarning: x"]}
    out = _named(render(DEFAULT.code, response))
    assert "\n- use jax.debug.print" in out["status"]
    assert "\n- UserWarning: x" in out["status"]
    assert _update(out["stdout"]) == {"__type__": "update", "value": "hi Traced<f32[]>\n", "visible": True}


def test_render_ok_without_optional_fields(ok_response):
    response = {k: v for k, v in ok_response.items()
                if k not in ("pytree", "retrace", "purity", "stdout", "warnings", "line_map")}
    out = _named(render(DEFAULT.code, response))
    assert out["status"] == f"{OK} Traced, lowered and compiled `f` for cpu."
    assert out["result"] == "f32[4] [ 0.  3. 14. 39.]"
    assert out["pytrees"] == ""
    assert out["stdout"]["visible"] is False
    assert "background:" not in out["source_map"]  # no line map: nothing coloured, nothing broken


def test_render_cuts_long_ir_on_screen_but_the_file_is_whole(ok_response, downloads):
    long_text = "".join(f"    line {i:06d} = mul a a\n" for i in range(4000))
    assert len(long_text) > views.DISPLAY_CHARS
    out = _named(render(DEFAULT.code, {**ok_response, "jaxpr": long_text}, downloads))
    assert out["jaxpr"].startswith(long_text[:views.DISPLAY_CHARS])
    assert "download the whole text below" in out["jaxpr"]
    assert len(out["jaxpr"]) < len(long_text)
    assert Path(out["files"]["value"][0]).read_text() == long_text


def test_render_error(downloads):
    response = error_dict("user_exception", "ZeroDivisionError: division by zero", 3)
    out = _named(render("def f(x):\n    return x\n", response, downloads))
    first = out["status"].splitlines()[0]
    assert "Your code raised an exception" in first
    assert "line 3" in first
    assert "ZeroDivisionError: division by zero" in out["status"]
    for key in ("result", "source_map", "jaxpr", "stablehlo", "hlo", "costs", "pytrees"):
        assert out[key] == "", key
    assert _update(out["stdout"]) == {"__type__": "update", "value": "", "visible": False}
    assert out["files"]["visible"] is False and out["files"]["value"] is None
    assert out["raw"] is response
    assert os.listdir(downloads.path) == []  # nothing written for an error


def test_render_tracer_error_teaches(tracer_response):
    error = tracer_response["error"]
    out = _named(render(TRACER_CODE, tracer_response))
    status = out["status"]
    assert status.splitlines()[0] == f"{ERROR} **{error['title']} on line 2**"
    assert "TracerBoolConversionError" in status.splitlines()[0]
    assert error["explanation"] in status
    assert "tracers" in status
    assert "**How to fix it:**" in status
    assert "jnp.where" in status and "lax.cond" in status
    assert f"[Read more in the JAX documentation]({error['doc_url']})" in status
    assert error["doc_url"].endswith("#jax.errors.TracerBoolConversionError")
    assert out["result"] == out["jaxpr"] == out["source_map"] == ""


@pytest.mark.parametrize("language", ["en", "de", "zh"])
def test_render_an_error_of_the_added_jit_links_the_code_into_the_derivatives_tab(tracer_response, language):
    out = _named(render(TRACER_CODE, tracer_response, lang=language))
    link = re.search(r"\]\((\?s=[A-Za-z0-9_-]+)\)", out["status"]).group(1)
    opened = sharing.decode_link(link.removeprefix("?s="), {"derivatives": derivatives_tab.LINK})
    assert (opened.tab, opened.state) == ("derivatives", {"code": TRACER_CODE})
    fix_at, link_at = out["status"].index("jnp.where"), out["status"].index(link)
    assert fix_at < link_at < out["status"].index("```\nTracerBoolConversionError")  # after the fix, before JAX's own


@pytest.mark.parametrize("code", [
    "def f(x, y):\n    if x > y:\n        return x\n    return y\n",  # two numbers: no curve to draw
    TRACER_CODE.replace("def f(x):", "def f(x):\n    x = jnp.asarray(x)") + "\nf = jax.jit(f)\n",  # its own jit
])
def test_render_links_no_derivatives_where_they_do_not_fit(code):
    response = staging.inspect(code, "(1.0, 2.0)" if "y" in code else "1.0", 10_000)
    assert response["ok"] is False
    assert "?s=" not in _named(render(code, response))["status"]


def test_run_handler_passes_the_form_to_the_api_and_renders(ok_response):
    pool = FakePool()
    fn = _run_handler(_build_inspect_tab(pool)).fn
    out = _named(last(fn(DEFAULT.code, DEFAULT.args, "", "", False)))
    assert pool.jobs[-1]["static_argnums"] == [] and pool.jobs[-1]["code"] == DEFAULT.code
    assert pool.jobs[-1]["on_accelerator"] is False
    assert out["result"] == ok_response["result"]
    assert out["jaxpr"] == ok_response["jaxpr"]
    assert all(Path(p).read_text() for p in out["files"]["value"])
    assert all(Path(p).is_relative_to(tempfile.gettempdir()) for p in out["files"]["value"])

    out = _named(last(fn("def f(x, n):\n    return x * n\n", "(jnp.ones(2), 3)", "1", "", True)))
    assert pool.jobs[-1]["on_accelerator"] is True  # the tab's checkbox reaches the job
    assert pool.jobs[-1]["static_argnums"] == [1]
    assert out["result"] == "f32[2] [3. 3.]"
    assert "Static argument 1: `3`" in out["pytrees"]


def test_run_handler_bad_static_argnums_is_an_invalid_input_error():
    pool = FakePool()
    fn = _run_handler(_build_inspect_tab(pool)).fn
    out = _named(last(fn(DEFAULT.code, DEFAULT.args, "one", "", False)))
    assert pool.jobs == []  # never reached a worker
    assert out["status"].startswith(f"{ERROR} **Invalid input**")
    assert "'one'" in out["status"]
    assert out["raw"]["error"]["kind"] == "invalid_input"


# --- parse_argnums ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "expected"), [
    ("", None), ("   ", None), ("1", [1]), ("0, 2", [0, 2]), ("0 2", [0, 2]), ("0,2", [0, 2]), (" 3 , 1 ", [3, 1]),
])
def test_parse_argnums(text, expected):
    assert parse_argnums(text) == expected


@pytest.mark.parametrize("text", ["x", "1, x", "1.5", "0;2"])
def test_parse_argnums_rejects_non_integers_naming_the_text(text):
    with pytest.raises(ValueError, match="static_argnums") as info:
        parse_argnums(text)
    assert repr(text) in str(info.value)


# --- DownloadFolder -----------------------------------------------------------------------------------------------


def _texts(tag: str, size: int = 100) -> dict:
    return {key: (f"{tag} {key} " * size)[:size] for key in ("jaxpr", "stablehlo", "hlo")}


def test_download_folder_writes_three_named_files_with_the_texts(downloads):
    response = _texts("a")
    paths = downloads.write(response)
    assert [os.path.basename(p) for p in paths] == list(DOWNLOAD_NAMES)
    for path, key in zip(paths, ("jaxpr", "stablehlo", "hlo"), strict=True):
        assert Path(path).read_text() == response[key]


def test_download_folder_keeps_100000_characters_whole(downloads):
    response = _texts("big", 100_000)
    shown = views.for_display(response["jaxpr"])
    assert len(shown) < 100_000
    assert "download the whole text below" in shown
    for path, key in zip(downloads.write(response), ("jaxpr", "stablehlo", "hlo"), strict=True):
        text = Path(path).read_text()
        assert len(text) == 100_000
        assert text == response[key]


def test_download_folder_same_text_twice_is_still_there(downloads):
    first = downloads.write(_texts("same"))
    second = downloads.write(_texts("same"))
    assert first == second
    assert all(Path(p).read_text() for p in second)


def test_download_folder_prunes_old_folders_and_keeps_fresh_ones(downloads):
    old = downloads.write(_texts("old"))
    recent = downloads.write(_texts("recent"))
    now = time.time()
    for path in old:
        stamp = now - downloads.max_age_s - 60
        os.utime(os.path.dirname(path), (stamp, stamp))
    for path in recent:
        stamp = now - downloads.max_age_s + 300  # old-ish, but younger than the limit
        os.utime(os.path.dirname(path), (stamp, stamp))

    fresh = downloads.write(_texts("fresh"))

    assert not any(os.path.exists(os.path.dirname(p)) for p in old)
    assert all(Path(p).is_file() for p in recent + fresh)
    assert sorted(os.listdir(downloads.path)) == sorted({os.path.basename(os.path.dirname(p))
                                                         for p in recent + fresh})


def test_download_folder_rewrites_an_old_folder_that_is_asked_for_again(downloads):
    response = _texts("again")
    paths = downloads.write(response)
    stamp = time.time() - downloads.max_age_s - 60
    for path in paths:
        os.utime(os.path.dirname(path), (stamp, stamp))
    again = downloads.write(response)
    for path, key in zip(again, ("jaxpr", "stablehlo", "hlo"), strict=True):
        assert Path(path).read_text() == response[key]


# --- defaults and the About tab -----------------------------------------------------------------------------------


def test_inspect_defaults_are_the_documented_example():
    assert inspect_tab.DEFAULT is EXAMPLES[0]
    assert inspect_tab.DEFAULT.code == "def f(x):\n    return x + x*x + x*x*x\n"
    assert inspect_tab.DEFAULT.args == "jnp.arange(4.0)"
    assert inspect_tab.DEFAULT.static_argnums == "" and inspect_tab.DEFAULT.second_args == ""


def sample_about(devices=("TFRT_CPU_0",), backend="cpu") -> dict:
    limits = Limits()
    return {
        "ok": True,
        "versions": {"python": "3.11.9", "jax": "0.10.2", "jaxlib": "0.10.2", "gradio": "6.31.0",
                     "optax": None, "numpy": "2.4.6"},
        "backend": backend,
        "devices": list(devices),
        "sandbox": {
            "layers": {
                "process": {"active": True, "detail": "one fresh worker process per job"},
                "landlock": {"active": True, "detail": "ABI 7"},
                "seccomp": {"active": False, "detail": "libseccomp not loadable"},
            },
            "mechanisms": {
                "processes": {"active": True, "detail": "a PID namespace per job"},
                "tasks": {"active": False, "detail": "threads counted every 50 ms; no cgroup pids limit"},
            },
            "pool": {"size": 2, "warm": 2},
        },
        "limits": limits.to_dict(),
        "queue": {"concurrency": 2, "max_waiting": 32},
    }


def test_about_to_markdown():
    text = about_tab.to_markdown(sample_about())
    assert "**Backend:** cpu" in text
    assert "**Devices:** TFRT_CPU_0" in text
    assert "jax 0.10.2" in text
    assert "optax not installed" in text
    assert f"| landlock | {OK} active | ABI 7 |" in text
    assert f"| seccomp | {WARNING} not active | libseccomp not loadable |" in text
    assert f"| process | {OK} active |" in text
    assert "**Jobs at once:** 2, **waiting at most:** 32" in text
    assert f"| processes | {OK} bounded | a PID namespace per job |" in text
    assert f"| tasks | {WARNING} partly | threads counted every 50 ms; no cgroup pids limit |" in text
    table = [line for line in text.splitlines() if line.startswith("|")]
    assert len(table) == (2 + 2) + (2 + 3)  # per table: header, rule, one row per mechanism or layer


def test_about_to_markdown_without_a_worker_answer():
    text = about_tab.to_markdown(sample_about(devices=(), backend=None))
    assert "**Backend:** unknown" in text
    assert "unknown (no worker answered)" in text


def test_about_to_markdown_several_devices():
    text = about_tab.to_markdown(sample_about(devices=("cuda:0", "cuda:1")))
    assert "**Devices:** cuda:0, cuda:1" in text


def test_about_to_markdown_accepts_the_api_shape():
    pool = ScriptedPool({"ok": True, "python": "3.11.7", "backend": "cpu", "devices": ["TFRT_CPU_0"]},
                        layers={"landlock": {"active": True, "detail": "ABI 7"}},
                        mechanisms={"tasks": {"active": False, "detail": "no cgroup here"}})
    text = about_tab.to_markdown(PlaygroundAPI(pool=pool, settings=Settings()).about())
    assert f"| landlock | {OK} active | ABI 7 |" in text
    assert f"| watchdogs | {OK} active | wall clock 10 s" in text


def _accelerator_checkbox(api: PlaygroundAPI) -> gr.Checkbox:
    with gr.Blocks() as demo:
        inspect_tab.build(tab_context(api))
    (box,) = [block for block in demo.blocks.values() if getattr(block, "elem_id", None) == "inspect-on-accelerator"]
    return box


def test_compile_for_the_accelerator_shows_only_where_there_is_one():
    assert _accelerator_checkbox(PlaygroundAPI(pool=FakePool(), settings=Settings())).visible is False
    device_pool = FakePool()
    api = PlaygroundAPI(pool=FakePool(), settings=Settings(), device_pool=device_pool,
                        accelerator="CUDA (1 device)")
    box = _accelerator_checkbox(api)
    assert box.visible is True and shown(box.label) == "Compile for the accelerator (CUDA (1 device))"
    final(api.inspect(DEFAULT.code, DEFAULT.args, on_accelerator=True))
    assert [job["kind"] for job in device_pool.jobs] == ["inspect"]


OWNER = {"alive": True, "pid": 42, "restarts": 1, "last_end": "killed (timeout)", "resident_mb": 2300.0,
         "platform": "tpu", "device": "tpu: TPU v5 lite", "devices": ["tpu:0 TPU v5 lite"],
         "layers": {"seccomp": {"active": True, "detail": "134 calls"}, "landlock": {"active": False, "detail": "-"}},
         "memory_limit_mb": 6144}


def test_about_names_the_device_its_owner_and_the_jobs_it_runs_or_why_there_is_none():
    with_tpu = {**sample_about(devices=("tpu:0 TPU v5 lite",), backend="tpu"),
                "accelerator": {"device": "TPU (1 device)", "why": "TPU (1 device) through libtpu",
                                "jobs": ["inspect (when asked)", "vmap", "jit_speed"]}}
    with_tpu["sandbox"] = {**with_tpu["sandbox"], "device_owner": OWNER}
    text = about_tab.to_markdown(with_tpu)
    assert "### Accelerator\n**TPU (1 device)** (TPU (1 device) through libtpu)." in text
    assert ("### Device owner\n**tpu: TPU v5 lite** is held by one long-lived process (pid 42), the only one that "
            "opens it. It runs the jobs of Inspect (when asked), vmap and jit, one at a time, and the training runs; "
            "Compiler, Derivatives, Speed of light, Pallas (API only, in interpret mode) and Parallel compute in the "
            "sandbox's CPU workers.") in text
    german = about_tab.to_markdown(with_tpu, "de")  # the tabs as the reader sees them, Derivatives among them
    assert "Untersuchen (auf Wunsch), vmap und jit" in german and "Ableitungen" in german
    assert "**Its layers:** seccomp active; landlock not active" in text
    assert "**Its memory:** 2,300 MB of its 6,144 MB" in text
    assert "**restarts:** 1 (the last: killed (timeout))" in text
    without = {**sample_about(), "accelerator": {"device": None, "why": "no GPU or TPU device files on this host: "
                                                 "every job runs on the CPU", "jobs": []}}
    assert "### Accelerator\nNone in use: no GPU or TPU device files on this host" in about_tab.to_markdown(without)
    assert "### Accelerator" not in about_tab.to_markdown(sample_about())  # an older server's reply
    assert "### Device owner" not in about_tab.to_markdown(sample_about())
    assert "### Gerätebesitzer\n**tpu: TPU v5 lite**" in about_tab.to_markdown(with_tpu, "de")


def test_about_says_where_the_owner_keeps_its_compiled_programs_or_why_it_keeps_none():
    about = sample_about(devices=("tpu:0 TPU v5 lite",), backend="tpu")
    on = {"active": True, "folder": "/srv/xla", "max_mb": 1024, "detail": "/srv/xla, at most 1,024 MB"}
    off = {"active": False, "folder": "/srv/xla", "max_mb": 1024, "detail": "cannot write to /srv/xla: Read-only"}
    for cache, said in ((on, "**Its compilation cache:** /srv/xla, at most 1,024 MB"),
                        (off, "**Its compilation cache is off:** cannot write to /srv/xla: Read-only")):
        owner = {**about, "sandbox": {**about["sandbox"], "device_owner": {**OWNER, "compile_cache": cache}}}
        assert said in about_tab.to_markdown(owner)
    assert "compilation cache" not in about_tab.to_markdown({**about, "sandbox": {**about["sandbox"],
                                                                                  "device_owner": OWNER}})


def test_gradios_own_words_that_its_german_and_chinese_lack_are_ours_with_the_same_fields():
    """Gradio's English for them is in its bundled frontend; ours must fill the same {fields} (without them, a
    page under load shows Gradio's "In queue: 1 of 1" in English on the Chinese page)."""
    bundle = "".join(path.read_text() for path in (Path(gr.__file__).parent / "templates/frontend/assets").glob(
        "core-*.js"))
    for locale, texts in GRADIO_GAPS.items():
        for key, said in texts.items():
            english = re.search(rf"\b{re.escape(key.rpartition('.')[2])}:`([^`]*)`", bundle)
            assert english, f"Gradio no longer has {key!r}: drop it from GRADIO_GAPS"
            assert set(re.findall(r"\{\w+\}", said)) == set(re.findall(r"\{\w+\}", english.group(1))), (locale, key)
    assert {"de", "zh-CN"} <= {locale for locale, texts in GRADIO_GAPS.items() if "status.queue_position" in texts}
    for key in ("image_editor.pan", "image_editor.brush", "image_editor.clear_canvas"):  # the drawing pad's tooltips
        assert key in GRADIO_GAPS["de"] and key in GRADIO_GAPS["zh-CN"], key
    assert all("common.complete" in texts for texts in GRADIO_GAPS.values())  # said to screen readers after a run


def test_about_knows_the_tab_of_every_job_kind():
    from playground.jobs import REGISTRY

    assert set(about_tab.JOB_TABS) == set(REGISTRY)
