"""TrainingService with a real device owner: streaming, Stop, the queue, an owner that ends, the data's fallbacks,
predict; and the device's turns (playground/owner/turns.py): a run pauses while a job's session has the device."""

from __future__ import annotations

import contextlib
import csv
import dataclasses
import http.server
import os
import signal
import threading
import time

import numpy as np
import pytest

from playground.mnist.catalogue import DataUnavailable
from playground.mnist.config import TrainConfig
from playground.mnist.params_file import load_params
from playground.mnist.preprocess import model_input
from playground.server.config import data_places
from playground.server.device_owner import process as owner_process
from playground.server.training.inference import probabilities
from playground.server.training.results import NoTrainedModel
from playground.server.training.service import TrainingService
from playground.server.training.stopping import TrainingFailed
from tests.mnist_folders import make_mnist_dir, make_test_set_dir, offline_env
from tests.training_doubles import ScriptedOwner
from tests.training_owner import HeldDevice, ended, running_owner, runs_folder, sent, train, until

pytestmark = pytest.mark.slow  # a real device owner: make test-quick leaves it out

SMALL = {"layers": [784, 32, 10], "optimizer": "adam", "learning_rate": 0.003, "batch_size": 64, "seed": 1}
# The ceiling of a wait for an update that comes within a second or so (a place in line), far beyond it on a
# loaded machine; and of one for a small run, which takes seconds (compiling included).
WAIT_S = 60.0
RUN_S = 180.0
# How long a job's session keeps the device busy where a test checks that a run sent nothing meanwhile: several of
# the run's chunks (about 0.2 s each, training/loop.py), timed by the owner.
HELD_S = 1.0


@pytest.fixture(scope="module")
def mnist_dir(tmp_path_factory):
    """A folder laid out like MNIST_DIR, of learnable synthetic digits (the plumbing, not the accuracy, is tested)."""
    return make_mnist_dir(tmp_path_factory.mktemp("mnist"), 2048, 256, real=False)


@pytest.fixture(scope="module")
def env(mnist_dir, tmp_path_factory):
    return {"MNIST_DIR": str(mnist_dir), "PLAYGROUND_CACHE": str(tmp_path_factory.mktemp("cache"))}


@pytest.fixture(scope="module")
def owner(env, tmp_path_factory):
    """One device owner on the CPU for the module's service, as the server starts it."""
    with running_owner(env, tmp_path_factory.mktemp("owner") / "runs") as started:
        yield started


@pytest.fixture(scope="module")
def service(owner, env):
    training = TrainingService(owner, data_places(env), str(runs_folder(owner)), slots=1, max_run_s=120)
    yield training
    training.close()


def config(**changes) -> TrainConfig:
    return TrainConfig.from_dict({**SMALL, **changes})


def long_run() -> TrainConfig:
    """Minutes of work with the classic full-size model (784-512-256-10): it only ends when stopped."""
    return config(epochs=100, layers=[784, 512, 256, 10], batch_size=16)


@pytest.fixture
def own_service(tmp_path):
    """A TrainingService on an owner of its own, for the settings a test names and the variables its owner gets
    besides the server's (both closed after)."""
    with contextlib.ExitStack() as made:

        def make(env: dict, slots: int = 1, environment: dict | None = None) -> TrainingService:
            owner = made.enter_context(running_owner(env, tmp_path / "runs", environment=environment))
            training = TrainingService(owner, data_places(env), str(runs_folder(owner)), slots=slots)
            made.callback(training.close)
            return training

        yield make


def test_a_run_streams_updates_then_keeps_params_metrics_and_test_views(service):
    updates = list(service.train(config(epochs=2), "alice"))
    phases = [u["phase"] for u in updates]
    assert phases[-1] == "finished" and "training" in phases and "compiling" in phases
    final = updates[-1]
    assert final["done"] and not final["stopped"] and final["dataset"] == "mnist"
    assert (final["message"], final["message_words"]) == ("Finished", ["train.finished", {}])
    assert (final["n_train"], final["n_test"]) == (2048, 256)
    assert final["test_accuracy"] > 0.9  # the bands are easy to learn
    assert final["device"].startswith("CPU")
    params = load_params(final["params_file"])
    assert [w.shape for w, _ in params] == [(784, 32), (32, 10)]
    assert np.asarray(final["confusion"]).sum() == 256
    assert len(final["samples"]["images"]) == 32
    with open(final["metrics_file"]) as stream:
        rows = list(csv.DictReader(stream))
    assert rows and int(rows[-1]["step"]) == final["step"] == 2 * (2048 // 64)
    for update in updates:
        for key in ("step", "epoch", "loss", "test_accuracy", "samples_per_s", "elapsed_s", "device",
                    "dataset", "n_train", "n_test", "done"):
            assert key in update


def test_predict_uses_the_sessions_latest_model(service):
    image = np.zeros((56, 56))
    image[10:14, 8:48] = 255  # a band high up: class 0 or 1 territory after MNIST-style centring
    frame = model_input(image)
    first = list(service.train(config(epochs=1, seed=1), "bob"))[-1]
    first_params = load_params(first["params_file"])  # read now: the next run of this session replaces it
    first_answer = service.predict("bob", image)
    np.testing.assert_allclose(first_answer["probabilities"], probabilities(first_params, frame))

    second = list(service.train(config(epochs=1, seed=2, layers=[784, 16, 10]), "bob"))[-1]
    answer = service.predict("bob", image)
    assert len(answer["probabilities"]) == 10 and abs(sum(answer["probabilities"]) - 1) < 1e-6
    assert np.asarray(answer["input"]).shape == (28, 28)
    second_params = load_params(second["params_file"])
    assert [w.shape for w, _ in second_params] == [(784, 16), (16, 10)]
    np.testing.assert_allclose(answer["probabilities"], probabilities(second_params, frame))
    assert not np.allclose(answer["probabilities"], first_answer["probabilities"])  # not the first model's
    with pytest.raises(NoTrainedModel, match="train one first"):
        service.predict("nobody", image)


def test_stop_ends_the_run_and_keeps_the_params(service, owner):
    restarts, stopped, updates = owner.restarts, False, []
    for update in service.train(long_run(), "carol"):
        updates.append(update)
        if update["phase"] == "training" and update["step"] > 0 and not stopped:
            assert service.stop("carol")
            stopped = True
    final = updates[-1]
    assert final["stopped"] and final["phase"] == "stopped"
    # Stopped by the run itself, within the service's graces: not abandoned after them (its owner killed, its weights
    # lost).
    assert final["message_words"] == ["train.stopped", {}] and owner.restarts == restarts
    assert (updates[-2]["phase"], updates[-2]["stopped"]) == ("finishing", True)  # "Stopping: …" on the page
    assert final["epoch"] < 100 and load_params(final["params_file"])
    assert not service.stop("carol")  # nothing left to stop


def test_one_run_per_session_and_others_wait_their_turn(service):
    first = service.train(long_run(), "dave")
    while next(first)["phase"] != "training":
        pass
    with pytest.raises(ValueError, match="already training"):
        next(service.train(config(), "dave"))
    seen = []

    def second_run():
        for update in service.train(config(epochs=1), "erin"):
            seen.append(update)

    waiter = threading.Thread(target=second_run)
    waiter.start()
    deadline = time.monotonic() + WAIT_S
    while not any(u["phase"] == "queued" for u in seen) and time.monotonic() < deadline:
        next(first)
    assert [u["queue_position"] for u in seen if u["phase"] == "queued"][:1] == [1]
    assert service.status()["waiting"] == 1
    service.stop("dave")
    for _ in first:
        pass
    waiter.join(RUN_S)
    assert not waiter.is_alive() and seen[-1]["phase"] == "finished"


def test_stop_while_waiting_leaves_the_line(service):
    first = service.train(long_run(), "frank")
    while next(first)["phase"] != "training":
        pass
    second = service.train(config(epochs=1), "grace")
    while next(second)["phase"] != "queued":
        next(first)
    service.stop("grace")
    last = list(second)[-1]
    assert last["stopped"] and last["message"] == "Stop came before the run started."
    service.stop("frank")
    assert list(first)[-1]["stopped"]


def test_a_client_that_goes_away_mid_run_frees_the_slot_for_the_next(service, owner):
    restarts = owner.restarts
    run = service.train(long_run(), "heidi")
    while next(run)["phase"] != "training":
        pass
    run.close()  # what Gradio does when the browser disconnects
    assert service.status()["running"] == 0
    assert owner.restarts == restarts  # the run was stopped, not its owner killed
    assert list(service.train(config(epochs=1), "heidi"))[-1]["phase"] == "finished"


def test_an_owner_killed_during_a_run_ends_it_with_an_error_that_names_it_and_the_next_run_trains_on_a_new_one(
        service, owner):
    run = service.train(long_run(), "ivan")
    while next(run)["phase"] != "training":
        pass
    killed, restarts = owner.status()["pid"], owner.restarts
    os.kill(killed, signal.SIGKILL)
    with pytest.raises(TrainingFailed, match=r"^The device's owner process ended .*\(killed by SIGKILL\)"):
        for _ in run:
            pass
    assert service.status()["running"] == 0
    assert list(service.train(config(epochs=1), "ivan"))[-1]["phase"] == "finished"
    assert owner.restarts == restarts + 1 and owner.status()["pid"] != killed


def test_a_run_that_fails_in_the_owner_ends_with_an_error_that_names_it_and_the_owner_serves_on(
        env, tmp_path, monkeypatch):
    """The owner's interpreter lacks scikit-learn, which only the offline digits need: a run on them fails in the
    owner's run path (tests/training_owner_without_sklearn.py), and the API's last update names what is missing;
    the owner lives on, and the next run on MNIST trains on it."""
    from playground.server.api import PlaygroundAPI
    from playground.server.config import Settings
    from tests.conftest import OnePool

    monkeypatch.setattr(owner_process, "OWNER_MODULE", "tests.training_owner_without_sklearn")
    with running_owner(env, tmp_path / "runs") as lacking:
        training = TrainingService(lacking, data_places(env), str(runs_folder(lacking)), slots=1)
        try:
            api = PlaygroundAPI(OnePool({}), Settings(), training=training)
            updates = list(api.train({**SMALL, "dataset": "digits"}, "judy"))
            error = updates[-1]["error"]
            assert not updates[-1]["ok"] and error["kind"] == "unavailable"
            assert error["message"] == ("the offline “digits” dataset needs scikit-learn: `pip install "
                                        "scikit-learn` (or `make run`, which installs requirements.txt).")
            assert training.status()["running"] == 0
            assert lacking.restarts == 0 and lacking.alive()
            assert list(api.train({**SMALL, "epochs": 1}, "judy"))[-1]["phase"] == "finished"
        finally:
            training.close()


def test_offline_without_the_files_a_run_trains_on_the_digits_and_says_why(own_service, tmp_path):
    training = own_service(offline_env(tmp_path / "cache"))
    updates = list(training.train(config(dataset="fashion_mnist", epochs=1), "noor"))
    final = updates[-1]
    assert final["phase"] == "finished" and final["dataset"] == "digits", final
    assert final["n_train"] + final["n_test"] == 1797 and final["class_names"] == [str(d) for d in range(10)]
    fell_back = ["data.fell_back", {"dataset": "Fashion-MNIST", "folder": "FASHION_MNIST_DIR"}]
    assert all(u["data_fallback"] == fell_back for u in updates), updates[0]  # said from the first update on
    assert final["data_note"] is None and final["test_split"] is False


def test_a_folder_with_the_test_set_alone_trains_on_its_split_and_says_so(own_service, tmp_path):
    folder = make_test_set_dir(tmp_path / "class", 500, real=False)
    training = own_service({"MNIST_DIR": str(folder), "PLAYGROUND_CACHE": str(tmp_path / "cache")})
    final = list(training.train(config(epochs=1), "ada"))[-1]
    assert final["phase"] == "finished" and final["dataset"] == "mnist" and final["data_fallback"] is None
    assert (final["n_train"], final["n_test"]) == (400, 100) and np.asarray(final["confusion"]).sum() == 100
    assert final["data_note"] == ["data.test_split", {"dataset": "MNIST", "total": 500, "n_train": 400,
                                                      "n_test": 100}]
    assert final["test_split"] is True and final["target_accuracy"] == 0.95


def test_a_missing_dataset_folder_file_is_named(tmp_path):
    owner = ScriptedOwner()  # the server finds the folder wanting: no run reaches the owner
    training = TrainingService(owner, data_places({"MNIST_DIR": str(tmp_path)}), str(tmp_path / "runs"), slots=1)
    try:
        with pytest.raises(DataUnavailable, match="train-images"):
            list(training.train(config(), "judy"))
    finally:
        training.close()
    assert owner.streams == [] and training.status()["running"] == 0


def test_a_config_that_does_not_fit_the_data_is_invalid_input(service, owner):
    restarts = owner.restarts
    with pytest.raises(ValueError, match="larger than the 1,437 training images"):
        list(service.train(config(dataset="digits", batch_size=2048), "kim"))
    assert service.status()["running"] == 0 and owner.restarts == restarts  # the owner serves on


class _SlowFile(http.server.BaseHTTPRequestHandler):
    """Serves 4 MB a trickle at a time, so a download is still running when the test looks."""

    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Length", str(4 << 20))
        self.end_headers()
        try:
            for _ in range(400):
                self.wfile.write(b"\0" * 10_000)
                time.sleep(0.02)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def log_message(self, *args):
        pass


def test_a_download_reports_progress_and_stop_ends_the_run_meanwhile(tmp_path):
    mirror = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _SlowFile)
    threading.Thread(target=mirror.serve_forever, daemon=True).start()
    env = {"HOME": str(tmp_path), "PLAYGROUND_CACHE": str(tmp_path / "cache"),
           "PLAYGROUND_MIRRORS_FASHION_MNIST": f"http://127.0.0.1:{mirror.server_port}/"}
    owner = ScriptedOwner()  # the run ends while its data downloads: it never reaches the owner
    training = TrainingService(owner, data_places(env), str(tmp_path / "runs"), slots=1)
    try:
        updates = []
        for update in training.train(config(dataset="fashion_mnist"), "leo"):
            updates.append(update)
            if update["phase"] == "data" and update["download"]["bytes"] > 100_000:
                training.stop("leo")
        downloads = [u["download"] for u in updates if u["phase"] == "data"]
        assert downloads[0]["total"] == 4 << 20 and downloads[0]["file"].endswith(".gz")
        assert [d["bytes"] for d in downloads] == sorted(d["bytes"] for d in downloads)
        assert updates[-1]["stopped"] and updates[-1]["message"] == "Stop came while fetching the data"
        assert updates[-1]["message_words"] == ["train.stopped_fetching", {}]  # for the UI to say in its language
        assert owner.streams == []
    finally:
        training.close()
        mirror.shutdown()


def test_a_data_parallel_run_holds_every_slot_and_trains_on_every_device(own_service, mnist_dir, tmp_path):
    """Two slots on an owner of two (simulated) CPU devices: the data-parallel run takes both, a run behind waits."""
    env = {"MNIST_DIR": str(mnist_dir), "PLAYGROUND_CACHE": str(tmp_path / "cache")}
    training = own_service(env, slots=2, environment={"XLA_FLAGS": "--xla_force_host_platform_device_count=2"})
    parallel = training.train(dataclasses.replace(long_run(), data_parallel=True), "mia")  # ends when stopped
    while (update := next(parallel))["phase"] != "training":
        pass
    assert update["devices"] == 2 and update["device"] == "CPU · cpu × 2 (data-parallel)"
    assert training.status() == {"slots": 2, "running": 1, "waiting": 0}
    behind = training.train(config(epochs=1), "noah")
    while next(behind)["phase"] != "queued":  # slot 1 trains nothing, yet the data-parallel run holds it
        pass
    training.stop("noah")
    assert list(behind)[-1]["message"] == "Stop came before the run started."
    training.stop("mia")
    final = list(parallel)[-1]
    assert final["stopped"] and final["devices"] == 2 and load_params(final["params_file"])
    assert training.status() == {"slots": 2, "running": 0, "waiting": 0}


# -- the device's turns: a job's session has the device alone, the runs pause meanwhile (playground/owner/turns.py)


def test_a_run_pauses_while_a_jobs_session_has_the_device_and_resumes_after_it(owner, env):
    stream = train(owner, long_run())
    try:
        until(stream, "training", RUN_S)
        with HeldDevice(owner) as held:
            held.take()
            # Each update the run sent before it paused is here already: the owner answered the session after.
            before = [m["step"] for m in sent(stream)]
            held.work(HELD_S)
            assert sent(stream) == []  # nothing while the session had the device, over several chunks' time
        resumed = stream.receive(WAIT_S)
        assert resumed is not None and resumed["kind"] == "update" and resumed["phase"] == "training"
        assert resumed["step"] > max(before, default=0)  # it goes on where it paused
        stream.stop()
        final = until(stream, "done", WAIT_S)[-1]
        assert final["kind"] == "done" and final["stopped"]
    finally:
        ended(stream)


def test_a_run_that_starts_while_a_session_has_the_device_waits_for_it(owner, env):
    with HeldDevice(owner) as held:
        held.take()
        stream = train(owner, config(epochs=1))
        try:
            held.work(HELD_S)
            assert sent(stream) == []  # not even "compiling": the run waits for its turn
        except BaseException:
            ended(stream)
            raise
    try:
        messages = until(stream, "done", RUN_S)
        assert messages[0]["phase"] == "compiling"
        assert messages[-1]["kind"] == "done" and not messages[-1]["stopped"]
    finally:
        ended(stream)


def test_a_stop_is_heard_while_the_run_is_paused_and_its_final_measurement_waits_for_the_session(service, owner):
    """Stop while a job measures: the run says "finishing" at once (well within the service's stop grace, so it is
    not taken for hung), but measures the test set and saves its weights only once the session gave the device
    back; the service waits for that within its finishing grace, and keeps the weights."""
    restarts, updates = owner.restarts, []
    training, finishing = threading.Event(), threading.Event()

    def follow():
        for update in service.train(long_run(), "olga"):
            updates.append(update)
            if update["phase"] == "training":
                training.set()
            elif update["phase"] == "finishing":
                finishing.set()

    follower = threading.Thread(target=follow, daemon=True)
    follower.start()
    try:
        assert training.wait(RUN_S), updates[-1:]
        with HeldDevice(owner) as held:
            held.take()
            assert service.stop("olga")
            assert finishing.wait(WAIT_S), updates[-1:]  # heard while paused
            assert updates[-1]["stopped"]
            held.work(HELD_S)
            assert updates[-1]["phase"] == "finishing"  # no final update while the session has the device
    finally:
        service.stop("olga")  # where a check failed early: the run ends rather than train on
        follower.join(RUN_S)
    assert not follower.is_alive()
    final = updates[-1]
    assert final["phase"] == "stopped" and final["message_words"] == ["train.stopped", {}]
    assert load_params(final["params_file"]) and owner.restarts == restarts
