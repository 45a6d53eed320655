"""Run a command where some system calls fail with ENOSYS, as on a kernel that lacks them (gVisor, older Linux).

    python -m tests.without_syscalls pidfd_open pidfd_send_signal -- python app.py

A seccomp filter (libseccomp, through pyseccomp) answers each named call with
ENOSYS; the kernel keeps the filter across exec and gives it to every child,
so the server, its sandbox template and every worker meet the same kernel.
"""

from __future__ import annotations

import errno
import os
import sys


def main(argv: list[str]) -> None:
    split = argv.index("--")
    names, command = argv[:split], argv[split + 1:]
    import pyseccomp as seccomp

    kernel = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
    for name in names:
        kernel.add_rule(seccomp.ERRNO(errno.ENOSYS), name)
    kernel.load()
    os.execvp(command[0], command)


if __name__ == "__main__":
    main(sys.argv[1:])
