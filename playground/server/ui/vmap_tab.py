"""vmap tab: write a function for one example, batch it, and compare a Python loop, vmap and jit(vmap)."""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial

import gradio as gr

from playground import validation
from playground.gallery import VMAP_PRESETS, VmapPreset
from playground.jobs.vmap import DEFAULT_BATCH_SIZES
from playground.server.api import PlaygroundAPI
from playground.server.links.fields import TabSchema, fields_of
from playground.server.ui import code_form, measure_again, progress, share_links
from playground.server.ui.layout import SIDE_BY_SIDE_MIN_PX, beside
from playground.server.ui.preset_pick import run_stopped_by_preset
from playground.server.ui.tabs import Tab, TabContext
from playground.server.ui.timing_views import parse_sizes
from playground.server.ui.translations import t
from playground.server.ui.vmap_views import render, running

TAB = Tab("vmap", "vmap", 40)

# The presets: each one's code, and the names the picker shows.
_PRESETS = code_form.Presets({name: preset.code for name, preset in VMAP_PRESETS.items()},
                             {"per-example gradients": t("pg.vmap.per_example_gradients"),
                              "batched MLP predict": t("pg.vmap.batched_mlp")})

# What a vmap link holds, and the controls a class link can hide (with the words its checkboxes say).
HIDEABLE = {"preset": "Preset", "args": "One example's arguments", "axes": "in_axes and out_axes",
            "batch_sizes": "Batch sizes"}
LINK = TabSchema(fields_of("vmap"), tuple(HIDEABLE))


def build(context: TabContext) -> share_links.Sharing:
    api = context.api
    first = next(iter(VMAP_PRESETS.values()))
    form = code_form.form(TAB.id, code_form.Editor(first.code, 10, "pg.vmap.function"), lambda: _fields(first),
                          HIDEABLE, intro=t("pg.vmap.intro"), run="pg.field.compare", again=True, presets=_PRESETS)
    code, args, in_axes, out_axes, sizes = form.fields.values()
    status = code_form.status("vmap")
    with gr.Row():
        jaxpr = gr.Code(label=t("pg.vmap.jaxpr"), language=None, interactive=False, elem_id="vmap-jaxpr",
                        min_width=SIDE_BY_SIDE_MIN_PX)
        batched = gr.Code(label=t("pg.vmap.batched"), language=None, interactive=False,
                          elem_id="vmap-batched", min_width=SIDE_BY_SIDE_MIN_PX)
    with gr.Row():
        chart = gr.Plot(label=t("pg.vmap.chart"), elem_id="vmap-plot", min_width=SIDE_BY_SIDE_MIN_PX)
        with beside():
            table = gr.Markdown(elem_id="vmap-table")

    form.preset.change(lambda name: (VMAP_PRESETS[name].code, VMAP_PRESETS[name].args, VMAP_PRESETS[name].in_axes)
                       if name else (gr.update(),) * 3, form.preset, [code, args, in_axes])
    # A preset picked by hand: the run of the code before it stops, and its results go.
    results = [status, jaxpr, batched, chart, table, form.again]
    for button, handler in zip((form.run, form.again), measure_again.handlers(partial(compare, api)), strict=True):
        run_stopped_by_preset(button, form.preset, handler, list(form.fields.values()), results,
                              lambda: (t("pg.hint.preset"), "", "", None, "", measure_again.hidden()), results,
                              **context.line("device"))
    return form.sharing(LINK, {"preset": [form.preset], "args": [args], "axes": [in_axes, out_axes],
                               "batch_sizes": [sizes]}, writes_code=("preset",))


def _fields(first: VmapPreset) -> dict:
    """One example's arguments, the axes and the batch sizes, by the names of /vmap's arguments."""
    args = gr.Textbox(first.args, label=t("pg.vmap.args"), elem_id="vmap-args")
    with gr.Row():
        in_axes = gr.Textbox(first.in_axes, label="in_axes", elem_id="vmap-in-axes")
        out_axes = gr.Textbox("0", label="out_axes", elem_id="vmap-out-axes")
    sizes = gr.Textbox(", ".join(map(str, DEFAULT_BATCH_SIZES)), label=t("pg.vmap.sizes"), elem_id="vmap-sizes")
    return {"args": args, "in_axes": in_axes, "out_axes": out_axes, "batch_sizes": sizes}


def compare(api: PlaygroundAPI, code_text: str, args_text: str, in_text: str, out_text: str,
            sizes_text: str | None, lang: str = "en", fresh: bool = False) -> Iterator[tuple]:
    """The Compare button (Measure again: ``fresh``): first the last run's results and errors go, then its place in
    line, then this run's, with Measure again in sight beside a result from the cache."""
    yield running(lang), "", "", None, "", measure_again.hidden()
    yield from progress.follow(run_vmap(api, code_text, args_text, in_text, out_text, sizes_text, fresh),
                               lambda response: (*render(response, lang), measure_again.shown(response)), 6,
                               language=lang)


def run_vmap(api: PlaygroundAPI, code_text: str, args_text: str, in_text: str, out_text: str,
             sizes_text: str | None, fresh: bool = False) -> Iterator[dict]:
    """The form's values, the batch sizes parsed (naming the box), then /vmap's updates."""
    try:
        batch_sizes = parse_sizes(sizes_text or "", "batch_sizes")
    except validation.Refused as exc:
        yield exc.error
        return
    yield from api.vmap(code_text, args_text, in_text, batch_sizes, out_text, fresh=fresh)
