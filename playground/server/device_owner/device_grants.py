"""What an accelerator's driver needs beyond its device files, granted only to the device owner.

The owner (main.py) locks itself down with every layer the host has before it
opens the device. A few of those layers' rules stop a driver from opening the
device at all; each grant below loosens exactly one such rule, for the owner
only, and says why (confinement/lockdown.py and seccomp_filter.py apply each by its
name; the sandbox's CPU workers never get any). The reviewed list:

- ``thread_names`` (Landlock): write access to the files beneath the owner's
  own ``/proc/self/task``. CUDA's ``cuInit`` names the threads it starts by
  writing ``/proc/self/task/<tid>/comm`` and fails with CUDA_ERROR_OPERATING_SYSTEM
  when it cannot (under Landlock, a read-only /proc makes cuInit fail). The
  files there change only the owner itself (its threads' names, its own OOM score upwards).
- ``own_sockets`` (seccomp): ``bind`` and ``listen`` on UNIX sockets. ``cuInit``
  binds and listens on an abstract socket of its own (``@cuda-uvmfd-<ns>-<pid>``,
  canonical/snapd's CUDA rules) and fails when refused; with these two allowed,
  the rest of the filter lets the GPU open. ``accept`` stays denied, so nothing
  that connects is ever served.
- ``absent_daemons`` (seccomp): ``connect`` fails with ENOENT ("no such file")
  instead of EPERM, as where no daemon runs: the driver looks for the MPS control
  daemon's socket (``/tmp/nvidia-mps/control``) and carries on after ENOENT.
  The call is still refused: nothing is reached.
- ``compiler_programs`` (seccomp and Landlock): start NVIDIA's ``ptxas`` and
  ``nvlink``, and nothing else. Opening the GPU is not enough: XLA compiles each
  GPU kernel by running these two programs (cuda_programs.py says why the pip
  plugins leave no other way, and finds them; without them every compile fails
  with "No PTX compilation provider is available"). seccomp then allows
  ``execve`` and a ``clone`` made the way ``posix_spawn`` makes one (the parent
  waits until the exec); Landlock lets exactly those files, and the ELF loader
  the kernel starts them with, be executed. The programs run under the owner's
  own seccomp filter, Landlock rules and rlimits. The loader could start any
  other program the owner can read, under those same bounds. Applied only with a
  private scratch folder (XLA deletes the files it hands to ptxas), which the
  owner's is.

A TPU's libtpu needs none of them as far as is known (its lock file and its
metadata-server query are turned off through its environment instead:
server/device_owner/accelerator.py's ``owner_env``).

Which of them a host's driver needs differs between driver versions, so the
server finds the smallest working set when it starts the owner
(server/worker_pools.py, with ``smallest``: nothing first, then all, then each
left out in turn, each try one owner started) and reports the sets it tried
and the one it chose in About. Nothing outside this list is ever tried.

>>> tried = []
>>> def opens(grants):  # a driver that needs thread names and nothing else
...     tried.append(grants)
...     return None if "thread_names" in grants else "CUDA_ERROR_OPERATING_SYSTEM"
>>> smallest(("thread_names", "own_sockets", "absent_daemons"), opens)
('thread_names',)
>>> len(tried), tried[1], tried[-1]  # nothing, all, then each left out in turn
(5, ('thread_names', 'own_sockets', 'absent_daemons'), ('thread_names',))
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Grant:
    name: str
    layer: str  # the layers it loosens: "landlock", "seccomp" or both
    allows: str  # what the owner may then do, as About and the security page (docs/security.md) say it
    platforms: tuple[str, ...]  # the JAX platforms whose drivers may need it


GRANTS: dict[str, Grant] = {grant.name: grant for grant in (
    Grant("thread_names", "landlock", "write to the files beneath its own /proc/self/task (the driver names its "
                                      "threads)", ("cuda",)),
    Grant("own_sockets", "seccomp", "bind and listen on UNIX sockets (the driver's own abstract socket; accept stays "
                                    "denied)", ("cuda",)),
    Grant("absent_daemons", "seccomp", "connect answers ENOENT instead of EPERM (as where no daemon runs; still "
                                       "refused)", ("cuda",)),
    Grant("compiler_programs", "seccomp and landlock", "start NVIDIA's ptxas and nvlink, and only those (XLA compiles "
                                                      "every GPU kernel with them)", ("cuda",)),
)}


class NoneOpens(RuntimeError):
    """No set of the reviewed grants lets the owner open the device; the message is JAX's reason."""


def candidates(platform: str) -> tuple[str, ...]:
    """The grants a driver of ``platform`` may need, in the order they are tried."""
    return tuple(name for name, grant in GRANTS.items() if platform in grant.platforms)


def smallest(names: Sequence[str], opens: Callable[[tuple[str, ...]], str | None]) -> tuple[str, ...]:
    """The smallest set of ``names`` with which ``opens`` succeeds (it returns None, else why it failed).

    Nothing first (most hosts' drivers may need none); then every grant at once;
    then each grant left out in turn, kept out when the device still opens.
    At most ``len(names) + 2`` tries. NoneOpens when even every grant is not enough.
    """
    why = opens(())
    if why is None:
        return ()
    chosen = tuple(names)
    if not chosen:
        raise NoneOpens(why)
    why_all = opens(chosen)
    if why_all is not None:
        raise NoneOpens(f"{why_all} (also with every grant the sandbox may give: {', '.join(chosen)})")
    for name in names:
        fewer = tuple(n for n in chosen if n != name)
        if fewer and opens(fewer) is None:
            chosen = fewer
    return chosen


def describe(names: Sequence[str]) -> str:
    """The grants in words, for About and the log."""
    if not names:
        return "none: the device opens with every layer as it is"
    return "; ".join(f"{GRANTS[name].layer}: {GRANTS[name].allows}" for name in names)
