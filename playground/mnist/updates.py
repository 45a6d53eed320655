"""What every update of a training run carries, in the device owner and in the server alike: ``blank`` has each
key, before anything is measured (owner/training/loop.py's first update, server/training/service.py's before
the owner's first; api.train's docstring says what each means)."""

from __future__ import annotations


def blank(phase: str, epochs: int, **known: object) -> dict:
    """An update of ``phase`` with every key, nothing measured yet, ``known`` on top.

    >>> blank("data", 5)["losses"], blank("data", 5, device="cpu")["device"]
    ([], 'cpu')
    """
    return {"phase": phase, "step": 0, "epoch": 0.0, "epochs": epochs, "loss": None, "test_accuracy": None,
            "epoch_accuracy": None, "train_accuracy": None, "epoch_train_accuracy": None, "samples_per_s": None,
            "seconds_per_epoch": None, "elapsed_s": 0.0, "losses": [], "first_loss_step": None, "epoch_ends": [],
            "device": None, "devices": None, "n_train": None, "n_test": None, "done": False, **known}
