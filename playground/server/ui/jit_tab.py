"""jit tab: the classic benchmark x + x*x + x*x*x, NumPy vs eager JAX vs jitted JAX, why jit wins (fusion), and
where it loses (dispatch overhead on small inputs)."""

from __future__ import annotations

import gradio as gr

from playground import messages, validation
from playground.gallery import JIT_BENCHMARK_CODE
from playground.jobs.arguments import MAX_REPEATS
from playground.messages import numbers
from playground.server.api import PlaygroundAPI
from playground.server.links.fields import TabSchema, fields_of
from playground.server.ui import code_form, jit_views, measure_again, progress, share_links
from playground.server.ui import markdown as md
from playground.server.ui.error_views import error_markdown
from playground.server.ui.field_labels import LABELS
from playground.server.ui.figures import plots
from playground.server.ui.layout import SIDE_BY_SIDE_MIN_PX, beside
from playground.server.ui.tabs import Tab, TabContext
from playground.server.ui.timing_views import parse_sizes, times_table
from playground.server.ui.translations import t

TAB = Tab("jit", "jit", 50)

# What a jit link holds, and the controls a class link can hide (with the words its checkboxes say).
HIDEABLE = {"sizes": "Sizes n", "repeats": "Timed runs per size"}
LINK = TabSchema(fields_of("jit_speed"), tuple(HIDEABLE))


def build(context: TabContext) -> share_links.Sharing:
    api = context.api
    form = code_form.form(TAB.id, code_form.Editor(JIT_BENCHMARK_CODE, 5, "pg.jit.function"), lambda: _fields(api),
                          HIDEABLE, intro=t("pg.jit.intro"), run="pg.jit.run", again=True)
    code, sizes, repeats = form.fields.values()
    status = code_form.status("jit")
    with gr.Row():
        chart = gr.Plot(label=t("pg.jit.chart"), elem_id="jit-plot", min_width=SIDE_BY_SIDE_MIN_PX)
        with beside():
            table = gr.Markdown(elem_id="jit-table")
    why = gr.Markdown(elem_id="jit-why")

    def measure(code_text: str, sizes_text: str, runs: float, fresh: bool, lang: str):
        try:
            size_list = parse_sizes(sizes_text, "sizes")
        except validation.Refused as exc:
            yield *render(exc.error, lang), measure_again.hidden()
            return
        yield running(size_list, int(runs), lang), None, "", "", measure_again.hidden()  # the last run's results go
        yield from progress.follow(api.jit_speed(code_text, size_list, int(runs), fresh=fresh),
                                   lambda response: (*render(response, lang), measure_again.shown(response)), 5,
                                   language=lang)

    for button, handler in zip((form.run, form.again), measure_again.handlers(measure), strict=True):
        button.click(handler, [code, sizes, repeats], [status, chart, table, why, form.again], **context.line("device"))
    return form.sharing(LINK, {"sizes": [sizes], "repeats": [repeats]})


def _fields(api: PlaygroundAPI) -> dict:
    """The sizes and the timed runs per size, by the names of /jit_speed's arguments."""
    return {"sizes": gr.Textbox(", ".join(map(str, api.default_matrix_sizes())), label=t("pg.jit.sizes"),
                                elem_id="jit-sizes"),
            "repeats": gr.Slider(1, MAX_REPEATS, value=5, step=1, label=t("pg.jit.repeats"))}


def running(sizes: list[int], repeats: int, lang: str = "en") -> str:
    """The status from Run on, before the first size's row: what is being done, and at which sizes."""
    listed = messages.listed([numbers.number(n, lang) for n in sizes], lang)
    said = messages.say("jit.running", lang, repeats=numbers.number(repeats, lang), sizes=listed)
    return f"{md.verdict('busy', lang)} {said}"


def render(response: dict, lang: str = "en") -> tuple:
    """The status, chart, table and narrative of a /jit_speed response; our words in ``lang``."""
    if not response.get("ok"):
        return error_markdown(response["error"], lang, labels=LABELS["jit_speed"]), None, "", ""

    def say(key: str, **params: object) -> str:
        return messages.say(key, lang, **params)

    sizes = response["sizes"]
    eager = say("jit.eager")
    series = {"NumPy": response["numpy_s"], eager: response["eager_s"], "jit": response["jit_s"]}
    agreement = jit_views.agreement_line(response, lang)
    notes = [f"{md.verdict('ok', lang)} {say('jit.measured', device=md.text(response['device']), agreement=agreement)}"]
    notes += [f"- {note}" for note in progress.source_notes(response, lang)]
    notes += [f"- {say('jit.skipped', size=numbers.number(s['size'], lang), reason=md.text(s['reason']))}"
              for s in response.get("skipped", [])]
    chart = plots.timings_figure(say("plot.jit"), say("plot.jit_x"), [n * n for n in sizes], series, lang)
    compile_row = " · ".join(f"n = {numbers.number(n, lang)}: {numbers.duration(c, lang)}"
                             for n, c in zip(sizes, response["compile_s"], strict=True))
    baseline = "NumPy" if any(response["numpy_s"]) else eager
    table = times_table("n", sizes, series, baseline, lang) + f"\n\n{say('jit.compile_time', row=compile_row)}"
    if pending := response.get("pending_sizes"):  # an early reply: the table so far, the next size on its way
        every = [numbers.number(n, lang) for n in [*sizes, *pending]]
        measuring = say("jit.measuring", done=messages.listed(every[:len(sizes)], lang),
                        all=messages.listed(every, lang), next=every[len(sizes)])
        return f"{md.verdict('busy', lang)} {measuring}", chart, table, ""
    why = jit_views.why_markdown(response, lang)
    return "\n".join(notes), chart, table, why
