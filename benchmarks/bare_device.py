"""What plain JAX does on this host's device, with no app around it: the reference the benchmarks hold the app to.

Run by device_check.py and train_throughput.py as a process of its own, never beside the app's device owner: one
process at a time may open a TPU chip, so the benchmarks run this before the owner starts or after it has ended.
It prints one JSON object:

    python benchmarks/bare_device.py jit N          -> {"device", "jit_s", "double_s", "bytes"}
    python benchmarks/bare_device.py train DIR E L  -> {"device", "bare, per-step": s/epoch, "bare, scanned": s/epoch}

``jit``: the median of 100 calls of a plain ``jax.jit`` of the jit tab's function on an N x N float32 input in
[-1, 1) (a warm-up call first, ``block_until_ready`` on each), and the best of 5 calls of a jitted ``x * 2``
(the simplest streaming kernel: its bytes moved are the device's floor). ``train``: train_throughput.py's bare
loops on the IDX files in DIR, E epochs, layers L ("784,512,256,10").
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import jax  # noqa: E402

from playground import device_ops  # noqa: E402
from playground.gallery import JIT_BENCHMARK_CODE  # noqa: E402

RUNS = 100


def jit_reference(n: int) -> dict:
    namespace: dict = {}
    exec(JIT_BENCHMARK_CODE, {"jnp": jax.numpy}, namespace)  # our own gallery text, not user code
    fn = jax.jit(namespace["fn"])
    x = jax.device_put(device_ops.uniform((n, n), np.float32, 0))
    fn(x).block_until_ready()
    seconds = []
    for _ in range(RUNS):
        tic = time.perf_counter()
        fn(x).block_until_ready()
        seconds.append(time.perf_counter() - tic)
    double = jax.jit(lambda v: v * 2)
    double(x).block_until_ready()
    best = np.inf
    for _ in range(5):
        tic = time.perf_counter()
        double(x).block_until_ready()
        best = min(best, time.perf_counter() - tic)
    return {"jit_s": float(np.median(seconds)), "double_s": float(best), "bytes": 2 * x.nbytes}


def train_reference(folder: str, epochs: int, layers: tuple[int, ...]) -> dict:
    import train_throughput  # its bare loops, in this process

    from playground.mnist.load import load
    from playground.server.config import data_places

    data = load("mnist", data_places({"MNIST_DIR": folder}))
    return train_throughput.bare_loops(data.train_images, data.train_labels, data.test_images, data.test_labels,
                                       epochs, layers)


def main() -> None:
    device = jax.devices()[0]
    found = {"device": f"{device.platform}: {device.device_kind}"}
    if sys.argv[1] == "jit":
        found.update(jit_reference(int(sys.argv[2])))
    else:
        found.update(train_reference(sys.argv[2], int(sys.argv[3]), tuple(int(w) for w in sys.argv[4].split(","))))
    print(json.dumps(found))


if __name__ == "__main__":
    main()
