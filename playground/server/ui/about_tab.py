"""About tab: what the app is for and where to start; versions, devices, the sandbox layers in force, the limits."""

from __future__ import annotations

import gradio as gr

from playground import messages
from playground.jobs import WHEN_ASKED
from playground.messages import numbers
from playground.server.ui import language
from playground.server.ui import markdown as md
from playground.server.ui.tabs import Tab, TabContext
from playground.server.ui.translations import t

TAB = Tab("pg.tab.about", "about", 80)


def build(context: TabContext) -> None:
    api = context.api
    gr.Markdown(t("pg.about.intro"), elem_id="about-intro")
    summary = gr.Markdown(elem_id="about-summary")
    with gr.Accordion(t("pg.about.raw"), open=False):
        raw = gr.JSON()
    refresh = gr.Button(t("pg.about.refresh"), size="sm")

    def on_load(request: gr.Request | None = None):
        info = api.about()
        return to_markdown(info, language.of(request)), info

    context.demo.load(on_load, None, [summary, raw])
    refresh.click(on_load, None, [summary, raw])


def to_markdown(info: dict, language: str = "en") -> str:
    """The /about answer as Markdown: our labels in ``language``, the details as the API reports them."""
    def say(key: str, **params: object) -> str:
        return messages.say(key, language, **params)

    ok, warning = md.verdict("ok", language), md.verdict("warning", language)
    versions = ", ".join(f"{name} {version or say('about.not_installed')}"
                         for name, version in info["versions"].items())
    rows = "\n".join(
        f"| {name} | {ok + ' ' + say('about.active') if layer['active'] else warning + ' ' + say('about.not_active')}"
        f" | {layer['detail']} |"
        for name, layer in info["sandbox"]["layers"].items()
    )
    bounded = "\n".join(
        f"| {name} | {ok + ' ' + say('about.bounded') if mechanism['active'] else warning + ' ' + say('about.partly')}"
        f" | {mechanism['detail']} |"
        for name, mechanism in info["sandbox"].get("mechanisms", {}).items()
    )
    devices = ", ".join(info["devices"]) or say("about.no_devices")
    queue = info["queue"]
    local = f"{warning} {say('about.local_mode')}\n\n" if info["sandbox"].get("mode") == "process" else ""
    return (
        local + say("about.head", backend=info["backend"] or say("about.unknown"), devices=devices, versions=versions)
        + f"\n\n{say('about.bounds')}\n|---|---|---|\n{bounded}\n\n"
        f"{say('about.layers')}\n|---|---|---|\n{rows}\n\n"
        + say("about.queue", concurrency=queue["concurrency"], waiting=queue["max_waiting"])
        + _cache_markdown(queue.get("cache"), say, language)
        + _graphs_markdown(info.get("graphs"), say, warning)
        + _pools_markdown(info["sandbox"], say)
        + _accelerator_markdown(info.get("accelerator"), say)
        + _owner_markdown(info["sandbox"].get("device_owner"), info.get("accelerator") or {}, say, language)
        + _training_markdown(info.get("training"), say, language)
    )


def _cache_markdown(cache: dict | None, say, language: str) -> str:
    """How many identical jobs the kept results answered (or that the server keeps none)."""
    if cache is None:
        return "  \n" + say("about.no_cache")
    return "  \n" + say("about.cache", entries=numbers.number(cache["entries"], language),
                         max_entries=numbers.number(cache["max_entries"], language),
                         mb=numbers.number(cache["max_bytes"] // 2**20, language),
                         hits=numbers.number(cache["hits"], language))


def _graphs_markdown(graphs: dict | None, say, warning: str) -> str:
    """Whether the Compiler tab can draw its graphs here."""
    if not graphs:
        return ""
    if graphs["renderer"]:
        return "  \n" + say("about.graphs", renderer=graphs["renderer"])
    return "  \n" + say("about.no_graphs", warning=warning, missing=graphs["missing"])


def _pools_markdown(sandbox: dict, say) -> str:
    """The backend each pool's warm workers reported opening (not what the device files suggest)."""
    seen = []
    for name, key in (("CPU", "pool"), ("Parallel", "parallel_pool")):
        status = sandbox.get(key) or {}
        if status.get("backend"):
            seen.append(f"{name}: {status['backend']} ({', '.join(status.get('devices') or [])})")
    return "  \n" + say("about.pool_backend", pools=md.text("; ".join(seen))) if seen else ""


def _accelerator_markdown(accelerator: dict | None, say) -> str:
    """The host's GPU or TPU, or why the jobs that measure run on the CPU."""
    if not accelerator:
        return ""
    if not accelerator.get("device"):
        return "\n\n" + say("about.no_accelerator", why=md.text(accelerator["why"] or say("about.cpu_only")))
    return "\n\n" + say("about.accelerator", device=accelerator["device"], why=md.text(accelerator["why"]))


# Each job kind (playground/jobs REGISTRY) by the tab that sends it, in the tabs' order: About names tabs, which the
# reader sees, not kinds. "about" is this tab's own job.
JOB_TABS = {"inspect": "pg.tab.inspect", "passes": "pg.tab.compiler", "graph": "pg.tab.compiler",
            "compare": "pg.tab.compiler", "derivatives": "pg.tab.derivatives", "gradient": "pg.tab.derivatives",
            "vmap": "vmap", "jit_speed": "jit", "speed_of_light": "pg.tab.speed", "device_ceilings": "pg.tab.speed",
            "pallas": "pg.tab.pallas", "shard": "pg.tab.parallel", "parallel_demos": "pg.tab.parallel",
            "about": "pg.tab.about"}


def _tabs_on_device(jobs: list[str], say, language: str) -> tuple[str, str]:
    """The tabs whose jobs the owner runs (those that run there when asked, marked so), and those whose jobs run
    in the CPU sandbox, each listed in ``language``."""
    def name(key: str) -> str:
        return say(key) if key.startswith("pg.") else key

    asked = {job.removesuffix(WHEN_ASKED): job.endswith(WHEN_ASKED) for job in jobs}
    on_device: dict[str, bool] = {}
    for kind, when_asked in asked.items():
        tab = JOB_TABS.get(kind)
        if tab is not None:
            on_device[tab] = on_device.get(tab, True) and when_asked
    there = [name(tab) + (say("about.when_asked") if when_asked else "") for tab, when_asked in on_device.items()]
    elsewhere = list(dict.fromkeys(name(tab) for kind, tab in JOB_TABS.items()
                                   if tab not in on_device and kind != "about"))
    return (messages.listed(there, language) if there else say("about.no_tab"),
            messages.listed(elsewhere, language))


def _owner_markdown(owner: dict | None, accelerator: dict, say, language: str) -> str:
    """The one process that holds the device: what it runs, its layers, its memory, its restarts; on a GPU or TPU,
    what its driver needed beyond its device files."""
    if not owner:
        return ""
    layers = "; ".join(f"{name} {say('about.active') if layer['active'] else say('about.not_active')}"
                       for name, layer in owner["layers"].items())
    last = say("about.owner_last_end", why=md.text(owner["last_end"])) if owner.get("last_end") else ""
    resident = numbers.number(owner["resident_mb"], language) if owner.get("resident_mb") is not None else "?"
    on_device = owner.get("grants") and owner.get("platform") != "cpu"
    grants = say("about.grants", grants=md.text(owner["grants"])) if on_device else ""
    cache = owner.get("compile_cache")
    if cache:
        grants += say("about.compile_cache_on" if cache["active"] else "about.compile_cache_off",
                      detail=md.text(cache["detail"]))
    there, elsewhere = _tabs_on_device(accelerator.get("jobs") or [], say, language)
    return "\n\n" + say("about.owner", device=md.text(owner.get("device") or owner["platform"]),
                          pid=owner.get("pid") or "?", kinds=there, elsewhere=elsewhere,
                          layers=md.text(layers), resident=resident,
                          limit=numbers.number(owner["memory_limit_mb"], language),
                          restarts=owner["restarts"], last=last) + grants


def _training_markdown(training: dict | None, say, language: str) -> str:
    if not training:
        return ""
    return "\n\n" + say("about.training", slots=training["slots"], running=training["running"],
                          waiting=training["waiting"], max_run_s=numbers.figures(training["max_run_s"], language, 6),
                          process=training["process"])
