"""How every child of the server begins and ends its life: the sandbox's workers (worker/life/forked.py, from the
template; spawned.py, in the local process mode) and the device owner (owner/main.py).

``settle_in`` moves it into the scratch folder the server made for it and readies it to be watched; ``live`` runs
its life and ends the process with ``os._exit``, so that no cleanup handler it inherited (a forked template's, an
interpreter's atexit) runs, and an exception reaches the server's log through stderr, never the user.
Standard library only.
"""

from __future__ import annotations

import ctypes
import faulthandler
import os
import signal
import sys
import tempfile
import traceback
from collections.abc import Callable
from typing import NoReturn

_PR_SET_PDEATHSIG = 1
_PR_SET_DUMPABLE = 4


def live(life: Callable[[], int | None]) -> NoReturn:
    """Run ``life``, then end the process: with its status (0 for None), or 1 and the traceback on stderr where it
    raised."""
    status = 1
    try:
        status = life() or 0
    except BaseException:  # the server reads stderr into its log
        traceback.print_exc()
    finally:
        sys.stderr.flush()
        os._exit(status)


def settle_in(scratch: str) -> None:
    """Work in ``scratch``: the current folder, HOME, TMPDIR and Windows' names for them, tempfile's folder; stdin
    empty. Then ready to be watched: a traceback on stderr on a fatal signal and when the server asks (SIGUSR1,
    before it kills a hung child; not on Windows), a full file an EFBIG instead of a kill (SIGXFSZ), and the ends of
    its own children reported (SIGCHLD, which a template ignores)."""
    os.chdir(scratch)
    for name in ("HOME", "TMPDIR", "TEMP", "TMP", "USERPROFILE"):
        os.environ[name] = scratch
    # Set, not probed: tempfile's probe deletes a file, which a scratch folder that keeps its files refuses.
    tempfile.tempdir = scratch
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    faulthandler.enable(file=sys.stderr, all_threads=True)
    if hasattr(signal, "SIGUSR1"):  # none of these three on Windows
        faulthandler.register(signal.SIGUSR1, file=sys.stderr, all_threads=True)
    if hasattr(signal, "SIGXFSZ"):
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    if hasattr(signal, "SIGCHLD"):
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)


def die_with_parent(undumpable: bool = False) -> None:
    """Killed when the thread that started it ends (Linux; nothing elsewhere), so that no child outlives the
    server or the template; ``undumpable``: no same-uid process may ptrace it or read its /proc files (its
    environment holds a driver's secrets)."""
    if not sys.platform.startswith("linux"):
        return
    libc = ctypes.CDLL(None)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if undumpable:
        libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)
