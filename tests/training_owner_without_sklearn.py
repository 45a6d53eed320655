"""The device owner (playground/owner/main.py) in an interpreter that lacks scikit-learn, as a host can: the owner
starts and serves, and a run on the offline digits (the one dataset that needs it) fails in the owner's run path.
A run must then end with an error that names what is missing, and the owner serve on.

Started in place of the owner by a test (``OWNER_MODULE``); importing this module changes nothing.
"""

from __future__ import annotations

import importlib.abc
import sys

LACKING = "sklearn"


class _Lacking(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name == LACKING or name.startswith(f"{LACKING}."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


def main(channel: str) -> None:
    sys.meta_path.insert(0, _Lacking())
    from playground.owner.main import main as owner_main

    owner_main(channel)
