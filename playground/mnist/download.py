"""Fetch one file from a list of mirrors with pooch: checked against its SHA-256, placed atomically, with progress.

``pooch.retrieve`` streams the file into a temporary file in the destination
folder and renames it to its final name only once its SHA-256 matches, so a
reader never sees half a file, two processes fetching at once cannot corrupt
each other, and a failed transfer leaves nothing behind. pooch knows one URL
per file; what this module adds is the loop over mirrors, one reason in plain
words per failed mirror, the progress callback the Train tab shows, a size
bound, and ``file://`` mirrors (a folder on a classroom share)::

    >>> import hashlib, pathlib, tempfile
    >>> share, cache = pathlib.Path(tempfile.mkdtemp()), tempfile.mkdtemp()   # a classroom share, the cache
    >>> _ = (share / "labels.bin").write_bytes(b"0123456789")
    >>> digest = hashlib.sha256(b"0123456789").hexdigest()
    >>> path, url = fetch_file("labels.bin", digest, ["http://127.0.0.1:9/", share.as_uri() + "/"], cache)
    >>> url == share.as_uri() + "/labels.bin", path.read_bytes()   # the first mirror refused: the next one served
    (True, b'0123456789')

Online, the mirrors are base URLs such as ``https://ossci-datasets.s3.amazonaws.com/mnist/``.
When every mirror fails, :class:`DownloadError` says why for each one.
"""

from __future__ import annotations

import http.client
import os
import shutil
import socket
import urllib.parse
import urllib.request
from collections.abc import Callable, Sequence
from pathlib import Path

import pooch
import requests

CHUNK_BYTES = 256 * 1024
MAX_BYTES = 64 * 1024 * 1024  # MNIST's largest file is 9.9 MB; a bound against a misbehaving server
# Some mirrors refuse a library's default agent; "identity" keeps a server from gzipping the .gz files again
# (requests would unpack that layer, and the checksum would no longer match).
HEADERS = {"User-Agent": "jax-playground/0.1 (+MNIST data fetch)", "Accept-Encoding": "identity"}

Progress = Callable[[str, int, "int | None"], None]
"""``progress(filename, bytes_done, bytes_total_or_None)``: once at the start of a transfer, then per chunk."""


class DownloadError(RuntimeError):
    """No mirror delivered the file; ``failures`` holds ``(url, reason)`` per mirror, the message lists them."""

    def __init__(self, filename: str, failures: Sequence[tuple[str, str]]):
        self.filename = filename
        self.failures = list(failures)
        reasons = "; ".join(f"{url}: {reason}" for url, reason in self.failures) or "no mirrors were given"
        super().__init__(f"could not download {filename}: {reasons}")


class _MirrorFailed(Exception):
    """One mirror failed for the reason in the message; the next mirror is tried."""


def fetch_file(filename: str, sha256: str, mirrors: Sequence[str], destination_dir: str | Path,
               progress: Progress | None = None, timeout_s: float = 30.0) -> tuple[Path, str]:
    """Download ``filename`` from the first mirror that serves the right bytes; ``(final path, URL used)``.

    Each mirror is a base URL ending in ``/``; the file's URL is ``base + filename``.
    Network failures, HTTP errors, interrupted transfers and checksum mismatches
    move on to the next mirror. Errors writing ``destination_dir`` itself (no
    permission, disk full) are not the mirror's fault and propagate as ``OSError``.
    """
    destination_dir = Path(destination_dir)
    destination_dir.mkdir(parents=True, exist_ok=True)
    failures: list[tuple[str, str]] = []
    for base in mirrors:
        url = base + filename
        if not url.startswith(("http://", "https://", "file://")):
            failures.append((url, "not an http(s) or file URL"))
            continue
        try:
            pooch.retrieve(url, f"sha256:{sha256}", fname=filename, path=destination_dir,
                           downloader=_Transfer(filename, sha256, progress, timeout_s))
        except _MirrorFailed as failure:
            failures.append((url, str(failure)))
        else:
            return destination_dir / filename, url
    raise DownloadError(filename, failures)


class _Transfer:
    """A pooch downloader: one URL into pooch's temporary file, then checked, so a failure has a reason."""

    def __init__(self, filename: str, sha256: str, progress: Progress | None, timeout_s: float) -> None:
        self.filename, self.sha256, self.progress, self.timeout_s = filename, sha256.lower(), progress, timeout_s

    def __call__(self, url: str, output_file: str, _pooch: object) -> None:
        meter = _Meter(self.filename, output_file, self.progress)
        if url.startswith("file://"):
            _copy_local(url, output_file, meter)
        else:
            downloader = pooch.HTTPDownloader(progressbar=meter, chunk_size=CHUNK_BYTES, timeout=self.timeout_s,
                                              headers=HEADERS)
            try:
                downloader(url, output_file, None)
            except requests.RequestException as exc:
                raise _MirrorFailed(_reason(exc, meter, self.timeout_s)) from None
        # Checked here too, before pooch checks it, so that a mismatch is this mirror's failure with both digests.
        got = pooch.file_hash(output_file)
        if got != self.sha256:
            raise _MirrorFailed(f"checksum mismatch (got {got[:12]}…, expected {self.sha256[:12]}…)")
        os.chmod(output_file, 0o644)  # a temporary file is private; a cache shared by a classroom must stay readable


class _Meter:
    """The progress bar pooch's HTTPDownloader drives (it sets ``total``, then calls ``update``, ``reset``, ``close``).

    Reports the bytes really written (pooch counts whole chunks, and tops up to
    the total at the end), refuses a file above ``MAX_BYTES`` as soon as its size
    is announced or exceeded, and remembers whether the headers had come.
    """

    def __init__(self, filename: str, path: str, progress: Progress | None) -> None:
        self.filename, self.path, self.progress = filename, path, progress
        self.done, self.size, self.started = 0, None, False

    def _announce(self, size: int) -> None:
        self.size, self.started = size or None, True  # pooch passes 0 when there is no Content-Length
        if self.size is not None and self.size > MAX_BYTES:
            raise _MirrorFailed(f"refused: announces {self.size:,} bytes, above the {MAX_BYTES // 2**20} MB limit")
        self._report()

    total = property(lambda self: self.size, _announce)

    def update(self, _chunk: int) -> None:
        done = os.path.getsize(self.path)
        if done > MAX_BYTES:
            raise _MirrorFailed(f"refused: sent more than {MAX_BYTES:,} bytes")
        if done > self.done:
            self.done = done
            self._report()

    def reset(self) -> None:
        pass

    close = reset

    def _report(self) -> None:
        if self.progress is not None:
            self.progress(self.filename, self.done, self.size)


def _copy_local(url: str, output_file: str, meter: _Meter) -> None:
    """A ``file://`` mirror (a folder on a classroom share): a plain copy, reported like a download."""
    source = Path(urllib.request.url2pathname(urllib.parse.urlsplit(url).path))
    if not source.is_file():
        raise _MirrorFailed("no such file")
    meter.total = source.stat().st_size
    shutil.copyfile(source, output_file)
    meter.update(0)


def _reason(exc: requests.RequestException, meter: _Meter, timeout_s: float) -> str:
    """A short reason from the exceptions' types: "HTTP 404 Not Found", "connection refused", "timed out after 30 s"."""
    causes = [exc]  # requests wraps urllib3's exceptions, which wrap the socket's
    while (inner := causes[-1].__cause__ or causes[-1].__context__) is not None and len(causes) < 20:
        causes.append(inner)
    response = getattr(exc, "response", None)
    if isinstance(exc, requests.HTTPError) and response is not None:
        return f"HTTP {response.status_code}" + (f" {response.reason}" if response.reason else "")
    timed_out = isinstance(exc, requests.Timeout) or any(isinstance(c, TimeoutError | socket.timeout) for c in causes)
    waited = f"timed out after {timeout_s:g} s"
    if meter.started:  # the headers had come: the body broke off
        read = max([c.partial for c in causes if isinstance(c, http.client.IncompleteRead)
                    and isinstance(c.partial, int)] + [meter.done])
        of = f" of {meter.size:,}" if meter.size is not None else ""
        return f"transfer interrupted after {read:,}{of} bytes" + (f" ({waited})" if timed_out else "")
    if timed_out:
        return waited
    if any(isinstance(c, ConnectionRefusedError) for c in causes):
        return "connection refused"
    unresolved = next((c for c in causes if isinstance(c, socket.gaierror)), None)
    if unresolved is not None:
        return f"host not found (offline?): {unresolved.strerror or unresolved}"
    return str(causes[-1]) or type(causes[-1]).__name__
