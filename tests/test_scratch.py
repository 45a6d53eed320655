"""The server's walk and removal of a job's scratch folder, against what a hostile job plants there."""

from __future__ import annotations

import os
import time

import pytest

from playground.sandbox import scratch


def _deep(root, depth: int) -> None:
    """``depth`` nested folders, made through descriptors (no path gets longer than one name)."""
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    for _ in range(depth):
        os.mkdir("d", dir_fd=fd)
        child = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
        os.close(fd)
        fd = child
    os.close(fd)


def test_usage_counts_bytes_and_entries(tmp_path):
    for i in range(30):
        (tmp_path / f"f{i}").write_bytes(b"x" * 8192)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "g").write_bytes(b"y" * 4096)
    usage = scratch.usage(str(tmp_path), max_entries=100, max_depth=8, budget_s=5)
    assert usage.complete and not usage.too_deep
    assert usage.entries == 32
    assert 30 * 8192 <= usage.bytes < 1 << 20


def test_usage_stops_past_the_entry_limit(tmp_path):
    for i in range(50):
        (tmp_path / f"f{i}").touch()
    usage = scratch.usage(str(tmp_path), max_entries=10, max_depth=8, budget_s=5)
    assert usage.entries == 11 and usage.complete


def test_usage_reports_a_tree_deeper_than_it_walks(tmp_path):
    _deep(tmp_path, 200)
    usage = scratch.usage(str(tmp_path), max_entries=10_000, max_depth=64, budget_s=5)
    assert usage.too_deep


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
    usage = scratch.usage(str(job), max_entries=100, max_depth=8, budget_s=5)
    assert time.monotonic() - started < 2  # a FIFO opened for reading would block forever
    assert usage.entries == 3 and usage.bytes < 1 << 20


def test_usage_of_a_root_replaced_by_a_symlink_is_nothing(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "f").write_bytes(b"x" * 100_000)
    (tmp_path / "root").symlink_to(tmp_path / "real")
    assert scratch.usage(str(tmp_path / "root"), 100, 8, 5).entries == 0


def test_usage_stops_at_its_budget(tmp_path):
    for i in range(3000):
        (tmp_path / f"f{i}").touch()
    usage = scratch.usage(str(tmp_path), max_entries=100_000, max_depth=8, budget_s=0)
    assert not usage.complete and usage.entries <= 1


def test_remove_leaves_what_a_symlink_points_to(tmp_path):
    canary = tmp_path / "outside"
    canary.mkdir()
    (canary / "keep").write_text("precious")
    job = tmp_path / "job"
    (job / "sub").mkdir(parents=True)
    (job / "to-outside").symlink_to(canary)
    (job / "sub" / "to-file").symlink_to(canary / "keep")
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
    started = time.monotonic()
    finished = scratch.remove(str(job), 0.05)
    assert time.monotonic() - started < 2
    assert not finished and job.exists()
    assert scratch.remove(str(job), 30) and not job.exists()


@pytest.mark.parametrize("missing", ["nothing-here", "gone/deeper"])
def test_remove_of_a_missing_folder_is_done(tmp_path, missing):
    assert scratch.remove(str(tmp_path / missing), 1)
