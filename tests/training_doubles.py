"""A scripted stand-in for the device owner, as TrainingService uses it (server/device_owner/handle.py's ``DeviceOwner``
and its ``TrainingStream``), for tests of the service's own timing: its graces after a Stop, a client that goes
away, an owner that ends or starts again.

``ScriptedOwner(after_stop)`` answers ``train`` with one training update, and a stop with ``after_stop``: (seconds
after the stop, message) pairs; those at 0 s are there before ``stop`` returns, so the service has them at its next
look however loaded the machine, the others come from a thread at their time (unless the run was abandoned by
then). ``abandon`` is what the service does to a run that missed its grace (the real owner is killed and started
again): the stream notes when, says nothing more, and its ``receive`` then raises ``OwnerLost`` as the real one does.
The real owner's stream is tested in test_mnist_server_service.py.
"""

from __future__ import annotations

import queue
import threading
import time

from playground.mnist.config import TrainOrder
from playground.server.device_owner.handle import OwnerLost

TRAINING = {"kind": "update", "phase": "training", "step": 3, "epoch": 0.1, "loss": 1.5, "done": False}
HUNG = OwnerLost("timeout", ["device.training_hung", {}])  # what the real stream raises after an abandon


def finishing() -> dict:
    """The update a run sends once a stop is heard: no step will be queued any more."""
    return {**TRAINING, "phase": "finishing", "stopped": True}


def done(params_file: str) -> dict:
    """A stopped run's last message: its weights are saved in ``params_file``."""
    return {**TRAINING, "kind": "done", "done": True, "stopped": True, "params_file": params_file,
            "class_names": [str(n) for n in range(10)]}


class ScriptedStream:
    """One run's messages, as ``TrainingStream`` gives them; what the service did to it, with when."""

    def __init__(self, order: TrainOrder, after_stop: list[tuple[float, dict]], lost: OwnerLost | None) -> None:
        self.order = order
        self.stopped_at: float | None = None
        self.abandoned_at: float | None = None
        self.closed = False
        self._after_stop = after_stop
        self._lost = lost  # raised by receive once the messages sent are read: the owner ended mid-run
        self._abandoned = threading.Event()
        self._outbox: queue.Queue[dict] = queue.Queue()
        self._outbox.put({**TRAINING, "run": 1})

    def receive(self, timeout_s: float) -> dict | None:
        if self._abandoned.is_set():
            raise HUNG
        if self._lost is not None and self._outbox.empty():
            raise self._lost
        try:
            return self._outbox.get(timeout=timeout_s)
        except queue.Empty:
            return None

    def stop(self) -> None:
        if self.stopped_at is not None:
            return  # the real owner, too, hears a second stop as nothing new
        self.stopped_at = time.monotonic()
        for after, answer in self._after_stop:
            if after == 0:
                self._outbox.put({**answer, "run": 1})
        threading.Thread(target=self._answer_stop, args=(self.stopped_at,), daemon=True).start()

    def close(self) -> None:
        self.closed = True

    def abandon(self) -> None:
        if self.abandoned_at is None:
            self.abandoned_at = time.monotonic()
        self._abandoned.set()

    def _answer_stop(self, asked: float) -> None:
        for after, message in self._after_stop:
            if after == 0:
                continue
            if self._abandoned.wait(max(0.0, asked + after - time.monotonic())):
                return  # abandoned first: a killed owner says nothing more
            self._outbox.put({**message, "run": 1})


class ScriptedOwner:
    """The ``DeviceOwner`` methods the service calls: ``alive``, ``wait_ready``, ``train``.

    ``alive=False``: an owner starting again, ready once the service has waited for it. ``refuse``: ``train`` raises
    it (an owner between two lives). ``lost``: the run's stream raises it after its first update (the owner ended).
    """

    def __init__(self, after_stop: list[tuple[float, dict]] = (), *, alive: bool = True,
                 refuse: OwnerLost | None = None, lost: OwnerLost | None = None) -> None:
        self.streams: list[ScriptedStream] = []
        self.waited: list[float] = []  # the timeouts wait_ready was called with
        self._after_stop = list(after_stop)
        self._alive = alive
        self._refuse = refuse
        self._lost = lost

    @property
    def stream(self) -> ScriptedStream:
        """The latest run's stream."""
        return self.streams[-1]

    def alive(self) -> bool:
        return self._alive

    def wait_ready(self, timeout_s: float) -> bool:
        self.waited.append(timeout_s)
        self._alive = True
        return True

    def train(self, order: TrainOrder) -> ScriptedStream:
        if self._refuse is not None:
            raise self._refuse
        self.streams.append(ScriptedStream(order, self._after_stop, self._lost))
        return self.stream
