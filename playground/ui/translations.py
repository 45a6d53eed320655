"""The static UI's words in English, German and Simplified Chinese, and the ``gr.I18n`` that carries them.

Labels, placeholders, buttons, tab names and the tabs' descriptions are written
as ``t(key)``: a marker that Gradio's frontend replaces with the text in the
browser's language (its ``navigator.language``: "de-DE" finds "de", "zh-CN"
finds "zh-CN"), or in the one picked under the footer's Settings > Language.
What the server writes after a run (statuses, errors) is playground/messages'.

German speaks to the reader as "du"; both keep JAX's terms in English where
German and Chinese JAX material does (jit, vmap, grad, jaxpr, tracer, pytree,
sharding, mesh, StableHLO, HLO, XLA, pass, fusion, kernel, batch).

    >>> t("pg.tab.train")
    '__i18n__{"__type__": "translation_metadata", "key": "pg.tab.train"}'
    >>> text("pg.tab.train", "de"), text("pg.tab.train", "zh-CN")
    ('Training', '训练')
"""

from __future__ import annotations

import json
from collections.abc import Callable

import gradio as gr

_MARKER = "__i18n__"  # how gr.I18nData writes itself into a string (gradio/i18n.py)
LOCALES = ("en", "de", "zh-CN")  # Gradio's own codes: a "zh-CN" browser gets "zh-CN", a "de-AT" one "de"

# key -> (English, German, Simplified Chinese). Keys start with "pg." so that none names one of Gradio's own
# groups of texts ("plot", "file", "radio", ...): such a key would show as "[object Object]".
CATALOGUE: dict[str, tuple[str, str, str]] = {
    # The page and its tabs
    "pg.app.local_mode": (
        "**Local mode: your code runs on your machine with process isolation only — do not expose it publicly.**",
        "**Lokaler Modus: Dein Code läuft auf deinem Rechner, nur durch Prozesse getrennt — mach ihn nicht "
        "öffentlich erreichbar.**",
        "**本地模式：你的代码在你自己的电脑上运行，仅靠进程隔离——不要把它公开暴露。**"),
    "pg.app.intro_local": (
        "# JAX Playground\nWrite a small pure function and see what JAX makes of it. "
        "Your code runs in a fresh Python process of its own, never in this server.",
        "# JAX Playground\nSchreib eine kleine reine Funktion und sieh dir an, was JAX daraus macht. "
        "Dein Code läuft in einem eigenen, frischen Python-Prozess, nie in diesem Server.",
        "# JAX Playground\n写一个小小的纯函数，看看 JAX 会把它变成什么。"
        "你的代码运行在一个全新的独立 Python 进程中，绝不会在本服务器进程里运行。"),
    "pg.app.intro": (
        "# JAX Playground\nWrite a small pure function and see what JAX makes of it. "
        "Your code runs in a locked-down sandbox process, never in this server.",
        "# JAX Playground\nSchreib eine kleine reine Funktion und sieh dir an, was JAX daraus macht. "
        "Dein Code läuft in einem abgeschotteten Sandbox-Prozess, nie in diesem Server.",
        "# JAX Playground\n写一个小小的纯函数，看看 JAX 会把它变成什么。"
        "你的代码运行在一个受严格限制的沙箱进程中，绝不会在本服务器进程里运行。"),
    "pg.tab.inspect": ("Inspect", "Untersuchen", "检查"),
    "pg.tab.compiler": ("Compiler", "Compiler", "编译器"),
    "pg.tab.derivatives": ("Derivatives", "Ableitungen", "导数"),
    "pg.tab.parallel": ("Parallel", "Parallel", "并行"),
    "pg.tab.train": ("Train", "Training", "训练"),
    "pg.tab.about": ("About", "Über", "关于"),
    # Fields several tabs share
    "pg.field.function": ("Your function (f, or the last one made or defined)",
                          "Deine Funktion (f oder die zuletzt erzeugte oder definierte)",
                          "你的函数（f，或最后得到或定义的那个）"),
    "pg.field.arguments": ("Arguments (a Python expression; a tuple gives several)",
                           "Argumente (ein Python-Ausdruck; ein Tupel übergibt mehrere)",
                           "参数（一个 Python 表达式；元组可传入多个参数）"),
    "pg.field.in_scope": ("jax, jnp, np and lax are in scope", "jax, jnp, np und lax stehen bereit",
                          "可直接使用 jax、jnp、np 和 lax"),
    "pg.field.static_example": ("e.g. 1, or 0, 2", "z. B. 1 oder 0, 2", "例如 1，或 0, 2"),
    "pg.field.on_accelerator": ("Compile for the accelerator", "Für den Beschleuniger kompilieren",
                                "为加速器编译"),
    "pg.field.examples": ("Examples", "Beispiele", "示例"),
    "pg.field.preset": ("Preset", "Vorlage", "预设"),
    "pg.field.compare": ("Compare", "Vergleichen", "对比"),
    "pg.field.optimised_hlo": ("Optimised HLO", "Optimiertes HLO", "优化后的 HLO"),
    "pg.field.x_cubed_intro": ("x + x² + x³ (JAX's introduction)", "x + x² + x³ (aus der JAX-Einführung)",
                               "x + x² + x³（JAX 入门示例）"),
    # Inspect
    "pg.inspect.accelerator_info": ("XLA optimises differently for a GPU or TPU: other fusions, other kernels",
                                    "Für eine GPU oder TPU optimiert XLA anders: andere Fusionen, andere Kernels",
                                    "XLA 针对 GPU 或 TPU 的优化方式不同：不同的 fusion，不同的 kernel"),
    "pg.inspect.second": ("Call again with (optional): does jit retrace?",
                          "Noch einmal aufrufen mit (optional): Kommt es bei jit zu einem Retracing?",
                          "再次调用时的参数（可选）：jit 会重新 trace 吗？"),
    "pg.field.static_info": (
        "Arguments jit treats as constants (by position): each new value compiles anew. For Python numbers, "
        "strings, shapes.",
        "Argumente, die jit als Konstanten behandelt (nach Position): Jeder neue Wert wird neu kompiliert. Für "
        "Python-Zahlen, Strings, Shapes.",
        "jit 当作常量的参数（按位置）：每个新值都会重新编译。适用于 Python 数字、字符串、shape。"),
    "pg.inspect.second_info": (
        "Other arguments for a second call of the jitted function: the status then says whether jit traced and "
        "compiled again (it does when a shape or dtype changes).",
        "Andere Argumente für einen zweiten Aufruf der gejitteten Funktion: Der Status sagt dann, ob jit neu getract "
        "und kompiliert hat (das tut es, wenn sich eine Shape oder ein dtype ändert).",
        "第二次调用被 jit 的函数时使用的其他参数：状态栏会说明 jit 是否重新 trace 并编译（shape 或 dtype 变化时会）。"),
    "pg.glossary.title": ("Glossary: jaxpr, StableHLO, optimised HLO, static_argnums",
                          "Glossar: jaxpr, StableHLO, optimiertes HLO, static_argnums",
                          "术语表：jaxpr、StableHLO、优化后的 HLO、static_argnums"),
    "pg.glossary.body": (
        "**jaxpr**: JAX's own form of your function, traced from the Python: one primitive operation per line, on "
        "typed arrays (`f32[3]` is three float32 numbers).  \n"
        "**StableHLO**: the jaxpr lowered to the MLIR dialect that compilers read: the same program, not yet "
        "optimised.  \n"
        "**Optimised HLO**: what XLA made of it for this device: operations fused into kernels, constants folded. "
        "This is the program that runs.  \n"
        "**static_argnums**: arguments that jit bakes into the program as constants instead of tracing them; a new "
        "value means a new compilation.  \n"
        "**Call again with**: a second call with other arguments shows whether jit reuses the compiled program or "
        "traces again.",
        "**jaxpr**: JAX' eigene Form deiner Funktion, aus dem Python getract: eine primitive Operation pro Zeile, auf "
        "typisierten Arrays (`f32[3]` sind drei float32-Zahlen).  \n"
        "**StableHLO**: der jaxpr, gelowert in den MLIR-Dialekt, den Compiler lesen: dasselbe Programm, noch nicht "
        "optimiert.  \n"
        "**Optimiertes HLO**: was XLA daraus für dieses Gerät gemacht hat: Operationen zu Kernels fusioniert, "
        "Konstanten ausgerechnet. Das ist das Programm, das läuft.  \n"
        "**static_argnums**: Argumente, die jit als Konstanten ins Programm einbaut, statt sie zu tracen; ein neuer "
        "Wert bedeutet eine neue Kompilierung.  \n"
        "**Noch einmal aufrufen mit**: Ein zweiter Aufruf mit anderen Argumenten zeigt, ob jit das kompilierte "
        "Programm wiederverwendet oder neu tract.",
        "**jaxpr**：JAX 自己的函数表示，由 Python 代码 trace 而来：每行一个基本运算，作用于带类型的数组（`f32[3]` "
        "是三个 float32 数）。  \n"
        "**StableHLO**：jaxpr 降级为编译器读取的 MLIR 方言：同一个程序，尚未优化。  \n"
        "**优化后的 HLO**：XLA 为这个设备生成的结果：运算被融合成 kernel，常量被折叠。这才是实际运行的程序。  \n"
        "**static_argnums**：jit 作为常量写进程序、而不是 trace 的参数；值一变就要重新编译。  \n"
        "**再次调用**：用其他参数再调用一次，可以看出 jit 是复用已编译的程序还是重新 trace。"),
    "pg.inspect.second_example": ("e.g. jnp.arange(5.0)", "z. B. jnp.arange(5.0)", "例如 jnp.arange(5.0)"),
    "pg.inspect.run": ("Run", "Ausführen", "运行"),
    "pg.hint.run": ("Nothing has run yet: press the button above<span class='pg-keys'> (or Ctrl+Enter)</span> and "
                    "the result appears here.",
                    "Noch nichts ausgeführt: Drück den Knopf oben<span class='pg-keys'> (oder Strg+Enter)</span>, "
                    "dann erscheint das Ergebnis hier.",
                    "尚未运行：点击上方的按钮<span class='pg-keys'>（或按 Ctrl+Enter）</span>，结果会显示在这里。"),
    "pg.hint.example": ("Example loaded: running it…", "Beispiel geladen: wird ausgeführt…", "示例已载入：正在运行…"),
    "pg.hint.preset": ("Preset loaded: press the button above<span class='pg-keys'> (or Ctrl+Enter)</span> to run "
                       "it.",
                       "Vorlage geladen: Drück den Knopf oben<span class='pg-keys'> (oder Strg+Enter)</span>, um sie "
                       "auszuführen.",
                       "预设已载入：点击上方的按钮<span class='pg-keys'>（或按 Ctrl+Enter）</span>来运行它。"),
    "pg.hint.train": ("Nothing trained yet: press Start.", "Noch nichts trainiert: Drück auf Starten.",
                      "尚未训练：点击“开始”。"),
    "pg.inspect.result": ("Result", "Ergebnis", "结果"),
    "pg.inspect.source_ir": ("Source ↔ IR", "Quelltext ↔ IR", "源码 ↔ IR"),
    "pg.inspect.jaxpr": ("jaxpr: the program JAX traced", "jaxpr: das Programm, das JAX beim Tracing aufgezeichnet hat",
                         "jaxpr：JAX trace 得到的程序"),
    "pg.inspect.stablehlo": ("StableHLO: what jit hands to XLA", "StableHLO: was jit an XLA übergibt",
                             "StableHLO：jit 交给 XLA 的程序"),
    "pg.inspect.hlo": ("HLO after XLA's optimisations (note the fusions)",
                       "HLO nach den Optimierungen von XLA (achte auf die Fusionen)",
                       "经过 XLA 优化后的 HLO（注意其中的 fusion）"),
    "pg.inspect.locations": ("Source-location tables (what stack_frame_id refers to)",
                             "Tabellen der Quellpositionen (worauf stack_frame_id verweist)",
                             "源码位置表（stack_frame_id 所指向的内容）"),
    "pg.inspect.costs": ("Cost & timing", "Kosten & Zeiten", "开销与计时"),
    "pg.inspect.pytrees": ("Pytrees", "Pytrees", "Pytree"),
    "pg.inspect.stdout": ("Output (what your code printed)", "Ausgabe (was dein Code ausgegeben hat)",
                          "输出（你的代码打印的内容）"),
    "pg.inspect.files": ("Whole texts", "Vollständige Texte", "完整文本"),
    "pg.inspect.api_response": ("API response (JSON)", "API-Antwort (JSON)", "API 响应（JSON）"),
    "pg.inspect.returned": ("/inspect returned", "Antwort von /inspect", "/inspect 的返回值"),
    # Inspect's and the Compiler's examples (gallery.py), by their English names
    "pg.example.mlp_pytree": ("MLP with a params dict (a pytree)", "MLP mit einem params-Dict (ein Pytree)",
                              "带 params 字典的 MLP（一个 pytree）"),
    "pg.example.python_if": ("Python if on a traced value (an error)",
                             "Python-if auf einem getracten Wert (ein Fehler)",
                             "对被 trace 的值使用 Python if（会报错）"),
    "pg.example.cond": ("lax.cond instead of if", "lax.cond statt if", "用 lax.cond 代替 if"),
    "pg.example.scan": ("lax.scan: a running sum", "lax.scan: eine laufende Summe", "lax.scan：累加和"),
    "pg.example.prints": ("An impure function that prints", "Eine unreine Funktion, die etwas ausgibt",
                          "会打印输出的非纯函数"),
    "pg.example.unrolled": ("static_argnums: a Python loop unrolled",
                            "static_argnums: eine ausgerollte Python-Schleife",
                            "static_argnums：被展开的 Python 循环"),
    "pg.example.retrace": ("Retracing on a new shape", "Retracing bei einer neuen Shape", "新的形状触发重新 trace"),
    "pg.example.fusion": ("x + x² + x³ on 1000 × 1000 (fusion)", "x + x² + x³ auf 1000 × 1000 (Fusion)",
                          "1000 × 1000 上的 x + x² + x³（fusion）"),
    "pg.example.mlp_layer": ("MLP layer: dot + bias + relu", "MLP-Schicht: dot + bias + relu",
                             "MLP 层：dot + bias + relu"),
    # Compiler
    "pg.compiler.intro": (
        "### Watch the compiler work\nXLA fuses operations and saves memory traffic. See each of its passes "
        "change your program, the program as a graph with each fusion boxed, and two versions side by side.",
        "### Dem Compiler bei der Arbeit zusehen\nXLA fusioniert Operationen und spart so Speicherzugriffe. Sieh, "
        "wie jeder seiner Passes dein Programm verändert, das Programm als Graph mit jeder Fusion als Kasten, und "
        "zwei Versionen nebeneinander.",
        "### 看编译器如何工作\nXLA 会把多个运算融合（fusion）在一起，减少内存读写。在这里可以看到它的每个 pass "
        "如何改变你的程序、以图的形式呈现的程序（每个 fusion 都用方框圈出），以及并排对比的两个版本。"),
    "pg.compiler.passes": ("Passes", "Passes", "Pass"),
    "pg.compiler.graph": ("Graph", "Graph", "图"),
    "pg.compiler.show_passes": ("Show the passes", "Passes anzeigen", "显示各个 pass"),
    "pg.compiler.hide_unchanged": ("Hide passes that changed nothing", "Passes ohne Änderung ausblenden",
                                   "隐藏没有改动的 pass"),
    "pg.compiler.diff": ("Diff", "Diff", "差异"),
    "pg.compiler.side_by_side": ("side by side", "nebeneinander", "并排"),
    "pg.compiler.unified": ("unified", "untereinander", "合并"),
    "pg.compiler.pass_choice": ("Pass: its module before and after", "Pass: sein Modul vorher und nachher",
                                "Pass：该 pass 前后的模块"),
    "pg.compiler.draw": ("Draw the graphs", "Graphen zeichnen", "绘制图"),
    "pg.compiler.version_b": ("Version B", "Version B", "版本 B"),
    "pg.compiler.a_setting": ("the same function under a setting", "dieselbe Funktion mit einer Einstellung",
                              "同一个函数，换一种设置"),
    "pg.compiler.a_function": ("a second function", "eine zweite Funktion", "第二个函数"),
    "pg.compiler.setting": ("Setting", "Einstellung", "设置"),
    "pg.compiler.second": ("Second function (same arguments)", "Zweite Funktion (gleiche Argumente)",
                           "第二个函数（参数相同）"),
    # compiler_settings.SETTINGS: each name as the dropdown shows it, and its label
    "pg.setting.fusion: off": ("fusion: off", "fusion: aus", "fusion：关"),
    "pg.setting.cse: off": ("cse: off", "cse: aus", "cse：关"),
    "pg.setting.algsimp: off": ("algsimp: off", "algsimp: aus", "algsimp：关"),
    "pg.setting.x64: on": ("x64: on", "x64: an", "x64：开"),
    "pg.setting.donate: on": ("donate: on", "donate: an", "donate：开"),
    "pg.setting_label.fusion: off": ("fusion off", "Fusion aus", "关闭 fusion"),
    "pg.setting_label.cse: off": ("CSE off", "CSE aus", "关闭 CSE"),
    "pg.setting_label.algsimp: off": ("algebraic simplification off", "algebraische Vereinfachung aus",
                                      "关闭代数化简"),
    "pg.setting_label.x64: on": ("64-bit", "64 Bit", "64 位"),
    "pg.setting_label.donate: on": ("donated arguments", "Argumente mit Buffer-Donation", "参数缓冲区捐赠（donation）"),
    # Derivatives
    "pg.derivatives.intro": (
        "### f: ℝ → ℝ, differentiated again and again\nEach order is `grad` of the one before, evaluated "
        "over the grid with `jit(vmap(...))`, in float64, and checked against a reference. If Python control "
        "flow on x keeps `jit` and `vmap` from tracing f, `grad` runs at each point on its own, without jit.",
        "### f: ℝ → ℝ, wieder und wieder abgeleitet\nJede Ordnung ist `grad` der vorherigen, mit `jit(vmap(...))` "
        "auf dem Gitter ausgewertet, in float64, und mit einer Referenz verglichen. Hindert Python-Kontrollfluss "
        "auf x `jit` und `vmap` daran, f zu tracen, läuft `grad` an jedem Punkt einzeln, ohne jit.",
        "### f: ℝ → ℝ，一次又一次地求导\n每一阶都是前一阶的 `grad`，用 `jit(vmap(...))` 在网格上以 float64 "
        "求值，并与参考值核对。如果依赖 x 的 Python 控制流让 `jit` 和 `vmap` 无法 trace f，`grad` "
        "就会在每个点上单独运行，不经过 jit。"),
    "pg.derivatives.polynomial": ("polynomial", "Polynom", "多项式"),
    "pg.derivatives.scalar_f": ("f (scalar in, scalar out)", "f (Skalar rein, Skalar raus)", "f（输入标量，输出标量）"),
    "pg.derivatives.order": ("Highest order n", "Höchste Ordnung n", "最高阶数 n"),
    "pg.derivatives.x_min": ("x from", "x von", "x 起点"),
    "pg.derivatives.x_max": ("x to", "x bis", "x 终点"),
    "pg.derivatives.points": ("Grid points", "Gitterpunkte", "网格点数"),
    "pg.derivatives.run": ("Differentiate", "Ableiten", "求导"),
    "pg.derivatives.curves": ("f and its derivatives", "f und seine Ableitungen", "f 及其各阶导数"),
    "pg.derivatives.growth": ("Program size by order", "Programmgröße je Ordnung", "各阶的程序规模"),
    "pg.derivatives.jaxpr": ("The jaxpr of one order", "Das jaxpr einer Ordnung", "某一阶的 jaxpr"),
    "pg.derivatives.shown": ("Order to show", "Angezeigte Ordnung", "要显示的阶数"),
    "pg.derivatives.gradient_intro": ("### f: ℝⁿ → ℝ: gradient and Hessian", "### f: ℝⁿ → ℝ: Gradient und Hesse-Matrix",
                                      "### f: ℝⁿ → ℝ：梯度与 Hessian 矩阵"),
    "pg.derivatives.vector_f": ("f (vector in, scalar out)", "f (Vektor rein, Skalar raus)", "f（输入向量，输出标量）"),
    "pg.derivatives.point": ("At the point", "Am Punkt", "求值点"),
    "pg.derivatives.gradient_run": ("Gradient and Hessian", "Gradient und Hesse-Matrix", "梯度与 Hessian"),
    "pg.derivatives.hessian": ("Hessian", "Hesse-Matrix", "Hessian 矩阵"),
    # vmap
    "pg.vmap.intro": (
        "### Write it for one example, batch it with `jax.vmap`\nThe batch is built from your one example "
        "(stacked along `in_axes`, each copy slightly different); the three ways must agree before any "
        "time is shown.",
        "### Für ein Beispiel schreiben, mit `jax.vmap` zum Batch machen\nDer Batch entsteht aus deinem einen "
        "Beispiel (entlang `in_axes` gestapelt, jede Kopie leicht verändert); die drei Wege müssen übereinstimmen, "
        "bevor eine Zeit angezeigt wird.",
        "### 只为一个样本编写，用 `jax.vmap` 批处理\n批次由你给出的这一个样本构造（沿 `in_axes` 堆叠，"
        "每份副本略有不同）；三种方式的结果一致之后才会显示耗时。"),
    "pg.vmap.per_example_gradients": ("per-example gradients", "Gradienten pro Beispiel", "逐样本梯度"),
    "pg.vmap.batched_mlp": ("batched MLP predict", "MLP-predict für einen Batch", "批量 MLP predict"),
    "pg.vmap.function": ("Your function, for ONE example", "Deine Funktion, für EIN Beispiel",
                         "你的函数，只针对一个样本"),
    "pg.vmap.args": ("One example's arguments", "Argumente eines Beispiels", "单个样本的参数"),
    "pg.vmap.sizes": ("Batch sizes", "Batch-Größen", "批大小"),
    "pg.vmap.jaxpr": ("jaxpr for one example", "jaxpr für ein Beispiel", "单个样本的 jaxpr"),
    "pg.vmap.batched": ("jaxpr after vmap (the batch dimension appears)",
                        "jaxpr nach vmap (die Batch-Dimension taucht auf)", "vmap 之后的 jaxpr（出现了批维度）"),
    "pg.vmap.chart": ("Time per batch", "Zeit pro Batch", "每批耗时"),
    # jit
    "pg.jit.intro": (
        "### What does `jit` buy?\nThe same function on an n × n float32 input: NumPy, JAX op by op "
        "(eager), and JAX compiled with `jit` (compile time shown apart). Medians of repeated runs, after a "
        "warm-up, each waiting for the device (`block_until_ready`).",
        "### Was bringt `jit`?\nDieselbe Funktion auf einer n × n-Eingabe in float32: NumPy, JAX Operation für "
        "Operation (eager) und JAX mit `jit` kompiliert (die Kompilierzeit steht extra). Mediane wiederholter "
        "Läufe nach einem Aufwärmlauf, jeder wartet auf das Gerät (`block_until_ready`).",
        "### `jit` 能带来什么？\n同一个函数，输入为 n × n 的 float32 数组：NumPy、逐个运算执行的 JAX（eager），"
        "以及用 `jit` 编译的 JAX（编译时间单独列出）。结果是预热之后多次运行的中位数，每次都等待设备完成"
        "（`block_until_ready`）。"),
    "pg.jit.function": ("Your function (one array in, one out)", "Deine Funktion (ein Array rein, eins raus)",
                        "你的函数（输入一个数组，输出一个数组）"),
    "pg.jit.sizes": ("Sizes n (n × n inputs)", "Größen n (n × n-Eingaben)", "尺寸 n（n × n 的输入）"),
    "pg.jit.repeats": ("At least this many timed runs per size", "Mindestens so viele gemessene Läufe pro Größe",
                       "每个尺寸至少计时运行的次数"),
    "pg.jit.run": ("Measure", "Messen", "测量"),
    "pg.jit.chart": ("Time per call", "Zeit pro Aufruf", "每次调用耗时"),
    # Parallel
    "pg.parallel.intro": (
        "### Sharding a function across devices\nWithout an accelerator, these workers get {devices} "
        "simulated CPU devices (`JAX_NUM_CPU_DEVICES`): the sharding is real, the devices share this "
        "machine's cores. Build a mesh, say how each input is split with a `PartitionSpec`, and `jax.jit` "
        "does the rest.",
        "### Eine Funktion über Geräte verteilen (Sharding)\nOhne Beschleuniger bekommen diese Worker {devices} "
        "simulierte CPU-Geräte (`JAX_NUM_CPU_DEVICES`): Das Sharding ist echt, die Geräte teilen sich die Kerne "
        "dieses Rechners. Baue ein Mesh, gib mit einer `PartitionSpec` an, wie jede Eingabe aufgeteilt wird, "
        "und `jax.jit` erledigt den Rest.",
        "### 把函数 sharding 到多个设备上\n没有加速器时，这些工作进程会得到 {devices} 个模拟的 CPU 设备"
        "（`JAX_NUM_CPU_DEVICES`）：sharding 是真实的，只是这些设备共用本机的 CPU 核心。构建一个 mesh，"
        "用 `PartitionSpec` 说明每个输入如何切分，剩下的交给 `jax.jit`。"),
    "pg.parallel.function": ("Your function", "Deine Funktion", "你的函数"),
    "pg.parallel.args": ("Arguments", "Argumente", "参数"),
    "pg.parallel.mesh": ("Mesh shape", "Mesh-Shape", "Mesh 形状"),
    "pg.parallel.axes": ("Axis names", "Achsennamen", "轴名称"),
    "pg.parallel.in_specs": ("in_specs (one PartitionSpec per argument)", "in_specs (eine PartitionSpec pro Argument)",
                             "in_specs（每个参数一个 PartitionSpec）"),
    "pg.parallel.run": ("Shard and run", "Sharden und ausführen", "分片并运行"),
    "pg.parallel.demos_intro": ("### Collectives, a data-parallel step, and pmap",
                                "### Kollektive Operationen, ein datenparalleler Schritt und pmap",
                                "### 集合通信（collective）、一个数据并行的训练步骤，以及 pmap"),
    "pg.parallel.demos": ("Run the demos", "Demos ausführen", "运行演示"),
    # Train
    "pg.train.intro": (
        "### Train the MNIST MLP live\nThe classic JAX example: a multilayer perceptron (ReLU hidden layers, "
        "log-softmax output) whose parameters are a list of `(W, b)` pairs, `predict` written for one image and "
        "batched with `vmap`, and a jitted update that runs many SGD steps per call. It trains on this server's "
        "accelerator in a worker process; the curves redraw as it learns.",
        "### Das MNIST-MLP live trainieren\nDas klassische JAX-Beispiel: ein mehrschichtiges Perzeptron (versteckte "
        "ReLU-Schichten, log-softmax-Ausgabe), dessen Parameter eine Liste von `(W, b)`-Paaren sind, `predict` für "
        "ein Bild geschrieben und mit `vmap` auf den Batch erweitert, und ein Update mit jit, das pro Aufruf viele "
        "SGD-Schritte macht. Es trainiert auf dem Beschleuniger dieses Servers in einem Worker-Prozess; die Kurven "
        "werden neu gezeichnet, während es lernt.",
        "### 实时训练 MNIST MLP\n经典的 JAX 示例：一个多层感知机（ReLU 隐藏层，log-softmax 输出），参数是由 "
        "`(W, b)` 对组成的列表；`predict` 只为一张图像编写，再用 `vmap` 批处理；一个经过 jit 的更新函数每次调用"
        "执行许多个 SGD 步骤。它在本服务器的加速器上、在一个单独的工作进程中训练；曲线会随着学习过程不断重绘。"),
    "pg.train.dataset": ("Dataset", "Datensatz", "数据集"),
    "pg.train.layers": ("Layer sizes (784 in, 10 out)", "Schichtgrößen (784 rein, 10 raus)",
                        "各层大小（输入 784，输出 10）"),
    "pg.train.layers_info": ("2 to {count} sizes, each 1 to {width}", "2 bis {count} Größen, jede 1 bis {width}",
                             "2 到 {count} 个大小，每个 1 到 {width}"),
    "pg.train.range": ("{low} to {high}", "{low} bis {high}", "{low} 到 {high}"),
    "pg.train.optimizer": ("Optimizer (optax)", "Optimierer (optax)", "优化器（optax）"),
    "pg.train.learning_rate": ("Learning rate", "Lernrate", "学习率"),
    "pg.train.batch_size": ("Batch size", "Batch-Größe", "批大小"),
    "pg.train.epochs": ("Epochs", "Epochen", "训练轮数（epoch）"),
    "pg.train.seed": ("Seed", "Seed", "随机种子"),
    "pg.train.data_parallel": ("Data-parallel over all devices", "Datenparallel über alle Geräte",
                               "在所有设备上数据并行"),
    "pg.train.data_parallel_info": (
        "The batch is split across every local device, the parameters are replicated, and XLA "
        "all-reduces the gradients. Needs a batch size that divides by the device count.",
        "Der Batch wird auf alle lokalen Geräte aufgeteilt, die Parameter werden repliziert, und XLA summiert "
        "die Gradienten per All-Reduce. Die Batch-Größe muss durch die Anzahl der Geräte teilbar sein.",
        "批次被切分到每个本地设备上，参数在各设备上复制，XLA 对梯度做 all-reduce。批大小必须能被设备数整除。"),
    "pg.train.start": ("Start", "Starten", "开始"),
    "pg.train.stop": ("Stop", "Stoppen", "停止"),
    "pg.train.loss": ("Training loss", "Trainingsverlust", "训练损失"),
    "pg.train.accuracy": ("Accuracy", "Genauigkeit", "准确率"),
    "pg.train.throughput": ("Throughput", "Durchsatz", "吞吐量"),
    "pg.train.grid": ("Test digits (wrong ones in red)", "Testziffern (falsch erkannte in Rot)",
                      "测试数字（识别错误的标为红色）"),
    "pg.train.confusion": ("Confusion matrix", "Konfusionsmatrix", "混淆矩阵"),
    "pg.train.params": ("Trained parameters (.npz: w0, b0, w1, b1, …)",
                        "Trainierte Parameter (.npz: w0, b0, w1, b1, …)",
                        "训练好的参数（.npz：w0, b0, w1, b1, …）"),
    "pg.train.metrics": ("Metrics (CSV)", "Metriken (CSV)", "指标（CSV）"),
    "pg.train.draw_intro": (
        "#### Draw a digit\nDraw with the mouse, a pen or a finger; it is prepared the way MNIST digits were (cropped, "
        "scaled to fit 20 × 20, centred by its centre of mass in 28 × 28) and classified by the model "
        "you trained.",
        "#### Zeichne eine Ziffer\nZeichne mit der Maus, einem Stift oder dem Finger; die Zeichnung wird so "
        "aufbereitet wie die MNIST-Ziffern (zugeschnitten, auf 20 × 20 skaliert, nach ihrem Schwerpunkt in "
        "28 × 28 zentriert) und von dem Modell klassifiziert, das du trainiert hast.",
        "#### 画一个数字\n用鼠标、触控笔或手指画；它会按 MNIST 数字当年的方式预处理（裁剪、缩放到 20 × 20 以内、"
        "按质心居中放入 28 × 28），再由你训练的模型来分类。"),
    "pg.train.sketch": ("Draw here", "Hier zeichnen", "在这里画"),
    "pg.train.seen": ("What the model sees (28 × 28)", "Was das Modell sieht (28 × 28)", "模型看到的图像（28 × 28）"),
    "pg.train.probabilities": ("Class probabilities", "Klassenwahrscheinlichkeiten", "各类别的概率"),
    # Share links (share_links.py)
    "pg.share.copy": ("Copy link", "Link kopieren", "复制链接"),
    "pg.share.link": ("Link to this state (in the address bar too)", "Link zu diesem Stand (auch in der Adressleiste)",
                      "指向当前状态的链接（地址栏中也有）"),
    "pg.share.class_panel": ("Make a class link", "Link für die Klasse erstellen", "生成课堂链接"),
    "pg.share.hide": ("Hide these controls", "Diese Bedienelemente ausblenden", "隐藏这些控件"),
    "pg.share.read_only": ("Make the code read-only", "Code schreibgeschützt machen", "将代码设为只读"),
    "pg.share.exercise": ("Exercise text, shown above the editor (Markdown)",
                          "Aufgabentext, über dem Editor angezeigt (Markdown)",
                          "练习说明，显示在编辑器上方（Markdown）"),
    "pg.share.make": ("Make the class link", "Klassen-Link erstellen", "生成课堂链接"),
    # The controls a class link can hide (each tab's HIDEABLE), by their English words
    "pg.hide.Arguments": ("Arguments", "Argumente", "参数"),
    "pg.hide.Call again with": ("Call again with", "Noch einmal aufrufen mit", "再次调用时的参数"),
    "pg.hide.Examples": ("Examples", "Beispiele", "示例"),
    "pg.hide.API response (JSON)": ("API response (JSON)", "API-Antwort (JSON)", "API 响应（JSON）"),
    "pg.hide.Preset": ("Preset", "Vorlage", "预设"),
    "pg.hide.Highest order": ("Highest order", "Höchste Ordnung", "最高阶数"),
    "pg.hide.The range of x": ("The range of x", "Der Bereich von x", "x 的范围"),
    "pg.hide.Grid points": ("Grid points", "Gitterpunkte", "网格点数"),
    "pg.hide.The jaxpr of one order": ("The jaxpr of one order", "Das jaxpr einer Ordnung", "某一阶的 jaxpr"),
    "pg.hide.The gradient and Hessian part": ("The gradient and Hessian part", "Den Teil zu Gradient und Hesse-Matrix",
                                              "梯度与 Hessian 部分"),
    "pg.hide.Sizes n": ("Sizes n", "Größen n", "尺寸 n"),
    "pg.hide.Timed runs per size": ("Timed runs per size", "Gemessene Läufe pro Größe", "每个尺寸的计时次数"),
    "pg.hide.Mesh shape and axis names": ("Mesh shape and axis names", "Mesh-Shape und Achsennamen",
                                          "Mesh 形状与轴名称"),
    "pg.hide.in_specs and out_specs": ("in_specs and out_specs", "in_specs und out_specs", "in_specs 与 out_specs"),
    "pg.hide.The demos part": ("The demos part", "Den Teil mit den Demos", "演示部分"),
    "pg.hide.Dataset": ("Dataset", "Datensatz", "数据集"),
    "pg.hide.Layer sizes": ("Layer sizes", "Schichtgrößen", "各层大小"),
    "pg.hide.Optimizer": ("Optimizer", "Optimierer", "优化器"),
    "pg.hide.Learning rate": ("Learning rate", "Lernrate", "学习率"),
    "pg.hide.Batch size": ("Batch size", "Batch-Größe", "批大小"),
    "pg.hide.Epochs": ("Epochs", "Epochen", "训练轮数"),
    "pg.hide.Seed": ("Seed", "Seed", "随机种子"),
    "pg.hide.Data-parallel": ("Data-parallel", "Datenparallel", "数据并行"),
    "pg.hide.One example's arguments": ("One example's arguments", "Argumente eines Beispiels", "单个样本的参数"),
    "pg.hide.in_axes and out_axes": ("in_axes and out_axes", "in_axes und out_axes", "in_axes 与 out_axes"),
    "pg.hide.Batch sizes": ("Batch sizes", "Batch-Größen", "批大小"),
    # About
    "pg.about.intro": (
        "**What this is for:** seeing what JAX does with a small function of yours: how `jit` traces it into a "
        "jaxpr, lowers it and compiles it; its derivatives with `grad`; batching with `vmap`; what `jit` buys in "
        "speed; how XLA's passes change it; sharding it over devices; and a small network trained live.\n\n"
        "**Where to start:** the **Inspect** tab: press Run on its example and read the jaxpr beside your code. "
        "Then **Derivatives**, **vmap** and **jit**, each with presets to try; **Compiler** for XLA's passes and "
        "graphs; **Parallel** for sharding; **Train** for MNIST. Every tab's **Copy link** shares what you see.\n\n"
        "Below: what this server runs on, and how your code is kept in its sandbox.",
        "**Wofür das ist:** um zu sehen, was JAX mit einer kleinen Funktion von dir macht: wie `jit` sie zu einem "
        "jaxpr tract, lowert und kompiliert; ihre Ableitungen mit `grad`; Batches mit `vmap`; was `jit` an "
        "Tempo bringt; wie die Passes von XLA sie verändern; Sharding über Geräte; und ein kleines Netz, das vor "
        "deinen Augen lernt.\n\n"
        "**Wo du anfängst:** im Tab **Untersuchen**: drück beim Beispiel auf Ausführen und lies den jaxpr neben "
        "deinem Code. Dann **Ableitungen**, **vmap** und **jit**, jeweils mit Vorlagen zum Ausprobieren; "
        "**Compiler** für die Passes und Graphen von XLA; **Parallel** für Sharding; **Training** für MNIST. "
        "**Link kopieren** teilt in jedem Tab, was du siehst.\n\n"
        "Darunter: worauf dieser Server läuft und wie dein Code in seiner Sandbox gehalten wird.",
        "**这是做什么的：**看看 JAX 如何处理你写的一个小函数：`jit` 怎样把它追踪成 jaxpr、降级并编译；用 `grad` "
        "求导；用 `vmap` 批处理；`jit` 能带来多少速度；XLA 的 pass 如何改变它；把它分片到多个设备上；以及实时训练一个"
        "小网络。\n\n"
        "**从哪里开始：**先看**检查**标签页：在示例上按运行，对照你的代码阅读 jaxpr。然后是**导数**、**vmap** 和 "
        "**jit**，每个都有预设可以试；**编译器**展示 XLA 的 pass 和图；**并行**展示分片；**训练**用 MNIST。每个标签页的"
        "**复制链接**都能分享你看到的内容。\n\n"
        "下面：这台服务器运行在什么上，以及你的代码如何被限制在沙箱中。"),
    "pg.about.raw": ("/about response (JSON)", "Antwort von /about (JSON)", "/about 的响应（JSON）"),
    "pg.about.refresh": ("Refresh", "Aktualisieren", "刷新"),
}

# Gradio's own words that its German or Chinese lacks (its footer with the MCP server on, the sketchpad's hint,
# and the place in Gradio's queue that its status tracker shows while an event waits for its turn).
GRADIO_GAPS = {
    "de": {"errors.use_via_api_or_mcp": "Über API oder MCP verwenden",
           "image_editor.select_draw_tool": "Wähle das Zeichenwerkzeug, um anzufangen",
           "status.queue_position": "In der Warteschlange: {position} von {size}"},
    "zh-CN": {"image_editor.select_draw_tool": "选择绘图工具即可开始",
              "status.queue_position": "排队中：第 {position} 位，共 {size} 位"},
}

I18N = gr.I18n(**{locale: {key: texts[i] for key, texts in CATALOGUE.items()} | GRADIO_GAPS.get(locale, {})
                  for i, locale in enumerate(LOCALES)})


def text(key: str, locale: str = "en", /, **params: object) -> str:
    """The catalogue's text for ``key`` in ``locale`` ("en", "de", "zh-CN"), its ``{name}`` fields filled in."""
    written = CATALOGUE[key][LOCALES.index(locale)]
    return written.format(**params) if params else written


def t(key: str, /, **params: object) -> str:
    """The marker Gradio's frontend replaces with ``key``'s text in the reader's language.

    With ``params`` (known when the app is built, such as its device count) the filled-in texts get a key of
    their own. One marker per string: Gradio translates the first, so add plain text around it, not a second.
    """
    if params:
        filled = f"{key}@" + ",".join(str(value) for value in params.values())
        return composed(filled, lambda locale: text(key, locale, **params))
    if key not in CATALOGUE:
        raise KeyError(f"{key!r} is not in the UI's catalogue (playground/ui/translations.py)")
    return str(I18N(key))


def shown(value: str, locale: str = "en") -> str:
    """``value`` as the page shows it in ``locale``: its marker (if any) replaced by the text, as Gradio does.

    >>> shown(t("pg.inspect.run") + " (now)", "de")
    'Ausführen (now)'
    """
    start = value.find(_MARKER)
    if start < 0:
        return value
    end = value.index("}", start) + 1
    key = json.loads(value[start + len(_MARKER):end])["key"]
    return value[:start] + I18N.translations[locale].get(key, key) + value[end:]


def composed(key: str, write: Callable[[str], str]) -> str:
    """A marker for a text written per locale from the catalogue's (a list of setting labels, say)."""
    for locale in LOCALES:
        I18N.translations[locale][key] = write(locale)
    return str(I18N(key))


# Each tab titled from the catalogue, by its id: Gradio writes a tab's title in the page's language when the tab is
# first shown, and a language picked later in Settings reaches only the tabs shown since (language.py puts it on
# the others).
TAB_TITLES: dict[str, str] = {}


def tab(key: str, tab_id: str) -> gr.Tab:
    """``gr.Tab`` titled with ``key``'s text, its title following the page's language even before it is shown."""
    TAB_TITLES[tab_id] = key
    return gr.Tab(t(key), id=tab_id)


def tab_titles() -> dict[str, dict[str, str]]:
    """Each catalogue-titled tab's title in every locale, by tab id (for the page's script)."""
    return {tab_id: {locale: text(key, locale) for locale in LOCALES} for tab_id, key in TAB_TITLES.items()}


def words(english: str) -> str:
    """The marker for a control's name (a class link's checkbox) given in English; as given if not catalogued."""
    key = f"pg.hide.{english}"
    return t(key) if key in CATALOGUE else english


def choice(key: str, value: str) -> tuple[str, str]:
    """A dropdown or radio entry: shown in the reader's language, ``value`` (English) to the server."""
    return t(key), value


# Example names (Inspect's and the Compiler's gallery, gr.Examples) by their English text: Gradio shows example
# labels as given, without translating them, so the page's script below relabels their buttons.
EXAMPLE_KEYS = {CATALOGUE[key][0]: key for key in CATALOGUE if key.startswith("pg.example.")} | {
    CATALOGUE["pg.field.x_cubed_intro"][0]: "pg.field.x_cubed_intro"}


def example_labels_js() -> str:
    """The page's script: example buttons follow the page's language (the <html lang> Gradio sets)."""
    names = {en: {locale: text(key, locale) for locale in LOCALES} for en, key in EXAMPLE_KEYS.items()}
    return """() => {
  const names = NAMES;
  const relabel = () => {
    const lang = document.documentElement.lang || "en";
    document.querySelectorAll(".gallery-item").forEach((button) => {
      // The label's own text node, changed in place: Gradio's frontend keeps updating that node.
      const walker = document.createTreeWalker(button, NodeFilter.SHOW_TEXT);
      let node = walker.nextNode();
      while (node && !node.nodeValue.trim()) node = walker.nextNode();
      if (!node) return;
      const current = node.nodeValue.trim();
      const english = names[current] ? current : button.dataset.pgEnglish;
      const texts = names[english];
      if (!texts) return;
      button.dataset.pgEnglish = english;
      const shown = texts[lang] || texts[lang.split("-")[0]] || english;
      if (current !== shown) node.nodeValue = shown;
    });
  };
  new MutationObserver(relabel).observe(document.documentElement, {attributes: true, attributeFilter: ["lang"]});
  new MutationObserver(relabel).observe(document.body, {childList: true, subtree: true, characterData: true});
  relabel();
}""".replace("NAMES", json.dumps(names, ensure_ascii=False))


def _check() -> None:
    """Every key has three non-empty texts with the same {fields} (checked at import: a typo fails at once)."""
    import string

    for key, texts in CATALOGUE.items():
        fields = [{name for _, name, _, _ in string.Formatter().parse(each) if name} for each in texts]
        if len(texts) != len(LOCALES) or not all(texts) or any(f != fields[0] for f in fields):
            raise ValueError(f"catalogue entry {key!r} needs {len(LOCALES)} texts with the same fields")


_check()
