"""About tab: versions, devices, the sandbox layers in force, and the limits."""

from __future__ import annotations

import gradio as gr

from playground.api import PlaygroundAPI


def build(api: PlaygroundAPI, demo: gr.Blocks) -> None:
    summary = gr.Markdown(elem_id="about-summary")
    with gr.Accordion("/about response (JSON)", open=False):
        raw = gr.JSON()
    refresh = gr.Button("Refresh", size="sm")

    def on_load():
        info = api.about()
        return to_markdown(info), info

    demo.load(on_load, None, [summary, raw], api_visibility="private")
    refresh.click(on_load, None, [summary, raw], api_visibility="private")
    gr.api(api.about, api_name="about")


def to_markdown(info: dict) -> str:
    versions = ", ".join(f"{name} {version or 'not installed'}" for name, version in info["versions"].items())
    rows = "\n".join(
        f"| {name} | {'✅ active' if layer['active'] else '⚠️ not active'} | {layer['detail']} |"
        for name, layer in info["sandbox"]["layers"].items()
    )
    bounded = "\n".join(
        f"| {name} | {'✅ bounded' if mechanism['active'] else '⚠️ partly'} | {mechanism['detail']} |"
        for name, mechanism in info["sandbox"].get("mechanisms", {}).items()
    )
    devices = ", ".join(info["devices"]) or "unknown (no worker answered)"
    queue = info["queue"]
    return (
        f"**Backend:** {info['backend'] or 'unknown'}  \n**Devices:** {devices}  \n**Versions:** {versions}\n\n"
        f"### What bounds each job\n| resource | state | how |\n|---|---|---|\n{bounded}\n\n"
        f"### Sandbox layers\n| layer | state | detail |\n|---|---|---|\n{rows}\n\n"
        f"**Jobs at once:** {queue['concurrency']}, **waiting at most:** {queue['max_waiting']}"
        + _cache_markdown(queue.get("cache"))
        + _graphs_markdown(info.get("graphs"))
        + _accelerator_markdown(info.get("accelerator"))
        + _training_markdown(info.get("training"))
    )


def _cache_markdown(cache: dict | None) -> str:
    """How many identical jobs the kept results answered (or that the server keeps none)."""
    if cache is None:
        return "  \n**Results of identical jobs:** not kept (PLAYGROUND_RESULT_CACHE=0): every job runs."
    return (f"  \n**Results of identical jobs:** {cache['entries']} kept (at most {cache['max_entries']}, "
            f"{cache['max_bytes'] // 2**20} MB); {cache['hits']} requests answered from them.")


def _graphs_markdown(graphs: dict | None) -> str:
    """Whether the Compiler tab can draw its graphs here."""
    if not graphs:
        return ""
    if graphs["renderer"]:
        return f"  \n**Graphs (Compiler tab):** drawn by Graphviz ({graphs['renderer']})."
    return f"  \n**Graphs (Compiler tab):** ⚠️ not drawn: {graphs['missing']}"


def _accelerator_markdown(accelerator: dict | None) -> str:
    """Which device runs which jobs: the host's GPU or TPU for the speed comparisons, or why every job is on the CPU."""
    if not accelerator:
        return ""
    if not accelerator.get("device"):
        return f"\n\n### Accelerator\nNone in use: {accelerator['why'] or 'every job runs on the CPU'}."
    kinds = ", ".join(accelerator["jobs"])
    return (f"\n\n### Accelerator\n**{accelerator['device']}** ({accelerator['why']}) runs {kinds}; every other job "
            "runs on CPU workers, which start faster. Its workers hold the device's files open through Landlock "
            "and a bounded share of its memory.")


def _training_markdown(training: dict | None) -> str:
    if not training:
        return ""
    return (f"\n\n### Training\n**Runs at once:** {training['slots']} (one per accelerator), **running:** "
            f"{training['running']}, **waiting:** {training['waiting']}, **stopped after:** "
            f"{training['max_run_s']:g} s  \n{training['process']}")
