"""Inspect tab: a function and its arguments in; its result, jaxpr, StableHLO, HLO and costs out."""

from __future__ import annotations

import hashlib
import os
import tempfile
import time

import gradio as gr

from playground import messages, user_ast
from playground.errors import UserCodeError
from playground.gallery import EXAMPLES
from playground.server.api import PlaygroundAPI
from playground.server.links import sharing
from playground.server.links.fields import TabSchema, fields_of
from playground.server.links.sharing import Link
from playground.server.ui import call_fields, code_form, example_runs, language, share_links
from playground.server.ui import inspect_views as views
from playground.server.ui.derivatives_tab import LINK as DERIVATIVES_LINK
from playground.server.ui.error_views import error_markdown
from playground.server.ui.field_labels import LABELS
from playground.server.ui.tabs import Tab, TabContext
from playground.server.ui.translations import t, tab

TAB = Tab("pg.tab.inspect", "inspect", 10)

DEFAULT = EXAMPLES[0]
# What an Inspect link holds, and the controls a class link can hide (with the words its checkboxes say).
HIDEABLE = {"args": "Arguments", "static_argnums": "static_argnums", "second_args": "Call again with",
            "examples": "Examples", "api_response": "API response (JSON)"}
LINK = TabSchema(fields_of("inspect"), tuple(HIDEABLE))
_DOWNLOADS = (("jaxpr", "jaxpr.txt"), ("stablehlo", "stablehlo.mlir"), ("hlo", "optimised_hlo.txt"))


def build(context: TabContext) -> share_links.Sharing:
    api = context.api
    form = code_form.form(TAB.id, code_form.Editor(DEFAULT.code, 12), lambda: _fields(api), HIDEABLE,
                          run="pg.inspect.run")
    fields = form.fields
    args, static, second = fields["args"], fields["static_argnums"], fields["second_args"]
    examples = example_runs.examples(EXAMPLES, {"code": fields["code"], "args": args, "static_argnums": static,
                                                "second_args": second}, ["inspect-run"])
    outputs, raw_panel = _results()
    downloads = DownloadFolder()

    def on_run(code_text: str, args_text: str, static_text: str, second_text: str, accelerator: bool,
               request: gr.Request | None = None):
        """First the stages (result, jaxpr, StableHLO, HLO, cost), then the checks that run the function again."""
        lang = language.of(request)  # the server's messages in the reader's language (Accept-Language)
        yield from call_fields.follow(
            static_text, lambda argnums: api.inspect(code_text, args_text, argnums, second_text, bool(accelerator)),
            lambda response: render(code_text, response, downloads, lang), len(outputs), lang, "work.inspect")

    # always_last: a click (or an example) while a run is going runs once that one ends, with the newest values.
    form.run.click(on_run, list(fields.values()), outputs, trigger_mode="always_last", **context.line("sandbox"))
    return form.sharing(LINK, {"args": [args], "static_argnums": [static], "second_args": [second],
                               "examples": [examples.dataset], "api_response": [raw_panel]}, writes_code=("examples",))


def _fields(api: PlaygroundAPI) -> dict:
    """The arguments and how the function is called, by the names of /inspect's arguments."""
    return {
        "args": call_fields.arguments("inspect", DEFAULT.args),
        "static_argnums": call_fields.static_argnums("inspect", t("pg.field.static_info")),
        "second_args": gr.Textbox(label=t("pg.inspect.second"), placeholder=t("pg.inspect.second_example"),
                                  info=t("pg.inspect.second_info"), elem_id="inspect-second"),
        # Inspect compiles for the CPU (its workers start fast); the host's GPU or TPU on request.
        "on_accelerator": call_fields.on_accelerator("inspect", api.accelerator, t("pg.inspect.accelerator_info"))}


def _results() -> tuple[list, gr.Accordion]:
    """What a run shows, in ``render``'s order, and the panel of the API's raw response (a class link hides it)."""
    status = code_form.status("inspect")
    result = gr.Textbox(label=t("pg.inspect.result"), lines=2, interactive=False, elem_id="inspect-result")
    with gr.Tabs(overflow_behavior="wrap"):
        with tab("pg.inspect.source_ir", "inspect-source-ir-tab"):
            mapped = gr.HTML(elem_id="inspect-source-map")
        with gr.Tab("jaxpr"):
            jaxpr = gr.Code(label=t("pg.inspect.jaxpr"), language=None, interactive=False,
                            elem_id="inspect-jaxpr")
        with gr.Tab("StableHLO"):
            stablehlo = gr.Code(label=t("pg.inspect.stablehlo"), language=None, interactive=False,
                                elem_id="inspect-stablehlo")
        with tab("pg.field.optimised_hlo", "inspect-hlo-tab"):
            hlo = gr.Code(label=t("pg.inspect.hlo"), language=None,
                          interactive=False, elem_id="inspect-hlo")
            with gr.Accordion(t("pg.inspect.locations"), open=False,
                              elem_id="inspect-hlo-locations-toggle"):
                hlo_locations = gr.Code(label="FileNames, FunctionNames, FileLocations, StackFrames", language=None,
                                        interactive=False, elem_id="inspect-hlo-locations")
        with tab("pg.inspect.costs", "inspect-costs-tab"):
            costs = gr.Markdown(elem_id="inspect-costs")
        with tab("pg.inspect.pytrees", "inspect-pytrees-tab"):
            trees = gr.Markdown(elem_id="inspect-pytrees")
    with gr.Accordion(t("pg.glossary.title"), open=False, elem_id="inspect-glossary"):
        gr.Markdown(t("pg.glossary.body"))
    stdout = gr.Textbox(label=t("pg.inspect.stdout"), visible=False, interactive=False, lines=3)
    files = gr.File(label=t("pg.inspect.files"), file_count="multiple", interactive=False, visible=False,
                    elem_id="inspect-files")
    with gr.Accordion(t("pg.inspect.api_response"), open=False) as raw_panel:
        raw = gr.JSON(label=t("pg.inspect.returned"))
    return [status, result, mapped, jaxpr, stablehlo, hlo, hlo_locations, costs, trees, stdout, files, raw], raw_panel


def render(code: str, response: dict, downloads: DownloadFolder | None = None, lang: str = "en") -> tuple:
    """Turn an /inspect response into the tab's component values (the status in ``lang``)."""
    if not response.get("ok"):
        blank = ("", "", "", "", "", "", "", "")
        link = derivatives_link(code, response["error"])
        opened = f"[{messages.say('inspect.open_in_derivatives', lang)}]({link})" if link else ""
        return (error_markdown(response["error"], lang, then=opened, labels=LABELS["inspect"]), *blank,
                gr.update(value="", visible=False), gr.update(value=None, visible=False), response)
    printed = response.get("stdout", "")
    return (
        views.status_markdown(response, lang, code),
        response.get("result", ""),
        views.source_ir_html(code, response, lang),
        views.for_display(response.get("jaxpr", ""), lang),
        views.for_display(response.get("stablehlo", ""), lang),
        views.for_display(response.get("hlo", ""), lang),
        views.for_display(response.get("hlo_locations", ""), lang),
        views.stages_markdown(response, lang),
        views.pytree_markdown(response["pytree"], lang) if response.get("pytree") else "",
        gr.update(value=printed, visible=bool(printed)),
        gr.update(value=downloads.write(response), visible=True) if downloads else gr.update(visible=False),
        response,
    )


def derivatives_link(code: str, error: dict) -> str | None:
    """``?s=<token>``, a link that opens ``code`` in the Derivatives tab (which runs it), for an error only the jit
    this tab added causes (its fix then says that tab differentiates the code point by point, without jit), where
    the function takes one number, as that tab's curves need; None otherwise."""
    said_without_jit = any(isinstance(piece, list) and piece[:1] == ["tracer.without_jit"]
                           for piece in (error.get("words") or {}).get("fix") or [])
    tree = user_ast.try_parse(code) if said_without_jit else None
    try:
        picked = user_ast.pick_function(tree) if tree is not None else None
    except UserCodeError:
        return None
    function = user_ast.find_function(tree, picked.name) if picked is not None else None
    if function is None or len(function.args.posonlyargs + function.args.args) != 1 \
            or any(default is None for default in function.args.kw_defaults):
        return None
    try:
        return "?s=" + sharing.encode_link(Link("derivatives", {"code": code}), {"derivatives": DERIVATIVES_LINK})
    except ValueError:  # code too long for a link
        return None


class DownloadFolder:
    """The whole IR texts as files to download; one folder, named by content, pruned after an hour."""

    max_age_s = 3600

    def __init__(self) -> None:
        self.path = tempfile.mkdtemp(prefix="jax-playground-downloads-")

    def write(self, response: dict) -> list[str]:
        self._prune()
        paths = []
        for key, name in _DOWNLOADS:
            text = response.get(key, "")
            if key == "hlo" and response.get("hlo_locations"):  # the whole text, as XLA printed it
                header, _, program = text.partition("\n")
                text = f"{header}\n\n{response['hlo_locations']}\n\n{program.lstrip(chr(10))}"
            folder = os.path.join(self.path, hashlib.sha256(text.encode()).hexdigest()[:16])
            os.makedirs(folder, exist_ok=True)
            os.utime(folder)  # still in use: not pruned for another hour
            path = os.path.join(folder, name)
            with open(path, "w") as f:
                f.write(text)
            paths.append(path)
        return paths

    def _prune(self) -> None:
        cutoff = time.time() - self.max_age_s
        for entry in os.scandir(self.path):
            if entry.stat().st_mtime < cutoff:
                for file in os.scandir(entry.path):
                    os.remove(file.path)
                os.rmdir(entry.path)
