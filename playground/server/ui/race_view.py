"""The Train tab's race: the host's CPU against its accelerator, the tab's settings trained on both at once.

It streams ``api.race`` (server/training/race_stream.py): both loss curves on one clock, each side's progress, and at
the end the comparison in a sentence. Where the device owner holds no accelerator there is no race, and the section
says why instead of offering one.
"""

from __future__ import annotations

from collections.abc import Iterator

import gradio as gr

from playground.messages import number, render, say
from playground.server.api import PlaygroundAPI
from playground.server.training import race_stream
from playground.server.ui import language
from playground.server.ui.error_views import error_markdown
from playground.server.ui.field_labels import TRAIN_LABELS
from playground.server.ui.figures.race_plots import race_figure
from playground.server.ui.tabs import TabContext
from playground.server.ui.train_views import status_markdown, train_config
from playground.server.ui.translations import t


def build(context: TabContext, fields: dict, start: gr.Button, stop: gr.Button) -> None:
    """The race's section, below the tab's own curves; its button trains the settings in ``fields``."""
    api = context.api
    with gr.Accordion(t("pg.race.title"), open=False, elem_id="race"):
        intro = gr.Markdown(elem_id="race-intro")
        run = gr.Button(t("pg.race.run"), elem_id="race-run", interactive=sides(api) is not None)
        plot = gr.Plot(race_figure({}, offered=sides(api) is not None), label=t("pg.race.plot"), elem_id="race-plot")
        said = gr.Markdown(elem_id="race-said")

    def on_race(dataset, layers, optimizer, rate, batch, epochs, seed, split_batches,
                request: gr.Request) -> Iterator[tuple]:  # Gradio passes the request only to a named parameter
        settings = train_config(dataset, layers, optimizer, rate, batch, epochs, seed, split_batches)
        yield from stream_race(api, settings, request.session_hash, language.of(request))

    def on_load(request: gr.Request) -> tuple:
        lang = language.of(request)
        pair = sides(api)
        return introduction(pair, lang), race_figure({}, lang, offered=pair is not None)

    buttons = [start, run, stop]
    busy = run.click(lambda: (gr.update(interactive=False),) * 2 + (gr.update(interactive=True),), None, buttons,
                     queue=False)
    busy.then(on_race, list(fields.values()), [plot, said], **context.line("training")).then(
        lambda: (gr.update(interactive=True),) * 2 + (gr.update(interactive=False),), None, buttons, queue=False)
    context.demo.load(on_load, None, [intro, plot], queue=False)


def sides(api: PlaygroundAPI) -> dict | None:
    """The two devices a race pits against each other (``{"cpu", "device"}``), or None where there is no race."""
    training = api.about().get("training") or {}
    return training.get("race")


def introduction(pair: dict | None, language: str) -> str:
    if pair is None:
        return say("race.unavailable", language)
    return say("race.intro", language, cpu=pair["cpu"], device=pair["device"])


def stream_race(api: PlaygroundAPI, settings: dict, session: str, lang: str) -> Iterator[tuple]:
    """The race's updates as (figure, words): the status before it begins, each side's progress while it runs,
    the comparison at the end."""
    for update in api.race(settings, session):
        if not update["ok"]:
            yield gr.skip(), error_markdown(update["error"], lang, labels=TRAIN_LABELS)
            return
        if "device" not in update or not isinstance(update["device"], dict):  # data, queued: the run's own words
            yield gr.skip(), status_markdown(update, lang)
            continue
        sides_now = {side: update[side] for side in race_stream.SIDES}
        if update["done"]:
            comparison = update["comparison"]
            said = race_stream.said(comparison, comparison["speedup"], lang)
            yield race_figure(sides_now, lang), render([said], lang)
        else:
            sides = " · ".join(progress(sides_now[side], lang) for side in race_stream.SIDES)
            yield race_figure(sides_now, lang), sides


def progress(update: dict, lang: str) -> str:
    """One side's progress: "CPU · cpu: epoch 1.4 of 5, 51,426 samples/s"."""
    name = update.get("device") or "…"
    if update.get("phase") in ("starting", "compiling"):
        return say("race.preparing", lang, name=name)
    if update.get("phase") != "training":
        return say("race.done", lang, name=name)
    return say("race.progress", lang, name=name, epoch=number(update.get("epoch") or 0.0, lang, 1),
               epochs=number(update.get("epochs") or 0, lang), rate=number(update.get("samples_per_s") or 0.0, lang))
