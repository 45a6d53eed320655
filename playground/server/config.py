"""Every setting of the app, read from environment variables once, here, into typed values.

launch.py hands the server's environment to :meth:`Settings.from_env` at start-up (``make data`` hands it to
:func:`data_places`); every other module gets the values it needs as arguments, and reads no setting itself
(tests/test_settings_read_once.py).
"""

from __future__ import annotations

import ipaddress
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from playground.ipc.limits import Limits
from playground.mnist.catalogue import DATASETS
from playground.mnist.places import DataPlaces

_LIMIT_VARIABLES = {  # Limits field -> (variable, type)
    "timeout_s": ("PLAYGROUND_TIMEOUT_S", float),
    "measure_timeout_s": ("PLAYGROUND_MEASURE_TIMEOUT_S", float),
    "memory_mb": ("PLAYGROUND_MEMORY_MB", int),
    "address_space_mb": ("PLAYGROUND_ADDRESS_SPACE_MB", int),
    "scratch_mb": ("PLAYGROUND_SCRATCH_MB", int),
    "scratch_files": ("PLAYGROUND_SCRATCH_FILES", int),
    "max_tasks": ("PLAYGROUND_MAX_TASKS", int),
}

# JAX's compilation cache of the device owner: inside the checkout, git-ignored, removed by `make clean`.
DEFAULT_COMPILE_CACHE = str(Path(__file__).resolve().parents[2] / ".cache" / "xla")
SANDBOXES = ("full", "process")  # WorkerPool (Linux: Landlock, seccomp, namespaces) or ProcessPool (any OS)


def default_sandbox(platform: str | None = None) -> str:
    """The full sandbox where it exists (Linux); elsewhere the local process mode."""
    return "full" if (platform or sys.platform).startswith("linux") else "process"


def data_places(env: Mapping[str, str]) -> DataPlaces:
    """Where the datasets are: ``MNIST_DIR`` / ``FASHION_MNIST_DIR`` (a user's folder of one), ``PLAYGROUND_CACHE``
    (default ``~/.cache/jax-playground``, below ``env``'s ``HOME`` where it has one) and ``PLAYGROUND_MIRRORS_<NAME>``
    (comma-separated base URLs, e.g. a classroom's mirror), every folder made absolute.

    >>> data_places({"HOME": "/home/ada", "PLAYGROUND_MIRRORS_MNIST": "http://lab/mnist, http://b/m/"}).mirrors
    {'mnist': ('http://lab/mnist/', 'http://b/m/')}
    """
    home = Path(env["HOME"]) if env.get("HOME") else Path.home()
    folders, mirrors = {}, {}
    for name, spec in DATASETS.items():
        if spec.folder_variable and env.get(spec.folder_variable):
            folders[name] = _folder(env[spec.folder_variable])
        bases = [base.strip() for base in env.get(f"PLAYGROUND_MIRRORS_{name.upper()}", "").split(",") if base.strip()]
        if bases:
            mirrors[name] = tuple(base if base.endswith("/") else base + "/" for base in bases)
    return DataPlaces(_folder(env.get("PLAYGROUND_CACHE") or home / ".cache" / "jax-playground"), folders, mirrors)


def _folder(path: str | Path) -> Path:
    return Path(os.path.abspath(os.path.expanduser(path)))


def is_loopback(host: str) -> bool:
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True)
class Settings:
    host: str = "127.0.0.1"
    port: int = 7860
    workers: int = 2  # jobs at once; as many warm workers are kept ready
    queue_size: int = 32  # requests waiting beyond that; more get "busy, try again"
    parallel_workers: int = 1  # jobs at once for the Parallel tab, in workers that see several devices
    cpu_devices: int = 8  # simulated CPU devices the Parallel tab's workers get (JAX_NUM_CPU_DEVICES)
    accelerator: bool = True  # the host's GPU or TPU for the device owner, where it has one; off: the CPU
    owner_memory_mb: int = 6144  # the device owner's resident memory, the device's own mappings left out
    training_jobs: int | None = None  # training runs at once in the device owner (None: one per accelerator device)
    training_max_s: float = 900.0  # a run is stopped (keeping its parameters) after this long
    compile_cache: str = DEFAULT_COMPILE_CACHE  # the owner's compiled training programs, kept across runs and owners
    compile_cache_mb: int = 1024  # its bound (the least recently used out first); 0 turns it off
    namespaces: bool = True  # a PID namespace and a private tmpfs per job where the kernel allows (off: for tests)
    result_cache: bool = True  # identical jobs answered from kept results (result_cache.py); off: every job runs
    result_cache_entries: int = 512
    result_cache_mb: int = 128
    mcp_server: bool = True  # the public API as MCP tools at /gradio_api/mcp/ (off: the web UI and API only)
    sandbox: str = field(default_factory=default_sandbox)  # "full", or "process": the local mode (process_pool.py)
    allow_public: bool = False  # the process mode on an address others can reach: only when asked in so many words
    limits: Limits = field(default_factory=Limits)
    data: DataPlaces = field(default_factory=lambda: data_places({}))  # the Train tab's datasets

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> Settings:
        """PLAYGROUND_* variables and the datasets' (data_places); GRADIO_SERVER_NAME/PORT too, as Hugging Face
        Spaces set them; ``JAX_PLATFORMS=cpu`` keeps the device owner on the CPU, as PLAYGROUND_ACCELERATOR=off
        does."""
        workers = _number(env, "PLAYGROUND_WORKERS", int, max(1, min(8, os.cpu_count() or 1)))
        port_variable = "PLAYGROUND_PORT" if env.get("PLAYGROUND_PORT") else "GRADIO_SERVER_PORT"
        return cls(
            host=env.get("PLAYGROUND_HOST") or env.get("GRADIO_SERVER_NAME") or cls.host,
            port=_number(env, port_variable, int, cls.port),
            workers=workers,
            queue_size=_number(env, "PLAYGROUND_QUEUE_SIZE", int, max(cls.queue_size, 8 * workers)),
            parallel_workers=_number(env, "PLAYGROUND_PARALLEL_WORKERS", int, cls.parallel_workers),
            cpu_devices=_number(env, "PLAYGROUND_CPU_DEVICES", int, cls.cpu_devices),
            accelerator=(_switch(env, "PLAYGROUND_ACCELERATOR", cls.accelerator)
                         and (env.get("JAX_PLATFORMS") or "").strip().lower() != "cpu"),
            owner_memory_mb=_number(env, "PLAYGROUND_OWNER_MEMORY_MB", int, cls.owner_memory_mb),
            training_jobs=_number(env, "PLAYGROUND_TRAINING_JOBS", int, cls.training_jobs),
            training_max_s=_number(env, "PLAYGROUND_TRAINING_MAX_S", float, cls.training_max_s),
            compile_cache=os.path.abspath(os.path.expanduser(env.get("PLAYGROUND_COMPILE_CACHE") or cls.compile_cache)),
            compile_cache_mb=_number(env, "PLAYGROUND_COMPILE_CACHE_MB", int, cls.compile_cache_mb),
            namespaces=_switch(env, "PLAYGROUND_NAMESPACES", cls.namespaces),
            result_cache=_switch(env, "PLAYGROUND_RESULT_CACHE", cls.result_cache),
            result_cache_entries=_number(env, "PLAYGROUND_RESULT_CACHE_ENTRIES", int, cls.result_cache_entries),
            result_cache_mb=_number(env, "PLAYGROUND_RESULT_CACHE_MB", int, cls.result_cache_mb),
            mcp_server=_switch(env, "PLAYGROUND_MCP", cls.mcp_server),
            sandbox=(env.get("PLAYGROUND_SANDBOX") or default_sandbox()).strip().lower(),
            allow_public=_switch(env, "PLAYGROUND_ALLOW_PUBLIC", cls.allow_public),
            limits=_limits(env),
            data=data_places(env),
        )

    def __post_init__(self) -> None:
        if not 1 <= self.port <= 65535:
            raise ValueError(f"PLAYGROUND_PORT must be between 1 and 65535, got {self.port}")
        if self.workers < 1:
            raise ValueError(f"PLAYGROUND_WORKERS must be at least 1, got {self.workers}")
        if self.parallel_workers < 1:
            raise ValueError(f"PLAYGROUND_PARALLEL_WORKERS must be at least 1, got {self.parallel_workers}")
        if not 1 <= self.cpu_devices <= 64:
            raise ValueError(f"PLAYGROUND_CPU_DEVICES must be from 1 to 64, got {self.cpu_devices}")
        if not 1024 <= self.owner_memory_mb <= 1 << 20:
            raise ValueError(f"PLAYGROUND_OWNER_MEMORY_MB must be from 1024 to 1048576, got {self.owner_memory_mb}")
        if self.training_jobs is not None and not 1 <= self.training_jobs <= 16:
            raise ValueError(f"PLAYGROUND_TRAINING_JOBS must be from 1 to 16, got {self.training_jobs}")
        if not 1 <= self.training_max_s <= 86400:
            raise ValueError(f"PLAYGROUND_TRAINING_MAX_S must be from 1 to 86400 seconds, got {self.training_max_s}")
        if not 0 <= self.compile_cache_mb <= 1 << 20:
            raise ValueError(f"PLAYGROUND_COMPILE_CACHE_MB must be from 0 (off) to 1048576, got "
                             f"{self.compile_cache_mb}")
        if self.queue_size < 1:
            raise ValueError(f"PLAYGROUND_QUEUE_SIZE must be at least 1, got {self.queue_size}")
        if not 1 <= self.result_cache_entries <= 100_000:
            raise ValueError(f"PLAYGROUND_RESULT_CACHE_ENTRIES must be from 1 to 100000, got "
                             f"{self.result_cache_entries}")
        if not 1 <= self.result_cache_mb <= 65_536:
            raise ValueError(f"PLAYGROUND_RESULT_CACHE_MB must be from 1 to 65536, got {self.result_cache_mb}")
        if self.sandbox not in SANDBOXES:
            raise ValueError(f"PLAYGROUND_SANDBOX must be full or process, got {self.sandbox!r}")
        if self.sandbox == "full" and not sys.platform.startswith("linux"):
            raise ValueError(f"the full sandbox needs Linux (Landlock, seccomp, namespaces), not {sys.platform}: "
                             "leave PLAYGROUND_SANDBOX unset for the local process mode, or run it in Docker or WSL 2")
        if self.sandbox == "process" and not is_loopback(self.host) and not self.allow_public:
            raise ValueError(
                f"the local process mode serves this machine only, not {self.host}: your code runs with process "
                "isolation only, so anyone who reaches the page could run code as you. Use 127.0.0.1, or set "
                "PLAYGROUND_ALLOW_PUBLIC=1 if you really mean to expose it (never on a network you do not control)")

    @property
    def requests_at_once(self) -> int:
        """Requests of one pool's tabs that Gradio lets run at once: those waiting in the pool's line
        (answering/line.py, which tells each its place), those with a worker, and as many more answered from the
        cache or as busy."""
        return 2 * self.queue_size + self.workers


def _limits(env: Mapping[str, str]) -> Limits:
    values = {}
    for name, (variable, kind) in _LIMIT_VARIABLES.items():
        if env.get(variable):
            values[name] = _number(env, variable, kind, None)
            try:
                Limits(**{name: values[name]})
            except ValueError as exc:
                raise ValueError(f"{variable}: {exc}") from None
    return Limits(**values)


def _switch(env: Mapping[str, str], name: str, default: bool) -> bool:
    raw = (env.get(name) or "").strip().lower()
    if not raw:
        return default
    if raw in ("1", "true", "on", "yes"):
        return True
    if raw in ("0", "false", "off", "no"):
        return False
    raise ValueError(f"{name} must be 1 or 0 (on or off), got {env[name]!r}")


def _number(env: Mapping[str, str], name: str, kind: type, default):
    raw = env.get(name)
    if raw in (None, ""):
        return default
    try:
        return kind(raw)
    except ValueError:
        what = "a whole number" if kind is int else "a number"
        raise ValueError(f"{name} must be {what}, got {raw!r}") from None
