"""A test double of playground/worker/jobs/handlers.py: the real handlers, with a bug injected into the Inspect job's.

A pool made with ``handlers="tests.faulty_handlers"`` imports this in its
template, so every worker it forks has the bug: what the user sees of it, and
what the server logs, are then those of a real bug in the playground's code.
"""

from __future__ import annotations

from playground.worker.jobs import handlers, inspect

preload, warm_up, run = handlers.preload, handlers.warm_up, handlers.run


def _broken_inspect_job(limits, **arguments):
    report = None
    return report["jaxpr"]  # TypeError: a bug of ours, with no frame of the user's code in its traceback


inspect.inspect_job = _broken_inspect_job
