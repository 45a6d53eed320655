"""playground.server.api input checks and /about assembly, with a small recording pool instead of real workers."""

from __future__ import annotations

import importlib.metadata
import inspect
import platform
import threading
from types import SimpleNamespace

import pytest

from playground import jobs
from playground.ipc.limits import Limits
from playground.jobs.arguments import MAX_ARGS_CHARS, MAX_CODE_CHARS
from playground.server.api import PlaygroundAPI, final
from playground.server.config import Settings
from tests.pool_doubles import ScriptedPool

GOOD_CODE = "def f(x):\n    return x + x*x + x*x*x\n"
GOOD_ARGS = "jnp.arange(4.0)"
RUNTIME = {"ok": True, "python": "3.11.7", "backend": "cpu", "devices": ["TFRT_CPU_0", "TFRT_CPU_1"]}
RECORDED = {"ok": False, "error": {"kind": "user_exception", "message": "the pool's answer", "line": None}}


class RecordingPool(ScriptedPool):
    """Stands in for WorkerPool: records jobs, answers from a script (else RECORDED); two workers, two layers."""

    def __init__(self, answers: dict[str, list[dict]] | None = None) -> None:
        super().__init__(RECORDED, size=2, answers=answers, layers={
            "landlock": {"active": True, "detail": "ABI 7"},
            "seccomp": {"active": False, "detail": "libseccomp not loadable"},
        }, mechanisms={"processes": {"active": True, "detail": "a PID namespace per job"}})


@pytest.fixture
def pool() -> RecordingPool:
    return RecordingPool({"about": [RUNTIME]})


@pytest.fixture
def api(pool) -> PlaygroundAPI:
    return PlaygroundAPI(pool=pool, settings=Settings())


def _error(result: dict) -> dict:
    assert result["ok"] is False, result
    assert set(result["error"]) - {"words"} == {"kind", "message", "line"}  # words: the message as pieces
    return result["error"]


# -- inspect input validation ---------------------------------------------------


@pytest.mark.parametrize("code", [None, 42, b"def f(x): return x", ["def f(x): return x"], {"code": "x"}])
def test_code_must_be_text(api, pool, code):
    error = _error(final(api.inspect(code, GOOD_ARGS)))
    assert error["kind"] == "invalid_input"
    assert "`code` must be text" in error["message"]
    assert type(code).__name__ in error["message"]
    assert pool.jobs == []


@pytest.mark.parametrize("args", [None, 4, (1, 2)])
def test_args_must_be_text(api, pool, args):
    error = _error(final(api.inspect(GOOD_CODE, args)))
    assert error["kind"] == "invalid_input"
    assert "`args` must be text" in error["message"]
    assert pool.jobs == []


def test_code_over_limit(api, pool):
    code = GOOD_CODE + "#" * (MAX_CODE_CHARS - len(GOOD_CODE) + 1)
    error = _error(final(api.inspect(code, GOOD_ARGS)))
    assert error["kind"] == "invalid_input"
    assert f"{MAX_CODE_CHARS:,}" in error["message"]
    assert f"{len(code):,}" in error["message"]
    assert pool.jobs == []


def test_code_at_limit_is_forwarded(api, pool):
    code = GOOD_CODE + "#" * (MAX_CODE_CHARS - len(GOOD_CODE))
    assert len(code) == MAX_CODE_CHARS
    assert final(api.inspect(code, GOOD_ARGS)) == RECORDED
    assert len(pool.jobs) == 1


def test_args_over_limit(api, pool):
    args = "1" + " " * MAX_ARGS_CHARS
    error = _error(final(api.inspect(GOOD_CODE, args)))
    assert error["kind"] == "invalid_input"
    assert "`args`" in error["message"]
    assert f"{MAX_ARGS_CHARS:,}" in error["message"]
    assert pool.jobs == []


@pytest.mark.parametrize("code", ["", "   ", "\n\n\t  \n"])
def test_blank_code(api, pool, code):
    error = _error(final(api.inspect(code, GOOD_ARGS)))
    assert error["kind"] == "invalid_input"
    assert "no code" in error["message"]
    assert pool.jobs == []


def test_valid_call_is_forwarded_verbatim(api, pool):
    result = final(api.inspect(GOOD_CODE, GOOD_ARGS))
    assert pool.jobs == [{"kind": "inspect", "code": GOOD_CODE, "args": GOOD_ARGS,
                          "static_argnums": [], "second_args": "", "on_accelerator": False}]
    assert result == RECORDED


def test_a_reply_that_does_not_fit_its_kind_is_refused(pool):
    pool.answers["inspect"] = [{"ok": True, "jaxpr": "<img src=x onerror=alert(1)>"}]
    result = final(PlaygroundAPI(pool=pool, settings=Settings()).inspect(GOOD_CODE, GOOD_ARGS))
    assert result["ok"] is False and result["error"]["kind"] == "forbidden", result
    assert "refused" in result["error"]["message"]


def test_options_are_forwarded_sorted_and_deduplicated(api, pool):
    final(api.inspect(GOOD_CODE, GOOD_ARGS, [2, 0, 2], "jnp.ones(5)"))
    assert pool.jobs[-1]["static_argnums"] == [0, 2]
    assert pool.jobs[-1]["second_args"] == "jnp.ones(5)"


@pytest.mark.parametrize("argnums", ["1", [1.5], [True], [-1], [64], list(range(9)), (1,)])
def test_bad_static_argnums_are_invalid_input(api, pool, argnums):
    result = final(api.inspect(GOOD_CODE, GOOD_ARGS, argnums))
    assert result["error"]["kind"] == "invalid_input"
    assert "static_argnums" in result["error"]["message"]
    assert pool.jobs == []


def test_oversized_second_args_are_invalid_input(api, pool):
    result = final(api.inspect(GOOD_CODE, GOOD_ARGS, None, "x" * (MAX_ARGS_CHARS + 1)))
    assert result["error"]["kind"] == "invalid_input" and "second_args" in result["error"]["message"]
    assert pool.jobs == []


def test_empty_args_are_allowed(api, pool):
    final(api.inspect("def f():\n    return 1\n", ""))
    assert pool.jobs == [{"kind": "inspect", "code": "def f():\n    return 1\n", "args": "",
                          "static_argnums": [], "second_args": "", "on_accelerator": False}]


def test_pool_errors_come_back_unchanged():
    busy = {"ok": False, "error": {"kind": "busy", "message": "All sandbox workers are busy.", "line": None}}
    api = PlaygroundAPI(pool=RecordingPool({"inspect": [busy]}), settings=Settings())
    assert final(api.inspect(GOOD_CODE, GOOD_ARGS)) == busy


# -- about ------------------------------------------------------------------------


def test_about_versions(api):
    versions = api.about()["versions"]
    assert versions["python"] == platform.python_version()
    for package in ("jax", "jaxlib", "gradio", "optax", "numpy"):
        assert versions[package] == importlib.metadata.version(package)


def test_about_merges_runtime_layers_and_settings(pool):
    settings = Settings(workers=3, queue_size=9, limits=Limits(timeout_s=4.0, memory_mb=512))
    info = PlaygroundAPI(pool=pool, settings=settings).about()
    assert info["ok"] is True
    assert info["backend"] == "cpu"
    assert info["devices"] == RUNTIME["devices"]
    layers = info["sandbox"]["layers"]
    assert list(layers) == ["process", "landlock", "seccomp", "watchdogs"]
    assert layers["landlock"] == pool.layers["landlock"]
    assert layers["seccomp"]["active"] is False
    assert "wall clock 4 s" in layers["watchdogs"]["detail"]
    assert "512 MB" in layers["watchdogs"]["detail"]
    assert info["sandbox"]["pool"] == {"size": 2, "warm": 2, "jobs": 1}
    assert info["limits"] == settings.limits.to_dict()
    assert info["queue"]["concurrency"] == 3 and info["queue"]["max_waiting"] == 9
    line = info["queue"]["lines"]["sandbox"]
    assert {**line, "typical_s": list(line["typical_s"])} == {"workers": 2, "running": 0, "waiting": 0,
                                                              "max_waiting": 9, "typical_s": ["about"]}
    assert info["queue"]["cache"]["entries"] == 1  # the about job's own reply, kept like any other


def test_about_asks_the_pool_once(api, pool):
    first = api.about()
    second = api.about()
    assert pool.jobs == [{"kind": "about"}]
    assert first["devices"] == second["devices"] == RUNTIME["devices"]
    assert pool.status_calls == 4  # fresh each time, for the pool and the parallel pool (here the same one)


def test_about_retries_after_a_failed_answer():
    crashed = {"ok": False, "error": {"kind": "crashed", "message": "worker died", "line": None}}
    pool = RecordingPool({"about": [crashed, RUNTIME]})
    api = PlaygroundAPI(pool=pool, settings=Settings())
    first = api.about()
    assert first["ok"] is False
    assert first["backend"] is None and first["devices"] == []
    second = api.about()
    assert second["ok"] is True and second["backend"] == "cpu"
    third = api.about()
    assert third["ok"] is True
    assert pool.jobs == [{"kind": "about"}, {"kind": "about"}]


def test_about_concurrent_calls_ask_once(api, pool):
    results = []
    threads = [threading.Thread(target=lambda: results.append(api.about())) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert len(results) == 8
    assert pool.jobs == [{"kind": "about"}]


class RecordingTraining:
    """Stands in for TrainingService where only the API's own checks are under test."""

    def __init__(self):
        self.calls = []

    def train(self, config, session):
        self.calls.append((config, session))
        yield {"phase": "finished", "done": True}

    def predict(self, session, image):
        self.calls.append((session, image.shape))
        return {"probabilities": [0.1] * 10}

    def stop(self, session):
        return False

    def status(self):
        return {"slots": 1, "running": 0, "waiting": 0}


@pytest.fixture
def training_api(pool):
    training = RecordingTraining()
    return PlaygroundAPI(pool=pool, settings=Settings(), training=training), training


def test_train_refuses_a_bad_config_before_anything_starts(training_api):
    api, training = training_api
    (response,) = api.train({"epochs": 0}, "s")
    assert response["error"]["kind"] == "invalid_input" and "epochs" in response["error"]["message"]
    assert training.calls == []


def test_train_passes_a_validated_config_and_the_session(training_api):
    api, training = training_api
    (response,) = api.train({"optimizer": "adam"}, "s1")
    assert response == {"ok": True, "phase": "finished", "done": True}
    config, session = training.calls[0]
    assert config.optimizer == "adam" and config.layers == (784, 512, 256, 10) and session == "s1"


@pytest.mark.parametrize("image", [[1, 2, 3], [["a"]], [[float("nan")]], [[0] * 1025], "digit", None, [[[1]]]])
def test_predict_refuses_what_is_not_a_small_grayscale_image(training_api, image):
    api, training = training_api
    assert api.predict(image, "s")["error"]["kind"] == "invalid_input"
    assert training.calls == []


def test_predict_forwards_an_image(training_api):
    api, training = training_api
    assert api.predict([[0, 255], [255, 0]], "s")["ok"]
    assert training.calls == [("s", (2, 2))]


def test_without_a_training_service_the_endpoints_say_so(api):
    (response,) = api.train({}, "s")
    assert response["error"]["kind"] == "unavailable"
    assert api.predict([[1]], "s")["error"]["kind"] == "unavailable"
    assert api.stop_training("s") == {"ok": True, "stopping": False}
    assert api.about()["training"] is None


# -- the device owner's line -------------------------------------------------------------------------------------


class OwnerStub:
    """What the API reads of a DeviceOwner (playground/server/device_owner/handle.py) for About."""

    setup = SimpleNamespace(platform="tpu", memory_mb=6144)
    grant_trials: list = []
    hello = {"about": {"label": "tpu: TPU v5 lite", "devices": ["tpu:0 TPU v5 lite"]},
             "layers": {"seccomp": {"active": True, "detail": "134 system calls denied or narrowed"}}}

    def status(self) -> dict:
        return {"alive": True, "pid": 42, "restarts": 1, "last_end": "killed (timeout)", "resident_mb": 2300.0}


@pytest.fixture
def device_pool() -> RecordingPool:
    line = RecordingPool({})
    line.owner = OwnerStub()
    return line


@pytest.fixture
def device_api(pool, device_pool) -> PlaygroundAPI:
    return PlaygroundAPI(pool, Settings(), device_pool=device_pool, accelerator="TPU (1 device)",
                         accelerator_why="TPU (1 device) through libtpu")


def test_the_jobs_that_measure_wait_in_the_device_line_and_inspect_only_when_asked(device_api, pool, device_pool):
    final(device_api.jit_speed(GOOD_CODE, [10]))
    final(device_api.vmap(GOOD_CODE, "jnp.ones(3)"))
    final(device_api.inspect(GOOD_CODE, GOOD_ARGS, on_accelerator=True))
    final(device_api.inspect(GOOD_CODE, GOOD_ARGS))
    final(device_api.derivatives(GOOD_CODE))
    assert [job["kind"] for job in device_pool.jobs] == ["jit_speed", "vmap", "inspect"]
    assert [job["kind"] for job in pool.jobs] == ["inspect", "derivatives"]


def test_about_names_the_device_its_owner_and_the_jobs_it_runs(device_api, pool, device_pool):
    info = device_api.about()
    assert info["backend"] == "tpu" and info["devices"] == ["tpu:0 TPU v5 lite"]
    assert [job["kind"] for job in pool.jobs] == ["about"] and device_pool.jobs == []  # Python's version: a worker's
    assert info["accelerator"] == {"device": "TPU (1 device)", "why": "TPU (1 device) through libtpu",
                                   "jobs": ["inspect (when asked)", "passes (when asked)", "graph (when asked)",
                                            "compare (when asked)", "vmap", "jit_speed", "speed_of_light",
                                            "device_ceilings"], "unavailable": None}
    owner = info["sandbox"]["device_owner"]
    assert owner["device"] == "tpu: TPU v5 lite" and owner["pid"] == 42 and owner["restarts"] == 1
    assert owner["layers"]["seccomp"]["active"] is True and owner["memory_limit_mb"] == 6144


def test_without_a_device_line_one_pool_runs_everything(api, pool):
    final(api.jit_speed(GOOD_CODE, [10]))
    final(api.inspect(GOOD_CODE, GOOD_ARGS, on_accelerator=True))
    assert [job["kind"] for job in pool.jobs] == ["jit_speed", "inspect"]
    info = api.about()
    assert info["accelerator"]["device"] is None
    assert info["sandbox"]["device_owner"] is None


def test_a_timed_endpoint_measures_again_when_asked_and_only_then(api, pool):
    """``fresh`` (the timed endpoints' last argument) bypasses the kept result; it is the server's, not the job's."""
    first = final(api.jit_speed(GOOD_CODE, [10]))
    kept = final(api.jit_speed(GOOD_CODE, [10]))
    again = final(api.jit_speed(GOOD_CODE, [10], 5, True))
    assert [job["kind"] for job in pool.jobs] == ["jit_speed", "jit_speed"]
    assert all("fresh" not in job for job in pool.jobs)
    assert first == kept == again  # an error the same input always gives: kept, so the second was not run
    final(api.speed_of_light(GOOD_CODE, GOOD_ARGS, fresh=True))
    final(api.vmap(GOOD_CODE, "jnp.ones(3)", fresh=True))
    assert [job["kind"] for job in pool.jobs][2:] == ["speed_of_light", "vmap"]


def test_only_the_timed_endpoints_take_fresh():
    timed = {kind.name for kind in jobs.REGISTRY.values() if kind.public and kind.timed}
    assert {"jit_speed", "vmap", "speed_of_light"} <= timed
    for kind in jobs.REGISTRY.values():
        if kind.public:
            parameters = inspect.signature(getattr(PlaygroundAPI, kind.name)).parameters
            assert ("fresh" in parameters) is kind.timed, kind.name
            assert ("fresh:" in getattr(PlaygroundAPI, kind.name).__doc__) is kind.timed, kind.name


def test_the_modules_docstring_lists_every_endpoint_by_name():
    """Each job's method is made from its declaration, so a reader finds it by name in api.py's docstring; the
    server's own endpoints are methods written there or in training_api.py."""
    from playground.server import api as api_module
    from playground.server.answering.endpoints import SERVER_ENDPOINTS

    said = api_module.__doc__.split("a method per public job", 1)[1]
    job_part, own_part = said.split("the server's own", 1)
    listed = [word.strip(" ,;.()\n-") for word in job_part.split(":", 1)[1].split("(tests/")[0].split(",")]
    assert listed == [kind.name for kind in jobs.REGISTRY.values() if kind.public]
    for endpoint in SERVER_ENDPOINTS:
        assert endpoint.name in own_part, endpoint.name
        assert endpoint.name in vars(PlaygroundAPI) or any(endpoint.name in vars(base)
                                                           for base in PlaygroundAPI.__mro__[1:]), endpoint.name


def test_about_asks_a_worker_through_the_line_like_any_job(api, pool):
    assert api.about()["ok"]
    api.about()  # asked once: kept for the server's life
    assert [job["kind"] for job in pool.jobs] == ["about"]
    assert "about" in api.about()["queue"]["lines"]["sandbox"]["typical_s"]  # it waited in line and was timed there
