"""NVIDIA's PTX assembler and linker (``ptxas``, ``nvlink``), found where XLA looks for them, with their loader.

JAX's CUDA plugins as pip installs them have no PTX compiler built in
(jax-cuda13-plugin 0.11.2 says "LibNvPtxCompiler is not supported",
"LibNvJitLink is not supported"), and XLA's fallback to the
driver's compiler is not offered on its JIT path ("Stream executor provided:
0"). So XLA compiles every GPU kernel by starting these two programs
(``posix_spawn``), and a process that may start no program can open the GPU
but never run anything on it. With the ``compiler_programs`` device grant
(device_grants.py), the owner (main.py) finds them here before it locks itself
down, and Landlock lets exactly these files, and the ELF loader that the kernel
starts each one with, be executed (confinement/lockdown.py: ``apply``'s ``programs``).

XLA looks in its ``--xla_gpu_cuda_data_dir``, the directories of ``PATH``,
the usual CUDA folders and beside the CUDA plugin (NVIDIA's pip packages);
every ``ptxas`` and ``nvlink`` found in those places is granted, since XLA
takes the first one whose version it can read.
"""

from __future__ import annotations

import os
import re
import site
import struct
from collections.abc import Mapping

PROGRAMS = ("ptxas", "nvlink")
_CUDA_FOLDERS = ("/usr/local/cuda/bin", "/opt/cuda/bin")
_PIP_FOLDERS = ("nvidia/cu13/bin", "nvidia/cu12/bin", "nvidia/cuda_nvcc/bin")
_PT_INTERP = 3


def folders(env: Mapping[str, str]) -> list[str]:
    """Where XLA looks for the programs, in its order, for a process with environment ``env``."""
    data_dir = re.search(r"--xla_gpu_cuda_data_dir=(\S+)", env.get("XLA_FLAGS", ""))
    found = [os.path.join(data_dir.group(1), "bin")] if data_dir else []
    found += [folder for folder in env.get("PATH", "").split(os.pathsep) if folder]
    found += _CUDA_FOLDERS
    found += [os.path.join(packages, pip) for packages in site.getsitepackages() for pip in _PIP_FOLDERS]
    return list(dict.fromkeys(found))


def find(search: list[str]) -> list[str]:
    """Every ``ptxas`` and ``nvlink`` in ``search`` (real paths), then the loaders they need; [] where none is."""
    programs = [os.path.realpath(path) for folder in search for name in PROGRAMS
                if os.access(path := os.path.join(folder, name), os.X_OK) and os.path.isfile(path)]
    loaders = [os.path.realpath(loader) for program in programs if (loader := interpreter(program))]
    return list(dict.fromkeys(programs + loaders))


def interpreter(path: str) -> str | None:
    """The ELF loader a dynamically linked 64-bit program names (its PT_INTERP), or None.

    The kernel opens it to start the program, and Landlock asks for the right
    to execute that file too.

    >>> interpreter("/nowhere") is None
    True
    """
    try:
        with open(path, "rb") as f:
            header = f.read(64)
            if header[:5] != b"\x7fELF\x02":
                return None
            order = "<" if header[5] == 1 else ">"
            (table,), (entry_size, entries) = struct.unpack_from(order + "Q", header, 32), struct.unpack_from(
                order + "HH", header, 54)
            for index in range(entries):
                f.seek(table + index * entry_size)
                kind, _, offset, _, _, size = struct.unpack(order + "IIQQQQ", f.read(40))
                if kind == _PT_INTERP:
                    f.seek(offset)
                    return f.read(size).rstrip(b"\0").decode() or None
    except (OSError, struct.error, UnicodeDecodeError):
        return None
    return None
