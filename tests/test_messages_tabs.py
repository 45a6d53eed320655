"""The other tabs' status lines, the queue lines and the error lessons in German and Chinese (English unchanged)."""

from __future__ import annotations

import re
import string

import pytest

from playground import messages
from playground.messages import numbers
from playground.server.pools import reply
from playground.server.ui import (
    compiler_views,
    derivatives_views,
    inspect_views,
    jit_tab,
    parallel_tab,
    parallel_views,
    progress,
    vmap_views,
)
from playground.server.ui.error_views import error_markdown
from playground.server.ui.markdown import verdict
from playground.worker.jobs import inspect as staging

# The English texts the pages show while a job runs, and the Jacobian table's last paragraph.
RUNNING_VMAP = verdict("busy") + " Checking a Python loop, vmap and jit(vmap) against each other, then timing them…"
RUNNING_ORDERS = (verdict("busy") + " Differentiating… A function whose Python `if` or `while` reads x cannot "
                  "be traced by `jit` and `vmap`; it is then differentiated point by point without jit, which takes "
                  "longer.")
FORWARD_REVERSE = ("**Forward or reverse?** `jacfwd` pushes one tangent per *input* through the function, `jacrev` "
                   "pulls one cotangent per *output* back: for a wide Jacobian (few outputs, many inputs) reverse "
                   "mode wins, for a tall one (many outputs, few inputs) forward mode does.")
QUEUED = {"ok": True, "done": False, "phase": "queued", "shared": True,
          "queue": {"position": 2, "running": 2, "workers": 2, "wait_s": 1.3}}
CACHED = {"cache": {"hit": True, "shared": False, "measured_at": "2026-12-01T17:52:03.120Z", "age_s": 95.0}}


@pytest.mark.parametrize(("language", "queued", "cached"), [
    ("en", "An identical job (someone else pressed Run on the same input) is waiting for a worker: **number 2 in "
           "line**, about **1.3 s** (2 of 2 workers busy). Its result will be yours too.",
     "Served from the cache: an identical job ran at 17:52:03 UTC (2 min ago); these are its results and timings, "
     "measured then."),
    ("de", "Ein identischer Job (jemand anderes hat mit derselben Eingabe auf Ausführen gedrückt) wartet auf einen "
           "Worker: **Platz 2 in der Schlange**, etwa **1,3 s** (2 von 2 Workern belegt). Sein Ergebnis ist auch "
           "deins.",
     "Aus dem Cache: Ein identischer Job lief um 17:52:03 UTC (vor 2 min); das sind seine Ergebnisse und Zeiten, "
     "damals gemessen."),
    ("zh", "一个相同的作业（别人用同样的输入点了运行）正在等待工作进程：**排在第 2 位**，大约 **1.3 秒**"
           "（2 个工作进程中 2 个忙碌）。它的结果也会是你的结果。",
     "来自缓存：一个相同的作业在 17:52:03 UTC 运行过（2 分钟前）；这些是它当时测得的结果和耗时。"),
])
def test_the_queue_line_and_the_cache_note_in_each_language(language, queued, cached):
    assert progress.progress_markdown(QUEUED, language) == queued
    assert progress.cache_note(CACHED, language) == cached
    no_estimate = {**QUEUED, "shared": False, "queue": {**QUEUED["queue"], "wait_s": None, "workers": 1}}
    assert progress.progress_markdown(no_estimate, language) != progress.progress_markdown(no_estimate)  \
        or language == "en"


def test_progress_follows_in_the_readers_language():
    steps = list(progress.follow(iter([QUEUED, {"ok": True}]), lambda r: ("done",), 1, language="de"))
    assert steps[0][0]["value"].startswith("Ein identischer Job") and steps[1] == ("done",)


def test_the_vmap_status_in_german_and_chinese():
    assert vmap_views.running() == RUNNING_VMAP
    german = vmap_views.agreement("f", [1, 10, 1000], [1, 10, 312], "de")
    assert german.startswith(f"{verdict('ok', 'de')} Python-Schleife, vmap und jit(vmap) stimmen für `f` bei jedem "
                             "Beispiel überein, bei den Batch-Größen 1 und 10.")
    assert "nach 312 Beispielen an ihrem Zeitlimit aufgehört" in german and "die anderen 688" in german
    chinese = vmap_views.agreement("f", [1, 10, 100], [1, 10, 100], "zh")
    assert chinese == (f"{verdict('ok', 'zh')} 在批大小 1、10 和 100 下，Python 循环、vmap 和 jit(vmap) 对 `f` "
                       "的每个样本结果都一致。")
    bad = {"ok": True, "equal": False, "max_abs_diff": 0.5, "batch_sizes": [1, 10], "checked_examples": [1]}
    assert vmap_views.render(bad, "de")[0] == (f"{verdict('error', 'de')} Die drei Wege stimmen nicht überein bei "
                                              "Batch-Größe 1 (größte Abweichung 0,5), deshalb wird keine Zeit gezeigt: "
                                              "Eine mit vmap gebatchte Funktion muss jedes Beispiel unabhängig "
                                              "berechnen.")
    assert vmap_views.render(bad, "zh")[0].startswith(f"{verdict('error', 'zh')} 三种方式的结果不一致（批大小 1）")


VMAP_DONE = {"ok": True, "equal": True, "function": "f", "batch_sizes": [1, 1000, 10000],
             "checked_examples": [1, 1000, 10000], "loop_s": [1e-3, 0.9, 5.537], "vmap_s": [1e-4, 2e-4, 1e-3],
             "jit_vmap_s": [9.01e-6, 1e-4, 4.1e-4], "device": "cpu"}


@pytest.mark.parametrize(("language", "head", "row", "sizes"), [
    ("de", "| Batch-Größe | Python-Schleife | vmap | jit(vmap) | vmap gegen Python-Schleife | jit(vmap) gegen "
           "Python-Schleife |", "| 10.000 | 5,54\N{NO-BREAK SPACE}s | 1\N{NO-BREAK SPACE}ms | "
           "410\N{NO-BREAK SPACE}µs | 5.537× | 13.505× |", "1, 1.000 und 10.000"),
    ("zh", "| 批大小 | Python 循环 | vmap | jit(vmap) | vmap 相对 Python 循环 | jit(vmap) 相对 Python 循环 |",
     "| 10,000 | 5.54\N{NO-BREAK SPACE}s | 1\N{NO-BREAK SPACE}ms | 410\N{NO-BREAK SPACE}µs | 5,537× | 13,505× |",
     "1、1,000 和 10,000"),
])
def test_the_vmap_table_and_status_write_their_heads_and_numbers_in_the_readers_language(language, head, row, sizes):
    status, _, _, chart, table = vmap_views.render(VMAP_DONE, language)
    lines = table.splitlines()
    assert lines[0] == head and lines[-1] == row
    assert sizes in status
    assert chart.layout.separators == numbers.plotly_separators(language)


def test_the_jit_tabs_status_table_and_compile_times_in_german_and_chinese():
    assert jit_tab.running([10, 300, 3000], 5, "de").endswith("bei n = 10, 300 und 3.000…")
    assert jit_tab.running([10, 300, 3000], 5, "zh").endswith("n = 10、300 和 3,000…")
    reply = {"ok": True, "device": "cpu", "sizes": [10, 3000], "checked_sizes": [10, 3000],
             "numpy_checked_sizes": [10, 3000], "numpy_unavailable": None, "numpy_s": [1e-6, 5.54e-3],
             "eager_s": [3e-5, 9e-3], "jit_s": [2.44e-6, 9.01e-6], "compile_s": [0.0123, 1.5], "jaxpr_ops": 5,
             "fused_kernels": 1}
    status, chart, table, why = jit_tab.render(reply, "de")
    assert "(n = 10, 3.000)" in status and chart.layout.separators == ",."
    assert table.splitlines()[0] == "| n | NumPy | eager JAX | jit | eager JAX gegen NumPy | jit gegen NumPy |"
    assert table.splitlines()[3] == ("| 3.000 | 5,54\N{NO-BREAK SPACE}ms | 9\N{NO-BREAK SPACE}ms | "
                                     "9,01\N{NO-BREAK SPACE}µs | 0,62× | 615× |")
    assert "n = 3.000: 1,5 s" in table and "(0,41×)" in why
    assert "| 3,000 | 5.54\N{NO-BREAK SPACE}ms |" in jit_tab.render(reply, "zh")[2]


@pytest.mark.parametrize(("language", "closed", "finite"), [
    ("de", "geschlossene Form", "finite Differenzen"), ("zh", "解析式", "有限差分")])
def test_what_a_derivative_was_checked_against_is_said_in_the_readers_language(language, closed, finite):
    response = {"ok": True, "function": "f", "xs": [0.0, 1.0], "eqn_counts": [3, 1234], "hlo_op_counts": [2, 5],
                "orders": [{"n": 0, "ys": [0, 1], "reference": None, "max_error": None},
                           {"n": 1, "ys": [1, 1], "reference": "closed form", "max_error": 1.25e-7},
                           {"n": 2, "ys": [0, 0], "reference": "finite differences", "max_error": 0.0034}],
                "left_out": [], "breaks": {"checks": [], "jumps": [], "jumps_found": 0}}
    table = derivatives_views.render_orders(response, language)[2]
    assert f"| {closed} | " in table and f"| {finite} | " in table and "closed form" not in table
    assert ("1,25e-07" if language == "de" else "1.25e-07") in table
    assert ("| 1.234 |" if language == "de" else "| 1,234 |") in table


def test_inspects_stages_cost_and_memory_in_german_and_chinese():
    response = {"trace_s": 0.0123, "lower_s": 0.004, "compile_s": 1.5, "run_s": 0.00005,
                "cost": {"flops": 1_234_567.0, "bytes_accessed": 0.0, "transcendentals": None,
                         "unavailable": {"transcendentals": "the cpu backend did not report transcendentals"}},
                "memory": {"argument_bytes": 16, "output_bytes": 4096, "temp_bytes": 0, "generated_code_bytes": 1}}
    german = inspect_views.stages_markdown(response, "de")
    assert "#### Stufen\n| Stufe | Zeit |" in german and "| Kompilieren (StableHLO -> optimiertes HLO) | 1.500,0 ms |" \
        in german
    assert "| FLOPs | 1.234.567 |" in german and "| Ausgaben | 4.096 B |" in german
    assert "nicht angegeben: the cpu backend did not report transcendentals" in german  # XLA's reason as it came
    assert "| 读写的字节数 | 0 |" in inspect_views.stages_markdown(response, "zh")
    status = inspect_views.status_markdown({"function": "f", "device": "cpu"}, "de")
    assert "Tracing, Übersetzung nach StableHLO und Kompilierung von `f` für cpu abgeschlossen." in status
    panes = inspect_views.source_ir_html("def f(x):\n    return x", {"jaxpr": "a\nb", "line_map": {"jaxpr": [2, 2]}},
                                         "de")
    assert "<b>Dein Code</b>" in panes and 'title="aus Zeile 2"' in panes
    pytrees = inspect_views.pytree_markdown({side: {"treedef": "*", "leaves": [{"key_path": "", "shape": [3],
                                                                                 "dtype": "float32"}]}
                                             for side in ("inputs", "outputs")}, "zh")
    assert pytrees.startswith("#### 输入") and "#### 输出" in pytrees and "| `（根）` | [3] | float32 |" in pytrees


def test_german_names_the_compiler_stages_in_german_words():
    """JAX's lowering is "nach StableHLO übersetzen" in German, and tracing "Tracing": never "lowern", "gelowert"
    or "tract"."""
    made_up = re.compile(r"\b(ge)?lower(n|t|te[nrs]?)\b|\btract\b", re.IGNORECASE)
    found = {key: made_up.findall(texts["de"]) for key, texts in messages.CATALOGUE.items()
             if "de" in texts and made_up.search(texts["de"])}
    assert found == {}


POINT_BY_POINT = {"ok": True, "function": "f", "orders": [{"n": 0, "ys": [0]}, {"n": 1, "ys": [0]}], "xs": [0.0],
                  "dtype": "float32", "point_by_point": {"points": 3, "grid_points": 5, "seconds": 2.0,
                                                         "budget_s": 30, "reason": "Python `if` reads x",
                                                         "at": {"line": None, "source": "", "parameter": None,
                                                                "exception": "TracerBoolConversionError"}}}
GRADIENT = {"ok": True, "value": None, "gradient": [1.0], "hessian": [[1.0]],
            "jacobians": {"J": {"shape": [2, 3], "jacfwd_s": 1e-3, "jacrev_s": 2e-3}}}


def test_the_derivatives_status_in_german_and_chinese():
    branching = "def f(x):\n    if x > 0:\n        return x\n    return -x\n"
    assert derivatives_views.running_orders("en", branching) == RUNNING_ORDERS
    assert derivatives_views.running_orders("en", "def f(x):\n    return jnp.sin(2 * x) / 2\n") == (
        verdict("busy") + " Differentiating…")  # no Python branch: no word of one
    assert derivatives_views.running_orders("en", "f = lambda x: x if x > 0 else -x\n") == RUNNING_ORDERS
    german = derivatives_views.point_by_point_status(POINT_BY_POINT, "de")
    assert german.startswith(f"{verdict('ok', 'de')} `f`: Ableitungen bis zur Ordnung 1 an 3 von 5 Gitterpunkten, "
                             "Punkt für Punkt ohne jit, in float32.")
    assert (f"{verdict('warning', 'de')} `jit(vmap(grad))` konnte `f` nicht tracen: eine seiner Zeilen braucht den "
            "Wert seiner Eingabe (`TracerBoolConversionError`)") in german  # the reason's facts, in German words
    assert "Es hat aufgehört, bevor seine 30 s dafür abgelaufen waren" in german
    assert derivatives_views.point_by_point_status(POINT_BY_POINT, "zh").startswith(
        f"{verdict('ok', 'zh')} `f`：在 5 个网格点中的 3 个上求了最高 1 阶的导数")
    assert derivatives_views.pick_jaxpr({"jaxprs": ["a", "b"]}, 1, "de") == "# f′: grad 1-mal angewendet\nb"
    status, _, table = derivatives_views.render_gradient(GRADIENT, "de")
    assert status == f"{verdict('ok', 'de')} f = inf oder nan; ∇f = [1]"
    assert table.startswith("**jacfwd gegen jacrev**, gemessen an `x ↦ tanh(W @ x)`, nicht an deinem f")
    assert "\n| Jacobi-Matrix | Shape (Ausgaben × Eingaben) | jacfwd | jacrev |\n" in table
    assert "**Vorwärts oder rückwärts?**" in table
    assert "**前向还是反向？**" in derivatives_views.render_gradient(GRADIENT, "zh")[2]
    assert derivatives_views.render_gradient(GRADIENT)[2].endswith(FORWARD_REVERSE)


SHARD = {"ok": True, "n_devices": 8, "matches_unsharded": True, "max_abs_diff": 2.4e-06, "tolerance": 4.2e-05,
         "mismatch": None, "rounding": {"scale": 2.0, "relative": 1e-7, "terms": 3, "inputs_moved": True},
         "placement": [[{"index": [[0, 4]], "device": 0}, {"index": [[4, 8]], "device": 1}]], "shapes": [[8]],
         "mesh": {"devices": [0, 1], "axis_names": ["x"], "shape": [2]}, "result": "[1 2]", "collectives": []}


def test_the_parallel_verdict_and_details_in_german_and_chinese():
    verdict_de, grids, details = parallel_tab.render_shard(SHARD, "de")
    assert verdict_de == (f"{verdict('ok', 'de')} Auf 8 Geräten ist das Ergebnis bis auf Rundung gleich dem auf "
                          "einem einzelnen Gerät: größte Abweichung 2,4e-06, Toleranz 4,2e-05.")
    assert "<b>Gerät 0</b>" in grids and "Eingabe 0: Shape (8,)" in grids
    assert "**Toleranz** 4,2e-05 = 4 × ρ × Skala" in details and "| Gerät 0 | Gerät 1 |" in details
    assert "keine: Kein Gerät braucht Daten von einem anderen" in details
    differs = {**SHARD, "matches_unsharded": False, "max_abs_diff": None, "mismatch": "shape (8,) vs (4,)"}
    assert parallel_views.verdict_markdown(differs, "zh") == (
        f"{verdict('differs', 'zh')} 在 8 个设备上，结果与单设备结果**不同**（差值不是有限数，容差 4.2e-05）："
        "shape (8,) vs (4,)。")
    assert parallel_tab.render_shard(SHARD)[0] == parallel_views.verdict_markdown(SHARD)  # English as before


PASSES = {"counts": {"passes": 40, "pipelines": 3, "changed": 12, "unchanged": 28}, "function": "f", "device": "cpu",
          "exhaustive": True, "notices": [], **CACHED}
COMPARE_VARIANT = {"label": "l", "what": "fusion off", "kernels": 2, "hlo_instructions": 3, "jaxpr_equations": 4,
                   "cost": {}, "memory": {}, "compile_s": 0.1, "run": None}


def test_the_compiler_texts_in_german_and_chinese():
    assert compiler_views.passes_status(PASSES, "de").startswith(
        f"{verdict('ok', 'de')} 40 Passes in 3 Pipelines haben `f` für cpu kompiliert: **12 haben das Modul "
        "verändert**, 28 haben seinen Text gelassen, wie er war (XLA hat das Modul nach jedem Pass ausgegeben).\n"
        "- Aus dem Cache:")
    assert compiler_views.passes_status(PASSES, "zh").startswith(
        f"{verdict('ok', 'zh')} 3 个 pipeline 中的 40 个 pass 为 cpu 编译了 `f`：**12 个改变了模块**")
    record = {"index": 7, "name": "fusion", "pipeline": "p", "nested": False, "changed": True}
    assert compiler_views.pass_choice(record, "de") == "#7 fusion (p): verändert"
    response = {"variants": [COMPARE_VARIANT, COMPARE_VARIANT], "b_over_a": 1.5, "same_result": False,
                "max_abs_diff": 0.25, "device": "cpu", "notes": []}
    table = compiler_views.compare_table(response, "de")
    assert table.startswith(f"{verdict('ok', 'de')} Verglichen auf **cpu**. B: fusion off\n- Ergebnisse: "
                            "**verschieden**, höchstens 0,25 auseinander.\n- Der Median-Lauf von B brauchte das "
                            "**1,50×** von A")
    assert "| Laufzeit (Median, Interquartilsabstand, Läufe) | nicht gelaufen | nicht gelaufen |" in table
    assert "| flops（XLA 的估计） | 未报告 | 未报告 |" in compiler_views.compare_table(response, "zh")
    assert "| run time (median, interquartile range, runs) | not run | not run |" in \
        compiler_views.compare_table(response)


def _lesson_error(code: str, args: str) -> dict:
    """A lesson's error as the server has it: the worker's reply, after the server checked it."""
    response = staging.inspect(code, args, 100_000)
    assert not response["ok"], response
    return reply.validated(response, "inspect")["error"]


def test_an_array_lesson_is_explained_and_fixed_in_german_and_chinese():
    error = _lesson_error("def f(x):\n    x[0] = 1.0\n    return x\n", "jnp.zeros(3)")
    assert set(error["words"]) == {"title", "explanation", "fix"}
    german = error_markdown(error, "de")
    assert german.startswith(f"{verdict('error', 'de')} **TypeError: JAX-Arrays lassen sich nicht an Ort und Stelle "
                             "ändern in Zeile 2**")
    assert "Ein JAX-Array ändert sich nie, wenn es einmal erzeugt ist" in german
    assert "**So behebst du es:** Zeile 2 (`x[0] = 1.0`) weist in ein Array hinein zu." in german
    assert "x = x.at[0].set(1.0)" in german and german.endswith(f"```\n{error['message']}\n```")
    chinese = error_markdown(error, "zh")
    assert "JAX 数组不能原地修改（第 2 行）" in chinese and "第 2 行（`x[0] = 1.0`）对数组的元素赋值" in chinese
    english = error_markdown(error)
    assert "JAX arrays cannot be changed in place" in english and "Line 2 (`x[0] = 1.0`) assigns into" in english


def test_a_lessons_placeholders_are_filled_in_every_language():
    error = _lesson_error("def f(x):\n    return lax.add(x, 1)\n", "jnp.ones(3)")
    assert "`lax.add` hat float32 und int32 bekommen" in error_markdown(error, "de")
    assert "`lax.add` 收到了 float32 和 int32" in error_markdown(error, "zh")


def test_a_shape_lesson_has_its_title_and_explanation_translated():
    error = _lesson_error("def f(x):\n    return x @ jnp.ones((4, 2))\n", "jnp.ones((2, 3))")
    german = error_markdown(error, "de")
    assert "die Shapes passen für ein Matrixprodukt nicht zusammen" in german and "hier sind sie 3 und 4" in german
    assert "这两个 shape 对不上，无法做矩阵乘法" in error_markdown(error, "zh")


NEW_FAMILIES = ("lesson.", "lfix.", "progress.", "vmap.", "deriv.", "par.", "comp.", "list.")
SAME_IN_GERMAN = {"list.comma", "par.mesh", "par.numbers", "par.mismatch", "comp.pass_in", "lfix.shape.stop"}


@pytest.mark.parametrize("key", sorted(k for k in messages.CATALOGUE if k.startswith(NEW_FAMILIES)))
def test_every_new_message_is_written_in_german_and_chinese(key):
    """(test_messages checks that every key has all three languages with the same placeholders.)"""
    names = {name for _, name, _, _ in string.Formatter().parse(messages.CATALOGUE[key]["en"]) if name is not None}
    texts = {language: messages.say(key, language, **dict.fromkeys(names, "X")) for language in messages.LANGUAGES}
    assert texts["de"] != texts["en"] or key in SAME_IN_GERMAN, key
    assert texts["zh"] != texts["en"] or key in {"list.comma", "par.mesh"} or key.startswith("lfix.lax.conv"), key


def test_the_sandboxs_words_before_an_exception_in_german_and_chinese():
    import errno

    from playground.worker.lessons.user_errors import error_result

    memory = reply.validated(error_result(MemoryError("boom")), "inspect")["error"]
    assert memory["message"] == "Out of memory: the sandbox gives each job a fixed amount of memory. MemoryError: boom"
    assert error_markdown(memory, "de") == (f"{verdict('error', 'de')} **Kein Speicher mehr**\n\nKein Speicher mehr: "
                                            "Die Sandbox gibt jedem Job eine feste Menge Speicher.\n\n```\n"
                                            "MemoryError: boom\n```")
    assert error_markdown(memory).endswith(f"```\n{memory['message']}\n```")  # English: as the API says it
    blocked = reply.validated(error_result(PermissionError(errno.EPERM, "Operation not permitted")), "x")["error"]
    assert "被沙箱阻止（不允许创建进程" in error_markdown(blocked, "zh")
    forged = {**memory, "words": {"prefix": [["prefix.memory", {"x": ["no.such.key", {}]}]]}}
    assert error_markdown(forged, "de").endswith(f"```\n{memory['message']}\n```")  # unusable pieces: English kept


def test_every_taught_lessons_pieces_survive_the_servers_check():
    """A worker's pieces hold only strings (pools/reply.py drops others): every lesson case keeps its words."""
    from tests.test_error_lessons import CASES

    for name, case in CASES.items():
        raw = staging.inspect(case.code, case.args, 100_000)["error"]
        checked = reply.validated({"ok": False, "error": raw}, "inspect")["error"]
        assert set(checked.get("words", {})) == set(raw.get("words", {})) >= {"title", "explanation"}, name
        assert error_markdown(checked, "de") != error_markdown(checked), name


def test_a_transform_lessons_fix_in_german_and_chinese():
    error = _lesson_error("def f(x):\n    return jax.grad(lambda y: (y * y).sum())(x)\n", "jnp.arange(3)")
    german = error_markdown(error, "de")
    assert "Ableitungen werden an Floats genommen, nicht an ganzen Zahlen" in german
    assert "leitet an einem ganzzahligen Array ab. Wandle es um: `x.astype(jnp.float32)`" in german
    assert "在整数数组处求导" in error_markdown(error, "zh")
