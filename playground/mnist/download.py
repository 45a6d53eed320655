"""Fetch one file from a list of mirrors, verified by SHA-256, written atomically.

The bytes are streamed into a hidden temporary file next to the destination
(``.train-images-idx3-ubyte.gz.k3j9x.part``) and hashed on the way; only a file
whose checksum matches is renamed to its final name with ``os.replace``, which
is atomic on one filesystem. So a reader never sees half a file, two processes
fetching at once cannot corrupt each other, and a failed transfer leaves
nothing behind::

    >>> path, url = fetch_file("t10k-labels-idx1-ubyte.gz", "f7ae60f9…",
    ...                        ["https://ossci-datasets.s3.amazonaws.com/mnist/"], cache)
    >>> url
    'https://ossci-datasets.s3.amazonaws.com/mnist/t10k-labels-idx1-ubyte.gz'

When every mirror fails, :class:`DownloadError` says why for each one.
"""

from __future__ import annotations

import hashlib
import http.client
import os
import socket
import tempfile
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from pathlib import Path

CHUNK_BYTES = 256 * 1024
MAX_BYTES = 64 * 1024 * 1024  # MNIST's largest file is 9.9 MB; a bound against a misbehaving server
USER_AGENT = "jax-playground/0.1 (+MNIST data fetch)"  # some mirrors refuse urllib's default agent

Progress = Callable[[str, int, "int | None"], None]
"""``progress(filename, bytes_done, bytes_total_or_None)``: once at the start of a transfer, then per chunk."""


class DownloadError(RuntimeError):
    """No mirror delivered the file; ``failures`` holds ``(url, reason)`` per mirror, the message lists them."""

    def __init__(self, filename: str, failures: Sequence[tuple[str, str]]):
        self.filename = filename
        self.failures = list(failures)
        reasons = "; ".join(f"{url}: {reason}" for url, reason in self.failures) or "no mirrors were given"
        super().__init__(f"could not download {filename}: {reasons}")


class _TransferFailed(Exception):
    """One mirror failed for the reason in the message; the next mirror is tried."""


def sha256_of(path: str | Path) -> str:
    """The SHA-256 of the file at ``path`` as lowercase hex, read in chunks (never the whole file at once)."""
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        while chunk := stream.read(CHUNK_BYTES):
            digest.update(chunk)
    return digest.hexdigest()


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
        fd, temp_name = tempfile.mkstemp(prefix=f".{filename}.", suffix=".part", dir=destination_dir)
        temp = Path(temp_name)
        try:
            with os.fdopen(fd, "wb") as out:
                got = _transfer(url, out, filename, progress, timeout_s)
            if got != sha256.lower():
                raise _TransferFailed(f"checksum mismatch (got {got[:12]}…, expected {sha256[:12]}…)")
            final = destination_dir / filename
            os.chmod(temp, 0o644)  # mkstemp makes it private; a cache shared by a classroom must stay readable
            os.replace(temp, final)
            return final, url
        except _TransferFailed as failure:
            failures.append((url, str(failure)))
        finally:
            temp.unlink(missing_ok=True)  # after a successful replace there is nothing left to remove
    raise DownloadError(filename, failures)


def _transfer(url: str, out, filename: str, progress: Progress | None, timeout_s: float) -> str:
    """Stream ``url`` into ``out``; the SHA-256 of what arrived, or ``_TransferFailed`` saying why not."""
    if not url.startswith(("http://", "https://", "file://")):
        raise _TransferFailed("not an http(s) or file URL")
    request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT})
    try:
        response = urllib.request.urlopen(request, timeout=timeout_s)  # noqa: S310 (scheme checked above)
    except (urllib.error.URLError, OSError, http.client.HTTPException, ValueError) as exc:
        if isinstance(exc, urllib.error.HTTPError):
            exc.close()  # it holds the error page's open connection
        raise _TransferFailed(_network_reason(exc, timeout_s)) from None
    with response:
        total = _content_length(response)
        if total is not None and total > MAX_BYTES:
            raise _TransferFailed(f"refused: announces {total:,} bytes, above the {MAX_BYTES // 2**20} MB limit")
        digest = hashlib.sha256()
        done = 0
        if progress is not None:
            progress(filename, 0, total)
        while True:
            try:
                chunk = response.read(CHUNK_BYTES)
            except (OSError, http.client.HTTPException) as exc:
                raise _TransferFailed(_interrupted(done, total, exc, timeout_s)) from None
            if not chunk:
                break
            done += len(chunk)
            if done > (total if total is not None else MAX_BYTES):
                raise _TransferFailed(f"refused: sent more than {total or MAX_BYTES:,} bytes")
            digest.update(chunk)
            out.write(chunk)  # a local write error (disk full) propagates: another mirror would not help
            if progress is not None:
                progress(filename, done, total)
    # http.client returns b"" (no exception) when the server closes early, so the count is checked here
    if total is not None and done < total:
        raise _TransferFailed(_interrupted(done, total, None, timeout_s))
    return digest.hexdigest()


def _content_length(response) -> int | None:
    value = response.headers.get("Content-Length")
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


def _network_reason(exc: BaseException, timeout_s: float) -> str:
    """A short human reason for a failure to open a URL: "HTTP 404", "connection refused", "timed out after 30 s"."""
    if isinstance(exc, urllib.error.HTTPError):
        return f"HTTP {exc.code}" + (f" {exc.reason}" if exc.reason else "")
    reason = exc.reason if isinstance(exc, urllib.error.URLError) else exc
    if isinstance(reason, ConnectionRefusedError):
        return "connection refused"
    if isinstance(reason, TimeoutError | socket.timeout):
        return f"timed out after {timeout_s:g} s"
    if isinstance(reason, FileNotFoundError):  # a file:// mirror (a folder on a classroom share)
        return "no such file"
    if isinstance(reason, socket.gaierror):
        return f"host not found (offline?): {reason.strerror or reason}"
    return str(reason) or type(reason).__name__


def _interrupted(done: int, total: int | None, exc: BaseException | None, timeout_s: float) -> str:
    of = f" of {total:,}" if total is not None else ""
    why = "" if exc is None else f" ({_network_reason(exc, timeout_s)})"
    return f"transfer interrupted after {done:,}{of} bytes{why}"
