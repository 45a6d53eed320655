"""The race: one configuration trained on the host's CPU and on the device at the same time, compared.

The owner trains both sides (owner/training/race.py); the service follows each side's stream on a thread of its own
(``follow``), so that neither waits for the other, and every update it yields holds both sides' latest, stamped
with the seconds since Start (the request) as the server saw them: the two loss curves share one wall clock. The
last update adds ``comparison``: each side's training speed (the median of its updates' samples/s, which the loop
measures over about the last second of chunks: compiling is not in it) and its time from Start to 97 % test
accuracy (the whole test set, measured at each epoch's end and at the run's end), both from the service's record
of the run (run_record.py), and the speed ratio.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Iterator

from playground.messages import number, piece, render
from playground.server.training.run_record import TARGET_ACCURACY

SIDES = ("cpu", "device")
MAX_POINTS = 2_000  # per side in an update's history
_POLL_S = 0.1


def follow(sides: dict[str, Iterator[dict]], names: dict[str, str], stop: threading.Event,
           started: float | None = None) -> Iterator[dict]:
    """Both sides' updates as they come: ``{"phase", "elapsed_s", "cpu", "device", "done"}``, each side's latest
    update with its ``device`` named as in ``names`` (two simulated CPU devices read alike otherwise) and
    ``history``, its ``[seconds, loss]`` points so far, seconds since ``started`` (Start: when the request came,
    time.monotonic(); now, if None), the clock the run records count their time to 97 % on. A side that fails
    stops the other and raises; a consumer that goes away stops both."""
    started = time.monotonic() if started is None else started
    arrived: queue.Queue = queue.Queue()
    for side, updates in sides.items():
        threading.Thread(target=_pump, args=(side, updates, arrived), name=f"race-{side}", daemon=True).start()
    tracks = {side: _Track(names[side]) for side in sides}
    running, finished = set(sides), False
    try:
        while running:
            try:
                side, update, failure = arrived.get(timeout=_POLL_S)
            except queue.Empty:
                continue
            if failure is not None:
                raise failure
            if update is None:
                running.discard(side)
                continue
            tracks[side].add(update, time.monotonic() - started)
            yield _both(tracks, time.monotonic() - started, done=False)
        finished = True
    finally:
        if not finished:  # a side failed, or the consumer went away: the other side stops too
            stop.set()
    yield {**_both(tracks, time.monotonic() - started, done=True), "comparison": compare(tracks)}


class _Track:
    """One side as the race saw it: its latest update, and its loss over the race's clock: every step's, from the
    ``losses`` each update brings, the last at the update's arrival and those before it one step's time apart (the
    update's seconds per epoch over its steps per epoch), none before the update before it arrived."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.latest: dict = {"phase": "starting"}
        self.history: list[list[float]] = []  # [seconds since Start, loss]
        self._last_seen = 0.0

    def add(self, update: dict, seconds: float) -> None:
        self.latest = update
        losses = update.get("losses") or []
        steps_per_epoch = (update.get("step") or 0) / (update.get("epoch") or 1.0)
        step_s = (update.get("seconds_per_epoch") or 0.0) / max(steps_per_epoch, 1.0)
        self.history += [[round(max(self._last_seen, seconds - step_s * (len(losses) - 1 - i)), 4), loss]
                         for i, loss in enumerate(losses)]
        while len(self.history) > MAX_POINTS:  # a long race: every other point, so the page stays light
            self.history = self.history[::2]
        self._last_seen = seconds

    def view(self) -> dict:
        return {**self.latest, "device": self.name, "history": list(self.history)}

    def measured(self) -> dict:
        """The side's figures from its last update: the median of its rates, and its time to the target (both
        counted by the service's run record from the same Start)."""
        return {"name": self.name, "samples_per_s": self.latest.get("median_samples_per_s"),
                "to_target_s": self.latest.get("time_to_target_s"), "stopped": bool(self.latest.get("stopped"))}


def _pump(side: str, updates: Iterator[dict], arrived: queue.Queue) -> None:
    try:
        for update in updates:
            arrived.put((side, update, None))
        arrived.put((side, None, None))
    except BaseException as exc:  # handed to the race's own thread, which raises it
        arrived.put((side, None, exc))


def _both(tracks: dict[str, _Track], seconds: float, done: bool) -> dict:
    phases = {track.latest.get("phase") for track in tracks.values()}
    phase = "finished" if done else "training" if "training" in phases else sorted(map(str, phases))[0]
    return {"phase": phase, "elapsed_s": seconds, "done": done, **{side: t.view() for side, t in tracks.items()}}


def compare(tracks: dict[str, _Track]) -> dict:
    """``{"cpu", "device"}`` each ``{"name", "samples_per_s", "to_target_s", "stopped"}``, and ``speedup`` (device
    / CPU samples/s; None where either side trained too briefly to measure), with ``message`` and
    ``message_words``."""
    sides = {side: tracks[side].measured() for side in SIDES}
    cpu, device = sides["cpu"]["samples_per_s"], sides["device"]["samples_per_s"]
    speedup = device / cpu if cpu and device else None
    target = tracks["device"].latest.get("target_accuracy") or TARGET_ACCURACY  # both sides train on the same data
    words = said({**sides, "target_accuracy": target}, speedup, "en")
    return {**sides, "speedup": speedup, "target_accuracy": target, "message": render([words]),
            "message_words": words}


def said(sides: dict, speedup: float | None, language: str) -> list:
    """The comparison in a sentence, its numbers written as ``language`` writes them: a catalogue piece. ``sides``
    (compare's) may say the ``target_accuracy`` whose times it gives; 97 % where it does not."""
    cpu, device = sides["cpu"], sides["device"]
    if speedup is None:
        return piece("race.unmeasured")
    reached = {side: (piece("race.reached", seconds=number(sides[side]["to_target_s"], language, 1))
                      if sides[side]["to_target_s"] is not None else piece("race.not_reached"))
               for side in SIDES}
    times = speedup if speedup >= 1 else 1 / speedup  # "3× slower", not "0.3× faster"
    return piece("race.result" if speedup >= 1 else "race.result_slower", device=device["name"],
                 times=number(times, language, 1 if times < 10 else 0),
                 device_rate=number(device["samples_per_s"], language), cpu_rate=number(cpu["samples_per_s"], language),
                 device_reached=reached["device"], cpu_reached=reached["cpu"],
                 target=number(100 * (sides.get("target_accuracy") or TARGET_ACCURACY), language))
