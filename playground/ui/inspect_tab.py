"""Inspect tab: a function and its arguments in; its result and jaxpr out."""

from __future__ import annotations

import gradio as gr

from playground.api import PlaygroundAPI

DEFAULT_CODE = "def f(x):\n    return x + x*x + x*x*x\n"
DEFAULT_ARGS = "jnp.arange(4.0)"


def build(api: PlaygroundAPI, concurrency: int, concurrency_id: str) -> None:
    with gr.Row():
        with gr.Column(scale=3):
            code = gr.Code(DEFAULT_CODE, language="python", lines=10, label="Your function (f, or the last def)",
                           elem_id="inspect-code")
        with gr.Column(scale=2):
            args = gr.Textbox(DEFAULT_ARGS, label="Arguments (a Python expression; a tuple gives several)",
                              info="jax, jnp, np and lax are in scope", elem_id="inspect-args")
            run = gr.Button("Run", variant="primary", elem_id="inspect-run")
            status = gr.Markdown(elem_id="inspect-status")
            result = gr.Textbox(label="Result", lines=3, interactive=False, elem_id="inspect-result")
    jaxpr = gr.Code(label="jaxpr: the program JAX traced", language=None, interactive=False,
                    elem_id="inspect-jaxpr")
    stdout = gr.Textbox(label="Output (what your code printed)", visible=False, interactive=False, lines=3)
    with gr.Accordion("API response (JSON)", open=False):
        raw = gr.JSON(label="/inspect returned")

    def on_run(code_text: str, args_text: str):
        return render(api.inspect(code_text, args_text))

    run.click(on_run, [code, args], [status, result, jaxpr, stdout, raw], api_visibility="private",
              concurrency_limit=concurrency, concurrency_id=concurrency_id)
    gr.api(api.inspect, api_name="inspect", concurrency_limit=concurrency, concurrency_id=concurrency_id)


def render(response: dict) -> tuple:
    """Turn an /inspect response into the tab's component values."""
    if not response.get("ok"):
        return (error_markdown(response["error"]), "", "", gr.update(value="", visible=False), response)
    notes = "".join(f"\n- {w}" for w in response.get("warnings", []))
    status = f"✅ Traced `{response.get('function', '?')}`." + (f"\n\n**Notes**{notes}" if notes else "")
    printed = response.get("stdout", "")
    return (status, response.get("result", ""), response.get("jaxpr", ""),
            gr.update(value=printed, visible=bool(printed)), response)


def error_markdown(error: dict) -> str:
    titles = {
        "syntax": "Syntax error", "user_exception": "Your code raised an exception", "timeout": "Too slow",
        "memory": "Out of memory", "crashed": "The sandbox worker crashed", "forbidden": "Not allowed",
        "invalid_input": "Invalid input", "busy": "Busy, try again",
    }
    where = f" on line {error['line']}" if error.get("line") else ""
    message = error["message"].replace("```", "'''")
    return f"❌ **{titles.get(error['kind'], 'Error')}{where}**\n\n```\n{message}\n```"
