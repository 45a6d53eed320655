"""The server's own words when it stopped a job or could not take it, in German and Chinese (English unchanged)."""

from __future__ import annotations

import signal

import pytest

from playground import messages
from playground.errors import internal_error, reply_refused
from playground.ipc.limits import Limits
from playground.ipc.procfs import Sample
from playground.ipc.scratch import Usage
from playground.server.answering.line import LineFull
from playground.server.answering.runner import busy
from playground.server.pools import reply, verdicts
from playground.server.ui.error_views import error_markdown

LIMITS = Limits(memory_mb=2048, address_space_mb=4096, max_tasks=512, scratch_mb=256, scratch_files=10_000)
CALM = Sample(rss_mb=300.0, address_space_mb=1500.0, threads=12)

EVERY_VERDICT = {
    "timeout": verdicts.timed_out(10, 4),
    "memory": verdicts.memory_exceeded(Sample(2100.0, 3000.0, 10), LIMITS, 2),
    "tasks": verdicts.tasks_exceeded(Sample(300.0, 3000.0, 700), LIMITS, None),
    "disk_deep": verdicts.scratch_full(Usage(bytes=10, entries=3, too_deep=True, complete=True), LIMITS, 7),
    "disk_files": verdicts.scratch_full(Usage(bytes=10, entries=20_000, too_deep=False, complete=True), LIMITS, None),
    "disk_size": verdicts.scratch_full(Usage(bytes=300 * 2**20, entries=3, too_deep=False, complete=True), LIMITS,
                                       None),
    "refused": reply_refused("it is not a well-formed result"),
    "after_tasks": verdicts.after_task_limit({"ok": False, "error": {"kind": "user_exception", "line": 3,
                                              "message": "RuntimeError: can't start new thread"}}, 5, LIMITS),
    "hung_up": verdicts.hung_up(3),
    "oom_cgroup": verdicts.ended_without_reply({"code": "killed", "status": 9}, {"oom_kills": 1}, CALM, LIMITS, 2816),
    "unknown_end": verdicts.ended_without_reply(None, {}, CALM, LIMITS, None),
    "exited": verdicts.ended_without_reply({"code": "exited", "status": 3}, {}, CALM, LIMITS, None),
    "task_kill": verdicts.ended_without_reply({"code": "killed", "status": 11}, {"task_limit_hits": 1}, CALM, LIMITS,
                                              None),
    "address_space": verdicts.ended_without_reply({"code": "killed", "status": 6}, {}, Sample(300.0, 4000.0, 12),
                                                  LIMITS, None),
    "host_oom": verdicts.ended_without_reply({"code": "killed", "status": signal.SIGKILL}, {}, CALM, LIMITS, None),
    "segfault": verdicts.ended_without_reply({"code": "killed", "status": signal.SIGSEGV}, {}, CALM, LIMITS, None),
    "busy": busy(LineFull(waiting=12, wait_s=7.2), workers=2),
    "busy_one": busy(LineFull(waiting=3, wait_s=None), workers=1),
    "internal": internal_error("0badc0de"),
}


@pytest.mark.parametrize("name", EVERY_VERDICT)
def test_every_verdict_reads_in_each_language_and_english_is_its_message(name):
    error = EVERY_VERDICT[name]["error"]
    said = error["words"]["message"]
    assert messages.render(said, "en") == error["message"]
    assert error_markdown(error, "en").count(error["message"].splitlines()[0]) == 1
    for language in ("de", "zh"):
        written = messages.render(said, language)
        assert written != error["message"] and "{" not in written
        shown = error_markdown(error, language)
        assert written.splitlines()[0] in shown and error["message"] not in shown
        assert messages.say("error.jax_says", language) not in shown  # every word of it is the server's own


def test_the_numbers_and_names_survive_translation():
    timeout = EVERY_VERDICT["timeout"]["error"]["words"]["message"]
    assert messages.render(timeout, "de") == (
        "Zeitlimit: Dein Code lief länger als 10 s und wurde gestoppt. Er war in Zeile 4 deines Codes. Such nach "
        "einer Schleife, die nie endet (eine gejittete lax.while_loop lässt sich nicht unterbrechen, nur beenden).")
    assert messages.render(timeout, "zh").startswith(
        "时间限制：你的代码运行超过了 10 秒，已被停止。当时运行到你代码的第 4 行。")
    segfault = messages.render(EVERY_VERDICT["segfault"]["error"]["words"]["message"], "zh")
    assert "SIGSEGV" in segfault and segfault.endswith("已换上一个新的工作进程。")
    busy_de = messages.render(EVERY_VERDICT["busy"]["error"]["words"]["message"], "de")
    assert "12 Jobs warten auf 2 Worker" in busy_de and "in 8 s noch einmal" in busy_de
    assert "0badc0de" in messages.render(EVERY_VERDICT["internal"]["error"]["words"]["message"], "zh")


def test_a_thread_limit_failure_keeps_the_jobs_own_message_inside_ours():
    error = EVERY_VERDICT["after_tasks"]["error"]
    assert error["kind"] == "tasks" and error["line"] == 3
    assert "RuntimeError: can't start new thread" in messages.render(error["words"]["message"], "zh")


def test_a_workers_reply_cannot_bring_its_own_message_pieces():
    """Only the server says words["message"]: the reply check drops it, so a job cannot dress up its text."""
    forged = {"ok": False, "error": {"kind": "timeout", "message": "real", "line": None,
                                     "words": {"message": [["internal.bug", {"incident": "x"}]]}}}
    checked = reply.validated(forged, "inspect")
    assert checked["error"]["message"] == "real" and "message" not in (checked["error"].get("words") or {})
    # A refused argument's message may come as the catalogue's own "invalid." pieces, and only so.
    refused = {"ok": False, "error": {"kind": "invalid_input", "message": "empty", "line": None,
                                      "words": {"message": [["invalid.point_empty", {"field": "x"}]]}}}
    assert reply.validated(refused, "derivatives")["error"]["words"]["message"] == [["invalid.point_empty",
                                                                                      {"field": "x"}]]
    dressed = {"ok": False, "error": {**refused["error"], "words": {"message": [["internal.bug", {"incident": "x"}]]}}}
    assert "message" not in (reply.validated(dressed, "derivatives")["error"].get("words") or {})
