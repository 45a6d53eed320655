"""Parallel tab: shard a function over a device mesh and see who holds what, and which collectives run."""

from __future__ import annotations

import gradio as gr

from playground import messages, validation
from playground.gallery import SHARD_EXAMPLE
from playground.server.api import PlaygroundAPI
from playground.server.links.fields import TabSchema, fields_of
from playground.server.ui import code_form, language, progress, share_links
from playground.server.ui import markdown as md
from playground.server.ui.error_views import error_markdown
from playground.server.ui.field_labels import LABELS
from playground.server.ui.layout import SIDE_BY_SIDE_MIN_PX, beside
from playground.server.ui.markdown import code_block
from playground.server.ui.parallel_fields import shard_arguments
from playground.server.ui.parallel_views import (
    data_parallel_markdown,
    mesh_markdown,
    placement_html,
    shape_of,
    tolerance_markdown,
    verdict_markdown,
)
from playground.server.ui.tabs import Tab, TabContext
from playground.server.ui.translations import t

TAB = Tab("pg.tab.parallel", "parallel", 60)

# What a Parallel link holds, and the controls a class link can hide (with the words its checkboxes say).
HIDEABLE = {"args": "Arguments", "mesh": "Mesh shape and axis names", "specs": "in_specs and out_specs",
            "demos": "The demos part"}
LINK = TabSchema(fields_of("shard"), tuple(HIDEABLE))


def build(context: TabContext) -> share_links.Sharing:
    api, jobs = context.api, context.line("parallel")
    intro = t("pg.parallel.intro", devices=context.settings.cpu_devices)  # the Parallel workers' simulated devices
    form = code_form.form(TAB.id, code_form.Editor(SHARD_EXAMPLE.code, 6, "pg.parallel.function"), _fields, HIDEABLE,
                          ids="shard", intro=intro, run="pg.parallel.run")
    code, args, mesh_shape, axis_names, in_specs, out_specs = form.fields.values()
    status = code_form.status("shard")
    with gr.Row():  # side by side where there is room; on a phone one above the other
        with gr.Column(min_width=SIDE_BY_SIDE_MIN_PX):
            placement = gr.HTML(elem_id="shard-placement")
        with gr.Column(min_width=SIDE_BY_SIDE_MIN_PX):
            details = gr.Markdown(elem_id="shard-details")

    def on_run(code_text, args_text, mesh_text, names_text, in_text, out_text, request: gr.Request | None = None):
        lang = language.of(request)  # the server's messages in the reader's language (Accept-Language)
        try:
            arguments = shard_arguments(code_text, args_text, mesh_text, names_text, in_text, out_text)
        except validation.Refused as exc:
            yield error_markdown(exc.error["error"], lang, labels=LABELS["shard"]), "", ""
            return
        yield from progress.follow(api.shard(**arguments), lambda response: render_shard(response, lang), 3,
                                   language=lang, working="work.shard")

    shard_outputs = [status, placement, details]
    form.run.click(lambda: ("", "", ""), None, shard_outputs, queue=False).then(
        on_run, list(form.fields.values()), shard_outputs, **jobs)

    demos_part = _demos(api, jobs)
    return form.sharing(LINK, {"args": [args], "mesh": [mesh_shape, axis_names], "specs": [in_specs, out_specs],
                               "demos": [demos_part]})


def _fields() -> dict:
    """The arguments, the mesh and the specs, by the names of /shard's arguments."""
    args = gr.Textbox(SHARD_EXAMPLE.args, label=t("pg.parallel.args"), elem_id="shard-args")
    with gr.Row():
        mesh_shape = gr.Textbox(SHARD_EXAMPLE.mesh_shape, label=t("pg.parallel.mesh"), elem_id="shard-mesh")
        axis_names = gr.Textbox(SHARD_EXAMPLE.axis_names, label=t("pg.parallel.axes"), elem_id="shard-axes")
    in_specs = gr.Textbox(SHARD_EXAMPLE.in_specs, label=t("pg.parallel.in_specs"), elem_id="shard-in-specs")
    out_specs = gr.Textbox(SHARD_EXAMPLE.out_specs, label="out_specs", elem_id="shard-out-specs")
    return {"args": args, "mesh_shape": mesh_shape, "axis_names": axis_names, "in_specs": in_specs,
            "out_specs": out_specs}


def _demos(api: PlaygroundAPI, jobs: dict) -> gr.Column:
    """The four demos of parallel JAX on the Parallel workers' devices, one button; the part (a class link can hide
    it)."""
    with gr.Column() as demos_part:
        gr.Markdown(t("pg.parallel.demos_intro"))
        demos = gr.Button(t("pg.parallel.demos"), elem_id="parallel-demos-run")
        devices = gr.Markdown(elem_id="parallel-devices")
        with gr.Row():
            with beside():
                collectives = gr.Markdown(elem_id="parallel-collectives")
            with gr.Column(min_width=SIDE_BY_SIDE_MIN_PX):
                data_parallel = gr.Markdown(elem_id="parallel-data-parallel")
                batch_grid = gr.HTML(elem_id="parallel-batch-placement")
        pmap = gr.Markdown(elem_id="parallel-pmap")

    def on_demos(request: gr.Request | None = None):
        lang = language.of(request)
        yield from progress.follow(api.parallel_demos(), lambda response: render_demos(response, lang), 5,
                                   language=lang, working="work.demos")

    demo_outputs = [devices, collectives, data_parallel, batch_grid, pmap]
    demos.click(lambda: ("",) * len(demo_outputs), None, demo_outputs, queue=False).then(
        on_demos, None, demo_outputs, **jobs)
    return demos_part


def render_shard(response: dict, lang: str = "en") -> tuple:
    """(verdict, placement grids, details) of a /shard response; our words in ``lang``."""
    if not response.get("ok"):
        return error_markdown(response["error"], lang, labels=LABELS["shard"]), "", ""

    def say(key: str, **params: object) -> str:
        return messages.say(key, lang, **params)

    grids = "".join(placement_html(p, shape, say("par.input", i=i), lang)
                    for i, (p, shape) in enumerate(zip(response["placement"], response["shapes"], strict=True)))
    if response.get("out_placement"):
        grids += placement_html(response["out_placement"], shape_of(response["out_placement"]), say("par.output"),
                                lang)
    found = ", ".join(md.code(c) for c in response["collectives"]) or say("par.no_collectives")
    details = "\n\n".join([
        tolerance_markdown(response, lang),
        mesh_markdown(response["mesh"], lang),
        f"{say('par.result')}\n{code_block(response['result'])}",
        say("par.collectives", found=found),
        code_block("\n".join(response.get("hlo_collective_lines", []))) if response["collectives"] else "",
    ])
    return verdict_markdown(response, lang), grids, details


def render_demos(response: dict, lang: str = "en") -> tuple:
    """The demos' five parts; our words in ``lang`` (the demos' code and JAX's explanation ``why`` stay English)."""
    if not response.get("ok"):
        return error_markdown(response["error"], lang), "", "", "", ""

    def say(key: str, **params: object) -> str:
        return messages.say(key, lang, **params)

    info = response["devices"]
    devices = say("par.platform_devices", count=info["count"], platform=md.text(info["platform"])) + ", ".join(
        f"{d['id']} ({md.text(d['kind'])})" for d in info["devices"])
    sections = []
    for name in ("psum", "all_gather"):
        demo = response["collectives"][name]
        mark = md.verdict("ok", lang) if demo["matches"] else md.verdict("differs", lang)
        found = ", ".join(md.code(c) for c in demo["collectives"]) or say("par.none")
        sections.append(f"#### `{name}` with `jax.shard_map` {mark}\n{code_block(demo['code'])}\n"
                        f"{say('par.demo_found', found=found)}\n{code_block(str(demo['result']))}")
    step = response["data_parallel"]
    hlo = code_block("\n".join(step.get("hlo_collective_lines", [])[:6]))
    data_parallel = f"{data_parallel_markdown(step, lang)}\n{hlo}"
    grid = placement_html(step["batch_placement"], [step["batch_size"], step["layer_sizes"][0]],
                          say("par.batch_of_images"), lang)
    both = response["pmap_vs_shard_map"]
    same = (md.verdict("ok", lang) + " " + say("par.same_result") if both["equal"]
            else md.verdict("differs", lang) + " " + say("par.different_results"))
    pmap = (f"{say('par.pmap_head')} {same}\n"
            f"{code_block(both['pmap_code'])}\n{code_block(both['shard_map_code'])}\n{md.text(both['why'])}")
    return devices, "\n\n".join(sections), data_parallel, grid, pmap
