"""JAX Playground: builds the app, starts the sandbox pool, launches. Nothing else."""

from __future__ import annotations

import atexit
import logging
import os

from playground.api import PlaygroundAPI
from playground.config import Settings
from playground.mnist.service import TrainingService
from playground.sandbox import WorkerPool
from playground.ui import CSS, build_app


def main() -> None:
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    settings = Settings.from_env(dict(os.environ))
    pool = WorkerPool(settings.workers, settings.limits)
    # The Parallel tab's workers see several devices: simulated CPU ones where there is no accelerator.
    parallel_pool = WorkerPool(settings.parallel_workers, settings.limits,
                               extra_env={"JAX_NUM_CPU_DEVICES": str(settings.cpu_devices)})
    for each in (pool, parallel_pool):
        try:
            each.start()
        except RuntimeError as exc:
            raise SystemExit(f"JAX Playground cannot start its sandbox: {exc}") from None
        atexit.register(each.close)
    for name, layer in pool.layers.items():
        if not layer["active"]:
            logging.warning("sandbox layer %s is NOT active: %s", name, layer["detail"])
    training = TrainingService(os.environ, settings.training_jobs, settings.training_max_s)
    atexit.register(training.close)
    demo = build_app(PlaygroundAPI(pool, settings, parallel_pool, training), settings)
    demo.queue(max_size=settings.queue_size, default_concurrency_limit=settings.workers)
    # Waiting training runs each hold a thread while they wait for the accelerator; other tabs keep Gradio's 40.
    demo.launch(server_name=settings.host, server_port=settings.port, css=CSS, max_threads=40 + settings.queue_size)


if __name__ == "__main__":
    main()
