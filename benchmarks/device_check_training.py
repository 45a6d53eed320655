"""The device check's training rows, through ``/train`` and ``/race`` (device_check.py): a run's rate and accuracy,
its time to the target, the data-parallel variant, the wait for the first curve point, the race."""

from __future__ import annotations

import time

import train_throughput
from device_check_table import failed

from playground.mnist.catalogue import Dataset
from playground.server.api import PlaygroundAPI, final

NEW_BATCH = 96  # a configuration no other run of the check has, to time a first compile


def training_rows(api: PlaygroundAPI, epochs: int, data_note: str, data: Dataset, found: dict
                  ) -> list[tuple[str, str]]:
    config = {"epochs": epochs, "layers": list(train_throughput.LAYERS), "batch_size": train_throughput.BATCH}
    run = Watched(api.train(config, "device-check"))
    rate, per_epoch = rate_of(run, len(data.train_images))
    last = run.updates[-1]
    if not last.get("ok") or not last.get("done"):
        return [("training", failed(last))]
    if rate is None:
        return [("training", f"too short to time: {len(run.updates)} updates")]
    found.update(train=(rate, per_epoch, len(data.train_images)), epochs=epochs)
    rows = [
        ("training data", f"{data_note}: {last['n_train']:,} training, {last['n_test']:,} test images"),
        ("training on", last["device"]),
        ("app: samples/s, ms/epoch", f"{rate:,.0f}, {per_epoch * 1000:,.1f} ms"),
        ("final test accuracy", f"{last['test_accuracy']:.2%} after {epochs} epochs"),
        target_row(last, epochs),
    ]
    devices = len(api.about()["devices"])
    if devices >= 2:
        parallel = Watched(api.train({**config, "data_parallel": True}, "device-check"))
        p_rate, p_epoch = rate_of(parallel, len(data.train_images))
        if parallel.updates[-1].get("ok") and p_rate is not None:
            rows.append((f"data-parallel over {devices}: samples/s, ms/epoch",
                         f"{p_rate:,.0f}, {p_epoch * 1000:,.1f} ms"))
        else:
            rows.append(("data-parallel", failed(parallel.updates[-1])))
    else:
        rows.append(("data-parallel", "skipped: one device"))
    return rows


def first_point_rows(api: PlaygroundAPI) -> list[tuple[str, str]]:
    """Seconds from Start to the first curve point (the first update with a step's loss), one epoch each: the
    default configuration, one new to the owner (a batch size no run had), and that one again."""
    new = {"epochs": 1, "batch_size": NEW_BATCH}
    return [(f"first curve point, {name}", first_point(api, config)) for name, config in (
        ("default configuration", {"epochs": 1}), (f"new configuration (batch {NEW_BATCH})", new),
        ("that configuration again", new))]


def first_point(api: PlaygroundAPI, config: dict) -> str:
    started, seen, cache, last = time.perf_counter(), None, None, {}
    for last in api.train(config, "device-check"):
        cache = last.get("compile_cache") or cache
        if seen is None and last.get("losses"):
            seen = time.perf_counter() - started
    if seen is None:
        return failed(last)
    return f"{seen:.2f} s after Start (its programs: {cache or 'no compilation cache'})"


def race_rows(api: PlaygroundAPI, epochs: int) -> list[tuple[str, str]]:
    """The race of the host's CPU against the device, the training row's configuration on both at once."""
    if not (api.about().get("training") or {}).get("race"):
        return [("race", "not offered: the owner holds no device besides the host's CPU")]
    config = {"epochs": epochs, "layers": list(train_throughput.LAYERS), "batch_size": train_throughput.BATCH}
    last = final(api.race(config, "device-check"))
    if not last.get("ok"):
        return [("race", failed(last))]
    comparison = last["comparison"]
    return [("race: the comparison", comparison["message"]),
            ("race: speed-up (median samples/s)", f"{comparison['speedup']:,.1f}x" if comparison["speedup"] else "-")]


def target_row(last: dict, epochs: int) -> tuple[str, str]:
    """The run's time to the target accuracy, or why there is none: /train's last update measures it."""
    name = f"time to {last['target_accuracy']:.0%} test accuracy"
    if last["time_to_target_s"] is None:
        return name, (f"not reached in {epochs} epochs (the whole test set of {last['n_test']:,} images at "
                      f"{last['test_accuracy']:.2%} at the end)")
    return name, f"{last['time_to_target_s']:.1f} s from the request (compiling included)"


def rate_of(run: Watched, n_train: int) -> tuple[float | None, float | None]:
    """Samples/s and s/epoch of a run as its updates arrive; None, None when it never trained long enough."""
    try:
        return train_throughput.stream_rate(run, n_train, train_throughput.BATCH)
    except train_throughput.NoTraining:  # the run failed first (its last update says why)
        return None, None


class Watched:
    """A run's updates, passed on as they arrive (to be timed), and kept."""

    def __init__(self, updates) -> None:
        self._updates = updates
        self.updates: list[dict] = []

    def __iter__(self):
        for update in self._updates:
            self.updates.append(update)
            yield update
