"""``python -m playground.server.training.fetch_cli [names...]`` (``make data``): fill the cache while online.

Where the datasets go is the server's setting (``PLAYGROUND_CACHE`` and the rest), read by config.data_places
as the server reads it, so that the server finds them there.

    $ python -m playground.server.training.fetch_cli mnist
    train-images-idx3-ubyte.gz: 100%|██████████| 9.91M/9.91M [00:01<00:00, 7.52MB/s]
    ...
    mnist: downloaded from https://ossci-datasets.s3.amazonaws.com/mnist/ into /home/me/.cache/jax-playground/mnist

Exit status 0 when every dataset is ready, 1 when one could not be had (the
message says what to do), 2 for unknown names.
"""

from __future__ import annotations

import logging
import os
import sys

import pooch
from tqdm import tqdm

from playground.mnist.catalogue import DATASETS, DataUnavailable
from playground.mnist.fetch import fetch
from playground.mnist.load import load
from playground.server.config import data_places


def main(argv: list[str] | None = None) -> int:
    """Fetch the named datasets (default: mnist fashion_mnist) into the cache; print where each one is."""
    names = (sys.argv[1:] if argv is None else argv) or ["mnist", "fashion_mnist"]
    if any(name not in DATASETS for name in names):
        print(f"usage: python -m playground.server.training.fetch_cli [{' '.join(DATASETS)}]", file=sys.stderr)
        return 2
    pooch.get_logger().setLevel(logging.WARNING)  # its "Downloading data from ..." lines repeat the bars
    places = data_places(os.environ)
    failed = False
    for name in names:
        bars = _Bars()
        try:
            if DATASETS[name].files:
                _, source = fetch(DATASETS[name], places, bars.progress)
            else:
                source = load(name, places).source
            print(f"{name}: {source}")
        except DataUnavailable as exc:
            print(f"{name}: {exc}", file=sys.stderr)
            failed = True
        finally:
            bars.close()
    return 1 if failed else 0


class _Bars:
    """One tqdm bar per file on stderr, fed by the download's ``progress(filename, done, total)`` callback."""

    def __init__(self) -> None:
        self._bar: tqdm | None = None

    def progress(self, filename: str, done: int, total: int | None) -> None:
        if self._bar is None or self._bar.desc != filename or done < self._bar.n:  # a new file, or a retry
            self.close()
            self._bar = tqdm(total=total, desc=filename, unit="B", unit_scale=True, unit_divisor=1000,
                             file=sys.stderr)
        self._bar.update(done - self._bar.n)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None


if __name__ == "__main__":
    sys.exit(main())
