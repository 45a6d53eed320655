"""The static UI's words: labels, placeholders, buttons, tab names and the tabs' descriptions.

playground/server/ui/translations.py hands them to Gradio's frontend (``gr.I18n``), which writes each in the
browser's language or the one picked under the footer's Settings > Language.

German speaks to the reader as "du"; both keep JAX's terms in English where German and Chinese JAX
material does (jit, vmap, grad, jaxpr, tracer, pytree, sharding, mesh, StableHLO, HLO, XLA, pass, fusion,
kernel, batch). Every entry has all three languages, non-empty: Gradio would show a missing one as its key.
"""

from __future__ import annotations

# Keys start with "pg." so that none names one of Gradio's own groups of texts ("plot", "file", "radio", ...): such
# a key would show as "[object Object]".
TEXTS: dict[str, dict[str, str]] = {
    # The page and its tabs
    "pg.app.local_mode": {
        "en": "**Local mode: your code runs on your machine with process isolation only — do not expose it publicly.**",
        "de": "**Lokaler Modus: Dein Code läuft auf deinem Rechner, nur durch Prozesse getrennt — mach ihn nicht "
              "öffentlich erreichbar.**",
        "zh": "**本地模式：你的代码在你自己的电脑上运行，仅靠进程隔离——不要把它公开暴露。**"},
    "pg.app.intro_local": {
        "en": "# JAX Playground\nWrite a small pure function and see what JAX makes of it. "
              "Your code runs in a fresh Python process of its own, never in this server.",
        "de": "# JAX Playground\nSchreib eine kleine reine Funktion und sieh dir an, was JAX daraus macht. "
              "Dein Code läuft in einem eigenen, frischen Python-Prozess, nie in diesem Server.",
        "zh": "# JAX Playground\n写一个小小的纯函数，看看 JAX 会把它变成什么。"
              "你的代码运行在一个全新的独立 Python 进程中，绝不会在本服务器进程里运行。"},
    "pg.app.intro": {
        "en": "# JAX Playground\nWrite a small pure function and see what JAX makes of it. "
              "Your code runs in a locked-down sandbox process, never in this server.",
        "de": "# JAX Playground\nSchreib eine kleine reine Funktion und sieh dir an, was JAX daraus macht. "
              "Dein Code läuft in einem abgeschotteten Sandbox-Prozess, nie in diesem Server.",
        "zh": "# JAX Playground\n写一个小小的纯函数，看看 JAX 会把它变成什么。"
              "你的代码运行在一个受严格限制的沙箱进程中，绝不会在本服务器进程里运行。"},
    "pg.tab.inspect": {"en": "Inspect", "de": "Untersuchen", "zh": "检查"},
    "pg.tab.compiler": {"en": "Compiler", "de": "Compiler", "zh": "编译器"},
    "pg.tab.derivatives": {"en": "Derivatives", "de": "Ableitungen", "zh": "导数"},
    "pg.tab.speed": {"en": "Speed of light", "de": "Lichtgeschwindigkeit", "zh": "光速上限"},
    "pg.tab.parallel": {"en": "Parallel", "de": "Parallel", "zh": "并行"},
    # The Pallas job has its API endpoint and MCP tool, not yet a tab of the page: About names it so.
    "pg.tab.pallas": {"en": "Pallas (API only, in interpret mode)",
                      "de": "Pallas (nur über die API, im Interpret-Modus)", "zh": "Pallas（仅限 API，解释模式）"},
    "pg.tab.train": {"en": "Train", "de": "Training", "zh": "训练"},
    "pg.tab.about": {"en": "About", "de": "Über", "zh": "关于"},
    # Fields several tabs share
    "pg.field.function": {"en": "Your function (f, or the last one made or defined)",
                          "de": "Deine Funktion (f oder die zuletzt erzeugte oder definierte)",
                          "zh": "你的函数（f，或最后得到或定义的那个）"},
    "pg.field.arguments": {"en": "Arguments (a Python expression; a tuple gives several)",
                           "de": "Argumente (ein Python-Ausdruck; ein Tupel übergibt mehrere)",
                           "zh": "参数（一个 Python 表达式；元组可传入多个参数）"},
    "pg.field.in_scope": {"en": "jax, jnp, np and lax are in scope",
                          "de": "jax, jnp, np und lax stehen bereit",
                          "zh": "可直接使用 jax、jnp、np 和 lax"},
    "pg.field.static_example": {"en": "e.g. 1, or 0, 2", "de": "z. B. 1 oder 0, 2", "zh": "例如 1，或 0, 2"},
    "pg.field.on_accelerator": {"en": "Compile for the accelerator",
                                "de": "Für den Beschleuniger kompilieren",
                                "zh": "为加速器编译"},
    "pg.field.examples": {"en": "Examples", "de": "Beispiele", "zh": "示例"},
    "pg.field.preset": {"en": "Preset", "de": "Vorlage", "zh": "预设"},
    "pg.field.compare": {"en": "Compare", "de": "Vergleichen", "zh": "对比"},
    "pg.field.optimised_hlo": {"en": "Optimised HLO", "de": "Optimiertes HLO", "zh": "优化后的 HLO"},
    "pg.field.x_cubed_intro": {"en": "x + x² + x³ (JAX's introduction)",
                               "de": "x + x² + x³ (aus der JAX-Einführung)",
                               "zh": "x + x² + x³（JAX 入门示例）"},
    # Inspect
    "pg.inspect.accelerator_info": {"en": "XLA optimises differently for a GPU or TPU: other fusions, other kernels",
                                    "de": "Für eine GPU oder TPU optimiert XLA anders: andere Fusionen, andere Kernels",
                                    "zh": "XLA 针对 GPU 或 TPU 的优化方式不同：不同的 fusion，不同的 kernel"},
    "pg.inspect.second": {"en": "Call again with (optional): does jit retrace?",
                          "de": "Noch einmal aufrufen mit (optional): Kommt es bei jit zu einem Retracing?",
                          "zh": "再次调用时的参数（可选）：jit 会重新 trace 吗？"},
    "pg.field.static_info": {
        "en": "Arguments jit treats as constants (by position): each new value compiles anew. For Python numbers, "
              "strings, shapes.",
        "de": "Argumente, die jit als Konstanten behandelt (nach Position): Jeder neue Wert wird neu kompiliert. Für "
              "Python-Zahlen, Strings, Shapes.",
        "zh": "jit 当作常量的参数（按位置）：每个新值都会重新编译。适用于 Python 数字、字符串、shape。"},
    "pg.inspect.second_info": {
        "en": "Other arguments for a second call of the jitted function: the status then says whether jit traced and "
              "compiled again (it does when a shape or dtype changes).",
        "de": "Andere Argumente für einen zweiten Aufruf der gejitteten Funktion: Der Status sagt dann, ob jit neu "
              "getract und kompiliert hat (das tut es, wenn sich eine Shape oder ein dtype ändert).",
        "zh": "第二次调用被 jit 的函数时使用的其他参数：状态栏会说明 jit 是否重新 trace 并编译（shape 或 dtype "
              "变化时会）。"},
    "pg.glossary.title": {"en": "Glossary: jaxpr, StableHLO, optimised HLO, static_argnums",
                          "de": "Glossar: jaxpr, StableHLO, optimiertes HLO, static_argnums",
                          "zh": "术语表：jaxpr、StableHLO、优化后的 HLO、static_argnums"},
    "pg.glossary.body": {
        "en": "**jaxpr**: JAX's own form of your function, traced from the Python: one primitive operation per line, "
              "on typed arrays (`f32[3]` is three float32 numbers).  \n"
              "**StableHLO**: the jaxpr lowered to the MLIR dialect that compilers read: the same program, not yet "
              "optimised.  \n"
              "**Optimised HLO**: what XLA made of it for this device: operations fused into kernels, constants "
              "folded. This is the program that runs.  \n"
              "**static_argnums**: arguments that jit bakes into the program as constants instead of tracing them; a "
              "new value means a new compilation.  \n"
              "**Call again with**: a second call with other arguments shows whether jit reuses the compiled program "
              "or traces again.",
        "de": "**jaxpr**: JAX' eigene Form deiner Funktion, aus dem Python getract: eine primitive Operation pro "
              "Zeile, auf typisierten Arrays (`f32[3]` sind drei float32-Zahlen).  \n"
              "**StableHLO**: der jaxpr, übersetzt in den MLIR-Dialekt, den Compiler lesen: dasselbe Programm, noch "
              "nicht optimiert.  \n"
              "**Optimiertes HLO**: was XLA daraus für dieses Gerät gemacht hat: Operationen zu Kernels fusioniert, "
              "Konstanten ausgerechnet. Das ist das Programm, das läuft.  \n"
              "**static_argnums**: Argumente, die jit als Konstanten ins Programm einbaut, statt sie zu tracen; ein "
              "neuer Wert bedeutet eine neue Kompilierung.  \n"
              "**Noch einmal aufrufen mit**: Ein zweiter Aufruf mit anderen Argumenten zeigt, ob jit das kompilierte "
              "Programm wiederverwendet oder ein neues Tracing braucht.",
        "zh": "**jaxpr**：JAX 自己的函数表示，由 Python 代码 trace "
              "而来：每行一个基本运算，作用于带类型的数组（`f32[3]` 是三个 float32 数）。  \n"
              "**StableHLO**：jaxpr 降级为编译器读取的 MLIR 方言：同一个程序，尚未优化。  \n"
              "**优化后的 HLO**：XLA 为这个设备生成的结果：运算被融合成 "
              "kernel，常量被折叠。这才是实际运行的程序。  \n"
              "**static_argnums**：jit 作为常量写进程序、而不是 trace 的参数；值一变就要重新编译。  \n"
              "**再次调用**：用其他参数再调用一次，可以看出 jit 是复用已编译的程序还是重新 trace。"},
    "pg.inspect.second_example": {"en": "e.g. jnp.arange(5.0)",
                                  "de": "z. B. jnp.arange(5.0)",
                                  "zh": "例如 jnp.arange(5.0)"},
    "pg.inspect.run": {"en": "Run", "de": "Ausführen", "zh": "运行"},
    "pg.hint.run": {
        "en": "Nothing has run yet: press the button above<span class='pg-keys'> (or Ctrl+Enter)</span> and "
              "the result appears here.",
        "de": "Noch nichts ausgeführt: Drück den Knopf oben<span class='pg-keys'> (oder Strg+Enter)</span>, "
              "dann erscheint das Ergebnis hier.",
        "zh": "尚未运行：点击上方的按钮<span class='pg-keys'>（或按 Ctrl+Enter）</span>，结果会显示在这里。"},
    "pg.hint.example": {"en": "Example loaded: running it…",
                        "de": "Beispiel geladen: wird ausgeführt…",
                        "zh": "示例已载入：正在运行…"},
    "pg.hint.preset": {
        "en": "Preset loaded: press the button above<span class='pg-keys'> (or Ctrl+Enter)</span> to run "
              "it.",
        "de": "Vorlage geladen: Drück den Knopf oben<span class='pg-keys'> (oder Strg+Enter)</span>, um sie "
              "auszuführen.",
        "zh": "预设已载入：点击上方的按钮<span class='pg-keys'>（或按 Ctrl+Enter）</span>来运行它。"},
    "pg.hint.train": {"en": "Nothing trained yet: press Start.",
                      "de": "Noch nichts trainiert: Drück auf Starten.",
                      "zh": "尚未训练：点击“开始”。"},
    "pg.inspect.result": {"en": "Result", "de": "Ergebnis", "zh": "结果"},
    "pg.inspect.source_ir": {"en": "Source ↔ IR", "de": "Quelltext ↔ IR", "zh": "源码 ↔ IR"},
    "pg.inspect.jaxpr": {"en": "jaxpr: the program JAX traced",
                         "de": "jaxpr: das Programm, das JAX beim Tracing aufgezeichnet hat",
                         "zh": "jaxpr：JAX trace 得到的程序"},
    "pg.inspect.stablehlo": {"en": "StableHLO: what jit hands to XLA",
                             "de": "StableHLO: was jit an XLA übergibt",
                             "zh": "StableHLO：jit 交给 XLA 的程序"},
    "pg.inspect.hlo": {"en": "HLO after XLA's optimisations (note the fusions)",
                       "de": "HLO nach den Optimierungen von XLA (achte auf die Fusionen)",
                       "zh": "经过 XLA 优化后的 HLO（注意其中的 fusion）"},
    "pg.inspect.locations": {"en": "Source-location tables (what stack_frame_id refers to)",
                             "de": "Tabellen der Quellpositionen (worauf stack_frame_id verweist)",
                             "zh": "源码位置表（stack_frame_id 所指向的内容）"},
    "pg.inspect.costs": {"en": "Cost & timing", "de": "Kosten & Zeiten", "zh": "开销与计时"},
    "pg.inspect.pytrees": {"en": "Pytrees", "de": "Pytrees", "zh": "Pytree"},
    "pg.inspect.stdout": {"en": "Output (what your code printed)",
                          "de": "Ausgabe (was dein Code ausgegeben hat)",
                          "zh": "输出（你的代码打印的内容）"},
    "pg.inspect.files": {"en": "Whole texts", "de": "Vollständige Texte", "zh": "完整文本"},
    "pg.inspect.api_response": {"en": "API response (JSON)", "de": "API-Antwort (JSON)", "zh": "API 响应（JSON）"},
    "pg.inspect.returned": {"en": "/inspect returned", "de": "Antwort von /inspect", "zh": "/inspect 的返回值"},
    # Inspect's and the Compiler's examples (gallery.py), by their English names
    "pg.example.mlp_pytree": {"en": "MLP with a params dict (a pytree)",
                              "de": "MLP mit einem params-Dict (ein Pytree)",
                              "zh": "带 params 字典的 MLP（一个 pytree）"},
    "pg.example.python_if": {"en": "Python if on a traced value (an error)",
                             "de": "Python-if auf einem getracten Wert (ein Fehler)",
                             "zh": "对被 trace 的值使用 Python if（会报错）"},
    "pg.example.cond": {"en": "lax.cond instead of if", "de": "lax.cond statt if", "zh": "用 lax.cond 代替 if"},
    "pg.example.scan": {"en": "lax.scan: a running sum",
                        "de": "lax.scan: eine laufende Summe",
                        "zh": "lax.scan：累加和"},
    "pg.example.prints": {"en": "An impure function that prints",
                          "de": "Eine unreine Funktion, die etwas ausgibt",
                          "zh": "会打印输出的非纯函数"},
    "pg.example.unrolled": {"en": "static_argnums: a Python loop unrolled",
                            "de": "static_argnums: eine ausgerollte Python-Schleife",
                            "zh": "static_argnums：被展开的 Python 循环"},
    "pg.example.retrace": {"en": "Retracing on a new shape",
                           "de": "Retracing bei einer neuen Shape",
                           "zh": "新的形状触发重新 trace"},
    "pg.example.fusion": {"en": "x + x² + x³ on 1000 × 1000 (fusion)",
                          "de": "x + x² + x³ auf 1000 × 1000 (Fusion)",
                          "zh": "1000 × 1000 上的 x + x² + x³（fusion）"},
    "pg.example.mlp_layer": {"en": "MLP layer: dot + bias + relu",
                             "de": "MLP-Schicht: dot + bias + relu",
                             "zh": "MLP 层：dot + bias + relu"},
    # The Speed of light tab's examples (gallery.py SPEED_EXAMPLES)
    "pg.example.memory_bound": {"en": "x + x*x + x*x*x (memory-bound)",
                                "de": "x + x*x + x*x*x (speichergebunden)",
                                "zh": "x + x*x + x*x*x（受内存带宽限制）"},
    "pg.example.compute_bound": {"en": "matmul (compute-bound)", "de": "Matmul (rechengebunden)",
                                 "zh": "矩阵乘（受算力限制）"},
    "pg.example.remat": {"en": "layers with jax.checkpoint (remat)", "de": "Schichten mit jax.checkpoint (Remat)",
                         "zh": "带 jax.checkpoint 的多层（remat）"},
    # Compiler
    "pg.compiler.intro": {
        "en": "### Watch the compiler work\nXLA fuses operations and saves memory traffic. See each of its passes "
              "change your program, the program as a graph with each fusion boxed, and two versions side by side.",
        "de": "### Dem Compiler bei der Arbeit zusehen\nXLA fusioniert Operationen und spart so Speicherzugriffe. "
              "Sieh, wie jeder seiner Passes dein Programm verändert, das Programm als Graph mit jeder Fusion als "
              "Kasten, und zwei Versionen nebeneinander.",
        "zh": "### 看编译器如何工作\nXLA 会把多个运算融合（fusion）在一起，减少内存读写。在这里可以看到它的每个 pass "
              "如何改变你的程序、以图的形式呈现的程序（每个 fusion 都用方框圈出），以及并排对比的两个版本。"},
    "pg.compiler.passes": {"en": "Passes", "de": "Passes", "zh": "Pass"},
    "pg.compiler.graph": {"en": "Graph", "de": "Graph", "zh": "图"},
    "pg.compiler.show_passes": {"en": "Show the passes", "de": "Passes anzeigen", "zh": "显示各个 pass"},
    "pg.compiler.hide_unchanged": {"en": "Hide passes that changed nothing",
                                   "de": "Passes ohne Änderung ausblenden",
                                   "zh": "隐藏没有改动的 pass"},
    "pg.compiler.diff": {"en": "Diff", "de": "Diff", "zh": "差异"},
    "pg.compiler.side_by_side": {"en": "side by side", "de": "nebeneinander", "zh": "并排"},
    "pg.compiler.unified": {"en": "unified", "de": "untereinander", "zh": "合并"},
    "pg.compiler.pass_choice": {"en": "Pass: its module before and after",
                                "de": "Pass: sein Modul vorher und nachher",
                                "zh": "Pass：该 pass 前后的模块"},
    "pg.compiler.draw": {"en": "Draw the graphs", "de": "Graphen zeichnen", "zh": "绘制图"},
    "pg.compiler.version_b": {"en": "Version B", "de": "Version B", "zh": "版本 B"},
    "pg.compiler.a_setting": {"en": "the same function under a setting",
                              "de": "dieselbe Funktion mit einer Einstellung",
                              "zh": "同一个函数，换一种设置"},
    "pg.compiler.a_function": {"en": "a second function", "de": "eine zweite Funktion", "zh": "第二个函数"},
    "pg.compiler.setting": {"en": "Setting", "de": "Einstellung", "zh": "设置"},
    "pg.compiler.second": {"en": "Second function (same arguments)",
                           "de": "Zweite Funktion (gleiche Argumente)",
                           "zh": "第二个函数（参数相同）"},
    # compiler_settings.SETTINGS: each name as the dropdown shows it, and its label
    "pg.setting.fusion: off": {"en": "fusion: off", "de": "fusion: aus", "zh": "fusion：关"},
    "pg.setting.cse: off": {"en": "cse: off", "de": "cse: aus", "zh": "cse：关"},
    "pg.setting.algsimp: off": {"en": "algsimp: off", "de": "algsimp: aus", "zh": "algsimp：关"},
    "pg.setting.x64: on": {"en": "x64: on", "de": "x64: an", "zh": "x64：开"},
    "pg.setting.donate: on": {"en": "donate: on", "de": "donate: an", "zh": "donate：开"},
    "pg.setting_label.fusion: off": {"en": "fusion off", "de": "Fusion aus", "zh": "关闭 fusion"},
    "pg.setting_label.cse: off": {"en": "CSE off", "de": "CSE aus", "zh": "关闭 CSE"},
    "pg.setting_label.algsimp: off": {"en": "algebraic simplification off",
                                      "de": "algebraische Vereinfachung aus",
                                      "zh": "关闭代数化简"},
    "pg.setting_label.x64: on": {"en": "64-bit", "de": "64 Bit", "zh": "64 位"},
    "pg.setting_label.donate: on": {"en": "donated arguments",
                                    "de": "Argumente mit Buffer-Donation",
                                    "zh": "参数缓冲区捐赠（donation）"},
    # Derivatives
    "pg.derivatives.intro": {
        "en": "### f: ℝ → ℝ, differentiated again and again\nEach order is `grad` of the one before, evaluated "
              "over the grid with `jit(vmap(...))`, in float64, and checked against a reference. If Python control "
              "flow on x keeps `jit` and `vmap` from tracing f, `grad` runs at each point on its own, without jit.",
        "de": "### f: ℝ → ℝ, wieder und wieder abgeleitet\nJede Ordnung ist `grad` der vorherigen, mit "
              "`jit(vmap(...))` auf dem Gitter ausgewertet, in float64, und mit einer Referenz verglichen. Hindert "
              "Python-Kontrollfluss auf x `jit` und `vmap` daran, f zu tracen, läuft `grad` an jedem Punkt einzeln, "
              "ohne jit.",
        "zh": "### f: ℝ → ℝ，一次又一次地求导\n每一阶都是前一阶的 `grad`，用 `jit(vmap(...))` 在网格上以 float64 "
              "求值，并与参考值核对。如果依赖 x 的 Python 控制流让 `jit` 和 `vmap` 无法 trace f，`grad` "
              "就会在每个点上单独运行，不经过 jit。"},
    "pg.derivatives.polynomial": {"en": "polynomial", "de": "Polynom", "zh": "多项式"},
    "pg.derivatives.scalar_f": {"en": "f (scalar in, scalar out)",
                                "de": "f (Skalar rein, Skalar raus)",
                                "zh": "f（输入标量，输出标量）"},
    "pg.derivatives.order": {"en": "Highest order n", "de": "Höchste Ordnung n", "zh": "最高阶数 n"},
    "pg.derivatives.x_min": {"en": "x from", "de": "x von", "zh": "x 起点"},
    "pg.derivatives.x_max": {"en": "x to", "de": "x bis", "zh": "x 终点"},
    "pg.derivatives.points": {"en": "Grid points", "de": "Gitterpunkte", "zh": "网格点数"},
    "pg.derivatives.run": {"en": "Differentiate", "de": "Ableiten", "zh": "求导"},
    "pg.derivatives.curves": {"en": "f and its derivatives", "de": "f und seine Ableitungen", "zh": "f 及其各阶导数"},
    "pg.derivatives.growth": {"en": "Program size by order", "de": "Programmgröße je Ordnung", "zh": "各阶的程序规模"},
    "pg.derivatives.jaxpr": {"en": "The jaxpr of one order", "de": "Das jaxpr einer Ordnung", "zh": "某一阶的 jaxpr"},
    "pg.derivatives.shown": {"en": "Order to show", "de": "Angezeigte Ordnung", "zh": "要显示的阶数"},
    "pg.derivatives.gradient_intro": {"en": "### f: ℝⁿ → ℝ: gradient and Hessian",
                                      "de": "### f: ℝⁿ → ℝ: Gradient und Hesse-Matrix",
                                      "zh": "### f: ℝⁿ → ℝ：梯度与 Hessian 矩阵"},
    "pg.derivatives.vector_f": {"en": "f (vector in, scalar out)",
                                "de": "f (Vektor rein, Skalar raus)",
                                "zh": "f（输入向量，输出标量）"},
    "pg.derivatives.point": {"en": "At the point", "de": "Am Punkt", "zh": "求值点"},
    "pg.derivatives.gradient_run": {"en": "Gradient and Hessian",
                                    "de": "Gradient und Hesse-Matrix",
                                    "zh": "梯度与 Hessian"},
    "pg.derivatives.hessian": {"en": "Hessian", "de": "Hesse-Matrix", "zh": "Hessian 矩阵"},
    # vmap
    "pg.vmap.intro": {
        "en": "### Write it for one example, batch it with `jax.vmap`\nThe batch is built from your one example "
              "(stacked along `in_axes`, each copy slightly different); the three ways must agree before any "
              "time is shown.",
        "de": "### Für ein Beispiel schreiben, mit `jax.vmap` zum Batch machen\nDer Batch entsteht aus deinem einen "
              "Beispiel (entlang `in_axes` gestapelt, jede Kopie leicht verändert); die drei Wege müssen "
              "übereinstimmen, bevor eine Zeit angezeigt wird.",
        "zh": "### 只为一个样本编写，用 `jax.vmap` 批处理\n批次由你给出的这一个样本构造（沿 `in_axes` 堆叠，"
              "每份副本略有不同）；三种方式的结果一致之后才会显示耗时。"},
    "pg.vmap.per_example_gradients": {"en": "per-example gradients",
                                      "de": "Gradienten pro Beispiel",
                                      "zh": "逐样本梯度"},
    "pg.vmap.batched_mlp": {"en": "batched MLP predict", "de": "MLP-predict für einen Batch", "zh": "批量 MLP predict"},
    "pg.vmap.function": {"en": "Your function, for ONE example",
                         "de": "Deine Funktion, für EIN Beispiel",
                         "zh": "你的函数，只针对一个样本"},
    "pg.vmap.args": {"en": "One example's arguments", "de": "Argumente eines Beispiels", "zh": "单个样本的参数"},
    "pg.vmap.sizes": {"en": "Batch sizes", "de": "Batch-Größen", "zh": "批大小"},
    "pg.vmap.jaxpr": {"en": "jaxpr for one example", "de": "jaxpr für ein Beispiel", "zh": "单个样本的 jaxpr"},
    "pg.vmap.batched": {"en": "jaxpr after vmap (the batch dimension appears)",
                        "de": "jaxpr nach vmap (die Batch-Dimension taucht auf)",
                        "zh": "vmap 之后的 jaxpr（出现了批维度）"},
    "pg.vmap.chart": {"en": "Time per batch", "de": "Zeit pro Batch", "zh": "每批耗时"},
    # jit
    "pg.jit.intro": {
        "en": "### What does `jit` buy?\nThe same function on an n × n float32 input: NumPy on this server's CPU, "
              "JAX op by op (eager), and JAX compiled with `jit` (compile time shown apart), both on the device. "
              "Eager JAX is run as it runs: each operation of the function's jaxpr is a compiled program of its own, "
              "dispatched one after another, its result waiting on the device for the next. Medians of repeated "
              "runs, after a warm-up, each waiting for the device (`block_until_ready`).",
        "de": "### Was bringt `jit`?\nDieselbe Funktion auf einer n × n-Eingabe in float32: NumPy auf der CPU dieses "
              "Servers, JAX Operation für Operation (eager) und JAX mit `jit` kompiliert (die Kompilierzeit steht "
              "extra), beide auf dem Gerät. Eager JAX läuft, wie es läuft: Jede Operation des jaxprs der Funktion ist "
              "ein eigenes kompiliertes Programm, eines nach dem anderen gestartet, sein Ergebnis wartet auf dem "
              "Gerät auf das nächste. Mediane wiederholter Läufe nach einem Aufwärmlauf, jeder wartet auf das Gerät "
              "(`block_until_ready`).",
        "zh": "### `jit` 能带来什么？\n同一个函数，输入为 n × n 的 float32 数组：在本服务器 CPU 上运行的 NumPy，"
              "逐个运算执行的 JAX（eager），以及用 `jit` 编译的 JAX（编译时间单独列出），后两者都在设备上运行。"
              "eager JAX 按它本来的方式运行：函数 jaxpr 中的每个运算都是一个单独编译的程序，依次派发，其结果留在设备上"
              "等待下一个。结果是预热之后多次运行的中位数，每次都等待设备完成（`block_until_ready`）。"},
    "pg.jit.function": {"en": "Your function (one array in, one out)",
                        "de": "Deine Funktion (ein Array rein, eins raus)",
                        "zh": "你的函数（输入一个数组，输出一个数组）"},
    "pg.jit.sizes": {"en": "Sizes n (n × n inputs)", "de": "Größen n (n × n-Eingaben)", "zh": "尺寸 n（n × n 的输入）"},
    "pg.jit.repeats": {"en": "At least this many timed runs per size",
                       "de": "Mindestens so viele gemessene Läufe pro Größe",
                       "zh": "每个尺寸至少计时运行的次数"},
    "pg.jit.run": {"en": "Measure", "de": "Messen", "zh": "测量"},
    # Shown beside a result an identical earlier job measured (its age is said above it): runs the job afresh.
    "pg.measure_again": {"en": "Measure again", "de": "Erneut messen", "zh": "重新测量"},
    "pg.jit.chart": {"en": "Time per call", "de": "Zeit pro Aufruf", "zh": "每次调用耗时"},
    # Speed of light
    "pg.speed.intro": {
        "en": "### How close does your function come to what this machine can do?\nIts FLOPs and bytes (XLA's "
              "cost analysis) and its time, as written and with XLA's fusion off, on a roofline under this "
              "machine's measured roofs: a bandwidth for each level of memory (each cache, then memory) and a "
              "matmul's FLOP/s. Then its memory over XLA's schedule, the buffers alive at the peak, and the kernels "
              "XLA ran.",
        "de": "### Wie nah kommt deine Funktion an das, was diese Maschine kann?\nIhre FLOPs und Bytes (die "
              "Kostenanalyse von XLA) und ihre Zeit, wie geschrieben und ohne die Fusion von XLA, im "
              "Roofline-Diagramm unter den gemessenen Dächern dieser Maschine: eine Bandbreite je Speicherebene "
              "(jeder Cache, dann der Speicher) und die FLOP/s einer Matmul. Dazu ihr Speicher über den "
              "Ablaufplan von XLA, die Puffer auf dem Höhepunkt und die Kernels, die XLA ausgeführt hat.",
        "zh": "### 你的函数离本机的能力上限有多近？\n它的 FLOP 数和字节数（XLA 的开销分析）以及耗时，"
              "分别按原样编译和关闭 XLA fusion 编译，画在 roofline 图上，上方是本机实测的上限："
              "每一级存储（各级缓存，然后是内存）的带宽，以及矩阵乘的每秒 FLOP 数。"
              "然后是它在 XLA 调度中的内存占用、峰值处的缓冲区，以及 XLA 运行的 kernel。"},
    "pg.speed.gradient": {"en": "Gradient memory, with and without jax.checkpoint",
                          "de": "Speicher des Gradienten, mit und ohne jax.checkpoint",
                          "zh": "梯度的内存，使用与不使用 jax.checkpoint"},
    "pg.speed.gradient_info": {
        "en": "jax.grad of the sum of the output, by the first argument: its memory with your code's "
              "jax.checkpoint calls and with them doing nothing",
        "de": "jax.grad der Summe der Ausgabe, nach dem ersten Argument: sein Speicher mit den "
              "jax.checkpoint-Aufrufen deines Codes und mit wirkungslos gemachten",
        "zh": "对输出之和、关于第一个参数求 jax.grad：分别在你的代码中的 jax.checkpoint 生效和不起作用时的内存"},
    "pg.speed.run": {"en": "Measure", "de": "Messen", "zh": "测量"},
    "pg.speed.roofline": {"en": "Roofline", "de": "Roofline", "zh": "Roofline 图"},
    "pg.speed.memory": {"en": "Memory over XLA's schedule", "de": "Speicher über den Ablaufplan von XLA",
                        "zh": "XLA 调度中的内存占用"},
    "pg.speed.gradient_plot": {"en": "Memory of jax.grad", "de": "Speicher von jax.grad",
                               "zh": "jax.grad 的内存"},
    "pg.speed.kernels": {"en": "Kernel timeline", "de": "Kernel-Zeitverlauf", "zh": "kernel 时间线"},
    # Parallel
    "pg.parallel.intro": {
        "en": "### Sharding a function across devices\nThis tab's workers get {devices} simulated CPU "
              "devices (`JAX_NUM_CPU_DEVICES`), on every host: the sharding is real, the devices share this "
              "machine's cores (a GPU or TPU belongs to the device owner, which does not run this tab). Build a "
              "mesh, say how each input is split with a `PartitionSpec`, and `jax.jit` does the rest.",
        "de": "### Eine Funktion über Geräte verteilen (Sharding)\nDie Worker dieses Tabs bekommen auf jedem "
              "Rechner {devices} simulierte CPU-Geräte (`JAX_NUM_CPU_DEVICES`): Das Sharding ist echt, die Geräte "
              "teilen sich die Kerne dieses Rechners (eine GPU oder TPU gehört dem Gerätebesitzer, der diesen Tab "
              "nicht ausführt). Baue ein Mesh, gib mit einer `PartitionSpec` an, wie jede Eingabe aufgeteilt wird, "
              "und `jax.jit` erledigt den Rest.",
        "zh": "### 把函数 sharding 到多个设备上\n在任何主机上，本标签页的工作进程都会得到 {devices} 个"
              "模拟的 CPU 设备（`JAX_NUM_CPU_DEVICES`）：sharding 是真实的，只是这些设备共用本机的 CPU 核心"
              "（GPU 或 TPU 归设备的所有者进程使用，它不运行本标签页）。构建一个 mesh，"
              "用 `PartitionSpec` 说明每个输入如何切分，剩下的交给 `jax.jit`。"},
    "pg.parallel.function": {"en": "Your function", "de": "Deine Funktion", "zh": "你的函数"},
    "pg.parallel.args": {"en": "Arguments", "de": "Argumente", "zh": "参数"},
    "pg.parallel.mesh": {"en": "Mesh shape", "de": "Mesh-Shape", "zh": "Mesh 形状"},
    "pg.parallel.axes": {"en": "Axis names", "de": "Achsennamen", "zh": "轴名称"},
    "pg.parallel.in_specs": {"en": "in_specs (one PartitionSpec per argument)",
                             "de": "in_specs (eine PartitionSpec pro Argument)",
                             "zh": "in_specs（每个参数一个 PartitionSpec）"},
    "pg.parallel.run": {"en": "Shard and run", "de": "Sharden und ausführen", "zh": "分片并运行"},
    "pg.parallel.demos_intro": {"en": "### Collectives, a data-parallel step, and pmap",
                                "de": "### Kollektive Operationen, ein datenparalleler Schritt und pmap",
                                "zh": "### 集合通信（collective）、一个数据并行的训练步骤，以及 pmap"},
    "pg.parallel.demos": {"en": "Run the demos", "de": "Demos ausführen", "zh": "运行演示"},
    # Train
    "pg.train.intro": {
        "en": "### Train the MNIST MLP live\nThe classic JAX example: a multilayer perceptron (ReLU hidden layers, "
              "log-softmax output) whose parameters are a list of `(W, b)` pairs, `predict` written for one image and "
              "batched with `vmap`, and a jitted update that runs many SGD steps per call. It trains in the device "
              "owner, the one process that holds this server's accelerator (or its CPU), and the curves redraw as "
              "it learns: a point for every step.",
        "de": "### Das MNIST-MLP live trainieren\nDas klassische JAX-Beispiel: ein mehrschichtiges Perzeptron "
              "(versteckte ReLU-Schichten, log-softmax-Ausgabe), dessen Parameter eine Liste von `(W, b)`-Paaren "
              "sind, `predict` für ein Bild geschrieben und mit `vmap` auf den Batch erweitert, und ein Update mit "
              "jit, das pro Aufruf viele SGD-Schritte macht. Es trainiert im Gerätebesitzer, dem einen "
              "Prozess, der den Beschleuniger dieses Servers (oder seine CPU) hält, und die Kurven werden neu "
              "gezeichnet, während es lernt: ein Punkt für jeden Schritt.",
        "zh": "### 实时训练 MNIST MLP\n经典的 JAX 示例：一个多层感知机（ReLU 隐藏层，log-softmax 输出），参数是由 "
              "`(W, b)` 对组成的列表；`predict` 只为一张图像编写，再用 `vmap` 批处理；一个经过 jit 的更新函数每次调用"
              "执行许多个 SGD 步骤。它在设备的所有者进程中训练（唯一持有本服务器加速器或 CPU "
              "的进程），曲线会随着学习过程不断重绘：每一步一个点。"},
    "pg.train.dataset": {"en": "Dataset", "de": "Datensatz", "zh": "数据集"},
    "pg.train.layers": {"en": "Layer sizes (784 in, 10 out)",
                        "de": "Schichtgrößen (784 rein, 10 raus)",
                        "zh": "各层大小（输入 784，输出 10）"},
    "pg.train.layers_info": {"en": "2 to {count} sizes, each 1 to {width}",
                             "de": "2 bis {count} Größen, jede 1 bis {width}",
                             "zh": "2 到 {count} 个大小，每个 1 到 {width}"},
    "pg.train.range": {"en": "{low} to {high}", "de": "{low} bis {high}", "zh": "{low} 到 {high}"},
    "pg.train.optimizer": {"en": "Optimizer (optax)", "de": "Optimierer (optax)", "zh": "优化器（optax）"},
    "pg.train.learning_rate": {"en": "Learning rate", "de": "Lernrate", "zh": "学习率"},
    "pg.train.batch_size": {"en": "Batch size", "de": "Batch-Größe", "zh": "批大小"},
    "pg.train.epochs": {"en": "Epochs", "de": "Epochen", "zh": "训练轮数（epoch）"},
    "pg.train.seed": {"en": "Seed", "de": "Seed", "zh": "随机种子"},
    "pg.train.data_parallel": {"en": "Data-parallel over all devices",
                               "de": "Datenparallel über alle Geräte",
                               "zh": "在所有设备上数据并行"},
    "pg.train.data_parallel_info": {
        "en": "The batch is split across every local device, the parameters are replicated, and XLA "
              "all-reduces the gradients. Needs a batch size that divides by the device count.",
        "de": "Der Batch wird auf alle lokalen Geräte aufgeteilt, die Parameter werden repliziert, und XLA summiert "
              "die Gradienten per All-Reduce. Die Batch-Größe muss durch die Anzahl der Geräte teilbar sein.",
        "zh": "批次被切分到每个本地设备上，参数在各设备上复制，XLA 对梯度做 all-reduce。批大小必须能被设备数整除。"},
    "pg.race.title": {"en": "Race: this host's CPU against its accelerator", "de": "Rennen: die CPU dieses Rechners "
                      "gegen seinen Beschleuniger", "zh": "比赛：本机 CPU 对阵加速器"},
    "pg.race.run": {"en": "Race", "de": "Rennen", "zh": "比赛"},
    "pg.race.plot": {"en": "Loss against the clock", "de": "Loss über der Zeit", "zh": "损失随时间变化"},
    "pg.train.start": {"en": "Start", "de": "Starten", "zh": "开始"},
    "pg.train.stop": {"en": "Stop", "de": "Stoppen", "zh": "停止"},
    "pg.train.loss": {"en": "Training loss", "de": "Trainingsverlust", "zh": "训练损失"},
    "pg.train.accuracy": {"en": "Accuracy", "de": "Genauigkeit", "zh": "准确率"},
    "pg.train.throughput": {"en": "Throughput", "de": "Durchsatz", "zh": "吞吐量"},
    "pg.train.grid": {"en": "Test digits (wrong ones in red)",
                      "de": "Testziffern (falsch erkannte in Rot)",
                      "zh": "测试数字（识别错误的标为红色）"},
    "pg.train.confusion": {"en": "Confusion matrix", "de": "Konfusionsmatrix", "zh": "混淆矩阵"},
    "pg.train.params": {"en": "Trained parameters (.npz: w0, b0, w1, b1, …)",
                        "de": "Trainierte Parameter (.npz: w0, b0, w1, b1, …)",
                        "zh": "训练好的参数（.npz：w0, b0, w1, b1, …）"},
    "pg.train.metrics": {"en": "Metrics (CSV)", "de": "Metriken (CSV)", "zh": "指标（CSV）"},
    "pg.train.draw_intro": {
        "en": "#### Draw a digit\nDraw with the mouse, a pen or a finger; it is prepared the way MNIST digits were "
              "(cropped, scaled to fit 20 × 20, centred by its centre of mass in 28 × 28) and classified by the model "
              "you trained.",
        "de": "#### Zeichne eine Ziffer\nZeichne mit der Maus, einem Stift oder dem Finger; die Zeichnung wird so "
              "aufbereitet wie die MNIST-Ziffern (zugeschnitten, auf 20 × 20 skaliert, nach ihrem Schwerpunkt in "
              "28 × 28 zentriert) und von dem Modell klassifiziert, das du trainiert hast.",
        "zh": "#### 画一个数字\n用鼠标、触控笔或手指画；它会按 MNIST 数字当年的方式预处理（裁剪、缩放到 20 × 20 以内、"
              "按质心居中放入 28 × 28），再由你训练的模型来分类。"},
    "pg.train.sketch": {"en": "Draw here", "de": "Hier zeichnen", "zh": "在这里画"},
    "pg.train.seen": {"en": "What the model sees (28 × 28)",
                      "de": "Was das Modell sieht (28 × 28)",
                      "zh": "模型看到的图像（28 × 28）"},
    "pg.train.probabilities": {"en": "Class probabilities", "de": "Klassenwahrscheinlichkeiten", "zh": "各类别的概率"},
    # Share links (share_links.py)
    "pg.share.copy": {"en": "Copy link", "de": "Link kopieren", "zh": "复制链接"},
    "pg.share.link": {"en": "Link to this state (in the address bar too)",
                      "de": "Link zu diesem Stand (auch in der Adressleiste)",
                      "zh": "指向当前状态的链接（地址栏中也有）"},
    "pg.share.class_panel": {"en": "Make a class link", "de": "Link für die Klasse erstellen", "zh": "生成课堂链接"},
    "pg.share.hide": {"en": "Hide these controls", "de": "Diese Bedienelemente ausblenden", "zh": "隐藏这些控件"},
    "pg.share.read_only": {"en": "Make the code read-only",
                           "de": "Code schreibgeschützt machen",
                           "zh": "将代码设为只读"},
    "pg.share.exercise": {"en": "Exercise text, shown above the editor (Markdown)",
                          "de": "Aufgabentext, über dem Editor angezeigt (Markdown)",
                          "zh": "练习说明，显示在编辑器上方（Markdown）"},
    "pg.share.make": {"en": "Make the class link", "de": "Klassen-Link erstellen", "zh": "生成课堂链接"},
    # What a tab opened by a link says above its controls (link_notes.py)
    "pg.share.kept": {"en": "**Your edits are back.** This browser kept them for this link, so that a reload does "
                            "not lose them.",
                      "de": "**Deine Änderungen sind wieder da.** Dieser Browser hat sie für diesen Link aufbewahrt, "
                            "damit ein Neuladen sie nicht verliert.",
                      "zh": "**你的修改已恢复。** 此浏览器为这个链接保存了它们，重新加载页面不会丢失。"},
    "pg.share.back_link": {"en": "Back to the link's version", "de": "Zurück zur Fassung des Links",
                           "zh": "恢复为链接中的版本"},
    "pg.share.back_teacher": {"en": "Back to the teacher's version", "de": "Zurück zur Fassung der Lehrkraft",
                              "zh": "恢复为老师的版本"},
    "pg.share.locked": {"en": "**Read-only:** this class link locks the code, so typing in it changes nothing. To "
                              "change it, press **Edit a copy**: the code becomes yours to edit, and the address "
                              "then leads to your copy.",
                        "de": "**Schreibgeschützt:** Dieser Klassen-Link sperrt den Code, Tippen ändert darin "
                              "nichts. Um ihn zu ändern, drücke **Kopie bearbeiten**: Dann kannst du den Code "
                              "bearbeiten, und die Adresse führt zu deiner Kopie.",
                        "zh": "**只读**：这个课堂链接锁定了代码，在其中输入不会有任何改变。要修改它，请点击"
                              "**编辑副本**：代码将变为可编辑，地址栏中的链接也会指向你的副本。"},
    "pg.share.edit_copy": {"en": "Edit a copy", "de": "Kopie bearbeiten", "zh": "编辑副本"},
    "pg.share.locked_label": {"en": "read-only", "de": "schreibgeschützt", "zh": "只读"},
    # The controls a class link can hide (each tab's HIDEABLE), by their English words
    "pg.hide.Arguments": {"en": "Arguments", "de": "Argumente", "zh": "参数"},
    "pg.hide.Call again with": {"en": "Call again with", "de": "Noch einmal aufrufen mit", "zh": "再次调用时的参数"},
    "pg.hide.Examples": {"en": "Examples", "de": "Beispiele", "zh": "示例"},
    "pg.hide.API response (JSON)": {"en": "API response (JSON)", "de": "API-Antwort (JSON)", "zh": "API 响应（JSON）"},
    "pg.hide.Preset": {"en": "Preset", "de": "Vorlage", "zh": "预设"},
    "pg.hide.Highest order": {"en": "Highest order", "de": "Höchste Ordnung", "zh": "最高阶数"},
    "pg.hide.The range of x": {"en": "The range of x", "de": "Der Bereich von x", "zh": "x 的范围"},
    "pg.hide.Grid points": {"en": "Grid points", "de": "Gitterpunkte", "zh": "网格点数"},
    "pg.hide.The jaxpr of one order": {"en": "The jaxpr of one order",
                                       "de": "Das jaxpr einer Ordnung",
                                       "zh": "某一阶的 jaxpr"},
    "pg.hide.The gradient and Hessian part": {"en": "The gradient and Hessian part",
                                              "de": "Den Teil zu Gradient und Hesse-Matrix",
                                              "zh": "梯度与 Hessian 部分"},
    "pg.hide.Sizes n": {"en": "Sizes n", "de": "Größen n", "zh": "尺寸 n"},
    "pg.hide.Timed runs per size": {"en": "Timed runs per size",
                                    "de": "Gemessene Läufe pro Größe",
                                    "zh": "每个尺寸的计时次数"},
    "pg.hide.Mesh shape and axis names": {"en": "Mesh shape and axis names",
                                          "de": "Mesh-Shape und Achsennamen",
                                          "zh": "Mesh 形状与轴名称"},
    "pg.hide.in_specs and out_specs": {"en": "in_specs and out_specs",
                                       "de": "in_specs und out_specs",
                                       "zh": "in_specs 与 out_specs"},
    "pg.hide.The demos part": {"en": "The demos part", "de": "Den Teil mit den Demos", "zh": "演示部分"},
    "pg.hide.Dataset": {"en": "Dataset", "de": "Datensatz", "zh": "数据集"},
    "pg.hide.Layer sizes": {"en": "Layer sizes", "de": "Schichtgrößen", "zh": "各层大小"},
    "pg.hide.Optimizer": {"en": "Optimizer", "de": "Optimierer", "zh": "优化器"},
    "pg.hide.Learning rate": {"en": "Learning rate", "de": "Lernrate", "zh": "学习率"},
    "pg.hide.Batch size": {"en": "Batch size", "de": "Batch-Größe", "zh": "批大小"},
    "pg.hide.Epochs": {"en": "Epochs", "de": "Epochen", "zh": "训练轮数"},
    "pg.hide.Seed": {"en": "Seed", "de": "Seed", "zh": "随机种子"},
    "pg.hide.Data-parallel": {"en": "Data-parallel", "de": "Datenparallel", "zh": "数据并行"},
    "pg.hide.One example's arguments": {"en": "One example's arguments",
                                        "de": "Argumente eines Beispiels",
                                        "zh": "单个样本的参数"},
    "pg.hide.in_axes and out_axes": {"en": "in_axes and out_axes",
                                     "de": "in_axes und out_axes",
                                     "zh": "in_axes 与 out_axes"},
    "pg.hide.Batch sizes": {"en": "Batch sizes", "de": "Batch-Größen", "zh": "批大小"},
    # About
    "pg.about.intro": {
        "en": "**What this is for:** seeing what JAX does with a small function of yours: how `jit` traces it into a "
              "jaxpr, lowers it and compiles it; its derivatives with `grad`; batching with `vmap`; what `jit` buys "
              "in speed; how XLA's passes change it; sharding it over devices; and a small network trained live.\n\n"
              "**Where to start:** the **Inspect** tab: press Run on its example and read the jaxpr beside your code. "
              "Then **Derivatives**, **vmap** and **jit**, each with presets to try; **Speed of light** for how close "
              "your function comes to what the machine can do (a roofline, its memory, its kernels); **Compiler** "
              "for XLA's passes and graphs; **Parallel** for sharding; **Train** for MNIST. Every tab's **Copy "
              "link** shares what you see.\n\n"
              "Below: what this server runs on, and how your code is kept in its sandbox.",
        "de": "**Wofür das ist:** um zu sehen, was JAX mit einer kleinen Funktion von dir macht: wie `jit` sie per "
              "Tracing in einen jaxpr verwandelt, nach StableHLO übersetzt und kompiliert; ihre Ableitungen mit "
              "`grad`; Batches mit `vmap`; was `jit` an Tempo bringt; wie die Passes von XLA sie verändern; Sharding "
              "über Geräte; und ein kleines Netz, das vor deinen Augen lernt.\n\n"
              "**Wo du anfängst:** im Tab **Untersuchen**: drück beim Beispiel auf Ausführen und lies den jaxpr neben "
              "deinem Code. Dann **Ableitungen**, **vmap** und **jit**, jeweils mit Vorlagen zum Ausprobieren; "
              "**Lichtgeschwindigkeit** dafür, wie nah deine Funktion an das kommt, was die Maschine kann "
              "(Roofline, Speicher, Kernels); **Compiler** für die Passes und Graphen von XLA; **Parallel** für "
              "Sharding; **Training** für MNIST. **Link kopieren** teilt in jedem Tab, was du siehst.\n\n"
              "Darunter: worauf dieser Server läuft und wie dein Code in seiner Sandbox gehalten wird.",
        "zh": "**这是做什么的：**看看 JAX 如何处理你写的一个小函数：`jit` 怎样把它追踪成 jaxpr、降级并编译；用 "
              "`grad` 求导；用 `vmap` 批处理；`jit` 能带来多少速度；XLA 的 pass "
              "如何改变它；把它分片到多个设备上；以及实时训练一个小网络。\n\n"
              "**从哪里开始：**先看**检查**标签页：在示例上按运行，对照你的代码阅读 jaxpr。然后是**导数**、**vmap** "
              "和 **jit**，每个都有预设可以试；**光速上限**展示你的函数离这台机器的能力有多近（roofline、内存、"
              "kernel）；**编译器**展示 XLA 的 pass 和图；**并行**展示分片；**训练**用 "
              "MNIST。每个标签页的**复制链接**都能分享你看到的内容。\n\n"
              "下面：这台服务器运行在什么上，以及你的代码如何被限制在沙箱中。"},
    "pg.about.raw": {"en": "/about response (JSON)", "de": "Antwort von /about (JSON)", "zh": "/about 的响应（JSON）"},
    "pg.about.refresh": {"en": "Refresh", "de": "Aktualisieren", "zh": "刷新"},
}
