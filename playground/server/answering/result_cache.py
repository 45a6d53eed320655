"""Results of identical jobs, kept in memory: a class pressing Run on the same example runs it once.

The key is the whole job as the registry built it (every argument, defaults
filled in), the pool that runs it, and the app's version (JAX's, and a digest
of the playground's own source), so a result is only ever reused
for the very same work done by the very same code. Only results are kept:
successes and the errors the user's input causes every time (a syntax error,
an exception in their code); never a time-out, a memory kill, a crash or a
busy answer, which depend on the moment. Bounded in entries and in bytes,
least recently used out first; one result bigger than an eighth of the
bytes is not kept at all.

A cached reply is served as it was measured: ``cache.measured_at`` says
when; nothing in it is refreshed.

>>> cache = ResultCache(max_entries=2, max_bytes=1 << 20, version="test")
>>> key = cache.key({"kind": "inspect", "code": "def f(x): return x"}, "sandbox")
>>> cache.put(key, {"ok": True, "result": "f32[]"}, measured_at=0.0)
True
>>> cache.get(key).reply["result"]
'f32[]'
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

# Errors that the same input gives every time; the others depend on the load and the moment.
REPEATABLE_ERRORS = frozenset({"syntax", "user_exception", "invalid_input", "forbidden"})


@dataclass(frozen=True)
class Cached:
    reply: dict
    measured_at: float  # time.time() when the job that gave it ended
    size: int


class ResultCache:
    """``get``/``put`` are safe from many threads."""

    def __init__(self, max_entries: int, max_bytes: int, version: str) -> None:
        if max_entries < 1 or max_bytes < 1:
            raise ValueError(f"a result cache needs room, got {max_entries} entries and {max_bytes} bytes")
        self.max_entries, self.max_bytes, self.version = max_entries, max_bytes, version
        self._entries: OrderedDict[str, Cached] = OrderedDict()
        self._bytes = 0
        self._counts = {"hits": 0, "misses": 0, "stored": 0, "evicted": 0, "too_big": 0}
        self._lock = threading.Lock()

    def key(self, job: dict, pool: str) -> str:
        text = json.dumps({"version": self.version, "pool": pool, "job": job}, sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()

    def get(self, key: str) -> Cached | None:
        with self._lock:
            found = self._entries.get(key)
            if found is None:
                self._counts["misses"] += 1
                return None
            self._entries.move_to_end(key)
            self._counts["hits"] += 1
            return found

    def put(self, key: str, reply: dict, measured_at: float) -> bool:
        """Keep a result; False (and nothing kept) for what is not one or does not fit."""
        if not keeps(reply):
            return False
        size = len(json.dumps(reply, ensure_ascii=False).encode("utf-8", "surrogatepass"))
        with self._lock:
            if size > self.max_bytes // 8:
                self._counts["too_big"] += 1
                return False
            if key in self._entries:
                self._bytes -= self._entries.pop(key).size
            self._entries[key] = Cached(reply, measured_at, size)
            self._bytes += size
            self._counts["stored"] += 1
            while len(self._entries) > self.max_entries or self._bytes > self.max_bytes:
                self._bytes -= self._entries.popitem(last=False)[1].size
                self._counts["evicted"] += 1
            return True

    def status(self) -> dict:
        with self._lock:
            return {"entries": len(self._entries), "max_entries": self.max_entries, "bytes": self._bytes,
                    "max_bytes": self.max_bytes, **self._counts}


def keeps(reply: dict) -> bool:
    """Whether a reply is a result worth keeping: a success, or an error the same input always gives."""
    if reply.get("ok") is True:
        return True
    error = reply.get("error") or {}
    return error.get("kind") in REPEATABLE_ERRORS


def app_version() -> str:
    """JAX's version and a digest of the playground's source files (its version, exactly): what a result depends on."""
    digest = hashlib.sha256()
    root = Path(__file__).resolve().parents[2]  # playground/
    for path in sorted(root.rglob("*.py")):
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    versions = []
    for package in ("jax", "jaxlib"):
        try:
            versions.append(f"{package} {importlib.metadata.version(package)}")
        except importlib.metadata.PackageNotFoundError:
            versions.append(f"{package} (not installed)")
    return f"{', '.join(versions)}, source {digest.hexdigest()[:12]}"
