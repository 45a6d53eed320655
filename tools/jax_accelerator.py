"""Which JAX build this host needs: cpu, cuda12, cuda13 or tpu (the Makefile installs requirements-<choice>.txt).

Standard library only: it runs with the system ``python3`` before the venv exists.

In this order:

1. ``JAX_ACCELERATOR`` = cpu | cuda12 | cuda13 | tpu overrides the detection (empty counts as unset; any other value
   is an error, exit status 2).
2. An NVIDIA driver: ``nvidia-smi`` on ``PATH`` answers
   ``--query-gpu=name,driver_version --format=csv,noheader`` within the timeout with one ``name, version`` line per
   GPU. JAX's installation guide asks for driver >= 525 for its CUDA 12 wheels and >= 580 for CUDA 13 (NVIDIA's
   release notes: CUDA 12.x needs >= 525.60.13, CUDA 13.x >= 580). A driver new enough for CUDA 13 gets cuda13,
   unless a GPU's compute capability is below 7.5 (CUDA 13 dropped Maxwell, Pascal and Volta, which driver 580 still
   runs): those get cuda12. An older driver gets cuda12, or cpu when it is older than CUDA 12 needs. An nvidia-smi
   that is missing, fails, hangs or prints something else means no usable driver.
3. A Cloud TPU VM, found as JAX itself finds one (``jax/_src/hardware_utils.py``): a PCI device of Google's vendor id
   0x1ae0 with a TPU device id under ``/sys/bus/pci/devices``; or ``/dev/accel0``, ``/dev/accel1``... (TPU v2 to v4;
   the kernel's generic accelerators live under a ``/dev/accel/`` folder, which does not count); or a ``/dev/vfio/<n>``
   device together with one of the TPU variables a TPU VM or GKE pod sets (``TPU_ACCELERATOR_TYPE``, ``TPU_NAME``,
   ``TPU_WORKER_ID``, ``TPU_WORKER_HOSTNAMES``), since VFIO alone is any passed-through PCI device.
4. Otherwise cpu.

``python3 tools/jax_accelerator.py`` prints only the choice on stdout and, on stderr, one line saying why, e.g.
``JAX for cuda13: nvidia-smi reports NVIDIA H200, driver 580.65.06 (CUDA 13 needs >= 580)``.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

CHOICES = ("cpu", "cuda12", "cuda13", "tpu")
CUDA12_DRIVER = (525, 60, 13)
CUDA13_DRIVER = (580,)
CUDA13_COMPUTE_CAPABILITY = (7, 5)
NVIDIA_SMI_TIMEOUT_S = 10.0
QUERY = ["--query-gpu=name,driver_version", "--format=csv,noheader"]
COMPUTE_CAP_QUERY = ["--query-gpu=compute_cap", "--format=csv,noheader"]
GOOGLE_PCI_VENDOR = "0x1ae0"
TPU_PCI_DEVICES = {  # as in jax/_src/hardware_utils.py
    "0x0027": "TPU v3", "0x0056": "TPU", "0x005e": "TPU v4", "0x0062": "TPU v5p",
    "0x0063": "TPU v5e", "0x006f": "TPU v6e", "0x0076": "TPU7x",
}
TPU_VARIABLES = ("TPU_ACCELERATOR_TYPE", "TPU_NAME", "TPU_WORKER_ID", "TPU_WORKER_HOSTNAMES")
_VERSION = re.compile(r"\d+(\.\d+)*")


class BadOverride(ValueError):
    """JAX_ACCELERATOR holds something other than one of CHOICES."""


@dataclass(frozen=True)
class Choice:
    accelerator: str  # one of CHOICES
    reason: str

    def line(self) -> str:
        return f"JAX for {self.accelerator}: {self.reason}"


def version_tuple(text: str) -> tuple[int, ...]:
    """``"580.65.06"`` -> ``(580, 65, 6)``, so that versions compare as numbers."""
    return tuple(int(part) for part in text.split("."))


def dotted(version: tuple[int, ...]) -> str:
    return ".".join(map(str, version))


def _run(argv: list[str], timeout_s: float) -> tuple[int | None, str]:
    """(exit status or None on timeout, stdout and stderr together); the whole process group dies on a timeout."""
    try:
        process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                   start_new_session=True)
    except OSError as error:
        return -1, str(error)
    try:
        out, _ = process.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except OSError:
            process.kill()
        process.communicate()
        return None, ""
    return process.returncode, out[:65536].decode("utf-8", "replace")


def _first_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[0][:200] if lines else "no output"


def _parse_gpus(out: str) -> list[tuple[str, str]] | None:
    """``[(name, driver version), ...]`` from the query's lines, or None when a line is not ``name, version``."""
    gpus = []
    for line in out.splitlines():
        if not line.strip():
            continue
        name, _, version = line.rpartition(",")
        name, version = name.strip(), version.strip()
        if not name or not _VERSION.fullmatch(version):
            return None
        gpus.append((name, version))
    return gpus or None


def _compute_capabilities(smi: str, timeout_s: float) -> list[tuple[int, ...]] | None:
    """Each GPU's compute capability, or None when nvidia-smi does not say (older drivers lack the field)."""
    status, out = _run([smi, *COMPUTE_CAP_QUERY], timeout_s)
    caps = [line.strip() for line in out.splitlines() if line.strip()] if status == 0 else []
    if not caps or not all(_VERSION.fullmatch(cap) for cap in caps):
        return None
    return [version_tuple(cap) for cap in caps]


def _gpu_names(gpus: list[tuple[str, str]]) -> str:
    names = [name for name, _ in gpus]
    unique = list(dict.fromkeys(names))
    return ", ".join(name if names.count(name) == 1 else f"{names.count(name)} x {name}" for name in unique)


def nvidia_choice(env: Mapping[str, str], timeout_s: float = NVIDIA_SMI_TIMEOUT_S) -> Choice:
    """cuda13, cuda12, or cpu with the reason there is no usable NVIDIA driver."""
    smi = shutil.which("nvidia-smi", path=env.get("PATH", os.defpath))
    if smi is None:
        return Choice("cpu", "no nvidia-smi on PATH")
    status, out = _run([smi, *QUERY], timeout_s)
    if status is None:
        return Choice("cpu", f"nvidia-smi did not answer within {timeout_s:g} s")
    if status != 0:
        return Choice("cpu", f"nvidia-smi failed (exit status {status}): {_first_line(out)}")
    gpus = _parse_gpus(out)
    if gpus is None:
        return Choice("cpu", f"nvidia-smi printed no GPU name and driver version: {_first_line(out)}")
    shown = min((version for _, version in gpus), key=version_tuple)  # the same driver serves every GPU
    driver = version_tuple(shown)
    seen = f"nvidia-smi reports {_gpu_names(gpus)}, driver {shown}"
    if driver >= CUDA13_DRIVER:
        caps = _compute_capabilities(smi, timeout_s)
        if caps is not None and min(caps) < CUDA13_COMPUTE_CAPABILITY:
            old = ".".join(map(str, min(caps)))
            return Choice("cuda12", f"{seen}, compute capability {old} (CUDA 13 needs 7.5 or newer)")
        return Choice("cuda13", f"{seen} (CUDA 13 needs >= {dotted(CUDA13_DRIVER)})")
    if driver >= CUDA12_DRIVER:
        needs = f"CUDA 13 needs >= {dotted(CUDA13_DRIVER)}, CUDA 12 >= {dotted(CUDA12_DRIVER)}"
        return Choice("cuda12", f"{seen} ({needs})")
    return Choice("cpu", f"{seen}, which is older than CUDA 12 needs (>= {dotted(CUDA12_DRIVER)})")


def _read(path: Path) -> str:
    try:
        return path.read_text().strip()
    except OSError:
        return ""


def tpu_reason(env: Mapping[str, str], root: str | Path = "/") -> str | None:
    """Why this looks like a Cloud TPU VM, or None."""
    root = Path(root)
    for vendor in sorted((root / "sys/bus/pci/devices").glob("*/vendor")):
        if _read(vendor) == GOOGLE_PCI_VENDOR:
            device = _read(vendor.parent / "device")
            if device in TPU_PCI_DEVICES:
                return f"PCI device {vendor.parent.name} is a Google {TPU_PCI_DEVICES[device]}"
    accels = sorted(p for p in (root / "dev").glob("accel[0-9]*") if not p.is_dir())
    if accels:
        return f"TPU device file /dev/{accels[0].name}"
    variables = [name for name in TPU_VARIABLES if env.get(name)]
    vfio = sorted(p for p in (root / "dev/vfio").glob("[0-9]*"))
    if vfio and variables:
        return f"/dev/vfio/{vfio[0].name} and {variables[0]} is set"
    return None


def choose(env: Mapping[str, str] | None = None, root: str | Path = "/",
           timeout_s: float = NVIDIA_SMI_TIMEOUT_S) -> Choice:
    """The JAX build for this host; raises BadOverride for a JAX_ACCELERATOR outside CHOICES."""
    env = os.environ if env is None else env
    override = env.get("JAX_ACCELERATOR", "").strip()
    if override:
        if override not in CHOICES:
            raise BadOverride(f"JAX_ACCELERATOR={override!r} is not one of {', '.join(CHOICES)}")
        return Choice(override, f"JAX_ACCELERATOR={override}")
    nvidia = nvidia_choice(env, timeout_s)
    if nvidia.accelerator != "cpu":
        return nvidia
    tpu = tpu_reason(env, root)
    if tpu is not None:
        return Choice("tpu", tpu)
    if nvidia.reason == "no nvidia-smi on PATH":
        return Choice("cpu", "no nvidia-smi on PATH and no TPU device files")
    return Choice("cpu", f"{nvidia.reason}; no TPU device files")


def main(env: Mapping[str, str] | None = None, root: str | Path = "/") -> int:
    try:
        choice = choose(env, root)
    except BadOverride as error:
        print(f"jax_accelerator: {error}", file=sys.stderr)
        return 2
    print(choice.line(), file=sys.stderr)
    print(choice.accelerator)
    return 0


if __name__ == "__main__":
    sys.exit(main())
