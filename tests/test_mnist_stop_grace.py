"""How long TrainingService waits for a stopped run: a chunk's time to stop, then the final measurement's.

A wide model on a loaded classroom server takes seconds to measure the whole test set and save its weights after
its last chunk; a Stop that gave up on it after the chunk's grace would lose the weights. A run that misses its
grace is taken for a hung device: the service abandons it, and the device owner is killed and started again. The
owner here is a scripted stand-in (tests/training_doubles.py) for the ``DeviceOwner`` interface the service uses:
it answers a stop with the messages the real one sends, at moments the test chooses (the real owner's stream is
tested in test_mnist_server_service.py, its loop in test_mnist_worker_loop.py).

Each bound a test checks is either one the service cannot break however slow the machine (it gives up no sooner
than its grace) or one with a minute's room (it gives up at all, and not after the longer grace).
"""

from __future__ import annotations

import os
import time

import pytest

from playground.mnist.config import TrainConfig
from playground.mnist.places import DataPlaces
from playground.server.device_owner.handle import OwnerLost
from playground.server.training.service import START_WAIT_S, TrainingService
from playground.server.training.stopping import TrainingFailed
from tests.training_doubles import ScriptedOwner, done, finishing

STOP_GRACE_S = 1.0
FINISH_GRACE_S = 4.0  # where a test waits for the finishing grace to run out
# Room for the service's own steps around a grace (milliseconds), however loaded the machine.
WAIT_S = 60.0
LONG_FINISH_GRACE_S = WAIT_S  # where a test tells the two graces apart


@pytest.fixture
def make_service(tmp_path):
    """A TrainingService on a scripted owner, with a stop grace of STOP_GRACE_S and the finishing grace asked for."""
    made = []

    def make(owner: ScriptedOwner, finish_grace_s: float = LONG_FINISH_GRACE_S) -> TrainingService:
        runs = tmp_path / f"runs-{len(made)}"
        runs.mkdir()
        made.append(TrainingService(owner, DataPlaces(tmp_path), str(runs), slots=1, stop_grace_s=STOP_GRACE_S,
                                    finish_grace_s=finish_grace_s))
        return made[-1]

    yield make
    for training in made:
        training.close()


def stopped_run(service: TrainingService) -> tuple[list[dict], float]:
    """A digits run (no files to fetch), stopped at its first training update: (updates, seconds from the Stop to
    the last update)."""
    updates, asked = [], None
    for update in service.train(TrainConfig(dataset="digits"), "pupil"):
        updates.append(update)
        if update["phase"] == "training" and asked is None:
            assert service.stop("pupil")
            asked = time.monotonic()
    return updates, time.monotonic() - asked


def test_a_run_that_is_finishing_gets_the_time_to_save_its_weights(make_service, tmp_path):
    params = str(tmp_path / "params.npz")
    # Finishing at once, done well after the stop grace (which would have given up on it) and long before the other.
    owner = ScriptedOwner([(0, finishing()), (2.5 * STOP_GRACE_S, done(params))])
    updates, took = stopped_run(make_service(owner))
    assert owner.stream.abandoned_at is None and owner.stream.closed
    assert [u["phase"] for u in updates] == ["training", "finishing", "stopped"]
    assert updates[1]["stopped"] is True  # the page says "Stopping: …" meanwhile
    final = updates[-1]
    assert final["params_file"] == params and final["message_words"] == ["train.stopped", {}]
    assert 2.5 * STOP_GRACE_S <= took < LONG_FINISH_GRACE_S


def test_a_run_that_ignores_the_stop_is_abandoned_after_the_stop_grace(make_service):
    owner = ScriptedOwner([])
    updates, took = stopped_run(make_service(owner))
    assert owner.stream.abandoned_at is not None  # its owner is killed and started again
    assert owner.stream.abandoned_at - owner.stream.stopped_at >= STOP_GRACE_S
    final = updates[-1]
    assert final["phase"] == "stopped" and final["message_words"] == ["train.worker_restarted", {}]
    assert "params_file" not in final
    assert STOP_GRACE_S <= took < LONG_FINISH_GRACE_S  # not the finishing grace: it never said it was finishing


def test_a_run_that_finishes_for_too_long_is_abandoned_after_the_finish_grace(make_service):
    owner = ScriptedOwner([(0, finishing())])
    updates, took = stopped_run(make_service(owner, FINISH_GRACE_S))
    assert owner.stream.abandoned_at is not None
    assert [u["phase"] for u in updates] == ["training", "finishing", "stopped"]
    assert updates[-1]["message_words"] == ["train.worker_restarted", {}]
    # Not the stop grace, which is shorter: the finishing one, and then an abandon, not a wait without end.
    assert FINISH_GRACE_S <= took < FINISH_GRACE_S + WAIT_S


def test_a_client_that_goes_away_stops_the_run_and_waits_both_graces_before_abandoning_it(make_service):
    """Gradio closes the stream when the browser disconnects: the run is stopped before its slot is reused, and its
    owner is restarted only when it neither finished nor erred within the stop grace and the finishing grace."""
    owner = ScriptedOwner([])
    service = make_service(owner, FINISH_GRACE_S)
    run = service.train(TrainConfig(dataset="digits"), "pupil")
    while next(run)["phase"] != "training":
        pass
    run.close()
    stream = owner.stream
    assert stream.stopped_at is not None and stream.abandoned_at is not None and stream.closed
    assert stream.abandoned_at - stream.stopped_at >= STOP_GRACE_S + FINISH_GRACE_S
    assert service.status() == {"slots": 1, "running": 0, "waiting": 0}


def test_a_client_that_goes_away_from_a_run_that_stops_in_time_leaves_the_owner_alone(make_service, tmp_path):
    owner = ScriptedOwner([(0, finishing()), (2.5 * STOP_GRACE_S, done(str(tmp_path / "params.npz")))])
    service = make_service(owner)
    run = service.train(TrainConfig(dataset="digits"), "pupil")
    while next(run)["phase"] != "training":
        pass
    run.close()
    assert owner.stream.stopped_at is not None and owner.stream.abandoned_at is None
    assert service.status()["running"] == 0


def test_a_run_on_an_owner_starting_again_says_so_and_waits_for_it(make_service, tmp_path):
    owner = ScriptedOwner([(0, finishing()), (0, done("params.npz"))], alive=False)
    service = make_service(owner)
    phases = []
    for update in service.train(TrainConfig(dataset="digits"), "pupil"):
        phases.append(update["phase"])
        if update["phase"] == "training":
            service.stop("pupil")
    assert phases == ["starting", "training", "finishing", "stopped"]
    assert owner.waited == [START_WAIT_S]
    order = owner.stream.order
    assert order.slot == 0 and order.race is None and order.config.dataset == "digits"
    assert os.path.isdir(order.run_dir)


def test_an_owner_that_ends_mid_run_fails_the_run_with_its_reason(make_service):
    lost = OwnerLost("crashed", ["device.crashed", {"why": "killed by SIGKILL"}])
    owner = ScriptedOwner(lost=lost)
    service = make_service(owner)
    with pytest.raises(TrainingFailed, match=r"^The device's owner process ended .*\(killed by SIGKILL\)"):
        list(service.train(TrainConfig(dataset="digits"), "pupil"))
    assert owner.stream.closed and owner.stream.abandoned_at is None  # it is gone already: nothing to kill
    assert service.status() == {"slots": 1, "running": 0, "waiting": 0}
    assert not service.stop("pupil")  # the session may train again


def test_a_run_asked_of_an_owner_between_two_lives_fails_saying_it_is_starting_again(make_service):
    owner = ScriptedOwner(refuse=OwnerLost("crashed", ["device.restarting", {}]))
    service = make_service(owner)
    with pytest.raises(TrainingFailed, match="^The device's owner process is starting again"):
        list(service.train(TrainConfig(dataset="digits"), "pupil"))
    assert service.status() == {"slots": 1, "running": 0, "waiting": 0}
