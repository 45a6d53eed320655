"""The server's walk and removal of a job's scratch folder, against what a hostile job plants there."""

from __future__ import annotations

import os
import time

import pytest

from playground.ipc import scratch


def _deep(root, depth: int) -> None:
    """``depth`` nested folders, made through descriptors (no path gets longer than one name)."""
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    for _ in range(depth):
        os.mkdir("d", dir_fd=fd)
        child = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
        os.close(fd)
        fd = child
    os.close(fd)


def usage(root: str, max_entries: int, max_depth: int, budget_s: float) -> scratch.Usage:
    """One step of a fresh walk: a whole pass where the budget allows."""
    walk = scratch.Walk(root, max_entries, max_depth)
    try:
        return walk.step(budget_s)
    finally:
        walk.close()


def test_usage_counts_bytes_and_entries(tmp_path):
    for i in range(30):
        (tmp_path / f"f{i}").write_bytes(b"x" * 8192)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "g").write_bytes(b"y" * 4096)
    found = usage(str(tmp_path), max_entries=100, max_depth=8, budget_s=5)
    assert found.complete and not found.too_deep
    assert found.entries == 32
    assert 30 * 8192 <= found.bytes < 1 << 20


def test_usage_stops_past_the_entry_limit(tmp_path):
    for i in range(50):
        (tmp_path / f"f{i}").touch()
    found = usage(str(tmp_path), max_entries=10, max_depth=8, budget_s=5)
    assert found.entries == 11 and found.complete


def test_usage_reports_a_tree_deeper_than_it_walks(tmp_path):
    _deep(tmp_path, 200)
    found = usage(str(tmp_path), max_entries=10_000, max_depth=64, budget_s=5)
    assert found.too_deep


def test_usage_follows_no_symlink_and_opens_no_fifo(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "big").write_bytes(b"z" * (4 << 20))
    job = tmp_path / "job"
    job.mkdir()
    (job / "link").symlink_to(outside)
    (job / "file-link").symlink_to(outside / "big")
    os.mkfifo(job / "fifo")
    started = time.monotonic()
    found = usage(str(job), max_entries=100, max_depth=8, budget_s=5)
    assert time.monotonic() - started < 2  # a FIFO opened for reading would block forever
    assert found.entries == 3 and found.bytes < 1 << 20


def test_usage_of_a_root_replaced_by_a_symlink_is_nothing(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "f").write_bytes(b"x" * 100_000)
    (tmp_path / "root").symlink_to(tmp_path / "real")
    assert usage(str(tmp_path / "root"), 100, 8, 5).entries == 0


def test_usage_stops_at_its_budget(tmp_path):
    for i in range(3000):
        (tmp_path / f"f{i}").touch()
    found = usage(str(tmp_path), max_entries=100_000, max_depth=8, budget_s=0)
    assert not found.complete and found.entries <= 1


def test_a_walk_goes_on_where_it_stopped_until_it_has_counted_everything(tmp_path):
    """A folder too big for one step is counted whole over several: no step starts the count over."""
    for i in range(3000):
        (tmp_path / f"f{i}").touch()
    (tmp_path / "sub").mkdir()
    for i in range(500):
        (tmp_path / "sub" / f"g{i}").touch()
    walk = scratch.Walk(str(tmp_path), max_entries=100_000, max_depth=8)
    try:
        steps, seen = [], 0
        while not steps or not steps[-1].complete:
            steps.append(walk.step(budget_s=0))  # one entry a step at most, then on from there
            assert steps[-1].entries >= seen
            seen = steps[-1].entries
        assert len(steps) > 100 and steps[-1].entries == 3501
        assert walk.step(budget_s=5) == steps[-1]  # the next pass, whole, counts the same
        too_many = scratch.Walk(str(tmp_path), max_entries=3000, max_depth=8)
        while not (found := too_many.step(budget_s=0)).complete:
            pass
        assert found.entries == 3001  # past the limit: the pass ends there
    finally:
        walk.close()


def test_remove_leaves_what_a_symlink_points_to(tmp_path):
    canary = tmp_path / "outside"
    canary.mkdir()
    (canary / "keep").write_text("precious")
    job = tmp_path / "job"
    (job / "sub").mkdir(parents=True)
    (job / "to-outside").symlink_to(canary)
    (job / "sub" / "to-file").symlink_to(canary / "keep")
    (job / "sub" / "to-folder").symlink_to(canary)  # inside a sub-folder: the listing says link, not folder
    assert scratch.remove(str(job), 10)
    assert not job.exists()
    assert (canary / "keep").read_text() == "precious"


def test_remove_handles_a_very_deep_tree_without_recursion(tmp_path):
    job = tmp_path / "job"
    job.mkdir()
    _deep(job, 3000)
    assert scratch.remove(str(job), 30)
    assert not job.exists()


def test_remove_handles_fifos_sockets_and_locked_folders(tmp_path):
    import socket

    job = tmp_path / "job"
    (job / "locked" / "inner").mkdir(parents=True)
    (job / "locked" / "inner" / "f").write_text("x")
    os.mkfifo(job / "fifo")
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(job / "sock"))
    os.chmod(job / "locked" / "inner", 0)
    os.chmod(job / "locked", 0)
    assert scratch.remove(str(job), 10)
    assert not job.exists()


def test_remove_handles_a_root_the_job_locked(tmp_path):
    job = tmp_path / "job"
    job.mkdir()
    (job / "f").write_text("x")
    os.chmod(job, 0)
    assert scratch.remove(str(job), 10)
    assert not job.exists()


def test_remove_of_many_entries_is_bounded_by_its_budget(tmp_path):
    job = tmp_path / "job"
    job.mkdir()
    for i in range(20_000):
        (job / f"f{i}").touch()
    assert not scratch.remove(str(job), 0.05) and job.exists()
    assert scratch.remove(str(job), 30) and not job.exists()


def test_remove_takes_a_wide_tree_of_empty_and_full_folders(tmp_path):
    """What a job that makes folders as fast as it can leaves: hundreds of folders, each of many."""
    job = tmp_path / "job"
    for i in range(50):
        for j in range(40):
            (job / f"d{i}" / str(j)).mkdir(parents=True)
        (job / f"d{i}" / "0" / "full").mkdir()
        (job / f"d{i}" / "0" / "full" / "f").write_text("x")
    assert scratch.remove(str(job), 30)
    assert not job.exists()


@pytest.mark.parametrize("missing", ["nothing-here", "gone/deeper"])
def test_remove_of_a_missing_folder_is_done(tmp_path, missing):
    assert scratch.remove(str(tmp_path / missing), 1)
