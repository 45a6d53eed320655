"""Where a dataset's four IDX files are: a folder you name, the cache, or a checksummed download into the cache.

For "mnist" and "fashion_mnist" the files are looked for, in order:

1. the folder in ``MNIST_DIR`` / ``FASHION_MNIST_DIR`` (decompressed copies are
   fine; checked for structure, since they need not be byte-identical);
2. the cache, ``$PLAYGROUND_CACHE/<name>`` (default ``~/.cache/jax-playground``),
   where every file must match its published SHA-256;
3. the mirrors, ``PLAYGROUND_MIRRORS_<NAME>`` (comma-separated base URLs) or the
   public ones, tried in order, into the cache (download.py, with pooch).

E.g. ``paths, source = fetch(DATASETS["mnist"], os.environ)`` the first time, online:
``source`` is ``"downloaded from https://ossci-datasets.s3.amazonaws.com/mnist/ into
/home/me/.cache/jax-playground/mnist"``, and later ``"found in the cache ..."``.

Offline with nothing cached, :class:`DataUnavailable` says what to do (``make
data`` while online, a folder, or the offline "digits"). No JAX here: the Gradio
server fetches before a run is queued, and the training worker then finds the files.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Mapping
from pathlib import Path

import pooch

from playground import messages
from playground.mnist import download
from playground.mnist.catalogue import DATASETS, DatasetSpec, DataUnavailable, role_shape
from playground.mnist.idx import IdxError, read_idx


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
        elif pooch.file_hash(str(path)) != spec.sha256[filename]:
            path.unlink(missing_ok=True)  # corrupt or stale: fetch it again rather than train on it
            complete = False
    return (paths, f"cache {cached}") if complete else None


def in_folder(folder: Path, filename: str) -> Path | None:
    """``filename`` in ``folder``, or its decompressed twin (without ``.gz``), or None."""
    return next((path for path in (folder / filename, folder / filename.removesuffix(".gz")) if path.is_file()), None)


def _from_folder(spec: DatasetSpec, folder: Path, variable: str) -> dict[str, Path]:
    """The four files in a user's folder (``.gz`` or decompressed), each parsed once to check its structure."""
    if not folder.is_dir():
        raise DataUnavailable(f"{variable} is set to {folder}, which is not a folder. Point it at a folder holding "
                              f"{', '.join(spec.files.values())} (or their decompressed versions), or unset it.")
    paths, problems = {}, []
    for role, filename in spec.files.items():
        found = in_folder(folder, filename)
        if found is None:
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


def availability(env: Mapping[str, str]) -> dict[str, str | None]:
    """Where each dataset would come from right now, cheaply (file existence only, no checksums, no network).

    ``"MNIST_DIR"`` (the folder variable), ``"cache"``, ``"offline (scikit-learn)"``, or None: needs a download
    (or, for a folder the user named, the folder is incomplete and loading will say what is missing).
    """
    where: dict[str, str | None] = {}
    for name, spec in DATASETS.items():
        variable = spec.folder_variable
        if not spec.files:
            where[name] = "offline (scikit-learn)" if importlib.util.find_spec("sklearn") else None
        elif variable and env.get(variable):
            folder = Path(env[variable]).expanduser()
            where[name] = variable if all(in_folder(folder, f) for f in spec.files.values()) else None
        else:
            cached = cache_dir(env) / name
            where[name] = "cache" if all((cached / f).is_file() for f in spec.files.values()) else None
    return where
