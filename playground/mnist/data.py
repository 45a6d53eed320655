"""Where the training data comes from: a folder you name, the cache, a verified download, or scikit-learn.

Three datasets, all as 28×28 uint8 images with labels 0–9::

    >>> load("digits").source
    'scikit-learn 1.9.1 (8×8 digits, rescaled to 28×28)'
    >>> load("mnist").train_images.shape          # first time: downloads 11 MB into the cache
    (60000, 28, 28)

For "mnist" and "fashion_mnist" the four IDX files are looked for, in order:

1. the folder in ``MNIST_DIR`` / ``FASHION_MNIST_DIR`` (decompressed copies are
   fine; checked for structure, since they need not be byte-identical);
2. the cache, ``$PLAYGROUND_CACHE/<name>`` (default ``~/.cache/jax-playground``),
   where every file must match its published SHA-256;
3. the mirrors, ``PLAYGROUND_MIRRORS_<NAME>`` (comma-separated base URLs) or the
   public ones, tried in order, into the cache.

Offline with nothing cached, :class:`DataUnavailable` says what to do (``make
data`` while online, a folder, or the offline "digits"). ``python -m
playground.mnist.data`` fills the cache. No JAX here: the Gradio server imports this.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from playground.mnist import download
from playground.mnist.idx import IdxError, read_idx

ROLES = ("train_images", "train_labels", "test_images", "test_labels")
_SHAPES = {"images": (3, (28, 28)), "labels": (1, None)}  # role suffix -> (ndim, trailing shape) for read_idx


class DataUnavailable(RuntimeError):
    """The dataset cannot be had right now; the message says where it looked and what to do."""


@dataclass(frozen=True)
class DatasetSpec:
    """What a dataset is and where its files come from (no I/O)."""

    name: str
    title: str
    class_names: tuple[str, ...]
    files: Mapping[str, str]  # role -> canonical filename
    sha256: Mapping[str, str]  # filename -> hex digest
    mirrors: tuple[str, ...]  # base URLs ending in "/"
    folder_variable: str | None  # the environment variable naming a user's folder of the files


@dataclass(frozen=True, eq=False)
class Dataset:
    """A loaded dataset: uint8 images (n, 28, 28), uint8 labels (n,), and where it came from."""

    name: str
    title: str
    train_images: np.ndarray
    train_labels: np.ndarray
    test_images: np.ndarray
    test_labels: np.ndarray
    class_names: tuple[str, ...]
    source: str


def _files() -> dict[str, str]:
    """The canonical names: train-images-idx3-ubyte.gz, train-labels-idx1-ubyte.gz, t10k-…"""
    return {role: f"{'t10k' if role.startswith('test') else 'train'}-{role.split('_')[1]}-"
                  f"idx{3 if role.endswith('images') else 1}-ubyte.gz" for role in ROLES}


DATASETS: dict[str, DatasetSpec] = {
    "mnist": DatasetSpec(
        "mnist", "MNIST", tuple(str(d) for d in range(10)), _files(),
        dict(zip(_files().values(), (
            "440fcabf73cc546fa21475e81ea370265605f56be210a4024d2ca8f203523609",
            "3552534a0a558bbed6aed32b30c495cca23d567ec52cac8be1a0730e8010255c",
            "8d422c7b0a1c1c79245a5bcf07fe86e33eeafee792b84584aec276f5a2dbc4e6",
            "f7ae60f92e00ec6debd23a6088c31dbd2371eca3ffa0defaefb259924204aec6"), strict=True)),
        ("https://ossci-datasets.s3.amazonaws.com/mnist/", "https://storage.googleapis.com/cvdf-datasets/mnist/",
         "https://yann.lecun.com/exdb/mnist/"),
        "MNIST_DIR"),
    "fashion_mnist": DatasetSpec(
        "fashion_mnist", "Fashion-MNIST",
        ("T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot"),
        _files(), dict(zip(_files().values(), (
            "3aede38d61863908ad78613f6a32ed271626dd12800ba2636569512369268a84",
            "a04f17134ac03560a47e3764e11b92fc97de4d1bfaf8ba1a3aa29af54cc90845",
            "346e55b948d973a97e58d2351dde16a484bd415d4595297633bb08f03db6a073",
            "67da17c76eaffca5446c3361aaab5c3cd6d1c2608764d35dfb1850b086bf8dd5"), strict=True)),
        # the S3 website endpoint speaks plain HTTP only; the checksum is what makes that safe
        ("http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/",
         "https://storage.googleapis.com/tensorflow/tf-keras-datasets/"),
        "FASHION_MNIST_DIR"),
    "digits": DatasetSpec(
        "digits", "scikit-learn digits (8×8, offline)", tuple(str(d) for d in range(10)), {}, {}, (), None),
}
DIGITS_TRAIN = 1437  # of 1,797: the same 80/20 split every time (permutation from default_rng(0))


def cache_dir(env: Mapping[str, str]) -> Path:
    """The cache root: ``$PLAYGROUND_CACHE`` or ``~/.cache/jax-playground``; each dataset gets a subfolder."""
    return Path(env.get("PLAYGROUND_CACHE") or Path.home() / ".cache" / "jax-playground").expanduser()


def mirrors_for(spec: DatasetSpec, env: Mapping[str, str]) -> tuple[str, ...]:
    """``PLAYGROUND_MIRRORS_<NAME>`` (comma-separated base URLs, e.g. a classroom's local mirror) or the spec's."""
    override = env.get(f"PLAYGROUND_MIRRORS_{spec.name.upper()}", "")
    bases = [base.strip() for base in override.split(",") if base.strip()]
    return tuple(base if base.endswith("/") else base + "/" for base in bases) or spec.mirrors


def locate(spec: DatasetSpec, env: Mapping[str, str]) -> tuple[dict[str, Path], str] | None:
    """The four files if they are already here (user folder first, then the cache), and a text naming where.

    A folder the user named must be complete and well-formed: otherwise this
    raises :class:`DataUnavailable` rather than quietly using something else.
    Cached files must match their SHA-256; a mismatching one is deleted (so the
    next fetch replaces it) and the result is None, as for a missing one.
    """
    if not spec.files:
        return None
    variable = spec.folder_variable
    if variable and env.get(variable):
        return _from_folder(spec, Path(env[variable]).expanduser(), variable), f"{variable} {env[variable]}"
    cached = cache_dir(env) / spec.name
    paths, complete = {}, True
    for role, filename in spec.files.items():
        path = paths[role] = cached / filename
        if not path.is_file():
            complete = False
        elif download.sha256_of(path) != spec.sha256[filename]:
            path.unlink(missing_ok=True)  # corrupt or stale: fetch it again rather than train on it
            complete = False
    return (paths, f"cache {cached}") if complete else None


def _from_folder(spec: DatasetSpec, folder: Path, variable: str) -> dict[str, Path]:
    """The four files in a user's folder (``.gz`` or decompressed), each parsed once to check its structure."""
    if not folder.is_dir():
        raise DataUnavailable(f"{variable} is set to {folder}, which is not a folder. Point it at a folder holding "
                              f"{', '.join(spec.files.values())} (or their decompressed versions), or unset it.")
    paths, problems = {}, []
    for role, filename in spec.files.items():
        candidates = [folder / filename, folder / filename.removesuffix(".gz")]
        found = next((path for path in candidates if path.is_file()), None)
        if found is None:
            problems.append(f"{filename} (or {candidates[1].name}) is missing")
            continue
        ndim, trailing = _SHAPES[role.split("_")[1]]
        try:
            read_idx(found, ndim, trailing)
        except IdxError as exc:
            problems.append(str(exc))
        paths[role] = found
    if problems:
        raise DataUnavailable(f"{variable} {folder} does not hold a usable {spec.title}: {'; '.join(problems)}. "
                              f"Fix or replace those files, or unset {variable} to use the cache or a download.")
    return paths


def fetch(spec: DatasetSpec, env: Mapping[str, str],
          progress: download.Progress | None = None) -> tuple[dict[str, Path], str]:
    """:func:`locate`, else download whatever the cache lacks from the mirrors; ``(paths by role, source text)``."""
    if not spec.files:
        raise ValueError(f"{spec.name} has no files to fetch (it ships with scikit-learn)")
    found = locate(spec, env)
    if found is not None:
        return found
    cached = cache_dir(env) / spec.name
    paths, urls = {}, []
    try:
        for role, filename in spec.files.items():
            paths[role] = cached / filename
            if not paths[role].is_file():  # locate kept only the files whose checksum matched
                _, url = download.fetch_file(filename, spec.sha256[filename], mirrors_for(spec, env), cached, progress)
                urls.append(url.removesuffix(filename))
    except download.DownloadError as exc:
        folder = spec.folder_variable
        raise DataUnavailable(
            f"{spec.title} is not available offline: it is not in {folder} (not set) or the cache ({cached}), "
            f"and downloading failed: {exc}. While online, run `make data`; or set {folder} to a folder with "
            f"the four files; or train on the offline dataset “digits” (scikit-learn's 8×8 digits).") from None
    except OSError as exc:
        raise DataUnavailable(f"cannot write the cache folder {cached} ({exc}); set PLAYGROUND_CACHE to a "
                              f"writable folder, or {spec.folder_variable} to a folder with the files.") from None
    return paths, (f"downloaded from {', '.join(dict.fromkeys(urls))} into {cached}" if urls else f"cache {cached}")


def load(name: str, env: Mapping[str, str] | None = None, progress: download.Progress | None = None) -> Dataset:
    """The dataset called ``name``, fetched if needed; raises :class:`DataUnavailable` when it cannot be had."""
    if name not in DATASETS:
        raise ValueError(f"unknown dataset {name!r}; choose one of {', '.join(DATASETS)}")
    spec = DATASETS[name]
    if not spec.files:
        return _load_digits(spec)
    paths, source = fetch(spec, os.environ if env is None else env, progress)
    arrays = {}
    try:
        for role, path in paths.items():
            ndim, trailing = _SHAPES[role.split("_")[1]]
            arrays[role] = read_idx(path, ndim, trailing)
    except IdxError as exc:
        raise DataUnavailable(f"{spec.title} from {source}: {exc}") from None
    for split in ("train", "test"):
        images, labels = arrays[f"{split}_images"], arrays[f"{split}_labels"]
        label_file = paths[f"{split}_labels"].name
        if len(images) != len(labels):
            raise DataUnavailable(f"{spec.title} from {source}: {label_file} has {len(labels):,} labels but "
                                  f"{paths[f'{split}_images'].name} has {len(images):,} images.")
        if labels.size and int(labels.max()) >= len(spec.class_names):
            raise DataUnavailable(f"{spec.title} from {source}: {label_file} holds label {int(labels.max())}, "
                                  f"expected 0–{len(spec.class_names) - 1}.")
    return Dataset(spec.name, spec.title, arrays["train_images"], arrays["train_labels"], arrays["test_images"],
                   arrays["test_labels"], spec.class_names, source)


def _load_digits(spec: DatasetSpec) -> Dataset:
    """scikit-learn's 1,797 8×8 digits (values 0–16), each framed like MNIST, split 1,437 / 360 with a fixed seed."""
    try:
        import sklearn  # heavy (scipy): imported only when someone asks for these digits
        from sklearn.datasets import load_digits
    except ImportError:
        raise DataUnavailable("the offline “digits” dataset needs scikit-learn: `pip install scikit-learn` "
                              "(or `make run`, which installs requirements.txt).") from None
    from playground.mnist.preprocess import to_mnist_frame

    bunch = load_digits()
    images = np.stack([to_mnist_frame(image) for image in bunch.images])
    labels = bunch.target.astype(np.uint8)
    order = np.random.default_rng(0).permutation(len(images))
    train, test = order[:DIGITS_TRAIN], order[DIGITS_TRAIN:]
    return Dataset(spec.name, spec.title, images[train], labels[train], images[test], labels[test],
                   spec.class_names, f"scikit-learn {sklearn.__version__} (8×8 digits, rescaled to 28×28)")


def availability(env: Mapping[str, str] | None = None) -> dict[str, str | None]:
    """Where each dataset would come from right now, cheaply (file existence only, no checksums, no network).

    ``"MNIST_DIR"`` (the folder variable), ``"cache"``, ``"offline (scikit-learn)"``, or None: needs a download
    (or, for a folder the user named, the folder is incomplete and loading will say what is missing).
    """
    env = os.environ if env is None else env
    where: dict[str, str | None] = {}
    for name, spec in DATASETS.items():
        if not spec.files:
            where[name] = "offline (scikit-learn)" if importlib.util.find_spec("sklearn") else None
            continue
        variable = spec.folder_variable
        if variable and env.get(variable):
            folder_path = Path(env[variable]).expanduser()
            complete = all((folder_path / f).is_file() or (folder_path / f.removesuffix(".gz")).is_file()
                           for f in spec.files.values())
            where[name] = spec.folder_variable if complete else None
        else:
            cached = cache_dir(env) / name
            where[name] = "cache" if all((cached / f).is_file() for f in spec.files.values()) else None
    return where


def main(argv: list[str] | None = None) -> int:
    """``python -m playground.mnist.data [names...]``: fill the cache (default: mnist fashion_mnist)."""
    names = (sys.argv[1:] if argv is None else argv) or ["mnist", "fashion_mnist"]
    unknown = [name for name in names if name not in DATASETS]
    if unknown or any(name.startswith("-") for name in names):
        print(f"usage: python -m playground.mnist.data [{' '.join(DATASETS)}]", file=sys.stderr)
        return 2
    failed = False
    for name in names:
        try:
            if DATASETS[name].files:
                _, source = fetch(DATASETS[name], os.environ, _progress_bar)
            else:
                source = load(name).source
            print(f"{name}: {source}")
        except DataUnavailable as exc:
            print(f"{name}: {exc}", file=sys.stderr)
            failed = True
    return 1 if failed else 0


def _progress_bar(filename: str, done: int, total: int | None) -> None:
    """A one-line text bar on stderr, redrawn in place on a terminal, a line per finished file otherwise."""
    finished = total is not None and done >= total
    if not sys.stderr.isatty() and not finished:
        return
    if total:
        filled = round(30 * done / total)
        text = f"{filename:28} [{'#' * filled}{'.' * (30 - filled)}] {done / 1e6:6.2f} / {total / 1e6:.2f} MB"
    else:
        text = f"{filename:28} {done / 1e6:6.2f} MB"
    print(("\r" if sys.stderr.isatty() else "") + text, end="\n" if finished else "", file=sys.stderr, flush=True)


if __name__ == "__main__":
    sys.exit(main())
