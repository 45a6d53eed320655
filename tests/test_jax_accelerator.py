"""tools/jax_accelerator.py, which picks the JAX build make installs, and the requirements variants it picks from."""

from __future__ import annotations

import ast
import importlib.metadata
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "tools" / "jax_accelerator.py"
VARIANTS = ("cuda12", "cuda13", "tpu")
PLUGINS = ("jax-cuda12-plugin", "jax-cuda12-pjrt", "jax-cuda13-plugin", "jax-cuda13-pjrt", "libtpu")
# Room beyond a timeout for ending and reaping a process, which takes milliseconds: only a real hang reaches it.
WAIT_S = 60.0


def _load():
    spec = importlib.util.spec_from_file_location("jax_accelerator", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


ja = _load()


def fake_smi(tmp_path: Path, query_output: str = "", *, status: int = 0, compute_cap: str = "9.0",
             body: str | None = None) -> dict[str, str]:
    """An env whose PATH finds a fake nvidia-smi first: it answers the name/driver query and the compute_cap one."""
    folder = tmp_path / "bin"
    folder.mkdir(exist_ok=True)
    if body is None:
        (folder / "query.txt").write_text(query_output)
        (folder / "compute_cap.txt").write_text(compute_cap + "\n")
        body = (f'case "$1" in\n  --query-gpu=compute_cap) cat "{folder}/compute_cap.txt" ;;\n'
                f'  *) cat "{folder}/query.txt" ;;\nesac\nexit {status}\n')
    smi = folder / "nvidia-smi"
    smi.write_text("#!/bin/sh\n" + body)
    smi.chmod(0o755)
    return {"PATH": f"{folder}{os.pathsep}{os.environ.get('PATH', os.defpath)}"}


def no_smi(tmp_path: Path) -> dict[str, str]:
    empty = tmp_path / "empty-bin"
    empty.mkdir(exist_ok=True)
    return {"PATH": str(empty)}


def choose(env, root, timeout_s: float = WAIT_S, **kwargs):
    """The choice for ``env``; a fake nvidia-smi answers at once, so only the hanging one meets the timeout."""
    return ja.choose(env, root=root, timeout_s=timeout_s, **kwargs)


# --- NVIDIA ---

def test_a_driver_for_cuda_13_gets_cuda13(tmp_path):
    choice = choose(fake_smi(tmp_path, "NVIDIA H200, 580.65.06\n"), tmp_path)
    assert choice.accelerator == "cuda13"
    assert choice.line() == "JAX for cuda13: nvidia-smi reports NVIDIA H200, driver 580.65.06 (CUDA 13 needs >= 580)"


def test_a_driver_for_cuda_12_only_gets_cuda12(tmp_path):
    choice = choose(fake_smi(tmp_path, "Tesla T4, 535.104.05\n", compute_cap="7.5"), tmp_path)
    assert choice.accelerator == "cuda12"
    assert choice.reason == ("nvidia-smi reports Tesla T4, driver 535.104.05 (CUDA 13 needs >= 580, "
                             "CUDA 12 >= 525.60.13)")


def test_a_driver_too_old_for_cuda_12_gets_cpu_and_says_why(tmp_path):
    choice = choose(fake_smi(tmp_path, "Tesla K80, 470.57.02\n"), tmp_path)
    assert choice.accelerator == "cpu"
    assert "driver 470.57.02, which is older than CUDA 12 needs (>= 525.60.13)" in choice.reason


@pytest.mark.parametrize(("driver", "expected"), [
    ("525.60.12", "cpu"), ("525.60.13", "cuda12"), ("525.105.17", "cuda12"), ("579.99", "cuda12"),
    ("580", "cuda13"), ("580.65.06", "cuda13"), ("1000.1.1", "cuda13"), ("99.0", "cpu"),
])
def test_driver_versions_compare_as_numbers_not_strings(tmp_path, driver, expected):
    assert choose(fake_smi(tmp_path, f"NVIDIA L4, {driver}\n"), tmp_path).accelerator == expected


def test_cuda_13_wants_compute_capability_7_5_so_a_volta_on_driver_580_gets_cuda12(tmp_path):
    choice = choose(fake_smi(tmp_path, "Tesla V100-SXM2-16GB, 580.65.06\n", compute_cap="7.0"), tmp_path)
    assert choice.accelerator == "cuda12"
    assert "compute capability 7.0 (CUDA 13 needs 7.5 or newer)" in choice.reason


def test_an_unknown_compute_capability_does_not_block_cuda13(tmp_path):
    choice = choose(fake_smi(tmp_path, "NVIDIA H200, 580.65.06\n", compute_cap="[N/A]"), tmp_path)
    assert choice.accelerator == "cuda13"


def test_a_failing_nvidia_smi_means_no_usable_driver(tmp_path):
    message = ("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. "
               "Make sure that the latest NVIDIA driver is installed and running.")
    choice = choose(fake_smi(tmp_path, message + "\n", status=9), tmp_path)
    assert choice.accelerator == "cpu"
    assert choice.reason == f"nvidia-smi failed (exit status 9): {message[:200]}; no TPU device files"


@pytest.mark.parametrize("output", ["Segmentation fault\n", "No devices were found\n", "", "\n\n",
                                    "NVIDIA H200, not-a-version\n", ", 580.65.06\n"])
def test_garbage_from_nvidia_smi_means_no_usable_driver(tmp_path, output):
    choice = choose(fake_smi(tmp_path, output), tmp_path)
    assert choice.accelerator == "cpu"
    assert choice.reason.startswith("nvidia-smi printed no GPU name and driver version")


def test_a_hanging_nvidia_smi_is_given_up_on_after_the_timeout(tmp_path):
    env = fake_smi(tmp_path, body="sleep 600\necho 'NVIDIA H200, 580.65.06'\n")
    started = time.monotonic()
    choice = choose(env, tmp_path, timeout_s=0.5)
    # The sleep, a child of the script, is killed too: waiting for it (its end closes the pipe) would take 600 s.
    assert time.monotonic() - started < 0.5 + WAIT_S
    assert choice.accelerator == "cpu"
    assert choice.reason == "nvidia-smi did not answer within 0.5 s; no TPU device files"


def test_several_gpus_each_on_a_line(tmp_path):
    choice = choose(fake_smi(tmp_path, "NVIDIA H200, 580.65.06\nNVIDIA H200, 580.65.06\n"), tmp_path)
    assert choice.accelerator == "cuda13"
    assert choice.reason.startswith("nvidia-smi reports 2 x NVIDIA H200, driver 580.65.06")


def test_several_gpus_are_judged_by_the_oldest_driver_listed(tmp_path):
    choice = choose(fake_smi(tmp_path, "NVIDIA A100-SXM4-80GB, 580.65.06\nNVIDIA L4, 570.86.15\n"), tmp_path)
    assert choice.accelerator == "cuda12"
    assert "NVIDIA A100-SXM4-80GB, NVIDIA L4, driver 570.86.15" in choice.reason


def test_nvidia_smi_is_found_through_the_given_path_only(tmp_path):
    choice = choose(no_smi(tmp_path), tmp_path)
    assert choice == ja.Choice("cpu", "no nvidia-smi on PATH and no TPU device files")


# --- TPU ---

def _pci(root: Path, slot: str, vendor: str, device: str) -> None:
    folder = root / "sys/bus/pci/devices" / slot
    folder.mkdir(parents=True)
    (folder / "vendor").write_text(vendor + "\n")
    (folder / "device").write_text(device + "\n")


def test_a_google_tpu_on_the_pci_bus_gets_tpu(tmp_path):
    _pci(tmp_path, "0000:00:04.0", "0x1ae0", "0x0063")
    assert choose(no_smi(tmp_path), tmp_path) == ja.Choice("tpu", "PCI device 0000:00:04.0 is a Google TPU v5e")


def test_other_pci_devices_are_not_tpus(tmp_path):
    _pci(tmp_path, "0000:00:03.0", "0x1ae0", "0x0042")  # Google's virtual NIC
    _pci(tmp_path, "0000:00:05.0", "0x10de", "0x2335")  # an NVIDIA GPU
    assert choose(no_smi(tmp_path), tmp_path).accelerator == "cpu"


def test_tpu_device_files_get_tpu(tmp_path):
    (tmp_path / "dev").mkdir()
    (tmp_path / "dev/accel0").touch()
    assert choose(no_smi(tmp_path), tmp_path) == ja.Choice("tpu", "TPU device file /dev/accel0")


def test_the_kernels_generic_accel_folder_is_not_a_tpu(tmp_path):
    (tmp_path / "dev/accel").mkdir(parents=True)
    (tmp_path / "dev/accel/accel0").touch()  # e.g. an Intel NPU
    assert choose(no_smi(tmp_path), tmp_path).accelerator == "cpu"


def test_vfio_devices_count_only_with_a_tpu_variable(tmp_path):
    (tmp_path / "dev/vfio").mkdir(parents=True)
    (tmp_path / "dev/vfio/0").touch()
    (tmp_path / "dev/vfio/vfio").touch()
    assert choose(no_smi(tmp_path), tmp_path).accelerator == "cpu"
    choice = choose({**no_smi(tmp_path), "TPU_ACCELERATOR_TYPE": "v5litepod-8"}, tmp_path)
    assert choice == ja.Choice("tpu", "/dev/vfio/0 and TPU_ACCELERATOR_TYPE is set")


def test_a_tpu_wins_over_an_unusable_nvidia_smi(tmp_path):
    (tmp_path / "dev").mkdir()
    (tmp_path / "dev/accel0").touch()
    assert choose(fake_smi(tmp_path, "no driver\n", status=9), tmp_path).accelerator == "tpu"


# --- JAX_ACCELERATOR ---

@pytest.mark.parametrize("value", ja.CHOICES)
def test_jax_accelerator_overrides_the_detection(tmp_path, value):
    env = {**fake_smi(tmp_path, "NVIDIA H200, 580.65.06\n"), "JAX_ACCELERATOR": value}
    assert choose(env, tmp_path) == ja.Choice(value, f"JAX_ACCELERATOR={value}")


def test_an_empty_jax_accelerator_is_unset(tmp_path):
    env = {**fake_smi(tmp_path, "Tesla T4, 535.104.05\n"), "JAX_ACCELERATOR": ""}
    assert choose(env, tmp_path).accelerator == "cuda12"


def test_an_unknown_jax_accelerator_is_refused(tmp_path):
    with pytest.raises(ja.BadOverride, match="'gpu' is not one of cpu, cuda12, cuda13, tpu"):
        choose({**no_smi(tmp_path), "JAX_ACCELERATOR": "gpu"}, tmp_path)


# --- the command line ---

def run_script(env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT)], env={**os.environ, **env}, capture_output=True, text=True,
                          timeout=60)


def test_the_command_line_prints_only_the_choice_on_stdout_and_why_on_stderr(tmp_path):
    result = run_script({**fake_smi(tmp_path, "NVIDIA H200, 580.65.06\n"), "JAX_ACCELERATOR": ""})
    assert result.returncode == 0
    assert result.stdout == "cuda13\n"
    assert result.stderr == ("JAX for cuda13: nvidia-smi reports NVIDIA H200, driver 580.65.06 "
                             "(CUDA 13 needs >= 580)\n")


def test_the_command_line_honours_the_override():
    result = run_script({"JAX_ACCELERATOR": "cpu"})
    assert (result.returncode, result.stdout, result.stderr) == (0, "cpu\n", "JAX for cpu: JAX_ACCELERATOR=cpu\n")


def test_the_command_line_refuses_an_unknown_override_with_status_2():
    result = run_script({"JAX_ACCELERATOR": "rocm"})
    assert result.returncode == 2
    assert result.stdout == ""
    assert "JAX_ACCELERATOR='rocm' is not one of cpu, cuda12, cuda13, tpu" in result.stderr


def test_the_script_needs_only_the_standard_library():
    """It runs with the system python3, before the venv exists."""
    tree = ast.parse(SCRIPT.read_text())
    modules = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
               for alias in node.names}
    modules |= {node.module.split(".")[0] for node in ast.walk(tree)
                if isinstance(node, ast.ImportFrom) and node.module and not node.level}
    assert modules - set(sys.stdlib_module_names) - {"__future__"} == set()


# --- requirements variants ---

def requirement_lines(name: str) -> list[str]:
    return [line.strip() for line in (ROOT / name).read_text().splitlines()
            if line.strip() and not line.lstrip().startswith("#")]


def pins(lines: list[str]) -> dict[str, str]:
    return dict(line.split("==", 1) for line in lines)


@pytest.mark.parametrize("variant", VARIANTS)
def test_each_variant_is_requirements_txt_with_its_jax(variant):
    base = requirement_lines("requirements.txt")
    lines = requirement_lines(f"requirements-{variant}.txt")
    jax_version = pins(base)["jax"]
    extra = {"tpu": [f"libtpu=={pins(lines).get('libtpu')}"]}.get(variant, [])
    expected = []
    for line in base:
        expected += [f"jax[{variant}]=={jax_version}", *extra] if line == f"jax=={jax_version}" else [line]
    assert lines == expected
    assert pins(lines)["jaxlib"] == jax_version
    assert (ROOT / f"requirements-{variant}.txt").read_text().startswith("# ")


def test_the_tpu_variant_pins_the_libtpu_that_jax_asks_for():
    """jax[tpu] asks for libtpu==X.*: the variant pins one exact release of it (on PyPI)."""
    wanted = [r for r in importlib.metadata.requires("jax") if r.startswith("libtpu") and '"tpu"' in r]
    assert len(wanted) == 1
    prefix = re.fullmatch(r"libtpu==([\d.]+)\.\*", wanted[0].split(";")[0].strip()).group(1)
    assert pins(requirement_lines("requirements-tpu.txt"))["libtpu"].startswith(prefix + ".")


def test_the_installed_jax_is_the_pinned_one():
    assert importlib.metadata.version("jax") == pins(requirement_lines("requirements.txt"))["jax"]


# --- the Makefile ---

def make_dry_run(*args: str) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}  # under make test
    result = subprocess.run(["make", "-n", "-B", "run", *args], cwd=ROOT, env=env, capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0, result.stderr
    return result.stdout


def uninstalled(dry_run: str) -> set[str]:
    line = next(line for line in dry_run.splitlines() if "pip uninstall" in line)
    return set(line.split(" -y ", 1)[1].split())


@pytest.mark.skipif(shutil.which("make") is None, reason="no make")
@pytest.mark.parametrize("variant", ("cpu", *VARIANTS))
def test_make_replaces_only_the_jax_plugins(variant):
    out = make_dry_run(f"JAX_ACCELERATOR={variant}")
    assert f"touch .venv/.jax-{variant}" in out
    assert "rm -f .venv/.jax-*" in out
    own = {"cpu": set(), "cuda12": set(PLUGINS[:2]), "cuda13": set(PLUGINS[2:4]), "tpu": {"libtpu"}}[variant]
    assert uninstalled(out) == set(PLUGINS) - own
    if variant == "cpu":
        assert "requirements-" not in out.replace("requirements-dev.txt", "")
    else:
        assert f"pip install -q -r requirements-{variant}.txt" in out


def test_the_makefile_uninstalls_every_plugin_jax_can_bring():
    """Every package jax[cuda12]/jax[cuda13]/jax[tpu] adds (and what its plugin pins) is in the uninstall list."""
    brought = set()
    for requirement in importlib.metadata.requires("jax"):
        name, _, marker = requirement.partition(";")
        if re.search(r'extra == "(cuda12|cuda13|tpu)"', marker):
            brought.add(re.split(r"[\[<>=!~ ]", name.strip(), maxsplit=1)[0])
    brought -= {"jaxlib", "requests"}
    brought |= {f"{plugin.removesuffix('-plugin')}-pjrt" for plugin in brought if plugin.endswith("-plugin")}
    assert brought == set(PLUGINS)
    makefile = (ROOT / "Makefile").read_text()
    assert all(re.search(rf"\b{re.escape(name)}\b", makefile) for name in PLUGINS)
