"""playground.server.answering.result_cache: keys, hit and miss counts, LRU bounds, which replies are kept, the app's
version."""

from __future__ import annotations

import importlib.metadata
import json
from pathlib import Path

import pytest

from playground import jobs
from playground.errors import error_dict
from playground.server.answering.result_cache import REPEATABLE_ERRORS, ResultCache, app_version, keeps

JOB = jobs.build("inspect", {"code": "def f(x):\n    return x * 2\n", "args": "jnp.arange(3.0)"})
OK = {"ok": True, "result": "f32[3]"}


def cache(max_entries: int = 8, max_bytes: int = 1 << 20, version: str = "v1") -> ResultCache:
    return ResultCache(max_entries=max_entries, max_bytes=max_bytes, version=version)


def reply_of_size(size: int, tag: str = "") -> dict:
    """An ok reply whose JSON is exactly ``size`` bytes (what the cache counts)."""
    reply = {"ok": True, "result": tag}
    reply["result"] = tag + "x" * (size - len(json.dumps(reply)))
    assert len(json.dumps(reply)) == size
    return reply


def test_get_counts_hits_and_misses_and_returns_what_was_put():
    """A miss before the put, then a hit with the reply and the time it was measured."""
    results = cache()
    key = results.key(JOB, "sandbox")
    assert results.get(key) is None
    assert results.put(key, OK, measured_at=123.5) is True
    found = results.get(key)
    assert found.reply == OK and found.measured_at == 123.5
    assert results.get(key) is not None
    status = results.status()
    assert (status["hits"], status["misses"], status["stored"], status["entries"]) == (2, 1, 1, 1)


@pytest.mark.parametrize("field, value", [("code", "def f(x):\n    return x * 3\n"), ("args", "jnp.arange(4.0)"),
                                          ("static_argnums", [0]), ("second_args", "1.0"),
                                          ("on_accelerator", True)])
def test_key_changes_with_any_job_field(field, value):
    """Any argument of the job, defaults included, is part of the key."""
    assert JOB[field] != value
    results = cache()
    assert results.key({**JOB, field: value}, "sandbox") != results.key(JOB, "sandbox")


def test_key_changes_with_pool_and_version_but_not_with_key_order():
    """The same job on another pool, or under another app version, is other work; the order of its keys is not."""
    results = cache()
    key = results.key(JOB, "sandbox")
    assert results.key(JOB, "accelerator") != key
    assert cache(version="v2").key(JOB, "sandbox") != key
    assert results.key(dict(reversed(list(JOB.items()))), "sandbox") == key
    assert cache(version="v1").key(JOB, "sandbox") == key


def test_least_recently_used_entry_goes_first_when_entries_are_full():
    """With room for 2, reading the oldest keeps it: the third put evicts the one not read."""
    results = cache(max_entries=2)
    first, second, third = (results.key({**JOB, "args": str(n)}, "sandbox") for n in range(3))
    results.put(first, OK, 1.0)
    results.put(second, OK, 2.0)
    assert results.get(first) is not None
    results.put(third, OK, 3.0)
    assert results.get(second) is None
    assert results.get(first) is not None and results.get(third) is not None
    assert results.status()["evicted"] == 1 and results.status()["entries"] == 2


def test_least_recently_used_entries_go_when_bytes_are_full():
    """With bytes for exactly 8 replies of one size, a ninth evicts the oldest and the byte count stays within."""
    size = 100
    results = cache(max_entries=100, max_bytes=8 * size)
    keys = [results.key({**JOB, "args": str(n)}, "sandbox") for n in range(9)]
    for n, key in enumerate(keys[:8]):
        assert results.put(key, reply_of_size(size, str(n)), float(n))
    assert results.status()["bytes"] == 8 * size
    assert results.put(keys[8], reply_of_size(size, "8"), 8.0)
    assert results.get(keys[0]) is None
    assert all(results.get(key) is not None for key in keys[1:])
    assert results.status()["bytes"] == 8 * size and results.status()["evicted"] == 1


def test_putting_a_key_again_replaces_it_and_its_bytes():
    """A second put under the same key keeps one entry, counted at the new reply's size."""
    results = cache()
    key = results.key(JOB, "sandbox")
    results.put(key, reply_of_size(200), 1.0)
    results.put(key, reply_of_size(50), 2.0)
    assert results.status()["entries"] == 1 and results.status()["bytes"] == 50
    assert results.get(key).measured_at == 2.0


def test_a_reply_bigger_than_an_eighth_of_the_bytes_is_not_kept():
    """max_bytes // 8 fits; one byte more is refused, counted as too big, and nothing else is evicted for it."""
    results = cache(max_bytes=800)
    small, fits, big = (results.key({**JOB, "args": str(n)}, "sandbox") for n in range(3))
    assert results.put(small, reply_of_size(30), 1.0)
    assert results.put(fits, reply_of_size(100), 1.0)
    assert results.put(big, reply_of_size(101), 1.0) is False
    assert results.get(big) is None
    assert results.get(small) is not None and results.get(fits) is not None
    assert results.status()["too_big"] == 1


@pytest.mark.parametrize("kind", sorted(REPEATABLE_ERRORS))
def test_errors_the_same_input_always_gives_are_kept(kind):
    """Syntax errors, the user's own exceptions, invalid input and forbidden code give the same answer again."""
    results = cache()
    key = results.key(JOB, "sandbox")
    reply = error_dict(kind, "the same every time")
    assert keeps(reply)
    assert results.put(key, reply, 1.0) is True
    assert results.get(key).reply == reply


@pytest.mark.parametrize("kind", ["timeout", "memory", "crashed", "busy", "internal", "disk", "tasks", "unavailable"])
def test_errors_that_depend_on_the_moment_are_not_kept(kind):
    """Time-outs, memory kills, crashes, busy answers and our own bugs may not happen again: never kept."""
    results = cache()
    key = results.key(JOB, "sandbox")
    reply = error_dict(kind, "this time")
    assert not keeps(reply)
    assert results.put(key, reply, 1.0) is False
    assert results.get(key) is None
    assert results.status()["stored"] == 0


def test_repeatable_errors_are_exactly_the_four():
    """The kept error kinds, so that a new kind is a decision and not an accident."""
    assert REPEATABLE_ERRORS == {"syntax", "user_exception", "invalid_input", "forbidden"}


def test_only_an_ok_of_true_counts_as_a_success():
    """A reply without ``ok: True`` and without an error kind is not a result."""
    assert keeps({"ok": True})
    assert not keeps({"ok": False})
    assert not keeps({"ok": "yes"})
    assert not keeps({"result": 1})


def test_a_cache_needs_room():
    """Zero entries or zero bytes is a configuration mistake, refused at once."""
    with pytest.raises(ValueError):
        ResultCache(max_entries=0, max_bytes=10, version="v")
    with pytest.raises(ValueError):
        ResultCache(max_entries=1, max_bytes=0, version="v")


def test_app_version_names_jax_and_jaxlib_and_is_deterministic():
    """The version names the installed jax and jaxlib and a source digest, the same on every call."""
    version = app_version()
    assert version == app_version()
    assert f"jax {importlib.metadata.version('jax')}" in version
    assert f"jaxlib {importlib.metadata.version('jaxlib')}" in version
    assert ", source " in version


def test_app_version_changes_when_a_source_file_changes(monkeypatch):
    """One more byte in one playground source file (as read) gives another version: old results are not reused."""
    before = app_version()
    read_bytes = Path.read_bytes

    def edited(path: Path) -> bytes:
        content = read_bytes(path)
        return content + b"\n# edited\n" if path.name == "errors.py" and path.parent.name == "playground" else content

    monkeypatch.setattr(Path, "read_bytes", edited)
    after = app_version()
    assert after != before
    assert after.split(", source ")[0] == before.split(", source ")[0]  # the same JAX
