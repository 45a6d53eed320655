"""playground.measure.xla_dump: XLA's per-pass dump files read back with the care the scratch folder needs."""

from __future__ import annotations

import os
import threading

import jax
import jax.numpy as jnp
import pytest

from playground.measure import xla_dump
from playground.measure.xla_dump import Snapshot


def _name(order: int, after: str, before: str | None = "dce", module: int = 4, pipeline: str = "simplification",
          function: str = "jit_f") -> str:
    tail = f".before_{before}" if before else ""
    return f"module_{module:04d}.{function}.{order:04d}.{pipeline}.after_{after}{tail}.txt"


def _write(folder, name: str, text: str = "HloModule m\n") -> None:
    (folder / name).write_text(text)


def _opened_names(monkeypatch) -> list[str]:
    """Every path ``os.open`` is asked for from now on (the folder itself and each file read)."""
    opened: list[str] = []
    real_open = os.open

    def spy(path, flags, *args, **kwargs):
        opened.append(os.fsdecode(path))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", spy)
    return opened


def test_options_ask_for_text_dumps_of_the_pattern_into_the_folder():
    options = xla_dump.options("/scratch/d")
    assert options.items() >= {"xla_dump_to": "/scratch/d", "xla_dump_hlo_pass_re": ".+", "xla_dump_hlo_as_text": True,
                               "xla_dump_hlo_as_proto": False}.items()
    assert xla_dump.options("/d", xla_dump.KEY_PASSES)["xla_dump_hlo_pass_re"] == xla_dump.KEY_PASSES


def test_new_folder_is_fresh_below_the_scratch_folder_and_ours_alone(tmp_path):
    first, second = xla_dump.new_folder(str(tmp_path)), xla_dump.new_folder(str(tmp_path))
    assert first != second
    for folder in (first, second):
        assert os.path.dirname(folder) == str(tmp_path)
        assert os.path.basename(folder).startswith("xla-dump-")
        assert os.path.isdir(folder) and os.listdir(folder) == []
        assert os.stat(folder).st_mode & 0o077 == 0


def test_pass_files_become_snapshots_with_pipeline_and_pass(tmp_path):
    _write(tmp_path, _name(12, "algsimp"), "after algsimp")
    dump = xla_dump.read(str(tmp_path), 100, 1 << 20)
    assert dump.snapshots == [Snapshot(12, "simplification", "algsimp", "after algsimp")]
    assert (dump.stopped, dump.bytes_read, dump.capped) == (None, len("after algsimp"), False)


def test_the_last_file_of_a_pipeline_has_no_before_part(tmp_path):
    _write(tmp_path, _name(3, "dce", before=None), "last")
    [snapshot] = xla_dump.read(str(tmp_path), 100, 1 << 20).snapshots
    assert (snapshot.pipeline, snapshot.after, snapshot.text) == ("simplification", "dce", "last")


def test_snapshots_come_in_pass_order_by_sequence_number_not_by_name(tmp_path):
    # Written in an order where the file names sort differently from the sequence numbers (9999 -> 10000).
    for order, after in ((10000, "after-ten-thousand"), (9998, "zzz-first"), (9999, "aaa-second")):
        _write(tmp_path, _name(order, after), after)
    dump = xla_dump.read(str(tmp_path), 100, 1 << 20)
    assert [(s.order, s.after) for s in dump.snapshots] == [
        (9998, "zzz-first"), (9999, "aaa-second"), (10000, "after-ten-thousand")]
    assert [s.text for s in dump.snapshots] == ["zzz-first", "aaa-second", "after-ten-thousand"]


def test_a_number_missing_from_the_sequence_stops_the_list_there(tmp_path):
    """XLA numbers a module's files 0, 1, 2, ...: a missing number is a pass whose module is not there."""
    for order in (0, 1, 3, 4):
        _write(tmp_path, _name(order, f"pass{order}"))
    dump = xla_dump.read(str(tmp_path), 100, 1 << 20)
    assert [s.order for s in dump.snapshots] == [0, 1]
    assert dump.stopped == "gap"


def test_files_not_named_like_pass_files_are_ignored_and_not_counted(tmp_path, monkeypatch):
    _write(tmp_path, _name(1, "algsimp"))
    for other in ("module_0004.jit_f.cpu_after_optimizations.txt", "module_0004.jit_f.ir-no-opt.ll", "notes.txt",
                  "module_0004.jit_f.0001.simplification.after_algsimp.txt.bak"):
        _write(tmp_path, other, "SECRET")
    opened = _opened_names(monkeypatch)
    dump = xla_dump.read(str(tmp_path), 100, 1 << 20)
    assert [s.after for s in dump.snapshots] == ["algsimp"]
    assert dump.stopped is None
    assert not any("SECRET" in s.text for s in dump.snapshots)
    assert opened == [str(tmp_path), _name(1, "algsimp")]


def test_a_symlink_named_like_a_pass_file_stops_the_list_unopened(tmp_path, monkeypatch):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("SECRET")
    dump_folder = tmp_path / "dump"
    dump_folder.mkdir()
    _write(dump_folder, _name(1, "algsimp"), "real")
    os.symlink(outside / "secret.txt", dump_folder / _name(2, "dce", before=None))
    os.symlink(outside, dump_folder / _name(3, "cse", before=None))  # a link to a folder, too
    opened = _opened_names(monkeypatch)
    dump = xla_dump.read(str(dump_folder), 100, 1 << 20)
    assert [s.text for s in dump.snapshots] == ["real"]
    assert dump.stopped == "unreadable" and dump.capped
    assert _name(2, "dce", before=None) not in opened and _name(3, "cse", before=None) not in opened


def test_the_dump_folder_itself_being_a_symlink_is_refused(tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    _write(real, _name(1, "algsimp"))
    os.symlink(real, tmp_path / "link")
    with pytest.raises(OSError):
        xla_dump.read(str(tmp_path / "link"), 100, 1 << 20)


def _read_in_thread(folder: str, max_files: int, max_bytes: int):
    """xla_dump.read in a daemon thread, so that a read that blocks (on a FIFO) fails the test instead of hanging
    it. The join's limit only guards against a hang; nothing here measures time."""
    result: list = []
    thread = threading.Thread(target=lambda: result.append(xla_dump.read(folder, max_files, max_bytes)),
                              daemon=True)
    thread.start()
    thread.join(60)
    return thread, result


def test_a_fifo_named_like_a_pass_file_stops_the_list_unopened_and_never_blocks(tmp_path, monkeypatch):
    _write(tmp_path, _name(1, "algsimp"), "real")
    fifo = tmp_path / _name(2, "dce", before=None)
    os.mkfifo(fifo)
    opened = _opened_names(monkeypatch)
    thread, result = _read_in_thread(str(tmp_path), 100, 1 << 20)
    if thread.is_alive():  # let the blocked reader go before failing
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    assert not thread.is_alive(), "reading the dump blocked on a FIFO"
    [dump] = result
    assert [s.text for s in dump.snapshots] == ["real"]
    assert dump.stopped == "unreadable"
    assert fifo.name not in opened


def test_a_fifo_swapped_in_after_the_listing_is_opened_without_blocking_and_not_read(tmp_path):
    """The race the scandir check cannot see: the name is a FIFO by the time it is opened."""
    os.mkfifo(tmp_path / "pipe")
    directory = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        result: list = []
        thread = threading.Thread(target=lambda: result.append(xla_dump.read_plain_file(directory, "pipe", 100)),
                                  daemon=True)
        thread.start()
        thread.join(60)
        if thread.is_alive():
            os.close(os.open(tmp_path / "pipe", os.O_WRONLY | os.O_NONBLOCK))
        assert not thread.is_alive(), "opening a FIFO blocked"
        assert result == [(None, "unreadable")]
    finally:
        os.close(directory)


def test_a_symlink_swapped_in_after_the_listing_is_not_followed(tmp_path):
    (tmp_path / "secret").write_text("SECRET")
    os.symlink(tmp_path / "secret", tmp_path / "link")
    directory = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        assert xla_dump.read_plain_file(directory, "link", 100) == (None, "unreadable")
        assert xla_dump.read_plain_file(directory, "secret", 100) == (b"SECRET", None)
    finally:
        os.close(directory)


def test_a_folder_named_like_a_pass_file_stops_the_list(tmp_path, monkeypatch):
    _write(tmp_path, _name(1, "algsimp"), "real")
    (tmp_path / _name(2, "dce", before=None)).mkdir()
    opened = _opened_names(monkeypatch)
    dump = xla_dump.read(str(tmp_path), 100, 1 << 20)
    assert [s.text for s in dump.snapshots] == ["real"]
    assert dump.stopped == "unreadable"
    assert _name(2, "dce", before=None) not in opened


def test_a_file_over_the_byte_cap_stops_the_list_without_a_gap(tmp_path):
    """The pass after a file left out would be compared with the module before the gap: the list ends there."""
    _write(tmp_path, _name(1, "algsimp"), "small")
    _write(tmp_path, _name(2, "dce"), "x" * 1000)
    _write(tmp_path, _name(3, "cse"), "tiny")
    dump = xla_dump.read(str(tmp_path), 100, 100)
    assert [(s.after, s.text) for s in dump.snapshots] == [("algsimp", "small")]
    assert dump.stopped == "bytes"
    assert dump.bytes_read == len("small")


def test_the_byte_cap_counts_all_files_together(tmp_path):
    for order in range(1, 6):
        _write(tmp_path, _name(order, f"pass{order}"), "y" * 10)
    dump = xla_dump.read(str(tmp_path), 100, 30)
    assert [s.after for s in dump.snapshots] == ["pass1", "pass2", "pass3"]
    assert dump.bytes_read == 30
    assert dump.stopped == "bytes"
    assert dump.capped is True


def test_a_pass_file_that_no_longer_fits_the_byte_budget_sets_capped(tmp_path):
    """Past the budget the list is incomplete: each pass after the gap would be compared with a module from before
    the gap. ``capped`` must say so even when the budget is not used up to its last byte (playground/
    worker/jobs/passes.py reports ``exhaustive`` from it)."""
    for order in range(1, 5):
        _write(tmp_path, _name(order, f"pass{order}"), "z" * 60)
    dump = xla_dump.read(str(tmp_path), 100, 100)
    assert [s.after for s in dump.snapshots] == ["pass1"]
    assert dump.stopped == "bytes"
    assert dump.capped is True


def test_max_files_caps_the_snapshots_and_sets_capped(tmp_path):
    for order in range(10):
        _write(tmp_path, _name(order, f"pass{order}"), str(order))
    dump = xla_dump.read(str(tmp_path), 4, 1 << 20)
    assert [s.order for s in dump.snapshots] == [0, 1, 2, 3]
    assert dump.stopped == "files"
    exact = xla_dump.read(str(tmp_path), 10, 1 << 20)
    assert len(exact.snapshots) == 10 and exact.capped is False


def test_a_folder_too_full_to_list_is_listed_only_up_to_its_cap(tmp_path, monkeypatch):
    """Hostile code can write many thousands of names: at most MAX_ENTRIES are listed, and the dump says so."""
    monkeypatch.setattr(xla_dump, "MAX_ENTRIES", 20)
    for order in range(30):
        _write(tmp_path, _name(order, f"pass{order}"))
    dump = xla_dump.read(str(tmp_path), 100, 1 << 20)
    assert len(dump.snapshots) <= 20
    assert dump.stopped == "entries"


def test_far_too_many_files_still_keep_the_first_passes(tmp_path):
    """The cap keeps the passes that ran first, as the reply's notice says ("the passes after it ran but are not
    shown"), not whichever names the folder listing happened to give first."""
    for order in range(200):
        _write(tmp_path, _name(order, f"pass{order}"))
    dump = xla_dump.read(str(tmp_path), 5, 1 << 20)
    assert [s.order for s in dump.snapshots] == [0, 1, 2, 3, 4]


def test_of_two_modules_the_one_with_more_files_is_kept(tmp_path):
    for order in range(3):
        _write(tmp_path, _name(order, f"pass{order}", module=4), f"module 4, {order}")
    for order in range(5):
        _write(tmp_path, _name(order, f"other{order}", module=9, function="jit_g"), f"module 9, {order}")
    dump = xla_dump.read(str(tmp_path), 100, 1 << 20)
    assert [s.text for s in dump.snapshots] == [f"module 9, {order}" for order in range(5)]
    assert dump.stopped is None


def test_two_modules_with_as_many_files_keep_the_first_numbered(tmp_path):
    for module in (7, 3):
        for order in range(2):
            _write(tmp_path, _name(order, f"pass{order}", module=module), f"module {module}")
    dump = xla_dump.read(str(tmp_path), 100, 1 << 20)
    assert [s.text for s in dump.snapshots] == ["module 3", "module 3"]


def test_an_empty_folder_gives_no_snapshots(tmp_path):
    dump = xla_dump.read(str(tmp_path), 100, 1 << 20)
    assert (dump.snapshots, dump.stopped, dump.bytes_read, dump.capped) == ([], None, 0, False)


def test_bytes_that_are_not_utf8_are_replaced(tmp_path):
    (tmp_path / _name(1, "algsimp")).write_bytes(b"ok \xff\xfe end")
    [snapshot] = xla_dump.read(str(tmp_path), 100, 1 << 20).snapshots
    assert snapshot.text == "ok \ufffd\ufffd end"


def test_a_real_compile_writes_pass_files_that_read_back_in_order(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    folder = xla_dump.new_folder(os.getcwd())
    lowered = jax.jit(lambda x: x * 2.0 + 1.0).lower(jnp.ones(3))
    lowered.compile(compiler_options=xla_dump.options(folder))
    dump = xla_dump.read(folder, 1_000, 64 << 20)
    assert len(dump.snapshots) > 10
    assert dump.capped is False and dump.stopped is None
    orders = [s.order for s in dump.snapshots]
    assert orders == sorted(orders) and len(set(orders)) == len(orders)
    assert dump.snapshots[0].after == "pipeline-start"
    assert all(s.text.startswith("HloModule") for s in dump.snapshots)
    assert dump.bytes_read == sum(len(s.text.encode()) for s in dump.snapshots)
    if jax.default_backend() == "cpu":  # a GPU's pipeline names its fusion passes differently
        assert "fusion" in {s.after for s in dump.snapshots}


def test_a_users_jit_options_cannot_filter_the_dump_away(tmp_path):
    """The user's own jit may carry dump options; ours are merged over them and leave nothing of theirs in force."""
    jitted = jax.jit(lambda x: x * 2.0 + 1.0, compiler_options={
        "xla_dump_hlo_module_re": "matches-no-module", "xla_dump_hlo_pipeline_re": "matches-no-pipeline",
        "xla_dump_max_hlo_modules": 0, "xla_dump_hlo_as_dot": True})
    folder = xla_dump.new_folder(str(tmp_path))
    jitted.lower(jnp.ones(3)).compile(compiler_options=xla_dump.options(folder))
    dump = xla_dump.read(folder, 1_000, 64 << 20)
    assert len(dump.snapshots) > 10 and dump.stopped is None
    assert not [name for name in os.listdir(folder) if name.endswith(".dot")]


@pytest.mark.parametrize("text", ["", "HloModule m\n\nENTRY %main (x: f32[]) -> f32[] {\n  %x = f32[] param"])
def test_a_file_that_is_no_whole_module_stops_the_dump_as_incomplete(tmp_path, text):
    """XLA goes on when a write fails (a full scratch folder): empty or cut files end what is trusted."""
    whole = "HloModule m\n\nENTRY %main (x: f32[]) -> f32[] {\n  ROOT %x = f32[] parameter(0)\n}\n"
    _write(tmp_path, _name(0, "algsimp"), whole)
    _write(tmp_path, _name(1, "dce"), text)
    _write(tmp_path, _name(2, "cse"), whole)
    dump = xla_dump.whole_modules(xla_dump.read(str(tmp_path), 100, 1 << 20))
    assert [s.after for s in dump.snapshots] == ["algsimp"]
    assert dump.stopped == "incomplete"


def _captured(function, max_files: int = 1_000, max_bytes: int = 64 << 20) -> xla_dump.Dump:
    lowered = jax.jit(function).lower(jnp.ones(3))
    return xla_dump.captured(lambda: lowered.compile(compiler_options=xla_dump.options(xla_dump.TO_OUTPUT)),
                             max_files, max_bytes)


def test_a_dump_to_standard_output_reads_as_the_same_dump_in_a_folder(tmp_path):
    """Where a worker may write no file: the same passes, in the same order, with the same texts but for the names
    of the files (which XLA puts into each module's header)."""
    def function(x):
        return x * 3.0 - 1.0

    streamed = _captured(function)
    folder = xla_dump.new_folder(str(tmp_path))
    jax.jit(function).lower(jnp.ones(3)).compile(compiler_options=xla_dump.options(folder))
    written = xla_dump.read(folder, 1_000, 64 << 20)
    assert streamed.stopped is None and len(streamed.snapshots) > 10
    assert [(s.order, s.pipeline, s.after) for s in streamed.snapshots] == \
        [(s.order, s.pipeline, s.after) for s in written.snapshots]
    assert all(s.text.startswith("HloModule") and s.text.rstrip().endswith("}") for s in streamed.snapshots)


def test_a_dump_to_standard_output_keeps_to_its_byte_cap_and_leaves_the_output_as_it_was(capfd):
    first = _captured(lambda x: x * 5.0 + 2.0)
    capped = _captured(lambda x: x * 7.0 + 3.0, max_bytes=first.bytes_read // 3)
    assert 0 < len(capped.snapshots) < len(first.snapshots) and capped.stopped == "bytes"
    assert capped.bytes_read <= first.bytes_read // 3
    print("after the dump")
    assert capfd.readouterr().out == "after the dump\n"  # nothing of XLA's dump reached the process's output


def test_a_dump_to_standard_output_of_more_files_than_the_cap_stops_at_the_cap():
    dump = _captured(lambda x: x * 11.0 - 4.0, max_files=5)
    assert [s.order for s in dump.snapshots] == [0, 1, 2, 3, 4] and dump.stopped == "files"
