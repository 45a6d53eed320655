"""JAX Playground's start: builds the app, starts the pools and the device owner, launches. Nothing else.

Run by ``python app.py`` (Hugging Face Spaces, ``make run``) and by
``python -m playground`` (any OS, no make needed).

SIGTERM (how Hugging Face Spaces and ``docker stop`` end an app) and Ctrl+C both
end it cleanly: every worker, the templates and the device owner are
stopped, and the run's temporary folder (scratch roots, training runs,
downloads) is removed.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import importlib.abc
import importlib.machinery
import importlib.util
import logging
import os
import signal
import sys
import tempfile
from contextlib import ExitStack

from playground.ipc import scratch
from playground.server import worker_pools
from playground.server.api import PlaygroundAPI
from playground.server.config import Settings, is_loopback
from playground.server.pools import mechanisms
from playground.server.training.service import TrainingService


def main() -> None:
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    try:
        settings = Settings.from_env(os.environ)  # the one place the app's settings are read (config.py)
    except ValueError as exc:
        raise SystemExit(f"JAX Playground cannot start: {exc}") from None
    if settings.sandbox == "process":
        logging.warning("local mode: your code runs on your machine with process isolation only; do not expose it "
                        "publicly (serving %s)", settings.host)
    # Everything this run writes, Gradio's cache too, goes below one folder, removed at the end whatever happened.
    tempfile.tempdir = run_folder = tempfile.mkdtemp(prefix="jax-playground-run-")
    _prepare_gradio(run_folder)
    from playground.server.ui import build_app  # Gradio reads GRADIO_TEMP_DIR once, when it is imported

    with ExitStack() as cleanup:
        cleanup.callback(scratch.remove, run_folder, 30.0)
        services = cleanup.enter_context(ExitStack())  # the sandbox and training: stopped first on a signal
        launched = []  # the app, once it is built
        _stop_on_signals(services, launched)
        demo = build_app(_api(settings, services), settings)
        launched.append(demo)
        _serve(demo, settings)  # returns on SIGTERM or Ctrl+C


def _refuse_visitors_where_writes_are_free(settings: Settings, layers: dict) -> None:
    """The full sandbox on a host where nothing keeps a job's writes in its scratch folder (neither Landlock nor
    seccomp in force): serve this machine only, unless the operator says PLAYGROUND_ALLOW_PUBLIC=1; say what a
    visitor could do either way."""
    if settings.sandbox != "full" or mechanisms.writes_confined(layers):
        return
    said = (f"nothing on this host keeps a job's writes in its scratch folder (Landlock: "
            f"{layers.get('landlock', {}).get('detail')}; seccomp: {layers.get('seccomp', {}).get('detail')}): a "
            f"visitor's code can write every file uid {os.geteuid()} may write: rewrite this app in its checkout, "
            "leave a compiled program in the device owner's compilation cache for the owner to load, change the "
            "training runs' weights, and fill /tmp and /dev/shm")
    if not is_loopback(settings.host) and not settings.allow_public:
        raise SystemExit(f"JAX Playground will not serve {settings.host}: {said}. Serve 127.0.0.1, or set "
                         "PLAYGROUND_ALLOW_PUBLIC=1 if you accept that")
    logging.warning("sandbox: %s", said)


def _prepare_gradio(run_folder: str) -> None:
    """Gradio's settings, made before it is imported: set in this process's environment, where Gradio reads them
    (defaults only: an operator's own value stays)."""
    os.environ.setdefault("GRADIO_TEMP_DIR", os.path.join(run_folder, "gradio"))
    # Gradio's queue summarises its last events (a pandas DataFrame of up to 10,000) after every event, for a
    # monitoring page this app does not use, at a large share of the server's time on cached answers
    # (docs/development.md's table of costs found). Summarised every 1,000 events over the last 1,000 instead.
    os.environ.setdefault("GRADIO_ANALYTICS_CACHE_FREQUENCY", "1000")
    os.environ.setdefault("GRADIO_ANALYTICS_MAX_EVENTS", "1000")
    if importlib.util.find_spec("matplotlib") is None:
        # Gradio tries `import matplotlib` around every event; not installed, each try searched sys.path again
        # (a tenth of the server's time on cached answers). Marked missing, the import fails at once, as before.
        sys.modules["matplotlib"] = None
    skip_gradio_stub_writing()


def _stop_on_signals(services: ExitStack, launched: list) -> None:
    """SIGTERM (how Hugging Face Spaces and `docker stop` end an app) and Ctrl+C stop the app, the jobs first."""
    def stop(_signum, _frame) -> None:
        # Stop the jobs and training streams first, so that the web server has no open request to wait for;
        # then Gradio's launch() ends on the KeyboardInterrupt, and the ExitStack removes the run's folder.
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        services.close()
        server = getattr(launched[0], "server", None) if launched else None
        if server is not None:
            _end_lifespan(server)
            # Every job is over: uvicorn need not wait for idle keep-alive connections, which Gradio gives 5 s:
            # a SIGTERM would take that long to end the app while a gradio_client is connected.
            server.force_exit = True
        # The requests still open (streams of jobs that just ended) are cancelled with the server's loop: that is the
        # stop, not an error of theirs.
        logging.getLogger("uvicorn.error").addFilter(_not_cancelled)
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)


LIFESPAN_S = 5.0  # the app's own shutdown (Gradio's MCP session manager): at most this, then the stop goes on


def _end_lifespan(server) -> None:
    """The app's lifespan shutdown, run on the web server's loop: ``force_exit`` skips it, and the loop's end would
    cancel it instead (Starlette then logs a CancelledError traceback as a failed shutdown)."""
    loops = {listening.get_loop() for listening in getattr(server, "servers", [])}
    lifespan = getattr(server, "lifespan", None)
    if lifespan is None or len(loops) != 1:  # not started, or another uvicorn: the stop goes on without it
        return
    ended = asyncio.run_coroutine_threadsafe(lifespan.shutdown(), loops.pop())
    try:
        ended.result(timeout=LIFESPAN_S)
    except (concurrent.futures.TimeoutError, RuntimeError) as exc:
        logging.warning("the app's lifespan shutdown did not end: %r", exc)


def _not_cancelled(record: logging.LogRecord) -> bool:
    return not (record.exc_info and isinstance(record.exc_info[1], asyncio.CancelledError))


def _api(settings: Settings, services: ExitStack) -> PlaygroundAPI:
    """The device owner, the sandbox's pools and the training service started (each closed by ``services``), and the
    API over them."""
    runs = tempfile.mkdtemp(prefix="jax-playground-runs-")  # the training runs' weights, written by the owner
    # Closed after the pools (an ExitStack closes last what it entered first): a run the device owner is ending
    # writes its weights into the runs' folder until the owner has stopped.
    after_the_owner = services.enter_context(ExitStack())
    try:
        pools = worker_pools.start(settings, runs, started=lambda pool: services.callback(pool.close))
    except RuntimeError as exc:
        raise SystemExit(f"JAX Playground cannot start its sandbox: {exc}") from None
    logging.info("accelerator: %s", pools.device_why)
    _refuse_visitors_where_writes_are_free(settings, pools.sandbox.layers)
    for name, layer in pools.sandbox.layers.items():
        if not layer["active"]:
            logging.warning("sandbox: layer %s is not in force here: %s", name, layer["detail"])
    for name, mechanism in pools.sandbox.mechanisms().items():
        if not mechanism["active"]:
            logging.warning("sandbox: %s is not fully bounded here: %s", name, mechanism["detail"])
    for name, layer in pools.owner.hello.get("layers", {}).items():
        if not layer["active"]:
            logging.warning("device owner: %s is not in force: %s", name, layer["detail"])
    cache = pools.owner.hello.get("compile_cache") or {}
    if cache.get("active"):
        logging.info("device owner: compilation cache %s", cache["detail"])
    elif cache:
        logging.warning("device owner: no compilation cache (%s): every training run compiles", cache["detail"])
    # A stopped run's final measurement waits for any job holding the device, which its time limit bounds.
    training = TrainingService(pools.owner, settings.data, runs,
                               worker_pools.training_slots(settings, pools.accelerator), settings.training_max_s,
                               finish_grace_s=max(120.0, settings.limits.measure_timeout_s + 60))
    after_the_owner.callback(training.close)
    return PlaygroundAPI.from_pools(pools, settings, training)


def _serve(demo, settings: Settings) -> None:
    from playground.server.ui import CSS, I18N, THEME, page_js

    demo.queue(max_size=settings.queue_size, default_concurrency_limit=settings.workers)
    calm_idle_queue(demo)
    # Waiting jobs and training runs each hold a thread while they wait in their line (three pools' lines and
    # the training one); Gradio's own 40 stay for everything else.
    demo.launch(server_name=settings.host, server_port=settings.port, css=CSS, theme=THEME,
                mcp_server=settings.mcp_server, js=page_js(),
                i18n=I18N,  # the UI in the browser's language (en, de, zh), switchable in Settings
                max_threads=40 + 3 * settings.requests_at_once + settings.queue_size)


# How often Gradio's queue looks for a new event while it has none, and for progress to send. Its own are 1 ms and
# 10 ms on Linux, which keep an idle server busy (docs/development.md's table of costs found): a laptop's battery and
# every other user's share on a shared host. A job waits at most 20 ms more to start, which no one sees beside the
# hundreds of milliseconds a job takes.
IDLE_POLL_S = 0.02
PROGRESS_POLL_S = 0.1  # no event of this app reports gr.Progress; its streamed updates go out as they come


def calm_idle_queue(demo) -> None:
    """Make ``demo``'s queue (after ``demo.queue()``) look for work every IDLE_POLL_S, not every millisecond."""
    queue = demo._queue  # Gradio has no public setting for these
    for name, value in (("sleep_when_free", IDLE_POLL_S), ("progress_update_sleep_when_free", PROGRESS_POLL_S)):
        if hasattr(queue, name):
            setattr(queue, name, value)
        else:  # another Gradio: it works as before, only busier when idle
            logging.warning("Gradio's queue has no %s: it looks for work at its own pace", name)


def skip_gradio_stub_writing() -> None:
    """Before Gradio is imported: its components do not rewrite their type stubs (.pyi) in site-packages.

    Gradio's component metaclass parses each component's source file and rewrites its .pyi next to it, at every
    import (type hints for editors of Gradio itself): about 40 % of what ``import gradio`` costs, at every start of
    the app (docs/development.md's table of costs found). Gradio has no setting for it; where Gradio's metaclass
    does not call ``gradio.component_meta.create_or_modify_pyi`` the hook finds nothing to replace and says so.
    """
    if "gradio.component_meta" in sys.modules:
        return
    sys.meta_path.insert(0, _StubWritingSkipper())


class _StubWritingSkipper(importlib.abc.MetaPathFinder):
    """Finds gradio.component_meta as Python would, and replaces its stub writer with a no-op once it is loaded."""

    def find_spec(self, name, path, target=None):
        if name != "gradio.component_meta":
            return None
        sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(name, path, target)
        if spec is None or spec.loader is None:
            return spec
        load = spec.loader.exec_module

        def exec_module(module) -> None:
            load(module)
            if hasattr(module, "create_or_modify_pyi"):
                module.create_or_modify_pyi = lambda *_args, **_kwargs: None
            else:
                logging.warning("Gradio has no create_or_modify_pyi: its components write their stubs as before")

        spec.loader.exec_module = exec_module
        return spec


def run() -> None:
    try:
        main()
    except KeyboardInterrupt:  # before the server was up: everything started is already cleaned up
        pass
