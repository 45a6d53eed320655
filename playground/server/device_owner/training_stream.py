"""One training run on the device owner as the server follows it: its messages as they come, its stop, its end.

Runs in the web server (standard library only). The owner's handle (handle.py) puts each message of the run in
the stream's queue, and None when the owner ended under the run; ``receive`` then raises the handle's
``OwnerLost``, which says why.
"""

from __future__ import annotations

import queue
from typing import Protocol


class RunsOwner(Protocol):
    """What a stream asks of the owner's handle (handle.py's DeviceOwner)."""

    def lost(self, generation: int) -> Exception: ...
    def stop_run(self, stream: TrainingStream) -> None: ...
    def forget_run(self, stream: TrainingStream) -> None: ...
    def abandon_run(self, generation: int) -> None: ...


class TrainingStream:
    """One training run's messages from the owner (``receive``), and its stop."""

    def __init__(self, owner: RunsOwner, run: int, generation: int) -> None:
        self._owner, self.run, self.generation = owner, run, generation
        self.messages: queue.Queue[dict | None] = queue.Queue()

    def receive(self, timeout_s: float) -> dict | None:
        """The run's next message, None when none came within ``timeout_s``; OwnerLost when the owner ended."""
        try:
            message = self.messages.get(timeout=timeout_s)
        except queue.Empty:
            return None
        if message is None:
            raise self._owner.lost(self.generation)
        return message

    def stop(self) -> None:
        self._owner.stop_run(self)

    def close(self) -> None:
        self._owner.forget_run(self)

    def abandon(self) -> None:
        """The run did not stop when asked: its owner is killed and started again (a hung device is the owner's)."""
        self._owner.abandon_run(self.generation)
