"""Where a dataset's four IDX files are: a folder you name, the cache, or a checksummed download into the cache.

For "mnist" and "fashion_mnist" the files are looked for, in order (the places are
a :class:`~playground.mnist.places.DataPlaces`, read from the settings by
server/config.py):

1. the folder a user named (``MNIST_DIR`` / ``FASHION_MNIST_DIR``; decompressed
   copies are fine; checked for structure, since they need not be byte-identical);
2. the cache, ``<cache>/<name>`` (``PLAYGROUND_CACHE``, default
   ``~/.cache/jax-playground``), where every file must match its published SHA-256;
3. the mirrors (``PLAYGROUND_MIRRORS_<NAME>``, comma-separated base URLs, or the
   public ones), tried in order, into the cache (download.py, with pooch).

E.g. ``paths, source = fetch(DATASETS["mnist"], settings.data)`` the first time, online:
``source`` is ``"downloaded from https://ossci-datasets.s3.amazonaws.com/mnist/ into
/home/me/.cache/jax-playground/mnist"``, and later ``"found in the cache ..."``.

A folder, or a cache, that holds only the test set (``t10k-*``: 10,000 labelled
images, as a classroom may have) is used as it is: :func:`fetch` returns its two
test files alone, and load.py trains on a fixed split of them. Offline with nothing
cached, :class:`DataUnavailable` says what to do (``make data`` while online, a
folder, or the offline "digits"). No JAX here: the Gradio server fetches before a
run is queued, and the device owner then finds the files.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pooch

from playground import messages
from playground.mnist import download
from playground.mnist.catalogue import DATASETS, TEST_ROLES, DatasetSpec, DataUnavailable, role_shape
from playground.mnist.idx import IdxError, read_idx
from playground.mnist.places import DataPlaces


def locate(spec: DatasetSpec, places: DataPlaces) -> tuple[dict[str, Path], str] | None:
    """The files if they are already here (user folder first, then the cache), and a text naming where.

    A folder the user named must hold the test set, well-formed, and the
    training set too or none of it: otherwise this raises
    :class:`DataUnavailable` rather than quietly using something else; one
    with the test set alone gives the two test files. Cached files must match
    their SHA-256; a mismatching one is deleted (so the next fetch replaces
    it) and the result is None, as for a missing one.
    """
    if not spec.files:
        return None
    folder = places.folder(spec)
    if folder is not None:
        return _from_folder(spec, folder, spec.folder_variable), f"{spec.folder_variable} {folder}"
    cached = _verified_cache(spec, places)
    return (cached, f"cache {places.cache / spec.name}") if len(cached) == len(spec.files) else None


def _verified_cache(spec: DatasetSpec, places: DataPlaces) -> dict[str, Path]:
    """The cached files that match their SHA-256, by role; a mismatching one is deleted."""
    cached, found = places.cache / spec.name, {}
    for role, filename in spec.files.items():
        path = cached / filename
        if not path.is_file():
            continue
        if pooch.file_hash(str(path)) != spec.sha256[filename]:
            path.unlink(missing_ok=True)  # corrupt or stale: fetch it again rather than train on it
            continue
        found[role] = path
    return found


def in_folder(folder: Path, filename: str) -> Path | None:
    """``filename`` in ``folder``, or its decompressed twin (without ``.gz``), or None."""
    return next((path for path in (folder / filename, folder / filename.removesuffix(".gz")) if path.is_file()), None)


def _from_folder(spec: DatasetSpec, folder: Path, variable: str) -> dict[str, Path]:
    """The files in a user's folder (``.gz`` or decompressed), each parsed once to check its structure: all four, or
    the two of the test set alone (no training file at all)."""
    if not folder.is_dir():
        raise DataUnavailable(f"{variable} is set to {folder}, which is not a folder. Point it at a folder holding "
                              f"{', '.join(spec.files.values())} (or their decompressed versions), or unset it.")
    present = {role: in_folder(folder, filename) for role, filename in spec.files.items()}
    test_only = (all(present[role] for role in TEST_ROLES)
                 and not any(present[role] for role in spec.files if role not in TEST_ROLES))
    paths, problems = {}, []
    for role, filename in spec.files.items():
        found = present[role]
        if found is None:
            if not (test_only and role not in TEST_ROLES):
                problems.append(f"{filename} (or {filename.removesuffix('.gz')}) is missing")
            continue
        try:
            read_idx(found, *role_shape(role))
        except IdxError as exc:
            problems.append(str(exc))
        paths[role] = found
    if problems:
        raise DataUnavailable(f"{variable} {folder} does not hold a usable {spec.title}: {'; '.join(problems)}. "
                              f"Fix or replace those files, or unset {variable} to use the cache or a download.")
    return paths


def fetch(spec: DatasetSpec, places: DataPlaces,
          progress: download.Progress | None = None) -> tuple[dict[str, Path], str]:
    """:func:`locate`, else download whatever the cache lacks from the mirrors; ``(paths by role, source text)``.

    Where the download fails but the cache holds the test set, the two test files are the answer.
    """
    if not spec.files:
        raise ValueError(f"{spec.name} has no files to fetch (it ships with scikit-learn)")
    found = locate(spec, places)
    if found is not None:
        return found
    cached = places.cache / spec.name
    paths, urls = {}, []
    try:
        for role, filename in spec.files.items():
            paths[role] = cached / filename
            if not paths[role].is_file():  # locate kept only the files whose checksum matched
                _, url = download.fetch_file(filename, spec.sha256[filename], places.mirrors_for(spec), cached,
                                              progress)
                urls.append(url.removesuffix(filename))
    except download.DownloadError as exc:
        test_set = {role: path for role, path in _verified_cache(spec, places).items() if role in TEST_ROLES}
        if len(test_set) == len(TEST_ROLES):
            return test_set, f"cache {cached} (downloading the training set failed: {exc})"
        raise _offline(spec, cached, exc) from None
    except OSError as exc:
        raise DataUnavailable(f"cannot write the cache folder {cached} ({exc}); set PLAYGROUND_CACHE to a "
                              f"writable folder, or {spec.folder_variable} to a folder with the files.") from None
    return paths, (f"downloaded from {', '.join(dict.fromkeys(urls))} into {cached}" if urls else f"cache {cached}")


def _offline(spec: DatasetSpec, cached: Path, failure: download.DownloadError) -> DataUnavailable:
    """Not here and no download: a short message and what to do, then where it looked and how each mirror failed."""
    said = messages.piece("data.offline", dataset=spec.title)
    fix = messages.piece("data.offline_fix", folder=spec.folder_variable)
    details = f"Not in {spec.folder_variable} (not set), nor in the cache {cached}. Downloading failed: {failure}"
    return DataUnavailable(f"{messages.render([said])} {messages.render([fix])} {details}", said=said, fix=fix,
                           details=details)


def availability(places: DataPlaces) -> dict[str, str | None]:
    """Where each dataset would come from right now, cheaply (file existence only, no checksums, no network).

    ``"MNIST_DIR"`` (the folder variable), ``"cache"``, ``"MNIST_DIR, test set only"`` or ``"cache, test set only"``
    (load.py then trains on a split of the test set; the cache's only when the download of the rest fails),
    ``"offline (scikit-learn)"``, or None: needs a download (or, for a folder the user named, the folder is
    incomplete and loading will say what is missing).
    """
    where: dict[str, str | None] = {}
    for name, spec in DATASETS.items():
        if not spec.files:
            where[name] = "offline (scikit-learn)" if importlib.util.find_spec("sklearn") else None
            continue
        folder = places.folder(spec)
        there = ({role for role, f in spec.files.items() if in_folder(folder, f)} if folder else
                 {role for role, f in spec.files.items() if (places.cache / name / f).is_file()})
        label = spec.folder_variable if folder else "cache"
        where[name] = (label if len(there) == len(spec.files) else
                       f"{label}, test set only" if there == set(TEST_ROLES) else None)
    return where
