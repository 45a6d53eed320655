"""What the user is told when the sandbox stops a job: from the kernel's facts, with the limit's real value."""

from __future__ import annotations

import signal

import pytest

from playground.ipc.limits import Limits
from playground.ipc.procfs import Sample
from playground.ipc.scratch import Usage
from playground.server.pools import mechanisms, verdicts

LIMITS = Limits(memory_mb=2048, address_space_mb=4096, max_tasks=512, scratch_mb=256, scratch_files=10_000)
CALM = Sample(rss_mb=300.0, address_space_mb=1500.0, threads=12)


def _ended(report, events=None, last=CALM, cgroup_mb=None):
    return verdicts.ended_without_reply(report, events or {}, last, LIMITS, cgroup_mb)["error"]


def test_a_segfault_is_a_crash_named_by_its_signal():
    error = _ended({"code": "killed", "status": signal.SIGSEGV})
    assert error["kind"] == "crashed"
    assert "SIGSEGV" in error["message"]
    assert "nothing else was affected" not in error["message"]


def test_an_exit_before_the_reply_says_its_status():
    error = _ended({"code": "exited", "status": 3})
    assert error["kind"] == "crashed" and "exited with status 3" in error["message"]


def test_the_cgroup_oom_killer_is_memory_with_the_cgroup_limit():
    error = _ended({"code": "killed", "status": signal.SIGKILL}, {"oom_kills": 1}, cgroup_mb=2816)
    assert error["kind"] == "memory" and "2,816 MB" in error["message"]


def test_a_crash_after_the_task_limit_is_tasks():
    error = _ended({"code": "killed", "status": signal.SIGSEGV}, {"task_limit_hits": 3})
    assert error["kind"] == "tasks" and "512 threads" in error["message"]


def test_a_crash_at_the_address_space_limit_is_memory():
    error = _ended({"code": "dumped", "status": signal.SIGABRT}, last=Sample(400.0, 4000.0, 12))
    assert error["kind"] == "memory" and "4,000 MB of its 4,096 MB" in error["message"]


def test_a_sigkill_nobody_here_sent_is_the_hosts_memory():
    error = _ended({"code": "killed", "status": signal.SIGKILL})
    assert error["kind"] == "memory" and "not by the playground" in error["message"]


def test_an_unknown_end_says_it_is_unknown():
    assert "not known" in _ended(None)["message"]


@pytest.mark.parametrize(("usage", "words"), [
    (Usage(bytes=300 << 20, entries=5, too_deep=False, complete=True), "300 MB, more than its limit of 256 MB"),
    (Usage(bytes=1 << 20, entries=10_001, too_deep=False, complete=True), "limit of 10,000 files and folders"),
    (Usage(bytes=0, entries=70, too_deep=True, complete=True), "nested more than 64 deep"),
])
def test_a_full_scratch_folder_names_the_limit_it_hit(usage, words):
    error = verdicts.scratch_full(usage, LIMITS, 7)["error"]
    assert error["kind"] == "disk" and words in error["message"] and error["line"] == 7


def test_watchdog_messages_state_the_measurement_and_the_limit():
    memory = verdicts.memory_exceeded(Sample(2100.0, 3000.0, 10), LIMITS, None)["error"]
    assert memory["kind"] == "memory" and "2,100 MB" in memory["message"] and "2,048 MB" in memory["message"]
    tasks = verdicts.tasks_exceeded(Sample(300.0, 3000.0, 700), LIMITS, 4)["error"]
    assert tasks["kind"] == "tasks" and "700 threads" in tasks["message"] and "512" in tasks["message"]
    assert "12.5 s" in verdicts.timed_out(12.5, None)["error"]["message"]


def _layer(active: bool, detail: str = "why") -> dict:
    return {"active": active, "detail": detail}


def test_about_says_what_bounds_each_resource_and_why_not():
    full = {"pid_namespace": _layer(True), "seccomp": _layer(True), "namespaces": _layer(True),
            "cgroups": _layer(True), "landlock": _layer(True)}
    described = mechanisms.describe(full, LIMITS, 2816)
    assert set(described) == {"files", "processes", "disk", "memory", "tasks", "time"}
    assert all(m["active"] for m in described.values())
    bare = {"pid_namespace": _layer(False, "no PID namespaces here (EPERM)"), "seccomp": _layer(True),
            "namespaces": _layer(False, "refused by the kernel"), "cgroups": _layer(False, "cgroups not writable"),
            "landlock": _layer(True)}
    described = mechanisms.describe(bare, LIMITS, None)
    assert described["processes"]["active"] and "no PID namespace" in described["processes"]["detail"]
    assert "Landlock keeps every other process's /proc unreadable" in described["processes"]["detail"]
    assert described["disk"]["active"] and "may not delete or rename" in described["disk"]["detail"]
    assert not described["tasks"]["active"] and "cgroups not writable" in described["tasks"]["detail"]
    assert not described["memory"]["active"]


def test_about_says_what_holds_in_place_of_landlock():
    """gVisor: no Landlock, no namespaces. Seccomp refuses every file write; reads are said to be the uid's."""
    gvisor = {"pid_namespace": _layer(False, "no PID namespaces here (EPERM)"), "seccomp": _layer(True),
              "namespaces": _layer(False, "refused by the kernel"), "cgroups": _layer(False, "no cgroups"),
              "landlock": _layer(False, "OSError: Landlock is not available on this kernel")}
    described = mechanisms.describe(gvisor, LIMITS, None)
    files = described["files"]
    assert not files["active"] and "Landlock is not available" in files["detail"]
    assert "seccomp refuses every file write" in files["detail"] and "may read" in files["detail"]
    assert described["disk"]["active"] and described["disk"]["detail"].startswith("a job may write no file at all")
    assert "/dev/shm cannot be written (seccomp)" in described["memory"]["detail"]
    assert "start the app with no secrets in its environment" in described["processes"]["detail"]
    as_root = mechanisms.describe({**gvisor, "own_uid": _layer(True, "uid 65534, no groups")}, LIMITS, None)
    assert "reads: as uid 65534" in as_root["files"]["detail"]
    assert "runs as a uid of its own" in as_root["processes"]["detail"]
    nothing = mechanisms.describe({**gvisor, "seccomp": _layer(False, "no libseccomp")}, LIMITS, None)
    assert not nothing["files"]["active"] and "this checkout (the app's own code)" in nothing["files"]["detail"]
    assert not nothing["disk"]["active"] and "deleted while still open are not counted" in nothing["disk"]["detail"]
    assert mechanisms.writes_confined(gvisor) and not mechanisms.writes_confined({**gvisor, "seccomp": _layer(False)})
