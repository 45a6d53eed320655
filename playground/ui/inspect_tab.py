"""Inspect tab: a function and its arguments in; its result, jaxpr, StableHLO, HLO and costs out."""

from __future__ import annotations

import hashlib
import html
import os
import tempfile
import time

import gradio as gr

from playground import sharing
from playground.api import PlaygroundAPI
from playground.errors import error_dict
from playground.gallery import EXAMPLES
from playground.ui import inspect_views as views
from playground.ui import progress

DEFAULT = EXAMPLES[0]
# Builds the full link in the browser (only it knows the public address) and copies it.
COPY_LINK_JS = """(token) => {
  if (!token) return "";
  const url = window.location.origin + window.location.pathname + "?s=" + token;
  if (navigator.clipboard) navigator.clipboard.writeText(url).catch(() => {});
  return url;
}"""
_DOWNLOADS = (("jaxpr", "jaxpr.txt"), ("stablehlo", "stablehlo.mlir"), ("hlo", "optimised_hlo.txt"))


def build(api: PlaygroundAPI, demo: gr.Blocks, concurrency: int, concurrency_id: str) -> None:
    with gr.Row():
        with gr.Column(scale=3):
            code = gr.Code(DEFAULT.code, language="python", lines=12, label="Your function (f, or the last def)",
                           elem_id="inspect-code")
        with gr.Column(scale=2):
            args = gr.Textbox(DEFAULT.args, label="Arguments (a Python expression; a tuple gives several)",
                              info="jax, jnp, np and lax are in scope", elem_id="inspect-args")
            static = gr.Textbox(label="static_argnums", placeholder="e.g. 1, or 0, 2", elem_id="inspect-static")
            second = gr.Textbox(label="Call again with (optional): does jit retrace?",
                                placeholder="e.g. jnp.arange(5.0)", elem_id="inspect-second")
            # Inspect compiles for the CPU (its workers start fast); the host's GPU or TPU on request.
            on_device = gr.Checkbox(False, label=f"Compile for the accelerator ({api.accelerator or 'none here'})",
                                    info="XLA optimises differently for a GPU or TPU: other fusions, other kernels",
                                    visible=bool(api.accelerator), elem_id="inspect-on-accelerator")
            with gr.Row():
                run = gr.Button("Run", variant="primary", elem_id="inspect-run")
                share = gr.Button("Copy link", elem_id="inspect-share")
            link = gr.Textbox(label="Share link", visible="hidden", interactive=False, elem_id="inspect-link",
                              buttons=["copy"])
            token = gr.Textbox(visible="hidden")
    gr.Examples([[e.code, e.args, e.static_argnums, e.second_args] for e in EXAMPLES], [code, args, static, second],
                example_labels=[e.name for e in EXAMPLES], label="Examples")
    status = gr.Markdown(elem_id="inspect-status")
    result = gr.Textbox(label="Result", lines=2, interactive=False, elem_id="inspect-result")
    with gr.Tabs():
        with gr.Tab("Source ↔ IR"):
            mapped = gr.HTML(elem_id="inspect-source-map")
        with gr.Tab("jaxpr"):
            jaxpr = gr.Code(label="jaxpr: the program JAX traced", language=None, interactive=False,
                            elem_id="inspect-jaxpr")
        with gr.Tab("StableHLO"):
            stablehlo = gr.Code(label="StableHLO: what jit hands to XLA", language=None, interactive=False,
                                elem_id="inspect-stablehlo")
        with gr.Tab("Optimised HLO"):
            hlo = gr.Code(label="HLO after XLA's optimisations (note the fusions)", language=None,
                          interactive=False, elem_id="inspect-hlo")
            with gr.Accordion("Source-location tables (what stack_frame_id refers to)", open=False,
                              elem_id="inspect-hlo-locations-toggle"):
                hlo_locations = gr.Code(label="FileNames, FunctionNames, FileLocations, StackFrames", language=None,
                                        interactive=False, elem_id="inspect-hlo-locations")
        with gr.Tab("Cost & timing"):
            costs = gr.Markdown(elem_id="inspect-costs")
        with gr.Tab("Pytrees"):
            trees = gr.Markdown(elem_id="inspect-pytrees")
    stdout = gr.Textbox(label="Output (what your code printed)", visible=False, interactive=False, lines=3)
    files = gr.File(label="Whole texts", file_count="multiple", interactive=False, visible=False,
                    elem_id="inspect-files")
    with gr.Accordion("API response (JSON)", open=False):
        raw = gr.JSON(label="/inspect returned")

    downloads = DownloadFolder()

    outputs = [status, result, mapped, jaxpr, stablehlo, hlo, hlo_locations, costs, trees, stdout, files, raw]

    def on_run(code_text: str, args_text: str, static_text: str, second_text: str, accelerator: bool):
        """First the stages (result, jaxpr, StableHLO, HLO, cost), then the checks that run the function again."""
        try:
            argnums = parse_argnums(static_text)
        except ValueError as exc:
            yield render(code_text, error_dict("invalid_input", str(exc)), downloads)
            return
        yield from progress.follow(api.inspect(code_text, args_text, argnums, second_text, bool(accelerator)),
                                   lambda response: render(code_text, response, downloads), len(outputs))

    run.click(on_run, [code, args, static, second, on_device], outputs,
              api_visibility="private", concurrency_limit=concurrency, concurrency_id=concurrency_id)
    gr.api(api.inspect, api_name="inspect", concurrency_limit=concurrency, concurrency_id=concurrency_id)

    share.click(make_token, [code, args, static, second], [token], api_visibility="private").then(
        None, [token], [link], js=COPY_LINK_JS, api_visibility="private").then(
        lambda url: gr.update(visible=bool(url)), [link], [link], api_visibility="private")
    demo.load(restore_from_link, None, [code, args, static, second], api_visibility="private")


def parse_argnums(text: str) -> list[int] | None:
    """'1' or '0, 2' -> [1] or [0, 2]; blank -> None."""
    parts = [p for p in text.replace(",", " ").split()]
    if not parts:
        return None
    try:
        return [int(p) for p in parts]
    except ValueError:
        raise ValueError(f"static_argnums must be whole numbers separated by commas, got {text!r}") from None


def render(code: str, response: dict, downloads: DownloadFolder | None = None) -> tuple:
    """Turn an /inspect response into the tab's component values."""
    if not response.get("ok"):
        blank = ("", "", "", "", "", "", "", "")
        return (views.error_markdown(response["error"]), *blank, gr.update(value="", visible=False),
                gr.update(value=None, visible=False), response)
    printed = response.get("stdout", "")
    return (
        views.status_markdown(response),
        response.get("result", ""),
        views.source_ir_html(code, response),
        views.for_display(response.get("jaxpr", "")),
        views.for_display(response.get("stablehlo", "")),
        views.for_display(response.get("hlo", "")),
        views.for_display(response.get("hlo_locations", "")),
        views.stages_markdown(response),
        views.pytree_markdown(response["pytree"]) if response.get("pytree") else "",
        gr.update(value=printed, visible=bool(printed)),
        gr.update(value=downloads.write(response), visible=True) if downloads else gr.update(visible=False),
        response,
    )


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


def make_token(code: str, args: str, static: str, second: str) -> str:
    try:
        return sharing.encode_state({"code": code, "args": args, "static_argnums": static, "second_args": second})
    except ValueError as exc:
        gr.Warning(html.escape(str(exc)))  # Gradio's toasts render HTML
        return ""


def restore_from_link(request: gr.Request):
    """Open a shared link: put its code and options back; a bad link gets a friendly notice."""
    token = request.query_params.get("s") if request else None
    if not token:
        return (gr.update(),) * 4
    try:
        state = sharing.decode_state(token)
    except ValueError as exc:
        gr.Warning(html.escape(f"This share link could not be opened: {exc}"))  # the link is anyone's text
        return (gr.update(),) * 4
    return state["code"], state["args"], state["static_argnums"], state["second_args"]
